/* Internal to liblamina: the connection's state, shared by connection.c and layer.c. */
#ifndef LAMINA_CLIENT_H
#define LAMINA_CLIENT_H

#include "internal.h"

/* The last operation recorded for one of a layer's properties or actions (its bytes as sent). */
typedef struct lm_entry {
    uint32_t key;    /* a property's number, or LM_ACTION_KEY | dictionary for an action */
    char *name;      /* an action's key */
    lm_buf op;
    lm_buf previous; /* the operation before it (empty: none), for a replay laminad refuses it in */
} lm_entry;
#define LM_ACTION_KEY 0x10000u
#define LM_NO_PARENT UINT32_MAX

/* A layer, and its model: what a reconnection replays (model.c). */
struct lamina_layer {
    lamina_connection *conn;
    uint32_t number;
    uint8_t kind;
    uint32_t parent; /* LM_NO_PARENT when it has no superlayer */
    uint32_t *children;
    size_t child_count, child_capacity;
    lm_entry *entries;
    size_t entry_count, entry_capacity;
};

struct lamina_image {
    lamina_connection *conn;
    uint32_t number, width, height;
    uint8_t format, alpha;
    int fd; /* the memory file, kept for updates (and for a reconnection) */
};

struct lamina_path {
    lm_buf elements; /* encoded elements (type byte and points) */
    uint32_t count;
};

/* A typed animation value: tag 0 absent. */
typedef struct lm_value {
    uint8_t tag;
    double v[4];
} lm_value;

struct lamina_animation {
    uint8_t kind;
    double begin_time, duration, speed, time_offset, repeat_count, repeat_duration;
    int autoreverses;
    uint8_t fill_mode;
    int has_timing;
    double timing[4];
    int removed_on_completion;
    char *key_path;
    lm_value from, to, by;
    int additive, cumulative;
    uint8_t value_function;
    double spring[4]; /* mass, stiffness, damping, initial velocity */
    uint8_t transition_type, transition_subtype;
    double progress[2];
    lamina_event_callback callback;
    void *user;
    /* keyframe (kind 2) */
    lm_buf values; /* encoded typed values */
    uint32_t value_count;
    lm_buf path; /* encoded path elements; has_path: present */
    uint32_t path_count;
    int has_path;
    double *key_times;
    size_t key_time_count;
    int has_key_times;
    double (*timing_functions)[4];
    size_t timing_function_count;
    uint8_t calculation_mode, rotation_mode;
    double *tcb[3]; /* tension, continuity, bias */
    size_t tcb_count[3];
    int has_tcb[3];
    /* group (kind 4) */
    lamina_animation **children;
    size_t child_count;
};

/* A transaction's settings as sent in a settings operation. */
typedef struct lm_settings {
    double duration;
    int has_timing;
    double timing[4];
    int disable_actions;
    uint32_t *groups;
    size_t group_count;
} lm_settings;

/* One open transaction: what it sets (unset settings are inherited). */
typedef struct lm_frame {
    int has_duration;
    double duration;
    int timing_state; /* 0 inherit, 1 none, 2 the curve below */
    double timing[4];
    int disable_state; /* -1 inherit, else 0 or 1 */
    uint32_t group;    /* 0: no completion */
} lm_frame;

/* An animation added with a tag, until laminad reports it stopped. */
typedef struct lm_tag {
    uint32_t tag, layer;
    char *key;
    lamina_event_callback callback;
    void *user;
    lamina_animation *animation; /* a copy, for a reconnection's replay (NULL once gone) */
    double begin;                /* its beginTime resolved in the layer's time when it was added */
    int gone;                    /* removed or replaced since (its stop event may still come) */
    int finished;                /* ran to its end and stays (not removed on completion): replayed there, untagged */
    int started;                 /* its start was reported (a replay's start is not reported again) */
} lm_tag;

typedef struct lm_completion {
    uint32_t group;
    lamina_completion_callback callback;
    void *user;
} lm_completion;

typedef struct lm_queued_event {
    lamina_event event; /* pointers filled in at dispatch */
    uint32_t tag;
    char *text, *key_name;
} lm_queued_event;

