import Foundation
import Testing
import Lamina
import LaminaCore

/// Emitter layers on a real laminad with a virtual clock: particles from the seed and the
/// layer's time alone, so separate daemons show the same pixels at the same times.
@Suite("laminad end to end: emitter layers", .serialized)
@MainActor
struct EmitterEndToEndTests {
    /// A white square image of `side` pixels.
    static func square(_ side: Int, _ c: Connection) throws -> Image {
        try Image(width: side, height: side, pixels: [UInt8](repeating: 255, count: side * side * 4), connection: c)
    }

    /// Snow over a rectangle: ranges of every kind, spin, colour speeds, gravity, a sub-cell.
    static func snow(_ c: Connection, sparks: Bool = true) throws -> (EmitterLayer, Image) {
        let flake = try square(6, c)
        let e = EmitterLayer()
        e.frame = Rect(x: 0, y: 0, width: 320, height: 240)
        e.emitterPosition = Point(x: 160, y: 60)
        e.emitterSize = Size(width: 200, height: 40)
        e.emitterShape = .rectangle
        e.seed = 42
        var cell = EmitterCell(name: "snow")
        cell.setContents(flake)
        cell.birthRate = 40
        cell.lifetime = 3
        cell.lifetimeRange = 1
        cell.velocity = 30
        cell.velocityRange = 20
        cell.emissionLongitude = .pi / 2
        cell.emissionRange = .pi / 3
        cell.yAcceleration = 10
        cell.spin = 1
        cell.spinRange = 2
        cell.scale = 1
        cell.scaleRange = 0.5
        cell.color = Color(red: 0.8, green: 0.9, blue: 1, alpha: 1)
        cell.redRange = 0.2
        cell.alphaSpeed = -0.2
        var spark = EmitterCell(name: "spark")
        spark.setContents(flake)
        spark.birthRate = 2
        spark.lifetime = 0.5
        spark.velocity = 20
        spark.emissionRange = 2 * .pi
        spark.scale = 0.5
        spark.color = Color(red: 1, green: 0.6, blue: 0.2, alpha: 1)
        if sparks { cell.emitterCells = [spark] }
        e.setEmitterCells([cell], images: [flake])
        return (e, flake)
    }

    /// The snow at 1.5 s and 3.25 s after the emitter's beginTime, and a PNG of the last; with
    /// `frames`, the clock goes there a frame (1/30 s) at a time, each frame drawn.
    static func run(png: String? = nil, sparks: Bool = true, frames: Bool = false) async throws -> [Bitmap] {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "snow")
        let (e, flake) = try snow(c, sparks: sparks)
        e.beginTime = c.currentMediaTime
        c.rootLayer.addSublayer(e)
        try await c.sync()
        let start = e.beginTime
        var shots: [Bitmap] = []
        for t in [1.5, 3.25] {
            while frames, start + t - c.currentMediaTime > 1.0 / 30 {
                _ = try await c.advanceClock(by: 1.0 / 30)
            }
            _ = try await c.advanceClock(by: start + t - c.currentMediaTime)
            shots.append(try await c.screenshot())
        }
        if let png { #expect(try daemon.laminactl(["screenshot", png]).status == 0) }
        withExtendedLifetime(flake) {}
        c.close()
        return shots
    }

