"""Layout as Core Animation has it (docs/clients.md, "Layout"): ``autoresizing_mask`` and
``constraints`` are layer properties that laminad applies itself whenever a superlayer's bounds
change (the display's included), so a tree laid out by them follows the screen with no client
running. Python has no layer delegate: ``Layer.layout_sublayers`` (override it, or give the
layer a ``layout`` callable) runs before a commit for layers marked by ``set_needs_layout()``
or a change of bounds size, top-down, as Core Animation's ``layoutSublayers`` does."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from . import protocol


class AutoresizingMask(enum.IntFlag):
    """``CAAutoresizingMask``: how a layer's frame follows its superlayer's size. Lamina's y
    axis points down, so ``MIN_Y_MARGIN`` is the margin above the layer."""
    NONE = 0
    MIN_X_MARGIN = protocol.AUTORESIZING_MASK["minXMargin"]
    WIDTH_SIZABLE = protocol.AUTORESIZING_MASK["widthSizable"]
    MAX_X_MARGIN = protocol.AUTORESIZING_MASK["maxXMargin"]
    MIN_Y_MARGIN = protocol.AUTORESIZING_MASK["minYMargin"]
    HEIGHT_SIZABLE = protocol.AUTORESIZING_MASK["heightSizable"]
    MAX_Y_MARGIN = protocol.AUTORESIZING_MASK["maxYMargin"]

    @classmethod
    def from_names(cls, *names: str) -> "AutoresizingMask":
        """The mask of scene-file names (``"widthSizable"``, …)."""
        mask = cls.NONE
        for n in names:
            if n not in protocol.AUTORESIZING_MASK:
                raise ValueError(f"{n!r} is not one of {', '.join(protocol.AUTORESIZING_MASK)}")
            mask |= protocol.AUTORESIZING_MASK[n]
        return cls(mask)


class Constraint(NamedTuple):
    """``CAConstraint``: ``attribute = relative_to.source_attribute × scale + offset``.
    Attributes are ``minX``, ``midX``, ``maxX``, ``width``, ``minY``, ``midY``, ``maxY``,
    ``height``; ``relative_to`` is ``"superlayer"`` or a sibling's ``name``; the source
    attribute defaults to the attribute."""
    attribute: str
    relative_to: str = "superlayer"
    source_attribute: str = ""
    scale: float = 1.0
    offset: float = 0.0


def constraint(v: Any) -> tuple:
    """The canonical form of a constraint: a `Constraint`, a tuple in its order, or a dict with
    the scene file's keys (``attribute``, ``relativeTo``, ``sourceAttribute``, ``scale``, ``offset``)."""
    if isinstance(v, dict):
        unknown = set(v) - {"attribute", "relativeTo", "sourceAttribute", "scale", "offset"}
        if unknown:
            raise ValueError(f"unknown constraint field(s) {', '.join(sorted(unknown))}")
        v = Constraint(v.get("attribute", ""), v.get("relativeTo", "superlayer"), v.get("sourceAttribute", ""),
                       v.get("scale", 1.0), v.get("offset", 0.0))
    c = Constraint(*v)
    source = c.source_attribute or c.attribute
    for a in (c.attribute, source):
        if a not in protocol.CONSTRAINT_ATTRIBUTES:
            raise ValueError(f"{a!r} is not one of {', '.join(protocol.CONSTRAINT_ATTRIBUTES)}")
    if not isinstance(c.relative_to, str) or not c.relative_to:
        raise ValueError("a constraint is relative to \"superlayer\" or a sibling's name")
    for x in (c.scale, c.offset):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or x != x or x in (float("inf"), float("-inf")):
            raise TypeError(f"scale and offset are finite numbers, got {x!r}")
    return Constraint(c.attribute, c.relative_to, source, float(c.scale), float(c.offset))
