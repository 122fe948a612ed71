"""Reconnection (`lamina.connect(reconnect=...)`): laminad killed (SIGKILL, as a crash) and
started again on the same socket; the connection comes back by itself on its next call and
replays its model, checked in pixels and in laminad's tree."""

from __future__ import annotations

import pytest

import lamina
from conftest import Daemon, near

RED, BLUE, GREEN = (255, 0, 0, 255), (0, 0, 255, 255), (0, 255, 0, 255)


def scene(conn):
    """A red panel with a blue child, an image layer (a 2×2 checker scaled up), and a spinner
    with a repeating animation."""
    panel = lamina.Layer(bounds=(0, 0, 100, 60), position=(100, 80), background_color="#FF0000")
    child = lamina.Layer(bounds=(0, 0, 20, 20), position=(80, 30), background_color="#0000FF")
    panel.add_sublayer(child)
    checker = lamina.Image(2, 2, bytes([255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 255]))
    picture = lamina.Layer(bounds=(0, 0, 40, 40), position=(250, 60), contents=checker, magnification_filter="nearest")
    spinner = lamina.Layer(bounds=(0, 0, 30, 30), position=(250, 180), background_color="#00FF00")
    spin = lamina.BasicAnimation("transform.rotation.z", from_value=0.0, to_value=6.283, duration=2, repeat_count=lamina.FOREVER)
    spinner.add(spin, "spin")
    for layer in (panel, picture, spinner):
        conn.root.add_sublayer(layer)
    conn.sync()
    return panel, checker, spinner


