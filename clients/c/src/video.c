/* Videos (protocol 1.6; volume and muted 1.7): laminad decodes and plays them; this side makes
 * them (create-video), steers them (control-video, with the commits), hears their events, and
 * keeps how each plays for a reconnection's replay. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "messages.h"
#include "pending.h"

enum { CONTROL_PLAY = 0, CONTROL_PAUSE = 1, CONTROL_SEEK = 2, CONTROL_RATE = 3, CONTROL_LOOP = 4, CONTROL_VOLUME = 5,
       CONTROL_MUTED = 6 };

void lm_encode_create_video(lm_buf *b, const lamina_video *video) {
    lm_buf_u8(b, LM_OP_CREATE_VIDEO);
    lm_buf_u32(b, video->number);
    lm_buf_string(b, video->uri);
}

/* One control-video operation: `kind`, then an f64 (seek, rate, volume) or a u8 (loop, muted). */
void lm_encode_control_video(lm_buf *b, uint32_t number, int kind, double argument) {
    lm_buf_u8(b, LM_OP_CONTROL_VIDEO);
    lm_buf_u32(b, number);
    lm_buf_u8(b, (uint8_t)kind);
    if (kind == CONTROL_SEEK || kind == CONTROL_RATE || kind == CONTROL_VOLUME)
        lm_buf_f64(b, argument);
    else if (kind == CONTROL_LOOP || kind == CONTROL_MUTED)
        lm_buf_u8(b, argument != 0 ? 1 : 0);
}

lamina_video *lamina_video_new(lamina_connection *conn, const char *uri, char **error) {
    if (lm_check_recordable(conn)) {
        lm_set_error(error, "%s", conn ? lamina_connection_error(conn) : "no connection");
        return NULL;
    }
    size_t length = uri ? strlen(uri) : 0;
    if (length < 1 || length > 4096) {
        lm_set_error(error, "a video needs a path or URI of 1 to 4096 bytes");
        return NULL;
    }
    if (conn->next_image == UINT32_MAX ||
        lm_grow((void **)&conn->videos, &conn->video_capacity, conn->video_count, sizeof *conn->videos)) {
        lm_set_error(error, "out of memory");
        return NULL;
    }
    lamina_video *video = calloc(1, sizeof *video);
    if (!video || !(video->uri = strdup(uri))) {
        free(video);
        lm_set_error(error, "out of memory");
        return NULL;
    }
    video->conn = conn;
    video->number = conn->next_image;
    video->rate = 1;
    video->volume = 1;
    size_t mark = conn->image_ops.length;
    lm_encode_create_video(&conn->image_ops, video);
    if (lm_op_end(conn, &conn->image_ops, &conn->image_op_count, mark)) {
        free(video->uri);
        free(video);
        lm_set_error(error, "out of memory");
        return NULL;
    }
    conn->next_image++;
    conn->videos[conn->video_count++] = video;
    return video;
}

uint32_t lamina_video_number(const lamina_video *video) { return video ? video->number : 0; }

int lamina_layer_set_video(lamina_layer *layer, lamina_video *video) {
    if (layer && video && video->conn != layer->conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int s = lm_layer_stop_showing_app(layer);
    return s ? s : lamina_layer_set_reference(layer, LAMINA_PROPERTY_CONTENTS, video ? video->number : 0);
}

static int control(lamina_video *video, int kind, double argument) {
    if (!video)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = video->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    size_t mark = conn->image_ops.length;
    lm_encode_control_video(&conn->image_ops, video->number, kind, argument);
    return lm_op_end(conn, &conn->image_ops, &conn->image_op_count, mark);
}

int lamina_video_play(lamina_video *video) {
    int s = control(video, CONTROL_PLAY, 0);
    if (s == LAMINA_OK)
        video->play_requested = 1;
    return s;
}

int lamina_video_pause(lamina_video *video) {
    int s = control(video, CONTROL_PAUSE, 0);
    if (s == LAMINA_OK)
        video->play_requested = 0;
    return s;
}

int lamina_video_seek(lamina_video *video, double seconds) {
    if (!isfinite(seconds) || seconds < 0)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    return control(video, CONTROL_SEEK, seconds);
}

int lamina_video_set_rate(lamina_video *video, double rate) {
    if (!isfinite(rate) || rate <= 0 || rate > 16)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int s = control(video, CONTROL_RATE, rate);
    if (s == LAMINA_OK)
        video->rate = rate;
    return s;
}

int lamina_video_set_loop(lamina_video *video, int loop) {
    int s = control(video, CONTROL_LOOP, loop != 0);
    if (s == LAMINA_OK)
        video->loop = loop != 0;
    return s;
}

int lamina_video_set_volume(lamina_video *video, double volume) {
    if (!isfinite(volume) || volume < 0 || volume > 1)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    int s = control(video, CONTROL_VOLUME, volume);
    if (s == LAMINA_OK)
        video->volume = volume;
    return s;
}

int lamina_video_set_muted(lamina_video *video, int muted) {
    int s = control(video, CONTROL_MUTED, muted != 0);
    if (s == LAMINA_OK)
        video->muted = muted != 0;
    return s;
}

int lamina_video_destroy(lamina_video *video) {
    if (!video)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = video->conn;
    if (lm_check_recordable(conn) == LAMINA_OK) {
        size_t mark = conn->tail_ops.length;
        lm_buf_u8(&conn->tail_ops, LM_OP_DESTROY_IMAGE);
        lm_buf_u32(&conn->tail_ops, video->number);
        int s = lm_op_end(conn, &conn->tail_ops, &conn->tail_op_count, mark);
        if (s)
            return s;
    }
    for (size_t i = 0; i < conn->video_count; i++) {
        if (conn->videos[i] == video) {
            memmove(conn->videos + i, conn->videos + i + 1, (conn->video_count - i - 1) * sizeof *conn->videos);
            conn->video_count--;
            break;
        }
    }
    free(video->uri);
    free(video);
    return LAMINA_OK;
}

lamina_video *lm_video_at(lamina_connection *conn, uint32_t number) {
    for (size_t i = 0; i < conn->video_count; i++)
        if (conn->videos[i]->number == number)
            return conn->videos[i];
    return NULL;
}

void lm_free_videos(lamina_connection *conn) {
    for (size_t i = 0; i < conn->video_count; i++) {
        free(conn->videos[i]->uri);
        free(conn->videos[i]);
    }
    free(conn->videos);
    conn->videos = NULL;
    conn->video_count = conn->video_capacity = 0;
}
