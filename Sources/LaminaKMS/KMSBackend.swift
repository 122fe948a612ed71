#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaServer
import Logging

/// No DRM device could be used; each reason names a card and why it was passed over.
public struct KMSUnavailable: Error, CustomStringConvertible {
    public var reasons: [String]
    public var description: String { reasons.isEmpty ? "no DRM device under /dev/dri" : reasons.joined(separator: "; ") }
}

/// A screenshot asked for before any frame was presented.
public enum KMSScreenshotError: Error, CustomStringConvertible {
    case nothingPresented
    public var description: String { "nothing has been presented yet, so there is no frame to read" }
}

/// Collects page-flip events while `drmHandleEvent` runs; its address is the events' user data.
private final class PageFlipSink {
    var flips: [(crtc: UInt32, seconds: UInt32, microseconds: UInt32)] = []
}

/// Shows frames on displays through DRM/KMS (kmscube's path, wlroots' DRM backend in small):
/// GBM surfaces drawn by the renderer's side (`ScanoutGraphics`: EGL on the GBM platform, made
/// by laminad; this module knows no GL), framebuffers cached on the buffers, atomic
/// commits with a legacy fallback, page-flip events through `eventDescriptor`, and hotplug
/// through a udev monitor.
///
/// All outputs form one desktop: each shows the part of the draw list its position covers.
/// Like the graphics context it draws with, a backend must be used on the thread that created it.
public final class KMSBackend: DisplayBackend {
    public let drm: DRMDevice
    /// Atomic, or legacy where atomic was refused or turned off.
    public private(set) var committer: any KMSCommitter
    /// What the outputs are drawn with (the renderer, surfaces over the GBM surfaces).
    public let graphics: any ScanoutGraphics
    /// The whole desktop as last presented (screenshots that redraw it).
    private var lastList: DrawList?
    /// One line on what was chosen and why: "/dev/dri/card0 (virtio_gpu, atomic): Virtual-1 1280x800@60".
    public var summary: String {
        "\(drm.path) (\(drm.driverName), \(committer.name)): "
            + (outputs.isEmpty ? "no display connected" : outputs.map { "\($0.name) \($0.mode)" }.joined(separator: ", "))
    }

    private let gbm: GBMDevice
    private let configuration: KMSConfiguration
    private let logger: Logger
    private var outputs: [KMSOutput] = []
    private let sink = PageFlipSink()
    private let hotplug: UdevMonitor?
    /// The libseat seat the card came from, or nil where it was opened directly.
    public let seat: SeatSession?
    /// The virtual terminal taken where the card was opened directly (root, no seat manager),
    /// or nil where there is none (no /dev/tty0, as in a container) or a seat manager handles VTs.
    public let terminal: VirtualTerminal?
    /// False while the seat is disabled or the VT switched away from: nothing is drawn or flipped.
    public var isActive: Bool { seat?.isActive ?? terminal?.isActive ?? true }

    /// Stops the console of the VT laminad holds (directly, as root) from reading the keyboard,
    /// once laminad reads it itself; restored when the VT is given back. Under a seat (seatd,
    /// logind) the seat does this. Logged, never fatal.
    public func takeConsoleKeyboard() {
        guard let terminal else { return }
        do {
            try terminal.silenceKeyboard()
            logger.info("vt: the console on tty\(terminal.number) no longer reads the keyboard (laminad does; Ctrl+Alt+Fn switches VTs)")
        } catch {
            logger.warning("vt: \(error); keys typed here also reach the console on tty\(terminal.number)")
        }
    }

    /// Switches to VT `n` through the seat, or the VT laminad holds.
    public func switchVT(_ n: Int32) throws(DRMError) {
        if let seat { try seat.switchSession(n) } else if let terminal { try terminal.switchTo(n) }
    }
    private let epoll: FileDescriptor
    private var needsRedraw = false
    /// The cursor's buffers where a cursor is configured (`[display] cursor`), one per output
    /// transform in use (the arrow turned with its output), made when first needed.
    private var cursorBuffers: [OutputTransform: CursorBuffer] = [:]
    /// Transforms whose buffer could not be made: those outputs draw the cursor.
    private var cursorBufferFailed: Set<OutputTransform> = []
    /// Where the cursor's hot spot was last asked to be (`setCursor`), in desktop points; nil
    /// until then, which means `cursor_position` or the first output's centre.
    private var cursorPoint: Point?
    /// Hidden by `setCursor(nil)` until the next point.
    private var cursorHidden = false
    /// Where the cursor showed last, for the log: the output's name and how, or nil (hidden).
    private var cursorShownOn: String?
    /// The output (CRTC) whose frames draw the cursor, and where its tip is in desktop points,
    /// where that output has no cursor plane (the renderer draws the arrow there, on top of
    /// everything); nil otherwise.
    private var drawnCursor: (crtc: UInt32, x: Int, y: Int)?
    /// The desktop's size in points: the extent of the lit outputs. It changes when a display
    /// is plugged in or changes mode (the daemon then resizes the compositor's display); it
    /// keeps its last value when the last display goes, and is the configured fallback size
    /// until the first one comes.
    public private(set) var width: Int
    public private(set) var height: Int

