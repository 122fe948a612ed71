"""Layers, as Core Animation's ``CALayer`` and its subclasses.

A layer holds its model values (what was last set, with Core Animation's defaults). It is shown
once it is in the tree under a connection's `Connection.root`; from then on every change is
recorded in the current transaction and sent when the transaction commits.

Properties are snake_case versions of the protocol's names (``background_color`` for
``backgroundColor``): see `lamina.protocol.PROPERTIES` and docs/protocol.md for their types and
defaults. Plain layers have the properties every layer draws; `GradientLayer`, `ShapeLayer`,
`TextLayer`, `ReplicatorLayer` and `ScrollLayer` add their own. `Layer.set_value` sets any property by its
protocol name on any layer.

The events a layer's callbacks receive (`AnimationEvent`, `InputEvent`, `ScrollEvent`) and its `Presentation`
are here too: they name layers, and layers name them. A layer reaches its connection only
through `LayerHost`, so this module does not import the connection's.
"""

from __future__ import annotations

import copy
import difflib
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple, Union

from .drawing import Drawing
from . import emitter, geometry, protocol, scrolling, values
from .animation import Animation
from .apps import AppSurface
from .image import Image, SessionImage
from .protocol import Property
from .video import Video
from .wire import Insert, Operation, Remove, RemoveAllAnimations, RemoveAnimation, SetAction


class _Inherit:
    """The `INHERIT` action: no entry in the dictionary (the search goes on)."""

    def __repr__(self) -> str:
        return "lamina.INHERIT"


#: For `Layer.set_action`: remove the entry, so the action search goes on to the next
#: dictionary and then the default animation.
INHERIT = _Inherit()

Action = Union[Animation, None, _Inherit]


# MARK: What a layer's callbacks and presentation() receive


@dataclass
class AnimationEvent:
    """An explicit animation started (``started``) or stopped; for a stop, ``finished`` says
    whether it ran to the end of its active span (False: removed or replaced first)."""

    layer: Optional[Layer]
    key: str
    animation: Optional[Animation]
    started: bool
    finished: bool
    tag: int


@dataclass
class InputEvent:
    """An input event for one of this client's layers (keys and focus name the root layer).

    ``kind`` is ``"touchDown"``, ``"touchMove"``, ``"touchUp"``, ``"touchCancel"``,
    ``"pointerEnter"``, ``"pointerLeave"``, ``"pointerMove"``, ``"buttonPress"``,
    ``"buttonRelease"``, ``"scroll"``, ``"keyPress"``, ``"keyRelease"``, ``"focusIn"``,
    ``"focusOut"`` or ``"pointerCancel"``; ``location`` is in the layer's own coordinates,
    ``screen`` in display points."""

    kind: str
    layer: Optional[Layer]
    layer_id: int
    id: int
    location: Tuple[float, float]
    screen: Tuple[float, float]
    time: float
    device_time: float
    delta: Tuple[float, float]
    keysym: int
    key_name: str
    text: str
    injected: bool


@dataclass
class ScrollEvent:
    """laminad scrolled one of this client's scroll layers (``scrolls_on_touch``, protocol 1.7).

    ``phase`` is ``"began"``, ``"moved"`` (once per frame that moved it), ``"ended"`` (at rest)
    or ``"interrupted"`` (the client set the origin, or the layer left the tree); ``source`` is
    ``"touch"`` or ``"wheel"``; ``offset`` is the layer's bounds origin now (its ``bounds``
    has taken it already); ``velocity`` in points per second; ``time`` laminad's clock."""

    layer: Optional[Layer]
    layer_id: int
    phase: str
    source: str
    offset: Tuple[float, float]
    velocity: Tuple[float, float]
    time: float


