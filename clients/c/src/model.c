/* liblamina's model of the client's tree: what lamina_connection_reconnect() replays on a new
 * laminad. Each layer keeps the last operation recorded for each of its properties and actions
 * (its bytes as they were sent), its superlayer and its sublayers in order; tagged animations
 * keep a copy and the beginTime they were given; images keep their memory file. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events.h"
#include "model.h"

#define PROPERTY_SPEED 21u
#define PROPERTY_TIME_OFFSET 22u
#define PROPERTY_BEGIN_TIME 23u
#define PROPERTY_NAME 11u

static double read_f64(const uint8_t *p) {
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | p[i];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

double lm_now(const lamina_connection *conn) {
    if (conn->virtual_clock)
        return conn->time;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

/* MARK: Entries */

static lm_entry *find_entry(lamina_layer *l, uint32_t key, const uint8_t *name, size_t name_length) {
    for (size_t i = 0; i < l->entry_count; i++) {
        lm_entry *e = &l->entries[i];
        if (e->key == key && (!name || (strlen(e->name) == name_length && memcmp(e->name, name, name_length) == 0)))
            return e;
    }
    return NULL;
}

/* The entry for `key` (and an action's `name`) now holds `op`. -1: out of memory, nothing changed. */
static int store(lamina_layer *l, uint32_t key, const uint8_t *name, size_t name_length, const uint8_t *op,
                 size_t length) {
    lm_entry *e = find_entry(l, key, name, name_length);
    if (e) {
        lm_buf copy = {0};
        lm_buf_bytes(&copy, op, length);
        if (copy.failed) {
            lm_buf_free(&copy);
            return -1;
        }
        lm_buf_free(&e->previous);
        e->previous = e->op;
        e->op = copy;
        return 0;
    }
    if (lm_grow((void **)&l->entries, &l->entry_capacity, l->entry_count, sizeof *l->entries))
        return -1;
    lm_entry n = {.key = key};
    if (name) {
        n.name = malloc(name_length + 1);
        if (!n.name)
            return -1;
        memcpy(n.name, name, name_length);
        n.name[name_length] = 0;
    }
    lm_buf_bytes(&n.op, op, length);
    if (n.op.failed) {
        lm_buf_free(&n.op);
        free(n.name);
        return -1;
    }
    l->entries[l->entry_count++] = n;
    return 0;
}

/* A number property's value in the model, or `otherwise`. */
static double number_value(lamina_layer *l, uint32_t property, double otherwise) {
    lm_entry *e = find_entry(l, property, NULL, 0);
    return e && e->op.length == 15 ? read_f64(e->op.data + 7) : otherwise;
}

void lm_scrolled(lamina_connection *conn, uint32_t number, double x, double y) {
    lamina_layer *l = lm_layer_at(conn, number);
    /* A set of the bounds laminad has not applied yet wins: its commit ends the scroll. */
    if (!l || (l->bounds_serial && (int32_t)(l->bounds_serial - conn->answered) > 0))
        return;
    l->scrolled = 1;
    l->scroll_x = x;
    l->scroll_y = y;
}

const uint8_t *lm_model_value(const lamina_layer *l, uint32_t property, size_t *length) {
    lm_entry *e = find_entry((lamina_layer *)l, property, NULL, 0);
    if (!e || e->op.length < 7)
        return NULL;
    *length = e->op.length - 7;
    return e->op.data + 7;
}

/* MARK: Sublayers */

void lm_model_take_out(lamina_connection *conn, lamina_layer *child) {
    lamina_layer *parent = child->parent == LM_NO_PARENT ? NULL : lm_layer_at(conn, child->parent);
    child->parent = LM_NO_PARENT;
    if (!parent)
        return;
    for (size_t i = 0; i < parent->child_count; i++)
        if (parent->children[i] == child->number) {
            memmove(parent->children + i, parent->children + i + 1, (parent->child_count - i - 1) * sizeof *parent->children);
            parent->child_count--;
            return;
        }
}

