import LaminaCore
import LaminaCompositor
import LaminaProtocol
import LaminaWayland
import Logging

/// Kiosk mode (no Lamina client manages apps): each app window is a layer of an in-process
/// Lamina session that fills the desktop, the newest on top, holding a sublayer per part (the
/// window's surface, its subsurfaces and popups, each at its own size from the window's top
/// left), whose `contents` is an image over the part's pixels (`AppSurfacePixels`), updated by
/// the app's buffer damage (`update-image`).
///
/// The session speaks the protocol to the compositor as any client does (`Compositor.receive`),
/// so damage, occlusion, screenshots, transitions and the image budgets apply to apps as to
/// every layer; its replies come back through `Daemon.send` (`received`).
///
/// Managed mode (a Lamina client manages apps): the window layers stay out of the session's
/// root; the compositor draws each in the managing client's layers that show it (`appSurface`,
/// docs/architecture.md "App surfaces"). Every window is told to the compositor in both modes,
/// and a gone window's layers are kept (the last `HostedWindow.keptGoneLimit`) for layers that
/// keep an exited app's last frame.
final class WaylandKiosk: WaylandServerDelegate {
    let compositor: Compositor
    let logger: Logger
    /// The in-process session, while an app is shown (so laminad without apps has no extra client).
    private(set) var client: ClientID?
    private var serial: UInt32 = 0
    private var decoder = FrameDecoder(limit: 1 << 24)
    /// The windows shown, bottom to top.
    private var windows: [UInt32] = []
    /// Gone windows whose layers are kept (managed mode), oldest first.
    private var keptGone: [UInt32] = []
    /// Whether a Lamina client manages apps (`setManaged`).
    private(set) var isManaged = false

    /// Seconds a new window fades in over (`[wayland] fade_in`).
    let fadeIn: Double

    init(compositor: Compositor, fadeIn: Double, logger: Logger) {
        self.compositor = compositor
        self.fadeIn = fadeIn
        self.logger = logger
    }

    /// Connects the session (unprivileged: it asks for nothing but its own layers).
    private func session() -> ClientID {
        if let client { return client }
        let id = compositor.connect(peer: PeerIdentity(uid: 0, isPrivileged: false))
        client = id
        compositor.setAppSession(id)
        decoder = FrameDecoder(limit: 1 << 24)
        send(.hello(Hello(clientName: "wayland-kiosk")), to: id)
        return id
    }

    private func send(_ message: ClientMessage, to id: ClientID, attachments: [MemoryAttachment] = []) {
        let bytes = message.encoded()
        bytes.withUnsafeBytes { compositor.receive($0, attachments: attachments, from: id) }
    }

    /// Sends `operations` with actions disabled: an app's resize, move, crop or turn shows at
    /// once, as the app drew it, not as a quarter-second implicit animation (the fade-in is an
    /// explicit animation, unaffected).
    private func commit(_ operations: [LaminaProtocol.Operation], attachments: [MemoryAttachment] = []) {
        serial &+= 1
        let unanimated = [LaminaProtocol.Operation.settings(TransactionSettings(disableActions: true))] + operations
        send(.commit(Commit(serial: serial, operations: unanimated)), to: session(), attachments: attachments)
    }

    /// The compositor's answers to the session: errors are logged (the rest needs nothing).
    func received(_ bytes: [UInt8]) {
        decoder.append(bytes)
        while let frame = try? decoder.next() {
            if case .error(let e)? = try? ServerMessage.decode(type: frame.type, body: frame.body) {
                logger.error("wayland kiosk: \(e)")
            }
        }
    }

    /// What the session shows of one part: its place and size, and which picture its image was
    /// made over (a new pixels object, a new size; each dma-buf commit, a new buffer: a new image).
    private struct ShownPart: Equatable {
        var id: UInt32
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var picture: ObjectIdentifier
        var bufferTransform: Int
        var sourceRect: Rect
        var isOpaque: Bool
    }
    /// Each window's parts as shown, bottom to top, by window number.
    private var parts: [UInt32: [ShownPart]] = [:]
    /// Each window layer's size as last committed (points), by window number.
    private var frames: [UInt32: (Int, Int)] = [:]

    /// Layer and image numbers are laminad's numbers for windows and parts (one numbering;
    /// images and layers have separate spaces). A window is a layer holding a layer per part.
    private func layer(_ id: UInt32) -> LayerID { LayerID(id) }

