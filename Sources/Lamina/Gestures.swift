import LaminaCore
import LaminaProtocol

/// A small recogniser of touch and pointer gestures on a layer (`Layer.addGestureRecognizer`),
/// as UIKit's recognisers are, in their simplest form: one finger (or the left button).
@MainActor
public class GestureRecognizer {
    public enum State: Sendable, Equatable {
        case possible, began, changed, ended, cancelled, failed
    }
    /// Where the gesture is.
    public internal(set) var state: State = .possible
    /// The latest point, in the layer's coordinates.
    public internal(set) var location: Point = .zero
    /// The latest point in display points.
    public internal(set) var screenLocation: Point = .zero
    /// How far a touch may move (in display points) and still be a tap or a long press.
    public var allowableMovement: Double = 10

    /// The touch (or button) being followed, and where it went down.
    var tracking: (id: Int32, isTouch: Bool, start: Point, time: Double)?

    init() {}

    func handle(_ e: LayerInputEvent) {
        switch e.kind {
        case .touchDown, .buttonPress:
            let isTouch = e.kind == .touchDown
            if !isTouch && e.id != 0x110 { return }   // BTN_LEFT only
            guard tracking == nil else { return }
            tracking = (e.id, isTouch, e.screenLocation, e.time)
            update(e)
            began(e)
        case .touchMove, .pointerMove:
            guard let t = tracking, (e.kind == .touchMove) == t.isTouch, !t.isTouch || t.id == e.id else { return }
            update(e)
            let dx = e.screenLocation.x - t.start.x, dy = e.screenLocation.y - t.start.y
            moved(e, distance: (dx * dx + dy * dy).squareRoot())
        case .touchUp, .buttonRelease:
            guard let t = tracking, (e.kind == .touchUp) == t.isTouch, t.id == e.id else { return }
            update(e)
            ended(e)
            tracking = nil
        case .touchCancel, .pointerCancel:
            guard let t = tracking, t.id == e.id else { return }
            tracking = nil
            cancelled()
        default:
            break
        }
    }

    private func update(_ e: LayerInputEvent) {
        location = e.location
        screenLocation = e.screenLocation
    }

    func began(_ e: LayerInputEvent) {}
    func moved(_ e: LayerInputEvent, distance: Double) {}
    func ended(_ e: LayerInputEvent) {}
    func cancelled() {}
}

/// A tap: down and up within `allowableMovement` and `maximumDuration`.
@MainActor
public final class TapRecognizer: GestureRecognizer {
    /// The longest a tap may last, in seconds of laminad's clock.
    public var maximumDuration: Double = 0.5
    let action: (TapRecognizer) -> Void

    public init(action: @escaping (TapRecognizer) -> Void) {
        self.action = action
    }

    override func began(_ e: LayerInputEvent) { state = .possible }
    override func moved(_ e: LayerInputEvent, distance: Double) {
        if distance > allowableMovement { state = .failed }
    }
    override func ended(_ e: LayerInputEvent) {
        guard state == .possible, let t = tracking, e.time - t.time <= maximumDuration else {
            state = .possible
            return
        }
        state = .ended
        action(self)
        state = .possible
    }
    override func cancelled() { state = .possible }
}

/// A long press: a touch held within `allowableMovement` for `minimumDuration`. The action is
/// called with `.began` once it is long enough (on laminad's clock: with the virtual clock,
/// when `advanceClock` passes the time), `.changed` as it moves and `.ended` at the release.
@MainActor
public final class LongPressRecognizer: GestureRecognizer {
    public var minimumDuration: Double = 0.5
    let action: (LongPressRecognizer) -> Void
    private weak var connection: Connection?
    private var timer: Task<Void, Never>?

    /// `connection`: whose clock times the press.
    public init(connection: Connection, action: @escaping (LongPressRecognizer) -> Void) {
        self.connection = connection
        self.action = action
        super.init()
        connection.clockObservers.append { [weak self] in
            guard let self else { return false }
            self.check()
            return true
        }
    }

    override func began(_ e: LayerInputEvent) {
        state = .possible
        timer?.cancel()
        guard let connection, connection.clock == .real else { return }
        let wait = max(0, minimumDuration - (connection.currentMediaTime - e.time))
        timer = Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(wait))
            guard !Task.isCancelled else { return }
            self?.check()
        }
    }

    /// Recognises the press once it has been held long enough.
    private func check() {
        guard state == .possible, let t = tracking, let connection,
              connection.currentMediaTime - t.time >= minimumDuration else { return }
        state = .began
        action(self)
    }

    override func moved(_ e: LayerInputEvent, distance: Double) {
        check()
        switch state {
        case .possible where distance > allowableMovement: state = .failed
        case .began, .changed:
            state = .changed
            action(self)
        default: break
        }
    }

    override func ended(_ e: LayerInputEvent) {
        timer?.cancel()
        check()
        if state == .began || state == .changed {
            state = .ended
            action(self)
        }
        state = .possible
    }

    override func cancelled() {
        timer?.cancel()
        if state == .began || state == .changed {
            state = .cancelled
            action(self)
        }
        state = .possible
    }
}

/// A pan: a touch (or left-button drag) that moved more than `allowableMovement`; the action
/// is called with `.began`, `.changed` for each move, then `.ended` (or `.cancelled`).
@MainActor
public final class PanRecognizer: GestureRecognizer {
    /// How far the pan has moved since the touch went down, in display points.
    public private(set) var translation: Point = .zero
    let action: (PanRecognizer) -> Void

    public init(action: @escaping (PanRecognizer) -> Void) {
        self.action = action
        super.init()
    }

    override func began(_ e: LayerInputEvent) {
        state = .possible
        translation = .zero
    }

    override func moved(_ e: LayerInputEvent, distance: Double) {
        guard let t = tracking else { return }
        translation = Point(x: e.screenLocation.x - t.start.x, y: e.screenLocation.y - t.start.y)
        switch state {
        case .possible where distance > allowableMovement:
            state = .began
            action(self)
        case .began, .changed:
            state = .changed
            action(self)
        default: break
        }
    }

    override func ended(_ e: LayerInputEvent) {
        if state == .began || state == .changed {
            state = .ended
            action(self)
        }
        state = .possible
    }

    override func cancelled() {
        if state == .began || state == .changed {
            state = .cancelled
            action(self)
        }
        state = .possible
    }
}
