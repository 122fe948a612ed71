"""Property values: the Python forms Lamina accepts and the canonical forms it keeps.

Canonical forms (what getters and `presentation()` return):

- number: ``float``; bool: ``bool``; string: ``str``
- point and size: ``(x, y)`` / ``(width, height)`` tuples of floats
- rect: ``(x, y, width, height)``
- color: ``(red, green, blue, alpha)`` floats in [0, 1], straight alpha
- transform: a 16-tuple ``m11 m12 m13 m14 m21 ... m44`` (Core Animation's ``CATransform3D``)
- number list / color list: tuples of the above
- path: a `Path`
- image and layer: the objects (`Image`, `Layer`) on layers; wire numbers on the wire
"""

from __future__ import annotations

from typing import Any, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import protocol
from . import filters, text_runs
from .layout import constraint

Color = Tuple[float, float, float, float]
ColorLike = Union[str, Sequence[float], None]
Point = Tuple[float, float]
Rect = Tuple[float, float, float, float]
Transform = Tuple[float, ...]


class TimingFunction(NamedTuple):
    """A cubic Bézier timing curve from (0, 0) to (1, 1) through control points (c1x, c1y) and
    (c2x, c2y), as ``CAMediaTimingFunction``. The named curves are class attributes
    (`LINEAR`, `EASE_IN`, `EASE_OUT`, `EASE_IN_EASE_OUT`, `DEFAULT`)."""

    c1x: float
    c1y: float
    c2x: float
    c2y: float

    @classmethod
    def named(cls, name: str) -> "TimingFunction":
        """The curve called `name`: ``linear``, ``easeIn``, ``easeOut``, ``easeInEaseOut`` or
        ``default`` (snake_case spellings such as ``ease_in`` work too)."""
        key = _camel(name)
        if key not in protocol.TIMING_FUNCTIONS:
            raise ValueError(f"unknown timing function {name!r}; known: {', '.join(protocol.TIMING_FUNCTIONS)}")
        return cls(*protocol.TIMING_FUNCTIONS[key])

    def value_at(self, t: float) -> float:
        """The curve's output at input time `t` in [0, 1] (solving x(s) = t for s)."""
        if t <= 0:
            return 0.0
        if t >= 1:
            return 1.0

        def bez(a: float, b: float, s: float) -> float:
            return 3 * a * s * (1 - s) ** 2 + 3 * b * s * s * (1 - s) + s ** 3

        lo, hi = 0.0, 1.0
        for _ in range(100):
            mid = (lo + hi) / 2
            if bez(self.c1x, self.c2x, mid) < t:
                lo = mid
            else:
                hi = mid
        return bez(self.c1y, self.c2y, (lo + hi) / 2)


TimingFunction.LINEAR = TimingFunction(*protocol.TIMING_FUNCTIONS["linear"])  # type: ignore[attr-defined]
TimingFunction.EASE_IN = TimingFunction(*protocol.TIMING_FUNCTIONS["easeIn"])  # type: ignore[attr-defined]
TimingFunction.EASE_OUT = TimingFunction(*protocol.TIMING_FUNCTIONS["easeOut"])  # type: ignore[attr-defined]
TimingFunction.EASE_IN_EASE_OUT = TimingFunction(*protocol.TIMING_FUNCTIONS["easeInEaseOut"])  # type: ignore[attr-defined]
TimingFunction.DEFAULT = TimingFunction(*protocol.TIMING_FUNCTIONS["default"])  # type: ignore[attr-defined]

TimingFunctionLike = Union[TimingFunction, str, Sequence[float], None]


def timing_function(value: TimingFunctionLike) -> Optional[TimingFunction]:
    """A `TimingFunction` from a name, four control-point numbers, or None (none)."""
    if value is None or isinstance(value, TimingFunction):
        return value
    if isinstance(value, str):
        return TimingFunction.named(value)
    numbers = tuple(float(v) for v in value)
    if len(numbers) != 4:
        raise ValueError(f"a timing function takes four control-point numbers, got {len(numbers)}")
    return TimingFunction(*numbers)


def _camel(name: str) -> str:
    """``ease_in_ease_out`` → ``easeInEaseOut``; camelCase names pass through."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """``backgroundColor`` → ``background_color``."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


