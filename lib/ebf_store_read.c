/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_store_read.c - map an event storage file, check its header and trailer, step through its records. */
#include "ebf_store_read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int ebf_store_open(struct ebf_store_file *f, const char *path, char *err, size_t len)
{
    char why[256];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    memset(f, 0, sizeof(*f));
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        snprintf(err, len, "%s: %s", path, strerror(e));
        if (fd >= 0)
            close(fd);
        return -e;
    }
    f->size = (uint64_t)st.st_size;
    if (f->size) {
        void *m = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            snprintf(err, len, "%s: mmap: %s", path, strerror(e));
            close(fd);
            return -e;
        }
        f->map = m;
    }
    close(fd);
    if (ebf_store_hdr_parse(f->map, (size_t)f->size, &f->hdr, why, sizeof(why))) {
        snprintf(err, len, "%s: %s", path, why);
        ebf_store_close(f);
        return -EINVAL;
    }
    f->trl_err = ebf_store_trailer_find(f->map, f->size, &f->trl, f->trl_why, sizeof(f->trl_why));
    f->end = f->trl_err == EBF_STORE_E_OK ? f->trl.offset : f->size;
    f->pos = EBF_STORE_HDR_LEN;
    return 0;
}

void ebf_store_close(struct ebf_store_file *f)
{
    if (f->map)
        munmap((void *)(uintptr_t)f->map, (size_t)f->size);
    f->map = NULL;
}

int ebf_store_next(struct ebf_store_file *f, struct ebf_store_rec *r, char *err, size_t len)
{
    char why[256];
    uint64_t at = f->pos;

    if (at >= f->end)
        return 0;
    if (f->trl_err != EBF_STORE_E_OK && f->end - at >= 4 && memcmp(f->map + at, "EVTR", 4) == 0) {
        f->truncated = 1;       /* the records are whole, the trailer is not */
        f->end = at;
        snprintf(err, len, "cut short in the trailer after %" PRIu64 " whole records (%s)",
                 f->n, f->trl_why);
        return 0;
    }
    enum ebf_store_err e = ebf_store_rec_parse(f->map + at, (size_t)(f->end - at), r, why,
                                               sizeof(why));
    if (e == EBF_STORE_E_OK) {
        f->pos += r->len;
        f->n++;
        return 1;
    }
    if (e == EBF_STORE_E_SHORT && f->trl_err != EBF_STORE_E_OK) {
        f->truncated = 1;
        f->end = at;
        snprintf(err, len, "cut short after %" PRIu64 " whole records: %" PRIu64 " bytes at "
                 "offset %" PRIu64 " are not a whole record (%s)", f->n, f->size - at, at, why);
        return 0;
    }
    snprintf(err, len, "record at offset %" PRIu64 ": %s", at, why);
    if (e == EBF_STORE_E_BAD_CRC)
        f->pos += r->len;       /* its length was within bounds: step over it */
    else
        f->end = at;
    return -1;
}
