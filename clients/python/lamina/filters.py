"""A layer's ``filters`` (``CALayer.filters`` on macOS; docs/protocol.md, "Filters"): Core Image
filters applied in order to the layer and its sublayers drawn as one group. Each has a name for
key paths, a type, and its type's one input::

    layer.filters = [Filter("soft", "gaussianBlur", 8), Filter("grey", "saturate", 0.2)]
    layer.add_animation(BasicAnimation("filters.soft.inputRadius", to_value=20), "blur")

The input is a number (``inputRadius`` 0-64 points, ``inputAmount``, ``inputAngle`` in radians),
20 numbers for ``colorMatrix``'s ``inputMatrix`` (R, G, B, A vectors, then the bias, as
``CIColorMatrix``), and nothing for ``invert``; left out, it takes Core Image's default."""

from __future__ import annotations

import math
from typing import Any, NamedTuple, Tuple

from . import protocol


class Filter(NamedTuple):
    """One filter: ``Filter("soft", "gaussianBlur", 8)``; ``values`` holds the input's numbers."""

    name: str
    type: str
    values: Any = None


def _numbers(x: Any) -> Tuple[float, ...]:
    if x is None:
        return ()
    if isinstance(x, bool):
        raise TypeError(f"expected a number, got {x!r}")
    if isinstance(x, (int, float)):
        return (float(x),)
    return tuple(float(v) for v in x)


def canonical(v: Any) -> Filter:
    """A `Filter` (or a tuple in its order, or a scene file's dict ``{"name", "type", input}``)
    checked as laminad checks it, with its values as a tuple of floats."""
    if isinstance(v, dict):
        kind = v.get("type")
        if kind not in protocol.FILTER_TYPES:
            raise ValueError(f"unknown filter type {kind!r}; one of {', '.join(protocol.FILTER_TYPES)}")
        input_name = protocol.FILTER_TYPES[kind][1]
        unknown = set(v) - {"name", "type"} - ({input_name} if input_name else set())
        if unknown:
            raise ValueError(f"unknown input(s) {', '.join(sorted(unknown))} for {kind}")
        v = Filter(v.get("name", ""), kind, v.get(input_name) if input_name else None)
    f = Filter(*v)
    if f.type not in protocol.FILTER_TYPES:
        raise ValueError(f"unknown filter type {f.type!r}; one of {', '.join(protocol.FILTER_TYPES)}")
    _, input_name, count, default = protocol.FILTER_TYPES[f.type]
    values = _numbers(f.values) if f.values is not None else tuple(default)
    here = f"filters.{f.name or '?'}"
    if not isinstance(f.name, str) or "." in f.name:
        raise ValueError(f"{here}: a filter name is a string without dots")
    if len(values) != count:
        raise ValueError(f"{here}: {f.type} takes {count} input number(s), got {len(values)}")
    if not all(math.isfinite(x) for x in values):
        raise ValueError(f"{here}.{input_name}: must be finite")
    if f.type == "gaussianBlur" and not 0 <= values[0] <= protocol.MAX_BLUR_RADIUS:
        raise ValueError(f"{here}.inputRadius must be from 0 to {protocol.MAX_BLUR_RADIUS} points (got {values[0]})")
    return Filter(f.name, f.type, values)


def canonical_list(v: Any) -> Tuple[Filter, ...]:
    out = tuple(canonical(x) for x in (v or ()))
    if len(out) > protocol.MAX_FILTERS:
        raise ValueError(f"at most {protocol.MAX_FILTERS} filters a layer (got {len(out)})")
    return out
