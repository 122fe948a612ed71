"""3D transforms as 16-tuples ``m11 m12 m13 m14 m21 … m44``: Core Animation's ``CATransform3D``
(row vectors, so a point is transformed as ``p · M``, and ``concat(a, b)`` applies `a` first).

::

    from lamina import transform
    layer.transform = transform.rotate(math.pi / 4)                  # about z
    layer.transform = transform.concat(transform.scale(2, 2), transform.translate(10, 0))
    panel.sublayer_transform = transform.perspective(500)
"""

from __future__ import annotations

import math
from typing import Sequence, Tuple

Transform = Tuple[float, ...]

IDENTITY: Transform = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)


def identity() -> Transform:
    """``CATransform3DIdentity``."""
    return IDENTITY


def translate(tx: float, ty: float, tz: float = 0.0) -> Transform:
    """``CATransform3DMakeTranslation``."""
    return (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, float(tx), float(ty), float(tz), 1.0)


def scale(sx: float, sy: float, sz: float = 1.0) -> Transform:
    """``CATransform3DMakeScale``."""
    return (float(sx), 0.0, 0.0, 0.0, 0.0, float(sy), 0.0, 0.0, 0.0, 0.0, float(sz), 0.0, 0.0, 0.0, 0.0, 1.0)


def rotate(angle: float, x: float = 0.0, y: float = 0.0, z: float = 1.0) -> Transform:
    """``CATransform3DMakeRotation``: `angle` radians about the axis (x, y, z), by default z.
    A zero axis gives the identity, as in Core Animation."""
    length = math.sqrt(x * x + y * y + z * z)
    if length == 0:
        return IDENTITY
    ux, uy, uz = x / length, y / length, z / length
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return (t * ux * ux + c, t * ux * uy + s * uz, t * ux * uz - s * uy, 0.0,
            t * ux * uy - s * uz, t * uy * uy + c, t * uy * uz + s * ux, 0.0,
            t * ux * uz + s * uy, t * uy * uz - s * ux, t * uz * uz + c, 0.0,
            0.0, 0.0, 0.0, 1.0)


def perspective(distance: float) -> Transform:
    """An eye at `distance` points: ``m34 = -1/distance`` (for `sublayer_transform`)."""
    m = list(IDENTITY)
    m[11] = -1.0 / distance
    return tuple(m)


def concat(*transforms: Sequence[float]) -> Transform:
    """``CATransform3DConcat`` of several: the first is applied first. ``concat()`` is the identity."""
    result: Transform = IDENTITY
    for b in transforms:
        a = result
        result = tuple(
            sum(a[row * 4 + k] * b[k * 4 + col] for k in range(4)) for row in range(4) for col in range(4)
        )
    return result


def apply(m: Sequence[float], x: float, y: float, z: float = 0.0) -> Tuple[float, float, float]:
    """The point (x, y, z) transformed by `m`, divided by w."""
    v = [x * m[0] + y * m[4] + z * m[8] + m[12], x * m[1] + y * m[5] + z * m[9] + m[13],
         x * m[2] + y * m[6] + z * m[10] + m[14], x * m[3] + y * m[7] + z * m[11] + m[15]]
    return (v[0] / v[3], v[1] / v[3], v[2] / v[3])