    // MARK: Opening

    /// Opens the configured card, or the first card under /dev/dri with a connected connector
    /// that this process can become DRM master of. With `requireConnectedOutput` false (an
    /// explicit `--backend kms`), a mastered card with nothing connected is used too.
    public static func open(configuration: KMSConfiguration, requireConnectedOutput: Bool, graphics: ScanoutGraphicsFactory,
                            logger: Logger) throws -> KMSBackend {
        let paths = configuration.devicePath.map { [$0] } ?? DRMDevice.cardPaths()
        var reasons: [String] = []
        var fallback: DRMDevice?
        var seat: SeatSession?
        // Before Mesa or anything else starts threads: VT signals must only reach the signalfd.
        VirtualTerminal.blockSignals()
        switch configuration.session {
        case .direct:
            break
        case .libseat:
            do { seat = try SeatSession(verbose: logger.logLevel <= .debug) } catch {
                throw KMSUnavailable(reasons: ["session = libseat: \(error)"])
            }
        case .auto where SeatSession.managerReachable:
            do { seat = try SeatSession(verbose: logger.logLevel <= .debug) } catch {
                logger.notice("kms: \(error); opening the card directly")
            }
        case .auto:
            break
        }
        if let seat {
            logger.notice("kms: seat \(seat.name) through libseat")
        } else {
            logger.info("kms: opening the card directly (no seat manager\(geteuid() == 0 ? "; running as root" : ""))")
        }
        for path in paths {
            do {
                let drm = try seat.map { seat throws(DRMError) in try DRMDevice(path: path, seat: seat) } ?? DRMDevice(path: path)
                try drm.becomeMaster()
                let resources = try drm.resources()
                if resources.connected.isEmpty {
                    reasons.append("\(path): no connected connector (\(resources.connectors.map(\.name).joined(separator: ", ")))")
                    if fallback == nil { fallback = drm }
                    continue
                }
                return try KMSBackend(drm: drm, seat: seat, configuration: configuration, graphics: graphics, logger: logger)
            } catch let error as DRMError where error.isPermissionDenied && error.call.hasPrefix("drmSetMaster") {
                reasons.append("\(path): another process is DRM master (\(error))")
            } catch {
                reasons.append("\(path): \(error)")
            }
        }
        if !requireConnectedOutput, let fallback {
            return try KMSBackend(drm: fallback, seat: seat, configuration: configuration, graphics: graphics, logger: logger)
        }
        throw KMSUnavailable(reasons: reasons)
    }

