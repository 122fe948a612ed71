/* Internal to liblamina: the reconnection (reconnect.c). */
#ifndef LAMINA_RECONNECT_H
#define LAMINA_RECONNECT_H

#include "client.h"

/* After a loss (`status` CLOSED or IO, the socket closed), with automatic reconnection on:
 * connects again and replays, LAMINA_OK or LAMINA_ERROR_CLOSED when the tries failed. Otherwise
 * (reconnection off, inside a reconnection or a callback) `status` as it was. */
int lm_recover(lamina_connection *conn, int status);

#endif
