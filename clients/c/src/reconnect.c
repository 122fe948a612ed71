/* The reconnection: a new socket and hello, the model replayed in commits (an operation laminad
 * refuses left out and the commit sent again), a kept session laminad still holds taken over,
 * and the events the loss owes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "model.h"
#include "snapshot.h"
#include "replay.h"
#include "stream.h"
#include "pending.h"
#include "connection.h"
#include "reconnect.h"
#include "messages.h"

int lamina_connection_set_reconnect(lamina_connection *conn, int attempts, int initial_delay_ms, int max_delay_ms) {
    if (!conn || attempts < 0 || initial_delay_ms < 0 || max_delay_ms < initial_delay_ms)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (attempts > 0 && !conn->path)
        return LAMINA_ERROR_STATE; /* made from a descriptor: nowhere to connect again */
    conn->reconnect_attempts = attempts;
    conn->reconnect_initial_ms = initial_delay_ms;
    conn->reconnect_max_ms = max_delay_ms;
    return LAMINA_OK;
}

/* Forgets the old socket's traffic: what was pending is in the model, answers will not come. */
static void reset_stream(lamina_connection *conn) {
    if (conn->fd >= 0)
        close(conn->fd);
    conn->fd = -1;
    conn->in.length = conn->out.length = 0;
    conn->in.failed = conn->out.failed = 0;
    conn->welcomed = 0;
    free(conn->fatal);
    conn->fatal = NULL;
    free(conn->closed_reason);
    conn->closed_reason = NULL;
    conn->awaiting = 0;
    conn->reply_state = 0;
    conn->reply.length = 0;
    free(conn->reply_error);
    conn->reply_error = NULL;
    conn->serial = conn->answered = 0;
    lm_discard_pending(conn);
    conn->closed_group_count = 0; /* their completions come with the reconnection */
}

/* A request answered into conn->reply, with no events dispatched (inside a reconnection).
 * LAMINA_ERROR_SERVER when laminad refused it or answered another kind. */
static int ask_quietly(lamina_connection *conn, uint32_t kind, uint32_t reply_kind) {
    int s = lm_exchange(conn, kind, NULL);
    if (s == LAMINA_OK && (conn->reply_state != 1 || conn->reply_kind != reply_kind))
        s = LAMINA_ERROR_SERVER;
    return s;
}

/* The replay: the model in commits under laminad's limits, each waited for. An operation
 * laminad refuses (a value or sublayer it refused before the loss, which the model kept, or one
 * that a changed configuration refuses) is left out of the model and the commit sent again
 * without it, at most 64 times; *dropped counts them and *first_refusal keeps the first message. */
