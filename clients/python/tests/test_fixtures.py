"""protocol/fixtures/: the Python encoder writes every client fixture byte for byte, and the
decoder reads every server fixture to the values the index describes."""

from __future__ import annotations

import math
import socket
from typing import Callable, Dict, List

import pytest

import lamina
from lamina import wire
from lamina.errors import LaminaError
from lamina.values import Path, TimingFunction
from lamina.filters import Filter, canonical_list

from conftest import FIXTURES

EASE_IN = TimingFunction.named("easeIn")
FADE = lamina.BasicAnimation("opacity", from_value=1, to_value=0, duration=0.5, timing_function="easeIn")


def fixture(name: str) -> bytes:
    return (FIXTURES / f"{name}.bin").read_bytes()


CLIENT: Dict[str, Callable[[], bytes]] = {
    "hello": lambda: wire.encode_hello("python-example", "kiosk", lamina.protocol.HELLO_KEEP_LAYERS, minor=4),
    "commit-properties": lambda: wire.encode_commit(1, [
        wire.Create(1), wire.Create(2, kind=1), wire.Create(3, kind=2),
        wire.Set(1, 1, (0.0, 0.0, 100.0, 50.0)),
        wire.Set(1, 2, (200.0, 300.0)),
        wire.Set(1, 10, (1.0, 0.5, 0.0, 1.0)),
        wire.Set(1, 8, 0.5),
        wire.Set(1, 6, (2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 10, 20, 0, 1)),
        wire.Set(1, 15, True),
        wire.Set(1, 11, "box"),
        wire.Set(1, 18, (4.0, 5.0)),
        wire.Set(1, 27, 7),
        wire.Set(1, 35, 3),
        wire.Set(2, 37, ((1, 0, 0, 1), (0, 0, 1, 1))),
        wire.Set(2, 38, (0, 0.25, 1)),
        wire.Set(2, 41, "radial"),
        wire.Set(3, 42, Path().move_to(0, 0).line_to(10, 0).quad_curve_to(15, 5, 10, 10).curve_to(5, 15, 0, 15, 0, 10).close()),
        wire.Insert(0, 1), wire.Insert(1, 2, 0),
    ]),
    "commit-transaction": lambda: wire.encode_commit(2, [
        wire.Settings(0.5, EASE_IN, True, (1,)),
        wire.Set(1, 8, 0.0),
        wire.AddAnimation(1, "fade", 1, FADE.encode()),
        wire.RemoveAnimation(1, "old"),
        wire.RemoveAllAnimations(2),
        wire.Settings(),
        wire.Set(2, 8, 1.0),
    ]),
    "commit-animations": lambda: wire.encode_commit(3, [
        wire.AddAnimation(1, "move", 0, lamina.KeyframeAnimation(
            "position", values=[(0, 0), (100, 0), (100, 50)], key_times=[0, 0.5, 1],
            timing_functions=["easeIn", "ease_out"], calculation_mode="paced",
            duration=2, repeat_count=2, autoreverses=True, fill_mode="both").encode()),
        wire.AddAnimation(1, "bounce", 2, lamina.SpringAnimation(
            "position.x", from_value=0, to_value=100, begin_time=1, fill_mode="forwards", removed_on_completion=False,
            mass=2, stiffness=300, damping=20, initial_velocity=1).encode()),
        wire.AddAnimation(1, "group", 0, lamina.AnimationGroup(animations=[
            lamina.BasicAnimation("cornerRadius", by_value=10, additive=True),
            lamina.BasicAnimation("transform", to_value=3.14, speed=2, time_offset=0.5, repeat_duration=4,
                                  value_function="rotateZ"),
        ], duration=3, repeat_count=lamina.FOREVER).encode()),
        wire.AddAnimation(1, "transition", 0, lamina.Transition(
            type="push", subtype="fromRight", start_progress=0.25, end_progress=1, duration=0.75).encode()),
        wire.AddAnimation(1, "along", 0, lamina.KeyframeAnimation(
            "position", path=Path().move_to(0, 0).curve_to(10, 0, 20, 10, 20, 20),
            calculation_mode="cubicPaced", rotation_mode="auto").encode()),
        wire.SetAction(1, "actions", "opacity", "none"),
        wire.SetAction(1, "style", "position", lamina.BasicAnimation("", duration=1, timing_function="easeOut").encode()),
        wire.SetAction(1, "actions", "bounds", "inherit"),
        wire.Destroy(4),
    ]),
    "commit-images": lambda: wire.encode_commit(3, [
        wire.CreateImage(5, 2, 1, 8, "bgra", "straight", 0),
        wire.Set(1, 27, 5),
        wire.UpdateImage(5, 1, 0, 1, 1),
        wire.DestroyImage(5),
    ]),
    "commit-remove": lambda: wire.encode_commit(4, [wire.Remove(2), wire.Set(2, 9, True), wire.Insert(1, 2, 3)]),
    "commit-emitter": lambda: wire.encode_commit(5, [
        wire.Create(4, 6), wire.Set(4, 84, "rectangle"), wire.Set(4, 86, "additive"), wire.Set(4, 82, (100.0, 20.0)),
        wire.Set(4, 92, 7.0),
        wire.Set(4, 94, lamina.emitter.wire([lamina.EmitterCell(
            "snow", birth_rate=10, lifetime=2, color=(1, 0.5, 0, 1), contents=object(),
            emitter_cells=[lamina.EmitterCell("spark", velocity=5, enabled=False)])], lambda image: 3)),
    ]),
    "request-screenshot": lambda: wire.encode_request(1, "screenshot"),
    "request-tree": lambda: wire.encode_request(2, "tree"),
    "request-advance-clock": lambda: wire.encode_request(3, "advanceClock", 0.25),
    "request-stats": lambda: wire.encode_request(4, "stats"),
    "request-presentation": lambda: wire.encode_request(5, "presentation", 1),
    "request-presentation-tree": lambda: wire.encode_request(6, "presentationTree"),
    "request-watch": lambda: wire.encode_request(7, "watch"),
    "request-display-power": lambda: wire.encode_request(8, "displayPower", False, "Virtual-1"),
    "request-snapshot": lambda: wire.encode_request(9, "snapshot"),
    "request-inject-touch": lambda: wire.encode_request(10, "injectInput", "touchDown", 1, 110, 220),
    "request-inject-key": lambda: wire.encode_request(11, "injectInput", "key", "Return", True),
    "request-take-keyboard-focus": lambda: wire.encode_request(12, "takeKeyboardFocus"),
    "request-listen": lambda: wire.encode_request(13, "listen", "kiosk"),
    "request-register-font": lambda: wire.encode_request(14, "registerFont", 70000),
    "request-output-list": lambda: wire.encode_request(15, "output", "", "none"),
    "request-output-mode": lambda: wire.encode_request(16, "output", "headless", "mode", 800, 600, 0),
    "request-output-transform": lambda: wire.encode_request(17, "output", "HDMI-A-1", "transform", "90"),
    "request-output-position": lambda: wire.encode_request(18, "output", "HDMI-A-1", "position", 1920, 0),
    "request-output-disable": lambda: wire.encode_request(19, "output", "DP-1", "disable"),
    "request-output-brightness": lambda: wire.encode_request(20, "output", "eDP-1", "brightness", 40),
    "request-display-link": lambda: wire.encode_request(17, "displayLink", 2, "set", False, (20, 60, 30), ""),
    "request-display-link-remove": lambda: wire.encode_request(18, "displayLink", 2, "remove"),
    "request-manage-apps": lambda: wire.encode_request(21, "manageApps", "manage"),
    "request-manage-apps-focus": lambda: wire.encode_request(22, "manageApps", "focus", 7),
    "commit-app-surface": lambda: wire.encode_commit(11, [
        wire.Set(1, 102, 7.0), wire.Set(1, 103, "app"), wire.Set(1, 104, "clear"),
    ]),
    "commit-video": lambda: wire.encode_commit(9, [
        wire.CreateVideo(5, "/srv/clip.webm"), wire.ControlVideo(5, "loop", True), wire.ControlVideo(5, "rate", 2),
        wire.ControlVideo(5, "seek", 1.5), wire.ControlVideo(5, "play"), wire.ControlVideo(5, "pause"),
        wire.DestroyImage(5),
    ]),
    "commit-video-sound": lambda: wire.encode_commit(10, [
        wire.ControlVideo(5, "volume", 0.5), wire.ControlVideo(5, "muted", True), wire.ControlVideo(5, "muted", False),
    ]),
    "commit-layout": lambda: wire.encode_commit(3, [
        wire.Create(1),
        wire.Set(1, 100, 18.0),
        wire.Set(1, 101, (lamina.Constraint("midX", "superlayer", "midX", 1.0, 0.0),
                          lamina.Constraint("minY", "title", "maxY", 0.5, 8.0))),
    ]),
    "commit-blend-corners": lambda: wire.encode_commit(10, [
        wire.Set(1, 70, "multiplyBlendMode"), wire.Set(1, 71, "continuous"), wire.Set(2, 70, ""),
    ]),
    "commit-tiled-layer": lambda: wire.encode_commit(12, [
        wire.Create(5, kind=8), wire.Set(5, 78, (512.0, 256.0)), wire.Set(5, 79, 4.0), wire.Set(5, 95, 2.0),
        wire.Set(5, 96, 0.5), wire.SupplyTile(5, -1, 3, 7, 9), wire.DropTiles(5),
    ]),
    "commit-encoded-images": lambda: wire.encode_commit(13, [
        wire.CreateEncodedImage(7, "svg", 1234), wire.CreateEncodedImage(8, "gif", 56), wire.CreateEncodedImage(9, "webp", 78),
    ]),
    "commit-scroll-layer": lambda: wire.encode_commit(10, [
        wire.Create(4, kind=7), wire.Set(4, 72, "vertically"), wire.Set(4, 73, True), wire.Set(4, 74, (320.0, 2000.0)),
        wire.Set(4, 75, True), wire.Set(4, 1, (0.0, 120.0, 320.0, 240.0)),
    ]),
    "commit-filters": lambda: wire.encode_commit(11, [
        wire.Set(1, 76, canonical_list([Filter("soft", "gaussianBlur", 8), Filter("grey", "saturate", 0.5), Filter("neg", "invert"),
                                        Filter("swap", "colorMatrix", [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0])])),
    ]),    "commit-drawing": lambda: wire.encode_commit(12, [
        wire.Set(1, 97, lamina.drawing.canonical(
            lamina.Drawing().set_fill_color((1, 0, 0, 1)).fill_rect((0, 0, 10, 10)).add_path("M 0 0 L 10 10")
            .set_line_width(2).stroke_path().show_text("Hi", (2, 14), "Helvetica", 12))),
    ]),
    "commit-background-filters": lambda: wire.encode_commit(12, [
        wire.Set(1, 77, canonical_list([Filter("frost", "gaussianBlur", 12), Filter("pale", "saturate", 1.5)])),
    ]),
    "commit-attributed-string": lambda: wire.encode_commit(12, [
        wire.Set(1, 98, lamina.values.canonical("attributedString", [
            lamina.TextRun("Sale ", weight="bold", color="#FF0000"),
            lamina.TextRun("today", font="DejaVu Serif", font_size=20, italic=True, background_color=(1, 1, 0, 128 / 255),
                           underline=True, strikethrough=True, kerning=1.5, baseline_offset=-2),
            "😀"])),
        wire.Set(1, 99, 4.0),
    ]),
}


