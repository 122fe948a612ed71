import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// An app's buffer in dma-buf memory (laminad's Wayland session hands it over as a
/// `MemoryAttachment.dmabuf`) becomes an image: shown as any image is (here copied: no
/// renderer in the tests imports), opaque where its format has no alpha, counted in the image
/// budget, a candidate for an overlay plane; a socket client's frames never carry one.
@Suite("App buffers in dma-buf memory as images")
struct AppDMABufImageTests {
    final class Keeper {}

    /// A 32 × 16 XRGB picture: left half red, right half blue.
    static func picture(alpha: Bool = false) -> DMABufPicture {
        var bitmap = Bitmap(width: 32, height: 16)
        for y in 0..<16 {
            for x in 0..<32 {
                let i = (y * 32 + x) * 4
                bitmap.bytes[i] = x < 16 ? 255 : 0
                bitmap.bytes[i + 2] = x < 16 ? 0 : 255
                bitmap.bytes[i + 3] = 255
            }
        }
        return DMABufPicture(appBuffer: 32, height: 16, fourcc: alpha ? DRMFourCC.argb8888 : DRMFourCC.xrgb8888, modifier: nil,
                             plane: .init(fd: -1, offset: 0, pitch: 128), hasAlpha: alpha, keeper: Keeper()) { bitmap }
    }

    static func show(_ n: UInt32) -> [LaminaProtocol.Operation] {
        [.createImage(image: n, ImageFormat(width: 32, height: 16, order: .bgra, alpha: .premultiplied)), .create(LayerID(1)),
         .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 32, height: 16))),
         .set(LayerID(1), .position, .point(Point(x: 16, y: 8))),
         .set(LayerID(1), .contents, .image(n)),
         .insert(parent: .root, child: LayerID(1), index: 0)]
    }

    @Test func anAppsDMABufIsShownAsAnImage() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 16)
        let (a, _) = h.sayHello(peer: .user(1, privileged: true))
        let picture = Self.picture()
        h.feed(a, .commit(Commit(serial: 1, operations: Self.show(5))), attachments: [.dmabuf(picture)])
        #expect(h.outbox[a]?.last == .applied(serial: 1))
        let source = try #require(h.compositor.model.entries.first?.tree.images[5])
        #expect(source.dmabuf === picture && source.pixelsAreOpaque && !source.isVideo)
        #expect(h.compositor.model.entries.first?.tree.imageBytes == 32 * 16 * 4, "counted in the image budget")
        let shot = try h.screenshot(a)
        #expect(shot.pixel(x: 4, y: 8) == (255, 0, 0, 255) && shot.pixel(x: 27, y: 8) == (0, 0, 255, 255),
                "\(shot.pixel(x: 4, y: 8)) \(shot.pixel(x: 27, y: 8))")
    }

    @Test func aDMABufOfAnotherSizeThanItsFormatSaysIsRefused() throws {
        let h = try CompositorHarness(headlessWidth: 32, height: 16)
        let (a, _) = h.sayHello(peer: .user(1))
        var ops = Self.show(5)
        ops[0] = .createImage(image: 5, ImageFormat(width: 64, height: 16))
        h.feed(a, .commit(Commit(serial: 1, operations: ops)), attachments: [.dmabuf(Self.picture())])
        guard case .error(let e)? = h.outbox[a]?.last else { Issue.record("accepted"); return }
        #expect(e.code == .invalidImage && e.message.contains("dma-buf is 32×16"), "\(e.message)")
    }

    /// Kiosk mode's full-screen opaque app: its buffer goes on an overlay plane, as a video's does.
    @Test func anOpaqueAppBufferDrawnStraightIsAnOverlayCandidate() {
        let source = ImageSource(owner: .session(EntrySerial(1)), number: 1, dmabuf: Self.picture())
        let area = Rect(x: 0, y: 0, width: 32, height: 16)
        let list = DrawList(width: 64, height: 32, commands: [
            DrawCommand(kind: .contents, transform: .identity, bounds: area,
                        contents: DrawContents(source: source, destination: area, isOpaque: true)),
        ])
        let planes = [OverlayPlane(id: 40, formats: [DRMFourCC.xrgb8888])]
        guard case let .scanout(command, plane, _, destination) = OverlayPlanner.plan(list, planes: planes) else {
            Issue.record("\(OverlayPlanner.plan(list, planes: planes))")
            return
        }
        #expect(command == 0 && plane == 40 && destination == PixelBox(x0: 0, y0: 0, x1: 32, y1: 16))
        // With alpha (ARGB): composited.
        let translucent = ImageSource(owner: .session(EntrySerial(1)), number: 2, dmabuf: Self.picture(alpha: true))
        let list2 = DrawList(width: 64, height: 32, commands: [
            DrawCommand(kind: .contents, transform: .identity, bounds: area,
                        contents: DrawContents(source: translucent, destination: area, isOpaque: false)),
        ])
        #expect(OverlayPlanner.plan(list2, planes: planes) == .composite("the picture has alpha"))
    }
}
