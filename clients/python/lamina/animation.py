"""Explicit animations, as Core Animation's ``CABasicAnimation``, ``CAKeyframeAnimation``,
``CASpringAnimation``, ``CAAnimationGroup`` and ``CATransition``. laminad runs them; add one
with `Layer.add`::

    fade = BasicAnimation("opacity", from_value=1, to_value=0, duration=0.5, timing_function="easeIn")
    layer.add(fade, "fade")

Every animation has the media-timing fields of ``CAMediaTiming`` (`begin_time`, `duration`,
`speed`, `time_offset`, `repeat_count`, `repeat_duration`, `autoreverses`, `fill_mode`) and
`timing_function` and `removed_on_completion`. A duration of 0 takes the transaction's; a
begin time of 0 means "when added". Values are given in the forms layers take (numbers,
tuples, ``"#RRGGBB"`` colours); their type follows from the key path (``position`` takes a
point, ``position.x`` a number), or use `lamina.TypedValue` to name it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

from . import protocol
from .values import Path, TimingFunction, TimingFunctionLike, _camel, path as to_path, timing_function, typed
from .wire import Writer


def _enum(table: dict, value: Optional[str], what: str) -> int:
    key = "none" if value is None else _camel(value)
    if key not in table:
        raise ValueError(f"unknown {what} {value!r}; known: {', '.join(k for k in table if k != 'none')}")
    return table[key]


@dataclass(kw_only=True)
class Animation:
    """The fields every animation has. Not used directly: use a subclass."""

    begin_time: float = 0.0
    duration: float = 0.0
    speed: float = 1.0
    time_offset: float = 0.0
    #: ``math.inf`` repeats forever.
    repeat_count: float = 0.0
    repeat_duration: float = 0.0
    autoreverses: bool = False
    #: ``"removed"``, ``"forwards"``, ``"backwards"`` or ``"both"``.
    fill_mode: str = "removed"
    #: None (linear), a name (``"easeIn"``, ``"ease_in_ease_out"``, ``"default"``…), four
    #: control-point numbers, or a `TimingFunction`.
    timing_function: TimingFunctionLike = None
    removed_on_completion: bool = True

    _kind = "animation"

    def encode(self) -> bytes:
        """The animation in the layout of docs/protocol.md, "Animations on the wire"."""
        w = Writer()
        self._write(w)
        return bytes(w.buffer)

    def _write(self, w: Writer) -> None:
        w.u8(protocol.ANIMATION_KINDS[self._kind])
        for v in (self.begin_time, self.duration, self.speed, self.time_offset, self.repeat_count, self.repeat_duration):
            w.f64(float(v))
        w.bool(self.autoreverses)
        w.u8(_enum(protocol.FILL_MODES, self.fill_mode, "fill mode"))
        tf = timing_function(self.timing_function)
        w.u8(0 if tf is None else 1)
        if tf is not None:
            w.timing_function(tf)
        w.bool(self.removed_on_completion)
        self._write_fields(w)

    def _write_fields(self, w: Writer) -> None:
        raise NotImplementedError


def _optional_numbers(w: Writer, values: Optional[Sequence[float]]) -> None:
    if values is None:
        w.u8(0)
        return
    w.u8(1)
    w.u32(len(values))
    for v in values:
        w.f64(float(v))


@dataclass
class BasicAnimation(Animation):
    """``CABasicAnimation``: `key_path` from `from_value` to `to_value` (or by `by_value`).
    With none of the three, it runs from the presentation value to the model value."""

    key_path: str = ""
    from_value: Any = None
    to_value: Any = None
    by_value: Any = None
    additive: bool = False
    cumulative: bool = False
    #: None, or ``"rotateZ"``, ``"scale"``, ``"translateX"``… (``CAValueFunction``).
    value_function: Optional[str] = None

    _kind = "basic"

    def _write_fields(self, w: Writer) -> None:
        w.string(self.key_path)
        for v in (self.from_value, self.to_value, self.by_value):
            w.typed_value(None if v is None else typed(v, self.key_path, self.value_function))
        w.bool(self.additive)
        w.bool(self.cumulative)
        w.u8(_enum(protocol.VALUE_FUNCTIONS, self.value_function, "value function"))


@dataclass
class SpringAnimation(BasicAnimation):
    """``CASpringAnimation``: a basic animation whose progress follows a damped spring."""

    mass: float = 1.0
    stiffness: float = 100.0
    damping: float = 10.0
    initial_velocity: float = 0.0

    _kind = "spring"

    def _write_fields(self, w: Writer) -> None:
        super()._write_fields(w)
        for v in (self.mass, self.stiffness, self.damping, self.initial_velocity):
            w.f64(float(v))


@dataclass
class KeyframeAnimation(Animation):
    """``CAKeyframeAnimation``: `key_path` through `values` (or along `path`, for points)."""

    key_path: str = ""
    values: Sequence[Any] = ()
    path: Optional[Path] = None
    key_times: Optional[Sequence[float]] = None
    timing_functions: Optional[Sequence[TimingFunctionLike]] = None
    #: ``"linear"``, ``"discrete"``, ``"paced"``, ``"cubic"`` or ``"cubicPaced"``.
    calculation_mode: str = "linear"
    #: None, ``"auto"`` or ``"autoReverse"``.
    rotation_mode: Optional[str] = None
    tension_values: Optional[Sequence[float]] = None
    continuity_values: Optional[Sequence[float]] = None
    bias_values: Optional[Sequence[float]] = None
    additive: bool = False
    cumulative: bool = False
    value_function: Optional[str] = None

    _kind = "keyframe"

    def _write_fields(self, w: Writer) -> None:
        w.string(self.key_path)
        w.u32(len(self.values))
        for v in self.values:
            w.typed_value(typed(v, self.key_path, self.value_function))
        if self.path is None:
            w.u8(0)
        else:
            w.u8(1)
            w.path(to_path(self.path))
        _optional_numbers(w, self.key_times)
        if self.timing_functions is None:
            w.u8(0)
        else:
            w.u8(1)
            w.u32(len(self.timing_functions))
            for f in self.timing_functions:
                tf = timing_function(f)
                w.timing_function(tf if tf is not None else TimingFunction.named("linear"))
        w.u8(_enum(protocol.CALCULATION_MODES, self.calculation_mode, "calculation mode"))
        w.u8(_enum(protocol.ROTATION_MODES, self.rotation_mode, "rotation mode"))
        _optional_numbers(w, self.tension_values)
        _optional_numbers(w, self.continuity_values)
        _optional_numbers(w, self.bias_values)
        w.bool(self.additive)
        w.bool(self.cumulative)
        w.u8(_enum(protocol.VALUE_FUNCTIONS, self.value_function, "value function"))


@dataclass
class AnimationGroup(Animation):
    """``CAAnimationGroup``: `animations` run together in the group's time."""

    animations: Sequence[Animation] = field(default_factory=list)

    _kind = "group"

    def _write_fields(self, w: Writer) -> None:
        w.u32(len(self.animations))
        for a in self.animations:
            a._write(w)


