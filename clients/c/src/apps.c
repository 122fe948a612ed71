/* App windows as layer contents (protocol 1.7): the manage-apps request (manage, stop, focus,
 * close), managing again after a reconnection, the app-surface message queued as
 * LAMINA_EVENT_APP_SURFACE, and a layer's app surface (property 102, with contents none). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "messages.h"
#include "model.h"
#include "stream.h"

/* The longest app id or title laminad sends ("at most 4096 bytes"). */
#define LM_APP_NAME_LIMIT 4096u

enum { APPS_STOP = 0, APPS_MANAGE = 1, APPS_FOCUS = 2, APPS_CLOSE = 3 }; /* appsActions */

static int manage_request(lamina_connection *conn, uint32_t action, uint32_t app, char **error) {
    if (!conn) {
        lm_set_error(error, "manage-apps: no connection");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    if (conn->welcomed && conn->server_minor < 7) {
        lm_set_error(error, "laminad speaks protocol %u.%u; managing apps needs 1.7", conn->server_major, conn->server_minor);
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    lm_buf a = {0};
    lm_buf_u8(&a, action);
    lm_buf_u32(&a, app);
    int s = a.failed ? LAMINA_ERROR_NO_MEMORY : lm_request(conn, LM_REQ_MANAGE_APPS, &a, 10, error);
    lm_buf_free(&a);
    if (s == LAMINA_OK && conn->reply.length != 0) {
        s = lm_close_with(conn, LAMINA_ERROR_PROTOCOL, "laminad sent a malformed done reply");
        lm_status_error(conn, s, error);
    }
    return s;
}

int lamina_connection_manage_apps(lamina_connection *conn, char **error) {
    int s = manage_request(conn, APPS_MANAGE, 0, error);
    if (s == LAMINA_OK)
        conn->manages_apps = 1;
    return s;
}

int lamina_connection_stop_managing_apps(lamina_connection *conn, char **error) {
    if (conn)
        conn->manages_apps = 0;
    return manage_request(conn, APPS_STOP, 0, error);
}

int lamina_connection_focus_app(lamina_connection *conn, uint32_t app, char **error) {
    return manage_request(conn, APPS_FOCUS, app, error);
}

int lamina_connection_close_app(lamina_connection *conn, uint32_t app, char **error) {
    if (app == 0) {
        lm_set_error(error, "lamina_connection_close_app: an app window's number (from a LAMINA_EVENT_APP_SURFACE), not 0");
        return LAMINA_ERROR_INVALID_ARGUMENT;
    }
    return manage_request(conn, APPS_CLOSE, app, error);
}

void lm_apps_replay(lamina_connection *conn) {
    if (!conn->manages_apps)
        return;
    lm_buf a = {0};
    lm_buf_u8(&a, APPS_MANAGE);
    lm_buf_u32(&a, 0);
    /* A refusal (the new laminad's policy) leaves the client unmanaging; nothing else to do. */
    if (!a.failed && (lm_exchange(conn, LM_REQ_MANAGE_APPS, &a) != LAMINA_OK || conn->reply_state != 1))
        conn->manages_apps = 0;
    lm_buf_free(&a);
}

int lm_app_surface_message(lamina_connection *conn, lm_reader *r, const char **why) {
    lamina_event e = {.type = LAMINA_EVENT_APP_SURFACE};
    uint32_t kind = lm_read_u8(r);
    e.app_surface.id = lm_read_u32(r);
    size_t app_id_n = 0, title_n = 0;
    const uint8_t *app_id = lm_read_string(r, &app_id_n);
    const uint8_t *title = lm_read_string(r, &title_n);
    e.app_surface.pid = lm_read_i32(r);
    e.app_surface.width = lm_read_u32(r);
    e.app_surface.height = lm_read_u32(r);
    uint32_t reason = lm_read_u8(r);
    if (r->failed || lm_reader_remaining(r) || kind > LAMINA_APP_SURFACE_GONE || reason > LAMINA_APP_GONE_DROPPED ||
        app_id_n > LM_APP_NAME_LIMIT || title_n > LM_APP_NAME_LIMIT || memchr(app_id, 0, app_id_n) ||
        memchr(title, 0, title_n)) {
        *why = "a malformed app-surface message";
        return LAMINA_ERROR_PROTOCOL;
    }
    e.app_surface_kind = (lamina_app_surface_kind)kind;
    e.app_gone_reason = (lamina_app_gone_reason)reason;
    char *names = malloc(app_id_n + title_n + 2);
    lm_queued_event *q = names ? lm_push_event(conn, LAMINA_EVENT_APP_SURFACE) : NULL;
    if (!q) {
        free(names);
        *why = "out of memory for an event";
        return LAMINA_ERROR_PROTOCOL;
    }
    memcpy(names, app_id, app_id_n);
    names[app_id_n] = 0;
    memcpy(names + app_id_n + 1, title, title_n);
    names[app_id_n + 1 + title_n] = 0;
    q->event = e;
    q->app_names = names;
    return LAMINA_OK;
}

/* The app window the layer shows now (its last set of appSurface), 0 for none. */
static uint32_t shown_app(const lamina_layer *layer) {
    size_t n = 0;
    const uint8_t *v = lm_model_value(layer, LAMINA_PROPERTY_APP_SURFACE, &n);
    if (!v || n != 8)
        return 0;
    lm_reader r = {.data = v, .length = n};
    double d = lm_read_f64(&r);
    return d > 0 && d <= 4294967295.0 ? (uint32_t)d : 0;
}

int lamina_layer_set_app_surface(lamina_layer *layer, uint32_t app) {
    if (!layer)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (app != 0) {
        int s = lamina_layer_set_reference(layer, LAMINA_PROPERTY_CONTENTS, 0);
        if (s)
            return s;
    }
    return lamina_layer_set_number(layer, LAMINA_PROPERTY_APP_SURFACE, (double)app);
}

int lm_layer_stop_showing_app(lamina_layer *layer) {
    if (!layer || shown_app(layer) == 0)
        return LAMINA_OK;
    return lamina_layer_set_number(layer, LAMINA_PROPERTY_APP_SURFACE, 0);
}
