"""lamina.protocol agrees with protocol/lamina-protocol.json, both ways: nothing missing,
nothing extra, every number, name, type and default the same."""

from __future__ import annotations

import lamina
from lamina import protocol as p
from lamina.layer import LAYER_CLASSES, _class_for
from lamina.values import Path, canonical, snake


def by_name(entries: list, number: str) -> dict:
    return {e["name"]: e[number] for e in entries}


def test_version_frame_and_hello(protocol_json: dict) -> None:
    assert protocol_json["version"] == {"major": p.VERSION_MAJOR, "minor": p.VERSION_MINOR}
    assert protocol_json["byteOrder"] == "little-endian"
    assert protocol_json["frame"]["headerSize"] == p.HEADER_SIZE
    assert [(f["offset"], f["type"], f["name"]) for f in protocol_json["frame"]["header"]] == [
        (0, "u32", "length"), (4, "u16", "type"), (6, "u16", "reserved")]
    assert protocol_json["frame"]["maxClientBodyBytes"] == p.MAX_CLIENT_BODY
    assert protocol_json["hello"]["magic"] == p.MAGIC
    assert protocol_json["hello"]["flags"] == {"keepLayers": p.HELLO_KEEP_LAYERS}
    assert protocol_json["clocks"] == p.CLOCKS
    assert protocol_json["errorSubjects"] == p.ERROR_SUBJECTS
    socket = protocol_json["socket"]
    assert socket["environment"] == p.SOCKET_ENVIRONMENT
    assert socket["user"] == "$XDG_RUNTIME_DIR/" + p.USER_SOCKET_NAME
    assert socket["system"] == p.SYSTEM_SOCKET


def test_messages(protocol_json: dict) -> None:
    assert by_name(protocol_json["messages"]["client"], "type") == p.CLIENT_MESSAGES
    assert by_name(protocol_json["messages"]["server"], "type") == p.SERVER_MESSAGES
    assert (p.MSG_HELLO, p.MSG_COMMIT, p.MSG_REQUEST) == tuple(p.CLIENT_MESSAGES[n] for n in ("hello", "commit", "request"))
    assert (p.MSG_WELCOME, p.MSG_APPLIED, p.MSG_ERROR, p.MSG_REPLY, p.MSG_ANIMATION_EVENT, p.MSG_TRANSACTION_COMPLETED,
            p.MSG_WATCH, p.MSG_INPUT, p.MSG_CLOCK, p.MSG_VIDEO, p.MSG_SCROLL, p.MSG_DISPLAY_CHANGED, p.MSG_FRAME, p.MSG_APP_SURFACE,
            p.MSG_TILES_WANTED) == tuple(p.SERVER_MESSAGES.values())


def test_operations_and_their_tables(protocol_json: dict) -> None:
    assert by_name(protocol_json["operations"], "opcode") == p.OPCODES
    assert protocol_json["settingsFlags"] == {"disableActions": p.SETTINGS_DISABLE_ACTIONS, "timingFunction": p.SETTINGS_TIMING_FUNCTION}
    assert protocol_json["actionDictionaries"] == p.ACTION_DICTIONARIES
    assert protocol_json["actionKinds"] == p.ACTION_KINDS
    assert by_name(protocol_json["layerKinds"], "kind") == p.LAYER_KINDS
    assert protocol_json["pixelFormats"] == p.PIXEL_FORMATS
    assert protocol_json["alphaModes"] == p.ALPHA_MODES
    assert protocol_json["videoControls"] == p.VIDEO_CONTROLS
    assert protocol_json["videoEventKinds"] == p.VIDEO_EVENT_KINDS
    assert protocol_json["scrollPhases"] == p.SCROLL_PHASES
    assert protocol_json["scrollSources"] == p.SCROLL_SOURCES
    assert protocol_json["outputChanges"] == p.OUTPUT_CHANGES
    assert protocol_json["displayLinkChanges"] == p.DISPLAY_LINK_CHANGES
    assert protocol_json["appsActions"] == p.APPS_ACTIONS
    assert protocol_json["appSurfaceKinds"] == p.APP_SURFACE_KINDS
    assert protocol_json["appGoneReasons"] == p.APP_GONE_REASONS
    assert protocol_json["outputTransforms"] == p.OUTPUT_TRANSFORMS
    assert protocol_json["imageLimits"]["maxDimension"] == p.MAX_IMAGE_DIMENSION
    assert protocol_json["cornerMask"] == p.CORNER_MASK
    assert protocol_json["transactionDefaults"] == {"duration": p.DEFAULT_TRANSACTION_DURATION, "timingFunction": None,
                                                    "disableActions": False}
    # Every layer kind has its class, and every class a kind.
    assert set(LAYER_CLASSES) == set(p.LAYER_KINDS)
    assert {cls._kind for cls in LAYER_CLASSES.values()} == set(p.LAYER_KINDS)