class Presentation(dict):
    """A layer's presentation values by attribute name (``opacity``, ``background_color``, …),
    readable as attributes too. ``contents`` and ``mask`` are wire numbers (0 for none)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no presentation value {name!r}") from None


class LayerHost(Protocol):
    """What a layer asks of the connection it is shown on (a `lamina.Connection`): given to the
    layer rather than imported, so that layers need not know the connection module."""

    @property
    def root(self) -> Layer: ...

    def presentation(self, layer: Layer) -> Presentation: ...

    def _attach(self, layer: Layer) -> None: ...

    def _queue(self, op: Operation) -> None: ...

    def _note_set(self, layer: Layer, prop: Property) -> None: ...

    def _add_animation(self, layer: Layer, key: str, animation: Animation, on_start: Any, on_stop: Any) -> None: ...

    def _supply_tile(self, layer_id: int, image: Any, column: int, row: int, level: int) -> None: ...

    def _drop_tiles(self, layer_id: int) -> None: ...


class _PropertyAttribute:
    """A layer attribute backed by one protocol property."""

    def __init__(self, prop: Property) -> None:
        self.prop = prop
        names = f"; one of {', '.join(prop.names)}" if prop.names else ""
        self.__doc__ = f"``{prop.name}`` (property {prop.id}): a {prop.type}{names}; default {prop.default!r}."

    def __get__(self, layer: Optional["Layer"], owner: type) -> Any:
        if layer is None:
            return self
        return layer._get(self.prop)

    def __set__(self, layer: "Layer", value: Any) -> None:
        layer._set(self.prop, value)


class Layer:
    """``CALayer``: a rectangle in a tree, with a position, bounds, a transform, an opacity, a
    background colour, a border, a shadow and contents, drawn by laminad.

    Keyword arguments set properties: ``Layer(bounds=(0, 0, 100, 50), background_color="#FF8800")``.
    """

    _kind = "layer"
    #: Called with each `lamina.InputEvent` laminad delivers to this layer, and to its sublayers
    #: that have no handler of their own (the event goes up to the first layer that has one).
    on_input: Optional[Callable[[InputEvent], Any]] = None

    #: Python's stand-in for the layer delegate's ``layoutSublayersOfLayer:``: called with the
    #: layer by `layout_sublayers` (lamina.layout explains layout in Python).
    layout: Optional[Callable[["Layer"], Any]] = None

    #: Python's stand-in for the delegate's ``drawLayer:inContext:``: called with the layer and
    #: a `lamina.Drawing` by `draw_in_context` when the layer displays (`set_needs_display`).
    draw: Optional[Callable[["Layer", Any], Any]] = None
    #: ``needsDisplayOnBoundsChange``: a change of bounds size marks the layer to display.
    needs_display_on_bounds_change: bool = False

    def __init__(self, **properties: Any) -> None:
        self._values: Dict[int, Any] = {}
        #: Each property's value before its last change (absent: the default), for a replay in
        #: which laminad refuses the last one.
        self._previous: Dict[int, Any] = {}
        self._superlayer: Optional[Layer] = None
        self._sublayers: List[Layer] = []
        self._conn: Optional[LayerHost] = None
        self._id: Optional[int] = None
        # Explicit animations by key (and unkeyed ones under ""), as added: (tag, animation).
        self._animations: Dict[str, Tuple[int, Animation]] = {}
        # Before the layer is on a connection: what to send when it is.
        self._unsent_animations: List[Tuple[str, Animation, Any, Any]] = []
        self._actions: Dict[Tuple[str, str], Action] = {}
        self.on_input = None
        self._recognizers: List[Any] = []
        self._needs_layout = False
        self._needs_display = False
        for name, value in properties.items():
            if not hasattr(type(self), name) or name.startswith("_"):
                raise AttributeError(self._unknown(name))
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        # Catches `layer.backgroundColor = …` (and properties of another layer class), which
        # would otherwise quietly create a Python attribute laminad never hears of.
        if name.startswith("_") or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        cls = type(self).__name__
        prop = protocol.PROPERTIES_BY_NAME.get(name) or protocol.PROPERTIES_BY_ATTRIBUTE.get(name)
        if prop is not None:
            owner = _class_for(prop.id)
            if not issubclass(type(self), owner):
                return (f"{cls} has no attribute {name!r}: {prop.attribute!r} is a property of {owner.__name__}; "
                        f"use layer.set_value({prop.name!r}, value) to set it on any layer")
            return f"{cls} has no attribute {name!r}; the property is called {prop.attribute!r}"
        close = difflib.get_close_matches(name, [a for a in dir(type(self)) if not a.startswith("_")], n=1)
        return f"{cls} has no attribute {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")

    # MARK: Tree

    @property
    def kind(self) -> str:
        """The layer's class on the wire: ``"layer"``, ``"gradient"``, ``"shape"``, …"""
        return self._kind

    @property
    def superlayer(self) -> Optional["Layer"]:
        return self._superlayer

    @property
    def sublayers(self) -> Tuple["Layer", ...]:
        """The sublayers, back to front. Assigning a list replaces them."""
        return tuple(self._sublayers)

    @sublayers.setter
    def sublayers(self, layers: Sequence["Layer"]) -> None:
        for s in list(self._sublayers):
            s.remove_from_superlayer()
        for s in layers:
            self.add_sublayer(s)

    @property
    def connection(self) -> Optional[LayerHost]:
        """The connection whose tree the layer has been shown in, if any."""
        return self._conn

    def add_sublayer(self, layer: "Layer") -> None:
        """``addSublayer:``: appends `layer` (moving it from any superlayer it is in)."""
        self.insert_sublayer(layer, at=len(self._sublayers))

    def insert_sublayer(self, layer: "Layer", at: int) -> None:
        """``insertSublayer:atIndex:``: `layer` at index `at` of the sublayers (past the end:
        appended), moving it from any superlayer it is in."""
        if not isinstance(layer, Layer):
            raise TypeError(f"expected a Layer, got {layer!r}")
        if layer is self or layer._is_ancestor_of(self):
            raise ValueError("a layer cannot be its own sublayer or a sublayer of its sublayers")
        if layer._conn is not None and self._conn is not None and layer._conn is not self._conn:
            raise ValueError("the layer belongs to another connection")
        if layer._conn is not None and layer._conn.root is layer:
            raise ValueError("a connection's root layer cannot be a sublayer")
        if layer._superlayer is not None:
            layer._superlayer._sublayers.remove(layer)
        index = max(0, min(at, len(self._sublayers)))
        self._sublayers.insert(index, layer)
        layer._superlayer = self
        if self._conn is not None:
            self._conn._attach(layer)
            self._conn._queue(_insert(self, layer, index))
        self.set_needs_layout()

    def remove_from_superlayer(self) -> None:
        """``removeFromSuperlayer``. The layer keeps its properties and may be added again."""
        parent = self._superlayer
        if parent is None:
            return
        parent._sublayers.remove(self)
        self._superlayer = None
        if self._conn is not None and self._id is not None:
            self._conn._queue(Remove(self._id))

    def _is_ancestor_of(self, other: "Layer") -> bool:
        p = other._superlayer
        while p is not None:
            if p is self:
                return True
            p = p._superlayer
        return False

    # MARK: Gestures and geometry (lamina.gestures, lamina.geometry)

    @property
    def gesture_recognizers(self) -> Tuple[Any, ...]:
        """The recognisers added to this layer; they see the input events that reach it before
        ``on_input`` does."""
        return tuple(self._recognizers)

    def add_gesture_recognizer(self, recognizer: Any) -> None:
        """Adds a `lamina.GestureRecognizer` (moving it from any layer it was on)."""
        if any(r is recognizer for r in self._recognizers):
            return
        old = recognizer.layer
        if old is not None:
            old.remove_gesture_recognizer(recognizer)
        recognizer._layer_ref = weakref.ref(self)
        self._recognizers.append(recognizer)

    def remove_gesture_recognizer(self, recognizer: Any) -> None:
        self._recognizers = [r for r in self._recognizers if r is not recognizer]
        if recognizer.layer is self:
            recognizer._layer_ref = None

    def hit_test(self, point: Sequence[float]) -> Optional["Layer"]:
        """``hitTest:``: the farthest descendant of this layer (or itself) that contains
        `point`, given in this layer's superlayer's coordinates; None if none. laminad's rules
        with the model values (`lamina.geometry`)."""
        return geometry.hit_test(self, (point[0], point[1]))

    def contains(self, point: Sequence[float]) -> bool:
        """``containsPoint:``: whether `point`, in this layer's coordinates, is inside its bounds
        (half-open: the max edges are outside)."""
        return geometry.contains(self.bounds, (float(point[0]), float(point[1])))

    def convert_point(self, point: Sequence[float], to: Any = geometry.UNSET, from_: Any = geometry.UNSET) -> Tuple[float, float]:
        """``convertPoint:toLayer:`` (``to=layer``) or ``convertPoint:fromLayer:``
        (``from_=layer``; ``from`` is Python's keyword); None names the display. NaN where the
        point does not map (a layer seen edge-on)."""
        other, towards = geometry.direction(to, from_)
        return geometry.convert_point(self, (point[0], point[1]), other, towards)

    def convert_rect(self, rect: Sequence[float], to: Any = geometry.UNSET, from_: Any = geometry.UNSET) -> Tuple[float, float, float, float]:
        """``convertRect:toLayer:``/``fromLayer:``: the bounding box of the converted corners."""
        other, towards = geometry.direction(to, from_)
        return geometry.convert_rect(self, rect, other, towards)

    # MARK: Properties

    def set_value(self, name: str, value: Any) -> None:
        """Sets any property by its protocol name (``"backgroundColor"``) or attribute name."""
        self._set(_property(name), value)

    def value(self, name: str) -> Any:
        """The model value of any property, by its protocol or attribute name."""
        return self._get(_property(name))

    def _get(self, prop: Property) -> Any:
        if prop.id == _CONTENTS and self._values.get(_APP_SURFACE):
            # Showing an app window: the AppSurface it was given (or one with just its number).
            shown = self.__dict__.get("_shown_app")
            number = int(self._values[_APP_SURFACE])
            return shown if shown is not None and shown.id == number else AppSurface.with_id(number)
        if prop.id in self._values:
            value = self._values[prop.id]
            # A name whose empty form is nil (compositing_filter): None.
            return None if value == "" and _nil_name(prop) else value
        if prop.type in ("image", "layer") or _nil_name(prop):
            return None
        if prop.type == "path":
            return values.Path()
        return prop.default

    # MARK: Layout (lamina.layout)

    @property
    def needs_layout(self) -> bool:
        """Whether the layer is marked to lay out its sublayers before the next commit."""
        return self._needs_layout

    def set_needs_layout(self) -> None:
        """``setNeedsLayout``: `layout_sublayers` runs before the next commit. A change of
        bounds size, and a sublayer added or removed, mark the layer too."""
        if self._needs_layout:
            return
        self._needs_layout = True
        note = getattr(self._conn, "_note_needs_layout", None)
        if note is not None:
            note(self)

    def layout_if_needed(self) -> None:
        """``layoutIfNeeded``: from the highest superlayer in the unbroken run of marked ones,
        down the whole subtree, each marked layer's `layout_sublayers` runs before its
        sublayers are visited."""
        top = self
        while top._superlayer is not None and top._superlayer._needs_layout:
            top = top._superlayer
        stack = [top]
        while stack:
            layer = stack.pop()
            if layer._needs_layout:
                layer._needs_layout = False
                layer.layout_sublayers()
            stack.extend(reversed(layer._sublayers))

    def layout_sublayers(self) -> None:
        """``layoutSublayers``: calls the layer's ``layout`` callable, if any. Override it in a
        subclass to lay the sublayers out in code; ``autoresizing_mask`` and ``constraints``
        need nothing here (laminad applies them)."""
        if self.layout is not None:
            self.layout(self)

    def preferred_frame_size(self) -> Tuple[float, float]:
        """``preferredFrameSize``: by default the bounds size."""
        b = self._get(_property("bounds"))
        return (b[2], b[3])

    def _set(self, prop: Property, value: Any) -> None:
        if prop.id == _CONTENTS:
            if isinstance(value, AppSurface):
                # An app window as contents (protocol 1.7): appSurface names it, contents is none.
                object.__setattr__(self, "_shown_app", value)
                self._store(prop, None)
                self._store(protocol.PROPERTIES_BY_ID[_APP_SURFACE], float(value.id))
                return
            if self._values.get(_APP_SURFACE):
                self._store(protocol.PROPERTIES_BY_ID[_APP_SURFACE], 0.0)
        self._store(prop, value)

    def _store(self, prop: Property, value: Any) -> None:
        if prop.type == "image":
            if value is not None and not isinstance(value, (Image, Video, SessionImage)):
                kinds = "a lamina.Image, a lamina.Video, a lamina.AppSurface" if prop.id == _CONTENTS else "a lamina.Image, a lamina.Video"
                raise TypeError(f"{prop.attribute} takes {kinds} or None, not {value!r}")
            v = value
        elif prop.type == "layer":
            if value is not None and not isinstance(value, Layer):
                raise TypeError(f"{prop.attribute} takes a lamina.Layer or None, not {value!r}")
            if value is self:
                raise ValueError("a layer cannot be its own mask")
            v = value
        elif value is None and _nil_name(prop):
            v = ""
        elif prop.type == "emitterCells":
            v = emitter.cells(value)
        else:
            try:
                v = values.canonical(prop.type, value)
            except (TypeError, ValueError) as e:
                raise type(e)(f"{prop.attribute}: {e}") from None
        # (Not for images, videos and layers: the layer would keep them alive.)
        if prop.id in self._values and prop.type not in ("image", "layer"):
            self._previous[prop.id] = self._values[prop.id]
        else:
            self._previous.pop(prop.id, None)
        old_size = self._get(prop)[2:] if prop.name == "bounds" else None
        self._values[prop.id] = v
        if self._conn is not None:
            self._conn._note_set(self, prop)
        if old_size is not None and tuple(v[2:]) != tuple(old_size):
            self.set_needs_layout()
            if self.needs_display_on_bounds_change:
                self.set_needs_display()

    # Drawn contents (lamina.drawing): displayed before the commit, after layout.

    @property
    def needs_display(self) -> bool:
        """Whether the layer is marked to display before the next commit."""
        return self._needs_display

    def set_needs_display(self, rect: Any = None) -> None:
        """``setNeedsDisplay`` (``setNeedsDisplayInRect:`` with `rect`: the whole layer is drawn
        again all the same, a drawing being recorded whole): `display` runs before the commit."""
        if self._needs_display:
            return
        self._needs_display = True
        note = getattr(self._conn, "_note_needs_display", None)
        if note is not None:
            note(self)

    def display_if_needed(self) -> None:
        """``displayIfNeeded``: displays now if marked."""
        if self._needs_display:
            self._needs_display = False
            self.display()

    def display(self) -> None:
        """``display``: records `draw_in_context` into a new `lamina.Drawing` and sets it as
        ``drawing``. Override it to give the layer its contents another way."""
        ctx = Drawing(self._get(_property("bounds")))
        self.draw_in_context(ctx)
        self.drawing = ctx

    def draw_in_context(self, ctx: Any) -> None:
        """``drawInContext:``: calls the layer's ``draw`` callable, if any; override it in a
        subclass to draw in code."""
        if self.draw is not None:
            self.draw(self, ctx)

    @property
    def video(self) -> Optional[Video]:
        """The video the layer shows through its contents (placed like an image: contents
        gravity, rect, center and scale; clipped by masks_to_bounds and its corners), or None.
        Setting it replaces `contents`."""
        v = self._values.get(protocol.PROPERTIES_BY_NAME["contents"].id)
        return v if isinstance(v, Video) else None

    @video.setter
    def video(self, value: Optional[Video]) -> None:
        if value is not None and not isinstance(value, Video):
            raise TypeError(f"video takes a lamina.Video (Connection.video) or None, not {value!r}")
        self._set(protocol.PROPERTIES_BY_NAME["contents"], value)

    @property
    def frame(self) -> values.Rect:
        """The layer's rectangle in its superlayer, from `position`, `bounds` and
        `anchor_point` (ignoring `transform`)."""
        x, y, w, h = self.bounds
        px, py = self.position
        ax, ay = self.anchor_point
        return (px - ax * w, py - ay * h, w, h)

    @frame.setter
    def frame(self, value: Any) -> None:
        x, y, w, h = values.rect(value)
        bx, by, _, _ = self.bounds
        ax, ay = self.anchor_point
        self.bounds = (bx, by, w, h)
        self.position = (x + ax * w, y + ay * h)

    # MARK: Scrolling (the nearest scroll layer above)

    def scroll_point(self, point: Any) -> None:
        """``scrollPoint:``: scrolls the nearest scroll layer above this one so that `point` (in
        this layer's coordinates) lies at its origin. Does nothing outside a scroll layer."""
        s = scrolling.enclosing_scroll_layer(self)
        if s is not None:
            s.scroll_to(scrolling.point_to_ancestor(self, s, values.point(point)))

    def scroll_rect_to_visible(self, rect: Any) -> None:
        """``scrollRectToVisible:``: scrolls the nearest scroll layer above this one as little as
        shows `rect` (in this layer's coordinates). Does nothing outside a scroll layer."""
        s = scrolling.enclosing_scroll_layer(self)
        if s is not None:
            s.scroll_to_rect(scrolling.rect_to_ancestor(self, s, values.rect(rect)))

    @property
    def visible_rect(self) -> values.Rect:
        """``visibleRect``: the part of the bounds the nearest scroll layer above shows, in this
        layer's coordinates (zero-sized where none of it does); the bounds outside one."""
        return scrolling.visible_rect(self)

    # MARK: Animations and actions

    def add(self, animation: Animation, key: Optional[str] = None, *,
            on_start: Optional[Callable[[AnimationEvent], Any]] = None,
            on_stop: Optional[Callable[[AnimationEvent], Any]] = None) -> None:
        """``addAnimation:forKey:``: laminad runs `animation` on this layer, replacing the one
        under `key`. The animation is copied as it is now (later changes to the object do not
        reach it). `on_start` and `on_stop` are called with the `AnimationEvent` when laminad
        reports that it started and stopped (``event.finished`` tells whether it ran to the end)."""
        if not isinstance(animation, Animation) or type(animation) is Animation:
            raise TypeError(f"expected a BasicAnimation, KeyframeAnimation, SpringAnimation, AnimationGroup or Transition, got {animation!r}")
        animation.encode()  # refuses now what cannot be encoded, naming it
        k = key or ""
        if self._conn is None:
            self._unsent_animations = [a for a in self._unsent_animations if not (k and a[0] == k)]
            self._unsent_animations.append((k, _copy(animation), on_start, on_stop))
            return
        self._conn._add_animation(self, k, _copy(animation), on_start, on_stop)

    def remove_animation(self, key: str) -> None:
        """``removeAnimationForKey:``."""
        self._animations.pop(key, None)
        self._unsent_animations = [a for a in self._unsent_animations if a[0] != key]
        if self._conn is not None and self._id is not None:
            self._conn._queue(RemoveAnimation(self._id, key))

    def remove_all_animations(self) -> None:
        """``removeAllAnimations``."""
        self._animations.clear()
        self._unsent_animations.clear()
        if self._conn is not None and self._id is not None:
            self._conn._queue(RemoveAllAnimations(self._id))

    def animation_keys(self) -> List[str]:
        """The keys of the explicit animations added and not yet reported stopped (or that ran to
        their end and stay: not removed on completion)."""
        return [k for k in self._animations if k] + [a[0] for a in self._unsent_animations if a[0]]

    def animation(self, key: str) -> Optional[Animation]:
        """The animation added under `key`, until laminad reports it stopped (one that ran to its
        end and is not removed on completion stays)."""
        entry = self._animations.get(key)
        if entry is not None:
            return entry[1]
        return next((a[1] for a in self._unsent_animations if a[0] == key), None)

    def set_action(self, key: str, action: Action, *, style: bool = False) -> None:
        """An entry of the layer's ``actions`` dictionary (or, with `style`, of
        ``style["actions"]``): an `Animation` runs when `key` changes (its key path defaults to
        the key), None is a null action (no animation), `INHERIT` removes the entry.
        ``"onOrderIn"``, ``"onOrderOut"`` and ``"transition"`` are actions too."""
        dictionary = "style" if style else "actions"
        if action is not None and action is not INHERIT and not isinstance(action, Animation):
            raise TypeError(f"an action is an Animation, None (null action) or lamina.INHERIT, not {action!r}")
        if isinstance(action, Animation):
            action.encode()
            action = _copy(action)
        self._actions[(dictionary, key)] = action
        if self._conn is not None and self._id is not None:
            self._conn._queue(_action_operation(self._id, dictionary, key, action))

    # MARK: Presentation

    def presentation(self) -> Presentation:
        """The values laminad shows now, animations applied (``presentationLayer``)."""
        if self._conn is None or self._id is None:
            raise ValueError("the layer is not on a connection: add it to connection.root's tree first")
        return self._conn.presentation(self)

    def __repr__(self) -> str:
        ident = f" #{self._id}" if self._id is not None else ""
        name = f" {self._values[11]!r}" if self._values.get(11) else ""
        return f"<{type(self).__name__}{ident}{name}>"


