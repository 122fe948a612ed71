/* The connection: socket, hello and welcome, commits, requests, reading and events. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

#define DEFAULT_DURATION 0.25

void lamina_free(void *pointer) { free(pointer); }

int lm_grow(void **items, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity)
        return 0;
    size_t n = *capacity ? *capacity * 2 : 8;
    if (n > SIZE_MAX / size)
        return -1;
    void *p = realloc(*items, n * size);
    if (!p)
        return -1;
    *items = p;
    *capacity = n;
    return 0;
}

static char *copy_string(const uint8_t *s, size_t n) {
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    if (n)
        memcpy(c, s, n);
    c[n] = 0;
    return c;
}

/* MARK: Closing */

/* Closes the socket; `reason` (formatted) says why. Returns `status` for convenience. */
static int close_with(lamina_connection *conn, int status, const char *reason) {
    if (conn->fd >= 0) {
        close(conn->fd);
        conn->fd = -1;
    }
    if (!conn->closed_reason) {
        if (conn->fatal)
            conn->closed_reason = lm_strdup_printf("%s: %s", reason, conn->fatal);
        else
            conn->closed_reason = lm_strdup_printf("%s", reason);
    }
    return status;
}

int lm_check_open(const lamina_connection *conn) {
    if (!conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return conn->fd < 0 ? LAMINA_ERROR_CLOSED : LAMINA_OK;
}

int lm_check_recordable(const lamina_connection *conn) {
    if (!conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return conn->fd >= 0 || (conn->reconnect_attempts > 0 && conn->path) ? LAMINA_OK : LAMINA_ERROR_CLOSED;
}

const char *lamina_connection_error(const lamina_connection *conn) {
    if (!conn)
        return "no connection";
    if (conn->fd >= 0)
        return NULL;
    return conn->closed_reason ? conn->closed_reason : "the connection is closed";
}

/* *error for a call that failed with `status` on this connection. */
static void status_error(lamina_connection *conn, int status, char **error) {
    if (status == LAMINA_ERROR_CLOSED || status == LAMINA_ERROR_PROTOCOL)
        lm_set_error(error, "%s", lamina_connection_error(conn));
    else
        lm_set_error(error, "%s", lamina_status_string(status));
}

/* With automatic reconnection: connects again after a loss (`status`); see reconnect.c's part below. */
static int recover(lamina_connection *conn, int status);

/* MARK: Writing */

static int read_available(lamina_connection *conn);

/* Waits until the socket is ready for `events`; *revents (when not NULL) says for what. */
static int wait_for(lamina_connection *conn, short events, short *revents) {
    struct pollfd p = {.fd = conn->fd, .events = events};
    for (;;) {
        int n = poll(&p, 1, conn->timeout_ms < 0 ? -1 : conn->timeout_ms);
        if (n > 0) {
            if (revents)
                *revents = p.revents;
            return LAMINA_OK;
        }
        if (n == 0)
            return LAMINA_ERROR_TIMEOUT;
        if (errno != EINTR)
            return close_with(conn, LAMINA_ERROR_IO, "waiting for laminad failed");
    }
}

int lamina_connection_flush(lamina_connection *conn) {
    int s = lm_check_open(conn);
    if (s && (s = recover(conn, s)) == LAMINA_OK)
        return conn->out.length > 0;
    if (s)
        return s;
    while (conn->out.length > 0) {
        ssize_t n = send(conn->fd, conn->out.data, conn->out.length, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 1;
        {
            char *reason = lm_strdup_printf("writing to laminad failed: %s", strerror(errno));
            s = close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "writing to laminad failed");
            free(reason);
            return s;
        }
        }
        lm_buf_consume(&conn->out, (size_t)n);
    }
    return 0;
}

/* Writes everything queued, blocking. While the socket is full it also reads what laminad
 * sends (queued as events and answers), so that neither side waits for the other forever. */
static int flush_all(lamina_connection *conn) {
    for (;;) {
        int s = lamina_connection_flush(conn);
        if (s <= 0)
            return s;
        short revents = 0;
        s = wait_for(conn, POLLOUT | POLLIN, &revents);
        if (s == LAMINA_OK && (revents & POLLIN))
            s = read_available(conn);
        if (s)
            return s;
    }
}

/* Queues a whole frame; with descriptors, the frame's first bytes go with them now (after
 * everything queued before), as SCM_RIGHTS. Then writes what it can without blocking. */
static int send_frame(lamina_connection *conn, const lm_buf *frame, const int *fds, size_t fd_count) {
    int s = lm_check_open(conn);
    if (s)
        return s;
    size_t offset = 0;
    if (fd_count > 0) {
        s = flush_all(conn);
        if (s)
            return s;
        size_t space = CMSG_SPACE(sizeof(int) * fd_count);
        char *control = calloc(1, space);
        if (!control)
            return LAMINA_ERROR_NO_MEMORY;
        for (;;) {
            struct iovec iov = {.iov_base = frame->data, .iov_len = frame->length};
            struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = space};
            struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * fd_count);
            memcpy(CMSG_DATA(c), fds, sizeof(int) * fd_count);
            ssize_t n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) {
                offset = (size_t)n;
                break;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                s = wait_for(conn, POLLOUT, NULL);
                if (s) {
                    free(control);
                    /* The frame cannot be queued without its descriptors: the stream is cut. */
                    return conn->fd >= 0 ? close_with(conn, s, "timed out sending a commit with descriptors") : s;
                }
                continue;
            }
            free(control);
            return close_with(conn, LAMINA_ERROR_CLOSED, "sending to laminad failed");
        }
        free(control);
    }
    lm_buf_bytes(&conn->out, frame->data + offset, frame->length - offset);
    if (conn->out.failed) {
        conn->out.failed = 0;
        return close_with(conn, LAMINA_ERROR_NO_MEMORY, "out of memory queueing a frame (the stream is cut)");
    }
    s = lamina_connection_flush(conn);
    return s < 0 ? s : LAMINA_OK;
}

/* MARK: Decoding */

static const char *error_name(uint32_t code) {
    const char *name = code <= INT32_MAX ? lamina_server_error_name((int)code) : NULL;
    return name ? name : "error";
}

static lm_queued_event *push_event(lamina_connection *conn, lamina_event_type type) {
    if (conn->event_head > 0 && conn->event_head == conn->event_count)
        conn->event_head = conn->event_count = 0;
    if (lm_grow((void **)&conn->events, &conn->event_capacity, conn->event_count, sizeof *conn->events))
        return NULL;
    lm_queued_event *q = &conn->events[conn->event_count++];
    memset(q, 0, sizeof *q);
    q->event.type = type;
    return q;
}

