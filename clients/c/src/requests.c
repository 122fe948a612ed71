/* Requests: one function each (screenshot, tree, stats, display power, injection, listen, ...),
 * answered by a reply; one that finds laminad gone asks again once it is back. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "stream.h"
#include "pending.h"
#include "reconnect.h"

/* Sends a request (committing first, outside a transaction) and waits for its answer: the reply's
 * body is then in conn->reply. `arguments` may be NULL. */
static int request_once(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind,
                        char **error) {
    int s = lm_check_open(conn);
    if (s) {
        if (conn)
            lm_status_error(conn, s, error);
        return s;
    }
    if (!conn->frame_count) {
        s = lm_send_pending(conn);
        if (s) {
            lm_status_error(conn, s, error);
            return s;
        }
    }
    s = lm_exchange(conn, kind, arguments);
    if (s == LAMINA_ERROR_NO_MEMORY) {
        lm_set_error(error, "out of memory");
        return s;
    }
    lm_dispatch_events(conn);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad answered a request with a reply of another kind");
    }
    if (s)
        lm_status_error(conn, s, error);
    return s;
}

/* A request that connects again first when laminad is gone, and asks again when it went away
 * before answering (automatic reconnection). */
static int request(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind,
                   char **error) {
    if (conn && conn->fd < 0 && lm_recover(conn, LAMINA_ERROR_CLOSED) != LAMINA_OK) {
        lm_status_error(conn, LAMINA_ERROR_CLOSED, error);
        return LAMINA_ERROR_CLOSED;
    }
    char *first = NULL;
    int s = request_once(conn, kind, arguments, reply_kind, &first);
    /* laminad went away before answering: once connected again (and replayed), ask again. */
    if ((s == LAMINA_ERROR_CLOSED || s == LAMINA_ERROR_IO) && lm_recover(conn, s) == LAMINA_OK) {
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

int lm_request(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind, char **error) {
    return request(conn, kind, arguments, reply_kind, error);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a screenshot whose size does not match its pixels");
        lm_status_error(conn, s, error);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed advance-clock reply");
        lm_status_error(conn, s, error);
        return s;
    }
    conn->time = t;
    lm_dispatch_events(conn); /* gesture recognisers waiting on the clock see the new time */
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed tree reply");
        lm_status_error(conn, s, error);
        return s;
    }
    if (!(*json = lm_copy_string(text, n))) {
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed stats reply");
        lm_status_error(conn, s, error);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed display-power reply");
        lm_status_error(conn, s, error);
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

int lamina_connection_set_output_mode(lamina_connection *conn, const char *name, uint32_t width, uint32_t height,
                                      double refresh, char **error) {
    if (!name || !*name || strlen(name) > LM_KEY_LIMIT || !(refresh >= 0)) {
        lm_set_error(error, "lamina_connection_set_output_mode: an output name of 1 to 256 bytes and a refresh >= 0 (0: any)");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf arguments = {0};
    lm_buf_string(&arguments, name);
    lm_buf_u8(&arguments, 1); /* outputChanges: mode */
    lm_buf_u32(&arguments, width);
    lm_buf_u32(&arguments, height);
    lm_buf_f64(&arguments, refresh);
    /* The reply lists every output afterwards; the display-changed event carries what a client needs. */
    int s = arguments.failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_OUTPUT, &arguments, 12, error);
    lm_buf_free(&arguments);
    return s;
}

/* An output request changing `name` by opcode `change`; `arguments` holds what follows the opcode. */
static int output_change(lamina_connection *conn, const char *function, const char *name, uint8_t change, lm_buf *tail,
                         char **error) {
    if (!name || !*name || strlen(name) > LM_KEY_LIMIT) {
        lm_set_error(error, "%s: an output name of 1 to 256 bytes", function);
        lm_buf_free(tail);
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf arguments = {0};
    lm_buf_string(&arguments, name);
    lm_buf_u8(&arguments, change);
    if (tail->length) lm_buf_bytes(&arguments, tail->data, tail->length);
    int s = arguments.failed || tail->failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_OUTPUT, &arguments, 12, error);
    lm_buf_free(&arguments);
    lm_buf_free(tail);
    return s;
}

int lamina_connection_set_output_transform(lamina_connection *conn, const char *name, const char *transform, char **error) {
    if (!transform || strlen(transform) > 32) {
        lm_set_error(error, "lamina_connection_set_output_transform: a transform such as \"90\" or \"flipped-180\"");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf tail = {0};
    lm_buf_string(&tail, transform);
    return output_change(conn, "lamina_connection_set_output_transform", name, 2, &tail, error); /* outputChanges: transform */
}

int lamina_connection_set_output_scale(lamina_connection *conn, const char *name, double scale, char **error) {
    lm_buf tail = {0};
    lm_buf_f64(&tail, scale);
    return output_change(conn, "lamina_connection_set_output_scale", name, 3, &tail, error); /* outputChanges: scale */
}

int lamina_connection_set_output_position(lamina_connection *conn, const char *name, int32_t x, int32_t y, char **error) {
    lm_buf tail = {0};
    lm_buf_i32(&tail, x);
    lm_buf_i32(&tail, y);
    return output_change(conn, "lamina_connection_set_output_position", name, 4, &tail, error); /* outputChanges: position */
}

int lamina_connection_set_brightness(lamina_connection *conn, const char *output, double percent, char **error) {
    if (!(percent >= 0 && percent <= 100)) { /* NaN fails both */
        lm_set_error(error, "lamina_connection_set_brightness: brightness %g is not a percentage from 0 to 100", percent);
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    if (output && strlen(output) > LM_KEY_LIMIT) {
        lm_set_error(error, "lamina_connection_set_brightness: an output name of at most 256 bytes");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf arguments = {0};
    lm_buf_string(&arguments, output ? output : "");
    lm_buf_u8(&arguments, 7); /* outputChanges: brightness */
    lm_buf_f64(&arguments, percent);
    int s = arguments.failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_OUTPUT, &arguments, 12, error);
    lm_buf_free(&arguments);
    return s;
}

int lamina_connection_set_output_enabled(lamina_connection *conn, const char *name, int enabled, char **error) {
    lm_buf tail = {0};
    return output_change(conn, "lamina_connection_set_output_enabled", name, enabled ? 5 : 6, &tail, error); /* enable, disable */
}

/* An inject-input request whose arguments are in `arguments` (kind first); answered by done. */
static int inject(lamina_connection *conn, lm_buf *arguments, char **error) {
    int s = arguments->failed ? LAMINA_ERROR_NO_MEMORY : request(conn, LM_REQ_INJECT_INPUT, arguments, 10, error);
    lm_buf_free(arguments);
    if (s == LAMINA_OK && conn->reply.length != 0) {
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed done reply");
        lm_status_error(conn, s, error);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed done reply");
        lm_status_error(conn, s, error);
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
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed presentation reply");
        lm_status_error(conn, s, error);
        return s;
    }
    if (!found) {
        lm_set_error(error, "laminad's presentation of layer #%u has no '%s'", layer->number,
                     lamina_property_name(property));
        return LAMINA_ERROR_PROTOCOL;
    }
    return LAMINA_OK;
}
