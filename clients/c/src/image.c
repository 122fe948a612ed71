/* Images: pixels in sealed memory files, sent with the commit that creates them (SCM_RIGHTS) and
 * kept for updates and for a reconnection's replay. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stream.h"
#include "pending.h"

static int write_rows(int fd, uint32_t image_width, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                      const uint8_t *pixels, size_t stride) {
    size_t row = (size_t)width * 4;
    for (uint32_t r = 0; r < height; r++) {
        const uint8_t *p = pixels + (size_t)r * stride;
        off_t offset = ((off_t)(y + r) * image_width + x) * 4;
        size_t done = 0;
        while (done < row) {
            ssize_t n = pwrite(fd, p + done, row - done, offset + (off_t)done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            done += (size_t)n;
        }
    }
    return 0;
}

/* Room for image `number` in the connection's table, and for one more descriptor. */
static int reserve_image(lamina_connection *conn, uint32_t number) {
    if (number == UINT32_MAX || lm_grow((void **)&conn->fds, &conn->fd_capacity, conn->fd_count, sizeof *conn->fds))
        return -1;
    if (number >= conn->image_capacity) {
        size_t capacity = conn->image_capacity ? conn->image_capacity * 2 : 16;
        while (capacity <= number)
            capacity *= 2;
        lamina_image **images = realloc(conn->images, capacity * sizeof *images);
        if (!images)
            return -1;
        memset(images + conn->image_capacity, 0, (capacity - conn->image_capacity) * sizeof *images);
        conn->images = images;
        conn->image_capacity = capacity;
    }
    return 0;
}

lamina_image *lamina_image_new(lamina_connection *conn, uint32_t width, uint32_t height, const void *pixels,
                               size_t stride, lamina_pixel_format format, lamina_alpha_mode alpha, char **error) {
    if (lm_check_recordable(conn)) {
        lm_set_error(error, "%s", conn ? lamina_connection_error(conn) : "no connection");
        return NULL;
    }
    if (width < 1 || height < 1 || width > LM_MAX_IMAGE_DIMENSION || height > LM_MAX_IMAGE_DIMENSION || !pixels ||
        (stride && stride < (size_t)width * 4) || (format != LAMINA_PIXEL_FORMAT_BGRA && format != LAMINA_PIXEL_FORMAT_RGBA) ||
        (alpha != LAMINA_ALPHA_PREMULTIPLIED && alpha != LAMINA_ALPHA_STRAIGHT)) {
        lm_set_error(error, "an image needs a width and height from 1 to %u, pixels, a stride of at least width x 4, "
                            "a known pixel format and alpha mode", LM_MAX_IMAGE_DIMENSION);
        return NULL;
    }
    if (stride == 0)
        stride = (size_t)width * 4;
    uint32_t number = conn->next_image;
    if (reserve_image(conn, number)) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    lamina_image *image = calloc(1, sizeof *image);
    if (!image) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    size_t size = (size_t)width * height * 4;
    int fd = memfd_create("lamina-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        lm_set_error(error, "memfd_create failed: %s", strerror(errno));
        free(image);
        return NULL;
    }
    if (ftruncate(fd, (off_t)size) != 0 || write_rows(fd, width, 0, 0, width, height, pixels, stride) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        lm_set_error(error, "cannot fill the image's memory file: %s", strerror(errno));
        close(fd);
        free(image);
        return NULL;
    }
    /* The commit carries its own descriptor, so the image may go before it is sent. */
    int sent = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (sent < 0) {
        lm_set_error(error, "cannot duplicate the image's descriptor: %s", strerror(errno));
        close(fd);
        free(image);
        return NULL;
    }
    image->number = number;
    image->width = width;
    image->height = height;
    image->format = (uint8_t)format;
    image->alpha = (uint8_t)alpha;
    size_t mark = conn->image_ops.length;
    lm_encode_create_image(&conn->image_ops, image);
    if (lm_op_end(conn, &conn->image_ops, &conn->image_op_count, mark)) {
        lm_set_error(error, "out of memory");
        close(sent);
        close(fd);
        free(image);
        return NULL;
    }
    if (conn->fd >= 0)
        conn->fds[conn->fd_count++] = sent;
    else
        close(sent); /* laminad is away: the replay sends the memory file itself */
    image->conn = conn;
    image->fd = fd;
    conn->images[number] = image;
    conn->next_image++;
    return image;
}

