import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport
import LaminaGPUChecks

/// `compositingFilter`: every blend mode on known colours, drawn through the render list and
/// the renderer (backdrop by framebuffer fetch and by copy), against the W3C Compositing and
/// Blending Level 1 formulas (and Apple's for plusLighter and plusDarker) computed on the CPU
/// from the same 8-bit inputs (`BlendReference`, shared with lamina-gpu-check).
@Suite("Blend modes")
struct BlendModeTests {
    static let pairs = BlendReference.pairs

    static let cell = 8

    /// One row per mode, one column per pair: each cell a backdrop layer and, over it, a layer
    /// of the source colour with the mode. The display's background is clear, so the pixels read
    /// back are the composite itself (premultiplied).
    static func scene() -> [SceneLayer] {
        var layers: [SceneLayer] = []
        for (row, mode) in BlendMode.allCases.enumerated() {
            for (column, pair) in pairs.enumerated() {
                let frame = Rect(x: Double(column * cell), y: Double(row * cell), width: Double(cell), height: Double(cell))
                layers.append(SceneLayer(frame: frame, color: pair.backdrop))
                layers.append(SceneLayer(frame: frame, color: pair.source) {
                    $0.compositingFilter = mode
                    $0.opacity = pair.opacity
                })
            }
        }
        return layers
    }

    static func draw(fetch: Bool) throws -> (Bitmap, GLESRenderer) {
        let width = pairs.count * cell, height = BlendMode.allCases.count * cell
        let display = try HeadlessDisplay(width: width, height: height)
        display.renderer.usesFramebufferFetch = fetch
        try display.present(try drawList(scene(), width: width, height: height, background: .clear))
        return (try display.screenshot(), display.renderer)
    }

    @Test("every blend mode matches its formula, backdrop fetched or copied", arguments: [true, false])
    func formulas(fetch: Bool) throws {
        let (image, renderer) = try Self.draw(fetch: fetch)
        if fetch, !renderer.hasFramebufferFetch {
            #expect(renderer.backdropCopies > 0, "without framebuffer fetch the backdrop is copied")
        } else if !fetch {
            #expect(renderer.backdropCopies == BlendMode.allCases.count * Self.pairs.count)
        } else {
            #expect(renderer.backdropCopies == 0, "with framebuffer fetch nothing is copied")
        }
        #expect(renderer.blendedComposites == BlendMode.allCases.count * Self.pairs.count)
        for (row, mode) in BlendMode.allCases.enumerated() {
            for (column, pair) in Self.pairs.enumerated() {
                let want = BlendReference.expectedBytes(mode, pair)
                let got = Pixel(image, column * Self.cell + Self.cell / 2, row * Self.cell + Self.cell / 2)
                let wanted = Pixel(want[0], want[1], want[2], want[3])
                #expect(got.isClose(to: wanted, tolerance: 2), "\(mode.rawValue), pair \(column): \(got), formula \(wanted)")
            }
        }
    }

    /// The modes are not source-over: each differs from a plain composite of the same colours
    /// somewhere, so the formulas above are not met by accident.
    @Test("each mode differs from plain source-over")
    func notSourceOver() throws {
        let (image, _) = try Self.draw(fetch: true)
        for (row, mode) in BlendMode.allCases.enumerated() {
            let differs = Self.pairs.indices.contains { column in
                let pair = Self.pairs[column]
                let src = BlendReference.stored(pair.source).map { $0 * pair.opacity }, dst = BlendReference.stored(pair.backdrop)
                let over = (0..<4).map { Int(((src[$0] + dst[$0] * (1 - src[3])) * 255).rounded()) }
                let got = Pixel(image, column * Self.cell + Self.cell / 2, row * Self.cell + Self.cell / 2)
                return !got.isClose(to: Pixel(over[0], over[1], over[2], over[3]), tolerance: 4)
            }
            #expect(differs, "\(mode.rawValue) looks like source-over")
        }
    }

    /// A blended layer's sublayers blend with it as one group, and a blended sublayer of a
    /// translucent layer blends only with what its superlayer's group holds (the group is
    /// isolated, as in CSS): over the backdrop outside the group it is a plain composite.
    @Test("a blended layer blends as a group, within its superlayer's group")
    func groups() throws {
        let backdrop = rgb(200, 100, 50)
        let parent = SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: .clear, sublayers: [
            SceneLayer(frame: Rect(x: 0, y: 0, width: 8, height: 16), color: rgb(60, 60, 60)),
            SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: rgb(128, 200, 255)) { $0.compositingFilter = .multiply },
        ]) { $0.opacity = 0.999 }  // a group of its own
        let display = try HeadlessDisplay(width: 16, height: 16)
        try display.present(try drawList([SceneLayer(frame: Rect(x: 0, y: 0, width: 16, height: 16), color: backdrop), parent],
                                         width: 16, height: 16, background: .black))
        let image = try display.screenshot()
        // Left: multiplied with the grey inside the group. Right: the group was clear there, so
        // the multiply left the source as it is, and the group covers the backdrop source-over.
        let left = Pixel(image, 4, 8), right = Pixel(image, 12, 8)
        #expect(left.isClose(to: Pixel(30, 47, 60), tolerance: 2), "\(left)")
        #expect(right.isClose(to: Pixel(128, 200, 255), tolerance: 2), "\(right)")
    }

    /// lamina-gpu-check's check (draw commands straight to the renderer) passes here too.
    @Test("the GPU check passes on this renderer", arguments: [true, false])
    func gpuCheck(fetch: Bool) {
        let outcome = GPUChecks.blendModes(fetch: fetch)
        #expect(outcome.passed, "\(outcome.text)")
    }
}
