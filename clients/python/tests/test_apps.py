"""App windows as layer contents (protocol 1.7, `lamina.apps`): what the API sends, and a real
headless laminad hosting the unmodified weston-simple-shm, shown in this client's layers and
checked in pixels against simple-shm's own drawing (its 20-point white margin and its colour
ramp), then killed (SIGKILL): the gone event says "exited" and the layers keep or clear it."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import tempfile
import time
from typing import Callable, List, Tuple

import pytest

import lamina
from lamina import wire
from lamina.errors import LaminaError

from conftest import Daemon, laminad_path
from test_fixtures import FakeServer

SIMPLE_SHM = "/usr/bin/weston-simple-shm"
BACKGROUND = (0x33, 0x66, 0xCC, 255)
WHITE = (255, 255, 255, 255)


def commits(frames: List[bytes]) -> List[List[wire.Operation]]:
    """The operations of each commit among `frames`."""
    out = []
    for message_type, body in (wire.split_frames(f)[0] for f in frames):
        if message_type == lamina.protocol.MSG_COMMIT:
            r = wire.Reader(body)
            r.u32("serial")
            out.append([wire.read_operation(r) for _ in range(r.u32("count"))])
    return out


# MARK: What the API sends (no laminad)


def test_contents_set_to_a_surface_names_it_and_an_image_clears_it() -> None:
    server = FakeServer()
    conn = server.connection()
    layer = lamina.Layer()
    conn.root.add_sublayer(layer)
    conn.commit()
    server.frames()
    surface = lamina.AppSurface(7, "foot", "foot", 4242, 1280, 720)
    layer.contents = surface
    layer.app_sizing = "app"
    layer.app_exit_contents = "clear"
    assert layer.contents is surface and layer.app_surface == 7
    conn.commit()
    # contents none, appSurface 7, then the two names: commit-app-surface's sets after the first.
    assert commits(server.frames()) == [[wire.Set(1, 27, 0), wire.Set(1, 102, 7.0), wire.Set(1, 103, "app"),
                                         wire.Set(1, 104, "clear")]]
    # Only the number known: an AppSurface with it.
    layer.app_surface = 9
    assert layer.contents == lamina.AppSurface.with_id(9)
    conn.commit()
    assert commits(server.frames()) == [[wire.Set(1, 102, 9.0)]]
    # An image (or None) as contents stops showing the window, appSurface 0 first.
    loose = lamina.Layer(contents=surface)   # (on no connection: its image is not sent)
    image = lamina.Image(1, 1, bytes([255, 0, 0, 255]))
    loose.contents = image
    assert loose.contents is image and loose.app_surface == 0
    layer.contents = surface
    assert layer.contents is surface
    layer.contents = None
    assert layer.contents is None and layer.app_surface == 0
    conn.commit()
    assert commits(server.frames()) == [[wire.Set(1, 102, 0.0), wire.Set(1, 27, 0)]]


def test_bad_surfaces_and_older_laminads_are_refused_here() -> None:
    with pytest.raises(ValueError, match="window number"):
        lamina.AppSurface(0)
    with pytest.raises(TypeError, match="AppSurface"):
        lamina.Layer().contents = 7
    with pytest.raises(TypeError):
        lamina.Layer().mask = lamina.AppSurface(3)  # a mask is a layer
    conn = FakeServer().connection()  # the welcome fixture says protocol 1.4
    with pytest.raises(LaminaError, match="needs 1.7"):
        conn.manage_apps()
    with pytest.raises(ValueError, match="AppSurface or its number"):
        conn.close_app(0)
    with pytest.raises(ValueError, match="unknown manage-apps action"):
        wire.encode_request(1, "manageApps", "open")


# MARK: A real laminad and a real Wayland app

needs_app = pytest.mark.skipif(not os.access(SIMPLE_SHM, os.X_OK),
                               reason=f"{SIMPLE_SHM} (Debian's weston) is not installed")


def until(what: str, condition: Callable[[], bool], daemon: Daemon, seconds: float = 60) -> None:
    """Polls `condition` every 50 ms, at most `seconds`: a bound far above a slow machine's
    need (an app starting under load), not a timing check."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}:\n{daemon.log()}")
        time.sleep(0.05)


def app_daemon(socket: str = "") -> Daemon:
    """A 640×480 laminad with a blue background and no fade-in for app windows."""
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()} (swift build --product laminad, or set LAMINAD)")
    config = os.path.join(tempfile.mkdtemp(prefix="lamina-py-apps-"), "laminad.toml")
    with open(config, "w") as f:
        f.write("[wayland]\nfade_in = 0\n")
    return Daemon(size="640x480", socket=socket, args=["--background", "#3366CC", "--config", config])


def start_app(daemon: Daemon) -> subprocess.Popen:
    path = os.path.join(daemon.directory, "wayland-lamina-0")
    until("laminad's Wayland socket", lambda: os.path.exists(path), daemon)
    log = open(daemon.log_path, "ab")
    return subprocess.Popen([SIMPLE_SHM], env={**os.environ, "WAYLAND_DISPLAY": path}, stdout=log, stderr=log)


def rgb(p: Tuple[int, int, int, int]) -> int:
    return (p[0] << 16) | (p[1] << 8) | p[2]


