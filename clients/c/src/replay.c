/* The model as replay commits, under laminad's limits: images, layers, values, sublayers, actions
 * and animations (re-timed), a held session's destroys first and its earlier client's animations
 * last; an operation laminad refused is left out of the model. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "animation.h"
#include "events.h"
#include "model.h"
#include "pending.h"
#include "replay.h"

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
    uint32_t number = lm_get_u32(e->op.data + 7);
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
        case 0: { /* images, each with its memory file; then videos, each with how it plays */
            if (r->index >= conn->image_capacity) {
                size_t v = r->index - conn->image_capacity;
                if (v >= conn->video_count)
                    goto next_stage;
                const lamina_video *video = conn->videos[v];
                advance_sub = r->sub < 5;
                if (listed(r->skipped_images, r->skipped_image_count, video->number))
                    break;
                switch (r->sub) {
                case 0: lm_encode_create_video(&one, video); break;
                case 1: if (video->loop) lm_encode_control_video(&one, video->number, 4, 1); break;
                case 2: if (video->rate != 1) lm_encode_control_video(&one, video->number, 3, video->rate); break;
                case 3: if (video->volume != 1) lm_encode_control_video(&one, video->number, 5, video->volume); break;
                case 4: if (video->muted) lm_encode_control_video(&one, video->number, 6, 1); break;
                default: if (video->play_requested) lm_encode_control_video(&one, video->number, 0, 0); break;
                }
                break;
            }
            lamina_image *image = conn->images[r->index];
            if (!image || listed(r->skipped_images, r->skipped_image_count, image->number))
                break;
            lm_encode_create_image(&one, image);
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
            lamina_layer *l = lm_layer_at(conn, (uint32_t)r->index);
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
            lamina_layer *l = lm_layer_at(conn, (uint32_t)r->index);
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
            lamina_layer *l = lm_layer_at(conn, t->layer);
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
        uint32_t n = lm_get_u32(r->suffix->data + r->suffix_offset);
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
        /* An image, or a video's create or control: that image or video is left out. */
        size_t v = source->index - conn->image_capacity;
        uint32_t number = source->index < conn->image_capacity
                              ? (conn->images[source->index] ? conn->images[source->index]->number : 0)
                              : (v < conn->video_count ? conn->videos[v]->number : 0);
        if (!number || r->skipped_image_count == sizeof r->skipped_images / sizeof r->skipped_images[0])
            return -1;
        r->skipped_images[r->skipped_image_count++] = number;
        return 0;
    }
    case 1:
        if (r->skipped_layer_count == sizeof r->skipped_layers / sizeof r->skipped_layers[0])
            return -1;
        r->skipped_layers[r->skipped_layer_count++] = (uint32_t)source->index;
        return 0;
    case 2:
    case 4: { /* a value or an action laminad refuses: the one before it, else none */
        lamina_layer *l = lm_layer_at(conn, (uint32_t)source->index);
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
        lamina_layer *l = lm_layer_at(conn, (uint32_t)source->index);
        lamina_layer *child = l && source->sub < l->child_count ? lm_layer_at(conn, l->children[source->sub]) : NULL;
        if (!child)
            return -1;
        lm_model_take_out(conn, child);
        return 0;
    }
    case 8: { /* an earlier client's animation laminad refuses now: left out */
        if (!r->suffix || source->index + 4 > r->suffix->length)
            return -1;
        size_t n = 4 + (size_t)lm_get_u32(r->suffix->data + source->index);
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
        lamina_layer *l = lm_layer_at(conn, conn->tags[i].layer);
        if (l && !conn->tags[i].gone)
            conn->tags[i].begin += move_of(conn, &r, l);
    }
}
