import Glibc
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

/// Frame times of the headless GLES backend at 1280×720 for the scenes issue 6 asks about.
///
/// Each scene is a real layer tree in a `ModelTree` (the server's render-list builder makes
/// the draw list, as laminad does). Every frame moves every top-level layer a little (a
/// fractional step, so edges never settle on the pixel grid), builds the list and draws it;
/// only `present` + `glFinish` is timed, so the number is the renderer's (llvmpipe's) work.
/// Nothing is reused from frame to frame except what the renderer itself keeps.
func runRenderBenchmark(frames: Int = 60) throws -> String {
    let width = 1280, height = 720
    let warmUp = 5
    var lines: [String] = []
    var rendererName = ""
    for scene in RenderScene.allCases {
        var bench = try SceneBench(scene: scene, width: width, height: height)
        rendererName = bench.backend.rendererDescription
        let ms = try bench.run(frames: frames, warmUp: warmUp)
        lines.append("  \(scene.title): median \(format(ms.median)) ms, p90 \(format(ms.p90)) ms, "
                     + "min \(format(ms.min)) ms (\(bench.commandCount) draw commands)")
    }
    return """
        render: median ms/frame at \(width)×\(height), \(frames) frames after \(warmUp) warm-up, layers moving \
        every frame (present + glFinish)
          renderer: \(rendererName)
        \(lines.joined(separator: "\n"))
        """
}

/// The scenes of issue 6's "Numbers to report": 100 layers of 200×200 at fractional positions,
/// a third of them rotated, each at 0.8 opacity so everything blends.
enum RenderScene: CaseIterable {
    /// Plain quads, no corners or borders: the baseline.
    case plain
    /// Every layer with cornerRadius 24 and a 4-point border.
    case roundedBorders
    /// 20 layers with a shadow (radius 12, offset 0,6) over their rounded shape, 80 plain.
    case shapeShadows
    /// 20 layers with a sublayer and a shadow: the shadow of composited pixels (blurred), 80 plain.
    case groupShadows
    /// 10 rounded layers with masksToBounds, each clipping a sublayer that overhangs it, 90 plain.
    case masked

    var title: String {
        switch self {
        case .plain: "100 plain quads                              "
        case .roundedBorders: "100 rounded corners + borders                "
        case .shapeShadows: "20 shadowed (shape shadow) + 80 plain        "
        case .groupShadows: "20 shadowed with a sublayer (blur) + 80 plain"
        case .masked: "10 masksToBounds rounded + sublayer, 90 plain"
        }
    }
}

/// One scene in a display tree, moved and drawn frame after frame.
struct SceneBench {
    let scene: RenderScene
    let backend: HeadlessDisplay
    private var display: ModelTree
    private let client = ClientID(rawValue: 1)
    private var centres: [Point] = []
    private(set) var commandCount = 0

    init(scene: RenderScene, width: Int, height: Int) throws {
        self.scene = scene
        backend = try HeadlessDisplay(width: width, height: height)
        display = ModelTree(width: width, height: height, background: .black)
        _ = try display.attach(client, hello: Hello(clientName: "lamina-bench"))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ range: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * range
        }
        let side = 200.0
        var ops: [Operation] = []
        var nextID: UInt32 = 1000
        for index in 0..<100 {
            let id = LayerID(UInt32(index + 1))
            // Centres kept at least half a side inside the display so every layer is fully visible.
            let centre = Point(side / 2 + next(Double(width) - side), side / 2 + next(Double(height) - side))
            centres.append(centre)
            let color = Color(red: 0.3 + next(0.7), green: 0.3 + next(0.7), blue: 0.3 + next(0.7))
            ops += [.create(id), .set(id, .bounds, .rect(Rect(0, 0, side, side))), .set(id, .position, .point(centre)),
                    .set(id, .backgroundColor, .color(color)), .set(id, .opacity, .number(0.8))]
            if index % 3 == 0 { ops.append(.set(id, .transform, .transform(.rotation(angle: next(.pi / 2))))) }
            switch scene {
            case .plain:
                break
            case .roundedBorders:
                ops += [.set(id, .cornerRadius, .number(24)), .set(id, .borderWidth, .number(4)),
                        .set(id, .borderColor, .color(Color(red: 1, green: 1, blue: 1)))]
            case .shapeShadows, .groupShadows:
                if index % 5 == 0 {
                    ops += [.set(id, .cornerRadius, .number(16)), .set(id, .shadowOpacity, .number(0.6)),
                            .set(id, .shadowRadius, .number(12)), .set(id, .shadowOffset, .size(Size(width: 0, height: 6)))]
                    if scene == .groupShadows {
                        let child = LayerID(nextID)
                        nextID += 1
                        ops += [.create(child), .set(child, .bounds, .rect(Rect(0, 0, 120, 60))),
                                .set(child, .position, .point(Point(100, 130))),
                                .set(child, .backgroundColor, .color(Color(red: 0.1, green: 0.2, blue: 0.9))),
                                .insert(parent: id, child: child, index: .max)]
                    }
                }
            case .masked:
                if index % 10 == 0 {
                    let child = LayerID(nextID)
                    nextID += 1
                    ops += [.set(id, .cornerRadius, .number(24)), .set(id, .masksToBounds, .bool(true)),
                            .create(child), .set(child, .bounds, .rect(Rect(0, 0, 180, 120))),
                            .set(child, .position, .point(Point(130, 150))),
                            .set(child, .backgroundColor, .color(Color(red: 0.9, green: 0.2, blue: 0.1))),
                            .insert(parent: id, child: child, index: .max)]
                }
            }
            ops.append(.insert(parent: .root, child: id, index: .max))
        }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
    }

    /// Moves every top-level layer by a small, different fractional step for frame `frame`.
    private mutating func move(frame: Int) throws {
        var ops: [Operation] = []
        ops.reserveCapacity(centres.count)
        for (i, c) in centres.enumerated() {
            let phase = Double(frame) * 0.37 + Double(i)
            let p = Point(c.x + 20 * sin(phase * 0.1), c.y + 20 * cos(phase * 0.13))
            ops.append(.set(LayerID(UInt32(i + 1)), .position, .point(p)))
        }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
    }

    mutating func run(frames: Int, warmUp: Int) throws -> (median: Double, p90: Double, min: Double) {
        var milliseconds: [Double] = []
        for frame in 0..<(warmUp + frames) {
            try move(frame: frame)
            let list = display.drawList()
            commandCount = list.commands.count
            let start = monotonicSeconds()
            try backend.present(list)
            backend.context.finish()
            if frame >= warmUp { milliseconds.append((monotonicSeconds() - start) * 1000) }
        }
        milliseconds.sort()
        let n = milliseconds.count
        return ((milliseconds[(n - 1) / 2] + milliseconds[n / 2]) / 2, milliseconds[n * 9 / 10], milliseconds[0])
    }
}

private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Two decimal places, without Foundation's String(format:).
private func format(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
