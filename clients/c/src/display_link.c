/* Display links (CADisplayLink, protocol 1.7): the display-link request, the frame message
 * queued as LAMINA_EVENT_FRAME, and its dispatch: the links' callbacks, then the commit that
 * answers the frame (empty when the callbacks changed nothing). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "messages.h"
#include "pending.h"
#include "stream.h"

struct lamina_display_link {
    lamina_connection *conn;
    uint32_t number;
    lamina_display_link_callback callback;
    void *user;
    int paused;
    lamina_frame_rate_range range;
    char *output;
    double timestamp, target_timestamp, duration;
    uint64_t frame_count;
};

static void link_arguments(lm_buf *arguments, const lamina_display_link *link, int remove) {
    lm_buf_u32(arguments, link->number);
    lm_buf_u8(arguments, remove ? 0 : 1); /* displayLinkChanges */
    if (!remove) {
        lm_buf_u8(arguments, link->paused ? 1 : 0);
        lm_buf_f64(arguments, link->range.minimum);
        lm_buf_f64(arguments, link->range.maximum);
        lm_buf_f64(arguments, link->range.preferred);
        lm_buf_string(arguments, link->output ? link->output : "");
    }
}

void lm_display_links_replay(lamina_connection *conn) {
    for (size_t i = 0; i < conn->display_link_capacity; i++) {
        lamina_display_link *link = conn->display_links[i];
        if (!link)
            continue;
        for (int attempt = 0; attempt < 2; attempt++) {
            lm_buf arguments = {0};
            link_arguments(&arguments, link, 0);
            int s = arguments.failed ? LAMINA_ERROR_NO_MEMORY : lm_exchange(conn, LM_REQ_DISPLAY_LINK, &arguments);
            lm_buf_free(&arguments);
            /* An output the new laminad lacks: the link follows the fastest. */
            if (s != LAMINA_OK || conn->reply_state != 2 || !link->output || !*link->output)
                break;
            link->output[0] = 0;
        }
    }
}

/* The display-link request: set (create or update) or remove. */
static int send_link(lamina_display_link *link, int remove, char **error) {
    lm_buf arguments = {0};
    link_arguments(&arguments, link, remove);
    int s = arguments.failed ? LAMINA_ERROR_NO_MEMORY : lm_request(link->conn, LM_REQ_DISPLAY_LINK, &arguments, 10, error);
    lm_buf_free(&arguments);
    return s;
}

static void free_link(lamina_display_link *link) {
    free(link->output);
    free(link);
}

lamina_display_link *lamina_display_link_create(lamina_connection *conn, const char *output,
                                                lamina_display_link_callback callback, void *user, char **error) {
    if (!conn || !callback || (output && strlen(output) > LM_KEY_LIMIT)) {
        lm_set_error(error, "lamina_display_link_create: a connection, a callback and an output name of at most 256 bytes (NULL or \"\": the fastest)");
        return NULL;
    }
    if (conn->welcomed && conn->server_minor < 7) {
        lm_set_error(error, "laminad speaks protocol %u.%u; display links need 1.7", conn->server_major, conn->server_minor);
        return NULL;
    }
    lamina_display_link *link = calloc(1, sizeof *link);
    char *name = strdup(output ? output : "");
    if (!link || !name) {
        free(link);
        free(name);
        lm_set_error(error, "out of memory");
        return NULL;
    }
    if (conn->next_display_link == 0)
        conn->next_display_link = 1;
    link->conn = conn;
    link->number = conn->next_display_link;
    link->callback = callback;
    link->user = user;
    link->output = name;
    size_t index = link->number;
    while (index >= conn->display_link_capacity) {
        size_t old = conn->display_link_capacity;
        if (lm_grow((void **)&conn->display_links, &conn->display_link_capacity, old, sizeof *conn->display_links)) {
            free_link(link);
            lm_set_error(error, "out of memory");
            return NULL;
        }
        memset(conn->display_links + old, 0, (conn->display_link_capacity - old) * sizeof *conn->display_links);
    }
    if (send_link(link, 0, error) != LAMINA_OK) {
        free_link(link);
        return NULL;
    }
    conn->display_links[index] = link;
    conn->next_display_link++;
    return link;
}

int lamina_display_link_set_paused(lamina_display_link *link, int paused, char **error) {
    if (!link)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (!paused == !link->paused)
        return LAMINA_OK;
    link->paused = paused ? 1 : 0;
    int s = send_link(link, 0, error);
    if (s)
        link->paused = !link->paused;
    return s;
}

int lamina_display_link_is_paused(const lamina_display_link *link) { return link ? link->paused : 0; }

