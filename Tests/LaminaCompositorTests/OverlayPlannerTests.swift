import LaminaCore
import LaminaCompositor
import Testing

/// When a video may go on an overlay plane instead of being composited (issue 14), rule by
/// rule; the KMS VM's devices have no overlay plane, so this is where the rules are checked.
@Suite("Overlay planner")
struct OverlayPlannerTests {
    final class Keeper {}
    static let xr24 = DRMFourCC.xrgb8888
    static let planes = [OverlayPlane(id: 41, formats: [DRMFourCC.argb8888, xr24])]

    static func video(alpha: Bool = false, dmabuf: Bool = true) -> ImageSource {
        let source: ImageSource
        if dmabuf {
            let picture = DMABufPicture(width: 640, height: 360, fourcc: alpha ? DRMFourCC.argb8888 : xr24, modifier: nil,
                                        planes: [.init(fd: 9, offset: 0, pitch: 2560)], hasAlpha: alpha, keeper: Keeper()) { nil }
            source = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: VideoFrame(dmabuf: picture, time: 0))
        } else {
            source = ImageSource(owner: .session(EntrySerial(1)), number: 1, bitmap: Bitmap(width: 640, height: 360))
        }
        source.isVideo = true
        return source
    }

    /// A 640×360 video placed at (100, 50) on a 1280×720 output, over a background layer.
    static func list(_ video: ImageSource = video(), transform: Transform3D = .translation(x: 100, y: 50),
                     opacity: Double = 1, sourceRect: Rect = Rect(x: 0, y: 0, width: 1, height: 1),
                     clip: (rect: Rect, radii: CornerRadii)? = nil, before: [DrawCommand] = [], after: [DrawCommand] = []) -> DrawList {
        let background = DrawCommand(transform: .identity, bounds: Rect(x: 0, y: 0, width: 1280, height: 720), color: .blue, opacity: 1)
        let draw = DrawCommand(kind: .contents, transform: transform, bounds: Rect(x: 0, y: 0, width: 640, height: 360), opacity: opacity,
                               contents: DrawContents(source: video, destination: Rect(x: 0, y: 0, width: 640, height: 360),
                                                      sourceRect: sourceRect, clip: clip))
        return DrawList(width: 1280, height: 720, commands: [background] + before + [draw] + after)
    }

    @Test func anOpaqueStraightTopMostDMABufVideoGoesOnThePlane() {
        #expect(OverlayPlanner.plan(Self.list(), planes: Self.planes)
                == .scanout(command: 1, plane: 41, source: Rect(x: 0, y: 0, width: 640, height: 360),
                            destination: PixelBox(x0: 100, y0: 50, x1: 740, y1: 410)))
        // Scaled and cropped: the plane scales the part of the picture contentsRect picks.
        let scaled = Self.list(transform: .scale(x: 2, y: 2),
                               sourceRect: Rect(x: 0.25, y: 0, width: 0.5, height: 1))
        #expect(OverlayPlanner.plan(scaled, planes: Self.planes)
                == .scanout(command: 1, plane: 41, source: Rect(x: 160, y: 0, width: 320, height: 360),
                            destination: PixelBox(x0: 0, y0: 0, x1: 1280, y1: 720)))
    }

    @Test func eachRuleThatKeepsItComposited() {
        func why(_ list: DrawList, planes: [OverlayPlane] = Self.planes) -> String {
            if case .composite(let reason) = OverlayPlanner.plan(list, planes: planes) { return reason }
            return "not composited"
        }
        #expect(OverlayPlanner.plan(DrawList(width: 1280, height: 720, commands: []), planes: Self.planes) == .noVideo)
        #expect(why(Self.list(Self.video(dmabuf: false))).contains("system memory"))
        #expect(why(Self.list(Self.video(alpha: true))).contains("alpha"))
        // NV12 from a hardware decoder, and a plane that scans NV12 out: composited until the
        // plane's colour encoding and range are set.
        let nv12 = DMABufPicture(width: 640, height: 360, fourcc: DRMFourCC.nv12, modifier: nil,
                                 planes: [.init(fd: 9, offset: 0, pitch: 640), .init(fd: 9, offset: 640 * 360, pitch: 640)],
                                 matrix: .bt709, fullRange: false, keeper: Keeper()) { nil }
        let yuv = ImageSource(owner: .session(EntrySerial(1)), number: 1, frame: VideoFrame(dmabuf: nv12, time: 0))
        #expect(why(Self.list(yuv), planes: [OverlayPlane(id: 41, formats: [Self.xr24, DRMFourCC.nv12])]).contains("YUV (NV12)"))
        #expect(why(Self.list(opacity: 0.5)).contains("translucent"))
        #expect(why(Self.list(transform: Transform3D.rotation(angle: 0.1).concatenating(.translation(x: 100, y: 50)))).contains("rotated"))
        #expect(why(Self.list(transform: .translation(x: 100.5, y: 50))).contains("whole pixels"))
        #expect(why(Self.list(transform: .translation(x: 900, y: 50))).contains("past the output"))
        #expect(why(Self.list(clip: (Rect(x: 0, y: 0, width: 640, height: 360), CornerRadii(radius: 12, mask: .all, size: Size(width: 640, height: 360))))).contains("clipped"))
        let badge = DrawCommand(transform: .translation(x: 600, y: 60), bounds: Rect(x: 0, y: 0, width: 80, height: 30), color: .red, opacity: 1)
        #expect(why(Self.list(after: [badge])).contains("drawn over"))
        // Beside it, not over it: still a plane.
        let beside = DrawCommand(transform: .translation(x: 800, y: 60), bounds: Rect(x: 0, y: 0, width: 80, height: 30), color: .red, opacity: 1)
        if case .scanout = OverlayPlanner.plan(Self.list(after: [beside]), planes: Self.planes) {} else { Issue.record("a layer beside the video kept it composited") }
        #expect(why(Self.list(before: [DrawCommand(kind: .pushClip, bounds: Rect(x: 0, y: 0, width: 1280, height: 720))])).contains("clipped"))
        #expect(why(Self.list(), planes: []) == "the output has no free overlay plane")
        #expect(why(Self.list(), planes: [OverlayPlane(id: 7, formats: [DRMFourCC.abgr8888])]) == "no overlay plane scans out XR24")
    }
}