    /// Sets up GBM on `drm`, which must be master, and the graphics `makeGraphics` makes for it, and lights every connected
    /// connector the configuration allows (the modeset happens with the first frame).
    public init(drm: DRMDevice, seat: SeatSession? = nil, configuration: KMSConfiguration, graphics makeGraphics: ScanoutGraphicsFactory,
                logger: Logger) throws {
        self.drm = drm
        self.seat = seat
        self.configuration = configuration
        self.logger = logger
        // Opened directly (root on a kiosk): take the VT ourselves, as the seat manager would.
        // Only now that the card is mastered, so a second laminad that cannot master it leaves
        // the first one's VT alone.
        if seat == nil {
            do {
                let vt = try VirtualTerminal(number: configuration.virtualTerminal)
                terminal = vt
                logger.notice("kms: VT \(vt.number) in graphics mode; switching away (signals SIGRTMIN+4/+5) stops drawing and drops DRM master")
            } catch {
                terminal = nil
                logger.notice("kms: no VT handling (\(error)); VT switches are not followed")
            }
        } else {
            terminal = nil
        }
        let noAtomic = SocketPath.environment("LAMINA_KMS_NO_ATOMIC") == "1"
        if configuration.forceLegacy || noAtomic {
            committer = LegacyCommitter(drm: drm)
            logger.info("kms: legacy modesetting (\(noAtomic ? "LAMINA_KMS_NO_ATOMIC=1" : "atomic = false in the configuration"))")
        } else {
            do {
                committer = try AtomicCommitter(drm: drm)
            } catch {
                committer = LegacyCommitter(drm: drm)
                logger.notice("kms: legacy modesetting (\(error))")
            }
        }
        gbm = try GBMDevice(drm: drm)
        // Scan-out needs XRGB8888 buffers.
        graphics = try makeGraphics(gbm.handle, DRMFormat.xrgb8888)

        do {
            hotplug = try UdevMonitor()
        } catch {
            hotplug = nil
            logger.warning("kms: no hotplug (\(error)); displays connected later will not light up")
        }
        // One descriptor for the daemon's loop to watch, however many this backend has.
        let set = FileDescriptor(owning: try retryingEINTR("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        for fd in [drm.fd] + (hotplug.map { [$0.fd] } ?? []) + (seat.map { [$0.fd] } ?? []) + (terminal.map { [$0.fd] } ?? []) {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            try retryingEINTR("epoll_ctl(ADD)") { epoll_ctl(set.rawValue, EPOLL_CTL_ADD, fd, &event) }
        }
        epoll = set

        let resources = try drm.resources()
        var lit: [KMSOutput] = []
        for connector in resources.connected where lit.count < configuration.maxOutputs {
            if let output = Self.makeOutput(connector, resources: resources, taken: lit, drm: drm, gbm: gbm, graphics: graphics,
                                            configuration: configuration, logger: logger) {
                lit.append(output)
            }
        }
        outputs = lit
        let extent = Self.desktopExtent(lit) ?? configuration.fallbackSize
        width = extent.width
        height = extent.height
        placeCursor()
        logger.notice("kms: \(summary); desktop \(width)x\(height); renderer \(graphics.summary)")
        seat?.onDisable = { [unowned self] in seatDisabled() }
        seat?.onEnable = { [unowned self] in seatEnabled() }
        terminal?.onRelease = { [unowned self] in terminalReleased() }
        terminal?.onAcquire = { [unowned self] in terminalAcquired() }
        if lit.isEmpty {
            logger.notice("kms: no display connected: waiting for one to be plugged in\(hotplug == nil ? " (but there is no hotplug monitor)" : "")")
        }
    }

    deinit {
        // Switched away: the display belongs to someone else now; leave it alone.
        if isActive {
            try? waitForFlips(timeout: 1)
            for output in outputs { output.restore(drm: drm, committer: committer) }
            outputs.removeAll()
        }
        // Text mode and VT_AUTO: the console draws and switches by itself again.
        terminal?.restore()
    }

    private static func desktopExtent(_ outputs: [KMSOutput]) -> (width: Int, height: Int)? {
        guard !outputs.isEmpty else { return nil }
        let w = outputs.map { $0.origin.x + $0.logicalSize.width }.max()!
        let h = outputs.map { $0.origin.y + $0.logicalSize.height }.max()!
        return (w, h)
    }

    /// An output for `connector` on a free CRTC, or nil (logged) where it cannot be lit.
    private static func makeOutput(
        _ connector: DRMConnector, resources: DRMResources, taken: [KMSOutput], drm: DRMDevice, gbm: GBMDevice,
        graphics: any ScanoutGraphics, configuration: KMSConfiguration, logger: Logger
    ) -> KMSOutput? {
        let settings = configuration.output(named: connector.name)
        guard settings.enabled else {
            logger.info("kms: \(connector.name) is disabled in the configuration")
            return nil
        }
        var mode = connector.preferredMode
        if let wanted = settings.mode {
            if let match = wanted.best(of: connector.modes) {
                mode = match
            } else {
                logger.warning("kms: \(connector.name) has no mode \(wanted) (it offers \(Set(connector.modes.map { "\($0.width)x\($0.height)" }).sorted().joined(separator: ", "))); using \(mode.map(\.description) ?? "none")")
            }
        }
        guard let mode else { return nil }
        let busy = Set(taken.map(\.target.crtc))
        let crtcs = (connector.currentCRTC.map { [$0] } ?? []) + connector.possibleCRTCs
        guard let crtc = crtcs.first(where: { !busy.contains($0) && connector.possibleCRTCs.contains($0) }) else {
            logger.warning("kms: \(connector.name): no free CRTC")
            return nil
        }
        guard let plane = resources.primaryPlane(for: crtc, format: DRMFormat.xrgb8888) else {
            logger.warning("kms: \(connector.name): no primary plane on CRTC \(crtc) scans out XRGB8888")
            return nil
        }
        do {
            let surface = try GBMSurface(device: gbm, width: mode.width, height: mode.height, format: DRMFormat.xrgb8888)
            let window = try graphics.makeSurface(window: surface.handle, width: mode.width, height: mode.height, owner: surface)
            var target = CommitTarget(connector: connector, crtc: crtc,
                                      crtcProperties: drm.properties(of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC)),
                                      plane: plane, mode: mode)
            if configuration.cursor {
                target.cursorPlane = resources.planes.first {
                    $0.kind == .cursor && $0.possibleCRTCs.contains(crtc) && $0.formats.contains(DRMFormat.argb8888)
                }
            }
            let x = taken.map { $0.origin.x + $0.logicalSize.width }.max() ?? 0
            func has(_ yes: Bool) -> String { yes ? "yes" : "no" }
            logger.info("kms: \(connector.name): damage: buffer age \(has(window.supportsBufferAge)), swap with damage \(has(window.supportsSwapWithDamage)), FB_DAMAGE_CLIPS \(has(plane.properties.ids["FB_DAMAGE_CLIPS"] != nil))")
            return KMSOutput(configuration: settings, target: target, surface: window, gbm: surface,
                             origin: settings.position ?? (x, 0), saved: SavedCRTC(drm: drm, crtc: crtc))
        } catch {
            logger.error("kms: \(connector.name) \(mode): \(error)")
            return nil
        }
    }

