"""Gesture recognisers, as the Swift client's (and UIKit's): `TapRecognizer`,
`LongPressRecognizer`, `PanRecognizer`, `PinchRecognizer`, `RotationRecognizer` and
`SwipeRecognizer`, added to a layer with `Layer.add_gesture_recognizer`.

::

    def pinched(r):
        print(r.state, r.scale, r.velocity)      # "began", "changed", …, "ended"
    photo.add_gesture_recognizer(lamina.PinchRecognizer(pinched))
    conn.poll_events()                           # the actions run from here

- A recogniser sees the input events that reach its layer (a touch goes to the layer laminad
  hits, then up the superlayers to the first layer with recognisers or an ``on_input``), and
  follows every touch that went down there by its id, and the pointer while its left button is
  held. Each touch's latest point in the layer's own coordinates is `location_of_touch`: the
  event's own location where the touch is on this layer, else its display point converted into
  the layer (`Layer.convert_point`). ``location`` is the touches' centroid.
- ``state`` is ``"possible"``, ``"began"``, ``"changed"``, ``"ended"`` (also a discrete
  gesture's recognition: `RECOGNIZED`), ``"cancelled"`` or ``"failed"``.
- Time is the events' (laminad's clock when it routed them) and the connection's clock: a wait
  (a long press's duration, a double tap's interval) ends at the first event past it, or when
  the connection sees its clock pass it (`Connection.advance_clock`, or any `poll_events` on
  the real clock).
- `GestureRecognizer.require_to_fail`: this recogniser waits while the other one is still
  following touches (or waiting for another tap), recognises when it fails, and fails if it
  recognises: a single tap that yields to a double tap.
- Recognisers on one layer recognise independently of each other.
"""

from __future__ import annotations

import math
import weakref
from typing import Any, Callable, List, Optional, Tuple

Point = Tuple[float, float]

POSSIBLE, BEGAN, CHANGED, ENDED, CANCELLED, FAILED = "possible", "began", "changed", "ended", "cancelled", "failed"
#: A discrete gesture (tap, swipe) recognised: the same state as ``"ended"``, as in UIKit.
RECOGNIZED = ENDED
BTN_LEFT = 0x110
_TOUCH_KINDS = ("touchDown", "touchMove", "touchUp", "touchCancel")


def _distance(a: Point, b: Point) -> float:
    return math.hypot(b[0] - a[0], b[1] - a[1])


class _Touch:
    __slots__ = ("id", "is_touch", "start", "screen", "local", "start_time")

    def __init__(self, id: int, is_touch: bool, screen: Point, local: Point, time: float) -> None:
        self.id, self.is_touch, self.start, self.screen, self.local, self.start_time = id, is_touch, screen, screen, local, time


class RateMeter:
    """A quantity's rate of change over the events' times: the change from the last sample at
    an earlier time to the latest over the time between; samples at the same time update the
    latest value (the Swift client's ``RateMeter``)."""

    def __init__(self, time: float = 0.0, value: Any = 0.0) -> None:
        self.previous: Optional[Tuple[float, Any]] = None
        self.latest: Tuple[float, Any] = (time, value)

    def sample(self, t: float, v: Any) -> Optional[Any]:
        if t > self.latest[0]:
            self.previous = self.latest
        self.latest = (max(t, self.latest[0]), v)
        p = self.previous
        if p is None or not self.latest[0] > p[0]:
            return None
        dt = self.latest[0] - p[0]
        if isinstance(v, tuple):
            return ((v[0] - p[1][0]) / dt, (v[1] - p[1][1]) / dt)
        return (v - p[1]) / dt

    def rebase(self, v: float) -> None:
        if self.previous is not None:
            self.previous = (self.previous[0], v - (self.latest[1] - self.previous[1]))
        self.latest = (self.latest[0], v)


