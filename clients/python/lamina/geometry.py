"""Hit testing and point conversion on the client: ``CALayer``'s ``hitTest:``,
``containsPoint:`` and ``convertPoint:toLayer:``/``fromLayer:``, with the model values and the
same rules as laminad and the Swift client (LaminaCore's HitTesting.swift):

- a point goes through each layer's whole chain: anchor point, ``transform``, ``position``,
  the superlayer's geometry flip and ``sublayer_transform`` (perspective included), each
  ordinary layer flattening its sublayers into its plane; a transform layer's sublayers share
  its 3D space;
- a hidden layer, one with ``user_interaction_enabled`` false, and one with ``double_sided``
  false that faces away are skipped with their subtrees; ``masks_to_bounds`` clips hits;
- a layer is hit inside its bounds, half-open ([min, max)); sublayers are tested before their
  superlayer, front-most first (higher ``z_position``, then later in the list).

Transforms are 16-tuples in Core Animation's row-vector order (`lamina.transform`). Functions
here take `lamina.Layer`s; `Layer.hit_test`, `Layer.contains`, `Layer.convert_point` and
`Layer.convert_rect` call them.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

Matrix = Tuple[float, ...]
Point = Tuple[float, float]

IDENTITY: Matrix = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)
#: Layers tested per call, and how deep the walk goes, at most (as laminad's).
MAXIMUM_VISITS = 200_000
MAXIMUM_DEPTH = 4096
NAN_POINT: Point = (math.nan, math.nan)


class _Unset:
    def __repr__(self) -> str:
        return "unset"


#: No layer given (None is the display).
UNSET: Any = _Unset()


def direction(to: Any, from_: Any) -> Tuple[Optional[Any], bool]:
    """The other layer and whether the conversion goes to it, from ``to=``/``from_=``."""
    if (to is UNSET) == (from_ is UNSET):
        raise TypeError("give exactly one of to= and from_= (None: the display)")
    return (to, True) if from_ is UNSET else (from_, False)


def concat(a: Sequence[float], b: Sequence[float]) -> Matrix:
    """`a` then `b` (``CATransform3DConcat``)."""
    return tuple(a[r * 4] * b[c] + a[r * 4 + 1] * b[4 + c] + a[r * 4 + 2] * b[8 + c] + a[r * 4 + 3] * b[12 + c]
                 for r in range(4) for c in range(4))


def translation(x: float, y: float, z: float = 0.0) -> Matrix:
    return (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, float(x), float(y), float(z), 1.0)


def _is_identity(m: Sequence[float]) -> bool:
    return tuple(m) == IDENTITY


def flattening_z(m: Sequence[float]) -> Matrix:
    """The transform with its third row and column's z terms dropped (a plane flattens)."""
    t = list(m)
    t[8] = t[9] = t[10] = t[11] = 0.0
    return tuple(t)


def faces_viewer(m: Sequence[float]) -> bool:
    """Whether a layer mapped by `m` shows its front (the inverse's m33 > 0)."""
    m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44 = m
    cofactor33 = m11 * (m22 * m44 - m24 * m42) - m12 * (m21 * m44 - m24 * m41) + m14 * (m21 * m42 - m22 * m41)
    s0, s1, s2 = m11 * m22 - m21 * m12, m11 * m23 - m21 * m13, m11 * m24 - m21 * m14
    s3, s4, s5 = m12 * m23 - m22 * m13, m12 * m24 - m22 * m14, m13 * m24 - m23 * m14
    c5, c4, c3 = m33 * m44 - m43 * m34, m32 * m44 - m42 * m34, m32 * m43 - m42 * m33
    c2, c1, c0 = m31 * m44 - m41 * m34, m31 * m43 - m41 * m33, m31 * m42 - m41 * m32
    det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
    if det == 0 or not math.isfinite(det):
        return False
    return cofactor33 / det > 0


def project(m: Sequence[float], p: Point) -> Optional[Point]:
    """Where the plane's point `p` (z = 0) lands, dividing by w; None behind the eye."""
    x = p[0] * m[0] + p[1] * m[4] + m[12]
    y = p[0] * m[1] + p[1] * m[5] + m[13]
    w = p[0] * m[3] + p[1] * m[7] + m[15]
    if not w > 0:
        return None
    return (x / w, y / w)