def test_value_types_and_path_elements(protocol_json: dict) -> None:
    assert by_name(protocol_json["valueTypes"], "tag") == p.VALUE_TYPES
    assert by_name(protocol_json["pathElements"], "type") == p.PATH_ELEMENTS
    assert by_name(protocol_json["pathElements"], "points") == p.PATH_ELEMENT_POINTS


def test_every_property_both_ways(protocol_json: dict) -> None:
    described = protocol_json["properties"]
    assert [e["id"] for e in described] == [prop.id for prop in p.PROPERTIES]
    for entry, prop in zip(described, p.PROPERTIES):
        assert entry["name"] == prop.name
        assert entry["type"] == prop.type, prop.name
        assert entry["animatable"] == prop.animatable, prop.name
        if "names" in entry:
            assert tuple(entry["names"]) == prop.names, prop.name
        else:
            assert prop.names is None, prop.name
        # Defaults: the JSON's form, made canonical, is the Python default.
        default = entry["default"]
        if prop.type == "path":
            assert default == [] and prop.default == ()
        elif prop.type in ("image", "layer"):
            assert default == 0 == prop.default
        else:
            assert canonical(prop.type, default) == prop.default, prop.name
        assert prop.attribute == snake(prop.name)


def test_every_property_is_an_attribute_of_a_layer_class(protocol_json: dict) -> None:
    for entry in protocol_json["properties"]:
        prop = p.PROPERTIES_BY_NAME[entry["name"]]
        cls = _class_for(prop.id)
        layer = cls()
        # Readable with its default, and settable through the attribute.
        value = getattr(layer, prop.attribute)
        if prop.type in ("image", "layer"):
            assert value is None
        elif prop.names and "" in prop.names:
            assert value is None and prop.default == ""   # a nil name (compositingFilter): None
        elif prop.type == "path":
            assert value == Path()
        else:
            assert value == prop.default
        # Also by name on any layer.
        assert lamina.Layer().value(entry["name"]) == value or prop.type in ("image", "layer", "path")


def test_requests_replies_injections_and_input(protocol_json: dict) -> None:
    assert by_name(protocol_json["requests"], "kind") == p.REQUESTS
    assert by_name(protocol_json["replies"], "kind") == p.REPLIES
    assert by_name(protocol_json["injections"], "kind") == p.INJECTIONS
    assert by_name(protocol_json["inputEventKinds"], "kind") == p.INPUT_EVENT_KINDS


def test_errors(protocol_json: dict) -> None:
    assert by_name(protocol_json["errors"], "code") == p.ERRORS
    assert p.ERROR_NAMES == {e["code"]: e["name"] for e in protocol_json["errors"]}


def test_animations(protocol_json: dict) -> None:
    a = protocol_json["animations"]
    assert by_name(a["kinds"], "kind") == p.ANIMATION_KINDS
    assert a["fillModes"] == p.FILL_MODES
    assert a["valueFunctions"] == p.VALUE_FUNCTIONS
    assert a["calculationModes"] == p.CALCULATION_MODES
    assert a["rotationModes"] == p.ROTATION_MODES
    assert a["transitionTypes"] == p.TRANSITION_TYPES
    assert a["transitionSubtypes"] == p.TRANSITION_SUBTYPES
    assert a["keyPathLimit"] == p.KEY_PATH_LIMIT
    assert {k: tuple(v) for k, v in a["keyPathComponents"].items()} == p.KEY_PATH_COMPONENTS
    types = dict(a["keyPathComponentTypes"])
    assert types.pop("*") == "number"
    assert types == p.KEY_PATH_COMPONENT_TYPES
    # Every animation class encodes its kind first.
    classes = {"basic": lamina.BasicAnimation("opacity"), "keyframe": lamina.KeyframeAnimation("opacity"),
               "spring": lamina.SpringAnimation("opacity"), "group": lamina.AnimationGroup(),
               "transition": lamina.Transition()}
    assert {name: anim.encode()[0] for name, anim in classes.items()} == p.ANIMATION_KINDS


def test_timing_functions(protocol_json: dict) -> None:
    assert {k: tuple(v) for k, v in protocol_json["timingFunctions"].items()} == p.TIMING_FUNCTIONS
    assert lamina.TimingFunction.named("ease_in_ease_out") == lamina.TimingFunction(*p.TIMING_FUNCTIONS["easeInEaseOut"])
