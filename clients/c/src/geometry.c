/* Client-side geometry: hitTest, containsPoint and convertPoint/Rect on the model values, with
 * laminad's rules (LaminaCore's HitTesting.swift and LayerGeometry.swift, which the Swift and
 * Python clients share): each layer's anchor point, transform, position and its superlayer's
 * geometry flip and sublayer transform; ordinary layers flatten their sublayers into their
 * plane; a transform layer's sublayers share its 3D space. Matrices are CATransform3D's, row
 * vectors (p' = p . M), m[0] = m11 ... m[15] = m44. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define MAXIMUM_VISITS 200000
#define MAXIMUM_DEPTH 4096

typedef struct mat {
    double m[16];
} mat;

static const mat identity = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};

static double get_f64(const uint8_t *p) {
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | p[i];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* `a` then `b` (CATransform3DConcat). */
static mat concat(mat a, mat b) {
    mat r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i * 4 + j] = a.m[i * 4] * b.m[j] + a.m[i * 4 + 1] * b.m[4 + j] + a.m[i * 4 + 2] * b.m[8 + j] +
                             a.m[i * 4 + 3] * b.m[12 + j];
    return r;
}

static mat translation(double x, double y, double z) {
    mat t = identity;
    t.m[12] = x;
    t.m[13] = y;
    t.m[14] = z;
    return t;
}

static int is_identity(const mat *a) { return memcmp(a->m, identity.m, sizeof a->m) == 0; }

static mat flattening_z(mat a) {
    a.m[8] = a.m[9] = a.m[10] = a.m[11] = 0;
    return a;
}

/* Whether a layer mapped by `a` shows its front: the inverse's m33 > 0. */
static int faces_viewer(const mat *a) {
    const double *m = a->m;
    double m11 = m[0], m12 = m[1], m13 = m[2], m14 = m[3], m21 = m[4], m22 = m[5], m23 = m[6], m24 = m[7];
    double m31 = m[8], m32 = m[9], m33 = m[10], m34 = m[11], m41 = m[12], m42 = m[13], m43 = m[14], m44 = m[15];
    double cofactor33 = m11 * (m22 * m44 - m24 * m42) - m12 * (m21 * m44 - m24 * m41) + m14 * (m21 * m42 - m22 * m41);
    double s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14;
    double s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14;
    double c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33;
    double c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32;
    double det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0;
    if (det == 0 || !isfinite(det))
        return 0;
    return cofactor33 / det > 0;
}

/* Where the plane's point (x, y, 0) lands, dividing by w; 0 behind the eye. */
static int project(const mat *a, const double p[2], double out[2]) {
    const double *m = a->m;
    double x = p[0] * m[0] + p[1] * m[4] + m[12], y = p[0] * m[1] + p[1] * m[5] + m[13];
    double w = p[0] * m[3] + p[1] * m[7] + m[15];
    if (!(w > 0))
        return 0;
    out[0] = x / w;
    out[1] = y / w;
    return 1;
}

/* The point of the plane z = 0 that `a` maps onto p; 0 where none in front of the eye does. */
static int unproject(const mat *t, const double p[2], double out[2]) {
    const double *m = t->m;
    double a = m[0] - p[0] * m[3], b = m[4] - p[0] * m[7], e = p[0] * m[15] - m[12];
    double c = m[1] - p[1] * m[3], d = m[5] - p[1] * m[7], f = p[1] * m[15] - m[13];
    double det = a * d - b * c;
    if (!(fabs(det) > 1e-12 && isfinite(det)))
        return 0;
    double x = (e * d - b * f) / det, y = (a * f - e * c) / det;
    if (!isfinite(x) || !isfinite(y) || !(x * m[3] + y * m[7] + m[15] > 0))
        return 0;
    out[0] = x;
    out[1] = y;
    return 1;
}

/* A layer's model values that place it. */
typedef struct geometry {
    double bounds[4], position[2], anchor[2], anchor_z, z;
    mat transform, sublayer_transform;
    int flipped, hidden, interactive, double_sided, masks, is_transform;
} geometry;

static double number_value(const lamina_layer *l, uint32_t property, double fallback) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(l, property, &n);
    return v && n == 8 ? get_f64(v) : fallback;
}

static int bool_value(const lamina_layer *l, uint32_t property, int fallback) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(l, property, &n);
    return v && n == 1 ? v[0] != 0 : fallback;
}

