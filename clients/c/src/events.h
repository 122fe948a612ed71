/* Internal to liblamina: the event queue and its dispatch (events.c). */
#ifndef LAMINA_EVENTS_H
#define LAMINA_EVENTS_H

#include "client.h"

/* Queues an event of `type` (the rest zeroed); NULL when out of memory. */
lm_queued_event *lm_push_event(lamina_connection *conn, lamina_event_type type);
/* Runs the callbacks of queued events, in order; not re-entered from a callback. The count run. */
int lm_dispatch_events(lamina_connection *conn);
/* Whether the completion of transaction group `group` waits in the queue. */
int lm_completion_queued(const lamina_connection *conn, uint32_t group);
/* Whether a stop for animation `tag` waits in the event queue: -1 none, else its finished flag. */
int lm_queued_stop(const lamina_connection *conn, uint32_t tag);
/* Queues a stop (finished 0) for a tagged animation gone while laminad is away. */
void lm_queue_stop(lamina_connection *conn, const lm_tag *tag);
/* A tiles-wanted event: the layer's tile provider asked for each tile, its answers committed (tiled.c). */
void lm_tiles_wanted(lamina_connection *conn, const lamina_event *event);

#endif
