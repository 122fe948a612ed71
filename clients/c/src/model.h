/* Internal to liblamina: the client-side model of the tree that a reconnection replays (model.c). */
#ifndef LAMINA_MODEL_H
#define LAMINA_MODEL_H

#include "client.h"

/* Notes a recorded operation (its bytes in the pending main list) in the model. 0, or -1 when
 * out of memory (the model is unchanged). */
int lm_model_note(lamina_connection *conn, const uint8_t *op, size_t length);
/* laminad scrolled layer `number` to (x, y): its bounds read back with that origin (scroll.c)
 * until the client sets them again. */
void lm_scrolled(lamina_connection *conn, uint32_t number, double x, double y);
/* The value bytes of the last set of `property` recorded on `l` (*length of them), or NULL. */
const uint8_t *lm_model_value(const lamina_layer *l, uint32_t property, size_t *length);
/* A layer is going: out of its superlayer, its sublayers without one, its animations gone. */
void lm_model_destroyed(lamina_connection *conn, lamina_layer *layer);
/* Frees a layer's model (not the layer). */
void lm_model_free(lamina_layer *layer);
/* Marks the tagged animations of `layer` under `key` (NULL: all) as gone. */
void lm_model_animations_gone(lamina_connection *conn, uint32_t layer, const char *key);
/* Takes `child` out of its superlayer's sublayers (if it has one). */
void lm_model_take_out(lamina_connection *conn, lamina_layer *child);
/* Room in conn->layers for layer `number`. 0, or -1 when out of memory. */
int lm_reserve_layer(lamina_connection *conn, uint32_t number);
/* The clock's time now: the virtual clock's last reported time, or CLOCK_MONOTONIC seconds. */
double lm_now(const lamina_connection *conn);
/* `t` (the display's media time) in the time of `layer` (CA's convertTime:fromLayer:nil). */
double lm_layer_time(lamina_connection *conn, const lamina_layer *layer, double t);

#endif
