/* Layers, property values, paths, transactions, explicit animations and images. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "client.h"

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

/* MARK: The pending commit */

static int settings_equal(const lm_settings *a, const lm_settings *b) {
    if (a->duration != b->duration || a->has_timing != b->has_timing || a->disable_actions != b->disable_actions ||
        a->group_count != b->group_count)
        return 0;
    if (a->has_timing && memcmp(a->timing, b->timing, sizeof a->timing) != 0)
        return 0;
    return a->group_count == 0 || memcmp(a->groups, b->groups, a->group_count * sizeof *a->groups) == 0;
}

/* The settings the open transactions give (defaults when none is open). */
static int settings_now(const lamina_connection *conn, lm_settings *s) {
    memset(s, 0, sizeof *s);
    s->duration = 0.25;
    size_t groups = 0;
    for (size_t i = 0; i < conn->frame_count; i++)
        groups += conn->frames[i].group != 0;
    if (groups && !(s->groups = malloc(groups * sizeof *s->groups)))
        return -1;
    for (size_t i = 0; i < conn->frame_count; i++) {
        const lm_frame *f = &conn->frames[i];
        if (f->has_duration)
            s->duration = f->duration;
        if (f->timing_state == 1)
            s->has_timing = 0;
        else if (f->timing_state == 2) {
            s->has_timing = 1;
            memcpy(s->timing, f->timing, sizeof s->timing);
        }
        if (f->disable_state >= 0)
            s->disable_actions = f->disable_state;
        if (f->group)
            s->groups[s->group_count++] = f->group;
    }
    return 0;
}

size_t lm_op_begin(lamina_connection *conn) {
    if (lm_check_recordable(conn))
        return (size_t)-1;
    if (conn->fd < 0)
        return conn->ops.length; /* recorded in the model only (lm_op_end) */
    lm_settings now;
    if (settings_now(conn, &now))
        return (size_t)-1;
    size_t mark = conn->ops.length;
    if (settings_equal(&now, &conn->current)) {
        lm_free_settings(&now);
        return mark;
    }
    for (size_t i = 0; i < now.group_count; i++) {
        if (lm_grow((void **)&conn->sent_groups, &conn->sent_group_capacity, conn->sent_group_count,
                    sizeof *conn->sent_groups)) {
            lm_free_settings(&now);
            return (size_t)-1;
        }
        conn->sent_groups[conn->sent_group_count++] = now.groups[i];
    }
    lm_buf *b = &conn->ops;
    lm_buf_u8(b, LM_OP_SETTINGS);
    lm_buf_f64(b, now.duration);
    lm_buf_u8(b, (now.disable_actions ? 1u : 0u) | (now.has_timing ? 2u : 0u));
    if (now.has_timing)
        for (int i = 0; i < 4; i++)
            lm_buf_f64(b, now.timing[i]);
    lm_buf_u32(b, (uint32_t)now.group_count);
    for (size_t i = 0; i < now.group_count; i++)
        lm_buf_u32(b, now.groups[i]);
    if (b->failed) {
        b->failed = 0;
        b->length = mark;
        lm_free_settings(&now);
        return (size_t)-1;
    }
    conn->op_count++;
    lm_free_settings(&conn->current);
    conn->current = now;
    return conn->ops.length;
}

int lm_op_end(lamina_connection *conn, lm_buf *list, uint32_t *count, size_t mark) {
    if (list->failed || (list == &conn->ops && lm_model_note(conn, list->data + mark, list->length - mark))) {
        list->failed = 0;
        list->length = mark;
        return LAMINA_ERROR_NO_MEMORY;
    }
    if (conn->fd < 0) { /* laminad is away: the model has it for the replay; nothing piles up */
        list->length = mark;
        return LAMINA_OK;
    }
    (*count)++;
    return LAMINA_OK;
}

#define OP_BEGIN(conn)                                                                                             \
    size_t mark_ = lm_op_begin(conn);                                                                              \
    if (mark_ == (size_t)-1)                                                                                       \
        return lm_check_recordable(conn) ? lm_check_recordable(conn) : LAMINA_ERROR_NO_MEMORY;                     \
    lm_buf *b = &(conn)->ops
#define OP_END(conn) lm_op_end(conn, &(conn)->ops, &(conn)->op_count, mark_)

/* MARK: Layers */

int lm_reserve_layer(lamina_connection *conn, uint32_t number) {
    if (number >= conn->layer_capacity) {
        size_t capacity = conn->layer_capacity ? conn->layer_capacity * 2 : 64;
        while (capacity <= number)
            capacity *= 2;
        lamina_layer **layers = realloc(conn->layers, capacity * sizeof *layers);
        if (!layers)
            return -1;
        memset(layers + conn->layer_capacity, 0, (capacity - conn->layer_capacity) * sizeof *layers);
        conn->layers = layers;
        conn->layer_capacity = capacity;
    }
    return 0;
}

static lamina_layer *layer_create(lamina_connection *conn, int kind) {
    if (lm_check_recordable(conn) || kind < 0 || kind > LAMINA_LAYER_KIND_TRANSFORM || conn->next_layer == UINT32_MAX)
        return NULL;
    uint32_t number = conn->next_layer;
    if (lm_reserve_layer(conn, number))
        return NULL;
    lamina_layer *layer = calloc(1, sizeof *layer);
    if (!layer)
        return NULL;
    layer->conn = conn;
    layer->number = number;
    layer->kind = (uint8_t)kind;
    layer->parent = LM_NO_PARENT;
    size_t mark_ = lm_op_begin(conn);
    if (mark_ == (size_t)-1) {
        free(layer);
        return NULL;
    }
    if (kind == 0) {
        lm_buf_u8(&conn->ops, LM_OP_CREATE);
        lm_buf_u32(&conn->ops, number);
    } else {
        lm_buf_u8(&conn->ops, LM_OP_CREATE_KIND);
        lm_buf_u32(&conn->ops, number);
        lm_buf_u8(&conn->ops, (uint32_t)kind);
    }
    if (OP_END(conn)) {
        free(layer);
        return NULL;
    }
    conn->layers[number] = layer;
    conn->next_layer++;
    return layer;
}