class GestureRecognizer:
    """What every recogniser has; the action is called with the recogniser."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None) -> None:
        self.action = action
        self.state = POSSIBLE
        #: The touches' centroid in the layer's coordinates, and in display points.
        self.location: Point = (0.0, 0.0)
        self.screen_location: Point = (0.0, 0.0)
        #: How far a touch may move (display points) and still be a tap or a long press; how
        #: far touches move before a pan, pinch or rotation begins.
        self.allowable_movement = 10.0
        self._layer_ref: Optional[Callable[[], Any]] = None
        self._touches: List[_Touch] = []
        self._deadline: Optional[float] = None
        self._last_time = 0.0
        self._requirements: List[Any] = []
        self._dependents: List[Any] = []
        self._held: Optional[str] = None

    # MARK: What the action reads

    @property
    def layer(self) -> Any:
        """The layer it was added to (None before, or once the layer is gone)."""
        return None if self._layer_ref is None else self._layer_ref()

    @property
    def number_of_touches(self) -> int:
        return len(self._touches)

    def location_of_touch(self, index: int) -> Point:
        """Touch `index`'s latest point (in the order they went down), in the layer's coordinates."""
        return self._touches[index].local

    def screen_location_of_touch(self, index: int) -> Point:
        return self._touches[index].screen

    def require_to_fail(self, other: "GestureRecognizer") -> None:
        """``requireGestureRecognizerToFail:``: recognise only once `other` has failed, and fail
        if it recognises."""
        if other is self or any(r() is other for r in self._requirements):
            return
        self._requirements.append(weakref.ref(other))
        other._dependents.append(weakref.ref(self))

    @property
    def in_progress(self) -> bool:
        """Following touches, waiting for more (another tap) or holding a recognition."""
        return bool(self._touches) or self._deadline is not None or self._held is not None

    # MARK: Events (the connection calls `_handle` from poll_events)

    def _handle(self, e: Any) -> None:
        self._last_time = max(self._last_time, e.time)
        if self._deadline is not None and e.time >= self._deadline:
            self._time_passed(e.time)
        kind = e.kind
        if kind in ("touchDown", "buttonPress"):
            is_touch = kind == "touchDown"
            if not is_touch and e.id != BTN_LEFT:
                return
            if any(t.is_touch == is_touch and (not is_touch or t.id == e.id) for t in self._touches):
                return
            self._touches.append(_Touch(e.id, is_touch, e.screen, self._local(e), e.time))
            self._centroid()
            self._touch_began(e)
        elif kind in ("touchMove", "pointerMove"):
            i = self._index(e)
            if i is None:
                return
            self._touches[i].screen, self._touches[i].local = e.screen, self._local(e)
            self._centroid()
            self._touch_moved(e)
        elif kind in ("touchUp", "buttonRelease"):
            i = self._index(e)
            if i is None or (kind == "buttonRelease" and e.id != BTN_LEFT):
                return
            self._touches[i].screen, self._touches[i].local = e.screen, self._local(e)
            self._centroid()
            touch = self._touches.pop(i)
            self._touch_ended(e, touch)
        elif kind in ("touchCancel", "pointerCancel"):
            i = self._index(e)
            if i is None:
                return
            self._touches.pop(i)
            self._touch_cancelled()
        else:
            return
        self._settle()

    def _index(self, e: Any) -> Optional[int]:
        is_touch = e.kind in _TOUCH_KINDS
        for i, t in enumerate(self._touches):
            if t.is_touch == is_touch and (not is_touch or t.id == e.id):
                return i
        return None

    def _local(self, e: Any) -> Point:
        layer = self.layer
        if layer is None or e.layer is layer:
            return e.location
        p = layer.convert_point(e.screen, from_=None)
        return e.location if math.isnan(p[0]) else p

    def _centroid(self) -> None:
        n = len(self._touches)
        if n:
            self.location = (sum(t.local[0] for t in self._touches) / n, sum(t.local[1] for t in self._touches) / n)
            self.screen_location = (sum(t.screen[0] for t in self._touches) / n,
                                    sum(t.screen[1] for t in self._touches) / n)

    # Subclasses' hooks.
    def _touch_began(self, e: Any) -> None: ...
    def _touch_moved(self, e: Any) -> None: ...
    def _touch_ended(self, e: Any, touch: _Touch) -> None: ...
    def _touch_cancelled(self) -> None: ...
    def _reset(self) -> None: ...

    def _deadline_passed(self, now: float) -> None:
        self._deadline = None

    # MARK: Transitions

    def _transition(self, next_state: str) -> None:
        recognises = self.state == POSSIBLE and next_state in (BEGAN, ENDED)
        if recognises and any(r() is not None and r().in_progress for r in self._requirements):
            self._held = next_state
            return
        self.state = next_state
        if self.action is not None:
            self.action(self)
        if recognises:
            for d in list(self._dependents):
                if d() is not None:
                    d()._requirement_recognized()
        if next_state in (ENDED, CANCELLED):
            self.state = POSSIBLE

    def _fail(self) -> None:
        self._held = None
        self._set_deadline(None)
        self._reset()
        if self.state == POSSIBLE and self._touches:
            self.state = FAILED

    def _requirement_recognized(self) -> None:
        if self.state == POSSIBLE:
            self._fail()
            self._settle()

    def _requirement_settled(self) -> None:
        if self._held is None or any(r() is not None and r().in_progress for r in self._requirements):
            return
        held, self._held = self._held, None
        self._transition(held)
        self._settle()

    def _settle(self) -> None:
        if not self._touches and self.state == FAILED:
            self.state = POSSIBLE
        for d in list(self._dependents):
            if d() is not None:
                d()._requirement_settled()

    # MARK: The clock

    def _set_deadline(self, deadline: Optional[float]) -> None:
        self._deadline = deadline
        layer = self.layer
        conn = None if layer is None else layer.connection
        if deadline is not None and conn is not None:
            conn._waiting_recognizers.add(self)

    def _time_passed(self, now: float) -> None:
        if self._deadline is not None and now >= self._deadline:
            self._deadline_passed(now)
            self._settle()


class TapRecognizer(GestureRecognizer):
    """A tap: one touch (or left click) down and up within ``allowable_movement`` and
    ``maximum_duration``; ``number_of_taps_required`` of them, each beginning within
    ``maximum_interval`` of the last one's release and within four times
    ``allowable_movement`` of the first. The action sees ``"ended"`` (`RECOGNIZED`)."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None, number_of_taps_required: int = 1) -> None:
        super().__init__(action)
        self.maximum_duration = 0.5
        self.number_of_taps_required = number_of_taps_required
        self.maximum_interval = 0.3
        self.tap_count = 0
        self._first: Optional[Point] = None

    def _reset(self) -> None:
        self.tap_count = 0
        self._first = None

    def _touch_began(self, e: Any) -> None:
        if len(self._touches) != 1:
            return self._fail()
        self._set_deadline(None)
        if self._first is not None and _distance(self._first, e.screen) > self.allowable_movement * 4:
            return self._fail()
        if self._first is None:
            self._first = e.screen

    def _touch_moved(self, e: Any) -> None:
        t = self._touches[0] if self._touches else None
        if t is not None and _distance(t.start, t.screen) > self.allowable_movement:
            self._fail()

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        if (self.state != POSSIBLE or self._touches or e.time - touch.start_time > self.maximum_duration
                or _distance(touch.start, touch.screen) > self.allowable_movement):
            return self._fail()
        self.tap_count += 1
        if self.tap_count >= max(1, self.number_of_taps_required):
            self._reset()
            self._transition(ENDED)
        else:
            self._set_deadline(e.time + self.maximum_interval)

    def _touch_cancelled(self) -> None:
        self._fail()

    def _deadline_passed(self, now: float) -> None:
        self._fail()


