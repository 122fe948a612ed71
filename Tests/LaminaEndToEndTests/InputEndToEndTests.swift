import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// Input over a real laminad: injected events are hit-tested on its presentation tree and
/// routed to the client that owns the layer, as a device's would be.
@Suite("Input end to end", .serialized)
@MainActor
struct InputEndToEndTests {
    /// A round trip on `c`'s own socket: laminad wrote any event for `c` before this reply, so
    /// the event handlers have run when it returns.
    func settle(_ c: Connection) async throws {
        _ = try await c.stats()
        await Task.yield()
    }

    func box(_ frame: Rect, _ name: String, color: Color = .red) -> Layer {
        let l = Layer()
        l.frame = frame
        l.name = name
        l.backgroundColor = color
        return l
    }

    @Test func eventsReachTheOwningClientsLayerWithGrabsAndRecognisers() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let b = try Connection.connect(to: daemon.socket, name: "b")
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        let panel = box(Rect(x: 0, y: 0, width: 160, height: 240), "panel")
        let button = box(Rect(x: 20, y: 20, width: 100, height: 40), "button", color: .blue)
        panel.addSublayer(button)
        a.rootLayer.addSublayer(panel)
        let other = box(Rect(x: 160, y: 0, width: 160, height: 240), "other", color: .green)
        b.rootLayer.addSublayer(other)
        try await a.sync()
        try await b.sync()

        // The button has no handler: its events go up to the panel's.
        var panelEvents: [LayerInputEvent] = []
        panel.onInput = { panelEvents.append($0) }
        var taps = 0
        button.addGestureRecognizer(TapRecognizer { _ in taps += 1 })
        var pans: [(GestureRecognizer.State, Point)] = []
        other.addGestureRecognizer(PanRecognizer { pans.append(($0.state, $0.translation)) })
        var otherEvents: [LayerInputEvent] = []
        other.onInput = { otherEvents.append($0) }

        // A tap on the button: the recogniser fires; the button's events don't reach the panel
        // (a layer with recognisers handles its own).
        try await tool.injectInput(.touchDown(id: 1, at: Point(x: 30, y: 30)))
        try await tool.injectInput(.touchUp(id: 1))
        try await settle(a)
        #expect(taps == 1)
        #expect(panelEvents.isEmpty)

        // A touch on the panel outside the button, dragged over B's layer: the panel keeps it.
        try await tool.injectInput(.touchDown(id: 2, at: Point(x: 50, y: 200)))
        try await tool.injectInput(.touchMotion(id: 2, to: Point(x: 250, y: 200)))
        try await tool.injectInput(.touchUp(id: 2))
        try await settle(a)
        try await settle(b)
        #expect(panelEvents.map(\.kind) == [.touchDown, .touchMove, .touchUp])
        #expect(panelEvents.allSatisfy { $0.layer === panel && $0.id == 2 && $0.isInjected })
        #expect(panelEvents.first?.location == Point(x: 50, y: 200))
        #expect(panelEvents.dropFirst().first?.location == Point(x: 250, y: 200))
        #expect(otherEvents.isEmpty)

