"""A PNG encoder (and a decoder for what it writes), with only zlib and struct."""

from __future__ import annotations

import struct
import zlib
from typing import Tuple

_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(width: int, height: int, rgba: bytes) -> bytes:
    """An 8-bit RGBA PNG of `rgba` (``width × height × 4`` bytes, top row first)."""
    if len(rgba) != width * height * 4:
        raise ValueError(f"a {width}x{height} RGBA image takes {width * height * 4} bytes, got {len(rgba)}")
    row = width * 4
    raw = b"".join(b"\x00" + rgba[y * row:(y + 1) * row] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")


def write_png(path: str, width: int, height: int, rgba: bytes) -> None:
    """Writes `encode_png` to `path`."""
    with open(path, "wb") as f:
        f.write(encode_png(width, height, rgba))


def decode_png(data: bytes) -> Tuple[int, int, bytes]:
    """``(width, height, rgba)`` of an 8-bit RGBA, non-interlaced PNG whose rows use filter 0
    (what `encode_png` writes); raises ValueError for anything else."""
    if not data.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    pos, idat, width, height = len(_SIGNATURE), b"", 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, colour, interlace) != (8, 6, 0):
                raise ValueError("only 8-bit RGBA, non-interlaced PNGs are decoded here")
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    row = width * 4
    out = bytearray()
    for y in range(height):
        line = raw[y * (row + 1):(y + 1) * (row + 1)]
        if line[0] != 0:
            raise ValueError("only filter type 0 rows are decoded here")
        out += line[1:]
    return width, height, bytes(out)
