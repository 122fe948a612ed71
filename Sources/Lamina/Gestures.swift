import LaminaCore
import LaminaProtocol

/// A recogniser of touch and pointer gestures on a layer (`Layer.addGestureRecognizer`), as
/// UIKit's are. The concrete recognisers are in TapGestures.swift (tap, long press, swipe),
/// PanGesture.swift and TransformGestures.swift (pinch, rotation).
///
/// - It sees the events that reach its layer (Input.swift: a touch goes to the layer laminad
///   hits, then up to the first layer with recognisers or a handler), and follows every touch
///   that went down there, by its id, and the pointer while its left button is held. Each
///   touch's location in the layer's own coordinates is kept (`location(ofTouch:)`): the
///   event's own location where the touch is on this layer, else its display point converted
///   into this layer (`Layer.convert(_:from:)`, the model tree).
/// - Time is the events' (laminad's clock when it routed them) and the connection's clock: a
///   wait (the long press's duration, a double tap's interval) ends at the first event whose
///   time passes it, or when the virtual clock moves past it (`advanceClock`), or on the real
///   clock by a timer. Tests on the virtual clock are therefore exact.
/// - `require(toFail:)`: a recogniser that would recognise waits while the other is still
///   following touches (or waiting for another tap); it recognises when the other fails, and
///   fails if the other recognises (a single tap that yields to a double tap).
@MainActor
public class GestureRecognizer {
    public enum State: Sendable, Equatable {
        case possible, began, changed, ended, cancelled, failed
        /// A discrete gesture (tap, swipe) recognised: the same state as `.ended`, as in UIKit.
        public static let recognized = State.ended
    }
    /// Where the gesture is.
    public internal(set) var state: State = .possible
    /// The latest point (the touches' centroid), in the layer's coordinates.
    public internal(set) var location: Point = .zero
    /// The latest point (the touches' centroid) in display points.
    public internal(set) var screenLocation: Point = .zero
    /// How far a touch may move (in display points) and still be a tap or a long press; how far
    /// touches move before a pan, pinch or rotation begins.
    public var allowableMovement: Double = 10
    /// The layer it was added to.
    public internal(set) weak var layer: Layer?

    /// One touch followed (the pointer while its left button is down counts as one).
    struct Touch {
        var id: Int32
        var isTouch: Bool
        var start: Point
        var screen: Point
        var local: Point
        var startTime: Double
    }
    /// The touches down on this recogniser's layer, in the order they went down.
    var touches: [Touch] = []
    /// The first touch still down (the one tap, long press and swipe follow).
    var tracking: Touch? { touches.first }
    /// The number of touches followed now.
    public var numberOfTouches: Int { touches.count }
    /// Touch `index`'s latest point (in the order they went down), in the layer's coordinates.
    public func location(ofTouch index: Int) -> Point { touches[index].local }
    /// Touch `index`'s latest point in display points.
    public func screenLocation(ofTouch index: Int) -> Point { touches[index].screen }

    /// The latest event time seen.
    var lastTime: Double = 0
    /// The clock that times waits: the connection given at init (long press) or the layer's.
    weak var clockConnection: Connection?
    /// When a wait ends (event-clock seconds); `deadlinePassed` runs then.
    var deadline: Double? {
        didSet { if deadline != nil { watchClock() } }
    }
    private var watchingClock = false
    private var timer: Task<Void, Never>?

    private var requirements: [WeakRecognizer] = []
    private var dependents: [WeakRecognizer] = []
    /// A recognition held back while a requirement is in progress: the state to enter.
    private var held: State?

    init() {}

    /// `requireGestureRecognizerToFail:`: this recogniser recognises only once `other` has
    /// failed (a single tap waits for a double tap's interval to pass), and fails if `other`
    /// recognises.
    public func require(toFail other: GestureRecognizer) {
        guard other !== self, !requirements.contains(where: { $0.recognizer === other }) else { return }
        requirements.append(WeakRecognizer(recognizer: other))
        other.dependents.append(WeakRecognizer(recognizer: self))
    }

    /// Whether it is following touches or waiting for more (another tap): a dependent waits.
    var isInProgress: Bool { !touches.isEmpty || deadline != nil || held != nil }

    // MARK: Events

    func handle(_ e: LayerInputEvent) {
        lastTime = max(lastTime, e.time)
        if let d = deadline, e.time >= d { timePassed(e.time) }
        switch e.kind {
        case .touchDown, .buttonPress:
            let isTouch = e.kind == .touchDown
            if !isTouch && e.id != 0x110 { return }   // BTN_LEFT only
            guard !touches.contains(where: { $0.isTouch == isTouch && (!isTouch || $0.id == e.id) }) else { return }
            let local = localPoint(e)
            touches.append(Touch(id: e.id, isTouch: isTouch, start: e.screenLocation, screen: e.screenLocation, local: local, startTime: e.time))
            updateCentroid()
            touchBegan(e)
        case .touchMove, .pointerMove:
            guard let i = index(of: e) else { return }
            touches[i].screen = e.screenLocation
            touches[i].local = localPoint(e)
            updateCentroid()
            touchMoved(e)
        case .touchUp, .buttonRelease:
            guard let i = index(of: e), e.kind == .touchUp || e.id == 0x110 else { return }
            touches[i].screen = e.screenLocation
            touches[i].local = localPoint(e)
            updateCentroid()
            let touch = touches.remove(at: i)
            touchEnded(e, touch)
        case .touchCancel, .pointerCancel:
            guard let i = index(of: e) else { return }
            touches.remove(at: i)
            touchCancelled()
        default:
            return
        }
        settle()
    }

