import Testing
import LaminaCore
import LaminaProtocol
import LaminaTestSupport
@testable import LaminaCompositor

/// Display links (`CADisplayLink`, protocol 1.7) in the compositor, over fake outputs (no EGL):
/// frame messages only while a link runs, one per refresh the virtual clock passes, at most one
/// unanswered per client, the rate a link's range asks for, and bad requests refused by name.
@Suite("Display links")
@MainActor
struct DisplayLinkTests {
    /// A compositor on one unpaced output (nothing page-flips; links follow the clock's rate).
    func harness(clock: FrameClock = FrameClock(.virtual), realTime: @escaping () -> Double = { 0 },
                 configure: (inout Compositor.Configuration) -> Void = { _ in }) -> CompositorHarness {
        let backend = FakeBackend()
        let o = FakeOutput("A", Rect(x: 0, y: 0, width: 64, height: 48), journal: backend.journal)
        o.refreshInterval = nil
        backend.fakes.append(o)
        var configuration = Compositor.Configuration()
        configure(&configuration)
        return CompositorHarness(presenter: backend.makePresenter(), clock: clock, configuration: configuration, realTime: realTime)
    }

    func frames(_ messages: [ServerMessage]) -> [DisplayLinkFrame] {
        messages.compactMap { if case .frame(let f) = $0 { f } else { nil } }
    }

    func refusal(_ messages: [ServerMessage], id: UInt32) -> ErrorMessage? {
        for m in messages { if case .error(let e) = m, e.subject == .request, e.serial == id { return e } }
        return nil
    }

    func stat(_ h: CompositorHarness, _ name: String) -> Double {
        h.compositor.statistics().first { $0.name == name }?.value ?? -1
    }

    /// `client` sets link `link` and gets `done`.
    func setLink(_ h: CompositorHarness, _ client: ClientID, _ link: UInt32, paused: Bool = false,
                 range: FrameRateRange = .default, output: String = "", id: UInt32 = 50) {
        h.feed(client, .request(id: id, .displayLink(link: link, .set(isPaused: paused, range: range, output: output))))
        let answer = h.take(client)
        #expect(answer.contains(.reply(id: id, .done)), "\(answer)")
    }

    /// The client answers its frame (the libraries' empty commit after the callbacks).
    func answer(_ h: CompositorHarness, _ client: ClientID, serial: UInt32) {
        h.feed(client, .commit(Commit(serial: serial, operations: [])))
        _ = h.take(client)
    }

