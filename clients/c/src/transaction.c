/* Transactions: nested settings (duration, timing, disabled actions, a completion) for the
 * changes recorded inside them; the outermost one's end commits. */
#include <string.h>

#include "stream.h"

int lamina_transaction_begin(lamina_connection *conn) {
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (lm_grow((void **)&conn->frames, &conn->frame_capacity, conn->frame_count, sizeof *conn->frames))
        return LAMINA_ERROR_NO_MEMORY;
    lm_frame *f = &conn->frames[conn->frame_count++];
    memset(f, 0, sizeof *f);
    f->disable_state = -1;
    return LAMINA_OK;
}

static lm_frame *innermost(lamina_connection *conn) {
    return conn && conn->frame_count ? &conn->frames[conn->frame_count - 1] : NULL;
}

int lamina_transaction_set_duration(lamina_connection *conn, double seconds) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->has_duration = 1;
    f->duration = seconds;
    return LAMINA_OK;
}

int lamina_transaction_set_timing_function(lamina_connection *conn, const char *name) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (!name) {
        f->timing_state = 1;
        return LAMINA_OK;
    }
    double t[4];
    if (lm_timing_named(name, t))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    f->timing_state = 2;
    memcpy(f->timing, t, sizeof t);
    return LAMINA_OK;
}

int lamina_transaction_set_timing_curve(lamina_connection *conn, double c1x, double c1y, double c2x, double c2y) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->timing_state = 2;
    f->timing[0] = c1x;
    f->timing[1] = c1y;
    f->timing[2] = c2x;
    f->timing[3] = c2y;
    return LAMINA_OK;
}

int lamina_transaction_set_disable_actions(lamina_connection *conn, int disable) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    f->disable_state = disable ? 1 : 0;
    return LAMINA_OK;
}

int lamina_transaction_set_completion(lamina_connection *conn, lamina_completion_callback callback, void *user) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (f->group) {
        for (size_t i = 0; i < conn->completion_count; i++)
            if (conn->completions[i].group == f->group) {
                conn->completions[i].callback = callback;
                conn->completions[i].user = user;
            }
        return LAMINA_OK;
    }
    if (lm_grow((void **)&conn->completions, &conn->completion_capacity, conn->completion_count,
                sizeof *conn->completions))
        return LAMINA_ERROR_NO_MEMORY;
    uint32_t group = conn->next_group;
    conn->next_group = group == UINT32_MAX ? 1 : group + 1;
    conn->completions[conn->completion_count++] = (lm_completion){group, callback, user};
    f->group = group;
    return LAMINA_OK;
}

int lamina_transaction_commit(lamina_connection *conn) {
    lm_frame *f = innermost(conn);
    if (!f)
        return conn ? LAMINA_ERROR_STATE : LAMINA_ERROR_INVALID_ARGUMENT;
    if (f->group) {
        if (lm_grow((void **)&conn->closed_groups, &conn->closed_group_capacity, conn->closed_group_count,
                    sizeof *conn->closed_groups) == 0)
            conn->closed_groups[conn->closed_group_count++] = f->group;
    }
    conn->frame_count--;
    if (conn->frame_count == 0)
        return lamina_connection_commit(conn); /* (which reconnects, when that is on) */
    return LAMINA_OK;
}
