import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import Testing
import LaminaTestSupport

/// A square `masksToBounds` clip on whole pixels outside any group is drawn as a scissor box
/// (`pushClip`), not through the shaders' clip stack. The pixels must be those of the clip
/// stack, for everything a clip holds: shapes the edges cut, a shadowed translucent group, a
/// nested rounded clip, a background blur, a scroll that damages part of the display.
@Suite("Square clips as scissor boxes")
struct ScissorClipTests {
    /// A list clipped to (20, 10, 160, 120), scrolled by `offset`, over a striped background.
    static func scene(offset: Double, x: Double = 20, radius: Double = 0) -> [SceneLayer] {
        let stripes = (0..<10).map { i in
            SceneLayer(frame: Rect(x: Double(i) * 20, y: 0, width: 10, height: 150), color: Color(red: 0.9, green: 0.8, blue: 0.1, alpha: 1))
        }
        let cut = SceneLayer(frame: Rect(x: -10, y: -8, width: 180, height: 30), color: Color(red: 0.9, green: 0.1, blue: 0.1, alpha: 1)) {
            $0.cornerRadius = 6
        }
        let group = SceneLayer(frame: Rect(x: 10, y: 40, width: 140, height: 30), color: Color(red: 0.1, green: 0.6, blue: 0.2, alpha: 1),
                               sublayers: [SceneLayer(frame: Rect(x: 100, y: 10, width: 80, height: 40), color: .white)]) {
            $0.opacity = 0.7
            $0.shadowOpacity = 0.8
            $0.shadowRadius = 4
            $0.shadowOffset = Size(width: 3, height: 5)
            $0.cornerRadius = 5
        }
        let rounded = SceneLayer(frame: Rect(x: 30, y: 100, width: 120, height: 40), color: Color(red: 0.2, green: 0.3, blue: 0.9, alpha: 1),
                                 sublayers: [SceneLayer(frame: Rect(x: -20, y: 10, width: 200, height: 12), color: .white)]) {
            $0.cornerRadius = 10
            $0.masksToBounds = true
        }
        let glass = SceneLayer(frame: Rect(x: 100, y: 20, width: 80, height: 40), color: Color(red: 1, green: 1, blue: 1, alpha: 0.2)) {
            $0.backgroundFilters = [.gaussianBlur("frost", radius: 6)]
        }
        let list = SceneLayer(frame: Rect(x: x, y: 10, width: 160, height: 120), color: Color(red: 0.1, green: 0.1, blue: 0.1, alpha: 0.9),
                              sublayers: [cut, group, rounded, glass]) {
            $0.masksToBounds = true
            $0.cornerRadius = radius
            $0.bounds.origin.y = offset
        }
        return stripes + [list]
    }

    /// Draws the frames on a damage-tracked display with square clips scissored and on one
    /// drawing every frame whole through the clip stack; expects the same pixels each frame.
    static func compare(_ frames: [[SceneLayer]], sourceLocation: SourceLocation = #_sourceLocation) throws -> (scissored: Int, reference: Int) {
        let scissored = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        let reference = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        reference.damageTracking = false
        reference.renderer.scissorsSquareClips = false
        for (step, layers) in frames.enumerated() {
            try scissored.present(try drawList(layers, width: 200, height: 150, background: .black))
            try reference.present(try drawList(layers, width: 200, height: 150, background: .black))
            let d = try scissored.screenshot().difference(from: try reference.screenshot())
            #expect(d.worst <= 1, "frame \(step): largest channel difference \(d.worst) (\(d.differing) pixels)", sourceLocation: sourceLocation)
        }
        return (scissored.renderer.scissoredClips, reference.renderer.scissoredClips)
    }

    @Test("a square clip on whole pixels is a scissor box, with the clip stack's pixels, scrolled frame by frame")
    func scissoredListMatchesTheClipStack() throws {
        let counts = try Self.compare([0, 7, 19, -5].map { Self.scene(offset: $0) })
        #expect(counts.scissored > 0)
        #expect(counts.reference == 0)
        // The list's edge cuts: the background's stripe shows just outside it, the list inside.
        let shot = try render(Self.scene(offset: 0), width: 200, height: 150)
        #expect(shot.pixel(x: 20, y: 5) == (230, 204, 26, 255), "above the list: the stripe")
        #expect(shot.pixel(x: 20, y: 12).r > 200 && shot.pixel(x: 20, y: 12).g < 60, "the cut row inside the list")
    }

