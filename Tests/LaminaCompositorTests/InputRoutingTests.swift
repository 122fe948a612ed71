import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// The router over a compositor with two clients: events reach the owner of the layer hit.
@Suite("Input routing")
struct InputRoutingTests {
    /// Two clients: A has layer 1 at (0,0,100,100) named "a"; B, connected later (in front),
    /// has layer 1 at (50,50,100,100) named "b".
    func twoClients() throws -> (CompositorHarness, ClientID, ClientID) {
        let h = try CompositorHarness(headlessWidth: 32, height: 32)
        let (a, _) = h.sayHello(session: "sa", flags: .keepLayers, peer: .user(1))
        let (b, _) = h.sayHello(peer: .user(2))
        for (c, x, name) in [(a, 0.0, "a"), (b, 50.0, "b")] {
            let r = h.commit(c, [.create(LayerID(1)), .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 100, height: 100))),
                                 .set(LayerID(1), .position, .point(Point(x: x + 50, y: x + 50))),
                                 .set(LayerID(1), .name, .string(name)),
                                 .insert(parent: .root, child: LayerID(1), index: .max)])
            #expect(r == .applied(serial: 1))
        }
        h.outbox = [:]
        return (h, a, b)
    }

    func inputs(_ h: CompositorHarness, _ c: ClientID) -> [InputEvent] {
        (h.outbox[c] ?? []).compactMap { if case .input(let e) = $0 { e } else { nil } }
    }

    @Test func touchesGoToTheOwnerOfTheFrontMostLayerAndStayGrabbed() throws {
        let (h, a, b) = try twoClients()
        h.compositor.handleInput(.touchDown(id: 7, at: Point(x: 20, y: 30)), origin: .injected)
        h.compositor.handleInput(.touchDown(id: 8, at: Point(x: 120, y: 130)), origin: InputOrigin(injected: false, deviceTime: 5))
        // Touch 7 moves over B's layer: it stays with A's (the implicit grab).
        h.compositor.handleInput(.touchMotion(id: 7, to: Point(x: 120, y: 120)), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 7), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 8), origin: .injected)
        let ea = inputs(h, a).filter { !$0.kind.isKeyboard }, eb = inputs(h, b).filter { !$0.kind.isKeyboard }
        #expect(ea.map(\.kind) == [.touchDown, .touchMove, .touchUp])
        #expect(ea.allSatisfy { $0.layer == LayerID(1) && $0.id == 7 && $0.injected })
        #expect(ea[0].location == Point(x: 20, y: 30) && ea[0].screen == Point(x: 20, y: 30))
        #expect(ea[1].location == Point(x: 120, y: 120))   // outside its bounds, still its coordinates
        #expect(eb.map(\.kind) == [.touchDown, .touchUp])
        #expect(eb[0].location == Point(x: 70, y: 80) && !eb[0].injected && eb[0].deviceTime == 5)
        // (60, 60) is where both overlap: B is in front.
        h.outbox = [:]
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 60, y: 60)), origin: .injected)
        #expect(inputs(h, b).contains { $0.kind == .touchDown && $0.location == Point(x: 10, y: 10) })
        #expect(!inputs(h, a).contains { $0.kind == .touchDown })
        // Nothing there: nobody hears it.
        h.outbox = [:]
        h.compositor.handleInput(.touchDown(id: 2, at: Point(x: 300, y: 10)), origin: .injected)
        #expect(inputs(h, a).isEmpty && inputs(h, b).isEmpty)
    }

    @Test func pointerEnterLeaveAndButtonGrab() throws {
        let (h, a, b) = try twoClients()
        h.compositor.handleInput(.pointerMotion(to: Point(x: 10, y: 10)), origin: .injected)
        h.compositor.handleInput(.pointerMotion(to: Point(x: 120, y: 120)), origin: .injected)
        #expect(inputs(h, a).filter { !$0.kind.isKeyboard }.map(\.kind) == [.pointerEnter, .pointerMove, .pointerLeave])
        #expect(inputs(h, b).filter { !$0.kind.isKeyboard }.map(\.kind) == [.pointerEnter, .pointerMove])
        h.outbox = [:]
        // Press on B, drag over A and off everything: B keeps the pointer, no enter or leave.
        h.compositor.handleInput(.pointerButton(code: 0x110, pressed: true), origin: .injected)
        h.compositor.handleInput(.pointerMotion(to: Point(x: 10, y: 10)), origin: .injected)
        h.compositor.handleInput(.pointerMotion(to: Point(x: 300, y: 300)), origin: .injected)
        #expect(inputs(h, a).filter { !$0.kind.isKeyboard }.isEmpty)
        #expect(inputs(h, b).filter { !$0.kind.isKeyboard }.map(\.kind) == [.buttonPress, .pointerMove, .pointerMove])
        #expect(inputs(h, b).first { $0.kind == .buttonPress }?.id == 0x110)
        h.outbox = [:]
        // Release off everything: the release goes to B, then B is left.
        h.compositor.handleInput(.pointerButton(code: 0x110, pressed: false), origin: .injected)
        #expect(inputs(h, b).map(\.kind) == [.buttonRelease, .pointerLeave])
        #expect(inputs(h, b)[0].location == Point(x: 250, y: 250))
    }

    @Test func keyboardFocusFollowsPressesAndRequests() throws {
        let (h, a, b) = try twoClients()
        h.keyAction = { name, pressed in
            name == "a" ? .key(code: 30, pressed: pressed, keysym: 0x61, name: "a", text: "a") : nil
        }
        // No focus yet: the key goes nowhere.
        h.compositor.handleInput(.key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a"), origin: .injected)
        #expect(inputs(h, a).isEmpty && inputs(h, b).isEmpty)
        // A touch on A gives A the keyboard.
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 10, y: 10)), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 1), origin: .injected)
        h.compositor.handleInput(.key(code: 30, pressed: true, keysym: 0x61, name: "a", text: "a"), origin: .injected)
        let keys = inputs(h, a).filter(\.kind.isKeyboard)
        #expect(keys.map(\.kind) == [.focusIn, .keyPress])
        #expect(keys[1].text == "a" && keys[1].keysym == 0x61 && keys[1].id == 30 && keys[1].keyName == "a")
        let (tool, _) = h.sayHello(peer: .user(0, privileged: true))
        h.outbox = [:]
        // B asks for the keyboard; a tool injects a key release.
        h.feed(b, .request(id: 9, .takeKeyboardFocus))
        h.feed(tool, .request(id: 10, .injectInput(.key(name: "a", pressed: false))))
        #expect(inputs(h, a).map(\.kind) == [.focusOut])
        #expect(inputs(h, b).map(\.kind) == [.focusIn, .keyRelease])
        #expect(inputs(h, b).last?.text == "")
        #expect(h.outbox[b]?.contains(.reply(id: 9, .done)) == true)
        #expect(h.outbox[tool]?.contains(.reply(id: 10, .done)) == true)
        // An unknown key name is refused with a clear error.
        h.feed(tool, .request(id: 11, .injectInput(.key(name: "NoSuchKey", pressed: true))))
        guard case .error(let e) = h.outbox[tool]?.last else { Issue.record("no error"); return }
        #expect(e.code == .invalidRequest && e.message.contains("NoSuchKey"))
    }

    /// Injection is privileged; an unprivileged client is refused and nothing is routed.
    @Test func injectionIsPrivileged() throws {
        let (h, a, b) = try twoClients()
        h.feed(b, .request(id: 3, .injectInput(.touchDown(id: 1, at: Point(x: 10, y: 10)))))
        guard case .error(let e) = h.outbox[b]?.last else { Issue.record("no error"); return }
        #expect(e.code == .permissionDenied)
        #expect(inputs(h, a).isEmpty)
    }

    /// A layer caught mid-animation is hit where it is drawn, not at its model position.
    @Test func hitsThePresentationNotTheModel() throws {
        let (h, a, _) = try twoClients()
        // Move A's layer from x 0…100 to 200…300 over 1 s, linearly.
        let move = Animation.basic(BasicAnimation(keyPath: "position.x", from: .number(50), to: .number(250),
                                                  duration: 1, timingFunction: .linear))
        #expect(h.commit(a, [.set(LayerID(1), .position, .point(Point(x: 250, y: 50))),
                              .addAnimation(LayerID(1), key: "move", tag: 0, move)]) == .applied(serial: 1))
        let (tool, _) = h.sayHello(peer: .user(0, privileged: true))
        h.feed(tool, .request(id: 1, .advanceClock(seconds: 0.5)))
        let p = h.compositor.animationState(entry: 0)?.animated[LayerID(1)]?.presentation.position
        #expect(p == Point(x: 150, y: 50))
        h.outbox = [:]
        // At 0.5 s the layer is drawn at x 100…200: (150, 50) hits it, at its x = 50.
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 150, y: 50)), origin: .injected)
        let down = inputs(h, a).first { $0.kind == .touchDown }
        #expect(down?.location == Point(x: 50, y: 50))
        // Its model place (250, 50) is not where it is drawn.
        h.compositor.handleInput(.touchDown(id: 2, at: Point(x: 260, y: 50)), origin: .injected)
        #expect(inputs(h, a).filter { $0.kind == .touchDown }.count == 1)
    }

    /// A client that goes away mid-touch: the rest of the touch goes nowhere, and its kept
    /// session's listener still hears the events for its layers.
    @Test func clientLeavingMidTouchAndSessionListeners() throws {
        let (h, a, b) = try twoClients()
        let (tool, _) = h.sayHello(peer: .user(1))
        h.feed(tool, .request(id: 4, .listen(session: "sa")))
        #expect(h.outbox[tool]?.contains(.reply(id: 4, .watching)) == true)
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 120, y: 120)), origin: .injected)   // B's
        h.compositor.handleInput(.touchDown(id: 2, at: Point(x: 10, y: 10)), origin: .injected)     // A's
        h.compositor.disconnected(b)
        h.compositor.disconnected(a)   // A's session is kept: its layers stay
        h.outbox = [:]
        h.compositor.handleInput(.touchMotion(id: 1, to: Point(x: 130, y: 130)), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 1), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 2), origin: .injected)
        let lines = (h.outbox[tool] ?? []).compactMap { if case .watch(let l) = $0 { l } else { nil } }
        #expect(lines.count == 1)
        #expect(lines.first?.contains(#""type":"touchUp","session":"sa","layer":"a","layerID":1,"id":2"#) == true)
        #expect(lines.first?.contains(#""injected":true"#) == true)
        // Another user may not listen to the session.
        let (stranger, _) = h.sayHello(peer: .user(3))
        h.feed(stranger, .request(id: 5, .listen(session: "sa")))
        guard case .error(let e) = h.outbox[stranger]?.last else { Issue.record("no error"); return }
        #expect(e.code == .permissionDenied)
    }

    @Test func cancelAllCancelsTouchesAndPressesInFlight() throws {
        let (h, a, b) = try twoClients()
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 10, y: 10)), origin: .injected)
        h.compositor.handleInput(.pointerMotion(to: Point(x: 120, y: 120)), origin: .injected)
        h.compositor.handleInput(.pointerButton(code: 0x111, pressed: true), origin: .injected)
        h.outbox = [:]
        h.compositor.handleInput(.cancelAll, origin: InputOrigin(injected: false))
        #expect(inputs(h, a).map(\.kind) == [.touchCancel])
        #expect(inputs(h, b).map(\.kind) == [.pointerCancel])
        // The old touch's up after the cancel goes nowhere.
        h.outbox = [:]
        h.compositor.handleInput(.touchUp(id: 1), origin: .injected)
        h.compositor.handleInput(.pointerButton(code: 0x111, pressed: false), origin: .injected)
        #expect(inputs(h, a).isEmpty && inputs(h, b).isEmpty)
    }

    /// As in Core Animation, a mask does not clip hits, and the mask layer itself (not a
    /// sublayer) is never hit: outside the mask's shape, the masked layer is still hit.
    @Test func masksDoNotClipHits() throws {
        let (h, a, _) = try twoClients()
        #expect(h.commit(a, [.create(LayerID(5)), .set(LayerID(5), .bounds, .rect(Rect(x: 0, y: 0, width: 10, height: 10))),
                             .set(LayerID(5), .position, .point(Point(x: 5, y: 5))),
                             .set(LayerID(5), .backgroundColor, .color(.white)),
                             .set(LayerID(1), .mask, .layer(5))]) == .applied(serial: 1))
        h.outbox = [:]
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 40, y: 40)), origin: .injected)   // outside the 10×10 mask
        h.compositor.handleInput(.touchDown(id: 2, at: Point(x: 5, y: 5)), origin: .injected)     // inside it
        let downs = inputs(h, a).filter { $0.kind == .touchDown }
        #expect(downs.map(\.layer) == [LayerID(1), LayerID(1)])
        #expect(downs.first?.location == Point(x: 40, y: 40))
    }

    /// A destroyed layer's touch ends with a cancel; a flood of touch ids is bounded.
    @Test func destroyedLayersAndTouchBudget() throws {
        let (h, a, _) = try twoClients()
        h.compositor.handleInput(.touchDown(id: 1, at: Point(x: 10, y: 10)), origin: .injected)
        #expect(h.commit(a, [.destroy(LayerID(1))]) == .applied(serial: 1))
        h.outbox = [:]
        h.compositor.handleInput(.touchMotion(id: 1, to: Point(x: 20, y: 20)), origin: .injected)
        h.compositor.handleInput(.touchUp(id: 1), origin: .injected)
        #expect(inputs(h, a).map(\.kind) == [.touchCancel])
        for i in 0..<1000 { h.compositor.handleInput(.touchDown(id: Int32(i), at: Point(x: 120, y: 120)), origin: .injected) }
        let stats = h.compositor.statistics()
        #expect(stats.first { $0.name == "input.touches" }?.value == Double(InputState.maximumTouches))
    }
}