lamina_layer *lamina_layer_new(lamina_connection *conn) { return layer_create(conn, 0); }

lamina_layer *lamina_layer_new_kind(lamina_connection *conn, lamina_layer_kind kind) {
    return layer_create(conn, (int)kind);
}

uint32_t lamina_layer_number(const lamina_layer *layer) { return layer ? layer->number : 0; }

int lamina_layer_destroy(lamina_layer *layer) {
    if (!layer || layer->number == 0)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = layer->conn;
    int s = LAMINA_OK;
    if (lm_check_recordable(conn) == LAMINA_OK) {
        OP_BEGIN(conn);
        lm_buf_u8(b, LM_OP_DESTROY);
        lm_buf_u32(b, layer->number);
        s = OP_END(conn);
        if (s)
            return s;
    }
    lm_model_destroyed(conn, layer);
    conn->layers[layer->number] = NULL;
    free(layer);
    return s;
}

int lamina_layer_insert_sublayer(lamina_layer *parent, lamina_layer *child, uint32_t index) {
    if (!parent || !child || parent->conn != child->conn || child->number == 0)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(parent->conn);
    lm_buf_u8(b, LM_OP_INSERT);
    lm_buf_u32(b, parent->number);
    lm_buf_u32(b, child->number);
    lm_buf_u32(b, index);
    return OP_END(parent->conn);
}

int lamina_layer_add_sublayer(lamina_layer *parent, lamina_layer *child) {
    return lamina_layer_insert_sublayer(parent, child, LM_APPEND);
}

int lamina_layer_remove_from_superlayer(lamina_layer *layer) {
    if (!layer || layer->number == 0)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(layer->conn);
    lm_buf_u8(b, LM_OP_REMOVE);
    lm_buf_u32(b, layer->number);
    return OP_END(layer->conn);
}

/* MARK: Property values */

/* A set operation of `count` numbers (or, for count 0, what `write` appends). */
static int set_numbers(lamina_layer *layer, lamina_property property, int type, const double *v, size_t count) {
    if (!layer || (int)lamina_property_type(property) != type)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(layer->conn);
    lm_buf_u8(b, LM_OP_SET);
    lm_buf_u32(b, layer->number);
    lm_buf_u16(b, (uint32_t)property);
    for (size_t i = 0; i < count; i++)
        lm_buf_f64(b, v[i]);
    return OP_END(layer->conn);
}

int lamina_layer_set_number(lamina_layer *layer, lamina_property property, double value) {
    return set_numbers(layer, property, LAMINA_VALUE_NUMBER, &value, 1);
}

int lamina_layer_set_point(lamina_layer *layer, lamina_property property, double x, double y) {
    double v[2] = {x, y};
    return set_numbers(layer, property, LAMINA_VALUE_POINT, v, 2);
}

int lamina_layer_set_size(lamina_layer *layer, lamina_property property, double width, double height) {
    double v[2] = {width, height};
    return set_numbers(layer, property, LAMINA_VALUE_SIZE, v, 2);
}

int lamina_layer_set_rect(lamina_layer *layer, lamina_property property, double x, double y, double width,
                          double height) {
    double v[4] = {x, y, width, height};
    return set_numbers(layer, property, LAMINA_VALUE_RECT, v, 4);
}

int lamina_layer_set_color(lamina_layer *layer, lamina_property property, double red, double green, double blue,
                           double alpha) {
    double v[4] = {red, green, blue, alpha};
    return set_numbers(layer, property, LAMINA_VALUE_COLOR, v, 4);
}

int lamina_layer_set_transform(lamina_layer *layer, lamina_property property, const double m[16]) {
    if (!m)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return set_numbers(layer, property, LAMINA_VALUE_TRANSFORM, m, 16);
}

/* The start of a set operation whose value the caller appends. */
#define SET_BEGIN(layer, property, type)                                                                           \
    if (!(layer) || (int)lamina_property_type(property) != (int)(type))                                                      \
        return LAMINA_ERROR_INVALID_ARGUMENT;                                                                      \
    OP_BEGIN((layer)->conn);                                                                                       \
    lm_buf_u8(b, LM_OP_SET);                                                                                       \
    lm_buf_u32(b, (layer)->number);                                                                                \
    lm_buf_u16(b, (uint32_t)(property))

int lamina_layer_set_bool(lamina_layer *layer, lamina_property property, int value) {
    SET_BEGIN(layer, property, LAMINA_VALUE_BOOL);
    lm_buf_u8(b, value ? 1 : 0);
    return OP_END(layer->conn);
}

int lamina_layer_set_string(lamina_layer *layer, lamina_property property, const char *value) {
    if (value && strlen(value) > 65536)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, property, LAMINA_VALUE_STRING);
    lm_buf_string(b, value);
    return OP_END(layer->conn);
}

int lamina_layer_set_number_list(lamina_layer *layer, lamina_property property, const double *values, size_t count) {
    if ((count && !values) || count > 1024)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, property, LAMINA_VALUE_NUMBER_LIST);
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count; i++)
        lm_buf_f64(b, values[i]);
    return OP_END(layer->conn);
}

int lamina_layer_set_color_list(lamina_layer *layer, lamina_property property, const double *rgba, size_t count) {
    if ((count && !rgba) || count > 1024)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, property, LAMINA_VALUE_COLOR_LIST);
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count * 4; i++)
        lm_buf_f64(b, rgba[i]);
    return OP_END(layer->conn);
}

int lamina_layer_set_path(lamina_layer *layer, lamina_property property, const lamina_path *path) {
    if (path && path->elements.failed)
        return LAMINA_ERROR_NO_MEMORY;
    SET_BEGIN(layer, property, LAMINA_VALUE_PATH);
    lm_buf_u32(b, path ? path->count : 0);
    if (path)
        lm_buf_bytes(b, path->elements.data, path->elements.length);
    return OP_END(layer->conn);
}

