#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging

/// Collects page-flip events while `drmHandleEvent` runs; its address is the events' user data.
final class PageFlipSink {
    var flips: [(crtc: UInt32, seconds: UInt32, microseconds: UInt32)] = []
}

/// The commit that shows a frame on every output at once (weston's `repaint_begin` /
/// `repaint_flush`, wlroots' one commit interface over `atomic.c` and `legacy.c`): the outputs
/// stage their page flips (`KMSOutput.commit`), and `flushCommit` queues them in ONE atomic
/// commit, or one by one where the driver refuses that or legacy modesetting is in use
/// (`KMSCommitter`). Then the page-flip events, read from the DRM descriptor.
extension KMSBackend {
    /// A frame's commits begin: flips a failed frame staged and never flushed go back.
    public func beginCommit() {
        for s in stagedFlips { s.output.flipFailed() }
        stagedFlips.removeAll()
    }

    /// An output's frame is drawn and swapped: its flip waits for `flushCommit`.
    func stage(_ output: KMSOutput, _ flip: PageFlip) {
        stagedFlips.append((output, flip))
    }

    /// Queues every staged flip: with atomic modesetting all in one commit (the outputs change
    /// on the same refresh where their CRTCs share it, and a driver that refuses is asked output
    /// by output from then on).
    public func flushCommit() throws {
        let flips = stagedFlips
        stagedFlips.removeAll()
        try commit(flips)
    }

    /// Commits the prepared flips: together where the committer can, else one by one.
    private func commit(_ flips: [(output: KMSOutput, flip: PageFlip)]) throws {
        guard !flips.isEmpty else { return }
        let userData = Unmanaged.passUnretained(sink).toOpaque()
        if flips.count > 1, committer.flipsOutputsTogether, !flipsOneByOne {
            do {
                try committer.pageFlip(flips.map(\.flip), userData: userData)
                for f in flips { queued(f.output) }
                let names = flips.map(\.output.name)
                if names != flippedTogether {
                    flippedTogether = names
                    logger.info("kms: \(names.joined(separator: ", ")) flip together, in one atomic commit")
                }
                return
            } catch let error where error.isPermissionDenied {
                for f in flips { dropped(f.output, error) }
                return
            } catch {
                flipsOneByOne = true
                logger.notice("kms: the driver refused one commit for \(flips.count) outputs (\(error)); each output flips alone from now on")
            }
        }
        var firstError: (any Error)?
        for f in flips {
            do {
                try committer.pageFlip([f.flip], userData: userData)
                queued(f.output)
            } catch let error where error.isPermissionDenied {
                dropped(f.output, error)
            } catch let error where committer is AtomicCommitter {
                f.output.flipFailed()
                fallBackToLegacy(after: error, on: f.output.name)
            } catch {
                f.output.flipFailed()
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    func queued(_ output: KMSOutput) {
        output.flipQueued()
        if let clips = output.lastFlipDamage, !clips.isEmpty {
            let share = Int((clips.area / (Double(output.mode.width) * Double(output.mode.height)) * 1000).rounded())
            logger.debug("kms: \(output.name): flip with damage clips \(clips) (\(Double(share) / 10)% of the output), buffer age \(output.lastBufferAge)")
        }
    }

    /// A VT switch or another compositor took the display: the frame is dropped, and the output
    /// modesets when it comes back.
    func dropped(_ output: KMSOutput, _ error: DRMError) {
        logger.warning("kms: \(output.name): \(error); DRM master lost? the frame is dropped")
        output.flipFailed()
        output.invalidate()
    }

    func fallBackToLegacy(after error: any Error, on name: String) {
        logger.warning("kms: atomic commit refused on \(name) (\(error)); falling back to legacy modesetting")
        committer = LegacyCommitter(drm: drm)
        for o in lit { o.invalidate() }
    }

    /// Reads the page-flip events waiting on the DRM descriptor: each output's flip that
    /// completed, with its time, joins `unreportedFlips` (reported by `dispatchEvents`; read
    /// anywhere else, the repaint loop would wait for them for ever).
    /// The corresponding C function is `drmHandleEvent`.
    func readFlipEvents() throws(DRMError) {
        var context = drmEventContext()
        context.version = 3
        context.page_flip_handler2 = { _, _, seconds, microseconds, crtc, data in
            guard let data else { return }
            Unmanaged<PageFlipSink>.fromOpaque(data).takeUnretainedValue().flips.append((crtc, seconds, microseconds))
        }
        let r = drmHandleEvent(drm.fd, &context)
        if r != 0, errno != EAGAIN { throw DRMError("drmHandleEvent on \(drm.path)", errno: errno) }
        for flip in sink.flips {
            guard let output = lit.first(where: { $0.target.crtc == flip.crtc }) else { continue }
            output.flipCompleted()
            unreportedFlips.append(BackendEvents.Presentation(output: output.name, time: Self.presentationTime(flip.seconds, flip.microseconds)))
        }
        sink.flips.removeAll()
    }

    /// The event's CLOCK_MONOTONIC time, or now where the device gives none (virtual GPUs send 0).
    private static func presentationTime(_ seconds: UInt32, _ microseconds: UInt32) -> Double {
        let now = monotonicSeconds()
        let stamp = Double(seconds) + Double(microseconds) * 1e-6
        return stamp > 0 && stamp <= now && now - stamp < 1 ? stamp : now
    }

    /// Blocks until no flip is queued, or throws after `timeout` seconds (a hung display path):
    /// a modeset or a power change must not race a flip. The flips read here are reported by
    /// the next `dispatchEvents`, which the wake descriptor makes sure comes.
    func waitForFlips(timeout: Double) throws {
        defer { if !unreportedFlips.isEmpty { wakeDispatch() } }
        let deadline = monotonicSeconds() + timeout
        while lit.contains(where: \.isFlipPending) {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { throw DRMError("waiting for a page flip on \(drm.path) (none came in \(timeout) s)", errno: ETIMEDOUT) }
            var pfd = pollfd(fd: drm.fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(left * 1000) + 1)
            if r < 0, errno != EINTR { throw DRMError("poll on \(drm.path)", errno: errno) }
            if r > 0 { try readFlipEvents() }
        }
    }
}