static int replay(lamina_connection *conn, double last, double shift, int *dropped, char **first_refusal, char **error) {
    lm_replay r = {.last = last, .shift = shift};
    lm_buf ops = {0};
    int *fds = malloc(LM_REPLAY_MAX_DESCRIPTORS * sizeof *fds);
    lm_replay_source *sources = malloc(LM_REPLAY_MAX_OPERATIONS * sizeof *sources);
    size_t fd_count = 0;
    int s = fds && sources ? LAMINA_OK : LAMINA_ERROR_NO_MEMORY;
    /* A kept session laminad still holds (it dropped this client, or restored it from its
     * journal): its layers and this connection's images are destroyed at the start of the
     * first commit, which makes them again (a destroy laminad refuses is left out). */
    lm_buf prefix = {0}, suffix = {0};
    /* The events queued before the replay are this connection's (renamed with their animations
     * below); those arriving during it with an old tag are laminad's old copies', which the
     * replay's destroys stopped (on a slow client a frame may report them before it ends). */
    size_t queued = conn->event_count - conn->event_head;
    if (s == LAMINA_OK && conn->snapshot_count > 0) {
        /* The animations laminad runs there that this connection did not add (an earlier
         * client's): the destroys would end them, so they go again at the end, as laminad has them. */
        if (ask_quietly(conn, LM_REQ_SNAPSHOT, 9) == LAMINA_OK &&
            lm_foreign_animations(conn, conn->reply.data, conn->reply.length, &suffix) == LAMINA_OK)
            r.suffix = &suffix;
        uint32_t count = 0;
        s = conn->fd < 0 ? LAMINA_ERROR_CLOSED : lm_snapshot_destroys(conn, &prefix, &count);
        /* (laminad destroyed the session's images no layer shows when it was taken over.) */
        for (size_t i = 0; i < conn->image_capacity && s == LAMINA_OK; i++)
            if (conn->images[i] && lm_snapshot_shows_image(conn, conn->images[i]->number)) {
                lm_buf_u8(&prefix, LM_OP_DESTROY_IMAGE);
                lm_buf_u32(&prefix, conn->images[i]->number);
            }
        if (prefix.failed)
            s = LAMINA_ERROR_NO_MEMORY;
        r.prefix = &prefix;
        r.tag_base = (uint64_t)conn->next_tag + conn->tag_count < UINT32_MAX ? conn->next_tag : 1;
    }
    while (s == LAMINA_OK) {
        lm_replay before = r;
        uint32_t count = lm_replay_next(conn, &r, &ops, fds, &fd_count, sources);
        if (ops.failed) {
            s = LAMINA_ERROR_NO_MEMORY;
        } else if (count > 0) {
            uint32_t serial = conn->serial + 1;
            lm_buf frame = {0};
            size_t start = lm_frame_begin(&frame, LM_MSG_COMMIT);
            lm_buf_u32(&frame, serial);
            lm_buf_u32(&frame, count);
            lm_buf_bytes(&frame, ops.data, ops.length);
            lm_frame_end(&frame, start);
            s = frame.failed ? LAMINA_ERROR_NO_MEMORY : lm_send_frame(conn, &frame, fds, fd_count);
            lm_buf_free(&frame);
            if (s == LAMINA_OK)
                conn->serial = serial;
        }
        for (size_t i = 0; i < fd_count; i++)
            close(fds[i]);
        fd_count = 0;
        if (count == 0 || s != LAMINA_OK)
            break;
        while (s == LAMINA_OK && (int32_t)(conn->serial - conn->answered) > 0)
            s = lm_pump(conn);
        if (s != LAMINA_OK || !conn->unreported)
            continue;
        /* Refused: which operation, and where it came from. */
        int32_t index = conn->refused_serial == conn->serial ? conn->refused_index : -1;
        if (index < 0 || (uint32_t)index >= count || *dropped >= 64 || lm_replay_drop(conn, &before, &sources[index])) {
            lm_set_error(error, "laminad refused the replayed model: %s", conn->unreported);
            free(conn->unreported);
            conn->unreported = NULL;
            s = LAMINA_ERROR_SERVER;
            break;
        }
        if (!*first_refusal)
            *first_refusal = conn->unreported;
        else
            free(conn->unreported);
        conn->unreported = NULL;
        (*dropped)++;
        r = before; /* that commit again, without it */
    }
    if (s == LAMINA_OK && r.tag_base) {
        /* The animations carry their new tags from now on (and events already queued with them). */
        for (size_t i = 0; i < conn->tag_count; i++) {
            uint32_t old = conn->tags[i].tag, renamed = r.tag_base + (uint32_t)i;
            for (size_t e = conn->event_head; e < conn->event_head + queued && e < conn->event_count; e++)
                if (conn->events[e].tag == old)
                    conn->events[e].tag = renamed;
            conn->tags[i].tag = renamed;
        }
        conn->next_tag = r.tag_base + (uint32_t)conn->tag_count;
        if (conn->next_tag == 0 || conn->next_tag == UINT32_MAX)
            conn->next_tag = 1;
    }
    free(fds);
    free(sources);
    lm_buf_free(&ops);
    lm_buf_free(&prefix);
    lm_buf_free(&suffix);
    if (s && s != LAMINA_ERROR_SERVER)
        lm_status_error(conn, s, error);
    return s;
}

/* One attempt: a new socket, the hello, the replay; then the events the loss owes. A failure
 * leaves the connection closed (another attempt may follow). */