        // A pan on B's layer, in B's coordinates.
        try await tool.injectInput(.touchDown(id: 3, at: Point(x: 200, y: 100)))
        try await tool.injectInput(.touchMotion(id: 3, to: Point(x: 230, y: 100)))
        try await tool.injectInput(.touchMotion(id: 3, to: Point(x: 240, y: 120)))
        try await tool.injectInput(.touchUp(id: 3))
        try await settle(b)
        #expect(pans.map(\.0) == [.began, .changed, .ended])
        #expect(pans.last?.1 == Point(x: 40, y: 20))
        #expect(otherEvents.first?.location == Point(x: 40, y: 100))
        let stats = try await tool.stats()
        #expect(stats.first { $0.name == "input.delivered" }!.value >= 10)
    }

    /// The client computes hitTest/convert locally with laminad's rules: the layer and point
    /// laminad routes a touch to are what `hitTest` and `convert` say.
    @Test func clientHitTestingAgreesWithLaminad() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        let parent = box(Rect(x: 40, y: 30, width: 240, height: 180), "parent")
        var perspective = Transform3D.identity
        perspective.m34 = -1.0 / 400
        parent.sublayerTransform = perspective.rotatedBy(angle: 0.3, x: 0, y: 1, z: 0)
        let child = box(Rect(x: 60, y: 40, width: 120, height: 80), "child", color: .blue)
        child.transform = Transform3D.rotation(angle: 0.5).scaledBy(x: 1.2, y: 0.8)
        child.zPosition = 20
        parent.addSublayer(child)
        a.rootLayer.addSublayer(parent)
        try await a.sync()
        var received: [LayerInputEvent] = []
        let stream = a.inputEvents()
        let reader = Task { @MainActor in for await e in stream where e.kind == .touchDown { received.append(e) } }
        defer { reader.cancel() }
        let points = [Point(x: 160, y: 120), Point(x: 120, y: 90), Point(x: 220, y: 150), Point(x: 60, y: 200), Point(x: 300, y: 10)]
        for (i, p) in points.enumerated() {
            try await tool.injectInput(.touchDown(id: Int32(i), at: p))
            try await tool.injectInput(.touchUp(id: Int32(i)))
        }
        try await settle(a)
        _ = try await eventually { received.count >= 4 }
        var expected: [(Layer, Point)] = []
        for p in points {
            // The root's sublayers are hit in display space (the root is transparent to hits).
            if let hit = parent.hitTest(p) { expected.append((hit, hit.convert(p, from: nil))) }
        }
        #expect(expected.count == 4)       // (300, 10) is outside everything
        #expect(received.count == expected.count)
        for (e, (layer, location)) in zip(received, expected) {
            #expect(e.layer === layer, "\(e.screenLocation): laminad hit \(e.layer?.name ?? "nil"), the client \(layer.name)")
            #expect(abs(e.location.x - location.x) < 1e-6 && abs(e.location.y - location.y) < 1e-6)
            // convert(to:) takes it back to the display.
            let back = layer.convert(location, to: nil)
            #expect(abs(back.x - e.screenLocation.x) < 1e-6 && abs(back.y - e.screenLocation.y) < 1e-6)
        }
        #expect(expected.contains { $0.0 === child } && expected.contains { $0.0 === parent })
    }

    /// `laminactl input` and `laminactl events` on the session `laminactl apply` made (its
    /// client has exited): one JSON line per event, in the layer's coordinates.
    @Test func laminactlEventsForAKeptSession() async throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/scene.json"
        try ##"{"sublayers":[{"name":"card","bounds":[0,0,100,80],"position":[150,100],"backgroundColor":"#3366FF","sublayers":[{"name":"ghost","bounds":[0,0,100,80],"position":[50,40],"userInteractionEnabled":false}]}]}"##
            .write(toFile: scene, atomically: true, encoding: .utf8)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)

        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: DaemonProcess.tool("laminactl"))
        listener.arguments = ["events", "--count", "4", "--socket", daemon.socket]
        let out = Pipe(), err = Pipe()
        listener.standardOutput = out
        listener.standardError = err
        try listener.run()
        // Wait (bounded) for it to say it listens.
        var said = ""
        while !said.contains("listening"), listener.isRunning {
            let d = err.fileHandleForReading.availableData
            if d.isEmpty { break }
            said += String(decoding: d, as: UTF8.self)
        }
        #expect(said.contains("listening to session 'laminactl'"))
        for args in [["touch", "down", "5", "110", "70"], ["touch", "move", "5", "130", "90"], ["touch", "up", "5"]] {
            let r = try daemon.laminactl(["input"] + args)
            #expect(r.status == 0, "\(args): \(r.output)")
        }
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        listener.waitUntilExit()
        #expect(lines.count == 4)
        let all = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        // The touch gave the session the keyboard first.
        #expect(all.first?["type"] as? String == "focusIn")
        let events = Array(all.dropFirst())
        #expect(events.map { $0["type"] as? String } == ["touchDown", "touchMove", "touchUp"])
        // The ghost is transparent to input: the card gets it, in its own coordinates.
        #expect(events.allSatisfy { $0["layer"] as? String == "card" && $0["id"] as? Int == 5 && $0["injected"] as? Bool == true })
        #expect(events.first?["location"] as? [Double] == [10, 10])
        #expect(events.first?["screen"] as? [Double] == [110, 70])
        #expect(events.dropFirst().first?["location"] as? [Double] == [30, 30])
        // Bad input is refused with a clear message.
        let bad = try daemon.laminactl(["input", "touch", "down", "1", "nan", "5"])
        #expect(bad.status != 0 && bad.output.contains("finite"))
    }

    /// A client that goes away in the middle of a touch: the rest of its touch goes nowhere,
    /// laminad carries on, and the next touch reaches what is behind.
    @Test func clientDisconnectingMidTouch() async throws {
        let daemon = try DaemonProcess()
        let back = try Connection.connect(to: daemon.socket, name: "back")
        let backLayer = box(Rect(x: 0, y: 0, width: 320, height: 240), "back")
        back.rootLayer.addSublayer(backLayer)
        try await back.sync()
        var backEvents: [LayerInputEvent] = []
        backLayer.onInput = { backEvents.append($0) }
        let front = try Connection.connect(to: daemon.socket, name: "front")
        let frontLayer = box(Rect(x: 100, y: 100, width: 50, height: 50), "front")
        front.rootLayer.addSublayer(frontLayer)
        try await front.sync()
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        try await tool.injectInput(.touchDown(id: 1, at: Point(x: 120, y: 120)))
        front.close()
        try await tool.injectInput(.touchMotion(id: 1, to: Point(x: 10, y: 10)))
        try await tool.injectInput(.touchUp(id: 1))
        try await tool.injectInput(.touchDown(id: 2, at: Point(x: 120, y: 120)))
        try await settle(back)
        #expect(backEvents.map(\.kind) == [.touchDown])
        #expect(backEvents.first?.id == 2 && backEvents.first?.location == Point(x: 120, y: 120))
    }

    /// The pointer over a real laminad: enter and leave as it crosses layers of two clients,
    /// moves in the layer's coordinates, scrolling to the layer under it.
    @Test func pointerEnterLeaveAndScroll() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let b = try Connection.connect(to: daemon.socket, name: "b")
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        let la = box(Rect(x: 0, y: 0, width: 100, height: 100), "a"), lb = box(Rect(x: 150, y: 0, width: 100, height: 100), "b")
        a.rootLayer.addSublayer(la)
        b.rootLayer.addSublayer(lb)
        try await a.sync()
        try await b.sync()
        var ea: [LayerInputEvent] = [], eb: [LayerInputEvent] = []
        la.onInput = { ea.append($0) }
        lb.onInput = { eb.append($0) }
        for p in [Point(x: 10, y: 10), Point(x: 20, y: 10), Point(x: 120, y: 10), Point(x: 160, y: 20)] {
            try await tool.injectInput(.pointerMotion(to: p))
        }
        try await tool.injectInput(.pointerAxis(horizontal: 0, vertical: 30))
        try await settle(a)
        try await settle(b)
        #expect(ea.map(\.kind) == [.pointerEnter, .pointerMove, .pointerMove, .pointerLeave])
        #expect(eb.map(\.kind) == [.pointerEnter, .pointerMove, .scroll])
        #expect(eb.first?.location == Point(x: 10, y: 20) && eb.last?.scrollDelta == Point(x: 0, y: 30))
    }

    /// Keys go to the client with the keyboard focus, translated by laminad's keymap
    /// (xkbcommon, layout "us"): the last client touched, until another takes the focus.
    @Test func keyboardFocusAndText() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let b = try Connection.connect(to: daemon.socket, name: "b")
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        a.rootLayer.addSublayer(box(Rect(x: 0, y: 0, width: 100, height: 100), "a"))
        b.rootLayer.addSublayer(box(Rect(x: 200, y: 0, width: 100, height: 100), "b"))
        try await a.sync()
        try await b.sync()
        var keysA: [LayerInputEvent] = [], keysB: [LayerInputEvent] = []
        a.rootLayer.onInput = { if $0.kind.isKeyboard { keysA.append($0) } }
        b.rootLayer.onInput = { if $0.kind.isKeyboard { keysB.append($0) } }
        // A touch on A's layer gives A the keyboard.
        try await tool.injectInput(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        try await tool.injectInput(.touchUp(id: 1))
        for (name, pressed) in [("Shift_L", true), ("a", true), ("a", false), ("Shift_L", false), ("a", true), ("a", false), ("Return", true)] {
            try await tool.injectInput(.key(name: name, pressed: pressed))
        }
        try await settle(a)
        let typed = keysA.filter { $0.kind == .keyPress }.map(\.text).joined()
        #expect(keysA.first?.kind == .focusIn)
        #expect(typed == "Aa\r")
        #expect(keysA.first { $0.kind == .keyPress && $0.keyName == "a" }?.id == 30)   // KEY_A
        #expect(keysA.first { $0.kind == .keyPress && $0.text == "A" }?.keyName == "A")
        #expect(keysB.isEmpty)
        // B asks for the keyboard: A loses it, B gets the release and what follows.
        try await b.takeKeyboardFocus()
        try await tool.injectInput(.key(name: "Return", pressed: false))
        try await tool.injectInput(.key(name: "space", pressed: true))
        try await settle(a)
        try await settle(b)
        #expect(keysA.last?.kind == .focusOut)
        #expect(keysB.map(\.kind) == [.focusIn, .keyRelease, .keyPress])
        #expect(keysB.last?.text == " " && keysB.last?.isInjected == true)
        // A name no key types is refused, naming it.
        await #expect(throws: LaminaError.self) { try await tool.injectInput(.key(name: "NotAKeysym", pressed: true)) }
    }

    /// A long press timed on the virtual clock: recognised when the clock passes 0.5 s.
    @Test func longPressOnTheVirtualClock() async throws {
        let daemon = try DaemonProcess()
        let a = try Connection.connect(to: daemon.socket, name: "a")
        let l = box(Rect(x: 0, y: 0, width: 100, height: 100), "l")
        a.rootLayer.addSublayer(l)
        try await a.sync()
        var states: [GestureRecognizer.State] = []
        l.addGestureRecognizer(LongPressRecognizer(connection: a) { states.append($0.state) })
        let tool = try Connection.connect(to: daemon.socket, name: "tool")
        try await tool.injectInput(.touchDown(id: 1, at: Point(x: 50, y: 50)))
        try await settle(a)
        try await a.advanceClock(by: 0.3)
        #expect(states.isEmpty)
        try await a.advanceClock(by: 0.3)
        #expect(states == [.began])
        try await tool.injectInput(.touchUp(id: 1))
        try await settle(a)
        #expect(states == [.began, .ended])
    }
}

