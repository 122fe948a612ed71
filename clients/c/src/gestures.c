/* Gesture recognisers, as the Swift (Sources/Lamina/Gestures.swift and beside) and Python
 * (lamina/gestures.py) clients': the same states, thresholds and arithmetic, so that the three
 * give the same numbers for the same touches. Time is the events' and the connection's clock. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gestures.h"
#include "model.h"

#define BTN_LEFT 0x110

static double distance(const double a[2], const double b[2]) { return hypot(b[0] - a[0], b[1] - a[1]); }

/* MARK: The rate meter (Swift's RateMeter) */

static void rate_start(lm_rate *r, double time, double x, double y) {
    memset(r, 0, sizeof *r);
    r->latest_time = time;
    r->latest[0] = x;
    r->latest[1] = y;
}

/* 1 with the rate in out[] once time has passed since the first sample. */
static int rate_sample(lm_rate *r, double t, double x, double y, double out[2]) {
    if (t > r->latest_time) {
        r->has_previous = 1;
        r->previous_time = r->latest_time;
        r->previous[0] = r->latest[0];
        r->previous[1] = r->latest[1];
    }
    r->latest_time = fmax(t, r->latest_time);
    r->latest[0] = x;
    r->latest[1] = y;
    if (!r->has_previous || !(r->latest_time > r->previous_time))
        return 0;
    double dt = r->latest_time - r->previous_time;
    out[0] = (r->latest[0] - r->previous[0]) / dt;
    out[1] = (r->latest[1] - r->previous[1]) / dt;
    return 1;
}

static void rate_rebase(lm_rate *r, double v) {
    if (r->has_previous)
        r->previous[0] = v - (r->latest[0] - r->previous[0]);
    r->latest[0] = v;
}

/* MARK: Creation */

static lamina_gesture_recognizer *make(lm_gesture_kind kind, lamina_gesture_callback callback, void *context) {
    lamina_gesture_recognizer *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->kind = kind;
    r->callback = callback;
    r->context = context;
    r->allowable_movement = 10;
    r->taps_required = 1;
    r->maximum_duration = 0.5;
    r->maximum_interval = 0.3;
    r->minimum_duration = 0.5;
    r->minimum_touches = 1;
    r->maximum_touches = SIZE_MAX;
    r->directions = LAMINA_SWIPE_RIGHT | LAMINA_SWIPE_LEFT | LAMINA_SWIPE_UP | LAMINA_SWIPE_DOWN;
    r->minimum_distance = 50;
    r->minimum_speed = 200;
    r->direction = LAMINA_SWIPE_RIGHT;
    r->start_span = 0;
    return r;
}

lamina_gesture_recognizer *lamina_tap_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_TAP, callback, context);
}
lamina_gesture_recognizer *lamina_long_press_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_LONG_PRESS, callback, context);
}
lamina_gesture_recognizer *lamina_pan_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_PAN, callback, context);
}
lamina_gesture_recognizer *lamina_pinch_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_PINCH, callback, context);
}
lamina_gesture_recognizer *lamina_rotation_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_ROTATION, callback, context);
}
lamina_gesture_recognizer *lamina_swipe_recognizer_new(lamina_gesture_callback callback, void *context) {
    return make(LM_SWIPE, callback, context);
}

static void remove_pointer(lamina_gesture_recognizer **list, size_t *count, const lamina_gesture_recognizer *r) {
    for (size_t i = 0; i < *count;)
        if (list[i] == r)
            memmove(&list[i], &list[i + 1], (--*count - i) * sizeof *list);
        else
            i++;
}

static void detach(lamina_gesture_recognizer *r) {
    if (r->conn)
        remove_pointer(r->conn->recognizers, &r->conn->recognizer_count, r);
    r->conn = NULL;
    r->layer = NULL;
}

void lamina_gesture_recognizer_free(lamina_gesture_recognizer *r) {
    if (!r)
        return;
    detach(r);
    for (size_t i = 0; i < r->requirement_count; i++)
        remove_pointer(r->requirements[i]->dependents, &r->requirements[i]->dependent_count, r);
    for (size_t i = 0; i < r->dependent_count; i++)
        remove_pointer(r->dependents[i]->requirements, &r->dependents[i]->requirement_count, r);
    free(r->requirements);
    free(r->dependents);
    free(r);
}

