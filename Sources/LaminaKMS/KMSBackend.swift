#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging
/// No DRM device could be used; each reason names a card and why it was passed over.
public struct KMSUnavailable: Error, CustomStringConvertible {
    public var reasons: [String]
    public var description: String { reasons.isEmpty ? "no DRM device under /dev/dri" : reasons.joined(separator: "; ") }
}

/// Shows frames on displays through DRM/KMS (kmscube's path, wlroots' DRM backend in small).
/// Each lit connector is a `KMSOutput` (its CRTC, plane and swapchain: GBM surfaces drawn by
/// the renderer's side through `ScanoutGraphics`, EGL on the GBM platform wired in by laminad;
/// this module knows no GL, and the renderer belongs to the frame step). The backend does what concerns them all: finding them and following
/// hotplug (`KMSBackend+Outputs.swift`), the commit that flips every output's staged frame at
/// once and the page-flip events (`KMSBackend+Commit.swift`, through a `KMSCommitter`: atomic,
/// or legacy as the fallback), the seat or VT (`KMSBackend+Session.swift`) and the cursor
/// (`KMSBackend+Cursor.swift`).
///
/// All outputs form one desktop: each shows the part of the draw list its position covers.
/// Like the graphics context it draws with, a backend must be used on the thread that created it.
public final class KMSBackend: DisplayBackend {
    public let drm: DRMDevice
    /// Apps allocate the dma-bufs they share with laminad on this device.
    public var drmDevice: Int32? { drm.fd }
    /// Atomic, or legacy where atomic was refused or turned off.
    public internal(set) var committer: any KMSCommitter
    /// What makes the outputs' swapchains over their GBM surfaces (the renderer's side).
    public let graphics: any ScanoutGraphics
    /// One line on what was chosen and why: "/dev/dri/card0 (virtio_gpu, atomic): Virtual-1 1280x800@60".
    public var summary: String {
        "\(drm.path) (\(drm.driverName), \(committer.name)): "
            + (lit.isEmpty ? "no display connected" : lit.map { "\($0.name) \($0.mode)" }.joined(separator: ", "))
    }

    let gbm: GBMDevice
    var configuration: KMSConfiguration
    let logger: Logger
    /// The lit outputs, in desktop order.
    var lit: [KMSOutput] = []
    let sink = PageFlipSink()
    let hotplug: UdevMonitor?
    /// The libseat seat the card came from, or nil where it was opened directly.
    public let seat: SeatSession?
    /// The virtual terminal taken where the card was opened directly (root, no seat manager),
    /// or nil where there is none (no /dev/tty0, as in a container) or a seat manager handles VTs.
    public let terminal: VirtualTerminal?
    /// False while the seat is disabled or the VT switched away from: nothing is drawn or flipped.
    public var isActive: Bool { seat?.isActive ?? terminal?.isActive ?? true }
    let epoll: FileDescriptor
    /// Made readable (inside `epoll`) while events wait that were taken off their own
    /// descriptors already: flips read while waiting for a modeset, reasons to draw again.
    let wake: FileDescriptor
    /// Why the outputs must be drawn again though nothing in the scene changed (relit,
    /// connected, the session back), reported by the next `dispatchEvents`.
    var repaintReasons: Set<RepaintReason> = []
    /// Page flips read outside `dispatchEvents` (`waitForFlips`, before a modeset or a power
    /// change), reported by the next `dispatchEvents`: the repaint loop waits for every one.
    var unreportedFlips: [BackendEvents.Presentation] = []
    /// A hotplug waiting for the queued flips before its rescan (`HotplugRescan`).
    var rescans = HotplugRescan()
    /// The flips the outputs committed since `beginCommit`, for `flushCommit` to show together.
    var stagedFlips: [(output: KMSOutput, flip: PageFlip)] = []
    /// Whether the driver refused one commit for several outputs (then each flips alone).
    var flipsOneByOne = false
    /// The outputs the last combined commit flipped (logged when it changes).
    var flippedTogether: [String] = []
    /// The cursor's buffers where a cursor is configured (`[display] cursor`), one per output
    /// transform in use (the arrow turned with its output), made when first needed.
    var cursorBuffers: [OutputTransform: CursorBuffer] = [:]
    /// Transforms whose buffer could not be made: those outputs draw the cursor.
    var cursorBufferFailed: Set<OutputTransform> = []
    /// Where the cursor's hot spot was last asked to be (`setCursor`), in desktop points; nil
    /// until then, which means `cursor_position` or the first output's centre.
    var cursorPoint: Point?
    /// Hidden by `setCursor(nil)` until the next point.
    var cursorHidden = false
    /// Where the cursor showed last, for the log: the output's name and how, or nil (hidden).
    var cursorShownOn: String?
    /// The output (CRTC) whose frames draw the cursor, and where its tip is in desktop points,
    /// where that output has no cursor plane (the renderer draws the arrow there, on top of
    /// everything: `KMSOutput.softwareCursor`); nil otherwise.
    var drawnCursor: (crtc: UInt32, x: Int, y: Int)?
    /// The desktop's size in points: the extent of the lit outputs. It changes when a display
    /// is plugged in or changes mode (the daemon then resizes the compositor's display); it
    /// keeps its last value when the last display goes, and is the configured fallback size
    /// until the first one comes.
    public internal(set) var width: Int
    public internal(set) var height: Int

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
        graphics = try makeGraphics(gbm, DRMFormat.xrgb8888)