def presentation_expected() -> Dict[str, object]:
    values = {p.name: p.default for p in lamina.protocol.PROPERTIES if p.id <= 69}  # a 1.6 reply
    values.update(bounds=(0.0, 0.0, 40.0, 40.0), position=(100.0, 100.0), opacity=0.25, backgroundColor=(1.0, 1.0, 1.0, 1.0),
                  name="box", hidden=True, colors=((1.0, 0.0, 0.0, 1.0),), mask=3, contents=5,
                  path=Path().move_to(1, 2).close(), shadowPath=Path())
    return values


def presentation_expected_1_7() -> Dict[str, object]:
    values = {p.name: p.default for p in lamina.protocol.PROPERTIES}
    values.update(bounds=(0.0, 0.0, 40.0, 40.0), compositingFilter="screenBlendMode", cornerCurve="continuous", path=Path(),
                  shadowPath=Path())
    return values


SERVER: Dict[str, object] = {
    "welcome": wire.Welcome(1, 4, 3, 320, 240, "virtual", 12.5, []),
    "clock": wire.ClockMoved(2.5),
    "video-ready": wire.VideoEvent(5, "ready", 64, 48, 3.0),
    "video-ended": wire.VideoEvent(5, "ended"),
    "video-error": wire.VideoEvent(6, "error", message="no such file"),
    "tiles-wanted": wire.TilesWanted(5, 2, [(0, 1, (0.0, 1024.0, 2048.0, 1024.0)),
                                            (1, 1, (2048.0, 1024.0, 2048.0, 1024.0))]),
    "scroll-began": wire.ScrollMessage(4, "began", "touch", (0.0, 120.0), (0.0, 0.0), 1.5),
    "scroll-moved": wire.ScrollMessage(4, "moved", "touch", (0.0, 180.5), (0.0, 1200.0), 1.75),
    "scroll-ended": wire.ScrollMessage(4, "ended", "wheel", (0.0, 480.0), (0.0, 0.0), 2.25),
    "applied": wire.Applied(7),
    "error": LaminaError("layer #1 property 'opacity' must be finite (got NaN or infinity)", code=10, subject="commit",
                         serial=7, operation_index=2),
    "error-request": LaminaError("screenshot: uid 1000 is not privileged", code=20, subject="request", serial=4),
    "reply-screenshot": wire.Reply(1, "screenshot", (2, 1, bytes([255, 0, 0, 255, 0, 128, 255, 255]))),
    "reply-tree": wire.Reply(2, "tree", '{"display":{"width":320,"height":240},"clients":[]}'),
    "reply-advance-clock": wire.Reply(3, "advanced", (1.5, 90)),
    "reply-stats": wire.Reply(4, "stats", {"frames": 3.0, "layers": 10.0}),
    "reply-presentation": wire.Reply(5, "presentation", presentation_expected()),
    "reply-presentation-1.7": wire.Reply(5, "presentation", presentation_expected_1_7()),
    "reply-watching": wire.Reply(7, "watching"),
    "reply-display-power": wire.Reply(8, "displayPower", ("kms", [("Virtual-1", False)])),
    "reply-snapshot": wire.Reply(9, "snapshot", [wire.Create(2), wire.Set(2, 8, 0.25), wire.Insert(0, 2, 0)]),
    "reply-done": wire.Reply(10, "done"),
    "reply-font-registered": wire.Reply(14, "fontRegistered", ["Inter"]),
    "reply-outputs": wire.Reply(16, "outputs", ("kms", [wire.OutputInfo(
        "Virtual-1", (0.0, 0.0, 640.0, 400.0), 2.0, "90", wire.OutputMode(800, 1280, 60.0), True,
        [wire.OutputMode(800, 1280, 60.0), wire.OutputMode(1024, 768, 59.94)])])),
    "frame": wire.DisplayLinkFrame([1, 3], 1.5, 1.5 + 1.0 / 60, 1.0 / 60),
    "display-changed": wire.DisplayChanged(1824, 600, [
        wire.DisplayOutput("DP-1", (0.0, 0.0, 800.0, 600.0), 1.0, "normal", 60.0),
        wire.DisplayOutput("HDMI-A-1", (800.0, 0.0, 1024.0, 576.0), 1.875, "flipped-270", 50.0)]),
    "app-surface-appeared": wire.AppSurfaceMessage("appeared", 7, "foot", "foot", 4242, 1280, 720),
    "app-surface-gone": wire.AppSurfaceMessage("gone", 7, "foot", "foot", 4242, 1280, 720, "exited"),
    "animation-started": wire.AnimationNotice(1, 1, True, False),
    "animation-stopped": wire.AnimationNotice(1, 1, False, True),
    "transaction-completed": wire.TransactionCompleted(1),
    "watch": wire.WatchLine('{"event":"commit","client":1,"serial":7,"operations":12,"time":2.5}'),
    "input-touch-down": wire.InputMessage("touchDown", True, 3, 1, (10.0, 20.0), (110.0, 220.0), 1.5, 0.0, (0.0, 0.0), 0, "", ""),
    "input-key-press": wire.InputMessage("keyPress", False, 0, 30, (0.0, 0.0), (0.0, 0.0), 2.0, 1.25, (0.0, 0.0), 0x61, "a", "a"),
    "input-scroll": wire.InputMessage("scroll", False, 9, 0, (1.0, 2.0), (3.0, 4.0), 5.0, 6.0, (0.0, -15.0), 0, "", ""),
}


