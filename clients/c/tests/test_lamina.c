/*
 * Tests of liblamina.
 *
 *   test_lamina dump           property numbers, names and types, error names (for check_protocol.py)
 *   test_lamina png PATH       writes a PNG of a known pattern (check_protocol.py decodes it with zlib)
 *   test_lamina fixtures DIR   the encoder against protocol/fixtures byte for byte, and the decoder
 *                              against the server fixtures, over a socketpair standing in for laminad;
 *                              truncated and corrupted frames must close the connection, not crash
 *   test_lamina daemon         the README's program against a real laminad ($LAMINAD, headless, virtual
 *                              clock, its own socket); exit 77 (skipped) when there is none
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "animation.h"
#include "client.h"
#include "events.h"
#include "pending.h"
#include "replay.h"
#include "lamina.h"

static int failures;

#define CHECK(cond, ...)                                                                                           \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            failures++;                                                                                            \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
        }                                                                                                          \
    } while (0)

/* MARK: Files */

static uint8_t *read_file(const char *dir, const char *name, size_t *length) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    uint8_t *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *p = realloc(data, cap);
            if (!p)
                exit(1);
            data = p;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *length = n;
    return data;
}

static void write_all(int fd, const void *data, size_t n) {
    const uint8_t *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0) {
            perror("write");
            exit(1);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Dispatches what `conn` has read until `wanted` messages were handled in all (`already` so far),
 * at most 100 reads; returns the count reached (less where the connection failed). */
static int dispatch_until(lamina_connection *conn, int already, int wanted) {
    for (int i = 0; i < 100 && already < wanted; i++) {
        int d = lamina_connection_dispatch(conn);
        if (d < 0)
            break;
        already += d;
    }
    return already;
}

static void write_fixture(int fd, const char *dir, const char *name) {
    size_t n;
    uint8_t *data = read_file(dir, name, &n);
    write_all(fd, data, n);
    free(data);
}

/* A reply fixture as the answer to request `id` (its id bytes replaced). */
static void write_reply_as(int fd, const char *dir, const char *name, uint32_t id) {
    size_t n;
    uint8_t *data = read_file(dir, name, &n);
    if (n >= 12) {
        data[8] = (uint8_t)id;
        data[9] = (uint8_t)(id >> 8);
        data[10] = (uint8_t)(id >> 16);
        data[11] = (uint8_t)(id >> 24);
    }
    write_all(fd, data, n);
    free(data);
}

/* Reads one frame (header and body) from the fake server's end; descriptors that came with it are counted and kept in fds. */
static uint8_t *read_frame(int fd, size_t *length, int *fds, int *fd_count) {
    uint8_t header[8];
    size_t got = 0;
    *fd_count = 0;
    while (got < 8) {
        char control[CMSG_SPACE(sizeof(int) * 8)];
        struct iovec iov = {.iov_base = header + got, .iov_len = 8 - got};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
        ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        if (n <= 0) {
            fprintf(stderr, "the fake server's end closed\n");
            exit(1);
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (int i = 0; i < count && *fd_count < 8; i++)
                    memcpy(&fds[(*fd_count)++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            }
        got += (size_t)n;
    }
    uint32_t body = header[0] | (uint32_t)header[1] << 8 | (uint32_t)header[2] << 16 | (uint32_t)header[3] << 24;
    uint8_t *frame = malloc(8 + (size_t)body);
    if (!frame)
        exit(1);
    memcpy(frame, header, 8);
    got = 0;
    while (got < body) {
        ssize_t n = read(fd, frame + 8 + got, body - got);
        if (n <= 0) {
            fprintf(stderr, "the fake server's end closed in a frame\n");
            exit(1);
        }
        got += (size_t)n;
    }
    *length = 8 + body;
    return frame;
}

static void report_difference(const char *name, const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
    size_t i = 0;
    while (i < an && i < bn && a[i] == b[i])
        i++;
    fprintf(stderr, "  %s: %zu bytes written, %zu in the fixture; first difference at byte %zu\n", name, an, bn, i);
}

/* Reads the next frame the client sent and compares it with fixture `name`. */
static void expect_frame(int server, const char *dir, const char *name) {
    size_t n, fn;
    int fds[8], fd_count;
    uint8_t *frame = read_frame(server, &n, fds, &fd_count);
    uint8_t *fixture = read_file(dir, name, &fn);
    int same = n == fn && memcmp(frame, fixture, n) == 0;
    CHECK(same, "the client's frame differs from %s", name);
    if (!same)
        report_difference(name, frame, n, fixture, fn);
    for (int i = 0; i < fd_count; i++)
        close(fds[i]);
    free(frame);
    free(fixture);
}

static void discard_frame(int server) {
    size_t n;
    int fds[8], fd_count;
    free(read_frame(server, &n, fds, &fd_count));
    for (int i = 0; i < fd_count; i++)
        close(fds[i]);
}

/* MARK: dump, png */

static int dump(void) {
    for (int id = 1; id < 256; id++)
        if (lamina_property_name(id))
            printf("property %d %s %d\n", id, lamina_property_name(id), (int)lamina_property_type(id));
    for (int code = 1; lamina_server_error_name(code); code++)
        printf("error %d %s\n", code, lamina_server_error_name(code));
    return 0;
}

static uint8_t pattern(uint32_t x, uint32_t y, int c) { return (uint8_t)(x * 7 + y * 13 + (uint32_t)c * 61); }

static int png(const char *path) {
    /* 300 x 100: 120 100 filtered bytes, two stored blocks. */
    uint32_t w = 300, h = 100;
    uint8_t *rgba = malloc((size_t)w * h * 4);
    if (!rgba)
        return 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
                rgba[(y * w + x) * 4 + (uint32_t)c] = pattern(x, y, c);
    lm_buf out = {0};
    int s = lm_png_encode(&out, w, h, rgba);
    CHECK(s == LAMINA_OK, "lm_png_encode: %d", s);
    uint32_t dw = 0, dh = 0;
    uint8_t *decoded = NULL;
    s = lm_png_decode(out.data, out.length, &dw, &dh, &decoded);
    CHECK(s == LAMINA_OK && dw == w && dh == h && memcmp(decoded, rgba, (size_t)w * h * 4) == 0,
          "the PNG decoder does not read back what the encoder wrote");
    /* A flipped byte anywhere is caught by a CRC or the Adler-32. */
    out.data[out.length / 2] ^= 0x40;
    uint8_t *bad = NULL;
    CHECK(lm_png_decode(out.data, out.length, &dw, &dh, &bad) != LAMINA_OK, "a corrupted PNG decoded");
    free(bad);
    out.data[out.length / 2] ^= 0x40;
    CHECK(lm_crc32(0, (const uint8_t *)"123456789", 9) == 0xCBF43926u, "CRC-32 check value");
    CHECK(lm_adler32(1, (const uint8_t *)"Wikipedia", 9) == 0x11E60398u, "Adler-32 check value");
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out.data, 1, out.length, f) != out.length || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    free(decoded);
    free(rgba);
    lm_buf_free(&out);
    return failures ? 1 : 0;
}

/* MARK: fixtures */

typedef struct recorder {
    char log[1024];
} recorder;

static void record(recorder *r, const char *format, ...) {
    size_t n = strlen(r->log);
    va_list args;
    va_start(args, format);
    vsnprintf(r->log + n, sizeof r->log - n, format, args);
    va_end(args);
}

static void on_animation(const lamina_event *e, void *user) {
    record(user, "%s %s %d;", e->type == LAMINA_EVENT_ANIMATION_STARTED ? "start" : "stop", e->key, e->finished);
}

static void on_completion(void *user) { record(user, "completed;"); }

static void on_any_event(const lamina_event *e, void *user) {
    recorder *r = user;
    switch (e->type) {
    case LAMINA_EVENT_CLOCK: record(r, "clock %.2f;", e->time); break;
    case LAMINA_EVENT_INPUT:
        record(r, "input %d layer %u id %d at %.0f,%.0f screen %.0f,%.0f injected %d;", (int)e->input_kind, e->layer_number,
               e->id, e->x, e->y, e->screen_x, e->screen_y, e->injected);
        break;
    case LAMINA_EVENT_WATCH: record(r, "watch %s;", e->text); break;
    case LAMINA_EVENT_TRANSACTION_COMPLETED: record(r, "group %u;", e->group); break;
    default: record(r, "event %d;", (int)e->type); break;
    }
}

/* A connection to a fake laminad: the welcome fixture is there to be read. */
static lamina_connection *fake_connection(const char *dir, int *server) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        perror("socketpair");
        exit(1);
    }
    write_fixture(pair[1], dir, "welcome.bin");
    char *error = NULL;
    lamina_connection *conn = lamina_connection_from_fd(pair[0], "c-test", &error);
    if (!conn) {
        fprintf(stderr, "lamina_connection_from_fd: %s\n", error ? error : "?");
        exit(1);
    }
    lamina_connection_set_timeout(conn, 10000);
    *server = pair[1];
    return conn;
}

static void on_scroll_event(const lamina_event *e, void *user) {
    if (e->type == LAMINA_EVENT_SCROLL)
        record(user, "scroll %u phase %d source %d offset %.1f,%.1f velocity %.0f,%.0f time %.2f;", e->layer_number,
               (int)e->scroll_phase, e->scroll_source, e->offset_x, e->offset_y, e->velocity_x, e->velocity_y, e->time);
}

static void on_display_event(const lamina_event *e, void *user) {
    if (e->type != LAMINA_EVENT_DISPLAY_CHANGED)
        return;
    record(user, "display %ux%u:", e->display_width, e->display_height);
    for (size_t i = 0; i < e->output_count; i++) {
        const lamina_display_output *o = &e->outputs[i];
        record(user, " %s %g,%g %gx%g scale %g %s %g Hz;", o->name, o->x, o->y, o->width, o->height, o->scale, o->transform,
               o->refresh);
    }
}

/* display-changed.bin decoded into LAMINA_EVENT_DISPLAY_CHANGED; the display size and the
 * root's bounds follow. */
static void display_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    recorder events = {{0}};
    lamina_connection_set_event_callback(conn, on_display_event, &events);
    write_fixture(server, dir, "display-changed.bin");
    int dispatched = 0;
    dispatched = dispatch_until(conn, dispatched, 1);
    const char *expected = "display 1824x600: DP-1 0,0 800x600 scale 1 normal 60 Hz; HDMI-A-1 800,0 1024x576 scale 1.875 "
                           "flipped-270 50 Hz;";
    CHECK(dispatched == 1 && strcmp(events.log, expected) == 0, "display-changed event: %s", events.log);
    uint32_t w = 0, h = 0;
    double b[4];
    lamina_connection_display_size(conn, &w, &h);
    CHECK(w == 1824 && h == 600 && lamina_layer_get_bounds(lamina_connection_root(conn), b) == 0 && b[2] == 1824 && b[3] == 600,
          "display size %ux%u, root %gx%g", w, h, b[2], b[3]);
    lamina_connection_close(conn);
    close(server);
}

/* A done reply to request `id`. */
static void write_done(int server, uint32_t id) {
    uint8_t reply[14] = {6, 0, 0, 0, 0x84, 0, 0, 0, (uint8_t)id, (uint8_t)(id >> 8), (uint8_t)(id >> 16), (uint8_t)(id >> 24), 10, 0};
    write_all(server, reply, sizeof reply);
}

static void on_link(lamina_display_link *link, void *user) {
    record(user, "link %u %g %.6f %.6f;", lamina_display_link_number(link), lamina_display_link_timestamp(link),
           lamina_display_link_target_timestamp(link) - lamina_display_link_timestamp(link), lamina_display_link_duration(link));
}

/* Display links: request-display-link.bin and request-display-link-remove.bin through the public
 * API; frame.bin runs links 1 and 3's callbacks and is answered by an empty commit. */
static void display_link_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->server_minor = 7; /* the welcome fixture says 1.4 */
    recorder log = {{0}};
    char *error = NULL;
    lamina_display_link *links[4] = {0};
    uint32_t numbers[3] = {1, 3, 2};
    for (int i = 0; i < 3; i++) {
        conn->next_display_link = numbers[i];
        write_done(server, conn->next_request);
        links[numbers[i]] = lamina_display_link_create(conn, NULL, on_link, &log, &error);
        CHECK(links[numbers[i]] && lamina_display_link_number(links[numbers[i]]) == numbers[i], "display link %u: %s", numbers[i],
              error ? error : "?");
        discard_frame(server);
    }
    conn->next_request = 17;
    write_done(server, 17);
    lamina_frame_rate_range range = {20, 60, 30};
    CHECK(lamina_display_link_set_preferred_frame_rate_range(links[2], range, &error) == 0, "set range: %s", error ? error : "?");
    expect_frame(server, dir, "request-display-link.bin");
    write_done(server, 18);
    lamina_display_link_invalidate(links[2]);
    expect_frame(server, dir, "request-display-link-remove.bin");
    uint32_t serial = conn->serial;
    write_fixture(server, dir, "frame.bin");
    int dispatched = 0;
    dispatched = dispatch_until(conn, dispatched, 1);
    CHECK(strcmp(log.log, "link 1 1.5 0.016667 0.016667;link 3 1.5 0.016667 0.016667;") == 0, "frame callbacks: %s", log.log);
    CHECK(lamina_display_link_frame_count(links[1]) == 1 && lamina_display_link_target_timestamp(links[3]) == 1.5 + 1.0 / 60,
          "link state after the frame");
    /* The answer: an empty commit with the next serial. */
    size_t n;
    int fds[8], fd_count;
    uint8_t *frame = read_frame(server, &n, fds, &fd_count);
    uint8_t expected[16] = {8, 0, 0, 0, 2, 0, 0, 0, (uint8_t)(serial + 1), 0, 0, 0, 0, 0, 0, 0};
    CHECK(n == 16 && memcmp(frame, expected, 16) == 0 && conn->serial == serial + 1, "the frame answered by an empty commit");
    free(frame);
    lamina_display_link_invalidate(NULL);
    lamina_connection_close(conn); /* frees links 1 and 3 */
    close(server);
}

/* Drawings: commit-drawing.bin through lamina_draw_*, and bad names refused before sending. */
static void drawing_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_layer = 1;
    lamina_layer *layer = lamina_layer_new(conn);
    lamina_connection_commit(conn);
    discard_frame(server); /* the create */
    write_all(server, "\x04\0\0\0\x82\0\0\0\x01\0\0\0", 12); /* applied 1 */
    conn->serial = 11; /* the fixture's serial is 12 */
    lamina_drawing *d = lamina_drawing_new();
    CHECK(lamina_draw_set_fill_color(d, 1, 0, 0, 1) == 0 && lamina_draw_fill_rect(d, 0, 0, 10, 10) == 0 &&
              lamina_draw_add_path(d, "M 0 0 L 10 10") == 0 && lamina_draw_set_line_width(d, 2) == 0 &&
              lamina_draw_stroke_path(d) == 0 && lamina_draw_show_text(d, "Hi", 2, 14, "Helvetica", 12) == 0 &&
              lamina_drawing_count(d) == 6,
          "record the fixture's drawing");
    CHECK(lamina_property_type(LAMINA_PROPERTY_DRAWING) == LAMINA_VALUE_DRAWING &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_DRAWING), "drawing") == 0,
          "the drawing property's name and type");
    CHECK(lamina_layer_set_drawing(layer, d) == 0, "set the drawing");
    CHECK(lamina_connection_commit(conn) == 0, "commit the drawing");
    expect_frame(server, dir, "commit-drawing.bin");
    lamina_drawing *bad = lamina_drawing_new();
    CHECK(lamina_draw_set_line_cap(bad, "rund") == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_draw_fill_path(bad, NULL) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_drawing(layer, bad) == LAMINA_ERROR_INVALID_ARGUMENT,
          "an unknown name fails the drawing");
    lamina_drawing_free(bad);
    lamina_drawing_free(d);
    lamina_connection_close(conn);
    close(server);
}

/* Filters: commit-filters.bin through the public API, and bad lists refused before sending. */
static void filter_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_layer = 1; /* the fixture's layer number */
    lamina_layer *layer = lamina_layer_new(conn);
    CHECK(layer && lamina_layer_number(layer) == 1, "a layer numbered 1");
    lamina_connection_commit(conn);
    discard_frame(server); /* the create */
    write_all(server, "\x04\0\0\0\x82\0\0\0\x01\0\0\0", 12); /* applied 1 */
    conn->serial = 10; /* the fixture's serial is 11 */
    double radius = 8, amount = 0.5;
    double swap[20] = {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0};
    lamina_filter filters[] = {
        {"soft", LAMINA_FILTER_GAUSSIAN_BLUR, &radius, 1},
        {"grey", LAMINA_FILTER_SATURATE, &amount, 1},
        {"neg", LAMINA_FILTER_INVERT, NULL, 0},
        {"swap", LAMINA_FILTER_COLOR_MATRIX, swap, 20},
    };
    lamina_filter wrong_size[] = {{"swap", LAMINA_FILTER_COLOR_MATRIX, swap, 3}};
    lamina_filter unknown[] = {{"x", (lamina_filter_type)9, &radius, 1}};
    CHECK(lamina_layer_set_filters(layer, wrong_size, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_filters(layer, unknown, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_filters(layer, filters, 9) == LAMINA_ERROR_INVALID_ARGUMENT,
          "bad filter lists are refused");
    CHECK(lamina_layer_set_filters(layer, filters, 4) == 0, "set filters");
    CHECK(lamina_property_type(LAMINA_PROPERTY_FILTERS) == LAMINA_VALUE_FILTER_LIST &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_FILTERS), "filters") == 0,
          "the filters property's name and type");
    CHECK(lamina_connection_commit(conn) == 0, "commit the filters");
    expect_frame(server, dir, "commit-filters.bin");
    double frost = 12, pale = 1.5;
    lamina_filter glass[] = {{"frost", LAMINA_FILTER_GAUSSIAN_BLUR, &frost, 1}, {"pale", LAMINA_FILTER_SATURATE, &pale, 1}};
    CHECK(lamina_layer_set_background_filters(layer, wrong_size, 1) == LAMINA_ERROR_INVALID_ARGUMENT,
          "a bad background filter list is refused");
    CHECK(lamina_layer_set_background_filters(layer, glass, 2) == 0, "set background filters");
    CHECK(lamina_property_type(LAMINA_PROPERTY_BACKGROUND_FILTERS) == LAMINA_VALUE_FILTER_LIST &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_BACKGROUND_FILTERS), "backgroundFilters") == 0,
          "the backgroundFilters property's name and type");
    CHECK(lamina_connection_commit(conn) == 0, "commit the background filters");
    expect_frame(server, dir, "commit-background-filters.bin");
    lamina_connection_close(conn);
    close(server);
}

/* Rich text: commit-attributed-string.bin through the public API, and bad runs refused before sending. */
static void attributed_string_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_layer = 1;
    lamina_layer *layer = lamina_layer_new(conn);
    CHECK(layer && lamina_layer_number(layer) == 1, "a layer numbered 1");
    lamina_connection_commit(conn);
    discard_frame(server); /* the create */
    write_all(server, "\x04\0\0\0\x82\0\0\0\x01\0\0\0", 12); /* applied 1 */
    conn->serial = 11; /* the fixture's serial is 12 */
    lamina_text_run runs[3] = {
        {.text = "Sale ", .weight = 700, .has_color = 1, .color = {1, 0, 0, 1}},
        {.text = "today", .font = "DejaVu Serif", .font_size = 20, .italic = 1, .has_background_color = 1,
         .background_color = {1, 1, 0, 128.0 / 255}, .underline = 1, .strikethrough = 1, .kerning = 1.5,
         .baseline_offset = -2},
        {.text = "\xF0\x9F\x98\x80"},
    };
    lamina_text_run bad_color[1] = {{.text = "x", .has_color = 1, .color = {2, 0, 0, 1}}};
    lamina_text_run bad_weight[1] = {{.text = "x", .weight = 5000}};
    lamina_text_run no_text[1] = {{.text = NULL}};
    CHECK(lamina_layer_set_attributed_string(layer, bad_color, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_attributed_string(layer, bad_weight, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_attributed_string(layer, no_text, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_attributed_string(layer, runs, 257) == LAMINA_ERROR_INVALID_ARGUMENT,
          "bad runs are refused");
    CHECK(lamina_layer_set_attributed_string(layer, runs, 3) == 0, "set the attributed string");
    CHECK(lamina_layer_set_number(layer, LAMINA_PROPERTY_LINE_SPACING, 4) == 0, "set lineSpacing");
    CHECK(lamina_property_type(LAMINA_PROPERTY_ATTRIBUTED_STRING) == LAMINA_VALUE_ATTRIBUTED_STRING &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_ATTRIBUTED_STRING), "attributedString") == 0,
          "the attributedString property's name and type");
    CHECK(lamina_connection_commit(conn) == 0, "commit the attributed string");
    expect_frame(server, dir, "commit-attributed-string.bin");
    lamina_connection_close(conn);
    close(server);
}

/* Scroll layers: commit-scroll-layer.bin through the public API; the scroll fixtures decoded into
 * events, the layer's bounds reading back laminad's origin until the client sets them. */
static void scroll_fixtures(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_layer = 4;  /* the fixture's layer number */
    lamina_layer *list = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_SCROLL);
    CHECK(list && lamina_layer_number(list) == 4 &&
              lamina_layer_set_string(list, LAMINA_PROPERTY_SCROLL_MODE, "vertically") == 0 &&
              lamina_layer_set_bool(list, LAMINA_PROPERTY_SCROLLS_ON_TOUCH, 1) == 0 &&
              lamina_layer_set_size(list, LAMINA_PROPERTY_SCROLL_CONTENT_SIZE, 320, 2000) == 0 &&
              lamina_layer_set_bool(list, LAMINA_PROPERTY_PAGING_ENABLED, 1) == 0 &&
              lamina_layer_set_bounds(list, 0, 120, 320, 240) == 0,
          "a scroll layer's setters");
    CHECK(lamina_property_type(LAMINA_PROPERTY_SCROLL_CONTENT_SIZE) == LAMINA_VALUE_SIZE &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_PAGING_ENABLED), "pagingEnabled") == 0,
          "scroll properties' names and types");
    conn->serial = 9; /* the fixture's serial is 10 */
    CHECK(lamina_connection_commit(conn) == 0, "commit the scroll layer");
    expect_frame(server, dir, "commit-scroll-layer.bin");
    write_all(server, "\x04\0\0\0\x82\0\0\0\x0A\0\0\0", 12); /* applied 10 */
    recorder events = {{0}};
    lamina_connection_set_event_callback(conn, on_scroll_event, &events);
    write_fixture(server, dir, "scroll-began.bin");
    write_fixture(server, dir, "scroll-moved.bin");
    int dispatched = 0;
    dispatched = dispatch_until(conn, dispatched, 2);
    double b[4];
    CHECK(lamina_layer_get_bounds(list, b) == 0 && b[0] == 0 && b[1] == 180.5 && b[2] == 320 && b[3] == 240,
          "bounds follow the scroll: %g %g %g %g", b[0], b[1], b[2], b[3]);
    /* scroll_to limited by the mode (vertically): x stays. */
    CHECK(lamina_layer_scroll_to(list, 50, 600) == 0 && lamina_layer_get_bounds(list, b) == 0 && b[0] == 0 && b[1] == 600,
          "scroll_to: %g %g", b[0], b[1]);
    /* A scroll event from before laminad applied the client's set does not override it. */
    write_fixture(server, dir, "scroll-ended.bin");
    dispatched = dispatch_until(conn, dispatched, 3);
    CHECK(lamina_layer_get_bounds(list, b) == 0 && b[1] == 600, "the client's pending origin stays: %g", b[1]);
    CHECK(lamina_layer_scroll_to_rect(list, 0, 900, 10, 40) == 0 && lamina_layer_get_bounds(list, b) == 0 && b[1] == 700,
          "scroll_to_rect brings the far edge in: %g", b[1]);
    CHECK(lamina_layer_scroll_to_rect(list, 0, 750, 10, 40) == 0 && lamina_layer_get_bounds(list, b) == 0 && b[1] == 700,
          "scroll_to_rect of what shows moves nothing: %g", b[1]);
    const char *expected =
        "scroll 4 phase 0 source 0 offset 0.0,120.0 velocity 0,0 time 1.50;"
        "scroll 4 phase 1 source 0 offset 0.0,180.5 velocity 0,1200 time 1.75;"
        "scroll 4 phase 2 source 1 offset 0.0,480.0 velocity 0,0 time 2.25;";
    CHECK(dispatched == 3 && strcmp(events.log, expected) == 0, "scroll events: %s", events.log);
    lamina_connection_close(conn);
    close(server);
}

/* Layout: commit-layout.bin through the public API (an autoresizing mask and two constraints),
 * and the constraint setter's refusals. */
