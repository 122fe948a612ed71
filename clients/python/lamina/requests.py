"""The requests a connection makes of laminad (docs/protocol.md, "Requests"): screenshots, the
tree, presentation values, the virtual clock, stats, watching, input injection, display power.
Each is one `_request`; `Requests` needs nothing else of the connection it is part of.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from . import protocol
from .layer import Layer, Presentation
from .png import encode_png, write_png


class Screenshot:
    """The display's pixels: ``width × height`` RGBA bytes in `pixels`, top row first."""

    def __init__(self, width: int, height: int, pixels: bytes) -> None:
        self.width = width
        self.height = height
        self.pixels = pixels

    def pixel(self, x: int, y: int) -> Tuple[int, int, int, int]:
        """``(r, g, b, a)`` at (x, y), 0–255."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"({x}, {y}) is outside the {self.width}x{self.height} screenshot")
        i = (y * self.width + x) * 4
        p = self.pixels[i:i + 4]
        return (p[0], p[1], p[2], p[3])

    def png(self) -> bytes:
        """The screenshot as PNG bytes."""
        return encode_png(self.width, self.height, self.pixels)

    def save(self, path: str) -> None:
        """Writes the screenshot as a PNG file."""
        write_png(path, self.width, self.height, self.pixels)


class Requests:
    """The requests of a `lamina.Connection`, over its `_request`."""

    time: float  # the connection's clock reading, which advance_clock moves

    def _request(self, kind: str, *args: Any) -> Any:
        """Sends request `kind` with `args` and returns the value laminad answered (raising its
        `LaminaError`): the connection's."""
        raise NotImplementedError

    def screenshot(self, path: Optional[str] = None) -> Screenshot:
        """The pixels on the display now (privileged); with `path`, also written there as PNG."""
        width, height, pixels = self._request("screenshot")
        shot = Screenshot(width, height, pixels)
        if path is not None:
            shot.save(path)
        return shot

    def tree(self) -> Dict[str, Any]:
        """laminad's model tree as JSON (docs/protocol.md, "The tree JSON"): every client's for a
        privileged connection, this user's otherwise."""
        return json.loads(self._request("tree"))

    def presentation_tree(self) -> Dict[str, Any]:
        """`tree` with a ``presentation`` object on each animated layer."""
        return json.loads(self._request("presentationTree"))

    def presentation(self, layer: Layer) -> Presentation:
        """The layer's presentation values now, animations applied."""
        if layer._conn is not self or layer._id is None:
            raise ValueError(f"{layer!r} is not on this connection")
        raw = self._request("presentation", layer._id)
        return Presentation({protocol.PROPERTIES_BY_NAME[k].attribute: v for k, v in raw.items()})

    def advance_clock(self, seconds: float) -> float:
        """Moves laminad's virtual clock forward by `seconds` (privileged; laminad must run with
        ``--clock virtual``) and renders the frame at the new time. Returns the new time."""
        time, _frames = self._request("advanceClock", seconds)
        self.time = time
        self._dispatch()     # recognisers waiting on the clock see the new time
        return time

    def stats(self) -> Dict[str, float]:
        """laminad's counters (docs/protocol.md, "stats")."""
        return self._request("stats")

    def watch(self) -> None:
        """Streams every client's animation, commit and frame events to this connection
        (privileged), as `WatchEvent`s."""
        self._request("watch")

    def listen(self, session: str) -> None:
        """Streams the input events laminad delivers to kept session `session`, as `WatchEvent`s."""
        self._request("listen", session)

    def inject_input(self, kind: str, *args: Any) -> None:
        """Routes an input event as if a device had sent it (privileged, ``laminactl input``).
        `kind` and `args`: ``"touchDown"``/``"touchMotion"`` (id, x, y), ``"touchUp"``/
        ``"touchCancel"`` (id), ``"pointerMotion"`` (x, y), ``"pointerButton"`` (evdev code,
        pressed), ``"scroll"`` (dx, dy), ``"key"`` (keysym name, pressed). The input events it
        causes arrive before this returns."""
        self._request("injectInput", kind, *args)

    def take_keyboard_focus(self) -> None:
        """Key events go to this client until another takes the focus or receives a press."""
        self._request("takeKeyboardFocus")

    def outputs(self) -> Tuple[str, List[Any]]:
        """Every output (privileged, ``laminactl output``): the backend's name and a list of
        `wire.OutputInfo` (name, frame, scale, transform, mode, on, modes)."""
        return self._request("output", "", "none")

    def set_output_mode(self, name: str, width: int, height: int, refresh: float = 0) -> Tuple[str, List[Any]]:
        """Switches output `name` to a `width` × `height` mode (`refresh` 0: any; privileged,
        ``laminactl output NAME mode WxH``). laminad resizes the display and lays it out; every
        1.7 client gets a `DisplayChangedEvent`. Returns every output afterwards; a refusal
        (unknown name, size out of range, a backend that cannot) raises `LaminaError`."""
        return self._request("output", name, "mode", width, height, refresh)

    def set_output_transform(self, name: str, transform: str) -> Tuple[str, List[Any]]:
        """Turns output `name`'s picture (privileged, ``laminactl output NAME transform T``):
        one of "normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180",
        "flipped-270". Input follows the new transform at once. Returns every output afterwards."""
        return self._request("output", name, "transform", transform)

    def set_output_scale(self, name: str, scale: float) -> Tuple[str, List[Any]]:
        """Sets output `name`'s pixels per point (privileged, 0.25 to 8). Returns every output."""
        return self._request("output", name, "scale", scale)

    def set_output_position(self, name: str, x: int, y: int) -> Tuple[str, List[Any]]:
        """Moves output `name`'s top-left corner in the desktop, in points (privileged)."""
        return self._request("output", name, "position", x, y)

    def set_output_enabled(self, name: str, enabled: bool) -> Tuple[str, List[Any]]:
        """Lights output `name` (True) or takes it out of the desktop, dark (False; privileged).
        laminad refuses to disable the last output it draws on."""
        return self._request("output", name, "enable" if enabled else "disable")

    def set_brightness(self, percent: float, output: str = "") -> Tuple[str, List[Any]]:
        """Sets the backlight of `output` (every output that has one when empty) to `percent`
        of its range, 0 to 100 (0 is the dimmest lit level; blanking is `display_power`'s;
        privileged, ``laminactl display brightness``). Returns every output; a refusal (no
        backlight for that output, none at all, a file laminad may not write) raises
        `LaminaError`, a percent outside 0…100 `ValueError`."""
        return self._request("output", output, "brightness", percent)

    def display_power(self, on: bool, output: str = "") -> Tuple[str, List[Tuple[str, bool]]]:
        """Blanks (`on` False) or lights displays (privileged): `output`, or every one when
        empty. Returns the backend's name and each output's state afterwards."""
        return self._request("displayPower", on, output)
