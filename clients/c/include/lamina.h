/*
 * lamina.h: a C client for laminad, the Lamina compositor (protocol 1.7).
 *
 * Written in C against the wire protocol (docs/protocol.md, protocol/lamina-protocol.json):
 * no Swift runtime, no dependencies beyond libc, one non-blocking socket that fits any poll
 * loop. See clients/c/README.md and docs/clients.md.
 *
 * Conventions
 * - Handles are opaque. A connection owns its layers: lamina_connection_close() frees every
 *   lamina_layer of it (and its images). Animations are independent values: free them with
 *   lamina_animation_free() (adding one to a layer copies it).
 * - Functions returning int give LAMINA_OK (0) on success and a negative lamina_status on
 *   failure; lamina_connection_flush() and lamina_connection_dispatch() give a count or flag
 *   that is >= 0 on success.
 * - Functions that take `char **error` set *error, on failure only, to a malloc'd sentence
 *   (laminad's own message for a refused commit or request); free it with lamina_free() (or
 *   free()). Pass NULL when the message is not wanted. On success *error is left untouched.
 * - No global state: everything lives in the connection. A connection is not thread-safe;
 *   use it from one thread (different connections from different threads is fine).
 * - Changes (property sets, sublayers, animations, images) are recorded and sent together as
 *   one commit by lamina_connection_commit(), lamina_connection_sync(), any request, or the
 *   end of the outermost transaction. A commit laminad refuses changes nothing there; the
 *   error comes back from the next lamina_connection_sync(). Layers first created in a refused
 *   commit stay unknown to laminad: make them afresh.
 */
#ifndef LAMINA_H
#define LAMINA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAMINA_PROTOCOL_VERSION_MAJOR 1
#define LAMINA_PROTOCOL_VERSION_MINOR 7

/** Results of the library's int functions (0 or negative). */
typedef enum lamina_status {
    LAMINA_OK = 0,
    LAMINA_ERROR_INVALID_ARGUMENT = -1, /**< a NULL handle, a value of the wrong type, a bad size */
    LAMINA_ERROR_NO_MEMORY = -2,        /**< malloc failed */
    LAMINA_ERROR_IO = -3,               /**< a system call failed (socket, memfd, file) */
    LAMINA_ERROR_CLOSED = -4,           /**< the connection is closed (lamina_connection_error()) */
    LAMINA_ERROR_PROTOCOL = -5,         /**< laminad sent bytes that are not a message; the connection is closed */
    LAMINA_ERROR_SERVER = -6,           /**< laminad refused a commit or request (the message says why) */
    LAMINA_ERROR_STATE = -7,            /**< not allowed now (commit inside a transaction, transaction call outside one) */
    LAMINA_ERROR_TIMEOUT = -8,          /**< a blocking call waited longer than lamina_connection_set_timeout() */
} lamina_status;

/** A sentence for a lamina_status ("invalid argument", ...); never NULL, not to be freed. */
const char *lamina_status_string(int status);

/** Frees what the library malloc'd for the caller (error messages, pixels, JSON). */
void lamina_free(void *pointer);

/** Layer properties by protocol number (protocol/lamina-protocol.json "properties"). */
typedef enum lamina_property {
    LAMINA_PROPERTY_BOUNDS = 1,
    LAMINA_PROPERTY_POSITION = 2,
    LAMINA_PROPERTY_ANCHOR_POINT = 3,
    LAMINA_PROPERTY_ANCHOR_POINT_Z = 4,
    LAMINA_PROPERTY_Z_POSITION = 5,
    LAMINA_PROPERTY_TRANSFORM = 6,
    LAMINA_PROPERTY_SUBLAYER_TRANSFORM = 7,
    LAMINA_PROPERTY_OPACITY = 8,
    LAMINA_PROPERTY_HIDDEN = 9,
    LAMINA_PROPERTY_BACKGROUND_COLOR = 10,
    LAMINA_PROPERTY_NAME = 11,
    LAMINA_PROPERTY_CORNER_RADIUS = 12,
    LAMINA_PROPERTY_BORDER_WIDTH = 13,
    LAMINA_PROPERTY_BORDER_COLOR = 14,
    LAMINA_PROPERTY_MASKS_TO_BOUNDS = 15,
    LAMINA_PROPERTY_SHADOW_COLOR = 16,
    LAMINA_PROPERTY_SHADOW_OPACITY = 17,
    LAMINA_PROPERTY_SHADOW_OFFSET = 18,
    LAMINA_PROPERTY_SHADOW_RADIUS = 19,
    LAMINA_PROPERTY_DOUBLE_SIDED = 20,
    LAMINA_PROPERTY_SPEED = 21,
    LAMINA_PROPERTY_TIME_OFFSET = 22,
    LAMINA_PROPERTY_BEGIN_TIME = 23,
    LAMINA_PROPERTY_MASKED_CORNERS = 24,
    LAMINA_PROPERTY_ALLOWS_GROUP_OPACITY = 25,
    LAMINA_PROPERTY_GEOMETRY_FLIPPED = 26,
    LAMINA_PROPERTY_CONTENTS = 27,
    LAMINA_PROPERTY_CONTENTS_RECT = 28,
    LAMINA_PROPERTY_CONTENTS_CENTER = 29,
    LAMINA_PROPERTY_CONTENTS_GRAVITY = 30,
    LAMINA_PROPERTY_CONTENTS_SCALE = 31,
    LAMINA_PROPERTY_MINIFICATION_FILTER = 32,
    LAMINA_PROPERTY_MAGNIFICATION_FILTER = 33,
    LAMINA_PROPERTY_OPAQUE = 34,
    LAMINA_PROPERTY_MASK = 35,
    LAMINA_PROPERTY_SHADOW_PATH = 36,
    LAMINA_PROPERTY_COLORS = 37,
    LAMINA_PROPERTY_LOCATIONS = 38,
    LAMINA_PROPERTY_START_POINT = 39,
    LAMINA_PROPERTY_END_POINT = 40,
    LAMINA_PROPERTY_TYPE = 41,
    LAMINA_PROPERTY_PATH = 42,
    LAMINA_PROPERTY_FILL_COLOR = 43,
    LAMINA_PROPERTY_FILL_RULE = 44,
    LAMINA_PROPERTY_STROKE_COLOR = 45,
    LAMINA_PROPERTY_LINE_WIDTH = 46,
    LAMINA_PROPERTY_LINE_CAP = 47,
    LAMINA_PROPERTY_LINE_JOIN = 48,
    LAMINA_PROPERTY_MITER_LIMIT = 49,
    LAMINA_PROPERTY_LINE_DASH_PATTERN = 50,
    LAMINA_PROPERTY_LINE_DASH_PHASE = 51,
    LAMINA_PROPERTY_STROKE_START = 52,
    LAMINA_PROPERTY_STROKE_END = 53,
    LAMINA_PROPERTY_STRING = 54,
    LAMINA_PROPERTY_FONT = 55,
    LAMINA_PROPERTY_FONT_SIZE = 56,
    LAMINA_PROPERTY_FOREGROUND_COLOR = 57,
    LAMINA_PROPERTY_ALIGNMENT_MODE = 58,
    LAMINA_PROPERTY_WRAPPED = 59,
    LAMINA_PROPERTY_TRUNCATION_MODE = 60,
    LAMINA_PROPERTY_INSTANCE_COUNT = 61,
    LAMINA_PROPERTY_INSTANCE_TRANSFORM = 62,
    LAMINA_PROPERTY_INSTANCE_COLOR = 63,
    LAMINA_PROPERTY_INSTANCE_RED_OFFSET = 64,
    LAMINA_PROPERTY_INSTANCE_GREEN_OFFSET = 65,
    LAMINA_PROPERTY_INSTANCE_BLUE_OFFSET = 66,
    LAMINA_PROPERTY_INSTANCE_ALPHA_OFFSET = 67,
    LAMINA_PROPERTY_INSTANCE_DELAY = 68,
    LAMINA_PROPERTY_USER_INTERACTION_ENABLED = 69,
    LAMINA_PROPERTY_COMPOSITING_FILTER = 70, /**< a blend mode name ("multiplyBlendMode", ...), "" for none (1.7) */
    LAMINA_PROPERTY_CORNER_CURVE = 71,       /**< "circular" or "continuous" (1.7) */
    LAMINA_PROPERTY_SCROLL_MODE = 72,          /**< "both", "none", "vertically", "horizontally" (1.7) */
    LAMINA_PROPERTY_SCROLLS_ON_TOUCH = 73,     /**< laminad scrolls the layer by touch and wheel (1.7) */
    LAMINA_PROPERTY_SCROLL_CONTENT_SIZE = 74,  /**< a size; (0, 0): the union of the sublayers' frames (1.7) */
    LAMINA_PROPERTY_PAGING_ENABLED = 75,       /**< touch scrolls settle on multiples of the bounds (1.7) */
    LAMINA_PROPERTY_FILTERS = 76,              /**< a filter list: lamina_layer_set_filters() (1.7) */
    LAMINA_PROPERTY_BACKGROUND_FILTERS = 77,   /**< a filter list: lamina_layer_set_background_filters() (1.7) */
    /* Tiled layers (protocol 1.7): 78-79 and 95-96. */
    LAMINA_PROPERTY_TILE_SIZE = 78,            /**< a size in pixels, whole numbers 1-4096 (256 x 256) */
    LAMINA_PROPERTY_LEVELS_OF_DETAIL = 79,     /**< 1-30 levels at and below full resolution (1) */
    /* Emitter layers (protocol 1.7). */
    LAMINA_PROPERTY_EMITTER_POSITION = 80,
    LAMINA_PROPERTY_EMITTER_ZPOSITION = 81,
    LAMINA_PROPERTY_EMITTER_SIZE = 82,
    LAMINA_PROPERTY_EMITTER_DEPTH = 83,
    LAMINA_PROPERTY_EMITTER_SHAPE = 84,
    LAMINA_PROPERTY_EMITTER_MODE = 85,
    LAMINA_PROPERTY_RENDER_MODE = 86,
    LAMINA_PROPERTY_BIRTH_RATE = 87,
    LAMINA_PROPERTY_LIFETIME = 88,
    LAMINA_PROPERTY_VELOCITY = 89,
    LAMINA_PROPERTY_SCALE = 90,
    LAMINA_PROPERTY_SPIN = 91,
    LAMINA_PROPERTY_SEED = 92,
    LAMINA_PROPERTY_PRESERVES_DEPTH = 93,
    LAMINA_PROPERTY_LEVELS_OF_DETAIL_BIAS = 95, /**< 0-30 magnified levels, -1, -2, ... (0; tiled layers, 1.7) */
    LAMINA_PROPERTY_TILE_FADE_DURATION = 96,    /**< seconds a new tile fades in over (0.25; tiled layers, 1.7) */
    LAMINA_PROPERTY_EMITTER_CELLS = 94,
    LAMINA_PROPERTY_DRAWING = 97,              /**< a drawing: lamina_layer_set_drawing() (1.7) */
    /* Rich text (protocol 1.7). */
    LAMINA_PROPERTY_ATTRIBUTED_STRING = 98, /**< a text layer's runs: lamina_layer_set_attributed_string() */
    LAMINA_PROPERTY_LINE_SPACING = 99,      /**< a number: points added between a text layer's lines */
    /* Layout (1.7): laminad applies them when a superlayer's bounds change. A number holding
     * the CAAutoresizingMask bits (LAMINA_AUTORESIZING_*), and a list of lamina_constraint
     * (lamina_layer_set_constraints). */
    LAMINA_PROPERTY_AUTORESIZING_MASK = 100,
    LAMINA_PROPERTY_CONSTRAINTS = 101,
    /* App surfaces (1.7): the app window the layer shows (a number: lamina_layer_set_app_surface),
     * who sizes it ("bounds": laminad, to the layer's bounds; "app": the app) and what the layer
     * shows once it is gone ("keep": its last frame; "clear": nothing). */
    LAMINA_PROPERTY_APP_SURFACE = 102,
    LAMINA_PROPERTY_APP_SIZING = 103,
    LAMINA_PROPERTY_APP_EXIT_CONTENTS = 104,
} lamina_property;