static void layout_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_layer = 1;
    lamina_layer *panel = lamina_layer_new(conn);
    lamina_constraint constraints[2] = {
        {LAMINA_CONSTRAINT_MID_X, "superlayer", LAMINA_CONSTRAINT_MID_X, 1, 0},
        {LAMINA_CONSTRAINT_MIN_Y, "title", LAMINA_CONSTRAINT_MAX_Y, 0.5, 8},
    };
    CHECK(panel && lamina_layer_number(panel) == 1 &&
              lamina_layer_set_number(panel, LAMINA_PROPERTY_AUTORESIZING_MASK,
                                      LAMINA_AUTORESIZING_WIDTH_SIZABLE | LAMINA_AUTORESIZING_HEIGHT_SIZABLE) == 0 &&
              lamina_layer_set_constraints(panel, constraints, 2) == 0,
          "a layer's layout setters");
    lamina_constraint bad = {(lamina_constraint_attribute)8, NULL, LAMINA_CONSTRAINT_MIN_X, 1, 0};
    lamina_constraint nan_offset = {LAMINA_CONSTRAINT_MIN_X, NULL, LAMINA_CONSTRAINT_MIN_X, 1, NAN};
    lamina_constraint many[17];
    for (int i = 0; i < 17; i++)
        many[i] = constraints[0];
    CHECK(lamina_layer_set_constraints(panel, &bad, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_constraints(panel, &nan_offset, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_constraints(panel, many, 17) == LAMINA_ERROR_INVALID_ARGUMENT &&
              lamina_layer_set_constraints(panel, NULL, 1) == LAMINA_ERROR_INVALID_ARGUMENT,
          "constraints refused: an attribute out of range, a NaN offset, more than 16, no list");
    conn->serial = 2; /* the fixture's serial is 3 */
    CHECK(lamina_connection_commit(conn) == 0, "commit the layout");
    expect_frame(server, dir, "commit-layout.bin");
    lamina_connection_close(conn);
    close(server);
}

typedef struct video_events {
    int seen[5];
    uint32_t width, height;
    double duration;
    lamina_video *video;
    char error[256];
} video_events;

static void on_video_event(const lamina_event *e, void *user) {
    video_events *v = user;
    if (e->type != LAMINA_EVENT_VIDEO || e->video_event > LAMINA_VIDEO_ERROR)
        return;
    v->seen[e->video_event]++;
    v->video = e->video;
    if (e->video_event == LAMINA_VIDEO_READY) {
        v->width = e->video_width;
        v->height = e->video_height;
        v->duration = e->video_duration;
    }
    if (e->video_event == LAMINA_VIDEO_ERROR)
        snprintf(v->error, sizeof v->error, "%s", e->text ? e->text : "?");
}

/* Videos: commit-video.bin and commit-video-sound.bin through the public API, and the video
 * events of video-ready.bin, video-ended.bin and video-error.bin. */
static void video_fixtures(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    conn->next_image = 5;
    char *error = NULL;
    lamina_video *video = lamina_video_new(conn, "/srv/clip.webm", &error);
    CHECK(video && lamina_video_number(video) == 5, "lamina_video_new: %s", error ? error : "");
    free(error);
    CHECK(lamina_video_set_loop(video, 1) == 0 && lamina_video_set_rate(video, 2) == 0 && lamina_video_seek(video, 1.5) == 0 &&
              lamina_video_play(video) == 0 && lamina_video_pause(video) == 0 && lamina_video_destroy(video) == 0,
          "the video's controls");
    conn->serial = 8; /* the fixture's serial is 9 */
    CHECK(lamina_connection_commit(conn) == 0, "commit the video");
    expect_frame(server, dir, "commit-video.bin");
    write_all(server, "\x04\0\0\0\x82\0\0\0\x09\0\0\0", 12); /* applied 9 */
    conn->next_image = 5;
    video = lamina_video_new(conn, "/srv/clip.webm", NULL);
    CHECK(video != NULL && lamina_connection_commit(conn) == 0, "a second video 5");
    discard_frame(server);
    write_all(server, "\x04\0\0\0\x82\0\0\0\x0A\0\0\0", 12); /* applied 10 */
    CHECK(lamina_video_set_volume(video, 0.5) == 0 && lamina_video_set_muted(video, 1) == 0 && lamina_video_set_muted(video, 0) == 0 &&
              lamina_video_set_volume(video, 2) == LAMINA_ERROR_INVALID_ARGUMENT,
          "volume and muted");
    conn->serial = 9; /* the fixture's serial is 10 */
    CHECK(lamina_connection_commit(conn) == 0, "commit volume and muted");
    expect_frame(server, dir, "commit-video-sound.bin");
    /* A reconnection's replay makes it again: created, then its loop, volume and play (rate 1 and
     * not muted, the defaults, are not sent). */
    CHECK(lamina_video_set_loop(video, 1) == 0 && lamina_video_play(video) == 0, "loop and play");
    {
        lm_replay r = {0};
        lm_buf ops = {0}, expected = {0};
        int fds[8];
        size_t fd_count = 0;
        lm_replay_source sources[16];
        uint32_t count = lm_replay_next(conn, &r, &ops, fds, &fd_count, sources);
        lm_encode_create_video(&expected, video);
        lm_encode_control_video(&expected, 5, 4, 1);
        lm_encode_control_video(&expected, 5, 5, 0.5);
        lm_encode_control_video(&expected, 5, 0, 0);
        CHECK(count == 5 && ops.length == 14 + expected.length && memcmp(ops.data + 14, expected.data, expected.length) == 0,
              "the replay makes the video again: %u operations, %zu bytes", count, ops.length);
        lm_buf_free(&ops);
        lm_buf_free(&expected);
    }
    video_events events;
    memset(&events, 0, sizeof events);
    lamina_connection_set_event_callback(conn, on_video_event, &events);
    write_fixture(server, dir, "video-ready.bin");
    write_fixture(server, dir, "video-ended.bin");
    write_fixture(server, dir, "video-error.bin");
    int dispatched = 0;
    dispatched = dispatch_until(conn, dispatched, 3);
    CHECK(dispatched == 3 && events.seen[LAMINA_VIDEO_READY] == 1 && events.width == 64 && events.height == 48 &&
              events.duration == 3 && events.seen[LAMINA_VIDEO_ENDED] == 1 && events.seen[LAMINA_VIDEO_ERROR] == 1 &&
              strcmp(events.error, "no such file") == 0,
          "video events: %d dispatched, error '%s'", dispatched, events.error);
    lamina_connection_close(conn);
    close(server);
}

static void on_app_event(const lamina_event *e, void *user) {
    if (e->type == LAMINA_EVENT_APP_SURFACE)
        record(user, "app %d window %u '%s' '%s' pid %d %ux%u reason %d;", (int)e->app_surface_kind, e->app_surface.id,
               e->app_surface.app_id, e->app_surface.title, e->app_surface.pid, e->app_surface.width, e->app_surface.height,
               (int)e->app_gone_reason);
}

/* A commit frame of serial `serial` holding `count` set operations already written to `ops`. */
static void expect_commit(int server, uint32_t serial, uint32_t count, const lm_buf *ops, const char *what) {
    lm_buf f = {0};
    lm_buf_u32(&f, (uint32_t)(8 + ops->length));
    lm_buf_u16(&f, 2);
    lm_buf_u16(&f, 0);
    lm_buf_u32(&f, serial);
    lm_buf_u32(&f, count);
    lm_buf_bytes(&f, ops->data, ops->length);
    size_t n;
    int fds[8], fd_count;
    uint8_t *frame = read_frame(server, &n, fds, &fd_count);
    CHECK(n == f.length && memcmp(frame, f.data, n) == 0, "%s", what);
    if (n != f.length || memcmp(frame, f.data, n) != 0)
        report_difference(what, frame, n, f.data, f.length);
    free(frame);
    lm_buf_free(&f);
}

static void set_op(lm_buf *b, uint32_t layer, uint32_t property) {
    lm_buf_u8(b, 3);
    lm_buf_u32(b, layer);
    lm_buf_u16(b, property);
}

/* App surfaces (1.7): request-manage-apps.bin, request-manage-apps-focus.bin and
 * commit-app-surface.bin through the public API; app-surface-appeared.bin and
 * app-surface-gone.bin decoded into LAMINA_EVENT_APP_SURFACE; lamina_layer_set_app_surface sets
 * contents none, and an image as contents clears the app surface. */
static void apps_fixture(const char *dir) {
    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    discard_frame(server); /* the hello */
    char *error = NULL;
    CHECK(lamina_connection_manage_apps(conn, &error) == LAMINA_ERROR_INVALID_ARGUMENT && error && strstr(error, "needs 1.7"),
          "managing apps refused by a 1.4 laminad: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    conn->server_minor = 7; /* the welcome fixture says 1.4 */
    conn->next_request = 21;
    write_done(server, 21);
    CHECK(lamina_connection_manage_apps(conn, &error) == 0, "manage apps: %s", error ? error : "?");
    expect_frame(server, dir, "request-manage-apps.bin");
    write_done(server, 22);
    CHECK(lamina_connection_focus_app(conn, 7, &error) == 0, "focus app 7: %s", error ? error : "?");
    expect_frame(server, dir, "request-manage-apps-focus.bin");
    CHECK(lamina_connection_close_app(conn, 0, &error) == LAMINA_ERROR_INVALID_ARGUMENT, "close app 0 refused here");
    free(error);
    error = NULL;

    recorder log = {{0}};
    lamina_connection_set_event_callback(conn, on_app_event, &log);
    write_fixture(server, dir, "app-surface-appeared.bin");
    write_fixture(server, dir, "app-surface-gone.bin");
    int dispatched = 0;
    dispatched = dispatch_until(conn, dispatched, 2);
    CHECK(strcmp(log.log, "app 0 window 7 'foot' 'foot' pid 4242 1280x720 reason 0;"
                          "app 2 window 7 'foot' 'foot' pid 4242 1280x720 reason 1;") == 0,
          "app-surface events: %s", log.log);

    conn->next_layer = 1;
    lamina_layer *layer = lamina_layer_new(conn);
    lamina_connection_commit(conn);
    discard_frame(server); /* the create */
    write_all(server, "\x04\0\0\0\x82\0\0\0\x01\0\0\0", 12); /* applied 1 */
    conn->serial = 10; /* the fixture's serial is 11 */
    CHECK(lamina_property_type(LAMINA_PROPERTY_APP_SURFACE) == LAMINA_VALUE_NUMBER &&
              strcmp(lamina_property_name(LAMINA_PROPERTY_APP_EXIT_CONTENTS), "appExitContents") == 0,
          "the app properties' names and types");
    CHECK(lamina_layer_set_number(layer, LAMINA_PROPERTY_APP_SURFACE, 7) == 0 &&
              lamina_layer_set_string(layer, LAMINA_PROPERTY_APP_SIZING, "app") == 0 &&
              lamina_layer_set_string(layer, LAMINA_PROPERTY_APP_EXIT_CONTENTS, "clear") == 0 &&
              lamina_connection_commit(conn) == 0,
          "commit the app properties");
    expect_frame(server, dir, "commit-app-surface.bin");

    /* lamina_layer_set_app_surface: contents none, then the window. */
    CHECK(lamina_layer_set_app_surface(layer, 9) == 0 && lamina_connection_commit(conn) == 0, "show window 9");
    lm_buf ops = {0};
    set_op(&ops, 1, LAMINA_PROPERTY_CONTENTS);
    lm_buf_u32(&ops, 0);
    set_op(&ops, 1, LAMINA_PROPERTY_APP_SURFACE);
    lm_buf_f64(&ops, 9);
    expect_commit(server, 12, 2, &ops, "set_app_surface(9): contents 0, appSurface 9");
    /* An image (here none) as contents stops showing it: appSurface 0 first. */
    ops.length = 0;
    CHECK(lamina_layer_set_contents(layer, NULL) == 0 && lamina_connection_commit(conn) == 0, "contents none");
    set_op(&ops, 1, LAMINA_PROPERTY_APP_SURFACE);
    lm_buf_f64(&ops, 0);
    set_op(&ops, 1, LAMINA_PROPERTY_CONTENTS);
    lm_buf_u32(&ops, 0);
    expect_commit(server, 13, 2, &ops, "set_contents(NULL) after a window: appSurface 0, contents 0");
    /* Not showing one: contents alone. */
    ops.length = 0;
    CHECK(lamina_layer_set_contents(layer, NULL) == 0 && lamina_connection_commit(conn) == 0, "contents none again");
    set_op(&ops, 1, LAMINA_PROPERTY_CONTENTS);
    lm_buf_u32(&ops, 0);
    expect_commit(server, 14, 1, &ops, "set_contents(NULL): contents alone");
    lm_buf_free(&ops);
    lamina_connection_close(conn);
    close(server);
}

static void fixtures(const char *dir) {
    /* hello: the library's encoder with the fixture's fields. */
    lm_buf hello = {0};
    lm_encode_hello(&hello, "python-example", "kiosk", 1, 1, 4); /* the fixture is pinned to 1.4 */
    size_t n;
    uint8_t *fixture = read_file(dir, "hello.bin", &n);
    CHECK(hello.length == n && memcmp(hello.data, fixture, n) == 0, "hello differs from hello.bin");
    free(fixture);
    lm_buf_free(&hello);

    int server;
    lamina_connection *conn = fake_connection(dir, &server);
    uint32_t width, height;
    lamina_connection_display_size(conn, &width, &height);
    CHECK(width == 320 && height == 240, "welcome display %ux%u", width, height);
    CHECK(lamina_connection_clock_is_virtual(conn) == 1, "welcome clock");
    CHECK(lamina_connection_time(conn) == 12.5, "welcome time %g", lamina_connection_time(conn));
    {
        int fds[8], fd_count;
        uint8_t *frame = read_frame(server, &n, fds, &fd_count);
        lm_buf expected = {0};
        lm_encode_hello(&expected, "c-test", "", 0, LAMINA_PROTOCOL_VERSION_MAJOR, LAMINA_PROTOCOL_VERSION_MINOR);
        CHECK(n == expected.length && memcmp(frame, expected.data, n) == 0, "the connection's hello");
        lm_buf_free(&expected);
        free(frame);
    }

    /* commit-properties.bin through the public API. */
    lamina_layer *one = lamina_layer_new(conn);
    lamina_layer *two = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_GRADIENT);
    lamina_layer *three = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_SHAPE);
    CHECK(one && two && three && lamina_layer_number(three) == 3, "layers");
    const double transform[16] = {2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 10, 20, 0, 1};
    const double colors[8] = {1, 0, 0, 1, 0, 0, 1, 1};
    const double locations[3] = {0, 0.25, 1};
    lamina_path *path = lamina_path_new();
    CHECK(lamina_path_move_to(path, 0, 0) == 0 && lamina_path_line_to(path, 10, 0) == 0 &&
              lamina_path_quad_curve_to(path, 15, 5, 10, 10) == 0 && lamina_path_curve_to(path, 5, 15, 0, 15, 0, 10) == 0 &&
              lamina_path_close(path) == 0,
          "path");
    CHECK(lamina_layer_set_bounds(one, 0, 0, 100, 50) == 0 && lamina_layer_set_position(one, 200, 300) == 0 &&
              lamina_layer_set_background_color(one, 1, 0.5, 0, 1) == 0 && lamina_layer_set_opacity(one, 0.5) == 0 &&
              lamina_layer_set_transform(one, LAMINA_PROPERTY_TRANSFORM, transform) == 0 &&
              lamina_layer_set_bool(one, LAMINA_PROPERTY_MASKS_TO_BOUNDS, 1) == 0 &&
              lamina_layer_set_string(one, LAMINA_PROPERTY_NAME, "box") == 0 &&
              lamina_layer_set_size(one, LAMINA_PROPERTY_SHADOW_OFFSET, 4, 5) == 0 &&
              lamina_layer_set_reference(one, LAMINA_PROPERTY_CONTENTS, 7) == 0 &&
              lamina_layer_set_layer(one, LAMINA_PROPERTY_MASK, three) == 0 &&
              lamina_layer_set_color_list(two, LAMINA_PROPERTY_COLORS, colors, 2) == 0 &&
              lamina_layer_set_number_list(two, LAMINA_PROPERTY_LOCATIONS, locations, 3) == 0 &&
              lamina_layer_set_string(two, LAMINA_PROPERTY_TYPE, "radial") == 0 &&
              lamina_layer_set_path(three, LAMINA_PROPERTY_PATH, path) == 0 &&
              lamina_layer_add_sublayer(lamina_connection_root(conn), one) == 0 &&
              lamina_layer_insert_sublayer(one, two, 0) == 0,
          "setters");
    lamina_path_free(path);
    /* A value of the wrong type is refused before anything is recorded. */
    CHECK(lamina_layer_set_number(one, LAMINA_PROPERTY_POSITION, 1) == LAMINA_ERROR_INVALID_ARGUMENT, "type check");
    CHECK(lamina_layer_set_point(one, (lamina_property)999, 1, 2) == LAMINA_ERROR_INVALID_ARGUMENT, "unknown property");
    CHECK(lamina_connection_commit(conn) == 0, "commit 1");
    expect_frame(server, dir, "commit-properties.bin");

    /* commit-transaction.bin: a transaction inside one whose settings are the defaults. */
    recorder events = {{0}};
    lamina_animation *fade = lamina_animation_basic_new("opacity");
    CHECK(fade && lamina_animation_set_from_number(fade, 1) == 0 && lamina_animation_set_to_number(fade, 0) == 0 &&
              lamina_animation_set_duration(fade, 0.5) == 0 && lamina_animation_set_timing_function(fade, "easeIn") == 0 &&
              lamina_animation_set_callback(fade, on_animation, &events) == 0,
          "animation");
    CHECK(lamina_transaction_set_duration(conn, 1) == LAMINA_ERROR_STATE, "a setting outside a transaction");
    CHECK(lamina_transaction_begin(conn) == 0 && lamina_transaction_begin(conn) == 0 &&
              lamina_transaction_set_duration(conn, 0.5) == 0 && lamina_transaction_set_timing_function(conn, "easeIn") == 0 &&
              lamina_transaction_set_disable_actions(conn, 1) == 0 &&
              lamina_transaction_set_completion(conn, on_completion, &events) == 0,
          "transaction");
    CHECK(lamina_transaction_set_timing_function(conn, "bouncy") == LAMINA_ERROR_INVALID_ARGUMENT, "unknown curve");
    CHECK(lamina_layer_set_opacity(one, 0) == 0 && lamina_layer_add_animation(one, fade, "fade") == 0 &&
              lamina_layer_remove_animation(one, "old") == 0 && lamina_layer_remove_all_animations(two) == 0,
          "changes in the transaction");
    lamina_animation_free(fade);
    CHECK(lamina_connection_commit(conn) == LAMINA_ERROR_STATE, "commit inside a transaction");
    CHECK(lamina_transaction_commit(conn) == 0, "inner transaction");
    CHECK(lamina_layer_set_opacity(two, 1) == 0, "set after the inner transaction");
    CHECK(lamina_transaction_commit(conn) == 0, "outer transaction");
    expect_frame(server, dir, "commit-transaction.bin");

    /* An image: its commit carries one sealed memory file (SCM_RIGHTS). */
    const uint8_t bgra[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    char *error = NULL;
    lamina_image *image = lamina_image_new(conn, 2, 1, bgra, 0, LAMINA_PIXEL_FORMAT_BGRA, LAMINA_ALPHA_STRAIGHT, &error);
    CHECK(image != NULL, "lamina_image_new: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_layer_set_contents(one, image) == 0 && lamina_connection_commit(conn) == 0, "commit 3");
    {
        int fds[8], fd_count;
        uint8_t *frame = read_frame(server, &n, fds, &fd_count);
        CHECK(fd_count == 1, "the image's commit carried %d descriptors", fd_count);
        if (fd_count == 1) {
            uint8_t back[8] = {0};
            struct stat st;
            int seals = fcntl(fds[0], F_GET_SEALS);
            CHECK(fstat(fds[0], &st) == 0 && st.st_size == 8, "the memory file's size");
            CHECK(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL), "seals %d", seals);
            CHECK(pread(fds[0], back, 8, 0) == 8 && memcmp(back, bgra, 8) == 0, "the memory file's pixels");
        }
        /* create-image #1 (2 x 1, stride 8, BGRA, straight), then set #1 contents 1. */
        static const uint8_t ops[] = {0x0C, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
                                      0x03, 1, 0, 0, 0, 27, 0, 1, 0, 0, 0};
        CHECK(n == 16 + sizeof ops && memcmp(frame + 8, "\x03\0\0\0\x02\0\0\0", 8) == 0 &&
                  memcmp(frame + 16, ops, sizeof ops) == 0,
              "the image's commit");
        for (int i = 0; i < fd_count; i++)
            close(fds[i]);
        free(frame);
    }
    CHECK(lamina_image_destroy(image) == 0, "image destroy");

    /* commit-remove.bin (serial 4), which also carries the image's destroy at the end: compare the start. */
    CHECK(lamina_layer_remove_from_superlayer(two) == 0 && lamina_layer_set_bool(two, LAMINA_PROPERTY_HIDDEN, 1) == 0 &&
              lamina_layer_insert_sublayer(one, two, 3) == 0,
          "commit 4");
    CHECK(lamina_connection_commit(conn) == 0, "commit 4");
    {
        int fds[8], fd_count;
        uint8_t *frame = read_frame(server, &n, fds, &fd_count);
        size_t fn;
        uint8_t *expected = read_file(dir, "commit-remove.bin", &fn);
        /* The same but for the length, the count (4) and a destroy-image #1 (5 bytes) at the end. */
        CHECK(n == fn + 5 && memcmp(frame + 4, expected + 4, 4) == 0 && frame[12] == 4 &&
                  memcmp(frame + 16, expected + 16, fn - 16) == 0 && memcmp(frame + fn, "\x0E\x01\0\0\0", 5) == 0,
              "commit-remove");
        free(expected);
        free(frame);
    }

    /* commit-animations.bin: the spring and the transition animations appear in it as encoded here,
     * and its set-action operations are this commit's (before its destroy #4). */
    {
        size_t fn;
        uint8_t *expected = read_file(dir, "commit-animations.bin", &fn);
        lamina_animation *bounce = lamina_animation_spring_new("position.x");
        lamina_animation_set_from_number(bounce, 0);
        lamina_animation_set_to_number(bounce, 100);
        lamina_animation_set_spring(bounce, 2, 300, 20, 1);
        lamina_animation_set_begin_time(bounce, 1);
        lamina_animation_set_removed_on_completion(bounce, 0);
        lamina_animation_set_fill_mode(bounce, LAMINA_FILL_MODE_FORWARDS);
        lamina_animation *push = lamina_animation_transition_new(LAMINA_TRANSITION_PUSH, LAMINA_TRANSITION_SUBTYPE_FROM_RIGHT);
        lamina_animation_set_transition_progress(push, 0.25, 1);
        lamina_animation_set_duration(push, 0.75);
        lm_buf encoded = {0};
        lm_encode_animation(&encoded, bounce);
        CHECK(memmem(expected, fn, encoded.data, encoded.length) != NULL, "the spring animation is not in commit-animations.bin");
        encoded.length = 0;
        lm_encode_animation(&encoded, push);
        CHECK(memmem(expected, fn, encoded.data, encoded.length) != NULL, "the transition is not in commit-animations.bin");
        /* The keyframe animations and the group, as commit-animations.bin has them. */
        lamina_animation *move = lamina_animation_keyframe_new("position");
        lamina_animation_add_point(move, 0, 0);
        lamina_animation_add_point(move, 100, 0);
        lamina_animation_add_value(move, LAMINA_VALUE_POINT, (const double[]){100, 50}, 2);
        lamina_animation_set_key_times(move, (const double[]){0, 0.5, 1}, 3);
        lamina_animation_add_keyframe_timing_function(move, "easeIn");
        lamina_animation_add_keyframe_timing_function(move, "easeOut");
        lamina_animation_set_calculation_mode(move, LAMINA_CALCULATION_PACED);
        lamina_animation_set_duration(move, 2);
        lamina_animation_set_repeat_count(move, 2);
        lamina_animation_set_autoreverses(move, 1);
        lamina_animation_set_fill_mode(move, LAMINA_FILL_MODE_BOTH);
        lamina_path *curve = lamina_path_new();
        lamina_path_move_to(curve, 0, 0);
        lamina_path_curve_to(curve, 10, 0, 20, 10, 20, 20);
        lamina_animation *along = lamina_animation_keyframe_new("position");
        lamina_animation_set_keyframe_path(along, curve);
        lamina_path_free(curve);
        lamina_animation_set_rotation_mode(along, LAMINA_ROTATION_AUTO);
        lamina_animation_set_calculation_mode(along, LAMINA_CALCULATION_CUBIC_PACED);
        lamina_animation *corner = lamina_animation_basic_new("cornerRadius");
        lamina_animation_set_by_number(corner, 10);
        lamina_animation_set_additive(corner, 1);
        lamina_animation *turn = lamina_animation_basic_new("transform");
        lamina_animation_set_to_number(turn, 3.14);
        lamina_animation_set_value_function(turn, LAMINA_VALUE_FUNCTION_ROTATE_Z);
        lamina_animation_set_speed(turn, 2);
        lamina_animation_set_time_offset(turn, 0.5);
        lamina_animation_set_repeat_duration(turn, 4);
        lamina_animation *group = lamina_animation_group_new();
        lamina_animation_set_duration(group, 3);
        lamina_animation_set_repeat_count(group, INFINITY);
        CHECK(lamina_animation_group_add(group, corner) == 0 && lamina_animation_group_add(group, turn) == 0, "group_add");
        lamina_animation_free(corner);
        lamina_animation_free(turn);
        lamina_animation *copy = lm_animation_copy(group); /* a deep copy encodes the same */
        const struct {
            const char *name;
            const lamina_animation *animation;
        } parts[] = {{"keyframe values", move}, {"keyframe path", along}, {"group", group}, {"group's copy", copy}};
        for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
            encoded.length = 0;
            lm_encode_animation(&encoded, parts[i].animation);
            CHECK(!encoded.failed && memmem(expected, fn, encoded.data, encoded.length) != NULL,
                  "the %s animation is not in commit-animations.bin", parts[i].name);
        }
        /* Refused: a value of the wrong size, a keyframe setter on a basic animation, a 9th group level. */
        CHECK(lamina_animation_add_value(move, LAMINA_VALUE_POINT, (const double[]){1}, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_animation_add_value(move, LAMINA_VALUE_STRING, (const double[]){1}, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_animation_set_calculation_mode(push, LAMINA_CALCULATION_PACED) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_animation_set_calculation_mode(move, (lamina_calculation_mode)5) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_animation_add_keyframe_timing_curve(move, 1.5, 0, 0, 1) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_animation_group_add(group, group) == LAMINA_ERROR_INVALID_ARGUMENT,
              "keyframe and group arguments");
        lamina_animation *nest = lamina_animation_group_new();
        int levels = 1, s = 0;
        while (s == 0 && levels < 20) {
            lamina_animation *outer = lamina_animation_group_new();
            s = lamina_animation_group_add(outer, nest);
            lamina_animation_free(nest);
            nest = outer;
            if (s == 0)
                levels++;
        }
        CHECK(levels == 8 && s == LAMINA_ERROR_INVALID_ARGUMENT, "groups nest %d deep, then %d", levels, s);
        lamina_animation_free(nest);
        lamina_animation_free(move);
        lamina_animation_free(along);
        lamina_animation_free(group);
        lamina_animation_free(copy);
        lm_buf_free(&encoded);
        CHECK(lamina_animation_set_spring(push, 1, 1, 1, 1) == LAMINA_ERROR_INVALID_ARGUMENT, "a transition is no spring");
        lamina_animation_free(bounce);
        lamina_animation_free(push);
        lamina_animation *style = lamina_animation_basic_new("");
        lamina_animation_set_duration(style, 1);
        lamina_animation_set_timing_function(style, "easeOut");
        CHECK(lamina_layer_set_action(one, "opacity", LAMINA_ACTION_NONE, NULL) == 0 &&
                  lamina_layer_set_style_action(one, "position", LAMINA_ACTION_ANIMATION, style) == 0 &&
                  lamina_layer_set_action(one, "bounds", LAMINA_ACTION_INHERIT, NULL) == 0 &&
                  lamina_layer_set_action(one, "bounds", LAMINA_ACTION_ANIMATION, NULL) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_connection_commit(conn) == 0,
              "actions");
        lamina_animation_free(style);
        int fds[8], fd_count;
        uint8_t *frame = read_frame(server, &n, fds, &fd_count);
        size_t ops = n - 16;
        CHECK(n > 16 && fn > ops + 5 && memcmp(frame + 16, expected + fn - 5 - ops, ops) == 0 &&
                  memcmp(expected + fn - 5, "\x02\x04\0\0\0", 5) == 0,
              "set-action operations differ from commit-animations.bin's");
        free(frame);
        free(expected);
    }

    /* Requests and their replies: ids 1, 2, 3, then a refused one (4), then a presentation (5). */
    write_fixture(server, dir, "reply-screenshot.bin");
    write_fixture(server, dir, "reply-tree.bin");
    write_fixture(server, dir, "reply-advance-clock.bin");
    write_fixture(server, dir, "error-request.bin");
    write_fixture(server, dir, "reply-presentation.bin");
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0 && w == 2 && h == 1 &&
              memcmp(pixels, "\xFF\0\0\xFF\0\x80\xFF\xFF", 8) == 0,
          "screenshot reply");
    free(pixels);
    expect_frame(server, dir, "request-screenshot.bin");
    char *json = NULL;
    CHECK(lamina_connection_tree(conn, &json, &error) == 0 && json &&
              strcmp(json, "{\"display\":{\"width\":320,\"height\":240},\"clients\":[]}") == 0,
          "tree reply %s", json ? json : "(none)");
    lamina_free(json);
    expect_frame(server, dir, "request-tree.bin");
    CHECK(lamina_connection_advance_clock(conn, 0.25, &error) == 0 && lamina_connection_time(conn) == 1.5, "advance reply");
    expect_frame(server, dir, "request-advance-clock.bin");
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == LAMINA_ERROR_SERVER && !pixels && error &&
              strstr(error, "permission-denied") && strstr(error, "screenshot: uid 1000 is not privileged"),
          "a refused request: %s", error ? error : "(no message)");
    free(error);
    error = NULL;
    discard_frame(server);
    double values[16] = {0};
    CHECK(lamina_layer_presentation(one, LAMINA_PROPERTY_OPACITY, values, 1, &error) == 0 && values[0] == 0.25,
          "presentation opacity %g", values[0]);
    expect_frame(server, dir, "request-presentation.bin");
    /* Stats, asked as request 4 (the fixture's id), then the numbering as it was. */
    {
        uint32_t next = conn->next_request;
        conn->next_request = 4;
        write_fixture(server, dir, "reply-stats.bin");
        lamina_stat *stats = NULL;
        size_t count = 0;
        CHECK(lamina_connection_stats(conn, &stats, &count, &error) == 0 && count == 2 && strcmp(stats[0].name, "frames") == 0 &&
                  stats[0].value == 3 && strcmp(stats[1].name, "layers") == 0 && stats[1].value == 10,
              "stats reply: %zu counters", count);
        lamina_free(stats);
        expect_frame(server, dir, "request-stats.bin");
        /* display-power as request 8, take-keyboard-focus as 12 (answered by the done reply, its id made 12). */
        conn->next_request = 8;
        write_fixture(server, dir, "reply-display-power.bin");
        lamina_display_state *state = NULL;
        CHECK(lamina_connection_display_power(conn, 0, "Virtual-1", &state, &error) == 0 && state && strcmp(state->backend, "kms") == 0 &&
                  state->count == 1 && strcmp(state->outputs[0].name, "Virtual-1") == 0 && state->outputs[0].on == 0,
              "display-power reply");
        lamina_free(state);
        expect_frame(server, dir, "request-display-power.bin");
        conn->next_request = 10;
        write_reply_as(server, dir, "reply-done.bin", 10);
        CHECK(lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_DOWN, 1, 110, 220, &error) == 0, "inject touch");
        expect_frame(server, dir, "request-inject-touch.bin");
        write_reply_as(server, dir, "reply-done.bin", 11);
        CHECK(lamina_connection_inject_key(conn, "Return", 1, &error) == 0, "inject key");
        expect_frame(server, dir, "request-inject-key.bin");
        write_reply_as(server, dir, "reply-done.bin", 12);
        CHECK(lamina_connection_take_keyboard_focus(conn, &error) == 0, "take-keyboard-focus");
        expect_frame(server, dir, "request-take-keyboard-focus.bin");
        write_reply_as(server, dir, "reply-watching.bin", 13);
        CHECK(lamina_connection_listen(conn, "kiosk", &error) == 0, "listen");
        expect_frame(server, dir, "request-listen.bin");
        CHECK(lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_DOWN, 1, NAN, 0, NULL) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_connection_inject_key(conn, "", 1, NULL) == LAMINA_ERROR_INVALID_ARGUMENT,
              "injections refused before sending");
        conn->next_request = next;
    }
    /* Only one request's reply was there: ask again for the bounds from another fixture copy. */
    write_fixture(server, dir, "applied.bin"); /* serial 7: answers the commits so far */
    write_fixture(server, dir, "error.bin");   /* commit 7 refused */
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "invalid-property") && strstr(error, "must be finite (got NaN or infinity)"),
          "sync's error: %s", error ? error : "(none)");
    free(error);
    error = NULL;

    /* Events: the animation's callback by tag 1, the completion of group 1, the clock, input, a watch line. */
    lamina_connection_set_event_callback(conn, on_any_event, &events);
    write_fixture(server, dir, "animation-started.bin");
    write_fixture(server, dir, "animation-stopped.bin");
    write_fixture(server, dir, "transaction-completed.bin");
    write_fixture(server, dir, "clock.bin");
    write_fixture(server, dir, "input-touch-down.bin");
    write_fixture(server, dir, "watch.bin");
    int dispatched = 0;
    for (int i = 0; i < 100 && dispatched < 6; i++) {
        int d = lamina_connection_dispatch(conn);
        CHECK(d >= 0, "dispatch %d", d);
        if (d < 0)
            break;
        dispatched += d;
    }
    const char *expected_log =
        "start fade 0;event 1;stop fade 1;event 2;completed;group 1;clock 2.50;"
        "input 1 layer 3 id 1 at 10,20 screen 110,220 injected 1;"
        "watch {\"event\":\"commit\",\"client\":1,\"serial\":7,\"operations\":12,\"time\":2.5};";
    CHECK(dispatched == 6 && strcmp(events.log, expected_log) == 0, "events: %s", events.log);
    CHECK(lamina_connection_time(conn) == 2.5, "the clock message moves the time");
    CHECK(lamina_connection_dispatch(conn) == 0, "nothing more to dispatch");
    CHECK(lamina_connection_flush(conn) == 0, "nothing to flush");

    /* A header announcing more than the limit closes the connection before any memory is taken for it. */
    {
        int other;
        lamina_connection *big = fake_connection(dir, &other);
        discard_frame(other);
        write_all(other, "\x01\0\0\x40\x84\0\0\0", 8);
        int b = lamina_connection_dispatch(big);
        CHECK(b == LAMINA_ERROR_PROTOCOL && strstr(lamina_connection_error(big), "over the limit"), "oversized frame: %d %s",
              b, lamina_connection_error(big) ? lamina_connection_error(big) : "");
        lamina_connection_close(big);
        close(other);
    }

    /* A frame with a non-zero reserved field closes the connection with a reason. */
    write_all(server, "\x04\0\0\0\x82\0\x01\0\x07\0\0\0", 12);
    int d = lamina_connection_dispatch(conn);
    CHECK(d == LAMINA_ERROR_PROTOCOL && lamina_connection_error(conn) && strstr(lamina_connection_error(conn), "reserved"),
          "bad header: %d %s", d, lamina_connection_error(conn) ? lamina_connection_error(conn) : "");
    CHECK(lamina_connection_get_fd(conn) == -1 && lamina_connection_commit(conn) == LAMINA_ERROR_CLOSED &&
              lamina_layer_new(conn) == NULL && lamina_connection_sync(conn, &error) == LAMINA_ERROR_CLOSED,
          "a closed connection refuses calls");
    free(error);
    error = NULL;
    lamina_connection_close(conn);
    close(server);

    /* laminad going away: dispatch says closed. */
    conn = fake_connection(dir, &server);
    close(server);
    d = lamina_connection_dispatch(conn);
    CHECK(d == LAMINA_ERROR_CLOSED && strstr(lamina_connection_error(conn), "laminad"), "peer closed: %d %s", d,
          lamina_connection_error(conn));
    lamina_connection_close(conn);

    /* A hello refused: the error's message is the connection's error. */
    {
        int pair[2];
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
        lm_buf refusal = {0};
        size_t start = lm_frame_begin(&refusal, LM_MSG_ERROR);
        lm_buf_u16(&refusal, 4);
        lm_buf_u8(&refusal, 0);
        lm_buf_u32(&refusal, 0);
        lm_buf_i32(&refusal, -1);
        lm_buf_string(&refusal, "protocol 9.0 is not supported");
        lm_frame_end(&refusal, start);
        write_all(pair[1], refusal.data, refusal.length);
        shutdown(pair[1], SHUT_WR);
        lm_buf_free(&refusal);
        lamina_connection *refused = lamina_connection_from_fd(pair[0], NULL, &error);
        CHECK(!refused && error && strstr(error, "unsupported-version") && strstr(error, "9.0"), "refused hello: %s",
              error ? error : "(none)");
        free(error);
        error = NULL;
        close(pair[1]);
    }

    scroll_fixtures(dir);
    display_fixture(dir);
    display_link_fixture(dir);
    layout_fixture(dir);
    video_fixtures(dir);
    filter_fixture(dir);
    drawing_fixture(dir);
    attributed_string_fixture(dir);
    apps_fixture(dir);

    /* Every server fixture cut short at every length, and with every byte flipped: the
     * connection closes or carries on, and nothing reads out of bounds (run under valgrind). */
    static const char *server_fixtures[] = {
        "welcome.bin", "applied.bin", "error.bin", "error-request.bin", "reply-screenshot.bin", "reply-tree.bin",
        "reply-advance-clock.bin", "reply-stats.bin", "reply-presentation.bin", "reply-watching.bin",
        "reply-display-power.bin", "reply-snapshot.bin", "reply-done.bin", "animation-started.bin",
        "animation-stopped.bin", "transaction-completed.bin", "watch.bin", "clock.bin", "input-touch-down.bin",
        "input-key-press.bin", "input-scroll.bin", "reply-presentation-1.7.bin",
        "scroll-began.bin", "scroll-moved.bin", "scroll-ended.bin", "frame.bin",
        "app-surface-appeared.bin", "app-surface-gone.bin",
    };
    int cases = 0;
    for (size_t f = 0; f < sizeof server_fixtures / sizeof server_fixtures[0]; f++) {
        size_t fn;
        uint8_t *data = read_file(dir, server_fixtures[f], &fn);
        for (size_t cut = 8; cut <= fn; cut += (fn > 200 ? 37 : 1)) {
            for (int flip = -1; flip < (int)cut; flip += (cut > 100 ? 23 : 3)) {
                uint8_t *copy = malloc(cut);
                memcpy(copy, data, cut);
                uint32_t body = (uint32_t)(cut - 8);
                memcpy(copy, &body, 4);
                if (flip >= 0)
                    copy[flip] ^= 0xA5;
                conn = fake_connection(dir, &server);
                lamina_connection_set_timeout(conn, 2000);
                discard_frame(server); /* the hello */
                uint32_t reply_kind = 0;
                if (cut >= 14 && copy[4] == LM_MSG_REPLY) { /* answers request 1, of its kind */
                    memcpy(copy + 8, "\x01\0\0\0", cut >= 12 ? 4 : 0);
                    reply_kind = data[12];
                }
                write_all(server, copy, cut);
                shutdown(server, SHUT_WR); /* then end of stream: nothing waits */
                int s;
                char *message = NULL;
                uint8_t *shot = NULL;
                char *tree = NULL;
                lamina_stat *stats = NULL;
                lamina_display_state *power = NULL;
                size_t stat_count = 0;
                double v[4];
                switch (reply_kind) {
                case 1: s = lamina_connection_screenshot_pixels(conn, &w, &h, &shot, &message); break;
                case 2: s = lamina_connection_tree(conn, &tree, &message); break;
                case 3: s = lamina_connection_advance_clock(conn, 1, &message); break;
                case 4: s = lamina_connection_stats(conn, &stats, &stat_count, &message); break;
                case 8: s = lamina_connection_display_power(conn, 1, NULL, &power, &message); break;
                case 10: s = lamina_connection_take_keyboard_focus(conn, &message); break;
                case 5: s = lamina_layer_presentation(lamina_connection_root(conn), LAMINA_PROPERTY_BOUNDS, v, 4, &message); break;
                default: s = lamina_connection_dispatch(conn); break;
                }
                CHECK(s >= 0 || s == LAMINA_ERROR_PROTOCOL || s == LAMINA_ERROR_CLOSED || s == LAMINA_ERROR_SERVER,
                      "%s cut at %zu, byte %d flipped: %d", server_fixtures[f], cut, flip, s);
                free(message);
                free(shot);
                free(tree);
                free(stats);
                free(power);
                lamina_connection_close(conn);
                close(server);
                free(copy);
                cases++;
            }
        }
        free(data);
    }
    printf("fixtures: encoder and decoder checked; %d damaged frames handled\n", cases);
}