class LongPressRecognizer(GestureRecognizer):
    """A long press: a touch held within ``allowable_movement`` for ``minimum_duration``
    seconds; the action sees ``"began"`` once it is long enough (when an event or the clock
    passes the time), ``"changed"`` as it moves and ``"ended"`` at the release."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None, minimum_duration: float = 0.5) -> None:
        super().__init__(action)
        self.minimum_duration = minimum_duration

    def _touch_began(self, e: Any) -> None:
        if len(self._touches) == 1:
            self._set_deadline(e.time + self.minimum_duration)

    def _deadline_passed(self, now: float) -> None:
        self._deadline = None
        if self.state == POSSIBLE and self._touches:
            self._transition(BEGAN)

    def _touch_moved(self, e: Any) -> None:
        if not self._touches:
            return
        t = self._touches[0]
        if self.state == POSSIBLE and _distance(t.start, t.screen) > self.allowable_movement:
            self._fail()
        elif self.state in (BEGAN, CHANGED):
            self._transition(CHANGED)

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        if self._touches:
            return
        if self.state in (BEGAN, CHANGED):
            self._transition(ENDED)
        else:
            self._fail()

    def _touch_cancelled(self) -> None:
        if self._touches:
            return
        if self.state in (BEGAN, CHANGED):
            self._transition(CANCELLED)
        else:
            self._fail()


class SwipeRecognizer(GestureRecognizer):
    """A swipe: one touch that travels at least ``minimum_distance`` display points at an
    average speed of at least ``minimum_speed`` points per second, mostly along one of
    ``directions`` (``"right"``, ``"left"``, ``"up"``, ``"down"``; on the display, y down),
    recognised when it is lifted. ``direction`` and ``velocity`` (points per second) describe
    it."""

    DIRECTIONS = ("right", "left", "up", "down")

    def __init__(self, action: Optional[Callable[[Any], Any]] = None, directions: Any = DIRECTIONS,
                 minimum_distance: float = 50.0, minimum_speed: float = 200.0) -> None:
        super().__init__(action)
        self.directions = set(directions)
        unknown = self.directions - set(self.DIRECTIONS)
        if unknown:
            raise ValueError(f"unknown swipe direction(s) {sorted(unknown)}; use {', '.join(self.DIRECTIONS)}")
        self.minimum_distance = minimum_distance
        self.minimum_speed = minimum_speed
        self.direction = "right"
        self.velocity: Point = (0.0, 0.0)

    @staticmethod
    def stroke(a: Point, b: Point, duration: float) -> Optional[Tuple[str, float, float, Point]]:
        """A stroke's direction, distance, speed and velocity; None for no movement."""
        dx, dy = b[0] - a[0], b[1] - a[1]
        distance = math.hypot(dx, dy)
        if distance <= 0 or duration < 0:
            return None
        direction = ("right" if dx > 0 else "left") if abs(dx) >= abs(dy) else ("down" if dy > 0 else "up")
        speed = distance / duration if duration > 0 else math.inf
        velocity = (dx / duration, dy / duration) if duration > 0 else (0.0, 0.0)
        return direction, distance, speed, velocity

    def _touch_began(self, e: Any) -> None:
        if len(self._touches) > 1:
            self._fail()

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        if self.state != POSSIBLE or self._touches:
            return self._fail()
        s = self.stroke(touch.start, touch.screen, e.time - touch.start_time)
        if s is None or s[1] < self.minimum_distance or s[2] < self.minimum_speed or s[0] not in self.directions:
            return self._fail()
        self.direction, self.velocity = s[0], s[3]
        self._transition(ENDED)

    def _touch_cancelled(self) -> None:
        self._fail()


