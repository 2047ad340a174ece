/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_kv.c - reading and writing stats files. */
#include "ebf_kv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int ebf_kv_load(struct ebf_kv *kv, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256];
    unsigned cap = 0;
    int rc = 0;

    kv->n = 0;
    kv->pair = NULL;
    if (!f)
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        char key[96], val[64];
        if (line[0] == '\n' || line[0] == '#')
            continue;
        if (sscanf(line, "%95s %63s", key, val) != 2) {
            rc = -EINVAL;
            break;
        }
        if (kv->n == cap) {
            cap = cap ? cap * 2 : 64;
            struct ebf_kv_pair *p = realloc(kv->pair, cap * sizeof(*p));
            if (!p) {
                rc = -ENOMEM;
                break;
            }
            kv->pair = p;
        }
        memcpy(kv->pair[kv->n].key, key, sizeof(key));
        memcpy(kv->pair[kv->n].val, val, sizeof(val));
        kv->n++;
    }
    fclose(f);
    if (rc)
        ebf_kv_free(kv);
    return rc;
}

void ebf_kv_free(struct ebf_kv *kv)
{
    free(kv->pair);
    kv->pair = NULL;
    kv->n = 0;
}

const char *ebf_kv_str(const struct ebf_kv *kv, const char *key)
{
    for (unsigned i = 0; i < kv->n; i++)
        if (strcmp(kv->pair[i].key, key) == 0)
            return kv->pair[i].val;
    return NULL;
}

uint64_t ebf_kv_u64(const struct ebf_kv *kv, const char *key, uint64_t def)
{
    const char *s = ebf_kv_str(kv, key);
    char *end;

    if (!s)
        return def;
    errno = 0;
    uint64_t v = strtoull(s, &end, 0);
    if (errno || *end)
        return def;
    return v;
}

FILE *ebf_kv_create(const char *path)
{
    char tmp[4096];

    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return fopen(tmp, "w");
}

int ebf_kv_commit(FILE *f, const char *path)
{
    char tmp[4096];

    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if (ferror(f)) {
        fclose(f);
        errno = EIO;
        return -1;
    }
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

void ebf_kv_put(FILE *f, const char *key, uint64_t v)
{
    fprintf(f, "%s %" PRIu64 "\n", key, v);
}

void ebf_kv_put_each(FILE *f, const char *prefix, const uint64_t *v, unsigned first,
                     unsigned n, const char *(*name)(unsigned i))
{
    for (unsigned i = first; i < n; i++)
        fprintf(f, "%s%s %" PRIu64 "\n", prefix, name(i), v[i]);
}