def test_every_fixture_is_covered_and_nothing_else(fixture_index: dict) -> None:
    listed = {f["file"][:-4]: f for f in fixture_index["fixtures"]}
    assert set(listed) == set(CLIENT) | set(SERVER)
    assert {n for n, f in listed.items() if f["direction"] == "client"} == set(CLIENT)
    on_disk = {p.stem for p in FIXTURES.glob("*.bin")}
    assert on_disk == set(listed)
    assert fixture_index["protocol"] == f"{lamina.protocol.VERSION_MAJOR}.{lamina.protocol.VERSION_MINOR}"


@pytest.mark.parametrize("name", sorted(CLIENT))
def test_encoder_writes_the_fixture(name: str, fixture_index: dict) -> None:
    expected = fixture(name)
    got = CLIENT[name]()
    assert got.hex() == expected.hex()
    entry = next(f for f in fixture_index["fixtures"] if f["file"] == f"{name}.bin")
    assert entry["bytes"] == len(got)
    assert entry["type"] == int.from_bytes(got[4:6], "little")


@pytest.mark.parametrize("name", sorted(SERVER))
def test_decoder_reads_the_fixture(name: str) -> None:
    (message_type, body), = wire.split_frames(fixture(name))
    decoded = wire.decode_server(message_type, body)
    expected = SERVER[name]
    if name.startswith("reply-presentation"):
        # Written for 1.6 (properties 1-69) and 1.7 (every property): each lists its version's keys in order.
        last = max(p.id for p in lamina.protocol.PROPERTIES) if name.endswith("1.7") else 69
        assert isinstance(decoded, wire.Reply) and decoded.kind == "presentation"
        assert list(decoded.value) == [p.name for p in lamina.protocol.PROPERTIES if p.id <= last]
        for key, value in expected.value.items():  # type: ignore[union-attr]
            if lamina.protocol.PROPERTIES_BY_NAME[key].id <= last:
                assert decoded.value[key] == value, key
    else:
        assert decoded == expected