class GradientLayer(Layer):
    """``CAGradientLayer``: `colors` at `locations` from `start_point` to `end_point`, of
    `type` ``"axial"``, ``"radial"`` or ``"conic"``."""

    _kind = "gradient"


class ShapeLayer(Layer):
    """``CAShapeLayer``: `path` filled with `fill_color` and stroked with `stroke_color`."""

    _kind = "shape"


class TextLayer(Layer):
    """``CATextLayer``: `string` set in `font` at `font_size` in `foreground_color`."""

    _kind = "text"


class ReplicatorLayer(Layer):
    """``CAReplicatorLayer``: its sublayers drawn `instance_count` times, each copy through
    `instance_transform` once more."""

    _kind = "replicator"


class TransformLayer(Layer):
    """``CATransformLayer``: its sublayers share its 3D space and are depth-sorted."""

    _kind = "transform"


class EmitterLayer(Layer):
    """``CAEmitterLayer``: particles shed by its `emitter_cells` (`lamina.EmitterCell`),
    computed and drawn by laminad from its `seed` and its time (protocol 1.7)."""

    _kind = "emitter"


class ScrollLayer(Layer):
    """``CAScrollLayer``: shows its sublayers from `bounds` origin; ``scroll_to`` moves it along
    the axes `scroll_mode` allows. With `scrolls_on_touch` laminad scrolls it by touch and wheel
    itself (momentum, rubber band, `paging_enabled`): `bounds` follows and `on_scroll` hears it.
    Setting `bounds` (or ``scroll_to``) while laminad scrolls ends its scroll."""

    _kind = "scroll"
    #: Called with each `lamina.ScrollEvent` laminad reports for this layer.
    on_scroll: Optional[Callable[[ScrollEvent], Any]] = None

    def __init__(self, **properties: Any) -> None:
        super().__init__(**properties)
        self.on_scroll = None

    def scroll_to(self, point: Any) -> None:
        """``scrollToPoint:``: the origin to `point` on the axes `scroll_mode` allows (a change
        of `bounds`, animated unless the transaction disables actions)."""
        x, y = scrolling.scroll_origin(self.bounds, self.scroll_mode, values.point(point))
        _, _, w, h = self.bounds
        if (x, y) != tuple(self.bounds[:2]):
            self.bounds = (x, y, w, h)

    def scroll_to_rect(self, rect: Any) -> None:
        """``scrollToRect:``: the origin moved as little as shows `rect` (this layer's coordinates)."""
        self.scroll_to(scrolling.origin_showing(self.bounds, self.scroll_mode, values.rect(rect)))

    def _scrolled(self, offset: Tuple[float, float]) -> None:
        """laminad moved the origin: the model takes it without sending it back."""
        _, _, w, h = self.bounds
        self._values[1] = (float(offset[0]), float(offset[1]), w, h)


