/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <time.h>

#include "util.h"

/* The log threshold is process-wide configuration set once at start-up
 * from the command line, not daemon state; it lives here so that every
 * file (and the unit tests) can log without a context pointer. */
static int log_max_level = LOG_INFO;
static int log_prefix_mode = -1; /* -1 unknown, 0 plain, 1 <N> prefixes */

void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}

char **strv_copy(const char *const *l) {
        size_t n = 0;
        char **c;

        if (!l)
                return NULL;
        while (l[n])
                n++;
        c = calloc(n + 1, sizeof(char *));
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!(c[i] = strdup(l[i]))) {
                        strv_free(c);
                        return NULL;
                }
        return c;
}

const char *startswith(const char *s, const char *prefix) {
        size_t l = strlen(prefix);
        return strncmp(s, prefix, l) == 0 ? s + l : NULL;
}

int free_and_strdup(char **p, const char *s) {
        char *n = NULL;

        if (streq_ptr(*p, s))
                return 0;
        if (s) {
                n = strdup(s);
                if (!n)
                        return -ENOMEM;
        }
        free(*p);
        *p = n;
        return 1;
}

void log_set_max_level(int level) {
        log_max_level = level;
}

int log_get_max_level(void) {
        return log_max_level;
}

int log_parse_level(const char *s) {
        static const char *const names[] = {
                [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
                [LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
                [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return (int) i;
        return -EINVAL;
}

static _printf_(2, 0) void log_write(int level, const char *fmt, va_list ap) {
        int saved = errno;

        if (log_prefix_mode < 0)
                /* Under systemd stderr is connected to the journal, which
                 * parses a leading <N> as the message's priority. */
                log_prefix_mode = getenv("JOURNAL_STREAM") ? 1 : 0;

        if (log_prefix_mode)
                fprintf(stderr, "<%i>", level);
        else
                fputs("sbdd: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        errno = saved;
}

void log_full(int level, const char *fmt, ...) {
        va_list ap;

        if (level > log_max_level)
                return;
        va_start(ap, fmt);
        log_write(level, fmt, ap);
        va_end(ap);
}

int log_full_errno(int level, int error, const char *fmt, ...) {
        va_list ap;

        if (error > 0)
                error = -error;
        if (level > log_max_level)
                return error;
        /* %m in fmt refers to this error. */
        errno = -error;
        va_start(ap, fmt);
        log_write(level, fmt, ap);
        va_end(ap);
        return error;
}

uint64_t monotonic_usec(void) {
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}
