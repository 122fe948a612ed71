"""The binary codec: frames, client messages, server messages (docs/protocol.md).

Everything here works on canonical values (see `lamina.values`) and wire numbers; the layer
objects of `lamina.layer` turn into these operations in `lamina.link`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import protocol
from .errors import LaminaError, ProtocolViolation
from .filters import Filter
from . import text_runs
from .layout import Constraint
from .values import Path, TimingFunction

_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")
_HEADER = struct.Struct("<IHH")


class Writer:
    """Appends little-endian fields to a byte buffer."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def u8(self, v: int) -> None:
        self.buffer.append(v)

    def u16(self, v: int) -> None:
        self.buffer += _U16.pack(v)

    def u32(self, v: int) -> None:
        self.buffer += _U32.pack(v)

    def i32(self, v: int) -> None:
        self.buffer += _I32.pack(v)

    def u64(self, v: int) -> None:
        self.buffer += _U64.pack(v)

    def f64(self, v: float) -> None:
        self.buffer += _F64.pack(v)

    def bool(self, v: bool) -> None:
        self.buffer.append(1 if v else 0)

    def string(self, s: str) -> None:
        data = s.encode("utf-8")
        self.u32(len(data))
        self.buffer += data

    def raw(self, b: bytes) -> None:
        self.buffer += b

    def timing_function(self, f: TimingFunction) -> None:
        for v in f:
            self.f64(v)

    def path(self, p: Path) -> None:
        self.u32(len(p.elements))
        for name, points in p.elements:
            self.u8(protocol.PATH_ELEMENTS[name])
            for x, y in points:
                self.f64(x)
                self.f64(y)

    def value(self, type_name: str, v: Any) -> None:
        """A value in its type's layout (no tag); `v` is canonical."""
        if type_name == "number":
            self.f64(v)
        elif type_name in ("point", "size", "rect", "color", "transform"):
            for x in v:
                self.f64(x)
        elif type_name == "bool":
            self.bool(v)
        elif type_name == "string":
            self.string(v)
        elif type_name == "numberList":
            self.u32(len(v))
            for x in v:
                self.f64(x)
        elif type_name == "colorList":
            self.u32(len(v))
            for c in v:
                for x in c:
                    self.f64(x)
        elif type_name == "path":
            self.path(v)
        elif type_name == "constraintList":
            self.u32(len(v))
            for c in v:
                self.u8(protocol.CONSTRAINT_ATTRIBUTES[c[0]])
                self.u8(protocol.CONSTRAINT_ATTRIBUTES[c[2] or c[0]])
                self.string(c[1])
                self.f64(c[3])
                self.f64(c[4])
        elif type_name in ("image", "layer"):
            self.u32(v)
        elif type_name == "emitterCells":
            self.emitter_cells(v)
        elif type_name == "attributedString":
            text_runs.write(self, v)
        elif type_name == "filterList":
            # u32 count, then per filter: string name, u8 type, u8 input count, the numbers.
            self.u32(len(v))
            for f in v:
                self.string(f[0])
                self.u8(protocol.FILTER_TYPES[f[1]][0])
                self.u8(len(f[2]))
                for x in f[2]:
                    self.f64(x)
        elif type_name == "drawing":
            # u32 count, then per command: u8 opcode, u16 number count, the f64s, the op's strings.
            self.u32(len(v))
            for op, numbers, strings in v:
                self.u8(op)
                self.u16(len(numbers))
                for x in numbers:
                    self.f64(x)
                for t in strings:
                    self.string(t)
        else:
            raise ValueError(f"unknown value type {type_name!r}")

    def emitter_cells(self, cells: Any) -> None:
        """The `emitterCells` layout from the cells' wire form (`lamina.emitter.wire`): u32 count,
        then per cell u16 field count, (u16 field, value)…, then its own cells."""
        self.u32(len(cells))
        for fields, subcells in cells:
            self.u16(len(fields))
            for fid, type_name, v in fields:
                self.u16(fid)
                self.value(type_name, v)
            self.emitter_cells(subcells)

    def typed_value(self, typed: Optional[Tuple[str, Any]]) -> None:
        """A type tag and the value, or tag 0 for None."""
        if typed is None:
            self.u8(0)
            return
        self.u8(protocol.VALUE_TYPES[typed[0]])
        self.value(typed[0], typed[1])


