/* Internal to liblamina: a kept session's snapshot (snapshot.c). */
#ifndef LAMINA_SNAPSHOT_H
#define LAMINA_SNAPSHOT_H

#include "client.h"

/* The largest layer number a taken-over session may bring (the table is indexed by number). */
#define LM_MAX_RESTORED_LAYER (1u << 22)

/* Builds layer handles and their model from the welcome's snapshot (a kept session taken over).
 * LAMINA_OK, or LAMINA_ERROR_PROTOCOL for operations that do not decode. */
int lm_model_restore(lamina_connection *conn);
/* Destroy operations for every layer of the welcome's snapshot (a kept session laminad still
 * holds, which a reconnection's replay makes again), appended to `ops`; *count says how many. */
int lm_snapshot_destroys(lamina_connection *conn, lm_buf *ops, uint32_t *count);
/* The add-animations of a `snapshot` reply (`data`: its count and operations) on layers this
 * connection holds under keys none of its animations has, untagged and length-prefixed, into `kept`. */
int lm_foreign_animations(lamina_connection *conn, const uint8_t *data, size_t length, lm_buf *kept);
/* Whether a layer of the welcome's snapshot shows image `number` as its contents. */
int lm_snapshot_shows_image(lamina_connection *conn, uint32_t number);

#endif
