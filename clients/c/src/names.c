/* The protocol's names for its numbers: laminad's error codes, each property's name and value
 * type, the timing functions' control points; and the library's own statuses. */
#include <string.h>

#include "internal.h"

static const char *const error_names[] = {
    NULL,
    "malformed-frame", /* 1 */
    "frame-too-large", /* 2 */
    "unknown-message", /* 3 */
    "unsupported-version", /* 4 */
    "not-hello", /* 5 */
    "malformed-message", /* 6 */
    "unknown-layer", /* 7 */
    "duplicate-layer", /* 8 */
    "cycle", /* 9 */
    "invalid-property", /* 10 */
    "session-in-use", /* 11 */
    "invalid-request", /* 12 */
    "limit-exceeded", /* 13 */
    "internal-error", /* 14 */
    "not-allowed", /* 15 */
    "invalid-animation", /* 16 */
    "unknown-image", /* 17 */
    "duplicate-image", /* 18 */
    "invalid-image", /* 19 */
    "permission-denied", /* 20 */
};

const char *lamina_status_string(int status) {
    switch (status) {
    case LAMINA_OK: return "success";
    case LAMINA_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case LAMINA_ERROR_NO_MEMORY: return "out of memory";
    case LAMINA_ERROR_IO: return "input/output error";
    case LAMINA_ERROR_CLOSED: return "the connection is closed";
    case LAMINA_ERROR_PROTOCOL: return "laminad sent something that is not a protocol message";
    case LAMINA_ERROR_SERVER: return "laminad refused the commit or request";
    case LAMINA_ERROR_STATE: return "not allowed in this state";
    case LAMINA_ERROR_TIMEOUT: return "timed out";
    default: return "unknown status";
    }
}

const char *lamina_server_error_name(int code) {
    return code > 0 && (size_t)code < sizeof error_names / sizeof error_names[0] ? error_names[code] : NULL;
}

/* Each property's protocol name and value type (checked against protocol/lamina-protocol.json
 * by tests/check_protocol.py). */
