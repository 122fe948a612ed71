import Testing
import LaminaCore
@testable import LaminaCompositor

/// A client's picture is known opaque when every pixel's alpha was 255 when it was made and in
/// every rectangle it changed since (`ImageSource.pixelsReadOpaque`): opaque pictures are drawn
/// unblended, hide what lies below and cast their rectangle's shadow.
@Suite("Client pictures' opacity")
struct ImageSourceOpacityTests {
    /// A `width` × `height` picture, 4 bytes a pixel over `stride` bytes a row, every alpha 255
    /// but at the pixels `holes` names.
    func memory(width: Int, height: Int, stride: Int, holes: Set<[Int]> = []) -> HeapPixelMemory {
        var bytes = [UInt8](repeating: 7, count: stride * height)
        for y in 0..<height {
            for x in 0..<width { bytes[y * stride + x * 4 + 3] = holes.contains([x, y]) ? 0 : 255 }
        }
        return HeapPixelMemory(bytes)
    }

    @Test("alpha 255 throughout is opaque, in either pixel order, whatever lies in the rows' padding")
    func opaqueWhenEveryAlphaIs255() {
        for order in ImageFormat.PixelOrder.allCases {
            // 5 pixels a row in 24 bytes: the padding's bytes (7) are not pixels.
            let format = ImageFormat(width: 5, height: 3, stride: 24, order: order)
            #expect(ImageSource(owner: .server, number: 1, memory: memory(width: 5, height: 3, stride: 24), format: format).pixelsReadOpaque)
            let holed = ImageSource(owner: .server, number: 2, memory: memory(width: 5, height: 3, stride: 24, holes: [[4, 2]]), format: format)
            #expect(!holed.pixelsReadOpaque, "the last pixel is transparent")
        }
    }

    @Test("a changed rectangle with a translucent pixel makes the picture translucent for good; an opaque one keeps it opaque")
    func changesAreRead() {
        let pixels = memory(width: 8, height: 8, stride: 32)
        let source = ImageSource(owner: .server, number: 1, memory: pixels, format: ImageFormat(width: 8, height: 8))
        #expect(source.pixelsReadOpaque)
        source.markChanged(PixelRect(x: 2, y: 2, width: 4, height: 4))
        #expect(source.pixelsReadOpaque, "still every alpha 255")
        pixels.write([9, 9, 9, 128], at: (5 * 8 + 5) * 4)
        // A rectangle that leaves the pixel out is read as the client names it.
        source.markChanged(PixelRect(x: 0, y: 0, width: 2, height: 2))
        #expect(source.pixelsReadOpaque)
        // Reaching past the picture is clamped to it.
        source.markChanged(PixelRect(x: 4, y: 4, width: 100, height: 100))
        #expect(!source.pixelsReadOpaque, "(5, 5) is translucent now")
        pixels.write([9, 9, 9, 255], at: (5 * 8 + 5) * 4)
        source.markChanged(PixelRect(x: 5, y: 5, width: 1, height: 1))
        #expect(!source.pixelsReadOpaque, "what was not read again may still be translucent: it stays so")
    }
}