def test_request_error_fixture_raises_with_the_servers_words() -> None:
    (message_type, body), = wire.split_frames(fixture("error"))
    error = wire.decode_server(message_type, body)
    assert isinstance(error, LaminaError)
    assert error.name == "invalid-property" and error.code == 10 and error.operation_index == 2
    assert str(error) == "invalid-property in commit 7 at operation 2: layer #1 property 'opacity' must be finite (got NaN or infinity)"


def test_fade_animation_matches_the_documented_118_bytes() -> None:
    body = FADE.encode()
    assert len(body) == 118
    assert body[:1] == b"\x01" and body[-4:] == b"\x00\x00\x00\x00"
    assert math.isclose(lamina.TimingFunction.EASE_IN.c1x, 0.42)


class FakeServer:
    """The other end of a socket pair: sends the welcome fixture and records frames."""

    def __init__(self) -> None:
        self.client_end, self.server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server_end.sendall(fixture("welcome"))
        self.decoder = wire.FrameDecoder()

    def connection(self) -> lamina.Connection:
        return lamina.Connection(self.client_end, "socketpair", "python-example")

    def frames(self) -> List[bytes]:
        """Every whole frame received so far, as bytes."""
        self.server_end.setblocking(False)
        data = b""
        try:
            while chunk := self.server_end.recv(1 << 16):
                data += chunk
        except BlockingIOError:
            pass
        return [wire.frame(t, b) for t, b in wire.split_frames(data)]