@dataclass
class TilesWantedEvent:
    """laminad wants tiles of one of this client's tiled layers (protocol 1.7): ``level`` (0 full
    resolution, 1 half, -1 twice, ...) and ``tiles``, each ``(column, row, rect)`` with ``rect``
    the whole tile in the layer's bounds coordinates. The layer's ``tile_provider`` has been
    asked for each already."""

    layer: Optional[Layer]
    layer_id: int
    level: int
    tiles: List[Tuple[int, int, Tuple[float, float, float, float]]]


class TiledLayer(Layer):
    """``CATiledLayer``: a picture too large to hold at once, drawn from tiles laminad asks for
    as they come into view at the scale they are shown. ``tile_provider(layer, level, column,
    row)`` returns a `lamina.Image` of exactly ``tile_size`` pixels (or None to supply it later
    with ``supply_tile``); it runs from ``poll_events()`` (and the other calls that read events),
    and what it returns is sent at once. Level 0 is full resolution (``contents_scale`` pixels a
    point), each of the ``levels_of_detail - 1`` later levels half the one before, the
    ``levels_of_detail_bias`` magnified levels -1, -2, ... twice, four times. laminad keeps the
    tiles within its tile budget, shows the nearest coarser tile while a finer one is on its way
    and fades new tiles in over ``tile_fade_duration`` seconds."""

    _kind = "tiled"
    #: ``(layer, level, column, row) -> Image | None``: draws a tile laminad asks for.
    tile_provider: Optional[Callable[["TiledLayer", int, int, int], Any]] = None

    def __init__(self, **properties: Any) -> None:
        super().__init__(**properties)
        self.tile_provider = None

    def tile_rect(self, column: int, row: int, level: int) -> Tuple[float, float, float, float]:
        """The part of the bounds tile (`column`, `row`) of `level` shows (an edge tile may
        reach past them)."""
        x, y, _, _ = self.bounds
        tw, th = self.tile_size
        scale = (self.contents_scale or 1.0) * 2.0 ** -level
        w, h = tw / scale, th / scale
        return (x + column * w, y + row * h, w, h)

    def supply_tile(self, image: Any, column: int, row: int, level: int) -> None:
        """Sends `image` (exactly ``tile_size`` pixels) as tile (`column`, `row`) of `level`
        with the next commit; laminad takes its pixels. Raises ValueError for the wrong size."""
        tw, th = self.tile_size
        if (image.width, image.height) != (int(tw), int(th)):
            raise ValueError(f"a tile is {int(tw)}x{int(th)} pixels (tile_size), the image is {image.width}x{image.height}")
        if self._conn is None or self._id is None:
            raise ValueError("the tiled layer is not in a connection's layer tree yet")
        self._conn._supply_tile(self._id, image, column, row, level)

    def set_needs_display(self) -> None:
        """Drops every tile laminad holds for this layer (with the next commit): it asks again
        for those in view."""
        if self._conn is not None and self._id is not None:
            self._conn._drop_tiles(self._id)


