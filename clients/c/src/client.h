/* Internal to liblamina: the connection's state, the types every part reads. Types only: each
 * part declares its functions in its own header, and the parts depend one way, so that none
 * calls back into one that builds on it: a part's .c includes its own header and those above it.
 *
 *   internal.h    buffer.c png.c names.c  the wire format, byte buffers, PNG, the protocol's names
 *   client.h                              the connection's state (this file)
 *   animation.h   animation.c             animations as values: copies, encoding
 *   events.h      events.c                the event queue and its dispatch
 *   model.h       model.c                 the model of the tree that a reconnection replays
 *   snapshot.h    snapshot.c              a kept session's snapshot: restored, destroyed
 *   replay.h      replay.c                the model as replay commits
 *   messages.h    messages.c              laminad's messages decoded into the state
 *   stream.h      stream.c                the socket: frames written and read, waiting, closing
 *   pending.h     pending.c               the pending commit: recorded, sent, dropped
 *   connection.h  connection.c            connecting, hello and welcome, closing
 *   reconnect.h   reconnect.c             connecting again and replaying
 *   gestures.h    gestures.c              gesture recognisers: input events routed to them, their clock
 *                                         (on top, like the public calls; events.c's dispatch calls
 *                                         lm_gestures_route, the one call up this list, so that
 *                                         recognisers run in order with the other callbacks)
 *   (none)        sync.c requests.c layer.c scroll.c transaction.c image.c geometry.c: the public calls on top
 *
 * (transaction.c ends in lamina_connection_commit, sync.c's, through lamina.h.) */
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
    /* The origin laminad reported for a scroll it drove, until the client sets the bounds again;
     * the commit that carries the client's last set of the bounds (a scroll event from before
     * laminad applied it does not override it). */
    int scrolled;
    double scroll_x, scroll_y;
    uint32_t bounds_serial;
    /* A tiled layer's tile provider (tiled.c). */
    lamina_tile_provider tile_provider;
    void *tile_provider_user;
};

struct lamina_image {
    lamina_connection *conn;
    uint32_t number, width, height;
    uint8_t format, alpha;
    int fd; /* the memory file, kept for updates (and for a reconnection) */
    /* An image made from an encoded file (lamina_image_new_encoded): its format + 1 (0: pixels)
     * and the file's length. */
    uint8_t encoding;
    uint64_t encoded_bytes;
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

/* One touch a gesture recogniser follows (the pointer while its left button is down is one). */
typedef struct lm_touch {
    int32_t id;
    int is_touch;
    double start[2], screen[2], local[2], start_time;
} lm_touch;
#define LM_MAX_TOUCHES 32 /* laminad's own bound on touches in progress */

/* A quantity's rate over the events' times (two components; pinch and rotation use the first). */
typedef struct lm_rate {
    int has_previous;
    double previous_time, previous[2], latest_time, latest[2];
} lm_rate;

typedef enum lm_gesture_kind { LM_TAP, LM_LONG_PRESS, LM_PAN, LM_PINCH, LM_ROTATION, LM_SWIPE } lm_gesture_kind;

struct lamina_gesture_recognizer {
    lm_gesture_kind kind;
    lamina_gesture_callback callback;
    void *context;
    lamina_connection *conn; /* the connection of the layer it is on (NULL: on none) */
    lamina_layer *layer;
    lamina_gesture_state state;
    double location[2], screen_location[2], allowable_movement;
    lm_touch touches[LM_MAX_TOUCHES];
    size_t touch_count;
    int has_deadline, held;
    double deadline, last_time;
    lamina_gesture_state held_state;
    lamina_gesture_recognizer **requirements, **dependents;
    size_t requirement_count, dependent_count;
    /* tap */
    int taps_required, tap_count, has_first;
    double maximum_duration, maximum_interval, first[2];
    /* long press */
    double minimum_duration;
    /* pan */
    size_t minimum_touches, maximum_touches;
    double translation[2], origin[2];
    /* pan, swipe (x, y); pinch, rotation ([0]) */
    double velocity[2];
    lm_rate rate;
    /* pinch */
    double start_span, span;
    /* rotation */
    double rotation, turned, last_angle;
    int has_last_angle;
    /* swipe */
    unsigned directions;
    double minimum_distance, minimum_speed;
    lamina_swipe_direction direction;
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

/* A video laminad decodes (protocol 1.6; volume and muted 1.7): its number (from the image
 * numbers) and how it plays, which a reconnection's replay makes again. */
struct lamina_video {
    lamina_connection *conn;
    uint32_t number;
    char *uri;
    int loop, muted, play_requested;
    double rate, volume;
};

typedef struct lm_queued_event {
    lamina_event event; /* pointers filled in at dispatch */
    uint32_t tag;
    char *text, *key_name;
    lamina_display_output *outputs; /* a display-changed's outputs and their names, one allocation */
    uint32_t *links;                /* a frame's link numbers */
    lamina_tile *tiles;             /* a tiles-wanted's tiles */
    char *app_names;                /* an app-surface's app id and title, each NUL-ended, one allocation */
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

    /* gesture recognisers on this connection's layers, in the order added */
    lamina_gesture_recognizer **recognizers;
    size_t recognizer_count, recognizer_capacity;

    lamina_layer root;
    lamina_layer **layers; /* by number; NULL once destroyed */
    size_t layer_capacity;
    uint32_t next_layer;
    lamina_image **images;
    size_t image_capacity;
    uint32_t next_image;
    lamina_video **videos; /* in the order they were made; removed when destroyed */
    size_t video_count, video_capacity;

    /* reconnection */
    char *path, *client_name;   /* where and as whom it connected (NULL path: from a descriptor) */
    int reconnect_attempts;     /* automatic reconnection's tries per call; 0 off */
    int reconnect_initial_ms, reconnect_max_ms;
    int reconnecting;
    uint32_t refused_serial; /* the last refused commit, and the operation laminad named (-1: none) */
    int32_t refused_index;

    /* display links, by number (NULL once invalidated) */
    struct lamina_display_link **display_links;
    size_t display_link_capacity;
    uint32_t next_display_link;

    /* apps (apps.c): whether this client manages them (again after a reconnection) */
    int manages_apps;

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

#endif
