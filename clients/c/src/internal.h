/* Internal to liblamina: byte buffers, the little-endian codec, the protocol's names, PNG. Not installed.
 * The bottom of the internal headers (see client.h for their order). */
#ifndef LAMINA_INTERNAL_H
#define LAMINA_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lamina.h"

#define LM_HEADER_SIZE 8u
#define LM_MAGIC 0x4E4D414Cu /* "LAMN" */
#define LM_MSG_HELLO 1u
#define LM_MSG_COMMIT 2u
#define LM_MSG_REQUEST 3u
#define LM_MSG_WELCOME 129u
#define LM_MSG_APPLIED 130u
#define LM_MSG_ERROR 131u
#define LM_MSG_REPLY 132u
#define LM_MSG_ANIMATION_EVENT 133u
#define LM_MSG_TRANSACTION_COMPLETED 134u
#define LM_MSG_WATCH 135u
#define LM_MSG_INPUT 136u
#define LM_MSG_CLOCK 137u
#define LM_MSG_VIDEO 138u
#define LM_MSG_SCROLL 139u
#define LM_MSG_DISPLAY_CHANGED 140u
#define LM_MSG_FRAME 141u
#define LM_MSG_APP_SURFACE 142u
#define LM_MSG_TILES_WANTED 143u

#define LM_OP_CREATE 1u
#define LM_OP_DESTROY 2u
#define LM_OP_SET 3u
#define LM_OP_INSERT 4u
#define LM_OP_REMOVE 5u
#define LM_OP_ADD_ANIMATION 6u
#define LM_OP_REMOVE_ANIMATION 7u
#define LM_OP_REMOVE_ALL_ANIMATIONS 8u
#define LM_OP_SET_ACTION 9u
#define LM_OP_SETTINGS 10u
#define LM_OP_CREATE_KIND 11u
#define LM_OP_CREATE_IMAGE 12u
#define LM_OP_CREATE_ENCODED_IMAGE 20u
#define LM_OP_UPDATE_IMAGE 13u
#define LM_OP_DESTROY_IMAGE 14u
#define LM_OP_CREATE_VIDEO 16u
#define LM_OP_CONTROL_VIDEO 17u
#define LM_OP_SUPPLY_TILE 18u
#define LM_OP_DROP_TILES 19u

#define LM_REQ_SCREENSHOT 1u
#define LM_REQ_TREE 2u
#define LM_REQ_ADVANCE_CLOCK 3u
#define LM_REQ_STATS 4u
#define LM_REQ_PRESENTATION 5u
#define LM_REQ_DISPLAY_POWER 8u
#define LM_REQ_SNAPSHOT 9u
#define LM_REQ_INJECT_INPUT 10u
#define LM_REQ_TAKE_KEYBOARD_FOCUS 11u
#define LM_REQ_LISTEN 12u
#define LM_REQ_OUTPUT 14u
#define LM_REQ_DISPLAY_LINK 15u
#define LM_REQ_MANAGE_APPS 16u

#define LM_APPEND 0xFFFFFFFFu
#define LM_KEY_LIMIT 256u
#define LM_MAX_GROUP_NESTING 8
#define LM_MAX_IMAGE_DIMENSION 16384u
#define LM_PROPERTY_COUNT 104 /* the highest property number; the table has holes */
/* The largest server frame body this client accepts (as the Python client; a 16384 x 16384
 * screenshot fits). Memory is only taken as bytes arrive, never from the header's length. */
#define LM_MAX_SERVER_BODY (1u << 30)

/* A growable byte buffer. `failed` is sticky: once an allocation fails every append is a no-op. */
typedef struct lm_buf {
    uint8_t *data;
    size_t length;
    size_t capacity;
    int failed;
} lm_buf;

void lm_buf_free(lm_buf *b);
int lm_buf_reserve(lm_buf *b, size_t extra);
void lm_buf_bytes(lm_buf *b, const void *bytes, size_t n);
void lm_buf_u8(lm_buf *b, uint32_t v);
void lm_buf_u16(lm_buf *b, uint32_t v);
void lm_buf_u32(lm_buf *b, uint32_t v);
void lm_buf_i32(lm_buf *b, int32_t v);
void lm_buf_u64(lm_buf *b, uint64_t v);
void lm_buf_f64(lm_buf *b, double v);
void lm_buf_string(lm_buf *b, const char *s);
void lm_buf_string_n(lm_buf *b, const char *s, size_t n);
void lm_buf_put_u32_at(lm_buf *b, size_t offset, uint32_t v);
void lm_buf_consume(lm_buf *b, size_t n);
/* Grows an array of `size`-byte items so that `count + 1` fit. 0 or -1. */
int lm_grow(void **items, size_t *capacity, size_t count, size_t size);

