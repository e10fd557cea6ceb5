/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "config.h"
#include "util.h"
#include "validate.h"

void config_init(struct config *c) {
        *c = (struct config) {
                .load = true,
                .uevent_source = UEVENT_SOURCE_AUTO,
                .log_level = LOG_INFO,
                .max_message_size = BUS_MESSAGE_SIZE_DEFAULT,
                .audit_rate_interval_usec = AUDIT_RATE_INTERVAL_SEC_DEFAULT * 1000000ULL,
                .audit_rate_burst = AUDIT_RATE_BURST_DEFAULT,
        };
}

void config_done(struct config *c) {
        free(c->module_path);
        strv_free(c->params);
        c->module_path = NULL;
        c->params = NULL;
}

int uevent_source_from_string(const char *s) {
        if (streq(s, "auto"))
                return UEVENT_SOURCE_AUTO;
        if (streq(s, "udev"))
                return UEVENT_SOURCE_UDEV;
        if (streq(s, "kernel"))
                return UEVENT_SOURCE_KERNEL;
        return -EINVAL;
}

const char *uevent_source_to_string(enum uevent_source s) {
        switch (s) {
        case UEVENT_SOURCE_UDEV:
                return "udev";
        case UEVENT_SOURCE_KERNEL:
                return "kernel";
        default:
                return "auto";
        }
}

int parse_boolean(const char *s) {
        if (streq(s, "1") || streq(s, "yes") || streq(s, "true") || streq(s, "on"))
                return 1;
        if (streq(s, "0") || streq(s, "no") || streq(s, "false") || streq(s, "off"))
                return 0;
        return -EINVAL;
}

bool module_param_key_valid(const char *key, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!isascii((unsigned char) key[i]) ||
                    !(isalnum((unsigned char) key[i]) || key[i] == '_'))
                        return false;
        return true;
}

bool module_param_value_valid(const char *value) {
        /* The kernel splits the parameter string at whitespace and treats
         * quotes specially: refuse both rather than quote, these values
         * are sizes and counts. */
        if (*value == '\0')
                return false;
        for (const char *p = value; *p; p++)
                if (isspace((unsigned char) *p) || *p == '"' || !isprint((unsigned char) *p))
                        return false;
        return true;
}

int config_set_param(struct config *c, const char *assignment) {
        const char *eq = strchr(assignment, '=');
        size_t klen, n = 0;
        char **l;

        if (!eq)
                return -EINVAL;
        klen = (size_t) (eq - assignment);
        if (!module_param_key_valid(assignment, klen) || !module_param_value_valid(eq + 1))
                return -EINVAL;

        for (l = c->params; l && *l; l++, n++)
                if (strncmp(*l, assignment, klen + 1) == 0) {
                        char *s = strdup(assignment);
                        if (!s)
                                return -ENOMEM;
                        free(*l);
                        *l = s;
                        return 0;
                }

        /* Bounded like Module.Load's list: each new key costs a scan of
         * the ones before, so the bound also bounds that. */
        if (n >= LOAD_PARAMS_MAX)
                return -E2BIG;
        l = realloc(c->params, (n + 2) * sizeof(char *));
        if (!l)
                return -ENOMEM;
        c->params = l;
        l[n] = strdup(assignment);
        if (!l[n])
                return -ENOMEM;
        l[n + 1] = NULL;
        return 0;
}

int config_params_string(char **params, char **ret) {
        size_t len = 1;
        char *s;

        for (char **l = params; l && *l; l++)
                len += strlen(*l) + 1;
        s = malloc(len);
        if (!s)
                return -ENOMEM;
        s[0] = '\0';
        for (char **l = params; l && *l; l++) {
                if (l != params)
                        strcat(s, " ");
                strcat(s, *l);
        }
        *ret = s;
        return 0;
}

static char *strip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

static int config_assign(struct config *c, const char *section, const char *key, const char *value) {
        int r;

        if (streq(section, "Parameters")) {
                _cleanup_free_ char *a = NULL;
                if (asprintf(&a, "%s=%s", key, value) < 0)
                        return -ENOMEM;
                return config_set_param(c, a);
        }
        if (streq(section, "Daemon")) {
                if (streq(key, "UeventSource")) {
                        r = uevent_source_from_string(value);
                        if (r < 0)
                                return r;
                        c->uevent_source = r;
                        return 0;
                }
                if (streq(key, "MaxMessageSize")) {
                        uint64_t v;
                        r = attr_parse_u64(value, &v);
                        if (r < 0 || v < 4096 || v > UINT32_MAX)
                                return -EINVAL;
                        c->max_message_size = v;
                        return 0;
                }
                if (streq(key, "AuditRateLimitIntervalSec") || streq(key, "AuditRateLimitBurst")) {
                        uint64_t v;
                        r = attr_parse_u64(value, &v);
                        if (r < 0 || v > 86400 * 365)
                                return -EINVAL;
                        if (streq(key, "AuditRateLimitBurst"))
                                c->audit_rate_burst = (unsigned) v;
                        else if (v == 0)
                                return -EINVAL;
                        else
                                c->audit_rate_interval_usec = v * 1000000ULL;
                        return 0;
                }
                if (streq(key, "LogLevel")) {
                        r = log_parse_level(value);
                        if (r < 0)
                                return r;
                        c->log_level = r;
                        return 0;
                }
                return -EINVAL;
        }
        if (streq(section, "Module")) {
                if (streq(key, "Load") || streq(key, "UnloadOnExit")) {
                        r = parse_boolean(value);
                        if (r < 0)
                                return r;
                        if (streq(key, "Load"))
                                c->load = r;
                        else
                                c->unload_on_exit = r;
                        return 0;
                }
                if (streq(key, "Path")) {
                        r = free_and_strdup(&c->module_path, *value ? value : NULL);
                        return r < 0 ? r : 0;
                }
                return -EINVAL;
        }
        return -EINVAL;
}

int config_parse_string(struct config *c, const char *text, const char *origin) {
        _cleanup_free_ char *copy = strdup(text);
        _cleanup_free_ char *section = NULL;
        char *line, *next;
        unsigned lineno = 0;
        int r;

        if (!copy)
                return -ENOMEM;
        for (line = copy; line; line = next) {
                char *s, *eq;

                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                lineno++;
                s = strip(line);
                if (*s == '\0' || *s == '#' || *s == ';')
                        continue;
                if (*s == '[') {
                        char *e = strchr(s, ']');
                        if (!e || e[1] != '\0')
                                return log_error_errno(-EINVAL, "%s:%u: bad section header.", origin, lineno);
                        *e = '\0';
                        r = free_and_strdup(&section, s + 1);
                        if (r < 0)
                                return r;
                        continue;
                }
                eq = strchr(s, '=');
                if (!eq || !section)
                        return log_error_errno(-EINVAL, "%s:%u: expected KEY=VALUE in a section.", origin, lineno);
                *eq = '\0';
                r = config_assign(c, section, strip(s), strip(eq + 1));
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return log_error_errno(r, "%s:%u: invalid setting %s in [%s].", origin, lineno, strip(s), section);
        }
        return 0;
}

int config_parse_file(struct config *c, const char *path) {
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        _cleanup_free_ char *text = NULL;
        size_t size = 0;

        if (!f)
                return -errno;
        {
                /* Read the whole (small) file. */
                FILE *mem = open_memstream(&text, &size);
                char buf[4096];
                size_t n;

                if (!mem)
                        return -ENOMEM;
                while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                        fwrite(buf, 1, n, mem);
                fclose(mem);
        }
        if (ferror(f))
                return -EIO;
        return config_parse_string(c, text ?: "", path);
}
