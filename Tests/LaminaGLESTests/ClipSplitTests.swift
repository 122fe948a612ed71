import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// Opaque contents inside one rounded `masksToBounds` clip are drawn in two parts: the clip's
/// inside away from its corners without the clip, the corners through it
/// (`drawAroundCorners`). The pixels must be those of drawing it all through the clip.
@Suite("Contents around a rounded clip's corners")
struct ClipSplitTests {
    static func picture(opaque: Bool) -> ImageSource {
        var bytes: [UInt8] = []
        for y in 0..<90 { for x in 0..<120 { bytes += [UInt8(x * 2), UInt8(y * 2), UInt8((x * 7 + y * 13) & 255), opaque ? 255 : 160] } }
        let s = ImageSource(owner: .session(EntrySerial(1)), number: 1, bitmap: Bitmap(width: 120, height: 90, bytes: bytes)!)
        s.pixelsAreOpaque = opaque
        return s
    }

    /// The picture at (30, 20) under a clip of radius `radius` (continuous corners or not) with
    /// `marker`, a square over one corner, changed between frames (partial damage).
    static func list(_ source: ImageSource, radius: Double, curve: CornerCurve, marker: Color) -> DrawList {
        let background = DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 200, height: 150),
                                     color: Color(red: 0.2, green: 0.4, blue: 0.8, alpha: 1), opacity: 1)
        let area = Rect(x: 0, y: 0, width: 120, height: 90)
        let radii = CornerRadii(radius: radius, mask: .all, size: area.size, curve: curve)
        let clip = DrawCommand(kind: .pushClip, transform: .translation(x: 30, y: 20), bounds: area, cornerRadii: radii)
        let draw = DrawCommand(kind: .contents, transform: .translation(x: 30, y: 20), bounds: area,
                               contents: DrawContents(source: source, destination: area))
        let dot = DrawCommand(transform: .translation(x: 20, y: 10), bounds: Rect(x: 0, y: 0, width: 24, height: 24), color: marker, opacity: 1)
        return DrawList(width: 200, height: 150, commands: [background, clip, draw, DrawCommand(kind: .popClip), dot])
    }

    @Test(arguments: [(CornerCurve.circular, true), (.continuous, true), (.circular, false)])
    func theSplitShowsWhatTheClipDoes(_ curve: CornerCurve, _ opaque: Bool) throws {
        let split = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        let whole = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        whole.damageTracking = false
        // The reference draws it all through the clip (the split switched off).
        whole.renderer.drawingAroundCorners = true
        // Opaque pixels skip blending; translucent ones blend in both parts alike.
        let a = Self.picture(opaque: opaque), b = Self.picture(opaque: opaque)
        for (step, marker) in [Color.red, .green, .blue].enumerated() {
            try split.present(Self.list(a, radius: 18, curve: curve, marker: marker))
            try whole.present(Self.list(b, radius: 18, curve: curve, marker: marker))
            let d = try split.screenshot().difference(from: try whole.screenshot())
            #expect(d.worst <= 1, "step \(step): largest channel difference \(d.worst) (\(d.differing) pixels)")
        }
        #expect(split.renderer.clippedSplits > 0)
        #expect(whole.renderer.clippedSplits == 0)
        // The corners are cut: the background shows at the clip's very corner, the picture inside.
        let shot = try split.screenshot()
        #expect(shot.pixel(x: 149, y: 109) == (51, 102, 204, 255), "the bottom right corner (the marker covers the top left)")
        if opaque { #expect(shot.pixel(x: 30 + 60, y: 20 + 45) == (120, 90, UInt8((60 * 7 + 45 * 13) & 255), 255)) }
    }
}