int lamina_layer_add_gesture_recognizer(lamina_layer *layer, lamina_gesture_recognizer *r) {
    if (!layer || !r)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (r->layer == layer)
        return LAMINA_OK;
    lamina_connection *conn = layer->conn;
    if (lm_grow((void **)&conn->recognizers, &conn->recognizer_capacity, conn->recognizer_count, sizeof *conn->recognizers))
        return LAMINA_ERROR_NO_MEMORY;
    detach(r);
    conn->recognizers[conn->recognizer_count++] = r;
    r->conn = conn;
    r->layer = layer;
    return LAMINA_OK;
}

int lamina_layer_remove_gesture_recognizer(lamina_layer *layer, lamina_gesture_recognizer *r) {
    if (!layer || !r || r->layer != layer)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    detach(r);
    return LAMINA_OK;
}

void lm_gestures_layer_gone(lamina_connection *conn, const lamina_layer *layer) {
    for (size_t i = 0; i < conn->recognizer_count;) {
        lamina_gesture_recognizer *r = conn->recognizers[i];
        if (r->layer == layer)
            detach(r);
        else
            i++;
    }
}

void lm_gestures_detach_all(lamina_connection *conn) {
    while (conn->recognizer_count)
        detach(conn->recognizers[0]);
    free(conn->recognizers);
    conn->recognizers = NULL;
    conn->recognizer_capacity = 0;
}

static int append_pointer(lamina_gesture_recognizer ***list, size_t *count, lamina_gesture_recognizer *r) {
    lamina_gesture_recognizer **grown = realloc(*list, (*count + 1) * sizeof **list);
    if (!grown)
        return -1;
    *list = grown;
    grown[(*count)++] = r;
    return 0;
}

int lamina_gesture_recognizer_require_to_fail(lamina_gesture_recognizer *r, lamina_gesture_recognizer *other) {
    if (!r || !other || r == other)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < r->requirement_count; i++)
        if (r->requirements[i] == other)
            return LAMINA_OK;
    if (append_pointer(&r->requirements, &r->requirement_count, other))
        return LAMINA_ERROR_NO_MEMORY;
    if (append_pointer(&other->dependents, &other->dependent_count, r)) {
        r->requirement_count--;
        return LAMINA_ERROR_NO_MEMORY;
    }
    return LAMINA_OK;
}

/* MARK: Reading and settings */

lamina_gesture_state lamina_gesture_recognizer_state(const lamina_gesture_recognizer *r) { return r ? r->state : LAMINA_GESTURE_POSSIBLE; }
lamina_layer *lamina_gesture_recognizer_layer(const lamina_gesture_recognizer *r) { return r ? r->layer : NULL; }
size_t lamina_gesture_recognizer_touch_count(const lamina_gesture_recognizer *r) { return r ? r->touch_count : 0; }

static void copy2(double out[2], const double v[2]) {
    if (out) {
        out[0] = v[0];
        out[1] = v[1];
    }
}

void lamina_gesture_recognizer_location(const lamina_gesture_recognizer *r, double out[2]) {
    if (r)
        copy2(out, r->location);
}
void lamina_gesture_recognizer_screen_location(const lamina_gesture_recognizer *r, double out[2]) {
    if (r)
        copy2(out, r->screen_location);
}
int lamina_gesture_recognizer_touch_location(const lamina_gesture_recognizer *r, size_t index, double out[2]) {
    if (!r || !out || index >= r->touch_count)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    copy2(out, r->touches[index].local);
    return LAMINA_OK;
}
double lamina_gesture_recognizer_scale(const lamina_gesture_recognizer *r) {
    return r && r->start_span > 0 ? r->span / r->start_span : 1;
}
double lamina_gesture_recognizer_rotation(const lamina_gesture_recognizer *r) { return r ? r->rotation : 0; }
void lamina_gesture_recognizer_velocity(const lamina_gesture_recognizer *r, double out[2]) {
    if (r)
        copy2(out, r->velocity);
}
void lamina_gesture_recognizer_translation(const lamina_gesture_recognizer *r, double out[2]) {
    if (r)
        copy2(out, r->translation);
}
lamina_swipe_direction lamina_gesture_recognizer_direction(const lamina_gesture_recognizer *r) {
    return r ? r->direction : LAMINA_SWIPE_RIGHT;
}