@dataclass
class Transition(Animation):
    """``CATransition``: the layer's new rendering replaces its old one with `type` (``"fade"``,
    ``"moveIn"``, ``"push"``, ``"reveal"``) from `subtype` (None, ``"fromLeft"``,
    ``"fromRight"``, ``"fromTop"``, ``"fromBottom"``)."""

    type: str = "fade"
    subtype: Optional[str] = None
    start_progress: float = 0.0
    end_progress: float = 1.0

    _kind = "transition"

    def _write_fields(self, w: Writer) -> None:
        w.u8(_enum(protocol.TRANSITION_TYPES, self.type, "transition type"))
        w.u8(_enum(protocol.TRANSITION_SUBTYPES, self.subtype, "transition subtype"))
        w.f64(float(self.start_progress))
        w.f64(float(self.end_progress))


#: Repeats an animation forever (``repeat_count=FOREVER``).
FOREVER = math.inf


class EncodedAnimation(Animation):
    """An animation as laminad sent it (an action of a taken-over session): sent back as it is."""

    def __init__(self, data: bytes) -> None:
        super().__init__()
        self._data = bytes(data)

    def encode(self) -> bytes:
        return self._data

    def __repr__(self) -> str:
        return f"EncodedAnimation({len(self._data)} bytes)"