static int put_in(lamina_connection *conn, lamina_layer *parent, lamina_layer *child, uint32_t index) {
    if (lm_grow((void **)&parent->children, &parent->child_capacity, parent->child_count, sizeof *parent->children))
        return -1;
    lm_model_take_out(conn, child);
    size_t at = index < parent->child_count ? index : parent->child_count; /* clamped, as laminad does */
    memmove(parent->children + at + 1, parent->children + at, (parent->child_count - at) * sizeof *parent->children);
    parent->children[at] = child->number;
    parent->child_count++;
    child->parent = parent->number;
    return 0;
}

/* Whether `outer` is `inner` or one of its superlayers (walked up, bounded by the layer count). */
static int encloses(lamina_connection *conn, const lamina_layer *outer, const lamina_layer *inner) {
    size_t steps = 0, bound = (size_t)conn->next_layer + 1;
    for (const lamina_layer *l = inner; l && steps <= bound; steps++) {
        if (l == outer)
            return 1;
        l = l->parent == LM_NO_PARENT ? NULL : lm_layer_at(conn, l->parent);
    }
    return 0;
}

/* MARK: Noting operations */

void lm_model_animations_gone(lamina_connection *conn, uint32_t layer, const char *key) {
    size_t kept = 0;
    for (size_t i = 0; i < conn->tag_count; i++) {
        lm_tag t = conn->tags[i];
        if (t.layer == layer && !t.gone && (!key || strcmp(t.key, key) == 0)) {
            lamina_animation_free(t.animation); /* never replayed now */
            t.animation = NULL;
            t.gone = 1;
            if (t.finished) { /* its stop was delivered: nothing more to say about it */
                free(t.key);
                continue;
            }
            if (conn->fd < 0) /* laminad is away: its stop is owed now, not at the reconnection */
                lm_queue_stop(conn, &t);
        }
        conn->tags[kept++] = t;
    }
    conn->tag_count = kept;
}

int lm_model_note(lamina_connection *conn, const uint8_t *op, size_t length) {
    if (length < 5)
        return 0;
    lamina_layer *l = lm_layer_at(conn, lm_get_u32(op + 1));
    switch (op[0]) {
    case LM_OP_SET:
        if (l && length >= 7 && op[5] == 1 && op[6] == 0) {
            l->scrolled = 0; /* the client's bounds win over laminad's last scroll */
            l->bounds_serial = conn->serial == UINT32_MAX ? 1 : conn->serial + 1;
        }
        return l && length >= 7 ? store(l, (uint32_t)op[5] | (uint32_t)op[6] << 8, NULL, 0, op, length) : 0;
    case LM_OP_SET_ACTION: {
        if (!l || length < 10)
            return 0;
        uint32_t n = lm_get_u32(op + 6);
        if (n > length - 10)
            return 0;
        return store(l, LM_ACTION_KEY | op[5], op + 10, n, op, length);
    }
    case LM_OP_INSERT: {
        lamina_layer *child = length >= 13 ? lm_layer_at(conn, lm_get_u32(op + 5)) : NULL;
        if (!l || !child || child->number == 0 || encloses(conn, child, l))
            return 0; /* laminad refuses it (a cycle): the model stays as laminad keeps it */
        return put_in(conn, l, child, lm_get_u32(op + 9));
    }
    case LM_OP_REMOVE:
        if (l)
            lm_model_take_out(conn, l);
        return 0;
    case LM_OP_ADD_ANIMATION:
    case LM_OP_REMOVE_ANIMATION: {
        /* A keyed add replaces the layer's animation under that key; a remove removes it.
         * Unkeyed animations have no key to match: neither touches them (laminad's rule). */
        uint32_t n = length >= 9 ? lm_get_u32(op + 5) : 0;
        if (!l || n > length - 9 || n == 0)
            return 0;
        char *key = malloc(n + 1);
        if (!key)
            return -1;
        memcpy(key, op + 9, n);
        key[n] = 0;
        lm_model_animations_gone(conn, l->number, key);
        free(key);
        return 0;
    }
    case LM_OP_REMOVE_ALL_ANIMATIONS:
        if (l)
            lm_model_animations_gone(conn, l->number, NULL);
        return 0;
    default:
        return 0;
    }
}

