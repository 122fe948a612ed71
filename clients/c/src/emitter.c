/* Emitter cells (CAEmitterCell) built field by field and encoded in the emitterCells layout:
 * u16 field count, (u16 field, value)..., u32 sub-cell count, the sub-cells. A cell keeps its
 * fields' bytes and its sub-cells' encodings, so adding a child copies it as it is. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct lamina_emitter_cell {
    lm_buf fields;
    uint32_t field_count;
    lm_buf children;
    uint32_t child_count;
    /* Levels of sub-cells below this one (0 without any), for laminad's depth limit. */
    int depth;
};

/* Each field's value type, by number (protocol/lamina-protocol.json "emitterCells"). */
static lamina_value_type field_type(int field) {
    switch (field) {
    case LAMINA_CELL_NAME:
    case LAMINA_CELL_MINIFICATION_FILTER:
    case LAMINA_CELL_MAGNIFICATION_FILTER:
    case LAMINA_CELL_FILL_MODE: return LAMINA_VALUE_STRING;
    case LAMINA_CELL_ENABLED:
    case LAMINA_CELL_AUTOREVERSES: return LAMINA_VALUE_BOOL;
    case LAMINA_CELL_COLOR: return LAMINA_VALUE_COLOR;
    case LAMINA_CELL_CONTENTS: return LAMINA_VALUE_IMAGE;
    case LAMINA_CELL_CONTENTS_RECT: return LAMINA_VALUE_RECT;
    default: return field >= LAMINA_CELL_NAME && field <= LAMINA_CELL_FILL_MODE ? LAMINA_VALUE_NUMBER : (lamina_value_type)0;
    }
}

lamina_emitter_cell *lamina_emitter_cell_create(const char *name) {
    lamina_emitter_cell *cell = calloc(1, sizeof *cell);
    if (cell && name && *name && lamina_emitter_cell_set_string(cell, LAMINA_CELL_NAME, name) != LAMINA_OK) {
        lamina_emitter_cell_destroy(cell);
        return NULL;
    }
    return cell;
}

void lamina_emitter_cell_destroy(lamina_emitter_cell *cell) {
    if (!cell)
        return;
    lm_buf_free(&cell->fields);
    lm_buf_free(&cell->children);
    free(cell);
}

/* Starts a field of `type`; 0 when the cell or the field's type is wrong. */
static int begin(lamina_emitter_cell *cell, int field, lamina_value_type type) {
    if (!cell || field_type(field) != type || cell->field_count >= 0xFFFF)
        return 0;
    lm_buf_u16(&cell->fields, (uint32_t)field);
    cell->field_count++;
    return 1;
}

static int end(lamina_emitter_cell *cell) { return cell->fields.failed ? LAMINA_ERROR_NO_MEMORY : LAMINA_OK; }

int lamina_emitter_cell_set_number(lamina_emitter_cell *cell, lamina_cell_field field, double value) {
    if (!begin(cell, field, LAMINA_VALUE_NUMBER))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_f64(&cell->fields, value);
    return end(cell);
}

int lamina_emitter_cell_set_bool(lamina_emitter_cell *cell, lamina_cell_field field, int value) {
    if (!begin(cell, field, LAMINA_VALUE_BOOL))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_u8(&cell->fields, value ? 1 : 0);
    return end(cell);
}

int lamina_emitter_cell_set_string(lamina_emitter_cell *cell, lamina_cell_field field, const char *value) {
    if (!value || !begin(cell, field, LAMINA_VALUE_STRING))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_string(&cell->fields, value);
    return end(cell);
}

int lamina_emitter_cell_set_color(lamina_emitter_cell *cell, double red, double green, double blue, double alpha) {
    if (!begin(cell, LAMINA_CELL_COLOR, LAMINA_VALUE_COLOR))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_f64(&cell->fields, red);
    lm_buf_f64(&cell->fields, green);
    lm_buf_f64(&cell->fields, blue);
    lm_buf_f64(&cell->fields, alpha);
    return end(cell);
}

int lamina_emitter_cell_set_rect(lamina_emitter_cell *cell, lamina_cell_field field, double x, double y, double width,
                                 double height) {
    if (!begin(cell, field, LAMINA_VALUE_RECT))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_f64(&cell->fields, x);
    lm_buf_f64(&cell->fields, y);
    lm_buf_f64(&cell->fields, width);
    lm_buf_f64(&cell->fields, height);
    return end(cell);
}

int lamina_emitter_cell_set_contents(lamina_emitter_cell *cell, uint32_t image) {
    if (!begin(cell, LAMINA_CELL_CONTENTS, LAMINA_VALUE_IMAGE))
        return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_u32(&cell->fields, image);
    return end(cell);
}

/* Appends the cell's encoding. */
static void encode(lm_buf *b, const lamina_emitter_cell *cell) {
    lm_buf_u16(b, cell->field_count);
    lm_buf_bytes(b, cell->fields.data, cell->fields.length);
    lm_buf_u32(b, cell->child_count);
    lm_buf_bytes(b, cell->children.data, cell->children.length);
}

int lamina_emitter_cell_add_cell(lamina_emitter_cell *cell, const lamina_emitter_cell *child) {
    if (!cell || !child || cell == child || cell->child_count >= 64)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    encode(&cell->children, child);
    cell->child_count++;
    if (child->depth + 1 > cell->depth)
        cell->depth = child->depth + 1;
    return cell->children.failed ? LAMINA_ERROR_NO_MEMORY : LAMINA_OK;
}

/* The emitterCells value of `cells`, appended to `b` (for lamina_layer_set_emitter_cells). */
int lm_emitter_cells(lm_buf *b, const lamina_emitter_cell *const *cells, size_t count) {
    if ((count && !cells) || count > 64)
        return LAMINA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < count; i++)
        if (!cells[i])
            return LAMINA_ERROR_INVALID_ARGUMENT;
    lm_buf_u32(b, (uint32_t)count);
    for (size_t i = 0; i < count; i++)
        encode(b, cells[i]);
    return LAMINA_OK;
}

/* Skips an emitterCells value (a snapshot's or a presentation's), at most 4 levels deep. */
void lm_skip_emitter_cells(lm_reader *r, int depth) {
    uint32_t n = lm_read_u32(r);
    if (n > 64 || (n && depth > 4)) {
        r->failed = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !r->failed; i++) {
        uint32_t fields = lm_read_u16(r);
        for (uint32_t f = 0; f < fields && !r->failed; f++) {
            lamina_value_type type = field_type((int)lm_read_u16(r));
            if (!type)
                r->failed = 1;
            else
                lm_skip_value(r, type);
        }
        lm_skip_emitter_cells(r, depth + 1);
    }
}
