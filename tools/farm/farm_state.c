/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_state.c - the run directory of a farm that is up and its state file, farm.state. */
#include "farm_state.h"

#include "farm_rundir.h"
#include "farmfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *farm_state_base_dir(void)
{
    static char dir[512];
    const char *e = getenv("EBFARM_RUN_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");

    if (e && *e)
        return e;
    if (geteuid() == 0)
        return "/run/ebfarm";
    if (xdg && xdg[0] == '/')
        snprintf(dir, sizeof(dir), "%s/ebfarm", xdg);
    else
        snprintf(dir, sizeof(dir), "/tmp/ebfarm-%u", (unsigned)geteuid());
    return dir;
}

const char *farm_role_name(enum farm_role role)
{
    switch (role) {
    case FARM_SFC: return "sfc";
    case FARM_NODE: return "node";
    case FARM_READOUT: return "readout";
    }
    return "unknown";
}

/* The address a "{host}" in an endpoint stands for: the host's address
 * (an IPv6 one in brackets), 127.0.0.1 on a local host. */
static void host_addr(const struct farm_state *st, const char *host, char *buf, size_t len)
{
    for (unsigned i = 0; i < st->n_hosts; i++) {
        const struct farm_host *h = &st->host[i];
        if (strcmp(h->name, host) != 0 || !h->address[0])
            continue;
        snprintf(buf, len, strchr(h->address, ':') ? "[%s]" : "%s", h->address);
        return;
    }
    snprintf(buf, len, "127.0.0.1");
}

/* s with every "{run}" replaced by run_dir and every "{host}" by addr, into out. */
static void subst(char *out, size_t len, const char *s, const char *run_dir, const char *addr)
{
    size_t o = 0;

    while (*s && o + 1 < len) {
        if (strncmp(s, "{run}", 5) == 0) {
            o += (size_t)snprintf(out + o, len - o, "%s", run_dir);
            s += 5;
        } else if (strncmp(s, "{host}", 6) == 0) {
            o += (size_t)snprintf(out + o, len - o, "%s", addr);
            s += 6;
        } else {
            out[o++] = *s++;
        }
    }
    out[o < len ? o : len - 1] = '\0';
}

void farm_state_add(struct farm_state *st, const struct farm_spec *s, const struct ff_proc *p,
                    enum farm_role role)
{
    struct farm_proc *fp = &st->proc[st->n++];
    char addr[FF_ADDR_MAX + 2];

    memset(fp, 0, sizeof(*fp));
    snprintf(fp->name, sizeof(fp->name), "%s", p->name);
    snprintf(fp->host, sizeof(fp->host), "%s",
             p->host < s->n_hosts ? s->host[p->host].name : FF_LOCALHOST);
    fp->remote = p->host < s->n_hosts && s->host[p->host].kind != FF_HOST_LOCAL;
    fp->role = role;
    fp->start_cpus = p->start_cpus;
    snprintf(fp->prefix, sizeof(fp->prefix), "ebf%d-%s-%s", (int)getpid(), s->name, p->name);
    host_addr(st, fp->host, addr, sizeof(addr));
    subst(fp->control, sizeof(fp->control), p->control, st->run_dir, addr);
    subst(fp->metrics, sizeof(fp->metrics), p->metrics, st->run_dir, addr);
}

static const char *const launch_names[] = {"local", "plain", "unit"};

static const char *dash(const char *s)
{
    return s[0] ? s : "-";
}

/* The hosts' lines of the state file. */
static void save_hosts(FILE *f, const struct farm_state *st)
{
    if (st->ssh_dir[0])
        fprintf(f, "ssh_dir %s\n", st->ssh_dir);
    if (st->netns)
        fprintf(f, "netns 1\n");
    for (unsigned i = 0; i < st->n_hosts; i++) {
        const struct farm_host *h = &st->host[i];
        fprintf(f, "host %s %s %s %s %s %s\n", h->name, farm_host_kind_name(h->kind),
                launch_names[h->launch], dash(h->user), dash(h->address), dash(h->netns));
    }
}

int farm_state_save(const struct farm_state *st)
{
    char path[600], tmp[610];

    snprintf(path, sizeof(path), "%s/farm.state", st->run_dir);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = farm_rundir_fopen(tmp, "w");
    if (!f)
        return -errno;
    fprintf(f, "farm %s\nrun_number %u\nfarm_file %s\n", st->name, st->run_number,
            st->farm_file[0] ? st->farm_file : "-");
    fprintf(f, "run_start_ms %lld\nfarm_file_sha256 %s\n", (long long)st->run_start_ms,
            st->farm_file_sha256[0] ? st->farm_file_sha256 : "-");
    if (st->keys[0])
        fprintf(f, "keys %s\n", st->keys);
    if (st->insecure)
        fprintf(f, "insecure 1\n");
    save_hosts(f, st);
    for (unsigned i = 0; i < st->n; i++) {
        const struct farm_proc *p = &st->proc[i];
        fprintf(f, "proc %s %s %d %s %s %s %s %d %d\n", p->name, farm_role_name(p->role),
                (int)p->pid, p->prefix, p->control, p->metrics, p->host[0] ? p->host : "-",
                (int)p->kpid, p->remote);
    }
    if (fclose(f) != 0 || farm_rundir_rename(tmp, path) != 0)
        return -errno;
    return 0;
}

