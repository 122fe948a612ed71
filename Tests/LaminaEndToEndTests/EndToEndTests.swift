import Foundation
import LaminaTestSupport
import Testing
import Lamina
import LaminaCore
import LaminaImage
import LaminaPlatform
import LaminaProtocol

/// A real laminad process, real Unix sockets, real GLES on llvmpipe.
@Suite("laminad end to end", .serialized)
@MainActor
struct EndToEndTests {
    /// Three nested layers: a panel with perspective, a card swung about y at 0.8 opacity,
    /// and a dot turned 45° and scaled.
    func buildScene(on c: Connection) -> (panel: Layer, card: Layer, dot: Layer) {
        let panel = Layer()
        panel.name = "panel"
        panel.bounds = Rect(x: 0, y: 0, width: 240, height: 160)
        panel.position = Point(x: 160, y: 120)
        panel.backgroundColor = Color(hex: "#3366CC")
        panel.sublayerTransform = .perspective(distance: 400)
        let card = Layer()
        card.bounds = Rect(x: 0, y: 0, width: 120, height: 90)
        card.position = Point(x: 120, y: 80)
        card.backgroundColor = Color(hex: "#FF8800")
        card.opacity = 0.8
        card.transform = .rotation(angle: 0.6, x: 0, y: 1, z: 0)
        let dot = Layer()
        dot.bounds = Rect(x: 0, y: 0, width: 30, height: 30)
        dot.position = Point(x: 60, y: 45)
        dot.backgroundColor = .white
        dot.transform = Transform3D.scale(x: 1.2, y: 0.8).concatenating(.rotation(angle: .pi / 4))
        c.rootLayer.addSublayer(panel)
        panel.addSublayer(card)
        card.addSublayer(dot)
        return (panel, card, dot)
    }