    private func index(of e: LayerInputEvent) -> Int? {
        let isTouch = e.kind == .touchDown || e.kind == .touchMove || e.kind == .touchUp || e.kind == .touchCancel
        return touches.firstIndex { $0.isTouch == isTouch && (!isTouch || $0.id == e.id) }
    }

    /// The event's point in this recogniser's layer.
    private func localPoint(_ e: LayerInputEvent) -> Point {
        guard let layer, e.layer !== layer else { return e.location }
        let p = layer.convert(e.screenLocation, from: nil)
        return p.x.isNaN ? e.location : p
    }

    private func updateCentroid() {
        guard !touches.isEmpty else { return }
        let n = Double(touches.count)
        location = Point(x: touches.map(\.local.x).reduce(0, +) / n, y: touches.map(\.local.y).reduce(0, +) / n)
        screenLocation = Point(x: touches.map(\.screen.x).reduce(0, +) / n, y: touches.map(\.screen.y).reduce(0, +) / n)
    }

    /// The centroid of the touches in display points.
    var centroid: Point { screenLocation }

    // Subclasses' hooks; `touches` is already updated (the ended touch removed, passed).
    func touchBegan(_ e: LayerInputEvent) {}
    func touchMoved(_ e: LayerInputEvent) {}
    func touchEnded(_ e: LayerInputEvent, _ touch: Touch) {}
    func touchCancelled() {}
    /// The deadline passed (`now` on the event clock); the subclass clears or moves it.
    func deadlinePassed(now: Double) { deadline = nil }
    /// The action, with `self` as the concrete recogniser.
    func perform() {}

    // MARK: Transitions

    /// Enters `next` and calls the action. A recognition (`.began`, or `.ended` straight from
    /// `.possible`) waits while a requirement is in progress, and fails if one recognised.
    func transition(to next: State) {
        let recognises = state == .possible && (next == .began || next == .ended)
        if recognises, requirements.contains(where: { $0.recognizer?.isInProgress == true }) {
            held = next
            return
        }
        state = next
        perform()
        if recognises { for d in dependents { d.recognizer?.requirementRecognized() } }
        if next == .ended || next == .cancelled { state = .possible }
    }

    /// Fails the gesture until its touches are lifted; a held recognition is dropped, and
    /// the subclass forgets the sequence it was following (`reset`).
    func fail() {
        held = nil
        deadline = nil
        reset()
        if state == .possible, !touches.isEmpty { state = .failed }
    }

    /// Forgets a sequence in progress (a tap count); subclasses override.
    func reset() {}

    /// Back to `.possible` once every touch is up (a failed gesture starts afresh).
    private func resetIfIdle() {
        if touches.isEmpty, state == .failed { state = .possible }
    }

    /// Whether a recognition is held back by a requirement.
    var isHeld: Bool { held != nil }

    /// A requirement recognised: this one fails (a single tap when the double tap is seen).
    private func requirementRecognized() {
        guard state == .possible else { return }
        fail()
        settle()
    }

    /// A requirement changed: deliver a held recognition once none is in progress.
    private func requirementSettled() {
        guard let next = held, !requirements.contains(where: { $0.recognizer?.isInProgress == true }) else { return }
        held = nil
        transition(to: next)
        settle()
    }

    /// After each event or wait: dependents see whether this one is still in progress.
    func settle() {
        resetIfIdle()
        for d in dependents { d.recognizer?.requirementSettled() }
    }

    // MARK: The clock

    /// The event clock passed `now`: a deadline at or before it ends.
    func timePassed(_ now: Double) {
        guard let d = deadline, now >= d else { return }
        deadlinePassed(now: now)
        settle()
    }

    private func watchClock() {
        guard let connection = clockConnection ?? layer?.connection else { return }
        if connection.clock == .real {
            timer?.cancel()
            guard let d = deadline else { return }
            let wait = max(0, d - connection.currentMediaTime)
            timer = Task { @MainActor [weak self, weak connection] in
                try? await Task.sleep(for: .seconds(wait))
                guard !Task.isCancelled, let self, let connection else { return }
                self.timePassed(connection.currentMediaTime)
            }
            return
        }
        guard !watchingClock else { return }
        watchingClock = true
        connection.clockObservers.append { [weak self, weak connection] in
            guard let self, let connection else { return false }
            self.timePassed(connection.currentMediaTime)
            self.watchingClock = self.deadline != nil
            return self.watchingClock
        }
    }
}

/// A recogniser held weakly (requirements and dependents do not keep each other alive).
struct WeakRecognizer {
    weak var recognizer: GestureRecognizer?
}
