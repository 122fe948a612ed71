/* Layers, property values, paths, transactions, explicit animations and images. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gestures.h"

#include "animation.h"
#include "model.h"
#include "stream.h"
#include "messages.h"
#include "pending.h"

#define OP_BEGIN(conn)                                                                                             \
    size_t mark_ = lm_op_begin(conn);                                                                              \
    if (mark_ == (size_t)-1)                                                                                       \
        return lm_check_recordable(conn) ? lm_check_recordable(conn) : LAMINA_ERROR_NO_MEMORY;                     \
    lm_buf *b = &(conn)->ops
#define OP_END(conn) lm_op_end(conn, &(conn)->ops, &(conn)->op_count, mark_)

/* MARK: Layers */

static lamina_layer *layer_create(lamina_connection *conn, int kind) {
    if (lm_check_recordable(conn) || kind < 0 || kind > LAMINA_LAYER_KIND_TILED || conn->next_layer == UINT32_MAX)
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
    lm_gestures_layer_gone(conn, layer);
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

int lamina_layer_set_emitter_cells(lamina_layer *layer, const lamina_emitter_cell *const *cells, size_t count) {
    if ((count && !cells) || count > 64)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++)
        if (!cells[i])
            return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, LAMINA_PROPERTY_EMITTER_CELLS, LAMINA_VALUE_EMITTER_CELLS);
    lm_emitter_cells(b, cells, count);
    return OP_END(layer->conn);
}

int lamina_layer_set_constraints(lamina_layer *layer, const lamina_constraint *constraints, size_t count) {
    if ((count && !constraints) || count > 16)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++) {
        const lamina_constraint *c = &constraints[i];
        if ((int)c->attribute < 0 || c->attribute > LAMINA_CONSTRAINT_HEIGHT || (int)c->source_attribute < 0 ||
            c->source_attribute > LAMINA_CONSTRAINT_HEIGHT || !isfinite(c->scale) || !isfinite(c->offset) ||
            (c->relative_to && strlen(c->relative_to) > 65536))
            return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    SET_BEGIN(layer, LAMINA_PROPERTY_CONSTRAINTS, LAMINA_VALUE_CONSTRAINT_LIST);
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const lamina_constraint *c = &constraints[i];
        lm_buf_u8(b, (uint8_t)c->attribute);
        lm_buf_u8(b, (uint8_t)c->source_attribute);
        lm_buf_string(b, c->relative_to ? c->relative_to : "superlayer");
        lm_buf_f64(b, c->scale);
        lm_buf_f64(b, c->offset);
    }
    return OP_END(layer->conn);
}

/* A filter list for `property` (filters or backgroundFilters). */
static int set_filter_list(lamina_layer *layer, lamina_property property, const lamina_filter *filters, size_t count) {
    if ((count && !filters) || count > 8)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++) {
        const lamina_filter *f = &filters[i];
        size_t expected = f->type == LAMINA_FILTER_COLOR_MATRIX ? 20 : f->type == LAMINA_FILTER_INVERT ? 0 : 1;
        if (f->type < LAMINA_FILTER_GAUSSIAN_BLUR || f->type > LAMINA_FILTER_HUE_ROTATE || f->value_count != expected ||
            (expected && !f->values) || (f->name && strlen(f->name) > 64))
            return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    SET_BEGIN(layer, property, LAMINA_VALUE_FILTER_LIST);
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        lm_buf_string(b, filters[i].name ? filters[i].name : "");
        lm_buf_u8(b, (uint32_t)filters[i].type);
        lm_buf_u8(b, (uint32_t)filters[i].value_count);
        for (size_t k = 0; k < filters[i].value_count; k++)
            lm_buf_f64(b, filters[i].values[k]);
    }
    return OP_END(layer->conn);
}

int lamina_layer_set_filters(lamina_layer *layer, const lamina_filter *filters, size_t count) {
    return set_filter_list(layer, LAMINA_PROPERTY_FILTERS, filters, count);
}

