"""Images for `Layer.contents`, in shared memory (docs/protocol.md, "Images and file
descriptors"): the pixels live in a sealed memory file that laminad maps read-only, and the
file's descriptor travels with the commit that creates the image (SCM_RIGHTS)."""

from __future__ import annotations

import fcntl
from dataclasses import dataclass
import os
import weakref
from typing import Any, Optional, Tuple

from . import protocol, wire


class Image:
    """A bitmap laminad can show as a layer's `contents` (``CGImage`` in ``CALayer.contents``).

    `pixels` holds ``width × height × 4`` bytes, rows top to bottom, in `order` (``"rgba"`` or
    ``"bgra"``, the byte order in memory) with `alpha` ``"premultiplied"`` or ``"straight"``.
    The image is created in laminad with the commit that first shows it on a layer of a
    connection, and destroyed there when the Python object goes away (or on `close`).
    """

    def __init__(self, width: int, height: int, pixels: bytes, *, order: str = "rgba",
                 alpha: str = "premultiplied") -> None:
        if not (1 <= width <= protocol.MAX_IMAGE_DIMENSION and 1 <= height <= protocol.MAX_IMAGE_DIMENSION):
            raise ValueError(f"an image needs a width and height from 1 to {protocol.MAX_IMAGE_DIMENSION}, got {width}x{height}")
        if len(pixels) != width * height * 4:
            raise ValueError(f"a {width}x{height} image takes {width * height * 4} bytes of pixels, got {len(pixels)}")
        if order not in protocol.PIXEL_FORMATS:
            raise ValueError(f"pixel order must be one of {', '.join(protocol.PIXEL_FORMATS)}, got {order!r}")
        if alpha not in protocol.ALPHA_MODES:
            raise ValueError(f"alpha must be one of {', '.join(protocol.ALPHA_MODES)}, got {alpha!r}")
        self.width = width
        self.height = height
        self.order = order
        self.alpha = alpha
        #: For an image made from an encoded file (`from_encoded`): (format, byte count).
        self.encoding: Optional[Tuple[str, int]] = None
        self._share(pixels)

    def _share(self, pixels: bytes) -> None:
        fd = os.memfd_create("lamina-image", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, len(pixels))
            written = 0
            view = memoryview(pixels)
            while written < len(pixels):
                written += os.pwrite(fd, view[written:], written)
            # laminad requires F_SEAL_SHRINK (the file cannot be cut under its mapping); the
            # Swift library also seals growing and further sealing, and so does this one.
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self._finalizer = weakref.finalize(self, os.close, fd)
        self._finalizer.atexit = False
        #: Connections that hold this image, and what to call when it changes or goes.
        # connection → (on update(rect), on close()).
        self._holders: Any = weakref.WeakKeyDictionary()

    @classmethod
    def from_bytes(cls, width: int, height: int, pixels: bytes, *, order: str = "rgba",
                   alpha: str = "premultiplied") -> "Image":
        """The same as the constructor."""
        return cls(width, height, pixels, order=order, alpha=alpha)

    @classmethod
    def from_png(cls, path: str) -> "Image":
        """A PNG (or any file Pillow reads), decoded with Pillow to straight-alpha RGBA.
        Raises ImportError naming the package to install when Pillow is not there."""
        try:
            from PIL import Image as PILImage  # type: ignore[import-not-found]
        except ImportError:
            raise ImportError("lamina.Image.from_png needs Pillow: apt install python3-pil, or pip install Pillow") from None
        with PILImage.open(path) as im:
            rgba = im.convert("RGBA")
            return cls(rgba.width, rgba.height, rgba.tobytes(), order="rgba", alpha="straight")

    @classmethod
    def from_encoded(cls, data: bytes, format: str) -> "Image":
        """An image laminad makes from an encoded file (protocol 1.7): ``format`` "svg" (drawn
        by laminad at the scale each layer shows it, sharp under any transform), "gif" or
        "webp" (animated or still: laminad plays the frames on its clock from the commit that
        makes the image). A file laminad cannot decode makes that commit fail, naming why.
        `width` and `height` are the canvas a GIF or WebP header declares, 0 for an SVG."""
        if format not in protocol.ENCODED_IMAGE_FORMATS:
            raise ValueError(f"format must be one of {', '.join(protocol.ENCODED_IMAGE_FORMATS)}, got {format!r}")
        data = bytes(data)
        if not data:
            raise ValueError("an encoded image needs its file's bytes; got none")
        image = cls.__new__(cls)
        image.width, image.height = _canvas_size(data, format)
        image.order, image.alpha = "rgba", "straight"
        image.encoding = (format, len(data))
        image._share(data)
        return image

    @classmethod
    def from_svg(cls, data: bytes) -> "Image":
        """An SVG document's bytes (`from_encoded` with "svg")."""
        return cls.from_encoded(data, "svg")

    @classmethod
    def from_file(cls, path: str) -> "Image":
        """An image file, by its first bytes: SVG and GIF, and animated WebP, go to laminad as
        they are (`from_encoded`); PNG, JPEG and still WebP are decoded here with Pillow."""
        with open(path, "rb") as f:
            data = f.read()
        kind = encoded_kind(data)
        if kind == "webp" and not _webp_is_animated(data):
            kind = None
        if kind is not None:
            return cls.from_encoded(data, kind)
        return cls.from_png(path)

    def create_operation(self, number: int) -> Any:
        """The operation that makes this image in laminad as `number`."""
        if self.encoding is not None:
            return wire.CreateEncodedImage(number, self.encoding[0], self.encoding[1])
        return wire.CreateImage(number, self.width, self.height, self.width * 4, self.order, self.alpha, 0)

    @property
    def fd(self) -> int:
        """The memory file's descriptor (sent to laminad with each connection's create-image)."""
        if not self._finalizer.alive:
            raise ValueError("the image was closed")
        return self._fd

    def update(self, x: int, y: int, width: int, height: int, pixels: bytes) -> None:
        """Rewrites the rectangle (rows of ``width × 4`` bytes, in the image's order and alpha);
        laminad uploads only that rectangle, with each holding connection's next commit. Do not
        rewrite it again before that frame is drawn (a `Connection.sync` or screenshot says so)."""
        if self.encoding is not None:
            raise ValueError("the image was made from an encoded file: laminad draws its pixels")
        if not (width > 0 and height > 0 and x >= 0 and y >= 0 and x + width <= self.width and y + height <= self.height):
            raise ValueError(f"update rectangle ({x}, {y}, {width}, {height}) is empty or reaches outside the {self.width}x{self.height} image")
        row = width * 4
        if len(pixels) != row * height:
            raise ValueError(f"a {width}x{height} update takes {row * height} bytes, got {len(pixels)}")
        view = memoryview(pixels)
        for r in range(height):
            os.pwrite(self.fd, view[r * row:(r + 1) * row], ((y + r) * self.width + x) * 4)
        for update, _ in list(self._holders.values()):
            update((x, y, width, height))

    def close(self) -> None:
        """Destroys the image in every connection (with its next commit) and closes the memory
        file. Layers still naming it show no contents."""
        for _, destroy in list(self._holders.values()):
            destroy()
        self._holders.clear()
        self._finalizer()

    def __repr__(self) -> str:
        return f"Image({self.width}x{self.height}, {self.order}, {self.alpha})"