/* Handles one server frame; LAMINA_ERROR_PROTOCOL (with the reason) for bytes that are not a message. */
static int handle_frame(lamina_connection *conn, uint32_t type, const uint8_t *body, size_t length,
                        const char **why) {
    lm_reader r = {.data = body, .length = length};
    *why = NULL;
    switch (type) {
    case LM_MSG_WELCOME: {
        if (conn->welcomed) {
            *why = "a second welcome";
            return LAMINA_ERROR_PROTOCOL;
        }
        conn->server_major = lm_read_u16(&r);
        conn->server_minor = lm_read_u16(&r);
        conn->client_id = lm_read_u32(&r);
        conn->display_width = lm_read_u32(&r);
        conn->display_height = lm_read_u32(&r);
        uint32_t clock = lm_read_u8(&r);
        conn->time = lm_read_f64(&r);
        /* A kept session taken over: its layers as operations (lm_model_restore reads them). */
        conn->snapshot_count = lm_read_u32(&r);
        if (r.failed) {
            *why = "a truncated welcome";
            return LAMINA_ERROR_PROTOCOL;
        }
        conn->snapshot.length = 0;
        lm_buf_bytes(&conn->snapshot, r.data + r.offset, length - r.offset);
        if (conn->snapshot.failed) {
            *why = "out of memory for the welcome's snapshot";
            return LAMINA_ERROR_PROTOCOL;
        }
        conn->virtual_clock = clock == 1;
        conn->welcomed = 1;
        return LAMINA_OK;
    }
    case LM_MSG_APPLIED: {
        uint32_t serial = lm_read_u32(&r);
        if (r.failed || r.offset != length)
            break;
        if ((int32_t)(serial - conn->answered) > 0)
            conn->answered = serial;
        return LAMINA_OK;
    }
    case LM_MSG_ERROR: {
        uint32_t code = lm_read_u16(&r), subject = lm_read_u8(&r), serial = lm_read_u32(&r);
        int32_t index = lm_read_i32(&r);
        size_t n;
        const uint8_t *text = lm_read_string(&r, &n);
        if (r.failed || r.offset != length)
            break;
        char *message;
        if (index >= 0)
            message = lm_strdup_printf("%s (%u, operation %d): %.*s", error_name(code), code, (int)index, (int)n,
                                       (const char *)text);
        else
            message = lm_strdup_printf("%s (%u): %.*s", error_name(code), code, (int)n, (const char *)text);
        if (!message) {
            *why = "out of memory for an error message";
            return LAMINA_ERROR_PROTOCOL;
        }
        if (subject == 1) {
            if ((int32_t)(serial - conn->answered) > 0)
                conn->answered = serial;
            conn->refused_serial = serial;
            conn->refused_index = index;
            if (!conn->unreported)
                conn->unreported = message;
            else
                free(message);
        } else if (subject == 2 && conn->awaiting == serial && conn->reply_state == 0) {
            conn->reply_error = message;
            conn->reply_state = 2;
        } else if (subject == 2) {
            free(message);
        } else {
            free(conn->fatal);
            conn->fatal = message;
            if (!conn->unreported)
                conn->unreported = lm_strdup_printf("%s", message);
        }
        return LAMINA_OK;
    }
    case LM_MSG_REPLY: {
        uint32_t id = lm_read_u32(&r), kind = lm_read_u16(&r);
        if (r.failed)
            break;
        if (id == conn->awaiting && conn->reply_state == 0) {
            conn->reply.length = 0;
            lm_buf_bytes(&conn->reply, body + r.offset, length - r.offset);
            if (conn->reply.failed) {
                conn->reply.failed = 0;
                *why = "out of memory for a reply";
                return LAMINA_ERROR_PROTOCOL;
            }
            conn->reply_kind = kind;
            conn->reply_state = 1;
        }
        return LAMINA_OK;
    }
    case LM_MSG_ANIMATION_EVENT: {
        uint32_t layer = lm_read_u32(&r), tag = lm_read_u32(&r), kind = lm_read_u8(&r), finished = lm_read_u8(&r);
        if (r.failed || r.offset != length || kind > 1 || finished > 1)
            break;
        lm_queued_event *q = push_event(conn, kind ? LAMINA_EVENT_ANIMATION_STARTED : LAMINA_EVENT_ANIMATION_STOPPED);
        if (!q)
            goto oom;
        q->event.layer_number = layer;
        q->event.finished = (int)finished;
        q->tag = tag;
        return LAMINA_OK;
    }
    case LM_MSG_TRANSACTION_COMPLETED: {
        uint32_t group = lm_read_u32(&r);
        if (r.failed || r.offset != length)
            break;
        lm_queued_event *q = push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
        if (!q)
            goto oom;
        q->event.group = group;
        return LAMINA_OK;
    }
    case LM_MSG_WATCH: {
        size_t n;
        const uint8_t *text = lm_read_string(&r, &n);
        if (r.failed || r.offset != length)
            break;
        lm_queued_event *q = push_event(conn, LAMINA_EVENT_WATCH);
        if (!q || !(q->text = copy_string(text, n)))
            goto oom;
        return LAMINA_OK;
    }
    case LM_MSG_CLOCK: {
        double t = lm_read_f64(&r);
        if (r.failed || r.offset != length)
            break;
        if (t > conn->time)
            conn->time = t;
        lm_queued_event *q = push_event(conn, LAMINA_EVENT_CLOCK);
        if (!q)
            goto oom;
        q->event.time = t;
        return LAMINA_OK;
    }
    case LM_MSG_INPUT: {
        lamina_event e = {.type = LAMINA_EVENT_INPUT};
        uint32_t kind = lm_read_u8(&r), flags = lm_read_u8(&r);
        e.layer_number = lm_read_u32(&r);
        e.id = lm_read_i32(&r);
        e.x = lm_read_f64(&r);
        e.y = lm_read_f64(&r);
        e.screen_x = lm_read_f64(&r);
        e.screen_y = lm_read_f64(&r);
        e.time = lm_read_f64(&r);
        lm_read_f64(&r); /* device time */
        e.delta_x = lm_read_f64(&r);
        e.delta_y = lm_read_f64(&r);
        e.keysym = lm_read_u32(&r);
        size_t name_n, text_n;
        const uint8_t *name = lm_read_string(&r, &name_n);
        const uint8_t *text = lm_read_string(&r, &text_n);
        if (r.failed || r.offset != length || kind < 1 || kind > 15)
            break;
        e.input_kind = (lamina_input_kind)kind;
        e.injected = (int)(flags & 1);
        lm_queued_event *q = push_event(conn, LAMINA_EVENT_INPUT);
        if (!q)
            goto oom;
        q->event = e;
        if (!(q->key_name = copy_string(name, name_n)) || !(q->text = copy_string(text, text_n)))
            goto oom;
        return LAMINA_OK;
    }
    default:
        *why = "a message of an unknown type";
        return LAMINA_ERROR_PROTOCOL;
    }
    *why = "a malformed message (truncated, trailing bytes or a value out of range)";
    return LAMINA_ERROR_PROTOCOL;
oom:
    *why = "out of memory for an event";
    return LAMINA_ERROR_PROTOCOL;
}