    // MARK: DisplayBackend

    public var name: String { "kms" }
    public var renderer: any Renderer { graphics.renderer }
    public var eventDescriptor: Int32? { epoll.rawValue }
    public var isFramePending: Bool { outputs.contains(where: \.isFlipPending) }
    public var refreshInterval: Double? { outputs.first.map(\.mode.refreshInterval) }
    public var pagedOutputs: [(name: String, refreshInterval: Double)] {
        isActive ? outputs.filter(\.isEnabled).map { ($0.name, $0.mode.refreshInterval) } : []
    }
    /// The lit outputs' connector names, in desktop order.
    public var outputNames: [String] { outputs.map(\.name) }
    /// The frame presented last. With one output showing the whole desktop unturned and
    /// unscaled, the pixels of its scanned-out (or queued) buffer, as drawn; otherwise the last
    /// desktop drawn again offscreen.
    public func screenshot() throws -> Bitmap {
        if outputs.count == 1, let o = outputs.first, o.configuration.transform == .normal, o.configuration.scale == 1,
           o.origin == (0, 0), o.mode.width == width, o.mode.height == height, let shot = o.readPresented() {
            logger.debug("kms: screenshot read from the buffer presented on \(o.name)")
            return shot
        }
        guard let lastList else { throw KMSScreenshotError.nothingPresented }
        return try graphics.redraw(lastList)
    }

    /// Whether outputs redraw only what their buffers lack (`--damage on`, the default).
    public var damageTracking = true
    /// What the lit outputs' frames drew, all outputs together.
    public var damageStatistics: DamageStatistics {
        outputs.reduce(into: DamageStatistics()) { $0.add($1.damageStatistics) }
    }

    /// Draws `list` on every lit output and queues the flips: with atomic modesetting all in one
    /// commit (the outputs change on the same refresh where their CRTCs share it, and a driver
    /// that refuses is asked output by output from then on). Where a flip is still queued from
    /// the last frame it waits for it first (at most a second).
    public func present(_ list: DrawList) throws {
        _ = try present(list, on: nil)
    }

    /// Draws `list` on the named outputs (nil: all, waiting for any flip still queued on them),
    /// flips them together, and returns the outputs whose flips are queued. The repaint planner
    /// names only outputs without a queued flip, so a slow output never holds a fast one back.
    public func present(_ list: DrawList, on names: [String]?) throws -> Set<String> {
        lastList = list
        // Switched away: the seat manager has taken DRM master; the frame waits for the seat.
        guard isActive else { return [] }
        let chosen = names.map { n in outputs.filter { n.contains($0.name) } } ?? outputs
        if names == nil { try waitForFlips(timeout: 1) }
        var firstError: (any Error)?
        var flips: [(output: KMSOutput, flip: PageFlip)] = []
        for output in chosen where !output.isFlipPending {
            do {
                if let flip = try prepare(list, on: output) { flips.append((output, flip)) }
            } catch let error as DRMError where committer is AtomicCommitter && !error.isPermissionDenied {
                fallBackToLegacy(after: error, on: output.name)
                do { if let flip = try prepare(list, on: output) { flips.append((output, flip)) } } catch { firstError = firstError ?? error }
            } catch {
                firstError = firstError ?? error
            }
        }
        do { try commit(flips) } catch { firstError = firstError ?? error }
        if let firstError { throw firstError }
        return Set(chosen.filter(\.isFlipPending).map(\.name))
    }

