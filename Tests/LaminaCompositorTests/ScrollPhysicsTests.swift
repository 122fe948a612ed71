import Foundation
import Testing
import LaminaCore
@testable import LaminaCompositor

/// UIScrollView's physics as a pure value, time injected: deceleration, the rubber band,
/// springing back, catching a fling at an edge, paging, and the finger's velocity.
@Suite("Scroll physics")
struct ScrollPhysicsTests {
    /// A long vertical list: rests between 0 and 9 600, 400 points tall.
    let long = ScrollAxis(minimum: 0, maximum: 9_600, dimension: 400)

    @Test("the rubber band is (1 − 1/(x·c/d + 1))·d, less than d, and the inverse undoes it")
    func rubberBand() {
        #expect(abs(ScrollPhysics.rubberBand(100, dimension: 400) - (1 - 1 / (100 * 0.55 / 400 + 1)) * 400) < 1e-12)
        #expect(abs(ScrollPhysics.rubberBand(100, dimension: 400) - 48.35164835) < 1e-6)
        #expect(ScrollPhysics.rubberBand(-100, dimension: 400) == -ScrollPhysics.rubberBand(100, dimension: 400))
        #expect(ScrollPhysics.rubberBand(1e9, dimension: 400) < 400)
        var last = 0.0
        for x in stride(from: 10.0, through: 2000, by: 10) {
            let r = ScrollPhysics.rubberBand(x, dimension: 400)
            #expect(r > last && r < x)
            last = r
            #expect(abs(ScrollPhysics.overscroll(shown: r, dimension: 400) - x) < 1e-6)
        }
        // An axis shows raw offsets inside its extent as they are, and bands them past it.
        #expect(long.shown(500) == 500)
        #expect(abs(long.shown(-100) - -48.35164835) < 1e-6)
        #expect(abs(long.shown(9_700) - (9_600 + 48.35164835)) < 1e-6)
        #expect(abs(long.raw(shown: long.shown(-250)) - -250) < 1e-6)
    }

    @Test("momentum decays by 0.998 a millisecond: the closed form matches UIScrollView's step by step")
    func deceleration() {
        let m = AxisMotion.release(at: 2, from: 1_000, velocity: 2_000, on: long, paging: false)
        #expect(m.curve == .momentum)
        // UIScrollView's own loop, one millisecond at a time.
        var x = 1_000.0, v = 2_000.0
        for ms in 1...1_500 {
            v *= 0.998
            x += v / 1000
            if ms % 250 == 0 {
                let s = m.sample(at: 2 + Double(ms) / 1000, on: long)
                #expect(abs(s.offset - x) < 1.5, "at \(ms) ms: \(s.offset) against \(x)")
                #expect(abs(s.velocity - v) < 5)
                #expect(!s.isResting)
            }
        }
        // It rests where its speed falls to 10 points a second, at a time found in closed form:
        // ln(2000/10)/k after the release, 2000·(1 − 10/2000)/k points on.
        let k = ScrollPhysics.decelerationPerSecond
        let stop = log(200) / k
        let rest = m.sample(at: 2 + stop + 0.001, on: long)
        #expect(rest.isResting && rest.velocity == 0)
        #expect(abs(rest.offset - (1_000 + 1_990 / k)) < 1e-6)
        #expect(m.sample(at: 100, on: long) == rest)
        #expect(!m.sample(at: 2 + stop - 0.01, on: long).isResting)
    }

    @Test("the offset at a time does not depend on the frames drawn before it")
    func framesDoNotMatter() {
        let axes = (x: ScrollAxis(minimum: 0, maximum: 0, dimension: 300), y: ScrollAxis(minimum: 0, maximum: 2_000, dimension: 400))
        func run(_ frames: [Double]) -> Point {
            var s = ActiveScroll(target: InputState.Target(serial: EntrySerial(1), layer: LayerID(1)), source: .touch,
                                 drive: .released(x: nil, y: AxisMotion.release(at: 0, from: 1_500, velocity: 3_000, on: axes.y, paging: false)),
                                 raw: Point(x: 0, y: 1_500), shown: Point(x: 0, y: 1_500))
            s.axes = axes
            var shown = Point.zero
            for t in frames { shown = s.step(at: t, axes: axes, mode: .vertically).shown }
            return shown
        }
        let at60 = run(stride(from: 1.0 / 60, through: 0.3, by: 1.0 / 60).map { $0 } + [0.3])
        let once = run([0.3])
        let jumps = run([0.1, 0.21, 0.3])
        #expect(at60 == once && jumps == once)
        #expect(once.y > 2_000, "the fling reached the edge and went past it, rubber-banded")
    }

