/* Events: the queue of what laminad reported (and what the library owes, such as completions of
 * transactions that sent nothing), dispatched in order to the callbacks. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "pending.h"
#include "gestures.h"
#include "messages.h"

lm_queued_event *lm_push_event(lamina_connection *conn, lamina_event_type type) {
    if (conn->event_head > 0 && conn->event_head == conn->event_count)
        conn->event_head = conn->event_count = 0;
    if (lm_grow((void **)&conn->events, &conn->event_capacity, conn->event_count, sizeof *conn->events))
        return NULL;
    lm_queued_event *q = &conn->events[conn->event_count++];
    memset(q, 0, sizeof *q);
    q->event.type = type;
    return q;
}

/* Whether the completion of transaction group `group` waits in the queue. */
int lm_completion_queued(const lamina_connection *conn, uint32_t group) {
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
    lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_ANIMATION_STOPPED);
    if (q) {
        q->tag = tag->tag;
        q->event.layer_number = tag->layer;
    }
}

static lm_tag *find_tag(lamina_connection *conn, uint32_t tag, size_t *index) {
    for (size_t i = 0; i < conn->tag_count; i++)
        if (conn->tags[i].tag == tag) {
            *index = i;
            return &conn->tags[i];
        }
    return NULL;
}

/* Runs the callbacks of queued events, in order; not re-entered from a callback. */
int lm_dispatch_events(lamina_connection *conn) {
    if (conn->dispatching)
        return 0;
    conn->dispatching = 1;
    int count = 0;
    while (conn->event_head < conn->event_count) {
        lm_queued_event q = conn->events[conn->event_head++];
        lamina_event e = q.event;
        e.layer = lm_layer_at(conn, e.layer_number);
        e.text = q.text;
        e.key_name = q.key_name;
        e.outputs = q.outputs;
        e.links = q.links;
        e.tiles = q.tiles;
        e.key = "";
        if (e.type == LAMINA_EVENT_APP_SURFACE && q.app_names) {
            e.app_surface.app_id = q.app_names;
            e.app_surface.title = q.app_names + strlen(q.app_names) + 1;
        }
        if (e.type == LAMINA_EVENT_VIDEO)
            e.video = lm_video_at(conn, e.video_number);
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
        } else {
            if (e.type == LAMINA_EVENT_INPUT)
                lm_gestures_route(conn, &e);
            if (e.type == LAMINA_EVENT_FRAME)
                lm_display_link_fire(conn, &e);
            if (e.type == LAMINA_EVENT_TILES_WANTED)
                lm_tiles_wanted(conn, &e);
            if (conn->on_event)
                conn->on_event(&e, conn->on_event_user);
        }
        free(q.tiles);
        free(q.text);
        free(q.key_name);
        free(q.outputs);
        free(q.links);
        free(q.app_names);
        count++;
    }
    conn->event_head = conn->event_count = 0;
    lm_gestures_tick(conn);
    conn->dispatching = 0;
    return count;
}

void lamina_connection_set_event_callback(lamina_connection *conn, lamina_event_callback callback, void *user) {
    if (!conn)
        return;
    conn->on_event = callback;
    conn->on_event_user = user;
}
