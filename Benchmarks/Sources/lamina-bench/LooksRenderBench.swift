import Glibc
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

/// Frame times of the appearance features at 1280×720, each against the same count of plain
/// layers in the same places, built through the server's render-list builder (so masks become
/// the groups laminad really draws): 10 masked layers (a circular `mask`) plus 90 plain, as
/// leaves (the clip fast path) and with a sublayer each (the offscreen mask), and 100 gradient
/// layers. Layers are 200×200, placed by a fixed sequence.
func runLooksRenderBenchmark() throws -> String {
    let width = 1280, height = 720
    let backend = try HeadlessDisplay(width: width, height: height)
    var lines = ["render (appearance): 100 layers of 200×200 at \(width)×\(height), present + glFinish, median of 100 frames after 10",
                 "  renderer: \(backend.rendererDescription)"]
    for scene in LooksScene.allCases {
        let list = try scene.drawList(width: width, height: height)
        let ms = try medianFrameMilliseconds(backend, list)
        lines.append("  \(scene.title): \(formatMilliseconds(ms)) ms/frame (\(list.commands.count) commands)")
    }
    return lines.joined(separator: "\n")
}

private enum LooksScene: CaseIterable {
    case plain, maskedLeaves, masked, gradients

    var title: String {
        switch self {
        case .plain: "100 plain layers"
        case .maskedLeaves: "10 masked leaves + 90 plain (clip fast path)"
        case .masked: "10 masked layers with a sublayer + 90 plain (offscreen mask)"
        case .gradients: "gradient ×100"
        }
    }

    func drawList(width: Int, height: Int) throws -> DrawList {
        var display = ModelTree(width: width, height: height, background: .black)
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "bench"))
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ range: Double) -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53) * range
        }
        var ops: [Operation] = []
        var number: UInt32 = 1
        let side = 200.0
        for index in 0..<100 {
            let id = LayerID(number)
            number += 1
            let gradient = self == .gradients
            ops.append(.create(id, kind: gradient ? .gradient : .layer))
            ops.append(.set(id, .bounds, .rect(Rect(x: 0, y: 0, width: side, height: side))))
            ops.append(.set(id, .position, .point(Point(x: side / 2 + next(Double(width) - side), y: side / 2 + next(Double(height) - side)))))
            if index % 3 == 0 { ops.append(.set(id, .transform, .transform(.rotation(angle: next(.pi / 2))))) }
            let color = Color(red: 0.3 + next(0.7), green: 0.3 + next(0.7), blue: 0.3 + next(0.7))
            if gradient {
                ops.append(.set(id, .colors, .colors([color, .white, Color(red: color.blue, green: color.red, blue: color.green)])))
                ops.append(.set(id, .startPoint, .point(Point(x: 0, y: 0))))
                ops.append(.set(id, .endPoint, .point(Point(x: 1, y: 1))))
            } else {
                ops.append(.set(id, .backgroundColor, .color(color)))
            }
            ops.append(.insert(parent: .root, child: id, index: .max))
            if self == .masked || self == .maskedLeaves, index % 10 == 0 {
                if self == .masked {
                    let inner = LayerID(number)
                    number += 1
                    ops.append(.create(inner))
                    ops.append(.set(inner, .bounds, .rect(Rect(x: 0, y: 0, width: side / 2, height: side / 2))))
                    ops.append(.set(inner, .position, .point(Point(x: side / 2, y: side / 2))))
                    ops.append(.set(inner, .backgroundColor, .color(.white)))
                    ops.append(.insert(parent: id, child: inner, index: .max))
                }
                let mask = LayerID(number)
                number += 1
                ops.append(.create(mask))
                ops.append(.set(mask, .bounds, .rect(Rect(x: 0, y: 0, width: side, height: side))))
                ops.append(.set(mask, .position, .point(Point(x: side / 2, y: side / 2))))
                ops.append(.set(mask, .backgroundColor, .color(.white)))
                ops.append(.set(mask, .cornerRadius, .number(side / 2)))
                ops.append(.set(id, .mask, .layer(mask.rawValue)))
            }
        }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
        return display.drawList()
    }
}

private func medianFrameMilliseconds(_ backend: HeadlessDisplay, _ list: DrawList) throws -> Double {
    for _ in 0..<10 {
        try backend.present(list)
        backend.context.finish()
    }
    var samples: [Double] = []
    for _ in 0..<100 {
        let start = secondsNow()
        try backend.present(list)
        backend.context.finish()
        samples.append((secondsNow() - start) * 1000)
    }
    samples.sort()
    return (samples[49] + samples[50]) / 2
}

private func secondsNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

private func formatMilliseconds(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
