/* Drawings (protocol 1.7): a lamina_drawing records CGContext-style commands in their wire
 * layout (u8 opcode, u16 number count, the f64s, the op's strings); lamina_layer_set_drawing()
 * (layer.c) sends them. laminad checks budgets and ranges and refuses a bad drawing by command. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_LIST 64

lamina_drawing *lamina_drawing_new(void) { return calloc(1, sizeof(lamina_drawing)); }

void lamina_drawing_free(lamina_drawing *d) {
    if (!d)
        return;
    lm_buf_free(&d->buf);
    free(d);
}

void lamina_drawing_clear(lamina_drawing *d) {
    if (!d)
        return;
    d->buf.length = 0;
    d->buf.failed = 0;
    d->count = 0;
    d->failed = 0;
}

size_t lamina_drawing_count(const lamina_drawing *d) { return d ? d->count : 0; }

int lamina_draw_command(lamina_drawing *d, lamina_draw_op op, const double *numbers, size_t count,
                        const char *const *strings, size_t string_count) {
    if (!d || d->failed)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int expected = lm_draw_string_count((uint32_t)op);
    if (expected < 0 || (size_t)expected != string_count || count > 0xFFFF || (count && !numbers)) {
        d->failed = 1;
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    for (size_t i = 0; i < string_count; i++)
        if (!strings || !strings[i]) {
            d->failed = 1;
            return LAMINA_ERROR_INVALID_ARGUMENT;
        }
    lm_buf_u8(&d->buf, (uint32_t)op);
    lm_buf_u16(&d->buf, (uint32_t)count);
    for (size_t i = 0; i < count; i++)
        lm_buf_f64(&d->buf, numbers[i]);
    for (size_t i = 0; i < string_count; i++)
        lm_buf_string(&d->buf, strings[i]);
    if (d->buf.failed) {
        d->failed = 1;
        return LAMINA_ERROR_NO_MEMORY;
    }
    d->count++;
    return 0;
}

#define N(...) (const double[]){__VA_ARGS__}, sizeof((const double[]){__VA_ARGS__}) / sizeof(double)
#define CMD(op, ...) lamina_draw_command(d, op, N(__VA_ARGS__), NULL, 0)
#define BARE(op) lamina_draw_command(d, op, NULL, 0, NULL, 0)

/* The index of `name` in `names` (NULL: the first), or -1. */
static int index_of(const char *name, const char *const *names, int count) {
    if (!name)
        return 0;
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static int named(lamina_drawing *d, lamina_draw_op op, const char *name, const char *const *names, int count) {
    int i = index_of(name, names, count);
    if (i < 0) {
        if (d)
            d->failed = 1;
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    return CMD(op, (double)i);
}

static const char *const fill_rules[] = {"non-zero", "even-odd"};
static const char *const caps[] = {"butt", "round", "square"};
static const char *const joins[] = {"miter", "round", "bevel"};
static const char *const blend_modes[] = {
    "normal", "multiply", "screen", "overlay", "darken", "lighten", "colorDodge", "colorBurn", "softLight",
    "hardLight", "difference", "exclusion", "hue", "saturation", "color", "luminosity", "clear", "copy",
    "sourceIn", "sourceOut", "sourceAtop", "destinationOver", "destinationIn", "destinationOut",
    "destinationAtop", "xor", "plusLighter"};

int lamina_draw_save_gstate(lamina_drawing *d) { return BARE(LAMINA_DRAW_SAVE_GSTATE); }
int lamina_draw_restore_gstate(lamina_drawing *d) { return BARE(LAMINA_DRAW_RESTORE_GSTATE); }
int lamina_draw_translate_by(lamina_drawing *d, double x, double y) { return CMD(LAMINA_DRAW_TRANSLATE_BY, x, y); }
int lamina_draw_scale_by(lamina_drawing *d, double x, double y) { return CMD(LAMINA_DRAW_SCALE_BY, x, y); }
int lamina_draw_rotate_by(lamina_drawing *d, double angle) { return CMD(LAMINA_DRAW_ROTATE_BY, angle); }
int lamina_draw_concatenate(lamina_drawing *d, double a, double b, double c, double dd, double tx, double ty) {
    return CMD(LAMINA_DRAW_CONCATENATE, a, b, c, dd, tx, ty);
}
int lamina_draw_begin_path(lamina_drawing *d) { return BARE(LAMINA_DRAW_BEGIN_PATH); }
int lamina_draw_move(lamina_drawing *d, double x, double y) { return CMD(LAMINA_DRAW_MOVE, x, y); }
int lamina_draw_add_line(lamina_drawing *d, double x, double y) { return CMD(LAMINA_DRAW_ADD_LINE, x, y); }
int lamina_draw_add_quad_curve(lamina_drawing *d, double x, double y, double cx, double cy) {
    return CMD(LAMINA_DRAW_ADD_QUAD_CURVE, x, y, cx, cy);
}
int lamina_draw_add_curve(lamina_drawing *d, double x, double y, double c1x, double c1y, double c2x, double c2y) {
    return CMD(LAMINA_DRAW_ADD_CURVE, x, y, c1x, c1y, c2x, c2y);
}
int lamina_draw_add_arc(lamina_drawing *d, double cx, double cy, double radius, double start_angle, double end_angle,
                        int clockwise) {
    return CMD(LAMINA_DRAW_ADD_ARC, cx, cy, radius, start_angle, end_angle, clockwise ? 1.0 : 0.0);
}
int lamina_draw_add_rect(lamina_drawing *d, double x, double y, double w, double h) { return CMD(LAMINA_DRAW_ADD_RECT, x, y, w, h); }
int lamina_draw_add_rounded_rect(lamina_drawing *d, double x, double y, double w, double h, double corner_width,
                                 double corner_height) {
    return CMD(LAMINA_DRAW_ADD_ROUNDED_RECT, x, y, w, h, corner_width, corner_height);
}
int lamina_draw_add_ellipse(lamina_drawing *d, double x, double y, double w, double h) {
    return CMD(LAMINA_DRAW_ADD_ELLIPSE, x, y, w, h);
}
int lamina_draw_close_path(lamina_drawing *d) { return BARE(LAMINA_DRAW_CLOSE_PATH); }
int lamina_draw_add_path(lamina_drawing *d, const char *svg) {
    const char *strings[] = {svg};
    return lamina_draw_command(d, LAMINA_DRAW_ADD_PATH, NULL, 0, strings, 1);
}
int lamina_draw_fill_path(lamina_drawing *d, const char *rule) { return named(d, LAMINA_DRAW_FILL_PATH, rule, fill_rules, 2); }
int lamina_draw_stroke_path(lamina_drawing *d) { return BARE(LAMINA_DRAW_STROKE_PATH); }
int lamina_draw_clip(lamina_drawing *d, const char *rule) { return named(d, LAMINA_DRAW_CLIP, rule, fill_rules, 2); }
int lamina_draw_fill_rect(lamina_drawing *d, double x, double y, double w, double h) { return CMD(LAMINA_DRAW_FILL_RECT, x, y, w, h); }
int lamina_draw_stroke_rect(lamina_drawing *d, double x, double y, double w, double h) {
    return CMD(LAMINA_DRAW_STROKE_RECT, x, y, w, h);
}
int lamina_draw_clear_rect(lamina_drawing *d, double x, double y, double w, double h) {
    return CMD(LAMINA_DRAW_CLEAR_RECT, x, y, w, h);
}
int lamina_draw_fill_ellipse(lamina_drawing *d, double x, double y, double w, double h) {
    return CMD(LAMINA_DRAW_FILL_ELLIPSE, x, y, w, h);
}
int lamina_draw_stroke_ellipse(lamina_drawing *d, double x, double y, double w, double h) {
    return CMD(LAMINA_DRAW_STROKE_ELLIPSE, x, y, w, h);
}
int lamina_draw_set_fill_color(lamina_drawing *d, double red, double green, double blue, double alpha) {
    return CMD(LAMINA_DRAW_SET_FILL_COLOR, red, green, blue, alpha);
}
int lamina_draw_set_stroke_color(lamina_drawing *d, double red, double green, double blue, double alpha) {
    return CMD(LAMINA_DRAW_SET_STROKE_COLOR, red, green, blue, alpha);
}
int lamina_draw_set_line_width(lamina_drawing *d, double width) { return CMD(LAMINA_DRAW_SET_LINE_WIDTH, width); }
int lamina_draw_set_line_cap(lamina_drawing *d, const char *cap) { return named(d, LAMINA_DRAW_SET_LINE_CAP, cap, caps, 3); }
int lamina_draw_set_line_join(lamina_drawing *d, const char *join) { return named(d, LAMINA_DRAW_SET_LINE_JOIN, join, joins, 3); }
int lamina_draw_set_miter_limit(lamina_drawing *d, double limit) { return CMD(LAMINA_DRAW_SET_MITER_LIMIT, limit); }
int lamina_draw_set_line_dash(lamina_drawing *d, double phase, const double *lengths, size_t count) {
    if (count > MAX_LIST || (count && !lengths)) {
        if (d)
            d->failed = 1;
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    double numbers[MAX_LIST + 1];
    numbers[0] = phase;
    for (size_t i = 0; i < count; i++)
        numbers[i + 1] = lengths[i];
    return lamina_draw_command(d, LAMINA_DRAW_SET_LINE_DASH, numbers, count + 1, NULL, 0);
}
int lamina_draw_set_alpha(lamina_drawing *d, double alpha) { return CMD(LAMINA_DRAW_SET_ALPHA, alpha); }
int lamina_draw_set_blend_mode(lamina_drawing *d, const char *mode) {
    return named(d, LAMINA_DRAW_SET_BLEND_MODE, mode ? mode : "normal", blend_modes,
                 (int)(sizeof blend_modes / sizeof *blend_modes));
}
int lamina_draw_set_shadow(lamina_drawing *d, double dx, double dy, double blur, double red, double green, double blue,
                           double alpha) {
    return CMD(LAMINA_DRAW_SET_SHADOW, dx, dy, blur, red, green, blue, alpha);
}

static int gradient(lamina_drawing *d, lamina_draw_op op, const double *head, size_t head_count,
                    const lamina_gradient_stop *stops, size_t count) {
    if (count > MAX_LIST || (count && !stops)) {
        if (d)
            d->failed = 1;
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    double numbers[8 + MAX_LIST * 5];
    size_t n = 0;
    for (size_t i = 0; i < head_count; i++)
        numbers[n++] = head[i];
    for (size_t i = 0; i < count; i++) {
        numbers[n++] = stops[i].location;
        numbers[n++] = stops[i].red;
        numbers[n++] = stops[i].green;
        numbers[n++] = stops[i].blue;
        numbers[n++] = stops[i].alpha;
    }
    return lamina_draw_command(d, op, numbers, n, NULL, 0);
}

int lamina_draw_linear_gradient(lamina_drawing *d, const lamina_gradient_stop *stops, size_t count, double x0, double y0,
                                double x1, double y1, int options) {
    const double head[] = {x0, y0, x1, y1, (double)(options & 3)};
    return gradient(d, LAMINA_DRAW_DRAW_LINEAR_GRADIENT, head, 5, stops, count);
}

int lamina_draw_radial_gradient(lamina_drawing *d, const lamina_gradient_stop *stops, size_t count, double x0, double y0,
                                double r0, double x1, double y1, double r1, int options) {
    const double head[] = {x0, y0, r0, x1, y1, r1, (double)(options & 3)};
    return gradient(d, LAMINA_DRAW_DRAW_RADIAL_GRADIENT, head, 7, stops, count);
}

int lamina_draw_image(lamina_drawing *d, const lamina_image *image, double x, double y, double w, double h) {
    if (!image) {
        if (d)
            d->failed = 1;
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    return CMD(LAMINA_DRAW_DRAW_IMAGE, (double)lamina_image_number(image), x, y, w, h);
}

int lamina_draw_show_text(lamina_drawing *d, const char *text, double x, double y, const char *font, double size) {
    const char *strings[] = {text, font ? font : "Helvetica"};
    const double numbers[] = {x, y, size};
    return lamina_draw_command(d, LAMINA_DRAW_SHOW_TEXT, numbers, 3, strings, 2);
}