/* Decodes the whole frames in the input buffer; counts them in *handled (when not NULL). */
static int handle_input(lamina_connection *conn, int *handled) {
    size_t pos = 0;
    int status = LAMINA_OK;
    while (conn->in.length - pos >= LM_HEADER_SIZE) {
        lm_reader h = {.data = conn->in.data + pos, .length = LM_HEADER_SIZE};
        uint32_t length = lm_read_u32(&h), type = lm_read_u16(&h), reserved = lm_read_u16(&h);
        if (reserved != 0 || length > LM_MAX_SERVER_BODY) {
            char *reason = lm_strdup_printf("laminad sent a frame with %s (type %u, %u bytes)",
                                            reserved ? "a non-zero reserved field" : "a body over the limit", type, length);
            status = close_with(conn, LAMINA_ERROR_PROTOCOL, reason ? reason : "laminad sent a bad frame header");
            free(reason);
            break;
        }
        if (conn->in.length - pos - LM_HEADER_SIZE < length)
            break;
        const char *why;
        int s = handle_frame(conn, type, conn->in.data + pos + LM_HEADER_SIZE, length, &why);
        if (s) {
            char *reason = lm_strdup_printf("laminad sent %s (type %u, %u bytes)", why ? why : "a bad message", type, length);
            status = close_with(conn, LAMINA_ERROR_PROTOCOL, reason ? reason : "laminad sent a bad message");
            free(reason);
            break;
        }
        pos += LM_HEADER_SIZE + length;
        conn->frames_handled++;
        if (handled)
            (*handled)++;
        /* The awaited reply stops the reading: what follows is handled by the next call. */
        if (conn->awaiting && conn->reply_state != 0)
            break;
    }
    lm_buf_consume(&conn->in, pos);
    return status;
}

/* Reads what is there without blocking and handles whole frames. LAMINA_OK also when nothing was there. */
static int read_available(lamina_connection *conn) {
    int s = lm_check_open(conn);
    if (s)
        return s;
    for (;;) {
        if (lm_buf_reserve(&conn->in, 65536) != 0) {
            conn->in.failed = 0;
            return close_with(conn, LAMINA_ERROR_NO_MEMORY, "out of memory reading from laminad");
        }
        ssize_t n = recv(conn->fd, conn->in.data + conn->in.length, conn->in.capacity - conn->in.length, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return handle_input(conn, NULL);
            int error = errno;
            handle_input(conn, NULL);
            char *reason = lm_strdup_printf("reading from laminad failed: %s", strerror(error));
            s = close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "reading from laminad failed");
            free(reason);
            return s;
        }
        if (n == 0) {
            handle_input(conn, NULL);
            return close_with(conn, LAMINA_ERROR_CLOSED, "laminad closed the connection");
        }
        conn->in.length += (size_t)n;
        s = handle_input(conn, NULL);
        if (s || (conn->awaiting && conn->reply_state != 0))
            return s;
    }
}

/* Sends what is queued, waits for bytes and handles them. */
static int pump(lamina_connection *conn) {
    uint64_t before = conn->frames_handled;
    int s = flush_all(conn);
    if (s)
        return s;
    s = handle_input(conn, NULL); /* frames left in the buffer by an earlier call */
    if (s || conn->frames_handled != before)
        return s; /* the caller looks whether what it waits for came */
    s = wait_for(conn, POLLIN, NULL);
    if (s)
        return s;
    return read_available(conn);
}

/* MARK: Events */

static lm_tag *find_tag(lamina_connection *conn, uint32_t tag, size_t *index) {
    for (size_t i = 0; i < conn->tag_count; i++)
        if (conn->tags[i].tag == tag) {
            *index = i;
            return &conn->tags[i];
        }
    return NULL;
}

static lamina_layer *layer_by_number(lamina_connection *conn, uint32_t number) {
    if (number == 0)
        return &conn->root;
    return number < conn->layer_capacity ? conn->layers[number] : NULL;
}

/* Runs the callbacks of queued events, in order; not re-entered from a callback. */
static int dispatch_events(lamina_connection *conn) {
    if (conn->dispatching)
        return 0;
    conn->dispatching = 1;
    int count = 0;
    while (conn->event_head < conn->event_count) {
        lm_queued_event q = conn->events[conn->event_head++];
        lamina_event e = q.event;
        e.layer = layer_by_number(conn, e.layer_number);
        e.text = q.text;
        e.key_name = q.key_name;
        e.key = "";
        if (e.type == LAMINA_EVENT_ANIMATION_STARTED || e.type == LAMINA_EVENT_ANIMATION_STOPPED) {
            size_t index = 0;
            lm_tag *t = q.tag ? find_tag(conn, q.tag, &index) : NULL;
            lm_tag entry = {0};
            int stays = 0;
            if (t && e.type == LAMINA_EVENT_ANIMATION_STARTED && t->started) {
                /* A replayed animation starting again: its start was reported once. */
                free(q.text);
                free(q.key_name);
                continue;
            }
            if (t && e.type == LAMINA_EVENT_ANIMATION_STARTED)
                t->started = 1;
            if (t) {
                entry = *t;
                /* One that ran to its end and is not removed on completion stays on its layer:
                 * kept (finished) for a reconnection's replay. Any other is done: taken out first. */
                stays = e.type == LAMINA_EVENT_ANIMATION_STOPPED && e.finished && !t->gone && t->animation &&
                        !t->animation->removed_on_completion;
                if (stays)
                    t->finished = 1;
                else if (e.type == LAMINA_EVENT_ANIMATION_STOPPED)
                    conn->tags[index] = conn->tags[--conn->tag_count];
            }
            /* The kept one's key stays the tag's, which a callback may free: the event gets a copy. */
            char *key_copy = stays ? strdup(entry.key) : NULL;
            if (stays)
                entry.key = key_copy;
            e.key = entry.key ? entry.key : "";
            if (entry.callback)
                entry.callback(&e, entry.user);
            /* (An animation this connection did not add, or no longer holds: an earlier client's
             * in a taken-over session, or laminad's own copy that a reconnection replaced.) */
            if (conn->on_event && t)
                conn->on_event(&e, conn->on_event_user);
            if (t && e.type == LAMINA_EVENT_ANIMATION_STOPPED && !stays) {
                free(entry.key);
                lamina_animation_free(entry.animation);
            }
            free(key_copy);
        } else if (e.type == LAMINA_EVENT_TRANSACTION_COMPLETED) {
            lm_completion c = {0};
            for (size_t i = 0; i < conn->completion_count; i++)
                if (conn->completions[i].group == e.group) {
                    c = conn->completions[i];
                    conn->completions[i] = conn->completions[--conn->completion_count];
                    break;
                }
            if (c.callback)
                c.callback(c.user);
            if (conn->on_event && c.group) /* (a group already completed at a reconnection: not twice) */
                conn->on_event(&e, conn->on_event_user);
        } else if (conn->on_event) {
            conn->on_event(&e, conn->on_event_user);
        }
        free(q.text);
        free(q.key_name);
        count++;
    }
    conn->event_head = conn->event_count = 0;
    conn->dispatching = 0;
    return count;
}