    /// Whether the driver refused one commit for several outputs (then each flips alone).
    private var flipsOneByOne = false
    /// The outputs the last combined commit flipped (logged when it changes).
    private var flippedTogether: [String] = []

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

    private func queued(_ output: KMSOutput) {
        output.flipQueued()
        if let clips = output.lastFlipDamage, !clips.isEmpty {
            let share = Int((clips.area / (Double(output.mode.width) * Double(output.mode.height)) * 1000).rounded())
            logger.debug("kms: \(output.name): flip with damage clips \(clips) (\(Double(share) / 10)% of the output), buffer age \(output.lastBufferAge)")
        }
    }

    /// A VT switch or another compositor took the display: the frame is dropped, and the output
    /// modesets when it comes back.
    private func dropped(_ output: KMSOutput, _ error: DRMError) {
        logger.warning("kms: \(output.name): \(error); DRM master lost? the frame is dropped")
        output.flipFailed()
        output.invalidate()
    }

    private func fallBackToLegacy(after error: any Error, on name: String) {
        logger.warning("kms: atomic commit refused on \(name) (\(error)); falling back to legacy modesetting")
        committer = LegacyCommitter(drm: drm)
        for o in outputs { o.invalidate() }
    }

    /// Draws the frame on `output` (with the cursor where the renderer draws it there); a
    /// modeset shows it at once, a flip is returned to commit.
    private func prepare(_ list: DrawList, on output: KMSOutput) throws -> PageFlip? {
        var list = list
        if let drawn = drawnCursor, drawn.crtc == output.target.crtc { list.commands += Self.cursorCommands(at: (drawn.x, drawn.y)) }
        do {
            let start = monotonicSeconds()
            let flip = try output.prepare(list, renderer: graphics.renderer, drm: drm, committer: committer, damageTracking: damageTracking)
            logger.trace("kms: \(output.name): \(list.quads.count) quads drawn\(flip == nil ? " and shown by a modeset" : "") in \(Int(((monotonicSeconds() - start) * 1e6).rounded())) µs")
            return flip
        } catch let error as DRMError where error.isPermissionDenied {
            dropped(output, error)
            return nil
        }
    }

    /// Handles page-flip events and hotplug uevents without blocking.
    public func dispatchEvents() throws -> BackendEvents {
        var events = BackendEvents()
        var ready = [epoll_event](repeating: epoll_event(), count: 4)
        let n = epoll_wait(epoll.rawValue, &ready, Int32(ready.count), 0)
        var drmReadable = false, hotplugReadable = false, seatReadable = false, terminalReadable = false
        for i in 0..<max(0, Int(n)) {
            if ready[i].data.fd == drm.fd {
                drmReadable = true
            } else if ready[i].data.fd == seat?.fd {
                seatReadable = true
            } else if ready[i].data.fd == terminal?.fd {
                terminalReadable = true
            } else {
                hotplugReadable = true
            }
        }
        if seatReadable, let seat { try seat.dispatch() }
        if terminalReadable, let terminal { terminal.dispatch() }
        if drmReadable { events.presented += try readFlipEvents() }
        if hotplugReadable, let hotplug, hotplug.hotplugDevices().contains(drm.path), isActive {
            rescan()
        }
        events.needsRedraw = needsRedraw
        needsRedraw = false
        return events
    }

    /// Reads the page-flip events waiting on the DRM descriptor. Returns each output's flip that
    /// completed, with its time.
    /// The corresponding C function is `drmHandleEvent`.
    @discardableResult
    private func readFlipEvents() throws(DRMError) -> [BackendEvents.Presentation] {
        var context = drmEventContext()
        context.version = 3
        context.page_flip_handler2 = { _, _, seconds, microseconds, crtc, data in
            guard let data else { return }
            Unmanaged<PageFlipSink>.fromOpaque(data).takeUnretainedValue().flips.append((crtc, seconds, microseconds))
        }
        let r = drmHandleEvent(drm.fd, &context)
        if r != 0, errno != EAGAIN { throw DRMError("drmHandleEvent on \(drm.path)", errno: errno) }
        var shown: [BackendEvents.Presentation] = []
        for flip in sink.flips {
            guard let output = outputs.first(where: { $0.target.crtc == flip.crtc }) else { continue }
            output.flipCompleted()
            shown.append(BackendEvents.Presentation(output: output.name, time: Self.presentationTime(flip.seconds, flip.microseconds)))
        }
        sink.flips.removeAll()
        return shown
    }

