/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "hashmap.h"

#define N 20000

int main(void) {
        struct hashmap h = {};
        static char keys[N][32];
        int ok = 1;

        CHECK(hashmap_get(&h, "x") == NULL);
        CHECK(hashmap_remove(&h, "x") == NULL);
        for (int i = 0; i < N; i++) {
                snprintf(keys[i], sizeof(keys[i]), "/org/sbd/Sbd1/devices/sbd%d", i);
                ok &= hashmap_put(&h, keys[i], keys[i]) == 0;
        }
        CHECK(ok);
        CHECK(hashmap_size(&h) == N);
        CHECK(hashmap_put(&h, keys[5], keys[5]) == -EEXIST);
        ok = 1;
        for (int i = 0; i < N; i++)
                ok &= hashmap_get(&h, keys[i]) == keys[i];
        CHECK(ok);
        /* remove every other one; the rest must stay reachable
         * (backward-shift deletion keeps probe runs intact) */
        ok = 1;
        for (int i = 0; i < N; i += 2)
                ok &= hashmap_remove(&h, keys[i]) == keys[i];
        CHECK(ok);
        CHECK(hashmap_size(&h) == N / 2);
        ok = 1;
        for (int i = 0; i < N; i++)
                ok &= hashmap_get(&h, keys[i]) == (i % 2 ? keys[i] : NULL);
        CHECK(ok);
        /* and back */
        ok = 1;
        for (int i = 0; i < N; i += 2)
                ok &= hashmap_put(&h, keys[i], keys[i]) == 0;
        for (int i = 0; i < N; i++)
                ok &= hashmap_get(&h, keys[i]) == keys[i];
        CHECK(ok);
        CHECK(hashmap_get(&h, "/org/sbd/Sbd1/devices/sbd20000") == NULL);
        hashmap_clear(&h);
        CHECK(hashmap_size(&h) == 0 && hashmap_get(&h, keys[1]) == NULL);
        return check_finish("hashmap");
}