int lamina_gesture_recognizer_set_allowable_movement(lamina_gesture_recognizer *r, double points) {
    if (!r || !(points >= 0) || !isfinite(points))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->allowable_movement = points;
    return LAMINA_OK;
}
int lamina_tap_recognizer_set_taps_required(lamina_gesture_recognizer *r, int taps) {
    if (!r || r->kind != LM_TAP || taps < 1)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->taps_required = taps;
    return LAMINA_OK;
}
int lamina_tap_recognizer_set_durations(lamina_gesture_recognizer *r, double maximum_duration, double maximum_interval) {
    if (!r || r->kind != LM_TAP || !(maximum_duration >= 0) || !(maximum_interval >= 0) || !isfinite(maximum_duration) ||
        !isfinite(maximum_interval))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->maximum_duration = maximum_duration;
    r->maximum_interval = maximum_interval;
    return LAMINA_OK;
}
int lamina_long_press_recognizer_set_minimum_duration(lamina_gesture_recognizer *r, double seconds) {
    if (!r || r->kind != LM_LONG_PRESS || !(seconds >= 0) || !isfinite(seconds))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->minimum_duration = seconds;
    return LAMINA_OK;
}
int lamina_pan_recognizer_set_touches(lamina_gesture_recognizer *r, size_t minimum, size_t maximum) {
    if (!r || r->kind != LM_PAN || minimum < 1 || maximum < minimum)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->minimum_touches = minimum;
    r->maximum_touches = maximum;
    return LAMINA_OK;
}
int lamina_swipe_recognizer_set(lamina_gesture_recognizer *r, unsigned directions, double minimum_distance, double minimum_speed) {
    if (!r || r->kind != LM_SWIPE || directions == 0 || directions > 15 || !(minimum_distance >= 0) || !(minimum_speed >= 0))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->directions = directions;
    r->minimum_distance = minimum_distance;
    r->minimum_speed = minimum_speed;
    return LAMINA_OK;
}
int lamina_pinch_recognizer_set_scale(lamina_gesture_recognizer *r, double scale) {
    if (!r || r->kind != LM_PINCH || !(scale > 0) || !isfinite(scale))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (r->span > 0) {
        r->start_span = r->span / scale;
        rate_rebase(&r->rate, scale);
    }
    return LAMINA_OK;
}
int lamina_rotation_recognizer_set_rotation(lamina_gesture_recognizer *r, double radians) {
    if (!r || r->kind != LM_ROTATION || !isfinite(radians))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    r->rotation = radians;
    rate_rebase(&r->rate, radians);
    return LAMINA_OK;
}

/* MARK: Transitions and failure requirements */

static void settle(lamina_gesture_recognizer *r);

static int in_progress(const lamina_gesture_recognizer *r) { return r->touch_count > 0 || r->has_deadline || r->held; }

static int requirement_in_progress(const lamina_gesture_recognizer *r) {
    for (size_t i = 0; i < r->requirement_count; i++)
        if (in_progress(r->requirements[i]))
            return 1;
    return 0;
}

static void set_deadline(lamina_gesture_recognizer *r, int has, double deadline) {
    r->has_deadline = has;
    r->deadline = deadline;
}

static void reset_sequence(lamina_gesture_recognizer *r) {
    r->tap_count = 0;
    r->has_first = 0;
}

static void fail(lamina_gesture_recognizer *r) {
    r->held = 0;
    set_deadline(r, 0, 0);
    reset_sequence(r);
    if (r->state == LAMINA_GESTURE_POSSIBLE && r->touch_count)
        r->state = LAMINA_GESTURE_FAILED;
}

static void requirement_recognized(lamina_gesture_recognizer *r) {
    if (r->state == LAMINA_GESTURE_POSSIBLE) {
        fail(r);
        settle(r);
    }
}

/* Enters `next` and calls the callback; a recognition waits while a requirement is in progress. */
static void transition(lamina_gesture_recognizer *r, lamina_gesture_state next) {
    int recognises = r->state == LAMINA_GESTURE_POSSIBLE && (next == LAMINA_GESTURE_BEGAN || next == LAMINA_GESTURE_ENDED);
    if (recognises && requirement_in_progress(r)) {
        r->held = 1;
        r->held_state = next;
        return;
    }
    r->state = next;
    if (r->callback)
        r->callback(r, r->context);
    if (recognises)
        for (size_t i = 0; i < r->dependent_count; i++)
            requirement_recognized(r->dependents[i]);
    if (next == LAMINA_GESTURE_ENDED || next == LAMINA_GESTURE_CANCELLED)
        r->state = LAMINA_GESTURE_POSSIBLE;
}

