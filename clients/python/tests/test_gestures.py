"""Gesture recognisers and client geometry (lamina.gestures, lamina.geometry): the recognisers'
arithmetic fed events by hand, the geometry reference numbers the Swift client gives
(Tests/LaminaClientTests/GestureTests.swift), and docs/clients.md's gesture program over a real
laminad (the Swift GestureEndToEndTests and the C tests run the same one)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterator, List, Tuple

import pytest

import lamina
from lamina import transform as T

from conftest import Daemon, laminad_path


@dataclass
class Ev:
    kind: str
    id: int
    location: Tuple[float, float]
    screen: Tuple[float, float]
    time: float
    layer: Any = None


def pad() -> lamina.Layer:
    return lamina.Layer(frame=(0, 0, 400, 400))


def send(r: lamina.GestureRecognizer, kind: str, id: int, x: float, y: float, t: float, layer: Any = None) -> None:
    r._handle(Ev(kind, id, (x, y), (x, y), t, layer if layer is not None else r.layer))


def close(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9


# MARK: The recognisers by hand (the same cases as the Swift GestureTests)


def test_pinch_scale_and_velocity() -> None:
    seen: List[Tuple[str, float, float]] = []
    r = lamina.PinchRecognizer(lambda r: seen.append((r.state, r.scale, r.velocity)))
    pad().add_gesture_recognizer(r)
    send(r, "touchDown", 0, 100, 100, 0)
    send(r, "touchDown", 1, 200, 100, 0)
    send(r, "touchMove", 1, 205, 100, 0.1)
    assert seen == []
    send(r, "touchMove", 1, 300, 100, 0.5)
    send(r, "touchMove", 0, 0, 100, 1)
    assert r.location == (150, 100)
    send(r, "touchUp", 1, 300, 100, 1.5)
    send(r, "touchUp", 0, 0, 100, 1.5)
    assert [s for s, _, _ in seen] == ["began", "changed", "ended"]
    assert [sc for _, sc, _ in seen] == [2, 3, 3]
    assert close(seen[0][2], 0.95 / 0.4) and close(seen[1][2], 2)
    assert r.state == "possible"


def test_pinch_scale_reset_and_removal() -> None:
    seen: List[Tuple[str, float, float]] = []
    r = lamina.PinchRecognizer(lambda r: seen.append((r.state, r.scale, r.velocity)))
    layer = pad()
    layer.add_gesture_recognizer(r)
    assert layer.gesture_recognizers == (r,) and r.layer is layer
    send(r, "touchDown", 0, 100, 100, 0)
    send(r, "touchDown", 1, 200, 100, 0)
    send(r, "touchMove", 1, 300, 100, 0.5)
    r.scale = 1
    send(r, "touchMove", 1, 400, 100, 1)
    assert [s for s, _, _ in seen] == ["began", "changed"] and seen[1][1] == 1.5 and close(seen[1][2], 1)
    assert r.number_of_touches == 2 and r.screen_location_of_touch(1) == (400, 100)
    layer.remove_gesture_recognizer(r)
    assert r.layer is None and layer.gesture_recognizers == ()


def test_long_press_on_the_event_clock() -> None:
    seen: List[str] = []
    r = lamina.LongPressRecognizer(lambda r: seen.append(r.state))
    pad().add_gesture_recognizer(r)
    send(r, "touchDown", 0, 100, 100, 0)
    r._time_passed(0.4)
    assert seen == []
    send(r, "touchMove", 0, 105, 100, 0.6)     # an event past the 0.5 s recognises it first
    send(r, "touchUp", 0, 105, 100, 0.7)
    assert seen == ["began", "changed", "ended"]


def test_rotation_beyond_a_half_turn() -> None:
    seen: List[Tuple[str, float, float]] = []
    r = lamina.RotationRecognizer(lambda r: seen.append((r.state, r.rotation, r.velocity)))
    pad().add_gesture_recognizer(r)
    send(r, "touchDown", 0, 200, 200, 0)
    send(r, "touchDown", 1, 300, 200, 0)
    send(r, "touchMove", 1, 200, 300, 0.5)
    send(r, "touchMove", 1, 100, 200, 1)
    send(r, "touchMove", 1, 200, 100, 1.5)
    send(r, "touchCancel", 1, 0, 0, 2)
    assert [s for s, _, _ in seen] == ["began", "changed", "changed", "cancelled"]
    assert close(seen[0][1], math.pi / 2) and close(seen[2][1], 3 * math.pi / 2) and close(seen[1][2], math.pi)
    assert close(lamina.RotationRecognizer.turn(3, -3), 2 * math.pi - 6)


def test_swipe_needs_distance_speed_and_a_permitted_direction() -> None:
    seen: List[Tuple[str, Tuple[float, float]]] = []
    r = lamina.SwipeRecognizer(lambda r: seen.append((r.direction, r.velocity)))
    pad().add_gesture_recognizer(r)
    send(r, "touchDown", 0, 100, 100, 0)
    send(r, "touchMove", 0, 150, 105, 0.1)
    send(r, "touchUp", 0, 200, 110, 0.2)
    assert len(seen) == 1 and seen[0][0] == "right" and close(seen[0][1][0], 500) and close(seen[0][1][1], 50)
    send(r, "touchDown", 0, 100, 100, 1)
    send(r, "touchUp", 0, 200, 100, 2)          # too slow
    send(r, "touchDown", 0, 100, 100, 3)
    send(r, "touchUp", 0, 100, 60, 3.01)        # too short
    r.directions = {"left", "right"}
    send(r, "touchDown", 0, 100, 300, 4)
    send(r, "touchUp", 0, 100, 100, 4.1)        # up: not permitted
    assert len(seen) == 1
    r.directions = {"up"}
    send(r, "touchDown", 0, 100, 300, 5)
    send(r, "touchUp", 0, 100, 100, 5.1)
    assert len(seen) == 2 and seen[1][0] == "up"
    with pytest.raises(ValueError, match="unknown swipe direction"):
        lamina.SwipeRecognizer(directions=["sideways"])


def test_two_finger_pan() -> None:
    seen: List[Tuple[str, Tuple[float, float], Tuple[float, float]]] = []
    r = lamina.PanRecognizer(lambda r: seen.append((r.state, r.translation, r.velocity)),
                             minimum_number_of_touches=2, maximum_number_of_touches=2)
    pad().add_gesture_recognizer(r)
    send(r, "touchDown", 0, 100, 100, 0)
    send(r, "touchMove", 0, 200, 100, 0.5)
    assert seen == []
    send(r, "touchDown", 1, 200, 200, 0.5)
    send(r, "touchMove", 0, 220, 100, 1)
    send(r, "touchMove", 1, 220, 200, 1)
    send(r, "touchDown", 2, 0, 0, 1.5)
    assert [s for s, _, _ in seen] == ["began", "ended"]
    assert seen[0][1] == (20, 0) and seen[0][2] == (40, 0)
    assert r.number_of_touches == 3


def test_double_tap_beats_single_tap_by_the_failure_requirement() -> None:
    singles: List[Tuple[float, float]] = []
    doubles: List[int] = []
    single = lamina.TapRecognizer(lambda r: singles.append(r.location))
    double = lamina.TapRecognizer(lambda r: doubles.append(1), number_of_taps_required=2)
    single.require_to_fail(double)
    layer = pad()
    layer.add_gesture_recognizer(single)
    layer.add_gesture_recognizer(double)

    def tap(x: float, t: float) -> None:
        for r in (single, double):
            send(r, "touchDown", 0, x, 50, t)
        for r in (double, single):
            send(r, "touchUp", 0, x, 50, t + 0.05)

    tap(50, 0)
    tap(52, 0.2)
    assert len(doubles) == 1 and singles == []
    tap(60, 2)
    assert singles == [] and single._held is not None
    double._time_passed(2.4)
    assert len(doubles) == 1 and singles == [(60, 50)]
    tap(70, 4)
    tap(70, 4.5)
    double._time_passed(5)
    assert len(doubles) == 1 and len(singles) == 3


def test_tap_location_in_the_recognisers_layer() -> None:
    parent = pad()
    child = lamina.Layer(frame=(100, 100, 50, 50), transform=T.scale(2, 2))
    parent.add_sublayer(child)
    seen: List[str] = []
    r = lamina.TapRecognizer(lambda r: seen.append(r.state))
    child.add_gesture_recognizer(r)
    r._handle(Ev("touchDown", 3, (125, 125), (125, 125), 0, parent))
    assert r.location == (25, 25) and r.location_of_touch(0) == (25, 25)
    r._handle(Ev("touchUp", 3, (125, 125), (135, 125), 0.1, parent))
    assert seen == [lamina.gestures.RECOGNIZED] and r.location == (30, 25)


# MARK: Geometry: the Swift client's numbers


def test_geometry_gives_the_swift_clients_numbers() -> None:
    root = lamina.Layer(bounds=(0, 0, 640, 480), position=(320, 240))
    parent = lamina.Layer(bounds=(10, 20, 200, 100), position=(300, 200), anchor_point=(0.25, 0.75),
                          transform=T.concat(T.scale(1.5, 1.5), T.rotate(math.pi / 6)), sublayer_transform=T.scale(0.8, 0.8))
    child = lamina.Layer(bounds=(0, 0, 60, 40), position=(100, 70), transform=T.rotate(-math.pi / 4))
    root.add_sublayer(parent)
    parent.add_sublayer(child)

    def near(p: Any, *q: float) -> bool:
        return all(abs(a - b) < 1e-9 for a, b in zip(p, q)) and len(p) == len(q)

    centre = child.convert_point((30, 20), to=None)
    assert near(centre, 356.56921938165306, 198.01923788646684)
    assert near(child.convert_point(centre, from_=None), 30, 20)
    assert root.hit_test(centre) is child
    assert root.hit_test((300, 200)) is parent and root.hit_test((250, 150)) is parent
    assert root.hit_test((400, 300)) is parent and root.hit_test((260, 190)) is parent
    assert root.hit_test((600, 50)) is root and root.hit_test((700, 10)) is None
    assert near(child.convert_point((0, 0), to=None), 315.5842325527861, 184.15450367921994)
    assert near(child.convert_point((60, 40), to=parent), 120.2842712474619, 69.34314575050763)
    assert near(child.convert_rect((0, 0, 60, 40), to=parent),
                63.715728752538084, 46.71572875253812, 56.56854249492382, 56.56854249492377)
    assert near(child.convert_rect((250, 150, 20, 10), from_=None),
                -47.581548702419404, -41.63763802578108, 18.255589147338814, 12.363032637450914)
    assert near(parent.convert_point((10, 20), to=child), 6.135146134954023, -101.09203627819626)
    assert parent.contains((10, 20)) and not parent.contains((210, 50)) and parent.contains((209.9, 119.9))
    with pytest.raises(TypeError, match="exactly one of to= and from_="):
        child.convert_point((0, 0))
    # A hidden or non-interactive layer is not hit; masks_to_bounds clips its sublayers' hits.
    child.hidden = True
    assert root.hit_test(centre) is parent
    child.hidden = False
    parent.user_interaction_enabled = False
    assert root.hit_test(centre) is root


# MARK: The gesture program over laminad


@pytest.fixture
def big() -> Iterator[Daemon]:
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()} (swift build --product laminad, or set LAMINAD)")
    d = Daemon(size="640x480")
    try:
        yield d
    finally:
        d.stop()


def test_the_gesture_program(big: Daemon) -> None:
    conn = lamina.connect(big.socket, name="gestures")
    pads = {name: lamina.Layer(frame=frame, name=name, background_color="#0000FF") for name, frame in (
        ("pinch", (0, 0, 320, 240)), ("rotation", (320, 0, 320, 240)),
        ("swipe", (0, 240, 320, 240)), ("tap", (320, 240, 320, 240)))}
    for p in pads.values():
        conn.root.add_sublayer(p)
    log: List[str] = []
    pads["pinch"].add_gesture_recognizer(lamina.PinchRecognizer(
        lambda r: log.append(f"pinch {r.state} scale {r.scale:.3f} velocity {r.velocity:.3f}")))
    pads["rotation"].add_gesture_recognizer(lamina.RotationRecognizer(
        lambda r: log.append(f"rotation {r.state} {r.rotation:.3f} velocity {r.velocity:.3f}")))
    pads["swipe"].add_gesture_recognizer(lamina.SwipeRecognizer(
        lambda r: log.append(f"swipe {r.direction} velocity {r.velocity[0]:.3f},{r.velocity[1]:.3f}")))
    single = lamina.TapRecognizer(lambda r: log.append(f"single tap at {r.location[0]:.3f},{r.location[1]:.3f}"))
    double = lamina.TapRecognizer(lambda r: log.append("double tap"), number_of_taps_required=2)
    single.require_to_fail(double)
    pads["tap"].add_gesture_recognizer(single)
    pads["tap"].add_gesture_recognizer(double)
    conn.sync()

    def touch(phase: str, id: int, x: float = 0, y: float = 0) -> None:
        if phase == "up":
            conn.inject_input("touchUp", id)
        else:
            conn.inject_input("touchDown" if phase == "down" else "touchMotion", id, x, y)

    # Pinch: two fingers 100 apart move to 200 apart in two steps of 0.1 s.
    touch("down", 0, 110, 120); touch("down", 1, 210, 120)
    conn.advance_clock(0.1)
    touch("move", 0, 85, 120); touch("move", 1, 235, 120)
    conn.advance_clock(0.1)
    touch("move", 0, 60, 120); touch("move", 1, 260, 120)
    touch("up", 0); touch("up", 1)
    # Rotation: a quarter turn clockwise about the pad's centre in 0.1 s.
    touch("down", 0, 430, 120); touch("down", 1, 530, 120)
    conn.advance_clock(0.1)
    touch("move", 0, 480, 70); touch("move", 1, 480, 170)
    touch("up", 0); touch("up", 1)
    # Swipes: right, fast; left, too slow; up, fast.
    touch("down", 0, 40, 360)
    conn.advance_clock(0.1)
    touch("move", 0, 140, 365); touch("up", 0)
    touch("down", 0, 280, 300); touch("move", 0, 180, 300)
    conn.advance_clock(1)
    touch("up", 0)
    touch("down", 0, 160, 460)
    conn.advance_clock(0.05)
    touch("move", 0, 160, 300); touch("up", 0)
    # A double tap, then a lone tap that waits for the double tap's 0.3 s to pass.
    for _ in range(2):
        touch("down", 0, 400, 300); touch("up", 0)
    touch("down", 0, 500, 400); touch("up", 0)
    conn.advance_clock(0.2)
    before_interval = len(log)
    conn.advance_clock(0.2)
    conn.poll_events()
    assert log == [
        "pinch began scale 1.250 velocity 2.500",
        "pinch changed scale 1.500 velocity 5.000",
        "pinch changed scale 1.750 velocity 2.500",
        "pinch changed scale 2.000 velocity 5.000",
        "pinch ended scale 2.000 velocity 5.000",
        "rotation began 0.785 velocity 7.854",
        "rotation changed 1.571 velocity 15.708",
        "rotation ended 1.571 velocity 15.708",
        "swipe right velocity 1000.000,50.000",
        "swipe up velocity 0.000,-3200.000",
        "double tap",
        "single tap at 180.000,160.000",
    ]
    assert before_interval == len(log) - 1
    conn.close()
