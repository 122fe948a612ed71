"""Outputs changed at run time (protocol 1.7): the ``output`` request and the display-changed
event, through a real headless laminad."""

from __future__ import annotations

import pytest

import lamina
from conftest import Daemon, laminad_path
from lamina.errors import LaminaError


def test_a_mode_change_reaches_the_client_with_the_right_numbers(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        assert conn.display_size == (320, 240)
        backend, outputs = conn.outputs()
        assert backend == "headless" and [o.name for o in outputs] == ["headless"]
        assert (outputs[0].mode.width, outputs[0].mode.height) == (320, 240)
        assert outputs[0].frame == (0.0, 0.0, 320.0, 240.0) and outputs[0].transform == "normal" and outputs[0].on

        backend, outputs = conn.set_output_mode("headless", 200, 150)
        assert (outputs[0].mode.width, outputs[0].mode.height) == (200, 150)
        changes = [e for e in conn.poll_events() if isinstance(e, lamina.DisplayChangedEvent)]
        assert len(changes) == 1
        assert changes[0].size == (200, 150)
        (o,) = changes[0].outputs
        assert (o.name, o.frame, o.scale, o.transform, o.refresh) == ("headless", (0.0, 0.0, 200.0, 150.0), 1.0, "normal", 0.0)
        assert conn.display_size == (200, 150)
        assert conn.root.bounds == (0.0, 0.0, 200.0, 150.0)


def test_bad_output_requests_name_what_was_wrong(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        with pytest.raises(LaminaError, match=r"no output named 'nope' \(outputs: headless\)"):
            conn.set_output_mode("nope", 800, 600)
        with pytest.raises(LaminaError, match="mode 0x0 is out of range"):
            conn.set_output_mode("headless", 0, 0)
        assert conn.display_size == (320, 240)


def test_transform_scale_and_position_reach_the_client(daemon) -> None:
    with lamina.connect(daemon.socket) as conn:
        try:
            backend, outputs = conn.set_output_transform("headless", "90")
            assert outputs[0].transform == "90" and outputs[0].frame == (0.0, 0.0, 240.0, 320.0)
            (change,) = [e for e in conn.poll_events() if isinstance(e, lamina.DisplayChangedEvent)]
            assert change.size == (240, 320) and change.outputs[0].transform == "90"
            assert conn.display_size == (240, 320) and conn.root.bounds == (0.0, 0.0, 240.0, 320.0)

            _, outputs = conn.set_output_scale("headless", 2)
            assert outputs[0].scale == 2.0 and outputs[0].frame == (0.0, 0.0, 120.0, 160.0)
            _, outputs = conn.set_output_position("headless", 10, 20)
            assert outputs[0].frame == (10.0, 20.0, 120.0, 160.0)
            # Enabling a lit output changes nothing; the only output cannot be disabled.
            _, outputs = conn.set_output_enabled("headless", True)
            assert outputs[0].frame == (10.0, 20.0, 120.0, 160.0)
            with pytest.raises(LaminaError, match="headless is the only output"):
                conn.set_output_enabled("headless", False)
            with pytest.raises(LaminaError, match="scale 9.0 is out of range"):
                conn.set_output_scale("headless", 9)
            with pytest.raises(ValueError, match="unknown output transform 'sideways'"):
                conn.set_output_transform("headless", "sideways")
        finally:
            conn.set_output_position("headless", 0, 0)
            conn.set_output_scale("headless", 1)
            conn.set_output_transform("headless", "normal")
        conn.poll_events()
        assert conn.display_size == (320, 240)
        assert conn.outputs()[1][0].frame == (0.0, 0.0, 320.0, 240.0)


def fake_backlight(root, maximum: int):
    """A sysfs tree with one firmware backlight that belongs to no connector: the only output,
    headless's, takes it."""
    d = root / "class" / "backlight" / "acpi_video0"
    d.mkdir(parents=True)
    (d / "type").write_text("firmware\n")
    (d / "max_brightness").write_text(f"{maximum}\n")
    (d / "brightness").write_text(f"{maximum}\n")
    return d / "brightness"


def test_brightness_is_written_into_the_backlight(tmp_path) -> None:
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()}")
    brightness = fake_backlight(tmp_path, 255)
    d = Daemon(env={"LAMINA_SYSFS_ROOT": str(tmp_path)})
    try:
        with lamina.connect(d.socket) as conn:
            backend, outputs = conn.set_brightness(40)
            assert backend == "headless" and [o.name for o in outputs] == ["headless"]
            assert brightness.read_text() == "102\n"
            conn.set_brightness(0, "headless")
            assert brightness.read_text() == "1\n", "0 % is the dimmest lit level, never off"
            assert conn.stats()["backlight.headless"] == pytest.approx(0.39)
            with pytest.raises(ValueError, match="brightness 140.0 is not a percentage from 0 to 100"):
                conn.set_brightness(140)
            with pytest.raises(LaminaError, match="no output named 'HDMI-A-1'"):
                conn.set_brightness(50, "HDMI-A-1")
    finally:
        d.stop()


def test_without_a_backlight_brightness_is_refused(tmp_path) -> None:
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()}")
    d = Daemon(env={"LAMINA_SYSFS_ROOT": str(tmp_path)})
    try:
        with lamina.connect(d.socket) as conn:
            with pytest.raises(LaminaError, match=r"no output has a backlight \(outputs: headless;"):
                conn.set_brightness(40)
            assert not any(k.startswith("backlight.") for k in conn.stats())
    finally:
        d.stop()