class Reader:
    """Reads little-endian fields; a short read raises `ProtocolViolation` naming the field."""

    def __init__(self, data: bytes, offset: int = 0) -> None:
        self.data = memoryview(data)
        self.offset = offset

    @property
    def remaining(self) -> int:
        return len(self.data) - self.offset

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or self.remaining < n:
            raise ProtocolViolation(f"message ends in the middle of {what}")
        b = bytes(self.data[self.offset:self.offset + n])
        self.offset += n
        return b

    def u8(self, what: str = "u8") -> int:
        return self.take(1, what)[0]

    def u16(self, what: str = "u16") -> int:
        return _U16.unpack(self.take(2, what))[0]

    def u32(self, what: str = "u32") -> int:
        return _U32.unpack(self.take(4, what))[0]

    def i32(self, what: str = "i32") -> int:
        return _I32.unpack(self.take(4, what))[0]

    def u64(self, what: str = "u64") -> int:
        return _U64.unpack(self.take(8, what))[0]

    def f64(self, what: str = "f64") -> float:
        return _F64.unpack(self.take(8, what))[0]

    def bool(self, what: str = "bool") -> bool:
        b = self.u8(what)
        if b > 1:
            raise ProtocolViolation(f"{what}: a bool must be 0 or 1, not {b}")
        return b == 1

    def string(self, what: str = "string") -> str:
        n = self.u32(what + " length")
        try:
            return self.take(n, what).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ProtocolViolation(f"{what} is not UTF-8: {e}") from None

    def count(self, what: str, smallest: int) -> int:
        n = self.u32(what + " count")
        if n * smallest > self.remaining:
            raise ProtocolViolation(f"{what}: {n} entries cannot fit in the {self.remaining} bytes that follow")
        return n

    def path(self, what: str = "path") -> Path:
        p = Path()
        for _ in range(self.count(what, 1)):
            tag = self.u8(what + " element type")
            name = next((n for n, t in protocol.PATH_ELEMENTS.items() if t == tag), None)
            if name is None:
                raise ProtocolViolation(f"{what}: unknown path element type {tag}")
            pts = tuple((self.f64(what), self.f64(what)) for _ in range(protocol.PATH_ELEMENT_POINTS[name]))
            p.elements.append((name, pts))
        return p

    def value(self, type_name: str, what: str = "value") -> Any:
        """A value of `type_name` in canonical form."""
        if type_name == "number":
            return self.f64(what)
        if type_name in ("point", "size"):
            return (self.f64(what), self.f64(what))
        if type_name in ("rect", "color"):
            return tuple(self.f64(what) for _ in range(4))
        if type_name == "transform":
            return tuple(self.f64(what) for _ in range(16))
        if type_name == "bool":
            return self.bool(what)
        if type_name == "string":
            return self.string(what)
        if type_name == "numberList":
            return tuple(self.f64(what) for _ in range(self.count(what, 8)))
        if type_name == "colorList":
            return tuple(tuple(self.f64(what) for _ in range(4)) for _ in range(self.count(what, 32)))
        if type_name == "path":
            return self.path(what)
        if type_name == "constraintList":
            out = []
            for _ in range(self.count(what, 22)):
                a, s = self.u8(what), self.u8(what)
                if a not in protocol.CONSTRAINT_ATTRIBUTE_NAMES or s not in protocol.CONSTRAINT_ATTRIBUTE_NAMES:
                    raise ProtocolViolation(f"{what}: constraint attribute {max(a, s)} is not 0-7")
                relative_to = self.string(what)
                out.append(Constraint(protocol.CONSTRAINT_ATTRIBUTE_NAMES[a], relative_to, protocol.CONSTRAINT_ATTRIBUTE_NAMES[s],
                                      self.f64(what), self.f64(what)))
            return tuple(out)
        if type_name in ("image", "layer"):
            return self.u32(what)
        if type_name == "emitterCells":
            return self.emitter_cells(what)
        if type_name == "attributedString":
            return text_runs.read(self, what, ProtocolViolation)
        if type_name == "filterList":
            n = self.u32(what)
            if n > protocol.MAX_FILTERS:
                raise ProtocolViolation(f"{what}: {n} filters is past the limit of {protocol.MAX_FILTERS}")
            out = []
            for _ in range(n):
                name, tag, count = self.string(what), self.u8(what), self.u8(what)
                if tag not in protocol.FILTER_TYPE_NAMES:
                    raise ProtocolViolation(f"{what}: unknown filter type {tag}")
                out.append(Filter(name, protocol.FILTER_TYPE_NAMES[tag], tuple(self.f64(what) for _ in range(count))))
            return tuple(out)
        if type_name == "drawing":
            commands = []
            for i in range(self.count(what, 3)):
                op = self.u8(what)
                if op not in protocol.DRAWING_OP_NAMES:
                    raise ProtocolViolation(f"{what}: command {i}: unknown opcode {op}")
                n = self.u16(what)
                if n * 8 > self.remaining:
                    raise ProtocolViolation(f"{what}: command {i}: {n} numbers cannot fit in the {self.remaining} bytes that follow")
                numbers = tuple(self.f64(what) for _ in range(n))
                spec = protocol.DRAWING_OPS[protocol.DRAWING_OP_NAMES[op]][1]
                strings = tuple(self.string(what) for kind in spec if kind[1] == "string")
                commands.append((op, numbers, strings))
            return tuple(commands)
        raise ValueError(f"unknown value type {type_name!r}")

    def emitter_cells(self, what: str, depth: int = 1) -> Any:
        """An `emitterCells` value in its wire form: per cell, ``(field id, type, value)`` triples
        and its own cells."""
        n = self.u32(what)
        if n > protocol.MAX_EMITTER_CELLS or (n and depth > protocol.MAX_EMITTER_DEPTH):
            raise ProtocolViolation(f"{what}: {n} emitter cells at depth {depth} is past the limits")
        out = []
        for _ in range(n):
            fields = []
            for _ in range(self.u16(what)):
                fid = self.u16(what)
                field = protocol.EMITTER_CELL_FIELDS_BY_ID.get(fid)
                if field is None:
                    raise ProtocolViolation(f"{what}: unknown emitter cell field {fid}")
                fields.append((field.id, field.type, self.value(field.type, what)))
            out.append((tuple(fields), self.emitter_cells(what, depth + 1)))
        return tuple(out)

    def finish(self, what: str) -> None:
        if self.remaining:
            raise ProtocolViolation(f"{self.remaining} unexpected bytes after the end of {what}")


# MARK: Frames


def frame(message_type: int, body: Union[bytes, bytearray]) -> bytes:
    """Header and body."""
    return _HEADER.pack(len(body), message_type, 0) + bytes(body)