/// `convert` and `contains` on the client, by hand (no laminad needed).
@Suite("Client conversions")
@MainActor
struct ClientConversionTests {
    @Test func pointsAndRectsBetweenLayers() {
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: 400, height: 400)
        let parent = Layer()
        parent.frame = Rect(x: 100, y: 50, width: 200, height: 200)
        parent.sublayerTransform = .scale(x: 2, y: 2)    // about the parent's centre (100, 100)
        let child = Layer()
        child.frame = Rect(x: 100, y: 100, width: 20, height: 10)
        root.addSublayer(parent)
        parent.addSublayer(child)
        // The child's origin: (100, 100) in the parent, scaled 2× about (100, 100): still
        // (100, 100), i.e. (200, 150) on the display; its (10, 5) is 2× further.
        #expect(child.convert(Point(x: 0, y: 0), to: nil) == Point(x: 200, y: 150))
        #expect(child.convert(Point(x: 10, y: 5), to: nil) == Point(x: 220, y: 160))
        #expect(child.convert(Point(x: 220, y: 160), from: nil) == Point(x: 10, y: 5))
        #expect(parent.convert(Point(x: 10, y: 5), from: child) == Point(x: 120, y: 110))
        #expect(child.convert(Rect(x: 0, y: 0, width: 20, height: 10), to: root) == Rect(x: 200, y: 150, width: 40, height: 20))
        #expect(child.contains(Point(x: 19.5, y: 9.5)) && !child.contains(Point(x: 20, y: 5)))
        // hitTest takes the point in the superlayer's coordinates.
        #expect(root.hitTest(Point(x: 230, y: 165)) === child)
        #expect(parent.hitTest(Point(x: 230, y: 165)) === child)
        #expect(child.hitTest(Point(x: 230, y: 165)) === nil)     // (230, 165) is not in the parent's space
        #expect(child.hitTest(Point(x: 105, y: 102)) === child)   // it is, in the parent's
        child.isUserInteractionEnabled = false
        #expect(root.hitTest(Point(x: 230, y: 165)) === parent)
    }
}