    /// The event's CLOCK_MONOTONIC time, or now where the device gives none (virtual GPUs send 0).
    private static func presentationTime(_ seconds: UInt32, _ microseconds: UInt32) -> Double {
        let now = monotonicSeconds()
        let stamp = Double(seconds) + Double(microseconds) * 1e-6
        return stamp > 0 && stamp <= now && now - stamp < 1 ? stamp : now
    }

    /// Blocks until no flip is queued, or throws after `timeout` seconds (a hung display path).
    private func waitForFlips(timeout: Double) throws {
        let deadline = monotonicSeconds() + timeout
        while isFramePending {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { throw DRMError("waiting for a page flip on \(drm.path) (none came in \(timeout) s)", errno: ETIMEDOUT) }
            var pfd = pollfd(fd: drm.fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&pfd, 1, Int32(left * 1000) + 1)
            if r < 0, errno != EINTR { throw DRMError("poll on \(drm.path)", errno: errno) }
            if r > 0 { try readFlipEvents() }
        }
    }

    // MARK: Seat

    /// The seat is being taken away (a VT switch): let the queued flips finish, stop drawing,
    /// and tell the seat manager, which then drops DRM master for this process.
    private func seatDisabled() {
        logger.notice("kms: seat disabled (switched away): drawing stops until it comes back")
        onSessionActiveChange?(false)
        stopDrawing()
        seat?.acknowledgeDisable()
    }

    /// Lets the queued flips finish; every output modesets with the first frame after.
    private func stopDrawing() {
        try? waitForFlips(timeout: 0.5)
        for output in outputs { output.flipCompleted(); output.invalidate() }
    }

    /// The kernel asks to switch away from our VT (direct session): stop drawing, give DRM
    /// master up (so the console or the next compositor can set its mode), then allow it.
    private func terminalReleased() {
        logger.notice("kms: VT \(terminal?.number ?? 0) released (switched away): drawing stops until it comes back")
        onSessionActiveChange?(false)
        stopDrawing()
        do { try drm.dropMaster() } catch { logger.warning("kms: \(error)") }
        terminal?.allowRelease()
    }

    /// Our VT is back (already acknowledged): take DRM master again, then as for a seat.
    private func terminalAcquired() {
        do { try drm.becomeMaster() } catch { logger.error("kms: VT back but \(error); frames are dropped") }
        logger.notice("kms: VT \(terminal?.number ?? 0) acquired: restoring the outputs")
        for output in outputs { output.invalidate() }
        rescan()
        needsRedraw = true
        onSessionActiveChange?(true)
    }

    /// The seat is back with DRM master: set every output's mode again (another program may
    /// have changed it), pick up displays plugged in meanwhile, and draw the current state.
    private func seatEnabled() {
        logger.notice("kms: seat enabled: restoring the outputs")
        for output in outputs { output.invalidate() }
        rescan()
        needsRedraw = true
        onSessionActiveChange?(true)
    }

    // MARK: Cursor

    /// Shows the cursor with its hot spot at `position` (desktop points; moved into the nearest
    /// output where it is outside them all), or hides it (nil). Only where a cursor is
    /// configured (`[display] cursor`). On an output with a cursor plane (or legacy SetCursor2)
    /// the plane moves at once, without a modeset or a page flip; where the renderer draws the
    /// cursor, returns true: a frame must be drawn to show the change.
    @discardableResult
    public func setCursor(_ position: Point?) -> Bool {
        guard configuration.cursor else { return false }
        if let position {
            guard position.x.isFinite, position.y.isFinite else { return false }
            cursorPoint = position
            cursorHidden = false
        } else {
            cursorHidden = true
        }
        return placeCursor()
    }