class PanRecognizer(GestureRecognizer):
    """A pan: ``minimum_number_of_touches`` to ``maximum_number_of_touches`` touches (or a
    left-button drag) whose centroid moved more than ``allowable_movement``: ``"began"``,
    ``"changed"`` for each move, then ``"ended"``. ``translation`` (display points since the
    pan's touches went down) and ``velocity`` (points per second)."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None, minimum_number_of_touches: int = 1,
                 maximum_number_of_touches: int = 2 ** 31 - 1) -> None:
        super().__init__(action)
        self.minimum_number_of_touches = minimum_number_of_touches
        self.maximum_number_of_touches = maximum_number_of_touches
        self.translation: Point = (0.0, 0.0)
        self.velocity: Point = (0.0, 0.0)
        self._origin: Point = (0.0, 0.0)
        self._rate = RateMeter(0.0, (0.0, 0.0))

    def _fits(self) -> bool:
        return self.minimum_number_of_touches <= len(self._touches) <= self.maximum_number_of_touches

    def _touch_began(self, e: Any) -> None:
        self._count_changed(e.time)

    def _touch_moved(self, e: Any) -> None:
        c = self.screen_location
        self.translation = (c[0] - self._origin[0], c[1] - self._origin[1])
        v = self._rate.sample(e.time, self.translation)
        if v is not None:
            self.velocity = v
        if self.state == POSSIBLE and self._fits() and math.hypot(*self.translation) > self.allowable_movement:
            self._transition(BEGAN)
        elif self.state in (BEGAN, CHANGED):
            self._transition(CHANGED)

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        if not self._touches:
            if self.state in (BEGAN, CHANGED):
                self._transition(ENDED)
            else:
                self._fail()
        else:
            self._count_changed(e.time)

    def _touch_cancelled(self) -> None:
        if self.state in (BEGAN, CHANGED):
            self._transition(CANCELLED)
        elif not self._touches:
            self._fail()
        else:
            self._count_changed(self._last_time)

    def _count_changed(self, time: float) -> None:
        if self.state == POSSIBLE:
            self.translation = (0.0, 0.0)
            self.velocity = (0.0, 0.0)
            self._rate = RateMeter(time, (0.0, 0.0))
        c = self.screen_location
        self._origin = (c[0] - self.translation[0], c[1] - self.translation[1])
        if self.state == POSSIBLE and len(self._touches) > self.maximum_number_of_touches:
            self._fail()
        elif self.state in (BEGAN, CHANGED) and not self._fits():
            self._transition(ENDED)


class PinchRecognizer(GestureRecognizer):
    """A pinch: two touches moving apart or together. ``scale`` is their distance over the
    distance when the second went down (assignable: ``r.scale = 1`` makes later changes
    relative to now); ``velocity`` its change per second. Begins once the distance changed by
    more than ``allowable_movement``; ends when fewer than two touches remain."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None) -> None:
        super().__init__(action)
        self._start_span = 0.0
        self._span = 0.0
        self.velocity = 0.0
        self._rate = RateMeter(0.0, 1.0)

    @property
    def scale(self) -> float:
        return self._span / self._start_span if self._start_span > 0 else 1.0

    @scale.setter
    def scale(self, value: float) -> None:
        if value > 0 and math.isfinite(value) and self._span > 0:
            self._start_span = self._span / value
            self._rate.rebase(value)

    def _current_span(self) -> Optional[float]:
        t = self._touches
        return _distance(t[0].screen, t[1].screen) if len(t) >= 2 else None

    def _touch_began(self, e: Any) -> None:
        s = self._current_span()
        if s is None:
            return
        if len(self._touches) == 2 and self.state == POSSIBLE:
            self._start_span, self._span, self.velocity = s, s, 0.0
            self._rate = RateMeter(e.time, 1.0)
        else:
            self._rebase(s)

    def _touch_moved(self, e: Any) -> None:
        s = self._current_span()
        if s is None or self._start_span <= 0:
            return
        self._span = s
        v = self._rate.sample(e.time, self.scale)
        if v is not None:
            self.velocity = v
        if self.state == POSSIBLE and abs(self._span - self._start_span) > self.allowable_movement:
            self._transition(BEGAN)
        elif self.state in (BEGAN, CHANGED):
            self._transition(CHANGED)

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        self._touches_left(False)

    def _touch_cancelled(self) -> None:
        self._touches_left(True)

    def _touches_left(self, cancelled: bool) -> None:
        s = self._current_span()
        if s is not None:
            return self._rebase(s)
        if self.state in (BEGAN, CHANGED):
            self._transition(CANCELLED if cancelled else ENDED)
        elif not self._touches or self._held is not None:
            self._fail()
        self._start_span = 0.0

    def _rebase(self, s: float) -> None:
        if self._start_span > 0 and s > 0:
            current = self.scale
            self._span = s
            self._start_span = s / current