def expect_simple_shm(pixel: Callable[[int, int], Tuple[int, int, int, int]], where: str) -> None:
    """simple-shm's drawing read through `pixel(window x, window y)`: its white margin, and
    outside its rings one colour a column whose value grows 0x080401 a column (left to right,
    so the orientation shows)."""
    for x, y in [(5, 5), (244, 130), (130, 5), (10, 240)]:
        assert pixel(x, y) == WHITE, f"{where}: the margin at window ({x}, {y}) is {pixel(x, y)}"
    for x in range(25, 28):
        assert rgb(pixel(x, 40)) == rgb(pixel(x, 60)), f"{where}: column {x} is one colour outside the rings"
        step = (rgb(pixel(x + 1, 40)) - rgb(pixel(x, 40))) & 0xFFFFFF
        assert step == 0x080401, f"{where}: one step of 0x080401 a column, got {step:#x} at column {x}"
    assert len({rgb(pixel(x, y)) for x in range(60, 190, 6) for y in range(60, 190, 6)}) > 20, f"{where}: the rings"


@needs_app
def test_simple_shm_in_two_layers_then_killed() -> None:
    daemon = app_daemon()
    app = None
    try:
        conn = lamina.connect(daemon.socket, name="shell")
        heard: List[lamina.AppSurfaceEvent] = []
        conn.on_app_surface = heard.append
        conn.manage_apps()
        app = start_app(daemon)
        until("simple-shm's window", lambda: bool(conn.poll_events() or True) and bool(conn.app_surfaces), daemon)
        (surface,) = conn.app_surfaces.values()
        assert surface.app_id == "org.freedesktop.weston.simple-shm" and surface.title == "simple-shm"
        assert (surface.width, surface.height) == (250, 250) and surface.pid == app.pid
        assert [(e.kind, e.surface) for e in heard] == [("appeared", surface)]
        assert "sized by the app until a layer shows it" in daemon.log()
        # Managed: nothing of it shows until a layer shows it (no kiosk window).
        bare = conn.screenshot()
        assert bare.pixel(5, 5) == BACKGROUND and bare.pixel(125, 125) == BACKGROUND

        with conn.transaction(disable_actions=True):
            # Turned half round, keeping its last frame once gone…
            turned = lamina.Layer(bounds=(0, 0, 250, 250), position=(160, 240), contents=surface,
                                  transform=lamina.transform.rotate(math.pi))
            # …and upright beside it, cleared once gone.
            upright = lamina.Layer(bounds=(0, 0, 250, 250), position=(480, 240), contents=surface,
                                   app_exit_contents="clear")
            conn.root.add_sublayer(turned)
            conn.root.add_sublayer(upright)
        conn.sync()
        # Window pixel (x, y): turned about (160, 240), so at (284 − x, 364 − y); upright at (355 + x, 115 + y).
        until("simple-shm in the layers", lambda: conn.screenshot().pixel(284 - 5, 364 - 5) == WHITE
              and conn.screenshot().pixel(355 + 5, 115 + 5) == WHITE, daemon)
        shot = conn.screenshot()
        expect_simple_shm(lambda x, y: shot.pixel(284 - x, 364 - y), "turned")
        expect_simple_shm(lambda x, y: shot.pixel(355 + x, 115 + y), "upright")
        # The background around and between them.
        for x, y in [(30, 240), (290, 240), (320, 240), (350, 240), (610, 240), (160, 110), (160, 370), (480, 110), (480, 370)]:
            assert shot.pixel(x, y) == BACKGROUND, (x, y, shot.pixel(x, y))

        app.send_signal(signal.SIGKILL)
        app.wait()
        until("the gone event", lambda: bool(conn.poll_events() or True) and any(e.kind == "gone" for e in heard), daemon)
        gone = heard[-1]
        assert gone.kind == "gone" and gone.reason == "exited" and gone.id == surface.id, heard
        assert conn.app_surfaces == {}
        # "keep" keeps the last frame; "clear" shows what is behind (the background).
        conn.sync()
        after = conn.screenshot()
        assert after.pixel(284 - 5, 364 - 5) == WHITE and after.pixel(284 - 244, 364 - 130) == WHITE
        for x, y in [(5, 5), (244, 130), (125, 125), (30, 40)]:
            assert after.pixel(355 + x, 115 + y) == BACKGROUND, ("cleared", x, y, after.pixel(355 + x, 115 + y))
        # Asking for a window that is gone is refused with laminad's words.
        with pytest.raises(LaminaError, match="no app window"):
            conn.focus_app(surface)
        conn.focus_app(None)   # the keyboard back to this client: always fine while managing
        conn.stop_managing_apps()
        with pytest.raises(LaminaError, match="needs the client to manage apps"):
            conn.close_app(surface)
        conn.close()
        assert daemon.process.poll() is None, daemon.log()
    finally:
        if app is not None and app.poll() is None:
            app.kill()
            app.wait()
        daemon.stop()


@needs_app
def test_managing_apps_comes_back_after_a_reconnection() -> None:
    first = app_daemon()
    second = None
    app = None
    try:
        events = []
        conn = lamina.connect(first.socket, name="shell", reconnect=lamina.ReconnectPolicy(initial_delay=0))
        conn.on_connection_event = events.append
        conn.manage_apps()
        first.kill()
        second = app_daemon(socket=first.socket)
        conn.stats()  # finds laminad gone, connects again, replays the model and managing apps, asks again
        assert [e.kind for e in events] == ["disconnected", "reconnected"], events
        app = start_app(second)
        # Only a managing client hears of windows: the replayed request made this one manage.
        until("simple-shm's window", lambda: bool(conn.poll_events() or True) and bool(conn.app_surfaces), second)
        (surface,) = conn.app_surfaces.values()
        assert surface.app_id == "org.freedesktop.weston.simple-shm"
        until("simple-shm's log line", lambda: "sized by the app until a layer shows it" in second.log(), second)
        assert conn.screenshot().pixel(5, 5) == BACKGROUND, "no kiosk window while managed"
        conn.close()
    finally:
        if app is not None and app.poll() is None:
            app.kill()
            app.wait()
        if second is not None:
            second.stop()
        first.stop()
