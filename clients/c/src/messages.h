/* Internal to liblamina: laminad's messages decoded into the connection's state (messages.c). */
#ifndef LAMINA_MESSAGES_H
#define LAMINA_MESSAGES_H

#include "client.h"

/* Handles one server frame; LAMINA_ERROR_PROTOCOL (with the reason in *why) for bytes that are
 * not a message. */
int lm_handle_frame(lamina_connection *conn, uint32_t type, const uint8_t *body, size_t length, const char **why);

/* A display-changed message (display.c): the connection's display size follows, and the event is
 * queued with the outputs; LAMINA_ERROR_PROTOCOL (the reason in *why) when malformed. */
int lm_display_changed(lamina_connection *conn, lm_reader *r, const char **why);

/* A frame message (display_link.c): queued as LAMINA_EVENT_FRAME with its links. */
int lm_display_link_frame(lamina_connection *conn, lm_reader *r, const char **why);

/* Runs the callbacks of the links a frame event names, then commits (empty when nothing
 * changed), which answers the frame (display_link.c; from dispatch). */
void lm_display_link_fire(lamina_connection *conn, const lamina_event *e);

/* A request (requests.c) answered by a reply of `reply_kind`, reconnecting as the others do. */
int lm_request(lamina_connection *conn, uint32_t kind, const lm_buf *arguments, uint32_t reply_kind, char **error);

/* Tells a new connection of the links, as they were (after a reconnection's replay). */
void lm_display_links_replay(lamina_connection *conn);

/* An app-surface message (apps.c): queued as LAMINA_EVENT_APP_SURFACE with its names. */
int lm_app_surface_message(lamina_connection *conn, lm_reader *r, const char **why);

/* Before a layer's contents become an image or a video: appSurface 0 if it shows an app window. */
int lm_layer_stop_showing_app(lamina_layer *layer);

/* Manages apps again on a new connection if the client did (after a reconnection's replay). */
void lm_apps_replay(lamina_connection *conn);

/* Frees the connection's links (at close). */
void lm_display_links_free(lamina_connection *conn);

#endif