/** CAAutoresizingMask's bits, for LAMINA_PROPERTY_AUTORESIZING_MASK (y down: MIN_Y is the top margin). */
enum {
    LAMINA_AUTORESIZING_MIN_X_MARGIN = 1,
    LAMINA_AUTORESIZING_WIDTH_SIZABLE = 2,
    LAMINA_AUTORESIZING_MAX_X_MARGIN = 4,
    LAMINA_AUTORESIZING_MIN_Y_MARGIN = 8,
    LAMINA_AUTORESIZING_HEIGHT_SIZABLE = 16,
    LAMINA_AUTORESIZING_MAX_Y_MARGIN = 32,
};

/** CAConstraintAttribute ("constraintAttributes"), for lamina_constraint. */
typedef enum lamina_constraint_attribute {
    LAMINA_CONSTRAINT_MIN_X = 0,
    LAMINA_CONSTRAINT_MID_X = 1,
    LAMINA_CONSTRAINT_MAX_X = 2,
    LAMINA_CONSTRAINT_WIDTH = 3,
    LAMINA_CONSTRAINT_MIN_Y = 4,
    LAMINA_CONSTRAINT_MID_Y = 5,
    LAMINA_CONSTRAINT_MAX_Y = 6,
    LAMINA_CONSTRAINT_HEIGHT = 7,
} lamina_constraint_attribute;

/**
 * One CAConstraint: attribute = relative_to.source_attribute × scale + offset. relative_to is
 * "superlayer" (or NULL) or a sibling's name; laminad resolves them in dependency order and
 * refuses the commit on a cycle or an unknown name (docs/protocol.md, "Layout").
 */
typedef struct lamina_constraint {
    lamina_constraint_attribute attribute;
    const char *relative_to;
    lamina_constraint_attribute source_attribute;
    double scale;
    double offset;
} lamina_constraint;

/** Value types ("valueTypes"); lamina_property_type() gives each property's. */
typedef enum lamina_value_type {
    LAMINA_VALUE_NUMBER = 1,
    LAMINA_VALUE_POINT = 2,
    LAMINA_VALUE_SIZE = 3,
    LAMINA_VALUE_RECT = 4,
    LAMINA_VALUE_COLOR = 5,
    LAMINA_VALUE_TRANSFORM = 6,
    LAMINA_VALUE_BOOL = 7,
    LAMINA_VALUE_STRING = 8,
    LAMINA_VALUE_NUMBER_LIST = 9,
    LAMINA_VALUE_COLOR_LIST = 10,
    LAMINA_VALUE_PATH = 11,
    LAMINA_VALUE_IMAGE = 12,
    LAMINA_VALUE_LAYER = 13,
    LAMINA_VALUE_EMITTER_CELLS = 14,
    LAMINA_VALUE_FILTER_LIST = 15,
    LAMINA_VALUE_CONSTRAINT_LIST = 20,
    LAMINA_VALUE_DRAWING = 21,
    LAMINA_VALUE_ATTRIBUTED_STRING = 22,
} lamina_value_type;

/** The codes of laminad's error messages ("errors"). */
typedef enum lamina_server_error {
    LAMINA_SERVER_ERROR_MALFORMED_FRAME = 1,
    LAMINA_SERVER_ERROR_FRAME_TOO_LARGE = 2,
    LAMINA_SERVER_ERROR_UNKNOWN_MESSAGE = 3,
    LAMINA_SERVER_ERROR_UNSUPPORTED_VERSION = 4,
    LAMINA_SERVER_ERROR_NOT_HELLO = 5,
    LAMINA_SERVER_ERROR_MALFORMED_MESSAGE = 6,
    LAMINA_SERVER_ERROR_UNKNOWN_LAYER = 7,
    LAMINA_SERVER_ERROR_DUPLICATE_LAYER = 8,
    LAMINA_SERVER_ERROR_CYCLE = 9,
    LAMINA_SERVER_ERROR_INVALID_PROPERTY = 10,
    LAMINA_SERVER_ERROR_SESSION_IN_USE = 11,
    LAMINA_SERVER_ERROR_INVALID_REQUEST = 12,
    LAMINA_SERVER_ERROR_LIMIT_EXCEEDED = 13,
    LAMINA_SERVER_ERROR_INTERNAL_ERROR = 14,
    LAMINA_SERVER_ERROR_NOT_ALLOWED = 15,
    LAMINA_SERVER_ERROR_INVALID_ANIMATION = 16,
    LAMINA_SERVER_ERROR_UNKNOWN_IMAGE = 17,
    LAMINA_SERVER_ERROR_DUPLICATE_IMAGE = 18,
    LAMINA_SERVER_ERROR_INVALID_IMAGE = 19,
    LAMINA_SERVER_ERROR_PERMISSION_DENIED = 20,
} lamina_server_error;

/** Layer kinds ("layerKinds"), for lamina_layer_new_kind(). */
typedef enum lamina_layer_kind {
    LAMINA_LAYER_KIND_LAYER = 0,
    LAMINA_LAYER_KIND_GRADIENT = 1,
    LAMINA_LAYER_KIND_SHAPE = 2,
    LAMINA_LAYER_KIND_TEXT = 3,
    LAMINA_LAYER_KIND_REPLICATOR = 4,
    LAMINA_LAYER_KIND_TRANSFORM = 5,
    LAMINA_LAYER_KIND_EMITTER = 6,
    LAMINA_LAYER_KIND_SCROLL = 7, /**< CAScrollLayer (1.7) */
    LAMINA_LAYER_KIND_TILED = 8,  /**< CATiledLayer (1.7): lamina_tiled_layer_set_provider() */
} lamina_layer_kind;

/** The phases of a scroll laminad drives ("scrollPhases"; LAMINA_EVENT_SCROLL's scroll_phase). */
typedef enum lamina_scroll_phase {
    LAMINA_SCROLL_BEGAN = 0,       /**< a drag passed the pan threshold, or a wheel turned */
    LAMINA_SCROLL_MOVED = 1,       /**< the origin moved (once per frame that moved it) */
    LAMINA_SCROLL_ENDED = 2,       /**< at rest */
    LAMINA_SCROLL_INTERRUPTED = 3, /**< stopped early: the client set the origin, or the layer left the tree */
} lamina_scroll_phase;

/** Byte order of image pixels in memory ("pixelFormats"). */
typedef enum lamina_pixel_format {
    LAMINA_PIXEL_FORMAT_BGRA = 0,
    LAMINA_PIXEL_FORMAT_RGBA = 1,
} lamina_pixel_format;

/** Alpha of image pixels ("alphaModes"). */
typedef enum lamina_alpha_mode {
    LAMINA_ALPHA_PREMULTIPLIED = 0,
    LAMINA_ALPHA_STRAIGHT = 1,
} lamina_alpha_mode;

/** Animation fill modes ("animations.fillModes"). */
typedef enum lamina_fill_mode {
    LAMINA_FILL_MODE_REMOVED = 0,
    LAMINA_FILL_MODE_FORWARDS = 1,
    LAMINA_FILL_MODE_BACKWARDS = 2,
    LAMINA_FILL_MODE_BOTH = 3,
} lamina_fill_mode;

/** Value functions of basic animations ("animations.valueFunctions"). */
typedef enum lamina_value_function {
    LAMINA_VALUE_FUNCTION_NONE = 0,
    LAMINA_VALUE_FUNCTION_ROTATE_X = 1,
    LAMINA_VALUE_FUNCTION_ROTATE_Y = 2,
    LAMINA_VALUE_FUNCTION_ROTATE_Z = 3,
    LAMINA_VALUE_FUNCTION_SCALE = 4,
    LAMINA_VALUE_FUNCTION_SCALE_X = 5,
    LAMINA_VALUE_FUNCTION_SCALE_Y = 6,
    LAMINA_VALUE_FUNCTION_SCALE_Z = 7,
    LAMINA_VALUE_FUNCTION_TRANSLATE = 8,
    LAMINA_VALUE_FUNCTION_TRANSLATE_X = 9,
    LAMINA_VALUE_FUNCTION_TRANSLATE_Y = 10,
    LAMINA_VALUE_FUNCTION_TRANSLATE_Z = 11,
} lamina_value_function;

/** Kinds of input events ("inputEventKinds"). */
typedef enum lamina_input_kind {
    LAMINA_INPUT_TOUCH_DOWN = 1,
    LAMINA_INPUT_TOUCH_MOVE = 2,
    LAMINA_INPUT_TOUCH_UP = 3,
    LAMINA_INPUT_TOUCH_CANCEL = 4,
    LAMINA_INPUT_POINTER_ENTER = 5,
    LAMINA_INPUT_POINTER_LEAVE = 6,
    LAMINA_INPUT_POINTER_MOVE = 7,
    LAMINA_INPUT_BUTTON_PRESS = 8,
    LAMINA_INPUT_BUTTON_RELEASE = 9,
    LAMINA_INPUT_SCROLL = 10,
    LAMINA_INPUT_KEY_PRESS = 11,
    LAMINA_INPUT_KEY_RELEASE = 12,
    LAMINA_INPUT_FOCUS_IN = 13,
    LAMINA_INPUT_FOCUS_OUT = 14,
    LAMINA_INPUT_POINTER_CANCEL = 15,
} lamina_input_kind;


typedef struct lamina_connection lamina_connection;
typedef struct lamina_layer lamina_layer;
typedef struct lamina_animation lamina_animation;
typedef struct lamina_image lamina_image;
typedef struct lamina_video lamina_video;
typedef struct lamina_path lamina_path;

/* MARK: Connections */

/**
 * Connects to laminad and says hello. `path` NULL: $LAMINA_SOCKET when set, else
 * $XDG_RUNTIME_DIR/lamina-0, then /run/lamina/lamina.sock. NULL on failure, with *error
 * listing each place tried and why it failed.
 */
lamina_connection *lamina_connect(const char *path, char **error);

/** As lamina_connect(), naming the client `client_name` in laminad's logs and tree (NULL: "lamina-c"). */
lamina_connection *lamina_connect_named(const char *path, const char *client_name, char **error);

/**
 * As lamina_connect_named(), in session `session` (at most 256 bytes; NULL or "": none). With
 * `keep_layers` (which needs a session name) the client's layers, images and running
 * animations stay on screen after the connection closes — and after laminad restarts (they
 * are journalled) — and a later connection to the same session takes them over: its layers
 * are there as handles (lamina_connection_resumed(), lamina_connection_find_layer(),
 * lamina_connection_layer(), lamina_layer_sublayer()) with their values, sublayers and actions;
 * their animations run on in laminad (add one under the same key to replace it). A session
 * held by a connected client is refused (session-in-use).
 */
lamina_connection *lamina_connect_session(const char *path, const char *client_name, const char *session, int keep_layers,
                                          char **error);

/** Whether this connection took over a kept session's layers (1) or started with none (0). */
int lamina_connection_resumed(const lamina_connection *conn);

/** The layer with protocol number `number` (0: the root), or NULL. Owned by the connection. */
lamina_layer *lamina_connection_layer(lamina_connection *conn, uint32_t number);

/** The first layer (by number) whose `name` property is `name`, or NULL. */
lamina_layer *lamina_connection_find_layer(lamina_connection *conn, const char *name);

/** The layer's superlayer as last set (NULL for none), its sublayers in order. */
lamina_layer *lamina_layer_superlayer(const lamina_layer *layer);
size_t lamina_layer_sublayer_count(const lamina_layer *layer);
lamina_layer *lamina_layer_sublayer(const lamina_layer *layer, size_t index);

/**
 * Says hello over an already connected stream socket `fd` (socket activation, tests); the
 * connection owns `fd` from then on, also on failure (it is closed), and makes it non-blocking.
 */
lamina_connection *lamina_connection_from_fd(int fd, const char *client_name, char **error);

/**
 * Commits what is pending (when no transaction is open; waiting at most a second for the socket),
 * closes the socket and frees the connection, its layers and images. laminad removes the
 * client's layers. NULL is ignored. Not to be called from a callback.
 */