    @Test func threeNestedLayersMatchTheReference() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "e2e")
        #expect(c.displaySize == Size(width: 320, height: 240))
        #expect(c.clock == .virtual)
        _ = buildScene(on: c)
        try await c.sync()
        let shot = try await c.screenshot()
        if let problem = ReferenceImage.mismatch(shot, reference: referencePath("three-nested")) {
            Issue.record(Comment(rawValue: problem))
        }
        // Spot checks that do not depend on the reference: black outside, panel blue at its corner.
        #expect(shot.pixel(x: 5, y: 5) == (0, 0, 0, 255))
        #expect(shot.pixel(x: 45, y: 45) == (0x33, 0x66, 0xCC, 255))
        c.close()
    }

    @Test func clientsAreIsolated() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let b = try Connection.connect(to: daemon.socket, name: "b")
        let left = Layer()
        left.frame = Rect(x: 10, y: 10, width: 100, height: 100)
        left.backgroundColor = .red
        a.rootLayer.addSublayer(left)
        let right = Layer()
        right.frame = Rect(x: 200, y: 10, width: 100, height: 100)
        right.backgroundColor = .green
        b.rootLayer.addSublayer(right)
        try await a.sync()
        try await b.sync()

        // A third client speaks garbage: it gets an error frame and is dropped.
        let raw = try UnixSocket.connect(path: daemon.socket)
        try raw.writeAll(Array("\u{1}\u{2}garbage that is not a Lamina frame at all".utf8))
        var reply = [UInt8](repeating: 0, count: 4096)
        var got: [UInt8] = []
        while true {
            let n = try reply.withUnsafeMutableBytes { try raw.read(into: $0) } ?? 0
            if n == 0 { break }
            got += reply[0..<n]
        }
        var decoder = FrameDecoder(limit: 1 << 20)
        decoder.append(got)
        let frame = try #require(try decoder.next())
        guard case .error(let e) = try ServerMessage.decode(type: frame.type, body: frame.body) else {
            Issue.record("expected an error frame")
            return
        }
        #expect(e.code == .frameTooLarge || e.code == .malformedFrame)
        #expect(!e.message.isEmpty)

        var shot = try await b.screenshot()
        #expect(shot.pixel(x: 50, y: 50) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 250, y: 50) == (0, 255, 0, 255))

        // A commit error reaches the client that made it, as a Swift error, naming the operation.
        a.rootLayer.addSublayer(Layer())
        left.opacity = .nan
        await #expect(throws: LaminaError.self) { try await a.sync() }
        shot = try await b.screenshot()
        #expect(shot.pixel(x: 50, y: 50) == (255, 0, 0, 255))  // a's earlier, committed layer is intact

        // a leaves: its layers go, b's stay.
        a.close()
        var gone = false
        for _ in 0..<200 where !gone {
            shot = try await b.screenshot()
            gone = shot.pixel(x: 50, y: 50) == (0, 0, 0, 255)
            if !gone { try await Task.sleep(for: .milliseconds(10)) }  // waits for the daemon to see the hang-up, not a timing assertion
        }
        #expect(gone)
        #expect(shot.pixel(x: 250, y: 50) == (0, 255, 0, 255))
        let stats = Dictionary(uniqueKeysWithValues: try await b.stats().map { ($0.name, $0.value) })
        #expect(stats["clientsDropped"] == 1)
        #expect(stats["clients"] == 1)
        b.close()
    }

    /// Changes made in one synchronous stretch go out together, without any explicit commit,
    /// once the main actor yields (Core Animation's run-loop commit).
    @Test func theImplicitTransactionCommitsAtTheNextYield() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "implicit")
        func applied() async throws -> Double? { try await c.stats().first { $0.name == "commitsApplied" }?.value }
        let start = try await applied()
        let a = Layer(), b = Layer()
        a.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        a.backgroundColor = .green
        b.frame = Rect(x: 10, y: 10, width: 10, height: 10)
        b.backgroundColor = .blue
        a.addSublayer(b)
        c.rootLayer.addSublayer(a)
        #expect(c.hasUncommittedChanges)
        await Task.yield()
        #expect(!c.hasUncommittedChanges)  // committed when the main actor yielded
        // …as one commit for all five changes.
        #expect(try await applied() == start.map { $0 + 1 })
        b.opacity = 0.5
        b.opacity = 1
        await Task.yield()
        #expect(try await applied() == start.map { $0 + 2 })
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 15, y: 15) == (0, 0, 255, 255))
        #expect(shot.pixel(x: 30, y: 30) == (0, 255, 0, 255))
        c.close()
    }

    /// Within one superlayer, zPosition orders siblings before their array order.
    @Test func zPositionOrdersSiblings() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "z")
        let under = Layer(), over = Layer()
        under.frame = Rect(x: 0, y: 0, width: 60, height: 60)
        under.backgroundColor = .red
        under.zPosition = 1
        over.frame = Rect(x: 30, y: 30, width: 60, height: 60)
        over.backgroundColor = .blue
        c.rootLayer.addSublayer(under)
        c.rootLayer.addSublayer(over)
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 45, y: 45) == (255, 0, 0, 255))  // red is later in z despite coming first
        Transaction.disableActions = true  // zPosition animates; this test is about the order
        under.zPosition = 0
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 45, y: 45) == (0, 0, 255, 255))
        // Removing and re-inserting below works through the client tree API.
        over.removeFromSuperlayer()
        c.rootLayer.insertSublayer(over, below: under)
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 45, y: 45) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 80, y: 80) == (0, 0, 255, 255))
        c.close()
    }

    /// `sublayers` can be assigned, as `CALayer.sublayers` can: the old ones leave, the new
    /// ones come in that order (each leaving its old superlayer), and laminad draws the result.
    @Test func assigningSublayersReplacesThemInOrder() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "assign")
        let red = Layer(), green = Layer(), blue = Layer(), holder = Layer()
        for (l, colour) in [(red, Color.red), (green, Color.green), (blue, Color.blue)] {
            l.frame = Rect(x: 0, y: 0, width: 40, height: 40)
            l.backgroundColor = colour
        }
        holder.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        c.rootLayer.sublayers = [red, holder]
        holder.addSublayer(blue)
        Transaction.disableActions = true
        try await c.sync()
        #expect(try await c.screenshot().pixel(x: 20, y: 20) == (0, 0, 255, 255), "blue, in the holder above red")
        c.rootLayer.sublayers = [blue, green]        // blue leaves the holder; red and the holder leave
        #expect(c.rootLayer.sublayers.map(ObjectIdentifier.init) == [blue, green].map(ObjectIdentifier.init))
        #expect(red.superlayer == nil && holder.superlayer == nil && holder.sublayers.isEmpty && blue.superlayer === c.rootLayer)
        #expect(try await c.screenshot().pixel(x: 20, y: 20) == (0, 255, 0, 255), "green, now on top")
        c.rootLayer.sublayers = [green, blue]        // a reorder
        #expect(try await c.screenshot().pixel(x: 20, y: 20) == (0, 0, 255, 255))
        c.rootLayer.sublayers = []
        #expect(try await c.screenshot().pixel(x: 20, y: 20) == (0, 0, 0, 255))
        c.close()
    }

    /// A delegate says "no animation" with `.noAnimation` (`nil` goes on searching).
    @Test func aDelegateTurnsAnImplicitAnimationOff() async throws {
        final class NoFades: LayerDelegate {
            func action(for layer: Layer, forKey key: String) -> Action? { key == "opacity" ? .noAnimation : nil }
        }
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "delegate")
        let l = Layer()
        let delegate = NoFades()
        l.delegate = delegate
        l.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        l.backgroundColor = .white
        c.rootLayer.addSublayer(l)
        try await c.sync()
        l.opacity = 0                                  // no fade: gone at once
        l.position = Point(x: 120, y: 20)              // the default action: animates
        try await c.sync()
        let p = try await l.presentation()
        #expect(p.opacity == 0 && p.position.x == 20, "opacity at once, position still at its start: \(p.opacity) \(p.position)")
        c.close()
    }

    @Test func nestedTransactionsCommitTogether() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "tx")
        let l = Layer()
        l.frame = Rect(x: 0, y: 0, width: 50, height: 50)
        l.backgroundColor = .blue
        c.rootLayer.addSublayer(l)
        try await c.sync()
        let before = try await c.stats().first { $0.name == "commitsApplied" }?.value
        // No `await` while the transaction is open: an explicit transaction held across a
        // suspension also holds what other main-actor tasks change meanwhile (the other tests
        // running beside this one), as a CATransaction held across a run-loop turn would.
        Transaction.begin()
        Transaction.disableActions = true  // the values show at once (no implicit animation)
        l.position = Point(x: 100, y: 100)
        Transaction.begin()
        l.backgroundColor = .red
        Transaction.commit()
        l.opacity = 1
        Transaction.commit()
        try await c.sync()
        // One commit in all: the inner commit sent nothing of its own.
        let after = try await c.stats().first { $0.name == "commitsApplied" }?.value
        #expect(before.map { $0 + 1 } == after)
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 100, y: 100) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 10, y: 10) == (0, 0, 0, 255))
        c.close()
    }

    /// A transaction left open across an `await` is reported (`Transaction.openAcrossSuspension`);
    /// one committed before the code suspends is not. Checked by `lamina-probe open-transaction`
    /// in a process of its own: a transaction held open across an await here would hold back the
    /// implicit commits of every test running beside this one (their `sync()` would send nothing).
    @Test func aTransactionOpenAcrossAnAwaitIsReported() throws {
        let r = try ChildProcess.run(DaemonProcess.tool("lamina-probe"), ["open-transaction"])
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("committed first: 0, left open: 1"), "\(r.output)")
    }

    /// The `laminactl` session's layers from `laminactl tree`, as JSON text.
    func sceneSession(_ daemon: DaemonProcess) throws -> String {
        let out = try daemon.laminactl(["tree"]).output
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
        let clients = json?["clients"] as? [[String: Any]] ?? []
        guard let scene = clients.first(where: { $0["session"] as? String == "laminactl" })?["root"] else { return "" }
        return String(decoding: try JSONSerialization.data(withJSONObject: scene, options: .sortedKeys), as: UTF8.self)
    }

    @Test func laminactlAppliesScenesDeclaratively() async throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try #"""
        {"sublayers": [
          {"name": "back", "frame": [20, 20, 200, 120], "backgroundColor": "#204080"},
          {"name": "badge", "frame": [180, 100, 80, 80], "backgroundColor": "#E0A000", "transform": {"rotation": 0.3}}
        ]}
        """#.write(toFile: scene, atomically: true, encoding: .utf8)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("2 created"))
        let png = daemon.directory + "/shot.png"
        r = try daemon.laminactl(["screenshot", png])
        #expect(r.status == 0, "\(r.output)")
        let shot = try PNG.read(fromFile: png)
        if let problem = ReferenceImage.mismatch(shot, reference: referencePath("laminactl-scene")) {
            Issue.record(Comment(rawValue: problem))
        }
        let tree1 = try sceneSession(daemon)

        // Change one layer, drop the other: updated in place (same ids), not rebuilt.
        try #"""
        {"sublayers": [{"name": "back", "frame": [20, 20, 200, 120], "backgroundColor": "#802040"}]}
        """#.write(toFile: scene, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.output.contains("0 created") && r.output.contains("1 removed"), "\(r.output)")
        let tree2 = try sceneSession(daemon)
        #expect(tree1.contains("\"id\":1") && tree2.contains("\"id\":1"))
        #expect(tree2.contains("#802040FF") && !tree2.contains("badge"))

        // Bad files are refused with the JSON path of the mistake, and nothing changes.
        try #"{"sublayers": [{"name": "back", "opacity": "x"}]}"#.write(toFile: scene, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["apply", scene])
        #expect(r.status != 0)
        #expect(r.output.contains("$.sublayers[0].opacity"))
        #expect(try sceneSession(daemon) == tree2)

        // eval needs no daemon: the Listing 3-3 bounce path, at its first key point.
        try #"""
        {"sublayers": [{"name": "ball", "position": [74, 74], "animations": {"bounce": {"type": "keyframe",
          "keyPath": "position", "duration": 5, "path": "M 74 74 C 74 500 320 500 320 74 C 320 500 566 500 566 74"}}}]}
        """#.write(toFile: scene, atomically: true, encoding: .utf8)
        r = try daemon.laminactl(["eval", scene, "--at", "0,2.5,5", "--layer", "ball", "--key", "position"], withSocket: false)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains(#"{"time":2.5,"layers":{"ball":{"position":[320,74]}}}"#), "\(r.output)")
        r = try daemon.laminactl(["eval", scene, "--at", "1", "--key", "position.z"], withSocket: false)
        #expect(r.status != 0 && r.output.contains("--key"), "\(r.output)")

        r = try daemon.laminactl(["advance", "0.5"])
        #expect(r.output.contains("time 0.5"), "\(r.output)")
        r = try daemon.laminactl(["stats"])
        #expect(r.output.contains("commitsApplied 2"), "\(r.output)")
    }

    /// `laminactl display off|on [OUTPUT]` on headless: nothing to blank, said plainly, and an
    /// output name it does not have is refused with a message naming it.
    @Test func displayPowerOnHeadless() async throws {
        let daemon = try DaemonProcess()
        var r = try daemon.laminactl(["display", "off"])
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("no outputs: the headless backend has no display to turn off"), "\(r.output)")
        r = try daemon.laminactl(["display", "on", "HDMI-A-1"])
        #expect(r.status != 0)
        #expect(r.output.contains("invalid-request") && r.output.contains("no output named 'HDMI-A-1'"), "\(r.output)")
        r = try daemon.laminactl(["display", "dim"])
        #expect(r.status != 0 && r.output.contains("off or on"), "\(r.output)")
        // The connection that got the error still works.
        let c = try Connection.connect(to: daemon.socket, name: "power")
        let (backend, outputs) = try await c.setDisplayPower(true)
        #expect(backend == "headless" && outputs.isEmpty)
        await #expect(throws: LaminaError.self) { try await c.setDisplayPower(false, output: "Virtual-1") }
        #expect(try await c.stats().contains { $0.name == "framesRendered" })
        c.close()
    }
}
