"""``CAEmitterCell``: one kind of particle an `EmitterLayer` sheds (protocol 1.7).

A cell is a plain value: set its attributes (snake_case of Core Animation's names, as layers'
are), put it in a list, and assign the list to ``emitter.emitter_cells``; a cell changed later
takes effect when the list is assigned again. Its `contents` is a `lamina.Image` (or None: the
particles draw nothing, as in Core Animation). Fields animate by key path:
``BasicAnimation("emitterCells.snow.birthRate", from_value=0, to_value=40)``.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable, List, Sequence, Tuple

from . import protocol, values

__all__ = ["EmitterCell"]

#: The wire form of a list of cells: per cell, its ``(field id, type, value)`` triples for the
#: fields that differ from a default cell, and its own cells in the same form.
WireCells = Tuple[Tuple[Tuple[Tuple[int, str, Any], ...], "WireCells"], ...]


class EmitterCell:
    """``CAEmitterCell``. Keyword arguments set fields: ``EmitterCell("snow", birth_rate=40)``."""

    def __init__(self, name: str = "", **fields: Any) -> None:
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "emitter_cells", [])
        self.name = name
        for attribute, value in fields.items():
            setattr(self, attribute, value)

    def __getattr__(self, attribute: str) -> Any:
        field = protocol.EMITTER_CELL_FIELDS_BY_ATTRIBUTE.get(attribute)
        if field is None:
            raise AttributeError(self._unknown(attribute))
        if field.type == "image":
            return self._values.get(field.id)
        return self._values.get(field.id, field.default)

    def __setattr__(self, attribute: str, value: Any) -> None:
        if attribute == "emitter_cells":
            object.__setattr__(self, attribute, list(cells(value)))
            return
        field = protocol.EMITTER_CELL_FIELDS_BY_ATTRIBUTE.get(attribute)
        if field is None:
            raise AttributeError(self._unknown(attribute))
        if field.type == "image":
            v = value
        else:
            try:
                v = values.canonical(field.type, value)
            except (TypeError, ValueError) as e:
                raise type(e)(f"emitter cell {attribute}: {e}") from None
            if field.names is not None and v not in field.names:
                raise ValueError(f"emitter cell {attribute}: {v!r} is not one of {', '.join(field.names)}")
        self._values[field.id] = v

    @staticmethod
    def _unknown(attribute: str) -> str:
        names = list(protocol.EMITTER_CELL_FIELDS_BY_ATTRIBUTE) + ["emitter_cells"]
        close = difflib.get_close_matches(attribute, names, n=1)
        return f"an emitter cell has no field {attribute!r}" + (f"; did you mean {close[0]!r}?" if close else "")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EmitterCell) and self._values == other._values and self.emitter_cells == other.emitter_cells

    def __repr__(self) -> str:
        return f"EmitterCell({self.name!r})"

    def images(self) -> List[Any]:
        """The images this cell and its sub-cells show."""
        out = [self._values[28]] if self._values.get(28) is not None else []
        for c in self.emitter_cells:
            out += c.images()
        return out


def cells(value: Any, depth: int = 1) -> Tuple[EmitterCell, ...]:
    """`value` (a sequence of `EmitterCell`, or None) as the canonical tuple."""
    items = tuple(value or ())
    for c in items:
        if not isinstance(c, EmitterCell):
            raise TypeError(f"emitter_cells takes EmitterCell objects, not {c!r}")
    return items


def wire(items: Sequence[EmitterCell], image_number: Callable[[Any], int]) -> WireCells:
    """The cells' wire form, images by the number `image_number` gives them."""
    out = []
    for c in items:
        fields = []
        for field in protocol.EMITTER_CELL_FIELDS:
            if field.id not in c._values:
                continue
            v = c._values[field.id]
            if field.type == "image":
                v = 0 if v is None else image_number(v)
            if v != field.default:
                fields.append((field.id, field.type, v))
        out.append((tuple(fields), wire(c.emitter_cells, image_number)))
    return tuple(out)


def from_wire(w: WireCells) -> Tuple[EmitterCell, ...]:
    """Cells from their wire form (contents as image numbers), as a presentation shows them."""
    out = []
    for fields, subcells in w:
        c = EmitterCell()
        for fid, _, v in fields:
            c._values[fid] = v
        object.__setattr__(c, "emitter_cells", list(from_wire(subcells)))
        out.append(c)
    return tuple(out)