void lamina_connection_close(lamina_connection *conn);

/** The client's root layer (number 0), sized by laminad to the display. Owned by the connection. */
lamina_layer *lamina_connection_root(lamina_connection *conn);

/** The display's size in points: the welcome's, then each LAMINA_EVENT_DISPLAY_CHANGED's (the root's bounds follow). */
void lamina_connection_display_size(const lamina_connection *conn, uint32_t *width, uint32_t *height);

/** Whether laminad runs a virtual clock (1) or the real one (0). */
int lamina_connection_clock_is_virtual(const lamina_connection *conn);

/** The clock's time as of the welcome, the last lamina_connection_advance_clock() or another client's clock move. */
double lamina_connection_time(const lamina_connection *conn);

/** Why the connection closed (NULL while open); owned by the connection. */
const char *lamina_connection_error(const lamina_connection *conn);

/** The longest a blocking call (sync, requests, writing) waits, in milliseconds; negative (the default): no limit. */
void lamina_connection_set_timeout(lamina_connection *conn, int milliseconds);

/** Sends the pending changes as one commit. LAMINA_ERROR_STATE inside an open transaction. */
int lamina_connection_commit(lamina_connection *conn);

/**
 * Commits pending changes (outside a transaction) and waits until laminad has answered every
 * commit sent. LAMINA_ERROR_SERVER with laminad's message in *error when it refused one since
 * the last sync ("invalid-property: layer #1 property 'opacity' must be finite ...").
 */
int lamina_connection_sync(lamina_connection *conn, char **error);

/** Requests a screenshot (privileged) and writes it to `png_path` as an 8-bit RGBA PNG. */
int lamina_connection_screenshot(lamina_connection *conn, const char *png_path, char **error);

/** A screenshot's pixels: *pixels gets width x height x 4 bytes RGBA, top row first (free with lamina_free). */
int lamina_connection_screenshot_pixels(lamina_connection *conn, uint32_t *width, uint32_t *height,
                                        uint8_t **pixels, char **error);

/** Moves laminad's virtual clock forward by `seconds` (privileged; laminad runs with --clock virtual) and renders that frame. */
int lamina_connection_advance_clock(lamina_connection *conn, double seconds, char **error);

/** One of laminad's counters. */
typedef struct lamina_stat {
    const char *name; /**< "frames", "layers", "commitsApplied", "video.framesYUV", … (docs/protocol.md, "stats") */
    double value;
} lamina_stat;

/**
 * laminad's counters now: *stats gets *count entries in one allocation (their names in it too),
 * freed with lamina_free(*stats).
 */
int lamina_connection_stats(lamina_connection *conn, lamina_stat **stats, size_t *count, char **error);

/**
 * Switches output `name` to a `width` × `height` mode (`refresh` 0: any; privileged, as
 * `laminactl output NAME mode WxH[@HZ]`). laminad resizes the display and lays it out; every 1.7
 * client gets LAMINA_EVENT_DISPLAY_CHANGED. LAMINA_ERROR_SERVER with laminad's reason (an unknown
 * output, a size out of range, a backend that cannot).
 */
int lamina_connection_set_output_mode(lamina_connection *conn, const char *name, uint32_t width, uint32_t height,
                                      double refresh, char **error);

/**
 * Turns output `name`'s picture (privileged, `laminactl output NAME transform T`): "normal", "90",
 * "180", "270", "flipped", "flipped-90", "flipped-180" or "flipped-270". Input follows at once.
 */
int lamina_connection_set_output_transform(lamina_connection *conn, const char *name, const char *transform, char **error);

/** Sets output `name`'s pixels per point (privileged; laminad takes 0.25 to 8). */
int lamina_connection_set_output_scale(lamina_connection *conn, const char *name, double scale, char **error);

/** Moves output `name`'s top-left corner in the desktop to (`x`, `y`) points (privileged). */
int lamina_connection_set_output_position(lamina_connection *conn, const char *name, int32_t x, int32_t y, char **error);

/**
 * Lights output `name` (`enabled` 1) or takes it out of the desktop, dark (0; privileged).
 * laminad refuses to disable the last output it draws on.
 */
int lamina_connection_set_output_enabled(lamina_connection *conn, const char *name, int enabled, char **error);

/**
 * Sets the backlight of output `output` (NULL or "": every output that has one) to `percent`
 * of its range, 0 to 100 (0 is the dimmest lit level, never off; privileged, as `laminactl
 * display brightness [OUTPUT] PERCENT`). LAMINA_ERROR_INVALID_ARGUMENT for a percent outside
 * 0…100; LAMINA_ERROR_SERVER naming what is missing (no backlight for that output, none at
 * all, an unknown output, a brightness file laminad may not write).
 */
int lamina_connection_set_brightness(lamina_connection *conn, const char *output, double percent, char **error);

/** An output's name and whether it is on. */
typedef struct lamina_output_state {
    const char *name;
    int on;
} lamina_output_state;

/** What lamina_connection_display_power() reports: the backend ("kms", "headless") and every output. */
typedef struct lamina_display_state {
    const char *backend;
    size_t count;
    lamina_output_state *outputs; /**< count entries (in the same allocation) */
} lamina_display_state;

/**
 * Turns the display's outputs off (0: DPMS off, blanked; touch wakes them) or on (1), `output`
 * naming one (NULL or "": every output). *state (when not NULL) gets the outputs' states
 * afterwards in one allocation, freed with lamina_free. LAMINA_ERROR_SERVER naming an unknown output.
 */
int lamina_connection_display_power(lamina_connection *conn, int on, const char *output, lamina_display_state **state,
                                    char **error);

/** Injected input events ("injections"), as laminactl input sends them. */
typedef enum lamina_injection {
    LAMINA_INJECT_TOUCH_DOWN = 1,
    LAMINA_INJECT_TOUCH_MOTION = 2,
    LAMINA_INJECT_TOUCH_UP = 3,
    LAMINA_INJECT_TOUCH_CANCEL = 4,
    LAMINA_INJECT_POINTER_MOTION = 5,
    LAMINA_INJECT_POINTER_BUTTON = 6,
    LAMINA_INJECT_SCROLL = 7,
    LAMINA_INJECT_KEY = 8,
} lamina_injection;

/**
 * Injects input as if a device sent it (privileged; for tests and remote control), routed like a
 * real event; returns once it was, the input events it caused already queued. Touches: `kind`
 * LAMINA_INJECT_TOUCH_DOWN/_MOTION take `id`, x and y in display points; _UP/_CANCEL only `id`.
 */
int lamina_connection_inject_touch(lamina_connection *conn, lamina_injection kind, int32_t id, double x, double y, char **error);
int lamina_connection_inject_pointer_motion(lamina_connection *conn, double x, double y, char **error);
/** `code`: the evdev button (BTN_LEFT 0x110, BTN_RIGHT 0x111, BTN_MIDDLE 0x112). */
int lamina_connection_inject_button(lamina_connection *conn, uint32_t code, int pressed, char **error);
int lamina_connection_inject_scroll(lamina_connection *conn, double horizontal, double vertical, char **error);
/** `name`: an xkb keysym name ("a", "Return", "space", "F1"), typed through laminad's keymap. */
int lamina_connection_inject_key(lamina_connection *conn, const char *name, int pressed, char **error);

/**
 * From now on LAMINA_EVENT_WATCH events carry a JSON line for each input event laminad delivers
 * to `session`'s layers (allowed to the session's owner and to privileged peers).
 */
int lamina_connection_listen(lamina_connection *conn, const char *session, char **error);

/** Takes the keyboard focus: key events come to this client until another takes it or receives a press. */
int lamina_connection_take_keyboard_focus(lamina_connection *conn, char **error);

/** laminad's tree as JSON (docs/protocol.md, "The tree JSON"); *json is freed with lamina_free. */
int lamina_connection_tree(lamina_connection *conn, char **json, char **error);

/* MARK: Reconnection */

/**
 * Connects again to the socket this connection was made on (laminad restarted, crashed or
 * dropped this client) and replays the model with actions disabled: every layer not destroyed,
 * with the last value set for each property, its sublayers in order, its actions; the images,
 * from their memory files as they are now; the animations still on their layers, re-timed so
 * that on the real clock each carries on where it would have been (on a virtual clock, from
 * where it was when the connection was lost). The replay goes in commits under laminad's
 * limits, and the call returns once laminad has applied them. A connection still open is
 * closed first. The socket changes: take lamina_connection_get_fd() again.
 * After it, dispatch reports LAMINA_EVENT_RECONNECTED; animations removed before the loss
 * whose stop never came stop (finished 0), and transactions committed before it complete.
 * Pending changes, and those of a transaction still open, go with the replay. An operation of
 * the replay that laminad refuses (a change it refused before the loss, which the model took in)
 * is left out and its commit sent again without it; the event's `text` says so.
 * LAMINA_OK; LAMINA_ERROR_CLOSED when laminad cannot be reached (try again later);
 * LAMINA_ERROR_SERVER when laminad still refused the replayed model (then the connection is
 * closed for good and automatic reconnection stops); LAMINA_ERROR_STATE for a connection made from a descriptor
 * or a call from a callback. *error says why. Not to be called from a callback.
 */
int lamina_connection_reconnect(lamina_connection *conn, char **error);

/**
 * Automatic reconnection: a call that finds laminad gone (commit, sync, the requests, dispatch,
 * flush) reconnects as lamina_connection_reconnect() does, up to `attempts` tries within that
 * call, waiting `initial_delay_ms` before the first and doubling the wait up to `max_delay_ms`;
 * the call then carries on (a request is asked again; a commit's changes were in the replay).
 * While laminad is away, changes are recorded in the model and go with the replay. Blocks for
 * the waits: a poll loop should keep the attempts and delays small. 0 attempts (the default)
 * turns it off. LAMINA_ERROR_STATE for a connection made from a descriptor.
 */
int lamina_connection_set_reconnect(lamina_connection *conn, int attempts, int initial_delay_ms, int max_delay_ms);

/* MARK: Poll-loop integration */

/** The socket to watch: POLLIN means call lamina_connection_dispatch(); POLLOUT (while flush says more remain) means call flush. -1 once closed. */
int lamina_connection_get_fd(const lamina_connection *conn);

/**
 * Reads what laminad has sent without blocking and runs the callbacks of the events in it.
 * Returns how many events were dispatched, or a negative lamina_status (LAMINA_ERROR_CLOSED
 * when laminad closed the connection, LAMINA_ERROR_PROTOCOL for bytes that are not a message).
 */
int lamina_connection_dispatch(lamina_connection *conn);

/** Writes queued bytes without blocking: 1 when more remain (wait for POLLOUT), 0 when all are written, or a negative lamina_status. */
int lamina_connection_flush(lamina_connection *conn);

/* MARK: Events and callbacks */

typedef enum lamina_event_type {
    LAMINA_EVENT_ANIMATION_STARTED = 1,
    LAMINA_EVENT_ANIMATION_STOPPED = 2,
    LAMINA_EVENT_TRANSACTION_COMPLETED = 3,
    LAMINA_EVENT_INPUT = 4,
    LAMINA_EVENT_CLOCK = 5,
    LAMINA_EVENT_WATCH = 6,
    LAMINA_EVENT_RECONNECTED = 7, /**< connected again and the model replayed (lamina_connection_reconnect, or automatically) */
    LAMINA_EVENT_SCROLL = 8,      /**< laminad scrolled a scroll layer of this client (scrolls_on_touch; 1.7) */
    LAMINA_EVENT_DISPLAY_CHANGED = 9, /**< laminad's outputs changed: display size and outputs (1.7) */
    LAMINA_EVENT_FRAME = 10,      /**< a display-link frame: the links' callbacks ran (1.7; lamina_display_link_create) */
    LAMINA_EVENT_TILES_WANTED = 11,   /**< laminad wants tiles of a tiled layer (after its provider was asked; 1.7) */
    LAMINA_EVENT_VIDEO = 12,      /**< a video of this client is ready, plays, paused, ended or failed (lamina_video_new; 1.6) */
    LAMINA_EVENT_APP_SURFACE = 13, /**< an app window appeared, changed or went (lamina_connection_manage_apps; 1.7) */
} lamina_event_type;