static void requirement_settled(lamina_gesture_recognizer *r) {
    if (!r->held || requirement_in_progress(r))
        return;
    r->held = 0;
    transition(r, r->held_state);
    settle(r);
}

static void settle(lamina_gesture_recognizer *r) {
    if (!r->touch_count && r->state == LAMINA_GESTURE_FAILED)
        r->state = LAMINA_GESTURE_POSSIBLE;
    for (size_t i = 0; i < r->dependent_count; i++)
        requirement_settled(r->dependents[i]);
}

/* MARK: Each kind */

static double current_span(const lamina_gesture_recognizer *r) {
    return r->touch_count >= 2 ? distance(r->touches[0].screen, r->touches[1].screen) : -1;
}

static int current_angle(const lamina_gesture_recognizer *r, double *angle) {
    if (r->touch_count < 2)
        return 0;
    *angle = atan2(r->touches[1].screen[1] - r->touches[0].screen[1], r->touches[1].screen[0] - r->touches[0].screen[0]);
    return 1;
}

static double turn(double a, double b) {
    double d = fmod(b - a, 2 * M_PI);
    if (d > M_PI)
        d -= 2 * M_PI;
    else if (d <= -M_PI)
        d += 2 * M_PI;
    return d;
}

static int pan_fits(const lamina_gesture_recognizer *r) {
    return r->touch_count >= r->minimum_touches && r->touch_count <= r->maximum_touches;
}

static void pan_count_changed(lamina_gesture_recognizer *r, double time) {
    if (r->state == LAMINA_GESTURE_POSSIBLE) {
        r->translation[0] = r->translation[1] = r->velocity[0] = r->velocity[1] = 0;
        rate_start(&r->rate, time, 0, 0);
    }
    r->origin[0] = r->screen_location[0] - r->translation[0];
    r->origin[1] = r->screen_location[1] - r->translation[1];
    if (r->state == LAMINA_GESTURE_POSSIBLE && r->touch_count > r->maximum_touches)
        fail(r);
    else if ((r->state == LAMINA_GESTURE_BEGAN || r->state == LAMINA_GESTURE_CHANGED) && !pan_fits(r))
        transition(r, LAMINA_GESTURE_ENDED);
}

static void pinch_rebase(lamina_gesture_recognizer *r, double s) {
    if (r->start_span > 0 && s > 0) {
        double current = r->span / r->start_span;
        r->span = s;
        r->start_span = s / current;
    }
}

static int active(const lamina_gesture_recognizer *r) {
    return r->state == LAMINA_GESTURE_BEGAN || r->state == LAMINA_GESTURE_CHANGED;
}

static void touch_began(lamina_gesture_recognizer *r, const lamina_event *e) {
    switch (r->kind) {
    case LM_TAP:
        if (r->touch_count != 1)
            return fail(r);
        set_deadline(r, 0, 0);
        if (r->has_first && distance(r->first, r->touches[0].screen) > r->allowable_movement * 4)
            return fail(r);
        if (!r->has_first) {
            r->has_first = 1;
            copy2(r->first, r->touches[0].screen);
        }
        break;
    case LM_LONG_PRESS:
        if (r->touch_count == 1)
            set_deadline(r, 1, e->time + r->minimum_duration);
        break;
    case LM_SWIPE:
        if (r->touch_count > 1)
            fail(r);
        break;
    case LM_PAN:
        pan_count_changed(r, e->time);
        break;
    case LM_PINCH: {
        double s = current_span(r);
        if (s < 0)
            break;
        if (r->touch_count == 2 && r->state == LAMINA_GESTURE_POSSIBLE) {
            r->start_span = r->span = s;
            r->velocity[0] = 0;
            rate_start(&r->rate, e->time, 1, 0);
        } else {
            pinch_rebase(r, s);
        }
        break;
    }
    case LM_ROTATION:
        if (r->touch_count == 2 && r->state == LAMINA_GESTURE_POSSIBLE) {
            r->rotation = r->velocity[0] = r->turned = 0;
            rate_start(&r->rate, e->time, 0, 0);
        }
        r->has_last_angle = current_angle(r, &r->last_angle);
        break;
    }
}