/* MARK: daemon */

typedef struct daemon {
    pid_t pid;
    char directory[256];
    char socket[300];
    char log[300];
} daemon_t;

static void daemon_stop(daemon_t *d) {
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        int status;
        for (int i = 0; i < 500; i++) { /* up to 10 s, then SIGKILL */
            if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
                d->pid = 0;
                break;
            }
            nanosleep(&(struct timespec){0, 20000000}, NULL);
        }
        if (d->pid > 0) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
            d->pid = 0;
        }
    }
    unlink(d->socket);
    unlink(d->log);
    char shot[300];
    snprintf(shot, sizeof shot, "%s/shot.png", d->directory);
    unlink(shot);
    rmdir(d->directory);
}

static void print_log(const daemon_t *d) {
    FILE *f = fopen(d->log, "r");
    if (!f)
        return;
    char line[1024];
    fprintf(stderr, "--- laminad's log (last lines) ---\n");
    long lines = 0;
    while (fgets(line, sizeof line, f))
        lines++;
    rewind(f);
    for (long i = 0; fgets(line, sizeof line, f); i++)
        if (i >= lines - 30)
            fputs(line, stderr);
    fclose(f);
}

static int daemon_spawn(daemon_t *d, const char *laminad, int log_mode);
/* The display laminad starts with (the gesture program's is larger). */
static const char *daemon_size = "320x240";
/* laminad's --audio-sink, when set (the video sound test's WAV file). */
static const char *daemon_audio_sink = NULL;
/* More options for the next laminad started: --config and --background (app surfaces). */
static const char *daemon_config = NULL;
static const char *daemon_background = NULL;

/* Starts laminad: headless, 320 x 240, virtual clock, a socket in a fresh temporary folder. */
static int daemon_start(daemon_t *d, const char *laminad) {
    memset(d, 0, sizeof *d);
    const char *tmp = getenv("TMPDIR");
    snprintf(d->directory, sizeof d->directory, "%s/lamina-c-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d->directory)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(d->socket, sizeof d->socket, "%s/lamina.sock", d->directory);
    snprintf(d->log, sizeof d->log, "%s/laminad.log", d->directory);
    return daemon_spawn(d, laminad, O_TRUNC);
}

/* Runs laminad on d->socket (its log to d->log, opened with `log_mode`: O_TRUNC or O_APPEND) and
 * waits until it listens: laminad renames its socket into place then (not a timing check). */
static int daemon_spawn(daemon_t *d, const char *laminad, int log_mode) {
    d->pid = fork();
    if (d->pid < 0)
        return -1;
    if (d->pid == 0) {
        int fd = open(d->log, O_WRONLY | O_CREAT | log_mode, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        const char *argv[20] = {laminad, "--backend", "headless", "--size", daemon_size, "--clock", "virtual", "--socket",
                                d->socket, "--log-level", "debug"};
        int argc = 11;
        if (daemon_audio_sink) {
            argv[argc++] = "--audio-sink";
            argv[argc++] = daemon_audio_sink;
        }
        if (daemon_config) {
            argv[argc++] = "--config";
            argv[argc++] = daemon_config;
        }
        if (daemon_background) {
            argv[argc++] = "--background";
            argv[argc++] = daemon_background;
        }
        execv(laminad, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 1500; i++) {
        if (access(d->socket, F_OK) == 0)
            return 0;
        int status;
        if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
            d->pid = 0;
            break;
        }
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    fprintf(stderr, "laminad did not start listening on %s\n", d->socket);
    print_log(d);
    return -1;
}

typedef struct rgba {
    int r, g, b, a;
} rgba;

static rgba pixel_at(const uint8_t *pixels, uint32_t width, uint32_t x, uint32_t y) {
    const uint8_t *p = pixels + ((size_t)y * width + x) * 4;
    return (rgba){p[0], p[1], p[2], p[3]};
}

static int close_to(rgba p, rgba q, int tolerance) {
    return abs(p.r - q.r) <= tolerance && abs(p.g - q.g) <= tolerance && abs(p.b - q.b) <= tolerance &&
           abs(p.a - q.a) <= tolerance;
}

/* The y of a cubic Bézier timing curve at x = t (bisection on x(s) = t). */
static double timing_value(const double c[4], double t) {
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2, s = mid;
        double x = 3 * c[0] * s * (1 - s) * (1 - s) + 3 * c[2] * s * s * (1 - s) + s * s * s;
        if (x < t)
            lo = mid;
        else
            hi = mid;
    }
    double s = (lo + hi) / 2;
    return 3 * c[1] * s * (1 - s) * (1 - s) + 3 * c[3] * s * s * (1 - s) + s * s * s;
}

/* A screenshot's pixel (x, y), or {-1...} after reporting a failure. */
static rgba shot_pixel(lamina_connection *conn, uint32_t x, uint32_t y) {
    uint32_t w, h;
    uint8_t *pixels = NULL;
    char *error = NULL;
    int s = lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error);
    CHECK(s == 0, "screenshot: %s", error ? error : "?");
    free(error);
    rgba p = {-1, -1, -1, -1};
    if (s == 0 && x < w && y < h)
        p = pixel_at(pixels, w, x, y);
    free(pixels);
    return p;
}

static void advance(lamina_connection *conn, double seconds) {
    char *error = NULL;
    int s = lamina_connection_advance_clock(conn, seconds, &error);
    CHECK(s == 0, "advance_clock(%g): %s", seconds, error ? error : "?");
    free(error);
}

static double presentation_number(lamina_layer *layer, lamina_property property) {
    double v[1] = {NAN};
    char *error = NULL;
    int s = lamina_layer_presentation(layer, property, v, 1, &error);
    CHECK(s == 0, "presentation: %s", error ? error : "?");
    free(error);
    return v[0];
}

#define PIXEL(p) (p).r, (p).g, (p).b, (p).a

typedef struct input_log {
    int touch_down, touch_up, key_press, watch_touch;
    uint32_t layer;
} input_log;

static void on_input(const lamina_event *e, void *user) {
    input_log *log = user;
    if (e->type == LAMINA_EVENT_INPUT && e->input_kind == LAMINA_INPUT_TOUCH_DOWN && e->injected && e->layer_number == log->layer &&
        fabs(e->x - 10) < 1e-9 && fabs(e->y - 20) < 1e-9)
        log->touch_down++;
    if (e->type == LAMINA_EVENT_INPUT && e->input_kind == LAMINA_INPUT_TOUCH_UP && e->layer_number == log->layer)
        log->touch_up++;
    if (e->type == LAMINA_EVENT_INPUT && e->input_kind == LAMINA_INPUT_KEY_PRESS && e->key_name && strcmp(e->key_name, "Return") == 0)
        log->key_press++;
    if (e->type == LAMINA_EVENT_WATCH && e->text && strstr(e->text, "\"touchDown\"") && strstr(e->text, "\"session\":\"c-input\""))
        log->watch_touch++;
}

/* Injected touches and keys reach the layer and the focused client; a listener on the session
 * hears them as JSON lines. */
static void input_events(lamina_connection *watcher) {
    char *error = NULL;
    lamina_connection *conn = lamina_connect_session(watcher->path, "c-input", "c-input", 0, &error);
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    error = NULL;
    if (!conn)
        return;
    lamina_connection_set_timeout(conn, 20000);
    input_log log = {0}, heard = {0};
    lamina_connection_set_event_callback(conn, on_input, &log);
    lamina_connection_set_event_callback(watcher, on_input, &heard);
    lamina_layer *button = lamina_layer_new(conn);
    lamina_layer_set_bounds(button, 0, 0, 40, 30);
    lamina_layer_set_position(button, 120, 215); /* frame (100, 200, 40, 30) */
    lamina_layer_set_background_color(button, 1, 1, 1, 1);
    lamina_layer_add_sublayer(lamina_connection_root(conn), button);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    log.layer = heard.layer = lamina_layer_number(button);
    CHECK(lamina_connection_listen(watcher, "c-input", &error) == 0, "listen: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_DOWN, 1, 110, 220, &error) == 0 &&
              lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_UP, 1, 0, 0, &error) == 0 &&
              lamina_connection_take_keyboard_focus(conn, &error) == 0 && lamina_connection_inject_key(conn, "Return", 1, &error) == 0 &&
              lamina_connection_inject_key(conn, "Return", 0, &error) == 0,
          "injections: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(conn);
    /* The watcher's lines come with its next round trip. */
    CHECK(lamina_connection_sync(watcher, NULL) == 0, "sync the watcher");
    lamina_connection_dispatch(watcher);
    CHECK(log.touch_down == 1 && log.touch_up == 1 && log.key_press == 1, "input events: %d touch down at (10, 20), %d up, %d Return",
          log.touch_down, log.touch_up, log.key_press);
    CHECK(heard.watch_touch == 1, "the listener heard %d touch-down lines", heard.watch_touch);
    lamina_connection_set_event_callback(watcher, NULL, NULL);
    CHECK(lamina_connection_inject_key(conn, "NoSuchKeyName", 1, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "invalid-request"),
          "an unknown key: %s", error ? error : "?");
    free(error);
    lamina_connection_close(conn);
    printf("daemon: injected touches and keys reached the layer, the focused client and a listener\n");
}

typedef struct scroll_log {
    int began, moved, ended;
    double last_y;
} scroll_log;

static void on_scroll_log(const lamina_event *e, void *user) {
    scroll_log *log = user;
    if (e->type != LAMINA_EVENT_SCROLL)
        return;
    log->began += e->scroll_phase == LAMINA_SCROLL_BEGAN;
    log->moved += e->scroll_phase == LAMINA_SCROLL_MOVED;
    log->ended += e->scroll_phase == LAMINA_SCROLL_ENDED;
    log->last_y = e->offset_y;
}

/* A scroll layer of 100 rows: scroll_to read back from laminad's tree and pixels; a drag laminad
 * scrolls itself, reported as scroll events with the bounds following; a refused content size. */
/* An output's mode changed at run time (protocol 1.7): the event with laminad's numbers, the
 * display size and the root following; bad requests refused with what was wrong. Puts the
 * display back to 320x240 for the tests after it. */
static void display_changes(lamina_connection *conn) {
    recorder events = {{0}};
    lamina_connection_set_event_callback(conn, on_display_event, &events);
    char *error = NULL;
    CHECK(lamina_connection_set_output_mode(conn, "headless", 200, 150, 0, &error) == 0, "output mode: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(conn);
    CHECK(strcmp(events.log, "display 200x150: headless 0,0 200x150 scale 1 normal 0 Hz;") == 0, "display-changed: %s", events.log);
    uint32_t w = 0, h = 0;
    double b[4];
    lamina_connection_display_size(conn, &w, &h);
    CHECK(w == 200 && h == 150 && lamina_layer_get_bounds(lamina_connection_root(conn), b) == 0 && b[2] == 200 && b[3] == 150,
          "display size %ux%u, root %gx%g", w, h, b[2], b[3]);
    CHECK(lamina_connection_set_output_mode(conn, "nope", 800, 600, 0, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "no output named 'nope' (outputs: headless)"),
          "an unknown output: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_set_output_mode(conn, "headless", 0, 0, 0, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "mode 0x0 is out of range"),
          "a 0x0 mode: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_set_output_mode(conn, "headless", 320, 240, 0, &error) == 0, "back to 320x240: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(conn);
    /* Turned, scaled and moved: each a display-changed with laminad's numbers. */
    events.log[0] = 0;
    CHECK(lamina_connection_set_output_transform(conn, "headless", "90", &error) == 0, "transform 90: %s", error ? error : "?");
    lamina_connection_dispatch(conn);
    CHECK(lamina_connection_set_output_scale(conn, "headless", 2, &error) == 0, "scale 2: %s", error ? error : "?");
    lamina_connection_dispatch(conn);
    CHECK(lamina_connection_set_output_position(conn, "headless", 10, 20, &error) == 0, "position: %s", error ? error : "?");
    lamina_connection_dispatch(conn);
    CHECK(strcmp(events.log, "display 240x320: headless 0,0 240x320 scale 1 90 0 Hz;display 120x160: headless 0,0 120x160 scale 2 90 0 Hz;"
                             "display 130x180: headless 10,20 120x160 scale 2 90 0 Hz;") == 0,
          "turned, scaled, moved: %s", events.log);
    CHECK(lamina_connection_set_output_enabled(conn, "headless", 0, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "headless is the only output"),
          "the only output disabled: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_set_output_position(conn, "headless", 0, 0, &error) == 0 &&
              lamina_connection_set_output_scale(conn, "headless", 1, &error) == 0 &&
              lamina_connection_set_output_transform(conn, "headless", "normal", &error) == 0,
          "back to normal: %s", error ? error : "?");
    free(error);
    lamina_connection_dispatch(conn);
    lamina_connection_set_event_callback(conn, NULL, NULL);
    printf("daemon: an output's mode changed at run time and display-changed said so\n");
}

static double stat_named(lamina_connection *conn, const char *name);

/* The fake sysfs tree laminad reads backlights from (LAMINA_SYSFS_ROOT, set before it starts):
 * one firmware backlight, acpi_video0, of 255 levels, which the only output takes. */
static char sysfs_root[256];

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int make_fake_sysfs(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(sysfs_root, sizeof sysfs_root, "%s/lamina-c-sysfs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(sysfs_root))
        return -1;
    char path[512];
    static const char *folders[] = {"/class", "/class/backlight", "/class/backlight/acpi_video0"};
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
        snprintf(path, sizeof path, "%s%s", sysfs_root, folders[i]);
        if (mkdir(path, 0755) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/class/backlight/acpi_video0/type", sysfs_root);
    write_text(path, "firmware\n");
    snprintf(path, sizeof path, "%s/class/backlight/acpi_video0/max_brightness", sysfs_root);
    write_text(path, "255\n");
    snprintf(path, sizeof path, "%s/class/backlight/acpi_video0/brightness", sysfs_root);
    write_text(path, "255\n");
    return setenv("LAMINA_SYSFS_ROOT", sysfs_root, 1);
}

static void remove_fake_sysfs(void) {
    static const char *files[] = {"/class/backlight/acpi_video0/type", "/class/backlight/acpi_video0/max_brightness",
                                  "/class/backlight/acpi_video0/brightness"};
    static const char *folders[] = {"/class/backlight/acpi_video0", "/class/backlight", "/class", ""};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s%s", sysfs_root, files[i]);
        unlink(path);
    }
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++) {
        snprintf(path, sizeof path, "%s%s", sysfs_root, folders[i]);
        rmdir(path);
    }
    unsetenv("LAMINA_SYSFS_ROOT");
}

/* lamina_connection_set_brightness: 40 % of 255 is 102 in the fake brightness file; 0 % the
 * dimmest lit level, 1; an unknown output and a percent out of range are refused. */
static void backlight_brightness(lamina_connection *conn) {
    char *error = NULL, path[512], text[32] = {0};
    snprintf(path, sizeof path, "%s/class/backlight/acpi_video0/brightness", sysfs_root);
    CHECK(lamina_connection_set_brightness(conn, NULL, 40, &error) == 0, "brightness 40: %s", error ? error : "?");
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(text, sizeof text, f))
            text[0] = 0;
        fclose(f);
    }
    CHECK(strcmp(text, "102\n") == 0, "40 %% of 255 in the brightness file: '%s'", text);
    CHECK(lamina_connection_set_brightness(conn, "headless", 0, &error) == 0, "brightness 0: %s", error ? error : "?");
    double level = stat_named(conn, "backlight.headless");
    CHECK(level > 0.38 && level < 0.40, "stats backlight.headless after 0 %%: %g (1 of 255)", level);
    CHECK(lamina_connection_set_brightness(conn, "HDMI-A-1", 50, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "HDMI-A-1"),
          "an unknown output: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_set_brightness(conn, NULL, 140, &error) == LAMINA_ERROR_INVALID_ARGUMENT && error &&
              strstr(error, "not a percentage from 0 to 100"),
          "140 %%: %s", error ? error : "?");
    free(error);
    CHECK(lamina_connection_set_brightness(conn, NULL, 100, NULL) == 0, "back to 100 %%");
    printf("daemon: brightness written into the backlight's file\n");
}

typedef struct link_log {
    int count;
    double last_target;
    int evenly;
} link_log;

static void on_tick(lamina_display_link *link, void *user) {
    link_log *log = user;
    double target = lamina_display_link_target_timestamp(link);
    if (log->count > 0 && fabs(target - log->last_target - 1.0 / 60) > 1e-9)
        log->evenly = 0;
    log->last_target = target;
    log->count++;
}

/* Display links on the virtual clock: one second at 60 Hz is 60 callbacks a sixtieth apart; a
 * paused link keeps the screen idle (no frames, no wake-ups); bad values refused. */
static void display_links(lamina_connection *conn) {
    char *error = NULL;
    link_log log = {0, 0, 1};
    lamina_display_link *link = lamina_display_link_create(conn, "", on_tick, &log, &error);
    CHECK(link != NULL, "display link: %s", error ? error : "?");
    free(error);
    error = NULL;
    for (int i = 0; i < 60; i++)
        lamina_connection_advance_clock(conn, 1.0 / 60, NULL);
    lamina_connection_dispatch(conn);
    CHECK(log.count == 60 && log.evenly && lamina_display_link_frame_count(link) == 60, "60 callbacks a sixtieth apart: %d", log.count);
    CHECK(fabs(lamina_display_link_duration(link) - 1.0 / 60) < 1e-12, "duration %g", lamina_display_link_duration(link));
    CHECK(lamina_display_link_set_paused(link, 1, &error) == 0 && lamina_display_link_is_paused(link), "pause: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_sync(conn, NULL);
    /* (Earlier tests on this connection leave emitters running, so framesRendered moves with the
     * clock here; the Swift and Python tests show it still on a quiet display.) */
    double sent = stat_named(conn, "displayLink.frames"), wakeups = stat_named(conn, "repaint.wakeups");
    for (int i = 0; i < 30; i++)
        lamina_connection_advance_clock(conn, 1.0 / 60, NULL);
    double sent2 = stat_named(conn, "displayLink.frames"), wakeups2 = stat_named(conn, "repaint.wakeups");
    CHECK(sent2 == sent && wakeups2 == wakeups && log.count == 60 && stat_named(conn, "displayLink.running") == 0,
          "paused: no frame messages (%g then %g), no wake-ups (%g then %g), no callbacks (%d)", sent, sent2, wakeups, wakeups2, log.count);
    lamina_frame_rate_range bad = {60, 30, 0};
    CHECK(lamina_display_link_set_preferred_frame_rate_range(link, bad, &error) == LAMINA_ERROR_SERVER && error &&
              strstr(error, "minimum 60.0 is above its maximum 30.0"),
          "a bad range: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_display_link_set_output(link, "nope", &error) == LAMINA_ERROR_SERVER && error && strstr(error, "no output by that name"),
          "an unknown output: %s", error ? error : "?");
    free(error);
    lamina_display_link_invalidate(link);
    CHECK(stat_named(conn, "displayLink.links") == 0, "invalidated");
    printf("daemon: a display link called back 60 times in a virtual second, and a paused one got nothing\n");
}

static void scroll_layers(lamina_connection *conn) {
    char *error = NULL;
    lamina_layer *list = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_SCROLL);
    lamina_layer_set_bounds(list, 0, 0, 320, 240);
    lamina_layer_set_position(list, 160, 120);
    lamina_layer_set_string(list, LAMINA_PROPERTY_SCROLL_MODE, "vertically");
    lamina_layer_set_bool(list, LAMINA_PROPERTY_SCROLLS_ON_TOUCH, 1);
    lamina_layer_set_bool(list, LAMINA_PROPERTY_MASKS_TO_BOUNDS, 1);
    lamina_layer *row50 = NULL;
    for (int i = 0; i < 100; i++) {
        lamina_layer *row = lamina_layer_new(conn);
        lamina_layer_set_bounds(row, 0, 0, 320, 40);
        lamina_layer_set_position(row, 160, 20 + 40 * i);
        lamina_layer_set_background_color(row, i % 2, 0, 1 - i % 2, 1);
        lamina_layer_add_sublayer(list, row);
        if (i == 50)
            row50 = row;
    }
    lamina_layer_add_sublayer(lamina_connection_root(conn), list);
    /* scrollRectToVisible, visibleRect and scrollPoint from a row (2000…2040 in the list). */
    double sb[4], v[4];
    CHECK(lamina_layer_visible_rect(row50, v) == 0 && v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0,
          "row 50 is out of sight at first: %g,%g %gx%g", v[0], v[1], v[2], v[3]);
    CHECK(lamina_layer_scroll_rect_to_visible(row50, 0, 0, 320, 40) == 0 && lamina_layer_get_bounds(list, sb) == 0 && sb[1] == 1800,
          "scroll_rect_to_visible brings row 50's bottom in: origin %g", sb[1]);
    CHECK(lamina_layer_visible_rect(row50, v) == 0 && v[0] == 0 && v[1] == 0 && v[2] == 320 && v[3] == 40,
          "row 50 is all visible: %g,%g %gx%g", v[0], v[1], v[2], v[3]);
    CHECK(lamina_layer_scroll_point(row50, 0, 20) == 0 && lamina_layer_get_bounds(list, sb) == 0 && sb[1] == 2020,
          "scroll_point puts row 50's middle at the top: origin %g", sb[1]);
    CHECK(lamina_layer_visible_rect(row50, v) == 0 && v[1] == 20 && v[3] == 20, "the lower half shows: %g %g", v[1], v[3]);
    CHECK(lamina_layer_scroll_point(lamina_connection_root(conn), 0, 0) == 0 &&
              lamina_layer_visible_rect(lamina_connection_root(conn), v) == 0 && v[2] == 320,
          "outside a scroll layer: nothing scrolls, the bounds are visible");
    lamina_transaction_begin(conn);
    lamina_transaction_set_disable_actions(conn, 1);
    CHECK(lamina_layer_scroll_to(list, 99, 400) == 0, "scroll_to");
    lamina_transaction_commit(conn);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    char *json = NULL;
    CHECK(lamina_connection_tree(conn, &json, &error) == 0 && json && strstr(json, "\"class\":\"scroll\"") &&
              strstr(json, "\"bounds\":[0,400,320,240]"),
          "laminad holds the scrolled origin: %s", error ? error : "?");
    free(json);
    uint32_t w, h;
    uint8_t *shot = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &shot, &error) == 0 && shot &&
              shot[(20 * w + 160) * 4 + 2] == 255 && shot[(20 * w + 160) * 4] == 0,
          "row 10 (blue) at the top");
    free(shot);
    /* Back to the top, then a drag of 8 moves of 20 points, held, lifted. */
    lamina_transaction_begin(conn);
    lamina_transaction_set_disable_actions(conn, 1);
    lamina_layer_scroll_to(list, 0, 0);
    lamina_transaction_commit(conn);
    scroll_log log = {0};
    lamina_connection_set_event_callback(conn, on_scroll_log, &log);
    int ok = lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_DOWN, 1, 160, 200, &error) == 0;
    for (int i = 1; i <= 8 && ok; i++)
        ok = lamina_connection_advance_clock(conn, 1.0 / 60, &error) == 0 &&
             lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_MOTION, 1, 160, 200 - 20 * i, &error) == 0;
    ok = ok && lamina_connection_advance_clock(conn, 0.5, &error) == 0 &&
         lamina_connection_inject_touch(conn, LAMINA_INJECT_TOUCH_UP, 1, 0, 0, &error) == 0 &&
         lamina_connection_advance_clock(conn, 0.1, &error) == 0 && lamina_connection_sync(conn, &error) == 0;
    CHECK(ok, "the drag: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(conn);
    double b[4];
    lamina_layer_get_bounds(list, b);
    CHECK(log.began == 1 && log.moved >= 1 && log.ended == 1 && log.last_y == 140 && b[1] == 140,
          "scroll events: %d began, %d moved, %d ended, at %g; bounds at %g", log.began, log.moved, log.ended, log.last_y, b[1]);
    lamina_connection_set_event_callback(conn, NULL, NULL);
    /* A negative content size is refused, naming the property. */
    lamina_layer_set_size(list, LAMINA_PROPERTY_SCROLL_CONTENT_SIZE, -1, 10);
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "scrollContentSize"),
          "a negative content size: %s", error ? error : "?");
    free(error);
    lamina_layer_remove_from_superlayer(list);
    lamina_connection_sync(conn, NULL);
    printf("daemon: a scroll layer scrolled by scroll_to and by a drag laminad drove\n");
}