/** What a LAMINA_EVENT_APP_SURFACE says ("appSurfaceKinds"). */
typedef enum lamina_app_surface_kind {
    LAMINA_APP_SURFACE_APPEARED = 0, /**< a window is up (each one up when the client starts managing apps, then each new one) */
    LAMINA_APP_SURFACE_CHANGED = 1,  /**< its title, app id or size changed */
    LAMINA_APP_SURFACE_GONE = 2,     /**< it went: app_gone_reason says why */
} lamina_app_surface_kind;

/** Why an app window went ("appGoneReasons"). */
typedef enum lamina_app_gone_reason {
    LAMINA_APP_GONE_CLOSED = 0,  /**< the app closed the window and lives on (also the value for other kinds) */
    LAMINA_APP_GONE_EXITED = 1,  /**< the app's connection ended with the window up: it exited or crashed */
    LAMINA_APP_GONE_DROPPED = 2, /**< laminad dropped the app (a protocol error or a limit) */
} lamina_app_gone_reason;

/** An app window laminad hosts (a Wayland app), as a LAMINA_EVENT_APP_SURFACE tells it; its
 * strings are valid during the callback only. */
typedef struct lamina_app_surface {
    uint32_t id;          /**< laminad's number for it: lamina_layer_set_app_surface's */
    const char *app_id;   /**< xdg_toplevel's app id ("org.gnome.Calculator", "foot") */
    const char *title;
    int32_t pid;          /**< the app's process (0 when unknown) */
    uint32_t width, height; /**< the window's size in points */
} lamina_app_surface;

/** What a LAMINA_EVENT_VIDEO says ("videoEventKinds"). */
typedef enum lamina_video_event_kind {
    LAMINA_VIDEO_READY = 0,   /**< the first picture is decoded: video_width, video_height, video_duration (-1: unknown) */
    LAMINA_VIDEO_PLAYING = 1,
    LAMINA_VIDEO_PAUSED = 2,
    LAMINA_VIDEO_ENDED = 3,   /**< a video that does not loop reached its end (paused there) */
    LAMINA_VIDEO_ERROR = 4,   /**< it cannot play: text says why (it shows no further pictures) */
} lamina_video_event_kind;

/** A tile laminad wants (LAMINA_EVENT_TILES_WANTED): its column and row in the level's grid and
 * the whole tile's rectangle in the layer's bounds coordinates. */
typedef struct lamina_tile {
    uint32_t column, row;
    double x, y, width, height;
} lamina_tile;

/** One output as LAMINA_EVENT_DISPLAY_CHANGED tells it; valid during the callback only. */
typedef struct lamina_display_output {
    const char *name;              /**< the connector's name ("HDMI-A-1"; "headless") */
    double x, y, width, height;    /**< its rectangle in the desktop, in points */
    double scale;                  /**< pixels per point */
    const char *transform;         /**< "normal", "90", "180", "270", "flipped", "flipped-90", … ("outputTransforms") */
    double refresh;                /**< Hz; 0 where nothing paces it (headless) */
} lamina_display_output;

/** An event; valid during the callback only. */
typedef struct lamina_event {
    lamina_event_type type;
    lamina_layer *layer;       /**< the animation's or input's layer (NULL if not known to this connection) */
    uint32_t layer_number;     /**< its protocol number */
    const char *key;           /**< an animation's key ("" if unkeyed) */
    int finished;              /**< a stop: 1 when it ran to its end, 0 when removed or replaced */
    uint32_t group;            /**< a completed transaction's group */
    double time;               /**< clock events: the new time; input: the event's time */
    const char *text;          /**< watch: the JSON line; input: the text a key produced; reconnected: what the replay left out, if anything */
    /* input events */
    lamina_input_kind input_kind;
    int injected;
    int32_t id;                /**< a touch's id */
    double x, y;               /**< location in the layer's coordinates */
    double screen_x, screen_y;
    double delta_x, delta_y;
    uint32_t keysym;
    const char *key_name;
    int attempts;              /**< reconnected: the tries it took */
    /* scroll events (the layer's bounds origin has taken the offset: lamina_layer_get_bounds) */
    lamina_scroll_phase scroll_phase;
    int scroll_source;         /**< 0 touch, 1 wheel ("scrollSources") */
    double offset_x, offset_y; /**< the layer's bounds origin now */
    double velocity_x, velocity_y; /**< points per second */
    /* display-changed events (lamina_connection_display_size and the root's bounds have followed) */
    uint32_t display_width, display_height;  /**< the desktop's new size in points */
    size_t output_count;
    const lamina_display_output *outputs;    /**< output_count entries */
    /* frame events (display links; their callbacks have run): times in laminad's media time */
    double timestamp;          /**< the presentation time of the last frame */
    double target_timestamp;   /**< the presentation time of the frame being prepared */
    double duration;           /**< the output's refresh interval, seconds */
    size_t link_count;
    const uint32_t *links;     /**< the numbers of the links that fired (lamina_display_link_number) */
    /* tiles-wanted events */
    int32_t tile_level;        /**< 0 full resolution, 1 half, -1 twice, ... */
    size_t tile_count;
    const lamina_tile *tiles;  /**< tile_count entries */
    /* video events (text: an error's message) */
    lamina_video *video;       /**< the video (NULL once destroyed) */
    uint32_t video_number;     /**< its image number */
    lamina_video_event_kind video_event;
    uint32_t video_width, video_height;
    double video_duration;     /**< seconds; -1 unknown (a live stream) */
    /* app-surface events (1.7) */
    lamina_app_surface_kind app_surface_kind;
    lamina_app_surface app_surface; /**< the window as now (gone: as it was) */
    lamina_app_gone_reason app_gone_reason; /**< gone: why; LAMINA_APP_GONE_CLOSED otherwise */
} lamina_event;

typedef void (*lamina_event_callback)(const lamina_event *event, void *user);
typedef void (*lamina_completion_callback)(void *user);

/** Called with every event (after an animation's own callback). Callbacks run from dispatch, sync and requests, after the call's reading is done; they may use the connection. */
void lamina_connection_set_event_callback(lamina_connection *conn, lamina_event_callback callback, void *user);

/* MARK: Display links (CADisplayLink, protocol 1.7) */

/**
 * A display link: `callback` runs at each refresh of the output it follows while it is not
 * paused, from lamina_connection_dispatch (and sync and every request, like other callbacks),
 * with lamina_display_link_timestamp (the presentation time of the last frame),
 * lamina_display_link_target_timestamp (that of the frame being prepared: what the callback
 * changes is committed after it and shown then) and lamina_display_link_duration (the refresh
 * interval). After the callbacks of a frame the connection commits (an empty commit when they
 * changed nothing): that answers the frame; laminad sends no other until it is answered, so a
 * slow client gets the latest frame, never a backlog.
 */
typedef struct lamina_display_link lamina_display_link;
typedef void (*lamina_display_link_callback)(lamina_display_link *link, void *user);

/** CAFrameRateRange: frames per second, each 0 to 1000; all 0 is the output's own rate. */
typedef struct lamina_frame_rate_range {
    double minimum, maximum, preferred;
} lamina_frame_rate_range;

/**
 * A link running at once, following `output` (an output's name; NULL or "" the fastest).
 * NULL on failure, with the reason in *error (free it): laminad older than 1.7, an unknown
 * output, the budget (max_display_links_per_client).
 */
lamina_display_link *lamina_display_link_create(lamina_connection *conn, const char *output,
                                                lamina_display_link_callback callback, void *user, char **error);
/** Pauses (1) or resumes (0) the link: a paused link gets no callbacks and keeps no frames coming. */
int lamina_display_link_set_paused(lamina_display_link *link, int paused, char **error);
int lamina_display_link_is_paused(const lamina_display_link *link);
/** The rates the callbacks would like; LAMINA_ERROR_SERVER with laminad's reason for a bad range (the old one stays). */
int lamina_display_link_set_preferred_frame_rate_range(lamina_display_link *link, lamina_frame_rate_range range, char **error);
lamina_frame_rate_range lamina_display_link_preferred_frame_rate_range(const lamina_display_link *link);
/** Follows another output (NULL or "": the fastest). */
int lamina_display_link_set_output(lamina_display_link *link, const char *output, char **error);
double lamina_display_link_timestamp(const lamina_display_link *link);
double lamina_display_link_target_timestamp(const lamina_display_link *link);
double lamina_display_link_duration(const lamina_display_link *link);
/** Callbacks run so far. */
uint64_t lamina_display_link_frame_count(const lamina_display_link *link);
/** Its number on the connection (as LAMINA_EVENT_FRAME's links name it). */
uint32_t lamina_display_link_number(const lamina_display_link *link);
/** Stops the link for good and frees it (also from its own callback). Closing the connection frees the links left. */
void lamina_display_link_invalidate(lamina_display_link *link);

/* MARK: App windows as layer contents (protocol 1.7) */

/**
 * Manages the Wayland apps laminad hosts (a privileged request): app windows are no longer
 * shown full screen (kiosk mode) but where this client's layers show them
 * (lamina_layer_set_app_surface), with everything layers do, sized to those layers' bounds
 * (LAMINA_PROPERTY_APP_SIZING), input landing on them going to the apps. A LAMINA_EVENT_APP_SURFACE
 * "appeared" is queued for each window up before this returns (dispatched with the next
 * dispatch, sync or request), then one for each new window, "changed" when a title, app id or
 * size changes, and "gone" (with why) when one goes. Kept across reconnections (managed again
 * on the new connection). LAMINA_ERROR_SERVER with laminad's reason when it refuses (not
 * privileged); LAMINA_ERROR_INVALID_ARGUMENT for a laminad older than 1.7.
 */
int lamina_connection_manage_apps(lamina_connection *conn, char **error);
/** Stops managing apps; kiosk mode comes back once no client manages them. */
int lamina_connection_stop_managing_apps(lamina_connection *conn, char **error);
/** Gives app window `app` the keyboard (its keys go to it until a press lands elsewhere); 0 takes
 * it back to this client. Refused for a window that is not up, or while not managing apps. */
int lamina_connection_focus_app(lamina_connection *conn, uint32_t app, char **error);
/** Asks app window `app` to close (xdg_toplevel.close): the app decides; a "gone" event follows if it does. */
int lamina_connection_close_app(lamina_connection *conn, uint32_t app, char **error);
/** Shows app window `app` (an event's app_surface.id) as the layer's contents, as Core Animation
 * shows an IOSurface: LAMINA_PROPERTY_APP_SURFACE `app` and no image contents. 0 stops showing
 * it. Setting an image or a video as contents (lamina_layer_set_contents, _set_video) stops too. */
int lamina_layer_set_app_surface(lamina_layer *layer, uint32_t app);

/* MARK: Layers */

/** A new plain layer (CALayer) on the connection, in no tree. NULL when out of memory or the connection is closed. */
lamina_layer *lamina_layer_new(lamina_connection *conn);

/** A new layer of another kind (gradient, shape, text, replicator, transform). */
lamina_layer *lamina_layer_new_kind(lamina_connection *conn, lamina_layer_kind kind);

/** The layer's protocol number (0 for the root). */
uint32_t lamina_layer_number(const lamina_layer *layer);

/** Destroys the layer in laminad (with the next commit) and frees the handle. Not the root. */
int lamina_layer_destroy(lamina_layer *layer);

int lamina_layer_add_sublayer(lamina_layer *parent, lamina_layer *child);
/** Inserts at `index` among the parent's sublayers (past the end appends). */
int lamina_layer_insert_sublayer(lamina_layer *parent, lamina_layer *child, uint32_t index);
int lamina_layer_remove_from_superlayer(lamina_layer *layer);

