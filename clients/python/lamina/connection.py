"""The connection to laminad: the client's root layer, transactions, requests and events.

A connection is synchronous: calls that need an answer (`Connection.sync`, `screenshot`,
`advance_clock`, …) send, then read until the answer is there. Events that arrive meanwhile
(animation starts and stops, completed transactions, input) are queued; their callbacks run when
the call returns, never in the middle of one, and `Connection.poll_events` / `Connection.events`
hand them out too. A connection is not thread-safe: use it from one thread.

`Connection` is built in layers, each module importing only those below it: `lamina.link` (the
socket, the traffic and the model's numbers), `lamina.replay` (reconnecting and replaying the
model), then this module's public API with `lamina.requests`; `lamina.session` takes kept
sessions over.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any, Callable, Iterator, List, Optional, Union

from . import protocol, wire
from . import display_link as _display_link
from .errors import ConnectionClosed, LaminaError
from .events import Event, TransactionCompleted, WatchEvent
from .layer import AnimationEvent, InputEvent, Layer, Presentation
from .link import open_socket, socket_candidates
from .replay import ConnectionEvent, ReconnectPolicy, ResilientLink
from .requests import Requests, Screenshot
from .session import take_over
from .transaction import UNSET, Transaction
from .values import TimingFunctionLike, timing_function as _timing_function
from .video import Video, VideoEvent, resolve as _resolve_video
from .apps import AppSurface, AppSurfaceEvent

# What this module defined before it was split: still importable from here.
__all__ = [
    "AnimationEvent", "AppSurface", "AppSurfaceEvent", "Connection", "ConnectionEvent", "Event", "InputEvent", "Presentation", "ReconnectPolicy",
    "Screenshot", "Transaction", "TransactionCompleted", "VideoEvent", "WatchEvent", "connect", "socket_candidates",
]


def connect(path: Optional[str] = None, *, name: str = "lamina-python",
            reconnect: Union[bool, ReconnectPolicy, None] = None, session: str = "",
            keep_layers: bool = False) -> "Connection":
    """Connects to laminad and says hello. `path` is the socket (see `socket_candidates` for
    the default lookup); `name` names the client in laminad's logs and tree. With `reconnect`
    (True for the default `ReconnectPolicy`, or a policy) the connection comes back by itself
    when laminad goes away. With `session` and `keep_layers` the layers stay on screen after the
    connection closes (and across a laminad restart), and the next connection to that session
    takes them over: `conn.resumed`, `conn.root`'s sublayers, `conn.layer_named(name)`."""
    if keep_layers and not session:
        raise ValueError("keep_layers needs a session name")
    if len(session.encode()) > 256:
        raise ValueError("a session name has at most 256 bytes")
    sock, where = open_socket(path)
    policy = ReconnectPolicy() if reconnect is True else (reconnect or None)
    return Connection(sock, where, name, reconnect=policy, session=session, keep_layers=keep_layers)


