"""The numbers of the Lamina wire protocol, version 1.7.

These constants mirror ``protocol/lamina-protocol.json`` in the Lamina repository (the
machine-readable description of docs/protocol.md). They are written out here rather than read
at import time so that the package works from any install; ``tests/test_protocol_json.py``
checks every one of them against the JSON, both ways.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

VERSION_MAJOR = 1
VERSION_MINOR = 7
#: "LAMN" as a little-endian u32: the first field of a hello.
MAGIC = 0x4E4D414C
HEADER_SIZE = 8
HELLO_KEEP_LAYERS = 1
#: The largest frame body laminad accepts from a client.
MAX_CLIENT_BODY = 16 * 1024 * 1024

SOCKET_ENVIRONMENT = "LAMINA_SOCKET"
USER_SOCKET_NAME = "lamina-0"
SYSTEM_SOCKET = "/run/lamina/lamina.sock"

# Message types.
CLIENT_MESSAGES = {"hello": 1, "commit": 2, "request": 3}
SERVER_MESSAGES = {
    "welcome": 0x81,
    "applied": 0x82,
    "error": 0x83,
    "reply": 0x84,
    "animationEvent": 0x85,
    "transactionCompleted": 0x86,
    "watch": 0x87,
    "input": 0x88,
    "clock": 0x89,
    "video": 0x8A,
    "scroll": 0x8B,
    "displayChanged": 0x8C,
    "frame": 0x8D,
    "appSurface": 0x8E,
    "tilesWanted": 0x8F,
}
MSG_HELLO, MSG_COMMIT, MSG_REQUEST = 1, 2, 3
MSG_WELCOME, MSG_APPLIED, MSG_ERROR, MSG_REPLY = 0x81, 0x82, 0x83, 0x84
MSG_ANIMATION_EVENT, MSG_TRANSACTION_COMPLETED, MSG_WATCH, MSG_INPUT, MSG_CLOCK = 0x85, 0x86, 0x87, 0x88, 0x89
MSG_VIDEO = 0x8A
MSG_SCROLL = 0x8B
MSG_DISPLAY_CHANGED = 0x8C
MSG_FRAME = 0x8D
MSG_APP_SURFACE = 0x8E
MSG_TILES_WANTED = 0x8F

# Commit operations.
OPCODES = {
    "create": 1,
    "destroy": 2,
    "set": 3,
    "insert": 4,
    "remove": 5,
    "addAnimation": 6,
    "removeAnimation": 7,
    "removeAllAnimations": 8,
    "setAction": 9,
    "settings": 10,
    "createKind": 11,
    "createImage": 12,
    "updateImage": 13,
    "destroyImage": 14,
    "createVideo": 16,
    "controlVideo": 17,
    "supplyTile": 18,
    "dropTiles": 19,
    "createEncodedImage": 20,
}
#: create-encoded-image's formats (protocol 1.7).
ENCODED_IMAGE_FORMATS = {"svg": 0, "gif": 1, "webp": 2}
#: An insert index that appends.
APPEND = 0xFFFFFFFF
SETTINGS_DISABLE_ACTIONS = 1
SETTINGS_TIMING_FUNCTION = 2
ACTION_DICTIONARIES = {"actions": 0, "style": 1}
ACTION_KINDS = {"inherit": 0, "none": 1, "animation": 2}

LAYER_KINDS = {"layer": 0, "gradient": 1, "shape": 2, "text": 3, "replicator": 4, "transform": 5, "emitter": 6, "scroll": 7, "tiled": 8}
PIXEL_FORMATS = {"bgra": 0, "rgba": 1}
ALPHA_MODES = {"premultiplied": 0, "straight": 1}
#: control-video's kinds and the video message's event kinds (protocol 1.6).
VIDEO_CONTROLS = {"play": 0, "pause": 1, "seek": 2, "rate": 3, "loop": 4, "volume": 5, "muted": 6}
VIDEO_EVENT_KINDS = {"ready": 0, "playing": 1, "paused": 2, "ended": 3, "error": 4}
#: The scroll message's phases and sources (protocol 1.7).
SCROLL_PHASES = {"began": 0, "moved": 1, "ended": 2, "interrupted": 3}
SCROLL_SOURCES = {"touch": 0, "wheel": 1}
MAX_IMAGE_DIMENSION = 16384
CLOCKS = {"real": 0, "virtual": 1}
ERROR_SUBJECTS = {"none": 0, "commit": 1, "request": 2}

VALUE_TYPES = {
    "number": 1,
    "point": 2,
    "size": 3,
    "rect": 4,
    "color": 5,
    "transform": 6,
    "bool": 7,
    "string": 8,
    "numberList": 9,
    "colorList": 10,
    "path": 11,
    "image": 12,
    "layer": 13,
    "constraintList": 20,
    "emitterCells": 14,
    "filterList": 15,
    "drawing": 21,
    "attributedString": 22,
}
VALUE_TYPE_NAMES = {tag: name for name, tag in VALUE_TYPES.items()}

# Drawings (protocol 1.7, docs/protocol.md "Drawings"): op name → (opcode, ((argument, kind), …)).
DRAWING_OPS = {
    "saveGState": (1, ()),
    "restoreGState": (2, ()),
    "translateBy": (3, (("x", "number"), ("y", "number"))),
    "scaleBy": (4, (("x", "number"), ("y", "number"))),
    "rotateBy": (5, (("angle", "number"),)),
    "concatenate": (6, (("transform", "affine"),)),
    "beginPath": (10, ()),
    "move": (11, (("point", "point"),)),
    "addLine": (12, (("point", "point"),)),
    "addQuadCurve": (13, (("to", "point"), ("control", "point"))),
    "addCurve": (14, (("to", "point"), ("control1", "point"), ("control2", "point"))),
    "addArc": (15, (("center", "point"), ("radius", "number"), ("startAngle", "number"), ("endAngle", "number"), ("clockwise", "bool"))),
    "addRect": (16, (("rect", "rect"),)),
    "addRoundedRect": (17, (("rect", "rect"), ("cornerWidth", "number"), ("cornerHeight", "number"))),
    "addEllipse": (18, (("rect", "rect"),)),
    "closePath": (19, ()),
    "addPath": (20, (("path", "string"),)),
    "fillPath": (30, (("rule", "fillRule"),)),
    "strokePath": (31, ()),
    "clip": (32, (("rule", "fillRule"),)),
    "fillRect": (33, (("rect", "rect"),)),
    "strokeRect": (34, (("rect", "rect"),)),
    "clearRect": (35, (("rect", "rect"),)),
    "fillEllipse": (36, (("rect", "rect"),)),
    "strokeEllipse": (37, (("rect", "rect"),)),
    "setFillColor": (50, (("color", "color"),)),
    "setStrokeColor": (51, (("color", "color"),)),
    "setLineWidth": (52, (("width", "number"),)),
    "setLineCap": (53, (("cap", "lineCap"),)),
    "setLineJoin": (54, (("join", "lineJoin"),)),
    "setMiterLimit": (55, (("limit", "number"),)),
    "setLineDash": (56, (("phase", "number"), ("lengths", "numbers"))),
    "setAlpha": (57, (("alpha", "number"),)),
    "setBlendMode": (58, (("mode", "blendMode"),)),
    "setShadow": (59, (("offset", "size"), ("blur", "number"), ("color", "color"))),
    "drawLinearGradient": (70, (("start", "point"), ("end", "point"), ("options", "gradientOptions"), ("stops", "stops"))),
    "drawRadialGradient": (71, (("startCenter", "point"), ("startRadius", "number"), ("endCenter", "point"), ("endRadius", "number"), ("options", "gradientOptions"), ("stops", "stops"))),
    "showText": (72, (("at", "point"), ("size", "number"), ("text", "string"), ("font", "string"))),
    "drawImage": (73, (("image", "image"), ("rect", "rect"))),
}
DRAWING_OP_NAMES = {v[0]: k for k, v in DRAWING_OPS.items()}
DRAWING_NAMES = {"fillRule": ["non-zero", "even-odd"], "lineCap": ["butt", "round", "square"], "lineJoin": ["miter", "round", "bevel"], "blendMode": ["normal", "multiply", "screen", "overlay", "darken", "lighten", "colorDodge", "colorBurn", "softLight", "hardLight", "difference", "exclusion", "hue", "saturation", "color", "luminosity", "clear", "copy", "sourceIn", "sourceOut", "sourceAtop", "destinationOver", "destinationIn", "destinationOut", "destinationAtop", "xor", "plusLighter"], "gradientOptions": ["none", "drawsBeforeStartLocation", "drawsAfterEndLocation", "both"]}
DRAWING_KIND_NUMBERS = {"number": 1, "bool": 1, "point": 2, "size": 2, "rect": 4, "color": 4, "affine": 6,
                        "fillRule": 1, "lineCap": 1, "lineJoin": 1, "blendMode": 1, "gradientOptions": 1,
                        "image": 1, "string": 0}
MAX_DRAWING_COMMANDS = 10000
MAX_DRAWING_STRING_BYTES = 16384

PATH_ELEMENTS = {"moveTo": 0, "lineTo": 1, "quadCurveTo": 2, "curveTo": 3, "closeSubpath": 4}
PATH_ELEMENT_POINTS = {"moveTo": 1, "lineTo": 1, "quadCurveTo": 2, "curveTo": 3, "closeSubpath": 0}

REQUESTS = {
    "screenshot": 1,
    "tree": 2,
    "advanceClock": 3,
    "stats": 4,
    "presentation": 5,
    "presentationTree": 6,
    "watch": 7,
    "displayPower": 8,
    "snapshot": 9,
    "injectInput": 10,
    "takeKeyboardFocus": 11,
    "listen": 12,
    "registerFont": 13,
    "output": 14,
    "displayLink": 15,
    "manageApps": 16,
}
#: What an ``output`` request changes (protocol 1.7).
OUTPUT_CHANGES = {"none": 0, "mode": 1, "transform": 2, "scale": 3, "position": 4, "enable": 5, "disable": 6, "brightness": 7}
#: What a ``displayLink`` request does to a link (protocol 1.7).
DISPLAY_LINK_CHANGES = {"remove": 0, "set": 1}
#: What a ``manageApps`` request does (protocol 1.7), and the ``appSurface`` message's kinds and
#: reasons a window went.
APPS_ACTIONS = {"stop": 0, "manage": 1, "focus": 2, "close": 3}
APP_SURFACE_KINDS = {"appeared": 0, "changed": 1, "gone": 2}
APP_GONE_REASONS = {"closed": 0, "exited": 1, "dropped": 2}
#: The longest app id or title laminad sends, in bytes.
MAX_APP_NAME_BYTES = 4096
#: How an output's picture is turned, as ``outputs`` replies and ``displayChanged`` name it.
OUTPUT_TRANSFORMS = ["normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180", "flipped-270"]
REPLIES = {
    "screenshot": 1,
    "tree": 2,
    "advanced": 3,
    "stats": 4,
    "presentation": 5,
    "watching": 7,
    "displayPower": 8,
    "snapshot": 9,
    "done": 10,
    "fontRegistered": 11,
    "outputs": 12,
}
INJECTIONS = {
    "touchDown": 1,
    "touchMotion": 2,
    "touchUp": 3,
    "touchCancel": 4,
    "pointerMotion": 5,
    "pointerButton": 6,
    "scroll": 7,
    "key": 8,
}
INPUT_EVENT_KINDS = {
    "touchDown": 1,
    "touchMove": 2,
    "touchUp": 3,
    "touchCancel": 4,
    "pointerEnter": 5,
    "pointerLeave": 6,
    "pointerMove": 7,
    "buttonPress": 8,
    "buttonRelease": 9,
    "scroll": 10,
    "keyPress": 11,
    "keyRelease": 12,
    "focusIn": 13,
    "focusOut": 14,
    "pointerCancel": 15,
}

ERRORS = {
    "malformed-frame": 1,
    "frame-too-large": 2,
    "unknown-message": 3,
    "unsupported-version": 4,
    "not-hello": 5,
    "malformed-message": 6,
    "unknown-layer": 7,
    "duplicate-layer": 8,
    "cycle": 9,
    "invalid-property": 10,
    "session-in-use": 11,
    "invalid-request": 12,
    "limit-exceeded": 13,
    "internal-error": 14,
    "not-allowed": 15,
    "invalid-animation": 16,
    "unknown-image": 17,
    "duplicate-image": 18,
    "invalid-image": 19,
    "permission-denied": 20,
}
ERROR_NAMES = {code: name for name, code in ERRORS.items()}

# Animations.
ANIMATION_KINDS = {"basic": 1, "keyframe": 2, "spring": 3, "group": 4, "transition": 5}
FILL_MODES = {"removed": 0, "forwards": 1, "backwards": 2, "both": 3}
VALUE_FUNCTIONS = {
    "none": 0,
    "rotateX": 1,
    "rotateY": 2,
    "rotateZ": 3,
    "scale": 4,
    "scaleX": 5,
    "scaleY": 6,
    "scaleZ": 7,
    "translate": 8,
    "translateX": 9,
    "translateY": 10,
    "translateZ": 11,
}
CALCULATION_MODES = {"linear": 0, "discrete": 1, "paced": 2, "cubic": 3, "cubicPaced": 4}
ROTATION_MODES = {"none": 0, "auto": 1, "autoReverse": 2}
TRANSITION_TYPES = {"fade": 0, "moveIn": 1, "push": 2, "reveal": 3}
TRANSITION_SUBTYPES = {"none": 0, "fromLeft": 1, "fromRight": 2, "fromTop": 3, "fromBottom": 4}
KEY_PATH_LIMIT = 256
#: The fields of a property an animation key path may name, by the property's value type.
KEY_PATH_COMPONENTS = {
    "point": ("x", "y"),
    "size": ("width", "height"),
    "rect": ("origin", "origin.x", "origin.y", "size", "size.width", "size.height"),
    "transform": (
        "rotation.x", "rotation.y", "rotation.z", "scale", "scale.x", "scale.y", "scale.z",
        "translation", "translation.x", "translation.y", "translation.z",
    ),
}
#: The value type of a key path's field; every field not listed is a number.
KEY_PATH_COMPONENT_TYPES = {"origin": "point", "size": "size", "translation": "size"}

TIMING_FUNCTIONS = {
    "linear": (0.0, 0.0, 1.0, 1.0),
    "easeIn": (0.42, 0.0, 1.0, 1.0),
    "easeOut": (0.0, 0.0, 0.58, 1.0),
    "easeInEaseOut": (0.42, 0.0, 0.58, 1.0),
    "default": (0.25, 0.1, 0.25, 1.0),
}
DEFAULT_TRANSACTION_DURATION = 0.25

CORNER_MASK = {"minXMinY": 1, "maxXMinY": 2, "minXMaxY": 4, "maxXMaxY": 8}
# Layout (1.7): CAAutoresizingMask's bits and CAConstraintAttribute's numbers.
AUTORESIZING_MASK = {"minXMargin": 1, "widthSizable": 2, "maxXMargin": 4, "minYMargin": 8, "heightSizable": 16,
                     "maxYMargin": 32}
CONSTRAINT_ATTRIBUTES = {"minX": 0, "midX": 1, "maxX": 2, "width": 3, "minY": 4, "midY": 5, "maxY": 6, "height": 7}
CONSTRAINT_ATTRIBUTE_NAMES = {n: name for name, n in CONSTRAINT_ATTRIBUTES.items()}


class Property(NamedTuple):
    """One layer property: its wire number, protocol name, Python name and value type."""

    id: int
    name: str
    #: The attribute name on `lamina.Layer` (snake_case of `name`).
    attribute: str
    type: str
    default: Any
    animatable: bool
    #: For properties whose value is one of a fixed set of names: the names, default first.
    names: Optional[Tuple[str, ...]] = None


_I = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)
_BLACK = (0.0, 0.0, 0.0, 1.0)
_WHITE = (1.0, 1.0, 1.0, 1.0)
_CLEAR = (0.0, 0.0, 0.0, 0.0)
_FILTERS = ("linear", "nearest", "trilinear")
#: ``compositingFilter``'s blend modes: Core Image's names, as Core Animation takes them.
BLEND_MODES = ("multiplyBlendMode", "screenBlendMode", "overlayBlendMode", "darkenBlendMode", "lightenBlendMode",
               "colorDodgeBlendMode", "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
               "differenceBlendMode", "exclusionBlendMode", "plusLighter", "plusDarker")

P = Property
PROPERTIES: Tuple[Property, ...] = (
    P(1, "bounds", "bounds", "rect", (0.0, 0.0, 0.0, 0.0), True),
    P(2, "position", "position", "point", (0.0, 0.0), True),
    P(3, "anchorPoint", "anchor_point", "point", (0.5, 0.5), True),
    P(4, "anchorPointZ", "anchor_point_z", "number", 0.0, True),
    P(5, "zPosition", "z_position", "number", 0.0, True),
    P(6, "transform", "transform", "transform", _I, True),
    P(7, "sublayerTransform", "sublayer_transform", "transform", _I, True),
    P(8, "opacity", "opacity", "number", 1.0, True),
    P(9, "hidden", "hidden", "bool", False, True),
    P(10, "backgroundColor", "background_color", "color", _CLEAR, True),
    P(11, "name", "name", "string", "", False),
    P(12, "cornerRadius", "corner_radius", "number", 0.0, True),
    P(13, "borderWidth", "border_width", "number", 0.0, True),
    P(14, "borderColor", "border_color", "color", _BLACK, True),
    P(15, "masksToBounds", "masks_to_bounds", "bool", False, True),
    P(16, "shadowColor", "shadow_color", "color", _BLACK, True),
    P(17, "shadowOpacity", "shadow_opacity", "number", 0.0, True),
    P(18, "shadowOffset", "shadow_offset", "size", (0.0, -3.0), True),
    P(19, "shadowRadius", "shadow_radius", "number", 3.0, True),
    P(20, "doubleSided", "double_sided", "bool", True, True),
    P(21, "speed", "speed", "number", 1.0, False),
    P(22, "timeOffset", "time_offset", "number", 0.0, False),
    P(23, "beginTime", "begin_time", "number", 0.0, False),
    P(24, "maskedCorners", "masked_corners", "number", 15.0, False),
    P(25, "allowsGroupOpacity", "allows_group_opacity", "bool", True, False),
    P(26, "geometryFlipped", "geometry_flipped", "bool", False, False),
    P(27, "contents", "contents", "image", 0, False),
    P(28, "contentsRect", "contents_rect", "rect", (0.0, 0.0, 1.0, 1.0), True),
    P(29, "contentsCenter", "contents_center", "rect", (0.0, 0.0, 1.0, 1.0), True),
    P(30, "contentsGravity", "contents_gravity", "string", "resize", False,
      ("resize", "resizeAspect", "resizeAspectFill", "center", "top", "bottom", "left", "right",
       "topLeft", "topRight", "bottomLeft", "bottomRight")),
    P(31, "contentsScale", "contents_scale", "number", 1.0, False),
    P(32, "minificationFilter", "minification_filter", "string", "linear", False, _FILTERS),
    P(33, "magnificationFilter", "magnification_filter", "string", "linear", False, _FILTERS),
    P(34, "opaque", "opaque", "bool", False, False),
    P(35, "mask", "mask", "layer", 0, False),
    P(36, "shadowPath", "shadow_path", "path", (), True),
    P(37, "colors", "colors", "colorList", (), True),
    P(38, "locations", "locations", "numberList", (), True),
    P(39, "startPoint", "start_point", "point", (0.5, 0.0), True),
    P(40, "endPoint", "end_point", "point", (0.5, 1.0), True),
    P(41, "type", "type", "string", "axial", False, ("axial", "radial", "conic")),
    P(42, "path", "path", "path", (), True),
    P(43, "fillColor", "fill_color", "color", _BLACK, True),
    P(44, "fillRule", "fill_rule", "string", "non-zero", False, ("non-zero", "even-odd")),
    P(45, "strokeColor", "stroke_color", "color", _CLEAR, True),
    P(46, "lineWidth", "line_width", "number", 1.0, True),
    P(47, "lineCap", "line_cap", "string", "butt", False, ("butt", "round", "square")),
    P(48, "lineJoin", "line_join", "string", "miter", False, ("miter", "round", "bevel")),
    P(49, "miterLimit", "miter_limit", "number", 10.0, True),
    P(50, "lineDashPattern", "line_dash_pattern", "numberList", (), True),
    P(51, "lineDashPhase", "line_dash_phase", "number", 0.0, True),
    P(52, "strokeStart", "stroke_start", "number", 0.0, True),
    P(53, "strokeEnd", "stroke_end", "number", 1.0, True),
    P(54, "string", "string", "string", "", False),
    P(55, "font", "font", "string", "Helvetica", False),
    P(56, "fontSize", "font_size", "number", 36.0, True),
    P(57, "foregroundColor", "foreground_color", "color", _WHITE, True),
    P(58, "alignmentMode", "alignment_mode", "string", "natural", False,
      ("natural", "left", "right", "center", "justified")),
    P(59, "wrapped", "wrapped", "bool", False, False),
    P(60, "truncationMode", "truncation_mode", "string", "none", False, ("none", "start", "end", "middle")),
    P(61, "instanceCount", "instance_count", "number", 1.0, False),
    P(62, "instanceTransform", "instance_transform", "transform", _I, True),
    P(63, "instanceColor", "instance_color", "color", _WHITE, True),
    P(64, "instanceRedOffset", "instance_red_offset", "number", 0.0, True),
    P(65, "instanceGreenOffset", "instance_green_offset", "number", 0.0, True),
    P(66, "instanceBlueOffset", "instance_blue_offset", "number", 0.0, True),
    P(67, "instanceAlphaOffset", "instance_alpha_offset", "number", 0.0, True),
    P(68, "instanceDelay", "instance_delay", "number", 0.0, True),
    P(69, "userInteractionEnabled", "user_interaction_enabled", "bool", True, False),
    # Protocol 1.7. compositingFilter's "" is nil (normal compositing): None on a Layer.
    P(70, "compositingFilter", "compositing_filter", "string", "", False, ("",) + BLEND_MODES),
    P(71, "cornerCurve", "corner_curve", "string", "circular", False, ("circular", "continuous")),
    P(72, "scrollMode", "scroll_mode", "string", "both", False, ("both", "none", "vertically", "horizontally")),
    P(73, "scrollsOnTouch", "scrolls_on_touch", "bool", False, False),
    P(74, "scrollContentSize", "scroll_content_size", "size", (0.0, 0.0), False),
    P(75, "pagingEnabled", "paging_enabled", "bool", False, False),
    # Filters (1.7): lamina.Filter values; inputs animate by "filters.NAME.inputRadius".
    P(76, "filters", "filters", "filterList", (), False),
    # The same filters on what lies behind the layer (frosted glass); "backgroundFilters.NAME.inputRadius".
    P(77, "backgroundFilters", "background_filters", "filterList", (), False),
    # Tiled layers (1.7): 78-79 and 95-96.
    P(78, "tileSize", "tile_size", "size", (256.0, 256.0), False),
    P(79, "levelsOfDetail", "levels_of_detail", "number", 1.0, False),
    # Emitter layers (protocol 1.7).
    P(80, "emitterPosition", "emitter_position", "point", (0.0, 0.0), True),
    P(81, "emitterZPosition", "emitter_z_position", "number", 0.0, True),
    P(82, "emitterSize", "emitter_size", "size", (0.0, 0.0), True),
    P(83, "emitterDepth", "emitter_depth", "number", 0.0, True),
    P(84, "emitterShape", "emitter_shape", "string", "point", False,
      ("point", "line", "rectangle", "cuboid", "circle", "sphere")),
    P(85, "emitterMode", "emitter_mode", "string", "volume", False, ("volume", "points", "outline", "surface")),
    P(86, "renderMode", "render_mode", "string", "unordered", False,
      ("unordered", "oldestFirst", "oldestLast", "backToFront", "additive")),
    P(87, "birthRate", "birth_rate", "number", 1.0, True),
    P(88, "lifetime", "lifetime", "number", 1.0, True),
    P(89, "velocity", "velocity", "number", 1.0, True),
    P(90, "scale", "scale", "number", 1.0, True),
    P(91, "spin", "spin", "number", 1.0, True),
    P(92, "seed", "seed", "number", 0.0, False),
    P(93, "preservesDepth", "preserves_depth", "bool", False, False),
    P(94, "emitterCells", "emitter_cells", "emitterCells", (), False),
    P(95, "levelsOfDetailBias", "levels_of_detail_bias", "number", 0.0, False),
    P(96, "tileFadeDuration", "tile_fade_duration", "number", 0.25, False),
    # Drawn contents (1.7): lamina.Drawing, recorded by a layer's draw callable.
    P(97, "drawing", "drawing", "drawing", (), False),
    # Rich text (1.7): lamina.TextRun values; drawn instead of `string` when not empty.
    P(98, "attributedString", "attributed_string", "attributedString", (), False),
    P(99, "lineSpacing", "line_spacing", "number", 0.0, True),
    # Layout (1.7), applied by laminad when a superlayer's bounds change.
    P(100, "autoresizingMask", "autoresizing_mask", "number", 0.0, False),
    P(101, "constraints", "constraints", "constraintList", (), False),
    # App surfaces (1.7): the app window a layer shows (``layer.contents = surface``), who sizes
    # it, and what shows once it is gone.
    P(102, "appSurface", "app_surface", "number", 0.0, False),
    P(103, "appSizing", "app_sizing", "string", "bounds", False, ("bounds", "app")),
    P(104, "appExitContents", "app_exit_contents", "string", "keep", False, ("keep", "clear")),
)
del P



class CellField(NamedTuple):
    """One field of an emitter cell (``CAEmitterCell``): its wire number, name and type."""

    id: int
    name: str
    attribute: str
    type: str
    default: Any
    animatable: bool
    names: Optional[Tuple[str, ...]] = None


_FILL = ("removed", "forwards", "backwards", "both")
F = CellField
EMITTER_CELL_FIELDS: Tuple[CellField, ...] = (
    F(1, "name", "name", "string", "", False), F(2, "enabled", "enabled", "bool", True, False),
    F(3, "birthRate", "birth_rate", "number", 0.0, True), F(4, "lifetime", "lifetime", "number", 0.0, True),
    F(5, "lifetimeRange", "lifetime_range", "number", 0.0, True), F(6, "velocity", "velocity", "number", 0.0, True),
    F(7, "velocityRange", "velocity_range", "number", 0.0, True), F(8, "xAcceleration", "x_acceleration", "number", 0.0, True),
    F(9, "yAcceleration", "y_acceleration", "number", 0.0, True), F(10, "zAcceleration", "z_acceleration", "number", 0.0, True),
    F(11, "emissionLatitude", "emission_latitude", "number", 0.0, True),
    F(12, "emissionLongitude", "emission_longitude", "number", 0.0, True),
    F(13, "emissionRange", "emission_range", "number", 0.0, True), F(14, "spin", "spin", "number", 0.0, True),
    F(15, "spinRange", "spin_range", "number", 0.0, True), F(16, "scale", "scale", "number", 1.0, True),
    F(17, "scaleRange", "scale_range", "number", 0.0, True), F(18, "scaleSpeed", "scale_speed", "number", 0.0, True),
    F(19, "color", "color", "color", _WHITE, True), F(20, "redRange", "red_range", "number", 0.0, True),
    F(21, "greenRange", "green_range", "number", 0.0, True), F(22, "blueRange", "blue_range", "number", 0.0, True),
    F(23, "alphaRange", "alpha_range", "number", 0.0, True), F(24, "redSpeed", "red_speed", "number", 0.0, True),
    F(25, "greenSpeed", "green_speed", "number", 0.0, True), F(26, "blueSpeed", "blue_speed", "number", 0.0, True),
    F(27, "alphaSpeed", "alpha_speed", "number", 0.0, True), F(28, "contents", "contents", "image", 0, False),
    F(29, "contentsRect", "contents_rect", "rect", (0.0, 0.0, 1.0, 1.0), True),
    F(30, "contentsScale", "contents_scale", "number", 1.0, True),
    F(31, "minificationFilter", "minification_filter", "string", "linear", False, _FILTERS),
    F(32, "magnificationFilter", "magnification_filter", "string", "linear", False, _FILTERS),
    F(33, "beginTime", "begin_time", "number", 0.0, False), F(34, "duration", "duration", "number", 0.0, False),
    F(35, "speed", "speed", "number", 1.0, False), F(36, "timeOffset", "time_offset", "number", 0.0, False),
    F(37, "repeatCount", "repeat_count", "number", 0.0, False),
    F(38, "repeatDuration", "repeat_duration", "number", 0.0, False),
    F(39, "autoreverses", "autoreverses", "bool", False, False), F(40, "fillMode", "fill_mode", "string", "removed", False, _FILL),
)
del F
EMITTER_CELL_FIELDS_BY_ID = {f.id: f for f in EMITTER_CELL_FIELDS}
EMITTER_CELL_FIELDS_BY_ATTRIBUTE = {f.attribute: f for f in EMITTER_CELL_FIELDS}
MAX_EMITTER_CELLS = 64
#: Filter types by name: (wire tag, input name or None, input count, default input).
FILTER_TYPES = {
    "gaussianBlur": (1, "inputRadius", 1, (10.0,)),
    "colorMatrix": (2, "inputMatrix", 20, (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
                                           0.0, 0.0, 0.0, 0.0)),
    "saturate": (3, "inputAmount", 1, (1.0,)),
    "brightness": (4, "inputAmount", 1, (0.0,)),
    "contrast": (5, "inputAmount", 1, (1.0,)),
    "invert": (6, None, 0, ()),
    "hueRotate": (7, "inputAngle", 1, (0.0,)),
}
FILTER_TYPE_NAMES = {t[0]: name for name, t in FILTER_TYPES.items()}
MAX_FILTERS = 8
MAX_BLUR_RADIUS = 64
MAX_EMITTER_DEPTH = 4

PROPERTIES_BY_ID = {p.id: p for p in PROPERTIES}
PROPERTIES_BY_NAME = {p.name: p for p in PROPERTIES}
PROPERTIES_BY_ATTRIBUTE = {p.attribute: p for p in PROPERTIES}