static void touch_moved(lamina_gesture_recognizer *r, const lamina_event *e) {
    double v[2];
    switch (r->kind) {
    case LM_TAP:
        if (r->touch_count && distance(r->touches[0].start, r->touches[0].screen) > r->allowable_movement)
            fail(r);
        break;
    case LM_LONG_PRESS:
        if (!r->touch_count)
            break;
        if (r->state == LAMINA_GESTURE_POSSIBLE && distance(r->touches[0].start, r->touches[0].screen) > r->allowable_movement)
            fail(r);
        else if (active(r))
            transition(r, LAMINA_GESTURE_CHANGED);
        break;
    case LM_SWIPE:
        break;
    case LM_PAN:
        r->translation[0] = r->screen_location[0] - r->origin[0];
        r->translation[1] = r->screen_location[1] - r->origin[1];
        if (rate_sample(&r->rate, e->time, r->translation[0], r->translation[1], v))
            copy2(r->velocity, v);
        if (r->state == LAMINA_GESTURE_POSSIBLE && pan_fits(r) && hypot(r->translation[0], r->translation[1]) > r->allowable_movement)
            transition(r, LAMINA_GESTURE_BEGAN);
        else if (active(r))
            transition(r, LAMINA_GESTURE_CHANGED);
        break;
    case LM_PINCH: {
        double s = current_span(r);
        if (s < 0 || r->start_span <= 0)
            break;
        r->span = s;
        if (rate_sample(&r->rate, e->time, r->span / r->start_span, 0, v))
            r->velocity[0] = v[0];
        if (r->state == LAMINA_GESTURE_POSSIBLE && fabs(r->span - r->start_span) > r->allowable_movement)
            transition(r, LAMINA_GESTURE_BEGAN);
        else if (active(r))
            transition(r, LAMINA_GESTURE_CHANGED);
        break;
    }
    case LM_ROTATION: {
        double a;
        if (!current_angle(r, &a) || !r->has_last_angle)
            break;
        double delta = turn(r->last_angle, a);
        r->last_angle = a;
        r->rotation += delta;
        r->turned += delta;
        if (rate_sample(&r->rate, e->time, r->rotation, 0, v))
            r->velocity[0] = v[0];
        double radius = distance(r->touches[0].screen, r->touches[1].screen) / 2;
        if (r->state == LAMINA_GESTURE_POSSIBLE && fabs(r->turned) * radius > r->allowable_movement)
            transition(r, LAMINA_GESTURE_BEGAN);
        else if (active(r))
            transition(r, LAMINA_GESTURE_CHANGED);
        break;
    }
    }
}