void lm_encode_create_image(lm_buf *b, const lamina_image *image) {
    if (image->encoding) {
        lm_buf_u8(b, LM_OP_CREATE_ENCODED_IMAGE);
        lm_buf_u32(b, image->number);
        lm_buf_u8(b, image->encoding - 1u);
        lm_buf_u64(b, image->encoded_bytes);
        return;
    }
    lm_buf_u8(b, LM_OP_CREATE_IMAGE);
    lm_buf_u32(b, image->number);
    lm_buf_u32(b, image->width);
    lm_buf_u32(b, image->height);
    lm_buf_u32(b, image->width * 4);
    lm_buf_u8(b, image->format);
    lm_buf_u8(b, image->alpha);
    lm_buf_u64(b, 0);
}

lamina_image *lamina_image_new_encoded(lamina_connection *conn, lamina_encoded_format format, const void *bytes,
                                       size_t size, char **error) {
    if (lm_check_recordable(conn)) {
        lm_set_error(error, "%s", conn ? lamina_connection_error(conn) : "no connection");
        return NULL;
    }
    if (!bytes || size == 0 || (format != LAMINA_ENCODED_SVG && format != LAMINA_ENCODED_GIF && format != LAMINA_ENCODED_WEBP)) {
        lm_set_error(error, "an encoded image needs its file's bytes and a known format (SVG, GIF or WebP)");
        return NULL;
    }
    uint32_t number = conn->next_image;
    if (reserve_image(conn, number)) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    lamina_image *image = calloc(1, sizeof *image);
    if (!image) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    int fd = memfd_create("lamina-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    size_t done = 0;
    int ok = fd >= 0 && ftruncate(fd, (off_t)size) == 0;
    while (ok && done < size) {
        ssize_t n = pwrite(fd, (const uint8_t *)bytes + done, size - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            ok = 0;
        else
            done += (size_t)n;
    }
    if (!ok || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        lm_set_error(error, "cannot fill the image's memory file: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(image);
        return NULL;
    }
    int sent = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (sent < 0) {
        lm_set_error(error, "cannot duplicate the image's descriptor: %s", strerror(errno));
        close(fd);
        free(image);
        return NULL;
    }
    image->conn = conn;
    image->number = number;
    image->fd = fd;
    image->encoding = (uint8_t)(format + 1);
    image->encoded_bytes = size;
    size_t mark = conn->image_ops.length;
    lm_encode_create_image(&conn->image_ops, image);
    if (lm_op_end(conn, &conn->image_ops, &conn->image_op_count, mark)) {
        lm_set_error(error, "out of memory");
        close(sent);
        close(fd);
        free(image);
        return NULL;
    }
    if (conn->fd >= 0)
        conn->fds[conn->fd_count++] = sent;
    else
        close(sent);
    conn->images[number] = image;
    conn->next_image++;
    return image;
}

uint32_t lamina_image_number(const lamina_image *image) { return image ? image->number : 0; }

int lamina_image_update(lamina_image *image, uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                        const void *pixels, size_t stride) {
    if (!image || image->encoding || !pixels || width == 0 || height == 0 || x >= image->width || y >= image->height ||
        width > image->width - x || height > image->height - y || (stride && stride < (size_t)width * 4))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = image->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    if (write_rows(image->fd, image->width, x, y, width, height, pixels, stride ? stride : (size_t)width * 4))
        return LAMINA_ERROR_IO;
    size_t mark = conn->image_ops.length;
    lm_buf *b = &conn->image_ops;
    lm_buf_u8(b, LM_OP_UPDATE_IMAGE);
    lm_buf_u32(b, image->number);
    lm_buf_u32(b, x);
    lm_buf_u32(b, y);
    lm_buf_u32(b, width);
    lm_buf_u32(b, height);
    return lm_op_end(conn, b, &conn->image_op_count, mark);
}

int lamina_image_destroy(lamina_image *image) {
    if (!image)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = image->conn;
    if (lm_check_recordable(conn) == LAMINA_OK) {
        size_t mark = conn->tail_ops.length;
        lm_buf_u8(&conn->tail_ops, LM_OP_DESTROY_IMAGE);
        lm_buf_u32(&conn->tail_ops, image->number);
        int s = lm_op_end(conn, &conn->tail_ops, &conn->tail_op_count, mark);
        if (s)
            return s;
    }
    conn->images[image->number] = NULL;
    close(image->fd);
    free(image);
    return LAMINA_OK;
}
