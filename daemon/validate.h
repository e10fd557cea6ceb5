/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Checks of a caller's input that need neither the kernel nor the bus:
 * they run before polkit is asked, so that bad or oversized input costs
 * the daemon little, is refused with a named error and never prompts.
 * Pure, for tests/unit. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"

/* At most this many parameters in one Module.Load (the module declares
 * five; a longer list is a mistake or an attack). */
#define LOAD_PARAMS_MAX 64
/* A parameter's value: sizes and counts, never near this long. */
#define LOAD_PARAM_VALUE_MAX 256
/* A parameter's name. The kernel sets no bound of its own, but every
 * parameter a module shows is a file in /sys/module/NAME/parameters/,
 * and a path component is at most NAME_MAX (255) bytes: a longer key
 * names no parameter sbdd could ever show back. The bound matters when
 * the module's own list is unknown (no .ko): then only this keeps 64
 * keys of megabytes each from being held while polkit decides. */
#define LOAD_PARAM_KEY_MAX 255

/* Module.Load's parameters, checked one by one as they are read off the
 * message: O(1) each (a hash of the keys seen), so a whole list costs
 * linear time, and reading stops at the first bad one. The keys are not
 * copied: they must outlive the check (they point into the message). */
struct param_check {
        char *const *known;  /* the module's parameter names; NULL: unknown */
        struct hashmap seen;
        size_t count;
};

/* 0, or: -E2BIG (more than LOAD_PARAMS_MAX), -ENAMETOOLONG (a key longer
 * than LOAD_PARAM_KEY_MAX), -EINVAL (a key or value the kernel would
 * misparse, or a value longer than LOAD_PARAM_VALUE_MAX),
 * -ENOKEY (not a parameter of the module), -ENOTUNIQ (given twice),
 * -ENOMEM. */
int param_check_add(struct param_check *c, const char *key, const char *value);
void param_check_done(struct param_check *c);

/* Whether text, a value about to be written, equals the cached text of
 * the attribute as its type reads it ("1" and "y" are the same b). */
bool attr_value_equal(char type, const char *cached, const char *text);

/* AddDevice's size as new_device takes it: not 0, a multiple of 512, at
 * most max_size (0: unknown). -EINVAL or -ERANGE (over max_size). */
int add_size_check(uint64_t size, uint64_t max_size);

/* A label: 1 to this many printable ASCII characters (the module's
 * SBD_LABEL_MAX). */
#define LABEL_MAX 31u

/* The module's own rules for a value about to be written to a device
 * attribute, checked before polkit so that a value the kernel refuses
 * never prompts: size a positive multiple of 512, at most max_size and
 * max_total (each 0: unknown); label 1 to LABEL_MAX printable ASCII
 * characters. Other attributes have no rules here (the kernel judges).
 * 0, or -EINVAL with the rule broken in why. */
int device_attr_check(const char *file, const char *text, uint64_t max_size, uint64_t max_total, char *why,
                      size_t size);

/* A caller's text as shown to polkit (details and dialogs): printable
 * ASCII only, with \\, \n, \t and \xNN escapes, at most
 * DIALOG_TEXT_MAX characters and then "...". NULL: out of memory. */
#define DIALOG_TEXT_MAX 64
char *text_for_dialog(const char *s);
/* The same, cut after max characters (the journal's audit records). */
char *text_escape(const char *s, size_t max);

/* Attribute text for a D-Bus string: sd-bus refuses a string that is not
 * valid UTF-8, and one such value would fail a whole GetAll or
 * GetManagedObjects. Returns 0 when s is valid as it is (*ret untouched),
 * 1 with *ret a copy where every byte of an invalid sequence is replaced
 * by U+FFFD, -ENOMEM. */
int text_make_utf8(const char *s, char **ret);
bool utf8_valid(const char *s);
