/* Byte buffers and the little-endian codec of the Lamina protocol. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void lm_buf_free(lm_buf *b) {
    free(b->data);
    b->data = NULL;
    b->length = b->capacity = 0;
    b->failed = 0;
}

int lm_buf_reserve(lm_buf *b, size_t extra) {
    if (b->failed)
        return -1;
    if (extra > SIZE_MAX - b->length) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->length + extra;
    if (need <= b->capacity)
        return 0;
    size_t capacity = b->capacity ? b->capacity : 256;
    while (capacity < need) {
        if (capacity > SIZE_MAX / 2) {
            capacity = need;
            break;
        }
        capacity *= 2;
    }
    uint8_t *data = realloc(b->data, capacity);
    if (!data) {
        b->failed = 1;
        return -1;
    }
    b->data = data;
    b->capacity = capacity;
    return 0;
}

void lm_buf_bytes(lm_buf *b, const void *bytes, size_t n) {
    if (n == 0 || lm_buf_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->length, bytes, n);
    b->length += n;
}

void lm_buf_u8(lm_buf *b, uint32_t v) {
    uint8_t x = (uint8_t)v;
    lm_buf_bytes(b, &x, 1);
}

void lm_buf_u16(lm_buf *b, uint32_t v) {
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    lm_buf_bytes(b, x, 2);
}

void lm_buf_u32(lm_buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    lm_buf_bytes(b, x, 4);
}

void lm_buf_i32(lm_buf *b, int32_t v) { lm_buf_u32(b, (uint32_t)v); }

void lm_buf_u64(lm_buf *b, uint64_t v) {
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    lm_buf_bytes(b, x, 8);
}

void lm_buf_f64(lm_buf *b, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    lm_buf_u64(b, bits);
}

void lm_buf_string_n(lm_buf *b, const char *s, size_t n) {
    if (n > UINT32_MAX) {
        b->failed = 1;
        return;
    }
    lm_buf_u32(b, (uint32_t)n);
    lm_buf_bytes(b, s, n);
}

void lm_buf_string(lm_buf *b, const char *s) { lm_buf_string_n(b, s ? s : "", s ? strlen(s) : 0); }

void lm_buf_put_u32_at(lm_buf *b, size_t offset, uint32_t v) {
    if (b->failed || offset + 4 > b->length)
        return;
    b->data[offset] = (uint8_t)v;
    b->data[offset + 1] = (uint8_t)(v >> 8);
    b->data[offset + 2] = (uint8_t)(v >> 16);
    b->data[offset + 3] = (uint8_t)(v >> 24);
}

void lm_buf_consume(lm_buf *b, size_t n) {
    if (n >= b->length) {
        b->length = 0;
        return;
    }
    memmove(b->data, b->data + n, b->length - n);
    b->length -= n;
}

int lm_grow(void **items, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity)
        return 0;
    size_t n = *capacity ? *capacity * 2 : 8;
    if (n > SIZE_MAX / size)
        return -1;
    void *p = realloc(*items, n * size);
    if (!p)
        return -1;
    *items = p;
    *capacity = n;
    return 0;
}

/* MARK: Reading */

size_t lm_reader_remaining(const lm_reader *r) { return r->failed ? 0 : r->length - r->offset; }

uint32_t lm_get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

const uint8_t *lm_read_bytes(lm_reader *r, size_t n) {
    if (r->failed || n > r->length - r->offset) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->data + r->offset;
    r->offset += n;
    return p;
}

uint32_t lm_read_u8(lm_reader *r) {
    const uint8_t *p = lm_read_bytes(r, 1);
    return p ? p[0] : 0;
}

uint32_t lm_read_u16(lm_reader *r) {
    const uint8_t *p = lm_read_bytes(r, 2);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : 0;
}

