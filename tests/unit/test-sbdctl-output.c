/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sbdctl: the JSON writer and the tables. */

#include "json.h"
#include "table.h"
#include "test-sbdctl-check.h"
#include "util.h"

typedef struct Buffer {
        char *data;
        size_t size;
        FILE *f;
} Buffer;

static FILE *buffer_open(Buffer *b) {
        *b = (Buffer) {};
        b->f = open_memstream(&b->data, &b->size);
        CHECK(b->f);
        return b->f;
}

static const char *buffer_close(Buffer *b) {
        CHECK(fclose(b->f) == 0);
        return b->data;
}

static void test_json_document(void) {
        Buffer b;
        SbdJson j = sbd_json_new(buffer_open(&b), false);

        sbd_json_begin_object(&j);
        sbd_json_key(&j, "name");
        sbd_json_string(&j, "sbd0");
        sbd_json_key(&j, "size");
        sbd_json_unsigned(&j, UINT64_MAX);
        sbd_json_key(&j, "delta");
        sbd_json_signed(&j, -3);
        sbd_json_key(&j, "ro");
        sbd_json_boolean(&j, true);
        sbd_json_key(&j, "none");
        sbd_json_null(&j);
        sbd_json_key(&j, "list");
        sbd_json_begin_array(&j);
        sbd_json_string(&j, "a");
        sbd_json_begin_object(&j);
        sbd_json_end_object(&j);
        sbd_json_begin_array(&j);
        sbd_json_end_array(&j);
        sbd_json_double(&j, 0.5);
        sbd_json_end_array(&j);
        sbd_json_end_object(&j);

        CHECK_STREQ(buffer_close(&b),
                    "{\"name\":\"sbd0\",\"size\":18446744073709551615,\"delta\":-3,\"ro\":true,"
                    "\"none\":null,\"list\":[\"a\",{},[],0.5]}");
        free(b.data);
}

/* --json=pretty: two spaces a level, one member a line, empty containers kept short */
static void test_json_pretty(void) {
        Buffer b;
        SbdJson j = sbd_json_new(buffer_open(&b), true);

        sbd_json_begin_object(&j);
        sbd_json_key(&j, "name");
        sbd_json_string(&j, "sbd0");
        sbd_json_key(&j, "list");
        sbd_json_begin_array(&j);
        sbd_json_unsigned(&j, 1);
        sbd_json_begin_object(&j);
        sbd_json_end_object(&j);
        sbd_json_begin_object(&j);
        sbd_json_key(&j, "ro");
        sbd_json_boolean(&j, false);
        sbd_json_end_object(&j);
        sbd_json_end_array(&j);
        sbd_json_end_object(&j);

        CHECK_STREQ(buffer_close(&b),
                    "{\n"
                    "  \"name\": \"sbd0\",\n"
                    "  \"list\": [\n"
                    "    1,\n"
                    "    {},\n"
                    "    {\n"
                    "      \"ro\": false\n"
                    "    }\n"
                    "  ]\n"
                    "}");
        free(b.data);
}

static void test_json_escaping(void) {
        Buffer b;

        sbd_json_write_string(buffer_open(&b), "a\"b\\c\nd\te\x01" "f\x7fg ü");
        CHECK_STREQ(buffer_close(&b), "\"a\\\"b\\\\c\\nd\\te\\u0001f\\u007fg ü\"");
        free(b.data);
}

static void test_table(void) {
        _cleanup_(sbd_table_freep) SbdTable *t = sbd_table_new("DEVICE", "SIZE", "LABEL", NULL);
        Buffer b;

        CHECK(t);
        CHECK_INT(sbd_table_rows(t), 0);
        CHECK_INT(sbd_table_add(t, "sbd0", NULL), 0);
        CHECK_INT(sbd_table_add(t, "16.0M", NULL), 0);
        CHECK_INT(sbd_table_add(t, "data", NULL), 0);
        CHECK_INT(sbd_table_add(t, "sbd10", ANSI_RED), 0);
        CHECK_INT(sbd_table_add(t, "1.0G", NULL), 0);
        CHECK_INT(sbd_table_add(t, "ünïcode", NULL), 0);
        CHECK_INT(sbd_table_rows(t), 2);

        CHECK_INT(sbd_table_print(t, buffer_open(&b), true, false), 0);
        CHECK_STREQ(buffer_close(&b),
                    "DEVICE SIZE  LABEL\n"
                    "sbd0   16.0M data\n"
                    "sbd10  1.0G  ünïcode\n");
        free(b.data);

        CHECK_INT(sbd_table_print(t, buffer_open(&b), false, false), 0);
        CHECK_STREQ(buffer_close(&b),
                    "sbd0   16.0M data\n"
                    "sbd10  1.0G  ünïcode\n");
        free(b.data);

        /* Colours: the header underlined, the red cell red, nothing else. */
        CHECK_INT(sbd_table_print(t, buffer_open(&b), true, true), 0);
        CHECK(strstr(buffer_close(&b), ANSI_UNDERLINE "DEVICE" ANSI_NORMAL " " ANSI_UNDERLINE "SIZE "));
        CHECK(strstr(b.data, ANSI_RED "sbd10 " ANSI_NORMAL " 1.0G "));
        CHECK(strstr(b.data, "\nsbd0   16.0M data\n"));
        free(b.data);

        CHECK_INT(sbd_text_width("ünïcode"), 7);
}

int main(void) {
        test_json_document();
        test_json_pretty();
        test_json_escaping();
        test_table();
        return EXIT_SUCCESS;
}