/*
 * Scroll layers (LAMINA_LAYER_KIND_SCROLL, CAScrollLayer). With LAMINA_PROPERTY_SCROLLS_ON_TOUCH
 * set laminad scrolls the layer itself by touch and wheel (momentum, rubber band, paging) and
 * reports LAMINA_EVENT_SCROLL; setting the bounds while it scrolls ends its scroll.
 */

/** scrollToPoint: the bounds origin to (x, y) on the axes the layer's scroll mode allows (its bounds' other values kept). */
int lamina_layer_scroll_to(lamina_layer *layer, double x, double y);
/** scrollToRect: the origin moved as little as shows the rectangle (in the layer's bounds coordinates). */
int lamina_layer_scroll_to_rect(lamina_layer *layer, double x, double y, double width, double height);
/** scrollPoint: scrolls the nearest scroll layer above `layer` so that (x, y), in `layer`'s
 * coordinates, lies at its origin; does nothing outside a scroll layer. */
int lamina_layer_scroll_point(lamina_layer *layer, double x, double y);
/** scrollRectToVisible: scrolls the nearest scroll layer above `layer` as little as shows the
 * rectangle (in `layer`'s coordinates); does nothing outside a scroll layer. */
int lamina_layer_scroll_rect_to_visible(lamina_layer *layer, double x, double y, double width, double height);
/** visibleRect: the part of `layer`'s bounds the nearest scroll layer above it shows, in
 * `layer`'s coordinates, into out[4]; its bounds outside a scroll layer; a zero size where
 * none of it shows. */
int lamina_layer_visible_rect(lamina_layer *layer, double out[4]);
/**
 * The layer's bounds as last set (the root's: the display's), with the origin laminad last
 * reported for a scroll it drove since (LAMINA_EVENT_SCROLL). bounds[4]: x, y, width, height.
 */
int lamina_layer_get_bounds(const lamina_layer *layer, double bounds[4]);

/* Convenience setters. */
int lamina_layer_set_bounds(lamina_layer *layer, double x, double y, double width, double height);
int lamina_layer_set_position(lamina_layer *layer, double x, double y);
/** Straight-alpha components in [0, 1]. */
int lamina_layer_set_background_color(lamina_layer *layer, double red, double green, double blue, double alpha);
int lamina_layer_set_corner_radius(lamina_layer *layer, double radius);
int lamina_layer_set_opacity(lamina_layer *layer, double opacity);
/** The image shown as the layer's contents; NULL for none. */
int lamina_layer_set_contents(lamina_layer *layer, lamina_image *image);
/** How the layer, drawn with its sublayers as one group, blends with what lies behind it
 * (CALayer.compositingFilter): one of Core Image's blend mode names, "multiplyBlendMode",
 * "screenBlendMode", "overlayBlendMode", "darkenBlendMode", "lightenBlendMode",
 * "colorDodgeBlendMode", "colorBurnBlendMode", "softLightBlendMode", "hardLightBlendMode",
 * "differenceBlendMode", "exclusionBlendMode", "plusLighter", "plusDarker"; NULL (or "") for
 * normal compositing. laminad refuses another name, naming it and the valid ones. Protocol 1.7. */
int lamina_layer_set_compositing_filter(lamina_layer *layer, const char *blend_mode);
/** The corners' shape (CALayer.cornerCurve): "circular" (the default) or "continuous", Apple's
 * smoother corner, for background, border, shadow and masksToBounds alike. Protocol 1.7. */
int lamina_layer_set_corner_curve(lamina_layer *layer, const char *curve);

/* Generic setters by protocol number: LAMINA_ERROR_INVALID_ARGUMENT when the property's type differs. */
int lamina_layer_set_number(lamina_layer *layer, lamina_property property, double value);
int lamina_layer_set_point(lamina_layer *layer, lamina_property property, double x, double y);
int lamina_layer_set_size(lamina_layer *layer, lamina_property property, double width, double height);
int lamina_layer_set_rect(lamina_layer *layer, lamina_property property, double x, double y, double width, double height);
int lamina_layer_set_color(lamina_layer *layer, lamina_property property, double red, double green, double blue, double alpha);
int lamina_layer_set_bool(lamina_layer *layer, lamina_property property, int value);
/** 16 numbers m11 m12 m13 m14 m21 ... m44 (CATransform3D, row vectors). */
int lamina_layer_set_transform(lamina_layer *layer, lamina_property property, const double m[16]);
int lamina_layer_set_string(lamina_layer *layer, lamina_property property, const char *value);
int lamina_layer_set_number_list(lamina_layer *layer, lamina_property property, const double *values, size_t count);
/** `count` colours of 4 numbers each. */
int lamina_layer_set_color_list(lamina_layer *layer, lamina_property property, const double *rgba, size_t count);
/** A path property (path, shadowPath); NULL for the empty path. */
int lamina_layer_set_path(lamina_layer *layer, lamina_property property, const lamina_path *path);
/** A layer property (mask); NULL for none. */
int lamina_layer_set_layer(lamina_layer *layer, lamina_property property, const lamina_layer *value);
/** An image or layer property by wire number (0 for none), for what the handles do not cover. */
int lamina_layer_set_reference(lamina_layer *layer, lamina_property property, uint32_t number);

/** Emitter cell fields (CAEmitterCell; "emitterCells" "fields" in protocol/lamina-protocol.json). */
typedef enum lamina_cell_field {
    LAMINA_CELL_NAME = 1,
    LAMINA_CELL_ENABLED = 2,
    LAMINA_CELL_BIRTH_RATE = 3,
    LAMINA_CELL_LIFETIME = 4,
    LAMINA_CELL_LIFETIME_RANGE = 5,
    LAMINA_CELL_VELOCITY = 6,
    LAMINA_CELL_VELOCITY_RANGE = 7,
    LAMINA_CELL_X_ACCELERATION = 8,
    LAMINA_CELL_Y_ACCELERATION = 9,
    LAMINA_CELL_Z_ACCELERATION = 10,
    LAMINA_CELL_EMISSION_LATITUDE = 11,
    LAMINA_CELL_EMISSION_LONGITUDE = 12,
    LAMINA_CELL_EMISSION_RANGE = 13,
    LAMINA_CELL_SPIN = 14,
    LAMINA_CELL_SPIN_RANGE = 15,
    LAMINA_CELL_SCALE = 16,
    LAMINA_CELL_SCALE_RANGE = 17,
    LAMINA_CELL_SCALE_SPEED = 18,
    LAMINA_CELL_COLOR = 19,
    LAMINA_CELL_RED_RANGE = 20,
    LAMINA_CELL_GREEN_RANGE = 21,
    LAMINA_CELL_BLUE_RANGE = 22,
    LAMINA_CELL_ALPHA_RANGE = 23,
    LAMINA_CELL_RED_SPEED = 24,
    LAMINA_CELL_GREEN_SPEED = 25,
    LAMINA_CELL_BLUE_SPEED = 26,
    LAMINA_CELL_ALPHA_SPEED = 27,
    LAMINA_CELL_CONTENTS = 28,
    LAMINA_CELL_CONTENTS_RECT = 29,
    LAMINA_CELL_CONTENTS_SCALE = 30,
    LAMINA_CELL_MINIFICATION_FILTER = 31,
    LAMINA_CELL_MAGNIFICATION_FILTER = 32,
    LAMINA_CELL_BEGIN_TIME = 33,
    LAMINA_CELL_DURATION = 34,
    LAMINA_CELL_SPEED = 35,
    LAMINA_CELL_TIME_OFFSET = 36,
    LAMINA_CELL_REPEAT_COUNT = 37,
    LAMINA_CELL_REPEAT_DURATION = 38,
    LAMINA_CELL_AUTOREVERSES = 39,
    LAMINA_CELL_FILL_MODE = 40,
} lamina_cell_field;

/**
 * An emitter cell being built (CAEmitterCell): fields set by number, sub-cells added by copy.
 * Give a list of them to lamina_layer_set_emitter_cells(); the layer takes a copy, so a cell
 * may be changed and set again, and must be freed with lamina_emitter_cell_destroy().
 */
typedef struct lamina_emitter_cell lamina_emitter_cell;
lamina_emitter_cell *lamina_emitter_cell_create(const char *name);
void lamina_emitter_cell_destroy(lamina_emitter_cell *cell);
/** A number field (birthRate, velocity, ...); LAMINA_ERROR_INVALID_ARGUMENT for another type. */
int lamina_emitter_cell_set_number(lamina_emitter_cell *cell, lamina_cell_field field, double value);
int lamina_emitter_cell_set_bool(lamina_emitter_cell *cell, lamina_cell_field field, int value);
int lamina_emitter_cell_set_string(lamina_emitter_cell *cell, lamina_cell_field field, const char *value);
/** `color` (straight alpha, each in [0, 1]). */
int lamina_emitter_cell_set_color(lamina_emitter_cell *cell, double red, double green, double blue, double alpha);
int lamina_emitter_cell_set_rect(lamina_emitter_cell *cell, lamina_cell_field field, double x, double y, double width,
                                 double height);
/** `contents`: an image's number (lamina_image_number()), 0 for none. */
int lamina_emitter_cell_set_contents(lamina_emitter_cell *cell, uint32_t image);
/** Adds a copy of `child` (as it is now) to the cell's own emitterCells. */
int lamina_emitter_cell_add_cell(lamina_emitter_cell *cell, const lamina_emitter_cell *child);
/** Sets an emitter layer's emitterCells to copies of `cells` (count 0: none). */
int lamina_layer_set_emitter_cells(lamina_layer *layer, const lamina_emitter_cell *const *cells, size_t count);

/**
 * Sets the layer's layout constraints (LAMINA_PROPERTY_CONSTRAINTS; at most 16, replacing the
 * list; count 0 clears it). The strings are copied. LAMINA_ERROR_INVALID_ARGUMENT for an
 * attribute out of range, a non-finite scale or offset, or more than 16.
 */
int lamina_layer_set_constraints(lamina_layer *layer, const lamina_constraint *constraints, size_t count);

/** Filter types ("filters" in lamina-protocol.json), each with Core Image's one input. */
typedef enum lamina_filter_type {
    LAMINA_FILTER_GAUSSIAN_BLUR = 1, /**< inputRadius: 0–64 points (σ = radius / 3) */
    LAMINA_FILTER_COLOR_MATRIX = 2,  /**< inputMatrix: 20 numbers, CIColorMatrix's R, G, B, A vectors then the bias */
    LAMINA_FILTER_SATURATE = 3,      /**< inputAmount: 0 grey, 1 unchanged */
    LAMINA_FILTER_BRIGHTNESS = 4,    /**< inputAmount: added to red, green and blue */
    LAMINA_FILTER_CONTRAST = 5,      /**< inputAmount: scaled about 0.5 */
    LAMINA_FILTER_INVERT = 6,        /**< no input */
    LAMINA_FILTER_HUE_ROTATE = 7,    /**< inputAngle: radians */
} lamina_filter_type;

/** One of a layer's filters: a name for key paths ("filters.NAME.inputRadius"), a type and its
 * input's numbers (1; 20 for LAMINA_FILTER_COLOR_MATRIX; 0 for LAMINA_FILTER_INVERT). */
typedef struct lamina_filter {
    const char *name;
    lamina_filter_type type;
    const double *values;
    size_t value_count;
} lamina_filter;

/**
 * Sets the layer's filters (CALayer.filters, protocol 1.7): applied in order to the layer and its
 * sublayers drawn as one group. At most 8; the input count must be the type's. laminad checks the
 * ranges (a blur's radius 0–64) and refuses bad values naming the filter. Animate an input with
 * a basic animation on "filters.NAME.inputRadius" (or inputAmount, inputAngle, inputMatrix).
 * Returns 0 or LAMINA_ERROR_INVALID_ARGUMENT.
 */
int lamina_layer_set_filters(lamina_layer *layer, const lamina_filter *filters, size_t count);

/**
 * Sets the layer's background filters (CALayer.backgroundFilters, protocol 1.7): the same filters
 * applied to what lies behind the layer inside its bounds, clipped by its corners and mask, before
 * the layer draws (a blur under a translucent background colour is frosted glass). The same
 * limits as lamina_layer_set_filters(); inputs animate by "backgroundFilters.NAME.inputRadius".
 * Returns 0 or LAMINA_ERROR_INVALID_ARGUMENT.
 */