static const struct { const char *name; unsigned char type; } property_table[] = {
    {NULL, 0},
    {"bounds", 4}, /* 1 rect */
    {"position", 2}, /* 2 point */
    {"anchorPoint", 2}, /* 3 point */
    {"anchorPointZ", 1}, /* 4 number */
    {"zPosition", 1}, /* 5 number */
    {"transform", 6}, /* 6 transform */
    {"sublayerTransform", 6}, /* 7 transform */
    {"opacity", 1}, /* 8 number */
    {"hidden", 7}, /* 9 bool */
    {"backgroundColor", 5}, /* 10 color */
    {"name", 8}, /* 11 string */
    {"cornerRadius", 1}, /* 12 number */
    {"borderWidth", 1}, /* 13 number */
    {"borderColor", 5}, /* 14 color */
    {"masksToBounds", 7}, /* 15 bool */
    {"shadowColor", 5}, /* 16 color */
    {"shadowOpacity", 1}, /* 17 number */
    {"shadowOffset", 3}, /* 18 size */
    {"shadowRadius", 1}, /* 19 number */
    {"doubleSided", 7}, /* 20 bool */
    {"speed", 1}, /* 21 number */
    {"timeOffset", 1}, /* 22 number */
    {"beginTime", 1}, /* 23 number */
    {"maskedCorners", 1}, /* 24 number */
    {"allowsGroupOpacity", 7}, /* 25 bool */
    {"geometryFlipped", 7}, /* 26 bool */
    {"contents", 12}, /* 27 image */
    {"contentsRect", 4}, /* 28 rect */
    {"contentsCenter", 4}, /* 29 rect */
    {"contentsGravity", 8}, /* 30 string */
    {"contentsScale", 1}, /* 31 number */
    {"minificationFilter", 8}, /* 32 string */
    {"magnificationFilter", 8}, /* 33 string */
    {"opaque", 7}, /* 34 bool */
    {"mask", 13}, /* 35 layer */
    {"shadowPath", 11}, /* 36 path */
    {"colors", 10}, /* 37 colorList */
    {"locations", 9}, /* 38 numberList */
    {"startPoint", 2}, /* 39 point */
    {"endPoint", 2}, /* 40 point */
    {"type", 8}, /* 41 string */
    {"path", 11}, /* 42 path */
    {"fillColor", 5}, /* 43 color */
    {"fillRule", 8}, /* 44 string */
    {"strokeColor", 5}, /* 45 color */
    {"lineWidth", 1}, /* 46 number */
    {"lineCap", 8}, /* 47 string */
    {"lineJoin", 8}, /* 48 string */
    {"miterLimit", 1}, /* 49 number */
    {"lineDashPattern", 9}, /* 50 numberList */
    {"lineDashPhase", 1}, /* 51 number */
    {"strokeStart", 1}, /* 52 number */
    {"strokeEnd", 1}, /* 53 number */
    {"string", 8}, /* 54 string */
    {"font", 8}, /* 55 string */
    {"fontSize", 1}, /* 56 number */
    {"foregroundColor", 5}, /* 57 color */
    {"alignmentMode", 8}, /* 58 string */
    {"wrapped", 7}, /* 59 bool */
    {"truncationMode", 8}, /* 60 string */
    {"instanceCount", 1}, /* 61 number */
    {"instanceTransform", 6}, /* 62 transform */
    {"instanceColor", 5}, /* 63 color */
    {"instanceRedOffset", 1}, /* 64 number */
    {"instanceGreenOffset", 1}, /* 65 number */
    {"instanceBlueOffset", 1}, /* 66 number */
    {"instanceAlphaOffset", 1}, /* 67 number */
    {"instanceDelay", 1}, /* 68 number */
    {"userInteractionEnabled", 7}, /* 69 bool */
    {"compositingFilter", 8}, /* 70 string */
    {"cornerCurve", 8}, /* 71 string */
    {"scrollMode", 8}, /* 72 string */
    {"scrollsOnTouch", 7}, /* 73 bool */
    {"scrollContentSize", 3}, /* 74 size */
    {"pagingEnabled", 7}, /* 75 bool */
    {"filters", 15}, /* 76 filterList */
    {"backgroundFilters", 15}, /* 77 filterList */
    {"tileSize", 3}, /* 78 size */
    {"levelsOfDetail", 1}, /* 79 number */
    {"emitterPosition", 2}, /* 80 point */
    {"emitterZPosition", 1}, /* 81 number */
    {"emitterSize", 3}, /* 82 size */
    {"emitterDepth", 1}, /* 83 number */
    {"emitterShape", 8}, /* 84 string */
    {"emitterMode", 8}, /* 85 string */
    {"renderMode", 8}, /* 86 string */
    {"birthRate", 1}, /* 87 number */
    {"lifetime", 1}, /* 88 number */
    {"velocity", 1}, /* 89 number */
    {"scale", 1}, /* 90 number */
    {"spin", 1}, /* 91 number */
    {"seed", 1}, /* 92 number */
    {"preservesDepth", 7}, /* 93 bool */
    {"emitterCells", 14}, /* 94 emitterCells */
    {"levelsOfDetailBias", 1}, /* 95 number */
    {"tileFadeDuration", 1}, /* 96 number */
    /* Drawn contents (1.7). */
    [97] = {"drawing", 21}, /* 97 drawing */
    /* Rich text (1.7). */
    [98] = {"attributedString", 22}, /* 98 attributedString */
    [99] = {"lineSpacing", 1}, /* 99 number */
    /* Layout (1.7). */
    [100] = {"autoresizingMask", 1}, /* 100 number */
    [101] = {"constraints", 20}, /* 101 constraintList */
    /* App surfaces (1.7). */
    [102] = {"appSurface", 1}, /* 102 number */
    [103] = {"appSizing", 8}, /* 103 string */
    [104] = {"appExitContents", 8}, /* 104 string */
};

