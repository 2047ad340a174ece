/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_launch_prep.c - a farm's remote hosts made ready for its processes: master connection, run directory, keys, launch. */
#include "farm_launch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "farm_host.h"
#include "farm_launch_private.h"

#define SCRIPT_MAX 32768

/* Append the commands that write key file dir/name as rdir/name. */
static int put_key(char *buf, size_t len, size_t *o, const char *dir, const char *name,
                   const char *rdir)
{
    char path[700], key[128];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "re")))
        return -errno;
    size_t n = fread(key, 1, sizeof(key) - 1, f);
    fclose(f);
    key[n] = '\0';
    key[strcspn(key, "\n")] = '\0';
    farm_launch_put(buf, len, o, " && printf '%%s\\n' ");
    farm_sh_quote(buf, len, o, key);
    snprintf(path, sizeof(path), "%s/%s", rdir, name);
    farm_launch_put(buf, len, o, " >");
    farm_sh_quote(buf, len, o, path);
    return 0;
}

/* The script that readies a host: run directory, keys, which launch. */
static int prepare_script(const struct farm_state *st, char *buf, size_t len)
{
    char rdir[600], sub[700];
    size_t o = 0;

    snprintf(rdir, sizeof(rdir), "%s/keys", st->run_dir);
    farm_launch_put(buf, len, &o, "umask 077; mkdir -p ");
    farm_sh_quote(buf, len, &o, st->run_dir);
    farm_launch_put(buf, len, &o, " && chmod 0700 ");
    farm_sh_quote(buf, len, &o, st->run_dir);
    if (st->keys[0]) {
        snprintf(sub, sizeof(sub), "%s/clients", rdir);
        farm_launch_put(buf, len, &o, " && mkdir -p ");
        farm_sh_quote(buf, len, &o, sub);
        if (put_key(buf, len, &o, st->keys, "server.key", rdir) ||
            put_key(buf, len, &o, st->keys, "server.pub", rdir))
            return -1;
        snprintf(sub, sizeof(sub), "%s/clients", st->keys);
        DIR *d = opendir(sub);
        struct dirent *de;
        char name[300];
        while (d && (de = readdir(d))) {
            size_t n = strlen(de->d_name);
            if (n < 5 || strcmp(de->d_name + n - 4, ".pub"))
                continue;
            snprintf(name, sizeof(name), "clients/%s", de->d_name);
            if (put_key(buf, len, &o, st->keys, name, rdir))
                break;
        }
        if (d)
            closedir(d);
    }
    farm_launch_put(buf, len, &o, " && if [ -d /run/systemd/system ] && command -v systemd-run >/dev/null; "
        "then echo unit; else echo plain; fi");
    return o + 1 >= len ? -1 : 0;
}

static int prepare_host(struct farm_state *st, struct farm_host *h, const char *script,
                        char *err, size_t len)
{
    const char *want = getenv("EBFARM_LAUNCH");
    char out[1024];

    if (farm_host_open(st, h, err, len))
        return -1;
    int rc = farm_host_sh(st, h, script, out, sizeof(out));
    out[strcspn(out, "\r\n")] = '\0';
    if (rc != 0) {
        snprintf(err, len, "cannot prepare host '%s' (%s): %s", h->name, h->address,
                 out[0] ? out : "its run directory or keys could not be made");
        return -1;
    }
    h->launch = strcmp(out, "unit") == 0 ? FARM_LAUNCH_UNIT : FARM_LAUNCH_PLAIN;
    if (want && !strcmp(want, "plain"))
        h->launch = FARM_LAUNCH_PLAIN;
    if (want && !strcmp(want, "unit") && h->launch != FARM_LAUNCH_UNIT) {
        snprintf(err, len, "host '%s' (%s) does not run systemd (no /run/systemd/system or no "
                 "systemd-run), and EBFARM_LAUNCH=unit asks for units", h->name, h->address);
        return -1;
    }
    return 0;
}

/* Prepare every host of hosts[] (n of them) at once, a child process
 * each: the launch each found into it. 0, or -1 when one failed (its error
 * is for the caller to find again). */
static int prepare_all(struct farm_state *st, struct farm_host **hosts, unsigned n,
                       const char *script)
{
    pid_t pid[FF_MAX_HOSTS];
    int failed = 0, status;

    fflush(NULL);
    for (unsigned i = 0; i < n; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            char e[512];
            _exit(prepare_host(st, hosts[i], script, e, sizeof(e)) ? 2
                  : hosts[i]->launch == FARM_LAUNCH_UNIT ? 1 : 0);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        while (pid[i] > 0 && waitpid(pid[i], &status, 0) < 0 && errno == EINTR)
            ;
        if (pid[i] < 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
            failed = 1;
        else
            hosts[i]->launch = WEXITSTATUS(status) ? FARM_LAUNCH_UNIT : FARM_LAUNCH_PLAIN;
    }
    return failed ? -1 : 0;
}

int farm_launch_prepare(struct farm_state *st, char *err, size_t len)
{
    char *script = malloc(SCRIPT_MAX);
    struct farm_host *todo[FF_MAX_HOSTS];
    unsigned n = 0;
    int rc = 0;

    if (!script) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    if (prepare_script(st, script, SCRIPT_MAX)) {
        snprintf(err, len, "cannot read the keys in %s to copy them to the hosts", st->keys);
        free(script);
        return -1;
    }
    for (unsigned i = 0; i < st->n_hosts; i++)
        if (farm_launch_remote(&st->host[i]) && farm_launch_has_procs(st, &st->host[i]))
            todo[n++] = &st->host[i];
    if (n && ((mkdir(FARM_SSH_BASE, 0755) != 0 && errno != EEXIST) ||
              (mkdir(st->ssh_dir, 0700) != 0 && errno != EEXIST))) {
        snprintf(err, len, "cannot create %s: %s", st->ssh_dir, strerror(errno));
        rc = -1;
    }
    /* Once more one by one when some failed: the first failure's message. */
    if (rc == 0 && n && prepare_all(st, todo, n, script) != 0)
        for (unsigned i = 0; i < n && rc == 0; i++)
            rc = prepare_host(st, todo[i], script, err, len);
    free(script);
    return rc;
}