    /// Puts the configured cursor on the output whose rectangle holds its position (the last
    /// `setCursor` point, else `cursor_position`, else the first output's centre), in that
    /// panel's pixels through the output's scale and transform, with the arrow turned like the
    /// output's picture: on that CRTC's cursor plane (atomic), through SetCursor2 (legacy), or,
    /// where neither can show it, drawn by the renderer as the top-most item. Every other
    /// output's cursor is hidden. Returns true when a frame must be drawn (the drawn cursor
    /// changed, or a plane update failed and the output modesets instead).
    @discardableResult
    private func placeCursor() -> Bool {
        let wasDrawn = drawnCursor
        drawnCursor = nil
        var needsFrame = false
        var spot: CursorSpot?
        if configuration.cursor, !cursorHidden, let first = outputs.first {
            let at = cursorPoint
                ?? configuration.cursorPosition.map { Point(x: Double($0.x), y: Double($0.y)) }
                ?? Point(x: Double(first.origin.x + first.logicalSize.width / 2), y: Double(first.origin.y + first.logicalSize.height / 2))
            spot = CursorGeometry.spot(at, on: outputs.map(\.cursorGeometry))
        }
        var shownOn: String?
        var detail = ""
        let legacy = committer is LegacyCommitter
        var placements: [CursorPlacement?] = []
        for (i, output) in outputs.enumerated() {
            var placement: CursorPlacement?
            if let spot, spot.output == i {
                let transform = output.configuration.transform
                if output.hasCursorPlane(legacy: legacy), let buffer = cursorBuffer(for: transform) {
                    placement = CursorPlacement(framebuffer: buffer.framebuffer, handle: buffer.handle, width: buffer.width, height: buffer.height,
                                                x: spot.pixelX - buffer.hotX, y: spot.pixelY - buffer.hotY, hotX: buffer.hotX, hotY: buffer.hotY)
                    shownOn = "\(output.name) (\(output.target.cursorPlane.map { "cursor plane \($0.id)" } ?? "legacy SetCursor2"))"
                    detail = "at \(spot.pixelX),\(spot.pixelY)"
                    logger.debug("kms: cursor at \(spot.pixelX),\(spot.pixelY) on \(output.name): plane at \(spot.pixelX - buffer.hotX),\(spot.pixelY - buffer.hotY), hot spot \(buffer.hotX),\(buffer.hotY) (\(transform.rawValue))")
                } else {
                    drawnCursor = (output.target.crtc, Int(spot.point.x.rounded(.down)), Int(spot.point.y.rounded(.down)))
                    shownOn = "\(output.name) (drawn)"
                    detail = "at \(spot.pixelX),\(spot.pixelY)"
                    logger.debug("kms: cursor at \(spot.pixelX),\(spot.pixelY) on \(output.name), drawn by the renderer")
                }
            }
            placements.append(placement)
        }
        // Off the old CRTC before onto the new one, so it never shows twice.
        for i in outputs.indices.sorted(by: { placements[$0] == nil && placements[$1] != nil }) {
            do {
                try outputs[i].setCursor(placements[i], drm: drm, now: isActive)
            } catch {
                logger.warning("kms: \(outputs[i].name): \(error); the cursor is set with a modeset instead")
                outputs[i].invalidate()
                needsFrame = true
            }
        }
        if shownOn != cursorShownOn {
            if let shownOn, let spot {
                let name = outputs[spot.output].name
                if shownOn.hasSuffix("(drawn)") {
                    logger.info("kms: cursor on \(name) \(detail), drawn by the renderer (no cursor plane)")
                } else {
                    logger.info("kms: cursor on \(name) \(detail) \(shownOn.dropFirst(name.count + 1))")
                }
            } else if configuration.cursor {
                logger.info("kms: cursor hidden")
            }
            cursorShownOn = shownOn
        }
        return needsFrame || wasDrawn?.crtc != drawnCursor?.crtc || wasDrawn?.x != drawnCursor?.x || wasDrawn?.y != drawnCursor?.y
    }

    /// The cursor's buffer for outputs turned by `transform`, made on first use; nil (logged
    /// once) where the device cannot make one, and the renderer draws the cursor instead.
    private func cursorBuffer(for transform: OutputTransform) -> CursorBuffer? {
        if let buffer = cursorBuffers[transform] { return buffer }
        guard !cursorBufferFailed.contains(transform) else { return nil }
        do {
            let buffer = try CursorBuffer(drm: drm, transform: transform)
            cursorBuffers[transform] = buffer
            return buffer
        } catch {
            cursorBufferFailed.insert(transform)
            logger.warning("kms: no cursor buffer (\(error)); the renderer draws the cursor")
            return nil
        }
    }

    /// The arrow as filled rectangles, one per run of equal pixels in a row, with its tip at `at`.
    static func cursorCommands(at: (x: Int, y: Int)) -> [DrawCommand] {
        var commands: [DrawCommand] = []
        for (y, row) in CursorSprite.rows.enumerated() {
            let chars = Array(row)
            var x = 0
            while x < chars.count {
                var end = x
                while end < chars.count, chars[end] == chars[x] { end += 1 }
                if chars[x] != " " {
                    commands.append(DrawCommand(transform: .translation(x: Double(at.x + x), y: Double(at.y + y)),
                                                bounds: Rect(x: 0, y: 0, width: Double(end - x), height: 1),
                                                color: chars[x] == "X" ? .black : .white, opacity: 1))
                }
                x = end
            }
        }
        return commands
    }