class FrameDecoder:
    """Splits a byte stream into ``(type, body)`` frames, however the bytes arrive."""

    def __init__(self, limit: int = 1 << 30) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def append(self, data: bytes) -> None:
        self._buffer += data

    def next(self) -> Optional[Tuple[int, bytes]]:
        """The next whole frame, or None when more bytes are needed."""
        if len(self._buffer) < protocol.HEADER_SIZE:
            return None
        length, message_type, reserved = _HEADER.unpack_from(self._buffer)
        if reserved != 0:
            raise ProtocolViolation(f"frame header's reserved field must be 0, got {reserved:#x}")
        if length > self.limit:
            raise ProtocolViolation(f"frame body of {length} bytes is over the limit of {self.limit} bytes")
        end = protocol.HEADER_SIZE + length
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[protocol.HEADER_SIZE:end])
        del self._buffer[:end]
        return message_type, body

    @property
    def buffered(self) -> int:
        return len(self._buffer)


# MARK: Operations


@dataclass(frozen=True)
class Create:
    """Opcode 1 (plain layer) or 11 (another kind): a new layer with the defaults, in no tree."""

    layer: int
    kind: int = 0


@dataclass(frozen=True)
class Destroy:
    layer: int


@dataclass(frozen=True)
class Set:
    """Sets property `property` (a wire number) to `value` (canonical, of the property's type)."""

    layer: int
    property: int
    value: Any


@dataclass(frozen=True)
class Insert:
    parent: int
    child: int
    index: int = protocol.APPEND


@dataclass(frozen=True)
class Remove:
    layer: int


@dataclass(frozen=True)
class AddAnimation:
    """`animation` is the encoded animation (`lamina.animation.Animation.encode()`)."""

    layer: int
    key: str
    tag: int
    animation: bytes


@dataclass(frozen=True)
class RemoveAnimation:
    layer: int
    key: str


@dataclass(frozen=True)
class RemoveAllAnimations:
    layer: int


@dataclass(frozen=True)
class SetAction:
    """`action`: ``"inherit"`` (no entry), ``"none"`` (a null action) or encoded animation bytes."""

    layer: int
    dictionary: str
    key: str
    action: Union[str, bytes]


@dataclass(frozen=True)
class Settings:
    duration: float = protocol.DEFAULT_TRANSACTION_DURATION
    timing_function: Optional[TimingFunction] = None
    disable_actions: bool = False
    completion_groups: Tuple[int, ...] = ()


@dataclass(frozen=True)
class CreateImage:
    """Takes the commit frame's next file descriptor."""

    image: int
    width: int
    height: int
    stride: int
    pixel_format: str = "rgba"
    alpha: str = "premultiplied"
    offset: int = 0


@dataclass(frozen=True)
class UpdateImage:
    image: int
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True)
class DestroyImage:
    image: int


@dataclass(frozen=True)
class SupplyTile:
    """Image `image` becomes tile `column`, `row` of `level` of tiled layer `layer` (protocol 1.7);
    laminad takes its pixels and the image number is free again."""
    layer: int
    level: int
    column: int
    row: int
    image: int


@dataclass(frozen=True)
class DropTiles:
    """Every tile laminad holds for tiled layer `layer` goes (``setNeedsDisplay``; protocol 1.7)."""
    layer: int


@dataclass(frozen=True)
class CreateVideo:
    """A video whose pictures are image `image` (protocol 1.6); `uri` a path or URI laminad reads."""
    image: int
    uri: str


@dataclass(frozen=True)
class CreateEncodedImage:
    """An image laminad makes from an encoded file (protocol 1.7): ``format`` is "svg", "gif"
    or "webp"; the file is the first ``byte_count`` bytes of the frame's next descriptor."""
    image: int
    format: str
    byte_count: int


@dataclass(frozen=True)
class ControlVideo:
    """play, pause, seek (seconds), rate (factor) or loop (bool) (protocol 1.6); volume (0…1)
    or muted (bool) (protocol 1.7)."""
    image: int
    control: str
    argument: Any = None


Operation = Union[Create, Destroy, Set, Insert, Remove, AddAnimation, RemoveAnimation, RemoveAllAnimations,
                  SetAction, Settings, CreateImage, UpdateImage, DestroyImage, CreateVideo, ControlVideo,
                  CreateEncodedImage]


