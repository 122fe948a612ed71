"""Scroll layers' geometry (``CAScrollLayer``), as the Swift library and laminad compute it:
where ``scroll_to`` puts the origin, what rectangle it shows, and points and rectangles carried
between a layer and the scroll layer above it. Layers are read through their properties only.

Carrying points follows each layer's anchor point, transform and position and its superlayer's
geometry flip and sublayer transform; a perspective (m14, m24, m34) is left out: the 2D affine
part of each matrix is used, which is exact for translations, scales and rotations about z."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import transform

Point = Tuple[float, float]
Rect = Tuple[float, float, float, float]


def scroll_origin(bounds: Rect, mode: str, point: Point) -> Point:
    """``scrollToPoint:``: `point` on the axes `mode` allows, the current origin on the others."""
    x = point[0] if mode in ("both", "horizontally") else bounds[0]
    y = point[1] if mode in ("both", "vertically") else bounds[1]
    return (float(x), float(y))


def origin_showing(bounds: Rect, mode: str, rect: Rect) -> Point:
    """``scrollToRect:``: the origin that shows `rect` with the least movement (an axis already in
    view stays; before the bounds its leading edge meets theirs, after them its trailing edge,
    its leading edge where it is longer than the bounds)."""
    def axis(origin: float, length: float, lo: float, hi: float) -> float:
        if lo < origin or hi - lo > length:
            return lo
        if hi > origin + length:
            return hi - length
        return origin
    x, y, w, h = rect
    return scroll_origin(bounds, mode, (axis(bounds[0], bounds[2], x, x + w), axis(bounds[1], bounds[3], y, y + h)))


def enclosing_scroll_layer(layer: Any) -> Optional[Any]:
    """The nearest scroll layer above `layer` (its superlayer, or theirs), or None."""
    at = layer.superlayer
    while at is not None:
        if at.kind == "scroll":
            return at
        at = at.superlayer
    return None


def _to_superlayer(layer: Any) -> transform.Transform:
    """`layer`'s bounds coordinates to its superlayer's: the anchor to the origin, the transform,
    the position; then the superlayer's geometry flip and sublayer transform about its anchor."""
    bx, by, w, h = layer.bounds
    ax, ay = layer.anchor_point
    anchor = (bx + ax * w, by + ay * h)
    px, py = layer.position
    m = transform.concat(transform.translate(-anchor[0], -anchor[1], -layer.anchor_point_z), layer.transform,
                         transform.translate(px, py, layer.z_position))
    up = layer.superlayer
    if up is None:
        return m
    ux, uy, uw, uh = up.bounds
    uax, uay = up.anchor_point
    ua = (ux + uax * uw, uy + uay * uh)
    space = transform.concat(transform.translate(-ua[0], -ua[1], -up.anchor_point_z), up.sublayer_transform,
                             transform.translate(ua[0], ua[1], up.anchor_point_z))
    if up.geometry_flipped:
        space = transform.concat(transform.scale(1, -1), transform.translate(0, uy + (uy + uh)), space)
    return transform.concat(m, space)


def _to_ancestor(layer: Any, ancestor: Any) -> transform.Transform:
    m = transform.IDENTITY
    at = layer
    while at is not None and at is not ancestor:
        m = transform.concat(m, _to_superlayer(at))
        at = at.superlayer
    return m


def _apply(m: transform.Transform, p: Point) -> Point:
    return (p[0] * m[0] + p[1] * m[4] + m[12], p[0] * m[1] + p[1] * m[5] + m[13])


def _inverse(m: transform.Transform) -> transform.Transform:
    a, b, c, d, tx, ty = m[0], m[1], m[4], m[5], m[12], m[13]
    det = a * d - b * c
    if det == 0:
        nan = float("nan")
        return (nan,) * 16
    ia, ib, ic, id_ = d / det, -b / det, -c / det, a / det
    return (ia, ib, 0.0, 0.0, ic, id_, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0,
            -(tx * ia + ty * ic), -(tx * ib + ty * id_), 0.0, 1.0)


def _box(m: transform.Transform, r: Rect) -> Rect:
    x, y, w, h = r
    corners = [_apply(m, (x, y)), _apply(m, (x + w, y)), _apply(m, (x + w, y + h)), _apply(m, (x, y + h))]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


def point_to_ancestor(layer: Any, ancestor: Any, p: Point) -> Point:
    """`p` in `layer`'s coordinates, in `ancestor`'s (a layer above it)."""
    return _apply(_to_ancestor(layer, ancestor), p)


def rect_to_ancestor(layer: Any, ancestor: Any, r: Rect) -> Rect:
    """The box around `r` (in `layer`'s coordinates) in `ancestor`'s."""
    return _box(_to_ancestor(layer, ancestor), r)


def rect_from_ancestor(layer: Any, ancestor: Any, r: Rect) -> Rect:
    """The box around `r` (in `ancestor`'s coordinates) in `layer`'s."""
    return _box(_inverse(_to_ancestor(layer, ancestor)), r)


def visible_rect(layer: Any) -> Rect:
    """``visibleRect``: the part of `layer`'s bounds the nearest scroll layer above it shows (its
    bounds), in `layer`'s coordinates; the bounds outside a scroll layer; zero-sized where none
    of it shows."""
    b = tuple(float(v) for v in layer.bounds)
    s = enclosing_scroll_layer(layer)
    if s is None:
        return b  # type: ignore[return-value]
    shown = rect_from_ancestor(layer, s, s.bounds)
    x0, y0 = max(b[0], shown[0]), max(b[1], shown[1])
    x1, y1 = min(b[0] + b[2], shown[0] + shown[2]), min(b[1] + b[3], shown[1] + shown[3])
    if x1 <= x0 or y1 <= y0:
        return (max(x0, b[0]), max(y0, b[1]), 0.0, 0.0)
    return (x0, y0, x1 - x0, y1 - y0)