int lamina_layer_set_reference(lamina_layer *layer, lamina_property property, uint32_t number) {
    int type = lamina_property_type(property);
    if (type != LAMINA_VALUE_IMAGE && type != LAMINA_VALUE_LAYER)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, property, type);
    lm_buf_u32(b, number);
    return OP_END(layer->conn);
}

int lamina_layer_set_layer(lamina_layer *layer, lamina_property property, const lamina_layer *value) {
    if (layer && value && value->conn != layer->conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (lamina_property_type(property) != LAMINA_VALUE_LAYER)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return lamina_layer_set_reference(layer, property, value ? value->number : 0);
}

int lamina_layer_set_contents(lamina_layer *layer, lamina_image *image) {
    if (layer && image && image->conn != layer->conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return lamina_layer_set_reference(layer, LAMINA_PROPERTY_CONTENTS, image ? image->number : 0);
}

int lamina_layer_set_bounds(lamina_layer *layer, double x, double y, double width, double height) {
    return lamina_layer_set_rect(layer, LAMINA_PROPERTY_BOUNDS, x, y, width, height);
}

int lamina_layer_set_position(lamina_layer *layer, double x, double y) {
    return lamina_layer_set_point(layer, LAMINA_PROPERTY_POSITION, x, y);
}

int lamina_layer_set_background_color(lamina_layer *layer, double red, double green, double blue, double alpha) {
    return lamina_layer_set_color(layer, LAMINA_PROPERTY_BACKGROUND_COLOR, red, green, blue, alpha);
}

int lamina_layer_set_corner_radius(lamina_layer *layer, double radius) {
    return lamina_layer_set_number(layer, LAMINA_PROPERTY_CORNER_RADIUS, radius);
}

int lamina_layer_set_opacity(lamina_layer *layer, double opacity) {
    return lamina_layer_set_number(layer, LAMINA_PROPERTY_OPACITY, opacity);
}

/* MARK: Paths */

lamina_path *lamina_path_new(void) { return calloc(1, sizeof(lamina_path)); }

void lamina_path_free(lamina_path *path) {
    if (!path)
        return;
    lm_buf_free(&path->elements);
    free(path);
}

static int path_element(lamina_path *path, uint32_t type, const double *points, size_t count) {
    if (!path || path->count == 65536)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    size_t mark = path->elements.length;
    lm_buf_u8(&path->elements, type);
    for (size_t i = 0; i < count; i++)
        lm_buf_f64(&path->elements, points[i]);
    if (path->elements.failed) {
        path->elements.failed = 0;
        path->elements.length = mark;
        return LAMINA_ERROR_NO_MEMORY;
    }
    path->count++;
    return LAMINA_OK;
}

int lamina_path_move_to(lamina_path *path, double x, double y) {
    double p[2] = {x, y};
    return path_element(path, 0, p, 2);
}

int lamina_path_line_to(lamina_path *path, double x, double y) {
    double p[2] = {x, y};
    return path_element(path, 1, p, 2);
}

int lamina_path_quad_curve_to(lamina_path *path, double cx, double cy, double x, double y) {
    double p[4] = {cx, cy, x, y};
    return path_element(path, 2, p, 4);
}

int lamina_path_curve_to(lamina_path *path, double c1x, double c1y, double c2x, double c2y, double x, double y) {
    double p[6] = {c1x, c1y, c2x, c2y, x, y};
    return path_element(path, 3, p, 6);
}

int lamina_path_close(lamina_path *path) { return path_element(path, 4, NULL, 0); }

/* MARK: Transactions */

int lamina_transaction_begin(lamina_connection *conn) {
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (lm_grow((void **)&conn->frames, &conn->frame_capacity, conn->frame_count, sizeof *conn->frames))
        return LAMINA_ERROR_NO_MEMORY;
    lm_frame *f = &conn->frames[conn->frame_count++];
    memset(f, 0, sizeof *f);
    f->disable_state = -1;
    return LAMINA_OK;
}

static lm_frame *innermost(lamina_connection *conn) {
    return conn && conn->frame_count ? &conn->frames[conn->frame_count - 1] : NULL;
}

int lamina_transaction_set_duration(lamina_connection *conn, double seconds) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->has_duration = 1;
    f->duration = seconds;
    return LAMINA_OK;
}

int lamina_transaction_set_timing_function(lamina_connection *conn, const char *name) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (!name) {
        f->timing_state = 1;
        return LAMINA_OK;
    }
    double t[4];
    if (lm_timing_named(name, t))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    f->timing_state = 2;
    memcpy(f->timing, t, sizeof t);
    return LAMINA_OK;
}

int lamina_transaction_set_timing_curve(lamina_connection *conn, double c1x, double c1y, double c2x, double c2y) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->timing_state = 2;
    f->timing[0] = c1x;
    f->timing[1] = c1y;
    f->timing[2] = c2x;
    f->timing[3] = c2y;
    return LAMINA_OK;
}

int lamina_transaction_set_disable_actions(lamina_connection *conn, int disable) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->disable_state = disable ? 1 : 0;
    return LAMINA_OK;
}

int lamina_transaction_set_completion(lamina_connection *conn, lamina_completion_callback callback, void *user) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (f->group) {
        for (size_t i = 0; i < conn->completion_count; i++)
            if (conn->completions[i].group == f->group) {
                conn->completions[i].callback = callback;
                conn->completions[i].user = user;
            }
        return LAMINA_OK;
    }
    if (lm_grow((void **)&conn->completions, &conn->completion_capacity, conn->completion_count,
                sizeof *conn->completions))
        return LAMINA_ERROR_NO_MEMORY;
    uint32_t group = conn->next_group;
    conn->next_group = group == UINT32_MAX ? 1 : group + 1;
    conn->completions[conn->completion_count++] = (lm_completion){group, callback, user};
    f->group = group;
    return LAMINA_OK;
}

