"""Images for `Layer.contents`, in shared memory (docs/protocol.md, "Images and file
descriptors"): the pixels live in a sealed memory file that laminad maps read-only, and the
file's descriptor travels with the commit that creates the image (SCM_RIGHTS)."""

from __future__ import annotations

import fcntl
from dataclasses import dataclass
import os
import weakref
from typing import Any

from . import protocol


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


__all__ = ["Image"]


@dataclass(frozen=True)
class SessionImage:
    """The contents of a taken-over session's layer: an image an earlier client made, which
    laminad holds (this connection has no pixels for it). Assigning it back keeps it shown."""

    number: int