def write_operation(w: Writer, op: Operation) -> None:
    """Appends one operation: its opcode, then its fields."""
    o = protocol.OPCODES
    if isinstance(op, Create):
        if op.kind == 0:
            w.u8(o["create"])
            w.u32(op.layer)
        else:
            w.u8(o["createKind"])
            w.u32(op.layer)
            w.u8(op.kind)
    elif isinstance(op, Destroy):
        w.u8(o["destroy"])
        w.u32(op.layer)
    elif isinstance(op, Set):
        w.u8(o["set"])
        w.u32(op.layer)
        w.u16(op.property)
        w.value(protocol.PROPERTIES_BY_ID[op.property].type, op.value)
    elif isinstance(op, Insert):
        w.u8(o["insert"])
        w.u32(op.parent)
        w.u32(op.child)
        w.u32(op.index)
    elif isinstance(op, Remove):
        w.u8(o["remove"])
        w.u32(op.layer)
    elif isinstance(op, AddAnimation):
        w.u8(o["addAnimation"])
        w.u32(op.layer)
        w.string(op.key)
        w.u32(op.tag)
        w.raw(op.animation)
    elif isinstance(op, RemoveAnimation):
        w.u8(o["removeAnimation"])
        w.u32(op.layer)
        w.string(op.key)
    elif isinstance(op, RemoveAllAnimations):
        w.u8(o["removeAllAnimations"])
        w.u32(op.layer)
    elif isinstance(op, SetAction):
        w.u8(o["setAction"])
        w.u32(op.layer)
        w.u8(protocol.ACTION_DICTIONARIES[op.dictionary])
        w.string(op.key)
        if isinstance(op.action, (bytes, bytearray)):
            w.u8(protocol.ACTION_KINDS["animation"])
            w.raw(op.action)
        else:
            w.u8(protocol.ACTION_KINDS[op.action])
    elif isinstance(op, Settings):
        w.u8(o["settings"])
        w.f64(op.duration)
        flags = (protocol.SETTINGS_DISABLE_ACTIONS if op.disable_actions else 0) | (
            protocol.SETTINGS_TIMING_FUNCTION if op.timing_function is not None else 0)
        w.u8(flags)
        if op.timing_function is not None:
            w.timing_function(op.timing_function)
        w.u32(len(op.completion_groups))
        for g in op.completion_groups:
            w.u32(g)
    elif isinstance(op, CreateImage):
        w.u8(o["createImage"])
        for v in (op.image, op.width, op.height, op.stride):
            w.u32(v)
        w.u8(protocol.PIXEL_FORMATS[op.pixel_format])
        w.u8(protocol.ALPHA_MODES[op.alpha])
        w.u64(op.offset)
    elif isinstance(op, CreateEncodedImage):
        w.u8(o["createEncodedImage"])
        w.u32(op.image)
        w.u8(protocol.ENCODED_IMAGE_FORMATS[op.format])
        w.u64(op.byte_count)
    elif isinstance(op, UpdateImage):
        w.u8(o["updateImage"])
        for v in (op.image, op.x, op.y, op.width, op.height):
            w.u32(v)
    elif isinstance(op, DestroyImage):
        w.u8(o["destroyImage"])
        w.u32(op.image)
    elif isinstance(op, SupplyTile):
        w.u8(o["supplyTile"])
        w.u32(op.layer)
        w.u32(op.level & 0xFFFFFFFF)
        for v in (op.column, op.row, op.image):
            w.u32(v)
    elif isinstance(op, DropTiles):
        w.u8(o["dropTiles"])
        w.u32(op.layer)
    elif isinstance(op, CreateVideo):
        w.u8(o["createVideo"])
        w.u32(op.image)
        w.string(op.uri)
    elif isinstance(op, ControlVideo):
        w.u8(o["controlVideo"])
        w.u32(op.image)
        w.u8(protocol.VIDEO_CONTROLS[op.control])
        if op.control in ("seek", "rate", "volume"):
            w.f64(float(op.argument))
        elif op.control in ("loop", "muted"):
            w.u8(1 if op.argument else 0)
    else:
        raise TypeError(f"not an operation: {op!r}")


def skip_animation(r: Reader, depth: int = 0) -> None:
    """Reads past one animation (docs/protocol.md, "Animations on the wire"), groups at most 8 deep."""
    if depth > 8:
        raise ProtocolViolation("animation groups nested more than 8 deep")
    kind = r.u8("animation kind")
    r.take(6 * 8 + 2, "animation timing")
    if r.u8("timing function presence"):
        r.take(32, "timing function")
    r.u8("removedOnCompletion")

    def typed(optional: bool) -> None:
        tag = r.u8("value type")
        if tag == 0 and optional:
            return
        name = protocol.VALUE_TYPE_NAMES.get(tag)
        if name is None:
            raise ProtocolViolation(f"unknown value type {tag} in an animation")
        r.value(name, "animation value")

    def numbers(each: int) -> None:
        if r.u8("array presence"):
            r.take(r.u32("count") * each, "array")

    if kind in (1, 3):  # basic, spring
        r.string("key path")
        for _ in range(3):
            typed(True)
        r.take(3, "additive, cumulative, value function")
        if kind == 3:
            r.take(32, "spring")
    elif kind == 2:  # keyframe
        r.string("key path")
        for _ in range(r.u32("value count")):
            typed(False)
        if r.u8("path presence"):
            r.value("path", "keyframe path")
        numbers(8)
        numbers(32)
        r.take(2, "modes")
        for _ in range(3):
            numbers(8)
        r.take(3, "additive, cumulative, value function")
    elif kind == 4:  # group
        for _ in range(r.u32("group count")):
            skip_animation(r, depth + 1)
    elif kind == 5:  # transition
        r.take(18, "transition")
    else:
        raise ProtocolViolation(f"unknown animation kind {kind}")


