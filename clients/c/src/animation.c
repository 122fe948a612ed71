/* Animations as values: basic, spring, transition, keyframe and group animations, their
 * settings, deep copies (kept for a reconnection's replay) and their encoding. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation.h"

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