int lamina_transaction_commit(lamina_connection *conn) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (f->group) {
        if (lm_grow((void **)&conn->closed_groups, &conn->closed_group_capacity, conn->closed_group_count,
                    sizeof *conn->closed_groups) == 0)
            conn->closed_groups[conn->closed_group_count++] = f->group;
    }
    conn->frame_count--;
    if (conn->frame_count == 0)
        return lamina_connection_commit(conn); /* (which reconnects, when that is on) */
    return LAMINA_OK;
}

/* MARK: Animations */

lamina_animation *lamina_animation_basic_new(const char *key_path) {
    if (!key_path || strlen(key_path) > LM_KEY_LIMIT)
        return NULL;
    lamina_animation *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    if (!(a->key_path = strdup(key_path))) {
        free(a);
        return NULL;
    }
    a->kind = 1;
    a->speed = 1;
    a->removed_on_completion = 1;
    return a;
}

lamina_animation *lamina_animation_spring_new(const char *key_path) {
    lamina_animation *a = lamina_animation_basic_new(key_path);
    if (a) {
        a->kind = 3;
        a->spring[0] = 1;
        a->spring[1] = 100;
        a->spring[2] = 10;
        a->spring[3] = 0;
    }
    return a;
}

int lamina_animation_set_spring(lamina_animation *a, double mass, double stiffness, double damping,
                                double initial_velocity) {
    if (!a || a->kind != 3)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    a->spring[0] = mass;
    a->spring[1] = stiffness;
    a->spring[2] = damping;
    a->spring[3] = initial_velocity;
    return LAMINA_OK;
}

lamina_animation *lamina_animation_transition_new(lamina_transition_type type, lamina_transition_subtype subtype) {
    if ((int)type < 0 || type > LAMINA_TRANSITION_REVEAL || (int)subtype < 0 || subtype > LAMINA_TRANSITION_SUBTYPE_FROM_BOTTOM)
        return NULL;
    lamina_animation *a = lamina_animation_basic_new("");
    if (a) {
        a->kind = 5;
        a->transition_type = (uint8_t)type;
        a->transition_subtype = (uint8_t)subtype;
        a->progress[0] = 0;
        a->progress[1] = 1;
    }
    return a;
}

int lamina_animation_set_transition_progress(lamina_animation *a, double start, double end) {
    if (!a || a->kind != 5)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    a->progress[0] = start;
    a->progress[1] = end;
    return LAMINA_OK;
}

void lamina_animation_free(lamina_animation *animation) {
    if (!animation)
        return;
    free(animation->key_path);
    lm_buf_free(&animation->values);
    lm_buf_free(&animation->path);
    free(animation->key_times);
    free(animation->timing_functions);
    for (int i = 0; i < 3; i++)
        free(animation->tcb[i]);
    for (size_t i = 0; i < animation->child_count; i++)
        lamina_animation_free(animation->children[i]); /* groups nest at most 8 deep */
    free(animation->children);
    free(animation);
}

static int copy_doubles(double **to, const double *from, size_t count) {
    *to = NULL;
    if (!count)
        return 0;
    if (!(*to = malloc(count * sizeof **to)))
        return -1;
    memcpy(*to, from, count * sizeof **to);
    return 0;
}

lamina_animation *lm_animation_copy(const lamina_animation *a) {
    lamina_animation *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *a;
    c->key_path = NULL;
    c->values = (lm_buf){0};
    c->path = (lm_buf){0};
    c->key_times = NULL;
    c->timing_functions = NULL;
    c->children = NULL;
    c->child_count = 0;
    for (int i = 0; i < 3; i++)
        c->tcb[i] = NULL;
    int failed = a->key_path && !(c->key_path = strdup(a->key_path));
    lm_buf_bytes(&c->values, a->values.data, a->values.length);
    lm_buf_bytes(&c->path, a->path.data, a->path.length);
    failed |= c->values.failed || c->path.failed;
    failed |= copy_doubles(&c->key_times, a->key_times, a->key_time_count);
    if (a->timing_function_count) {
        c->timing_functions = malloc(a->timing_function_count * sizeof *c->timing_functions);
        if (c->timing_functions)
            memcpy(c->timing_functions, a->timing_functions, a->timing_function_count * sizeof *c->timing_functions);
        else
            failed = 1;
    }
    for (int i = 0; i < 3; i++)
        failed |= copy_doubles(&c->tcb[i], a->tcb[i], a->tcb_count[i]);
    if (a->child_count) {
        c->children = calloc(a->child_count, sizeof *c->children);
        if (!c->children)
            failed = 1;
        for (size_t i = 0; c->children && i < a->child_count; i++) {
            if (!(c->children[i] = lm_animation_copy(a->children[i])))
                failed = 1;
            c->child_count = i + 1;
        }
    }
    if (failed) {
        lamina_animation_free(c);
        return NULL;
    }
    return c;
}

/* MARK: Keyframe animations and groups */

lamina_animation *lamina_animation_keyframe_new(const char *key_path) {
    lamina_animation *a = lamina_animation_basic_new(key_path);
    if (a)
        a->kind = 2;
    return a;
}

int lamina_animation_add_value(lamina_animation *a, lamina_value_type type, const double *v, size_t count) {
    static const size_t sizes[] = {0, 1, 2, 2, 4, 4, 16, 1};
    if (!a || a->kind != 2 || (int)type < LAMINA_VALUE_NUMBER || type > LAMINA_VALUE_BOOL || count != sizes[type] ||
        !v || a->value_count == UINT32_MAX)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    size_t mark = a->values.length;
    lm_buf_u8(&a->values, (uint32_t)type);
    if (type == LAMINA_VALUE_BOOL)
        lm_buf_u8(&a->values, v[0] != 0);
    else
        for (size_t i = 0; i < count; i++)
            lm_buf_f64(&a->values, v[i]);
    if (a->values.failed) {
        a->values.failed = 0;
        a->values.length = mark;
        return LAMINA_ERROR_NO_MEMORY;
    }
    a->value_count++;
    return LAMINA_OK;
}