    @Test("advancing one second at 60 Hz gives exactly 60 callbacks, each targetTimestamp 1/60 s after the last")
    func sixtyCallbacksInASecond() {
        let h = harness()
        let a = h.hello("a")
        setLink(h, a, 1)
        var targets: [Double] = []
        for step in 1...60 {
            h.advance(a, 1.0 / 60)
            let got = frames(h.take(a))
            #expect(got.count == 1, "step \(step): \(got)")
            guard let f = got.first else { continue }
            #expect(f.links == [1])
            #expect(abs(f.duration - 1.0 / 60) < 1e-12)
            #expect(abs(f.timestamp - Double(step) / 60) < 1e-9, "step \(step): timestamp \(f.timestamp)")
            #expect(abs(f.targetTimestamp - f.timestamp - 1.0 / 60) < 1e-9)
            targets.append(f.targetTimestamp)
            answer(h, a, serial: UInt32(step))
        }
        #expect(targets.count == 60)
        for (x, y) in zip(targets, targets.dropFirst()) { #expect(abs(y - x - 1.0 / 60) < 1e-9) }
        #expect(stat(h, "displayLink.frames") == 60)
    }

    @Test("with no link running there are no frames and no wake-ups; a paused link keeps it so")
    func idleMeansNothing() throws {
        let h = harness()
        let a = h.hello("a")
        try h.compositor.flushFrame()
        let frames0 = stat(h, "framesRendered"), wakeups0 = stat(h, "repaint.wakeups")
        for _ in 0..<60 { h.advance(a, 1.0 / 60) }
        #expect(stat(h, "framesRendered") == frames0 && stat(h, "repaint.wakeups") == wakeups0)
        setLink(h, a, 1, paused: true)
        for _ in 0..<60 { h.advance(a, 1.0 / 60) }
        #expect(frames(h.take(a)).isEmpty)
        #expect(stat(h, "framesRendered") == frames0 && stat(h, "repaint.wakeups") == wakeups0)
        #expect(stat(h, "displayLink.links") == 1 && stat(h, "displayLink.running") == 0)
        // Running, it ticks; removed, it is quiet again.
        setLink(h, a, 1, paused: false, id: 51)
        h.advance(a, 1.0 / 60)
        #expect(frames(h.take(a)).count == 1)
        #expect(stat(h, "framesRendered") == frames0 + 1)
        answer(h, a, serial: 1)
        h.feed(a, .request(id: 52, .displayLink(link: 1, .remove)))
        #expect(h.take(a).contains(.reply(id: 52, .done)))
        let frames1 = stat(h, "framesRendered"), wakeups1 = stat(h, "repaint.wakeups")
        for _ in 0..<60 { h.advance(a, 1.0 / 60) }
        #expect(frames(h.take(a)).isEmpty)
        #expect(stat(h, "framesRendered") == frames1 && stat(h, "repaint.wakeups") == wakeups1)
    }

    @Test("a client that does not answer gets no backlog: one message, then the latest frame once it answers")
    func slowClientGetsTheLatest() {
        let h = harness()
        let a = h.hello("a")
        setLink(h, a, 1)
        h.advance(a, 1.0 / 60)
        #expect(frames(h.take(a)).count == 1)
        for _ in 0..<9 { h.advance(a, 1.0 / 60) }
        #expect(frames(h.take(a)).isEmpty, "unanswered: nothing more")
        #expect(stat(h, "displayLink.coalesced") == 9)
        answer(h, a, serial: 1)
        h.advance(a, 1.0 / 60)
        let f = frames(h.take(a))
        #expect(f.count == 1 && abs((f.first?.timestamp ?? 0) - 11.0 / 60) < 1e-9, "\(f)")
        // One advance over many refreshes is one message too: the latest.
        answer(h, a, serial: 2)
        h.advance(a, 1)
        let g = frames(h.take(a))
        #expect(g.count == 1 && abs((g.first?.timestamp ?? 0) - 71.0 / 60) < 1e-9, "\(g)")
    }

    @Test("a link preferring 30 Hz on a 60 Hz clock fires every other refresh")
    func preferredRate() {
        let h = harness()
        let a = h.hello("a")
        setLink(h, a, 1, range: FrameRateRange(minimum: 15, maximum: 30, preferred: 30))
        setLink(h, a, 2, id: 51)
        var slow = 0, fast = 0
        for step in 1...60 {
            h.advance(a, 1.0 / 60)
            for f in frames(h.take(a)) {
                if f.links.contains(1) {
                    slow += 1
                    #expect(abs(f.targetTimestamp - f.timestamp - 2.0 / 60) < 1e-9 && abs(f.duration - 1.0 / 60) < 1e-12)
                }
                if f.links.contains(2) { fast += 1 }
            }
            answer(h, a, serial: UInt32(step))
        }
        #expect(slow == 30 && fast == 60)
        #expect(FrameRateRange(minimum: 0, maximum: 0, preferred: 20).divisor(refresh: 60) == 3)
        #expect(FrameRateRange(minimum: 0, maximum: 24, preferred: 0).divisor(refresh: 60) == 3)
        #expect(FrameRateRange(minimum: 30, maximum: 120, preferred: 120).divisor(refresh: 60) == 1)
        #expect(FrameRateRange.default.divisor(refresh: 144) == 1)
    }

    @Test("a link follows the output it names, or the fastest; each at its output's refresh")
    func followsOutputs() {
        let backend = FakeBackend()
        for (i, (name, hz)) in [("slow", 30.0), ("fast", 60.0)].enumerated() {
            let o = FakeOutput(name, Rect(x: Double(i * 64), y: 0, width: 64, height: 48), journal: backend.journal)
            o.refreshInterval = 1 / hz
            backend.fakes.append(o)
        }
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.virtual))
        let a = h.hello("a")
        setLink(h, a, 1, output: "slow")
        setLink(h, a, 2, id: 51)
        var slow: [DisplayLinkFrame] = [], fast: [DisplayLinkFrame] = []
        for step in 1...60 {
            h.advance(a, 1.0 / 60)
            for f in frames(h.take(a)) {
                if f.links.contains(1) { slow.append(f) }
                if f.links.contains(2) { fast.append(f) }
                #expect(!(f.links.contains(1) && f.links.contains(2)), "outputs of other rates: separate messages")
            }
            answer(h, a, serial: UInt32(step))
        }
        #expect(fast.count == 60 && fast.allSatisfy { abs($0.duration - 1.0 / 60) < 1e-12 })
        #expect(slow.count == 30 && slow.allSatisfy { abs($0.duration - 1.0 / 30) < 1e-12 && abs($0.targetTimestamp - $0.timestamp - 1.0 / 30) < 1e-9 })
    }

    @Test("bad values, unknown outputs, the budget and old clients are refused with what was wrong")
    func refusals() {
        let h = harness(configure: { $0.limits.maxDisplayLinks = 2 })
        let a = h.hello("a")
        let cases: [(DisplayLinkChange, String)] = [
            (.set(isPaused: false, range: FrameRateRange(minimum: .nan, maximum: 0, preferred: 0), output: ""), "minimum must be a finite number"),
            (.set(isPaused: false, range: FrameRateRange(minimum: 60, maximum: 30, preferred: 0), output: ""), "minimum 60.0 is above its maximum 30.0"),
            (.set(isPaused: false, range: FrameRateRange(minimum: 0, maximum: 30, preferred: 50), output: ""), "preferred rate 50.0 is outside"),
            (.set(isPaused: false, range: FrameRateRange(minimum: 0, maximum: 5000, preferred: 0), output: ""), "from 0 to 1000"),
            (.set(isPaused: false, range: .default, output: "HDMI-A-9"), "cannot follow output 'HDMI-A-9': there is no output by that name (outputs: A"),
            (.remove, "there is no display link 7"),
        ]
        for (i, (change, words)) in cases.enumerated() {
            h.feed(a, .request(id: UInt32(i + 1), .displayLink(link: 7, change)))
            let e = refusal(h.take(a), id: UInt32(i + 1))
            #expect(e?.code == .invalidRequest && e?.message.contains(words) == true, "\(String(describing: e))")
        }
        setLink(h, a, 1, output: "A")
        setLink(h, a, 2, id: 51)
        h.feed(a, .request(id: 60, .displayLink(link: 3, .set(isPaused: false, range: .default, output: ""))))
        let e = refusal(h.take(a), id: 60)
        #expect(e?.code == .limitExceeded && e?.message.contains("max_display_links_per_client") == true, "\(String(describing: e))")
        // Updating a link it has is not a new one.
        setLink(h, a, 2, paused: true, id: 61)
        let old = h.hello("old", minor: 6)
        h.feed(old, .request(id: 1, .displayLink(link: 1, .set(isPaused: false, range: .default, output: ""))))
        #expect(refusal(h.take(old), id: 1)?.message.contains("protocol 1.7") == true)
        // A client that goes takes its links with it.
        h.compositor.disconnected(a)
        #expect(stat(h, "displayLink.links") == 0)
    }

    @Test("on the real clock a running link keeps the loop ticking while its client answers, and only then")
    func realClockTicks() throws {
        var t = 10.001
        let h = harness(clock: FrameClock(.real(refreshRate: 60)), realTime: { t })
        let a = h.hello("a")
        if h.timer.armedAt != nil { t = h.timer.armedAt!; h.fireFrameTimer() }
        _ = h.take(a)
        h.timer.reset()
        setLink(h, a, 1)
        let wake = try #require(h.timer.armedAt, "a running link arms the frame timer")
        #expect(abs(wake - 601.0 / 60) < 1e-9, "the next refresh boundary")
        t = wake + 0.0005
        h.fireFrameTimer()
        let f = frames(h.take(a))
        #expect(f.count == 1 && abs((f.first?.timestamp ?? 0) - wake) < 1e-9 && abs((f.first?.targetTimestamp ?? 0) - wake - 1.0 / 60) < 1e-9, "\(f)")
        #expect(h.timer.armedAt == nil, "unanswered: the loop rests")
        t += 0.004
        answer(h, a, serial: 1)
        let next = try #require(h.timer.armedAt, "answered: the next refresh is armed")
        #expect(abs(next - (wake + 1.0 / 60)) < 1e-9)
        // A commit made in the callback is in the frame the message targeted.
        h.feed(a, .commit(Commit(serial: 2, operations: CompositorHarness.square(1, x: 16, color: .red))))
        let rendered = h.compositor.stats.framesRendered
        t = next + 0.0005
        h.fireFrameTimer()
        #expect(h.compositor.stats.framesRendered == rendered + 1 && abs(h.compositor.lastFrameTime - t) < 1e-9)
        #expect(frames(h.take(a)).count == 1)
    }

    final class Clock: @unchecked Sendable { var now = 100.0 }

    @Test("with a page-flipping output the message targets the refresh after the frame's, and the callback's commit makes it")
    func pagedOutputTargetsTheNextRefresh() throws {
        let backend = FakeBackend.flipping(["A"])
        let clock = Clock()
        let window = Compositor.Configuration().repaintWindow
        let h = CompositorHarness(presenter: backend.makePresenter(), clock: FrameClock(.real(refreshRate: 60)), realTime: { clock.now })
        h.compositor.scheduleRepaint()
        #expect(h.fireFrameTimer(), "the background's first frame")
        h.compositor.handle(backend.completeFlips(["A"], at: 100.0167))
        clock.now = 100.02
        if h.fireFrameTimer() { h.compositor.handle(backend.completeFlips(["A"], at: 100.0333)) }
        let a = h.hello("a")
        setLink(h, a, 1)
        // The link's first frame: drawn at the repaint time, aimed at the next refresh.
        let wake = try #require(h.timer.armedAt)
        clock.now = wake
        #expect(h.fireFrameTimer())
        let f = try #require(frames(h.take(a)).first)
        #expect(abs(f.duration - 1.0 / 60) < 1e-9)
        #expect(abs(f.timestamp - (wake + window)) < 1e-6, "timestamp: the refresh the frame was drawn for (\(f.timestamp), woke \(wake))")
        #expect(abs(f.targetTimestamp - f.timestamp - 1.0 / 60) < 1e-9)
        // The client commits in the callback before the flip completes; the next frame is aimed
        // at the target and shows the commit.
        clock.now = wake + 0.002
        h.feed(a, .commit(Commit(serial: 1, operations: CompositorHarness.square(1, x: 16, color: .red))))
        _ = h.take(a)
        #expect(!h.fireFrameTimer(), "nothing is drawn while the output awaits its flip")
        clock.now = f.timestamp
        h.compositor.handle(backend.completeFlips(["A"], at: f.timestamp))
        let next = try #require(h.timer.armedAt)
        #expect(next < f.targetTimestamp, "the frame showing the commit starts before its refresh (\(next))")
        clock.now = next
        #expect(h.fireFrameTimer())
        #expect(abs(h.compositor.lastFrameTime - f.targetTimestamp) < 1e-6, "drawn for the target: \(h.compositor.lastFrameTime)")
        #expect(h.compositor.presenter.lastList?.commands.contains { $0.color == .red } == true, "the callback's commit is in it")
        let g = try #require(frames(h.take(a)).first, "answered: the next message")
        #expect(abs(g.timestamp - f.targetTimestamp) < 1e-6)
    }
}