static void point_value(const lamina_layer *l, uint32_t property, double out[2], double x, double y) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(l, property, &n);
    out[0] = v && n == 16 ? get_f64(v) : x;
    out[1] = v && n == 16 ? get_f64(v + 8) : y;
}

static mat transform_value(const lamina_layer *l, uint32_t property) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(l, property, &n);
    mat t = identity;
    if (v && n == 128)
        for (int i = 0; i < 16; i++)
            t.m[i] = get_f64(v + 8 * i);
    return t;
}

static geometry geometry_of(const lamina_layer *l) {
    geometry g;
    lamina_layer_get_bounds(l, g.bounds);
    /* The root's position follows the display (laminad fits it), as its bounds do. */
    double cx = l->number == 0 ? l->conn->display_width / 2.0 : 0, cy = l->number == 0 ? l->conn->display_height / 2.0 : 0;
    point_value(l, LAMINA_PROPERTY_POSITION, g.position, cx, cy);
    point_value(l, LAMINA_PROPERTY_ANCHOR_POINT, g.anchor, 0.5, 0.5);
    g.anchor_z = number_value(l, LAMINA_PROPERTY_ANCHOR_POINT_Z, 0);
    g.z = number_value(l, LAMINA_PROPERTY_Z_POSITION, 0);
    g.transform = transform_value(l, LAMINA_PROPERTY_TRANSFORM);
    g.sublayer_transform = transform_value(l, LAMINA_PROPERTY_SUBLAYER_TRANSFORM);
    g.flipped = bool_value(l, LAMINA_PROPERTY_GEOMETRY_FLIPPED, 0);
    g.hidden = bool_value(l, LAMINA_PROPERTY_HIDDEN, 0);
    g.interactive = bool_value(l, LAMINA_PROPERTY_USER_INTERACTION_ENABLED, 1);
    g.double_sided = bool_value(l, LAMINA_PROPERTY_DOUBLE_SIDED, 1);
    g.masks = bool_value(l, LAMINA_PROPERTY_MASKS_TO_BOUNDS, 0);
    g.is_transform = l->kind == LAMINA_LAYER_KIND_TRANSFORM;
    return g;
}

static void anchor_in_bounds(const geometry *g, double out[2]) {
    out[0] = g->bounds[0] + g->anchor[0] * g->bounds[2];
    out[1] = g->bounds[1] + g->anchor[1] * g->bounds[3];
}

/* The layer's bounds coordinates to its superlayer's. */
static mat to_superlayer(const geometry *g) {
    double a[2];
    anchor_in_bounds(g, a);
    mat to_anchor = translation(-a[0], -a[1], -g->anchor_z), place = translation(g->position[0], g->position[1], g->z);
    if (is_identity(&g->transform))
        return concat(to_anchor, place);
    return concat(concat(to_anchor, g->transform), place);
}

/* The geometry flip, then the sublayer transform about the anchor point. */
static mat sublayer_space(const geometry *g) {
    mat space = identity;
    if (!is_identity(&g->sublayer_transform)) {
        double a[2];
        anchor_in_bounds(g, a);
        space = concat(concat(translation(-a[0], -a[1], -g->anchor_z), g->sublayer_transform), translation(a[0], a[1], g->anchor_z));
    }
    if (g->flipped) {
        mat flip = identity;
        flip.m[5] = -1;
        flip = concat(flip, translation(0, g->bounds[1] + g->bounds[1] + g->bounds[3], 0));
        space = is_identity(&space) ? flip : concat(flip, space);
    }
    return space;
}

static int contains(const double b[4], const double p[2]) {
    return p[0] >= b[0] && p[0] < b[0] + b[2] && p[1] >= b[1] && p[1] < b[1] + b[3];
}

typedef struct tester {
    lamina_connection *conn;
    long visits;
} tester;

static lamina_layer *child_at(const lamina_layer *l, size_t i) { return lm_layer_at(l->conn, l->children[i]); }