int lamina_animation_add_number(lamina_animation *a, double value) {
    return lamina_animation_add_value(a, LAMINA_VALUE_NUMBER, &value, 1);
}

int lamina_animation_add_point(lamina_animation *a, double x, double y) {
    return lamina_animation_add_value(a, LAMINA_VALUE_POINT, (const double[]){x, y}, 2);
}

int lamina_animation_add_color(lamina_animation *a, double r, double g, double b, double al) {
    return lamina_animation_add_value(a, LAMINA_VALUE_COLOR, (const double[]){r, g, b, al}, 4);
}

int lamina_animation_set_keyframe_path(lamina_animation *a, const lamina_path *path) {
    if (!a || a->kind != 2)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (path && path->elements.failed)
        return LAMINA_ERROR_NO_MEMORY;
    lm_buf copy = {0};
    if (path) {
        lm_buf_bytes(&copy, path->elements.data, path->elements.length);
        if (copy.failed) {
            lm_buf_free(&copy);
            return LAMINA_ERROR_NO_MEMORY;
        }
    }
    lm_buf_free(&a->path);
    a->path = copy;
    a->path_count = path ? path->count : 0;
    a->has_path = path != NULL;
    return LAMINA_OK;
}

/* Replaces an optional array of doubles (NULL: absent). */
static int set_doubles(lamina_animation *a, double **slot, size_t *slot_count, int *present, const double *values,
                       size_t count) {
    if (!a || a->kind != 2 || (!values && count) || count > UINT32_MAX)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    double *copy = NULL;
    if (copy_doubles(&copy, values, values ? count : 0))
        return LAMINA_ERROR_NO_MEMORY;
    free(*slot);
    *slot = copy;
    *slot_count = values ? count : 0;
    *present = values != NULL;
    return LAMINA_OK;
}

int lamina_animation_set_key_times(lamina_animation *a, const double *times, size_t count) {
    return set_doubles(a, a ? &a->key_times : NULL, a ? &a->key_time_count : NULL, a ? &a->has_key_times : NULL, times, count);
}

int lamina_animation_set_tension_values(lamina_animation *a, const double *values, size_t count) {
    return set_doubles(a, a ? &a->tcb[0] : NULL, a ? &a->tcb_count[0] : NULL, a ? &a->has_tcb[0] : NULL, values, count);
}

int lamina_animation_set_continuity_values(lamina_animation *a, const double *values, size_t count) {
    return set_doubles(a, a ? &a->tcb[1] : NULL, a ? &a->tcb_count[1] : NULL, a ? &a->has_tcb[1] : NULL, values, count);
}

int lamina_animation_set_bias_values(lamina_animation *a, const double *values, size_t count) {
    return set_doubles(a, a ? &a->tcb[2] : NULL, a ? &a->tcb_count[2] : NULL, a ? &a->has_tcb[2] : NULL, values, count);
}

int lamina_animation_add_keyframe_timing_curve(lamina_animation *a, double c1x, double c1y, double c2x, double c2y) {
    if (!a || a->kind != 2 || !(c1x >= 0 && c1x <= 1 && c2x >= 0 && c2x <= 1) || !isfinite(c1y) || !isfinite(c2y))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    size_t capacity = a->timing_function_count;
    if (lm_grow((void **)&a->timing_functions, &capacity, a->timing_function_count, sizeof *a->timing_functions))
        return LAMINA_ERROR_NO_MEMORY;
    double *t = a->timing_functions[a->timing_function_count++];
    t[0] = c1x;
    t[1] = c1y;
    t[2] = c2x;
    t[3] = c2y;
    return LAMINA_OK;
}

int lamina_animation_add_keyframe_timing_function(lamina_animation *a, const char *name) {
    double c[4];
    if (!name || lm_timing_named(name, c))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return lamina_animation_add_keyframe_timing_curve(a, c[0], c[1], c[2], c[3]);
}

int lamina_animation_set_calculation_mode(lamina_animation *a, lamina_calculation_mode mode) {
    if (!a || a->kind != 2 || (int)mode < 0 || mode > LAMINA_CALCULATION_CUBIC_PACED)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    a->calculation_mode = (uint8_t)mode;
    return LAMINA_OK;
}

int lamina_animation_set_rotation_mode(lamina_animation *a, lamina_rotation_mode mode) {
    if (!a || a->kind != 2 || (int)mode < 0 || mode > LAMINA_ROTATION_AUTO_REVERSE)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    a->rotation_mode = (uint8_t)mode;
    return LAMINA_OK;
}

lamina_animation *lamina_animation_group_new(void) {
    lamina_animation *a = lamina_animation_basic_new("");
    if (a)
        a->kind = 4;
    return a;
}

/* How many groups enclose one another in `a` (0 for an animation that is not a group). */
static int group_levels(const lamina_animation *a) {
    if (a->kind != 4)
        return 0;
    int deepest = 0;
    for (size_t i = 0; i < a->child_count; i++) {
        int l = group_levels(a->children[i]); /* bounded: a group holds at most 8 levels */
        if (l > deepest)
            deepest = l;
    }
    return 1 + deepest;
}

int lamina_animation_group_add(lamina_animation *group, const lamina_animation *child) {
    if (!group || !child || group->kind != 4 || group == child || 1 + group_levels(child) > LM_MAX_GROUP_NESTING ||
        group->child_count >= UINT32_MAX)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_animation *copy = lm_animation_copy(child);
    if (!copy)
        return LAMINA_ERROR_NO_MEMORY;
    size_t capacity = group->child_count;
    if (lm_grow((void **)&group->children, &capacity, group->child_count, sizeof *group->children)) {
        lamina_animation_free(copy);
        return LAMINA_ERROR_NO_MEMORY;
    }
    group->children[group->child_count++] = copy;
    return LAMINA_OK;
}

