/* laminad's messages, decoded into the connection's state: the welcome, answers to commits and
 * requests, and events queued for dispatch. */
#include <stdlib.h>

#include "events.h"
#include "messages.h"
#include "model.h"

static const char *error_name(uint32_t code) {
    const char *name = code <= INT32_MAX ? lamina_server_error_name((int)code) : NULL;
    return name ? name : "error";
}

/* Handles one server frame; LAMINA_ERROR_PROTOCOL (with the reason) for bytes that are not a message. */
int lm_handle_frame(lamina_connection *conn, uint32_t type, const uint8_t *body, size_t length,
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
        lm_queued_event *q = lm_push_event(conn, kind ? LAMINA_EVENT_ANIMATION_STARTED : LAMINA_EVENT_ANIMATION_STOPPED);
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
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_TRANSACTION_COMPLETED);
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
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_WATCH);
        if (!q || !(q->text = lm_copy_string(text, n)))
            goto oom;
        return LAMINA_OK;
    }
    case LM_MSG_CLOCK: {
        double t = lm_read_f64(&r);
        if (r.failed || r.offset != length)
            break;
        if (t > conn->time)
            conn->time = t;
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_CLOCK);
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
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_INPUT);
        if (!q)
            goto oom;
        q->event = e;
        if (!(q->key_name = lm_copy_string(name, name_n)) || !(q->text = lm_copy_string(text, text_n)))
            goto oom;
        return LAMINA_OK;
    }
    case LM_MSG_SCROLL: {
        lamina_event e = {.type = LAMINA_EVENT_SCROLL};
        e.layer_number = lm_read_u32(&r);
        uint32_t phase = lm_read_u8(&r), source = lm_read_u8(&r);
        e.offset_x = lm_read_f64(&r);
        e.offset_y = lm_read_f64(&r);
        e.velocity_x = lm_read_f64(&r);
        e.velocity_y = lm_read_f64(&r);
        e.time = lm_read_f64(&r);
        if (r.failed || r.offset != length || phase > LAMINA_SCROLL_INTERRUPTED || source > 1)
            break;
        e.scroll_phase = (lamina_scroll_phase)phase;
        e.scroll_source = (int)source;
        lm_scrolled(conn, e.layer_number, e.offset_x, e.offset_y);
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_SCROLL);
        if (!q)
            goto oom;
        q->event = e;
        return LAMINA_OK;
    }
    case LM_MSG_VIDEO: {
        lamina_event e = {.type = LAMINA_EVENT_VIDEO, .video_duration = -1};
        e.video_number = lm_read_u32(&r);
        uint32_t kind = lm_read_u8(&r);
        const uint8_t *message = NULL;
        size_t message_n = 0;
        if (kind == LAMINA_VIDEO_READY) {
            e.video_width = lm_read_u32(&r);
            e.video_height = lm_read_u32(&r);
            e.video_duration = lm_read_f64(&r);
        } else if (kind == LAMINA_VIDEO_ERROR) {
            message = lm_read_string(&r, &message_n);
        }
        if (r.failed || r.offset != length || kind > LAMINA_VIDEO_ERROR)
            break;
        e.video_event = (lamina_video_event_kind)kind;
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_VIDEO);
        if (!q)
            goto oom;
        q->event = e;
        if (message && !(q->text = lm_copy_string(message, message_n)))
            goto oom;
        return LAMINA_OK;
    }
    case LM_MSG_DISPLAY_CHANGED:
        return lm_display_changed(conn, &r, why);
    case LM_MSG_FRAME:
        return lm_display_link_frame(conn, &r, why);
    case LM_MSG_APP_SURFACE:
        return lm_app_surface_message(conn, &r, why);
    case LM_MSG_TILES_WANTED: {
        lamina_event e = {.type = LAMINA_EVENT_TILES_WANTED};
        e.layer_number = lm_read_u32(&r);
        e.tile_level = (int32_t)lm_read_u32(&r);
        uint32_t count = lm_read_u32(&r);
        /* 40 bytes a tile: a count the body cannot hold is refused before allocating. */
        if (r.failed || count > 4096 || (size_t)count * 40 != length - r.offset)
            break;
        lamina_tile *tiles = count ? calloc(count, sizeof *tiles) : NULL;
        if (count && !tiles)
            goto oom;
        for (uint32_t i = 0; i < count; i++) {
            tiles[i].column = lm_read_u32(&r);
            tiles[i].row = lm_read_u32(&r);
            tiles[i].x = lm_read_f64(&r);
            tiles[i].y = lm_read_f64(&r);
            tiles[i].width = lm_read_f64(&r);
            tiles[i].height = lm_read_f64(&r);
        }
        e.tile_count = count;
        lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_TILES_WANTED);
        if (!q) {
            free(tiles);
            goto oom;
        }
        q->event = e;
        q->tiles = tiles;
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