/* A bounds-checked reader over bytes it does not own. Any short read sets `failed` and
 * returns zeros; callers check `failed` once at the end of a message. */
typedef struct lm_reader {
    const uint8_t *data;
    size_t length;
    size_t offset;
    int failed;
} lm_reader;

uint32_t lm_read_u8(lm_reader *r);
/* A drawing being recorded: its commands encoded as on the wire (without the count). */
struct lamina_drawing {
    lm_buf buf;
    size_t count;
    int failed;
};

/* The strings a drawing command takes after its numbers, by opcode; -1 for no such opcode. */
int lm_draw_string_count(uint32_t op);
uint32_t lm_read_u16(lm_reader *r);
uint32_t lm_read_u32(lm_reader *r);
int32_t lm_read_i32(lm_reader *r);
uint64_t lm_read_u64(lm_reader *r);
double lm_read_f64(lm_reader *r);
/* A string: points into the reader's bytes (not NUL-terminated); `length` set. */
const uint8_t *lm_read_string(lm_reader *r, size_t *length);
const uint8_t *lm_read_bytes(lm_reader *r, size_t n);
/* Skips a value of a value type; fails on unknown types and impossible counts. */
void lm_skip_value(lm_reader *r, int type);
/* Emitter cells (emitter.c). */
int lm_emitter_cells(lm_buf *b, const lamina_emitter_cell *const *cells, size_t count);
void lm_skip_emitter_cells(lm_reader *r, int depth);
/* Skips an animation (docs/protocol.md "Animations"), groups at most 8 deep; `depth` 0 at the top. */
void lm_skip_animation(lm_reader *r, int depth);
size_t lm_reader_remaining(const lm_reader *r);
/* The little-endian u32 at `p` (its 4 bytes checked by the caller). */
uint32_t lm_get_u32(const uint8_t *p);

/* Encoders used by the library and, byte for byte against protocol/fixtures, by the tests. */
void lm_encode_hello(lm_buf *b, const char *client_name, const char *session, uint32_t flags, uint32_t major,
                     uint32_t minor);
/* Begins a frame: writes a header with length 0; lm_frame_end fills it in. */
size_t lm_frame_begin(lm_buf *b, uint32_t type);
void lm_frame_end(lm_buf *b, size_t start);

/* A malloc'd printf; NULL when out of memory. */
char *lm_strdup_printf(const char *format, ...) __attribute__((format(printf, 1, 2)));
char *lm_vstrdup_printf(const char *format, va_list args) __attribute__((format(printf, 1, 0)));
/* A malloc'd copy of `n` bytes (NULs among them kept) with a NUL after them; NULL when out of memory. */
char *lm_copy_string(const uint8_t *s, size_t n);
/* Sets *error (when error is not NULL) to a malloc'd message. */
void lm_set_error(char **error, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The control points of a named timing function (names.c). 0, or -1 for an unknown name. */
int lm_timing_named(const char *name, double out[4]);

/* PNG: CRC-32 (ISO 3309 / PNG), Adler-32 (zlib), an 8-bit RGBA PNG with stored deflate blocks. */
uint32_t lm_crc32(uint32_t crc, const uint8_t *data, size_t n);
uint32_t lm_adler32(uint32_t adler, const uint8_t *data, size_t n);
/* Encodes into `out` (appended). 0 or a negative lamina_status. */
int lm_png_encode(lm_buf *out, uint32_t width, uint32_t height, const uint8_t *rgba);
/* Decodes a PNG that lm_png_encode wrote (stored deflate, filter 0, 8-bit RGBA), checking every
 * CRC and the Adler-32; *rgba is malloc'd. 0 or a negative lamina_status. */
int lm_png_decode(const uint8_t *data, size_t n, uint32_t *width, uint32_t *height, uint8_t **rgba);

#endif