    @Test("a fling that reaches an edge is caught by the spring there and rests exactly on it")
    func bounceAtTheEdge() throws {
        let m = AxisMotion.release(at: 0, from: 9_400, velocity: 3_000, on: long, paging: false)
        let (edge, after) = try #require(m.edgeCrossing(on: long))
        #expect(edge == 9_600)
        #expect(abs(m.sample(at: after, on: long).offset - 9_600) < 1e-6)
        // Past the edge, then back: the furthest it goes is bounded and shown rubber-banded.
        var furthest = 0.0
        var t = after
        while t < after + 2 {
            let s = m.sample(at: t, on: long)
            furthest = max(furthest, s.offset - 9_600)
            t += 1.0 / 120
        }
        #expect(furthest > 10 && furthest < 400)
        let end = m.sample(at: after + 2, on: long)
        #expect(end.isResting && end.offset == 9_600)
        // Towards the top too.
        let up = AxisMotion.release(at: 0, from: 100, velocity: -2_000, on: long, paging: false)
        #expect(up.edgeCrossing(on: long)?.edge == 0)
        #expect(up.sample(at: 3, on: long).offset == 0)
        // A fling that stops short of the edge has no crossing.
        #expect(AxisMotion.release(at: 0, from: 100, velocity: 500, on: long, paging: false).edgeCrossing(on: long) == nil)
    }

    @Test("released past an edge it springs back without overshooting, and rests on the edge")
    func springBack() {
        let m = AxisMotion.release(at: 1, from: -300, velocity: 0, on: long, paging: false)
        #expect(m.curve == .spring(target: 0))
        var last = -300.0
        for i in 1...60 {
            let s = m.sample(at: 1 + Double(i) / 60, on: long)
            #expect(s.offset >= last && s.offset <= 0, "monotonic, never past the edge")
            last = s.offset
        }
        #expect(m.sample(at: 2, on: long) == AxisMotion.Sample(offset: 0, velocity: 0, isResting: true))
        // Half a second brings 100 points back within half a point (UIScrollView's bounce).
        #expect(abs(AxisMotion.release(at: 0, from: -100, velocity: 0, on: long, paging: false).sample(at: 0.5, on: long).offset) < 0.5)
    }

    @Test("paging settles on the nearest page, or the next one after a flick, within the extent")
    func paging() {
        let pages = ScrollAxis(minimum: 0, maximum: 1_200, dimension: 400)
        func target(_ x: Double, _ v: Double) -> Double? {
            if case .spring(let t) = AxisMotion.release(at: 0, from: x, velocity: v, on: pages, paging: true).curve { t } else { nil }
        }
        #expect(target(150, 0) == 0)
        #expect(target(250, 0) == 400)
        #expect(target(90, 500) == 400, "a flick forward goes to the next page")
        #expect(target(730, -500) == 400, "a flick back goes to the page before")
        #expect(target(1_100, 5_000) == 1_200, "not past the last page")
        #expect(target(-50, -5_000) == 0, "past the first edge: back to it")
        let m = AxisMotion.release(at: 0, from: 250, velocity: 0, on: pages, paging: true)
        #expect(m.sample(at: 1.5, on: pages).offset == 400 && m.sample(at: 1.5, on: pages).isResting)
        // The last page of an extent that is not a whole number of pages is its end.
        let ragged = ScrollAxis(minimum: 0, maximum: 1_000, dimension: 400)
        #expect(ragged.page(from: 950, velocity: 0) == 1_000)
    }

    @Test("the finger's velocity is its average over the last 0.1 s, and zero once it holds still")
    func velocity() {
        var tracker = VelocityTracker()
        for i in 0...12 { tracker.add(Point(x: 0, y: 400 - 20 * Double(i)), at: Double(i) / 60) }
        let v = tracker.velocity(at: 12.0 / 60)
        #expect(abs(v.y - -1_200) < 1e-6 && v.x == 0)
        // Held still for longer than the window: no fling.
        #expect(tracker.velocity(at: 12.0 / 60 + 0.2) == .zero)
        // Held for half the window: half the speed.
        #expect(abs(tracker.velocity(at: 12.0 / 60 + 0.05).y - -600) < 1e-6)
        // Every sample at one time (moves injected without the clock moving): no velocity.
        var still = VelocityTracker()
        still.add(.zero, at: 1)
        still.add(Point(x: 0, y: 50), at: 1)
        #expect(still.velocity(at: 1) == .zero)
    }

    @Test("a wheel moves within the extent, never past it, and ends after it stops turning")
    func wheel() {
        let axes = (x: ScrollAxis(minimum: 0, maximum: 0, dimension: 300), y: ScrollAxis(minimum: 0, maximum: 600, dimension: 400))
        var s = ActiveScroll(target: InputState.Target(serial: EntrySerial(1), layer: LayerID(1)), source: .wheel,
                             drive: .wheel(pending: Point(x: 0, y: 450), last: 0), raw: .zero, shown: .zero)
        #expect(s.step(at: 0, axes: axes, mode: .vertically).shown == Point(x: 0, y: 450))
        s.drive = .wheel(pending: Point(x: 0, y: 450), last: 0.05)
        let step = s.step(at: 0.05, axes: axes, mode: .vertically)
        #expect(step.shown == Point(x: 0, y: 600) && !step.ended)
        #expect(s.step(at: 0.05 + ActiveScroll.wheelIdle, axes: axes, mode: .vertically).ended)
        // The axis the mode leaves alone keeps its origin.
        var sideways = ActiveScroll(target: s.target, source: .wheel, drive: .wheel(pending: Point(x: 80, y: 80), last: 0),
                                    raw: .zero, shown: Point(x: 7, y: 0))
        #expect(sideways.step(at: 0, axes: axes, mode: .vertically).shown == Point(x: 7, y: 80))
    }
}
