/* Internal to liblamina: animations as values (animation.c). */
#ifndef LAMINA_ANIMATION_H
#define LAMINA_ANIMATION_H

#include "client.h"

/* A deep copy (a group's animations too); NULL when out of memory. */
lamina_animation *lm_animation_copy(const lamina_animation *a);
/* Appends the animation in the protocol's layout (docs/protocol.md "Animations"). */
void lm_encode_animation(lm_buf *b, const lamina_animation *a);

#endif
