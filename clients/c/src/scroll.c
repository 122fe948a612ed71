/* Scroll layers (CAScrollLayer), public calls beside layer.c's: scroll_to and scroll_to_rect from
 * the model's bounds and scroll mode, and the bounds read back with the origin laminad reported
 * for the scrolls it drives (kept by the model, model.c's lm_scrolled). */
#include <string.h>

#include "model.h"

static double get_f64(const uint8_t *p) {
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | p[i];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int lamina_layer_get_bounds(const lamina_layer *layer, double bounds[4]) {
    if (!layer || !bounds)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    size_t n = 0;
    const uint8_t *v = lm_model_value(layer, LAMINA_PROPERTY_BOUNDS, &n);
    if (v && n == 32) {
        for (int i = 0; i < 4; i++)
            bounds[i] = get_f64(v + 8 * i);
    } else if (layer->number == 0) {
        bounds[0] = bounds[1] = 0;
        bounds[2] = layer->conn->display_width;
        bounds[3] = layer->conn->display_height;
    } else {
        memset(bounds, 0, 4 * sizeof *bounds);
    }
    if (layer->scrolled) {
        bounds[0] = layer->scroll_x;
        bounds[1] = layer->scroll_y;
    }
    return LAMINA_OK;
}

/* The axes the layer's scroll mode moves: bit 0 x, bit 1 y ("both", the default: both). */
static int scroll_axes(const lamina_layer *layer) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(layer, LAMINA_PROPERTY_SCROLL_MODE, &n);
    if (!v || n < 4 || lm_get_u32(v) != n - 4)
        return 3;
    const char *s = (const char *)v + 4;
    size_t length = n - 4;
    if (length == 4 && memcmp(s, "none", 4) == 0)
        return 0;
    if (length == 10 && memcmp(s, "vertically", 10) == 0)
        return 2;
    if (length == 12 && memcmp(s, "horizontally", 12) == 0)
        return 1;
    return 3;
}

int lamina_layer_scroll_to(lamina_layer *layer, double x, double y) {
    double b[4];
    int status = lamina_layer_get_bounds(layer, b);
    if (status)
        return status;
    int axes = scroll_axes(layer);
    double nx = axes & 1 ? x : b[0], ny = axes & 2 ? y : b[1];
    if (nx == b[0] && ny == b[1])
        return LAMINA_OK;
    return lamina_layer_set_bounds(layer, nx, ny, b[2], b[3]);
}

/* scrollToRect along one axis: stays where the rectangle is in view, else brings its near or far edge in. */
static double axis(double origin, double length, double lo, double hi) {
    if (lo < origin || hi - lo > length)
        return lo;
    if (hi > origin + length)
        return hi - length;
    return origin;
}

int lamina_layer_scroll_to_rect(lamina_layer *layer, double x, double y, double width, double height) {
    double b[4];
    int status = lamina_layer_get_bounds(layer, b);
    if (status)
        return status;
    return lamina_layer_scroll_to(layer, axis(b[0], b[2], x, x + width), axis(b[1], b[3], y, y + height));
}

/* The nearest scroll layer above `layer` (its superlayer, or theirs), or NULL. Bounded by the
 * model's depth: a parent chain is a tree, never a cycle. */
static lamina_layer *enclosing_scroll_layer(const lamina_layer *layer) {
    const lamina_layer *l = layer;
    while (l && l->parent != LM_NO_PARENT) {
        l = lm_layer_at(layer->conn, l->parent);
        if (l && l->kind == LAMINA_LAYER_KIND_SCROLL)
            return (lamina_layer *)l;
    }
    return NULL;
}

int lamina_layer_scroll_point(lamina_layer *layer, double x, double y) {
    if (!layer)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_layer *s = enclosing_scroll_layer(layer);
    if (!s)
        return LAMINA_OK;
    double p[2];
    int status = lamina_layer_convert_point(s, x, y, layer, LAMINA_CONVERT_FROM, p);
    if (status)
        return status;
    if (p[0] != p[0] || p[1] != p[1])
        return LAMINA_OK; /* the point does not map (a layer seen edge-on) */
    return lamina_layer_scroll_to(s, p[0], p[1]);
}

int lamina_layer_scroll_rect_to_visible(lamina_layer *layer, double x, double y, double width, double height) {
    if (!layer)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_layer *s = enclosing_scroll_layer(layer);
    if (!s)
        return LAMINA_OK;
    const double rect[4] = {x, y, width, height};
    double r[4];
    int status = lamina_layer_convert_rect(s, rect, layer, LAMINA_CONVERT_FROM, r);
    if (status)
        return status;
    if (r[0] != r[0] || r[1] != r[1] || r[2] != r[2] || r[3] != r[3])
        return LAMINA_OK;
    return lamina_layer_scroll_to_rect(s, r[0], r[1], r[2], r[3]);
}

int lamina_layer_visible_rect(lamina_layer *layer, double out[4]) {
    if (!layer || !out)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    double b[4];
    lamina_layer_get_bounds(layer, b);
    lamina_layer *s = enclosing_scroll_layer(layer);
    if (!s) {
        memcpy(out, b, sizeof b);
        return LAMINA_OK;
    }
    double sb[4], shown[4];
    lamina_layer_get_bounds(s, sb);
    int status = lamina_layer_convert_rect(layer, sb, s, LAMINA_CONVERT_FROM, shown);
    if (status)
        return status;
    double x0 = b[0] > shown[0] ? b[0] : shown[0], y0 = b[1] > shown[1] ? b[1] : shown[1];
    double bx1 = b[0] + b[2], by1 = b[1] + b[3], sx1 = shown[0] + shown[2], sy1 = shown[1] + shown[3];
    double x1 = bx1 < sx1 ? bx1 : sx1, y1 = by1 < sy1 ? by1 : sy1;
    if (!(x1 > x0) || !(y1 > y0)) {
        /* None of it shows: a zero size at the nearest point of the bounds, as the Swift client. */
        out[0] = x0 > b[0] ? x0 : b[0];
        out[1] = y0 > b[1] ? y0 : b[1];
        out[2] = out[3] = 0;
        return LAMINA_OK;
    }
    out[0] = x0;
    out[1] = y0;
    out[2] = x1 - x0;
    out[3] = y1 - y0;
    return LAMINA_OK;
}