/* A touch was lifted (`touch`, already removed) or cancelled (`touch` NULL). */
static void touch_left(lamina_gesture_recognizer *r, const lamina_event *e, const lm_touch *touch) {
    int cancelled = touch == NULL;
    switch (r->kind) {
    case LM_TAP:
        if (cancelled || r->state != LAMINA_GESTURE_POSSIBLE || r->touch_count || e->time - touch->start_time > r->maximum_duration ||
            distance(touch->start, touch->screen) > r->allowable_movement)
            return fail(r);
        if (++r->tap_count >= r->taps_required) {
            reset_sequence(r);
            transition(r, LAMINA_GESTURE_ENDED);
        } else {
            set_deadline(r, 1, e->time + r->maximum_interval);
        }
        break;
    case LM_LONG_PRESS:
        if (r->touch_count)
            break;
        if (active(r))
            transition(r, cancelled ? LAMINA_GESTURE_CANCELLED : LAMINA_GESTURE_ENDED);
        else
            fail(r);
        break;
    case LM_SWIPE: {
        if (cancelled || r->state != LAMINA_GESTURE_POSSIBLE || r->touch_count)
            return fail(r);
        double dx = touch->screen[0] - touch->start[0], dy = touch->screen[1] - touch->start[1];
        double d = hypot(dx, dy), duration = e->time - touch->start_time;
        if (!(d > 0) || duration < 0)
            return fail(r);
        lamina_swipe_direction dir = fabs(dx) >= fabs(dy) ? (dx > 0 ? LAMINA_SWIPE_RIGHT : LAMINA_SWIPE_LEFT)
                                                          : (dy > 0 ? LAMINA_SWIPE_DOWN : LAMINA_SWIPE_UP);
        double speed = duration > 0 ? d / duration : INFINITY;
        if (d < r->minimum_distance || speed < r->minimum_speed || !(r->directions & dir))
            return fail(r);
        r->direction = dir;
        r->velocity[0] = duration > 0 ? dx / duration : 0;
        r->velocity[1] = duration > 0 ? dy / duration : 0;
        transition(r, LAMINA_GESTURE_ENDED);
        break;
    }
    case LM_PAN:
        if (cancelled && active(r))
            transition(r, LAMINA_GESTURE_CANCELLED);
        else if (!r->touch_count && active(r))
            transition(r, LAMINA_GESTURE_ENDED);
        else if (!r->touch_count)
            fail(r);
        else
            pan_count_changed(r, cancelled ? r->last_time : e->time);
        break;
    case LM_PINCH: {
        double s = current_span(r);
        if (s >= 0)
            return pinch_rebase(r, s);
        if (active(r))
            transition(r, cancelled ? LAMINA_GESTURE_CANCELLED : LAMINA_GESTURE_ENDED);
        else if (!r->touch_count || r->held)
            fail(r);
        r->start_span = 0;
        break;
    }
    case LM_ROTATION:
        r->has_last_angle = current_angle(r, &r->last_angle);
        if (r->has_last_angle)
            break;
        if (active(r))
            transition(r, cancelled ? LAMINA_GESTURE_CANCELLED : LAMINA_GESTURE_ENDED);
        else if (!r->touch_count || r->held)
            fail(r);
        break;
    }
}

static void deadline_passed(lamina_gesture_recognizer *r) {
    set_deadline(r, 0, 0);
    if (r->kind == LM_TAP)
        fail(r);
    else if (r->kind == LM_LONG_PRESS && r->state == LAMINA_GESTURE_POSSIBLE && r->touch_count)
        transition(r, LAMINA_GESTURE_BEGAN);
}

static void time_passed(lamina_gesture_recognizer *r, double now) {
    if (r->has_deadline && now >= r->deadline) {
        deadline_passed(r);
        settle(r);
    }
}

/* MARK: Events */

static void local_point(lamina_gesture_recognizer *r, const lamina_event *e, double out[2]) {
    out[0] = e->x;
    out[1] = e->y;
    if (!r->layer || e->layer == r->layer)
        return;
    double p[2];
    lamina_layer_convert_point(r->layer, e->screen_x, e->screen_y, NULL, LAMINA_CONVERT_FROM, p);
    if (!isnan(p[0]))
        copy2(out, p);
}

static void centroid(lamina_gesture_recognizer *r) {
    if (!r->touch_count)
        return;
    double l[2] = {0, 0}, s[2] = {0, 0};
    for (size_t i = 0; i < r->touch_count; i++) {
        l[0] += r->touches[i].local[0];
        l[1] += r->touches[i].local[1];
        s[0] += r->touches[i].screen[0];
        s[1] += r->touches[i].screen[1];
    }
    double n = (double)r->touch_count;
    r->location[0] = l[0] / n;
    r->location[1] = l[1] / n;
    r->screen_location[0] = s[0] / n;
    r->screen_location[1] = s[1] / n;
}

static int is_touch_kind(lamina_input_kind k) {
    return k == LAMINA_INPUT_TOUCH_DOWN || k == LAMINA_INPUT_TOUCH_MOVE || k == LAMINA_INPUT_TOUCH_UP || k == LAMINA_INPUT_TOUCH_CANCEL;
}

static long find_touch(const lamina_gesture_recognizer *r, const lamina_event *e) {
    int touch = is_touch_kind(e->input_kind);
    for (size_t i = 0; i < r->touch_count; i++)
        if (r->touches[i].is_touch == touch && (!touch || r->touches[i].id == e->id))
            return (long)i;
    return -1;
}