        do {
            hotplug = try UdevMonitor()
        } catch {
            hotplug = nil
            logger.warning("kms: no hotplug (\(error)); displays connected later will not light up")
        }
        // One descriptor for the daemon's loop to watch, however many this backend has.
        let set = FileDescriptor(owning: try retryingEINTR("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        wake = FileDescriptor(owning: try retryingEINTR("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) })
        for fd in [drm.fd, wake.rawValue] + (hotplug.map { [$0.fd] } ?? []) + (seat.map { [$0.fd] } ?? []) + (terminal.map { [$0.fd] } ?? []) {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd
            try retryingEINTR("epoll_ctl(ADD)") { epoll_ctl(set.rawValue, EPOLL_CTL_ADD, fd, &event) }
        }
        epoll = set

        width = configuration.fallbackSize.width
        height = configuration.fallbackSize.height
        let resources = try drm.resources()
        for connector in resources.connected where lit.count < configuration.maxOutputs {
            if let output = makeOutput(connector, resources: resources, taken: lit, atStart: true) { lit.append(output) }
        }
        if let extent = Self.desktopExtent(lit) { (width, height) = extent }
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
            for output in lit {
                if configuration.boot.onExit == .keep {
                    guard let why = output.leaveLastFrame(drm: drm) else {
                        logger.notice("kms: \(output.name): the last frame stays on screen ([boot] on_exit = \"keep\")")
                        continue
                    }
                    if let notCopied = output.copyLastFrameIntoSaved(drm: drm) {
                        logger.notice("kms: \(output.name): the last frame cannot stay on screen (\(why)), nor be copied into the framebuffer shown before laminad (\(notCopied)); putting that back")
                    } else {
                        let console = terminal.map { $0.wasGraphics ? "; the VT stays in graphics mode, so the console leaves it alone" : "; the console draws over it once the VT is back in text mode" } ?? ""
                        logger.notice("kms: \(output.name): the last frame was copied into the framebuffer shown before laminad (\(why)), which is put back\(console)")
                    }
                }
                output.restore(drm: drm, committer: committer)
            }
            lit.removeAll()
        }
        // Text mode and VT_AUTO: the console draws and switches by itself again.
        terminal?.restore()
    }

    // MARK: DisplayBackend

    public var name: String { "kms" }
    /// The lit outputs (blanked ones included), in desktop order.
    public var outputs: [any Output] { lit }
    /// Whether outputs redraw only what their buffers lack (`--damage on`, the default).
    public var damageTracking = true
    /// Outputs can be blanked and relit.
    public var canSetPower: Bool { true }
    /// Under the separate layout each output has its own root layer.
    public var outputsHaveOwnRoots: Bool { configuration.layout == .separate }
    /// Told when the seat or VT is taken away (false, before the devices are given up) and
    /// given back (true); the daemon suspends and resumes its input devices with it.
    public var onSessionActiveChange: ((_ active: Bool) -> Void)?
    /// The seat or VT, for input devices and VT switches.
    public var session: (any DisplaySession)? { self }
    public var eventDescriptor: Int32? { epoll.rawValue }

    /// Handles page-flip events and hotplug uevents; blocks only when a hotplug finds page flips
    /// queued, for at most a second (`HotplugRescan`).
    public func dispatchEvents() throws -> BackendEvents {
        var events = BackendEvents()
        var ready = [epoll_event](repeating: epoll_event(), count: 4)
        let n = epoll_wait(epoll.rawValue, &ready, Int32(ready.count), 0)
        var drmReadable = false, hotplugReadable = false, seatReadable = false, terminalReadable = false
        for i in 0..<max(0, Int(n)) {
            if ready[i].data.fd == drm.fd {
                drmReadable = true
            } else if ready[i].data.fd == wake.rawValue {
                var count: UInt64 = 0
                _ = read(wake.rawValue, &count, 8)
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
        if drmReadable { try readFlipEvents() }
        // (The monitor is drained whether or not the session is active; while it is not, the
        // outputs are left alone and resuming rescans.)
        let plugged = hotplugReadable && hotplug?.hotplugDevices().contains(drm.path) == true
        // (Only a hotplug, or one owed, costs the pass anything: the loop runs it every frame.)
        if isActive, plugged || rescans.owed {
            switch rescans.next(hotplug: plugged, queued: flipsQueued) {
            case .rescan:
                rescan()
            case .waitThenRescan:
                do {
                    try waitForFlips(timeout: 1)
                    rescan()
                } catch {
                    rescans.flipsLate(flipsQueued)
                    logger.warning("kms: hotplug: \(error): the connectors are read again once the late flips have come")
                }
            case .deferred, .none:
                break
            }
        }
        events.presented = unreportedFlips
        events.reasons = repaintReasons
        unreportedFlips.removeAll()
        repaintReasons.removeAll()
        return events
    }

    /// The outputs waiting for a page flip, by name (`HotplugRescan`'s view of them).
    private var flipsQueued: Set<String> { Set(lit.filter(\.isFlipPending).map(\.name)) }

    /// Something to report waits outside the descriptors `epoll` watches: make it readable,
    /// so the daemon's loop calls `dispatchEvents`.
    func wakeDispatch() {
        var one: UInt64 = 1
        _ = write(wake.rawValue, &one, 8)
    }

    /// The outputs must be drawn again (`reason`), reported with the next events.
    func repaint(_ reason: RepaintReason) {
        repaintReasons.insert(reason)
        wakeDispatch()
    }
}
