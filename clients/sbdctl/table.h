/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Aligned text tables with an optional header line, as systemd's tools print them. */

#include <stdbool.h>
#include <stdio.h>

#define ANSI_NORMAL "\x1b[0m"
#define ANSI_UNDERLINE "\x1b[0;4m"
#define ANSI_HIGHLIGHT "\x1b[0;1;39m"
#define ANSI_RED "\x1b[0;1;31m"
#define ANSI_GREEN "\x1b[0;1;32m"
#define ANSI_GREY "\x1b[0;38;5;245m"

typedef struct SbdTableCell {
        char *text;
        const char *color;      /* static ANSI sequence or NULL */
} SbdTableCell;

typedef struct SbdTable {
        size_t n_columns;
        SbdTableCell *cells;    /* row-major, the header row first */
        size_t n_cells;
} SbdTable;

/* Creates a table whose header row holds the given column names (NULL-terminated). */
SbdTable *sbd_table_new(const char *first, ...) __attribute__((sentinel));
void sbd_table_free(SbdTable *t);
static inline void sbd_table_freep(SbdTable **t) {
        sbd_table_free(*t);
}

/* Appends a cell; rows wrap after n_columns cells. */
int sbd_table_add(SbdTable *t, const char *text, const char *color);

size_t sbd_table_rows(const SbdTable *t);

/* Prints the table; with legend the header line comes first. */
int sbd_table_print(const SbdTable *t, FILE *f, bool legend, bool colors);

/* Display width of UTF-8 text (one column per code point). */
size_t sbd_text_width(const char *s);
