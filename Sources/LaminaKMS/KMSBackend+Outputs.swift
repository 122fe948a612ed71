#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging

/// Finding the outputs: each connected connector the configuration allows gets a free CRTC,
/// a primary plane that scans out XRGB8888, a GBM surface and the renderer's surface over it;
/// hotplug (a udev event on the card) re-reads the connectors.
extension KMSBackend {
    static func desktopExtent(_ outputs: [KMSOutput]) -> (width: Int, height: Int)? {
        guard !outputs.isEmpty else { return nil }
        let w = outputs.map { $0.origin.x + $0.logicalSize.width }.max()!
        let h = outputs.map { $0.origin.y + $0.logicalSize.height }.max()!
        return (w, h)
    }

    /// An output for `connector` on a free CRTC, or nil (logged) where it cannot be lit.
    /// At start (`atStart`), an output whose CRTC already shows a framebuffer in the mode picked
    /// is taken over without a modeset, and its picture imported (`[boot] handoff`).
    func makeOutput(_ connector: DRMConnector, resources: DRMResources, taken: [KMSOutput], atStart: Bool = false) -> KMSOutput? {
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
            let window = try graphics.makeSurface(over: surface)
            var target = CommitTarget(connector: connector, crtc: crtc,
                                      crtcProperties: drm.properties(of: crtc, type: UInt32(DRM_MODE_OBJECT_CRTC)),
                                      plane: plane, mode: mode)
            if configuration.cursor {
                target.cursorPlane = resources.planes.first {
                    $0.kind == .cursor && $0.possibleCRTCs.contains(crtc) && $0.formats.contains(DRMFormat.argb8888)
                }
            }
            // Overlay planes above the primary plane (a video goes on one without a hole cut in
            // the primary's opaque pixels): where the driver gives planes a zpos, a lower one is
            // an underlay and is left alone.
            let overlays = resources.planes.filter { $0.kind == .overlay && $0.possibleCRTCs.contains(crtc) }
            let primaryZ = plane.properties.values["zpos"]
            target.overlays = overlays.filter { o in primaryZ.flatMap { p in o.properties.values["zpos"].map { $0 > p } } ?? true }
            let below = overlays.count - target.overlays.count
            logger.info("kms: \(connector.name): overlay planes: \(target.overlays.isEmpty ? "none" : target.overlays.map { "\($0.id)" }.joined(separator: ", "))\(below > 0 ? " (\(below) below the primary plane left alone)" : "")")
            let x = taken.map { $0.origin.x + $0.logicalSize.width }.max() ?? 0
            func has(_ yes: Bool) -> String { yes ? "yes" : "no" }
            logger.info("kms: \(connector.name): damage: buffer age \(has(window.supportsBufferAge)), swap with damage \(has(window.supportsSwapWithDamage)), FB_DAMAGE_CLIPS \(has(plane.properties.ids["FB_DAMAGE_CLIPS"] != nil))")
            let saved = SavedCRTC(drm: drm, crtc: crtc)
            let output = KMSOutput(backend: self, configuration: settings, target: target, surface: window, gbm: surface,
                                   origin: settings.position ?? (x, 0), saved: saved)
            if atStart { handOver(output, crtc: crtc, saved: saved) }
            return output
        } catch {
            logger.error("kms: \(connector.name) \(mode): \(error)")
            return nil
        }
    }

    /// The boot handoff's part at start: whether `output`'s first frame flips onto what its CRTC
    /// shows (no modeset), and the picture there read for the background (`BootTakeover`,
    /// `ScannedOutPicture`), with the outcome logged.
    private func handOver(_ output: KMSOutput, crtc: UInt32, saved: SavedCRTC?) {
        let decision = BootTakeover.decide(handoff: configuration.boot.handoff, shownFramebuffer: saved?.framebuffer ?? 0,
                                           shownMode: saved?.mode, mode: output.mode, transform: output.configuration.transform)
        switch decision {
        case .modeset(let why):
            output.handoffNote = "modeset: \(why)"
        case let .flip(importPicture, why):
            output.flipsFirstFrame = true
            guard importPicture, let saved else {
                output.handoffNote = "no modeset (\(why)); no picture imported"
                break
            }
            do {
                let bitmap = try ScannedOutPicture.read(framebuffer: saved.framebuffer, drm: drm, width: output.mode.width, height: output.mode.height)
                let origin = "\(bitmap.width)x\(bitmap.height) from framebuffer \(saved.framebuffer) on CRTC \(crtc)"
                output.bootPicture = (bitmap, origin)
                output.handoffNote = "no modeset; picture imported: \(origin)"
            } catch {
                output.handoffNote = "no modeset (\(why)); no picture imported: \(error)"
            }
        }
        logger.notice("kms: \(output.name): boot handoff: \(output.handoffNote)")
    }

    /// Re-reads the connectors after a hotplug: lights new displays, releases unplugged ones,
    /// and redoes outputs whose preferred mode changed. A hotplug's rescan runs with no flip
    /// queued (`HotplugRescan`); the wait below covers the session's own calls. Any rescan
    /// answers a hotplug still owed (it reads every connector); one that fails leaves it owed
    /// for a later pass of the loop, a bounded number of times.
    func rescan() {
        rescans.rescanStarted()
        do {
            try waitForFlips(timeout: 1)
            let resources = try drm.resources()
            let connected = Dictionary(resources.connected.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var kept: [KMSOutput] = []
            for output in lit {
                let now = connected[output.target.connector.id]
                let modeChanged = output.configuration.mode == nil && now?.preferredMode.map { $0 != output.mode } == true
                if now == nil || modeChanged {
                    logger.notice("kms: \(output.name) \(now == nil ? "disconnected" : "changed mode"): releasing it")
                    try? committer.disable(output.target)
                } else {
                    kept.append(output)
                }
            }
            lit = kept
            for connector in resources.connected where lit.count < configuration.maxOutputs
                && !lit.contains(where: { $0.target.connector.id == connector.id }) {
                if let output = makeOutput(connector, resources: resources, taken: lit) {
                    lit.append(output)
                    logger.notice("kms: \(output.name) connected: \(output.mode) at \(output.origin.x),\(output.origin.y)")
                }
            }
            if let extent = Self.desktopExtent(lit), extent.width != width || extent.height != height {
                logger.notice("kms: desktop \(width)x\(height) → \(extent.width)x\(extent.height)")
                (width, height) = extent
            }
            if lit.isEmpty { logger.notice("kms: no display connected: waiting for one to be plugged in") }
            placeCursor()
            repaint(.hotplug)
            rescans.rescanSucceeded()
        } catch {
            let again = rescans.rescanFailed()
            logger.error("kms: hotplug rescan failed: \(error)\(again ? "; tried again on a later pass" : "; given up until the next hotplug")")
        }
    }
}

