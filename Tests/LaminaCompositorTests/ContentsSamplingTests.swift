import Testing
import LaminaCore
@testable import LaminaCompositor

/// `DrawContents.isMagnified(under:)`: whether no slice shows more than one texel per pixel
/// along either screen axis, so the magnification filter applies everywhere (GL's λ ≤ 0).
@Suite("Contents sampling")
struct ContentsSamplingTests {
    let image = ImageSource(bitmap: Bitmap(width: 12, height: 12))

    /// The 12 × 12 image over `bounds` with `contentsCenter` `center` at `scale` texels a point.
    func draw(_ bounds: Rect, center: Rect = Rect(0, 0, 1, 1), scale: Double = 1) -> DrawContents {
        let g = DrawContents.layout(bounds: bounds, imageWidth: 12, imageHeight: 12, contentsRect: Rect(0, 0, 1, 1),
                                    contentsCenter: center, gravity: .resize, scale: scale)
        return DrawContents(source: image, destination: g.destination, destinationInsets: g.destinationInsets,
                            sourceRect: g.sourceRect, sourceInsets: g.sourceInsets)
    }

    @Test("stretched one way and one to one the other is magnified; shrunk along either axis is not")
    func plain() {
        #expect(draw(Rect(0, 0, 12, 12)).isMagnified(under: .identity), "one to one: λ = 0")
        #expect(draw(Rect(0, 0, 12, 300)).isMagnified(under: .identity), "a strip stretched along its length")
        #expect(draw(Rect(0, 0, 48, 48)).isMagnified(under: .identity))
        #expect(!draw(Rect(0, 0, 11, 300)).isMagnified(under: .identity), "shrunk across")
        #expect(!draw(Rect(0, 0, 12, 12)).isMagnified(under: Transform3D.scale(x: 0.5, y: 2)))
        #expect(draw(Rect(0, 0, 6, 6)).isMagnified(under: Transform3D.scale(x: 2, y: 2)), "the display's scale counts")
    }

    @Test("a nine-slice image: its corners and edge strips count as well as its middle")
    func nineSlice() {
        let center = Rect(4.0 / 12, 4.0 / 12, 4.0 / 12, 4.0 / 12)
        // ContentsTests.nineSlice's first layer: 1:1 corners and edges across, the rest stretched.
        #expect(draw(Rect(10, 10, 80, 60), center: center).isMagnified(under: .identity))
        // contentsScale 2: the 4-texel edges are 2 points wide, two texels a pixel.
        #expect(!draw(Rect(10, 10, 80, 60), center: center, scale: 2).isMagnified(under: .identity))
        // Its middle shrunk: 4 texels over 2 points.
        #expect(!draw(Rect(0, 0, 10, 60), center: center).isMagnified(under: .identity))
    }

    @Test("turned, the texel-per-pixel rate is the column's length; perspective leaves it to the GL")
    func turned() {
        let quarter = Transform3D.rotation(angle: .pi / 4)
        // One to one turned by 45°: each screen axis crosses √2 / 2 texels of each texture axis,
        // a length of 1.
        #expect(draw(Rect(0, 0, 12, 12)).isMagnified(under: quarter))
        // Stretched 4× along x only, turned: still at most 1.
        #expect(draw(Rect(0, 0, 48, 12)).isMagnified(under: quarter))
        #expect(!draw(Rect(0, 0, 12, 12)).isMagnified(under: quarter.concatenating(Transform3D.scale(x: 0.9, y: 1))))
        // w varying across the layer (turned about y under a perspective): λ varies too.
        var perspective = Transform3D.identity
        perspective.m14 = 0.001
        #expect(!draw(Rect(0, 0, 48, 48)).isMagnified(under: perspective))
    }
    @Test("tiny scales do not underflow into a yes; values that are not finite leave it to the GL")
    func hostileValues() {
        // 1e-100 texels a unit shown at 1e-101 pixels a unit: 10 texels a pixel.
        let tiny = DrawContents(source: image, destination: Rect(0, 0, 1.2e101, 1.2e101))
        #expect(!tiny.isMagnified(under: Transform3D.scale(x: 1e-101, y: 1e-101)))
        #expect(!draw(Rect(0, 0, 48, 48)).isMagnified(under: Transform3D.scale(x: .nan, y: 1)))
        #expect(!draw(Rect(0, 0, 48, 48)).isMagnified(under: Transform3D.scale(x: .infinity, y: 1)))
        let nanInsets = DrawContents(source: image, destination: Rect(0, 0, 48, 48),
                                     destinationInsets: EdgeInsets(left: .nan, top: 0, right: 0, bottom: 0))
        #expect(!nanInsets.isMagnified(under: .identity))
        #expect(!DrawContents(source: image, destination: Rect(0, 0, .infinity, 48)).isMagnified(under: .identity))
    }
}
