import LaminaCore
import LaminaProtocol

/// A tap: one touch (or left click) down and up within `allowableMovement` and
/// `maximumDuration`; `numberOfTapsRequired` of them, each beginning within `maximumInterval`
/// of the last one's release and within four times `allowableMovement` of the first. The
/// action is called with `.ended` (`.recognized`).
@MainActor
public final class TapRecognizer: GestureRecognizer {
    /// The longest a tap may last, in seconds of laminad's clock.
    public var maximumDuration: Double = 0.5
    /// How many taps make the gesture (2: a double tap).
    public var numberOfTapsRequired = 1
    /// The longest wait from one tap's release to the next tap's touch, in seconds.
    public var maximumInterval: Double = 0.3
    /// The taps seen so far in this sequence.
    public private(set) var tapCount = 0
    private var firstTap: Point?
    let action: (TapRecognizer) -> Void

    public init(action: @escaping (TapRecognizer) -> Void) {
        self.action = action
    }

    override func perform() { action(self) }
    override func reset() {
        tapCount = 0
        firstTap = nil
    }

    override func touchBegan(_ e: LayerInputEvent) {
        guard touches.count == 1 else { return fail() }     // one finger
        deadline = nil
        if let first = firstTap, first.distance(to: e.screenLocation) > allowableMovement * 4 { return fail() }
        if firstTap == nil { firstTap = e.screenLocation }
    }

    override func touchMoved(_ e: LayerInputEvent) {
        if let t = tracking, t.start.distance(to: t.screen) > allowableMovement { fail() }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) {
        guard state == .possible, touches.isEmpty, e.time - touch.startTime <= maximumDuration,
              touch.start.distance(to: touch.screen) <= allowableMovement else { return fail() }
        tapCount += 1
        if tapCount >= max(1, numberOfTapsRequired) {
            reset()
            transition(to: .ended)
        } else {
            deadline = e.time + maximumInterval
        }
    }

    override func touchCancelled() { fail() }
    override func deadlinePassed(now: Double) { fail() }
}

/// A long press: a touch held within `allowableMovement` for `minimumDuration`. The action is
/// called with `.began` once it is long enough (on laminad's clock: with the virtual clock,
/// when `advanceClock` passes the time), `.changed` as it moves and `.ended` at the release.
@MainActor
public final class LongPressRecognizer: GestureRecognizer {
    public var minimumDuration: Double = 0.5
    let action: (LongPressRecognizer) -> Void

    /// `connection`: whose clock times the press (without one, the layer's connection's).
    public init(connection: Connection? = nil, action: @escaping (LongPressRecognizer) -> Void) {
        self.action = action
        super.init()
        clockConnection = connection
    }

    override func perform() { action(self) }

    override func touchBegan(_ e: LayerInputEvent) {
        guard touches.count == 1 else { return }      // the first touch is the press
        deadline = e.time + minimumDuration
    }

    override func deadlinePassed(now: Double) {
        deadline = nil
        if state == .possible, !touches.isEmpty { transition(to: .began) }
    }

    override func touchMoved(_ e: LayerInputEvent) {
        guard let t = tracking else { return }
        switch state {
        case .possible where t.start.distance(to: t.screen) > allowableMovement: fail()
        case .began, .changed: transition(to: .changed)
        default: break
        }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) {
        guard touches.isEmpty else { return }
        if state == .began || state == .changed { transition(to: .ended) } else { fail() }
    }

    override func touchCancelled() {
        guard touches.isEmpty else { return }
        if state == .began || state == .changed { transition(to: .cancelled) } else { fail() }
    }
}

/// A swipe: one touch that travels at least `minimumDistance` display points at an average
/// speed of at least `minimumSpeed` points per second, mostly along one of `directions`,
/// recognised (`.ended`) when it is lifted. `direction` is the way it went on screen (display
/// points: y grows downwards, so `.up` is towards the top of the display); `velocity` its
/// average velocity.
@MainActor
public final class SwipeRecognizer: GestureRecognizer {
    public enum Direction: String, Sendable, CaseIterable {
        case right, left, up, down
    }
    /// The directions recognised (by default all four).
    public var directions: Set<Direction> = Set(Direction.allCases)
    public var minimumDistance: Double = 50
    public var minimumSpeed: Double = 200
    /// The recognised swipe's direction.
    public private(set) var direction: Direction = .right
    /// The recognised swipe's average velocity, in display points per second.
    public private(set) var velocity: Point = .zero
    let action: (SwipeRecognizer) -> Void

    public init(action: @escaping (SwipeRecognizer) -> Void) {
        self.action = action
    }

    override func perform() { action(self) }

    override func touchBegan(_ e: LayerInputEvent) {
        if touches.count > 1 { fail() }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) {
        guard state == .possible, touches.isEmpty else { return fail() }
        guard let swipe = Swipe(from: touch.start, to: touch.screen, duration: e.time - touch.startTime),
              swipe.distance >= minimumDistance, swipe.speed >= minimumSpeed, directions.contains(swipe.direction) else {
            return fail()
        }
        direction = swipe.direction
        velocity = swipe.velocity
        transition(to: .ended)
    }

    override func touchCancelled() { fail() }
}

/// A stroke's direction, distance and speed (the swipe's arithmetic, tested on its own).
struct Swipe {
    var direction: SwipeRecognizer.Direction
    var distance: Double
    /// Points per second (infinite for a stroke in no time).
    var speed: Double
    var velocity: Point

    init?(from a: Point, to b: Point, duration: Double) {
        let dx = b.x - a.x, dy = b.y - a.y
        distance = (dx * dx + dy * dy).squareRoot()
        guard distance > 0, duration >= 0 else { return nil }
        direction = abs(dx) >= abs(dy) ? (dx > 0 ? .right : .left) : (dy > 0 ? .down : .up)
        speed = duration > 0 ? distance / duration : .infinity
        velocity = duration > 0 ? Point(x: dx / duration, y: dy / duration) : .zero
    }
}

extension Point {
    /// The straight-line distance to `other`.
    func distance(to other: Point) -> Double {
        let dx = other.x - x, dy = other.y - y
        return (dx * dx + dy * dy).squareRoot()
    }
}