int lamina_connection_dispatch(lamina_connection *conn) {
    if (!conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int s = handle_input(conn, NULL);
    if (s == LAMINA_OK)
        s = read_available(conn);
    s = recover(conn, s);
    int count = dispatch_events(conn);
    return s ? s : count;
}

void lamina_connection_set_event_callback(lamina_connection *conn, lamina_event_callback callback, void *user) {
    if (!conn)
        return;
    conn->on_event = callback;
    conn->on_event_user = user;
}

int lamina_connection_get_fd(const lamina_connection *conn) { return conn ? conn->fd : -1; }

/* MARK: Connecting */

static lamina_connection *connection_new(int fd) {
    lamina_connection *conn = calloc(1, sizeof *conn);
    if (!conn)
        return NULL;
    conn->fd = fd;
    conn->timeout_ms = -1;
    conn->next_request = 1;
    conn->next_group = 1;
    conn->next_tag = 1;
    conn->next_layer = 1;
    conn->next_image = 1;
    conn->current.duration = DEFAULT_DURATION;
    conn->root.conn = conn;
    conn->root.number = 0;
    conn->root.parent = LM_NO_PARENT;
    return conn;
}

/* Says hello on conn->fd and waits for the welcome (or the refusal). */
static int say_hello(lamina_connection *conn, const char *client_name, char **error) {
    lm_buf hello = {0};
    lm_encode_hello(&hello, client_name ? client_name : "lamina-c", conn->session ? conn->session : "", conn->hello_flags,
                    LAMINA_PROTOCOL_VERSION_MAJOR, LAMINA_PROTOCOL_VERSION_MINOR);
    int s = hello.failed ? LAMINA_ERROR_NO_MEMORY : send_frame(conn, &hello, NULL, 0);
    lm_buf_free(&hello);
    /* The hello is answered by a welcome or by an error and a close. A welcome's wait is
     * bounded by a default of 30 s so that a peer that is not laminad cannot hang us. */
    int timeout = conn->timeout_ms;
    conn->timeout_ms = 30000;
    while (s == LAMINA_OK && !conn->welcomed) {
        if (conn->fatal)
            s = LAMINA_ERROR_SERVER;
        else
            s = pump(conn);
    }
    conn->timeout_ms = timeout;
    if (s == LAMINA_OK && conn->fatal)
        s = LAMINA_ERROR_SERVER;
    if (s != LAMINA_OK) {
        if (conn->fatal)
            lm_set_error(error, "laminad refused the hello: %s", conn->fatal);
        else if (s == LAMINA_ERROR_TIMEOUT)
            lm_set_error(error, "no welcome from laminad within 30 s");
        else
            status_error(conn, s, error);
    }
    return s;
}

/* The hello (in `session`, with hello `flags`) over `fd`, and a taken-over session's layers. */
static lamina_connection *from_fd(int fd, const char *client_name, const char *session, uint32_t hello_flags,
                                  char **error) {
    if (fd < 0) {
        lm_set_error(error, "lamina_connection_from_fd: no socket");
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        lm_set_error(error, "cannot make the socket non-blocking: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    lamina_connection *conn = connection_new(fd);
    if (!conn) {
        lm_set_error(error, "out of memory");
        close(fd);
        return NULL;
    }
    conn->hello_flags = hello_flags;
    if (session && *session && !(conn->session = strdup(session))) {
        lm_set_error(error, "out of memory");
        lamina_connection_close(conn);
        return NULL;
    }
    if (say_hello(conn, client_name, error) != LAMINA_OK) {
        conn->on_event = NULL;
        lamina_connection_close(conn);
        return NULL;
    }
    if (conn->snapshot_count > 0) {
        if (lm_model_restore(conn) != LAMINA_OK) {
            lm_set_error(error, "laminad sent a session snapshot that does not decode");
            lamina_connection_close(conn);
            return NULL;
        }
        conn->resumed = 1;
        /* laminad reports the events of the animations an earlier client added to the session
         * to this one, under that client's tags: this one's start far from them. */
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (uint32_t)time(NULL) ^ (uint32_t)getpid();
        conn->next_tag = 0x80000000u | (r & 0x3FFFFFFFu);
        /* Completion groups too: laminad reports the session's, whoever made them. */
        conn->next_group = 0x80000000u | ((r >> 7) & 0x3FFFFFFFu);
    }
    /* Events that came with the welcome run at the first dispatch. */
    return conn;
}

lamina_connection *lamina_connection_from_fd(int fd, const char *client_name, char **error) {
    return from_fd(fd, client_name, NULL, 0, error);
}

lamina_connection *lamina_connect_named(const char *path, const char *client_name, char **error) {
    return lamina_connect_session(path, client_name, NULL, 0, error);
}

lamina_connection *lamina_connect_session(const char *path, const char *client_name, const char *session, int keep_layers,
                                          char **error) {
    if ((session && strlen(session) > LM_KEY_LIMIT) || (keep_layers && (!session || !*session))) {
        lm_set_error(error, keep_layers ? "keep_layers needs a session name (at most 256 bytes)" : "a session name has at most 256 bytes");
        return NULL;
    }
    const char *candidates[3];
    char *runtime_path = NULL;
    size_t count = 0;
    if (path && *path) {
        candidates[count++] = path;
    } else {
        const char *env = getenv("LAMINA_SOCKET");
        if (env && *env) {
            candidates[count++] = env;
        } else {
            const char *runtime = getenv("XDG_RUNTIME_DIR");
            if (runtime && *runtime) {
                runtime_path = lm_strdup_printf("%s/lamina-0", runtime);
                if (!runtime_path) {
                    lm_set_error(error, "out of memory");
                    return NULL;
                }
                candidates[count++] = runtime_path;
            }
            candidates[count++] = "/run/lamina/lamina.sock";
        }
    }
    lm_buf failures = {0};
    lamina_connection *conn = NULL;
    for (size_t i = 0; i < count && !conn; i++) {
        const char *candidate = candidates[i];
        const char *why = NULL;
        struct sockaddr_un address = {.sun_family = AF_UNIX};
        int fd = -1;
        if (strlen(candidate) >= sizeof address.sun_path) {
            why = "the path is too long for a Unix socket";
        } else {
            memcpy(address.sun_path, candidate, strlen(candidate) + 1);
            fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
                why = strerror(errno);
                if (fd >= 0)
                    close(fd);
                fd = -1;
            }
        }
        if (fd >= 0) {
            char *hello_error = NULL;
            conn = from_fd(fd, client_name, session, keep_layers ? 1u : 0u, &hello_error);
            if (conn) {
                /* Kept for lamina_connection_reconnect(). */
                conn->path = strdup(candidate);
                conn->client_name = strdup(client_name ? client_name : "lamina-c");
                if (!conn->path || !conn->client_name) {
                    lamina_connection_close(conn);
                    conn = NULL;
                    hello_error = lm_strdup_printf("out of memory");
                }
            }
            if (!conn) {
                if (failures.length)
                    lm_buf_bytes(&failures, "; ", 2);
                lm_buf_bytes(&failures, candidate, strlen(candidate));
                lm_buf_bytes(&failures, ": ", 2);
                const char *m = hello_error ? hello_error : "hello failed";
                lm_buf_bytes(&failures, m, strlen(m));
                free(hello_error);
            }
            continue;
        }
        if (failures.length)
            lm_buf_bytes(&failures, "; ", 2);
        lm_buf_bytes(&failures, candidate, strlen(candidate));
        lm_buf_bytes(&failures, ": ", 2);
        lm_buf_bytes(&failures, why, strlen(why));
    }
    if (!conn) {
        lm_buf_u8(&failures, 0);
        if (failures.failed)
            lm_set_error(error, "cannot connect to laminad (out of memory for the reasons)");
        else
            lm_set_error(error, "cannot connect to laminad: %s", (const char *)failures.data);
    }
    lm_buf_free(&failures);
    free(runtime_path);
    return conn;
}

lamina_connection *lamina_connect(const char *path, char **error) { return lamina_connect_named(path, NULL, error); }

void lm_free_settings(lm_settings *s) {
    free(s->groups);
    s->groups = NULL;
    s->group_count = 0;
}

static void discard_pending(lamina_connection *conn) {
    for (size_t i = 0; i < conn->fd_count; i++)
        close(conn->fds[i]);
    conn->fd_count = 0;
    conn->image_ops.length = conn->ops.length = conn->tail_ops.length = 0;
    conn->image_op_count = conn->op_count = conn->tail_op_count = 0;
    lm_free_settings(&conn->current);
    conn->current.duration = DEFAULT_DURATION;
    conn->current.has_timing = 0;
    conn->current.disable_actions = 0;
    conn->sent_group_count = 0;
}

void lamina_connection_close(lamina_connection *conn) {
    if (!conn)
        return;
    if (conn->fd >= 0 && conn->frame_count == 0) {
        /* What is pending goes out, waiting at most a second for a socket laminad does not read. */
        if (conn->timeout_ms < 0 || conn->timeout_ms > 1000)
            conn->timeout_ms = 1000;
        if (lm_send_pending(conn) == LAMINA_OK)
            flush_all(conn);
    }
    if (conn->fd >= 0)
        close(conn->fd);
    discard_pending(conn);
    for (size_t i = conn->event_head; i < conn->event_count; i++) {
        free(conn->events[i].text);
        free(conn->events[i].key_name);
    }
    free(conn->events);
    for (size_t i = 0; i < conn->tag_count; i++) {
        free(conn->tags[i].key);
        lamina_animation_free(conn->tags[i].animation);
    }
    free(conn->tags);
    lm_model_free(&conn->root);
    for (size_t i = 0; i < conn->layer_capacity; i++)
        if (conn->layers[i]) {
            lm_model_free(conn->layers[i]);
            free(conn->layers[i]);
        }
    free(conn->layers);
    for (size_t i = 0; i < conn->image_capacity; i++)
        if (conn->images[i]) {
            close(conn->images[i]->fd);
            free(conn->images[i]);
        }
    free(conn->images);
    free(conn->fds);
    free(conn->frames);
    free(conn->completions);
    free(conn->sent_groups);
    free(conn->closed_groups);
    lm_buf_free(&conn->in);
    lm_buf_free(&conn->out);
    lm_buf_free(&conn->reply);
    lm_buf_free(&conn->image_ops);
    lm_buf_free(&conn->ops);
    lm_buf_free(&conn->tail_ops);
    free(conn->reply_error);
    free(conn->unreported);
    free(conn->fatal);
    free(conn->closed_reason);
    free(conn->path);
    free(conn->client_name);
    free(conn->session);
    lm_buf_free(&conn->snapshot);
    free(conn);
}

/* MARK: Accessors */

lamina_layer *lamina_connection_root(lamina_connection *conn) { return conn ? &conn->root : NULL; }

void lamina_connection_display_size(const lamina_connection *conn, uint32_t *width, uint32_t *height) {
    if (width)
        *width = conn ? conn->display_width : 0;
    if (height)
        *height = conn ? conn->display_height : 0;
}

int lamina_connection_clock_is_virtual(const lamina_connection *conn) { return conn ? conn->virtual_clock : 0; }

double lamina_connection_time(const lamina_connection *conn) { return conn ? conn->time : 0; }

void lamina_connection_set_timeout(lamina_connection *conn, int milliseconds) {
    if (conn)
        conn->timeout_ms = milliseconds < 0 ? -1 : milliseconds;
}

/* MARK: Commits */

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
            lm_queued_event *q = push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
            if (q)
                q->event.group = group;
        }
    }
    conn->closed_group_count = 0;
    uint32_t count = conn->image_op_count + conn->op_count + conn->tail_op_count;
    if (count == 0) {
        discard_pending(conn);
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
    s = send_frame(conn, &frame, conn->fds, conn->fd_count);
    lm_buf_free(&frame);
    discard_pending(conn);
    if (s == LAMINA_OK)
        conn->serial = serial;
    return s;
}