int lamina_display_link_set_preferred_frame_rate_range(lamina_display_link *link, lamina_frame_rate_range range, char **error) {
    if (!link)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_frame_rate_range old = link->range;
    link->range = range;
    int s = send_link(link, 0, error);
    if (s)
        link->range = old;
    return s;
}

lamina_frame_rate_range lamina_display_link_preferred_frame_rate_range(const lamina_display_link *link) {
    lamina_frame_rate_range none = {0, 0, 0};
    return link ? link->range : none;
}

int lamina_display_link_set_output(lamina_display_link *link, const char *output, char **error) {
    if (!link || (output && strlen(output) > LM_KEY_LIMIT))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    char *name = strdup(output ? output : "");
    if (!name)
        return LAMINA_ERROR_NO_MEMORY;
    char *old = link->output;
    link->output = name;
    int s = send_link(link, 0, error);
    if (s) {
        link->output = old;
        free(name);
    } else {
        free(old);
    }
    return s;
}

double lamina_display_link_timestamp(const lamina_display_link *link) { return link ? link->timestamp : 0; }
double lamina_display_link_target_timestamp(const lamina_display_link *link) { return link ? link->target_timestamp : 0; }
double lamina_display_link_duration(const lamina_display_link *link) { return link ? link->duration : 0; }
uint64_t lamina_display_link_frame_count(const lamina_display_link *link) { return link ? link->frame_count : 0; }
uint32_t lamina_display_link_number(const lamina_display_link *link) { return link ? link->number : 0; }

void lamina_display_link_invalidate(lamina_display_link *link) {
    if (!link)
        return;
    lamina_connection *conn = link->conn;
    if (link->number < conn->display_link_capacity)
        conn->display_links[link->number] = NULL;
    if (conn->fd >= 0)
        send_link(link, 1, NULL);
    free_link(link);
}

void lm_display_links_free(lamina_connection *conn) {
    for (size_t i = 0; i < conn->display_link_capacity; i++)
        if (conn->display_links[i])
            free_link(conn->display_links[i]);
    free(conn->display_links);
    conn->display_links = NULL;
    conn->display_link_capacity = 0;
}

int lm_display_link_frame(lamina_connection *conn, lm_reader *r, const char **why) {
    double timestamp = lm_read_f64(r), target = lm_read_f64(r), duration = lm_read_f64(r);
    uint32_t n = lm_read_u32(r);
    if (r->failed || n > 1024 || (size_t)n * 4 != lm_reader_remaining(r)) {
        *why = "a malformed frame message";
        return LAMINA_ERROR_PROTOCOL;
    }
    uint32_t *links = malloc((size_t)(n ? n : 1) * sizeof *links);
    if (!links) {
        *why = "out of memory for a frame event";
        return LAMINA_ERROR_PROTOCOL;
    }
    for (uint32_t i = 0; i < n; i++)
        links[i] = lm_read_u32(r);
    lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_FRAME);
    if (!q) {
        free(links);
        *why = "out of memory for an event";
        return LAMINA_ERROR_PROTOCOL;
    }
    q->event.timestamp = timestamp;
    q->event.target_timestamp = target;
    q->event.duration = duration;
    q->event.time = target;
    q->event.link_count = n;
    q->links = links;
    return LAMINA_OK;
}

/* Sends an empty commit: it answers the frame when the callbacks changed nothing. */
static void empty_commit(lamina_connection *conn) {
    uint32_t serial = conn->serial == UINT32_MAX ? 1 : conn->serial + 1;
    lm_buf frame = {0};
    size_t start = lm_frame_begin(&frame, LM_MSG_COMMIT);
    lm_buf_u32(&frame, serial);
    lm_buf_u32(&frame, 0);
    lm_frame_end(&frame, start);
    if (!frame.failed && lm_send_frame(conn, &frame, NULL, 0) == LAMINA_OK)
        conn->serial = serial;
    lm_buf_free(&frame);
}

void lm_display_link_fire(lamina_connection *conn, const lamina_event *e) {
    for (size_t i = 0; i < e->link_count; i++) {
        uint32_t n = e->links[i];
        lamina_display_link *link = n < conn->display_link_capacity ? conn->display_links[n] : NULL;
        if (!link || link->paused)
            continue;
        link->timestamp = e->timestamp;
        link->target_timestamp = e->target_timestamp;
        link->duration = e->duration;
        link->frame_count++;
        link->callback(link, link->user); /* may invalidate (free) it */
    }
    /* Inside an open transaction its end answers; after a loss the replay does. */
    if (conn->frame_count || lm_check_open(conn) != LAMINA_OK)
        return;
    uint32_t before = conn->serial;
    lm_send_pending(conn);
    if (conn->serial == before)
        empty_commit(conn);
}
