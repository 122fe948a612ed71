/* Internal to liblamina: the byte stream to laminad (stream.c). Nothing here connects again; the
 * calls that do sit above reconnect.h. */
#ifndef LAMINA_STREAM_H
#define LAMINA_STREAM_H

#include "client.h"

/* Closes the socket; `reason` (formatted) says why. Returns `status` for convenience. */
int lm_close_with(lamina_connection *conn, int status, const char *reason);
/* LAMINA_OK while the connection is open. */
int lm_check_open(const lamina_connection *conn);
/* Whether changes may be recorded now: the connection is open, or it may come back (automatic
 * reconnection), in which case the model keeps them for the replay. */
int lm_check_recordable(const lamina_connection *conn);
/* *error for a call that failed with `status` on this connection. */
void lm_status_error(lamina_connection *conn, int status, char **error);
/* Writes what the socket takes without blocking: 0 when all is written, 1 while bytes remain. */
int lm_flush(lamina_connection *conn);
/* Writes everything queued, blocking (and reading meanwhile). */
int lm_flush_all(lamina_connection *conn);
/* Queues a whole frame (its descriptors with its first bytes) and writes what it can. */
int lm_send_frame(lamina_connection *conn, const lm_buf *frame, const int *fds, size_t fd_count);
/* Decodes the whole frames in the input buffer; counts them in *handled (when not NULL). */
int lm_handle_input(lamina_connection *conn, int *handled);
/* Reads what is there without blocking and handles whole frames. */
int lm_read_available(lamina_connection *conn);
/* Sends what is queued, waits for bytes and handles them. */
int lm_pump(lamina_connection *conn);
/* Sends a request and reads until its answer (conn->reply_state 1 or 2) or a failure; dispatches nothing. */
int lm_exchange(lamina_connection *conn, uint32_t kind, const lm_buf *arguments);

#endif
