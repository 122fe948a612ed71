import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Gradient and replicator animations through the compositor with the virtual clock, drawn
/// with real GLES on llvmpipe.
@Suite("Animated gradients and replicators", .serialized)
final class LooksCompositorTests {
    let h: CompositorHarness
    let client: ClientID
    var serial: UInt32 = 0

    init() throws {
        h = try CompositorHarness(headlessWidth: 64, height: 48)
        client = h.hello("looks")
    }

    func commit(_ ops: [Operation]) {
        serial += 1
        h.commit(client, ops, serial: serial)
        #expect(h.outbox[client]?.contains(.applied(serial: serial)) == true, "commit \(serial): \(h.outbox[client] ?? [])")
    }

    func pixel(_ b: Bitmap, _ x: Int, _ y: Int) -> [Int] {
        let p = b.pixel(x: x, y: y)
        return [Int(p.r), Int(p.g), Int(p.b)]
    }

    func close(_ a: [Int], _ b: [Int], _ tolerance: Int = 3) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) <= tolerance } }

    @Test("colors and locations of a gradient animate implicitly, entry by entry")
    func gradientAnimates() throws {
        let g = LayerID(1)
        commit([.create(g, kind: .gradient),
                .set(g, .bounds, .rect(Rect(x: 0, y: 0, width: 64, height: 48))),
                .set(g, .position, .point(Point(x: 32, y: 24))),
                .set(g, .colors, .colors([.red, .blue])),
                .set(g, .locations, .numbers([0, 1])),
                .set(g, .startPoint, .point(Point(x: 0, y: 0.5))),
                .set(g, .endPoint, .point(Point(x: 1, y: 0.5))),
                .insert(parent: .root, child: g, index: .max)])
        #expect(close(pixel(try h.screenshot(client), 8, 24), [221, 0, 34]))
        // One second, linear: at half time the stops are halfway, colours and locations.
        commit([.settings(TransactionSettings(duration: 1, timingFunction: .linear)),
                .set(g, .colors, .colors([.green, .blue])),
                .set(g, .locations, .numbers([0.5, 1]))])
        h.advance(client, 0.5)
        let half = try h.screenshot(client)
        // x = 8: t = 8.5/64 before the first location (0.25): the first stop, (0.5, 0.5, 0).
        #expect(close(pixel(half, 8, 24), [128, 128, 0]), "\(pixel(half, 8, 24))")
        // x = 40: t = 40.5/64, (t − 0.25)/0.75 = 0.5104 of the way to blue.
        #expect(close(pixel(half, 40, 24), [63, 63, 130]), "\(pixel(half, 40, 24))")
        h.advance(client, 0.6)
        let done = try h.screenshot(client)
        // Done: locations [0.5, 1]; x = 48 is 0.5156 of the way from green to blue.
        #expect(close(pixel(done, 8, 24), [0, 255, 0]), "\(pixel(done, 8, 24))")
        #expect(close(pixel(done, 48, 24), [0, 123, 131]), "\(pixel(done, 48, 24))")
    }

    @Test("replicator copy k shows its sublayers' animations instanceDelay × k behind")
    func replicatorDelay() throws {
        let r = LayerID(1), s = LayerID(2)
        commit([.create(r, kind: .replicator),
                .set(r, .bounds, .rect(Rect(x: 0, y: 0, width: 60, height: 20))),
                .set(r, .position, .point(Point(x: 32, y: 24))),
                .set(r, .instanceCount, .number(3)),
                .set(r, .instanceDelay, .number(0.5)),
                .set(r, .instanceTransform, .transform(.translation(x: 20, y: 0))),
                .create(s),
                .set(s, .bounds, .rect(Rect(x: 0, y: 0, width: 16, height: 16))),
                .set(s, .position, .point(Point(x: 8, y: 10))),
                .set(s, .backgroundColor, .color(.white)),
                .insert(parent: .root, child: r, index: .max),
                .insert(parent: r, child: s, index: .max),
                .addAnimation(s, key: "fade", tag: 0,
                              .basic(BasicAnimation(keyPath: "backgroundColor", from: .color(.black), to: .color(.white), duration: 2)))])
        h.advance(client, 1.25)
        let shot = try h.screenshot(client)
        // Copies at x = 2 + 20k + 8: progress 1.25/2, 0.75/2 and 0.25/2.
        for (k, progress) in [0.625, 0.375, 0.125].enumerated() {
            let v = Int((255 * progress).rounded())
            #expect(close(pixel(shot, 10 + 20 * k, 24), [v, v, v], 2), "copy \(k): \(pixel(shot, 10 + 20 * k, 24)), expected \(v)")
        }
        // After the animation, every copy shows the model value again.
        h.advance(client, 2)
        let after = try h.screenshot(client)
        for k in 0..<3 { #expect(pixel(after, 10 + 20 * k, 24) == [255, 255, 255]) }
    }
}