class Path:
    """A path of lines and Bézier curves (``CGPath``), for `ShapeLayer.path`,
    `Layer.shadow_path` and keyframe animations along a path.

    Build it with the methods, which return the path so calls chain::

        Path().move_to(0, 0).line_to(100, 0).line_to(50, 80).close()

    ``elements`` is a list of ``(name, points)`` pairs, e.g. ``("lineTo", ((100.0, 0.0),))``.
    """

    def __init__(self, elements: Iterable[Tuple[str, Sequence[Sequence[float]]]] = ()) -> None:
        self.elements: List[Tuple[str, Tuple[Point, ...]]] = []
        for name, points in elements:
            if name not in protocol.PATH_ELEMENTS:
                raise ValueError(f"unknown path element {name!r}; known: {', '.join(protocol.PATH_ELEMENTS)}")
            pts = tuple(point(p) for p in points)
            if len(pts) != protocol.PATH_ELEMENT_POINTS[name]:
                raise ValueError(f"{name} takes {protocol.PATH_ELEMENT_POINTS[name]} points, got {len(pts)}")
            self.elements.append((name, pts))

    def move_to(self, x: float, y: float) -> "Path":
        self.elements.append(("moveTo", ((float(x), float(y)),)))
        return self

    def line_to(self, x: float, y: float) -> "Path":
        self.elements.append(("lineTo", ((float(x), float(y)),)))
        return self

    def quad_curve_to(self, cx: float, cy: float, x: float, y: float) -> "Path":
        self.elements.append(("quadCurveTo", ((float(cx), float(cy)), (float(x), float(y)))))
        return self

    def curve_to(self, c1x: float, c1y: float, c2x: float, c2y: float, x: float, y: float) -> "Path":
        self.elements.append(("curveTo", ((float(c1x), float(c1y)), (float(c2x), float(c2y)), (float(x), float(y)))))
        return self

    def close(self) -> "Path":
        self.elements.append(("closeSubpath", ()))
        return self

    @classmethod
    def rect(cls, x: float, y: float, width: float, height: float) -> "Path":
        """A closed rectangle."""
        return cls().move_to(x, y).line_to(x + width, y).line_to(x + width, y + height).line_to(x, y + height).close()

    @classmethod
    def ellipse(cls, x: float, y: float, width: float, height: float) -> "Path":
        """The ellipse inscribed in the rectangle, as four cubic curves."""
        k = 0.5522847498307936
        rx, ry = width / 2, height / 2
        cx, cy = x + rx, y + ry
        return (cls().move_to(cx + rx, cy)
                .curve_to(cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry)
                .curve_to(cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy)
                .curve_to(cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry)
                .curve_to(cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy)
                .close())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and self.elements == other.elements

    def __hash__(self) -> int:
        return hash(tuple(self.elements))

    def __len__(self) -> int:
        return len(self.elements)

    def __repr__(self) -> str:
        return f"Path({self.elements!r})"


class TypedValue(NamedTuple):
    """A value with its type named explicitly, for animation values whose type the key path
    does not tell (an action's animation with an empty key path, say):
    ``TypedValue("size", (10, 20))``."""

    type: str
    value: Any


# MARK: Conversions to canonical forms


def number(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"expected a number, got {v!r}")
    return float(v)


def _numbers(v: Any, count: int, what: str) -> Tuple[float, ...]:
    try:
        items = tuple(v)
    except TypeError:
        raise TypeError(f"expected a {what} ({count} numbers), got {v!r}") from None
    if len(items) != count:
        raise ValueError(f"expected a {what} ({count} numbers), got {len(items)}: {v!r}")
    return tuple(number(x) for x in items)


def point(v: Any) -> Point:
    """``(x, y)``."""
    x, y = _numbers(v, 2, "point")
    return (x, y)


def rect(v: Any) -> Rect:
    """``(x, y, width, height)``, or ``((x, y), (width, height))``."""
    try:
        items = tuple(v)
    except TypeError:
        raise TypeError(f"expected a rect (x, y, width, height), got {v!r}") from None
    if len(items) == 2:
        items = point(items[0]) + point(items[1])
    x, y, w, h = _numbers(items, 4, "rect (x, y, width, height)")
    return (x, y, w, h)


def color(v: ColorLike) -> Color:
    """``(r, g, b[, a])`` floats in [0, 1], ``"#RRGGBB"``, ``"#RRGGBBAA"``, ``"#RGB"``, or None
    (clear, Core Animation's nil colour)."""
    if v is None:
        return (0.0, 0.0, 0.0, 0.0)
    if isinstance(v, str):
        text = v[1:] if v.startswith("#") else v
        if len(text) == 3:
            text = "".join(c * 2 for c in text)
        if len(text) not in (6, 8) or any(c not in "0123456789abcdefABCDEF" for c in text):
            raise ValueError(f"a colour string is #RRGGBB or #RRGGBBAA, got {v!r}")
        parts = [int(text[i:i + 2], 16) / 255 for i in range(0, len(text), 2)]
        if len(parts) == 3:
            parts.append(1.0)
        return (parts[0], parts[1], parts[2], parts[3])
    try:
        items = tuple(v)
    except TypeError:
        raise TypeError(f"expected a colour ((r, g, b, a) or '#RRGGBB'), got {v!r}") from None
    if len(items) == 3:
        items = items + (1.0,)
    r, g, b, a = _numbers(items, 4, "colour (r, g, b, a)")
    return (r, g, b, a)