/* A tiled layer's tile provider: every tile one colour from its level, column and row; records
 * what laminad asked for. */
static double stat_named(lamina_connection *conn, const char *name);

typedef struct tile_log {
    lamina_connection *conn;
    int asked, supplying;
    int32_t levels[64];
    uint32_t columns[64], rows[64];
} tile_log;

static lamina_image *provide_tile(lamina_layer *layer, int32_t level, uint32_t column, uint32_t row, void *user) {
    tile_log *log = user;
    if (log->asked < 64) {
        log->levels[log->asked] = level;
        log->columns[log->asked] = column;
        log->rows[log->asked] = row;
    }
    log->asked++;
    if (!log->supplying)
        return NULL;
    static uint8_t pixels[64 * 64 * 4];
    for (int i = 0; i < 64 * 64; i++) {
        pixels[4 * i] = (uint8_t)(column * 40 + 20);
        pixels[4 * i + 1] = (uint8_t)(row * 20 + 10);
        pixels[4 * i + 2] = (uint8_t)(60 + (level + 1) * 20);
        pixels[4 * i + 3] = 255;
    }
    (void)layer;
    return lamina_image_new(log->conn, 64, 64, pixels, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, NULL);
}

/* A tiled layer with 64-pixel tiles over the 320x240 display at scale 1: the provider is asked
 * for exactly the 5 x 4 tiles in view, once, and what it supplies shows (fade 0); a tile of the
 * wrong size is refused naming the tile size. */
static void tiled_layers(lamina_connection *conn) {
    char *error = NULL;
    lamina_layer *tiled = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_TILED);
    lamina_layer_set_bounds(tiled, 0, 0, 10000, 10000);
    lamina_layer_set_point(tiled, LAMINA_PROPERTY_ANCHOR_POINT, 0, 0);
    lamina_layer_set_position(tiled, 0, 0);
    lamina_layer_set_size(tiled, LAMINA_PROPERTY_TILE_SIZE, 64, 64);
    lamina_layer_set_number(tiled, LAMINA_PROPERTY_TILE_FADE_DURATION, 0);
    tile_log log = {0};
    log.conn = conn;
    log.supplying = 1;
    CHECK(lamina_tiled_layer_set_provider(tiled, provide_tile, &log) == 0, "set_provider");
    CHECK(lamina_tiled_layer_set_provider(lamina_connection_root(conn), provide_tile, &log) == LAMINA_ERROR_INVALID_ARGUMENT,
          "a provider only for a tiled layer");
    lamina_layer_add_sublayer(lamina_connection_root(conn), tiled);
    uint32_t w, h;
    uint8_t *shot = NULL;
    int ok = lamina_connection_sync(conn, &error) == 0 && lamina_connection_screenshot_pixels(conn, &w, &h, &shot, &error) == 0 &&
             lamina_connection_sync(conn, &error) == 0;
    free(shot);
    shot = NULL;
    lamina_connection_dispatch(conn);
    ok = ok && lamina_connection_sync(conn, &error) == 0 && lamina_connection_screenshot_pixels(conn, &w, &h, &shot, &error) == 0;
    CHECK(ok, "frames: %s", error ? error : "?");
    free(error);
    error = NULL;
    int exact = log.asked == 20;
    for (int i = 0; i < log.asked && i < 64; i++)
        exact = exact && log.levels[i] == 0 && log.columns[i] < 5 && log.rows[i] < 4;
    CHECK(exact, "asked for %d tiles (the 5 x 4 in view, level 0)", log.asked);
    /* Pixel (100, 70): tile (1, 1). */
    CHECK(shot && shot[(70 * w + 100) * 4] == 60 && shot[(70 * w + 100) * 4 + 1] == 30 && shot[(70 * w + 100) * 4 + 2] == 80,
          "tile (1, 1) shows: %d %d %d", shot ? shot[(70 * w + 100) * 4] : -1, shot ? shot[(70 * w + 100) * 4 + 1] : -1,
          shot ? shot[(70 * w + 100) * 4 + 2] : -1);
    free(shot);
    CHECK(stat_named(conn, "tiles") == 20, "laminad holds %g tiles", stat_named(conn, "tiles"));
    /* A 32-pixel tile is refused by laminad, naming the tile size. */
    static uint8_t small[32 * 32 * 4];
    lamina_image *wrong = lamina_image_new(conn, 32, 32, small, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, NULL);
    CHECK(lamina_tiled_layer_supply_tile(tiled, wrong, 0, 0, 0) == 0, "supply_tile");
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "tileSize is 64×64"),
          "a tile of the wrong size: %s", error ? error : "?");
    free(error);
    /* laminad asks again for the tiles in view after a drop, at its next frame: the provider stops
     * supplying first, or under load its answers could land before the count is read. */
    log.supplying = 0;
    CHECK(lamina_tiled_layer_drop_tiles(tiled) == 0 && lamina_connection_sync(conn, NULL) == 0 && stat_named(conn, "tiles") == 0,
          "drop_tiles");
    lamina_layer_remove_from_superlayer(tiled);
    lamina_connection_sync(conn, NULL);
    printf("daemon: a tiled layer's provider was asked for the tiles in view and its tiles shown\n");
}

/* A stats counter by name (NAN when absent or the request failed). */
static double stat_named(lamina_connection *conn, const char *name) {
    lamina_stat *stats = NULL;
    size_t count = 0;
    double v = NAN;
    if (lamina_connection_stats(conn, &stats, &count, NULL) == 0)
        for (size_t i = 0; i < count; i++)
            if (strcmp(stats[i].name, name) == 0)
                v = stats[i].value;
    lamina_free(stats);
    return v;
}

/* A keyframe animation and a group on laminad's virtual clock, read back as presentation values. */
static void keyframes_and_groups(lamina_connection *conn) {
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *slider = lamina_layer_new(conn), *fader = lamina_layer_new(conn);
    lamina_layer_set_bounds(slider, 0, 0, 10, 10);
    lamina_layer_set_position(slider, 50, 200);
    lamina_layer_set_bounds(fader, 0, 0, 10, 10);
    lamina_layer_set_position(fader, 300, 200);
    lamina_layer_add_sublayer(root, slider);
    lamina_layer_add_sublayer(root, fader);
    /* position.x through 50, 150, 250 with key times 0, 0.25, 1 over 2 s (linear between them). */
    lamina_animation *slide = lamina_animation_keyframe_new("position.x");
    lamina_animation_add_number(slide, 50);
    lamina_animation_add_number(slide, 150);
    lamina_animation_add_number(slide, 250);
    lamina_animation_set_key_times(slide, (const double[]){0, 0.25, 1}, 3);
    lamina_animation_set_duration(slide, 2);
    /* A group of 2 s holding a 4 s fade: it is cut off half way. */
    lamina_animation *fade = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(fade, 0);
    lamina_animation_set_to_number(fade, 1);
    lamina_animation_set_duration(fade, 4);
    lamina_animation *group = lamina_animation_group_new();
    lamina_animation_group_add(group, fade);
    lamina_animation_set_duration(group, 2);
    CHECK(lamina_layer_add_animation(slider, slide, "slide") == 0 && lamina_layer_add_animation(fader, group, "group") == 0,
          "add keyframe and group");
    lamina_animation_free(slide);
    lamina_animation_free(fade);
    lamina_animation_free(group);
    char *error = NULL;
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    const struct {
        double at, x, opacity;
    } expected[] = {{0.25, 100, 0.0625}, {0.5, 150, 0.125}, {1.25, 200, 0.3125}, {2.5, 50, 1}};
    double start = lamina_connection_time(conn), now = start;
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        advance(conn, start + expected[i].at - now);
        now = start + expected[i].at;
        double position[2] = {0}, opacity = presentation_number(fader, LAMINA_PROPERTY_OPACITY);
        char *e = NULL;
        CHECK(lamina_layer_presentation(slider, LAMINA_PROPERTY_POSITION, position, 2, &e) == 0, "presentation: %s", e ? e : "?");
        free(e);
        CHECK(fabs(position[0] - expected[i].x) < 1e-6, "keyframe x at %g s: %g, expected %g", expected[i].at, position[0],
              expected[i].x);
        CHECK(fabs(opacity - expected[i].opacity) < 1e-6, "grouped fade at %g s: %g, expected %g", expected[i].at, opacity,
              expected[i].opacity);
    }
    double layers = stat_named(conn, "layers");
    CHECK(layers >= 3, "laminad's stats count %g layers", layers);
    /* Display power and keyboard focus on the headless backend (no outputs). */
    lamina_display_state *state = NULL;
    CHECK(lamina_connection_display_power(conn, 1, NULL, &state, NULL) == 0 && state && strcmp(state->backend, "headless") == 0 &&
              state->count == 0,
          "display power on headless");
    lamina_free(state);
    char *refusal = NULL;
    CHECK(lamina_connection_display_power(conn, 0, "HDMI-A-1", NULL, &refusal) == LAMINA_ERROR_SERVER && refusal &&
              strstr(refusal, "no output named 'HDMI-A-1'"),
          "an unknown output: %s", refusal ? refusal : "?");
    free(refusal);
    CHECK(lamina_connection_take_keyboard_focus(conn, NULL) == 0, "take the keyboard focus");
    input_events(conn);
    lamina_layer_destroy(slider);
    lamina_layer_destroy(fader);
    printf("daemon: a keyframe animation and a group ran on the virtual clock\n");
}

/* compositingFilter and cornerCurve (protocol 1.7): a multiply layer over an opaque one, its
 * continuous corner seen in the pixels and the tree; misspelt names refused by name. */
static void blend_and_corners(lamina_connection *conn) {
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *back = lamina_layer_new(conn), *card = lamina_layer_new(conn);
    lamina_layer_set_bounds(back, 0, 0, 320, 240);
    lamina_layer_set_position(back, 160, 120);
    lamina_layer_set_background_color(back, 0.8, 0.5, 0.25, 1);
    lamina_layer_set_bounds(card, 0, 0, 240, 160);
    lamina_layer_set_position(card, 160, 120);                 /* frame (40, 40, 240, 160) */
    lamina_layer_set_background_color(card, 0.5, 0.5, 1, 1);
    lamina_layer_set_corner_radius(card, 40);
    CHECK(lamina_layer_set_compositing_filter(card, "multiplyBlendMode") == 0 &&
              lamina_layer_set_corner_curve(card, "continuous") == 0 && lamina_layer_set_corner_curve(card, NULL) < 0,
          "blend and corner setters");
    lamina_layer_add_sublayer(root, back);
    lamina_layer_add_sublayer(root, card);
    char *error = NULL, *json = NULL;
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    /* Multiply: 204 x 128 / 255 = 102, 128 x 128 / 255 = 64, 64 x 255 / 255 = 64. */
    rgba inside = shot_pixel(conn, 160, 120);
    CHECK(close_to(inside, (rgba){102, 64, 64, 255}, 2), "multiplied %d %d %d %d", PIXEL(inside));
    /* 34 px in along the top edge, a continuous corner of radius 40 covers 11 %% of the pixel
     * (it leaves the edge 61 px before the corner), a circular one 61 %%. */
    rgba corner = shot_pixel(conn, 40 + 34, 40);
    CHECK(corner.r > 180, "the continuous corner keeps the backdrop at (74, 40): %d %d %d %d", PIXEL(corner));
    CHECK(lamina_connection_tree(conn, &json, &error) == 0 && json && strstr(json, "\"compositingFilter\":\"multiplyBlendMode\"") &&
              strstr(json, "\"cornerCurve\":\"continuous\""),
          "the tree: %s", json ? json : (error ? error : "?"));
    lamina_free(json);
    /* Misspelt names: refused with the name and the valid ones; nothing else changes. */
    lamina_layer_set_compositing_filter(card, "multiply");
    int s = lamina_connection_sync(conn, &error);
    CHECK(s == LAMINA_ERROR_SERVER && error && strstr(error, "'multiply'") && strstr(error, "multiplyBlendMode"),
          "unknown blend mode: %d %s", s, error ? error : "(none)");
    free(error);
    error = NULL;
    lamina_layer_set_corner_curve(card, "squircle");
    s = lamina_connection_sync(conn, &error);
    CHECK(s == LAMINA_ERROR_SERVER && error && strstr(error, "'squircle'") && strstr(error, "circular, continuous"),
          "unknown corner curve: %d %s", s, error ? error : "(none)");
    free(error);
    error = NULL;
    inside = shot_pixel(conn, 160, 120);
    CHECK(close_to(inside, (rgba){102, 64, 64, 255}, 2), "still multiplied %d %d %d %d", PIXEL(inside));
    /* NULL: normal compositing again. */
    CHECK(lamina_layer_set_compositing_filter(card, NULL) == 0 && lamina_connection_sync(conn, &error) == 0, "no blend mode");
    inside = shot_pixel(conn, 160, 120);
    CHECK(close_to(inside, (rgba){128, 128, 255, 255}, 1), "source-over %d %d %d %d", PIXEL(inside));
    lamina_layer_destroy(card);
    lamina_layer_destroy(back);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync after");
    printf("daemon: a multiply layer with continuous corners drew as the formulas say\n");
}

/* The rich-text label with an emoji (docs/clients.md; Swift's RichTextEndToEndTests.sameProgram
 * and Python's test_rich_text_label_with_an_emoji): "Sale " red bold, "today " blue, then 😀,
 * over a black backdrop; each run's colour found in order left to right, the emoji yellow. */
/* The same small program as Swift's DisplayLinkEndToEndTests.aSparklineFedByADisplayLinkShowsEverySample
 * and Python's test_a_sparkline_fed_by_a_display_link_shows_every_sample (docs/clients.md, "A display
 * link"): each callback takes a sample at the frame's target time and sets the sparkline's path; the
 * pixels show every sample where its time puts it, column 2i, row 40 - 30 sin(2 pi t_i). */
typedef struct sparkline {
    lamina_connection *conn;
    lamina_layer *spark;
    double samples[120];
    int count;
} sparkline;

static void on_sparkline_tick(lamina_display_link *link, void *user) {
    sparkline *app = user;
    if (app->count < 120)
        app->samples[app->count++] = lamina_display_link_target_timestamp(link);
    lamina_path *path = lamina_path_new();
    for (int i = 0; i < app->count; i++) {
        double x = 2 * i, y = 40 - 30 * sin(2 * M_PI * app->samples[i]);
        if (i == 0)
            lamina_path_move_to(path, x, y);
        else
            lamina_path_line_to(path, x, y);
    }
    lamina_connection *conn = app->conn;
    lamina_transaction_begin(conn);
    lamina_transaction_set_disable_actions(conn, 1);
    lamina_layer_set_path(app->spark, LAMINA_PROPERTY_PATH, path);
    lamina_transaction_commit(conn);
    lamina_path_free(path);
}

/* An SVG image (lamina_image_new_encoded): a white circle in a 40-point document under a 4x
 * scale transform is drawn by laminad at that scale, its edge as sharp as a 1x raster
 * magnified 4x is not (about 4 blurred pixels per edge); a broken document is refused. */