#define ANIMATION_SETTER(name, field, type, expr)                                                                  \
    int lamina_animation_set_##name(lamina_animation *animation, type value) {                                     \
        if (!animation)                                                                                            \
            return LAMINA_ERROR_INVALID_ARGUMENT;                                                                  \
        animation->field = (expr);                                                                                 \
        return LAMINA_OK;                                                                                          \
    }

ANIMATION_SETTER(duration, duration, double, value)
ANIMATION_SETTER(begin_time, begin_time, double, value)
ANIMATION_SETTER(speed, speed, double, value)
ANIMATION_SETTER(time_offset, time_offset, double, value)
ANIMATION_SETTER(repeat_count, repeat_count, double, value)
ANIMATION_SETTER(repeat_duration, repeat_duration, double, value)
ANIMATION_SETTER(autoreverses, autoreverses, int, value != 0)
ANIMATION_SETTER(removed_on_completion, removed_on_completion, int, value != 0)
ANIMATION_SETTER(additive, additive, int, value != 0)
ANIMATION_SETTER(cumulative, cumulative, int, value != 0)

int lamina_animation_set_fill_mode(lamina_animation *animation, lamina_fill_mode mode) {
    if (!animation || (int)mode < 0 || mode > LAMINA_FILL_MODE_BOTH)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    animation->fill_mode = (uint8_t)mode;
    return LAMINA_OK;
}

int lamina_animation_set_value_function(lamina_animation *animation, lamina_value_function function) {
    if (!animation || (int)function < 0 || function > LAMINA_VALUE_FUNCTION_TRANSLATE_Z)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    animation->value_function = (uint8_t)function;
    return LAMINA_OK;
}

int lamina_animation_set_timing_function(lamina_animation *animation, const char *name) {
    if (!animation)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (!name) {
        animation->has_timing = 0;
        return LAMINA_OK;
    }
    double t[4];
    if (lm_timing_named(name, t))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    animation->has_timing = 1;
    memcpy(animation->timing, t, sizeof t);
    return LAMINA_OK;
}

int lamina_animation_set_timing_curve(lamina_animation *animation, double c1x, double c1y, double c2x, double c2y) {
    if (!animation)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    animation->has_timing = 1;
    animation->timing[0] = c1x;
    animation->timing[1] = c1y;
    animation->timing[2] = c2x;
    animation->timing[3] = c2y;
    return LAMINA_OK;
}

int lamina_animation_set_callback(lamina_animation *animation, lamina_event_callback callback, void *user) {
    if (!animation)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    animation->callback = callback;
    animation->user = user;
    return LAMINA_OK;
}

static int set_value(lamina_animation *a, lm_value *slot, uint8_t tag, double v0, double v1, double v2, double v3) {
    if (!a)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    slot->tag = tag;
    slot->v[0] = v0;
    slot->v[1] = v1;
    slot->v[2] = v2;
    slot->v[3] = v3;
    return LAMINA_OK;
}

int lamina_animation_set_from_number(lamina_animation *a, double value) {
    return set_value(a, a ? &a->from : NULL, LAMINA_VALUE_NUMBER, value, 0, 0, 0);
}
int lamina_animation_set_to_number(lamina_animation *a, double value) {
    return set_value(a, a ? &a->to : NULL, LAMINA_VALUE_NUMBER, value, 0, 0, 0);
}
int lamina_animation_set_by_number(lamina_animation *a, double value) {
    return set_value(a, a ? &a->by : NULL, LAMINA_VALUE_NUMBER, value, 0, 0, 0);
}
int lamina_animation_set_from_point(lamina_animation *a, double x, double y) {
    return set_value(a, a ? &a->from : NULL, LAMINA_VALUE_POINT, x, y, 0, 0);
}
int lamina_animation_set_to_point(lamina_animation *a, double x, double y) {
    return set_value(a, a ? &a->to : NULL, LAMINA_VALUE_POINT, x, y, 0, 0);
}
int lamina_animation_set_from_color(lamina_animation *a, double r, double g, double bl, double al) {
    return set_value(a, a ? &a->from : NULL, LAMINA_VALUE_COLOR, r, g, bl, al);
}
int lamina_animation_set_to_color(lamina_animation *a, double r, double g, double bl, double al) {
    return set_value(a, a ? &a->to : NULL, LAMINA_VALUE_COLOR, r, g, bl, al);
}

static void encode_value(lm_buf *b, const lm_value *v) {
    lm_buf_u8(b, v->tag);
    size_t n = v->tag == LAMINA_VALUE_NUMBER ? 1 : v->tag == LAMINA_VALUE_POINT ? 2 : v->tag == LAMINA_VALUE_COLOR ? 4 : 0;
    for (size_t i = 0; i < n; i++)
        lm_buf_f64(b, v->v[i]);
}