void lm_model_free(lamina_layer *layer) {
    for (size_t i = 0; i < layer->entry_count; i++) {
        free(layer->entries[i].name);
        lm_buf_free(&layer->entries[i].op);
        lm_buf_free(&layer->entries[i].previous);
    }
    free(layer->entries);
    free(layer->children);
    layer->entries = NULL;
    layer->children = NULL;
    layer->entry_count = layer->entry_capacity = layer->child_count = layer->child_capacity = 0;
}

void lm_model_destroyed(lamina_connection *conn, lamina_layer *layer) {
    lm_model_take_out(conn, layer);
    for (size_t i = 0; i < layer->child_count; i++) {
        lamina_layer *child = lm_layer_at(conn, layer->children[i]);
        if (child)
            child->parent = LM_NO_PARENT;
    }
    layer->child_count = 0;
    lm_model_animations_gone(conn, layer->number, NULL);
    lm_model_free(layer);
}

/* MARK: A kept session taken over */

/* MARK: Time */

double lm_layer_time(lamina_connection *conn, const lamina_layer *layer, double t) {
    /* Ancestors first: t = (t − beginTime) × speed + timeOffset down the chain. The walk is
     * bounded by the number of layers (the model never holds a cycle, but it is not trusted). */
    size_t depth = 0, bound = (size_t)conn->next_layer + 1;
    for (const lamina_layer *l = layer; l && depth < bound; depth++)
        l = l->parent == LM_NO_PARENT ? NULL : lm_layer_at(conn, l->parent);
    lamina_layer **chain = malloc(depth * sizeof *chain);
    if (!chain)
        return t;
    size_t n = 0;
    for (lamina_layer *l = (lamina_layer *)layer; l && n < depth; n++) {
        chain[n] = l;
        l = l->parent == LM_NO_PARENT ? NULL : lm_layer_at(conn, l->parent);
    }
    for (size_t i = n; i-- > 0;)
        t = (t - number_value(chain[i], PROPERTY_BEGIN_TIME, 0)) * number_value(chain[i], PROPERTY_SPEED, 1) +
            number_value(chain[i], PROPERTY_TIME_OFFSET, 0);
    free(chain);
    return t;
}

/* MARK: Reading the model */

int lamina_connection_resumed(const lamina_connection *conn) { return conn ? conn->resumed : 0; }

lamina_layer *lamina_connection_layer(lamina_connection *conn, uint32_t number) {
    return conn ? lm_layer_at(conn, number) : NULL;
}

lamina_layer *lamina_connection_find_layer(lamina_connection *conn, const char *name) {
    if (!conn || !name)
        return NULL;
    size_t n = strlen(name);
    for (size_t i = 0; i <= conn->layer_capacity; i++) {
        lamina_layer *l = i == 0 ? &conn->root : i < conn->layer_capacity ? conn->layers[i] : NULL;
        lm_entry *e = l ? find_entry(l, PROPERTY_NAME, NULL, 0) : NULL;
        /* A string set: type, layer, property, then u32 length and the bytes. */
        if (e && e->op.length == 11 + n && lm_get_u32(e->op.data + 7) == n && memcmp(e->op.data + 11, name, n) == 0)
            return l;
    }
    return NULL;
}

lamina_layer *lamina_layer_superlayer(const lamina_layer *layer) {
    return layer && layer->parent != LM_NO_PARENT ? lm_layer_at(layer->conn, layer->parent) : NULL;
}

size_t lamina_layer_sublayer_count(const lamina_layer *layer) { return layer ? layer->child_count : 0; }

lamina_layer *lamina_layer_sublayer(const lamina_layer *layer, size_t index) {
    return layer && index < layer->child_count ? lm_layer_at(layer->conn, layer->children[index]) : NULL;
}