int farm_state_save_err(const struct farm_state *st, char *err, size_t len)
{
    int rc = farm_state_save(st);

    if (rc)
        snprintf(err, len, "cannot write %s/farm.state: %s", st->run_dir,
                 farm_rundir_strerror(-rc));
    return rc;
}

int farm_state_dir_check(const char *run_dir, char *err, size_t len)
{
    static const char zeros[4096];
    char path[640];
    int rc = 0;

    snprintf(path, sizeof(path), "%s/.room", run_dir);
    int fd = farm_rundir_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        rc = -errno;
    for (size_t done = 0; rc == 0 && done < FARM_STATE_ROOM; done += sizeof(zeros))
        if (write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
            rc = errno ? -errno : -ENOSPC;
    if (fd >= 0 && close(fd) != 0 && rc == 0)
        rc = -errno;
    if (fd >= 0)
        farm_rundir_unlink(path);
    if (rc)
        snprintf(err, len, "the run directory %s cannot take the logs and the state: cannot "
                 "write %s: %s", run_dir, path, farm_rundir_strerror(-rc));
    return rc;
}

/* A "host" line of a state file into st. */
static void load_host(const char *line, struct farm_state *st)
{
    struct farm_host *h = &st->host[st->n_hosts];
    char kind[16], launch[16];

    if (st->n_hosts >= FF_MAX_HOSTS ||
        sscanf(line, "host %32s %15s %15s %32s %253s %32s", h->name, kind, launch, h->user,
               h->address, h->netns) != 6)
        return;
    h->kind = !strcmp(kind, "ssh") ? FF_HOST_SSH : !strcmp(kind, "netns") ? FF_HOST_NETNS
                                                                           : FF_HOST_LOCAL;
    h->launch = !strcmp(launch, "unit") ? FARM_LAUNCH_UNIT
                : !strcmp(launch, "plain") ? FARM_LAUNCH_PLAIN : FARM_LAUNCH_LOCAL;
    char *field[] = {h->user, h->address, h->netns};
    for (unsigned i = 0; i < 3; i++)
        if (!strcmp(field[i], "-"))
            field[i][0] = '\0';
    st->n_hosts++;
}

/* A "proc" line of a state file into st. */
static void load_proc(const char *line, struct farm_state *st)
{
    struct farm_proc *p = &st->proc[st->n];
    char role[16];
    int pid, kpid = 0;

    if (st->n < FARM_MAX_PROCS &&
        sscanf(line, "proc %32s %15s %d %95s %255s %255s %32s %d %d", p->name, role, &pid,
               p->prefix, p->control, p->metrics, p->host, &kpid, &p->remote) >= 6) {
        if (!strcmp(p->host, "-"))
            p->host[0] = '\0';
        p->pid = pid;
        p->kpid = kpid;
        p->role = strcmp(role, "sfc") == 0 ? FARM_SFC
                  : strcmp(role, "node") == 0 ? FARM_NODE : FARM_READOUT;
        st->n++;
    }
}

/* One line of a state file into st; lines it does not know are skipped. */
static void load_line(const char *line, struct farm_state *st)
{
    long long ms;

    if (!strncmp(line, "keys ", 5)) {
        snprintf(st->keys, sizeof(st->keys), "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
        return;
    }
    if (sscanf(line, "insecure %d", &st->insecure) == 1 ||
        sscanf(line, "netns %d", &st->netns) == 1 ||
        sscanf(line, "ssh_dir %127s", st->ssh_dir) == 1)
        return;
    if (sscanf(line, "run_start_ms %lld", &ms) == 1) {
        st->run_start_ms = ms;
        return;
    }
    if (sscanf(line, "farm_file_sha256 %64s", st->farm_file_sha256) == 1) {
        if (!strcmp(st->farm_file_sha256, "-"))
            st->farm_file_sha256[0] = '\0';
        return;
    }
    if (sscanf(line, "farm_file %511s", st->farm_file) == 1 ||
        sscanf(line, "farm %32s", st->name) == 1 ||
        sscanf(line, "run_number %u", &st->run_number) == 1)
        return;
    if (!strncmp(line, "host ", 5))
        load_host(line, st);
    else if (!strncmp(line, "proc ", 5))
        load_proc(line, st);
}

int farm_state_load(const char *run_dir, struct farm_state *st, char *err, size_t len)
{
    char path[600], line[1200];

    memset(st, 0, sizeof(*st));
    snprintf(st->run_dir, sizeof(st->run_dir), "%s", run_dir);
    struct stat sb;

    if (lstat(run_dir, &sb) == 0 && farm_rundir_secure(run_dir, 0, err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/farm.state", run_dir);
    FILE *f = farm_rundir_fopen(path, "r");
    if (!f) {
        snprintf(err, len, "cannot read %s: %s", path, farm_rundir_strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f))
        load_line(line, st);
    fclose(f);
    if (!st->name[0] || !st->n) {
        snprintf(err, len, "%s is not an ebfarm state file", path);
        return -1;
    }
    return 0;
}

/* The farms that are up under base: how many, the run directory of the
 * last one found into found, and their names, comma separated, into names. */
static unsigned farms_up(const char *base, char *found, size_t found_len, char *names,
                         size_t names_len)
{
    DIR *d = opendir(base);
    struct dirent *de;
    char path[600];
    unsigned n = 0;

    while (d && (de = readdir(d))) {
        struct stat sb;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/farm.state", base, de->d_name);
        if (lstat(path, &sb) != 0)
            continue;
        snprintf(found, found_len, "%s/%s", base, de->d_name);
        size_t o = strlen(names);
        snprintf(names + o, names_len - o, "%s%s", n ? ", " : "", de->d_name);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

int farm_state_find(const char *name, struct farm_state *st, char *err, size_t len)
{
    const char *base = farm_state_base_dir();
    char dir[600], found[600] = "", names[512] = "";

    struct stat sb;

    if (lstat(base, &sb) == 0 && farm_rundir_secure(base, 0, err, len))
        return -1;               /* there, but a link, another user's or writable by others */
    if (name) {
        snprintf(dir, sizeof(dir), "%s/%s", base, name);
        if (farm_state_load(dir, st, err, len) != 0) {
            if (!strstr(err, ": refused"))
                snprintf(err, len, "farm '%s' is not up (no %s/farm.state)", name, dir);
            return -1;
        }
        return 0;
    }
    unsigned n = farms_up(base, found, sizeof(found), names, sizeof(names));
    if (n == 0) {
        snprintf(err, len, "no farm is up (nothing in %s; start one with ebfarm up FARM.yaml)",
                 base);
        return -1;
    }
    if (n > 1) {
        snprintf(err, len, "several farms are up (%s): name one with --farm NAME", names);
        return -1;
    }
    return farm_state_load(found, st, err, len);
}

/* The lock this process holds (farm_state_lock_remove acts on it only). */
static char held_lock[600];

/* Whether the file locked through fd is still the one at path. */
static int lock_is_current(int fd, const char *path)
{
    struct stat a, b;

    return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int farm_state_lock(const char *name, const char *cmd, char *err, size_t len)
{
    const char *base = farm_state_base_dir();
    char path[600], holder[128] = "";
    int fd = -1, e = 0;

    if (farm_rundir_secure(base, 1, err, len))
        return -1;
    snprintf(path, sizeof(path), "%s/.%s.lock", base, name);
    /* A down that finished removed the file this one opened: open again. */
    for (int tries = 0; tries < 3 && fd < 0; tries++) {
        fd = farm_rundir_open(path, O_RDWR | O_CREAT, 0600);
        if (fd < 0) {
            snprintf(err, len, "cannot open the lock %s: %s", path, farm_rundir_strerror(errno));
            return -1;
        }
        e = flock(fd, LOCK_EX | LOCK_NB) != 0 ? errno : 0;
        if (!e && !lock_is_current(fd, path))
            close(fd), fd = -1, e = ESTALE;
    }
    if (e) {
        ssize_t n = fd >= 0 ? pread(fd, holder, sizeof(holder) - 1, 0) : 0;
        holder[n > 0 ? n : 0] = '\0';
        holder[strcspn(holder, "\n")] = '\0';
        if (fd >= 0)
            close(fd);
        if (e == EWOULDBLOCK)
            snprintf(err, len, "farm '%s' is busy: %s holds its lock (%s); try again when it "
                     "is done", name, holder[0] ? holder : "another ebfarm command", path);
        else
            snprintf(err, len, "cannot lock %s: %s", path, strerror(e));
        return -1;
    }
    /* The note only makes the next command's message say more: a failure
     * to write it is harmless. */
    int n = snprintf(holder, sizeof(holder), "'ebfarm %s' (pid %d)\n", cmd, (int)getpid());
    if (ftruncate(fd, 0) == 0)
        n = (int)pwrite(fd, holder, (size_t)n, 0);
    snprintf(held_lock, sizeof(held_lock), "%s", path);
    return fd;
}

void farm_state_lock_remove(const char *name)
{
    const char *base = farm_state_base_dir();
    char path[600], state[600];

    snprintf(path, sizeof(path), "%s/.%s.lock", base, name);
    snprintf(state, sizeof(state), "%s/%s/farm.state", base, name);
    if (strcmp(path, held_lock) == 0 && access(state, F_OK) != 0 && errno == ENOENT)
        unlink(path);
}
