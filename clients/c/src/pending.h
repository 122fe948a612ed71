/* Internal to liblamina: the pending commit (pending.c). */
#ifndef LAMINA_PENDING_H
#define LAMINA_PENDING_H

#include "client.h"

/* Starts an operation in the pending commit's main list (emitting a settings operation first
 * when the transaction settings changed); returns the length to roll back to, or (size_t)-1
 * when the connection is closed or out of memory. */
size_t lm_op_begin(lamina_connection *conn);
/* Ends it: 0, or LAMINA_ERROR_NO_MEMORY (rolled back). */
int lm_op_end(lamina_connection *conn, lm_buf *list, uint32_t *count, size_t mark);
void lm_free_settings(lm_settings *s);
/* Appends the create-image (or create-encoded-image) operation that makes `image` in laminad. */
void lm_encode_create_image(lm_buf *b, const lamina_image *image);
/* Videos (video.c): the create-video and control-video operations, a video by number, and
 * freeing them all with the connection. */
void lm_encode_create_video(lm_buf *b, const lamina_video *video);
void lm_encode_control_video(lm_buf *b, uint32_t number, int kind, double argument);
lamina_video *lm_video_at(lamina_connection *conn, uint32_t number);
void lm_free_videos(lamina_connection *conn);
/* Sends what is pending as one commit (completions of transactions that sent nothing queued). */
int lm_send_pending(lamina_connection *conn);
/* Drops what is pending (its descriptors closed) and the settings it was under. */
void lm_discard_pending(lamina_connection *conn);

#endif
