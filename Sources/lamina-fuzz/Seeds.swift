#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaTestSupport

/// Seed inputs made with the codec the golden-byte tests check (Tests/LaminaProtocolTests),
/// written once into an empty corpus folder.
enum Seeds {
    static var commits: [[Operation]] {
        var move = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(100))
        move.timing.duration = 1
        move.timing.repeatCount = 3
        let keyframes = KeyframeAnimation(keyPath: "opacity", values: [.number(0), .number(1), .number(0.5)])
        return [
            [.create(LayerID(1)), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 100, height: 50))),
             .set(LayerID(1), .position, .point(Point(x: 50, y: 50))), .set(LayerID(1), .backgroundColor, .color(.red)),
             .insert(parent: .root, child: LayerID(1), index: .max)],
            [.create(LayerID(1)), .create(LayerID(2)), .insert(parent: .root, child: LayerID(1), index: 0),
             .insert(parent: LayerID(1), child: LayerID(2), index: 0),
             .set(LayerID(1), .cornerRadius, .number(8)), .set(LayerID(1), .masksToBounds, .bool(true)),
             .set(LayerID(1), .shadowOpacity, .number(0.5)), .set(LayerID(1), .shadowRadius, .number(6)),
             .set(LayerID(1), .opacity, .number(0.5)), .set(LayerID(2), .borderWidth, .number(2)),
             .addAnimation(LayerID(1), key: "move", tag: 1, .basic(move)),
             .addAnimation(LayerID(2), key: "fade", tag: 2, .keyframe(keyframes))],
            [.create(LayerID(1), kind: .replicator), .create(LayerID(2)), .insert(parent: .root, child: LayerID(1), index: 0),
             .insert(parent: LayerID(1), child: LayerID(2), index: 0),
             .set(LayerID(1), .instanceCount, .number(5)), .set(LayerID(1), .instanceTransform, .transform(.translation(x: 10, y: 0))),
             .set(LayerID(2), .bounds, .rect(Rect(x: 0, y: 0, width: 8, height: 8))), .set(LayerID(2), .backgroundColor, .color(.blue))],
            [.create(LayerID(1)), .create(LayerID(2)), .set(LayerID(1), .mask, .layer(2)), .insert(parent: .root, child: LayerID(1), index: 0),
             .remove(LayerID(1)), .destroy(LayerID(2)), .settings(TransactionSettings(duration: 1, disableActions: true))],
            // A drawing (property 97): state, a path from SVG data, a gradient, dashes, text.
            [.create(LayerID(1)), .insert(parent: .root, child: LayerID(1), index: 0),
             .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 120, height: 80))),
             .set(LayerID(1), .drawing, .drawing(Drawing([
                DrawingCommand(.saveGState), DrawingCommand(.translateBy, [10, 10]), DrawingCommand(.rotateBy, [0.3]),
                DrawingCommand(.addPath, [], ["M 0 0 L 40 0 Q 50 10 40 20 C 30 30 10 30 0 20 Z"]),
                DrawingCommand(.setFillColor, [1, 0, 0, 1]), DrawingCommand(.fillPath, [1]), DrawingCommand(.restoreGState),
                DrawingCommand(.setLineDash, [0, 4, 2]), DrawingCommand(.setLineWidth, [3]),
                DrawingCommand(.addArc, [60, 40, 30, 0, 3, 0]), DrawingCommand(.strokePath),
                DrawingCommand(.drawLinearGradient, [0, 0, 0, 80, 3, 0, 0, 0, 1, 0.5, 1, 1, 1, 1, 0.5]),
                DrawingCommand(.setShadow, [2, 2, 4, 0, 0, 0, 0.5]), DrawingCommand(.showText, [4, 70, 12], ["Lamina", "Helvetica"]),
             ])))],
        ]
    }

    static func frames() -> [[UInt8]] {
        var out: [[UInt8]] = [ClientMessage.hello(Hello(clientName: "seed", session: "s", flags: .keepLayers)).encoded()]
        for (n, ops) in commits.enumerated() { out.append(ClientMessage.commit(Commit(serial: UInt32(n + 1), operations: ops)).encoded()) }
        for r: Request in [.screenshot, .tree, .advanceClock(seconds: 0.5), .stats, .presentation(LayerID(1)), .presentationTree, .watch,
                           .displayPower(on: false, output: "")] {
            out.append(ClientMessage.request(id: 9, r).encoded())
        }
        return out
    }

    /// GIFs written byte by byte (disposals, transparency, a local table, interlacing, the
    /// loop extension) and the WebP test fixtures (still lossless and lossy, animated).
    static func images() -> [[UInt8]] {
        let colors: [GIFWriter.RGB] = [(0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
        var animated = GIFWriter(width: 4, height: 4, colors: colors, loop: 0)
        animated.frame(width: 4, height: 4, indices: Array(repeating: 1, count: 16), delay: 10, disposal: 1)
        animated.frame(x: 1, y: 1, width: 2, height: 2, indices: [2, 0, 0, 2], delay: 0, disposal: 2, transparent: 0)
        animated.frame(x: 2, y: 0, width: 2, height: 2, indices: [3, 3, 3, 3], delay: 5, disposal: 3)
        animated.frame(width: 2, height: 8, indices: (0..<16).map { UInt8($0 % 4) }, delay: 20, colors: colors.reversed(), interlaced: true)
        var still = GIFWriter(width: 3, height: 2, colors: colors)
        still.frame(width: 3, height: 2, indices: [0, 1, 2, 3, 2, 1])
        var inputs = [animated.finished(), animated.finished(trailer: false), still.finished()]
        // SVG documents: shapes, a gradient, text, a viewBox, a use, and a data: URL image.
        inputs += [
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="20" fill="#fff"/></svg>"##,
            ##"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 50"><defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect id="r" width="10" height="10"/></defs><rect width="100" height="50" fill="url(#g)"/><use xlink:href="#r" x="5" y="5"/><text x="10" y="40" font-size="12">Hi</text><path d="M0 0 L50 50 Q 60 10 90 40 Z" stroke="black" fill="none"/></svg>"##,
            #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="/></svg>"#,
        ].map { Array($0.utf8) }
        let fixtures = TestPaths.repository + "/Tests/LaminaImageTests/Fixtures/"
        for name in ["still-lossless.webp", "still-lossy.webp", "animated-loop3.webp", "pillow.gif"] {
            guard let f = fopen(fixtures + name, "rb") else { continue }
            var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
            while case let n = fread(&chunk, 1, chunk.count, f), n > 0 { bytes += chunk[0..<n] }
            fclose(f)
            inputs.append(bytes)
        }
        return inputs
    }

    static func write(to dir: String, for target: Target) {
        mkdir(dir, 0o755)
        var inputs: [[UInt8]]
        switch target {
        case .decoder: inputs = frames() + [frames().flatMap { $0 }]
        case .apply: inputs = commits.enumerated().map { Array(ClientMessage.commit(Commit(serial: UInt32($0.offset), operations: $0.element)).encoded().dropFirst(Frame.headerSize)) }
        case .journal:
            var animation = BasicAnimation(keyPath: "position.x", fromValue: .number(0), toValue: .number(10))
            animation.duration = 2
            inputs = commits.map { ops in
                SessionJournal(clock: .virtual, writtenAt: 1, bootID: "b", sessions: [
                    SessionJournal.Session(name: "s", clientName: "seed", ownerUID: 0, structure: ops,
                                           images: [SessionJournal.Image(number: 2, width: 2, height: 2, file: "i.rgba")],
                                           animations: [.addAnimation(LayerID(1), key: "k", tag: 0, .basic(animation))]),
                ]).encoded()
            }
        case .image: inputs = images()
        case .compositor:
            // Client A says each frame, with a frame drawn and the clock moved between them.
            inputs = frames().dropFirst().map { f in
                var script: [UInt8] = []
                var rest = f[...]
                while !rest.isEmpty {
                    let piece = rest.prefix(255)
                    script += [0, UInt8(piece.count)] + piece
                    rest = rest.dropFirst(piece.count)
                }
                return script + [2, 0, 4, 1, 8, 2, 0]
            }
        }
        for (n, input) in inputs.enumerated() {
            let path = dir + "/seed-\(n)"
            guard let f = fopen(path, "wb") else { continue }
            _ = input.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            fclose(f)
        }
    }
}
