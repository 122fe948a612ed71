/* The calls that move the traffic on: commit, sync, flush and dispatch. Each finds laminad gone
 * and, with automatic reconnection, connects again first (lm_recover). */
#include <stdlib.h>

#include "events.h"
#include "stream.h"
#include "pending.h"
#include "reconnect.h"

int lamina_connection_commit(lamina_connection *conn) {
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (conn->frame_count)
        return LAMINA_ERROR_STATE;
    /* After a loss the replay carries what is pending. */
    s = lm_recover(conn, lm_check_open(conn));
    if (s == LAMINA_OK)
        s = lm_recover(conn, lm_send_pending(conn));
    return s < 0 ? s : LAMINA_OK;
}

int lamina_connection_sync(lamina_connection *conn, char **error) {
    int s = conn ? lm_recover(conn, lm_check_open(conn)) : LAMINA_ERROR_INVALID_ARGUMENT;
    if (s) {
        if (conn)
            lm_status_error(conn, s, error);
        else
            lm_set_error(error, "no connection");
        return s;
    }
    if (!conn->frame_count)
        s = lm_recover(conn, lm_send_pending(conn));
    while (s == LAMINA_OK && (int32_t)(conn->serial - conn->answered) > 0)
        s = lm_recover(conn, lm_pump(conn)); /* a replay is waited for before it returns */
    lm_dispatch_events(conn);
    if (conn->unreported) {
        if (error)
            *error = conn->unreported;
        else
            free(conn->unreported);
        conn->unreported = NULL;
        return LAMINA_ERROR_SERVER;
    }
    if (s)
        lm_status_error(conn, s, error);
    return s;
}

int lamina_connection_flush(lamina_connection *conn) {
    int s = lm_check_open(conn);
    if (s && (s = lm_recover(conn, s)) == LAMINA_OK)
        return conn->out.length > 0;
    return s ? s : lm_flush(conn);
}

int lamina_connection_dispatch(lamina_connection *conn) {
    if (!conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int s = lm_handle_input(conn, NULL);
    if (s == LAMINA_OK)
        s = lm_read_available(conn);
    s = lm_recover(conn, s);
    int count = lm_dispatch_events(conn);
    return s ? s : count;
}
