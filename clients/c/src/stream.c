/* The byte stream to laminad: writing frames (with descriptors), reading and splitting them,
 * waiting, closing. Nothing here connects again: the calls that do (sync.c, requests.c) sit
 * above the reconnection and use this with the connection open. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "messages.h"
#include "stream.h"

/* MARK: Closing */

/* Closes the socket; `reason` (formatted) says why. Returns `status` for convenience. */
int lm_close_with(lamina_connection *conn, int status, const char *reason) {
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
void lm_status_error(lamina_connection *conn, int status, char **error) {
    if (status == LAMINA_ERROR_CLOSED || status == LAMINA_ERROR_PROTOCOL)
        lm_set_error(error, "%s", lamina_connection_error(conn));
    else
        lm_set_error(error, "%s", lamina_status_string(status));
}

/* MARK: Writing */

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
            return lm_close_with(conn, LAMINA_ERROR_IO, "waiting for laminad failed");
    }
}

/* Writes what the socket takes without blocking: 0 when all is written, 1 while bytes remain. */
int lm_flush(lamina_connection *conn) {
    int s = lm_check_open(conn);
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
            s = lm_close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "writing to laminad failed");
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
int lm_flush_all(lamina_connection *conn) {
    for (;;) {
        int s = lm_flush(conn);
        if (s <= 0)
            return s;
        short revents = 0;
        s = wait_for(conn, POLLOUT | POLLIN, &revents);
        if (s == LAMINA_OK && (revents & POLLIN))
            s = lm_read_available(conn);
        if (s)
            return s;
    }
}

/* Queues a whole frame; with descriptors, the frame's first bytes go with them now (after
 * everything queued before), as SCM_RIGHTS. Then writes what it can without blocking. */
int lm_send_frame(lamina_connection *conn, const lm_buf *frame, const int *fds, size_t fd_count) {
    int s = lm_check_open(conn);
    if (s)
        return s;
    size_t offset = 0;
    if (fd_count > 0) {
        s = lm_flush_all(conn);
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
                    return conn->fd >= 0 ? lm_close_with(conn, s, "timed out sending a commit with descriptors") : s;
                }
                continue;
            }
            free(control);
            return lm_close_with(conn, LAMINA_ERROR_CLOSED, "sending to laminad failed");
        }
        free(control);
    }
    lm_buf_bytes(&conn->out, frame->data + offset, frame->length - offset);
    if (conn->out.failed) {
        conn->out.failed = 0;
        return lm_close_with(conn, LAMINA_ERROR_NO_MEMORY, "out of memory queueing a frame (the stream is cut)");
    }
    s = lm_flush(conn);
    return s < 0 ? s : LAMINA_OK;
}

/* MARK: Reading */

/* Decodes the whole frames in the input buffer; counts them in *handled (when not NULL). */
int lm_handle_input(lamina_connection *conn, int *handled) {
    size_t pos = 0;
    int status = LAMINA_OK;
    while (conn->in.length - pos >= LM_HEADER_SIZE) {
        lm_reader h = {.data = conn->in.data + pos, .length = LM_HEADER_SIZE};
        uint32_t length = lm_read_u32(&h), type = lm_read_u16(&h), reserved = lm_read_u16(&h);
        if (reserved != 0 || length > LM_MAX_SERVER_BODY) {
            char *reason = lm_strdup_printf("laminad sent a frame with %s (type %u, %u bytes)",
                                            reserved ? "a non-zero reserved field" : "a body over the limit", type, length);
            status = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, reason ? reason : "laminad sent a bad frame header");
            free(reason);
            break;
        }
        if (conn->in.length - pos - LM_HEADER_SIZE < length)
            break;
        const char *why;
        int s = lm_handle_frame(conn, type, conn->in.data + pos + LM_HEADER_SIZE, length, &why);
        if (s) {
            char *reason = lm_strdup_printf("laminad sent %s (type %u, %u bytes)", why ? why : "a bad message", type, length);
            status = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, reason ? reason : "laminad sent a bad message");
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
int lm_read_available(lamina_connection *conn) {
    int s = lm_check_open(conn);
    if (s)
        return s;
    for (;;) {
        if (lm_buf_reserve(&conn->in, 65536) != 0) {
            conn->in.failed = 0;
            return lm_close_with(conn, LAMINA_ERROR_NO_MEMORY, "out of memory reading from laminad");
        }
        ssize_t n = recv(conn->fd, conn->in.data + conn->in.length, conn->in.capacity - conn->in.length, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return lm_handle_input(conn, NULL);
            int error = errno;
            lm_handle_input(conn, NULL);
            char *reason = lm_strdup_printf("reading from laminad failed: %s", strerror(error));
            s = lm_close_with(conn, LAMINA_ERROR_CLOSED, reason ? reason : "reading from laminad failed");
            free(reason);
            return s;
        }
        if (n == 0) {
            lm_handle_input(conn, NULL);
            return lm_close_with(conn, LAMINA_ERROR_CLOSED, "laminad closed the connection");
        }
        conn->in.length += (size_t)n;
        s = lm_handle_input(conn, NULL);
        if (s || (conn->awaiting && conn->reply_state != 0))
            return s;
    }
}

/* Sends what is queued, waits for bytes and handles them. */
int lm_pump(lamina_connection *conn) {
    uint64_t before = conn->frames_handled;
    int s = lm_flush_all(conn);
    if (s)
        return s;
    s = lm_handle_input(conn, NULL); /* frames left in the buffer by an earlier call */
    if (s || conn->frames_handled != before)
        return s; /* the caller looks whether what it waits for came */
    s = wait_for(conn, POLLIN, NULL);
    if (s)
        return s;
    return lm_read_available(conn);
}

/* Sends a request and reads until its answer (a reply in conn->reply, or an error in
 * conn->reply_error: conn->reply_state 1 or 2) or a failure; dispatches nothing. */
int lm_exchange(lamina_connection *conn, uint32_t kind, const lm_buf *arguments) {
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
    int s = lm_send_frame(conn, &frame, NULL, 0);
    lm_buf_free(&frame);
    while (s == LAMINA_OK && conn->reply_state == 0)
        s = lm_pump(conn);
    conn->awaiting = 0;
    return s;
}