def read_operation(r: Reader) -> Operation:
    """Decodes one operation of a snapshot or a commit: creates, sets, inserts and removes; an
    action's or added animation's animation comes as its encoded bytes."""
    opcode = r.u8("opcode")
    o = protocol.OPCODES
    if opcode == o["create"]:
        return Create(r.u32("layer"))
    if opcode == o["createKind"]:
        return Create(r.u32("layer"), r.u8("kind"))
    if opcode == o["destroy"]:
        return Destroy(r.u32("layer"))
    if opcode == o["set"]:
        layer = r.u32("layer")
        key = r.u16("property")
        prop = protocol.PROPERTIES_BY_ID.get(key)
        if prop is None:
            raise ProtocolViolation(f"unknown property number {key}")
        return Set(layer, key, r.value(prop.type, f"value of '{prop.name}'"))
    if opcode == o["insert"]:
        return Insert(r.u32("parent"), r.u32("child"), r.u32("index"))
    if opcode == o["remove"]:
        return Remove(r.u32("layer"))
    if opcode == o["removeAnimation"]:
        return RemoveAnimation(r.u32("layer"), r.string("key"))
    if opcode == o["removeAllAnimations"]:
        return RemoveAllAnimations(r.u32("layer"))
    if opcode == o["destroyImage"]:
        return DestroyImage(r.u32("image"))
    if opcode == o["supplyTile"]:
        layer, level = r.u32("layer"), r.i32("tile level")
        return SupplyTile(layer, level, r.u32("tile column"), r.u32("tile row"), r.u32("tile image"))
    if opcode == o["dropTiles"]:
        return DropTiles(r.u32("layer"))
    if opcode == o["createEncodedImage"]:
        image, raw = r.u32("image"), r.u8("encoded image format")
        names = {v: k for k, v in protocol.ENCODED_IMAGE_FORMATS.items()}
        if raw not in names:
            raise ProtocolViolation(f"unknown encoded image format {raw} (0 SVG, 1 GIF, 2 WebP)")
        return CreateEncodedImage(image, names[raw], r.u64("encoded image bytes"))
    if opcode == o["setAction"]:
        layer, dictionary, key = r.u32("layer"), r.u8("dictionary"), r.string("key")
        kind = r.u8("action kind")
        names = {v: k for k, v in protocol.ACTION_DICTIONARIES.items()}
        kinds = {v: k for k, v in protocol.ACTION_KINDS.items()}
        if dictionary not in names or kind not in kinds:
            raise ProtocolViolation(f"set-action with dictionary {dictionary}, kind {kind}")
        if kinds[kind] == "animation":
            start = r.offset
            skip_animation(r)
            return SetAction(layer, names[dictionary], key, bytes(r.data[start:r.offset]))
        return SetAction(layer, names[dictionary], key, kinds[kind])
    if opcode == o["addAnimation"]:
        layer, key, tag = r.u32("layer"), r.string("key"), r.u32("tag")
        start = r.offset
        skip_animation(r)
        return AddAnimation(layer, key, tag, bytes(r.data[start:r.offset]))
    raise ProtocolViolation(f"operation with opcode {opcode} is not decoded by this client")


# MARK: Client messages


def encode_hello(client_name: str, session: str = "", flags: int = 0,
                 major: int = protocol.VERSION_MAJOR, minor: int = protocol.VERSION_MINOR) -> bytes:
    w = Writer()
    w.u32(protocol.MAGIC)
    w.u16(major)
    w.u16(minor)
    w.u32(flags)
    w.string(client_name)
    w.string(session)
    return frame(protocol.MSG_HELLO, w.buffer)


def encode_commit(serial: int, operations: Sequence[Operation]) -> bytes:
    w = Writer()
    w.u32(serial)
    w.u32(len(operations))
    for op in operations:
        write_operation(w, op)
    return frame(protocol.MSG_COMMIT, w.buffer)


def encode_injection(w: Writer, kind: str, args: Sequence[Any]) -> None:
    """An `inject-input` argument: `kind` is an `INJECTIONS` name, `args` its fields in order
    (``touchDown``: id, x, y; ``pointerButton``: code, pressed; ``key``: name, pressed; …)."""
    if kind not in protocol.INJECTIONS:
        raise ValueError(f"unknown injection {kind!r}; known: {', '.join(protocol.INJECTIONS)}")
    w.u8(protocol.INJECTIONS[kind])
    layouts = {
        "touchDown": "iff", "touchMotion": "iff", "touchUp": "i", "touchCancel": "i",
        "pointerMotion": "ff", "pointerButton": "ub", "scroll": "ff", "key": "sb",
    }
    layout = layouts[kind]
    if len(args) != len(layout):
        raise ValueError(f"{kind} takes {len(layout)} arguments, got {len(args)}")
    for code, a in zip(layout, args):
        {"i": w.i32, "f": lambda v: w.f64(float(v)), "u": w.u32, "b": w.bool, "s": w.string}[code](a)


def encode_request(request_id: int, kind: str, *args: Any) -> bytes:
    """A request frame. `kind` is a `REQUESTS` name; `args` are its arguments:
    ``advanceClock`` (seconds), ``presentation`` (layer number), ``displayPower`` (on, output),
    ``injectInput`` (injection kind, its arguments…), ``listen`` (session); none for the rest."""
    if kind not in protocol.REQUESTS:
        raise ValueError(f"unknown request {kind!r}; known: {', '.join(protocol.REQUESTS)}")
    w = Writer()
    w.u32(request_id)
    w.u16(protocol.REQUESTS[kind])
    if kind == "advanceClock":
        w.f64(float(args[0]))
    elif kind == "presentation":
        w.u32(args[0])
    elif kind == "displayPower":
        w.bool(args[0])
        w.string(args[1] if len(args) > 1 else "")
    elif kind == "injectInput":
        encode_injection(w, args[0], args[1:])
    elif kind == "listen":
        w.string(args[0])
    elif kind == "registerFont":
        w.u64(int(args[0]))   # the font's bytes travel in a sealed memory file (one descriptor)
    elif kind == "output":
        # (name, "none"), (name, "mode", width, height, refresh), (name, "transform", NAME),
        # (name, "scale", S), (name, "position", X, Y), (name, "enable"), (name, "disable"),
        # (name, "brightness", PERCENT) (name "": every output with a backlight)
        change = args[1] if len(args) > 1 else "none"
        if change not in protocol.OUTPUT_CHANGES:
            raise ValueError(f"unknown output change {change!r}; known: {', '.join(protocol.OUTPUT_CHANGES)}")
        w.string(args[0] if args else "")
        w.u8(protocol.OUTPUT_CHANGES[change])
        if change == "mode":
            w.u32(args[2])
            w.u32(args[3])
            w.f64(float(args[4]) if len(args) > 4 else 0.0)
        elif change == "transform":
            if args[2] not in protocol.OUTPUT_TRANSFORMS:
                raise ValueError(f"unknown output transform {args[2]!r}; known: {', '.join(protocol.OUTPUT_TRANSFORMS)}")
            w.string(args[2])
        elif change == "scale":
            w.f64(float(args[2]))
        elif change == "position":
            w.i32(int(args[2]))
            w.i32(int(args[3]))
        elif change == "brightness":
            percent = float(args[2])
            if not 0 <= percent <= 100:
                raise ValueError(f"brightness {percent} is not a percentage from 0 to 100")
            w.f64(percent)
    elif kind == "displayLink":
        # (link, "remove") or (link, "set", paused, (minimum, maximum, preferred), output)
        change = args[1] if len(args) > 1 else "remove"
        if change not in protocol.DISPLAY_LINK_CHANGES:
            raise ValueError(f"unknown display-link change {change!r}; known: {', '.join(protocol.DISPLAY_LINK_CHANGES)}")
        w.u32(args[0])
        w.u8(protocol.DISPLAY_LINK_CHANGES[change])
        if change == "set":
            w.bool(bool(args[2]))
            for rate in args[3]:
                w.f64(float(rate))
            w.string(args[4] if len(args) > 4 else "")
    elif kind == "manageApps":
        # ("manage"), ("stop"), ("focus", window) (0: back to the client), ("close", window)
        action = args[0] if args else "manage"
        if action not in protocol.APPS_ACTIONS:
            raise ValueError(f"unknown manage-apps action {action!r}; known: {', '.join(protocol.APPS_ACTIONS)}")
        if action in ("focus", "close") and len(args) != 2 or action in ("manage", "stop") and len(args) > 1:
            raise ValueError(f"manage-apps {action} takes {'an app window' if action in ('focus', 'close') else 'nothing'}")
        w.u8(protocol.APPS_ACTIONS[action])
        w.u32(int(args[1]) if len(args) > 1 else 0)
    elif args:
        raise ValueError(f"{kind} takes no arguments")
    return frame(protocol.MSG_REQUEST, w.buffer)