def test_layers_and_transactions_encode_the_transaction_fixture() -> None:
    """The high-level API produces the commit-transaction fixture exactly: a nested transaction
    with settings and a completion, an explicit animation, removals, then the outer defaults."""
    server = FakeServer()
    conn = server.connection()
    assert conn.display_size == (320, 240) and conn.clock == "virtual" and conn.time == 12.5 and conn.client_id == 3
    first, second = lamina.Layer(), lamina.Layer()
    conn.root.add_sublayer(first)
    conn.root.add_sublayer(second)
    conn.commit()
    hello, create = server.frames()
    assert hello == wire.encode_hello("python-example")
    # Serial 1, 4 operations: create #1, insert #1 into #0 at 0, create #2, insert #2 into #0 at 1.
    assert wire.split_frames(create) == [(2, bytes.fromhex("01000000" "04000000" "0101000000" "040000000001000000" "00000000"
                                                           "0102000000" "040000000002000000" "01000000"))]
    done: List[str] = []
    with conn.transaction():
        with conn.transaction(duration=0.5, timing_function="easeIn", disable_actions=True, completion=lambda: done.append("done")):
            first.opacity = 0
            first.add(FADE, "fade")
            first.remove_animation("old")
            second.remove_all_animations()
        second.opacity = 1
    assert server.frames() == [fixture("commit-transaction")]
    assert done == []  # laminad has not reported the group yet
