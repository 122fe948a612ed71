"""Videos laminad decodes and layers show through their contents (protocol 1.6, docs/protocol.md,
"Videos"): a file or URI on laminad's machine, decoded there with GStreamer and paced by
laminad's clock (on a virtual clock a screenshot at time t shows exactly the frame at t).

::

    clip = conn.video("intro.webm")     # a path (relative to the working directory) or a URI
    clip.loop = True
    clip.play()
    layer.video = clip                  # the same as layer.contents = clip
    conn.sync()
    clip.wait_for("ready")              # VideoEvent(kind="ready", width=…, height=…, duration=…)

Videos have no sound: laminad decodes no audio, so there is no mute control (every video is,
and stays, silent).
"""

from __future__ import annotations

import os
import re
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Protocol, Tuple

from . import wire

#: A URI's scheme: letters, digits, ``+ - .``, then a colon (RFC 3986).
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class VideoHost(Protocol):
    """What a video asks of the connection that made it (a `lamina.Connection`): given to the
    video rather than imported, so that videos need not know the connection module."""

    #: Destroys sent with the next commit (a released or closed video's goes here).
    _image_destroys: List[wire.Operation]

    def commit(self) -> None: ...

    def _video_operation(self, op: wire.Operation) -> None: ...

    def _wait_for_messages(self, timeout: float) -> None: ...


@dataclass
class VideoEvent:
    """Something happened to one of this connection's videos (number `number`): `kind` is
    ``"ready"`` (the first picture is decoded: `width`, `height`, and `duration` in seconds,
    None when unknown), ``"playing"``, ``"paused"``, ``"ended"`` (a video that does not loop
    reached its end and stopped there; `Video.play` starts it again from 0) or ``"error"``
    (laminad's or GStreamer's words in `message`; the video shows no further frames)."""

    number: int
    kind: str
    width: int = 0
    height: int = 0
    duration: Optional[float] = None
    message: str = ""
    # Held weakly: an event waiting in the connection's queue does not keep a released video
    # (which laminad should destroy) alive.
    _video: Optional["weakref.ReferenceType[Video]"] = field(default=None, repr=False, compare=False)

    @property
    def video(self) -> Optional["Video"]:
        """The `Video`, while this program still holds it."""
        return self._video() if self._video is not None else None


