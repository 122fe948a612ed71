import LaminaCore
import LaminaCompositor
import LaminaProtocol
import LaminaWayland
import Logging

/// Kiosk mode (no Lamina client manages apps): each app window is a layer of an in-process
/// Lamina session that fills the desktop, the newest on top, its `contents` an image over the
/// app's pixels (`AppSurfacePixels`), updated by the app's buffer damage (`update-image`).
///
/// The session speaks the protocol to the compositor as any client does (`Compositor.receive`),
/// so damage, occlusion, screenshots, transitions and the image budgets apply to apps as to
/// every layer; its replies come back through `Daemon.send` (`received`).
final class WaylandKiosk: WaylandServerDelegate {
    let compositor: Compositor
    let logger: Logger
    /// The in-process session, while an app is shown (so laminad without apps has no extra client).
    private(set) var client: ClientID?
    private var serial: UInt32 = 0
    private var decoder = FrameDecoder(limit: 1 << 24)
    /// The apps shown, bottom to top.
    private var shown: [UInt32] = []

    init(compositor: Compositor, logger: Logger) {
        self.compositor = compositor
        self.logger = logger
    }

    /// Connects the session (unprivileged: it asks for nothing but its own layers).
    private func session() -> ClientID {
        if let client { return client }
        let id = compositor.connect(peer: PeerIdentity(uid: 0, isPrivileged: false))
        client = id
        decoder = FrameDecoder(limit: 1 << 24)
        send(.hello(Hello(clientName: "wayland-kiosk")), to: id)
        return id
    }

    private func send(_ message: ClientMessage, to id: ClientID, attachments: [MemoryAttachment] = []) {
        let bytes = message.encoded()
        bytes.withUnsafeBytes { compositor.receive($0, attachments: attachments, from: id) }
    }

    private func commit(_ operations: [LaminaProtocol.Operation], attachments: [MemoryAttachment] = []) {
        serial &+= 1
        send(.commit(Commit(serial: serial, operations: operations)), to: session(), attachments: attachments)
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

    /// Layer and image numbers are the app's id (images and layers have separate spaces).
    private func layer(_ app: AppSurface) -> LayerID { LayerID(app.id) }

    private func imageOperations(_ app: AppSurface) -> (ops: [LaminaProtocol.Operation], attachments: [MemoryAttachment]) {
        guard let pixels = app.pixels else { return ([], []) }
        return ([.createImage(image: app.id, pixels.format), .set(layer(app), .contents, .image(app.id))], [.memory(pixels)])
    }

    func appSurfaceAppeared(_ app: AppSurface) {
        let w = Double(compositor.model.width), h = Double(compositor.model.height)
        var ops: [LaminaProtocol.Operation] = [
            .create(layer(app)),
            .set(layer(app), .bounds, .rect(Rect(x: 0, y: 0, width: w, height: h))),
            .set(layer(app), .position, .point(Point(x: w / 2, y: h / 2))),
            // The window at its own size from the top left, as cage places one: an app that
            // keeps a size of its own (a terminal rounding to whole cells) is not stretched.
            .set(layer(app), .contentsGravity, .string(ContentsGravity.topLeft.rawValue)),
        ]
        let image = imageOperations(app)
        ops += image.ops
        ops.append(.insert(parent: .root, child: layer(app), index: UInt32(shown.count)))
        shown.append(app.id)
        commit(ops, attachments: image.attachments)
    }

    func appSurfaceChanged(_ app: AppSurface, damage: PixelRect?, resized: Bool) {
        guard shown.contains(app.id), let damage else { return }
        if resized {
            let image = imageOperations(app)
            commit([.destroyImage(image: app.id)] + image.ops, attachments: image.attachments)
        } else {
            commit([.updateImage(image: app.id, damage)])
        }
    }

    func appSurfaceWantsFrame() { compositor.requestFrame(.displayLink) }

    func appSurfaceGone(_ app: AppSurface) {
        guard let i = shown.firstIndex(of: app.id) else { return }
        shown.remove(at: i)
        commit([.remove(layer(app)), .destroy(layer(app)), .destroyImage(image: app.id)])
        // The last app gone: the session goes too (its layers with it).
        if shown.isEmpty, let client {
            self.client = nil
            compositor.disconnected(client)
        }
    }
}
