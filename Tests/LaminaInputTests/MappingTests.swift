import LaminaCore
import LaminaInput
import LaminaKMS
import LaminaCompositor
import Testing

/// Touch and absolute pointer positions, reported in the panel's physical orientation, mapped
/// onto the desktop through each output transform.
@Suite("input mapping")
struct MappingTests {
    /// A 1280x800 panel whose top-left is at (100, 50) in the desktop, under `transform`.
    static func placement(_ transform: OutputTransform) -> OutputPlacement {
        let size = transform.logicalSize(width: 1280, height: 800)
        return OutputPlacement(name: "Virtual-1", frame: Rect(x: 100, y: 50, width: Double(size.width), height: Double(size.height)),
                               quarterTurns: transform.quarterTurns, flipped: transform.isFlipped)
    }

    /// The panel point (0.25, 0.1): a quarter from the panel's left, a tenth from its top.
    /// Turned 90° clockwise the picture's left column runs along the panel's top row, so the
    /// point is a tenth into the picture from its left and three quarters down, and so on.
    @Test(arguments: [
        (OutputTransform.normal, Point(x: 100 + 320, y: 50 + 80)),
        (.rotate90, Point(x: 100 + 80, y: 50 + 960)),
        (.rotate180, Point(x: 100 + 960, y: 50 + 720)),
        (.rotate270, Point(x: 100 + 720, y: 50 + 320)),
        (.flipped, Point(x: 100 + 960, y: 50 + 80)),
        (.flipped90, Point(x: 100 + 720, y: 50 + 960)),
        (.flipped180, Point(x: 100 + 320, y: 50 + 720)),
        (.flipped270, Point(x: 100 + 80, y: 50 + 320)),
    ])
    func panelPointsMapThroughTheInverseTransform(transform: OutputTransform, expected: Point) {
        let p = Self.placement(transform).desktopPoint(panelX: 0.25, panelY: 0.1)
        #expect(abs(p.x - expected.x) < 1e-9 && abs(p.y - expected.y) < 1e-9, "\(transform): \(p), expected \(expected)")
    }

    /// The renderer's own output matrix (desktop → panel pixels) and the input mapping
    /// (panel → desktop) undo each other for every transform: a touch lands where its
    /// picture is drawn.
    @Test(arguments: OutputTransform.allCases)
    func inputMappingInvertsTheRendererMatrix(transform: OutputTransform) {
        let placement = Self.placement(transform)
        let logical = transform.logicalSize(width: 1280, height: 800)
        let m = transform.matrix(logicalWidth: Double(logical.width), logicalHeight: Double(logical.height))
        for (x, y) in [(0.0, 0.0), (10.0, 700.0), (333.0, 17.0), (Double(logical.width) - 1, Double(logical.height) - 1)] {
            guard let panel = m.apply(to: Point(x: x, y: y)) else {
                Issue.record("\(transform) has no affine output matrix")
                return
            }
            let back = placement.desktopPoint(panelX: panel.x / 1280, panelY: panel.y / 800)
            #expect(abs(back.x - (100 + x)) < 1e-6 && abs(back.y - (50 + y)) < 1e-6, "\(transform): (\(x), \(y)) → panel (\(panel.x), \(panel.y)) → \(back)")
        }
    }

    @Test func positionsOffThePanelAreClamped() {
        let o = Self.placement(.normal)
        #expect(o.desktopPoint(panelX: -0.5, panelY: 2) == Point(x: 100, y: 850))
        #expect(o.desktopPoint(panelX: .nan, panelY: -.infinity) == Point(x: 100, y: 50))
        #expect(o.desktopPoint(panelX: .infinity, panelY: 0.5) == Point(x: 1380, y: 450))
    }
}
