"""``filters``: the Filter value, its checks, the wire form against the Swift codec's golden
fixture, and key paths into a filter's input."""

from __future__ import annotations

import json

import pytest

import lamina
from lamina import protocol as p
from lamina import values, wire
from lamina.filters import Filter, canonical_list

from conftest import REPOSITORY_ROOT


def test_filter_types_match_the_json() -> None:
    described = json.loads((REPOSITORY_ROOT / "protocol/lamina-protocol.json").read_text())["filters"]
    assert described["maxFilters"] == p.MAX_FILTERS and described["maxBlurRadius"] == p.MAX_BLUR_RADIUS
    for entry in described["types"]:
        tag, input_name, count, default = p.FILTER_TYPES[entry["name"]]
        assert (tag, input_name, count, list(default)) == (entry["tag"], entry.get("input"), entry["count"], entry["default"])
    assert [e["name"] for e in described["types"]] == list(p.FILTER_TYPES)


def test_layer_filters_are_checked_and_canonical() -> None:
    layer = lamina.Layer()
    assert layer.filters == ()
    layer.filters = [Filter("soft", "gaussianBlur", 8), {"name": "grey", "type": "saturate", "inputAmount": 0.2},
                     Filter("neg", "invert")]
    assert layer.filters == (Filter("soft", "gaussianBlur", (8.0,)), Filter("grey", "saturate", (0.2,)), Filter("neg", "invert", ()))
    assert canonical_list([Filter("m", "colorMatrix")])[0].values[0] == 1.0
    for bad, message in [
        ([Filter("soft", "gaussianBlur", 65)], "filters.soft.inputRadius must be from 0 to 64"),
        ([Filter("m", "colorMatrix", [1, 2, 3])], "colorMatrix takes 20 input number(s), got 3"),
        ([Filter("x", "gausianBlur", 3)], "unknown filter type 'gausianBlur'"),
        ([{"name": "x", "type": "gaussianBlur", "inputAmount": 3}], "unknown input(s) inputAmount"),
        ([Filter(f"f{i}", "invert") for i in range(9)], "at most 8 filters"),
    ]:
        with pytest.raises(ValueError) as e:
            layer.filters = bad
        assert message in str(e.value)


def test_wire_form_matches_the_golden_fixture() -> None:
    # protocol/fixtures/commit-filters.bin: commit 11, set #1 filters [...] (written by the Swift codec).
    data = (REPOSITORY_ROOT / "protocol/fixtures/commit-filters.bin").read_bytes()
    filters = canonical_list([Filter("soft", "gaussianBlur", 8), Filter("grey", "saturate", 0.5), Filter("neg", "invert"),
                              Filter("swap", "colorMatrix", [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0])])
    w = wire.Writer()
    w.value("filterList", filters)
    body = bytes(w.buffer)
    assert body in data
    r = wire.Reader(body)
    assert r.value("filterList", "filters") == filters


def test_key_paths_into_filters() -> None:
    assert values.key_path_type("filters.soft.inputRadius") == "number"
    assert values.key_path_type("filters.m.inputMatrix") == "numberList"
    assert values.key_path_type("filters.soft.inputRadios") is None


def test_background_filters() -> None:
    layer = lamina.Layer()
    assert layer.background_filters == ()
    layer.background_filters = [Filter("frost", "gaussianBlur", 12), {"name": "pale", "type": "saturate", "inputAmount": 0.5}]
    assert layer.background_filters == (Filter("frost", "gaussianBlur", (12.0,)), Filter("pale", "saturate", (0.5,)))
    with pytest.raises(ValueError) as e:
        layer.background_filters = [Filter("frost", "gaussianBlur", 500)]
    assert "inputRadius must be from 0 to 64" in str(e.value)
    assert p.PROPERTIES_BY_NAME["backgroundFilters"].id == 77
    assert values.key_path_type("backgroundFilters.frost.inputRadius") == "number"
    assert values.key_path_type("backgroundFilters.m.inputMatrix") == "numberList"
    assert values.key_path_type("backgroundFilters.frost.inputRadios") is None