    // MARK: Outputs

    /// Outputs can be blanked and relit.
    public var canSetPower: Bool { true }

    /// Blanks (`on` false: the CRTC is turned off) or relights the named output, or all of them.
    /// Returns the outputs changed. A relit output shows the next frame, which the caller
    /// should draw even if nothing changed. Throws `UnknownOutput` for a name that is not lit.
    @discardableResult
    public func setPower(_ on: Bool, output name: String? = nil) throws -> [String] {
        if let name, !outputs.contains(where: { $0.name == name }) {
            throw UnknownOutput(name: name, known: outputNames, backend: self.name)
        }
        guard isActive else {
            throw DRMError("display \(on ? "on" : "off") while \(seat.map { "seat \($0.name)" } ?? "the VT") is switched away (no DRM master)", errno: EBUSY)
        }
        try waitForFlips(timeout: 1)
        var changed: [String] = []
        for output in outputs where name == nil || output.name == name {
            guard output.isEnabled != on else { continue }
            try output.setEnabled(on, committer: committer)
            changed.append(output.name)
        }
        if on, !changed.isEmpty { needsRedraw = true }
        logger.notice("kms: display \(on ? "on" : "off"): \(changed.isEmpty ? "nothing to change" : changed.joined(separator: ", "))")
        return changed
    }

    /// Under the separate layout, each lit output's rectangle in the desktop by connector name
    /// (the compositor's output roots); empty under one desktop.
    public var outputRoots: [String: Rect] {
        guard configuration.layout == .separate else { return [:] }
        var roots: [String: Rect] = [:]
        for o in outputs {
            roots[o.name] = Rect(x: Double(o.origin.x), y: Double(o.origin.y),
                                 width: Double(o.logicalSize.width), height: Double(o.logicalSize.height))
        }
        return roots
    }

    /// Every lit output's rectangle in desktop points and its transform, in desktop order (for
    /// mapping touchscreens and absolute pointers onto the desktop).
    public var outputPlacements: [OutputPlacement] {
        outputs.map { o in
            OutputPlacement(name: o.name,
                            frame: Rect(x: Double(o.origin.x), y: Double(o.origin.y),
                                        width: Double(o.logicalSize.width), height: Double(o.logicalSize.height)),
                            quarterTurns: o.configuration.transform.quarterTurns, flipped: o.configuration.transform.isFlipped)
        }
    }

    /// Told when the seat or VT is taken away (false, before the devices are given up) and
    /// given back (true); the daemon suspends and resumes its input devices with it.
    public var onSessionActiveChange: ((_ active: Bool) -> Void)?

    /// Every lit output and whether it shows (false while blanked), in desktop order.
    public var outputPower: [(name: String, isOn: Bool)] { outputs.map { ($0.name, $0.isEnabled) } }

    /// Re-reads the connectors after a hotplug: lights new displays, releases unplugged ones,
    /// and redoes outputs whose preferred mode changed.
    private func rescan() {
        do {
            try waitForFlips(timeout: 1)
            let resources = try drm.resources()
            let connected = Dictionary(resources.connected.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var kept: [KMSOutput] = []
            for output in outputs {
                let now = connected[output.target.connector.id]
                let modeChanged = output.configuration.mode == nil && now?.preferredMode.map { $0 != output.mode } == true
                if now == nil || modeChanged {
                    logger.notice("kms: \(output.name) \(now == nil ? "disconnected" : "changed mode"): releasing it")
                    try? committer.disable(output.target)
                } else {
                    kept.append(output)
                }
            }
            outputs = kept
            for connector in resources.connected where outputs.count < configuration.maxOutputs
                && !outputs.contains(where: { $0.target.connector.id == connector.id }) {
                if let output = Self.makeOutput(connector, resources: resources, taken: outputs, drm: drm, gbm: gbm, graphics: graphics,
                                                configuration: configuration, logger: logger) {
                    outputs.append(output)
                    logger.notice("kms: \(output.name) connected: \(output.mode) at \(output.origin.x),\(output.origin.y)")
                }
            }
            if let extent = Self.desktopExtent(outputs), extent.width != width || extent.height != height {
                logger.notice("kms: desktop \(width)x\(height) → \(extent.width)x\(extent.height)")
                (width, height) = extent
            }
            if outputs.isEmpty { logger.notice("kms: no display connected: waiting for one to be plugged in") }
            placeCursor()
            needsRedraw = true
        } catch {
            logger.error("kms: hotplug rescan failed: \(error)")
        }
    }
}