# MARK: Server messages


@dataclass
class Welcome:
    major: int
    minor: int
    client_id: int
    display_width: int
    display_height: int
    clock: str
    time: float
    #: The operations that rebuild a taken-over session's tree.
    snapshot: List["Operation"] = field(default_factory=list)


@dataclass
class Applied:
    serial: int


@dataclass
class Reply:
    """`value` by kind: screenshot ``(width, height, rgba bytes)``; tree ``str`` (JSON);
    advanced ``(time, frames rendered)``; stats ``dict``; presentation ``{property name: value}``;
    displayPower ``(backend, [(output, on)])``; snapshot ``[Operation]``; watching and done None."""

    id: int
    kind: str
    value: Any = None


@dataclass
class AnimationNotice:
    layer: int
    tag: int
    started: bool
    finished: bool


@dataclass
class TransactionCompleted:
    group: int


@dataclass
class WatchLine:
    json: str


@dataclass
class ClockMoved:
    """The virtual clock moved (another client advanced it): its new time."""
    time: float


@dataclass
class InputMessage:
    kind: str
    injected: bool
    layer: int
    id: int
    location: Tuple[float, float]
    screen: Tuple[float, float]
    time: float
    device_time: float
    delta: Tuple[float, float]
    keysym: int
    key_name: str
    text: str


@dataclass
class VideoEvent:
    """Something happened to one of this client's videos (protocol 1.6): `kind` is ready (with
    width, height and duration, None when unknown), playing, paused, ended or error (with message)."""
    image: int
    kind: str
    width: int = 0
    height: int = 0
    duration: Optional[float] = None
    message: str = ""


@dataclass
class ScrollMessage:
    """laminad scrolled one of this client's scroll layers (protocol 1.7): `phase` is began,
    moved, ended or interrupted; `source` touch or wheel; `offset` the layer's bounds origin now."""
    layer: int
    phase: str
    source: str
    offset: Tuple[float, float]
    velocity: Tuple[float, float]
    time: float


@dataclass
class OutputMode:
    """A display mode: the panel's pixels (before the transform) and refreshes per second (0:
    not paced, or in a request any)."""
    width: int
    height: int
    refresh: float = 0.0


@dataclass
class OutputInfo:
    """One output as an ``outputs`` reply lists it (protocol 1.7): `frame` is its rectangle in
    the desktop (x, y, width, height) in points; `transform` one of `OUTPUT_TRANSFORMS`."""
    name: str
    frame: Tuple[float, float, float, float]
    scale: float
    transform: str
    mode: OutputMode
    on: bool
    modes: List[OutputMode]


@dataclass
class DisplayOutput:
    """One output as a ``displayChanged`` message tells it."""
    name: str
    frame: Tuple[float, float, float, float]
    scale: float
    transform: str
    refresh: float


@dataclass
class DisplayChanged:
    """The outputs changed (protocol 1.7): the desktop's size in points and each output."""
    width: int
    height: int
    outputs: List[DisplayOutput]


@dataclass
class DisplayLinkFrame:
    """A ``frame`` message (protocol 1.7): the display links named fire; `timestamp` is the
    presentation time of the last frame, `target_timestamp` that of the frame being prepared,
    `duration` the output's refresh interval, all in laminad's media time."""
    links: List[int]
    timestamp: float
    target_timestamp: float
    duration: float



@dataclass
class TilesWanted:
    """laminad wants tiles of one of this client's tiled layers (protocol 1.7): `level`, and per
    tile its column, row and rectangle in the layer's bounds coordinates."""
    layer: int
    level: int
    tiles: List[Tuple[int, int, Tuple[float, float, float, float]]]


@dataclass
class AppSurfaceMessage:
    """An ``appSurface`` message (protocol 1.7): an app window laminad hosts appeared, changed
    (title, app id, size) or went (`reason`: "closed", "exited", "dropped"; "closed" otherwise)."""
    kind: str
    id: int
    app_id: str
    title: str
    pid: int
    width: int
    height: int
    reason: str = "closed"