void lm_encode_animation(lm_buf *b, const lamina_animation *a) {
    lm_buf_u8(b, a->kind);
    lm_buf_f64(b, a->begin_time);
    lm_buf_f64(b, a->duration);
    lm_buf_f64(b, a->speed);
    lm_buf_f64(b, a->time_offset);
    lm_buf_f64(b, a->repeat_count);
    lm_buf_f64(b, a->repeat_duration);
    lm_buf_u8(b, a->autoreverses ? 1 : 0);
    lm_buf_u8(b, a->fill_mode);
    lm_buf_u8(b, a->has_timing ? 1 : 0);
    if (a->has_timing)
        for (int i = 0; i < 4; i++)
            lm_buf_f64(b, a->timing[i]);
    lm_buf_u8(b, a->removed_on_completion ? 1 : 0);
    if (a->kind == 4) { /* group: each animation in this layout (nesting is bounded by group_add) */
        lm_buf_u32(b, (uint32_t)a->child_count);
        for (size_t i = 0; i < a->child_count; i++)
            lm_encode_animation(b, a->children[i]);
        return;
    }
    if (a->kind == 2) { /* keyframe */
        lm_buf_string(b, a->key_path);
        lm_buf_u32(b, a->value_count);
        lm_buf_bytes(b, a->values.data, a->values.length);
        lm_buf_u8(b, a->has_path ? 1 : 0);
        if (a->has_path) {
            lm_buf_u32(b, a->path_count);
            lm_buf_bytes(b, a->path.data, a->path.length);
        }
        lm_buf_u8(b, a->has_key_times ? 1 : 0);
        if (a->has_key_times) {
            lm_buf_u32(b, (uint32_t)a->key_time_count);
            for (size_t i = 0; i < a->key_time_count; i++)
                lm_buf_f64(b, a->key_times[i]);
        }
        lm_buf_u8(b, a->timing_function_count ? 1 : 0);
        if (a->timing_function_count) {
            lm_buf_u32(b, (uint32_t)a->timing_function_count);
            for (size_t i = 0; i < a->timing_function_count; i++)
                for (int j = 0; j < 4; j++)
                    lm_buf_f64(b, a->timing_functions[i][j]);
        }
        lm_buf_u8(b, a->calculation_mode);
        lm_buf_u8(b, a->rotation_mode);
        for (int k = 0; k < 3; k++) {
            lm_buf_u8(b, a->has_tcb[k] ? 1 : 0);
            if (a->has_tcb[k]) {
                lm_buf_u32(b, (uint32_t)a->tcb_count[k]);
                for (size_t i = 0; i < a->tcb_count[k]; i++)
                    lm_buf_f64(b, a->tcb[k][i]);
            }
        }
        lm_buf_u8(b, a->additive ? 1 : 0);
        lm_buf_u8(b, a->cumulative ? 1 : 0);
        lm_buf_u8(b, a->value_function);
        return;
    }
    if (a->kind == 5) { /* transition */
        lm_buf_u8(b, a->transition_type);
        lm_buf_u8(b, a->transition_subtype);
        lm_buf_f64(b, a->progress[0]);
        lm_buf_f64(b, a->progress[1]);
        return;
    }
    lm_buf_string(b, a->key_path);
    encode_value(b, &a->from);
    encode_value(b, &a->to);
    encode_value(b, &a->by);
    lm_buf_u8(b, a->additive ? 1 : 0);
    lm_buf_u8(b, a->cumulative ? 1 : 0);
    lm_buf_u8(b, a->value_function);
    if (a->kind == 3) /* spring */
        for (int i = 0; i < 4; i++)
            lm_buf_f64(b, a->spring[i]);
}

static int set_action(lamina_layer *layer, uint32_t dictionary, const char *key, lamina_action action,
                      const lamina_animation *animation) {
    if (!layer || !key || strlen(key) > LM_KEY_LIMIT || (int)action < 0 || action > LAMINA_ACTION_ANIMATION ||
        (action == LAMINA_ACTION_ANIMATION) != (animation != NULL))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(layer->conn);
    lm_buf_u8(b, LM_OP_SET_ACTION);
    lm_buf_u32(b, layer->number);
    lm_buf_u8(b, dictionary);
    lm_buf_string(b, key);
    lm_buf_u8(b, (uint32_t)action);
    if (animation)
        lm_encode_animation(b, animation);
    return OP_END(layer->conn);
}

int lamina_layer_set_action(lamina_layer *layer, const char *key, lamina_action action, const lamina_animation *animation) {
    return set_action(layer, 0, key, action, animation);
}

int lamina_layer_set_style_action(lamina_layer *layer, const char *key, lamina_action action,
                                  const lamina_animation *animation) {
    return set_action(layer, 1, key, action, animation);
}

int lamina_layer_add_animation(lamina_layer *layer, const lamina_animation *animation, const char *key) {
    if (!layer || !animation || (key && strlen(key) > LM_KEY_LIMIT))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = layer->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (lm_grow((void **)&conn->tags, &conn->tag_capacity, conn->tag_count, sizeof *conn->tags))
        return LAMINA_ERROR_NO_MEMORY;
    char *key_copy = strdup(key ? key : "");
    lamina_animation *copy = lm_animation_copy(animation);
    if (!key_copy || !copy) {
        free(key_copy);
        lamina_animation_free(copy);
        return LAMINA_ERROR_NO_MEMORY;
    }
    /* Where it begins in the layer's time, for a replay after a reconnection. */
    double begin = animation->begin_time != 0 ? animation->begin_time : lm_layer_time(conn, layer, lm_now(conn));
    uint32_t tag = conn->next_tag;
    OP_BEGIN(conn);
    lm_buf_u8(b, LM_OP_ADD_ANIMATION);
    lm_buf_u32(b, layer->number);
    lm_buf_string(b, key_copy);
    lm_buf_u32(b, tag);
    lm_encode_animation(b, animation);
    /* A duration of 0 takes the transaction's (laminad's rule): the replay runs under another. */
    if (copy->duration == 0)
        copy->duration = conn->current.duration;
    s = OP_END(conn);
    if (s) {
        free(key_copy);
        lamina_animation_free(copy);
        return s;
    }
    conn->next_tag = tag == UINT32_MAX ? 1 : tag + 1;
    conn->tags[conn->tag_count++] =
        (lm_tag){tag, layer->number, key_copy, animation->callback, animation->user, copy, begin, 0, 0, 0};
    return LAMINA_OK;
}

int lamina_layer_remove_animation(lamina_layer *layer, const char *key) {
    if (!layer || (key && strlen(key) > LM_KEY_LIMIT))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(layer->conn);
    lm_buf_u8(b, LM_OP_REMOVE_ANIMATION);
    lm_buf_u32(b, layer->number);
    lm_buf_string(b, key);
    return OP_END(layer->conn);
}

int lamina_layer_remove_all_animations(lamina_layer *layer) {
    if (!layer)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    OP_BEGIN(layer->conn);
    lm_buf_u8(b, LM_OP_REMOVE_ALL_ANIMATIONS);
    lm_buf_u32(b, layer->number);
    return OP_END(layer->conn);
}

