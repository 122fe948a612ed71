"""Videos from Python against a real laminad (headless, virtual clock): a clip made with
gst-launch-1.0 (second k one solid colour: red, green, blue), shown through a layer and checked
in pixels at exact virtual times; controls, events and errors. Skipped, with the reason, where
GStreamer's tools are not installed."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess

import pytest

import lamina

COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
GST_LAUNCH = shutil.which("gst-launch-1.0")

pytestmark = pytest.mark.skipif(GST_LAUNCH is None, reason="gst-launch-1.0 (gstreamer1.0-tools) is not installed: no clip can be made")


def make_clip(directory: str, name: str = "clip.webm") -> str:
    """Three seconds at 10 frames a second, 64x48, VP8 in WebM: second k is COLOURS[k]."""
    path = os.path.join(directory, name)
    args = [GST_LAUNCH, "-q", "concat", "name=c", "!", "videoconvert", "!", "vp8enc", "deadline=1", "!", "webmmux", "!",
            "filesink", f"location={path}"]
    for r, g, b in COLOURS:
        args += ["videotestsrc", "pattern=solid-color", f"foreground-color=0xff{r:02x}{g:02x}{b:02x}", "num-buffers=10", "!",
                 "video/x-raw,width=64,height=48,framerate=10/1", "!", "c."]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"gst-launch-1.0 could not make the clip (is gstreamer1.0-plugins-good installed?): {result.stderr.strip()}")
    return path


def colour(shot: lamina.Screenshot, x: int = 42, y: int = 34):  # type: ignore[no-untyped-def]
    """Which of COLOURS the pixel is (VP8 is lossy: within 40 a channel), or None."""
    p = shot.pixel(x, y)
    for k, c in enumerate(COLOURS):
        if all(abs(a - b) < 40 for a, b in zip(p[:3], c)):
            return k
    return None


@pytest.fixture
def conn(daemon):  # type: ignore[no-untyped-def]
    c = lamina.connect(daemon.socket, name="pytest-video")
    yield c
    c.close()


def show(conn: lamina.Connection, video: lamina.Video, x: float = 10) -> lamina.Layer:
    layer = lamina.Layer(frame=(x, 10, 64, 48))
    layer.video = video
    conn.root.add_sublayer(layer)
    return layer


def test_a_video_plays_seeks_loops_and_ends_on_the_virtual_clock(conn: lamina.Connection, daemon) -> None:  # type: ignore[no-untyped-def]
    clip = conn.video(make_clip(daemon.directory))
    assert clip.uri.startswith("/") and clip.number >= 1
    seen: list = []
    clip.on_event = lambda e: seen.append(e.kind)
    layer = show(conn, clip)
    assert layer.video is clip and layer.contents is clip
    conn.sync()
    ready = clip.wait_for("ready")
    assert (ready.kind, ready.width, ready.height, ready.duration) == ("ready", 64, 48, 3.0)
    assert clip.size == (64, 48) and clip.duration == 3.0 and ready.video is clip
    assert colour(conn.screenshot()) == 0, "paused at 0: red"
    conn.advance_clock(1.5)
    assert colour(conn.screenshot()) == 0, "paused: the clock moves, the picture does not"

    clip.play()
    assert clip.wait_for("playing").kind == "playing" and clip.playing
    for step, expected in ((0.5, 0), (0.6, 1), (0.8, 1), (0.2, 2)):
        conn.advance_clock(step)
        assert colour(conn.screenshot()) == expected, f"after {step} s more"
    conn.advance_clock(1)
    assert clip.wait_for("ended").kind == "ended" and not clip.playing
    assert colour(conn.screenshot()) == 2, "the last frame stays"

    # Seek, rate and loop: media time 0.1 + 2 x clock seconds, wrapped at 3.
    clip.seek(0.1)
    clip.rate = 2
    clip.loop = True
    assert (clip.rate, clip.loop) == (2.0, True)
    clip.play()
    conn.sync()
    for step, expected in ((0.5, 1), (0.5, 2), (0.5, 0)):
        conn.advance_clock(step)
        assert colour(conn.screenshot()) == expected, f"after {step} s more at rate 2, looping"
    clip.pause()
    conn.sync()
    assert clip.wait_for("paused").kind == "paused"
    held = colour(conn.screenshot())
    conn.advance_clock(0.7)
    assert colour(conn.screenshot()) == held
    # Every event reached the video's callback, the connection's stream, in order.
    events = [e for e in conn.poll_events() if isinstance(e, lamina.VideoEvent)]
    assert [e.kind for e in events] == seen
    assert seen == ["ready", "playing", "ended", "playing", "paused"]
    assert all(e.video is clip for e in events)
    assert conn.stats()["videos"] == 1

    clip.close()
    conn.sync()
    assert conn.stats()["videos"] == 0
    assert conn.screenshot().pixel(42, 34) == (0, 0, 0, 255), "a closed video shows nothing"


def test_a_released_video_is_destroyed_and_bad_input_is_refused_or_an_error_event(conn: lamina.Connection, daemon) -> None:  # type: ignore[no-untyped-def]
    path = make_clip(daemon.directory)
    clip = conn.video(path)
    layer = show(conn, clip)
    conn.sync()
    assert clip.wait_for("ready").kind == "ready"
    assert conn.stats()["videos"] == 1
    # The layer keeps its video alive; once neither is held, laminad destroys it.
    conn.root.sublayers = []
    del clip, layer
    gc.collect()
    conn.sync()
    assert conn.stats()["videos"] == 0

    # Refused here: a path that is not there, a rate out of range, a negative seek.
    with pytest.raises(FileNotFoundError):
        conn.video(os.path.join(daemon.directory, "missing.webm"))
    relative = conn.video(os.path.relpath(path))
    assert relative.uri == path
    with pytest.raises(ValueError):
        relative.rate = 0
    with pytest.raises(ValueError):
        relative.seek(-1)
    with pytest.raises(TypeError):
        lamina.Layer().video = lamina.Image(1, 1, b"\0\0\0\0")
    other = lamina.connect(daemon.socket, name="other")
    try:
        foreign = lamina.Layer()
        foreign.video = relative
        with pytest.raises(ValueError, match="another connection"):
            other.root.add_sublayer(foreign)
    finally:
        other.close()
    relative.close()

    # Refused by laminad: an error event to this video, and the connection goes on.
    refused = conn.video("http://127.0.0.1:9/x.webm")
    gone = conn.video("file://" + os.path.join(daemon.directory, "gone.webm"))
    show(conn, refused)
    conn.sync()
    for v in (refused, gone):
        event = v.wait_for("ready")
        assert event.kind == "error" and event.message and v.error == event.message, f"{v.uri}: {event}"
    assert "No such file" in gone.error or "gone.webm" in gone.error, gone.error
    refused.play()                            # controls on a failed video are harmless
    conn.sync()
    assert conn.stats()["videos"] == 0


def make_tone_clip(directory: str) -> str:
    """Two seconds: picture black then white, sound silent for [0, 1) then a 440 Hz sine at half
    of full scale (48 kHz stereo PCM in Matroska, so the samples stay exact)."""
    path = os.path.join(directory, "tone.mkv")
    picture, sound = "video/x-raw,width=64,height=48,framerate=10/1", "audio/x-raw,rate=48000,channels=2"
    args = [GST_LAUNCH, "-q", "matroskamux", "name=m", "!", "filesink", f"location={path}",
            "concat", "name=v", "!", "videoconvert", "!", "vp8enc", "deadline=1", "!", "m.",
            "videotestsrc", "pattern=black", "num-buffers=10", "!", picture, "!", "v.",
            "videotestsrc", "pattern=white", "num-buffers=10", "!", picture, "!", "v.",
            "concat", "name=a", "!", "audioconvert", "!", "audio/x-raw,format=S16LE,rate=48000,channels=2", "!", "m.",
            "audiotestsrc", "wave=silence", "num-buffers=10", "samplesperbuffer=4800", "!", sound, "!", "a.",
            "audiotestsrc", "wave=sine", "freq=440", "volume=0.5", "num-buffers=10", "samplesperbuffer=4800", "!", sound, "!", "a."]
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"gst-launch-1.0 could not make the clip: {result.stderr.strip()}")
    return path


def test_volume_and_muted_reach_the_sound_laminad_writes() -> None:
    """volume and muted (protocol 1.7): through a file sink, volume 0.5 halves the tone's
    amplitude, muted writes silence; bad volumes are refused before they are sent."""
    import wave
    import struct
    from conftest import Daemon, laminad_path

    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()}")
    import tempfile
    directory = tempfile.mkdtemp(prefix="lamina-py-sound-")
    out = os.path.join(directory, "out.wav")
    d = Daemon(args=["--audio-sink", f"wavenc ! filesink location={out}"])
    try:
        conn = lamina.connect(d.socket, name="pytest-sound")
        clip = make_tone_clip(directory)

        def play(volume: float, muted: bool) -> list:
            video = conn.video(clip)
            assert (video.volume, video.muted) == (1.0, False)
            video.volume = volume
            video.muted = muted
            assert (video.volume, video.muted) == (volume, muted)
            with pytest.raises(ValueError, match="volume"):
                video.volume = 1.5
            with pytest.raises(ValueError, match="volume"):
                video.volume = float("nan")
            show(conn, video)
            video.play()
            conn.sync()
            assert video.wait_for("ready").kind == "ready"
            for _ in range(20):
                conn.advance_clock(0.1)
            video.close()
            conn.sync()
            assert conn.stats()["audio.outputs"] == 0
            w = wave.open(out)
            assert (w.getframerate(), w.getnchannels()) == (48000, 2)
            n = w.getnframes()
            samples = struct.unpack(f"<{n * 2}h", w.readframes(n))[0::2]
            assert abs(n - 96000) <= 48, f"2 s of clock: {n} samples"
            return list(samples)

        def rms(s: list) -> float:
            return (sum(x * x for x in s) / len(s)) ** 0.5

        full = play(1.0, False)
        half = play(0.5, False)
        muted = play(1.0, True)
        tone = slice(int(1.2 * 48000), int(1.8 * 48000))
        assert max(abs(x) for x in full[: int(0.9 * 48000)]) < 50, "silent before the tone"
        assert rms(full[tone]) > 5000
        assert abs(rms(half[tone]) / rms(full[tone]) - 0.5) <= 0.025
        assert max(abs(x) for x in muted) == 0
        conn.close()
    finally:
        d.stop()
        shutil.rmtree(directory, ignore_errors=True)