class Connection(Requests, ResilientLink):
    """A client's connection to laminad; made by `lamina.connect`. Usable as a context manager
    (closing at the end)."""

    def __init__(self, sock: socket.socket, path: str, name: str, reconnect: Optional[ReconnectPolicy] = None,
                 session: str = "", keep_layers: bool = False) -> None:
        super().__init__(sock, path, name, reconnect, session, keep_layers)
        #: Whether this connection took over a kept session's layers.
        self.resumed = False
        # Layers of a taken-over session in no tree (held, so they are not destroyed).
        self._orphans: List[Layer] = []
        welcome = self._hello()
        self._welcomed(welcome)
        if welcome.snapshot:
            self._orphans = take_over(self, welcome.snapshot)
            self.resumed = True

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Commits what is pending (if the connection is still up) and closes it. laminad
        removes this client's layers."""
        self._user_closed = True
        if self._closed is None:
            with contextlib.suppress(LaminaError, OSError):
                if not self._frames:
                    self._send_pending()
            self._closed = ConnectionClosed("the connection is closed")
            with contextlib.suppress(OSError):
                self._sock.close()

    # MARK: Transactions

    @contextlib.contextmanager
    def transaction(self, duration: Optional[float] = None, timing_function: TimingFunctionLike = UNSET,
                    disable_actions: Optional[bool] = None,
                    completion: Optional[Callable[[], Any]] = None) -> Iterator[Transaction]:
        """``CATransaction``: changes inside the block are committed together when the
        outermost transaction ends, and animate (implicitly) with these settings.

        `duration` (default 0.25 s) and `timing_function` (default: laminad's ``default``
        curve) are those of implicit animations, and of explicit ones with a duration of 0;
        `disable_actions` turns implicit animations off. Unset settings are inherited from the
        enclosing transaction. `completion` is called once every animation added in the
        transaction has stopped (from a later call on this connection: `sync`, a request,
        `poll_events`…).
        """
        group = 0
        if completion is not None:
            group = self._next_group
            self._next_group += 1
            self._completions[group] = completion
        frame = Transaction(duration, UNSET if timing_function is UNSET else _timing_function(timing_function),
                            disable_actions, completion, group)
        self._frames.append(frame)
        try:
            yield frame
        finally:
            self._frames.pop()
            if group:
                self._closed_groups.append(frame)
            if not self._frames:
                self._resilient(self._send_pending)

    def commit(self) -> None:
        """Sends the changes made outside any transaction (Core Animation's implicit
        transaction) as one commit. Inside an open ``with transaction()`` it raises: those
        changes are committed when the outermost transaction ends."""
        if self._frames:
            raise LaminaError("commit() inside an open transaction: its changes are committed when the outermost "
                              "`with connection.transaction()` block ends")
        self._resilient(self._send_pending)

    #: The same as `commit` (``CATransaction.flush``).
    flush = commit

    @property
    def has_uncommitted_changes(self) -> bool:
        return any(e is not None for e in self._pending) or bool(self._image_ops or self._image_destroys or self._released or self._tile_ops)

    # MARK: Videos

    def video(self, source: str) -> Video:
        """A video laminad decodes (protocol 1.6): `source` is a URI GStreamer reads
        (``file:///…``, ``http://…``) or a path on this machine (relative to the working
        directory), which laminad, running here, opens itself. It is created in laminad with the
        next commit, paused at 0; show it with ``layer.video = video``. Its events (`VideoEvent`:
        ready, playing, paused, ended, error) arrive on ``video.on_event``, in ``video.events``,
        ``video.wait_for(kind)``, `poll_events` and `on_event`. Raises FileNotFoundError for a
        path that is not readable, LaminaError when laminad is older than protocol 1.6."""
        if self.server_version < (1, 6):
            raise LaminaError(f"laminad speaks protocol {self.server_version[0]}.{self.server_version[1]}; videos need 1.6")
        uri = _resolve_video(source)
        number = self._next_image
        self._next_image += 1
        video = Video(self, number, uri)
        self._videos[number] = video
        self._image_ops.append(wire.CreateVideo(number, uri))
        return video

    # MARK: Display links

    def display_link(self, callback: Callable[[Any], Any], output: str = "", paused: bool = False,
                     preferred_frame_rate_range: Any = None) -> Any:
        """A display link (``CADisplayLink``, protocol 1.7), running at once unless `paused`,
        following `output` (an output's name; "" the fastest): `callback(link)` runs at each
        refresh from `poll_events` (and every call that reads laminad's messages) with
        ``link.timestamp``, ``link.target_timestamp`` and ``link.duration`` set; what it changes
        is committed after it and shown at the target. Returns the `lamina.DisplayLink`
        (``is_paused``, ``preferred_frame_rate_range``, ``output``, ``invalidate()``). Raises
        LaminaError for laminad's refusals (a bad range, an unknown output, the budget)."""
        if preferred_frame_rate_range is not None and not isinstance(preferred_frame_rate_range, _display_link.FrameRateRange):
            preferred_frame_rate_range = _display_link.FrameRateRange(*preferred_frame_rate_range)
        return _display_link.make(self, callback, output, paused, preferred_frame_rate_range)

    # MARK: App windows (lamina.apps)

    def manage_apps(self) -> None:
        """Manages the Wayland apps laminad hosts (protocol 1.7, privileged): app windows are no
        longer shown full screen (kiosk mode) but where this client's layers show them
        (``layer.contents = surface``). An `AppSurfaceEvent` "appeared" comes for each window up
        before this returns, and for each one to come; "changed" when a title, app id or size
        changes; "gone" (with `reason`) when one goes — to `on_app_surface`, `on_event`,
        `poll_events`; `app_surfaces` holds the windows up. Kept across reconnections. Raises
        LaminaError when laminad refuses (not privileged, older than 1.7)."""
        if self.server_version < (1, 7):
            raise LaminaError(f"laminad speaks protocol {self.server_version[0]}.{self.server_version[1]}; managing apps needs 1.7")
        self._request("manageApps", "manage")
        self._manages_apps = True

    def stop_managing_apps(self) -> None:
        """Stops managing apps; kiosk mode comes back once no client manages them. Layers
        showing windows show them no more."""
        self._manages_apps = False
        self.app_surfaces.clear()
        self._request("manageApps", "stop")

    def focus_app(self, surface: Union[AppSurface, int, None]) -> None:
        """Gives app window `surface` (an `AppSurface` or its number) the keyboard: its keys go
        to it until a press lands elsewhere or another focus request. None (or 0) takes the
        keyboard back to this client. Raises LaminaError for a window that is not up, or when
        this client does not manage apps."""
        self._request("manageApps", "focus", _app_number(surface, allow_none=True))

    def close_app(self, surface: Union[AppSurface, int]) -> None:
        """Asks app window `surface` to close (``xdg_toplevel.close``): the app decides (it may
        ask to save first); a "gone" event follows if it does."""
        self._request("manageApps", "close", _app_number(surface, allow_none=False))

    def _video_operation(self, op: wire.Operation) -> None:
        """A video's control, sent with the next commit after its create, in order."""
        self._image_ops.append(op)

    def _wait_for_messages(self, timeout: float) -> None:
        """Reads and handles what laminad sends within `timeout` seconds, running callbacks."""
        try:
            self._handle_all(self._resilient(lambda: self._read(timeout)))
        finally:
            self._dispatch()

    # MARK: Waiting for laminad

    def sync(self) -> None:
        """Commits pending changes (outside a transaction), then waits until laminad has
        answered every commit sent. Raises the first `LaminaError` laminad reported about a
        commit since the last `sync` (a refused commit changed nothing in laminad; this client's
        layer objects keep the refused values)."""
        def wait() -> None:
            if not self._frames:
                self._send_pending()
            while self._answered < self._serial:
                self._handle_all(self._read(None))
        try:
            self._resilient(wait)
            if self._unreported:
                error = self._unreported[0]
                self._unreported.clear()
                raise error
        finally:
            self._dispatch()

    def _request(self, kind: str, *args: Any) -> Any:
        def ask() -> Any:
            if not self._frames:
                self._send_pending()
            return self._exchange(kind, *args)
        try:
            answer = self._resilient(ask)
        finally:
            self._dispatch()
        if isinstance(answer, LaminaError):
            raise answer
        return answer.value

    # MARK: Events

    def poll_events(self) -> List[Event]:
        """The events that have arrived and not been handed out yet, reading what laminad has
        sent without waiting. Their callbacks have run."""
        self._resilient(lambda: self._handle_all(self._read(0)))
        self._dispatch()
        events = list(self._events)
        self._events.clear()
        return events

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Yields events as they arrive; stops when none arrives within `timeout` seconds (None:
        waits until the connection closes). With the virtual clock, events follow
        `advance_clock`, so ``poll_events()`` after it is usually what a test wants."""
        while True:
            if self._events:
                yield self._events.popleft()
                continue
            messages = self._resilient(lambda: self._read(timeout))
            if not messages:
                return
            self._handle_all(messages)
            self._dispatch()

    # MARK: Kept sessions

    def layer_named(self, name: str) -> Optional[Layer]:
        """The first layer (by number) whose `name` is `name`: how a program finds the layers of a
        session it took over."""
        for _, layer in sorted(self._layers.items()):
            if layer._values.get(protocol.PROPERTIES_BY_NAME["name"].id) == name:
                return layer
        return None


def _app_number(surface: Union[AppSurface, int, None], allow_none: bool) -> int:
    """An app window's number from an `AppSurface` or a number (None: 0 where allowed)."""
    if surface is None and allow_none:
        return 0
    if isinstance(surface, AppSurface):
        return surface.id
    if isinstance(surface, int) and not isinstance(surface, bool) and (0 if allow_none else 1) <= surface <= 0xFFFFFFFF:
        return surface
    raise ValueError(f"an app window is a lamina.AppSurface or its number, not {surface!r}")