def test_a_connection_comes_back_with_its_model_after_laminad_restarts(first):
    events = []
    conn = lamina.connect(first.socket, name="reconnecting", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    conn.on_connection_event = events.append
    panel, checker, spinner = scene(conn)
    before = conn.screenshot()
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        # The next call finds laminad gone, connects again, replays the model, asks again.
        after = conn.screenshot()
        assert [e.kind for e in events] == ["disconnected", "reconnected"] and events[1].attempts == 1, events
        for x, y in [(100, 80), (130, 80), (240, 50), (260, 50), (240, 70), (100, 45)]:
            assert near(after.pixel(x, y), before.pixel(x, y)), (x, y, after.pixel(x, y), before.pixel(x, y))
        assert near(after.pixel(130, 80), BLUE) and near(after.pixel(70, 80), RED)
        assert near(after.pixel(240, 50), (255, 255, 255, 255)) and near(after.pixel(260, 50), (0, 0, 0, 255))
        # The explicit animation was replayed: laminad runs it again.
        assert conn.stats()["animations"] == 1
        # A change made while laminad was away goes with the next commit; the connection goes on.
        second.kill()
        third = Daemon(socket=first.socket)
        try:
            panel.background_color = "#00FF00"
            conn.commit()          # finds laminad gone: the replay carries the new colour
            conn.sync()
            assert near(conn.screenshot().pixel(70, 80), GREEN)
            assert [e.kind for e in events] == ["disconnected", "reconnected", "disconnected", "reconnected"], events
            assert third.process.poll() is None, third.log()
        finally:
            third.stop()
    finally:
        conn.close()
        second.stop()


def test_a_connection_gives_up_after_its_attempts(first):
    events = []
    conn = lamina.connect(first.socket, reconnect=lamina.ReconnectPolicy(initial_delay=0, maximum_attempts=3))
    conn.on_connection_event = events.append
    conn.root.add_sublayer(lamina.Layer(bounds=(0, 0, 10, 10), background_color="#FF0000"))
    conn.sync()
    first.kill()
    with pytest.raises(lamina.ConnectionClosed, match="gave up reconnecting to laminad after 3 attempts"):
        conn.screenshot()
    assert [e.kind for e in events] == ["disconnected", "gave_up"] and events[1].attempts == 3, events
    # Closed for good: later calls fail at once, with no further attempts.
    with pytest.raises(lamina.ConnectionClosed):
        conn.sync() if conn.has_uncommitted_changes else conn.screenshot()
    assert len(events) == 2


def test_without_a_policy_a_lost_connection_is_an_error(first):
    conn = lamina.connect(first.socket)
    conn.root.add_sublayer(lamina.Layer(bounds=(0, 0, 10, 10)))
    conn.sync()
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        with pytest.raises(lamina.ConnectionClosed):
            conn.screenshot()
    finally:
        second.stop()


def test_the_replay_keeps_order_actions_the_root_and_survives_a_closed_image(first):
    """Sibling order, a null action, the root's own colour, a mask, a closed image as contents,
    and a replay split into many small commits (as a big model is, under laminad's limits)."""
    conn = lamina.connect(first.socket, reconnect=lamina.ReconnectPolicy(initial_delay=0))
    conn.REPLAY_OPERATIONS = 3    # every few operations a commit of its own
    conn.REPLAY_DESCRIPTORS = 1   # one image a commit
    events = []
    conn.on_connection_event = events.append
    conn.root.background_color = "#202020"
    below = lamina.Layer(bounds=(0, 0, 80, 80), position=(100, 100), background_color="#FF0000")
    above = lamina.Layer(bounds=(0, 0, 80, 80), position=(140, 100), background_color="#0000FF")
    above.set_action("backgroundColor", None)   # a null action: its colour changes at once
    masked = lamina.Layer(bounds=(0, 0, 60, 60), position=(260, 60), background_color="#00FF00")
    masked.mask = lamina.Layer(bounds=(0, 0, 30, 60), position=(15, 30), background_color="#FFFFFF")
    images = [lamina.Image(1, 1, bytes([255, 255, 0, 255])) for _ in range(3)]
    shown = [lamina.Layer(bounds=(0, 0, 10, 10), position=(20 + 15 * i, 200), contents=img) for i, img in enumerate(images)]
    gone = lamina.Image(1, 1, bytes([255, 0, 255, 255]))
    ghost = lamina.Layer(bounds=(0, 0, 10, 10), position=(200, 200), contents=gone)
    for layer in [below, above, masked, ghost] + shown:
        conn.root.add_sublayer(layer)
    conn.sync()
    gone.close()                 # its layer still names it
    conn.sync()
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        shot = conn.screenshot()
        assert [e.kind for e in events] == ["disconnected", "reconnected"], events
        assert near(shot.pixel(130, 100), BLUE), "the later sibling is still on top"
        assert near(shot.pixel(70, 100), RED) and near(shot.pixel(5, 5), (32, 32, 32, 255)), "the root's colour"
        assert near(shot.pixel(250, 60), GREEN) and near(shot.pixel(280, 60), (32, 32, 32, 255)), "the mask cuts the right half"
        assert all(near(shot.pixel(20 + 15 * i, 200), (255, 255, 0, 255)) for i in range(3)), "every image"
        assert near(shot.pixel(200, 200), (32, 32, 32, 255)), "the closed image shows nothing"
        above.background_color = "#00FF00"
        conn.sync()
        assert near(conn.screenshot().pixel(130, 100), GREEN), "the null action was replayed: no implicit animation"
        assert conn.stats().get("animations", 0) == 0
    finally:
        conn.close()
        second.stop()


def test_a_handler_calling_back_during_the_reconnection_gets_an_error_not_a_loop(first):
    conn = lamina.connect(first.socket, reconnect=lamina.ReconnectPolicy(initial_delay=0, maximum_attempts=5))
    seen = []

    def handler(event):
        seen.append(event.kind)
        if event.kind == "disconnected":
            conn.root.add_sublayer(lamina.Layer())   # something to send
            try:
                conn.commit()
            except lamina.ConnectionClosed:
                seen.append("commit refused while reconnecting")

    conn.on_connection_event = handler
    panel = lamina.Layer(bounds=(0, 0, 50, 50), position=(100, 100), background_color="#FF0000")
    conn.root.add_sublayer(panel)
    conn.sync()
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        panel.background_color = "#0000FF"
        conn.commit()
        conn.sync()
        assert seen == ["disconnected", "commit refused while reconnecting", "reconnected"], seen
        assert near(conn.screenshot().pixel(100, 100), BLUE)
    finally:
        conn.close()
        second.stop()


def test_replayed_animations_carry_on_where_they_were(first):
    """On a virtual clock a replayed animation keeps the progress it had when laminad went
    away, in its layer's own time (a layer running at twice the speed): re-timed, not restarted."""
    conn = lamina.connect(first.socket, name="retimed", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    fast = lamina.Layer(bounds=(0, 0, 40, 40), position=(60, 60), speed=2.0)
    plain = lamina.Layer(bounds=(0, 0, 40, 40), position=(160, 60), background_color="#FFFFFF")
    inner = lamina.Layer(bounds=(0, 0, 40, 40), position=(20, 20), background_color="#FFFFFF")
    fast.add_sublayer(inner)
    for layer in (fast, plain):
        conn.root.add_sublayer(layer)
    # 20 s in the fast layer's time is 10 s on the display; the plain one's is 10 s.
    inner.add(lamina.BasicAnimation("opacity", from_value=0.0, to_value=1.0, duration=20), "fade")
    plain.add(lamina.BasicAnimation("opacity", from_value=0.0, to_value=1.0, duration=10), "fade")
    conn.sync()
    conn.advance_clock(5)
    assert abs(inner.presentation().opacity - 0.5) < 1e-3 and abs(plain.presentation().opacity - 0.5) < 1e-3
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        # A new laminad's virtual clock starts again at 0: each animation carries on from 0.5.
        assert conn.advance_clock(0) == 0.0
        assert abs(inner.presentation().opacity - 0.5) < 1e-3, inner.presentation().opacity
        assert abs(plain.presentation().opacity - 0.5) < 1e-3, plain.presentation().opacity
        conn.advance_clock(2.5)
        assert abs(inner.presentation().opacity - 0.75) < 1e-3 and abs(plain.presentation().opacity - 0.75) < 1e-3
    finally:
        conn.close()
        second.stop()


def test_values_laminad_refused_are_left_out_of_the_replay(first):
    """A refused commit's values stay on the layers (Python keeps what the program set); the
    replay leaves out each operation laminad refuses and carries on, saying so in the event."""
    events = []
    conn = lamina.connect(first.socket, name="refusals", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    conn.on_connection_event = events.append
    box = lamina.Layer(frame=(10, 10, 50, 50), background_color="#FF0000")
    other = lamina.Layer(frame=(100, 10, 50, 50), background_color="#0000FF")
    for layer in (box, other):
        conn.root.add_sublayer(layer)
    conn.sync()
    box.bounds = (0, 0, -10, 50)
    with pytest.raises(lamina.LaminaError):
        conn.sync()
    other.contents_gravity = "sideways"
    with pytest.raises(lamina.LaminaError):
        conn.sync()
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        shot = conn.screenshot()
        kinds = [e.kind for e in events]
        assert kinds == ["disconnected", "reconnected"], events
        assert events[1].left_out == 2 and events[1].error is not None and events[1].error.name == "invalid-property", events[1]
        # laminad's own state before the loss: the box as it was, the other one too; the layers
        # say so (the refused bounds went back to those before them, the gravity to its default).
        assert near(shot.pixel(35, 35), RED) and near(shot.pixel(125, 35), BLUE)
        assert box.bounds == (0.0, 0.0, 50.0, 50.0) and other.contents_gravity == "resize", (box.bounds, other.contents_gravity)
        box.background_color = "#00FF00"
        conn.sync()
        conn.advance_clock(1)  # past the implicit animation
        assert near(conn.screenshot().pixel(35, 35), GREEN), "the connection goes on"
    finally:
        conn.close()
        second.stop()



def test_a_finished_animation_that_stays_is_held_after_the_replay(first):
    """A fade with fill forwards, not removed on completion, holds its end value; after a
    reconnection it still does (replayed at its end), and its events are not reported twice."""
    conn = lamina.connect(first.socket, name="held", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    layer = lamina.Layer(bounds=(0, 0, 10, 10), position=(50, 50), background_color="#FFFFFF")
    conn.root.add_sublayer(layer)
    stops = []
    layer.add(lamina.BasicAnimation("opacity", to_value=0.3, duration=1, fill_mode="forwards", removed_on_completion=False),
              "hold", on_stop=stops.append)
    conn.sync()
    conn.advance_clock(2)
    conn.poll_events()
    assert len(stops) == 1 and stops[0].finished and abs(layer.presentation().opacity - 0.3) < 1e-6
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        assert abs(layer.presentation().opacity - 0.3) < 1e-6, "held at its end after the replay"
        conn.advance_clock(1)
        conn.poll_events()
        assert len(stops) == 1, stops
    finally:
        conn.close()
        second.stop()


def test_a_replayed_animation_does_not_start_twice(first):
    """``animationDidStart`` comes once: the replay's own start of a running animation is not
    reported again; its stop still is, once."""
    conn = lamina.connect(first.socket, name="starts", reconnect=lamina.ReconnectPolicy(initial_delay=0))
    layer = lamina.Layer(bounds=(0, 0, 10, 10), position=(50, 50), background_color="#FFFFFF")
    conn.root.add_sublayer(layer)
    starts, stops = [], []
    layer.add(lamina.BasicAnimation("opacity", from_value=0.0, to_value=1.0, duration=4), "fade",
              on_start=starts.append, on_stop=stops.append)
    conn.sync()
    conn.advance_clock(1)
    conn.poll_events()
    assert len(starts) == 1 and stops == []
    first.kill()
    second = Daemon(socket=first.socket)
    try:
        conn.advance_clock(1)
        conn.poll_events()
        assert len(starts) == 1, starts
        conn.advance_clock(3)
        conn.poll_events()
        assert len(starts) == 1 and len(stops) == 1 and stops[0].finished, (starts, stops)
    finally:
        conn.close()
        second.stop()
