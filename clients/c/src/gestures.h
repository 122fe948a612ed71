/* Internal to liblamina: gesture recognisers (gestures.c), fed by the event dispatch. */
#ifndef LAMINA_GESTURES_H
#define LAMINA_GESTURES_H

#include "client.h"

/* An input event to the recognisers of its layer, or of the nearest superlayer with any (every
 * recogniser for a cancel). */
void lm_gestures_route(lamina_connection *conn, const lamina_event *e);
/* Recognisers waiting on the clock (a long press, a double tap's interval) see its time now. */
void lm_gestures_tick(lamina_connection *conn);
/* A layer is going: recognisers on it are taken off. */
void lm_gestures_layer_gone(lamina_connection *conn, const lamina_layer *layer);
/* The connection is closing: its recognisers are taken off their layers. */
void lm_gestures_detach_all(lamina_connection *conn);

#endif