static void svg_images(lamina_connection *conn) {
    static const char circle[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\">"
                                 "<circle cx=\"20\" cy=\"20\" r=\"20\" fill=\"#fff\"/></svg>";
    char *error = NULL;
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *back = lamina_layer_new(conn), *layer = lamina_layer_new(conn);
    lamina_layer_set_bounds(back, 0, 0, 320, 240);
    lamina_layer_set_position(back, 160, 120);
    lamina_layer_set_background_color(back, 0, 0, 0, 1);
    lamina_image *svg = lamina_image_new_encoded(conn, LAMINA_ENCODED_SVG, circle, sizeof circle - 1, &error);
    CHECK(svg != NULL, "lamina_image_new_encoded: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_layer_set_bounds(layer, 0, 0, 40, 40);
    lamina_layer_set_position(layer, 100, 120);
    const double scale4[16] = {4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    lamina_layer_set_transform(layer, LAMINA_PROPERTY_TRANSFORM, scale4);
    lamina_layer_set_contents(layer, svg);
    lamina_layer_add_sublayer(root, back);
    lamina_layer_add_sublayer(back, layer);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync the SVG: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_image_update(svg, 0, 0, 1, 1, circle, 4) == LAMINA_ERROR_INVALID_ARGUMENT, "an encoded image takes no updates");
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0, "screenshot: %s", error ? error : "?");
    free(error);
    error = NULL;
    int edge = 0;
    for (uint32_t x = 15; pixels && x < 195 && x < w; x++) {
        int r = pixel_at(pixels, w, x, 80).r;
        edge += r > 20 && r < 235;
    }
    CHECK(pixels && edge <= 4, "the SVG's edges on row 80 span %d pixels (sharp: at most 4)", edge);
    CHECK(pixels && pixel_at(pixels, w, 100, 120).r > 240 && pixel_at(pixels, w, 100, 42).r > 200 &&
              pixel_at(pixels, w, 100, 36).r < 20, "the circle fills its layer's frame");
    free(pixels);
    static const char broken[] = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect";
    lamina_image *bad = lamina_image_new_encoded(conn, LAMINA_ENCODED_SVG, broken, sizeof broken - 1, &error);
    CHECK(bad != NULL, "lamina_image_new_encoded (broken): %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_sync(conn, &error) != 0 && error && strstr(error, "could not be parsed"),
          "a broken SVG is refused: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    CHECK(lamina_image_new_encoded(conn, 9, circle, 4, &error) == NULL && error, "an unknown format is refused");
    free(error);
    error = NULL;
    /* A GIF (made by Pillow): 2 x 2, red 100 ms then green 200 ms, looping; laminad plays it on
     * its virtual clock from the commit that made it, a time on a boundary showing the new frame. */
    static const uint8_t gif[] = {
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x02, 0x00, 0x02, 0x00, 0x81, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x21, 0xFF, 0x0B, 0x4E, 0x45, 0x54, 0x53, 0x43, 0x41, 0x50, 0x45,
        0x32, 0x2E, 0x30, 0x03, 0x01, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x2C, 0x00,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x08, 0x06, 0x00, 0x01, 0x08, 0x04, 0x10, 0x10, 0x00, 0x21,
        0xF9, 0x04, 0x00, 0x14, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x81, 0x00,
        0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x06, 0x00, 0x01, 0x08, 0x04, 0x10,
        0x10, 0x00, 0x3B};
    lamina_image *anim = lamina_image_new_encoded(conn, LAMINA_ENCODED_GIF, gif, sizeof gif, &error);
    CHECK(anim != NULL, "lamina_image_new_encoded (GIF): %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_layer *shown = lamina_layer_new(conn);
    lamina_layer_set_bounds(shown, 0, 0, 40, 40);
    lamina_layer_set_position(shown, 260, 40);
    lamina_layer_set_contents(shown, anim);
    lamina_layer_add_sublayer(back, shown);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync the GIF: %s", error ? error : "?");
    free(error);
    error = NULL;
    const double steps[] = {0, 0.099, 0.001, 0.199, 0.001};
    const char *expected = "RRGGR"; /* t = 0, 0.099, 0.1, 0.299, 0.3 */
    char seen[6] = {0};
    for (int i = 0; i < 5; i++) {
        if (steps[i] > 0)
            advance(conn, steps[i]);
        rgba p = shot_pixel(conn, 260, 40);
        seen[i] = p.r > 200 && p.g < 50 ? 'R' : p.g > 200 && p.r < 50 ? 'G' : '?';
    }
    CHECK(strcmp(seen, expected) == 0, "GIF frames at t = 0, 0.099, 0.1, 0.299, 0.3: %s, expected %s", seen, expected);
    lamina_layer_remove_from_superlayer(back);
    lamina_connection_sync(conn, NULL);
}

static void sparkline_program(lamina_connection *conn) {
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *back = lamina_layer_new(conn), *spark = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_SHAPE);
    lamina_layer_set_bounds(back, 0, 0, 240, 80);
    lamina_layer_set_position(back, 120, 40);
    lamina_layer_set_background_color(back, 0, 0, 0, 1);
    lamina_layer_set_bounds(spark, 0, 0, 240, 80);
    lamina_layer_set_position(spark, 120, 40);
    lamina_layer_set_color(spark, LAMINA_PROPERTY_FILL_COLOR, 0, 0, 0, 0);
    lamina_layer_set_color(spark, LAMINA_PROPERTY_STROKE_COLOR, 0, 1, 0, 1);
    lamina_layer_set_number(spark, LAMINA_PROPERTY_LINE_WIDTH, 2);
    lamina_layer_add_sublayer(root, back);
    lamina_layer_add_sublayer(root, spark);
    char *error = NULL;
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    sparkline app = {.conn = conn, .spark = spark};
    lamina_display_link *link = lamina_display_link_create(conn, NULL, on_sparkline_tick, &app, &error);
    CHECK(link != NULL, "display link: %s", error ? error : "?");
    for (int i = 0; i < 60; i++) {
        lamina_connection_advance_clock(conn, 1.0 / 60, NULL);
        lamina_connection_dispatch(conn);
    }
    lamina_display_link_invalidate(link);
    lamina_connection_advance_clock(conn, 1.0 / 60, NULL); /* the last callback's target frame */
    CHECK(lamina_connection_sync(conn, &error) == 0 && app.count == 60, "sparkline: %d samples", app.count);
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0 && w >= 240 && h >= 80, "screenshot");
    for (int i = 2; pixels && w >= 240 && h >= 80 && i < 58; i += 4) {
        double expected = 40 - 30 * sin(2 * M_PI * app.samples[i]), sum = 0;
        int rows = 0, stray = 0;
        for (uint32_t y = 0; y < 80; y++) {
            rgba p = pixel_at(pixels, w, (uint32_t)(2 * i), y);
            if (p.g > 120 && p.r < 100 && p.b < 100) {
                rows++;
                sum += y;
                stray += fabs(y + 0.5 - expected) > 6;
            }
        }
        CHECK(rows > 0 && fabs(sum / rows + 0.5 - expected) <= 2.5 && stray == 0,
              "sparkline sample %d: %d ink rows around %g, %d stray, expected about %g", i, rows, rows ? sum / rows : -1, stray, expected);
    }
    int beyond = 0;
    for (uint32_t y = 0; pixels && y < 80 && y < h; y++)
        for (uint32_t x = 122; x < 240 && x < w; x++)
            beyond += pixel_at(pixels, w, x, y).g >= 60;
    CHECK(beyond == 0, "the line ends with the samples: %d pixels of ink beyond", beyond);
    free(pixels);
    free(error);
}

static void rich_text_label(lamina_connection *conn) {
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *back = lamina_layer_new(conn), *label = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_TEXT);
    lamina_layer_set_bounds(back, 0, 0, 320, 80);
    lamina_layer_set_position(back, 160, 40);
    lamina_layer_set_background_color(back, 0, 0, 0, 1);
    lamina_layer_set_bounds(label, 0, 0, 300, 60);
    lamina_layer_set_position(label, 160, 40);
    lamina_layer_set_number(label, LAMINA_PROPERTY_FONT_SIZE, 32);
    lamina_text_run runs[3] = {
        {.text = "Sale ", .weight = 700, .has_color = 1, .color = {1, 0, 0, 1}},
        {.text = "today ", .has_color = 1, .color = {0, 0, 1, 1}},
        {.text = "\xF0\x9F\x98\x80"},
    };
    CHECK(lamina_layer_set_attributed_string(label, runs, 3) == 0, "set the label's runs");
    lamina_layer_add_sublayer(root, back);
    lamina_layer_add_sublayer(root, label);
    char *error = NULL;
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0, "screenshot");
    int red = 0, blue = 0, yellow = 0, red_max = -1, blue_min = 1 << 30, blue_max = -1, yellow_min = 1 << 30;
    for (uint32_t y = 0; pixels && y < 80 && y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            rgba p = pixel_at(pixels, w, x, y);
            if (p.r > 200 && p.g > 140 && p.b < 110 && (int)x < yellow_min)
                yellow_min = (int)x;
        }
    /* The words' ink, left of the emoji (whose own colours hold reds). */
    for (uint32_t y = 0; pixels && y < 80 && y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            rgba p = pixel_at(pixels, w, x, y);
            if ((int)x < yellow_min - 2 && p.r > 150 && p.g < 90 && p.b < 90) {
                red++;
                red_max = (int)x > red_max ? (int)x : red_max;
            } else if ((int)x < yellow_min - 2 && p.b > 150 && p.r < 90 && p.g < 90) {
                blue++;
                blue_min = (int)x < blue_min ? (int)x : blue_min;
                blue_max = (int)x > blue_max ? (int)x : blue_max;
            } else if (p.r > 200 && p.g > 140 && p.b < 110) {
                yellow++;
            }
        }
    free(pixels);
    CHECK(red > 150 && blue > 150 && yellow > 150, "red, blue and yellow ink: %d %d %d", red, blue, yellow);
    CHECK(red_max < blue_min && blue_max < yellow_min, "Sale, today, then the emoji: red to %d, blue %d-%d, yellow from %d",
          red_max, blue_min, blue_max, yellow_min);
    lamina_text_run bad[1] = {{.text = "x", .weight = 5000}};
    CHECK(lamina_layer_set_attributed_string(label, bad, 1) == LAMINA_ERROR_INVALID_ARGUMENT, "a bad weight is refused");
    lamina_layer_destroy(label);
    lamina_layer_destroy(back);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync after");
    printf("daemon: a rich-text label drew Sale in red, today in blue and a yellow emoji, in that order\n");
}

static void readme_program(lamina_connection *conn, const char *directory) {
    const rgba black = {0, 0, 0, 255}, orange = {255, 136, 0, 255};
    char *error = NULL;
    uint32_t width, height;
    lamina_connection_display_size(conn, &width, &height);
    CHECK(width == 320 && height == 240 && lamina_connection_clock_is_virtual(conn), "display %ux%u", width, height);

    /* A rounded layer. */
    lamina_layer *box = lamina_layer_new(conn);
    CHECK(box != NULL, "lamina_layer_new");
    lamina_layer_set_bounds(box, 0, 0, 100, 50);
    lamina_layer_set_position(box, 100, 100); /* frame (50, 75, 100, 50) */
    lamina_layer_set_background_color(box, 1, 136 / 255.0, 0, 1);
    lamina_layer_set_corner_radius(box, 12);
    lamina_layer_add_sublayer(lamina_connection_root(conn), box);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    uint32_t w, h;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0 && w == 320 && h == 240, "screenshot");
    if (pixels) {
        rgba centre = pixel_at(pixels, w, 100, 100), edge = pixel_at(pixels, w, 55, 100);
        rgba corner = pixel_at(pixels, w, 51, 76), outside = pixel_at(pixels, w, 45, 100);
        CHECK(close_to(centre, orange, 0), "centre %d %d %d %d", PIXEL(centre));
        CHECK(close_to(edge, orange, 0), "left edge %d %d %d %d", PIXEL(edge));
        CHECK(close_to(corner, black, 0), "rounded corner %d %d %d %d", PIXEL(corner));
        CHECK(close_to(outside, black, 0), "outside %d %d %d %d", PIXEL(outside));
    }
    free(pixels);

    /* An implicit fade: 0.25 s with the default curve; halfway in time is checked in pixels. */
    double start = lamina_connection_time(conn);
    lamina_layer_set_opacity(box, 0);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync");
    advance(conn, 0.125);
    const double default_curve[4] = {0.25, 0.1, 0.25, 1};
    double expected = 1 - timing_value(default_curve, 0.5);
    double opacity = presentation_number(box, LAMINA_PROPERTY_OPACITY);
    CHECK(fabs(opacity - expected) < 1e-4, "mid-fade opacity %g, expected %g", opacity, expected);
    rgba mid = shot_pixel(conn, 100, 100);
    rgba want = {(int)lround(255 * expected), (int)lround(136 * expected), 0, 255};
    CHECK(close_to(mid, want, 2), "mid-fade pixel %d %d %d %d, expected %d %d %d %d", PIXEL(mid), PIXEL(want));
    advance(conn, start + 0.3 - lamina_connection_time(conn));
    CHECK(presentation_number(box, LAMINA_PROPERTY_OPACITY) == 0, "faded out");
    rgba gone = shot_pixel(conn, 100, 100);
    CHECK(close_to(gone, black, 0), "after the fade %d %d %d %d", PIXEL(gone));

    /* An explicit fade over 1 s, linear; actions off for the model change. */
    recorder events = {{0}};
    lamina_transaction_begin(conn);
    lamina_transaction_set_disable_actions(conn, 1);
    lamina_layer_set_opacity(box, 1);
    lamina_transaction_commit(conn);
    lamina_animation *fade = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(fade, 1);
    lamina_animation_set_to_number(fade, 0);
    lamina_animation_set_duration(fade, 1);
    lamina_animation_set_callback(fade, on_animation, &events);
    CHECK(lamina_layer_add_animation(box, fade, "fade") == 0, "add_animation");
    lamina_animation_free(fade);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync");
    start = lamina_connection_time(conn);
    for (int i = 1; i <= 3; i++) {
        double t = 0.25 * i, o = 1 - t;
        advance(conn, start + t - lamina_connection_time(conn));
        double p = presentation_number(box, LAMINA_PROPERTY_OPACITY);
        CHECK(fabs(p - o) < 1e-4, "explicit fade at %g: opacity %g", t, p);
        rgba px = shot_pixel(conn, 100, 100);
        rgba wanted = {(int)lround(255 * o), (int)lround(136 * o), 0, 255};
        CHECK(close_to(px, wanted, 2), "explicit fade at %g: pixel %d %d %d %d", t, PIXEL(px));
    }
    CHECK(strcmp(events.log, "start fade 0;") == 0, "events so far: %s", events.log);
    advance(conn, 0.5);
    CHECK(lamina_connection_dispatch(conn) >= 0, "dispatch");
    CHECK(strcmp(events.log, "start fade 0;stop fade 1;") == 0, "events: %s", events.log);
    rgba after = shot_pixel(conn, 100, 100);
    CHECK(close_to(after, orange, 0), "after the explicit fade %d %d %d %d", PIXEL(after));

    /* A transaction with a duration, a curve and a completion. */
    recorder done = {{0}};
    lamina_layer *dot = lamina_layer_new(conn);
    lamina_layer_set_bounds(dot, 0, 0, 40, 40);
    lamina_layer_set_position(dot, 20, 200);
    lamina_layer_set_background_color(dot, 1, 1, 1, 1);
    lamina_layer_add_sublayer(lamina_connection_root(conn), dot);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync");
    lamina_transaction_begin(conn);
    lamina_transaction_set_duration(conn, 2);
    lamina_transaction_set_timing_function(conn, "linear");
    lamina_transaction_set_completion(conn, on_completion, &done);
    lamina_layer_set_position(dot, 120, 200);
    CHECK(lamina_transaction_commit(conn) == 0, "transaction commit");
    advance(conn, 1);
    double position[2] = {0};
    CHECK(lamina_layer_presentation(dot, LAMINA_PROPERTY_POSITION, position, 2, &error) == 0 &&
              fabs(position[0] - 70) < 1e-6 && fabs(position[1] - 200) < 1e-6,
          "halfway position %g %g", position[0], position[1]);
    CHECK(done.log[0] == 0, "completed early");
    advance(conn, 1.5);
    lamina_connection_dispatch(conn);
    CHECK(strcmp(done.log, "completed;") == 0, "completion: %s", done.log);

    /* An image: 2 x 2 RGBA pixels scaled to 40 x 40 with nearest filtering; a screenshot as PNG. */
    const uint8_t image_pixels[16] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    lamina_image *image =
        lamina_image_new(conn, 2, 2, image_pixels, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, &error);
    CHECK(image != NULL, "image: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_layer *picture = lamina_layer_new(conn);
    lamina_layer_set_bounds(picture, 0, 0, 40, 40);
    lamina_layer_set_position(picture, 220, 40); /* frame (200, 20, 40, 40) */
    lamina_layer_set_contents(picture, image);
    lamina_layer_set_string(picture, LAMINA_PROPERTY_MAGNIFICATION_FILTER, "nearest");
    lamina_layer_add_sublayer(lamina_connection_root(conn), picture);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    char path[300];
    snprintf(path, sizeof path, "%s/shot.png", directory);
    CHECK(lamina_connection_screenshot(conn, path, &error) == 0, "screenshot to PNG: %s", error ? error : "?");
    free(error);
    error = NULL;
    size_t png_length = 0;
    uint8_t *png = read_file(directory, "shot.png", &png_length);
    uint8_t *decoded = NULL;
    CHECK(lm_png_decode(png, png_length, &w, &h, &decoded) == 0 && w == 320 && h == 240, "the PNG decodes");
    free(png);
    if (decoded) {
        const rgba expected_pixels[4] = {{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}};
        const uint32_t at[4][2] = {{210, 30}, {230, 30}, {210, 50}, {230, 50}};
        for (int i = 0; i < 4; i++) {
            rgba p = pixel_at(decoded, w, at[i][0], at[i][1]);
            CHECK(close_to(p, expected_pixels[i], 0), "image pixel %d in the PNG: %d %d %d %d", i, PIXEL(p));
        }
        rgba box_pixel = pixel_at(decoded, w, 100, 100);
        CHECK(close_to(box_pixel, orange, 0), "the box in the PNG %d %d %d %d", PIXEL(box_pixel));
        /* The PNG holds exactly the screenshot's pixels. */
        uint8_t *raw = NULL;
        CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &raw, &error) == 0 && raw &&
                  memcmp(raw, decoded, (size_t)w * h * 4) == 0,
              "the PNG and the screenshot differ");
        free(raw);
    }
    free(decoded);

    /* An update of the image's top-left pixel, then destroying it: no contents drawn. */
    const uint8_t yellow[4] = {255, 255, 0, 255};
    CHECK(lamina_image_update(image, 0, 0, 1, 1, yellow, 0) == 0, "image update");
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync after update");
    rgba updated = shot_pixel(conn, 210, 30);
    CHECK(close_to(updated, (rgba){255, 255, 0, 255}, 0), "updated pixel %d %d %d %d", PIXEL(updated));
    CHECK(lamina_image_destroy(image) == 0 && lamina_connection_sync(conn, &error) == 0, "image destroy");
    rgba no_contents = shot_pixel(conn, 210, 30);
    CHECK(close_to(no_contents, black, 0), "after destroying the image %d %d %d %d", PIXEL(no_contents));

    /* Errors: a NaN opacity and an out-of-range opacity come back from sync with laminad's message. */
    lamina_layer_set_opacity(box, NAN);
    int s = lamina_connection_sync(conn, &error);
    CHECK(s == LAMINA_ERROR_SERVER && error && strstr(error, "invalid-property") && strstr(error, "opacity"),
          "NaN opacity: %d %s", s, error ? error : "(no message)");
    if (error)
        printf("daemon: sync reported: %s\n", error);
    free(error);
    error = NULL;
    lamina_layer_set_bounds(box, 0, 0, -10, 50);
    s = lamina_connection_sync(conn, &error);
    CHECK(s == LAMINA_ERROR_SERVER && error && strstr(error, "invalid-property") && strstr(error, "bounds"),
          "negative bounds: %d %s", s, error ? error : "(none)");
    if (error)
        printf("daemon: sync reported: %s\n", error);
    free(error);
    error = NULL;
    /* A refused request names the request. */
    s = lamina_connection_advance_clock(conn, -1, &error);
    CHECK(s == LAMINA_ERROR_SERVER && error && strstr(error, "invalid-request"), "advance_clock(-1): %d %s", s,
          error ? error : "(none)");
    if (error)
        printf("daemon: advance_clock(-1) reported: %s\n", error);
    free(error);
    error = NULL;
    /* The connection carries on; the refused commits changed nothing. */
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync after the errors");
    CHECK(presentation_number(box, LAMINA_PROPERTY_OPACITY) == 1, "opacity unchanged");

    /* A null action: the change shows at once, not animated. */
    CHECK(lamina_layer_set_action(box, "opacity", LAMINA_ACTION_NONE, NULL) == 0 && lamina_layer_set_opacity(box, 0.5) == 0 &&
              lamina_connection_sync(conn, &error) == 0,
          "action none");
    CHECK(presentation_number(box, LAMINA_PROPERTY_OPACITY) == 0.5, "with a null action the opacity changes at once");

    /* Layer removal and destruction. */
    CHECK(lamina_layer_remove_from_superlayer(dot) == 0 && lamina_layer_destroy(picture) == 0 &&
              lamina_connection_sync(conn, &error) == 0,
          "remove and destroy");
    rgba removed = shot_pixel(conn, 20, 200), destroyed = shot_pixel(conn, 220, 40);
    CHECK(close_to(removed, black, 0) && close_to(destroyed, black, 0), "removed layers still drawn");
    char *json = NULL;
    CHECK(lamina_connection_tree(conn, &json, &error) == 0 && json && strstr(json, "\"c-test\""), "tree: %s",
          json ? json : "(none)");
    free(json);
}

/* The poll-loop pattern: commit, then poll and flush/dispatch until the commit is applied. */
static void poll_loop(lamina_connection *conn) {
    recorder events = {{0}};
    lamina_layer *box = lamina_layer_new(conn);
    lamina_layer_set_bounds(box, 0, 0, 10, 10);
    lamina_layer_add_sublayer(lamina_connection_root(conn), box);
    lamina_animation *spin = lamina_animation_basic_new("transform.rotation.z");
    lamina_animation_set_to_number(spin, 3.14);
    lamina_animation_set_duration(spin, 0.1);
    lamina_animation_set_callback(spin, on_animation, &events);
    lamina_layer_add_animation(box, spin, "spin");
    lamina_animation_free(spin);
    CHECK(lamina_connection_commit(conn) == 0, "commit");
    char *error = NULL;
    CHECK(lamina_connection_advance_clock(conn, 0.2, &error) == 0, "advance");
    free(error);
    error = NULL;
    int fd = lamina_connection_get_fd(conn);
    struct pollfd p = {.fd = fd, .events = POLLIN | (lamina_connection_flush(conn) > 0 ? POLLOUT : 0)};
    for (int i = 0; i < 50 && strstr(events.log, "stop") == NULL; i++) {
        if (poll(&p, 1, 100) > 0 && (p.revents & POLLIN))
            CHECK(lamina_connection_dispatch(conn) >= 0, "dispatch");
    }
    CHECK(strcmp(events.log, "start spin 0;stop spin 1;") == 0, "poll-loop events: %s", events.log);

    /* A commit bigger than the socket's buffer: commit writes what fits, flush says more remain,
     * and POLLOUT plus flush write the rest without blocking. */
    char name[1001];
    memset(name, 'n', 1000);
    name[1000] = 0;
    lamina_layer *parent = lamina_layer_new(conn);
    for (int i = 0; i < 3000; i++) {
        lamina_layer *l = lamina_layer_new(conn);
        lamina_layer_set_string(l, LAMINA_PROPERTY_NAME, name);
        lamina_layer_add_sublayer(parent, l);
    }
    CHECK(lamina_connection_commit(conn) == 0, "big commit");
    int more = lamina_connection_flush(conn), rounds = 0;
    if (more != 1) /* only with a socket buffer of several megabytes (net.core.wmem_max) */
        printf("daemon: note: the 3 MB commit went out at once (flush gave %d)\n", more);
    while (more == 1 && rounds < 100000) {
        struct pollfd q = {.fd = fd, .events = POLLOUT | POLLIN};
        if (poll(&q, 1, 10000) <= 0)
            break;
        if (q.revents & POLLIN)
            CHECK(lamina_connection_dispatch(conn) >= 0, "dispatch while writing");
        more = lamina_connection_flush(conn);
        rounds++;
    }
    CHECK(more == 0, "flush did not finish: %d", more);
    CHECK(lamina_connection_sync(conn, &error) == 0, "the big commit: %s", error ? error : "?");
    free(error);
    printf("daemon: a %d-round non-blocking write of a 3 MB commit\n", rounds);
}

/* Kills laminad (SIGKILL: no goodbye) and starts another on the same socket. */
static int daemon_restart(daemon_t *d, const char *laminad) {
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        int status;
        waitpid(d->pid, &status, 0);
        d->pid = 0;
    }
    unlink(d->socket); /* left behind by the kill; its return is what the start waits for */
    return daemon_spawn(d, laminad, O_APPEND);
}

typedef struct reconnect_log {
    int reconnected, attempts, stopped, spin_stops, fade_starts;
    char text[512];
} reconnect_log;

static void on_reconnect_event(const lamina_event *e, void *user) {
    reconnect_log *log = user;
    if (e->type == LAMINA_EVENT_RECONNECTED) {
        log->reconnected++;
        log->attempts = e->attempts;
        snprintf(log->text, sizeof log->text, "%s", e->text ? e->text : "");
    } else if (e->type == LAMINA_EVENT_ANIMATION_STOPPED && strcmp(e->key, "gone") == 0) {
        log->stopped++;
    } else if (e->type == LAMINA_EVENT_ANIMATION_STOPPED && strcmp(e->key, "spin") == 0) {
        log->spin_stops++;
    } else if (e->type == LAMINA_EVENT_ANIMATION_STARTED && strcmp(e->key, "fade") == 0) {
        log->fade_starts++;
    }
}

/* Expects the next sync to report laminad's refusal of a commit. */
static void expect_refused(lamina_connection *conn, const char *what) {
    char *error = NULL;
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER, "%s is refused", what);
    free(error);
}

/* A layer's presentation opacity (NAN when it cannot be read). */
static double opacity_of(lamina_layer *l) {
    double v = NAN;
    char *e = NULL;
    if (lamina_layer_presentation(l, LAMINA_PROPERTY_OPACITY, &v, 1, &e) != 0)
        v = NAN;
    free(e);
    return v;
}

static lamina_layer *panel(lamina_connection *conn, lamina_layer *parent, double x, double y, double w, double h,
                           double r, double g, double b) {
    lamina_layer *l = lamina_layer_new(conn);
    lamina_layer_set_bounds(l, 0, 0, w, h);
    lamina_layer_set_position(l, x + w / 2, y + h / 2);
    lamina_layer_set_background_color(l, r, g, b, 1);
    if (parent)
        lamina_layer_add_sublayer(parent, l);
    return l;
}

/* The scene the reconnection tests expect, in pixels (see reconnection()). */
static void check_scene(lamina_connection *conn, const char *when, rgba panel_b, double g_opacity) {
    uint32_t w, h;
    uint8_t *p = NULL;
    char *error = NULL;
    int s = lamina_connection_screenshot_pixels(conn, &w, &h, &p, &error);
    CHECK(s == 0, "%s: screenshot: %s", when, error ? error : "?");
    free(error);
    if (s)
        return;
    const rgba root = {0, 0, 64, 255}, red = {255, 0, 0, 255}, yellow = {255, 255, 0, 255}, white = {255, 255, 255, 255};
    int grey = (int)lround(255 * g_opacity + 64 * 0); /* white at g_opacity over the root's blue */
    const rgba g = {grey, grey, (int)lround(255 * g_opacity + 64 * (1 - g_opacity)), 255};
    struct {
        const char *what;
        uint32_t x, y;
        rgba colour;
        int tolerance;
    } expected[] = {
        {"the root's colour", 300, 230, root, 1},
        {"panel A", 100, 60, red, 1},
        {"A's sublayer B", 20, 20, panel_b, 1},
        {"where removed layer C was", 150, 100, root, 1},
        {"where destroyed layer D was", 250, 100, root, 1},
        {"E inside its mask", 170, 20, yellow, 1},
        {"E outside its mask", 230, 20, root, 1},
        {"F's image, rewritten", 30, 140, white, 1},
        {"G mid-animation", 220, 170, g, 3},
        {"H, whose mask was destroyed", 300, 180, yellow, 1},
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        rgba got = pixel_at(p, w, expected[i].x, expected[i].y);
        CHECK(close_to(got, expected[i].colour, expected[i].tolerance), "%s: %s at (%u, %u) is %d %d %d %d, expected %d %d %d %d",
              when, expected[i].what, expected[i].x, expected[i].y, PIXEL(got), PIXEL(expected[i].colour));
    }
    free(p);
}

