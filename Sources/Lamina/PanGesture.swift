import LaminaCore
import LaminaProtocol

/// A pan: `minimumNumberOfTouches` to `maximumNumberOfTouches` touches (or a left-button drag)
/// whose centroid moved more than `allowableMovement`; the action is called with `.began`,
/// `.changed` for each move, then `.ended` (or `.cancelled`). A touch added or lifted during
/// the pan moves the centroid without moving `translation`; the pan ends when fewer than the
/// minimum (or more than the maximum) remain.
@MainActor
public final class PanRecognizer: GestureRecognizer {
    public var minimumNumberOfTouches = 1
    public var maximumNumberOfTouches = Int.max
    /// How far the touches' centroid has moved since the pan's touches went down, in display points.
    public private(set) var translation: Point = .zero
    /// How fast the centroid moves, in display points per second (between the last two
    /// event times that differ).
    public private(set) var velocity: Point = .zero
    /// Where the centroid was when `translation` was zero.
    private var origin: Point = .zero
    private var rate = RateMeter<Point>()
    let action: (PanRecognizer) -> Void

    public init(action: @escaping (PanRecognizer) -> Void) {
        self.action = action
        super.init()
    }

    override func perform() { action(self) }

    private var countFits: Bool { touches.count >= minimumNumberOfTouches && touches.count <= maximumNumberOfTouches }

    override func touchBegan(_ e: LayerInputEvent) { countChanged(at: e.time) }

    override func touchMoved(_ e: LayerInputEvent) {
        translation = Point(x: centroid.x - origin.x, y: centroid.y - origin.y)
        if let v = rate.sample(time: e.time, value: translation) { velocity = v }
        switch state {
        case .possible where countFits && translation.distance(to: .zero) > allowableMovement:
            transition(to: .began)
        case .began, .changed:
            transition(to: .changed)
        default: break
        }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) {
        if touches.isEmpty {
            if state == .began || state == .changed { transition(to: .ended) } else { fail() }
        } else {
            countChanged(at: e.time)
        }
    }

    override func touchCancelled() {
        if state == .began || state == .changed { transition(to: .cancelled) } else if touches.isEmpty { fail() }
        else { countChanged(at: lastTime) }
    }

    /// A touch went down or up: the centroid jumps. Before the pan, the translation starts
    /// again from zero (with two fingers required, what one did does not count); during it,
    /// the translation stays.
    private func countChanged(at time: Double) {
        if state == .possible {
            translation = .zero
            velocity = .zero
            rate = RateMeter(time: time, value: .zero)
        }
        origin = Point(x: centroid.x - translation.x, y: centroid.y - translation.y)
        switch state {
        case .possible where touches.count > maximumNumberOfTouches: fail()
        case .began where !countFits, .changed where !countFits: transition(to: .ended)
        default: break
        }
    }
}

/// A quantity's rate of change over the events' times: the change from the last sample at an
/// earlier time to the latest, over the time between. Samples at the same time (injected
/// events on a virtual clock that has not moved, two fingers moved for one frame) update the
/// latest value, so the rate counts every change made by then.
struct RateMeter<Value: RateValue> {
    private var previous: (time: Double, value: Value)?
    private var latest: (time: Double, value: Value) = (0, .zero)

    init() {}
    init(time: Double, value: Value) { latest = (time, value) }

    /// The rate once time has passed since the first sample; nil before.
    mutating func sample(time t: Double, value v: Value) -> Value? {
        if t > latest.time { previous = latest }
        latest = (max(t, latest.time), v)
        guard let p = previous, latest.time > p.time else { return nil }
        return latest.value.minus(p.value).scaled(by: 1 / (latest.time - p.time))
    }

    /// The value jumped to `v` without moving (`scale = 1`): the rate goes on unchanged.
    mutating func rebase(_ v: Value) {
        if let p = previous { previous = (p.time, v.minus(latest.value.minus(p.value))) }
        latest.value = v
    }
}

/// What `RateMeter` measures.
protocol RateValue {
    static var zero: Self { get }
    func minus(_ other: Self) -> Self
    func scaled(by s: Double) -> Self
}

extension Double: RateValue {
    func minus(_ other: Double) -> Double { self - other }
    func scaled(by s: Double) -> Double { self * s }
}

extension Point: RateValue {
    func minus(_ other: Point) -> Point { Point(x: x - other.x, y: y - other.y) }
    func scaled(by s: Double) -> Point { Point(x: x * s, y: y * s) }
}
