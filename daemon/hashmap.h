/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>

/* A string-keyed map of pointers, open addressing with linear probing.
 * The map does not own keys or values: a key must stay valid while its
 * entry is in the map (sbdd keys objects by their own path string).
 * It exists because sd-bus calls our find callbacks for every property
 * access and GetManagedObjects entry: the lookup must be O(1) and must
 * not allocate. */

struct hashmap_entry {
        const char *key;
        void *value;
};

struct hashmap {
        struct hashmap_entry *entries;
        size_t n_buckets; /* a power of two, or 0 */
        size_t n_entries;
};

/* Returns 0 on success, -EEXIST when the key is present, -ENOMEM. */
int hashmap_put(struct hashmap *h, const char *key, void *value);
void *hashmap_get(const struct hashmap *h, const char *key);
/* Returns the removed value, or NULL. */
void *hashmap_remove(struct hashmap *h, const char *key);
void hashmap_clear(struct hashmap *h);
static inline size_t hashmap_size(const struct hashmap *h) {
        return h->n_entries;
}