/* lamina_connection_reconnect and automatic reconnection against a laminad killed and started
 * again on the same socket: the replayed model in pixels, re-timed animations, actions, many
 * commits, changes made while laminad was away. */
static void reconnection(daemon_t *d, const char *laminad) {
    char *error = NULL;
    lamina_connection *conn = lamina_connect_named(d->socket, "c-reconnect", &error);
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    error = NULL;
    if (!conn)
        return;
    lamina_connection_set_timeout(conn, 20000);
    reconnect_log log = {0};
    lamina_connection_set_event_callback(conn, on_reconnect_event, &log);
    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer_set_background_color(root, 0, 0, 64 / 255.0, 1);
    lamina_layer *a = panel(conn, root, 0, 0, 120, 80, 1, 0, 0);
    lamina_layer *b = panel(conn, a, 10, 10, 20, 20, 0, 1, 0);
    lamina_layer *c = panel(conn, root, 130, 90, 40, 40, 0, 0, 1);
    lamina_layer_remove_from_superlayer(c);
    lamina_layer *dd = panel(conn, root, 230, 90, 40, 40, 0, 0, 1);
    lamina_layer_destroy(dd);
    lamina_layer *e = panel(conn, root, 160, 0, 100, 60, 1, 1, 0);
    lamina_layer *m = panel(conn, NULL, 0, 0, 50, 60, 1, 1, 1);
    lamina_layer_set_layer(e, LAMINA_PROPERTY_MASK, m);
    lamina_layer *hh = panel(conn, root, 270, 150, 40, 40, 1, 1, 0);
    lamina_layer *m2 = panel(conn, NULL, 0, 0, 5, 5, 1, 1, 1);
    lamina_layer_set_layer(hh, LAMINA_PROPERTY_MASK, m2);
    lamina_layer_destroy(m2); /* laminad unmasks hh */
    uint8_t magenta[16], white[16];
    for (int i = 0; i < 16; i++) {
        magenta[i] = (uint8_t)(i % 4 == 1 ? 0 : 255);
        white[i] = 255;
    }
    lamina_image *image = lamina_image_new(conn, 2, 2, magenta, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, &error);
    CHECK(image != NULL, "image: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_layer *f = panel(conn, root, 10, 120, 40, 40, 0, 0, 0);
    lamina_layer_set_contents(f, image);
    lamina_image_update(image, 0, 0, 2, 2, white, 0);
    lamina_layer *g = panel(conn, root, 200, 150, 40, 40, 1, 1, 1);
    lamina_animation *fade = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(fade, 0);
    lamina_animation_set_to_number(fade, 1);
    lamina_animation_set_duration(fade, 10);
    lamina_layer_add_animation(g, fade, "fade");
    /* A second animation, removed at once: nothing of it may come back. */
    lamina_layer_add_animation(g, fade, "gone");
    lamina_animation_free(fade);
    lamina_layer_remove_animation(g, "gone");
    lamina_layer_set_action(a, "opacity", LAMINA_ACTION_NONE, NULL);
    /* K: a fade that ended and stays (fill forwards, not removed on completion): it holds 0.3. */
    lamina_layer *k = panel(conn, root, 130, 200, 10, 10, 1, 1, 1);
    lamina_animation *hold = lamina_animation_basic_new("opacity");
    lamina_animation_set_to_number(hold, 0.3);
    lamina_animation_set_duration(hold, 1);
    lamina_animation_set_fill_mode(hold, LAMINA_FILL_MODE_FORWARDS);
    lamina_animation_set_removed_on_completion(hold, 0);
    lamina_layer_add_animation(k, hold, "kept");
    lamina_animation_free(hold);
    /* U: an unkeyed fade; removing the empty key touches nothing (laminad's rule). */
    lamina_layer *u = panel(conn, root, 150, 200, 10, 10, 1, 1, 1);
    lamina_animation *unkeyed = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(unkeyed, 0);
    lamina_animation_set_to_number(unkeyed, 1);
    lamina_animation_set_duration(unkeyed, 10);
    lamina_layer_add_animation(u, unkeyed, NULL);
    lamina_animation_free(unkeyed);
    lamina_layer_remove_animation(u, "");
    /* Many layers, each with a fade: the replay takes several commits (20 000 operations each),
     * and a commit ends among the animations (each must be re-timed once). */
    enum { MANY = 10000 };
    lamina_layer *holder = panel(conn, root, 0, 239, 1, 1, 0, 0, 64 / 255.0);
    static lamina_layer *many[MANY];
    lamina_animation *slow = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(slow, 0);
    lamina_animation_set_to_number(slow, 1);
    lamina_animation_set_duration(slow, 10);
    for (int i = 0; i < MANY; i++) {
        many[i] = panel(conn, holder, 0, 0, 1, 1, 0, 0, 64 / 255.0);
        lamina_layer_add_animation(many[i], slow, "f");
    }
    lamina_animation_free(slow);
    lamina_layer *first = many[0], *last = many[MANY - 1];
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    /* Three commits laminad refuses (a NaN; negative bounds; E's mask made a sublayer): the model
     * keeps them, and the replay leaves them out (going back to A's bounds from before). A cycle
     * is not even taken into the model. */
    lamina_layer_set_opacity(a, NAN);
    expect_refused(conn, "a NaN opacity");
    lamina_layer_set_bounds(a, 0, 0, -120, 80); /* the replay goes back to the bounds before it */
    expect_refused(conn, "negative bounds");
    lamina_layer_add_sublayer(root, m);
    expect_refused(conn, "a mask as a sublayer");
    lamina_layer_add_sublayer(b, a);
    expect_refused(conn, "a cycle");
    advance(conn, 5);
    CHECK(fabs(opacity_of(k) - 0.3) < 1e-6 && fabs(opacity_of(u) - 0.5) < 1e-6, "K %g, U %g before the restart",
          opacity_of(k), opacity_of(u));
    const rgba green = {0, 255, 0, 255};
    check_scene(conn, "before the restart", green, 0.5);
    /* A paused display link at 30 Hz: the new laminad is told of it as it was. */
    link_log ticks = {0, 0, 1};
    lamina_display_link *link = lamina_display_link_create(conn, NULL, on_tick, &ticks, &error);
    CHECK(link != NULL, "display link: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_frame_rate_range thirty = {15, 30, 30};
    CHECK(link && lamina_display_link_set_preferred_frame_rate_range(link, thirty, NULL) == 0 && lamina_display_link_set_paused(link, 1, NULL) == 0,
          "the link paused at 30 Hz");

    /* Killed and started again: lamina_connection_reconnect replays. */
    CHECK(daemon_restart(d, laminad) == 0, "restart");
    int s = lamina_connection_reconnect(conn, &error);
    CHECK(s == 0, "reconnect: %d %s", s, error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(conn);
    CHECK(log.reconnected == 1 && log.attempts == 1, "reconnected events %d (attempts %d)", log.reconnected, log.attempts);
    CHECK(strstr(log.text, "refused 3 operations") && strstr(log.text, "invalid-property"), "the reconnection's note: '%s'", log.text);
    CHECK(stat_named(conn, "displayLink.links") == 1 && stat_named(conn, "displayLink.running") == 0, "the link replayed, paused");
    /* (The clock stays put: the scene's checks below read opacities at this time.) */
    lamina_display_link_set_paused(link, 0, NULL);
    CHECK(stat_named(conn, "displayLink.running") == 1 && ticks.count == 0, "the replayed link runs again");
    lamina_display_link_invalidate(link);
    CHECK(stat_named(conn, "displayLink.links") == 0, "and is gone once invalidated");
    CHECK(fabs(opacity_of(k) - 0.3) < 1e-6, "K holds its finished fade after the replay: %g", opacity_of(k));
    CHECK(fabs(opacity_of(u) - 0.5) < 1e-6, "U's unkeyed fade carries on: %g", opacity_of(u));
    int off = 0;
    for (int i = 0; i < MANY; i++)
        if (fabs(opacity_of(many[i]) - 0.5) > 1e-6 && off++ < 3)
            fprintf(stderr, "filler %d: opacity %g\n", i, opacity_of(many[i]));
    CHECK(off == 0, "%d of %d replayed fades are not at 0.5", off, MANY);
    CHECK(lamina_connection_time(conn) == 0, "the new laminad's clock: %g", lamina_connection_time(conn));
    check_scene(conn, "after lamina_connection_reconnect", green, 0.5);
    advance(conn, 2.5);
    check_scene(conn, "2.5 s later", green, 0.75);
    double bounds[4] = {0};
    CHECK(lamina_layer_presentation(last, LAMINA_PROPERTY_BOUNDS, bounds, 4, &error) == 0 && bounds[2] == 1,
          "the last of %d layers after the replay: %s", MANY, error ? error : "ok");
    free(error);
    error = NULL;
    CHECK(lamina_layer_presentation(first, LAMINA_PROPERTY_BOUNDS, bounds, 4, &error) == 0 && bounds[2] == 1,
          "the first of %d layers after the replay: %s", MANY, error ? error : "ok");
    free(error);
    error = NULL;
    /* A's null action came back: its opacity changes at once, with no implicit animation. */
    lamina_layer_set_opacity(a, 0.5);
    rgba half = shot_pixel(conn, 100, 60);
    CHECK(close_to(half, (rgba){128, 0, 32, 255}, 2), "A at opacity 0.5 with a null action: %d %d %d %d", PIXEL(half));
    lamina_layer_set_opacity(a, 1);

    /* Automatic: laminad killed; a sync finds it gone and gives up after two tries; a change
     * made then is kept in the model; a request once laminad is back reconnects. */
    CHECK(lamina_connection_set_reconnect(conn, 2, 1, 2) == 0, "set_reconnect");
    if (d->pid > 0) {
        kill(d->pid, SIGKILL);
        waitpid(d->pid, &(int){0}, 0);
        d->pid = 0;
    }
    unlink(d->socket);
    lamina_layer_set_background_color(b, 0, 1, 1, 1);
    s = lamina_connection_sync(conn, &error);
    CHECK(s == LAMINA_ERROR_CLOSED && error && strstr(error, "tries to connect again failed"), "sync with laminad away: %d %s", s,
          error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_layer_set_background_color(b, 1, 1, 0, 1) == 0, "a change while laminad is away");
    CHECK(daemon_restart(d, laminad) == 0, "second restart");
    CHECK(lamina_connection_set_reconnect(conn, 20, 10, 100) == 0, "set_reconnect");
    advance(conn, 0); /* the request finds laminad gone, reconnects, replays and asks again */
    CHECK(log.reconnected == 2, "reconnected events %d", log.reconnected);
    const rgba yellow = {255, 255, 0, 255};
    /* G's animation keeps its progress: 7.5 s of 10 when the clock last moved. */
    check_scene(conn, "after the automatic reconnection", yellow, 0.75);
    /* Once more, found by a commit's sync rather than a request. */
    CHECK(daemon_restart(d, laminad) == 0, "third restart");
    lamina_layer_set_background_color(b, 0, 1, 0, 1);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync across a restart: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(log.reconnected == 3, "reconnected events %d", log.reconnected);
    check_scene(conn, "after a sync across a restart", green, 0.75);
    CHECK(log.stopped == 1, "stop events for the removed animation: %d", log.stopped);
    CHECK(log.fade_starts == 1, "G's fade started %d times (replays do not start it again)", log.fade_starts);
    lamina_connection_close(conn);

    /* A connection made from a descriptor has nowhere to connect again. */
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(d->socket) < sizeof address.sun_path)
        memcpy(address.sun_path, d->socket, strlen(d->socket) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&address, sizeof address) == 0, "connect by hand");
    lamina_connection *given = lamina_connection_from_fd(fd, "c-given", NULL);
    CHECK(given != NULL, "from_fd");
    if (given) {
        CHECK(lamina_connection_set_reconnect(given, 3, 10, 100) == LAMINA_ERROR_STATE, "set_reconnect on a given descriptor");
        s = lamina_connection_reconnect(given, &error);
        CHECK(s == LAMINA_ERROR_STATE && error && strstr(error, "descriptor"), "reconnect on a given descriptor: %d %s", s,
              error ? error : "?");
        free(error);
        error = NULL;
        lamina_connection_close(given);
    }
    printf("daemon: reconnection replayed the model (%d layers) across three restarts\n", MANY);
}

/* Polls laminad's stats until its session journal holds every change so far (it writes 0.5 s
 * of real time after a change, on a thread of its own); 0 after 20 s. */
static int journal_written(lamina_connection *conn) {
    for (int i = 0; i < 200; i++) {
        if (stat_named(conn, "sessionJournal.pending") == 0 && stat_named(conn, "sessionJournal.writes") > 0)
            return 1;
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    return 0;
}

static int completions_heard;
static void count_completion(void *user) {
    (void)user;
    completions_heard++;
}

/* Kept sessions: layers that outlive the connection, taken over by the next one as handles (by
 * name, number and sublayers), new numbers above the session's, session-in-use, and a
 * reconnection across a laminad restart whose journal brought the session back. */
static void kept_session(daemon_t *d, const char *laminad) {
    char *error = NULL;
    const rgba red = {255, 0, 0, 255}, green = {0, 255, 0, 255}, blue = {0, 0, 255, 255}, white = {255, 255, 255, 255};
    lamina_connection *first = lamina_connect_session(d->socket, "c-kiosk", "kiosk", 1, &error);
    CHECK(first != NULL && !lamina_connection_resumed(first), "connect to a new session: %s", error ? error : "?");
    free(error);
    error = NULL;
    if (!first)
        return;
    lamina_connection_set_timeout(first, 20000);
    lamina_layer *root = lamina_connection_root(first);
    lamina_layer_set_background_color(root, 0, 0, 0, 0);
    lamina_layer *p = panel(first, root, 10, 10, 60, 40, 1, 0, 0);
    lamina_layer_set_string(p, LAMINA_PROPERTY_NAME, "panel");
    lamina_layer *dot = panel(first, p, 5, 5, 10, 10, 0, 1, 0);
    lamina_layer_set_string(dot, LAMINA_PROPERTY_NAME, "dot");
    uint8_t pixels[4] = {255, 255, 255, 255};
    lamina_image *image = lamina_image_new(first, 1, 1, pixels, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, NULL);
    lamina_layer *pic = panel(first, root, 100, 10, 20, 20, 0, 0, 0);
    lamina_layer_set_contents(pic, image);
    uint32_t panel_number = lamina_layer_number(p), image_number = lamina_image_number(image);
    /* An endless spin under "spin", tagged 1 by this client: its stop must not reach the next one. */
    lamina_animation *spin = lamina_animation_basic_new("transform.rotation.z");
    lamina_animation_set_from_number(spin, 0);
    lamina_animation_set_to_number(spin, 6.283);
    lamina_animation_set_duration(spin, 2);
    lamina_animation_set_repeat_count(spin, INFINITY);
    lamina_layer_add_animation(dot, spin, "spin");
    /* A 100 s fade the next client never touches, in a transaction with a completion (a group of
     * this client's). */
    lamina_layer *glowing = panel(first, root, 170, 150, 10, 10, 1, 1, 1);
    lamina_layer_set_string(glowing, LAMINA_PROPERTY_NAME, "glowing");
    lamina_animation *glow = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(glow, 0);
    lamina_animation_set_to_number(glow, 1);
    lamina_animation_set_duration(glow, 100);
    lamina_transaction_begin(first);
    lamina_transaction_set_completion(first, count_completion, NULL);
    lamina_layer_add_animation(glowing, glow, "glow");
    lamina_transaction_commit(first);
    lamina_animation_free(glow);
    CHECK(lamina_connection_sync(first, &error) == 0, "sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_close(first);

    lamina_connection *watcher = lamina_connect_named(d->socket, "c-watcher", NULL);
    CHECK(watcher != NULL, "watcher");
    if (!watcher)
        return;
    lamina_connection_set_timeout(watcher, 20000);
    CHECK(close_to(shot_pixel(watcher, 50, 40), red, 1) && close_to(shot_pixel(watcher, 110, 20), white, 1),
          "the kept session stays on screen after its client closed");

    lamina_connection *second = lamina_connect_session(d->socket, "c-kiosk", "kiosk", 1, &error);
    CHECK(second != NULL && lamina_connection_resumed(second), "take the session over: %s", error ? error : "?");
    free(error);
    error = NULL;
    if (!second) {
        lamina_connection_close(watcher);
        return;
    }
    lamina_connection_set_timeout(second, 20000);
    lamina_connection *third = lamina_connect_session(d->socket, "c-kiosk", "kiosk", 1, &error);
    CHECK(third == NULL && error && strstr(error, "session-in-use"), "a second connection to a held session: %s", error ? error : "?");
    free(error);
    error = NULL;
    lamina_layer *p2 = lamina_connection_find_layer(second, "panel"), *dot2 = lamina_connection_find_layer(second, "dot");
    CHECK(p2 && lamina_layer_number(p2) == panel_number && lamina_connection_layer(second, panel_number) == p2,
          "the panel by name and number");
    CHECK(p2 && dot2 && lamina_layer_sublayer_count(p2) == 1 && lamina_layer_sublayer(p2, 0) == dot2 &&
              lamina_layer_superlayer(dot2) == p2 && lamina_layer_superlayer(p2) == lamina_connection_root(second) &&
              lamina_connection_find_layer(second, "nothing") == NULL,
          "the session's sublayers");
    /* Changes to the taken-over layers; new layers and images get numbers above the session's. */
    CHECK(p2 && lamina_layer_set_action(p2, "backgroundColor", LAMINA_ACTION_NONE, NULL) == 0 &&
              lamina_layer_set_background_color(p2, 0, 0, 1, 1) == 0,
          "change the panel");
    lamina_layer *extra = panel(second, lamina_connection_root(second), 200, 10, 20, 20, 0, 1, 0);
    lamina_image *image2 = lamina_image_new(second, 1, 1, pixels, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, NULL);
    CHECK(extra && lamina_layer_number(extra) > panel_number && image2 && lamina_image_number(image2) > image_number,
          "new numbers above the session's");
    lamina_layer *pic2 = panel(second, lamina_connection_root(second), 230, 10, 20, 20, 0, 0, 0);
    lamina_layer_set_contents(pic2, image2);
    /* An image no layer shows (laminad drops such a session image when the session is taken over). */
    lamina_image *unshown = lamina_image_new(second, 1, 1, pixels, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, NULL);
    CHECK(unshown != NULL, "an unshown image");
    /* The spin replaced under its key: the earlier client's stop is not this one's. */
    reconnect_log log = {0};
    lamina_connection_set_event_callback(second, on_reconnect_event, &log);
    lamina_animation_set_callback(spin, on_reconnect_event, &log);
    CHECK(dot2 && lamina_layer_add_animation(dot2, spin, "spin") == 0, "replace the spin");
    lamina_animation_free(spin);
    /* Its own transaction completes by itself (the earlier client's group 1 runs 100 s). */
    completions_heard = 0;
    lamina_transaction_begin(second);
    lamina_transaction_set_completion(second, count_completion, NULL);
    lamina_transaction_set_duration(second, 0.25);
    lamina_layer_set_corner_radius(p2, 2);
    lamina_transaction_commit(second);
    CHECK(lamina_connection_sync(second, &error) == 0, "sync the taken-over session: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(close_to(shot_pixel(second, 50, 40), blue, 1) && close_to(shot_pixel(second, 15, 15), green, 1) &&
              close_to(shot_pixel(second, 210, 20), green, 1) && close_to(shot_pixel(second, 240, 20), white, 1) &&
              close_to(shot_pixel(second, 110, 20), white, 1),
          "the taken-over session changed");

    /* laminad killed once its journal holds the session: the new one shows it again, and the
     * connection reconnects to it (laminad's copy cleared, the model replayed, nothing refused). */
    advance(second, 0.5);
    lamina_connection_dispatch(second);
    CHECK(log.spin_stops == 0, "the earlier client's spin stopped, not this one's: %d stops heard", log.spin_stops);
    CHECK(completions_heard == 1, "this client's transaction completed by itself: %d", completions_heard);
    lamina_connection_close(watcher);
    CHECK(journal_written(second), "the journal was written");
    CHECK(daemon_restart(d, laminad) == 0, "restart");
    int s = lamina_connection_reconnect(second, &error);
    CHECK(s == 0, "reconnect to the restored session: %d %s", s, error ? error : "?");
    free(error);
    error = NULL;
    lamina_connection_dispatch(second);
    CHECK(log.reconnected == 1 && log.text[0] == 0, "reconnected, nothing left out: '%s'", log.text);
    const struct {
        uint32_t x, y;
        rgba colour;
    } after[] = {{50, 40, blue}, {15, 15, green}, {210, 20, green}, {240, 20, white}, {110, 20, white}};
    for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
        rgba got = shot_pixel(second, after[i].x, after[i].y);
        CHECK(close_to(got, after[i].colour, 1), "the session after the restart at (%u, %u): %d %d %d %d", after[i].x, after[i].y,
              PIXEL(got));
    }
    double layers = stat_named(second, "layers");
    CHECK(layers >= 5 && layers < 12, "no layer twice after the replay: %g", layers);
    /* laminad's own copy of the spin went with the replay; its stop is not this connection's. */
    advance(second, 0.5);
    lamina_connection_dispatch(second);
    CHECK(log.spin_stops == 0 && stat_named(second, "animations") >= 1, "the replayed spin runs: %d stops heard, %g animations",
          log.spin_stops, stat_named(second, "animations"));
    /* A fade added when the layer's time is 0 carries on through a reconnection to the same
     * laminad (its beginTime 0 must not read as "from now"). */
    lamina_layer *f0 = panel(second, lamina_connection_root(second), 260, 200, 10, 10, 1, 1, 1);
    CHECK(lamina_connection_sync(second, NULL) == 0, "sync");
    double t0 = lamina_connection_time(second);
    lamina_layer_set_number(f0, LAMINA_PROPERTY_TIME_OFFSET, -t0); /* the layer's time is 0 now */
    lamina_animation *fade0 = lamina_animation_basic_new("opacity");
    lamina_animation_set_from_number(fade0, 0);
    lamina_animation_set_to_number(fade0, 1);
    lamina_animation_set_duration(fade0, 10);
    lamina_layer_add_animation(f0, fade0, "fade0");
    lamina_animation_free(fade0);
    CHECK(lamina_connection_sync(second, NULL) == 0, "sync");
    advance(second, 2);
    lamina_layer *glowing2 = lamina_connection_find_layer(second, "glowing");
    double glowed = glowing2 ? opacity_of(glowing2) : NAN;
    s = lamina_connection_reconnect(second, &error);
    CHECK(s == 0, "reconnect to the same laminad: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(fabs(opacity_of(f0) - 0.2) < 1e-6, "a fade added at layer time 0, after a reconnection: %g", opacity_of(f0));
    CHECK(glowing2 && fabs(opacity_of(glowing2) - glowed) < 1e-6 && glowed > 0 && glowed < 0.5,
          "the earlier client's fade runs on through the replay: %g then %g", glowed, glowing2 ? opacity_of(glowing2) : NAN);
    /* The session's copy of the spin that this reconnection replaced stopped under the old tag:
     * not heard as this connection's (its spin carries a new tag). */
    advance(second, 0.5);
    lamina_connection_dispatch(second);
    CHECK(log.spin_stops == 0 && log.reconnected == 2, "after reconnecting to the same laminad: %d spin stops heard, %d reconnections",
          log.spin_stops, log.reconnected);
    lamina_connection_close(second);
    printf("daemon: a kept session outlived its client and laminad, and was taken over\n");
}

/* The gauge of docs/clients.md drawn with lamina_draw_*: the same probes as the Swift and
 * Python gauge tests, a redraw at a new value, and a refused drawing naming the command. */
static void draw_gauge(lamina_drawing *d, double w, double h, double value) {
    double cx = w / 2, cy = h * 0.6, r = w * 0.35;
    char needle[96];
    lamina_drawing_clear(d);
    lamina_draw_set_fill_color(d, 0.1, 0.1, 0.2, 1);
    lamina_draw_add_rounded_rect(d, 0, 0, w, h, 12, 12);
    lamina_draw_fill_path(d, NULL);
    lamina_draw_set_line_width(d, 8);
    lamina_draw_set_line_cap(d, "round");
    lamina_draw_set_stroke_color(d, 0.5, 0.5, 0.5, 1);
    lamina_draw_add_arc(d, cx, cy, r, M_PI, 2 * M_PI, 0);
    lamina_draw_stroke_path(d);
    lamina_draw_set_stroke_color(d, 0, 0.8, 0.2, 1);
    lamina_draw_add_arc(d, cx, cy, r, M_PI, M_PI * (1 + value), 0);
    lamina_draw_stroke_path(d);
    lamina_draw_save_gstate(d);
    lamina_draw_translate_by(d, cx, cy);
    lamina_draw_rotate_by(d, M_PI * (value - 0.5));
    lamina_draw_set_fill_color(d, 1, 0.3, 0, 1);
    snprintf(needle, sizeof needle, "M -3 0 L 0 -%g L 3 0 Z", r - 4);
    lamina_draw_add_path(d, needle);
    lamina_draw_fill_path(d, NULL);
    lamina_draw_restore_gstate(d);
    lamina_draw_set_fill_color(d, 1, 1, 1, 1);
    char number[16];
    snprintf(number, sizeof number, "%d", (int)(value * 100));
    lamina_draw_show_text(d, number, cx - 10, h - 8, "DejaVu Sans", 14);
}

static void drawing_gauge(lamina_connection *conn) {
    char *error = NULL;
    lamina_layer *gauge = lamina_layer_new(conn);
    lamina_drawing *d = lamina_drawing_new();
    draw_gauge(d, 200, 120, 0.7);
    CHECK(lamina_drawing_count(d) > 10, "the gauge recorded");
    CHECK(lamina_layer_set_rect(gauge, LAMINA_PROPERTY_BOUNDS, 0, 0, 200, 120) == 0 &&
              lamina_layer_set_point(gauge, LAMINA_PROPERTY_POSITION, 160, 120) == 0 &&
              lamina_layer_set_drawing(gauge, d) == 0 && lamina_layer_add_sublayer(lamina_connection_root(conn), gauge) == 0,
          "the gauge layer");
    CHECK(lamina_connection_sync(conn, &error) == 0, "gauge sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    rgba arc = shot_pixel(conn, 60 + 30, 60 + 68), face = shot_pixel(conn, 60 + 10, 60 + 110);
    rgba end = shot_pixel(conn, 60 + 170, 60 + 70);
    CHECK(arc.g > 150 && arc.r < 60, "the green arc's start: %d %d %d", arc.r, arc.g, arc.b);
    CHECK(face.b > 40 && face.r < 40, "the face: %d %d %d", face.r, face.g, face.b);
    CHECK(abs(end.r - 128) < 30 && abs(end.g - 128) < 30, "the grey track's end: %d %d %d", end.r, end.g, end.b);
    draw_gauge(d, 200, 120, 0.2);
    lamina_layer_set_drawing(gauge, d);
    CHECK(lamina_connection_sync(conn, &error) == 0, "gauge redraw sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    end = shot_pixel(conn, 60 + 170, 60 + 70);
    CHECK(end.g < 160, "after the redraw the arc stops short: %d %d %d", end.r, end.g, end.b);
    /* A client image drawn into the drawing, stretched: red on the left, blue on the right. */
    const uint8_t two[8] = {255, 0, 0, 255, 0, 0, 255, 255};
    lamina_image *image = lamina_image_new(conn, 2, 1, two, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, &error);
    free(error);
    error = NULL;
    lamina_drawing_clear(d);
    CHECK(image && lamina_draw_image(d, image, 0, 0, 200, 120) == 0, "draw an image");
    lamina_layer_set_drawing(gauge, d);
    CHECK(lamina_connection_sync(conn, &error) == 0, "image drawing sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    rgba left = shot_pixel(conn, 60 + 20, 60 + 60), right = shot_pixel(conn, 60 + 180, 60 + 60);
    CHECK(left.r == 255 && left.b == 0 && right.b == 255 && right.r == 0, "the image in the drawing: %d %d %d / %d %d %d",
          left.r, left.g, left.b, right.r, right.g, right.b);
    lamina_drawing_clear(d);
    lamina_draw_restore_gstate(d);
    lamina_layer_set_drawing(gauge, d);
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "restoreGState without a saveGState"),
          "an unbalanced restore refused: %s", error ? error : "(accepted)");
    free(error);
    lamina_layer_remove_from_superlayer(gauge);
    lamina_drawing_free(d);
}

/* An emitter layer: a point emitter's still particles in the cell's colour at emitterPosition,
 * a NaN cell refused naming the cell and field, and a cell builder that checks field types. */
static void emitter_layers(lamina_connection *conn) {
    char *error = NULL;
    uint8_t white[4 * 4 * 4];
    memset(white, 255, sizeof white);
    lamina_image *image = lamina_image_new(conn, 4, 4, white, 0, LAMINA_PIXEL_FORMAT_RGBA, LAMINA_ALPHA_PREMULTIPLIED, &error);
    CHECK(image != NULL, "emitter image: %s", error ? error : "?");
    lamina_layer *emitter = lamina_layer_new_kind(conn, LAMINA_LAYER_KIND_EMITTER);
    lamina_emitter_cell *dot = lamina_emitter_cell_create("dot");
    lamina_emitter_cell *spark = lamina_emitter_cell_create("spark");
    CHECK(lamina_emitter_cell_set_number(dot, LAMINA_CELL_COLOR, 1) == LAMINA_ERROR_INVALID_ARGUMENT, "cell field type");
    CHECK(lamina_emitter_cell_set_number(dot, LAMINA_CELL_BIRTH_RATE, 5) == 0 &&
              lamina_emitter_cell_set_number(dot, LAMINA_CELL_LIFETIME, 100) == 0 &&
              lamina_emitter_cell_set_color(dot, 0, 0, 1, 1) == 0 &&
              lamina_emitter_cell_set_string(dot, LAMINA_CELL_MAGNIFICATION_FILTER, "nearest") == 0 &&
              lamina_emitter_cell_set_contents(dot, lamina_image_number(image)) == 0 &&
              lamina_emitter_cell_add_cell(dot, spark) == 0,
          "cell fields");
    const lamina_emitter_cell *cells[] = {dot};
    CHECK(lamina_layer_set_rect(emitter, LAMINA_PROPERTY_BOUNDS, 0, 0, 320, 240) == 0 &&
              lamina_layer_set_point(emitter, LAMINA_PROPERTY_POSITION, 160, 120) == 0 &&
              lamina_layer_set_point(emitter, LAMINA_PROPERTY_EMITTER_POSITION, 40, 30) == 0 &&
              lamina_layer_set_emitter_cells(emitter, cells, 1) == 0 &&
              lamina_layer_add_sublayer(lamina_connection_root(conn), emitter) == 0,
          "emitter layer");
    CHECK(lamina_connection_sync(conn, &error) == 0, "emitter sync: %s", error ? error : "?");
    free(error);
    error = NULL;
    CHECK(lamina_connection_advance_clock(conn, 1, &error) == 0, "emitter advance");
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0 && pixels, "emitter screenshot");
    if (pixels) {
        CHECK(memcmp(pixels + (30 * w + 40) * 4, "\0\0\xFF\xFF", 4) == 0, "the particle at emitterPosition is blue");
        CHECK(memcmp(pixels + (30 * w + 44) * 4, "\0\0\0\xFF", 4) == 0, "nothing beside it");
    }
    free(pixels);
    lamina_emitter_cell *bad = lamina_emitter_cell_create("rain");
    lamina_emitter_cell_set_number(bad, LAMINA_CELL_VELOCITY, NAN);
    const lamina_emitter_cell *bad_cells[] = {bad};
    lamina_layer_set_emitter_cells(emitter, bad_cells, 1);
    CHECK(lamina_connection_sync(conn, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "emitterCells.rain.velocity"),
          "a NaN cell refused: %s", error ? error : "(accepted)");
    free(error);
    lamina_emitter_cell_destroy(bad);
    lamina_emitter_cell_destroy(spark);
    lamina_emitter_cell_destroy(dot);
}

/* MARK: Gestures and geometry (the same cases as the Swift GestureTests and Python test_gestures.py) */

typedef struct gesture_log {
    char text[4096];
} gesture_log;

static void log_line(gesture_log *log, const char *format, ...) {
    size_t n = strlen(log->text);
    if (n + 1 >= sizeof log->text)
        return;
    va_list args;
    va_start(args, format);
    vsnprintf(log->text + n, sizeof log->text - n, format, args);
    va_end(args);
    n = strlen(log->text);
    if (n + 1 < sizeof log->text)
        strcat(log->text, "\n");
}

static const char *state_name(lamina_gesture_state s) {
    switch (s) {
    case LAMINA_GESTURE_POSSIBLE: return "possible";
    case LAMINA_GESTURE_BEGAN: return "began";
    case LAMINA_GESTURE_CHANGED: return "changed";
    case LAMINA_GESTURE_ENDED: return "ended";
    case LAMINA_GESTURE_CANCELLED: return "cancelled";
    case LAMINA_GESTURE_FAILED: return "failed";
    }
    return "?";
}

static const char *direction_name(lamina_swipe_direction d) {
    return d == LAMINA_SWIPE_RIGHT ? "right" : d == LAMINA_SWIPE_LEFT ? "left" : d == LAMINA_SWIPE_UP ? "up" : "down";
}

static void on_pinch(lamina_gesture_recognizer *r, void *context) {
    double v[2];
    lamina_gesture_recognizer_velocity(r, v);
    log_line(context, "pinch %s scale %.3f velocity %.3f", state_name(lamina_gesture_recognizer_state(r)),
             lamina_gesture_recognizer_scale(r), v[0]);
}

static void on_rotation(lamina_gesture_recognizer *r, void *context) {
    double v[2];
    lamina_gesture_recognizer_velocity(r, v);
    log_line(context, "rotation %s %.3f velocity %.3f", state_name(lamina_gesture_recognizer_state(r)),
             lamina_gesture_recognizer_rotation(r), v[0]);
}

static void on_swipe(lamina_gesture_recognizer *r, void *context) {
    double v[2];
    lamina_gesture_recognizer_velocity(r, v);
    log_line(context, "swipe %s velocity %.3f,%.3f", direction_name(lamina_gesture_recognizer_direction(r)), v[0], v[1]);
}

static void on_pan(lamina_gesture_recognizer *r, void *context) {
    double t[2], v[2];
    lamina_gesture_recognizer_translation(r, t);
    lamina_gesture_recognizer_velocity(r, v);
    log_line(context, "pan %s %.3f,%.3f velocity %.3f,%.3f", state_name(lamina_gesture_recognizer_state(r)), t[0], t[1], v[0], v[1]);
}

static void on_press(lamina_gesture_recognizer *r, void *context) {
    log_line(context, "press %s", state_name(lamina_gesture_recognizer_state(r)));
}

static void on_single_tap(lamina_gesture_recognizer *r, void *context) {
    double p[2];
    lamina_gesture_recognizer_location(r, p);
    log_line(context, "single tap at %.3f,%.3f", p[0], p[1]);
}

static void on_double_tap(lamina_gesture_recognizer *r, void *context) {
    (void)r;
    log_line(context, "double tap");
}

/* An input event for `layer` as laminad would send it (display and layer points alike), dispatched. */
static void feed(lamina_connection *conn, lamina_layer *layer, lamina_input_kind kind, int32_t id, double x, double y, double time) {
    lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_INPUT);
    if (!q)
        return;
    q->event.layer_number = lamina_layer_number(layer);
    q->event.input_kind = kind;
    q->event.id = id;
    q->event.x = q->event.screen_x = x;
    q->event.y = q->event.screen_y = y;
    q->event.time = time;
    lm_dispatch_events(conn);
}

#define CHECK_LOG(log, expected) CHECK(strcmp((log).text, expected) == 0, "gestures:\n%s\nexpected:\n%s", (log).text, expected)

/* The recognisers' arithmetic, fed events by hand (times well past the connection's clock, so
 * that no wait ends by it but where the test says). */
static void gesture_arithmetic(lamina_connection *conn) {
    double t0 = lamina_connection_time(conn) + 100;
    lamina_layer *pad = lamina_layer_new(conn);
    lamina_layer_set_bounds(pad, 0, 0, 400, 400);
    lamina_layer_set_position(pad, 200, 200);
    gesture_log log = {{0}};

    lamina_gesture_recognizer *pinch = lamina_pinch_recognizer_new(on_pinch, &log);
    lamina_layer_add_gesture_recognizer(pad, pinch);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, 100, 100, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 1, 200, 100, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 205, 100, t0 + 0.1);
    CHECK_LOG(log, "");
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 300, 100, t0 + 0.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 0, 0, 100, t0 + 1);
    double p[2];
    lamina_gesture_recognizer_location(pinch, p);
    CHECK(p[0] == 150 && p[1] == 100, "pinch centroid %g,%g", p[0], p[1]);
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 1, 300, 100, t0 + 1.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, 0, 100, t0 + 1.5);
    CHECK_LOG(log, "pinch began scale 2.000 velocity 2.375\npinch changed scale 3.000 velocity 2.000\npinch ended scale 3.000 velocity 2.000\n");
    lamina_gesture_recognizer_free(pinch);

    /* scale = 1 makes later changes relative to now (the rate goes on); removal takes it off. */
    log.text[0] = 0;
    pinch = lamina_pinch_recognizer_new(on_pinch, &log);
    lamina_layer_add_gesture_recognizer(pad, pinch);
    CHECK(lamina_gesture_recognizer_layer(pinch) == pad, "the recogniser's layer");
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, 100, 100, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 1, 200, 100, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 300, 100, t0 + 0.5);
    CHECK(lamina_pinch_recognizer_set_scale(pinch, 1) == 0 && lamina_pinch_recognizer_set_scale(pinch, 0) < 0, "set the scale");
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 400, 100, t0 + 1);
    CHECK_LOG(log, "pinch began scale 2.000 velocity 2.000\npinch changed scale 1.500 velocity 1.000\n");
    CHECK(lamina_gesture_recognizer_touch_count(pinch) == 2 && lamina_gesture_recognizer_touch_location(pinch, 1, p) == 0 &&
              p[0] == 400 && p[1] == 100 && lamina_gesture_recognizer_touch_location(pinch, 2, p) < 0,
          "touch locations");
    CHECK(lamina_layer_remove_gesture_recognizer(pad, pinch) == 0 && lamina_gesture_recognizer_layer(pinch) == NULL, "removed");
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, 100, 100, t0 + 1);
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 1, 400, 100, t0 + 1);
    CHECK(strstr(log.text, "ended") == NULL, "a removed recogniser hears nothing more");
    lamina_gesture_recognizer_free(pinch);

    /* A long press on the connection's clock. */
    log.text[0] = 0;
    lamina_gesture_recognizer *press = lamina_long_press_recognizer_new(on_press, &log);
    CHECK(lamina_long_press_recognizer_set_minimum_duration(press, 0.5) == 0 &&
              lamina_gesture_recognizer_set_allowable_movement(press, 10) == 0 &&
              lamina_tap_recognizer_set_durations(press, 1, 1) == LAMINA_ERROR_INVALID_ARGUMENT,
          "long press settings");
    lamina_layer_add_gesture_recognizer(pad, press);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, 100, 100, t0);
    double kept_time = conn->time;
    conn->time = t0 + 0.4;
    lm_dispatch_events(conn);
    CHECK_LOG(log, "");
    conn->time = t0 + 0.5;
    lm_dispatch_events(conn);
    conn->time = kept_time;
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, 100, 100, t0 + 0.7);
    CHECK_LOG(log, "press began\npress ended\n");
    lamina_gesture_recognizer_free(press);

    log.text[0] = 0;
    lamina_gesture_recognizer *rotation = lamina_rotation_recognizer_new(on_rotation, &log);
    lamina_layer_add_gesture_recognizer(pad, rotation);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, 200, 200, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 1, 300, 200, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 200, 300, t0 + 0.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 100, 200, t0 + 1);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 200, 100, t0 + 1.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_CANCEL, 1, 0, 0, t0 + 2);
    feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, 200, 200, t0 + 2);
    CHECK_LOG(log, "rotation began 1.571 velocity 3.142\nrotation changed 3.142 velocity 3.142\nrotation changed 4.712 velocity 3.142\n"
                   "rotation cancelled 4.712 velocity 3.142\n");
    lamina_gesture_recognizer_free(rotation);

    log.text[0] = 0;
    lamina_gesture_recognizer *swipe = lamina_swipe_recognizer_new(on_swipe, &log);
    lamina_layer_add_gesture_recognizer(pad, swipe);
    const struct {
        double x0, y0, x1, y1, t, dt;
        unsigned directions;
    } strokes[] = {{100, 100, 200, 110, 0, 0.2, 15}, {100, 100, 200, 100, 1, 1, 15}, {100, 100, 100, 60, 3, 0.01, 15},
                   {100, 300, 100, 100, 4, 0.1, LAMINA_SWIPE_LEFT | LAMINA_SWIPE_RIGHT}, {100, 300, 100, 100, 5, 0.1, LAMINA_SWIPE_UP}};
    for (size_t i = 0; i < sizeof strokes / sizeof strokes[0]; i++) {
        lamina_swipe_recognizer_set(swipe, strokes[i].directions, 50, 200);
        feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, strokes[i].x0, strokes[i].y0, t0 + strokes[i].t);
        feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, strokes[i].x1, strokes[i].y1, t0 + strokes[i].t + strokes[i].dt);
    }
    CHECK_LOG(log, "swipe right velocity 500.000,50.000\nswipe up velocity 0.000,-2000.000\n");
    CHECK(lamina_swipe_recognizer_set(swipe, 16, 50, 200) == LAMINA_ERROR_INVALID_ARGUMENT, "an unknown direction refused");
    lamina_gesture_recognizer_free(swipe);

    log.text[0] = 0;
    lamina_gesture_recognizer *pan = lamina_pan_recognizer_new(on_pan, &log);
    lamina_pan_recognizer_set_touches(pan, 2, 2);
    lamina_layer_add_gesture_recognizer(pad, pan);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, 100, 100, t0);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 0, 200, 100, t0 + 0.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 1, 200, 200, t0 + 0.5);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 0, 220, 100, t0 + 1);
    feed(conn, pad, LAMINA_INPUT_TOUCH_MOVE, 1, 220, 200, t0 + 1);
    feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 2, 0, 0, t0 + 1.5);
    CHECK_LOG(log, "pan began 20.000,0.000 velocity 40.000,0.000\npan ended 20.000,0.000 velocity 40.000,0.000\n");
    CHECK(lamina_gesture_recognizer_touch_count(pan) == 3, "3 touches down");
    for (int id = 0; id < 3; id++)
        feed(conn, pad, LAMINA_INPUT_TOUCH_UP, id, 0, 0, t0 + 2);
    lamina_gesture_recognizer_free(pan);

    /* A double tap beats a single tap by the failure requirement; a lone tap waits for it. */
    log.text[0] = 0;
    lamina_gesture_recognizer *single = lamina_tap_recognizer_new(on_single_tap, &log);
    lamina_gesture_recognizer *twice = lamina_tap_recognizer_new(on_double_tap, &log);
    lamina_tap_recognizer_set_taps_required(twice, 2);
    lamina_gesture_recognizer_require_to_fail(single, twice);
    lamina_layer_add_gesture_recognizer(pad, single);
    lamina_layer_add_gesture_recognizer(pad, twice);
    const double taps[][2] = {{50, 0}, {52, 0.2}, {60, 2}};
    for (size_t i = 0; i < 3; i++) {
        feed(conn, pad, LAMINA_INPUT_TOUCH_DOWN, 0, taps[i][0], 50, t0 + taps[i][1]);
        feed(conn, pad, LAMINA_INPUT_TOUCH_UP, 0, taps[i][0], 50, t0 + taps[i][1] + 0.05);
    }
    CHECK_LOG(log, "double tap\n");
    double kept = conn->time;
    conn->time = t0 + 2.4; /* the double tap's wait (0.3 s after 2.05) passes on the clock */
    lm_dispatch_events(conn);
    conn->time = kept;
    CHECK_LOG(log, "double tap\nsingle tap at 60.000,50.000\n");
    lamina_gesture_recognizer_free(single);
    lamina_gesture_recognizer_free(twice);
    lamina_layer_destroy(pad);
    printf("daemon: pinch, rotation, swipe, two-finger pan and the double tap's failure requirement by hand\n");
}

