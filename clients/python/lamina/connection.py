"""The connection to laminad: the client's root layer, transactions, requests and events.

A connection is synchronous: calls that need an answer (`Connection.sync`, `screenshot`,
`advance_clock`, …) send, then read until the answer is there. Events that arrive meanwhile
(animation starts and stops, completed transactions, input) are queued; their callbacks run when
the call returns, never in the middle of one, and `Connection.poll_events` / `Connection.events`
hand them out too. A connection is not thread-safe: use it from one thread.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import select
import socket
import time
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Set, Tuple, Union

from . import protocol, wire
from .animation import Animation, EncodedAnimation
from .errors import ConnectionClosed, LaminaError, ProtocolViolation
from .image import Image, SessionImage
from .layer import (AnimationEvent, GradientLayer, InputEvent, Layer, Presentation, ReplicatorLayer, ShapeLayer, TextLayer,
                    TransformLayer, _action_operation, _copy as _copy_animation, _insert)
from .png import encode_png, write_png
from .protocol import Property
from .values import TimingFunction, TimingFunctionLike, timing_function as _timing_function
from .video import Video, VideoEvent, resolve as _resolve_video

_UNSET: Any = object()


# MARK: Events


@dataclass
class TransactionCompleted:
    """Every animation of a transaction with a completion callback has stopped."""

    group: int


@dataclass
class WatchEvent:
    """A line laminad streams to `Connection.watch` and `Connection.listen` connections."""

    data: Dict[str, Any]


Event = Union[AnimationEvent, TransactionCompleted, InputEvent, WatchEvent, VideoEvent]


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


# MARK: Transactions


class Transaction:
    """One open ``with connection.transaction(...)`` block (``CATransaction``). Its settings
    apply to the changes made inside it after they are set, and are inherited by nested
    transactions; assigning an attribute inside the block changes them from then on."""

    def __init__(self, duration: Optional[float], timing: Any, disable_actions: Optional[bool],
                 completion: Optional[Callable[[], Any]], group: int) -> None:
        self.duration = duration
        self._timing = timing
        self.disable_actions = disable_actions
        self.completion = completion
        self.group = group

    @property
    def timing_function(self) -> Optional[TimingFunction]:
        return None if self._timing is _UNSET else self._timing

    @timing_function.setter
    def timing_function(self, value: TimingFunctionLike) -> None:
        self._timing = _timing_function(value)


# MARK: Connection


def socket_candidates(path: Optional[str] = None) -> List[str]:
    """Where `connect` looks for laminad, in order: `path`; else ``$LAMINA_SOCKET``; else
    ``$XDG_RUNTIME_DIR/lamina-0`` and then ``/run/lamina/lamina.sock`` (laminactl's lookup, with
    the system socket also tried when the user one is not there)."""
    if path:
        return [path]
    env = os.environ.get(protocol.SOCKET_ENVIRONMENT)
    if env:
        return [env]
    candidates = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        candidates.append(os.path.join(runtime, protocol.USER_SOCKET_NAME))
    candidates.append(protocol.SYSTEM_SOCKET)
    return candidates


@dataclass(frozen=True)
class ReconnectPolicy:
    """How a connection comes back when laminad goes away (a crash, a restart), as Swift's
    ``Connection.ReconnectPolicy``: the call that finds the connection gone connects again,
    after `initial_delay` seconds and then doubling the wait up to `maximum_delay`, at most
    `maximum_attempts` times in that call (None: until it succeeds), and replays the whole model
    on the new connection with actions disabled (in commits under laminad's limits): every layer
    this connection made (alive in the program) with its values, sublayers, actions and explicit
    animations, its images and its videos. Once laminad applied it, the call goes on: a commit's
    changes were in the replay, a `sync` has waited for it, a request is sent again. An operation
    of the replay that laminad refuses (a value it refused before, which the layer kept) is left
    out, the value going back to the one before it; laminad still refusing the replay closes the
    connection for good (``gave_up``).

    Explicit animations are re-timed as the Swift library does: on the real clock each carries
    on where it would have been; on a virtual clock, from where it was when laminad went away.
    Unlike the Swift library, videos start again from 0 (with their loop, rate and play state).
    A kept session laminad still holds is taken over again: laminad's copy is replaced by the
    replay in its first commit (docs/clients.md)."""
    initial_delay: float = 0.05
    maximum_delay: float = 2.0
    maximum_attempts: Optional[int] = None


#: The largest layer or image number a taken-over session may bring (numbers are 32-bit and
#: this client counts up from the largest).
_MAX_RESTORED_NUMBER = 1 << 22


@dataclass(frozen=True)
class ConnectionEvent:
    """What ``Connection.on_connection_event`` hears: ``"disconnected"`` (laminad went away:
    `error` says how), ``"reconnected"`` (after `attempts` tries, the model replayed; `error` is
    laminad's first refusal of an operation the replay then left out, and `left_out` how many it
    left out) or ``"gave_up"`` (`maximum_attempts` failed: the connection is closed; `error` is
    the last failure)."""
    kind: str
    attempts: int = 0
    error: Optional[LaminaError] = None
    left_out: int = 0


def _open(path: Optional[str]) -> Tuple[socket.socket, str]:
    """A socket connected to laminad at `path` (or the default lookup), with the path."""
    failures = []
    for candidate in socket_candidates(path):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(candidate)
        except OSError as e:
            sock.close()
            failures.append(f"{candidate}: {e.strerror or e}")
            continue
        return sock, candidate
    raise ConnectionClosed("cannot connect to laminad: " + "; ".join(failures))


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
    sock, where = _open(path)
    policy = ReconnectPolicy() if reconnect is True else (reconnect or None)
    return Connection(sock, where, name, reconnect=policy, session=session, keep_layers=keep_layers)


class Connection:
    """A client's connection to laminad; made by `lamina.connect`. Usable as a context manager
    (closing at the end)."""

    def __init__(self, sock: socket.socket, path: str, name: str, reconnect: Optional[ReconnectPolicy] = None,
                 session: str = "", keep_layers: bool = False) -> None:
        self._sock = sock
        self.path = path
        self._name = name
        self._session = session
        self._keep_layers = keep_layers
        #: Whether this connection took over a kept session's layers.
        self.resumed = False
        # Layers of a taken-over session in no tree (held, so they are not destroyed).
        self._orphans: List[Layer] = []
        self._policy = reconnect
        self._user_closed = False
        self._reconnecting = False
        #: Called with a `ConnectionEvent` when laminad goes away and when the connection is
        #: back (only with a reconnect policy).
        self.on_connection_event: Optional[Callable[[ConnectionEvent], Any]] = None
        self._decoder = wire.FrameDecoder()
        self._closed: Optional[LaminaError] = None
        self._fatal: Optional[LaminaError] = None
        self._serial = 0
        self._answered = 0
        self._unreported: List[LaminaError] = []
        self._next_request = 1
        self._replies: Dict[int, Union[wire.Reply, LaminaError]] = {}
        self._events: Deque[Event] = collections.deque(maxlen=65536)
        self._undispatched: Deque[Event] = collections.deque()
        self._dispatching = False

        self._pending: List[Optional[Tuple[wire.Settings, wire.Operation]]] = []
        self._pending_sets: Dict[Tuple[int, int], int] = {}
        self._image_ops: List[wire.Operation] = []
        self._image_fds: List[int] = []
        # The images whose descriptors wait in _image_fds: alive (their files open) until sent.
        self._image_keep: List[Image] = []
        self._image_destroys: List[wire.Operation] = []
        self._released: List[wire.Operation] = []
        self._frames: List[Transaction] = []
        self._closed_groups: List[Transaction] = []
        self._completions: Dict[int, Callable[[], Any]] = {}
        self._next_group = 1
        self._next_layer = 1
        self._next_image = 1
        self._next_tag = 1
        self._tags: Dict[int, Tuple[Any, str, Animation, Any, Any]] = {}
        #: Each tagged animation's beginTime resolved in its layer's time (for a replay).
        self._begins: Dict[int, float] = {}
        #: Tags of animations that ran to their end and stay (not removed on completion).
        self._finished: Set[int] = set()
        #: Tags whose start was reported (a replay's start is not reported again).
        self._started: Set[int] = set()
        self._layers: "weakref.WeakValueDictionary[int, Layer]" = weakref.WeakValueDictionary()
        self._images: Any = weakref.WeakKeyDictionary()
        self._videos: "weakref.WeakValueDictionary[int, Video]" = weakref.WeakValueDictionary()

        welcome = self._hello()
        #: Called with every event, after the layer and animation callbacks.
        self.on_event: Optional[Callable[[Event], Any]] = None

        root = Layer()
        root._conn = self
        root._id = 0
        self._layers[0] = root
        self._root = root
        self._welcomed(welcome)
        if welcome.snapshot:
            self._restore(welcome.snapshot)
            self.resumed = True

    def _hello(self) -> "wire.Welcome":
        """Says hello on the current socket and reads the welcome (the socket is closed if
        laminad refuses)."""
        self._send(wire.encode_hello(self._name, self._session, protocol.HELLO_KEEP_LAYERS if self._keep_layers else 0))
        while True:
            for msg in self._read(None):
                if isinstance(msg, wire.Welcome):
                    return msg
                self._sock.close()
                if isinstance(msg, LaminaError):
                    raise msg
                raise ProtocolViolation(f"laminad answered hello with {msg!r}")

    def _welcomed(self, welcome: "wire.Welcome") -> None:
        #: The server's version, number for this client, display size and clock.
        self.server_version = (welcome.major, welcome.minor)
        self.client_id = welcome.client_id
        self.display_size = (welcome.display_width, welcome.display_height)
        self.clock = welcome.clock
        #: The clock's time as of the welcome and the last `advance_clock`.
        self.time = welcome.time
        self._root._values[1] = (0.0, 0.0, float(welcome.display_width), float(welcome.display_height))
        self._root._values[2] = (welcome.display_width / 2, welcome.display_height / 2)

    @property
    def root(self) -> Layer:
        """This client's root layer (number 0): laminad sizes it to the display. Add layers to
        it to show them."""
        return self._root

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
    def transaction(self, duration: Optional[float] = None, timing_function: TimingFunctionLike = _UNSET,
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
        frame = Transaction(duration, _UNSET if timing_function is _UNSET else _timing_function(timing_function),
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

    def _settings(self) -> wire.Settings:
        duration = protocol.DEFAULT_TRANSACTION_DURATION
        tf: Optional[TimingFunction] = None
        disable = False
        groups = []
        for f in self._frames:
            if f.duration is not None:
                duration = float(f.duration)
            if f._timing is not _UNSET:
                tf = f._timing
            if f.disable_actions is not None:
                disable = bool(f.disable_actions)
            if f.group:
                groups.append(f.group)
        return wire.Settings(duration, tf, disable, tuple(groups))

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
        return any(e is not None for e in self._pending) or bool(self._image_ops or self._image_destroys or self._released)

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

    def _video_operation(self, op: wire.Operation) -> None:
        """A video's control, sent with the next commit after its create, in order."""
        self._image_ops.append(op)

    def _wait_for_messages(self, timeout: float) -> None:
        """Reads and handles what laminad sends within `timeout` seconds, running callbacks."""
        try:
            self._handle_all(self._resilient(lambda: self._read(timeout)))
        finally:
            self._dispatch()

    # MARK: Requests

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

    def display_power(self, on: bool, output: str = "") -> Tuple[str, List[Tuple[str, bool]]]:
        """Blanks (`on` False) or lights displays (privileged): `output`, or every one when
        empty. Returns the backend's name and each output's state afterwards."""
        return self._request("displayPower", on, output)

    def _exchange(self, kind: str, *args: Any) -> Any:
        """Sends a request and reads until its answer (a reply or a `LaminaError`), dispatching
        nothing."""
        ident = self._next_request
        self._next_request = ident + 1 if ident < 0xFFFFFFFF else 1
        self._send(wire.encode_request(ident, kind, *args))
        while ident not in self._replies:
            self._handle_all(self._read(None))
        return self._replies.pop(ident)

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

    # MARK: Reconnection

    #: A replay is split into commits of at most this many operations, descriptors and bytes,
    #: under laminad's per-commit and per-frame limits and the kernel's descriptors per message.
    REPLAY_OPERATIONS = 20_000
    REPLAY_DESCRIPTORS = 200
    REPLAY_BYTES = 4 << 20

    def _resilient(self, body: Callable[[], Any]) -> Any:
        """Runs `body`; where it finds laminad gone and a reconnect policy is set, connects
        again, replays the model and runs `body` again (the replay carried every change, so a
        commit sends nothing twice), within one budget of attempts for the whole call. Without a
        policy, or inside a reconnection (an `on_connection_event` handler calling back), the
        `ConnectionClosed` propagates."""
        budget: List[float] = []  # [attempts made, next delay], shared by every round of this call
        while True:
            try:
                return body()
            except ConnectionClosed as error:
                if self._policy is None or self._user_closed or self._reconnecting:
                    raise
                self._reconnect(error, budget)

    def _connection_event(self, event: ConnectionEvent) -> None:
        if self.on_connection_event is not None:
            self.on_connection_event(event)

    def _reconnect(self, error: LaminaError, budget: List[float]) -> None:
        policy = self._policy
        assert policy is not None
        if not budget:
            budget += [0, max(0.0, policy.initial_delay)]
        self._reconnecting = True
        try:
            self._connection_event(ConnectionEvent("disconnected", int(budget[0]), error))
            last = error
            while True:
                attempts, delay = int(budget[0]), budget[1]
                if policy.maximum_attempts is not None and attempts >= policy.maximum_attempts:
                    self._give_up(f"gave up reconnecting to laminad after {attempts} attempts: {last}", attempts, last)
                attempts += 1
                budget[0], budget[1] = attempts, min(max(delay * 2, 0.001), max(policy.maximum_delay, 0.0))
                time.sleep(delay)
                try:
                    sock, _ = _open(self.path)
                except LaminaError as e:
                    last = e
                    continue
                try:
                    last, was_virtual = self._now(), self.clock == "virtual"
                    self._reset(sock)
                    welcome = self._hello()
                    self._welcomed(welcome)
                    # The real clock kept running through the gap; a virtual one (either side)
                    # jumps from its last reading to the new laminad's.
                    shift = self.time - last if was_virtual or self.clock == "virtual" else 0.0
                    refusal, left_out, first_refusal = self._replay(last, shift, welcome.snapshot)
                except ConnectionClosed as e:
                    last = e
                    self._drop_socket(e)
                    continue
                except BaseException as e:
                    # Anything else (laminad refusing the hello, a bug) must not leave a
                    # half-made connection that looks healthy.
                    self._drop_socket(e if isinstance(e, ConnectionClosed) else ConnectionClosed(f"reconnecting to laminad: {e}"))
                    raise
                if refusal is not None:
                    # laminad took the connection but refused the model: retrying cannot help.
                    self._give_up(f"laminad refused the replayed model: {refusal}", attempts, refusal)
                self._connection_event(ConnectionEvent("reconnected", attempts, first_refusal, left_out))
                return
        finally:
            self._reconnecting = False

    def _give_up(self, message: str, attempts: int, error: LaminaError) -> None:
        self._user_closed = True
        self._drop_socket(ConnectionClosed(message))
        self._connection_event(ConnectionEvent("gave_up", attempts, error))
        assert self._closed is not None
        raise self._closed

    def _drop_socket(self, error: ConnectionClosed) -> None:
        self._closed = error
        with contextlib.suppress(OSError):
            self._sock.close()

    def _reset(self, sock: socket.socket) -> None:
        """Forgets the old connection's traffic: what it had pending went away with it (the
        replay sends the model as it is now). Refusals of its commits not yet reported stay,
        for the next `sync`."""
        with contextlib.suppress(OSError):
            self._sock.close()
        self._sock = sock
        self._decoder = wire.FrameDecoder()
        self._closed = None
        self._fatal = None
        self._serial = 0
        self._answered = 0
        self._replies.clear()
        self._pending = []
        self._pending_sets = {}
        self._image_ops = []
        self._image_fds = []
        self._image_keep = []
        # Completions of transactions already ended: their animations start again without them.
        # Those of transactions still open wait for their animations as usual.
        open_groups = {f.group for f in self._frames if f.group}
        for group in list(self._completions):
            if group not in open_groups:
                self._undispatched.append(TransactionCompleted(group))
        self._closed_groups = []
        for video in list(self._videos.values()):
            video._reconnected()

    def _replay(self, last: float = 0.0, shift: float = 0.0, held: Sequence[wire.Operation] = ()) -> Tuple[Optional[LaminaError], int, Optional[LaminaError]]:
        """Sends the model on the new connection, in commits with actions disabled: images and
        videos, then every live layer's create, its values, its sublayers in order, its actions
        and explicit animations (re-timed: each keeps the beginTime it was given, moved by how
        far the clock jumped in the layer's time, `shift` from `last`); then waits until laminad
        answered them. `held`: the snapshot of a kept session laminad still holds (it dropped
        this client, or brought the session back from its journal): its layers, and this
        connection's images its layers show, are destroyed at the start of the first commit,
        which makes them again (a separate commit would let laminad drop an earlier client's
        images no layer shows), and animations are replayed under new tags. Returns laminad's
        refusal that ended it (None when it was applied), how many operations laminad refused and
        the replay left out, and the first such refusal."""
        images = sorted(((number, image) for image, number in self._images.items()), key=lambda pair: pair[0])
        videos = sorted(self._videos.items())
        layers = sorted(self._layers.items())
        # Finished animations removed since (by key or all): forgotten.
        held_tags = {tag for _, l in layers for tag, _ in l._animations.values()}
        for tag in self._finished - held_tags:
            self._begins.pop(tag, None)
        self._finished &= held_tags
        # The objects above are held now; destroys queued before are of objects gone already,
        # which the new laminad never had.
        self._image_destroys.clear()
        self._released.clear()
        ops: List[Tuple[wire.Operation, Optional[int]]] = []
        sources: Dict[int, Tuple[Layer, int]] = {}  # a value's set operation → its layer and property
        renumber = bool(held)
        shown = {op.value for op in held if isinstance(op, wire.Set) and protocol.PROPERTIES_BY_ID[op.property].type == "image"}
        # The animations laminad runs there that this connection did not add (an earlier
        # program's): the destroys would end them, so they are added again as laminad has them.
        foreign = self._held_animations() if held else []
        ops += [(wire.Destroy(op.layer), None) for op in held if isinstance(op, wire.Create)]
        ops += [(wire.DestroyImage(number), None) for number, _ in images if number in shown]
        ops += [(wire.DestroyImage(number), None) for number, video in videos if number in shown and not video.closed]
        for number, image in images:
            ops.append((wire.CreateImage(number, image.width, image.height, image.width * 4, image.order, image.alpha, 0), image.fd))
        for number, video in videos:
            if video.closed:
                continue
            ops.append((wire.CreateVideo(number, video.uri), None))
            if video.loop:
                ops.append((wire.ControlVideo(number, "loop", True), None))
            if video.rate != 1.0:
                ops.append((wire.ControlVideo(number, "rate", video.rate), None))
            if video._play_requested:
                ops.append((wire.ControlVideo(number, "play", None), None))
        ops += [(wire.Create(i, protocol.LAYER_KINDS[l._kind]), None) for i, l in layers if i != 0]
        for i, l in layers:
            for prop_id in list(l._values):
                if i == 0 and prop_id in (1, 2):
                    continue  # the root's bounds and position are laminad's
                op = wire.Set(i, prop_id, self._wire_value(l, protocol.PROPERTIES_BY_ID[prop_id], replaying=True))
                sources[id(op)] = (l, prop_id)
                ops.append((op, None))
        for i, l in layers:
            ops += [(_insert(l, s, protocol.APPEND), None) for s in l._sublayers]
            ops += [(_action_operation(i, dictionary, key, action), None)  # type: ignore[arg-type]
                    for (dictionary, key), action in l._actions.items()]
            move = self._layer_time(l, last + shift) - self._layer_time(l, last) if shift else 0.0
            for key, (tag, animation) in list(l._animations.items()):
                begin = self._begins.get(tag, animation.begin_time) + move
                if renumber and tag not in self._finished:
                    # laminad's own copy, destroyed above, reports its stop under the old tag.
                    new_tag = self._next_tag
                    self._next_tag = new_tag + 1 if new_tag < 0xFFFFFFFF else 1
                    if tag in self._tags:
                        self._tags[new_tag] = self._tags.pop(tag)
                    if tag in self._started:
                        self._started.discard(tag)
                        self._started.add(new_tag)
                    self._begins.pop(tag, None)
                    l._animations[key] = (new_tag, animation)
                    tag = new_tag
                self._begins[tag] = begin  # in the new laminad's time from now on
                if begin == 0:
                    begin = -1e-9  # 0 would read as "when added": an instant before it
                retimed = _copy_animation(animation)
                retimed.begin_time = begin
                # A finished one (held at its end) has reported all its events: untagged.
                ops.append((wire.AddAnimation(i, key, 0 if tag in self._finished else tag, retimed.encode()), None))
        ops += [(op, None) for op in foreign]
        return self._send_replay(ops, sources)

    #: How many refused operations a replay leaves out before it gives up.
    REPLAY_LEFT_OUT = 64

    def _send_replay(self, ops: List[Tuple[wire.Operation, Optional[int]]],
                     sources: Optional[Dict[int, Tuple[Layer, int]]] = None) -> Tuple[Optional[LaminaError], int, Optional[LaminaError]]:
        """`ops` (with the descriptor each carries) as commits under the replay's limits, each
        waited for. An operation laminad refuses (a refused change the layers kept: a negative
        size, an unknown gravity) is left out and its commit sent again without it, up to
        `REPLAY_LEFT_OUT` times; a refused value goes back to the one before it (what laminad
        showed), or to the default, on its layer too."""
        settings = wire.Settings(disable_actions=True)
        left_out: List[LaminaError] = []
        start = 0
        while start < len(ops):
            body, fds, end = wire.Writer(), [], start  # type: ignore[var-annotated]
            while end < len(ops):
                op, fd = ops[end]
                if end > start and (end - start >= self.REPLAY_OPERATIONS or len(body.buffer) >= self.REPLAY_BYTES
                                    or (fd is not None and len(fds) >= self.REPLAY_DESCRIPTORS)):
                    break
                wire.write_operation(body, op)
                if fd is not None:
                    fds.append(fd)
                end += 1
            self._serial += 1
            head = wire.Writer()
            head.u32(self._serial)
            head.u32(end - start + 1)
            wire.write_operation(head, settings)
            earlier = len(self._unreported)
            self._send(wire.frame(protocol.MSG_COMMIT, head.buffer + body.buffer), fds)
            while self._answered < self._serial:
                self._handle_all(self._read(None))
            if len(self._unreported) == earlier:
                start = end
                continue
            refusal = self._unreported[earlier]
            del self._unreported[earlier:]
            index = refusal.operation_index - 1  # the settings operation comes first
            if not 0 <= index < end - start or len(left_out) >= self.REPLAY_LEFT_OUT:
                return refusal, len(left_out), left_out[0] if left_out else None
            left_out.append(refusal)
            source = (sources or {}).get(id(ops[start + index][0]))
            if source is not None:
                layer, prop_id = source
                prop = protocol.PROPERTIES_BY_ID[prop_id]
                if prop_id in layer._previous:
                    layer._values[prop_id] = layer._previous.pop(prop_id)
                    op = wire.Set(layer._id or 0, prop_id, self._wire_value(layer, prop, replaying=True))
                    assert sources is not None
                    sources[id(op)] = source
                    ops[start + index] = (op, None)
                    continue  # that commit again, with the value before
                layer._values.pop(prop_id, None)
            del ops[start + index]  # and that commit again, without it
        return None, len(left_out), left_out[0] if left_out else None

    # MARK: Reading

    def _read(self, timeout: Optional[float]) -> List[wire.ServerMessage]:
        """The messages of whatever laminad sends next: waits up to `timeout` (None: forever)
        for the first bytes, then decodes every whole frame there is. [] on timeout."""
        if self._closed is not None:
            raise self._closed
        messages: List[wire.ServerMessage] = []
        while True:
            frame = self._decoder.next()
            if frame is not None:
                messages.append(wire.decode_server(*frame))
                continue
            if messages:
                return messages
            ready, _, _ = select.select([self._sock], [], [], timeout)
            if not ready:
                return messages
            try:
                data = self._sock.recv(1 << 20)
            except OSError as e:
                data = b""
                reason = f"reading from laminad: {e}"
            else:
                reason = "laminad closed the connection"
            if not data:
                # A connection-level error (malformed frame, …) says why laminad closed it.
                fatal = self._fatal
                self._closed = ConnectionClosed(f"{reason}: {fatal}" if fatal else reason,
                                                code=fatal.code if fatal else None)
                with contextlib.suppress(OSError):
                    self._sock.close()
                raise self._closed
            self._decoder.append(data)
            timeout = 0

    def _handle_all(self, messages: List[wire.ServerMessage]) -> None:
        for m in messages:
            self._handle(m)

    def _handle(self, m: wire.ServerMessage) -> None:
        if isinstance(m, wire.Applied):
            self._answered = max(self._answered, m.serial)
        elif isinstance(m, LaminaError):
            if m.subject == "commit":
                self._answered = max(self._answered, m.serial)
                self._unreported.append(m)
            elif m.subject == "request":
                self._replies[m.serial] = m
            else:
                self._fatal = m
                self._unreported.append(m)
        elif isinstance(m, wire.Reply):
            self._replies[m.id] = m
            if m.kind == "advanced":
                # Before the events that came with it are dispatched, so their callbacks see it.
                self.time = m.value[0]
        elif isinstance(m, wire.AnimationNotice):
            entry = self._tags.get(m.tag)
            if entry is None:
                # Not this connection's: an earlier client's in a taken-over session, or
                # laminad's own copy that a reconnection replaced.
                return
            if m.started:
                if m.tag in self._started:
                    return  # a replayed animation starting again: it was reported once
                self._started.add(m.tag)
            else:
                self._started.discard(m.tag)
            layer = self._layers.get(m.layer)
            key, animation = entry[1], entry[2]
            event = AnimationEvent(layer, key, animation, m.started, m.finished, m.tag)
            if not m.started and layer is not None and layer._animations.get(key, (0,))[0] == m.tag:
                if m.finished and not animation.removed_on_completion:
                    self._finished.add(m.tag)  # it stays on its layer, held at its end
                else:
                    del layer._animations[key]
            self._undispatched.append(event)
        elif isinstance(m, wire.TransactionCompleted):
            self._undispatched.append(TransactionCompleted(m.group))
        elif isinstance(m, wire.ClockMoved):
            # Another client moved the virtual clock: `time` follows it (it only moves forward).
            self.time = max(self.time, m.time)
        elif isinstance(m, wire.WatchLine):
            self._undispatched.append(WatchEvent(json.loads(m.json)))
        elif isinstance(m, wire.InputMessage):
            self._undispatched.append(InputEvent(m.kind, self._layers.get(m.layer), m.layer, m.id, m.location, m.screen,
                                                 m.time, m.device_time, m.delta, m.keysym, m.key_name, m.text, m.injected))
        elif isinstance(m, wire.VideoEvent):
            video = self._videos.get(m.image)
            event = VideoEvent(m.image, m.kind, m.width, m.height, m.duration, m.message,
                               weakref.ref(video) if video is not None else None)
            if video is not None:
                video._received(event)
            self._undispatched.append(event)
        elif isinstance(m, wire.Welcome):
            raise ProtocolViolation("a second welcome from laminad")

    def _dispatch(self) -> None:
        """Runs the callbacks of the events received, in order, outside any read."""
        if self._dispatching:
            return
        self._dispatching = True
        try:
            while self._undispatched:
                event = self._undispatched.popleft()
                self._events.append(event)
                if isinstance(event, AnimationEvent):
                    entry = self._tags.get(event.tag) if event.started else self._tags.pop(event.tag, None)
                    if not event.started and event.tag not in self._finished:
                        self._begins.pop(event.tag, None)
                    callback = None if entry is None else entry[3] if event.started else entry[4]
                    if callback is not None:
                        callback(event)
                elif isinstance(event, TransactionCompleted):
                    completion = self._completions.pop(event.group, None)
                    if completion is not None:
                        completion()
                elif isinstance(event, InputEvent):
                    layer = event.layer
                    while layer is not None and layer.on_input is None:
                        layer = layer.superlayer
                    if layer is not None and layer.on_input is not None:
                        layer.on_input(event)
                elif isinstance(event, VideoEvent):
                    video = event.video
                    if video is not None and video.on_event is not None:
                        video.on_event(event)
                if self.on_event is not None:
                    self.on_event(event)
        finally:
            self._dispatching = False

    # MARK: Sending

    def _send(self, data: bytes, fds: Optional[List[int]] = None) -> None:
        if self._closed is not None:
            raise self._closed
        try:
            if fds:
                # The descriptors ride on the frame's first byte (SCM_RIGHTS); the rest follows plainly.
                sent = socket.send_fds(self._sock, [data], fds)
                if sent == 0:
                    raise OSError("sendmsg sent nothing")
                data = data[sent:]
            self._sock.sendall(data)
        except OSError as e:
            self._closed = ConnectionClosed(f"writing to laminad: {e}")
            raise self._closed from None

    def _send_pending(self) -> None:
        """Sends everything recorded as one commit: image creates and updates first (so a
        `contents` can name a new image), the changes in order under their transaction
        settings, then image destroys and the destroys of layers that were released."""
        ops: List[wire.Operation] = list(self._image_ops)
        current = wire.Settings()
        sent_groups: Set[int] = set()
        for entry in self._pending:
            if entry is None:
                continue
            settings, op = entry
            if settings != current:
                ops.append(settings)
                current = settings
                sent_groups.update(settings.completion_groups)
            ops.append(op)
        ops += self._image_destroys
        ops += self._released
        fds = self._image_fds
        keep = self._image_keep
        self._image_keep = []
        self._pending = []
        self._pending_sets = {}
        self._image_ops = []
        self._image_fds = []
        # Cleared in place: finalizers of released layers and images append to these lists.
        self._image_destroys.clear()
        self._released.clear()
        # A transaction with a completion that sent nothing completes at once (after this commit).
        for frame in self._closed_groups:
            if frame.group not in sent_groups:
                self._undispatched.append(TransactionCompleted(frame.group))
        self._closed_groups = []
        if ops:
            self._serial = self._serial + 1 if self._serial < 0xFFFFFFFF else 1
            self._send(wire.encode_commit(self._serial, ops), fds)
        del keep

    def _queue(self, op: wire.Operation) -> None:
        self._pending.append((self._settings(), op))

    # MARK: Bookkeeping for layers

    def _attach(self, layer: Layer) -> None:
        """Puts `layer`, its sublayers and masks on this connection (if they are not yet):
        numbers, creates, their values, their sublayers, actions and animations."""
        new: List[Layer] = []

        def collect(l: Layer) -> None:
            if l._conn is self:
                return
            if l._conn is not None:
                raise ValueError(f"{l!r} belongs to another connection")
            new.append(l)
            l._conn = self
            for s in l._sublayers:
                collect(s)
            mask = l._values.get(35)
            if mask is not None:
                collect(mask)

        collect(layer)
        for l in new:
            l._id = self._next_layer
            self._next_layer += 1
            self._layers[l._id] = l
            finalizer = weakref.finalize(l, self._released.append, wire.Destroy(l._id))
            finalizer.atexit = False
            self._queue(wire.Create(l._id, protocol.LAYER_KINDS[l._kind]))
        for l in new:
            for prop_id in list(l._values):
                self._note_set(l, protocol.PROPERTIES_BY_ID[prop_id])
        for l in new:
            for i, s in enumerate(l._sublayers):
                self._queue(_insert(l, s, protocol.APPEND))
            for (dictionary, key), action in l._actions.items():
                self._queue(_action_operation(l._id, dictionary, key, action))  # type: ignore[arg-type]
            unsent, l._unsent_animations = l._unsent_animations, []
            for key, animation, on_start, on_stop in unsent:
                self._add_animation(l, key, animation, on_start, on_stop)

    def _wire_value(self, layer: Layer, prop: Property, replaying: bool = False) -> Any:
        """What a property's value is on the wire: layers and images by number (in a replay, an
        image closed since or not yet registered is none: its create went with the old laminad)."""
        value = layer._values.get(prop.id)
        if replaying and prop.type == "image" and isinstance(value, Image) and value not in self._images:
            return 0
        if prop.type == "layer":
            if value is not None:
                self._attach(value)
            return 0 if value is None else value._id
        if prop.type == "image":
            if isinstance(value, SessionImage):
                return value.number
            if isinstance(value, Video):
                if value._conn is not self:
                    raise ValueError(f"{value!r} belongs to another connection (make it with this one's video())")
                return value.number
            return 0 if value is None else self._image_number(value)
        return value

    def _note_set(self, layer: Layer, prop: Property) -> None:
        wire_value = self._wire_value(layer, prop)
        assert layer._id is not None
        key = (layer._id, prop.id)
        earlier = self._pending_sets.get(key)
        if earlier is not None:
            # A value is sent once, at its last change, under the settings of that change.
            self._pending[earlier] = None
        self._pending_sets[key] = len(self._pending)
        self._queue(wire.Set(layer._id, prop.id, wire_value))

    def _add_animation(self, layer: Layer, key: str, animation: Animation, on_start: Any, on_stop: Any) -> None:
        tag = self._next_tag
        self._next_tag = tag + 1 if tag < 0xFFFFFFFF else 1
        self._tags[tag] = (layer, key, animation, on_start, on_stop)
        replaced = layer._animations.get(key)
        if replaced is not None and replaced[0] in self._finished:  # its stop was reported: forgotten now
            self._finished.discard(replaced[0])
            self._begins.pop(replaced[0], None)
        layer._animations[key] = (tag, animation)
        # Where it begins in the layer's time (laminad's reading of a beginTime of 0), so that a
        # replay after a reconnection can carry it on where it was.
        self._begins[tag] = animation.begin_time if animation.begin_time != 0 else self._layer_time(layer, self._now())
        assert layer._id is not None
        self._queue(wire.AddAnimation(layer._id, key, tag, animation.encode()))

    def _now(self) -> float:
        """laminad's clock now: the virtual clock's last known time, or CLOCK_MONOTONIC."""
        return self.time if self.clock == "virtual" else time.monotonic()

    @staticmethod
    def _layer_time(layer: Layer, t: float) -> float:
        """`t` (the display's time) in `layer`'s time: ``convertTime:fromLayer:nil``, down the
        chain of superlayers (beginTime, speed and timeOffset of each)."""
        chain: List[Layer] = []
        seen: Set[int] = set()
        current: Optional[Layer] = layer
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            chain.append(current)
            current = current._superlayer
        for l in reversed(chain):
            t = (t - l._values.get(23, 0.0)) * l._values.get(21, 1.0) + l._values.get(22, 0.0)
        return t

    # MARK: Kept sessions

    def _held_animations(self) -> List[wire.Operation]:
        """laminad's running animations on this session's layers under keys this connection does
        not hold (an earlier program's), from a `snapshot` request, as add-animations (untagged,
        their beginTimes resolved): asked during a reconnection, before the replay."""
        answer = self._exchange("snapshot")
        if isinstance(answer, LaminaError):
            return []
        kept = []
        for op in answer.value:
            layer = self._layers.get(op.layer) if isinstance(op, wire.AddAnimation) else None
            if layer is not None and op.key not in layer._animations:
                kept.append(wire.AddAnimation(op.layer, op.key, 0, op.animation))
        return kept

    def layer_named(self, name: str) -> Optional[Layer]:
        """The first layer (by number) whose `name` is `name`: how a program finds the layers of a
        session it took over."""
        for _, layer in sorted(self._layers.items()):
            if layer._values.get(protocol.PROPERTIES_BY_NAME["name"].id) == name:
                return layer
        return None

    def _restore(self, snapshot: Sequence[wire.Operation]) -> None:
        """Makes the layers of a taken-over session from the welcome's snapshot: their values,
        sublayers and actions (their animations run on in laminad). New layers and images get
        numbers above the session's; tags start far from the earlier client's (laminad reports
        the events of its animations to this connection)."""
        classes = {c._kind: c for c in (Layer, GradientLayer, ShapeLayer, TextLayer, ReplicatorLayer, TransformLayer)}
        kinds = {v: k for k, v in protocol.LAYER_KINDS.items()}
        made: Dict[int, Layer] = {0: self._root}
        references: List[Tuple[Layer, int, int]] = []
        for op in snapshot:
            if isinstance(op, wire.Create):
                if op.layer == 0 or op.layer in made or op.layer > _MAX_RESTORED_NUMBER or (op.kind or 0) not in kinds:
                    raise ProtocolViolation(f"the session snapshot creates layer {op.layer} of kind {op.kind} (a duplicate, the root, too large or unknown)")
                layer = classes.get(kinds.get(op.kind or 0, "layer"), Layer)()
                layer._conn = self
                layer._id = op.layer
                made[op.layer] = layer
                self._layers[op.layer] = layer
                finalizer = weakref.finalize(layer, self._released.append, wire.Destroy(op.layer))
                finalizer.atexit = False
                self._next_layer = max(self._next_layer, op.layer + 1)
            elif isinstance(op, wire.Set) and op.layer in made:
                prop = protocol.PROPERTIES_BY_ID[op.property]
                if prop.type == "layer":
                    references.append((made[op.layer], op.property, op.value))
                elif prop.type == "image":
                    made[op.layer]._values[op.property] = SessionImage(op.value) if op.value else None
                    if op.value <= _MAX_RESTORED_NUMBER:  # (beyond, new numbers never reach it)
                        self._next_image = max(self._next_image, op.value + 1)
                else:
                    made[op.layer]._values[op.property] = op.value
            elif isinstance(op, wire.Insert) and op.parent in made and op.child in made:
                parent, child = made[op.parent], made[op.child]
                if op.child == 0 or child._superlayer is not None or child is parent or child._is_ancestor_of(parent):
                    raise ProtocolViolation(f"the session snapshot inserts layer {op.child} into {op.parent} twice or in a cycle")
                parent._sublayers.insert(min(op.index, len(parent._sublayers)), child)
                child._superlayer = parent
            elif isinstance(op, wire.SetAction) and op.layer in made and op.action != "inherit":
                action = None if op.action == "none" else EncodedAnimation(op.action)  # type: ignore[arg-type]
                made[op.layer]._actions[(op.dictionary, op.key)] = action
        masks = set()
        for layer, prop_id, number in references:
            if number in made:
                layer._values[prop_id] = made[number]
                masks.add(number)
        self._orphans = [l for n, l in made.items() if n != 0 and l._superlayer is None and n not in masks]
        # Tags and completion groups far from the earlier program's (laminad reports both to this one).
        self._next_tag = 0x80000000 | (int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF)
        self._next_group = 0x80000000 | (int.from_bytes(os.urandom(4), "little") & 0x3FFFFFFF)

    def _image_number(self, image: Image) -> int:
        number = self._images.get(image)
        if number is not None:
            return number
        number = self._next_image
        self._next_image += 1
        self._images[image] = number
        self._image_ops.append(wire.CreateImage(number, image.width, image.height, image.width * 4, image.order, image.alpha, 0))
        self._image_fds.append(image.fd)
        self._image_keep.append(image)

        def updated(rect: Tuple[int, int, int, int]) -> None:
            self._image_ops.append(wire.UpdateImage(number, *rect))

        finalizer = weakref.finalize(image, self._image_destroys.append, wire.DestroyImage(number))
        finalizer.atexit = False

        def closed() -> None:
            self._images.pop(image, None)
            finalizer()

        image._holders[self] = (updated, closed)
        return number
