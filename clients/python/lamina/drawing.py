"""Drawn contents (``drawing``, protocol 1.7; docs/protocol.md "Drawings"): a context modelled
on Core Graphics' ``CGContext`` that records commands, which laminad rasterises with cairo at
the scale the layer is shown (a drawing, not pixels). Coordinates are the layer's bounds, y down.

    def draw(layer, ctx):
        ctx.set_fill_color("#FF0000")
        ctx.fill_rect((0, 0, 40, 20))
    layer.draw = draw
    layer.set_needs_display()      # draw runs before the next commit

or ``layer.drawing = ctx`` with a ``lamina.Drawing()`` filled in elsewhere. Each method is the
CGContext method in snake_case, with its arguments in the order of docs/protocol.md: points
``(x, y)``, rectangles ``(x, y, w, h)``, colours as everywhere in lamina, names as strings
(``"round"``, ``"even-odd"``, ``"multiply"``). laminad checks the drawing (budgets, ranges) and
refuses a bad one naming the command.
"""

from typing import Any, List, Sequence, Tuple

from . import protocol, values

Command = Tuple[int, Tuple[float, ...], Tuple[str, ...]]


def _snake(name: str) -> str:
    out = ""
    for i, ch in enumerate(name):
        # saveGState → save_gstate: a capital after a capital joins the word.
        if ch.isupper() and i > 0 and not name[i - 1].isupper():
            out += "_"
        out += ch.lower()
    return out


def _numbers(kind: str, v: Any, what: str) -> List[float]:
    if kind == "number":
        return [values.number(v)]
    if kind == "bool":
        return [1.0 if v else 0.0]
    if kind == "image":
        # An image number laminad knows (a SessionImage's, or a lamina.Image already shown as some
        # layer's contents on this connection: its number is then fixed).
        n = getattr(v, "number", v)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 0xFFFFFFFF:
            raise ValueError(f"{what}: expected an image number (1 and up), not {v!r}")
        return [float(n)]
    if kind in ("point", "size"):
        return list(values.point(v))
    if kind == "rect":
        return list(values.rect(v))
    if kind == "color":
        return list(values.color(v))
    if kind == "affine":
        n = [values.number(x) for x in v]
        if len(n) != 6:
            raise ValueError(f"{what}: an affine transform is (a, b, c, d, tx, ty), got {len(n)} numbers")
        return n
    if kind == "gradientOptions":
        names = protocol.DRAWING_NAMES[kind]
        if isinstance(v, str):
            v = (v,) if v != "none" else ()
        bits = 0
        for name in v:
            if name not in names[1:3]:
                raise ValueError(f"{what}: {name!r} is not one of {', '.join(names[1:3])}")
            bits |= names.index(name)
        return [float(bits)]
    if kind in protocol.DRAWING_NAMES:
        names = protocol.DRAWING_NAMES[kind]
        if v not in names:
            raise ValueError(f"{what}: {v!r} is not one of {', '.join(names)}")
        return [float(names.index(v))]
    raise ValueError(f"unknown argument kind {kind!r}")


class Drawing:
    """A drawing context that records (``CGContext``); ``commands`` holds what was drawn."""

    def __init__(self, bounds: Any = (0, 0, 0, 0)) -> None:
        self.bounds = values.rect(bounds)
        self.commands: List[Command] = []

    def __len__(self) -> int:
        return len(self.commands)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Drawing) and self.commands == other.commands

    def __repr__(self) -> str:
        return f"lamina.Drawing({len(self.commands)} commands)"

    def _add(self, op: str, args: Sequence[Any]) -> None:
        opcode, spec = protocol.DRAWING_OPS[op]
        numbers: List[float] = []
        strings: List[str] = []
        for (name, kind), v in zip(spec, args):
            what = f"{_snake(op)} {name}"
            if kind == "string":
                strings.append(values.string(v))
            elif kind == "numbers":
                numbers.extend(values.number(x) for x in v)
            elif kind == "stops":
                for stop in v:
                    location, color = stop
                    numbers.append(values.number(location))
                    numbers.extend(values.color(color))
            else:
                numbers.extend(_numbers(kind, v, what))
        self.commands.append((opcode, tuple(numbers), tuple(strings)))


# Defaults for arguments a caller may leave out, by op and argument.
_DEFAULTS = {
    ("addArc", "clockwise"): False, ("fillPath", "rule"): "non-zero", ("clip", "rule"): "non-zero",
    ("setLineDash", "phase"): 0.0, ("setShadow", "color"): (0.0, 0.0, 0.0, 1.0 / 3),
    ("drawLinearGradient", "options"): (), ("drawRadialGradient", "options"): (),
    ("showText", "font"): "Helvetica", ("showText", "size"): 12.0,
}


def _method(op: str, spec: Tuple[Tuple[str, str], ...]) -> Any:
    names = [_snake(n) for n, _ in spec]
    # Gradients take their stops first, as CGContext's drawLinearGradient(_:start:end:options:).
    order = list(range(len(spec)))
    if op in ("drawLinearGradient", "drawRadialGradient"):
        order = [len(spec) - 1] + list(range(len(spec) - 1))
    if op == "showText":
        order = [2, 0, 3, 1]  # show_text(text, at, font="Helvetica", size=12)
    if op == "setLineDash":
        order = [0, 1]

    def method(self: Drawing, *args: Any, **kwargs: Any) -> "Drawing":
        given: List[Any] = [None] * len(spec)
        have = [False] * len(spec)
        if len(args) > len(spec):
            raise TypeError(f"{_snake(op)} takes {len(spec)} arguments ({', '.join(names[i] for i in order)}), got {len(args)}")
        for i, v in zip(order, args):
            given[i], have[i] = v, True
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{_snake(op)} has no argument {k!r} (it takes {', '.join(names[i] for i in order)})")
            given[names.index(k)], have[names.index(k)] = v, True
        for i, (n, _) in enumerate(spec):
            if not have[i]:
                if (op, n) not in _DEFAULTS:
                    raise TypeError(f"{_snake(op)} needs {names[i]}")
                given[i] = _DEFAULTS[(op, n)]
        self._add(op, given)
        return self

    method.__name__ = _snake(op)
    method.__doc__ = f"``{op}``({', '.join(names[i] for i in order)})."
    return method


for _op, (_code, _spec) in protocol.DRAWING_OPS.items():
    setattr(Drawing, _snake(_op), _method(_op, _spec))


def canonical(v: Any) -> Tuple[Command, ...]:
    """A ``drawing`` value: a `Drawing`, a tuple of commands as wire.Reader gives, or None."""
    return values.canonical("drawing", v)
