import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// The `output` request and the `display-changed` message over fake outputs (no EGL): a mode
/// change resizes the display the way a hotplug does, fits the roots, and tells 1.7 clients;
/// bad input is refused with what was wrong.
@Suite("Outputs changed at run time")
struct OutputRequestTests {
    func harness() -> (FakeBackend, CompositorHarness) {
        let backend = FakeBackend.flipping(["A"], width: 64, height: 48)
        return (backend, CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual)))
    }

    func outputs(_ messages: [ServerMessage], id: UInt32) -> [OutputState]? {
        for m in messages { if case .reply(id, .outputs(_, let o)) = m { return o } }
        return nil
    }

    func refusal(_ messages: [ServerMessage], id: UInt32) -> ErrorMessage? {
        for m in messages { if case .error(let e) = m, e.serial == id { return e } }
        return nil
    }

    @Test("output lists every output with its mode, modes, transform, scale, position and power")
    func listsOutputs() throws {
        let (_, h) = harness()
        let a = h.hello("a")
        h.feed(a, .request(id: 1, .output(name: "", .none)))
        let listed = try #require(outputs(h.take(a), id: 1))
        #expect(listed.count == 1)
        let o = try #require(listed.first)
        #expect(o.name == "A" && o.frame == Rect(x: 0, y: 0, width: 64, height: 48))
        #expect(o.mode.width == 64 && o.mode.height == 48 && abs(o.mode.refresh - 60) < 1e-9)
        #expect(o.modes == [o.mode] && o.transform == "normal" && o.scale == 1 && o.isOn)
    }

    @Test("a mode change resizes the display, fits the roots and sends display-changed to 1.7 clients only")
    func modeChangeAnnouncesTheDisplay() throws {
        let (backend, h) = harness()
        let a = h.hello("a")
        let b = h.hello("b")
        let old = h.hello("old", minor: 6)
        h.commit(b, CompositorHarness.square(1, x: 16, color: .red))
        _ = h.take(b)
        h.feed(a, .request(id: 2, .output(name: "A", .mode(OutputMode(width: 96, height: 64)))))
        let answer = h.take(a)
        let listed = try #require(outputs(answer, id: 2), "\(answer)")
        #expect(listed.first?.mode.width == 96 && listed.first?.mode.height == 64)
        #expect(backend.journal.calls.contains("mode A 96x64"))
        #expect(h.compositor.model.width == 96 && h.compositor.model.height == 64)
        let root = try #require(h.compositor.model.tree(of: b)?[.root]?.properties)
        #expect(root.bounds == Rect(x: 0, y: 0, width: 96, height: 64) && root.position == Point(x: 48, y: 32))

        let expected = DisplayLayout(width: 96, height: 64, outputs: [
            DisplayLayout.Output(name: "A", frame: Rect(x: 0, y: 0, width: 96, height: 64), refresh: 60),
        ])
        func announced(_ m: [ServerMessage]) -> [DisplayLayout] { m.compactMap { if case .displayChanged(let d) = $0 { d } else { nil } } }
        #expect(announced(answer).count == 1)
        let sent = announced(answer).first
        #expect(sent?.width == 96 && sent?.height == 64 && sent?.outputs.map(\.name) == ["A"])
        #expect(sent?.outputs.first?.frame == expected.outputs[0].frame && abs((sent?.outputs.first?.refresh ?? 0) - 60) < 1e-9)
        #expect(announced(h.take(b)).count == 1, "every 1.7 client hears of it")
        #expect(h.take(old).isEmpty, "a 1.6 client gets nothing new")

        // Listing, or asking for the mode it has, changes nothing and announces nothing.
        h.feed(a, .request(id: 3, .output(name: "A", .mode(OutputMode(width: 96, height: 64)))))
        h.feed(a, .request(id: 4, .output(name: "", .none)))
        #expect(announced(h.take(a)).isEmpty)
        #expect(announced(h.take(b)).isEmpty)
    }

    @Test("bad output requests are refused with what was wrong", arguments: [
        ("nope", OutputChange.mode(OutputMode(width: 800, height: 600)), "no output named 'nope' (outputs: A)"),
        ("nope", OutputChange.none, "no output named 'nope' (outputs: A)"),
        ("", OutputChange.mode(OutputMode(width: 800, height: 600)), "needs the output's name (outputs: A)"),
        ("A", OutputChange.mode(OutputMode(width: 0, height: 0)), "A: mode 0x0 is out of range: width and height must each be 1 to 8192 pixels"),
        ("A", OutputChange.mode(OutputMode(width: 100_000, height: 600)), "A: mode 100000x600 is out of range"),
        ("A", OutputChange.mode(OutputMode(width: 800, height: 600, refresh: -1)), "A: refresh -1.0 Hz is out of range"),
        ("A", OutputChange.transform("sideways"), "A: unknown transform 'sideways' (transforms: normal, 90, 180, 270, flipped, flipped-90, flipped-180, flipped-270)"),
        ("A", OutputChange.scale(0.1), "A: scale 0.1 is out of range: give 0.25 to 8.0 pixels per point"),
        ("A", OutputChange.scale(.nan), "A: scale nan is out of range"),
        ("A", OutputChange.position(x: -1, y: 0), "A: position -1,0 is out of range: each must be 0 to 16384 points"),
        ("A", OutputChange.position(x: 0, y: 20000), "A: position 0,20000 is out of range"),
        ("A", OutputChange.enabled(false), "A is the only output: disabling it would leave laminad nothing to draw on"),
    ])
    func badInputIsRefused(name: String, change: OutputChange, message: String) throws {
        let (backend, h) = harness()
        let a = h.hello("a")
        h.feed(a, .request(id: 5, .output(name: name, change)))
        let e = try #require(refusal(h.take(a), id: 5))
        #expect(e.code == .invalidRequest)
        #expect(e.message.contains(message), "\(e.message)")
        #expect(h.compositor.model.width == 64 && backend.journal.calls.allSatisfy { !["mode", "transform", "scale", "position", "disable"].contains($0.split(separator: " ").first ?? "") })
    }

    @Test("transform, scale, position and enable reach the backend and are announced; one already so changes nothing")
    func otherChanges() throws {
        let (backend, h) = harness()
        let a = h.hello("a")
        func announced(_ m: [ServerMessage]) -> [DisplayLayout] { m.compactMap { if case .displayChanged(let d) = $0 { d } else { nil } } }
        h.feed(a, .request(id: 8, .output(name: "A", .transform("90"))))
        h.feed(a, .request(id: 9, .output(name: "A", .scale(2))))
        h.feed(a, .request(id: 10, .output(name: "A", .position(x: 10, y: 20))))
        let moved = h.take(a)
        let changes = backend.journal.calls.filter { ["transform", "scale", "position"].contains($0.split(separator: " ").first ?? "") }
        #expect(changes == ["transform A 90", "scale A 2.0", "position A 10 20"], "\(backend.journal.calls)")
        #expect(announced(moved).last?.outputs.first?.frame.origin == Point(x: 10, y: 20), "the fake moves; the move is announced")
        let before = backend.journal.calls.count
        // Enabling a lit output, or moving it where it is, changes nothing.
        h.feed(a, .request(id: 11, .output(name: "A", .enabled(true))))
        h.feed(a, .request(id: 12, .output(name: "A", .position(x: 10, y: 20))))
        #expect(announced(h.take(a)).isEmpty)
        #expect(backend.journal.calls.count == before)
    }

    @Test("a backend's refusal is passed on with the output's name; an unprivileged client is refused")
    func refusals() throws {
        let (backend, h) = harness()
        backend.modeRefusal = "the driver will not"
        let a = h.hello("a")
        h.feed(a, .request(id: 6, .output(name: "A", .mode(OutputMode(width: 80, height: 60)))))
        #expect(refusal(h.take(a), id: 6)?.message == "A: the driver will not")
        let stranger = h.hello("s", peer: PeerIdentity(uid: 4242, isPrivileged: false))
        h.feed(stranger, .request(id: 7, .output(name: "", .none)))
        let e = try #require(refusal(h.take(stranger), id: 7))
        #expect(e.code == .permissionDenied && e.message.hasPrefix("output"))
    }
}