int lamina_connection_commit(lamina_connection *conn) {
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (conn->frame_count)
        return LAMINA_ERROR_STATE;
    /* After a loss the replay carries what is pending. */
    s = recover(conn, lm_check_open(conn));
    if (s == LAMINA_OK)
        s = recover(conn, lm_send_pending(conn));
    return s < 0 ? s : LAMINA_OK;
}

int lamina_connection_sync(lamina_connection *conn, char **error) {
    int s = conn ? recover(conn, lm_check_open(conn)) : LAMINA_ERROR_INVALID_ARGUMENT;
    if (s) {
        if (conn)
            status_error(conn, s, error);
        else
            lm_set_error(error, "no connection");
        return s;
    }
    if (!conn->frame_count)
        s = recover(conn, lm_send_pending(conn));
    while (s == LAMINA_OK && (int32_t)(conn->serial - conn->answered) > 0)
        s = recover(conn, pump(conn)); /* a replay is waited for before it returns */
    dispatch_events(conn);
    if (conn->unreported) {
        if (error)
            *error = conn->unreported;
        else
            free(conn->unreported);
        conn->unreported = NULL;
        return LAMINA_ERROR_SERVER;
    }
    if (s)
        status_error(conn, s, error);
    return s;
}

/* MARK: Requests */

/* Sends a request (committing first, outside a transaction) and waits for its answer: the reply's
 * body is then in conn->reply. `arguments` may be NULL. */
static int request_once(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind,
                        char **error);

