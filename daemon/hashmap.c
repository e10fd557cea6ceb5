/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"

/* FNV-1a: short keys, no adversary (keys are sysfs names we read). */
static size_t hash_string(const char *s) {
        uint64_t h = 1469598103934665603ULL;
        for (; *s; s++) {
                h ^= (unsigned char) *s;
                h *= 1099511628211ULL;
        }
        return (size_t) (h ^ (h >> 32));
}

static size_t find_slot(const struct hashmap *h, const char *key) {
        size_t mask = h->n_buckets - 1;
        size_t i = hash_string(key) & mask;

        while (h->entries[i].key && strcmp(h->entries[i].key, key) != 0)
                i = (i + 1) & mask;
        return i;
}

static int resize(struct hashmap *h, size_t n_buckets) {
        struct hashmap_entry *old = h->entries;
        size_t old_n = h->n_buckets;

        h->entries = calloc(n_buckets, sizeof(struct hashmap_entry));
        if (!h->entries) {
                h->entries = old;
                return -ENOMEM;
        }
        h->n_buckets = n_buckets;
        for (size_t i = 0; i < old_n; i++)
                if (old[i].key)
                        h->entries[find_slot(h, old[i].key)] = old[i];
        free(old);
        return 0;
}

int hashmap_put(struct hashmap *h, const char *key, void *value) {
        size_t i;

        /* Keep the load factor at or below 1/2 so that probes stay short. */
        if ((h->n_entries + 1) * 2 > h->n_buckets) {
                int r = resize(h, h->n_buckets ? h->n_buckets * 2 : 16);
                if (r < 0)
                        return r;
        }
        i = find_slot(h, key);
        if (h->entries[i].key)
                return -EEXIST;
        h->entries[i].key = key;
        h->entries[i].value = value;
        h->n_entries++;
        return 0;
}

void *hashmap_get(const struct hashmap *h, const char *key) {
        size_t i;

        if (h->n_entries == 0)
                return NULL;
        i = find_slot(h, key);
        return h->entries[i].key ? h->entries[i].value : NULL;
}

void *hashmap_remove(struct hashmap *h, const char *key) {
        size_t mask, i, j;
        void *value;

        if (h->n_entries == 0)
                return NULL;
        mask = h->n_buckets - 1;
        i = find_slot(h, key);
        if (!h->entries[i].key)
                return NULL;
        value = h->entries[i].value;
        h->entries[i].key = NULL;
        h->n_entries--;

        /* Backward-shift deletion: move later members of the probe run
         * into the hole when their home bucket allows it, so lookups
         * never need tombstones. */
        j = i;
        for (;;) {
                size_t home;

                j = (j + 1) & mask;
                if (!h->entries[j].key)
                        break;
                home = hash_string(h->entries[j].key) & mask;
                /* Is home cyclically in (i, j]? Then the entry stays. */
                if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
                        continue;
                h->entries[i] = h->entries[j];
                h->entries[j].key = NULL;
                i = j;
        }
        return value;
}

void hashmap_clear(struct hashmap *h) {
        free(h->entries);
        h->entries = NULL;
        h->n_buckets = h->n_entries = 0;
}