struct lamina_connection {
    int fd;
    char *closed_reason;
    char *fatal; /* an error with subject none */
    int timeout_ms;
    lm_buf in, out;
    uint64_t frames_handled; /* lets a blocking wait see that an answer came while it was writing */

    /* welcome */
    int welcomed;
    uint32_t server_major, server_minor, client_id, display_width, display_height;
    int virtual_clock;
    double time;

    /* commits */
    uint32_t serial, answered;
    char *unreported; /* the first refused commit's message since the last sync */

    /* requests */
    uint32_t next_request, awaiting;
    int reply_state; /* 0 waiting, 1 reply, 2 error */
    uint32_t reply_kind;
    lm_buf reply;
    char *reply_error;

    /* events */
    lm_queued_event *events;
    size_t event_head, event_count, event_capacity;
    int dispatching;
    lamina_event_callback on_event;
    void *on_event_user;

    /* the pending commit: image creates and updates, the changes under their settings, image destroys */
    lm_buf image_ops, ops, tail_ops;
    uint32_t image_op_count, op_count, tail_op_count;
    int *fds;
    size_t fd_count, fd_capacity;
    lm_settings current;     /* the settings the pending operations are under now */
    uint32_t *sent_groups, *closed_groups;
    size_t sent_group_count, sent_group_capacity, closed_group_count, closed_group_capacity;

    lm_frame *frames;
    size_t frame_count, frame_capacity;
    lm_completion *completions;
    size_t completion_count, completion_capacity;
    uint32_t next_group, next_tag;
    lm_tag *tags;
    size_t tag_count, tag_capacity;

    lamina_layer root;
    lamina_layer **layers; /* by number; NULL once destroyed */
    size_t layer_capacity;
    uint32_t next_layer;
    lamina_image **images;
    size_t image_capacity;
    uint32_t next_image;

    /* reconnection */
    char *path, *client_name;   /* where and as whom it connected (NULL path: from a descriptor) */
    int reconnect_attempts;     /* automatic reconnection's tries per call; 0 off */
    int reconnect_initial_ms, reconnect_max_ms;
    int reconnecting;
    uint32_t refused_serial; /* the last refused commit, and the operation laminad named (-1: none) */
    int32_t refused_index;

    /* sessions */
    char *session;         /* the session name said in the hello ("" or NULL: none) */
    uint32_t hello_flags;  /* bit 0 keep-layers */
    lm_buf snapshot;       /* the last welcome's snapshot operations (a session taken over) */
    uint32_t snapshot_count;
    int resumed;           /* the first welcome took over a kept session's layers */
};

/* The duration of a transaction that sets none (CA's). */
#define LM_DEFAULT_DURATION 0.25

/* Layer `number` of the connection (0: the root), or NULL. */
static inline lamina_layer *lm_layer_at(lamina_connection *conn, uint32_t number) {
    if (number == 0)
        return &conn->root;
    return number < conn->layer_capacity ? conn->layers[number] : NULL;
}

/* stream.c */
/* Closes the socket; `reason` (formatted) says why. Returns `status` for convenience. */
int lm_close_with(lamina_connection *conn, int status, const char *reason);
/* *error for a call that failed with `status` on this connection. */
void lm_status_error(lamina_connection *conn, int status, char **error);
int lm_flush(lamina_connection *conn);
int lm_flush_all(lamina_connection *conn);
int lm_send_frame(lamina_connection *conn, const lm_buf *frame, const int *fds, size_t fd_count);
int lm_handle_input(lamina_connection *conn, int *handled);
int lm_read_available(lamina_connection *conn);
int lm_pump(lamina_connection *conn);
int lm_exchange(lamina_connection *conn, uint32_t kind, const lm_buf *arguments);
/* messages.c */
int lm_handle_frame(lamina_connection *conn, uint32_t type, const uint8_t *body, size_t length, const char **why);
/* events.c */
lm_queued_event *lm_push_event(lamina_connection *conn, lamina_event_type type);
int lm_dispatch_events(lamina_connection *conn);
int lm_completion_queued(const lamina_connection *conn, uint32_t group);
/* connection.c */
int lm_say_hello(lamina_connection *conn, const char *client_name, char **error);
/* pending.c */
void lm_discard_pending(lamina_connection *conn);
/* reconnect.c */
int lm_recover(lamina_connection *conn, int status);
/* model.c */
void lm_model_take_out(lamina_connection *conn, lamina_layer *child);