class RotationRecognizer(GestureRecognizer):
    """A rotation: two touches turning about each other. ``rotation`` is the angle the line
    between them turned since the second went down, in radians (clockwise on the display
    positive; not limited to ±π; assignable); ``velocity`` in radians per second. Begins once
    the touches moved ``allowable_movement`` along their circle."""

    def __init__(self, action: Optional[Callable[[Any], Any]] = None) -> None:
        super().__init__(action)
        self._rotation = 0.0
        self.velocity = 0.0
        self._last_angle: Optional[float] = None
        self._turned = 0.0
        self._rate = RateMeter(0.0, 0.0)

    @property
    def rotation(self) -> float:
        return self._rotation

    @rotation.setter
    def rotation(self, value: float) -> None:
        self._rotation = float(value)
        self._rate.rebase(self._rotation)

    @staticmethod
    def turn(a: float, b: float) -> float:
        """The signed turn from angle `a` to `b`, in (-π, π]."""
        d = math.fmod(b - a, 2 * math.pi)
        if d > math.pi:
            d -= 2 * math.pi
        elif d <= -math.pi:
            d += 2 * math.pi
        return d

    def _angle(self) -> Optional[float]:
        t = self._touches
        if len(t) < 2:
            return None
        return math.atan2(t[1].screen[1] - t[0].screen[1], t[1].screen[0] - t[0].screen[0])

    def _touch_began(self, e: Any) -> None:
        if len(self._touches) == 2 and self.state == POSSIBLE:
            self._rotation, self.velocity, self._turned = 0.0, 0.0, 0.0
            self._rate = RateMeter(e.time, 0.0)
        self._last_angle = self._angle()

    def _touch_moved(self, e: Any) -> None:
        a = self._angle()
        if a is None or self._last_angle is None:
            return
        delta = self.turn(self._last_angle, a)
        self._last_angle = a
        self._rotation += delta
        self._turned += delta
        v = self._rate.sample(e.time, self._rotation)
        if v is not None:
            self.velocity = v
        radius = _distance(self._touches[0].screen, self._touches[1].screen) / 2
        if self.state == POSSIBLE and abs(self._turned) * radius > self.allowable_movement:
            self._transition(BEGAN)
        elif self.state in (BEGAN, CHANGED):
            self._transition(CHANGED)

    def _touch_ended(self, e: Any, touch: _Touch) -> None:
        self._touches_left(False)

    def _touch_cancelled(self) -> None:
        self._touches_left(True)

    def _touches_left(self, cancelled: bool) -> None:
        self._last_angle = self._angle()
        if self._last_angle is not None:
            return
        if self.state in (BEGAN, CHANGED):
            self._transition(CANCELLED if cancelled else ENDED)
        elif not self._touches or self._held is not None:
            self._fail()