/* Sends a request and reads until its answer (a reply in conn->reply, or an error in
 * conn->reply_error: conn->reply_state 1 or 2) or a failure; dispatches nothing. */
static int exchange(lamina_connection *conn, uint32_t kind, const lm_buf *arguments) {
    uint32_t id = conn->next_request;
    conn->next_request = id == UINT32_MAX ? 1 : id + 1;
    lm_buf frame = {0};
    size_t start = lm_frame_begin(&frame, LM_MSG_REQUEST);
    lm_buf_u32(&frame, id);
    lm_buf_u16(&frame, kind);
    if (arguments)
        lm_buf_bytes(&frame, arguments->data, arguments->length);
    lm_frame_end(&frame, start);
    if (frame.failed) {
        lm_buf_free(&frame);
        return LAMINA_ERROR_NO_MEMORY;
    }
    conn->awaiting = id;
    conn->reply_state = 0;
    free(conn->reply_error);
    conn->reply_error = NULL;
    int s = send_frame(conn, &frame, NULL, 0);
    lm_buf_free(&frame);
    while (s == LAMINA_OK && conn->reply_state == 0)
        s = pump(conn);
    conn->awaiting = 0;
    return s;
}

static int request(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind,
                   char **error) {
    if (conn && conn->fd < 0 && recover(conn, LAMINA_ERROR_CLOSED) != LAMINA_OK) {
        status_error(conn, LAMINA_ERROR_CLOSED, error);
        return LAMINA_ERROR_CLOSED;
    }
    char *first = NULL;
    int s = request_once(conn, kind, arguments, reply_kind, &first);
    /* laminad went away before answering: once connected again (and replayed), ask again. */
    if ((s == LAMINA_ERROR_CLOSED || s == LAMINA_ERROR_IO) && recover(conn, s) == LAMINA_OK) {
        free(first);
        first = NULL;
        s = request_once(conn, kind, arguments, reply_kind, &first);
    }
    if (first) {
        if (error)
            *error = first;
        else
            free(first);
    }
    return s;
}

static int request_once(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind,
                        char **error) {
    int s = lm_check_open(conn);
    if (s) {
        if (conn)
            status_error(conn, s, error);
        return s;
    }
    if (!conn->frame_count) {
        s = lm_send_pending(conn);
        if (s) {
            status_error(conn, s, error);
            return s;
        }
    }
    s = exchange(conn, kind, arguments);
    if (s == LAMINA_ERROR_NO_MEMORY) {
        lm_set_error(error, "out of memory");
        return s;
    }
    dispatch_events(conn);
    if (conn->reply_state != 0) /* the answer came, even if the connection closed after it */
        s = LAMINA_OK;
    if (s == LAMINA_OK && conn->reply_state == 2) {
        if (error) {
            *error = conn->reply_error;
            conn->reply_error = NULL;
        }
        return LAMINA_ERROR_SERVER;
    }
    if (s == LAMINA_OK && conn->reply_kind != reply_kind) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad answered a request with a reply of another kind");
    }
    if (s)
        status_error(conn, s, error);
    return s;
}

int lamina_connection_screenshot_pixels(lamina_connection *conn, uint32_t *width, uint32_t *height,
                                        uint8_t **pixels, char **error) {
    if (!width || !height || !pixels) {
        lm_set_error(error, "lamina_connection_screenshot_pixels: NULL result pointer");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    *pixels = NULL;
    int s = request(conn, LM_REQ_SCREENSHOT, NULL, 1, error);
    if (s)
        return s;
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    uint32_t w = lm_read_u32(&r), h = lm_read_u32(&r);
    if (r.failed || (uint64_t)w * h * 4 != lm_reader_remaining(&r) || w == 0 || h == 0) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a screenshot whose size does not match its pixels");
        status_error(conn, s, error);
        return s;
    }
    size_t n = (size_t)w * h * 4;
    uint8_t *p = malloc(n);
    if (!p) {
        lm_set_error(error, "out of memory for a %ux%u screenshot", w, h);
        return LAMINA_ERROR_NO_MEMORY;
    }
    memcpy(p, conn->reply.data + r.offset, n);
    *width = w;
    *height = h;
    *pixels = p;
    return LAMINA_OK;
}

int lamina_connection_screenshot(lamina_connection *conn, const char *png_path, char **error) {
    if (!png_path) {
        lm_set_error(error, "lamina_connection_screenshot: no path");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    uint32_t w, h;
    uint8_t *pixels;
    int s = lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, error);
    if (s)
        return s;
    lm_buf png = {0};
    s = lm_png_encode(&png, w, h, pixels);
    free(pixels);
    if (s) {
        lm_buf_free(&png);
        lm_set_error(error, "cannot encode a %ux%u PNG: %s", w, h, lamina_status_string(s));
        return s;
    }
    int fd = open(png_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        lm_set_error(error, "cannot create %s: %s", png_path, strerror(errno));
        lm_buf_free(&png);
        return LAMINA_ERROR_IO;
    }
    size_t done = 0;
    while (done < png.length) {
        ssize_t n = write(fd, png.data + done, png.length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            lm_set_error(error, "cannot write %s: %s", png_path, n < 0 ? strerror(errno) : "nothing written");
            close(fd);
            lm_buf_free(&png);
            return LAMINA_ERROR_IO;
        }
        done += (size_t)n;
    }
    lm_buf_free(&png);
    if (close(fd) != 0) {
        lm_set_error(error, "cannot write %s: %s", png_path, strerror(errno));
        return LAMINA_ERROR_IO;
    }
    return LAMINA_OK;
}

int lamina_connection_advance_clock(lamina_connection *conn, double seconds, char **error) {
    lm_buf args = {0};
    lm_buf_f64(&args, seconds);
    if (args.failed) {
        lm_set_error(error, "out of memory");
        return LAMINA_ERROR_NO_MEMORY;
    }
    int s = request(conn, LM_REQ_ADVANCE_CLOCK, &args, 3, error);
    lm_buf_free(&args);
    if (s)
        return s;
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    double t = lm_read_f64(&r);
    lm_read_u64(&r);
    if (r.failed || lm_reader_remaining(&r)) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed advance-clock reply");
        status_error(conn, s, error);
        return s;
    }
    conn->time = t;
    return LAMINA_OK;
}

int lamina_connection_tree(lamina_connection *conn, char **json, char **error) {
    if (!json) {
        lm_set_error(error, "lamina_connection_tree: NULL result pointer");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    *json = NULL;
    int s = request(conn, LM_REQ_TREE, NULL, 2, error);
    if (s)
        return s;
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    size_t n;
    const uint8_t *text = lm_read_string(&r, &n);
    if (r.failed || lm_reader_remaining(&r)) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed tree reply");
        status_error(conn, s, error);
        return s;
    }
    if (!(*json = copy_string(text, n))) {
        lm_set_error(error, "out of memory");
        return LAMINA_ERROR_NO_MEMORY;
    }
    return LAMINA_OK;
}