def unproject(m: Sequence[float], p: Point) -> Optional[Point]:
    """The point of the plane z = 0 that `m` maps onto `p`; None where none in front of the eye
    does (the plane seen edge-on, or `p` beyond its horizon)."""
    m11, m12, m14, m21, m22, m24, m41, m42, m44 = m[0], m[1], m[3], m[4], m[5], m[7], m[12], m[13], m[15]
    a, b, e = m11 - p[0] * m14, m21 - p[0] * m24, p[0] * m44 - m41
    c, d, f = m12 - p[1] * m14, m22 - p[1] * m24, p[1] * m44 - m42
    det = a * d - b * c
    if not (abs(det) > 1e-12 and math.isfinite(det)):
        return None
    x, y = (e * d - b * f) / det, (a * f - e * c) / det
    if not (math.isfinite(x) and math.isfinite(y)) or not x * m14 + y * m24 + m44 > 0:
        return None
    return (x, y)


class _Geometry:
    """A layer's model values that place it (LaminaCore's ``HitGeometry``)."""

    __slots__ = ("bounds", "position", "anchor", "anchor_z", "z", "transform", "sublayer_transform", "flipped",
                 "hidden", "interactive", "double_sided", "masks", "is_transform")

    def __init__(self, layer: Any) -> None:
        self.bounds = layer.bounds
        self.position = layer.position
        self.anchor = layer.anchor_point
        self.anchor_z = layer.anchor_point_z
        self.z = layer.z_position
        self.transform = layer.transform
        self.sublayer_transform = layer.sublayer_transform
        self.flipped = layer.geometry_flipped
        self.hidden = layer.hidden
        self.interactive = layer.user_interaction_enabled
        self.double_sided = layer.double_sided
        self.masks = layer.masks_to_bounds
        self.is_transform = layer.kind == "transform"

    def anchor_in_bounds(self) -> Point:
        x, y, w, h = self.bounds
        return (x + self.anchor[0] * w, y + self.anchor[1] * h)

    def to_superlayer(self) -> Matrix:
        """The layer's bounds coordinates to its superlayer's."""
        ax, ay = self.anchor_in_bounds()
        to_anchor = translation(-ax, -ay, -self.anchor_z)
        place = translation(self.position[0], self.position[1], self.z)
        if _is_identity(self.transform):
            return concat(to_anchor, place)
        return concat(concat(to_anchor, self.transform), place)

    def sublayer_space(self) -> Matrix:
        """The geometry flip, then ``sublayer_transform`` about the anchor point."""
        space = IDENTITY
        if not _is_identity(self.sublayer_transform):
            ax, ay = self.anchor_in_bounds()
            space = concat(concat(translation(-ax, -ay, -self.anchor_z), self.sublayer_transform),
                           translation(ax, ay, self.anchor_z))
        if self.flipped:
            x, y, w, h = self.bounds
            flip = concat((1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0),
                          translation(0, y + y + h))
            space = flip if _is_identity(space) else concat(flip, space)
        return space


def contains(bounds: Sequence[float], p: Point) -> bool:
    """``CGRectContainsPoint``: min edges in, max edges out."""
    x, y, w, h = bounds
    return x <= p[0] < x + w and y <= p[1] < y + h


