/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_host.c - a farm's hosts as the tool reaches them: this machine, or OpenSSH with a master connection per host. */
#include "farm_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void farm_host_ssh_dir(const char *run_dir, char *buf, size_t len)
{
    uint32_t h = 2166136261u;    /* FNV-1a */

    for (const char *p = run_dir; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    snprintf(buf, len, "%s/%08x", FARM_SSH_BASE, h);
}

void farm_host_table(struct farm_state *st, const struct farm_spec *s)
{
    st->n_hosts = s->n_hosts;
    for (unsigned i = 0; i < s->n_hosts; i++) {
        const struct ff_host *f = &s->host[i];
        struct farm_host *h = &st->host[i];
        memset(h, 0, sizeof(*h));
        snprintf(h->name, sizeof(h->name), "%s", f->name);
        h->kind = f->kind;
        h->launch = FARM_LAUNCH_LOCAL;   /* a remote one's: farm_launch_prepare's */
        snprintf(h->user, sizeof(h->user), "%s", f->kind == FF_HOST_NETNS ? "root" : f->user);
        if (f->kind == FF_HOST_SSH)
            snprintf(h->address, sizeof(h->address), "%s", f->address);
        snprintf(h->netns, sizeof(h->netns), "%s", f->netns);
    }
}

const struct farm_host *farm_host_of(const struct farm_state *st, const struct farm_proc *p)
{
    for (unsigned i = 0; i < st->n_hosts; i++)
        if (!strcmp(st->host[i].name, p->host))
            return &st->host[i];
    return NULL;
}

void farm_sh_quote(char *buf, size_t len, size_t *o, const char *s)
{
    size_t n = *o;

    if (n + 1 < len)
        buf[n++] = '\'';
    for (; *s && n + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else {
            buf[n++] = *s;
        }
    }
    if (*s || n + 1 >= len) {        /* did not fit */
        *o = len - 1;
        buf[len - 1] = '\0';
        return;
    }
    buf[n++] = '\'';
    buf[n] = '\0';
    *o = n;
}

unsigned farm_host_ssh_argv(const struct farm_state *st, const struct farm_host *h,
                            const char *extra, const char *script, const char **argv,
                            unsigned max)
{
    static char cpath[192], ident[192], known[192], user[FF_NAME_MAX + 8];
    const char *a[40], *conf = getenv("EBFARM_SSH_CONFIG");
    unsigned n = 0;

    snprintf(cpath, sizeof(cpath), "ControlPath=%s/cm-%%C", st->ssh_dir);
    a[n++] = "ssh";
    if (conf && conf[0] && h->kind == FF_HOST_SSH) {
        a[n++] = "-F";
        a[n++] = conf;
    }
    a[n++] = "-o"; a[n++] = "BatchMode=yes";
    a[n++] = "-o"; a[n++] = "ConnectTimeout=10";
    a[n++] = "-o"; a[n++] = "ServerAliveInterval=5";
    a[n++] = "-o"; a[n++] = "LogLevel=ERROR";
    a[n++] = "-o"; a[n++] = "ControlMaster=no";
    a[n++] = "-o"; a[n++] = cpath;
    if (h->kind == FF_HOST_NETNS) {
        snprintf(ident, sizeof(ident), "%s/id_ed25519", st->ssh_dir);
        snprintf(known, sizeof(known), "UserKnownHostsFile=%s/known_hosts", st->ssh_dir);
        a[n++] = "-i"; a[n++] = ident;
        a[n++] = "-o"; a[n++] = "IdentitiesOnly=yes";
        a[n++] = "-o"; a[n++] = known;
        a[n++] = "-o"; a[n++] = "GlobalKnownHostsFile=/dev/null";
        a[n++] = "-o"; a[n++] = "StrictHostKeyChecking=yes";
    }
    if (extra) {
        a[n++] = "-o"; a[n++] = extra;
    }
    if (h->user[0]) {
        snprintf(user, sizeof(user), "%s", h->user);
        a[n++] = "-l"; a[n++] = user;
    }
    a[n++] = h->address;
    if (script) {
        a[n++] = "--";
        a[n++] = script;
    }
    if (n + 1 > max)
        return 0;
    memcpy(argv, a, n * sizeof(a[0]));
    argv[n] = NULL;
    return n;
}

int farm_run_argv(const char *const argv[], char *out, size_t len)
{
    int pfd[2], status;
    size_t got = 0;
    char sink[4096];

    if (pipe2(pfd, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);           /* a Ctrl-C at the terminal is the tool's to handle */
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    for (;;) {
        char *to = out && got + 1 < len ? out + got : sink;
        size_t room = out && got + 1 < len ? len - 1 - got : sizeof(sink);
        ssize_t r = read(pfd[0], to, room);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (to != sink)
            got += (size_t)r;
    }
    close(pfd[0]);
    if (out && len)
        out[got] = '\0';
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int farm_host_sh(const struct farm_state *st, const struct farm_host *h, const char *script,
                 char *out, size_t len)
{
    const char *argv[48];

    if (!h || h->kind == FF_HOST_LOCAL) {
        const char *sh[] = {"/bin/sh", "-c", script, NULL};
        return farm_run_argv(sh, out, len);
    }
    if (!farm_host_ssh_argv(st, h, NULL, script, argv, 48)) {
        errno = E2BIG;
        return -1;
    }
    return farm_run_argv(argv, out, len);
}

int farm_host_open(const struct farm_state *st, const struct farm_host *h, char *err, size_t len)
{
    const char *argv[56];
    char out[1024];
    unsigned n = farm_host_ssh_argv(st, h, "ControlPersist=300", NULL, argv, 52);

    /* -M -N -f: authenticate, then keep the connection in the background. */
    memmove(argv + 4, argv + 1, n * sizeof(argv[0]));
    argv[1] = "-M";
    argv[2] = "-N";
    argv[3] = "-f";
    int rc = farm_run_argv(argv, out, sizeof(out));
    if (rc == 0)
        return 0;
    out[strcspn(out, "\r\n")] = '\0';
    snprintf(err, len, "cannot reach host '%s' over ssh (%s%s%s): %s", h->name,
             h->user[0] ? h->user : "", h->user[0] ? "@" : "", h->address,
             out[0] ? out : "ssh failed");
    return -1;
}

void farm_host_close(const struct farm_state *st, const struct farm_host *h)
{
    const char *argv[56];
    char out[256];
    unsigned n = farm_host_ssh_argv(st, h, NULL, NULL, argv, 52);

    memmove(argv + 3, argv + 1, n * sizeof(argv[0]));
    argv[1] = "-O";
    argv[2] = "exit";
    farm_run_argv(argv, out, sizeof(out));
}