    /// A part's layer: its image as contents, at its size in points (a scale-2 buffer's pixels
    /// are half a point each), from the window's corner; `contentsRect` the `wp_viewport` source
    /// rectangle's share of the image. A turned buffer (`wl_surface.set_buffer_transform`) is
    /// drawn upright in a layer of its own orientation (sides swapped for a quarter turn) whose
    /// `transform` turns it back about its centre, so its frame is the surface's rectangle.
    private func partOperations(_ part: AppSurfacePart, new: Bool, newImage: Bool) -> (ops: [LaminaProtocol.Operation], attachments: [MemoryAttachment]) {
        guard part.shownPicture != nil else { return ([], []) }
        let w = Double(part.pointWidth), h = Double(part.pointHeight)
        var ops: [LaminaProtocol.Operation] = new ? [.create(layer(part.id))] : []
        var attachments: [MemoryAttachment] = []
        if newImage {
            if !new { ops.append(.destroyImage(image: part.id)) }
            if let pixels = part.pixels {
                ops.append(.createImage(image: part.id, pixels.format))
                attachments.append(.memory(pixels))
            } else if let picture = part.dmabuf {
                ops.append(.createImage(image: part.id, ImageFormat(width: UInt32(picture.width), height: UInt32(picture.height),
                                                                    order: .bgra, alpha: .premultiplied)))
                attachments.append(.dmabuf(picture))
            }
            ops.append(.set(layer(part.id), .contents, .image(part.id)))
        }
        let (bw, bh) = part.bufferTurnsSideways ? (h, w) : (w, h)
        ops += [.set(layer(part.id), .bounds, .rect(Rect(x: 0, y: 0, width: bw, height: bh))),
                .set(layer(part.id), .position, .point(Point(x: Double(part.x) + w / 2, y: Double(part.y) + h / 2)))]
        if !new || part.bufferTransform != 0 { ops.append(.set(layer(part.id), .transform, .transform(part.contentsTransform))) }
        if !new || part.sourceRect != Rect(x: 0, y: 0, width: 1, height: 1) {
            ops.append(.set(layer(part.id), .contentsRect, .rect(part.sourceRect)))
        }
        // An XRGB buffer is opaque (`isOpaque`): drawn without blending, and what it covers is
        // not drawn at all (occlusion).
        if !new || part.isOpaque { ops.append(.set(layer(part.id), .isOpaque, .bool(part.isOpaque))) }
        return (ops, attachments)
    }

    private func shown(_ part: AppSurfacePart) -> ShownPart? {
        guard let picture = part.shownPicture else { return nil }
        return ShownPart(id: part.id, x: part.x, y: part.y, width: part.pointWidth, height: part.pointHeight, picture: ObjectIdentifier(picture),
                         bufferTransform: part.bufferTransform, sourceRect: part.sourceRect, isOpaque: part.isOpaque)
    }

    /// The window as the compositor knows it.
    private func hosted(_ app: AppSurface) -> HostedWindow {
        HostedWindow(id: app.id, appID: app.appID, title: app.title, pid: app.pid, width: app.pointWidth, height: app.pointHeight)
    }

    /// The window layer's place: its size in points from the session's top left (which is the
    /// desktop's in kiosk mode; in managed mode the compositor places it in a layer's bounds).
    private func windowFrame(_ app: AppSurface) -> [LaminaProtocol.Operation] {
        let w = Double(max(0, app.pointWidth)), h = Double(max(0, app.pointHeight))
        return [.set(layer(app.id), .bounds, .rect(Rect(x: 0, y: 0, width: w, height: h))),
                .set(layer(app.id), .position, .point(Point(x: w / 2, y: h / 2)))]
    }
    func appSurfaceAppeared(_ app: AppSurface) {
        var ops: [LaminaProtocol.Operation] = [.create(layer(app.id))] + windowFrame(app)
        frames[app.id] = (app.pointWidth, app.pointHeight)
        var attachments: [MemoryAttachment] = []
        var list: [ShownPart] = []
        for part in app.parts {
            guard let record = shown(part) else { continue }
            let made = partOperations(part, new: true, newImage: true)
            ops += made.ops
            attachments += made.attachments
            ops.append(.insert(parent: layer(app.id), child: layer(part.id), index: UInt32(list.count)))
            list.append(record)
        }
        // Managed: the window layer stays out of the root; managing clients' layers show it.
        if !isManaged { ops.append(.insert(parent: .root, child: layer(app.id), index: UInt32(windows.count))) }
        // Shown with the default fade (`[wayland] fade_in`), on laminad's clock, in kiosk mode.
        if fadeIn > 0, !isManaged {
            ops.append(.addAnimation(layer(app.id), key: "lamina.fadeIn", tag: 0,
                                     .basic(BasicAnimation(keyPath: "opacity", from: .number(0), to: .number(1), duration: fadeIn))))
        }
        windows.append(app.id)
        parts[app.id] = list
        commit(ops, attachments: attachments)
        compositor.appWindowAppeared(hosted(app))
    }