int lamina_layer_set_background_filters(lamina_layer *layer, const lamina_filter *filters, size_t count) {
    return set_filter_list(layer, LAMINA_PROPERTY_BACKGROUND_FILTERS, filters, count);
}

int lamina_layer_set_drawing(lamina_layer *layer, const lamina_drawing *drawing) {
    if (drawing && (drawing->failed || drawing->buf.failed || drawing->count > UINT32_MAX))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    SET_BEGIN(layer, LAMINA_PROPERTY_DRAWING, LAMINA_VALUE_DRAWING);
    lm_buf_u32(b, drawing ? (uint32_t)drawing->count : 0);
    if (drawing && drawing->buf.length)
        lm_buf_bytes(b, drawing->buf.data, drawing->buf.length);
    return OP_END(layer->conn);
}

static int text_run_color_ok(const double *c) {
    for (int k = 0; k < 4; k++)
        if (!(c[k] >= 0 && c[k] <= 1))
            return 0;
    return 1;
}

int lamina_layer_set_attributed_string(lamina_layer *layer, const lamina_text_run *runs, size_t count) {
    if ((count && !runs) || count > 256)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++) {
        const lamina_text_run *r = &runs[i];
        if (!r->text)
            return LAMINA_ERROR_INVALID_ARGUMENT;
        bytes += strlen(r->text);
        double n[4] = {r->font_size, r->weight, r->kerning, r->baseline_offset};
        for (int k = 0; k < 4; k++)
            if (!isfinite(n[k]))
                return LAMINA_ERROR_INVALID_ARGUMENT;
        if (bytes > 65536 || (r->font && strlen(r->font) > 256) || r->font_size < 0 || r->font_size > 10000 ||
            !(r->weight == 0 || (r->weight >= 1 && r->weight <= 1000)) || fabs(r->kerning) > 10000 ||
            fabs(r->baseline_offset) > 10000 || (r->has_color && !text_run_color_ok(r->color)) ||
            (r->has_background_color && !text_run_color_ok(r->background_color)))
            return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    SET_BEGIN(layer, LAMINA_PROPERTY_ATTRIBUTED_STRING, LAMINA_VALUE_ATTRIBUTED_STRING);
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count; i++) {
        const lamina_text_run *r = &runs[i];
        lm_buf_string(b, r->text);
        lm_buf_string(b, r->font ? r->font : "");
        lm_buf_f64(b, r->font_size);
        lm_buf_f64(b, r->weight);
        lm_buf_u8(b, (uint32_t)((r->italic ? 1 : 0) | (r->underline ? 2 : 0) | (r->strikethrough ? 4 : 0) |
                                (r->has_color ? 8 : 0) | (r->has_background_color ? 16 : 0)));
        if (r->has_color)
            for (int k = 0; k < 4; k++)
                lm_buf_f64(b, r->color[k]);
        if (r->has_background_color)
            for (int k = 0; k < 4; k++)
                lm_buf_f64(b, r->background_color[k]);
        lm_buf_f64(b, r->kerning);
        lm_buf_f64(b, r->baseline_offset);
    }
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
    int s = lm_layer_stop_showing_app(layer);
    return s ? s : lamina_layer_set_reference(layer, LAMINA_PROPERTY_CONTENTS, image ? image->number : 0);
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

int lamina_layer_set_compositing_filter(lamina_layer *layer, const char *blend_mode) {
    /* NULL goes as "", the wire's nil (lm_buf_string). */
    return lamina_layer_set_string(layer, LAMINA_PROPERTY_COMPOSITING_FILTER, blend_mode);
}

int lamina_layer_set_corner_curve(lamina_layer *layer, const char *curve) {
    if (!curve)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return lamina_layer_set_string(layer, LAMINA_PROPERTY_CORNER_CURVE, curve);
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