int lamina_connection_stats(lamina_connection *conn, lamina_stat **stats, size_t *count, char **error) {
    if (!stats || !count) {
        lm_set_error(error, "lamina_connection_stats: NULL result pointer");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    *stats = NULL;
    *count = 0;
    int s = request(conn, LM_REQ_STATS, NULL, 4, error);
    if (s)
        return s;
    /* Two passes over the reply: the sizes, then one allocation holding the array and the names. */
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    uint32_t n = lm_read_u32(&r);
    size_t text = 0;
    for (uint32_t i = 0; i < n && !r.failed; i++) {
        size_t length;
        lm_read_string(&r, &length);
        lm_read_f64(&r);
        text += length + 1;
    }
    if (r.failed || lm_reader_remaining(&r) || n > conn->reply.length / 12) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed stats reply");
        status_error(conn, s, error);
        return s;
    }
    lamina_stat *out = malloc((size_t)n * sizeof *out + text + 1);
    if (!out) {
        lm_set_error(error, "out of memory for %u counters", n);
        return LAMINA_ERROR_NO_MEMORY;
    }
    char *names = (char *)(out + n);
    r = (lm_reader){.data = conn->reply.data, .length = conn->reply.length};
    lm_read_u32(&r);
    for (uint32_t i = 0; i < n; i++) {
        size_t length;
        const uint8_t *name = lm_read_string(&r, &length);
        memcpy(names, name, length);
        names[length] = 0;
        out[i].name = names;
        out[i].value = lm_read_f64(&r);
        names += length + 1;
    }
    *stats = out;
    *count = n;
    return LAMINA_OK;
}

int lamina_connection_display_power(lamina_connection *conn, int on, const char *output, lamina_display_state **state,
                                    char **error) {
    if (state)
        *state = NULL;
    if ((on != 0 && on != 1) || (output && strlen(output) > LM_KEY_LIMIT)) {
        lm_set_error(error, "lamina_connection_display_power: on is 0 or 1, an output name at most 256 bytes");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf arguments = {0};
    lm_buf_u8(&arguments, (uint32_t)on);
    lm_buf_string(&arguments, output ? output : "");
    int s = arguments.failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_DISPLAY_POWER, &arguments, 8, error);
    lm_buf_free(&arguments);
    if (s)
        return s;
    /* Two passes: the sizes, then one allocation for the outputs and their names. */
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    size_t backend_length, text = 0;
    const uint8_t *backend = lm_read_string(&r, &backend_length);
    uint32_t n = lm_read_u32(&r);
    for (uint32_t i = 0; i < n && !r.failed; i++) {
        size_t length;
        lm_read_string(&r, &length);
        if (lm_read_u8(&r) > 1)
            r.failed = 1;
        text += length + 1;
    }
    if (r.failed || lm_reader_remaining(&r) || n > conn->reply.length / 5) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed display-power reply");
        status_error(conn, s, error);
        return s;
    }
    if (!state)
        return LAMINA_OK;
    lamina_display_state *out = malloc(sizeof *out + (size_t)n * sizeof(lamina_output_state) + backend_length + 1 + text);
    if (!out) {
        lm_set_error(error, "out of memory");
        return LAMINA_ERROR_NO_MEMORY;
    }
    out->outputs = (lamina_output_state *)(out + 1);
    char *names = (char *)(out->outputs + n);
    memcpy(names, backend, backend_length);
    names[backend_length] = 0;
    out->backend = names;
    names += backend_length + 1;
    out->count = n;
    r = (lm_reader){.data = conn->reply.data, .length = conn->reply.length};
    lm_read_string(&r, &backend_length);
    lm_read_u32(&r);
    for (uint32_t i = 0; i < n; i++) {
        size_t length;
        const uint8_t *name = lm_read_string(&r, &length);
        memcpy(names, name, length);
        names[length] = 0;
        out->outputs[i].name = names;
        out->outputs[i].on = (int)lm_read_u8(&r);
        names += length + 1;
    }
    *state = out;
    return LAMINA_OK;
}

/* An inject-input request whose arguments are in `arguments` (kind first); answered by done. */
static int inject(lamina_connection *conn, lm_buf *arguments, char **error) {
    int s = arguments->failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_INJECT_INPUT, arguments, 10, error);
    lm_buf_free(arguments);
    if (s == LAMINA_OK && conn->reply.length != 0) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed done reply");
        status_error(conn, s, error);
    }
    return s;
}

