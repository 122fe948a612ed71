"""A text layer's ``attributed_string`` (``CATextLayer.string`` set to an ``NSAttributedString``;
docs/protocol.md, "Rich text"): runs of text, each with its own look::

    label.attributed_string = [TextRun("Sale ", color="#FF0000", weight="bold"), TextRun("today 😀")]

An attribute a run leaves unset takes the layer's (``font``, ``font_size``, ``foreground_color``).
``weight`` is a CSS/OpenType number (100-1000, 400 regular, 700 bold) or a name ("bold")."""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple, Tuple, Union



MAX_RUNS = 256
MAX_TEXT_BYTES = 65536
MAX_FONT_NAME_BYTES = 256
MAX_POINTS = 10000.0
WEIGHTS = {
    "thin": 100, "ultralight": 200, "extralight": 200, "light": 300, "regular": 400, "normal": 400,
    "medium": 500, "semibold": 600, "demibold": 600, "bold": 700, "extrabold": 800, "ultrabold": 800,
    "heavy": 900, "black": 900,
}
FIELDS = ("text", "font", "font_size", "weight", "italic", "color", "background_color", "underline",
          "strikethrough", "kerning", "baseline_offset")
_SCENE_NAMES = {"fontSize": "font_size", "backgroundColor": "background_color", "baselineOffset": "baseline_offset"}


class TextRun(NamedTuple):
    """One run: ``TextRun("Sale ", color="#FF0000", weight="bold")``. ``color`` and
    ``background_color`` None take the layer's colour and no background."""

    text: str
    font: str = ""
    font_size: float = 0.0
    weight: Union[float, str] = 0.0
    italic: bool = False
    color: Any = None
    background_color: Any = None
    underline: bool = False
    strikethrough: bool = False
    kerning: float = 0.0
    baseline_offset: float = 0.0


def canonical(v: Any, parse_color: Callable[[Any], Tuple[float, float, float, float]], index: int = 0) -> TextRun:
    """A `TextRun` (or a string, or a scene file's dict ``{"text", "color", "weight", …}``) checked
    as laminad checks it: weight a number, colours (r, g, b, a) tuples (by `parse_color`, which
    takes "#RRGGBB" and tuples) or None."""
    here = f"attributed_string run {index}"
    if isinstance(v, str):
        v = TextRun(v)
    elif isinstance(v, dict):
        fields = {}
        for k, x in v.items():
            name = _SCENE_NAMES.get(k, k)
            if name not in FIELDS:
                raise ValueError(f"{here}: unknown attribute {k!r} (known: {', '.join(FIELDS)})")
            fields[name] = x
        if "text" not in fields:
            raise ValueError(f"{here}: a run needs a 'text'")
        v = TextRun(**fields)
    r = TextRun(*v)
    if not isinstance(r.text, str) or not isinstance(r.font, str):
        raise TypeError(f"{here}: text and font are strings")
    weight = r.weight
    if isinstance(weight, str):
        if weight.lower() not in WEIGHTS:
            raise ValueError(f"{here}: unknown weight {weight!r} (a number 1-1000 or one of {', '.join(WEIGHTS)})")
        weight = WEIGHTS[weight.lower()]
    numbers = [float(r.font_size), float(weight), float(r.kerning), float(r.baseline_offset)]
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError(f"{here}: numbers must be finite")
    if not 0 <= numbers[0] <= MAX_POINTS:
        raise ValueError(f"{here}: font_size must be 0 (the layer's) to {MAX_POINTS:g} (got {numbers[0]})")
    if not (numbers[1] == 0 or 1 <= numbers[1] <= 1000):
        raise ValueError(f"{here}: weight must be 0 (the layer's) or 1 to 1000 (got {numbers[1]})")
    if abs(numbers[2]) > MAX_POINTS or abs(numbers[3]) > MAX_POINTS:
        raise ValueError(f"{here}: kerning and baseline_offset must be within ±{MAX_POINTS:g} points")
    if len(r.font.encode()) > MAX_FONT_NAME_BYTES:
        raise ValueError(f"{here}: a font name is at most {MAX_FONT_NAME_BYTES} bytes")
    colors = []
    for name, c in (("color", r.color), ("background_color", r.background_color)):
        if c is None:
            colors.append(None)
            continue
        c = parse_color(c)
        if not all(0 <= x <= 1 for x in c):
            raise ValueError(f"{here}: {name} components must be in [0, 1] (got {c})")
        colors.append(c)
    return TextRun(r.text, r.font, numbers[0], numbers[1], bool(r.italic), colors[0], colors[1],
                   bool(r.underline), bool(r.strikethrough), numbers[2], numbers[3])


def canonical_list(v: Any, parse_color: Callable[[Any], Tuple[float, float, float, float]]) -> Tuple[TextRun, ...]:
    items = list(v or ())
    if len(items) > MAX_RUNS:
        raise ValueError(f"attributed_string: at most {MAX_RUNS} runs (got {len(items)})")
    out = tuple(canonical(x, parse_color, i) for i, x in enumerate(items))
    total = sum(len(r.text.encode()) for r in out)
    if total > MAX_TEXT_BYTES:
        raise ValueError(f"attributed_string: the runs' text is {total} bytes, past the limit of {MAX_TEXT_BYTES}")
    return out


def write(w: Any, runs: Tuple[TextRun, ...]) -> None:
    """The attributed-string layout (value type 22) onto a wire writer."""
    w.u32(len(runs))
    for r in runs:
        w.string(r.text)
        w.string(r.font)
        w.f64(r.font_size)
        w.f64(r.weight)
        flags = (1 if r.italic else 0) | (2 if r.underline else 0) | (4 if r.strikethrough else 0) \
            | (8 if r.color is not None else 0) | (16 if r.background_color is not None else 0)
        w.u8(flags)
        for c in (r.color, r.background_color):
            if c is not None:
                for x in c:
                    w.f64(x)
        w.f64(r.kerning)
        w.f64(r.baseline_offset)


def read(rd: Any, what: str, violation: Any) -> Tuple[TextRun, ...]:
    n = rd.u32(what)
    if n > MAX_RUNS:
        raise violation(f"{what}: {n} runs is past the limit of {MAX_RUNS}")
    out = []
    for _ in range(n):
        text, font = rd.string(what), rd.string(what)
        size, weight = rd.f64(what), rd.f64(what)
        flags = rd.u8(what)
        if flags & ~31:
            raise violation(f"{what}: unknown run flags {flags}")
        c = tuple(rd.f64(what) for _ in range(4)) if flags & 8 else None
        b = tuple(rd.f64(what) for _ in range(4)) if flags & 16 else None
        out.append(TextRun(text, font, size, weight, bool(flags & 1), c, b, bool(flags & 2), bool(flags & 4),
                           rd.f64(what), rd.f64(what)))
    return tuple(out)