    /// Contents under a scissored clip: a video frame copied with glBlitFramebuffer (which the
    /// scissor does not cut, so the copy's box is met with the clip) and a picture inside a
    /// rounded clip, drawn around its corners, both cut by the square clip's edges.
    @Test("contents copied or drawn around a rounded clip's corners keep inside a scissored clip")
    func contentsUnderAScissoredClip() throws {
        func list(_ video: ImageSource, _ picture: ImageSource, marker: Color) -> DrawList {
            let background = DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 200, height: 150),
                                         color: Color(red: 0.5, green: 0.5, blue: 0.5, alpha: 1), opacity: 1)
            let square = DrawCommand(kind: .pushClip, transform: .translation(x: 20, y: 10), bounds: Rect(x: 0, y: 0, width: 160, height: 120))
            let videoArea = Rect(x: 0, y: 0, width: 64, height: 48)
            let copied = DrawCommand(kind: .contents, transform: .translation(x: 140, y: 100), bounds: videoArea,
                                     contents: DrawContents(source: video, destination: videoArea))
            let roundArea = Rect(x: 0, y: 0, width: 120, height: 90)
            let radii = CornerRadii(radius: 14, mask: .all, size: roundArea.size, curve: .circular)
            let rounded = DrawCommand(kind: .pushClip, transform: .translation(x: -10, y: -20), bounds: roundArea, cornerRadii: radii)
            let drawn = DrawCommand(kind: .contents, transform: .translation(x: -10, y: -20), bounds: roundArea,
                                    contents: DrawContents(source: picture, destination: roundArea))
            let dot = DrawCommand(transform: .translation(x: 90, y: 60), bounds: Rect(x: 0, y: 0, width: 20, height: 20), color: marker, opacity: 1)
            return DrawList(width: 200, height: 150, commands: [background, square, copied, rounded, drawn, DrawCommand(kind: .popClip),
                                                                DrawCommand(kind: .popClip), dot])
        }
        let scissored = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        let reference = try HeadlessDisplay(width: 200, height: 150, buffers: 2)
        reference.damageTracking = false
        reference.renderer.scissorsSquareClips = false
        let (v1, p1) = (ContentsBlitTests.image(video: true), ClipSplitTests.picture(opaque: true))
        let (v2, p2) = (ContentsBlitTests.image(video: true), ClipSplitTests.picture(opaque: true))
        for (step, marker) in [Color.red, .green, .blue].enumerated() {
            try scissored.present(list(v1, p1, marker: marker))
            try reference.present(list(v2, p2, marker: marker))
            let d = try scissored.screenshot().difference(from: try reference.screenshot())
            #expect(d.worst <= 1, "step \(step): largest channel difference \(d.worst) (\(d.differing) pixels)")
        }
        #expect(scissored.renderer.scissoredClips > 0 && reference.renderer.scissoredClips == 0)
        #expect(scissored.renderer.clippedSplits > 0, "the picture in the rounded clip is drawn around its corners")
        // The ES 2 path has no glBlitFramebuffer: it always draws (the pixels compare the same).
        #expect(GLESMode.isES2 ? scissored.renderer.contentsBlits == 0 : scissored.renderer.contentsBlits > 0)
        // Past the square clip's right and bottom edges the background shows, not the video.
        let shot = try scissored.screenshot()
        #expect(shot.pixel(x: 185, y: 135) == (128, 128, 128, 255), "\(shot.pixel(x: 185, y: 135))")
        // The video's texel (35, 25): (x·4, y·5, (x·7 + y·13) mod 256).
        let inside = shot.pixel(x: 175, y: 125)
        #expect(inside.r == 140 && inside.g == 125 && inside.b == 58 && inside.a == 255, "the video inside the clip: \(inside)")
    }

    @Test("a clip off whole pixels or with corners stays in the clip stack", arguments: [(20.5, 0.0), (20, 8.0)])
    func otherClipsAreNotScissored(_ x: Double, _ radius: Double) throws {
        let counts = try Self.compare([0, 7].map { Self.scene(offset: $0, x: x, radius: radius) })
        #expect(counts.scissored == 0)
    }
}
