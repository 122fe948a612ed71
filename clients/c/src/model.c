/* liblamina's model of the client's tree: what lamina_connection_reconnect() replays on a new
 * laminad. Each layer keeps the last operation recorded for each of its properties and actions
 * (its bytes as they were sent), its superlayer and its sublayers in order; tagged animations
 * keep a copy and the beginTime they were given; images keep their memory file. */
#define _GNU_SOURCE
#include "client.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#define PROPERTY_SPEED 21u
#define PROPERTY_TIME_OFFSET 22u
#define PROPERTY_BEGIN_TIME 23u
#define PROPERTY_NAME 11u

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static double read_f64(const uint8_t *p) {
    uint64_t bits = 0;
    for (int i = 7; i >= 0; i--)
        bits = bits << 8 | p[i];
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static lamina_layer *layer_at(lamina_connection *conn, uint32_t number) {
    if (number == 0)
        return &conn->root;
    return number < conn->layer_capacity ? conn->layers[number] : NULL;
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

/* MARK: Sublayers */

static void take_out(lamina_connection *conn, lamina_layer *child) {
    lamina_layer *parent = child->parent == LM_NO_PARENT ? NULL : layer_at(conn, child->parent);
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
    take_out(conn, child);
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
        l = l->parent == LM_NO_PARENT ? NULL : layer_at(conn, l->parent);
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
    lamina_layer *l = layer_at(conn, read_u32(op + 1));
    switch (op[0]) {
    case LM_OP_SET:
        return l && length >= 7 ? store(l, (uint32_t)op[5] | (uint32_t)op[6] << 8, NULL, 0, op, length) : 0;
    case LM_OP_SET_ACTION: {
        if (!l || length < 10)
            return 0;
        uint32_t n = read_u32(op + 6);
        if (n > length - 10)
            return 0;
        return store(l, LM_ACTION_KEY | op[5], op + 10, n, op, length);
    }
    case LM_OP_INSERT: {
        lamina_layer *child = length >= 13 ? layer_at(conn, read_u32(op + 5)) : NULL;
        if (!l || !child || child->number == 0 || encloses(conn, child, l))
            return 0; /* laminad refuses it (a cycle): the model stays as laminad keeps it */
        return put_in(conn, l, child, read_u32(op + 9));
    }
    case LM_OP_REMOVE:
        if (l)
            take_out(conn, l);
        return 0;
    case LM_OP_ADD_ANIMATION:
    case LM_OP_REMOVE_ANIMATION: {
        /* A keyed add replaces the layer's animation under that key; a remove removes it.
         * Unkeyed animations have no key to match: neither touches them (laminad's rule). */
        uint32_t n = length >= 9 ? read_u32(op + 5) : 0;
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
    take_out(conn, layer);
    for (size_t i = 0; i < layer->child_count; i++) {
        lamina_layer *child = layer_at(conn, layer->children[i]);
        if (child)
            child->parent = LM_NO_PARENT;
    }
    layer->child_count = 0;
    lm_model_animations_gone(conn, layer->number, NULL);
    lm_model_free(layer);
}

/* MARK: A kept session taken over */

/* Visits each operation of the welcome's snapshot: its type, layer number and bytes. */
typedef int (*snapshot_visitor)(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                                void *context);

static int walk_operations(lamina_connection *conn, const uint8_t *data, size_t length, uint32_t count,
                           snapshot_visitor visit, void *context) {
    lm_reader r = {.data = data, .length = length};
    for (uint32_t i = 0; i < count && !r.failed; i++) {
        size_t start = r.offset;
        uint32_t type = lm_read_u8(&r), number = lm_read_u32(&r);
        switch (type) {
        case LM_OP_CREATE:
            break;
        case LM_OP_CREATE_KIND:
            lm_read_u8(&r);
            break;
        case LM_OP_SET: {
            int value = (int)lamina_property_type((int)lm_read_u16(&r));
            if (!value)
                return LAMINA_ERROR_PROTOCOL;
            lm_skip_value(&r, value);
            break;
        }
        case LM_OP_INSERT:
            lm_read_bytes(&r, 8);
            break;
        case LM_OP_SET_ACTION: {
            size_t n;
            lm_read_u8(&r);
            lm_read_string(&r, &n);
            uint32_t action = lm_read_u8(&r);
            if (action > LAMINA_ACTION_ANIMATION)
                return LAMINA_ERROR_PROTOCOL;
            if (action == LAMINA_ACTION_ANIMATION)
                lm_skip_animation(&r, 0);
            break;
        }
        case LM_OP_ADD_ANIMATION: {
            size_t n;
            lm_read_string(&r, &n);
            lm_read_u32(&r);
            lm_skip_animation(&r, 0);
            break;
        }
        default:
            return LAMINA_ERROR_PROTOCOL;
        }
        if (r.failed || visit(conn, type, number, r.data + start, r.offset - start, context))
            return LAMINA_ERROR_PROTOCOL;
    }
    return r.failed || lm_reader_remaining(&r) ? LAMINA_ERROR_PROTOCOL : LAMINA_OK;
}

static int restore_one(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                       void *context) {
    (void)context;
    switch (type) {
    case LM_OP_CREATE:
    case LM_OP_CREATE_KIND: {
        uint32_t kind = type == LM_OP_CREATE_KIND ? op[5] : 0;
        if (number == 0 || number > LM_MAX_RESTORED_LAYER || kind > LAMINA_LAYER_KIND_TRANSFORM ||
            lm_reserve_layer(conn, number) || conn->layers[number])
            return -1;
        lamina_layer *l = calloc(1, sizeof *l);
        if (!l)
            return -1;
        l->conn = conn;
        l->number = number;
        l->kind = (uint8_t)kind;
        l->parent = LM_NO_PARENT;
        conn->layers[number] = l;
        if (number >= conn->next_layer)
            conn->next_layer = number + 1;
        return 0;
    }
    case LM_OP_SET:
        /* The session's images were made by an earlier client: new ones get numbers above them. */
        if (length == 11 && lamina_property_type((int)(op[5] | op[6] << 8)) == LAMINA_VALUE_IMAGE) {
            /* (Numbers past the cap are left alone: the image table is indexed by number.) */
            uint32_t image = read_u32(op + 7);
            if (image >= conn->next_image && image <= LM_MAX_RESTORED_LAYER)
                conn->next_image = image + 1;
        }
        return lm_model_note(conn, op, length);
    case LM_OP_INSERT:
    case LM_OP_SET_ACTION:
        return lm_model_note(conn, op, length);
    default: /* the animations run on in laminad: nothing to keep */
        return 0;
    }
}

static int walk_snapshot(lamina_connection *conn, snapshot_visitor visit, void *context) {
    return walk_operations(conn, conn->snapshot.data, conn->snapshot.length, conn->snapshot_count, visit, context);
}

int lm_model_restore(lamina_connection *conn) { return walk_snapshot(conn, restore_one, NULL); }

/* An add-animation of the `snapshot` reply on a layer this connection holds, under a key none of
 * its live animations has (an earlier client's): kept, untagged, length-prefixed in `context`. */
static int keep_foreign(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                        void *context) {
    if (type != LM_OP_ADD_ANIMATION || !layer_at(conn, number) || length < 13)
        return 0;
    uint32_t n = read_u32(op + 5);
    if (n > length - 13)
        return -1;
    for (size_t i = 0; i < conn->tag_count; i++) {
        const lm_tag *t = &conn->tags[i];
        if (!t->gone && t->layer == number && strlen(t->key) == n && memcmp(t->key, op + 9, n) == 0)
            return 0; /* this connection's own, replayed as such */
    }
    lm_buf *kept = context;
    lm_buf_u32(kept, (uint32_t)length);
    size_t at = kept->length;
    lm_buf_bytes(kept, op, length);
    if (kept->failed)
        return -1;
    memset(kept->data + at + 9 + n, 0, 4); /* tag 0: no events for it */
    return 0;
}

int lm_foreign_animations(lamina_connection *conn, const uint8_t *data, size_t length, lm_buf *kept) {
    lm_reader r = {.data = data, .length = length};
    uint32_t count = lm_read_u32(&r);
    if (r.failed)
        return LAMINA_ERROR_PROTOCOL;
    return walk_operations(conn, data + 4, length - 4, count, keep_foreign, kept);
}

static int destroy_one(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                       void *context) {
    (void)conn;
    (void)op;
    (void)length;
    if (type == LM_OP_CREATE || type == LM_OP_CREATE_KIND) {
        lm_buf *ops = context;
        lm_buf_u8(ops, LM_OP_DESTROY);
        lm_buf_u32(ops, number);
    }
    return 0;
}

static int find_image(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                      void *context) {
    (void)conn;
    (void)number;
    uint32_t *wanted = context;
    if (type == LM_OP_SET && length == 11 && lamina_property_type((int)(op[5] | op[6] << 8)) == LAMINA_VALUE_IMAGE &&
        read_u32(op + 7) == wanted[0])
        wanted[1] = 1;
    return 0;
}

int lm_snapshot_shows_image(lamina_connection *conn, uint32_t number) {
    uint32_t wanted[2] = {number, 0};
    return walk_snapshot(conn, find_image, wanted) == LAMINA_OK && wanted[1];
}

int lm_snapshot_destroys(lamina_connection *conn, lm_buf *ops, uint32_t *count) {
    size_t before = ops->length;
    int s = walk_snapshot(conn, destroy_one, ops);
    *count = (uint32_t)((ops->length - before) / 5);
    return s || ops->failed ? LAMINA_ERROR_PROTOCOL : LAMINA_OK;
}

/* MARK: Time */

double lm_layer_time(lamina_connection *conn, const lamina_layer *layer, double t) {
    /* Ancestors first: t = (t − beginTime) × speed + timeOffset down the chain. The walk is
     * bounded by the number of layers (the model never holds a cycle, but it is not trusted). */
    size_t depth = 0, bound = (size_t)conn->next_layer + 1;
    for (const lamina_layer *l = layer; l && depth < bound; depth++)
        l = l->parent == LM_NO_PARENT ? NULL : layer_at(conn, l->parent);
    lamina_layer **chain = malloc(depth * sizeof *chain);
    if (!chain)
        return t;
    size_t n = 0;
    for (lamina_layer *l = (lamina_layer *)layer; l && n < depth; n++) {
        chain[n] = l;
        l = l->parent == LM_NO_PARENT ? NULL : layer_at(conn, l->parent);
    }
    for (size_t i = n; i-- > 0;)
        t = (t - number_value(chain[i], PROPERTY_BEGIN_TIME, 0)) * number_value(chain[i], PROPERTY_SPEED, 1) +
            number_value(chain[i], PROPERTY_TIME_OFFSET, 0);
    free(chain);
    return t;
}

/* MARK: Replay */

static int listed(const uint32_t *list, size_t count, uint32_t number) {
    for (size_t i = 0; i < count; i++)
        if (list[i] == number)
            return 1;
    return 0;
}

/* Whether a set operation names a layer that is gone (destroyed: laminad cleared the mask) or
 * left out of this replay. Images are never left out: laminad draws no contents for an image
 * it does not have, and a taken-over session's images are laminad's, not this connection's. */
static int dangling(lamina_connection *conn, const lm_replay *r, const lm_entry *e) {
    if (e->key >= LM_ACTION_KEY || e->op.length != 11 || lamina_property_type((int)e->key) != LAMINA_VALUE_LAYER)
        return 0;
    uint32_t number = read_u32(e->op.data + 7);
    return number != 0 && (number >= conn->layer_capacity || !conn->layers[number] ||
                           listed(r->skipped_layers, r->skipped_layer_count, number));
}

/* A layer this replay leaves out (or the root, never). */
static int skipped(const lm_replay *r, uint32_t number) {
    return number != 0 && listed(r->skipped_layers, r->skipped_layer_count, number);
}

/* How far a re-timed animation on `l` moves: the clock's jump, in the layer's time. */
static double move_of(lamina_connection *conn, const lm_replay *r, const lamina_layer *l) {
    return r->shift == 0 ? 0 : lm_layer_time(conn, l, r->last + r->shift) - lm_layer_time(conn, l, r->last);
}

typedef struct batch {
    lm_buf *ops;
    uint32_t count;
    int *fds;
    size_t *fd_count;
} batch;

/* Whether an operation of `length` bytes (with `fds` descriptors) still fits; the first always does. */
static int fits(const batch *b, size_t length, size_t fds) {
    if (b->count <= 1)
        return 1;
    return b->count < LM_REPLAY_MAX_OPERATIONS && b->ops->length + length <= LM_REPLAY_MAX_BYTES &&
           *b->fd_count + fds <= LM_REPLAY_MAX_DESCRIPTORS;
}

uint32_t lm_replay_next(lamina_connection *conn, lm_replay *r, lm_buf *ops, int *fds, size_t *fd_count,
                        lm_replay_source *sources) {
    batch b = {ops, 0, fds, fd_count};
    ops->length = 0;
    *fd_count = 0;
    /* Every commit of the replay runs with actions disabled and the default duration. */
    lm_buf_u8(ops, LM_OP_SETTINGS);
    lm_buf_f64(ops, 0.25);
    lm_buf_u8(ops, 1);
    lm_buf_u32(ops, 0);
    sources[0] = (lm_replay_source){6, 0, 0};
    b.count = 1;
    while (r->prefix && r->prefix_index < r->prefix->length / 5 && fits(&b, 5, 0)) {
        lm_buf_bytes(ops, r->prefix->data + r->prefix_index * 5, 5);
        sources[b.count++] = (lm_replay_source){7, r->prefix_index++, 0};
    }
    lm_buf one = {0};
    while (r->stage < 6 && !ops->failed) {
        one.length = 0;
        int fd = -1;
        int advance_sub = 0;
        switch (r->stage) {
        case 0: { /* images, each with its memory file */
            if (r->index >= conn->image_capacity)
                goto next_stage;
            lamina_image *image = conn->images[r->index];
            if (!image || listed(r->skipped_images, r->skipped_image_count, image->number))
                break;
            lm_buf_u8(&one, LM_OP_CREATE_IMAGE);
            lm_buf_u32(&one, image->number);
            lm_buf_u32(&one, image->width);
            lm_buf_u32(&one, image->height);
            lm_buf_u32(&one, image->width * 4);
            lm_buf_u8(&one, image->format);
            lm_buf_u8(&one, image->alpha);
            lm_buf_u64(&one, 0);
            fd = image->fd;
            break;
        }
        case 1: { /* the layers */
            if (r->index >= conn->layer_capacity)
                goto next_stage;
            lamina_layer *l = r->index ? conn->layers[r->index] : NULL;
            if (!l || skipped(r, l->number))
                break;
            lm_buf_u8(&one, l->kind ? LM_OP_CREATE_KIND : LM_OP_CREATE);
            lm_buf_u32(&one, l->number);
            if (l->kind)
                lm_buf_u8(&one, l->kind);
            break;
        }
        case 2:   /* their values (the root's too) */
        case 4: { /* their actions */
            if (r->index >= conn->layer_capacity && r->index > 0)
                goto next_stage;
            lamina_layer *l = layer_at(conn, (uint32_t)r->index);
            if (!l || skipped(r, l->number) || r->sub >= l->entry_count)
                break;
            const lm_entry *e = &l->entries[r->sub];
            advance_sub = 1;
            if ((e->key >= LM_ACTION_KEY) != (r->stage == 4) || dangling(conn, r, e))
                break;
            lm_buf_bytes(&one, e->op.data, e->op.length);
            break;
        }
        case 3: { /* sublayers, in order */
            if (r->index >= conn->layer_capacity && r->index > 0)
                goto next_stage;
            lamina_layer *l = layer_at(conn, (uint32_t)r->index);
            if (!l || skipped(r, l->number) || r->sub >= l->child_count)
                break;
            advance_sub = 1;
            if (skipped(r, l->children[r->sub]))
                break;
            lm_buf_u8(&one, LM_OP_INSERT);
            lm_buf_u32(&one, l->number);
            lm_buf_u32(&one, l->children[r->sub]);
            lm_buf_u32(&one, LM_APPEND);
            break;
        }
        case 5: { /* animations still on their layers, re-timed */
            if (r->index >= conn->tag_count)
                goto next_stage;
            const lm_tag *t = &conn->tags[r->index];
            lamina_layer *l = layer_at(conn, t->layer);
            if (t->gone || !t->animation || !l || skipped(r, l->number))
                break;
            /* A stop read but not yet dispatched counts: a removed one is gone, a finished one stays. */
            int stop = lm_queued_stop(conn, t->tag);
            int finished = t->finished || stop == 1;
            if (stop == 0 || (finished && t->animation->removed_on_completion))
                break;
            lamina_animation a = *t->animation;
            a.begin_time = t->begin + move_of(conn, r, l); /* written back once the replay is applied */
            if (a.begin_time == 0) /* 0 would mean "when added": a time an instant before it */
                a.begin_time = -1e-9;
            lm_buf_u8(&one, LM_OP_ADD_ANIMATION);
            lm_buf_u32(&one, t->layer);
            lm_buf_string(&one, t->key);
            /* A finished one's events were all reported: none. */
            lm_buf_u32(&one, finished ? 0 : r->tag_base ? r->tag_base + (uint32_t)r->index : t->tag);
            lm_encode_animation(&one, &a);
            break;
        }
        }
        if (one.failed) {
            ops->failed = 1;
            break;
        }
        if (one.length) {
            if (!fits(&b, one.length, fd >= 0 ? 1 : 0))
                break; /* the next commit starts with it */
            if (fd >= 0) {
                int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
                if (copy < 0) {
                    ops->failed = 1;
                    break;
                }
                fds[(*fd_count)++] = copy;
            }
            lm_buf_bytes(ops, one.data, one.length);
            sources[b.count++] = (lm_replay_source){r->stage, r->index, r->sub};
        }
        if (advance_sub) {
            r->sub++;
        } else {
            r->index++;
            r->sub = 0;
        }
        continue;
    next_stage:
        r->stage++;
        r->index = 0;
        r->sub = 0;
    }
    /* Then the earlier client's animations laminad ran there (length-prefixed). */
    while (r->stage == 6 && r->suffix && !ops->failed) {
        if (r->suffix_offset + 4 > r->suffix->length)
            break;
        uint32_t n = read_u32(r->suffix->data + r->suffix_offset);
        if (!fits(&b, n, 0))
            break;
        lm_buf_bytes(ops, r->suffix->data + r->suffix_offset + 4, n);
        sources[b.count++] = (lm_replay_source){8, r->suffix_offset, 0};
        r->suffix_offset += 4 + (size_t)n;
    }
    lm_buf_free(&one);
    return ops->failed ? 0 : (b.count > 1 ? b.count : 0);
}

int lm_replay_drop(lamina_connection *conn, lm_replay *r, const lm_replay_source *source) {
    switch (source->stage) {
    case 0: {
        lamina_image *image = source->index < conn->image_capacity ? conn->images[source->index] : NULL;
        if (!image || r->skipped_image_count == sizeof r->skipped_images / sizeof r->skipped_images[0])
            return -1;
        r->skipped_images[r->skipped_image_count++] = image->number;
        return 0;
    }
    case 1:
        if (r->skipped_layer_count == sizeof r->skipped_layers / sizeof r->skipped_layers[0])
            return -1;
        r->skipped_layers[r->skipped_layer_count++] = (uint32_t)source->index;
        return 0;
    case 2:
    case 4: { /* a value or an action laminad refuses: the one before it, else none */
        lamina_layer *l = layer_at(conn, (uint32_t)source->index);
        if (!l || source->sub >= l->entry_count)
            return -1;
        lm_entry *e = &l->entries[source->sub];
        if (e->previous.length) {
            lm_buf_free(&e->op);
            e->op = e->previous;
            e->previous = (lm_buf){0};
            return 0;
        }
        free(e->name);
        lm_buf_free(&e->op);
        memmove(e, e + 1, (l->entry_count - source->sub - 1) * sizeof *e);
        l->entry_count--;
        return 0;
    }
    case 3: { /* a sublayer laminad refuses (a cycle, a mask): out of its superlayer */
        lamina_layer *l = layer_at(conn, (uint32_t)source->index);
        lamina_layer *child = l && source->sub < l->child_count ? layer_at(conn, l->children[source->sub]) : NULL;
        if (!child)
            return -1;
        take_out(conn, child);
        return 0;
    }
    case 8: { /* an earlier client's animation laminad refuses now: left out */
        if (!r->suffix || source->index + 4 > r->suffix->length)
            return -1;
        size_t n = 4 + (size_t)read_u32(r->suffix->data + source->index);
        memmove(r->suffix->data + source->index, r->suffix->data + source->index + n, r->suffix->length - source->index - n);
        r->suffix->length -= n;
        return 0;
    }
    case 7: { /* a destroy of something laminad does not have after all */
        if (!r->prefix || source->index >= r->prefix->length / 5)
            return -1;
        size_t at = source->index * 5;
        memmove(r->prefix->data + at, r->prefix->data + at + 5, r->prefix->length - at - 5);
        r->prefix->length -= 5;
        return 0;
    }
    case 5: {
        if (source->index >= conn->tag_count)
            return -1;
        lm_tag *t = &conn->tags[source->index]; /* this one only (others may share an empty key) */
        lamina_animation_free(t->animation);
        t->animation = NULL;
        t->gone = 1;
        return 0;
    }
    default:
        return -1;
    }
}

void lm_model_retimed(lamina_connection *conn, double last, double shift) {
    if (shift == 0)
        return;
    lm_replay r = {.last = last, .shift = shift};
    for (size_t i = 0; i < conn->tag_count; i++) {
        lamina_layer *l = layer_at(conn, conn->tags[i].layer);
        if (l && !conn->tags[i].gone)
            conn->tags[i].begin += move_of(conn, &r, l);
    }
}

/* MARK: Reading the model */

int lamina_connection_resumed(const lamina_connection *conn) { return conn ? conn->resumed : 0; }

lamina_layer *lamina_connection_layer(lamina_connection *conn, uint32_t number) {
    return conn ? layer_at(conn, number) : NULL;
}

lamina_layer *lamina_connection_find_layer(lamina_connection *conn, const char *name) {
    if (!conn || !name)
        return NULL;
    size_t n = strlen(name);
    for (size_t i = 0; i <= conn->layer_capacity; i++) {
        lamina_layer *l = i == 0 ? &conn->root : i < conn->layer_capacity ? conn->layers[i] : NULL;
        lm_entry *e = l ? find_entry(l, PROPERTY_NAME, NULL, 0) : NULL;
        /* A string set: type, layer, property, then u32 length and the bytes. */
        if (e && e->op.length == 11 + n && read_u32(e->op.data + 7) == n && memcmp(e->op.data + 11, name, n) == 0)
            return l;
    }
    return NULL;
}

lamina_layer *lamina_layer_superlayer(const lamina_layer *layer) {
    return layer && layer->parent != LM_NO_PARENT ? layer_at(layer->conn, layer->parent) : NULL;
}

size_t lamina_layer_sublayer_count(const lamina_layer *layer) { return layer ? layer->child_count : 0; }

lamina_layer *lamina_layer_sublayer(const lamina_layer *layer, size_t index) {
    return layer && index < layer->child_count ? layer_at(layer->conn, layer->children[index]) : NULL;
}
