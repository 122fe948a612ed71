/* The connection: connecting (the socket, hello and welcome, a kept session taken over),
 * closing, and what the welcome said. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gestures.h"
#include "model.h"
#include "snapshot.h"
#include "stream.h"
#include "pending.h"
#include "connection.h"
#include "messages.h"

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
    conn->current.duration = LM_DEFAULT_DURATION;
    conn->root.conn = conn;
    conn->root.number = 0;
    conn->root.parent = LM_NO_PARENT;
    return conn;
}

/* Says hello on conn->fd and waits for the welcome (or the refusal). */
int lm_say_hello(lamina_connection *conn, const char *client_name, char **error) {
    lm_buf hello = {0};
    lm_encode_hello(&hello, client_name ? client_name : "lamina-c", conn->session ? conn->session : "", conn->hello_flags,
                    LAMINA_PROTOCOL_VERSION_MAJOR, LAMINA_PROTOCOL_VERSION_MINOR);
    int s = hello.failed ? LAMINA_ERROR_NO_MEMORY : lm_send_frame(conn, &hello, NULL, 0);
    lm_buf_free(&hello);
    /* The hello is answered by a welcome or by an error and a close. A welcome's wait is
     * bounded by a default of 30 s so that a peer that is not laminad cannot hang us. */
    int timeout = conn->timeout_ms;
    conn->timeout_ms = 30000;
    while (s == LAMINA_OK && !conn->welcomed) {
        if (conn->fatal)
            s = LAMINA_ERROR_SERVER;
        else
            s = lm_pump(conn);
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
            lm_status_error(conn, s, error);
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
    if (lm_say_hello(conn, client_name, error) != LAMINA_OK) {
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

void lamina_connection_close(lamina_connection *conn) {
    if (!conn)
        return;
    if (conn->fd >= 0 && conn->frame_count == 0) {
        /* What is pending goes out, waiting at most a second for a socket laminad does not read. */
        if (conn->timeout_ms < 0 || conn->timeout_ms > 1000)
            conn->timeout_ms = 1000;
        if (lm_send_pending(conn) == LAMINA_OK)
            lm_flush_all(conn);
    }
    if (conn->fd >= 0)
        close(conn->fd);
    lm_discard_pending(conn);
    for (size_t i = conn->event_head; i < conn->event_count; i++) {
        free(conn->events[i].text);
        free(conn->events[i].key_name);
        free(conn->events[i].outputs);
        free(conn->events[i].links);
        free(conn->events[i].tiles);
        free(conn->events[i].app_names);
    }
    lm_display_links_free(conn);
    free(conn->events);
    for (size_t i = 0; i < conn->tag_count; i++) {
        free(conn->tags[i].key);
        lamina_animation_free(conn->tags[i].animation);
    }
    free(conn->tags);
    lm_gestures_detach_all(conn);
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
    lm_free_videos(conn);
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

int lamina_connection_get_fd(const lamina_connection *conn) { return conn ? conn->fd : -1; }
