/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_runid.c - a run's identity: the run-number counter kept across up and down, UTC times in ISO 8601. */
#include "farm_runid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "farm_rundir.h"
#include "farm_state.h"

const char *farm_run_counter_path(const char *name, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.next-run", farm_state_base_dir(), name);
    return path;
}

/* txt, decimal digits and an optional newline, in [min, max] into *v. */
static int parse_u64(const char *txt, uint64_t min, uint64_t max, uint64_t *v)
{
    char *end;

    if (txt[0] < '0' || txt[0] > '9')
        return -1;
    errno = 0;
    *v = strtoull(txt, &end, 10);
    if (errno || (*end && strcmp(end, "\n") != 0))
        return -1;
    return *v >= min && *v <= max ? 0 : -1;
}

int farm_run_next(const char *name, uint32_t *next, char *err, size_t len)
{
    char path[600], buf[32] = "";
    uint64_t v;
    FILE *f;

    farm_run_counter_path(name, path, sizeof(path));
    if (!(f = farm_rundir_fopen(path, "r"))) {
        if (errno == ENOENT) {
            *next = 1;
            return 0;
        }
        snprintf(err, len, "cannot read %s: %s", path, farm_rundir_strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (parse_u64(buf, 1, (uint64_t)FARM_RUN_MAX + 1, &v) != 0) {
        buf[strcspn(buf, "\n")] = '\0';
        snprintf(err, len, "%s: \"%s\" is not a run number (1 to %" PRIu64 "); correct it, or "
                 "give the run with --run N", path, buf, (uint64_t)FARM_RUN_MAX + 1);
        return -1;
    }
    *next = (uint32_t)v;
    return 0;
}

int farm_run_set_next(const char *name, uint64_t next, char *err, size_t len)
{
    char path[600], tmp[620];
    FILE *f;

    farm_run_counter_path(name, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
    if (farm_rundir_secure(farm_state_base_dir(), 1, err, len))
        return -1;
    if (!(f = farm_rundir_fopen(tmp, "w")))
        goto fail;
    fprintf(f, "%" PRIu64 "\n", next);
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        fclose(f);
        farm_rundir_unlink(tmp);
        goto fail;
    }
    if (fclose(f) != 0 || farm_rundir_rename(tmp, path) != 0) {
        farm_rundir_unlink(tmp);
        goto fail;
    }
    return 0;
fail:
    snprintf(err, len, "cannot write %s: %s", path, farm_rundir_strerror(errno));
    return -1;
}

int farm_run_take(const char *name, uint32_t want, uint32_t *run, char *err, size_t len)
{
    uint32_t next = 0;

    if (!want && farm_run_next(name, &next, err, len))
        return -1;
    if (!want && next > FARM_RUN_MAX) {
        snprintf(err, len, "farm '%s' has used every run number up to %u; give the run with "
                 "--run N", name, FARM_RUN_MAX);
        return -1;
    }
    *run = want ? want : next;
    return farm_run_set_next(name, (uint64_t)*run + 1, err, len);
}

void farm_run_give_back(const char *name, uint32_t run)
{
    char err[64];
    uint32_t next;

    if (farm_run_next(name, &next, err, sizeof(err)) == 0 && next == (uint64_t)run + 1)
        farm_run_set_next(name, run, err, sizeof(err));
}

int farm_run_parse(const char *txt, uint32_t *run, char *err, size_t len)
{
    uint64_t v;

    if (parse_u64(txt, 1, FARM_RUN_MAX, &v) != 0 || strchr(txt, '\n')) {
        snprintf(err, len, "--run: \"%s\" is not a run number (1 to %u)", txt, FARM_RUN_MAX);
        return -1;
    }
    *run = (uint32_t)v;
    return 0;
}

int64_t farm_utc_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *farm_utc_iso(int64_t ms, char *buf, size_t len)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    char day[24];

    if (ms <= 0 || !gmtime_r(&s, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm)) {
        snprintf(buf, len, "%s", "");
        return buf;
    }
    snprintf(buf, len, "%s.%03dZ", day, (int)(ms % 1000));
    return buf;
}
