/* PNG without zlib: 8-bit RGBA, filter 0, the deflate stream in stored (uncompressed) blocks,
 * which the PNG and zlib formats allow. CRC-32 and Adler-32 computed here. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* CRC-32 (polynomial 0xEDB88320), four bits at a time from a constant table. */
static const uint32_t crc_nibbles[16] = {
    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
    0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
};

uint32_t lm_crc32(uint32_t crc, const uint8_t *data, size_t n) {
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= data[i];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15];
        crc = (crc >> 4) ^ crc_nibbles[crc & 15];
    }
    return ~crc;
}

uint32_t lm_adler32(uint32_t adler, const uint8_t *data, size_t n) {
    uint32_t a = adler & 0xFFFF, b = adler >> 16;
    while (n > 0) {
        size_t chunk = n < 5552 ? n : 5552; /* the most bytes before the sums can overflow */
        for (size_t i = 0; i < chunk; i++) {
            a += data[i];
            b += a;
        }
        a %= 65521;
        b %= 65521;
        data += chunk;
        n -= chunk;
    }
    return b << 16 | a;
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void buf_be32(lm_buf *b, uint32_t v) {
    uint8_t x[4];
    put_be32(x, v);
    lm_buf_bytes(b, x, 4);
}

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

/* Appends a chunk whose data is already at out->data[start + 8 ...]: fills in length and CRC. */
static void chunk_finish(lm_buf *out, size_t start) {
    if (out->failed)
        return;
    size_t length = out->length - start - 8;
    put_be32(out->data + start, (uint32_t)length);
    buf_be32(out, lm_crc32(0, out->data + start + 4, length + 4));
}

int lm_png_encode(lm_buf *out, uint32_t width, uint32_t height, const uint8_t *rgba) {
    if (width == 0 || height == 0 || width > 0x7FFFFFFF / 4 || height > 0x7FFFFFFF)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    uint64_t row = (uint64_t)width * 4 + 1;
    uint64_t raw = row * height;
    if (raw > 0x7FFFFFFF)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    uint64_t blocks = (raw + 65534) / 65535;
    uint64_t idat = 2 + raw + blocks * 5 + 4;
    if (idat > 0x7FFFFFFF)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    if (lm_buf_reserve(out, 8 + 25 + 12 + (size_t)idat + 12) != 0)
        return LAMINA_ERROR_NO_MEMORY;

    lm_buf_bytes(out, png_signature, 8);
    size_t start = out->length;
    buf_be32(out, 0);
    lm_buf_bytes(out, "IHDR", 4);
    buf_be32(out, width);
    buf_be32(out, height);
    const uint8_t ihdr_tail[5] = {8, 6, 0, 0, 0}; /* 8 bits, RGBA, deflate, filter 0, no interlace */
    lm_buf_bytes(out, ihdr_tail, 5);
    chunk_finish(out, start);

    start = out->length;
    buf_be32(out, 0);
    lm_buf_bytes(out, "IDAT", 4);
    const uint8_t zlib_header[2] = {0x78, 0x01};
    lm_buf_bytes(out, zlib_header, 2);
    /* The filtered image (each row: filter byte 0, then the row) is streamed into stored blocks
     * of at most 65535 bytes, computing the Adler-32 on the way. */
    uint32_t adler = 1;
    uint64_t position = 0; /* in the filtered stream */
    while (position < raw) {
        uint64_t left = raw - position;
        uint32_t block = left > 65535 ? 65535 : (uint32_t)left;
        uint8_t head[5] = {(uint8_t)(left <= 65535 ? 1 : 0), (uint8_t)block, (uint8_t)(block >> 8),
                           (uint8_t)~block, (uint8_t)(~block >> 8)};
        lm_buf_bytes(out, head, 5);
        uint32_t done = 0;
        while (done < block) {
            uint64_t y = (position + done) / row, x = (position + done) % row;
            const uint8_t *source;
            uint32_t n;
            const uint8_t zero = 0;
            if (x == 0) {
                source = &zero;
                n = 1;
            } else {
                source = rgba + y * (row - 1) + (x - 1);
                uint64_t rest = row - x;
                n = (uint32_t)(rest < block - done ? rest : block - done);
            }
            lm_buf_bytes(out, source, n);
            adler = lm_adler32(adler, source, n);
            done += n;
        }
        position += block;
    }
    buf_be32(out, adler);
    chunk_finish(out, start);

    start = out->length;
    buf_be32(out, 0);
    lm_buf_bytes(out, "IEND", 4);
    chunk_finish(out, start);
    return out->failed ? LAMINA_ERROR_NO_MEMORY : LAMINA_OK;
}

int lm_png_decode(const uint8_t *data, size_t n, uint32_t *width, uint32_t *height, uint8_t **rgba) {
    *rgba = NULL;
    if (n < 8 || memcmp(data, png_signature, 8) != 0)
        return LAMINA_ERROR_PROTOCOL;
    size_t pos = 8;
    uint32_t w = 0, h = 0;
    lm_buf z = {0};
    int seen_end = 0;
    while (pos + 12 <= n && !seen_end) {
        uint32_t length = get_be32(data + pos);
        if (length > n - pos - 12)
            goto bad;
        const uint8_t *type = data + pos + 4, *body = data + pos + 8;
        if (lm_crc32(0, type, (size_t)length + 4) != get_be32(body + length))
            goto bad;
        if (memcmp(type, "IHDR", 4) == 0) {
            if (length != 13 || body[8] != 8 || body[9] != 6 || body[10] != 0 || body[11] != 0 || body[12] != 0)
                goto bad;
            w = get_be32(body);
            h = get_be32(body + 4);
        } else if (memcmp(type, "IDAT", 4) == 0) {
            lm_buf_bytes(&z, body, length);
        } else if (memcmp(type, "IEND", 4) == 0) {
            seen_end = 1;
        }
        pos += (size_t)length + 12;
    }
    if (!seen_end || z.failed || w == 0 || h == 0 || w > 0x7FFFFFFF / 4)
        goto bad;
    uint64_t row = (uint64_t)w * 4;
    if (row * h > 0x7FFFFFFF)
        goto bad;
    /* zlib: header, stored blocks, Adler-32. */
    lm_buf raw = {0};
    size_t zp = 2;
    if (z.length < 6 || z.data[0] != 0x78 || ((uint32_t)z.data[0] << 8 | z.data[1]) % 31 != 0)
        goto bad;
    for (;;) {
        if (zp + 5 > z.length || (z.data[zp] & 6) != 0) { /* only stored blocks */
            lm_buf_free(&raw);
            goto bad;
        }
        int final = z.data[zp] & 1;
        uint32_t len = z.data[zp + 1] | (uint32_t)z.data[zp + 2] << 8;
        uint32_t nlen = z.data[zp + 3] | (uint32_t)z.data[zp + 4] << 8;
        zp += 5;
        if ((len ^ 0xFFFF) != nlen || len > z.length - zp) {
            lm_buf_free(&raw);
            goto bad;
        }
        lm_buf_bytes(&raw, z.data + zp, len);
        zp += len;
        if (final)
            break;
    }
    if (raw.failed || zp + 4 > z.length || raw.length != (row + 1) * h ||
        get_be32(z.data + zp) != lm_adler32(1, raw.data, raw.length)) {
        lm_buf_free(&raw);
        goto bad;
    }
    uint8_t *pixels = malloc((size_t)(row * h));
    if (!pixels) {
        lm_buf_free(&raw);
        lm_buf_free(&z);
        return LAMINA_ERROR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *line = raw.data + (size_t)y * (row + 1);
        if (line[0] != 0) {
            free(pixels);
            lm_buf_free(&raw);
            goto bad;
        }
        memcpy(pixels + (size_t)y * row, line + 1, (size_t)row);
    }
    lm_buf_free(&raw);
    lm_buf_free(&z);
    *width = w;
    *height = h;
    *rgba = pixels;
    return LAMINA_OK;
bad:
    lm_buf_free(&z);
    return LAMINA_ERROR_PROTOCOL;
}