uint32_t lm_read_u32(lm_reader *r) {
    const uint8_t *p = lm_read_bytes(r, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

int32_t lm_read_i32(lm_reader *r) {
    uint32_t u = lm_read_u32(r);
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

uint64_t lm_read_u64(lm_reader *r) {
    const uint8_t *p = lm_read_bytes(r, 8);
    uint64_t v = 0;
    if (p)
        for (int i = 7; i >= 0; i--)
            v = v << 8 | p[i];
    return v;
}

double lm_read_f64(lm_reader *r) {
    uint64_t bits = lm_read_u64(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

const uint8_t *lm_read_string(lm_reader *r, size_t *length) {
    uint32_t n = lm_read_u32(r);
    const uint8_t *p = lm_read_bytes(r, n);
    *length = p ? n : 0;
    return p;
}

/* A count of entries of at least `smallest` bytes each, which must fit in what is left. */
static uint32_t read_count(lm_reader *r, size_t smallest) {
    uint32_t n = lm_read_u32(r);
    if (!r->failed && (uint64_t)n * smallest > lm_reader_remaining(r))
        r->failed = 1;
    return r->failed ? 0 : n;
}

void lm_skip_value(lm_reader *r, int type) {
    size_t n;
    switch (type) {
    case LAMINA_VALUE_NUMBER: lm_read_bytes(r, 8); break;
    case LAMINA_VALUE_POINT:
    case LAMINA_VALUE_SIZE: lm_read_bytes(r, 16); break;
    case LAMINA_VALUE_RECT:
    case LAMINA_VALUE_COLOR: lm_read_bytes(r, 32); break;
    case LAMINA_VALUE_TRANSFORM: lm_read_bytes(r, 128); break;
    case LAMINA_VALUE_BOOL:
        if (lm_read_u8(r) > 1)
            r->failed = 1;
        break;
    case LAMINA_VALUE_STRING: lm_read_string(r, &n); break;
    case LAMINA_VALUE_NUMBER_LIST: n = read_count(r, 8); lm_read_bytes(r, n * 8); break;
    case LAMINA_VALUE_COLOR_LIST: n = read_count(r, 32); lm_read_bytes(r, n * 32); break;
    case LAMINA_VALUE_PATH: {
        uint32_t count = read_count(r, 1);
        for (uint32_t i = 0; i < count && !r->failed; i++) {
            static const uint8_t points[] = {1, 1, 2, 3, 0};
            uint32_t element = lm_read_u8(r);
            if (element >= sizeof points) {
                r->failed = 1;
                break;
            }
            lm_read_bytes(r, (size_t)points[element] * 16);
        }
        break;
    }
    case LAMINA_VALUE_IMAGE:
    case LAMINA_VALUE_LAYER: lm_read_bytes(r, 4); break;
    case LAMINA_VALUE_CONSTRAINT_LIST: {
        /* u8 attribute, u8 source attribute, string relativeTo, f64 scale, f64 offset. */
        uint32_t count = read_count(r, 22);
        for (uint32_t i = 0; i < count && !r->failed; i++) {
            lm_read_bytes(r, 2);
            lm_read_string(r, &n);
            lm_read_bytes(r, 16);
        }
        break;
    }
    case LAMINA_VALUE_EMITTER_CELLS: lm_skip_emitter_cells(r, 1); break;
    case LAMINA_VALUE_FILTER_LIST: {
        /* string name, u8 type, u8 input count, that many f64. */
        uint32_t count = read_count(r, 6);
        for (uint32_t i = 0; i < count && !r->failed; i++) {
            lm_read_string(r, &n);
            lm_read_bytes(r, 1);
            lm_read_bytes(r, (size_t)lm_read_u8(r) * 8);
        }
        break;
    }
    case LAMINA_VALUE_DRAWING: {
        /* u8 opcode, u16 number count, the f64s, the op's strings. */
        uint32_t count = read_count(r, 3);
        for (uint32_t i = 0; i < count && !r->failed; i++) {
            int strings = lm_draw_string_count(lm_read_u8(r));
            if (strings < 0) {
                r->failed = 1;
                break;
            }
            lm_read_bytes(r, (size_t)lm_read_u16(r) * 8);
            for (int k = 0; k < strings; k++)
                lm_read_string(r, &n);
        }
        break;
    }
    case LAMINA_VALUE_ATTRIBUTED_STRING: {
        /* string text, string font, f64 size, f64 weight, u8 flags, the colours the flags name,
         * f64 kerning, f64 baseline offset. */
        uint32_t count = read_count(r, 41);
        for (uint32_t i = 0; i < count && !r->failed; i++) {
            lm_read_string(r, &n);
            lm_read_string(r, &n);
            lm_read_bytes(r, 16);
            uint32_t flags = lm_read_u8(r);
            if (flags & ~31u)
                r->failed = 1;
            lm_read_bytes(r, ((flags & 8) ? 32 : 0) + ((flags & 16) ? 32 : 0) + 16);
        }
        break;
    }
    default: r->failed = 1; break;
    }
}

/* An optional array of f64 (u8 presence, then u32 count and the numbers). */
static void skip_numbers(lm_reader *r, size_t each) {
    uint32_t present = lm_read_u8(r);
    if (present > 1)
        r->failed = 1;
    else if (present)
        lm_read_bytes(r, (size_t)read_count(r, each) * each);
}

/* A typed value (u8 type, 0 absent where `optional`, then the value in its type's layout). */
static void skip_typed_value(lm_reader *r, int optional) {
    uint32_t type = lm_read_u8(r);
    if (type == 0 && optional)
        return;
    lm_skip_value(r, (int)type); /* fails on unknown types */
}

void lm_skip_animation(lm_reader *r, int depth) {
    if (depth > LM_MAX_GROUP_NESTING) {
        r->failed = 1;
        return;
    }
    uint32_t kind = lm_read_u8(r);
    lm_read_bytes(r, 6 * 8 + 2); /* begin, duration, speed, offset, repeat count and duration; autoreverses, fill */
    uint32_t timing = lm_read_u8(r); /* a timing function? */
    if (timing > 1)
        r->failed = 1;
    else if (timing)
        lm_read_bytes(r, 4 * 8);
    lm_read_u8(r); /* removedOnCompletion */
    size_t n;
    switch (kind) {
    case 1: /* basic */
    case 3: /* spring */
        lm_read_string(r, &n);
        for (int i = 0; i < 3; i++)
            skip_typed_value(r, 1);
        lm_read_bytes(r, 3);
        if (kind == 3)
            lm_read_bytes(r, 4 * 8);
        break;
    case 2: { /* keyframe */
        lm_read_string(r, &n);
        uint32_t values = read_count(r, 2);
        for (uint32_t i = 0; i < values && !r->failed; i++)
            skip_typed_value(r, 0);
        uint32_t present = lm_read_u8(r);
        if (present > 1)
            r->failed = 1;
        else if (present)
            lm_skip_value(r, LAMINA_VALUE_PATH);
        skip_numbers(r, 8);  /* keyTimes */
        skip_numbers(r, 32); /* timingFunctions */
        lm_read_bytes(r, 2); /* calculation and rotation modes */
        for (int i = 0; i < 3; i++)
            skip_numbers(r, 8); /* tension, continuity, bias */
        lm_read_bytes(r, 3);
        break;
    }
    case 4: { /* group */
        uint32_t count = read_count(r, 1);
        for (uint32_t i = 0; i < count && !r->failed; i++)
            lm_skip_animation(r, depth + 1);
        break;
    }
    case 5: /* transition */
        lm_read_bytes(r, 2 + 2 * 8);
        break;
    default:
        r->failed = 1;
    }
}

/* MARK: Frames and hello */

size_t lm_frame_begin(lm_buf *b, uint32_t type) {
    size_t start = b->length;
    lm_buf_u32(b, 0);
    lm_buf_u16(b, type);
    lm_buf_u16(b, 0);
    return start;
}

void lm_frame_end(lm_buf *b, size_t start) {
    if (b->failed)
        return;
    size_t body = b->length - start - LM_HEADER_SIZE;
    if (body > UINT32_MAX) {
        b->failed = 1;
        return;
    }
    lm_buf_put_u32_at(b, start, (uint32_t)body);
}

void lm_encode_hello(lm_buf *b, const char *client_name, const char *session, uint32_t flags, uint32_t major,
                     uint32_t minor) {
    size_t start = lm_frame_begin(b, LM_MSG_HELLO);
    lm_buf_u32(b, LM_MAGIC);
    lm_buf_u16(b, major);
    lm_buf_u16(b, minor);
    lm_buf_u32(b, flags);
    lm_buf_string(b, client_name);
    lm_buf_string(b, session);
    lm_frame_end(b, start);
}

/* MARK: Messages */

char *lm_vstrdup_printf(const char *format, va_list args) {
    va_list copy;
    va_copy(copy, args);
    int n = vsnprintf(NULL, 0, format, copy);
    va_end(copy);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    vsnprintf(s, (size_t)n + 1, format, args);
    return s;
}

char *lm_strdup_printf(const char *format, ...) {
    va_list args;
    va_start(args, format);
    char *s = lm_vstrdup_printf(format, args);
    va_end(args);
    return s;
}

void lm_set_error(char **error, const char *format, ...) {
    if (!error)
        return;
    va_list args;
    va_start(args, format);
    *error = lm_vstrdup_printf(format, args);
    va_end(args);
}

char *lm_copy_string(const uint8_t *s, size_t n) {
    char *c = malloc(n + 1);
    if (!c)
        return NULL;
    if (n)
        memcpy(c, s, n);
    c[n] = 0;
    return c;
}

void lamina_free(void *pointer) { free(pointer); }
