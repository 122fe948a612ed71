/* Internal to liblamina: laminad's messages decoded into the connection's state (messages.c). */
#ifndef LAMINA_MESSAGES_H
#define LAMINA_MESSAGES_H

#include "client.h"

/* Handles one server frame; LAMINA_ERROR_PROTOCOL (with the reason in *why) for bytes that are
 * not a message. */
int lm_handle_frame(lamina_connection *conn, uint32_t type, const uint8_t *body, size_t length, const char **why);

#endif