/* hitTest, contains and convert through a rotated, scaled layer: the Swift client's numbers. */
static void geometry_reference(lamina_connection *conn) {
    lamina_layer *root = lamina_layer_new(conn), *parent = lamina_layer_new(conn), *child = lamina_layer_new(conn);
    lamina_layer_set_bounds(root, 0, 0, 640, 480);
    lamina_layer_set_position(root, 320, 240);
    lamina_layer_set_bounds(parent, 10, 20, 200, 100);
    lamina_layer_set_position(parent, 300, 200);
    lamina_layer_set_point(parent, LAMINA_PROPERTY_ANCHOR_POINT, 0.25, 0.75);
    double c = cos(M_PI / 6), s = sin(M_PI / 6);
    const double scaled_rotation[16] = {1.5 * c, 1.5 * s, 0, 0, -1.5 * s, 1.5 * c, 0, 0, 0, 0, 1.5, 0, 0, 0, 0, 1};
    const double shrink[16] = {0.8, 0, 0, 0, 0, 0.8, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    lamina_layer_set_transform(parent, LAMINA_PROPERTY_TRANSFORM, scaled_rotation);
    lamina_layer_set_transform(parent, LAMINA_PROPERTY_SUBLAYER_TRANSFORM, shrink);
    lamina_layer_set_bounds(child, 0, 0, 60, 40);
    lamina_layer_set_position(child, 100, 70);
    double c4 = cos(-M_PI / 4), s4 = sin(-M_PI / 4);
    const double turn[16] = {c4, s4, 0, 0, -s4, c4, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    lamina_layer_set_transform(child, LAMINA_PROPERTY_TRANSFORM, turn);
    lamina_layer_add_sublayer(root, parent);
    lamina_layer_add_sublayer(parent, child);
#define NEAR2(p, a, b) (fabs((p)[0] - (a)) < 1e-9 && fabs((p)[1] - (b)) < 1e-9)
    double centre[2], p[2], r[4];
    lamina_layer_convert_point(child, 30, 20, NULL, LAMINA_CONVERT_TO, centre);
    CHECK(NEAR2(centre, 356.56921938165306, 198.01923788646684), "the child's centre on the display: %.12g,%.12g", centre[0], centre[1]);
    lamina_layer_convert_point(child, centre[0], centre[1], NULL, LAMINA_CONVERT_FROM, p);
    CHECK(NEAR2(p, 30, 20), "and back: %.12g,%.12g", p[0], p[1]);
    CHECK(lamina_layer_hit_test(root, centre[0], centre[1]) == child, "the centre hits the child");
    CHECK(lamina_layer_hit_test(root, 300, 200) == parent && lamina_layer_hit_test(root, 250, 150) == parent &&
              lamina_layer_hit_test(root, 400, 300) == parent && lamina_layer_hit_test(root, 260, 190) == parent,
          "points on the parent");
    CHECK(lamina_layer_hit_test(root, 600, 50) == root && lamina_layer_hit_test(root, 700, 10) == NULL, "the root, then nothing");
    lamina_layer_convert_point(child, 0, 0, NULL, LAMINA_CONVERT_TO, p);
    CHECK(NEAR2(p, 315.5842325527861, 184.15450367921994), "corner %.12g,%.12g", p[0], p[1]);
    lamina_layer_convert_point(child, 60, 40, parent, LAMINA_CONVERT_TO, p);
    CHECK(NEAR2(p, 120.2842712474619, 69.34314575050763), "corner in the parent %.12g,%.12g", p[0], p[1]);
    lamina_layer_convert_rect(child, (const double[]){0, 0, 60, 40}, parent, LAMINA_CONVERT_TO, r);
    CHECK(NEAR2(r, 63.715728752538084, 46.71572875253812) && NEAR2(r + 2, 56.56854249492382, 56.56854249492377),
          "rect in the parent %.12g %.12g %.12g %.12g", r[0], r[1], r[2], r[3]);
    lamina_layer_convert_rect(child, (const double[]){250, 150, 20, 10}, NULL, LAMINA_CONVERT_FROM, r);
    CHECK(NEAR2(r, -47.581548702419404, -41.63763802578108) && NEAR2(r + 2, 18.255589147338814, 12.363032637450914),
          "rect from the display %.12g %.12g %.12g %.12g", r[0], r[1], r[2], r[3]);
    lamina_layer_convert_point(parent, 10, 20, child, LAMINA_CONVERT_TO, p);
    CHECK(NEAR2(p, 6.135146134954023, -101.09203627819626), "the parent's origin in the child %.12g,%.12g", p[0], p[1]);
    CHECK(lamina_layer_contains(parent, 10, 20) && !lamina_layer_contains(parent, 210, 50) && lamina_layer_contains(parent, 209.9, 119.9),
          "contains is half-open");
    lamina_layer_set_bool(child, LAMINA_PROPERTY_HIDDEN, 1);
    CHECK(lamina_layer_hit_test(root, centre[0], centre[1]) == parent, "a hidden child is not hit");
    lamina_layer_set_bool(child, LAMINA_PROPERTY_HIDDEN, 0);
    lamina_layer_set_bool(parent, LAMINA_PROPERTY_USER_INTERACTION_ENABLED, 0);
    CHECK(lamina_layer_hit_test(root, centre[0], centre[1]) == root, "nor a non-interactive parent's subtree");
#undef NEAR2
    lamina_layer_destroy(child);
    lamina_layer_destroy(parent);
    lamina_layer_destroy(root);
    printf("daemon: hit testing and conversion gave the Swift client's numbers\n");
}

/* docs/clients.md's gesture program over its own laminad (640 x 480), as the Swift
 * GestureEndToEndTests and Python test_gestures.py run it. */
static void touch(lamina_connection *conn, lamina_injection kind, int32_t id, double x, double y) {
    char *error = NULL;
    CHECK(lamina_connection_inject_touch(conn, kind, id, x, y, &error) == 0, "inject: %s", error ? error : "?");
    free(error);
}

static void gesture_program(const char *laminad) {
    daemon_t d;
    daemon_size = "640x480";
    int started = daemon_start(&d, laminad);
    daemon_size = "320x240";
    if (started != 0) {
        failures++;
        daemon_stop(&d);
        return;
    }
    char *error = NULL;
    lamina_connection *conn = lamina_connect_named(d.socket, "gestures", &error);
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    if (!conn) {
        daemon_stop(&d);
        return;
    }
    lamina_connection_set_timeout(conn, 20000);
    gesture_log log = {{0}};
    const double frames[4][4] = {{0, 0, 320, 240}, {320, 0, 320, 240}, {0, 240, 320, 240}, {320, 240, 320, 240}};
    lamina_layer *pads[4];
    for (int i = 0; i < 4; i++) {
        pads[i] = lamina_layer_new(conn);
        lamina_layer_set_bounds(pads[i], 0, 0, frames[i][2], frames[i][3]);
        lamina_layer_set_position(pads[i], frames[i][0] + frames[i][2] / 2, frames[i][1] + frames[i][3] / 2);
        lamina_layer_set_background_color(pads[i], 0, 0, 1, 1);
        lamina_layer_add_sublayer(lamina_connection_root(conn), pads[i]);
    }
    lamina_gesture_recognizer *pinch = lamina_pinch_recognizer_new(on_pinch, &log);
    lamina_gesture_recognizer *rotation = lamina_rotation_recognizer_new(on_rotation, &log);
    lamina_gesture_recognizer *swipe = lamina_swipe_recognizer_new(on_swipe, &log);
    lamina_gesture_recognizer *single = lamina_tap_recognizer_new(on_single_tap, &log);
    lamina_gesture_recognizer *twice = lamina_tap_recognizer_new(on_double_tap, &log);
    lamina_tap_recognizer_set_taps_required(twice, 2);
    lamina_gesture_recognizer_require_to_fail(single, twice);
    lamina_layer_add_gesture_recognizer(pads[0], pinch);
    lamina_layer_add_gesture_recognizer(pads[1], rotation);
    lamina_layer_add_gesture_recognizer(pads[2], swipe);
    lamina_layer_add_gesture_recognizer(pads[3], single);
    lamina_layer_add_gesture_recognizer(pads[3], twice);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "?");
    free(error);

    const lamina_injection down = LAMINA_INJECT_TOUCH_DOWN, move = LAMINA_INJECT_TOUCH_MOTION, up = LAMINA_INJECT_TOUCH_UP;
    /* Pinch: two fingers 100 apart move to 200 apart in two steps of 0.1 s. */
    touch(conn, down, 0, 110, 120), touch(conn, down, 1, 210, 120);
    advance(conn, 0.1);
    touch(conn, move, 0, 85, 120), touch(conn, move, 1, 235, 120);
    advance(conn, 0.1);
    touch(conn, move, 0, 60, 120), touch(conn, move, 1, 260, 120);
    touch(conn, up, 0, 0, 0), touch(conn, up, 1, 0, 0);
    /* Rotation: a quarter turn clockwise about the pad's centre in 0.1 s. */
    touch(conn, down, 0, 430, 120), touch(conn, down, 1, 530, 120);
    advance(conn, 0.1);
    touch(conn, move, 0, 480, 70), touch(conn, move, 1, 480, 170);
    touch(conn, up, 0, 0, 0), touch(conn, up, 1, 0, 0);
    /* Swipes: right, fast; left, too slow; up, fast. */
    touch(conn, down, 0, 40, 360);
    advance(conn, 0.1);
    touch(conn, move, 0, 140, 365), touch(conn, up, 0, 0, 0);
    touch(conn, down, 0, 280, 300), touch(conn, move, 0, 180, 300);
    advance(conn, 1);
    touch(conn, up, 0, 0, 0);
    touch(conn, down, 0, 160, 460);
    advance(conn, 0.05);
    touch(conn, move, 0, 160, 300), touch(conn, up, 0, 0, 0);
    /* A double tap, then a lone tap that waits for the double tap's 0.3 s to pass. */
    for (int i = 0; i < 2; i++)
        touch(conn, down, 0, 400, 300), touch(conn, up, 0, 0, 0);
    touch(conn, down, 0, 500, 400), touch(conn, up, 0, 0, 0);
    advance(conn, 0.2);
    size_t before_interval = strlen(log.text);
    advance(conn, 0.2);
    lamina_connection_dispatch(conn);
    CHECK_LOG(log, "pinch began scale 1.250 velocity 2.500\n"
                   "pinch changed scale 1.500 velocity 5.000\n"
                   "pinch changed scale 1.750 velocity 2.500\n"
                   "pinch changed scale 2.000 velocity 5.000\n"
                   "pinch ended scale 2.000 velocity 5.000\n"
                   "rotation began 0.785 velocity 7.854\n"
                   "rotation changed 1.571 velocity 15.708\n"
                   "rotation ended 1.571 velocity 15.708\n"
                   "swipe right velocity 1000.000,50.000\n"
                   "swipe up velocity 0.000,-3200.000\n"
                   "double tap\n"
                   "single tap at 180.000,160.000\n");
    CHECK(strcmp(log.text + before_interval, "single tap at 180.000,160.000\n") == 0, "the single tap came only after 0.3 s");
    lamina_gesture_recognizer *all[] = {pinch, rotation, swipe, single, twice};
    for (int i = 0; i < 5; i++)
        lamina_gesture_recognizer_free(all[i]);
    lamina_connection_close(conn);
    if (failures)
        print_log(&d);
    daemon_stop(&d);
    printf("daemon: the gesture program (pinch, rotation, swipes, double and single taps) over laminad\n");
}


/* MARK: Videos and their sound */

/* Reads laminad's messages until the video has an event of `kind` (or an error): a wait on
 * the socket for a condition, at most 30 s. */
static void wait_for_video(lamina_connection *conn, video_events *v, lamina_video_event_kind kind) {
    for (int i = 0; i < 3000 && !v->seen[kind] && !v->seen[LAMINA_VIDEO_ERROR]; i++) {
        struct pollfd p = {lamina_connection_get_fd(conn), POLLIN, 0};
        poll(&p, 1, 10);
        if (lamina_connection_dispatch(conn) < 0)
            break;
    }
}

/* The left channel's root mean square over [from, to) seconds of a 48 kHz 16-bit stereo WAV
 * file (read independently of laminad's writer), and its length in samples; -1 if unreadable. */
static double wav_rms(const char *path, double from, double to, long *frames) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t header[12];
    double result = -1;
    if (fread(header, 1, 12, f) == 12 && memcmp(header, "RIFF", 4) == 0) {
        uint8_t chunk[8];
        while (fread(chunk, 1, 8, f) == 8) {
            uint32_t size = chunk[4] | chunk[5] << 8 | chunk[6] << 16 | (uint32_t)chunk[7] << 24;
            if (memcmp(chunk, "data", 4) != 0) {
                fseek(f, (long)(size + (size & 1)), SEEK_CUR);
                continue;
            }
            long n = (long)size / 4;
            *frames = n;
            long a = (long)(from * 48000), b = (long)(to * 48000);
            double sum = 0;
            long count = 0;
            for (long k = 0; k < n; k++) {
                uint8_t s[4];
                if (fread(s, 1, 4, f) != 4)
                    break;
                int16_t left = (int16_t)(s[0] | s[1] << 8);
                if (k >= a && k < b) {
                    sum += (double)left * left;
                    count++;
                }
            }
            result = count ? sqrt(sum / (double)count) : 0;
            break;
        }
    }
    fclose(f);
    return result;
}

