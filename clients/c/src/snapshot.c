/* A kept session's snapshot (the welcome's, or a snapshot request's reply): its layers restored
 * as handles with their model when a session is taken over; the destroys and the earlier client's
 * animations that a reconnection to a session laminad still holds sends with its replay. */
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "snapshot.h"

/* Visits each operation of the welcome's snapshot: its type, layer number and bytes. */
typedef int (*snapshot_visitor)(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                                void *context);

static int walk_operations(lamina_connection *conn, const uint8_t *data, size_t length, uint32_t count,
                           snapshot_visitor visit, void *context) {
    lm_reader r = {.data = data, .length = length};
    for (uint32_t i = 0; i < count && !r.failed; i++) {
        size_t start = r.offset;
        uint32_t type = lm_read_u8(&r), number = lm_read_u32(&r);
        switch (type) {
        case LM_OP_CREATE:
            break;
        case LM_OP_CREATE_KIND:
            lm_read_u8(&r);
            break;
        case LM_OP_SET: {
            int value = (int)lamina_property_type((int)lm_read_u16(&r));
            if (!value)
                return LAMINA_ERROR_PROTOCOL;
            lm_skip_value(&r, value);
            break;
        }
        case LM_OP_INSERT:
            lm_read_bytes(&r, 8);
            break;
        case LM_OP_SET_ACTION: {
            size_t n;
            lm_read_u8(&r);
            lm_read_string(&r, &n);
            uint32_t action = lm_read_u8(&r);
            if (action > LAMINA_ACTION_ANIMATION)
                return LAMINA_ERROR_PROTOCOL;
            if (action == LAMINA_ACTION_ANIMATION)
                lm_skip_animation(&r, 0);
            break;
        }
        case LM_OP_ADD_ANIMATION: {
            size_t n;
            lm_read_string(&r, &n);
            lm_read_u32(&r);
            lm_skip_animation(&r, 0);
            break;
        }
        default:
            return LAMINA_ERROR_PROTOCOL;
        }
        if (r.failed || visit(conn, type, number, r.data + start, r.offset - start, context))
            return LAMINA_ERROR_PROTOCOL;
    }
    return r.failed || lm_reader_remaining(&r) ? LAMINA_ERROR_PROTOCOL : LAMINA_OK;
}

static int restore_one(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                       void *context) {
    (void)context;
    switch (type) {
    case LM_OP_CREATE:
    case LM_OP_CREATE_KIND: {
        uint32_t kind = type == LM_OP_CREATE_KIND ? op[5] : 0;
        if (number == 0 || number > LM_MAX_RESTORED_LAYER || kind > LAMINA_LAYER_KIND_TILED ||
            lm_reserve_layer(conn, number) || conn->layers[number])
            return -1;
        lamina_layer *l = calloc(1, sizeof *l);
        if (!l)
            return -1;
        l->conn = conn;
        l->number = number;
        l->kind = (uint8_t)kind;
        l->parent = LM_NO_PARENT;
        conn->layers[number] = l;
        if (number >= conn->next_layer)
            conn->next_layer = number + 1;
        return 0;
    }
    case LM_OP_SET:
        /* The session's images were made by an earlier client: new ones get numbers above them. */
        if (length == 11 && lamina_property_type((int)(op[5] | op[6] << 8)) == LAMINA_VALUE_IMAGE) {
            /* (Numbers past the cap are left alone: the image table is indexed by number.) */
            uint32_t image = lm_get_u32(op + 7);
            if (image >= conn->next_image && image <= LM_MAX_RESTORED_LAYER)
                conn->next_image = image + 1;
        }
        return lm_model_note(conn, op, length);
    case LM_OP_INSERT:
    case LM_OP_SET_ACTION:
        return lm_model_note(conn, op, length);
    default: /* the animations run on in laminad: nothing to keep */
        return 0;
    }
}

static int walk_snapshot(lamina_connection *conn, snapshot_visitor visit, void *context) {
    return walk_operations(conn, conn->snapshot.data, conn->snapshot.length, conn->snapshot_count, visit, context);
}

int lm_model_restore(lamina_connection *conn) { return walk_snapshot(conn, restore_one, NULL); }

/* An add-animation of the `snapshot` reply on a layer this connection holds, under a key none of
 * its live animations has (an earlier client's): kept, untagged, length-prefixed in `context`. */
static int keep_foreign(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                        void *context) {
    if (type != LM_OP_ADD_ANIMATION || !lm_layer_at(conn, number) || length < 13)
        return 0;
    uint32_t n = lm_get_u32(op + 5);
    if (n > length - 13)
        return -1;
    for (size_t i = 0; i < conn->tag_count; i++) {
        const lm_tag *t = &conn->tags[i];
        if (!t->gone && t->layer == number && strlen(t->key) == n && memcmp(t->key, op + 9, n) == 0)
            return 0; /* this connection's own, replayed as such */
    }
    lm_buf *kept = context;
    lm_buf_u32(kept, (uint32_t)length);
    size_t at = kept->length;
    lm_buf_bytes(kept, op, length);
    if (kept->failed)
        return -1;
    memset(kept->data + at + 9 + n, 0, 4); /* tag 0: no events for it */
    return 0;
}

int lm_foreign_animations(lamina_connection *conn, const uint8_t *data, size_t length, lm_buf *kept) {
    lm_reader r = {.data = data, .length = length};
    uint32_t count = lm_read_u32(&r);
    if (r.failed)
        return LAMINA_ERROR_PROTOCOL;
    return walk_operations(conn, data + 4, length - 4, count, keep_foreign, kept);
}

static int destroy_one(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                       void *context) {
    (void)conn;
    (void)op;
    (void)length;
    if (type == LM_OP_CREATE || type == LM_OP_CREATE_KIND) {
        lm_buf *ops = context;
        lm_buf_u8(ops, LM_OP_DESTROY);
        lm_buf_u32(ops, number);
    }
    return 0;
}

static int find_image(lamina_connection *conn, uint32_t type, uint32_t number, const uint8_t *op, size_t length,
                      void *context) {
    (void)conn;
    (void)number;
    uint32_t *wanted = context;
    if (type == LM_OP_SET && length == 11 && lamina_property_type((int)(op[5] | op[6] << 8)) == LAMINA_VALUE_IMAGE &&
        lm_get_u32(op + 7) == wanted[0])
        wanted[1] = 1;
    return 0;
}

int lm_snapshot_shows_image(lamina_connection *conn, uint32_t number) {
    uint32_t wanted[2] = {number, 0};
    return walk_snapshot(conn, find_image, wanted) == LAMINA_OK && wanted[1];
}

int lm_snapshot_destroys(lamina_connection *conn, lm_buf *ops, uint32_t *count) {
    size_t before = ops->length;
    int s = walk_snapshot(conn, destroy_one, ops);
    *count = (uint32_t)((ops->length - before) / 5);
    return s || ops->failed ? LAMINA_ERROR_PROTOCOL : LAMINA_OK;
}