int lamina_layer_set_background_filters(lamina_layer *layer, const lamina_filter *filters, size_t count);
/* Drawings (protocol 1.7, docs/protocol.md "Drawings"): a lamina_drawing records the commands
 * of a CGContext-style context (lamina_draw_*), and lamina_layer_set_drawing() sends them as the
 * layer's contents; laminad rasterises them with cairo at the scale the layer is shown.
 * Coordinates are the layer's bounds, y down; angles radians from +x towards +y. A
 * lamina_draw_* call returns 0, or LAMINA_ERROR_INVALID_ARGUMENT for a NULL drawing, a name it
 * does not know, more than 64 dash entries or gradient stops, or after an allocation failed (the
 * drawing then stays failed and lamina_layer_set_drawing() refuses it). laminad checks the rest
 * (budgets, ranges, save/restore balance) and refuses a bad drawing naming the command. */

/** The opcodes ("drawing.ops" in lamina-protocol.json), for lamina_draw_command(). */
typedef enum lamina_draw_op {
    LAMINA_DRAW_SAVE_GSTATE = 1,
    LAMINA_DRAW_RESTORE_GSTATE = 2,
    LAMINA_DRAW_TRANSLATE_BY = 3,
    LAMINA_DRAW_SCALE_BY = 4,
    LAMINA_DRAW_ROTATE_BY = 5,
    LAMINA_DRAW_CONCATENATE = 6,
    LAMINA_DRAW_BEGIN_PATH = 10,
    LAMINA_DRAW_MOVE = 11,
    LAMINA_DRAW_ADD_LINE = 12,
    LAMINA_DRAW_ADD_QUAD_CURVE = 13,
    LAMINA_DRAW_ADD_CURVE = 14,
    LAMINA_DRAW_ADD_ARC = 15,
    LAMINA_DRAW_ADD_RECT = 16,
    LAMINA_DRAW_ADD_ROUNDED_RECT = 17,
    LAMINA_DRAW_ADD_ELLIPSE = 18,
    LAMINA_DRAW_CLOSE_PATH = 19,
    LAMINA_DRAW_ADD_PATH = 20,
    LAMINA_DRAW_FILL_PATH = 30,
    LAMINA_DRAW_STROKE_PATH = 31,
    LAMINA_DRAW_CLIP = 32,
    LAMINA_DRAW_FILL_RECT = 33,
    LAMINA_DRAW_STROKE_RECT = 34,
    LAMINA_DRAW_CLEAR_RECT = 35,
    LAMINA_DRAW_FILL_ELLIPSE = 36,
    LAMINA_DRAW_STROKE_ELLIPSE = 37,
    LAMINA_DRAW_SET_FILL_COLOR = 50,
    LAMINA_DRAW_SET_STROKE_COLOR = 51,
    LAMINA_DRAW_SET_LINE_WIDTH = 52,
    LAMINA_DRAW_SET_LINE_CAP = 53,
    LAMINA_DRAW_SET_LINE_JOIN = 54,
    LAMINA_DRAW_SET_MITER_LIMIT = 55,
    LAMINA_DRAW_SET_LINE_DASH = 56,
    LAMINA_DRAW_SET_ALPHA = 57,
    LAMINA_DRAW_SET_BLEND_MODE = 58,
    LAMINA_DRAW_SET_SHADOW = 59,
    LAMINA_DRAW_DRAW_LINEAR_GRADIENT = 70,
    LAMINA_DRAW_DRAW_RADIAL_GRADIENT = 71,
    LAMINA_DRAW_SHOW_TEXT = 72,
    LAMINA_DRAW_DRAW_IMAGE = 73,
} lamina_draw_op;

typedef struct lamina_drawing lamina_drawing;

/** A gradient stop: a location in [0, 1] and a colour. */
typedef struct lamina_gradient_stop {
    double location;
    double red, green, blue, alpha;
} lamina_gradient_stop;

/** A new, empty drawing; NULL when out of memory. */
lamina_drawing *lamina_drawing_new(void);
/** Frees a drawing (NULL is fine). */
void lamina_drawing_free(lamina_drawing *drawing);
/** Empties a drawing, to record it again. */
void lamina_drawing_clear(lamina_drawing *drawing);
/** The number of commands recorded. */
size_t lamina_drawing_count(const lamina_drawing *drawing);
/** Sets the layer's drawing (LAMINA_PROPERTY_DRAWING; NULL or empty: none). The bytes are copied. */
int lamina_layer_set_drawing(lamina_layer *layer, const lamina_drawing *drawing);

/** Any command: its op, its numbers in the protocol's order and its strings. */
int lamina_draw_command(lamina_drawing *d, lamina_draw_op op, const double *numbers, size_t count,
                        const char *const *strings, size_t string_count);

int lamina_draw_save_gstate(lamina_drawing *d);
int lamina_draw_restore_gstate(lamina_drawing *d);
int lamina_draw_translate_by(lamina_drawing *d, double x, double y);
int lamina_draw_scale_by(lamina_drawing *d, double x, double y);
int lamina_draw_rotate_by(lamina_drawing *d, double angle);
/** x' = a·x + c·y + tx, y' = b·x + d·y + ty. */
int lamina_draw_concatenate(lamina_drawing *d, double a, double b, double c, double dd, double tx, double ty);
int lamina_draw_begin_path(lamina_drawing *d);
int lamina_draw_move(lamina_drawing *d, double x, double y);
int lamina_draw_add_line(lamina_drawing *d, double x, double y);
int lamina_draw_add_quad_curve(lamina_drawing *d, double x, double y, double cx, double cy);
int lamina_draw_add_curve(lamina_drawing *d, double x, double y, double c1x, double c1y, double c2x, double c2y);
/** clockwise 0 sweeps towards increasing angles. */
int lamina_draw_add_arc(lamina_drawing *d, double cx, double cy, double radius, double start_angle, double end_angle,
                        int clockwise);
