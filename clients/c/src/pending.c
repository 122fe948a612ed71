/* The pending commit: the operations recorded since the last commit, under the settings of the
 * open transactions (a settings operation goes first whenever they change); sent as one commit,
 * or dropped (a loss: the model has them for the replay). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "model.h"
#include "stream.h"
#include "pending.h"

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

void lm_free_settings(lm_settings *s) {
    free(s->groups);
    s->groups = NULL;
    s->group_count = 0;
}

void lm_discard_pending(lamina_connection *conn) {
    for (size_t i = 0; i < conn->fd_count; i++)
        close(conn->fds[i]);
    conn->fd_count = 0;
    conn->image_ops.length = conn->ops.length = conn->tail_ops.length = 0;
    conn->image_op_count = conn->op_count = conn->tail_op_count = 0;
    lm_free_settings(&conn->current);
    conn->current.duration = LM_DEFAULT_DURATION;
    conn->current.has_timing = 0;
    conn->current.disable_actions = 0;
    conn->sent_group_count = 0;
}

int lm_send_pending(lamina_connection *conn) {
    int s = lm_check_open(conn);
    if (s)
        return s;
    /* A transaction with a completion that sent nothing completes at once (after this commit). */
    for (size_t i = 0; i < conn->closed_group_count; i++) {
        uint32_t group = conn->closed_groups[i];
        int sent = 0;
        for (size_t j = 0; j < conn->sent_group_count && !sent; j++)
            sent = conn->sent_groups[j] == group;
        if (!sent) {
            lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
            if (q)
                q->event.group = group;
        }
    }
    conn->closed_group_count = 0;
    uint32_t count = conn->image_op_count + conn->op_count + conn->tail_op_count;
    if (count == 0) {
        lm_discard_pending(conn);
        return LAMINA_OK;
    }
    uint32_t serial = conn->serial == UINT32_MAX ? 1 : conn->serial + 1;
    lm_buf frame = {0};
    size_t start = lm_frame_begin(&frame, LM_MSG_COMMIT);
    lm_buf_u32(&frame, serial);
    lm_buf_u32(&frame, count);
    lm_buf_bytes(&frame, conn->image_ops.data, conn->image_ops.length);
    lm_buf_bytes(&frame, conn->ops.data, conn->ops.length);
    lm_buf_bytes(&frame, conn->tail_ops.data, conn->tail_ops.length);
    lm_frame_end(&frame, start);
    if (frame.failed) {
        lm_buf_free(&frame);
        return LAMINA_ERROR_NO_MEMORY; /* the changes stay pending */
    }
    s = lm_send_frame(conn, &frame, conn->fds, conn->fd_count);
    lm_buf_free(&frame);
    lm_discard_pending(conn);
    if (s == LAMINA_OK)
        conn->serial = serial;
    return s;
}