/* Starts an operation in the pending commit's main list (emitting a settings operation first
 * when the transaction settings changed); returns the length to roll back to, or (size_t)-1
 * when the connection is closed or out of memory. */
size_t lm_op_begin(lamina_connection *conn);
/* Ends it: 0, or LAMINA_ERROR_NO_MEMORY (rolled back). */
int lm_op_end(lamina_connection *conn, lm_buf *list, uint32_t *count, size_t mark);
int lm_check_open(const lamina_connection *conn);
int lm_send_pending(lamina_connection *conn);
void lm_free_settings(lm_settings *s);
int lm_timing_named(const char *name, double out[4]);
void lm_encode_animation(lm_buf *b, const lamina_animation *a);
/* Whether changes may be recorded now: the connection is open, or it may come back (automatic
 * reconnection), in which case the model keeps them for the replay. */
int lm_check_recordable(const lamina_connection *conn);

/* model.c: the client-side model a reconnection replays. */
/* Notes a recorded operation (its bytes in the pending main list) in the model. 0, or -1 when
 * out of memory (the model is unchanged). */
int lm_model_note(lamina_connection *conn, const uint8_t *op, size_t length);
/* A layer is going: out of its superlayer, its sublayers without one, its animations gone. */
void lm_model_destroyed(lamina_connection *conn, lamina_layer *layer);
/* Frees a layer's model (not the layer). */
void lm_model_free(lamina_layer *layer);
/* Marks the tagged animations of `layer` under `key` (NULL: all) as gone. */
void lm_model_animations_gone(lamina_connection *conn, uint32_t layer, const char *key);
/* The clock's time now: the virtual clock's last reported time, or CLOCK_MONOTONIC seconds. */
double lm_now(const lamina_connection *conn);
/* `t` (the display's media time) in the time of `layer` (CA's convertTime:fromLayer:nil). */
double lm_layer_time(lamina_connection *conn, const lamina_layer *layer, double t);
lamina_animation *lm_animation_copy(const lamina_animation *a);
/* One replay commit at a time: fills `ops` (with a settings operation first) and `fds` from
 * position *cursor on, within the replay's limits; returns the operation count (0 when done). */
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
uint32_t lm_replay_next(lamina_connection *conn, lm_replay *r, lm_buf *ops, int *fds, size_t *fd_count,
                        lm_replay_source *sources);
/* laminad refused the replay's operation that came from `source`: the model leaves it out (an
 * entry or a sublayer dropped, an animation gone, a layer or image skipped in this replay).
 * -1 when it cannot (the settings operation, or too many skips). */
int lm_replay_drop(lamina_connection *conn, lm_replay *r, const lm_replay_source *source);
/* After a replay was applied: each animation's beginTime is in the new laminad's time from then on. */
void lm_model_retimed(lamina_connection *conn, double last, double shift);
/* Room in conn->layers for layer `number`. 0, or -1 when out of memory. */
int lm_reserve_layer(lamina_connection *conn, uint32_t number);
/* A replay's commits stay under laminad's default limits (docs/protocol.md). */
#define LM_REPLAY_MAX_OPERATIONS 20000u
#define LM_REPLAY_MAX_DESCRIPTORS 200u
#define LM_REPLAY_MAX_BYTES (4u << 20)
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
/* Whether a stop for animation `tag` waits in the event queue: -1 none, else its finished flag. */
int lm_queued_stop(const lamina_connection *conn, uint32_t tag);
/* Queues a stop (finished 0) for a tagged animation gone while laminad is away. */
void lm_queue_stop(lamina_connection *conn, const lm_tag *tag);

#endif
