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

#endif