/// The YUV to RGB conversion's numbers: the shader uses the same matrix and offsets.
@Suite("Planar YUV pictures")
struct PlanarPictureTests {
    static func solid(_ y: UInt8, _ u: UInt8, _ v: UInt8, matrix: PlanarPicture.Matrix = .bt601, full: Bool = false) -> (UInt8, UInt8, UInt8) {
        let p = PlanarPicture(width: 3, height: 3, luma: [UInt8](repeating: y, count: 9), cb: [UInt8](repeating: u, count: 4),
                              cr: [UInt8](repeating: v, count: 4), matrix: matrix, fullRange: full)!
        let px = p.rgba().pixel(x: 2, y: 2)
        return (px.r, px.g, px.b)
    }

    @Test func limitedAndFullRangeBT601AndBT709() {
        func near(_ a: (UInt8, UInt8, UInt8), _ b: (Int, Int, Int)) -> Bool {
            abs(Int(a.0) - b.0) <= 2 && abs(Int(a.1) - b.1) <= 2 && abs(Int(a.2) - b.2) <= 2
        }
        // Limited range: 16 is black, 235 white; BT.601's and BT.709's reds differ in Y, Cb, Cr.
        #expect(near(Self.solid(16, 128, 128), (0, 0, 0)))
        #expect(near(Self.solid(235, 128, 128), (255, 255, 255)))
        #expect(near(Self.solid(81, 90, 240), (255, 0, 0)), "\(Self.solid(81, 90, 240))")
        #expect(near(Self.solid(63, 102, 240, matrix: .bt709), (255, 0, 0)), "\(Self.solid(63, 102, 240, matrix: .bt709))")
        // BT.2020 (Kr 0.2627, Kb 0.0593): red is Y 74, Cb 97, Cr 240; green Y 164, Cb 47, Cr 25.
        #expect(near(Self.solid(74, 97, 240, matrix: .bt2020), (255, 0, 0)), "\(Self.solid(74, 97, 240, matrix: .bt2020))")
        #expect(near(Self.solid(164, 47, 25, matrix: .bt2020), (0, 255, 0)), "\(Self.solid(164, 47, 25, matrix: .bt2020))")
        #expect(!near(Self.solid(74, 97, 240), (255, 0, 0)), "BT.601's matrix on BT.2020's red is off")
        #expect(near(Self.solid(145, 54, 34), (0, 255, 0)) && near(Self.solid(41, 240, 110), (0, 0, 255)))
        // Full range: Y as it is.
        #expect(near(Self.solid(128, 128, 128, full: true), (128, 128, 128)))
        #expect(near(Self.solid(76, 85, 255, full: true), (254, 0, 0)), "\(Self.solid(76, 85, 255, full: true))")
    }

    @Test func planesMustFitThePicture() {
        // 3×3 has 2×2 chroma (rounded up).
        #expect(PlanarPicture(width: 3, height: 3, luma: .init(repeating: 0, count: 9), cb: [0, 0, 0, 0], cr: [0, 0, 0, 0], matrix: .bt601, fullRange: false) != nil)
        #expect(PlanarPicture(width: 3, height: 3, luma: .init(repeating: 0, count: 9), cb: [0], cr: [0, 0, 0, 0], matrix: .bt601, fullRange: false) == nil)
        #expect(PlanarPicture(width: 0, height: 3, luma: [], cb: [], cr: [], matrix: .bt601, fullRange: false) == nil)
    }
}