/* MARK: Images */

static int write_rows(int fd, uint32_t image_width, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                      const uint8_t *pixels, size_t stride) {
    size_t row = (size_t)width * 4;
    for (uint32_t r = 0; r < height; r++) {
        const uint8_t *p = pixels + (size_t)r * stride;
        off_t offset = ((off_t)(y + r) * image_width + x) * 4;
        size_t done = 0;
        while (done < row) {
            ssize_t n = pwrite(fd, p + done, row - done, offset + (off_t)done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            done += (size_t)n;
        }
    }
    return 0;
}

lamina_image *lamina_image_new(lamina_connection *conn, uint32_t width, uint32_t height, const void *pixels,
                               size_t stride, lamina_pixel_format format, lamina_alpha_mode alpha, char **error) {
    if (lm_check_recordable(conn)) {
        lm_set_error(error, "%s", conn ? lamina_connection_error(conn) : "no connection");
        return NULL;
    }
    if (width < 1 || height < 1 || width > LM_MAX_IMAGE_DIMENSION || height > LM_MAX_IMAGE_DIMENSION || !pixels ||
        (stride && stride < (size_t)width * 4) || (format != LAMINA_PIXEL_FORMAT_BGRA && format != LAMINA_PIXEL_FORMAT_RGBA) ||
        (alpha != LAMINA_ALPHA_PREMULTIPLIED && alpha != LAMINA_ALPHA_STRAIGHT)) {
        lm_set_error(error, "an image needs a width and height from 1 to %u, pixels, a stride of at least width x 4, "
                            "a known pixel format and alpha mode", LM_MAX_IMAGE_DIMENSION);
        return NULL;
    }
    if (stride == 0)
        stride = (size_t)width * 4;
    uint32_t number = conn->next_image;
    if (number == UINT32_MAX || lm_grow((void **)&conn->fds, &conn->fd_capacity, conn->fd_count, sizeof *conn->fds)) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    if (number >= conn->image_capacity) {
        size_t capacity = conn->image_capacity ? conn->image_capacity * 2 : 16;
        while (capacity <= number)
            capacity *= 2;
        lamina_image **images = realloc(conn->images, capacity * sizeof *images);
        if (!images) {
            lm_set_error(error, "out of memory");
            return NULL;
        }
        memset(images + conn->image_capacity, 0, (capacity - conn->image_capacity) * sizeof *images);
        conn->images = images;
        conn->image_capacity = capacity;
    }
    lamina_image *image = calloc(1, sizeof *image);
    if (!image) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    size_t size = (size_t)width * height * 4;
    int fd = memfd_create("lamina-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        lm_set_error(error, "memfd_create failed: %s", strerror(errno));
        free(image);
        return NULL;
    }
    if (ftruncate(fd, (off_t)size) != 0 || write_rows(fd, width, 0, 0, width, height, pixels, stride) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        lm_set_error(error, "cannot fill the image's memory file: %s", strerror(errno));
        close(fd);
        free(image);
        return NULL;
    }
    /* The commit carries its own descriptor, so the image may go before it is sent. */
    int sent = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (sent < 0) {
        lm_set_error(error, "cannot duplicate the image's descriptor: %s", strerror(errno));
        close(fd);
        free(image);
        return NULL;
    }
    size_t mark = conn->image_ops.length;
    lm_buf *b = &conn->image_ops;
    lm_buf_u8(b, LM_OP_CREATE_IMAGE);
    lm_buf_u32(b, number);
    lm_buf_u32(b, width);
    lm_buf_u32(b, height);
    lm_buf_u32(b, width * 4);
    lm_buf_u8(b, (uint32_t)format);
    lm_buf_u8(b, (uint32_t)alpha);
    lm_buf_u64(b, 0);
    if (lm_op_end(conn, b, &conn->image_op_count, mark)) {
        lm_set_error(error, "out of memory");
        close(sent);
        close(fd);
        free(image);
        return NULL;
    }
    if (conn->fd >= 0)
        conn->fds[conn->fd_count++] = sent;
    else
        close(sent); /* laminad is away: the replay sends the memory file itself */
    image->conn = conn;
    image->number = number;
    image->width = width;
    image->height = height;
    image->fd = fd;
    image->format = (uint8_t)format;
    image->alpha = (uint8_t)alpha;
    conn->images[number] = image;
    conn->next_image++;
    return image;
}

uint32_t lamina_image_number(const lamina_image *image) { return image ? image->number : 0; }

int lamina_image_update(lamina_image *image, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                        const void *pixels, size_t stride) {
    if (!image || !pixels || width == 0 || height == 0 || x >= image->width || y >= image->height ||
        width > image->width - x || height > image->height - y || (stride && stride < (size_t)width * 4))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = image->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (write_rows(image->fd, image->width, x, y, width, height, pixels, stride ? stride : (size_t)width * 4))
        return LAMINA_ERROR_IO;
    size_t mark = conn->image_ops.length;
    lm_buf *b = &conn->image_ops;
    lm_buf_u8(b, LM_OP_UPDATE_IMAGE);
    lm_buf_u32(b, image->number);
    lm_buf_u32(b, x);
    lm_buf_u32(b, y);
    lm_buf_u32(b, width);
    lm_buf_u32(b, height);
    return lm_op_end(conn, b, &conn->image_op_count, mark);
}

int lamina_image_destroy(lamina_image *image) {
    if (!image)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = image->conn;
    if (lm_check_recordable(conn) == LAMINA_OK) {
        size_t mark = conn->tail_ops.length;
        lm_buf_u8(&conn->tail_ops, LM_OP_DESTROY_IMAGE);
        lm_buf_u32(&conn->tail_ops, image->number);
        int s = lm_op_end(conn, &conn->tail_ops, &conn->tail_op_count, mark);
        if (s)
            return s;
    }
    conn->images[image->number] = NULL;
    close(image->fd);
    free(image);
    return LAMINA_OK;
}