ServerMessage = Union[Welcome, Applied, LaminaError, Reply, AnimationNotice, TransactionCompleted, WatchLine, InputMessage,
                      ClockMoved, VideoEvent, ScrollMessage, DisplayChanged, DisplayLinkFrame, TilesWanted, AppSurfaceMessage]

_REPLY_NAMES = {v: k for k, v in protocol.REPLIES.items()}
_INPUT_NAMES = {v: k for k, v in protocol.INPUT_EVENT_KINDS.items()}
_CLOCK_NAMES = {v: k for k, v in protocol.CLOCKS.items()}
_VIDEO_EVENT_NAMES = {v: k for k, v in protocol.VIDEO_EVENT_KINDS.items()}
_SCROLL_PHASE_NAMES = {v: k for k, v in protocol.SCROLL_PHASES.items()}
_SCROLL_SOURCE_NAMES = {v: k for k, v in protocol.SCROLL_SOURCES.items()}
_SUBJECT_NAMES = {v: k for k, v in protocol.ERROR_SUBJECTS.items()}
_APP_SURFACE_KIND_NAMES = {v: k for k, v in protocol.APP_SURFACE_KINDS.items()}
_APP_GONE_REASON_NAMES = {v: k for k, v in protocol.APP_GONE_REASONS.items()}


def decode_server(message_type: int, body: bytes) -> ServerMessage:
    """Decodes one server frame's body. An `error` message decodes to a `LaminaError` (not
    raised). Raises `ProtocolViolation` for bytes that are not a message."""
    r = Reader(body)
    msg: ServerMessage
    if message_type == protocol.MSG_WELCOME:
        major, minor, client = r.u16("major"), r.u16("minor"), r.u32("client id")
        width, height = r.u32("width"), r.u32("height")
        clock = r.u8("clock")
        time = r.f64("time")
        count = r.count("snapshot", 5)
        snapshot = [read_operation(r) for _ in range(count)]
        msg = Welcome(major, minor, client, width, height, _CLOCK_NAMES.get(clock, str(clock)), time, snapshot)
    elif message_type == protocol.MSG_APPLIED:
        msg = Applied(r.u32("serial"))
    elif message_type == protocol.MSG_ERROR:
        code = r.u16("code")
        subject = r.u8("subject")
        serial = r.u32("serial")
        index = r.i32("operation index")
        text = r.string("message")
        msg = LaminaError(text, code=code, subject=_SUBJECT_NAMES.get(subject, str(subject)), serial=serial,
                          operation_index=index)
    elif message_type == protocol.MSG_REPLY:
        msg = _decode_reply(r)
    elif message_type == protocol.MSG_ANIMATION_EVENT:
        layer, tag, kind = r.u32("layer"), r.u32("tag"), r.u8("kind")
        if kind > 1:
            raise ProtocolViolation(f"unknown animation event kind {kind}")
        msg = AnimationNotice(layer, tag, kind == 1, r.bool("finished"))
    elif message_type == protocol.MSG_TRANSACTION_COMPLETED:
        msg = TransactionCompleted(r.u32("group"))
    elif message_type == protocol.MSG_WATCH:
        msg = WatchLine(r.string("watch line"))
    elif message_type == protocol.MSG_INPUT:
        kind = r.u8("input kind")
        if kind not in _INPUT_NAMES:
            raise ProtocolViolation(f"unknown input event kind {kind}")
        flags = r.u8("flags")
        layer, ident = r.u32("layer"), r.i32("id")
        loc = (r.f64(), r.f64())
        screen = (r.f64(), r.f64())
        time, device_time = r.f64(), r.f64()
        delta = (r.f64(), r.f64())
        keysym = r.u32("keysym")
        msg = InputMessage(_INPUT_NAMES[kind], bool(flags & 1), layer, ident, loc, screen, time, device_time, delta,
                           keysym, r.string("key name"), r.string("text"))
    elif message_type == protocol.MSG_CLOCK:
        msg = ClockMoved(r.f64("clock time"))
    elif message_type == protocol.MSG_VIDEO:
        image = r.u32("video image")
        kind_number = r.u8("video event")
        kind = _VIDEO_EVENT_NAMES.get(kind_number)
        if kind is None:
            raise ProtocolViolation(f"unknown video event kind {kind_number}")
        if kind == "ready":
            width, height, duration = r.u32("video width"), r.u32("video height"), r.f64("video duration")
            msg = VideoEvent(image, kind, width, height, duration if duration >= 0 else None)
        elif kind == "error":
            msg = VideoEvent(image, kind, message=r.string("video error"))
        else:
            msg = VideoEvent(image, kind)
    elif message_type == protocol.MSG_SCROLL:
        layer = r.u32("scroll layer")
        phase, source = r.u8("scroll phase"), r.u8("scroll source")
        if phase not in _SCROLL_PHASE_NAMES or source not in _SCROLL_SOURCE_NAMES:
            raise ProtocolViolation(f"unknown scroll phase {phase} or source {source}")
        offset = (r.f64("scroll offset x"), r.f64("scroll offset y"))
        velocity = (r.f64("scroll velocity x"), r.f64("scroll velocity y"))
        msg = ScrollMessage(layer, _SCROLL_PHASE_NAMES[phase], _SCROLL_SOURCE_NAMES[source], offset, velocity,
                            r.f64("scroll time"))
    elif message_type == protocol.MSG_DISPLAY_CHANGED:
        width, height = r.u32("display width"), r.u32("display height")
        outputs = []
        for _ in range(r.count("display outputs", 52)):
            name = r.string("output name")
            frame = (r.f64("x"), r.f64("y"), r.f64("width"), r.f64("height"))
            outputs.append(DisplayOutput(name, frame, r.f64("scale"), r.string("transform"), r.f64("refresh")))
        msg = DisplayChanged(width, height, outputs)
    elif message_type == protocol.MSG_FRAME:
        timestamp, target, duration = r.f64("frame timestamp"), r.f64("frame target timestamp"), r.f64("frame duration")
        msg = DisplayLinkFrame([r.u32("frame link") for _ in range(r.count("frame links", 4))], timestamp, target, duration)
    elif message_type == protocol.MSG_TILES_WANTED:
        layer, level = r.u32("tiles-wanted layer"), r.i32("tiles-wanted level")
        tiles = []
        for _ in range(r.count("tiles-wanted tiles", 40)):
            column, row = r.u32("tile column"), r.u32("tile row")
            tiles.append((column, row, (r.f64("tile x"), r.f64("tile y"), r.f64("tile width"), r.f64("tile height"))))
        msg = TilesWanted(layer, level, tiles)
    elif message_type == protocol.MSG_APP_SURFACE:
        kind = r.u8("app-surface kind")
        if kind not in _APP_SURFACE_KIND_NAMES:
            raise ProtocolViolation(f"unknown app-surface kind {kind}")
        ident = r.u32("app-surface id")
        app_id, title = r.string("app-surface app id"), r.string("app-surface title")
        pid = r.i32("app-surface pid")
        width, height = r.u32("app-surface width"), r.u32("app-surface height")
        reason = r.u8("app-surface reason")
        if reason not in _APP_GONE_REASON_NAMES:
            raise ProtocolViolation(f"unknown app-surface reason {reason}")
        msg = AppSurfaceMessage(_APP_SURFACE_KIND_NAMES[kind], ident, app_id, title, pid, width, height,
                                _APP_GONE_REASON_NAMES[reason])
    else:
        raise ProtocolViolation(f"unknown message type {message_type:#x}")
    r.finish(f"message type {message_type:#x}")
    return msg