_CLASS_RANGES: Tuple[Tuple[range, type], ...] = (
    (range(37, 42), GradientLayer),
    (range(42, 54), ShapeLayer),
    (range(54, 61), TextLayer),
    (range(61, 69), ReplicatorLayer),
    (range(80, 95), EmitterLayer),
    (range(72, 76), ScrollLayer),
    (range(78, 80), TiledLayer),
    (range(95, 97), TiledLayer),
)


def _nil_name(prop: Property) -> bool:
    """Whether the property is a name whose empty form means nil (``compositingFilter``)."""
    return prop.names is not None and "" in prop.names


_CONTENTS = protocol.PROPERTIES_BY_NAME["contents"].id
_APP_SURFACE = protocol.PROPERTIES_BY_NAME["appSurface"].id


def _class_for(prop_id: int) -> type:
    """The layer class whose attribute a property is (the class that draws it)."""
    for ids, cls in _CLASS_RANGES:
        if prop_id in ids:
            return cls
    return Layer


for _p in protocol.PROPERTIES:
    setattr(_class_for(_p.id), _p.attribute, _PropertyAttribute(_p))
# Core Animation's name for the gradient's `type`, which reads better beside Python's builtin.
GradientLayer.gradient_type = GradientLayer.type  # type: ignore[attr-defined]
del _p