int lamina_draw_add_rect(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_add_rounded_rect(lamina_drawing *d, double x, double y, double w, double h, double corner_width,
                                 double corner_height);
int lamina_draw_add_ellipse(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_close_path(lamina_drawing *d);
/** SVG path data: "M 0 0 L 10 10 Q … C … Z" (M, L, H, V, Q, C, Z; lower case relative). */
int lamina_draw_add_path(lamina_drawing *d, const char *svg);
/** rule: "non-zero" (or NULL) or "even-odd". */
int lamina_draw_fill_path(lamina_drawing *d, const char *rule);
int lamina_draw_stroke_path(lamina_drawing *d);
int lamina_draw_clip(lamina_drawing *d, const char *rule);
int lamina_draw_fill_rect(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_stroke_rect(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_clear_rect(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_fill_ellipse(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_stroke_ellipse(lamina_drawing *d, double x, double y, double w, double h);
int lamina_draw_set_fill_color(lamina_drawing *d, double red, double green, double blue, double alpha);
int lamina_draw_set_stroke_color(lamina_drawing *d, double red, double green, double blue, double alpha);
int lamina_draw_set_line_width(lamina_drawing *d, double width);
/** "butt", "round" or "square". */
int lamina_draw_set_line_cap(lamina_drawing *d, const char *cap);
/** "miter", "round" or "bevel". */
int lamina_draw_set_line_join(lamina_drawing *d, const char *join);
int lamina_draw_set_miter_limit(lamina_drawing *d, double limit);
/** Dashes of `lengths` (on, off, …) from `phase`; count 0: solid. */
int lamina_draw_set_line_dash(lamina_drawing *d, double phase, const double *lengths, size_t count);
int lamina_draw_set_alpha(lamina_drawing *d, double alpha);
/** CGBlendMode's names: "normal", "multiply", "screen", … ("drawing.names.blendMode"). */
int lamina_draw_set_blend_mode(lamina_drawing *d, const char *mode);
/** A shadow under what is painted later; offset and blur in points, unaffected by the CTM. */
int lamina_draw_set_shadow(lamina_drawing *d, double dx, double dy, double blur, double red, double green, double blue,
                           double alpha);
/** options: bit 1 draws before the start, bit 2 after the end (CGGradientDrawingOptions). */
int lamina_draw_linear_gradient(lamina_drawing *d, const lamina_gradient_stop *stops, size_t count, double x0, double y0,
                                double x1, double y1, int options);
int lamina_draw_radial_gradient(lamina_drawing *d, const lamina_gradient_stop *stops, size_t count, double x0, double y0,
                                double r0, double x1, double y1, double r1, int options);
/** A client image (of the layer's connection) stretched over the rectangle, upright. */
int lamina_draw_image(lamina_drawing *d, const lamina_image *image, double x, double y, double w, double h);
/** `text` in the fill colour, its baseline from (x, y); font as text layers name them (NULL: Helvetica). */
int lamina_draw_show_text(lamina_drawing *d, const char *text, double x, double y, const char *font, double size);
/** One run of a text layer's attributed string: text and how it looks. Zeroed fields take the
 * layer's (font NULL or "": its font; font_size 0: its size; weight 0: its font's weight) or the
 * plain default (upright, no lines, no spacing, on the baseline). has_color 0 draws in the layer's
 * foreground colour; has_background_color 0 paints no background. */
typedef struct lamina_text_run {
    const char *text;
    const char *font;
    double font_size;
    double weight; /**< CSS/OpenType weight: 1–1000, 400 regular, 700 bold */
    int italic;
    int has_color;
    double color[4]; /**< red, green, blue, alpha in [0, 1] */
    int has_background_color;
    double background_color[4];
    int underline;
    int strikethrough;
    double kerning;         /**< points added after each character */
    double baseline_offset; /**< points the run is raised */
} lamina_text_run;

/**
 * Sets a text layer's attributed string (CATextLayer.string as an NSAttributedString, protocol
 * 1.7): the runs' text joined is drawn, each run in its own look, instead of the string. At most
 * 256 runs and 65536 bytes of text in all; colours in [0, 1]; weights 0 or 1–1000; sizes,
 * kerning and offsets finite. Returns 0 or LAMINA_ERROR_INVALID_ARGUMENT (nothing sent).
 */
int lamina_layer_set_attributed_string(lamina_layer *layer, const lamina_text_run *runs, size_t count);

/** The protocol name of a server error code ("invalid-property"), or NULL. */
const char *lamina_server_error_name(int code);

/** The value type of a property, or 0 for a number that names none. */
lamina_value_type lamina_property_type(int property);
/** The protocol name of a property ("backgroundColor"), or NULL. */
const char *lamina_property_name(int property);

/**
 * The layer's presentation value now (animations applied), for number, point, size, rect,
 * colour, transform and bool properties: up to `count` numbers into `values` (1, 2, 2, 4, 4,
 * 16, 1). Asks laminad (a round trip).
 */
int lamina_layer_presentation(lamina_layer *layer, lamina_property property, double *values, size_t count,
                              char **error);

/* MARK: Paths */

lamina_path *lamina_path_new(void);
void lamina_path_free(lamina_path *path);
int lamina_path_move_to(lamina_path *path, double x, double y);
int lamina_path_line_to(lamina_path *path, double x, double y);
int lamina_path_quad_curve_to(lamina_path *path, double cx, double cy, double x, double y);
int lamina_path_curve_to(lamina_path *path, double c1x, double c1y, double c2x, double c2y, double x, double y);
int lamina_path_close(lamina_path *path);

/* MARK: Transactions (CATransaction) */

/**
 * Opens a transaction: changes until the matching lamina_transaction_commit() are sent
 * together when the outermost one ends, and animate implicitly with its settings. Unset
 * settings are inherited from the enclosing transaction (defaults: 0.25 s, laminad's default
 * curve, actions on).
 */
int lamina_transaction_begin(lamina_connection *conn);
int lamina_transaction_set_duration(lamina_connection *conn, double seconds);
/** "linear", "easeIn", "easeOut", "easeInEaseOut" or "default"; NULL: none (laminad's default curve). */
int lamina_transaction_set_timing_function(lamina_connection *conn, const char *name);
/** A cubic Bézier timing curve through control points (c1x, c1y) and (c2x, c2y). */
int lamina_transaction_set_timing_curve(lamina_connection *conn, double c1x, double c1y, double c2x, double c2y);
int lamina_transaction_set_disable_actions(lamina_connection *conn, int disable);
/** Called once every animation added in this transaction has stopped (from a later dispatch, sync or request). */
int lamina_transaction_set_completion(lamina_connection *conn, lamina_completion_callback callback, void *user);
/** Closes the innermost transaction; the outermost one's end sends the commit. */
int lamina_transaction_commit(lamina_connection *conn);

/* MARK: Explicit animations */

/** A CABasicAnimation on `key_path` ("opacity", "position.x", ...). NULL when out of memory or the key path is over 256 bytes. */
lamina_animation *lamina_animation_basic_new(const char *key_path);
void lamina_animation_free(lamina_animation *animation);
int lamina_animation_set_from_number(lamina_animation *animation, double value);
int lamina_animation_set_to_number(lamina_animation *animation, double value);
int lamina_animation_set_by_number(lamina_animation *animation, double value);
/** Point-valued from/to ("position"). */
int lamina_animation_set_from_point(lamina_animation *animation, double x, double y);
int lamina_animation_set_to_point(lamina_animation *animation, double x, double y);
/** Colour-valued from/to ("backgroundColor"). */
int lamina_animation_set_from_color(lamina_animation *animation, double r, double g, double b, double a);
int lamina_animation_set_to_color(lamina_animation *animation, double r, double g, double b, double a);
/** 0 takes the transaction's duration. */
int lamina_animation_set_duration(lamina_animation *animation, double seconds);
int lamina_animation_set_begin_time(lamina_animation *animation, double seconds);
int lamina_animation_set_speed(lamina_animation *animation, double speed);
int lamina_animation_set_time_offset(lamina_animation *animation, double seconds);
/** INFINITY repeats forever. */
int lamina_animation_set_repeat_count(lamina_animation *animation, double count);
int lamina_animation_set_repeat_duration(lamina_animation *animation, double seconds);
int lamina_animation_set_autoreverses(lamina_animation *animation, int autoreverses);
int lamina_animation_set_fill_mode(lamina_animation *animation, lamina_fill_mode mode);
/** A named curve (as lamina_transaction_set_timing_function); NULL: linear (none). */
int lamina_animation_set_timing_function(lamina_animation *animation, const char *name);
int lamina_animation_set_timing_curve(lamina_animation *animation, double c1x, double c1y, double c2x, double c2y);
int lamina_animation_set_removed_on_completion(lamina_animation *animation, int removed);
int lamina_animation_set_additive(lamina_animation *animation, int additive);
int lamina_animation_set_cumulative(lamina_animation *animation, int cumulative);
int lamina_animation_set_value_function(lamina_animation *animation, lamina_value_function function);
/** Called when the animation starts and stops (LAMINA_EVENT_ANIMATION_STARTED / _STOPPED). */
int lamina_animation_set_callback(lamina_animation *animation, lamina_event_callback callback, void *user);

/** Adds a copy of `animation` under `key` (NULL or "": unkeyed), replacing one with the same key. */
int lamina_layer_add_animation(lamina_layer *layer, const lamina_animation *animation, const char *key);
int lamina_layer_remove_animation(lamina_layer *layer, const char *key);
int lamina_layer_remove_all_animations(lamina_layer *layer);

/** Transition types and subtypes ("animations.transitionTypes", "transitionSubtypes"). */
typedef enum lamina_transition_type {
    LAMINA_TRANSITION_FADE = 0,
    LAMINA_TRANSITION_MOVE_IN = 1,
    LAMINA_TRANSITION_PUSH = 2,
    LAMINA_TRANSITION_REVEAL = 3,
} lamina_transition_type;

typedef enum lamina_transition_subtype {
    LAMINA_TRANSITION_SUBTYPE_NONE = 0,
    LAMINA_TRANSITION_SUBTYPE_FROM_LEFT = 1,
    LAMINA_TRANSITION_SUBTYPE_FROM_RIGHT = 2,
    LAMINA_TRANSITION_SUBTYPE_FROM_TOP = 3,
    LAMINA_TRANSITION_SUBTYPE_FROM_BOTTOM = 4,
} lamina_transition_subtype;

/** A CASpringAnimation on `key_path`: a basic animation (the same setters) whose progress follows a damped spring (mass 1, stiffness 100, damping 10, initial velocity 0). */
lamina_animation *lamina_animation_spring_new(const char *key_path);
/** The spring's parameters (LAMINA_ERROR_INVALID_ARGUMENT for an animation that is not a spring). */
int lamina_animation_set_spring(lamina_animation *animation, double mass, double stiffness, double damping,
                                double initial_velocity);
/** A CATransition (add it under any key, "transition" by custom): the layer's new contents come in by `type` from `subtype`. */
lamina_animation *lamina_animation_transition_new(lamina_transition_type type, lamina_transition_subtype subtype);
/** The part of the transition to run (0 and 1 by default). */
int lamina_animation_set_transition_progress(lamina_animation *animation, double start, double end);

/** A keyframe animation's interpolation between values ("animations.calculationModes"). */
typedef enum lamina_calculation_mode {
    LAMINA_CALCULATION_LINEAR = 0,
    LAMINA_CALCULATION_DISCRETE = 1,
    LAMINA_CALCULATION_PACED = 2,
    LAMINA_CALCULATION_CUBIC = 3,
    LAMINA_CALCULATION_CUBIC_PACED = 4,
} lamina_calculation_mode;

/** Whether a keyframe animation along a path turns the layer with it ("animations.rotationModes"). */
typedef enum lamina_rotation_mode {
    LAMINA_ROTATION_NONE = 0,
    LAMINA_ROTATION_AUTO = 1,
    LAMINA_ROTATION_AUTO_REVERSE = 2,
} lamina_rotation_mode;

/**
 * A CAKeyframeAnimation on `key_path`: its values (or a path, for a point key path) at its key
 * times. The media-timing setters above apply, and additive, cumulative and value function.
 */
lamina_animation *lamina_animation_keyframe_new(const char *key_path);
/**
 * Appends a keyframe value of `type` from `count` numbers: number 1, point 2, size 2, rect 4,
 * colour 4 (each in [0, 1]), transform 16 (row-major, as lamina_layer_set_transform), bool 1.
 * LAMINA_ERROR_INVALID_ARGUMENT for another type or count, or an animation that is not a keyframe one.
 */
int lamina_animation_add_value(lamina_animation *animation, lamina_value_type type, const double *components, size_t count);
int lamina_animation_add_number(lamina_animation *animation, double value);
int lamina_animation_add_point(lamina_animation *animation, double x, double y);
int lamina_animation_add_color(lamina_animation *animation, double r, double g, double b, double a);
/** The path the value follows (copied; NULL: none), instead of the values. */
int lamina_animation_set_keyframe_path(lamina_animation *animation, const lamina_path *path);
/** keyTimes, in [0, 1] and rising (NULL: none, spread evenly). */
int lamina_animation_set_key_times(lamina_animation *animation, const double *times, size_t count);
/** Appends a timing function between two keyframes, by name (as lamina_animation_set_timing_function) or by its control points. */
int lamina_animation_add_keyframe_timing_function(lamina_animation *animation, const char *name);
int lamina_animation_add_keyframe_timing_curve(lamina_animation *animation, double c1x, double c1y, double c2x, double c2y);
int lamina_animation_set_calculation_mode(lamina_animation *animation, lamina_calculation_mode mode);
int lamina_animation_set_rotation_mode(lamina_animation *animation, lamina_rotation_mode mode);
/** The cubic modes' tension, continuity and bias values (NULL: none). */
int lamina_animation_set_tension_values(lamina_animation *animation, const double *values, size_t count);
int lamina_animation_set_continuity_values(lamina_animation *animation, const double *values, size_t count);
int lamina_animation_set_bias_values(lamina_animation *animation, const double *values, size_t count);

/**
 * A CAAnimationGroup: its animations run together in the group's time (its duration cuts them
 * off). The media-timing setters above apply to the group.
 */
lamina_animation *lamina_animation_group_new(void);
/** Appends a copy of `child` (groups nest at most 8 deep: LAMINA_ERROR_INVALID_ARGUMENT past that). */
int lamina_animation_group_add(lamina_animation *group, const lamina_animation *child);

/** What a layer does when a property changes (CALayer's actions; "animations.actionKinds"). */
typedef enum lamina_action {
    LAMINA_ACTION_INHERIT = 0,   /**< no entry: the style's, then the default implicit animation */
    LAMINA_ACTION_NONE = 1,      /**< a null action: the change is not animated */
    LAMINA_ACTION_ANIMATION = 2, /**< the given animation (copied) */
} lamina_action;

/** Sets the layer's action for `key` (a property name) in its `actions` dictionary; `animation` only for LAMINA_ACTION_ANIMATION. */
int lamina_layer_set_action(lamina_layer *layer, const char *key, lamina_action action, const lamina_animation *animation);
/** The same in the layer's `style` dictionary (consulted after `actions`). */
int lamina_layer_set_style_action(lamina_layer *layer, const char *key, lamina_action action,
                                  const lamina_animation *animation);

/* MARK: Gestures and geometry */

/*
 * Client-side geometry with laminad's rules (CA's, as the Swift client's Layer.hitTest/convert):
 * through anchor points, transforms, positions, bounds origins, geometry flips and sublayer
 * transforms (perspective included), on the model values last set. Hidden layers, layers with
 * userInteractionEnabled off, and single-sided layers facing away are not hit; masksToBounds
 * clips hits; a layer is hit inside its bounds, half-open ([min, max)); sublayers before their
 * superlayer, front-most first (higher zPosition, then later ones).
 */

/** hitTest: the farthest descendant of `layer` (or itself) containing (x, y), given in the
 * layer's superlayer's coordinates (the display's for the root); NULL if none. */
lamina_layer *lamina_layer_hit_test(lamina_layer *layer, double x, double y);
/** containsPoint: whether (x, y), in the layer's coordinates, is inside its bounds (1) or not (0). */
int lamina_layer_contains(const lamina_layer *layer, double x, double y);

/** Which way a conversion goes: convertPoint:toLayer: or convertPoint:fromLayer:. */
typedef enum lamina_conversion {
    LAMINA_CONVERT_TO = 0,   /**< from `layer`'s coordinates to `other`'s */
    LAMINA_CONVERT_FROM = 1, /**< from `other`'s coordinates to `layer`'s */
} lamina_conversion;

/** Converts (x, y) between `layer` and `other` (NULL: the display) into out[2]; NaN where the
 * point does not map (a layer seen edge-on). LAMINA_ERROR_INVALID_ARGUMENT for a NULL layer or out. */
int lamina_layer_convert_point(lamina_layer *layer, double x, double y, lamina_layer *other, lamina_conversion direction,
                               double out[2]);
/** The same for rect[4] (x, y, width, height): the bounding box of its converted corners. */
int lamina_layer_convert_rect(lamina_layer *layer, const double rect[4], lamina_layer *other, lamina_conversion direction,
                              double out[4]);

/*
 * Gesture recognisers, as the Swift client's (and UIKit's): tap, long press, pan (with a
 * minimum and maximum number of touches), pinch, rotation and swipe. Added to a layer, a
 * recogniser sees the input events that reach it (a touch goes to the layer laminad hits, then
 * up the superlayers to the first layer with recognisers) and follows every touch that went
 * down there by its id (and the pointer while its left button is held); each touch's point in
 * the layer's own coordinates is derived from the events (lamina_gesture_recognizer_touch_location).
 * Its callback runs from dispatch (and sync and the requests, as every callback) with the
 * recogniser, whose state and values it reads. Time is the events' and the connection's clock:
 * a wait (a long press, a double tap's interval) ends at the first event past it, or when the
 * clock passes it (lamina_connection_advance_clock on the virtual clock, any dispatch on the
 * real one). The caller owns a recogniser: free it with lamina_gesture_recognizer_free (not
 * from its own callback). Recognisers on one layer recognise independently of each other.
 */
typedef struct lamina_gesture_recognizer lamina_gesture_recognizer;
typedef void (*lamina_gesture_callback)(lamina_gesture_recognizer *recognizer, void *context);

typedef enum lamina_gesture_state {
    LAMINA_GESTURE_POSSIBLE = 0,
    LAMINA_GESTURE_BEGAN = 1,
    LAMINA_GESTURE_CHANGED = 2,
    LAMINA_GESTURE_ENDED = 3,
    LAMINA_GESTURE_RECOGNIZED = 3, /**< a discrete gesture (tap, swipe) recognised: the same as ended */
    LAMINA_GESTURE_CANCELLED = 4,
    LAMINA_GESTURE_FAILED = 5,
} lamina_gesture_state;

/** Swipe directions, on the display (y grows downwards); a mask of them for the permitted ones. */
typedef enum lamina_swipe_direction {
    LAMINA_SWIPE_RIGHT = 1,
    LAMINA_SWIPE_LEFT = 2,
    LAMINA_SWIPE_UP = 4,
    LAMINA_SWIPE_DOWN = 8,
} lamina_swipe_direction;

/** A tap: one touch down and up within the allowable movement (10 points) and 0.5 s; with
 * lamina_tap_recognizer_set_taps_required, several, each within 0.3 s of the last one's release. */
lamina_gesture_recognizer *lamina_tap_recognizer_new(lamina_gesture_callback callback, void *context);
/** A long press: a touch held within the allowable movement for 0.5 s: began, changed, ended. */
lamina_gesture_recognizer *lamina_long_press_recognizer_new(lamina_gesture_callback callback, void *context);
/** A pan: 1 or more touches whose centroid moved past the allowable movement: began, changed, ended. */
lamina_gesture_recognizer *lamina_pan_recognizer_new(lamina_gesture_callback callback, void *context);
/** A pinch: two touches apart or together; scale and its velocity. */
lamina_gesture_recognizer *lamina_pinch_recognizer_new(lamina_gesture_callback callback, void *context);
/** A rotation: two touches turning; rotation in radians (clockwise on the display positive) and its velocity. */
lamina_gesture_recognizer *lamina_rotation_recognizer_new(lamina_gesture_callback callback, void *context);
/** A swipe: one touch travelling 50 points at 200 points per second or more, any direction, recognised when lifted. */
lamina_gesture_recognizer *lamina_swipe_recognizer_new(lamina_gesture_callback callback, void *context);
/** Takes the recogniser off its layer, out of failure requirements, and frees it. */
void lamina_gesture_recognizer_free(lamina_gesture_recognizer *recognizer);

/** Adds the recogniser to the layer (taking it off any other). */
int lamina_layer_add_gesture_recognizer(lamina_layer *layer, lamina_gesture_recognizer *recognizer);
int lamina_layer_remove_gesture_recognizer(lamina_layer *layer, lamina_gesture_recognizer *recognizer);
/** requireGestureRecognizerToFail: `recognizer` recognises only once `other` failed, and fails if it recognises. */
int lamina_gesture_recognizer_require_to_fail(lamina_gesture_recognizer *recognizer, lamina_gesture_recognizer *other);

lamina_gesture_state lamina_gesture_recognizer_state(const lamina_gesture_recognizer *recognizer);
/** The layer it is on (NULL: none). */
lamina_layer *lamina_gesture_recognizer_layer(const lamina_gesture_recognizer *recognizer);
/** The touches' centroid in the layer's coordinates. */
void lamina_gesture_recognizer_location(const lamina_gesture_recognizer *recognizer, double out[2]);
/** The touches' centroid in display points. */
void lamina_gesture_recognizer_screen_location(const lamina_gesture_recognizer *recognizer, double out[2]);
size_t lamina_gesture_recognizer_touch_count(const lamina_gesture_recognizer *recognizer);
/** Touch `index`'s latest point (in the order they went down) in the layer's coordinates. */
int lamina_gesture_recognizer_touch_location(const lamina_gesture_recognizer *recognizer, size_t index, double out[2]);
/** Pinch: the distance between the touches over the distance when the second went down. */
double lamina_gesture_recognizer_scale(const lamina_gesture_recognizer *recognizer);
/** Rotation: the angle turned since the second touch went down, radians. */
double lamina_gesture_recognizer_rotation(const lamina_gesture_recognizer *recognizer);
/** Pan and swipe: points per second in x and y; pinch: scale per second in out[0]; rotation: radians per second in out[0]. */
void lamina_gesture_recognizer_velocity(const lamina_gesture_recognizer *recognizer, double out[2]);
/** Pan: the centroid's movement since the pan's touches went down, display points. */
void lamina_gesture_recognizer_translation(const lamina_gesture_recognizer *recognizer, double out[2]);
/** Swipe: the recognised swipe's direction. */
lamina_swipe_direction lamina_gesture_recognizer_direction(const lamina_gesture_recognizer *recognizer);

/** How far a touch may move (display points) and still be a tap or long press; how far touches
 * move before a pan, pinch or rotation begins. Default 10. */
int lamina_gesture_recognizer_set_allowable_movement(lamina_gesture_recognizer *recognizer, double points);
/** Taps: how many (2: a double tap), the longest tap and the longest wait between taps, seconds. */
int lamina_tap_recognizer_set_taps_required(lamina_gesture_recognizer *recognizer, int taps);
int lamina_tap_recognizer_set_durations(lamina_gesture_recognizer *recognizer, double maximum_duration, double maximum_interval);
int lamina_long_press_recognizer_set_minimum_duration(lamina_gesture_recognizer *recognizer, double seconds);
int lamina_pan_recognizer_set_touches(lamina_gesture_recognizer *recognizer, size_t minimum, size_t maximum);
/** A mask of lamina_swipe_direction, the minimum distance (points) and average speed (points per second). */
int lamina_swipe_recognizer_set(lamina_gesture_recognizer *recognizer, unsigned directions, double minimum_distance,
                                double minimum_speed);
/** Pinch: sets the scale (1 makes later changes relative to now); rotation: sets the angle. */
int lamina_pinch_recognizer_set_scale(lamina_gesture_recognizer *recognizer, double scale);
int lamina_rotation_recognizer_set_rotation(lamina_gesture_recognizer *recognizer, double radians);
/* MARK: Tiled layers */

/**
 * Tiled layers (LAMINA_LAYER_KIND_TILED, CATiledLayer): laminad asks for the tiles in view at the
 * scale they are shown (each once until supplied or out of view), keeps them within its tile
 * budget, shows the nearest coarser tile while a finer one is on its way and fades new ones in.
 * Level 0 is full resolution (contentsScale pixels a point), each later level half the one
 * before, the levelsOfDetailBias magnified levels -1, -2, ... twice, four times; every tile is
 * tileSize pixels, its grid starting at the bounds' origin.
 */
/** Draws tile (column, row) of `level`: an image of exactly tileSize pixels, or NULL to supply it later. */
typedef lamina_image *(*lamina_tile_provider)(lamina_layer *layer, int32_t level, uint32_t column, uint32_t row, void *user);
/** The layer's tile provider: run from dispatch (sync, requests) for each tile laminad asks for; what it returns is supplied and committed at once. */
int lamina_tiled_layer_set_provider(lamina_layer *layer, lamina_tile_provider provider, void *user);
/** Supplies `image` as tile (column, row) of `level` with the next commit: laminad takes its pixels and the handle is freed here. */
int lamina_tiled_layer_supply_tile(lamina_layer *layer, lamina_image *image, uint32_t column, uint32_t row, int32_t level);
/** setNeedsDisplay: every tile laminad holds for the layer goes (with the next commit); it asks again for those in view. */
int lamina_tiled_layer_drop_tiles(lamina_layer *layer);

/* MARK: Images */

/**
 * An image of `width` x `height` pixels (1-16384), 4 bytes each, rows `stride` bytes apart in
 * `pixels` (0: width x 4), copied into a sealed memory file that laminad maps (its descriptor
 * travels with the next commit, SCM_RIGHTS). Owned by the connection; show it with
 * lamina_layer_set_contents().
 */
lamina_image *lamina_image_new(lamina_connection *conn, uint32_t width, uint32_t height, const void *pixels,
                               size_t stride, lamina_pixel_format format, lamina_alpha_mode alpha, char **error);
/** create-encoded-image's formats (protocol 1.7). */
typedef enum lamina_encoded_format {
    LAMINA_ENCODED_SVG = 0,  /**< an SVG document: laminad draws it at the scale it is shown */
    LAMINA_ENCODED_GIF = 1,  /**< a GIF, animated or still: laminad plays its frames on its clock */
    LAMINA_ENCODED_WEBP = 2, /**< a WebP, animated or still */
} lamina_encoded_format;

/**
 * An image laminad makes from an encoded file (protocol 1.7): `size` bytes of an SVG document,
 * a GIF or a WebP, copied into a sealed memory file sent with the next commit. laminad draws an
 * SVG at the scale each layer shows it and plays a GIF's or WebP's frames on its clock from that
 * commit; a file it cannot decode makes the commit fail with an error naming why. Updates do not
 * apply to it (lamina_image_update() returns LAMINA_ERROR_INVALID_ARGUMENT).
 */
lamina_image *lamina_image_new_encoded(lamina_connection *conn, lamina_encoded_format format, const void *bytes,
                                       size_t size, char **error);
/** Rewrites a rectangle (rows `stride` bytes apart, 0: width x 4); laminad uploads it with the next commit. */
int lamina_image_update(lamina_image *image, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                        const void *pixels, size_t stride);
/** Destroys the image in laminad (with the next commit) and frees the handle. */
int lamina_image_destroy(lamina_image *image);
uint32_t lamina_image_number(const lamina_image *image);

/* MARK: Videos (protocol 1.6; volume and muted 1.7) */

/**
 * A video laminad decodes with GStreamer and plays on its clock: `uri` is an absolute path on
 * laminad's machine or a URI (file:///…, http://…; 1 to 4096 bytes). It takes an image number,
 * is created with the next commit, and starts paused at 0, rate 1, not looping, volume 1, not
 * muted; a layer shows it with lamina_layer_set_video(). Its events (ready with the size and
 * length, playing, paused, ended, error) arrive as LAMINA_EVENT_VIDEO. Problems with the media
 * are error events, not errors here. A reconnection makes it again with its loop, rate, volume,
 * mute and play state, from 0. NULL (and `error`) for a bad URI or a broken connection.
 */
lamina_video *lamina_video_new(lamina_connection *conn, const char *uri, char **error);
/** Shows the video as the layer's contents (NULL: none); gravity, corners and masks apply as to an image. */
int lamina_layer_set_video(lamina_layer *layer, lamina_video *video);
/** Media time moves with laminad's clock (from the end of a video that does not loop: from 0); with the next commit. */
int lamina_video_play(lamina_video *video);
/** Media time stands still; the picture shown stays. */
int lamina_video_pause(lamina_video *video);
/** Shows the picture at `seconds` (finite, >= 0; past the end: the last). */
int lamina_video_seek(lamina_video *video, double seconds);
/** Media seconds per second of laminad's clock: > 0 and <= 16. */
int lamina_video_set_rate(lamina_video *video, double rate);
/** Whether playing past the end starts again from 0. */
int lamina_video_set_loop(lamina_video *video, int loop);
/** The sound's gain: 0 (silent) to 1 (as recorded, the default); LAMINA_ERROR_INVALID_ARGUMENT otherwise (1.7). */
int lamina_video_set_volume(lamina_video *video, double volume);
/** Whether the sound is off (the volume is kept for when it is on again) (1.7). */
int lamina_video_set_muted(lamina_video *video, int muted);
/** Destroys the video in laminad (with the next commit: its decoder stops) and frees the handle. */
int lamina_video_destroy(lamina_video *video);
uint32_t lamina_video_number(const lamina_video *video);

#ifdef __cplusplus
}
#endif

#endif