def _decode_reply(r: Reader) -> Reply:
    ident = r.u32("reply id")
    kind_number = r.u16("reply kind")
    kind = _REPLY_NAMES.get(kind_number)
    if kind is None:
        raise ProtocolViolation(f"unknown reply kind {kind_number}")
    value: Any = None
    if kind == "screenshot":
        w, h = r.u32("width"), r.u32("height")
        if w * h * 4 != r.remaining:
            raise ProtocolViolation(f"{r.remaining} bytes of pixels for a {w}x{h} screenshot")
        value = (w, h, r.take(w * h * 4, "pixels"))
    elif kind == "tree":
        value = r.string("tree")
    elif kind == "advanced":
        value = (r.f64("time"), r.u64("frames"))
    elif kind == "stats":
        stats: Dict[str, float] = {}
        for _ in range(r.count("stats", 12)):
            name = r.string("stat name")
            stats[name] = r.f64("stat value")
        value = stats
    elif kind == "presentation":
        props: Dict[str, Any] = {}
        for _ in range(r.count("presentation", 3)):
            key = r.u16("property")
            prop = protocol.PROPERTIES_BY_ID.get(key)
            if prop is None:
                raise ProtocolViolation(f"unknown property number {key} in a presentation reply")
            props[prop.name] = r.value(prop.type, prop.name)
        value = props
    elif kind == "displayPower":
        backend = r.string("backend")
        value = (backend, [(r.string("output"), r.bool("on")) for _ in range(r.count("outputs", 5))])
    elif kind == "snapshot":
        value = [read_operation(r) for _ in range(r.count("snapshot", 5))]
    elif kind == "fontRegistered":
        value = [r.string("family") for _ in range(r.count("families", 4))]
    elif kind == "outputs":
        backend = r.string("backend")
        outputs = []
        for _ in range(r.count("outputs", 60)):
            name = r.string("output name")
            frame = (r.f64("x"), r.f64("y"), r.f64("width"), r.f64("height"))
            scale, transform = r.f64("scale"), r.string("transform")
            mode = OutputMode(r.u32("mode width"), r.u32("mode height"), r.f64("mode refresh"))
            on = r.bool("power")
            modes = [OutputMode(r.u32("mode width"), r.u32("mode height"), r.f64("mode refresh"))
                     for _ in range(r.count("modes", 16))]
            outputs.append(OutputInfo(name, frame, scale, transform, mode, on, modes))
        value = (backend, outputs)
    return Reply(ident, kind, value)


# MARK: Helpers for tests and tools

def split_frames(data: bytes) -> List[Tuple[int, bytes]]:
    """Every frame in `data` (which must end at a frame boundary)."""
    d = FrameDecoder()
    d.append(data)
    frames = []
    while (f := d.next()) is not None:
        frames.append(f)
    if d.buffered:
        raise ProtocolViolation(f"{d.buffered} bytes after the last whole frame")
    return frames


__all__ = [
    "Writer", "Reader", "frame", "FrameDecoder", "Create", "Destroy", "Set", "Insert", "Remove", "AddAnimation",
    "RemoveAnimation", "RemoveAllAnimations", "SetAction", "Settings", "CreateImage", "UpdateImage", "DestroyImage", "CreateEncodedImage",
    "Operation", "write_operation", "read_operation", "encode_hello", "encode_commit", "encode_request",
    "encode_injection", "decode_server", "Welcome", "Applied", "Reply", "AnimationNotice", "TransactionCompleted",
    "WatchLine", "InputMessage", "OutputMode", "OutputInfo", "DisplayOutput", "DisplayChanged", "DisplayLinkFrame", "AppSurfaceMessage", "split_frames",
]