class _HitTester:
    def __init__(self) -> None:
        self.visits = 0

    def front_to_back(self, sublayers: Sequence[Any]) -> List[Tuple[Any, _Geometry]]:
        children = [(c, _Geometry(c)) for c in sublayers]
        if not any(g.z != 0 for _, g in children):
            return children[::-1]
        order = sorted(range(len(children)), key=lambda i: (-children[i][1].z, -i))
        return [children[i] for i in order]

    def visit(self, layer: Any, g: _Geometry, point: Point, superlayer_space: Matrix, superlayer_to_display: Matrix,
              depth: int, targetable: bool = True) -> Optional[Any]:
        if g.hidden or not g.interactive or depth >= MAXIMUM_DEPTH:
            return None
        self.visits += 1
        if self.visits > MAXIMUM_VISITS:
            return None
        in_superlayer = g.to_superlayer()
        if not _is_identity(superlayer_space):
            in_superlayer = concat(in_superlayer, superlayer_space)
        if not g.double_sided and not faces_viewer(in_superlayer):
            return None
        if g.is_transform:
            found = self.hit_transform_layer(layer, g, point, in_superlayer, superlayer_to_display, depth)
            return None if found is None else found[0]
        to_display = in_superlayer if _is_identity(superlayer_to_display) else concat(in_superlayer, superlayer_to_display)
        local = unproject(to_display, point)
        inside = local is not None and contains(g.bounds, local)
        if g.masks and not inside:
            return None
        space = g.sublayer_space()
        plane = flattening_z(to_display)
        for child, cg in self.front_to_back(layer.sublayers):
            hit = self.visit(child, cg, point, space, plane, depth + 1)
            if hit is not None:
                return hit
            if self.visits > MAXIMUM_VISITS:
                return None
        return layer if targetable and inside else None

    def hit_transform_layer(self, layer: Any, g: _Geometry, point: Point, in_superlayer: Matrix,
                            superlayer_to_display: Matrix, depth: int) -> Optional[Tuple[Any, float]]:
        space = g.sublayer_space()
        child_space = in_superlayer if _is_identity(space) else concat(space, in_superlayer)
        best: Optional[Tuple[Any, float]] = None
        for child, cg in reversed(self.front_to_back(layer.sublayers)):
            if self.visits > MAXIMUM_VISITS or depth + 1 >= MAXIMUM_DEPTH:
                break
            candidate: Optional[Tuple[Any, float]] = None
            if cg.is_transform:
                if cg.hidden or not cg.interactive:
                    continue
                nested = concat(cg.to_superlayer(), child_space)
                if not cg.double_sided and not faces_viewer(nested):
                    continue
                self.visits += 1
                candidate = self.hit_transform_layer(child, cg, point, nested, superlayer_to_display, depth + 1)
            else:
                hit = self.visit(child, cg, point, child_space, superlayer_to_display, depth + 1)
                if hit is not None:
                    t = concat(cg.to_superlayer(), child_space)
                    x, y, w, h = cg.bounds
                    cx, cy = x + w / 2, y + h / 2
                    z = cx * t[2] + cy * t[6] + t[14]
                    wz = cx * t[3] + cy * t[7] + t[15]
                    candidate = (hit, z / wz if wz > 0 else -math.inf)
            if candidate is not None and (best is None or candidate[1] >= best[1]):
                best = candidate
        return best


def hit_test(layer: Any, point: Point) -> Optional[Any]:
    """``hitTest:``: the farthest descendant of `layer` (or itself) containing `point`, given
    in `layer`'s superlayer's coordinates; None if none."""
    superlayer = layer.superlayer
    space = IDENTITY if superlayer is None else _Geometry(superlayer).sublayer_space()
    return _HitTester().visit(layer, _Geometry(layer), (float(point[0]), float(point[1])), space, IDENTITY, 0)


def to_display(layer: Any) -> Optional[Matrix]:
    """`layer`'s bounds coordinates to its tree's root's superlayer space (the display for a
    layer under the connection's root), placed as laminad draws it."""
    path = [layer]
    while path[-1].superlayer is not None and len(path) <= MAXIMUM_DEPTH:
        path.append(path[-1].superlayer)
    path.reverse()
    g = _Geometry(path[0])
    in_superlayer = g.to_superlayer()
    superlayer_to_display = IDENTITY
    for node in path[1:]:
        cg = _Geometry(node)
        space = g.sublayer_space()
        if g.is_transform:
            in_superlayer = concat(cg.to_superlayer(), concat(space, in_superlayer))
        else:
            superlayer_to_display = flattening_z(concat(in_superlayer, superlayer_to_display))
            in_superlayer = cg.to_superlayer() if _is_identity(space) else concat(cg.to_superlayer(), space)
        g = cg
    return concat(in_superlayer, superlayer_to_display)


def convert_point(layer: Any, point: Point, other: Optional[Any], to: bool) -> Point:
    """`point` from `layer` to `other` (``to``) or from `other` to `layer`; None is the display.
    NaN where the point does not map (a layer seen edge-on)."""
    p = (float(point[0]), float(point[1]))
    source, target = (layer, other) if to else (other, layer)
    if source is not None:
        m = to_display(source)
        p = None if m is None else project(m, p)
    if p is not None and target is not None:
        m = to_display(target)
        p = None if m is None else unproject(m, p)
    return NAN_POINT if p is None else p


def convert_rect(layer: Any, rect: Sequence[float], other: Optional[Any], to: bool) -> Tuple[float, float, float, float]:
    """The bounding box of `rect`'s converted corners."""
    x, y, w, h = (float(v) for v in rect)
    corners = [convert_point(layer, c, other, to) for c in ((x, y), (x + w, y), (x + w, y + h), (x, y + h))]
    if any(math.isnan(c[0]) or math.isnan(c[1]) for c in corners):
        return (math.nan, math.nan, math.nan, math.nan)
    x0, y0 = min(c[0] for c in corners), min(c[1] for c in corners)
    x1, y1 = max(c[0] for c in corners), max(c[1] for c in corners)
    return (x0, y0, x1 - x0, y1 - y0)
