/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>

#include "table.h"
#include "util.h"

SbdTable *sbd_table_new(const char *first, ...) {
        SbdTable *t = calloc(1, sizeof(SbdTable));
        va_list ap;

        if (!t)
                return NULL;

        va_start(ap, first);
        for (const char *h = first; h; h = va_arg(ap, const char *)) {
                if (sbd_table_add(t, h, NULL) < 0) {
                        va_end(ap);
                        sbd_table_free(t);
                        return NULL;
                }
                t->n_columns++;
        }
        va_end(ap);
        return t;
}

void sbd_table_free(SbdTable *t) {
        if (!t)
                return;
        for (size_t i = 0; i < t->n_cells; i++)
                free(t->cells[i].text);
        free(t->cells);
        free(t);
}

int sbd_table_add(SbdTable *t, const char *text, const char *color) {
        SbdTableCell *n;
        char *copy = strdup(strempty(text));

        if (!copy)
                return -ENOMEM;
        n = realloc(t->cells, (t->n_cells + 1) * sizeof(SbdTableCell));
        if (!n) {
                free(copy);
                return -ENOMEM;
        }
        t->cells = n;
        t->cells[t->n_cells++] = (SbdTableCell) { .text = copy, .color = color };
        return 0;
}

size_t sbd_table_rows(const SbdTable *t) {
        if (t->n_columns == 0)
                return 0;
        return (t->n_cells + t->n_columns - 1) / t->n_columns - 1;
}

size_t sbd_text_width(const char *s) {
        size_t w = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p & 0xc0) != 0x80)
                        w++;
        return w;
}

static void column_widths(const SbdTable *t, size_t *widths) {
        for (size_t c = 0; c < t->n_columns; c++)
                widths[c] = 0;
        for (size_t i = 0; i < t->n_cells; i++) {
                size_t w = sbd_text_width(t->cells[i].text);

                if (w > widths[i % t->n_columns])
                        widths[i % t->n_columns] = w;
        }
}

static void print_cell(const SbdTableCell *cell, FILE *f, size_t width, bool last, const char *color) {
        size_t w = sbd_text_width(cell->text);

        if (color)
                fputs(color, f);
        fputs(cell->text, f);
        /* The header is underlined across the padding, as systemd does. */
        for (size_t k = w; !last && k < width; k++)
                fputc(' ', f);
        if (color)
                fputs(ANSI_NORMAL, f);
        if (!last)
                fputc(' ', f);
}

int sbd_table_print(const SbdTable *t, FILE *f, bool legend, bool colors) {
        _cleanup_free_ size_t *widths = NULL;

        if (t->n_columns == 0)
                return 0;
        widths = calloc(t->n_columns, sizeof(size_t));
        if (!widths)
                return -ENOMEM;
        column_widths(t, widths);

        for (size_t i = legend ? 0 : t->n_columns; i < t->n_cells; i++) {
                size_t c = i % t->n_columns;
                bool header = i < t->n_columns;
                bool last = c == t->n_columns - 1 || i == t->n_cells - 1;
                const char *color = !colors ? NULL : header ? ANSI_UNDERLINE : t->cells[i].color;

                print_cell(t->cells + i, f, widths[c], last, color);
                if (last)
                        fputc('\n', f);
        }
        return 0;
}
