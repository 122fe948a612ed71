import LaminaCore
import LaminaProtocol

/// A pinch: two touches moving apart or together. `scale` is the distance between them over
/// the distance when the second went down (settable: `scale = 1` makes later changes
/// relative to now, as in UIKit); `velocity` its change per second. Begins once the distance
/// changed by more than `allowableMovement`; ends when fewer than two touches remain. With a
/// third touch the first two still down count.
@MainActor
public final class PinchRecognizer: GestureRecognizer {
    private var startSpan: Double = 0
    private var span: Double = 0
    private var rate = RateMeter<Double>()
    /// The distance between the touches over the distance at the start.
    public var scale: Double {
        get { startSpan > 0 ? span / startSpan : 1 }
        set {
            guard newValue > 0, newValue.isFinite, span > 0 else { return }
            startSpan = span / newValue
            rate.rebase(newValue)
        }
    }
    /// How fast `scale` changes, per second.
    public private(set) var velocity: Double = 0
    let action: (PinchRecognizer) -> Void

    public init(action: @escaping (PinchRecognizer) -> Void) {
        self.action = action
        super.init()
    }

    override func perform() { action(self) }

    private var currentSpan: Double? {
        touches.count >= 2 ? touches[0].screen.distance(to: touches[1].screen) : nil
    }

    override func touchBegan(_ e: LayerInputEvent) {
        guard let s = currentSpan else { return }
        if touches.count == 2, state == .possible {
            (startSpan, span, velocity) = (s, s, 0)
            rate = RateMeter(time: e.time, value: 1)
        } else {
            rebase(s)
        }
    }

    override func touchMoved(_ e: LayerInputEvent) {
        guard let s = currentSpan, startSpan > 0 else { return }
        span = s
        if let v = rate.sample(time: e.time, value: scale) { velocity = v }
        switch state {
        case .possible where abs(span - startSpan) > allowableMovement: transition(to: .began)
        case .began, .changed: transition(to: .changed)
        default: break
        }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) { touchesLeft(cancelled: false) }
    override func touchCancelled() { touchesLeft(cancelled: true) }

    private func touchesLeft(cancelled: Bool) {
        if let s = currentSpan { return rebase(s) }
        if state == .began || state == .changed { transition(to: cancelled ? .cancelled : .ended) }
        else if touches.isEmpty || isHeld { fail() }
        startSpan = 0
    }

    /// The pair changed (a third touch took a lifted one's place): the scale goes on from here.
    private func rebase(_ s: Double) {
        guard startSpan > 0, s > 0 else { return }
        let current = scale
        span = s
        startSpan = s / current
    }
}

/// A rotation: two touches turning about each other. `rotation` is the angle the line between
/// them turned since the second went down, in radians (clockwise on the display positive, as
/// y grows downwards; not limited to ±π; settable); `velocity` in radians per second. Begins
/// once the touches moved `allowableMovement` along their circle; ends when fewer than two
/// touches remain.
@MainActor
public final class RotationRecognizer: GestureRecognizer {
    /// The angle turned, in radians.
    public var rotation: Double {
        get { angleTurned }
        set {
            angleTurned = newValue
            rate.rebase(newValue)
        }
    }
    private var angleTurned: Double = 0
    /// How fast `rotation` changes, in radians per second.
    public private(set) var velocity: Double = 0
    private var lastAngle: Double?
    private var turned: Double = 0
    private var rate = RateMeter<Double>()
    let action: (RotationRecognizer) -> Void

    public init(action: @escaping (RotationRecognizer) -> Void) {
        self.action = action
        super.init()
    }

    override func perform() { action(self) }

    private var angle: Double? {
        guard touches.count >= 2 else { return nil }
        let a = touches[0].screen, b = touches[1].screen
        return _atan2(b.y - a.y, b.x - a.x)
    }

    override func touchBegan(_ e: LayerInputEvent) {
        if touches.count == 2, state == .possible {
            (angleTurned, velocity, turned) = (0, 0, 0)
            rate = RateMeter(time: e.time, value: 0)
        }
        lastAngle = angle
    }

    override func touchMoved(_ e: LayerInputEvent) {
        guard let a = angle, let last = lastAngle, touches.count >= 2 else { return }
        let delta = Self.turn(from: last, to: a)
        lastAngle = a
        angleTurned += delta
        turned += delta
        if let v = rate.sample(time: e.time, value: angleTurned) { velocity = v }
        let radius = touches[0].screen.distance(to: touches[1].screen) / 2
        switch state {
        case .possible where abs(turned) * radius > allowableMovement: transition(to: .began)
        case .began, .changed: transition(to: .changed)
        default: break
        }
    }

    override func touchEnded(_ e: LayerInputEvent, _ touch: Touch) { touchesLeft(cancelled: false) }
    override func touchCancelled() { touchesLeft(cancelled: true) }

    private func touchesLeft(cancelled: Bool) {
        lastAngle = angle
        guard lastAngle == nil else { return }
        if state == .began || state == .changed { transition(to: cancelled ? .cancelled : .ended) }
        else if touches.isEmpty || isHeld { fail() }
    }

    /// The signed turn from angle `a` to angle `b`, in (-π, π].
    static func turn(from a: Double, to b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 2 * .pi)
        if d > .pi { d -= 2 * .pi } else if d <= -.pi { d += 2 * .pi }
        return d
    }
}
