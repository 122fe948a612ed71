"""``attributed_string`` and ``line_spacing`` (protocol 1.7, rich text) from Python: TextRun's
checks, the wire form against the Swift codec's golden fixture, and the rich-text label with an
emoji (docs/clients.md) against a real laminad, checked by its pixels."""

from __future__ import annotations

import json

import pytest

import lamina
from lamina import text_runs, values, wire
from lamina.text_runs import TextRun, canonical_list

from conftest import REPOSITORY_ROOT


def test_limits_and_weights_match_the_json() -> None:
    described = json.loads((REPOSITORY_ROOT / "protocol/lamina-protocol.json").read_text())["attributedString"]
    assert (described["maxRuns"], described["maxTextBytes"], described["maxFontNameBytes"]) == (
        text_runs.MAX_RUNS, text_runs.MAX_TEXT_BYTES, text_runs.MAX_FONT_NAME_BYTES)
    assert described["weights"] == text_runs.WEIGHTS


def test_runs_are_checked_and_canonical() -> None:
    label = lamina.TextLayer()
    assert label.attributed_string == () and label.line_spacing == 0
    label.attributed_string = [TextRun("Sale ", color="#FF0000", weight="bold"), "today",
                               {"text": "!", "backgroundColor": "#0000FF", "baselineOffset": 2}]
    assert label.attributed_string == (
        TextRun("Sale ", weight=700.0, color=(1.0, 0.0, 0.0, 1.0)), TextRun("today"),
        TextRun("!", background_color=(0.0, 0.0, 1.0, 1.0), baseline_offset=2.0))
    label.line_spacing = 4
    assert label.line_spacing == 4
    for bad, message in [
        ([TextRun(str(i)) for i in range(257)], "at most 256 runs"),
        ([TextRun("x" * 40000), TextRun("y" * 40000)], "past the limit of 65536"),
        ([TextRun("x", color=(2, 0, 0, 1))], "color components must be in [0, 1]"),
        ([TextRun("x", weight="bolder")], "unknown weight 'bolder'"),
        ([TextRun("x", weight=5000)], "weight must be 0"),
        ([{"text": "x", "colour": "#FF0000"}], "unknown attribute 'colour'"),
        ([TextRun("x", font_size=float("nan"))], "finite"),
    ]:
        with pytest.raises(ValueError) as e:
            label.attributed_string = bad
        assert message in str(e.value)


def test_wire_form_matches_the_golden_fixture() -> None:
    # protocol/fixtures/commit-attributed-string.bin: commit 12, set #1 attributedString [...],
    # set #1 lineSpacing 4 (written by the Swift codec).
    data = (REPOSITORY_ROOT / "protocol/fixtures/commit-attributed-string.bin").read_bytes()
    runs = canonical_list([
        TextRun("Sale ", weight=700, color="#FF0000"),
        TextRun("today", font="DejaVu Serif", font_size=20, italic=True, background_color=(1, 1, 0, 128 / 255),
                underline=True, strikethrough=True, kerning=1.5, baseline_offset=-2),
        TextRun("😀"),
    ], values.color)
    w = wire.Writer()
    w.value("attributedString", runs)
    body = bytes(w.buffer)
    assert body in data
    assert wire.Reader(body).value("attributedString", "attributedString") == runs


def count(shot: lamina.Screenshot, test) -> list:  # type: ignore[no-untyped-def]
    return [(x, y) for y in range(shot.height) for x in range(shot.width) if test(*shot.pixel(x, y)[:3])]


def test_rich_text_label_with_an_emoji(daemon) -> None:  # type: ignore[no-untyped-def]
    """The same program as Swift's RichTextEndToEndTests.sameProgram and C's rich_text_label."""
    conn = lamina.connect(daemon.socket, name="pytest-rich-text")
    label = lamina.TextLayer()
    label.bounds = (0, 0, 300, 60)
    label.position = (160, 40)
    label.font_size = 32
    label.attributed_string = [TextRun("Sale ", color="#FF0000", weight="bold"), TextRun("today ", color="#0000FF"),
                               TextRun("😀")]
    conn.root.add_sublayer(label)
    conn.sync()
    shot = conn.screenshot()
    yellow = count(shot, lambda r, g, b: r > 200 and g > 140 and b < 110)
    # The words' ink, left of the emoji (whose own colours hold reds).
    emoji_start = min((x for x, _ in yellow), default=0)
    red = [(x, y) for x, y in count(shot, lambda r, g, b: r > 150 and g < 90 and b < 90) if x < emoji_start - 2]
    blue = [(x, y) for x, y in count(shot, lambda r, g, b: b > 150 and r < 90 and g < 90) if x < emoji_start - 2]
    assert len(red) > 150 and len(blue) > 150 and len(yellow) > 150, (len(red), len(blue), len(yellow))
    assert max(x for x, _ in red) < min(x for x, _ in blue), "Sale left of today"
    assert max(x for x, _ in blue) < min(x for x, _ in yellow), "today left of the emoji"
    assert all(10 <= x < 310 and 10 <= y < 70 for x, y in red + blue + yellow), "inside the label's bounds"
    conn.close()
