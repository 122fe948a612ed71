import Glibc
import LaminaCore
import LaminaImage
import LaminaCompositor
import LaminaTestSupport
import Testing

/// Renders scenes and compares them with committed PNGs in `Reference/` (weston's
/// `verify_screen_content`). Set LAMINA_UPDATE_REFERENCES=1 to rewrite a reference; the test
/// still fails then, so a reference is never regenerated silently.
@Suite("GLES reference scenes")
struct ReferenceSceneTests {
    /// Largest per-channel difference accepted anywhere but on edges.
    static let tolerance = 3
    /// Pixels allowed past the tolerance: antialiasing-free edges may round differently on
    /// another rasteriser.
    static let allowedEdgePixels = 80

    @Test("rotation, scale and perspective match the reference")
    func transformedScene() throws {
        let width = 320, height = 240
        let perspective = Transform3D.perspective(distance: 500)
        let root = TestLayer(
            bounds: Rect(0, 0, 320, 240), position: Point(160, 120),
            sublayerTransform: perspective,
            sublayers: [
                // 30° clockwise on screen (y is down) about its centre.
                TestLayer(bounds: Rect(0, 0, 100, 60), position: Point(80, 70), color: rgb(60, 180, 75),
                          transform: .rotation(angle: .pi / 6)),
                // Stretched wide and squashed, translucent.
                TestLayer(bounds: Rect(0, 0, 80, 50), position: Point(240, 70), color: rgb(245, 130, 49),
                          opacity: 0.8, transform: .scale(x: 1.5, y: 0.75)),
                // Swung 50° about Y under the root's perspective (m34 = −1/500): the near edge grows.
                TestLayer(bounds: Rect(0, 0, 140, 90), position: Point(160, 175), color: rgb(67, 99, 216),
                          transform: .rotation(angle: 50 * .pi / 180, x: 0, y: 1, z: 0),
                          sublayers: [
                              TestLayer(bounds: Rect(0, 0, 60, 30), position: Point(35, 45), color: .white,
                                        opacity: 0.6),
                          ]),
            ])
        let list = DrawList(width: width, height: height, background: rgb(32, 32, 40), quads: root.quads())
        let backend = try HeadlessDisplay(width: width, height: height)
        try backend.present(list)
        try compare(try backend.screenshot(), withReference: "transformed-scene")
    }

    /// Compares `image` with `Reference/<name>.png`, or writes it there when asked to.
    func compare(_ image: Bitmap, withReference name: String, filePath: String = #filePath) throws {
        let directory = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let path = "\(directory)/Reference/\(name).png"
        if let problem = ReferenceImage.mismatch(image, reference: path, tolerance: Self.tolerance, allowedPixels: Self.allowedEdgePixels) {
            Issue.record(Comment(rawValue: problem))
        }
    }
}
