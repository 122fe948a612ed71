"""One connection to laminad and the model it carries, without recovery: the socket (found,
opened, hello and welcome), what is sent (commits of the recorded changes, requests) and what
comes back (answers, refusals, events and their callbacks), and the numbers, tags and values of
the layers, images and videos put on it. `lamina.replay` adds the way back after laminad goes
away; `lamina.connection` the public API on top.
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
from typing import Any, Callable, Deque, Dict, List, Optional, Set, Tuple, Union

from . import emitter, protocol, wire
from .animation import Animation
from .apps import AppSurface, AppSurfaceEvent
from .errors import ConnectionClosed, LaminaError, ProtocolViolation
from .display_link import DisplayLink, FrameEvent
from .events import DisplayChangedEvent, Event, TransactionCompleted, WatchEvent
from .image import Image, SessionImage
from .layer import (AnimationEvent, InputEvent, Layer, ScrollEvent, ScrollLayer, TiledLayer, TilesWantedEvent,
                    _action_operation, _insert)
from .protocol import Property
from .transaction import Transaction, combined_settings
from .video import Video, VideoEvent


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


def open_socket(path: Optional[str]) -> Tuple[socket.socket, str]:
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


class Link:
    """The state of one client's connection and the traffic over it; `lamina.Connection` is
    the one to use. Nothing here reconnects: a lost socket raises `ConnectionClosed`."""

    def __init__(self, sock: socket.socket, path: str, name: str, session: str = "", keep_layers: bool = False) -> None:
        self._sock = sock
        self.path = path
        self._name = name
        self._session = session
        self._keep_layers = keep_layers
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
        #: Gesture recognisers waiting on the clock (lamina.gestures).
        self._waiting_recognizers: "weakref.WeakSet[Any]" = weakref.WeakSet()
        #: Called with every event, after the layer and animation callbacks.
        self.on_event: Optional[Callable[[Event], Any]] = None
        #: Called with each `lamina.AppSurfaceEvent` while this connection manages apps
        #: (`manage_apps`), after `app_surfaces` is updated and before `on_event`.
        self.on_app_surface: Optional[Callable[[AppSurfaceEvent], Any]] = None
        #: The app windows up, by number, while this connection manages apps.
        self.app_surfaces: Dict[int, AppSurface] = {}
        self._manages_apps = False

        self._pending: List[Optional[Tuple[wire.Settings, wire.Operation]]] = []
        self._pending_sets: Dict[Tuple[int, int], int] = {}
        self._image_ops: List[wire.Operation] = []
        self._image_fds: List[int] = []
        # The images whose descriptors wait in _image_fds: alive (their files open) until sent.
        self._image_keep: List[Image] = []
        self._image_destroys: List[wire.Operation] = []
        # Tiles supplied (their images' creates, then supply-tile) and dropped: after the layers.
        self._tile_ops: List[wire.Operation] = []
        self._tile_fds: List[int] = []
        self._tile_keep: List[Image] = []
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
        #: Display links until invalidated, by number (held, as a run loop holds a CADisplayLink).
        self._display_links: Dict[int, DisplayLink] = {}
        self._next_display_link = 1

        root = Layer()
        root._conn = self
        root._id = 0
        self._layers[0] = root
        self._root = root

    # MARK: Hello

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

    # MARK: Reading

    def _exchange(self, kind: str, *args: Any) -> Any:
        """Sends a request and reads until its answer (a reply or a `LaminaError`), dispatching
        nothing."""
        ident = self._next_request
        self._next_request = ident + 1 if ident < 0xFFFFFFFF else 1
        self._send(wire.encode_request(ident, kind, *args))
        while ident not in self._replies:
            self._handle_all(self._read(None))
        return self._replies.pop(ident)

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
        elif isinstance(m, wire.ScrollMessage):
            layer = self._layers.get(m.layer)
            # laminad moved the origin; a set of the bounds not yet sent wins (it ends the scroll).
            if isinstance(layer, ScrollLayer) and (m.layer, 1) not in self._pending_sets:
                layer._scrolled(m.offset)
            self._undispatched.append(ScrollEvent(layer, m.layer, m.phase, m.source, m.offset, m.velocity, m.time))
        elif isinstance(m, wire.TilesWanted):
            self._undispatched.append(TilesWantedEvent(self._layers.get(m.layer), m.layer, m.level, m.tiles))
        elif isinstance(m, wire.DisplayChanged):
            # laminad fitted the root to the new display already: take its values, send nothing.
            self.display_size = (m.width, m.height)
            self._root._values[1] = (0.0, 0.0, float(m.width), float(m.height))
            self._root._values[2] = (m.width / 2, m.height / 2)
            self._undispatched.append(DisplayChangedEvent((m.width, m.height), m.outputs))
        elif isinstance(m, wire.DisplayLinkFrame):
            self._undispatched.append(FrameEvent(m.links, m.timestamp, m.target_timestamp, m.duration))
        elif isinstance(m, wire.AppSurfaceMessage):
            surface = AppSurface(m.id, m.app_id, m.title, m.pid, m.width, m.height)
            if m.kind == "gone":
                self.app_surfaces.pop(m.id, None)
            else:
                self.app_surfaces[m.id] = surface
            self._undispatched.append(AppSurfaceEvent(m.kind, surface, m.reason))
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
                    self._route_input(event)
                elif isinstance(event, TilesWantedEvent):
                    layer = event.layer
                    if isinstance(layer, TiledLayer) and layer.tile_provider is not None:
                        for column, row, _ in event.tiles:
                            image = layer.tile_provider(layer, event.level, column, row)
                            if image is not None:
                                layer.supply_tile(image, column, row, event.level)
                        self._resilient(self._send_tiles)
                elif isinstance(event, ScrollEvent):
                    if isinstance(event.layer, ScrollLayer) and event.layer.on_scroll is not None:
                        event.layer.on_scroll(event)
                elif isinstance(event, VideoEvent):
                    video = event.video
                    if video is not None and video.on_event is not None:
                        video.on_event(event)
                elif isinstance(event, AppSurfaceEvent):
                    if self.on_app_surface is not None:
                        self.on_app_surface(event)
                elif isinstance(event, FrameEvent):
                    try:
                        for number in event.links:
                            link = self._display_links.get(number)
                            if link is not None:
                                link._fire(event)
                    finally:
                        self._answer_frame()
                if self.on_event is not None:
                    self.on_event(event)
            self._tick_recognizers()
        finally:
            self._dispatching = False

    def _route_input(self, event: InputEvent) -> None:
        """The event to the recognisers and handler of its layer, or of the nearest superlayer
        that has any (a responder chain), as the Swift client routes it."""
        if event.kind in ("touchCancel", "pointerCancel"):
            # A cancel may name a layer this client no longer has: every recogniser hears it
            # (each follows only its own touches), so none waits for an end that will not come.
            for layer in list(self._layers.values()):
                for r in list(layer._recognizers):
                    r._handle(event)
        layer = event.layer
        while layer is not None:
            if layer._recognizers and event.kind not in ("touchCancel", "pointerCancel"):
                for r in list(layer._recognizers):
                    r._handle(event)
            if layer.on_input is not None:
                layer.on_input(event)
                return
            if layer._recognizers:
                return
            layer = layer.superlayer

    def _tick_recognizers(self) -> None:
        """Recognisers waiting on the clock (a long press, a double tap's interval) see its
        time now: on the virtual clock after `advance_clock` (or another client's move), on the
        real clock at each `poll_events`."""
        waiting = self.__dict__.get("_waiting_recognizers")
        if not waiting:
            return
        now = self._now()
        for r in list(waiting):
            if r._deadline is None:
                waiting.discard(r)
            else:
                r._time_passed(now)

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

    def _note_needs_layout(self, layer: Any) -> None:
        """`layer` is marked for layout before the next commit (`Layer.set_needs_layout`)."""
        self.__dict__.setdefault("_layout_queue", []).append(layer)

    def _lay_out_marked(self) -> None:
        """Core Animation lays out before it commits: what layout sets joins this commit.
        Bounded: layout that keeps marking layers stops after a few rounds."""
        for _ in range(8):
            queue = self.__dict__.get("_layout_queue") or []
            if not queue:
                return
            self.__dict__["_layout_queue"] = []
            for layer in queue:
                layer.layout_if_needed()

    def _note_needs_display(self, layer: Any) -> None:
        """`layer` is marked to display before the next commit (`Layer.set_needs_display`)."""
        self.__dict__.setdefault("_display_queue", []).append(layer)

    def _display_marked(self) -> None:
        """After layout, before the commit, as Core Animation does: the drawings join it. A layer
        marked again while drawing waits for the next commit."""
        queue = self.__dict__.get("_display_queue") or []
        self.__dict__["_display_queue"] = []
        for layer in queue:
            layer.display_if_needed()

    def _send_pending(self) -> None:
        """Sends everything recorded as one commit: image creates and updates first (so a
        `contents` can name a new image), the changes in order under their transaction
        settings, then image destroys and the destroys of layers that were released."""
        self._lay_out_marked()
        self._display_marked()
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
        ops += self._tile_ops
        ops += self._image_destroys
        ops += self._released
        fds = self._image_fds + self._tile_fds
        keep = self._image_keep + self._tile_keep
        self._forget_pending()
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

    def _answer_frame(self) -> None:
        """Commits what the display links' callbacks changed, or an empty commit: it answers
        the frame, so laminad sends the next (inside an open transaction, its end answers)."""
        if self._frames or self._closed is not None:
            return
        before = self._serial
        self._send_pending()
        if self._serial == before:
            self._serial = self._serial + 1 if self._serial < 0xFFFFFFFF else 1
            self._send(wire.encode_commit(self._serial, []))

    def _forget_pending(self) -> None:
        """Drops the recorded changes and image operations (sent, or gone with a lost connection)."""
        self._pending = []
        self._pending_sets = {}
        self._image_ops = []
        self._image_fds = []
        self._image_keep = []
        self._tile_ops = []
        self._tile_fds = []
        self._tile_keep = []

    def _supply_tile(self, layer_id: int, image: Image, column: int, row: int, level: int) -> None:
        """`image` created as a new number and given to the layer as a tile: laminad takes it,
        so no destroy follows (the number is not reused here)."""
        number = self._next_image
        self._next_image += 1
        self._tile_ops.append(wire.CreateImage(number, image.width, image.height, image.width * 4, image.order, image.alpha, 0))
        self._tile_fds.append(image.fd)
        self._tile_keep.append(image)
        self._tile_ops.append(wire.SupplyTile(layer_id, level, column, row, number))

    def _drop_tiles(self, layer_id: int) -> None:
        self._tile_ops.append(wire.DropTiles(layer_id))

    def _send_tiles(self) -> None:
        """Sends the tiles supplied so far as a commit of their own (a tile provider's answers,
        from the event dispatch: the client's other changes wait for its commit)."""
        if not self._tile_ops:
            return
        ops, fds, keep = self._tile_ops, self._tile_fds, self._tile_keep
        self._tile_ops, self._tile_fds, self._tile_keep = [], [], []
        self._serial = self._serial + 1 if self._serial < 0xFFFFFFFF else 1
        self._send(wire.encode_commit(self._serial, ops), fds)
        del keep

    def _queue(self, op: wire.Operation) -> None:
        self._pending.append((combined_settings(self._frames), op))

    # MARK: Bookkeeping for layers, images and videos

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
            # Marked before it was in a tree: it displays before this commit.
            if getattr(l, "_needs_display", False):
                self._note_needs_display(l)
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
        if prop.type == "emitterCells":
            return emitter.wire(value or (), self._image_number)
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

    def _image_number(self, image: Image) -> int:
        number = self._images.get(image)
        if number is not None:
            return number
        number = self._next_image
        self._next_image += 1
        self._images[image] = number
        self._image_ops.append(image.create_operation(number))
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
