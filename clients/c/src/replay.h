/* Internal to liblamina: the model as replay commits (replay.c), sent by reconnect.c. */
#ifndef LAMINA_REPLAY_H
#define LAMINA_REPLAY_H

#include "client.h"

/* A replay's commits stay under laminad's default limits (docs/protocol.md). */
#define LM_REPLAY_MAX_OPERATIONS 20000u
#define LM_REPLAY_MAX_DESCRIPTORS 200u
#define LM_REPLAY_MAX_BYTES (4u << 20)

/* Where a replay stands, and what it leaves out. */
typedef struct lm_replay {
    int stage;      /* 0 images, 1 creates, 2 values, 3 sublayers, 4 actions, 5 animations, 6 done */
    size_t index, sub;
    double shift;   /* how far the clock jumped (0 on the real clock, which kept running) */
    double last;    /* the clock's time before the loss */
    /* Operations of 5 bytes that go first (destroys of a taken-over session's layers and images),
     * in the same commit as the layers made again where they fit: laminad destroys a session's
     * images that no layer shows after each commit. */
    lm_buf *prefix;
    size_t prefix_index;
    /* Not 0: animations are replayed under tags tag_base + their index (laminad's own copies of
     * them, destroyed by the prefix, report their stops under the old ones). */
    uint32_t tag_base;
    /* Operations that go last, each with a u32 length before it: an earlier client's animations
     * in a held session, which the destroys end (added again as laminad ran them). */
    lm_buf *suffix;
    size_t suffix_offset;
    /* Layers and images laminad refused to create in this replay: left out, with all that names them. */
    uint32_t skipped_layers[64], skipped_images[64];
    size_t skipped_layer_count, skipped_image_count;
} lm_replay;
/* Where one operation of a replay commit came from (stage 6: the settings operation; 7: the
 * prefix; 8: the suffix, index its offset). */
typedef struct lm_replay_source {
    int stage;
    size_t index, sub;
} lm_replay_source;

/* One replay commit at a time: fills `ops` (with a settings operation first), `fds` and `sources`
 * from where `r` stands on, within the replay's limits; returns the operation count (0 when done). */
uint32_t lm_replay_next(lamina_connection *conn, lm_replay *r, lm_buf *ops, int *fds, size_t *fd_count,
                        lm_replay_source *sources);
/* laminad refused the replay's operation that came from `source`: the model leaves it out (an
 * entry or a sublayer dropped, an animation gone, a layer or image skipped in this replay).
 * -1 when it cannot (the settings operation, or too many skips). */
int lm_replay_drop(lamina_connection *conn, lm_replay *r, const lm_replay_source *source);
/* After a replay was applied: each animation's beginTime is in the new laminad's time from then on. */
void lm_model_retimed(lamina_connection *conn, double last, double shift);

#endif