def transform(v: Any) -> Transform:
    """16 numbers ``m11 … m44``, or four rows of four."""
    try:
        items = tuple(v)
    except TypeError:
        raise TypeError(f"expected a transform (16 numbers), got {v!r}") from None
    if len(items) == 4 and all(not isinstance(r, (int, float)) for r in items):
        items = tuple(x for row in items for x in _numbers(row, 4, "transform row"))
    return _numbers(items, 16, "transform")


def boolean(v: Any) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"expected a bool, got {v!r}")
    return v


def string(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError(f"expected a string, got {v!r}")
    return v


def path(v: Any) -> "Path":
    """A `Path`, a list of ``(name, points)`` elements, or None (the empty path, nil)."""
    if v is None:
        return Path()
    if isinstance(v, Path):
        return v
    return Path(v)


def canonical(type_name: str, v: Any) -> Any:
    """`v` converted to the canonical form of `type_name` (a protocol value type); raises
    TypeError or ValueError naming what was expected."""
    if type_name == "number":
        return number(v)
    if type_name in ("point", "size"):
        return point(v)
    if type_name == "rect":
        return rect(v)
    if type_name == "color":
        return color(v)
    if type_name == "transform":
        return transform(v)
    if type_name == "bool":
        return boolean(v)
    if type_name == "string":
        return string(v)
    if type_name == "numberList":
        return tuple(number(x) for x in (v or ()))
    if type_name == "colorList":
        return tuple(color(x) for x in (v or ()))
    if type_name == "path":
        return path(v)
    if type_name == "constraintList":
        return tuple(constraint(x) for x in (v or ()))
    if type_name in ("image", "layer"):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 0xFFFFFFFF:
            raise TypeError(f"expected a u32 number, got {v!r}")
        return v
    if type_name == "emitterCells":
        # (lamina.EmitterLayer checks that they are EmitterCell objects.)
        return tuple(v or ())
    if type_name == "filterList":
        return filters.canonical_list(v)
    if type_name == "drawing":
        # A lamina.Drawing (its commands), or commands as wire.Reader gives them.
        if v is None:
            return ()
        commands = getattr(v, "commands", v)
        if not isinstance(commands, (tuple, list)) or not all(isinstance(c, tuple) and len(c) == 3 for c in commands):
            raise TypeError(f"expected a lamina.Drawing, not {v!r}")
        return tuple(commands)
    if type_name == "attributedString":
        return text_runs.canonical_list(v, color)
    raise ValueError(f"unknown value type {type_name!r}")


def key_path_type(key_path: str) -> Optional[str]:
    """The value type an animation on `key_path` takes (``"position.x"`` → ``"number"``), or
    None when the key path names no property (laminad then refuses it by name)."""
    name, _, rest = key_path.partition(".")
    if name in ("filters", "backgroundFilters") and rest:
        # filters.NAME.inputKey (and backgroundFilters.…): a number, or 20 numbers for inputMatrix.
        _, _, input_name = rest.rpartition(".")
        inputs = {t[1] for t in protocol.FILTER_TYPES.values() if t[1]}
        if input_name not in inputs:
            return None
        return "numberList" if input_name == "inputMatrix" else "number"
    prop = protocol.PROPERTIES_BY_NAME.get(name)
    if prop is None:
        return None
    if not rest:
        return prop.type
    if rest == "rotation":
        rest = "rotation.z"
    if rest not in protocol.KEY_PATH_COMPONENTS.get(prop.type, ()):
        return None
    return protocol.KEY_PATH_COMPONENT_TYPES.get(rest, "number")


def guess_type(v: Any) -> str:
    """The value type of a Python value when nothing else tells it."""
    if isinstance(v, TypedValue):
        return v.type
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "color" if v.startswith("#") else "string"
    if isinstance(v, Path):
        return "path"
    items = tuple(v)
    return {2: "point", 4: "rect", 16: "transform"}.get(len(items), "numberList")


def typed(v: Any, key_path: str, value_function: Optional[str] = None) -> Tuple[str, Any]:
    """``(type, canonical value)`` for an animation value on `key_path`. With a value function
    the value is the function's input: a number, or a point for ``translate`` (and ``scale``)."""
    if value_function is not None and not isinstance(v, TypedValue):
        t = "number" if isinstance(v, (int, float)) and not isinstance(v, bool) else "point"
        return t, canonical(t, v)
    if isinstance(v, TypedValue):
        if v.type not in protocol.VALUE_TYPES:
            raise ValueError(f"unknown value type {v.type!r}; known: {', '.join(protocol.VALUE_TYPES)}")
        return v.type, canonical(v.type, v.value)
    t = key_path_type(key_path) or guess_type(v)
    return t, canonical(t, v)
