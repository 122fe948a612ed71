#!/usr/bin/env python3
"""Checks liblamina's constants against protocol/lamina-protocol.json: the enums in
include/lamina.h (both ways: nothing missing, nothing extra), the property and error tables
compiled into the library (`test_lamina dump`), and that a PNG the library writes decodes with
zlib to the pixels it was given (`test_lamina png`).

Usage: check_protocol.py path/to/test_lamina
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
HEADER = os.path.join(HERE, "..", "include", "lamina.h")
PROTOCOL = os.path.join(ROOT, "protocol", "lamina-protocol.json")

failures = []


def upper(name):
    """camelCase or kebab-case → UPPER_SNAKE, as the header spells enum members."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name.replace("-", "_")).upper()


def header_enum(text, tag):
    match = re.search(r"typedef enum %s \{(.*?)\} %s;" % (tag, tag), text, re.S)
    if not match:
        failures.append(f"lamina.h has no enum {tag}")
        return {}
    return {name: int(value) for name, value in re.findall(r"(\w+)\s*=\s*(-?\d+)", match.group(1))}


def compare(what, header, expected):
    if header != expected:
        missing = sorted(set(expected) - set(header))
        extra = sorted(set(header) - set(expected))
        wrong = sorted(k for k in set(header) & set(expected) if header[k] != expected[k])
        failures.append(f"{what}: missing {missing}, extra {extra}, different values {wrong}")


def main():
    test_program = sys.argv[1]
    with open(PROTOCOL) as f:
        j = json.load(f)
    with open(HEADER) as f:
        text = f.read()

    version = {k: int(v) for k, v in re.findall(r"#define LAMINA_PROTOCOL_VERSION_(MAJOR|MINOR) (\d+)", text)}
    compare("protocol version", version, {"MAJOR": j["version"]["major"], "MINOR": j["version"]["minor"]})

    a = j["animations"]
    enums = [
        ("lamina_property", "LAMINA_PROPERTY_", [(p["name"], p["id"]) for p in j["properties"]]),
        ("lamina_value_type", "LAMINA_VALUE_", [(v["name"], v["tag"]) for v in j["valueTypes"]]),
        ("lamina_server_error", "LAMINA_SERVER_ERROR_", [(e["name"], e["code"]) for e in j["errors"]]),
        ("lamina_layer_kind", "LAMINA_LAYER_KIND_", [(k["name"], k["kind"]) for k in j["layerKinds"]]),
        ("lamina_pixel_format", "LAMINA_PIXEL_FORMAT_", list(j["pixelFormats"].items())),
        ("lamina_alpha_mode", "LAMINA_ALPHA_", list(j["alphaModes"].items())),
        ("lamina_fill_mode", "LAMINA_FILL_MODE_", list(a["fillModes"].items())),
        ("lamina_value_function", "LAMINA_VALUE_FUNCTION_", list(a["valueFunctions"].items())),
        ("lamina_input_kind", "LAMINA_INPUT_", [(k["name"], k["kind"]) for k in j["inputEventKinds"]]),
        ("lamina_transition_type", "LAMINA_TRANSITION_", list(a["transitionTypes"].items())),
        ("lamina_calculation_mode", "LAMINA_CALCULATION_", list(a["calculationModes"].items())),
        ("lamina_rotation_mode", "LAMINA_ROTATION_", list(a["rotationModes"].items())),
        ("lamina_injection", "LAMINA_INJECT_", [(i["name"], i["kind"]) for i in j["injections"]]),
        ("lamina_transition_subtype", "LAMINA_TRANSITION_SUBTYPE_", list(a["transitionSubtypes"].items())),
        ("lamina_action", "LAMINA_ACTION_", list(j["actionKinds"].items())),
        ("lamina_cell_field", "LAMINA_CELL_", [(f["name"], f["id"]) for f in j["emitterCells"]["fields"]]),
        ("lamina_scroll_phase", "LAMINA_SCROLL_", list(j["scrollPhases"].items())),
        ("lamina_constraint_attribute", "LAMINA_CONSTRAINT_", list(j["constraintAttributes"].items())),
        ("lamina_draw_op", "LAMINA_DRAW_", [(o["name"], o["opcode"]) for o in j["drawing"]["ops"]]),
        ("lamina_video_event_kind", "LAMINA_VIDEO_", list(j["videoEventKinds"].items())),
        ("lamina_app_surface_kind", "LAMINA_APP_SURFACE_", list(j["appSurfaceKinds"].items())),
        ("lamina_app_gone_reason", "LAMINA_APP_GONE_", list(j["appGoneReasons"].items())),
    ]
    for tag, prefix, items in enums:
        compare(f"enum {tag}", header_enum(text, tag), {prefix + upper(name): value for name, value in items})

    # The tables compiled into the library.
    out = subprocess.run([test_program, "dump"], check=True, capture_output=True, text=True).stdout
    types = {v["name"]: v["tag"] for v in j["valueTypes"]}
    properties = {int(i): (n, int(t)) for i, n, t in re.findall(r"^property (\d+) (\w+) (\d+)$", out, re.M)}
    compare("library property table", properties, {p["id"]: (p["name"], types[p["type"]]) for p in j["properties"]})
    errors = {int(c): n for c, n in re.findall(r"^error (\d+) ([\w-]+)$", out, re.M)}
    compare("library error names", errors, {e["code"]: e["name"] for e in j["errors"]})

    # Timing function control points in names.c.
    with open(os.path.join(HERE, "..", "src", "names.c")) as f:
        source = f.read()
    curves = {n: [float(x) for x in v.split(",")] for n, v in re.findall(r'\{"(\w+)", \{([^}]*)\}\}', source)}
    compare("timing functions", curves, {k: [float(x) for x in v] for k, v in j["timingFunctions"].items()})

    # A PNG from the library, read with zlib (another inflater than the library's own reader).
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pattern.png")
        subprocess.run([test_program, "png", path], check=True)
        with open(path, "rb") as f:
            data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            failures.append(f"PNG chunk {kind!r} has a wrong CRC")
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    w, h = size
    expected = bytearray()
    for y in range(h):
        expected.append(0)
        for x in range(w):
            for c in range(4):
                expected.append((x * 7 + y * 13 + c * 61) & 0xFF)
    if raw != bytes(expected):
        failures.append("the library's PNG does not decode with zlib to the pixels it was given")

    if failures:
        for f in failures:
            print("check_protocol:", f, file=sys.stderr)
        return 1
    print(f"check_protocol: {len(j['properties'])} properties, {len(j['errors'])} errors and the other enums match "
          f"protocol/lamina-protocol.json; the library's PNG decodes with zlib")
    return 0


if __name__ == "__main__":
    sys.exit(main())
