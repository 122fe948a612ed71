"""Display links (``CADisplayLink``, protocol 1.7): a callback in step with the display.

``conn.display_link(callback)`` makes one, running at once. laminad sends the connection a
``frame`` message at each refresh while one of its links runs; the callbacks run from
``conn.poll_events()`` (and from every other call that reads what laminad sent, such as
``advance_clock``), with `timestamp`, `target_timestamp` and `duration` set on the link. After
the callbacks of a frame the connection commits what they changed, or an empty commit when they
changed nothing: that commit answers the frame, and laminad sends no other until it is answered,
so a client slower than the refresh gets the latest frame, never a backlog.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

from .errors import LaminaError


@dataclass(frozen=True)
class FrameRateRange:
    """``CAFrameRateRange``: the rates a link would like its callbacks at, frames per second;
    all 0 (the default) is the rate of the output it follows. laminad calls back on every n-th
    refresh of the output, n chosen for the preferred rate within the minimum and maximum."""

    minimum: float = 0.0
    maximum: float = 0.0
    preferred: float = 0.0

    def as_tuple(self) -> Tuple[float, float, float]:
        return (float(self.minimum), float(self.maximum), float(self.preferred))


@dataclass
class FrameEvent:
    """A ``frame`` message as `poll_events` hands it out, after the links' callbacks ran:
    `links` the link numbers that fired."""

    links: List[int]
    timestamp: float
    target_timestamp: float
    duration: float


class DisplayLink:
    """One display link; make it with ``conn.display_link(callback)``.

    `timestamp` is the presentation time of the last frame, `target_timestamp` that of the frame
    being prepared (what the callback commits is shown then), `duration` the output's refresh
    interval, all in laminad's media time. Set `is_paused`, `preferred_frame_rate_range` or
    `output` (an output's name; "" the fastest) to change it; `invalidate()` ends it."""

    def __init__(self, conn: Any, number: int, callback: Callable[["DisplayLink"], Any], output: str,
                 paused: bool, frame_rate_range: FrameRateRange) -> None:
        self._conn = conn
        self.number = number
        self._callback = callback
        self._output = output
        self._paused = paused
        self._range = frame_rate_range
        self.timestamp = 0.0
        self.target_timestamp = 0.0
        self.duration = 0.0
        #: Callbacks run so far.
        self.frame_count = 0
        self.is_valid = True

    @property
    def is_paused(self) -> bool:
        return self._paused

    @is_paused.setter
    def is_paused(self, paused: bool) -> None:
        if bool(paused) != self._paused:
            self._paused = bool(paused)
            self._update()

    @property
    def preferred_frame_rate_range(self) -> FrameRateRange:
        return self._range

    @preferred_frame_rate_range.setter
    def preferred_frame_rate_range(self, r: FrameRateRange) -> None:
        if not isinstance(r, FrameRateRange):
            r = FrameRateRange(*r)
        if r != self._range:
            old = self._range
            self._range = r
            try:
                self._update()
            except LaminaError:
                self._range = old
                raise

    @property
    def output(self) -> str:
        return self._output

    @output.setter
    def output(self, name: str) -> None:
        if name != self._output:
            old = self._output
            self._output = name
            try:
                self._update()
            except LaminaError:
                self._output = old
                raise

    def invalidate(self) -> None:
        """Stops the link for good; laminad forgets it."""
        if not self.is_valid:
            return
        self.is_valid = False
        self._conn._display_links.pop(self.number, None)
        self._conn._request("displayLink", self.number, "remove")

    def _update(self) -> None:
        if self.is_valid:
            self._conn._request("displayLink", self.number, "set", self._paused, self._range.as_tuple(), self._output)

    def _fire(self, event: FrameEvent) -> None:
        if not self.is_valid or self._paused:
            return
        self.timestamp = event.timestamp
        self.target_timestamp = event.target_timestamp
        self.duration = event.duration
        self.frame_count += 1
        self._callback(self)

    def __repr__(self) -> str:
        state = "invalid" if not self.is_valid else "paused" if self._paused else "running"
        return f"<DisplayLink {self.number} {state} target {self.target_timestamp}>"


def make(conn: Any, callback: Callable[[DisplayLink], Any], output: str = "", paused: bool = False,
         preferred_frame_rate_range: Optional[FrameRateRange] = None) -> DisplayLink:
    """`Connection.display_link`'s body: numbers the link, tells laminad, keeps it until invalidated."""
    if conn.server_version < (1, 7):
        raise LaminaError(f"laminad speaks protocol {conn.server_version[0]}.{conn.server_version[1]}; display links need 1.7")
    number = conn._next_display_link
    conn._next_display_link += 1
    link = DisplayLink(conn, number, callback, output, paused, preferred_frame_rate_range or FrameRateRange())
    conn._display_links[number] = link
    try:
        conn._request("displayLink", number, "set", paused, link._range.as_tuple(), output)
    except BaseException:
        del conn._display_links[number]
        link.is_valid = False
        raise
    return link
