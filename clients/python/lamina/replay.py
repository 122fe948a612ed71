"""The way back after laminad goes away (a crash, a restart): with a `ReconnectPolicy`, the call
that finds the connection gone connects again, says hello, replays the model (healing values
laminad refuses) and runs again. The replay of a kept session laminad still holds takes its
copy over (`lamina.session`).
"""

from __future__ import annotations

import contextlib
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import protocol, wire
from .errors import ConnectionClosed, LaminaError
from .events import TransactionCompleted
from .layer import Layer, _action_operation, _copy as _copy_animation, _insert
from .link import Link, open_socket
from .session import held_animations


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


class ResilientLink(Link):
    """A `Link` that, given a `ReconnectPolicy`, comes back when laminad goes away: every call
    that talks to laminad runs through `_resilient`."""

    #: A replay is split into commits of at most this many operations, descriptors and bytes,
    #: under laminad's per-commit and per-frame limits and the kernel's descriptors per message.
    REPLAY_OPERATIONS = 20_000
    REPLAY_DESCRIPTORS = 200
    REPLAY_BYTES = 4 << 20

    #: How many refused operations a replay leaves out before it gives up.
    REPLAY_LEFT_OUT = 64

    def __init__(self, sock: socket.socket, path: str, name: str, reconnect: Optional[ReconnectPolicy] = None,
                 session: str = "", keep_layers: bool = False) -> None:
        super().__init__(sock, path, name, session, keep_layers)
        self._policy = reconnect
        self._user_closed = False
        self._reconnecting = False
        #: Called with a `ConnectionEvent` when laminad goes away and when the connection is
        #: back (only with a reconnect policy).
        self.on_connection_event: Optional[Callable[[ConnectionEvent], Any]] = None

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
                    sock, _ = open_socket(self.path)
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
                    if refusal is None:
                        self._replay_display_links()
                        self._replay_app_management()
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

    def _replay_display_links(self) -> None:
        """The display links, made again on the new connection as they were (one whose output
        the new laminad lacks follows the fastest)."""
        for number, link in sorted(self._display_links.items()):
            answer = self._exchange("displayLink", number, "set", link._paused, link._range.as_tuple(), link._output)
            if isinstance(answer, LaminaError) and link._output:
                link._output = ""
                self._exchange("displayLink", number, "set", link._paused, link._range.as_tuple(), "")

    def _replay_app_management(self) -> None:
        """Managing apps again: the new connection hears of every window up as it appears (the
        ones of the old connection are forgotten; their numbers may have changed)."""
        if self._manages_apps:
            self.app_surfaces.clear()
            answer = self._exchange("manageApps", "manage")
            if isinstance(answer, LaminaError):
                self._unreported.append(answer)

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
        self._forget_pending()
        # Completions of transactions already ended: their animations start again without them.
        # Those of transactions still open wait for their animations as usual.
        open_groups = {f.group for f in self._frames if f.group}
        for group in list(self._completions):
            if group not in open_groups:
                self._undispatched.append(TransactionCompleted(group))
        self._closed_groups = []
        for video in list(self._videos.values()):
            video._reconnected()

    # MARK: The replay

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
        foreign = held_animations(self) if held else []
        ops += [(wire.Destroy(op.layer), None) for op in held if isinstance(op, wire.Create)]
        ops += [(wire.DestroyImage(number), None) for number, _ in images if number in shown]
        ops += [(wire.DestroyImage(number), None) for number, video in videos if number in shown and not video.closed]
        for number, image in images:
            ops.append((image.create_operation(number), image.fd))
        for number, video in videos:
            if video.closed:
                continue
            ops.append((wire.CreateVideo(number, video.uri), None))
            if video.loop:
                ops.append((wire.ControlVideo(number, "loop", True), None))
            if video.rate != 1.0:
                ops.append((wire.ControlVideo(number, "rate", video.rate), None))
            if video.volume != 1.0:
                ops.append((wire.ControlVideo(number, "volume", video.volume), None))
            if video.muted:
                ops.append((wire.ControlVideo(number, "muted", True), None))
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