lamina_value_type lamina_property_type(int property) {
    if (property < 1 || property > LM_PROPERTY_COUNT)
        return (lamina_value_type)0;
    return (lamina_value_type)property_table[property].type;
}

const char *lamina_property_name(int property) {
    if (property < 1 || property > LM_PROPERTY_COUNT)
        return NULL;
    return property_table[property].name;
}

static const struct {
    const char *name;
    double points[4];
} timing_functions[] = {
    {"linear", {0, 0, 1, 1}},
    {"easeIn", {0.42, 0, 1, 1}},
    {"easeOut", {0, 0, 0.58, 1}},
    {"easeInEaseOut", {0.42, 0, 0.58, 1}},
    {"default", {0.25, 0.1, 0.25, 1}},
};

int lm_timing_named(const char *name, double out[4]) {
    for (size_t i = 0; i < sizeof timing_functions / sizeof timing_functions[0]; i++)
        if (strcmp(name, timing_functions[i].name) == 0) {
            memcpy(out, timing_functions[i].points, sizeof timing_functions[i].points);
            return 0;
        }
    return -1;
}

/* The strings a drawing command takes after its numbers, by opcode; -1 for no such opcode. */
int lm_draw_string_count(uint32_t op) {
    switch (op) {
    case LAMINA_DRAW_SAVE_GSTATE:
    case LAMINA_DRAW_RESTORE_GSTATE:
    case LAMINA_DRAW_TRANSLATE_BY:
    case LAMINA_DRAW_SCALE_BY:
    case LAMINA_DRAW_ROTATE_BY:
    case LAMINA_DRAW_CONCATENATE:
    case LAMINA_DRAW_BEGIN_PATH:
    case LAMINA_DRAW_MOVE:
    case LAMINA_DRAW_ADD_LINE:
    case LAMINA_DRAW_ADD_QUAD_CURVE:
    case LAMINA_DRAW_ADD_CURVE:
    case LAMINA_DRAW_ADD_ARC:
    case LAMINA_DRAW_ADD_RECT:
    case LAMINA_DRAW_ADD_ROUNDED_RECT:
    case LAMINA_DRAW_ADD_ELLIPSE:
    case LAMINA_DRAW_CLOSE_PATH:
    case LAMINA_DRAW_FILL_PATH:
    case LAMINA_DRAW_STROKE_PATH:
    case LAMINA_DRAW_CLIP:
    case LAMINA_DRAW_FILL_RECT:
    case LAMINA_DRAW_STROKE_RECT:
    case LAMINA_DRAW_CLEAR_RECT:
    case LAMINA_DRAW_FILL_ELLIPSE:
    case LAMINA_DRAW_STROKE_ELLIPSE:
    case LAMINA_DRAW_SET_FILL_COLOR:
    case LAMINA_DRAW_SET_STROKE_COLOR:
    case LAMINA_DRAW_SET_LINE_WIDTH:
    case LAMINA_DRAW_SET_LINE_CAP:
    case LAMINA_DRAW_SET_LINE_JOIN:
    case LAMINA_DRAW_SET_MITER_LIMIT:
    case LAMINA_DRAW_SET_LINE_DASH:
    case LAMINA_DRAW_SET_ALPHA:
    case LAMINA_DRAW_SET_BLEND_MODE:
    case LAMINA_DRAW_SET_SHADOW:
    case LAMINA_DRAW_DRAW_LINEAR_GRADIENT:
    case LAMINA_DRAW_DRAW_RADIAL_GRADIENT:
    case LAMINA_DRAW_DRAW_IMAGE:
        return 0;
    case LAMINA_DRAW_ADD_PATH: return 1;
    case LAMINA_DRAW_SHOW_TEXT: return 2;
    default: return -1;
    }
}
