/* The display-changed message (protocol 1.7): laminad's outputs changed. The connection's
 * display size (and so the root's bounds, unless the client set them) follows at once; the event
 * carries the outputs, decoded into one allocation that dispatch frees. */
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "messages.h"

/* The wire's smallest output: an empty name and transform, six f64s. */
#define LM_DISPLAY_OUTPUT_MIN 56u

int lm_display_changed(lamina_connection *conn, lm_reader *r, const char **why) {
    uint32_t width = lm_read_u32(r), height = lm_read_u32(r), n = lm_read_u32(r);
    if (r->failed || n > lm_reader_remaining(r) / LM_DISPLAY_OUTPUT_MIN) {
        *why = "a malformed display-changed message";
        return LAMINA_ERROR_PROTOCOL;
    }
    /* Two passes: the names' sizes, then one allocation for the outputs and their names. */
    lm_reader first = *r;
    size_t text = 0;
    for (uint32_t i = 0; i < n && !first.failed; i++) {
        size_t name_n, transform_n;
        lm_read_string(&first, &name_n);
        for (int k = 0; k < 5; k++)
            lm_read_f64(&first);
        lm_read_string(&first, &transform_n);
        lm_read_f64(&first);
        text += name_n + transform_n + 2;
    }
    if (first.failed || lm_reader_remaining(&first)) {
        *why = "a malformed display-changed message";
        return LAMINA_ERROR_PROTOCOL;
    }
    lamina_display_output *outputs = malloc((size_t)n * sizeof *outputs + text + 1);
    if (!outputs) {
        *why = "out of memory for a display-changed event";
        return LAMINA_ERROR_PROTOCOL;
    }
    char *names = (char *)(outputs + n);
    for (uint32_t i = 0; i < n; i++) {
        size_t length;
        const uint8_t *name = lm_read_string(r, &length);
        memcpy(names, name, length);
        names[length] = 0;
        outputs[i].name = names;
        names += length + 1;
        outputs[i].x = lm_read_f64(r);
        outputs[i].y = lm_read_f64(r);
        outputs[i].width = lm_read_f64(r);
        outputs[i].height = lm_read_f64(r);
        outputs[i].scale = lm_read_f64(r);
        const uint8_t *transform = lm_read_string(r, &length);
        memcpy(names, transform, length);
        names[length] = 0;
        outputs[i].transform = names;
        names += length + 1;
        outputs[i].refresh = lm_read_f64(r);
    }
    lm_queued_event *q = lm_push_event(conn, LAMINA_EVENT_DISPLAY_CHANGED);
    if (!q) {
        free(outputs);
        *why = "out of memory for an event";
        return LAMINA_ERROR_PROTOCOL;
    }
    conn->display_width = width;
    conn->display_height = height;
    q->event.display_width = width;
    q->event.display_height = height;
    q->event.output_count = n;
    q->outputs = outputs;
    return LAMINA_OK;
}
