/* Tiled layers (CATiledLayer): the tile provider, supply-tile and drop-tiles. A supplied image
 * becomes laminad's tile: its number is free there and its handle is freed here, with no
 * destroy-image sent. */
#include <stdlib.h>
#include <unistd.h>

#include "events.h"
#include "internal.h"
#include "pending.h"
#include "stream.h"

int lamina_tiled_layer_set_provider(lamina_layer *layer, lamina_tile_provider provider, void *user) {
    if (!layer || layer->kind != LAMINA_LAYER_KIND_TILED)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    layer->tile_provider = provider;
    layer->tile_provider_user = user;
    return LAMINA_OK;
}

int lamina_tiled_layer_supply_tile(lamina_layer *layer, lamina_image *image, uint32_t column, uint32_t row, int32_t level) {
    if (!layer || !image || layer->kind != LAMINA_LAYER_KIND_TILED || image->conn != layer->conn)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = layer->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    size_t mark = conn->tail_ops.length;
    lm_buf_u8(&conn->tail_ops, LM_OP_SUPPLY_TILE);
    lm_buf_u32(&conn->tail_ops, layer->number);
    lm_buf_u32(&conn->tail_ops, (uint32_t)level);
    lm_buf_u32(&conn->tail_ops, column);
    lm_buf_u32(&conn->tail_ops, row);
    lm_buf_u32(&conn->tail_ops, image->number);
    s = lm_op_end(conn, &conn->tail_ops, &conn->tail_op_count, mark);
    if (s)
        return s;
    conn->images[image->number] = NULL;
    close(image->fd);
    free(image);
    return LAMINA_OK;
}

int lamina_tiled_layer_drop_tiles(lamina_layer *layer) {
    if (!layer || layer->kind != LAMINA_LAYER_KIND_TILED)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lamina_connection *conn = layer->conn;
    int s = lm_check_recordable(conn);
    if (s)
        return s;
    size_t mark = conn->tail_ops.length;
    lm_buf_u8(&conn->tail_ops, LM_OP_DROP_TILES);
    lm_buf_u32(&conn->tail_ops, layer->number);
    return lm_op_end(conn, &conn->tail_ops, &conn->tail_op_count, mark);
}

void lm_tiles_wanted(lamina_connection *conn, const lamina_event *event) {
    lamina_layer *layer = event->layer;
    if (!layer || layer->kind != LAMINA_LAYER_KIND_TILED || !layer->tile_provider)
        return;
    int supplied = 0;
    for (size_t i = 0; i < event->tile_count; i++) {
        const lamina_tile *t = &event->tiles[i];
        lamina_image *image = layer->tile_provider(layer, event->tile_level, t->column, t->row, layer->tile_provider_user);
        if (!image)
            continue;
        if (lamina_tiled_layer_supply_tile(layer, image, t->column, t->row, event->tile_level) == LAMINA_OK)
            supplied++;
        else
            lamina_image_destroy(image);
    }
    if (supplied)
        lamina_connection_commit(conn);
}