LAYER_CLASSES: Dict[str, type] = {
    "layer": Layer, "gradient": GradientLayer, "shape": ShapeLayer, "text": TextLayer,
    "replicator": ReplicatorLayer, "transform": TransformLayer, "emitter": EmitterLayer,
    "scroll": ScrollLayer, "tiled": TiledLayer,
}


def _property(name: str) -> Property:
    prop = protocol.PROPERTIES_BY_NAME.get(name) or protocol.PROPERTIES_BY_ATTRIBUTE.get(name)
    if prop is None:
        close = difflib.get_close_matches(name, list(protocol.PROPERTIES_BY_NAME) + list(protocol.PROPERTIES_BY_ATTRIBUTE), n=1)
        raise KeyError(f"no layer property {name!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
    return prop


def _copy(animation: Animation) -> Animation:
    return copy.deepcopy(animation)


def _insert(parent: Layer, child: Layer, index: int) -> Insert:
    assert parent._id is not None and child._id is not None
    return Insert(parent._id, child._id, index)


def _action_operation(layer_id: int, dictionary: str, key: str, action: Action) -> SetAction:
    if action is INHERIT:
        return SetAction(layer_id, dictionary, key, "inherit")
    if action is None:
        return SetAction(layer_id, dictionary, key, "none")
    assert isinstance(action, Animation)
    return SetAction(layer_id, dictionary, key, action.encode())
