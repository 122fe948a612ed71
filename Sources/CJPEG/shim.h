// libjpeg (libjpeg-turbo's libjpeg62 API). libjpeg reports errors by calling error_exit, which
// must not return; the one inline function below catches it with setjmp, which Swift cannot,
// and hands back a message instead.
#pragma once
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <jpeglib.h>

struct lamina_jpeg_error {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void lamina_jpeg_error_exit(j_common_ptr info) {
    struct lamina_jpeg_error *e = (struct lamina_jpeg_error *)info->err;
    (*info->err->format_message)(info, e->message);
    longjmp(e->jump, 1);
}

/// Decodes a JPEG held in memory to RGBA, 4 bytes a pixel (alpha 255), rows top to bottom.
/// An image of more than maxPixels pixels is refused from its header, before libjpeg or this
/// function allocates anything for it (a progressive JPEG's coefficients are whole-image),
/// setting *tooLarge. Returns pixels to release with free(), or NULL with a message.
static inline unsigned char *lamina_jpeg_decode(const unsigned char *data, unsigned long size, unsigned long long maxPixels,
                                                int *width, int *height, int *tooLarge, char *message, int messageSize) {
    struct jpeg_decompress_struct info;
    struct lamina_jpeg_error error;
    unsigned char *volatile pixels = NULL;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = lamina_jpeg_error_exit;
    error.message[0] = 0;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        snprintf(message, (size_t)messageSize, "%s", error.message);
        return NULL;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, size);
    jpeg_read_header(&info, TRUE);
    if ((unsigned long long)info.image_width * info.image_height > maxPixels) {
        snprintf(message, (size_t)messageSize, "it is %u×%u pixels (%llu), over the limit of %llu pixels", info.image_width,
                 info.image_height, (unsigned long long)info.image_width * info.image_height, maxPixels);
        *tooLarge = 1;
        jpeg_destroy_decompress(&info);
        return NULL;
    }
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    size_t stride = (size_t)info.output_width * 4;
    pixels = malloc(stride * info.output_height + 1);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&info);
        snprintf(message, (size_t)messageSize, "out of memory for %ux%u pixels", info.output_width, info.output_height);
        return NULL;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    *width = (int)info.output_width;
    *height = (int)info.output_height;
    jpeg_destroy_decompress(&info);
    return pixels;
}