int lamina_connection_inject_touch(lamina_connection *conn, lamina_injection kind, int32_t id, double x, double y, char **error) {
    if (kind < LAMINA_INJECT_TOUCH_DOWN || kind > LAMINA_INJECT_TOUCH_CANCEL ||
        (kind <= LAMINA_INJECT_TOUCH_MOTION && (!isfinite(x) || !isfinite(y)))) {
        lm_set_error(error, "lamina_connection_inject_touch: a touch kind, and finite points for down and motion");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf a = {0};
    lm_buf_u8(&a, (uint32_t)kind);
    lm_buf_i32(&a, id);
    if (kind <= LAMINA_INJECT_TOUCH_MOTION) {
        lm_buf_f64(&a, x);
        lm_buf_f64(&a, y);
    }
    return inject(conn, &a, error);
}

/* An injection of two finite numbers (pointer motion, scroll); `what` names the call in an error. */
static int inject_two(lamina_connection *conn, lamina_injection kind, double a0, double a1, const char *what, char **error) {
    if (!isfinite(a0) || !isfinite(a1)) {
        lm_set_error(error, "%s: the numbers must be finite", what);
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf a = {0};
    lm_buf_u8(&a, (uint32_t)kind);
    lm_buf_f64(&a, a0);
    lm_buf_f64(&a, a1);
    return inject(conn, &a, error);
}

int lamina_connection_inject_pointer_motion(lamina_connection *conn, double x, double y, char **error) {
    return inject_two(conn, LAMINA_INJECT_POINTER_MOTION, x, y, "lamina_connection_inject_pointer_motion", error);
}

int lamina_connection_inject_button(lamina_connection *conn, uint32_t code, int pressed, char **error) {
    lm_buf a = {0};
    lm_buf_u8(&a, LAMINA_INJECT_POINTER_BUTTON);
    lm_buf_u32(&a, code);
    lm_buf_u8(&a, pressed ? 1u : 0u);
    return inject(conn, &a, error);
}

int lamina_connection_inject_scroll(lamina_connection *conn, double horizontal, double vertical, char **error) {
    return inject_two(conn, LAMINA_INJECT_SCROLL, horizontal, vertical, "lamina_connection_inject_scroll", error);
}

int lamina_connection_inject_key(lamina_connection *conn, const char *name, int pressed, char **error) {
    if (!name || !*name || strlen(name) > 64) {
        lm_set_error(error, "lamina_connection_inject_key: a keysym name of 1 to 64 bytes");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf a = {0};
    lm_buf_u8(&a, LAMINA_INJECT_KEY);
    lm_buf_string(&a, name);
    lm_buf_u8(&a, pressed ? 1u : 0u);
    return inject(conn, &a, error);
}

int lamina_connection_listen(lamina_connection *conn, const char *session, char **error) {
    if (!session || strlen(session) > LM_KEY_LIMIT) {
        lm_set_error(error, "lamina_connection_listen: a session name of at most 256 bytes");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf a = {0};
    lm_buf_string(&a, session);
    int s = a.failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_LISTEN, &a, 7, error);
    lm_buf_free(&a);
    return s;
}

int lamina_connection_take_keyboard_focus(lamina_connection *conn, char **error) {
    int s = request(conn, LM_REQ_TAKE_KEYBOARD_FOCUS, NULL, 10, error);
    if (s == LAMINA_OK && conn->reply.length != 0) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed done reply");
        status_error(conn, s, error);
    }
    return s;
}

static size_t value_numbers(int type) {
    switch (type) {
    case LAMINA_VALUE_NUMBER:
    case LAMINA_VALUE_BOOL: return 1;
    case LAMINA_VALUE_POINT:
    case LAMINA_VALUE_SIZE: return 2;
    case LAMINA_VALUE_RECT:
    case LAMINA_VALUE_COLOR: return 4;
    case LAMINA_VALUE_TRANSFORM: return 16;
    default: return 0;
    }
}

int lamina_layer_presentation(lamina_layer *layer, lamina_property property, double *values, size_t count,
                              char **error) {
    int type = lamina_property_type(property);
    size_t needed = value_numbers(type);
    if (!layer || !values || needed == 0 || count < needed) {
        lm_set_error(error, "lamina_layer_presentation: %s", !layer || !values ? "NULL argument"
                                                             : needed == 0 ? "not a numeric property"
                                                                           : "too few numbers for the value");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lamina_connection *conn = layer->conn;
    lm_buf args = {0};
    lm_buf_u32(&args, layer->number);
    int s = args.failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_PRESENTATION, &args, 5, error);
    lm_buf_free(&args);
    if (s)
        return s;
    lm_reader r = {.data = conn->reply.data, .length = conn->reply.length};
    uint32_t n = lm_read_u32(&r);
    if ((uint64_t)n * 3 > lm_reader_remaining(&r))
        r.failed = 1;
    int found = 0;
    for (uint32_t i = 0; i < n && !r.failed; i++) {
        uint32_t id = lm_read_u16(&r);
        int t = lamina_property_type((int)id);
        if (t == 0) {
            r.failed = 1;
            break;
        }
        if ((int)id == (int)property) {
            if (t == LAMINA_VALUE_BOOL) {
                uint32_t b = lm_read_u8(&r);
                if (b > 1)
                    r.failed = 1;
                values[0] = b;
            } else {
                for (size_t k = 0; k < needed; k++)
                    values[k] = lm_read_f64(&r);
            }
            found = 1;
        } else {
            lm_skip_value(&r, t);
        }
    }
    if (r.failed || lm_reader_remaining(&r)) {
        s = close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed presentation reply");
        status_error(conn, s, error);
        return s;
    }
    if (!found) {
        lm_set_error(error, "laminad's presentation of layer #%u has no '%s'", layer->number,
                     lamina_property_name(property));
        return LAMINA_ERROR_PROTOCOL;
    }
    return LAMINA_OK;
}

/* MARK: Reconnection */

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
    discard_pending(conn);
    conn->closed_group_count = 0; /* their completions come with the reconnection */
}

/* Whether the completion of transaction group `group` waits in the queue. */
static int completion_queued(const lamina_connection *conn, uint32_t group) {
    for (size_t i = conn->event_head; i < conn->event_count; i++)
        if (conn->events[i].event.type == LAMINA_EVENT_TRANSACTION_COMPLETED && conn->events[i].event.group == group)
            return 1;
    return 0;
}

int lm_queued_stop(const lamina_connection *conn, uint32_t tag) {
    for (size_t i = conn->event_head; i < conn->event_count; i++) {
        const lm_queued_event *q = &conn->events[i];
        if (q->event.type == LAMINA_EVENT_ANIMATION_STOPPED && q->tag == tag)
            return q->event.finished != 0;
    }
    return -1;
}

void lm_queue_stop(lamina_connection *conn, const lm_tag *tag) {
    if (lm_queued_stop(conn, tag->tag) >= 0)
        return;
    lm_queued_event *q = push_event(conn, LAMINA_EVENT_ANIMATION_STOPPED);
    if (q) {
        q->tag = tag->tag;
        q->event.layer_number = tag->layer;
    }
}

/* The replay: the model in commits under laminad's limits, each waited for. An operation
 * laminad refuses (a value or sublayer it refused before the loss, which the model kept, or one
 * that a changed configuration refuses) is left out of the model and the commit sent again
 * without it, at most 64 times; *dropped counts them and *first_refusal keeps the first message. */
/* A request answered into conn->reply, with no events dispatched (inside a reconnection).
 * LAMINA_ERROR_SERVER when laminad refused it or answered another kind. */
static int ask_quietly(lamina_connection *conn, uint32_t kind, uint32_t reply_kind) {
    int s = exchange(conn, kind, NULL);
    if (s == LAMINA_OK && (conn->reply_state != 1 || conn->reply_kind != reply_kind))
        s = LAMINA_ERROR_SERVER;
    return s;
}

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
            s = frame.failed ? LAMINA_ERROR_NO_MEMORY : send_frame(conn, &frame, fds, fd_count);
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
            s = pump(conn);
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
            for (size_t e = conn->event_head; e < conn->event_count; e++)
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
        status_error(conn, s, error);
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
        return close_with(conn, LAMINA_ERROR_CLOSED, "cannot connect again: the path is too long for a Unix socket");
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
        close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "cannot connect again");
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
    int s = say_hello(conn, conn->client_name, error);
    if (s == LAMINA_OK) {
        shift = was_virtual || conn->virtual_clock ? conn->time - last : 0;
        s = replay(conn, last, shift, &dropped, &first_refusal, error);
    }
    free(conn->unreported);
    conn->unreported = unreported;
    if (s) {
        free(first_refusal);
        if (conn->fd >= 0)
            close_with(conn, s, s == LAMINA_ERROR_SERVER ? "laminad refused the replayed model" : "the replay failed");
        return s;
    }
    lm_model_retimed(conn, last, shift);
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
        if (open || completion_queued(conn, conn->completions[i].group))
            continue;
        lm_queued_event *q = push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
        if (!q)
            break;
        q->event.group = conn->completions[i].group;
    }
    lm_queued_event *q = push_event(conn, LAMINA_EVENT_RECONNECTED);
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

static int recover(lamina_connection *conn, int status) {
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
