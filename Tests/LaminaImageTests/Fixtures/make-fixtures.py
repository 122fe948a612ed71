#!/usr/bin/env python3
"""Writes the WebP fixtures the LaminaImage tests decode (the GIF ones are built byte by byte
in the tests themselves, GIFWriter.swift). Run once with Pillow; the files are committed.
    /usr/bin/python3 Tests/LaminaImageTests/Fixtures/make-fixtures.py"""
import os
from PIL import Image

here = os.path.dirname(os.path.abspath(__file__))

# still-lossless.webp: 4×3, every pixel different, alpha 255, 128 and 0 (exact: RGB kept under alpha 0).
still = Image.new("RGBA", (4, 3))
still.putdata([(r * 60, g * 100, (r + g) * 30, a) for g in range(3) for r, a in zip(range(4), (255, 128, 0, 255))])
still.save(os.path.join(here, "still-lossless.webp"), lossless=True, exact=True)

# still-lossy.webp: 16×16 quadrants red, green, blue, white, opaque, quality 90.
lossy = Image.new("RGB", (16, 16))
for y in range(16):
    for x in range(16):
        lossy.putpixel((x, y), [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)][(y // 8) * 2 + x // 8])
lossy.save(os.path.join(here, "still-lossy.webp"), quality=90)

# animated-*.webp: 4×4 frames red, green (its left column transparent), blue; durations 50,
# 200 and 10 ms (10 ms shows for 100 ms); loop 3 and loop 0 (forever).
def frames():
    red = Image.new("RGBA", (4, 4), (255, 0, 0, 255))
    green = Image.new("RGBA", (4, 4), (0, 255, 0, 255))
    for y in range(4):
        green.putpixel((0, y), (0, 0, 0, 0))
    blue = Image.new("RGBA", (4, 4), (0, 0, 255, 255))
    return red, green, blue

for loop in (3, 0):
    red, green, blue = frames()
    red.save(os.path.join(here, f"animated-loop{loop}.webp"), save_all=True, append_images=[green, blue],
             duration=[50, 200, 10], loop=loop, lossless=True, exact=True)

# pillow.gif: 32×32, Pillow's own LZW (compressed, unlike the tests' GIFWriter) and its frame
# optimisation (the second frame is only the changed square). Frames: red/blue stripes 4 rows
# high; the same with a green 8×8 square at (8, 8); white. Durations 30, 40, 0 ms; loop=2.
def stripes():
    im = Image.new("RGB", (32, 32))
    for y in range(32):
        for x in range(32):
            im.putpixel((x, y), (255, 0, 0) if (y // 4) % 2 == 0 else (0, 0, 255))
    return im

first = stripes()
second = stripes()
for y in range(8, 16):
    for x in range(8, 16):
        second.putpixel((x, y), (0, 255, 0))
third = Image.new("RGB", (32, 32), (255, 255, 255))
first.save(os.path.join(here, "pillow.gif"), save_all=True, append_images=[second, third], duration=[30, 40, 0], loop=2)