static void handle(lamina_gesture_recognizer *r, const lamina_event *e) {
    r->last_time = fmax(r->last_time, e->time);
    if (r->has_deadline && e->time >= r->deadline)
        time_passed(r, e->time);
    long i;
    switch (e->input_kind) {
    case LAMINA_INPUT_TOUCH_DOWN:
    case LAMINA_INPUT_BUTTON_PRESS: {
        int touch = e->input_kind == LAMINA_INPUT_TOUCH_DOWN;
        if ((!touch && e->id != BTN_LEFT) || find_touch(r, e) >= 0 || r->touch_count >= LM_MAX_TOUCHES)
            return;
        lm_touch *t = &r->touches[r->touch_count++];
        t->id = e->id;
        t->is_touch = touch;
        t->start[0] = t->screen[0] = e->screen_x;
        t->start[1] = t->screen[1] = e->screen_y;
        t->start_time = e->time;
        local_point(r, e, t->local);
        centroid(r);
        touch_began(r, e);
        break;
    }
    case LAMINA_INPUT_TOUCH_MOVE:
    case LAMINA_INPUT_POINTER_MOVE:
        if ((i = find_touch(r, e)) < 0)
            return;
        r->touches[i].screen[0] = e->screen_x;
        r->touches[i].screen[1] = e->screen_y;
        local_point(r, e, r->touches[i].local);
        centroid(r);
        touch_moved(r, e);
        break;
    case LAMINA_INPUT_TOUCH_UP:
    case LAMINA_INPUT_BUTTON_RELEASE: {
        if ((i = find_touch(r, e)) < 0 || (e->input_kind == LAMINA_INPUT_BUTTON_RELEASE && e->id != BTN_LEFT))
            return;
        r->touches[i].screen[0] = e->screen_x;
        r->touches[i].screen[1] = e->screen_y;
        local_point(r, e, r->touches[i].local);
        centroid(r);
        lm_touch touch = r->touches[i];
        memmove(&r->touches[i], &r->touches[i + 1], (r->touch_count - (size_t)i - 1) * sizeof *r->touches);
        r->touch_count--;
        touch_left(r, e, &touch);
        break;
    }
    case LAMINA_INPUT_TOUCH_CANCEL:
    case LAMINA_INPUT_POINTER_CANCEL:
        if ((i = find_touch(r, e)) < 0)
            return;
        memmove(&r->touches[i], &r->touches[i + 1], (r->touch_count - (size_t)i - 1) * sizeof *r->touches);
        r->touch_count--;
        touch_left(r, e, NULL);
        break;
    default:
        return;
    }
    settle(r);
}

/* Calls `handle` on a copy of the list: a callback may add or remove recognisers. */
static void handle_each(lamina_connection *conn, const lamina_layer *only, const lamina_event *e) {
    size_t n = conn->recognizer_count;
    lamina_gesture_recognizer **copy = n ? malloc(n * sizeof *copy) : NULL;
    if (!copy)
        return;
    memcpy(copy, conn->recognizers, n * sizeof *copy);
    for (size_t i = 0; i < n; i++) {
        /* Still on this connection (a callback may have freed or moved it)? */
        int still = 0;
        for (size_t k = 0; k < conn->recognizer_count && !still; k++)
            still = conn->recognizers[k] == copy[i];
        if (still && (!only || copy[i]->layer == only))
            handle(copy[i], e);
    }
    free(copy);
}

void lm_gestures_route(lamina_connection *conn, const lamina_event *e) {
    if (!conn->recognizer_count)
        return;
    if (e->input_kind == LAMINA_INPUT_TOUCH_CANCEL || e->input_kind == LAMINA_INPUT_POINTER_CANCEL) {
        handle_each(conn, NULL, e);
        return;
    }
    int depth = 0;
    for (const lamina_layer *l = e->layer; l && depth < 4096; l = lamina_layer_superlayer(l), depth++)
        for (size_t i = 0; i < conn->recognizer_count; i++)
            if (conn->recognizers[i]->layer == l) {
                handle_each(conn, l, e);
                return;
            }
}

void lm_gestures_tick(lamina_connection *conn) {
    if (!conn->recognizer_count)
        return;
    double now = lm_now(conn);
    for (size_t i = 0; i < conn->recognizer_count; i++)
        if (conn->recognizers[i]->has_deadline && now >= conn->recognizers[i]->deadline) {
            time_passed(conn->recognizers[i], now);
            i = (size_t)-1; /* a callback may have changed the list: from the start (each ends its wait once) */
        }
}