def encoded_kind(data: bytes) -> Optional[str]:
    """"svg", "gif" or "webp" by a file's first bytes; None for anything else."""
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    head = data[3:] if data[:3] == b"\xef\xbb\xbf" else data
    head = head.lstrip(b" \t\r\n")
    if head[:5] == b"<?xml" or head[:4] in (b"<svg", b"<!--") or head[:13] == b"<!DOCTYPE svg":
        return "svg"
    return None


def _webp_is_animated(data: bytes) -> bool:
    # An extended WebP (VP8X) says so in its flags (bit 1).
    return data[12:16] == b"VP8X" and len(data) > 20 and bool(data[20] & 0x02)


def _canvas_size(data: bytes, format: str) -> Tuple[int, int]:
    """The canvas a GIF or WebP header declares; (0, 0) for an SVG or a header too short."""
    if format == "gif" and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if format == "webp" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
        if chunk == b"VP8L" and data[20] == 0x2F:
            b = int.from_bytes(data[21:25], "little")
            return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
        if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
            return int.from_bytes(data[26:28], "little") & 0x3FFF, int.from_bytes(data[28:30], "little") & 0x3FFF
    return 0, 0


__all__ = ["Image"]


@dataclass(frozen=True)
class SessionImage:
    """The contents of a taken-over session's layer: an image an earlier client made, which
    laminad holds (this connection has no pixels for it). Assigning it back keeps it shown."""

    number: int
