// GStreamer (core, app sink, video info): how LaminaVideo decodes video files and URIs.
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
// The sound output: laminad pushes a video's samples into its own pipeline (app source).
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
// dma-buf memory: a decoder's or camera's buffers shown without a copy.
#include <gst/allocators/allocators.h>
// eventfd: the wake-up a bus's sync handler writes (Glibc's Swift module lacks it).
#include <sys/eventfd.h>

// Swift cannot call C variadic functions (g_object_set, gst_caps_new_simple) nor the
// function-like macros GStreamer's structures are read through; these few wrappers stand in.

/// Sets a string property (g_object_set).
static inline void lamina_gst_set_string(gpointer object, const char *name, const char *value) {
    g_object_set(object, name, value, NULL);
}
/// Sets a boolean property (g_object_set).
static inline void lamina_gst_set_bool(gpointer object, const char *name, gboolean value) {
    g_object_set(object, name, value, NULL);
}
/// Sets an unsigned integer or flags property (g_object_set; GstPlayFlags is a flags type).
static inline void lamina_gst_set_uint(gpointer object, const char *name, guint value) {
    g_object_set(object, name, value, NULL);
}
/// Sets a 64-bit unsigned property (g_object_set).
static inline void lamina_gst_set_uint64(gpointer object, const char *name, guint64 value) {
    g_object_set(object, name, value, NULL);
}
/// Sets an object property (g_object_set), such as playbin's video-sink.
static inline void lamina_gst_set_object(gpointer object, const char *name, gpointer value) {
    g_object_set(object, name, value, NULL);
}
/// GST_MESSAGE_TYPE.
static inline GstMessageType lamina_gst_message_type(GstMessage *message) { return GST_MESSAGE_TYPE(message); }
/// GST_MESSAGE_SRC: the object that posted the message.
static inline GstObject *lamina_gst_message_source(GstMessage *message) { return GST_MESSAGE_SRC(message); }
/// GST_BUFFER_PTS (GST_CLOCK_TIME_NONE when the buffer has none).
static inline GstClockTime lamina_gst_buffer_pts(GstBuffer *buffer) { return GST_BUFFER_PTS(buffer); }
/// GST_BUFFER_DURATION.
static inline GstClockTime lamina_gst_buffer_duration(GstBuffer *buffer) { return GST_BUFFER_DURATION(buffer); }
/// GST_CLOCK_TIME_NONE, a macro of a cast Swift does not import.
static inline GstClockTime lamina_gst_clock_time_none(void) { return GST_CLOCK_TIME_NONE; }
/// GST_VIDEO_INFO_WIDTH, _HEIGHT and the first plane's stride, from a sample's caps; false
/// when the caps are not raw video.
static inline gboolean lamina_gst_video_layout(GstCaps *caps, gint *width, gint *height, gint *stride) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return FALSE;
    *width = GST_VIDEO_INFO_WIDTH(&info);
    *height = GST_VIDEO_INFO_HEIGHT(&info);
    *stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
    return TRUE;
}
/// The unpacked text of an error or warning message ("what (debug details)"); free with g_free.
static inline gchar *lamina_gst_message_error_text(GstMessage *message) {
    GError *error = NULL;
    gchar *debug = NULL;
    if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR) gst_message_parse_error(message, &error, &debug);
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_WARNING) gst_message_parse_warning(message, &error, &debug);
    else return NULL;
    gchar *text = g_strdup(error != NULL ? error->message : "unknown GStreamer error");
    if (error != NULL) g_error_free(error);
    g_free(debug);
    return text;
}
/// The video format of raw-video caps (GST_VIDEO_FORMAT_UNKNOWN for other caps).
static inline GstVideoFormat lamina_gst_video_format(GstCaps *caps) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return GST_VIDEO_FORMAT_UNKNOWN;
    return GST_VIDEO_INFO_FORMAT(&info);
}
/// Where the first plane starts and its stride, from the buffer's video meta when it has one
/// (a decoder's padded buffers), false otherwise.
static inline gboolean lamina_gst_video_meta_plane(GstBuffer *buffer, gsize *offset, gint *stride) {
    GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
    if (meta == NULL) return FALSE;
    *offset = meta->offset[0];
    *stride = meta->stride[0];
    return TRUE;
}
/// A planar YUV picture's planes (I420: Y, U, V): each plane's offset and stride, from the
/// buffer's video meta where it has one, else from the caps; the colour matrix (1: BT.709,
/// 2: BT.2020, else BT.601) and whether the range is full (0-255) rather than limited (16-235). Returns the
/// number of planes (0 when the caps are not raw video).
static inline gint lamina_gst_video_planes(GstCaps *caps, GstBuffer *buffer, gsize offsets[4], gint strides[4],
                                           gint *matrix, gint *fullRange) {
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps)) return 0;
    gint planes = GST_VIDEO_INFO_N_PLANES(&info);
    if (planes > 4) return 0;
    GstVideoMeta *meta = gst_buffer_get_video_meta(buffer);
    for (gint i = 0; i < planes; i++) {
        offsets[i] = meta != NULL ? meta->offset[i] : GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
        strides[i] = meta != NULL ? meta->stride[i] : GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    }
    *matrix = info.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709    ? 1
              : info.colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT2020 ? 2
                                                                        : 0;
    *fullRange = info.colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255 ? 1 : 0;
    return planes;
}
/// Where `extent` bytes from `offset` of the buffer lie when one dma-buf memory holds them all:
/// the memory's descriptor and the offset in it (the memory's own offset into the dma-buf
/// added). False when no single memory holds the range (it runs past the buffer, or across two
/// memories) or the memory is not a dma-buf's.
static inline gboolean lamina_gst_dmabuf_at(GstBuffer *buffer, gsize offset, gsize extent, gint *fd, gsize *fdOffset) {
    guint index = 0, length = 0;
    gsize skip = 0;
    if (extent == 0 || !gst_buffer_find_memory(buffer, offset, extent, &index, &length, &skip) || length != 1) return FALSE;
    GstMemory *memory = gst_buffer_peek_memory(buffer, index);
    if (memory == NULL || !gst_is_dmabuf_memory(memory) || skip > memory->size || extent > memory->size - skip) return FALSE;
    *fd = gst_dmabuf_memory_get_fd(memory);
    *fdOffset = memory->offset + skip;
    return *fd >= 0;
}
/// Sets an integer or enum property (g_object_set; v4l2src's io-mode).
static inline void lamina_gst_set_int(gpointer object, const char *name, gint value) {
    g_object_set(object, name, value, NULL);
}

/// Reads an int property (g_object_get), such as playbin's n-audio.
static inline gint lamina_gst_get_int(gpointer object, const char *name) {
    gint value = 0;
    g_object_get(object, name, &value, NULL);
    return value;
}
/// Sets a caps property from its text (g_object_set with parsed caps); false when it does not parse.
static inline gboolean lamina_gst_set_caps(gpointer object, const char *name, const char *caps) {
    GstCaps *parsed = gst_caps_from_string(caps);
    if (!parsed) return FALSE;
    g_object_set(object, name, parsed, NULL);
    gst_caps_unref(parsed);
    return TRUE;
}
/// Stamps a buffer: its presentation time and duration, and the discontinuity flag.
static inline void lamina_gst_buffer_stamp(GstBuffer *buffer, GstClockTime pts, GstClockTime duration, gboolean discont) {
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = duration;
    if (discont) GST_BUFFER_FLAG_SET(buffer, GST_BUFFER_FLAG_DISCONT);
}