    @Test("two daemons, and a third run, show the same particles at the same virtual times")
    func identicalAcrossDaemons() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emitter-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var runs: [[Bitmap]] = []
        for i in 0..<3 { runs.append(try await Self.run(png: "\(directory)/\(i).png")) }
        // Something is drawn, and it moves between the two times.
        let lit = runs[0][0].bytes.enumerated().filter { $0.offset % 4 == 0 && $0.element > 0 }.count
        #expect(lit > 50)
        #expect(runs[0][0] != runs[0][1])
        #expect(runs[1] == runs[0])
        #expect(runs[2] == runs[0])
        let pngs = (0..<3).map { FileManager.default.contents(atPath: "\(directory)/\($0).png") }
        #expect(pngs[0] != nil && pngs[1] == pngs[0] && pngs[2] == pngs[0])
    }

    /// A cell without sub-cells keeps its births' values from frame to frame (`ParticleMemo`):
    /// a daemon that drew every frame on the way shows what one that jumped there shows.
    @Test("drawn frame by frame or jumped to, the same particles at the same virtual times")
    func framesOnTheWayChangeNothing() async throws {
        let stepped = try await Self.run(sparks: false, frames: true)
        let jumped = try await Self.run(sparks: false)
        let lit = stepped[1].bytes.enumerated().filter { $0.offset % 4 == 0 && $0.element > 0 }.count
        #expect(lit > 50)
        #expect(stepped == jumped)
    }

    /// A 320×240 emitter shedding still red 4×4 particles at (100, 80), nearest-filtered.
    static func pointEmitter(_ c: Connection) throws -> EmitterLayer {
        let image = try square(4, c)
        let e = EmitterLayer()
        e.frame = Rect(x: 0, y: 0, width: 320, height: 240)
        e.emitterPosition = Point(x: 100, y: 80)
        var cell = EmitterCell(name: "dot")
        cell.setContents(image)
        cell.birthRate = 5
        cell.lifetime = 100
        cell.color = Color(red: 1, green: 0, blue: 0, alpha: 1)
        cell.magnificationFilter = .nearest
        e.setEmitterCells([cell], images: [image])
        return e
    }

    @Test("a point emitter of still particles draws the cell's colour exactly at emitterPosition")
    func knownConfiguration() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "point")
        let e = try Self.pointEmitter(c)
        c.rootLayer.addSublayer(e)
        try await c.sync()
        _ = try await c.advanceClock(by: 1)
        let shot = try await c.screenshot()
        // A 4×4 particle centred on (100, 80) covers pixels 98…101 × 78…81.
        for y in 78...81 { for x in 98...101 { #expect(shot.pixel(x: x, y: y) == (255, 0, 0, 255), "(\(x), \(y))") } }
        for (x, y) in [(97, 80), (102, 80), (100, 77), (100, 82)] { #expect(shot.pixel(x: x, y: y) == (0, 0, 0, 255), "(\(x), \(y))") }
        // The cell's birth rate animates by key path: at 0 the cell has no particles (births
        // follow the presented rate).
        let stop = BasicAnimation(keyPath: "emitterCells.dot.birthRate", from: .number(0), to: .number(0), duration: 10)
        e.add(.basic(stop), forKey: "stop")
        try await c.sync()
        _ = try await c.advanceClock(by: 0.1)
        #expect(try await c.screenshot().pixel(x: 100, y: 80) == (0, 0, 0, 255))
        c.close()
    }

    @Test("particles are clipped by a masksToBounds superlayer, as every layer is")
    func clippedBySuperlayer() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "clip")
        // The clip's right edge is x = 100: the particle centred on (100, 80) is cut in half.
        let frame = Layer()
        frame.frame = Rect(x: 0, y: 0, width: 100, height: 240)
        frame.masksToBounds = true
        let e = try Self.pointEmitter(c)
        frame.addSublayer(e)
        c.rootLayer.addSublayer(frame)
        try await c.sync()
        _ = try await c.advanceClock(by: 1)
        let shot = try await c.screenshot()
        for y in 78...81 {
            for x in 98...99 { #expect(shot.pixel(x: x, y: y) == (255, 0, 0, 255), "inside the clip (\(x), \(y))") }
            for x in 100...101 { #expect(shot.pixel(x: x, y: y) == (0, 0, 0, 255), "outside the clip (\(x), \(y))") }
        }
        c.close()
    }

    @Test("a huge birth rate, deep nesting and NaN are refused, naming the budget, depth or cell")
    func badInput() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "bad")
        let e = EmitterLayer()
        c.rootLayer.addSublayer(e)
        try await c.sync()
        var huge = EmitterCell(name: "flood")
        huge.birthRate = 1e9
        huge.lifetime = 10
        e.emitterCells = [huge]
        await #expect { try await c.sync() } throws: { "\($0)".contains("max_particles_per_layer") && "\($0)".contains("birthRate") }
        var deep = EmitterCell(name: "5")
        for level in (1...4).reversed() {
            var cell = EmitterCell(name: "\(level)")
            cell.emitterCells = [deep]
            deep = cell
        }
        e.emitterCells = [deep]
        await #expect { try await c.sync() } throws: { "\($0)".contains("nest at most 4 deep") }
        var nan = EmitterCell(name: "broken")
        nan.velocity = .nan
        e.emitterCells = [nan]
        await #expect { try await c.sync() } throws: { "\($0)".contains("emitterCells.broken.velocity") && "\($0)".contains("finite") }
        // The connection still works, and a sane emitter is taken.
        var fine = EmitterCell(name: "fine")
        fine.birthRate = 10
        fine.lifetime = 2
        e.emitterCells = [fine]
        try await c.sync()
        c.close()
    }
}