static int reconnect_once(lamina_connection *conn, int attempts, char **error) {
    double last = lm_now(conn);
    int was_virtual = conn->virtual_clock;
    reset_stream(conn);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(conn->path) >= sizeof address.sun_path) {
        lm_set_error(error, "%s: the path is too long for a Unix socket", conn->path);
        return lm_close_with(conn, LAMINA_ERROR_CLOSED, "cannot connect again: the path is too long for a Unix socket");
    }
    memcpy(address.sun_path, conn->path, strlen(conn->path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        lm_set_error(error, "cannot connect again to %s: %s", conn->path, strerror(e));
        char *reason = lm_strdup_printf("cannot connect again to %s: %s", conn->path, strerror(e));
        lm_close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "cannot connect again");
        free(reason);
        return LAMINA_ERROR_CLOSED;
    }
    conn->fd = fd;
    /* Kept aside: a refusal of the replay is the replay's; the old ones are still the next sync's. */
    char *unreported = conn->unreported;
    conn->unreported = NULL;
    int dropped = 0;
    char *first_refusal = NULL;
    /* The real clock kept running through the gap; a virtual one (either side) jumps. */
    double shift = 0;
    int s = lm_say_hello(conn, conn->client_name, error);
    if (s == LAMINA_OK) {
        shift = was_virtual || conn->virtual_clock ? conn->time - last : 0;
        s = replay(conn, last, shift, &dropped, &first_refusal, error);
    }
    free(conn->unreported);
    conn->unreported = unreported;
    if (s) {
        free(first_refusal);
        if (conn->fd >= 0)
            lm_close_with(conn, s, s == LAMINA_ERROR_SERVER ? "laminad refused the replayed model" : "the replay failed");
        return s;
    }
    lm_model_retimed(conn, last, shift);
    lm_display_links_replay(conn);
    lm_apps_replay(conn);
    /* Animations removed before the loss whose stop laminad never reported: stopped now. */
    for (size_t i = 0; i < conn->tag_count; i++)
        if (conn->tags[i].gone)
            lm_queue_stop(conn, &conn->tags[i]);
    /* Transactions committed before the loss: their animations went with the old laminad (those
     * still running came back in the replay, in no transaction), so they are complete. */
    for (size_t i = 0; i < conn->completion_count; i++) {
        int open = 0;
        for (size_t j = 0; j < conn->frame_count && !open; j++)
            open = conn->frames[j].group == conn->completions[i].group;
        if (open || lm_completion_queued(conn, conn->completions[i].group))
            continue;
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
        if (!q)
            break;
        q->event.group = conn->completions[i].group;
    }
    lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_RECONNECTED);
    if (q) {
        q->event.attempts = attempts;
        if (dropped)
            q->text = lm_strdup_printf("laminad refused %d operation%s of the replayed model, left out of it (the first: %s)",
                                       dropped, dropped == 1 ? "" : "s", first_refusal ? first_refusal : "?");
    }
    free(first_refusal);
    return LAMINA_OK;
}

int lamina_connection_reconnect(lamina_connection *conn, char **error) {
    if (!conn) {
        lm_set_error(error, "no connection");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    if (!conn->path) {
        lm_set_error(error, "the connection was made from a descriptor: there is nowhere to connect again");
        return LAMINA_ERROR_STATE;
    }
    if (conn->reconnecting || conn->dispatching) {
        lm_set_error(error, "lamina_connection_reconnect cannot be called from a callback");
        return LAMINA_ERROR_STATE;
    }
    conn->reconnecting = 1;
    int s = reconnect_once(conn, 1, error);
    conn->reconnecting = 0;
    return s;
}

int lm_recover(lamina_connection *conn, int status) {
    if ((status != LAMINA_ERROR_CLOSED && status != LAMINA_ERROR_IO) || conn->fd >= 0 ||
        conn->reconnect_attempts <= 0 || !conn->path || conn->reconnecting || conn->dispatching)
        return status;
    conn->reconnecting = 1;
    int delay = conn->reconnect_initial_ms, s = status;
    char *why = NULL;
    for (int attempt = 1; attempt <= conn->reconnect_attempts; attempt++) {
        nanosleep(&(struct timespec){delay / 1000, (long)(delay % 1000) * 1000000L}, NULL);
        free(why);
        why = NULL;
        s = reconnect_once(conn, attempt, &why);
        if (s == LAMINA_OK || s == LAMINA_ERROR_SERVER || s == LAMINA_ERROR_NO_MEMORY)
            break; /* connected, or laminad refused the model: another try would not change it */
        delay = delay > conn->reconnect_max_ms / 2 ? conn->reconnect_max_ms : delay * 2;
    }
    conn->reconnecting = 0;
    if (s == LAMINA_ERROR_SERVER) {
        /* laminad refuses the model itself: closed for good, no more tries. */
        free(conn->closed_reason);
        conn->closed_reason = why;
        why = NULL;
        conn->reconnect_attempts = 0;
        s = LAMINA_ERROR_CLOSED;
    } else if (s != LAMINA_OK) {
        free(conn->closed_reason);
        conn->closed_reason = lm_strdup_printf("laminad went away and %d tries to connect again failed (the last: %s)",
                                               conn->reconnect_attempts, why ? why : "?");
        s = LAMINA_ERROR_CLOSED;
    }
    free(why);
    return s;
}