/* A clip made with gst-launch-1.0 (black then white, silence then a 440 Hz tone at half of full
 * scale from 1 s), played by a C client into a WAV file sink: the ready event, the picture at
 * 1.1 s, volume 0.5 halving the tone, muted silent; bad volumes refused here. */
static void video_sound(const char *laminad) {
    daemon_t d;
    char wav[400], clip[400], command[2048];
    memset(&d, 0, sizeof d);
    const char *tmp = getenv("TMPDIR");
    snprintf(d.directory, sizeof d.directory, "%s/lamina-c-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d.directory)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(wav, sizeof wav, "%s/out.wav", d.directory);
    snprintf(clip, sizeof clip, "%s/tone.mkv", d.directory);
    snprintf(command, sizeof command,
             "gst-launch-1.0 -q matroskamux name=m ! filesink location=%s "
             "concat name=v ! videoconvert ! vp8enc deadline=1 ! m. "
             "videotestsrc pattern=black num-buffers=10 ! video/x-raw,width=64,height=48,framerate=10/1 ! v. "
             "videotestsrc pattern=white num-buffers=10 ! video/x-raw,width=64,height=48,framerate=10/1 ! v. "
             "concat name=a ! audioconvert ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! m. "
             "audiotestsrc wave=silence num-buffers=10 samplesperbuffer=4800 ! audio/x-raw,rate=48000,channels=2 ! a. "
             "audiotestsrc wave=sine freq=440 volume=0.5 num-buffers=10 samplesperbuffer=4800 ! audio/x-raw,rate=48000,channels=2 ! a. "
             ">/dev/null 2>&1",
             clip);
    if (system(command) != 0) {
        printf("SKIP: video sound: gst-launch-1.0 could not make the clip (gstreamer1.0-tools, -plugins-good)\n");
        rmdir(d.directory);
        return;
    }
    char sink[600];
    snprintf(sink, sizeof sink, "wavenc ! filesink location=%s", wav);
    daemon_audio_sink = sink;
    snprintf(d.socket, sizeof d.socket, "%s/lamina.sock", d.directory);
    snprintf(d.log, sizeof d.log, "%s/laminad.log", d.directory);
    int started = daemon_spawn(&d, laminad, O_TRUNC);
    daemon_audio_sink = NULL;
    CHECK(started == 0, "laminad with a WAV sound output");
    char *error = NULL;
    lamina_connection *conn = started == 0 ? lamina_connect_named(d.socket, "c-video", &error) : NULL;
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    error = NULL;
    double rms[2] = {0, 0};
    for (int run = 0; conn && run < 3; run++) {
        video_events events;
        memset(&events, 0, sizeof events);
        lamina_connection_set_event_callback(conn, on_video_event, &events);
        lamina_video *video = lamina_video_new(conn, clip, &error);
        CHECK(video != NULL, "lamina_video_new: %s", error ? error : "?");
        if (!video)
            break;
        CHECK(lamina_video_set_volume(video, 1.5) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_video_set_volume(video, NAN) == LAMINA_ERROR_INVALID_ARGUMENT &&
                  lamina_video_set_rate(video, 0) == LAMINA_ERROR_INVALID_ARGUMENT,
              "bad volumes and rates are refused before they are sent");
        if (run == 1)
            CHECK(lamina_video_set_volume(video, 0.5) == 0, "volume 0.5");
        if (run == 2)
            CHECK(lamina_video_set_muted(video, 1) == 0, "muted");
        lamina_layer *layer = lamina_layer_new(conn);
        lamina_layer_set_bounds(layer, 0, 0, 64, 48);
        lamina_layer_set_position(layer, 42, 34);
        lamina_layer_set_video(layer, video);
        lamina_layer_add_sublayer(lamina_connection_root(conn), layer);
        lamina_video_play(video);
        CHECK(lamina_connection_sync(conn, &error) == 0, "commit the video: %s", error ? error : "?");
        free(error);
        error = NULL;
        wait_for_video(conn, &events, LAMINA_VIDEO_READY);
        CHECK(events.seen[LAMINA_VIDEO_READY] == 1 && events.width == 64 && events.height == 48 &&
                  fabs(events.duration - 2) < 0.05 && events.video == video && !events.seen[LAMINA_VIDEO_ERROR],
              "ready: %ux%u, %g s %s", events.width, events.height, events.duration, events.error);
        for (int step = 1; step <= 20; step++) {
            advance(conn, 0.1);
            if (step == 11) {
                rgba p = shot_pixel(conn, 42, 34);
                CHECK(p.r > 215 && p.g > 215 && p.b > 215, "white at 1.1 s: %d %d %d", p.r, p.g, p.b);
            }
        }
        CHECK(events.seen[LAMINA_VIDEO_PLAYING] == 1, "playing (run %d)", run);
        lamina_video_destroy(video);
        lamina_layer_remove_from_superlayer(layer);
        lamina_layer_destroy(layer);
        CHECK(lamina_connection_sync(conn, &error) == 0 && stat_named(conn, "audio.outputs") == 0, "the video's sound output closed: %s",
              error ? error : "");
        free(error);
        error = NULL;
        long frames = 0;
        double tone = wav_rms(wav, 1.2, 1.8, &frames), before = wav_rms(wav, 0, 0.9, &frames);
        CHECK(labs(frames - 96000) <= 48 && before < 30, "2 s of sound, silent before the tone: %ld samples, rms %g before", frames, before);
        if (run < 2)
            rms[run] = tone;
        else
            CHECK(tone == 0, "muted: rms %g", tone);
    }
    CHECK(rms[0] > 5000 && fabs(rms[1] / rms[0] - 0.5) <= 0.025, "volume 0.5 halves the tone: rms %g then %g", rms[0], rms[1]);
    if (conn)
        lamina_connection_close(conn);
    daemon_stop(&d);
    unlink(wav);
    unlink(clip);
    rmdir(d.directory);
    printf("daemon: a C client's video played its sound into a WAV file: volume 0.5 gave %.4f of full, muted silence\n",
           rms[0] > 0 ? rms[1] / rms[0] : 0);
}

/* MARK: app surfaces */

#define SIMPLE_SHM "/usr/bin/weston-simple-shm"

typedef struct app_log {
    int appeared, gone;
    lamina_app_surface_kind last_kind;
    lamina_app_gone_reason reason;
    uint32_t id, width, height;
    int32_t pid;
    char app_id[128], title[128];
} app_log;

static void on_app_log(const lamina_event *e, void *user) {
    app_log *log = user;
    if (e->type != LAMINA_EVENT_APP_SURFACE)
        return;
    log->last_kind = e->app_surface_kind;
    if (e->app_surface_kind == LAMINA_APP_SURFACE_APPEARED) {
        log->appeared++;
        log->id = e->app_surface.id;
        log->width = e->app_surface.width;
        log->height = e->app_surface.height;
        log->pid = e->app_surface.pid;
        snprintf(log->app_id, sizeof log->app_id, "%s", e->app_surface.app_id);
        snprintf(log->title, sizeof log->title, "%s", e->app_surface.title);
    } else if (e->app_surface_kind == LAMINA_APP_SURFACE_GONE) {
        log->gone++;
        log->reason = e->app_gone_reason;
    }
}

/* weston-simple-shm on `d`'s Wayland socket (wayland-lamina-0 beside the Lamina socket), its
 * output in laminad's log; its pid, or -1. */
static pid_t start_simple_shm(const daemon_t *d) {
    char path[400];
    snprintf(path, sizeof path, "%s/wayland-lamina-0", d->directory);
    for (int i = 0; i < 1500 && access(path, F_OK) != 0; i++) /* laminad makes it at start-up: up to 30 s */
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(d->log, O_WRONLY | O_APPEND);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        setenv("WAYLAND_DISPLAY", path, 1);
        execl(SIMPLE_SHM, SIMPLE_SHM, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void stop_app(pid_t *pid) {
    if (*pid > 0) {
        int status;
        kill(*pid, SIGKILL);
        waitpid(*pid, &status, 0);
        *pid = 0;
    }
}

/* Dispatches until `done` (polling every 50 ms, at most 60 s: a bound far above a loaded
 * machine's need, not a timing check). */
static int wait_for_apps(lamina_connection *conn, const app_log *log, int appeared, int gone) {
    for (int i = 0; i < 1200; i++) {
        if (lamina_connection_dispatch(conn) < 0)
            return 0;
        if (log->appeared >= appeared && log->gone >= gone)
            return 1;
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    return 0;
}

static uint32_t rgb_of(rgba p) { return (uint32_t)(p.r << 16 | p.g << 8 | p.b); }

/* simple-shm's drawing read through the window-to-screen map `at`: its white margin, and
 * outside its rings one colour a column growing 0x080401 a column left to right (the
 * orientation shows). `turned`: the layer is turned half round about its centre. */
typedef struct app_view {
    const uint8_t *pixels;
    uint32_t width;
    int turned;
    int x0, y0; /* upright: screen of window (0, 0); turned: screen of window (0, 0) is (x0, y0) going left and up */
} app_view;

static rgba window_pixel(const app_view *v, int x, int y) {
    return v->turned ? pixel_at(v->pixels, v->width, (uint32_t)(v->x0 - x), (uint32_t)(v->y0 - y))
                     : pixel_at(v->pixels, v->width, (uint32_t)(v->x0 + x), (uint32_t)(v->y0 + y));
}

static void expect_simple_shm(const app_view *v, const char *where) {
    static const int margin[4][2] = {{5, 5}, {244, 130}, {130, 5}, {10, 240}};
    for (int i = 0; i < 4; i++) {
        rgba p = window_pixel(v, margin[i][0], margin[i][1]);
        CHECK(p.r == 255 && p.g == 255 && p.b == 255 && p.a == 255, "%s: the margin at window (%d, %d) is %d,%d,%d,%d", where,
              margin[i][0], margin[i][1], p.r, p.g, p.b, p.a);
    }
    for (int x = 25; x < 28; x++) {
        CHECK(rgb_of(window_pixel(v, x, 40)) == rgb_of(window_pixel(v, x, 60)), "%s: column %d is one colour outside the rings",
              where, x);
        uint32_t step = (rgb_of(window_pixel(v, x + 1, 40)) - rgb_of(window_pixel(v, x, 40))) & 0xFFFFFF;
        CHECK(step == 0x080401, "%s: a step of 0x080401 a column, got %#x at column %d", where, step, x);
    }
}

static int is_rgba(rgba p, int r, int g, int b) { return p.r == r && p.g == g && p.b == b && p.a == 255; }

/* Starts laminad 640x480 with a blue background and no fade-in for app windows, in a fresh folder. */
static int apps_daemon(daemon_t *d, const char *laminad, char *config, size_t config_size) {
    memset(d, 0, sizeof *d);
    const char *tmp = getenv("TMPDIR");
    snprintf(d->directory, sizeof d->directory, "%s/lamina-c-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(d->directory))
        return -1;
    snprintf(d->socket, sizeof d->socket, "%s/lamina.sock", d->directory);
    snprintf(d->log, sizeof d->log, "%s/laminad.log", d->directory);
    snprintf(config, config_size, "%s/laminad.toml", d->directory);
    write_text(config, "[wayland]\nfade_in = 0\n");
    daemon_size = "640x480";
    daemon_config = config;
    daemon_background = "#3366CC";
    int s = daemon_spawn(d, laminad, O_TRUNC);
    daemon_size = "320x240";
    daemon_config = daemon_background = NULL;
    return s;
}

static void apps_daemon_stop(daemon_t *d, const char *config) {
    char path[400];
    daemon_stop(d); /* (its rmdir fails while the Wayland socket is there) */
    snprintf(path, sizeof path, "%s/wayland-lamina-0", d->directory);
    unlink(path);
    snprintf(path, sizeof path, "%s/wayland-lamina-0.lock", d->directory);
    unlink(path);
    unlink(config);
    unlink(d->log);
    rmdir(d->directory);
}

/* App windows as layer contents: the unmodified weston-simple-shm shown by a C client in a
 * half-turned layer (appExitContents keep) and an upright one (clear), checked against
 * simple-shm's own drawing; SIGKILL gives a gone event saying exited, the turned layer keeps
 * the last frame and the upright one shows the background; then managing comes back after
 * laminad restarts (the replay asks again). */
static void app_surfaces(const char *laminad) {
    if (access(SIMPLE_SHM, X_OK) != 0) {
        printf("SKIP: app surfaces: %s (Debian's weston) is not installed\n", SIMPLE_SHM);
        return;
    }
    daemon_t d;
    char config[400];
    CHECK(apps_daemon(&d, laminad, config, sizeof config) == 0, "laminad for app surfaces");
    char *error = NULL;
    lamina_connection *conn = d.pid > 0 ? lamina_connect_named(d.socket, "c-shell", &error) : NULL;
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    error = NULL;
    pid_t app = 0;
    if (!conn)
        goto done;
    lamina_connection_set_timeout(conn, 20000);
    lamina_connection_set_reconnect(conn, 5, 0, 100);
    app_log log;
    memset(&log, 0, sizeof log);
    lamina_connection_set_event_callback(conn, on_app_log, &log);
    CHECK(lamina_connection_manage_apps(conn, &error) == 0, "manage apps: %s", error ? error : "?");
    free(error);
    error = NULL;
    app = start_simple_shm(&d);
    CHECK(wait_for_apps(conn, &log, 1, 0), "simple-shm's window appeared");
    CHECK(strcmp(log.app_id, "org.freedesktop.weston.simple-shm") == 0 && strcmp(log.title, "simple-shm") == 0 &&
              log.width == 250 && log.height == 250 && log.pid == app && log.id != 0,
          "the window: '%s' '%s' %ux%u pid %d (app %d)", log.app_id, log.title, log.width, log.height, log.pid, (int)app);
    rgba bare = shot_pixel(conn, 5, 5);
    CHECK(is_rgba(bare, 0x33, 0x66, 0xCC), "managed: no kiosk window (%d,%d,%d)", bare.r, bare.g, bare.b);

    lamina_layer *root = lamina_connection_root(conn);
    lamina_layer *turned = lamina_layer_new(conn), *upright = lamina_layer_new(conn);
    const double half_turn[16] = {-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    CHECK(lamina_layer_set_bounds(turned, 0, 0, 250, 250) == 0 && lamina_layer_set_position(turned, 160, 240) == 0 &&
              lamina_layer_set_transform(turned, LAMINA_PROPERTY_TRANSFORM, half_turn) == 0 &&
              lamina_layer_set_app_surface(turned, log.id) == 0 && lamina_layer_set_bounds(upright, 0, 0, 250, 250) == 0 &&
              lamina_layer_set_position(upright, 480, 240) == 0 && lamina_layer_set_app_surface(upright, log.id) == 0 &&
              lamina_layer_set_string(upright, LAMINA_PROPERTY_APP_EXIT_CONTENTS, "clear") == 0 &&
              lamina_layer_add_sublayer(root, turned) == 0 && lamina_layer_add_sublayer(root, upright) == 0 &&
              lamina_connection_sync(conn, &error) == 0,
          "two layers showing the window: %s", error ? error : "");
    free(error);
    error = NULL;
    /* Window pixel (x, y): turned about (160, 240), at (284 - x, 364 - y); upright at (355 + x, 115 + y). */
    int shown = 0;
    for (int i = 0; i < 1200 && !shown; i++) {
        shown = is_rgba(shot_pixel(conn, 284 - 5, 364 - 5), 255, 255, 255) && is_rgba(shot_pixel(conn, 355 + 5, 115 + 5), 255, 255, 255);
        if (!shown)
            nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
    CHECK(shown, "simple-shm in both layers");
    uint32_t w = 0, h = 0;
    uint8_t *pixels = NULL;
    CHECK(lamina_connection_screenshot_pixels(conn, &w, &h, &pixels, &error) == 0 && w == 640 && h == 480, "screenshot: %s",
          error ? error : "");
    free(error);
    error = NULL;
    if (pixels) {
        app_view t = {pixels, w, 1, 284, 364}, u = {pixels, w, 0, 355, 115};
        expect_simple_shm(&t, "turned");
        expect_simple_shm(&u, "upright");
        static const int background[][2] = {{30, 240}, {290, 240}, {320, 240}, {350, 240}, {610, 240}, {160, 110}, {160, 370}, {480, 110}, {480, 370}};
        for (size_t i = 0; i < sizeof background / sizeof background[0]; i++) {
            rgba p = pixel_at(pixels, w, (uint32_t)background[i][0], (uint32_t)background[i][1]);
            CHECK(is_rgba(p, 0x33, 0x66, 0xCC), "background at (%d, %d): %d,%d,%d", background[i][0], background[i][1], p.r, p.g, p.b);
        }
        free(pixels);
        pixels = NULL;
    }

    pid_t killed = app;
    stop_app(&app);
    CHECK(wait_for_apps(conn, &log, 1, 1), "the gone event after SIGKILL");
    CHECK(log.last_kind == LAMINA_APP_SURFACE_GONE && log.reason == LAMINA_APP_GONE_EXITED, "gone, exited: kind %d reason %d (pid %d)",
          (int)log.last_kind, (int)log.reason, (int)killed);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync: %s", error ? error : "");
    free(error);
    error = NULL;
    CHECK(is_rgba(shot_pixel(conn, 284 - 5, 364 - 5), 255, 255, 255) && is_rgba(shot_pixel(conn, 284 - 244, 364 - 130), 255, 255, 255),
          "keep: the turned layer keeps the last frame");
    CHECK(is_rgba(shot_pixel(conn, 355 + 5, 115 + 5), 0x33, 0x66, 0xCC) && is_rgba(shot_pixel(conn, 355 + 125, 115 + 125), 0x33, 0x66, 0xCC),
          "clear: the upright layer shows the background");
    CHECK(lamina_connection_focus_app(conn, log.id, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "no app window"),
          "focusing a gone window refused: %s", error ? error : "(no error)");
    free(error);
    error = NULL;

    /* laminad restarts: the connection comes back managing apps; a new app's window is heard of. */
    CHECK(daemon_restart(&d, laminad) == 0, "laminad restarted");
    memset(&log, 0, sizeof log);
    CHECK(lamina_connection_sync(conn, &error) == 0, "sync after the restart (reconnects): %s", error ? error : "");
    free(error);
    error = NULL;
    double stats_frames = stat_named(conn, "framesRendered"); /* a request: the connection is back */
    (void)stats_frames;
    app = start_simple_shm(&d);
    CHECK(wait_for_apps(conn, &log, 1, 0) && strcmp(log.app_id, "org.freedesktop.weston.simple-shm") == 0,
          "managing apps again after the reconnection: appeared '%s'", log.app_id);
    stop_app(&app);
    CHECK(lamina_connection_stop_managing_apps(conn, &error) == 0, "stop managing: %s", error ? error : "");
    free(error);
    error = NULL;
    CHECK(lamina_connection_close_app(conn, 5, &error) == LAMINA_ERROR_SERVER && error && strstr(error, "manage apps first"),
          "close without managing refused: %s", error ? error : "(no error)");
    free(error);
    error = NULL;
    lamina_connection_close(conn);
done:
    stop_app(&app);
    if (failures)
        print_log(&d);
    apps_daemon_stop(&d, config);
    printf("daemon: weston-simple-shm shown in a C client's turned and upright layers; gone (exited) after SIGKILL, kept and cleared\n");
}

static int run_daemon(void) {
    const char *laminad = getenv("LAMINAD");
    char fallback[4096];
    if (!laminad || !*laminad) {
        snprintf(fallback, sizeof fallback, "%s", ".build/debug/laminad");
        laminad = fallback;
    }
    if (access(laminad, X_OK) != 0) {
        printf("SKIP: laminad is not built at %s (swift build --product laminad, or set LAMINAD)\n", laminad);
        return 77;
    }
    daemon_t d;
    CHECK(make_fake_sysfs() == 0, "a fake sysfs tree for the backlight");
    if (daemon_start(&d, laminad) != 0) {
        daemon_stop(&d);
        remove_fake_sysfs();
        return 1;
    }
    char *error = NULL;
    lamina_connection *conn = lamina_connect_named(d.socket, "c-test", &error);
    CHECK(conn != NULL, "connect: %s", error ? error : "?");
    free(error);
    error = NULL;
    if (conn) {
        lamina_connection_set_timeout(conn, 20000);
        readme_program(conn, d.directory);
        keyframes_and_groups(conn);
        blend_and_corners(conn);
        drawing_gauge(conn);
        rich_text_label(conn);
        poll_loop(conn);
        emitter_layers(conn);
        scroll_layers(conn);
        tiled_layers(conn);
        display_changes(conn);
        gesture_arithmetic(conn);
        geometry_reference(conn);
        display_links(conn);
        sparkline_program(conn);
        svg_images(conn);
        backlight_brightness(conn);
        lamina_connection_close(conn);
    }
    /* The default lookup names every place it tried. */
    setenv("LAMINA_SOCKET", "/nonexistent/lamina.sock", 1);
    CHECK(lamina_connect(NULL, &error) == NULL && error && strstr(error, "/nonexistent/lamina.sock"), "lookup: %s",
          error ? error : "(none)");
    free(error);
    error = NULL;
    unsetenv("LAMINA_SOCKET");
    setenv("XDG_RUNTIME_DIR", "/nonexistent-runtime", 1);
    CHECK(lamina_connect(NULL, &error) == NULL && error && strstr(error, "/nonexistent-runtime/lamina-0") &&
              strstr(error, "/run/lamina/lamina.sock"),
          "lookup: %s", error ? error : "(none)");
    free(error);
    int status;
    int alive = waitpid(d.pid, &status, WNOHANG) == 0;
    CHECK(alive, "laminad exited during the test");
    reconnection(&d, laminad);
    kept_session(&d, laminad);
    gesture_program(laminad);
    video_sound(laminad);
    app_surfaces(laminad);
    if (failures)
        print_log(&d);
    daemon_stop(&d);
    remove_fake_sysfs();
    printf("daemon: %s\n", failures ? "FAILED" : "the README program passed against laminad");
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    /* A bound on the whole run: a hang is a failure, not a stuck build. LAMINA_TEST_ALARM (seconds)
     * raises it where the program runs emulated (scripts/cross-c.sh, qemu-user). */
    const char *bound = getenv("LAMINA_TEST_ALARM");
    alarm(bound && atoi(bound) > 0 ? (unsigned)atoi(bound) : 240);
    if (argc >= 2 && strcmp(argv[1], "dump") == 0)
        return dump();
    if (argc >= 3 && strcmp(argv[1], "png") == 0)
        return png(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "fixtures") == 0) {
        fixtures(argv[2]);
        printf("fixtures: %s\n", failures ? "FAILED" : "passed");
        return failures ? 1 : 0;
    }
    if (argc >= 2 && strcmp(argv[1], "daemon") == 0)
        return run_daemon();
    if (argc >= 2 && strcmp(argv[1], "apps") == 0) { /* the app-surface daemon test alone */
        const char *laminad = getenv("LAMINAD");
        app_surfaces(laminad && *laminad ? laminad : ".build/debug/laminad");
        return failures ? 1 : 0;
    }
    fprintf(stderr, "usage: %s dump | png PATH | fixtures DIR | daemon | apps\n", argv[0]);
    return 2;
}
