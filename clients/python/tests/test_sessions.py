"""Kept sessions (`lamina.connect(session=..., keep_layers=True)`): layers that outlive the
program, taken over by the next one as Layer objects, and a reconnection to a session laminad
brought back from its journal after SIGKILL."""

from __future__ import annotations

import functools
import socket
import time

import pytest

import lamina
import conftest
from conftest import Daemon

near = functools.partial(conftest.near, tolerance=1)
RED, GREEN, BLUE, WHITE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 255)


def journal_written(conn) -> bool:
    """laminad writes its session journal 0.5 s of real time after a change, on a thread of its
    own: polled (up to 20 s) through its stats."""
    for _ in range(200):
        stats = conn.stats()
        if stats.get("sessionJournal.pending") == 0 and stats.get("sessionJournal.writes", 0) > 0:
            return True
        time.sleep(0.1)
    return False


def test_a_kept_session_is_taken_over_and_survives_a_restart(first):
    app = lamina.connect(first.socket, name="kiosk-app", session="kiosk", keep_layers=True)
    assert not app.resumed
    panel = lamina.Layer(frame=(10, 10, 60, 40), background_color="#FF0000", name="panel")
    dot = lamina.Layer(frame=(5, 5, 10, 10), background_color="#00FF00", name="dot")
    panel.add_sublayer(dot)
    picture = lamina.Layer(frame=(100, 10, 20, 20), contents=lamina.Image(1, 1, bytes([255, 255, 255, 255])), name="picture")
    panel.set_action("backgroundColor", None)
    for layer in (panel, picture):
        app.root.add_sublayer(layer)
    spin = lamina.BasicAnimation("transform.rotation.z", from_value=0.0, to_value=6.283, duration=2, repeat_count=lamina.FOREVER)
    dot.add(spin, "spin")
    # A 100 s fade in a transaction with a completion (group 1 of this program): the next
    # program never touches it.
    glowing = lamina.Layer(frame=(150, 10, 10, 10), background_color="#FFFFFF", name="glowing")
    app.root.add_sublayer(glowing)
    with app.transaction(completion=lambda: None):
        glowing.add(lamina.BasicAnimation("opacity", from_value=0.0, to_value=1.0, duration=100), "glow")
    app.sync()
    app.close()

    watcher = lamina.connect(first.socket, name="watcher")
    shot = watcher.screenshot()
    assert near(shot.pixel(50, 40), RED) and near(shot.pixel(110, 20), WHITE), "kept on screen after its program closed"

    stops = []
    second = lamina.connect(first.socket, name="kiosk-app", session="kiosk", keep_layers=True)
    assert second.resumed
    with pytest.raises(lamina.LaminaError) as info:
        lamina.connect(first.socket, name="third", session="kiosk", keep_layers=True)
    assert info.value.name == "session-in-use"
    panel2, dot2 = second.layer_named("panel"), second.layer_named("dot")
    assert panel2 is not None and dot2 is not None and second.layer_named("nothing") is None
    assert panel2.superlayer is second.root and list(panel2.sublayers) == [dot2] and dot2.superlayer is panel2
    assert panel2.background_color == (1.0, 0.0, 0.0, 1.0)
    assert panel2._actions.get(("actions", "backgroundColor"), "missing") is None, "the null action came back"
    assert isinstance(second.layer_named("picture").contents, lamina.SessionImage)
    # The earlier program's spin stops when replaced under its key; that stop is not this one's.
    dot2.add(spin, "spin", on_stop=stops.append)
    # Its own transaction completes when its own animation ends, not with the earlier program's.
    completed = []
    with second.transaction(duration=0.25, completion=lambda: completed.append(True)):
        panel2.corner_radius = 2.0
    panel2.background_color = "#0000FF"  # its null action: at once
    extra = lamina.Layer(frame=(200, 10, 20, 20), background_color="#00FF00")
    second.root.add_sublayer(extra)
    second.sync()
    second.advance_clock(0.5)
    second.poll_events()
    assert stops == [], stops
    assert completed == [True], "this program's transaction completed by itself"
    shot = second.screenshot()
    assert near(shot.pixel(50, 40), BLUE) and near(shot.pixel(15, 15), GREEN) and near(shot.pixel(210, 20), GREEN)
    assert near(shot.pixel(110, 20), WHITE), "the earlier program's image is still shown"
    assert journal_written(watcher), "the journal was written"
    watcher.close()

    # laminad killed and started again: it brings the session back from its journal, and the
    # program's connection comes back to it (laminad's copy replaced by the replay).
    events = []
    second._policy = lamina.ReconnectPolicy(initial_delay=0)
    second.on_connection_event = events.append
    first.kill()
    restarted = Daemon(socket=first.socket)
    try:
        shot = second.screenshot()
        assert [e.kind for e in events] == ["disconnected", "reconnected"] and events[1].left_out == 0, events
        assert near(shot.pixel(50, 40), BLUE) and near(shot.pixel(15, 15), GREEN) and near(shot.pixel(210, 20), GREEN)
        assert near(shot.pixel(110, 20), WHITE), "the earlier program's image survives the replay"
        assert second.tree()["clients"][0]["session"] == "kiosk"
        second.advance_clock(0.5)
        second.poll_events()
        assert stops == [], "laminad's old copy of the spin stopped under its old tag, not this one's"
        assert second.stats()["animations"] >= 1
        # The connection cut while laminad runs on: laminad keeps the session (with its running
        # spin), the connection takes it over again, and the old spin's stop is not this one's.
        glow = second.layer_named("glowing").presentation().opacity
        second._sock.shutdown(socket.SHUT_RDWR)
        second.advance_clock(0.5)
        second.advance_clock(0.5)
        second.poll_events()
        assert [e.kind for e in events][-1] == "reconnected" and events[-1].left_out == 0, events
        assert stops == [], stops
        # The earlier program's fade runs on through the replay, where it was.
        assert abs(second.layer_named("glowing").presentation().opacity - (glow + 0.01)) < 1e-6, glow
        assert near(second.screenshot().pixel(50, 40), BLUE)
    finally:
        second.close()
        restarted.stop()