/* The sublayers front-most first (zPosition descending, then later first) into order[]. */
static void front_to_back(const lamina_layer *l, const geometry *gs, size_t *order) {
    size_t n = l->child_count;
    for (size_t i = 0; i < n; i++)
        order[i] = n - 1 - i;
    /* Insertion sort: stable for the later-first order already there. */
    for (size_t i = 1; i < n; i++) {
        size_t k = order[i], j = i;
        while (j > 0 && gs[order[j - 1]].z < gs[k].z) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
}

static lamina_layer *visit(tester *t, lamina_layer *l, const geometry *g, const double p[2], const mat *superlayer_space,
                           const mat *superlayer_to_display, int depth);

/* The layer hit among a transform layer's sublayers (sharing its 3D space): the one drawn in
 * front, by the depth of each plane's centre. */
static lamina_layer *hit_transform_layer(tester *t, lamina_layer *l, const geometry *g, const double p[2], const mat *in_superlayer,
                                         const mat *superlayer_to_display, int depth, double *best_depth);

static int children_geometry(const lamina_layer *l, geometry **gs, size_t **order) {
    size_t n = l->child_count;
    *gs = NULL;
    *order = NULL;
    if (n == 0)
        return 0;
    *gs = calloc(n, sizeof **gs);
    *order = calloc(n, sizeof **order);
    if (!*gs || !*order) {
        free(*gs);
        free(*order);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        lamina_layer *c = child_at(l, i);
        if (c)
            (*gs)[i] = geometry_of(c);
        else
            (*gs)[i].hidden = 1;
    }
    front_to_back(l, *gs, *order);
    return 0;
}

static lamina_layer *visit(tester *t, lamina_layer *l, const geometry *g, const double p[2], const mat *superlayer_space,
                           const mat *superlayer_to_display, int depth) {
    if (g->hidden || !g->interactive || depth >= MAXIMUM_DEPTH || ++t->visits > MAXIMUM_VISITS)
        return NULL;
    mat in_superlayer = to_superlayer(g);
    if (!is_identity(superlayer_space))
        in_superlayer = concat(in_superlayer, *superlayer_space);
    if (!g->double_sided && !faces_viewer(&in_superlayer))
        return NULL;
    if (g->is_transform) {
        double d;
        return hit_transform_layer(t, l, g, p, &in_superlayer, superlayer_to_display, depth, &d);
    }
    mat to_display = is_identity(superlayer_to_display) ? in_superlayer : concat(in_superlayer, *superlayer_to_display);
    double local[2];
    int inside = unproject(&to_display, p, local) && contains(g->bounds, local);
    if (g->masks && !inside)
        return NULL;
    mat space = sublayer_space(g), plane = flattening_z(to_display);
    geometry *gs;
    size_t *order;
    if (children_geometry(l, &gs, &order))
        return NULL;
    lamina_layer *hit = NULL;
    for (size_t i = 0; i < l->child_count && !hit && t->visits <= MAXIMUM_VISITS; i++) {
        lamina_layer *c = child_at(l, order[i]);
        if (c)
            hit = visit(t, c, &gs[order[i]], p, &space, &plane, depth + 1);
    }
    free(gs);
    free(order);
    if (hit)
        return hit;
    return inside && t->visits <= MAXIMUM_VISITS ? l : NULL;
}

static lamina_layer *hit_transform_layer(tester *t, lamina_layer *l, const geometry *g, const double p[2], const mat *in_superlayer,
                                         const mat *superlayer_to_display, int depth, double *best_depth) {
    mat space = sublayer_space(g);
    mat child_space = is_identity(&space) ? *in_superlayer : concat(space, *in_superlayer);
    geometry *gs;
    size_t *order;
    if (children_geometry(l, &gs, &order))
        return NULL;
    lamina_layer *best = NULL;
    /* Back to front, so that among equal depths the later one (drawn on top) wins. */
    for (size_t k = l->child_count; k-- > 0;) {
        if (t->visits > MAXIMUM_VISITS || depth + 1 >= MAXIMUM_DEPTH)
            break;
        size_t i = order[k];
        lamina_layer *c = child_at(l, i);
        if (!c)
            continue;
        const geometry *cg = &gs[i];
        lamina_layer *candidate = NULL;
        double d = -INFINITY;
        if (cg->is_transform) {
            if (cg->hidden || !cg->interactive)
                continue;
            mat nested = concat(to_superlayer(cg), child_space);
            if (!cg->double_sided && !faces_viewer(&nested))
                continue;
            t->visits++;
            candidate = hit_transform_layer(t, c, cg, p, &nested, superlayer_to_display, depth + 1, &d);
        } else if ((candidate = visit(t, c, cg, p, &child_space, superlayer_to_display, depth + 1))) {
            mat m = concat(to_superlayer(cg), child_space);
            double cx = cg->bounds[0] + cg->bounds[2] / 2, cy = cg->bounds[1] + cg->bounds[3] / 2;
            double z = cx * m.m[2] + cy * m.m[6] + m.m[14], w = cx * m.m[3] + cy * m.m[7] + m.m[15];
            d = w > 0 ? z / w : -INFINITY;
        }
        if (candidate && (!best || d >= *best_depth)) {
            best = candidate;
            *best_depth = d;
        }
    }
    free(gs);
    free(order);
    return best;
}

lamina_layer *lamina_layer_hit_test(lamina_layer *layer, double x, double y) {
    if (!layer)
        return NULL;
    tester t = {layer->conn, 0};
    lamina_layer *up = lamina_layer_superlayer(layer);
    mat space = identity;
    if (up) {
        geometry ug = geometry_of(up);
        space = sublayer_space(&ug);
    }
    geometry g = geometry_of(layer);
    double p[2] = {x, y};
    return visit(&t, layer, &g, p, &space, &identity, 0);
}

int lamina_layer_contains(const lamina_layer *layer, double x, double y) {
    if (!layer)
        return 0;
    double b[4], p[2] = {x, y};
    lamina_layer_get_bounds(layer, b);
    return contains(b, p);
}

/* The layer's bounds coordinates to its tree's root's superlayer space (the display for a layer
 * under the root), as laminad places it; 0 when the path is too deep. */
static int to_display(lamina_layer *layer, mat *out) {
    lamina_layer *path[MAXIMUM_DEPTH + 1];
    size_t n = 0;
    for (lamina_layer *l = layer; l; l = lamina_layer_superlayer(l)) {
        if (n > MAXIMUM_DEPTH)
            return 0;
        path[n++] = l;
    }
    geometry g = geometry_of(path[n - 1]);
    mat in_superlayer = to_superlayer(&g), superlayer_to_display = identity;
    for (size_t i = n - 1; i-- > 0;) {
        geometry cg = geometry_of(path[i]);
        mat space = sublayer_space(&g);
        if (g.is_transform) {
            in_superlayer = concat(to_superlayer(&cg), concat(space, in_superlayer));
        } else {
            superlayer_to_display = flattening_z(concat(in_superlayer, superlayer_to_display));
            in_superlayer = is_identity(&space) ? to_superlayer(&cg) : concat(to_superlayer(&cg), space);
        }
        g = cg;
    }
    *out = concat(in_superlayer, superlayer_to_display);
    return 1;
}

int lamina_layer_convert_point(lamina_layer *layer, double x, double y, lamina_layer *other, lamina_conversion direction,
                               double out[2]) {
    if (!layer || !out)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_layer *source = direction == LAMINA_CONVERT_TO ? layer : other;
    lamina_layer *target = direction == LAMINA_CONVERT_TO ? other : layer;
    double p[2] = {x, y};
    mat m;
    int ok = 1;
    if (source)
        ok = to_display(source, &m) && project(&m, p, p);
    if (ok && target)
        ok = to_display(target, &m) && unproject(&m, p, p);
    out[0] = ok ? p[0] : NAN;
    out[1] = ok ? p[1] : NAN;
    return LAMINA_OK;
}

int lamina_layer_convert_rect(lamina_layer *layer, const double rect[4], lamina_layer *other, lamina_conversion direction,
                              double out[4]) {
    if (!layer || !rect || !out)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    double corners[4][2] = {{rect[0], rect[1]}, {rect[0] + rect[2], rect[1]}, {rect[0] + rect[2], rect[1] + rect[3]},
                            {rect[0], rect[1] + rect[3]}};
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (int i = 0; i < 4; i++) {
        double c[2];
        lamina_layer_convert_point(layer, corners[i][0], corners[i][1], other, direction, c);
        if (isnan(c[0]) || isnan(c[1])) {
            out[0] = out[1] = out[2] = out[3] = NAN;
            return LAMINA_OK;
        }
        x0 = fmin(x0, c[0]);
        y0 = fmin(y0, c[1]);
        x1 = fmax(x1, c[0]);
        y1 = fmax(y1, c[1]);
    }
    out[0] = x0;
    out[1] = y0;
    out[2] = x1 - x0;
    out[3] = y1 - y0;
    return LAMINA_OK;
}