class Video:
    """A video this connection made (``Connection.video``; Swift's ``VideoSource``). It takes an
    image number, is created in laminad with the next commit and its controls go with the
    commits after, all-or-none with the layer changes beside them. It starts paused at 0, rate
    1, not looping, volume 1, not muted (its sound plays through laminad's ``[audio] sink``). Show it with ``layer.video = video`` (or ``layer.contents = video``): the
    layer's contents gravity, rect, corners and masks apply as to an image.

    It is destroyed in laminad when the object goes away (no layer holds it) or on `close`.
    """

    def __init__(self, conn: VideoHost, number: int, uri: str) -> None:
        self._conn: Optional[VideoHost] = conn
        self.number = number
        #: What laminad plays: an absolute path or a URI.
        self.uri = uri
        self._loop = False
        self._rate = 1.0
        self._volume = 1.0
        self._muted = False
        self._closed = False
        # Whether play was asked for last (a reconnection replays it).
        self._play_requested = False
        #: Called with each `VideoEvent` of this video (after it is in `events`).
        self.on_event: Optional[Callable[[VideoEvent], Any]] = None
        #: Every event so far, oldest first.
        self.events: List[VideoEvent] = []
        #: ``(width, height)`` and seconds from the ready event (duration None: unknown).
        self.size: Optional[Tuple[int, int]] = None
        self.duration: Optional[float] = None
        #: The error event's message, if one came.
        self.error: Optional[str] = None
        #: Whether laminad last said it plays (after ``playing``, until ``paused``, ``ended`` or ``error``).
        self.playing = False
        # Released (or closed): destroyed in laminad with the next commit (after a create still
        # pending in the same commit, which laminad then never starts).
        self._finalizer = weakref.finalize(self, conn._image_destroys.append, wire.DestroyImage(number))
        self._finalizer.atexit = False

    # MARK: Controls

    def play(self) -> None:
        """Media time moves with laminad's clock (from the end of a video that does not loop: from 0)."""
        self._control("play")
        self._play_requested = True

    def pause(self) -> None:
        """Media time stands still; the frame shown stays."""
        self._control("pause")
        self._play_requested = False

    def seek(self, seconds: float) -> None:
        """Shows the frame at `seconds` of media time (past the end: the last frame)."""
        s = float(seconds)
        if not (s >= 0 and s != float("inf")):
            raise ValueError(f"seek takes a finite number of seconds >= 0, got {seconds!r}")
        self._control("seek", s)

    @property
    def loop(self) -> bool:
        """Whether playing past the end starts again from 0."""
        return self._loop

    @loop.setter
    def loop(self, value: bool) -> None:
        value = bool(value)
        if value != self._loop:
            self._loop = value
            self._control("loop", value)

    @property
    def rate(self) -> float:
        """Media seconds per second of laminad's clock: greater than 0, at most 16."""
        return self._rate

    @rate.setter
    def rate(self, value: float) -> None:
        r = float(value)
        if not (0 < r <= 16):
            raise ValueError(f"a video's rate must be greater than 0 and at most 16, got {value!r}")
        if r != self._rate:
            self._rate = r
            self._control("rate", r)

    @property
    def volume(self) -> float:
        """The sound's gain: 0 (silent) to 1 (as recorded, the default). Protocol 1.7."""
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        v = float(value)
        if not (0 <= v <= 1):
            raise ValueError(f"a video's volume must be from 0 to 1, got {value!r}")
        if v != self._volume:
            self._volume = v
            self._control("volume", v)

    @property
    def muted(self) -> bool:
        """Whether the sound is off (the volume is kept for when it is on again). Protocol 1.7."""
        return self._muted

    @muted.setter
    def muted(self, value: bool) -> None:
        value = bool(value)
        if value != self._muted:
            self._muted = value
            self._control("muted", value)

    def close(self) -> None:
        """Destroys the video in laminad with the next commit; layers still naming it show nothing."""
        if not self._closed:
            self._closed = True
            self._finalizer()

    @property
    def closed(self) -> bool:
        return self._closed

    def _control(self, control: str, argument: Any = None) -> None:
        if self._closed:
            raise ValueError("the video was closed")
        conn = self._conn
        if conn is None:
            raise ValueError("the video's connection is gone")
        conn._video_operation(wire.ControlVideo(self.number, control, argument))

    # MARK: Events

    def wait_for(self, kind: str, timeout: float = 30.0) -> VideoEvent:
        """The first event of `kind` this video received (already, or read from laminad now),
        waiting at most `timeout` seconds of real time for it; an ``error`` event ends the wait
        too (it is returned, whatever `kind` was asked for). Raises TimeoutError past the
        deadline. Commits pending changes first."""
        conn = self._conn
        if conn is None:
            raise ValueError("the video's connection is gone")
        deadline = time.monotonic() + timeout
        conn.commit()
        while True:
            for e in self.events:
                if e.kind == kind or e.kind == "error":
                    return e
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"video {self.number} ({self.uri}): no {kind!r} event within {timeout} s; events so far: "
                                   f"{[e.kind for e in self.events]}")
            conn._wait_for_messages(left)

    def _reconnected(self) -> None:
        """Made again in a new laminad (a reconnection): its events start afresh."""
        self.events = []
        self.playing = False
        self.error = None

    def _received(self, event: VideoEvent) -> None:
        if event.kind == "ready":
            self.size = (event.width, event.height)
            self.duration = event.duration
        elif event.kind == "playing":
            self.playing = True
        elif event.kind in ("paused", "ended"):
            self.playing = False
            if event.kind == "ended":
                self._play_requested = False  # a video that ended stays at its end after a reconnection
        elif event.kind == "error":
            self.error = event.message
            self.playing = False
        self.events.append(event)
        if len(self.events) > 256:
            del self.events[:len(self.events) - 256]

    def __repr__(self) -> str:
        return f"Video({self.number}, {self.uri!r})"


def resolve(source: str) -> str:
    """A URI laminad can open: one with a scheme as it is; anything else is a path on this
    machine (laminad's), made absolute against the working directory, which must be readable."""
    if not isinstance(source, str) or not source:
        raise ValueError(f"a video needs a path or URI, got {source!r}")
    if _SCHEME.match(source) and not source.startswith("/"):
        uri = source
    else:
        uri = os.path.abspath(source)
        if not os.access(uri, os.R_OK):
            raise FileNotFoundError(f"{uri}: no readable file there")
    if len(uri.encode()) > 4096 or "\0" in uri:
        raise ValueError("a video's path or URI must be at most 4096 bytes, without NUL")
    return uri


__all__ = ["Video", "VideoEvent"]