    func appSurfaceChanged(_ app: AppSurface, damage: [UInt32: PixelRect]) {
        guard windows.contains(app.id), let before = parts[app.id] else { return }
        var ops: [LaminaProtocol.Operation] = []
        var attachments: [MemoryAttachment] = []
        let wanted = app.parts.compactMap(shown)
        let wantedIDs = Set(wanted.map(\.id))
        for old in before where !wantedIDs.contains(old.id) {
            ops += [.remove(layer(old.id)), .destroy(layer(old.id)), .destroyImage(image: old.id)]
        }
        let known = Dictionary(uniqueKeysWithValues: before.map { ($0.id, $0) })
        for part in app.parts {
            guard let record = shown(part) else { continue }
            if let old = known[part.id] {
                let newImage = old.picture != record.picture
                if newImage || old != record {
                    let made = partOperations(part, new: false, newImage: newImage)
                    ops += made.ops
                    attachments += made.attachments
                }
                if !newImage, let rect = damage[part.id] { ops.append(.updateImage(image: part.id, rect)) }
            } else {
                let made = partOperations(part, new: true, newImage: true)
                ops += made.ops
                attachments += made.attachments
            }
        }
        // Stacking: every part inserted again at its place when the order differs (or parts came).
        let kept = before.filter { wantedIDs.contains($0.id) }.map(\.id)
        if kept != wanted.map(\.id) {
            for (i, part) in wanted.enumerated() { ops.append(.insert(parent: layer(app.id), child: layer(part.id), index: UInt32(i))) }
        }
        parts[app.id] = wanted
        if frames[app.id].map({ $0 != (app.pointWidth, app.pointHeight) }) ?? true {
            frames[app.id] = (app.pointWidth, app.pointHeight)
            ops += windowFrame(app)
        }
        if !ops.isEmpty { commit(ops, attachments: attachments) }
        compositor.appWindowChanged(hosted(app))
    }

    func appSurfaceWantsFrame() { compositor.requestFrame(.displayLink) }

    func appSurfaceGone(_ app: AppSurface) {
        guard let i = windows.firstIndex(of: app.id) else { return }
        windows.remove(at: i)
        let reason: AppSurfaceEvent.GoneReason = switch app.ending {
        case .closed: .closed
        case .exited: .exited
        case .dropped: .dropped
        }
        compositor.appWindowGone(app.id, reason: reason)
        if isManaged {
            // Kept for layers that show an exited app's last frame; the oldest kept goes.
            keptGone.append(app.id)
            if keptGone.count > HostedWindow.keptGoneLimit { destroyWindow(keptGone.removeFirst()) }
        } else {
            destroyWindow(app.id)
        }
        endSessionIfEmpty()
    }

    /// Destroys a window's layers and images; the compositor forgets it.
    private func destroyWindow(_ id: UInt32) {
        var ops: [LaminaProtocol.Operation] = [.remove(layer(id))]
        for part in parts.removeValue(forKey: id) ?? [] {
            ops += [.destroy(layer(part.id)), .destroyImage(image: part.id)]
        }
        ops.append(.destroy(layer(id)))
        frames[id] = nil
        commit(ops)
        compositor.appWindowForgotten(id)
    }

    /// The last app gone (and no last frame kept): the session goes too (its layers with it).
    private func endSessionIfEmpty() {
        guard windows.isEmpty, keptGone.isEmpty, let client else { return }
        self.client = nil
        compositor.setAppSession(nil)
        compositor.disconnected(client)
    }

    /// A Lamina client manages apps (or none does any more): window layers leave the root (or
    /// come back to it, filling the desktop as before); kept last frames go in kiosk mode.
    func setManaged(_ managed: Bool) {
        guard managed != isManaged else { return }
        isManaged = managed
        guard client != nil else { return }
        var ops: [LaminaProtocol.Operation] = []
        if managed {
            for id in windows { ops += [.remove(layer(id)), .removeAnimation(layer(id), key: "lamina.fadeIn")] }
        } else {
            for (i, id) in windows.enumerated() { ops.append(.insert(parent: .root, child: layer(id), index: UInt32(i))) }
        }
        if !ops.isEmpty { commit(ops) }
        if !managed {
            for id in keptGone { destroyWindow(id) }
            keptGone = []
            endSessionIfEmpty()
        }
    }
}
