/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_rundir.c - the run directory checked, and its files opened, removed and renamed without following links. */
#include "farm_rundir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int farm_rundir_secure(const char *dir, int create, char *err, size_t len)
{
    struct stat sb;

    if (create && mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, len, "cannot create the run directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &sb) != 0) {
        snprintf(err, len, "cannot use the run directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (S_ISLNK(sb.st_mode)) {
        snprintf(err, len, "the run directory %s is a symbolic link: refused (remove it; "
                 "ebfarm makes its own, mode 0700)", dir);
        return -1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(err, len, "the run directory %s is not a directory: refused (remove it, or "
                 "set EBFARM_RUN_DIR to a directory of your own)", dir);
        return -1;
    }
    if (sb.st_uid != geteuid()) {
        snprintf(err, len, "the run directory %s is owned by uid %u, not by this user (uid %u): "
                 "refused (set EBFARM_RUN_DIR to a directory of your own)", dir,
                 (unsigned)sb.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, len, "the run directory %s is writable by group or others (mode %04o): "
                 "refused (chmod 0700 %s)", dir, (unsigned)(sb.st_mode & 07777), dir);
        return -1;
    }
    return 0;
}

/* The directory of path opened without following a link (O_PATH), and
 * its last component into *name. -1 with errno on failure. */
static int open_parent(const char *path, const char **name)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');

    if (!slash) {
        *name = path;
        return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    size_t n = (size_t)(slash - path);
    if (n >= sizeof(dir)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, path, n);
    dir[n ? n : 1] = '\0';
    if (!n)
        dir[0] = '/';
    *name = slash + 1;
    return open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int farm_rundir_open(const char *path, int flags, mode_t mode)
{
    const char *name;
    int dfd = open_parent(path, &name);

    if (dfd < 0)
        return -1;
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
    int e = errno;
    close(dfd);
    errno = e;
    return fd;
}

FILE *farm_rundir_fopen(const char *path, const char *mode)
{
    int flags = mode[0] == 'r' ? O_RDONLY
              : mode[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;
    int fd = farm_rundir_open(path, flags, 0600);

    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, mode[0] == 'r' ? "r" : mode[0] == 'a' ? "a" : "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int farm_rundir_unlink(const char *path)
{
    const char *name;
    int dfd = open_parent(path, &name);

    if (dfd < 0)
        return -1;
    int rc = unlinkat(dfd, name, 0);
    int e = errno;
    close(dfd);
    errno = e;
    return rc;
}

int farm_rundir_rename(const char *from, const char *to)
{
    const char *a, *b;
    int dfd = open_parent(from, &a);

    if (dfd < 0)
        return -1;
    const char *slash = strrchr(to, '/');
    b = slash ? slash + 1 : to;
    int rc = renameat(dfd, a, dfd, b);
    int e = errno;
    close(dfd);
    errno = e;
    return rc;
}

/* Remove every entry of the directory dfd (which this closes), depth
 * first, links removed themselves. 0 or -errno of the first failure. */
static int empty_dir(int dfd, int depth)
{
    DIR *d = fdopendir(dfd);
    struct dirent *de;
    int rc = 0;

    if (!d) {
        rc = -errno;
        close(dfd);
        return rc;
    }
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            rc = rc ? rc : -errno;
            continue;
        }
        int sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int r = sub < 0 ? -errno : depth < 32 ? empty_dir(sub, depth + 1) : -ELOOP;
        if (sub >= 0 && depth >= 32)
            close(sub);
        if (r == 0 && unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) != 0)
            r = -errno;
        rc = rc ? rc : r;
    }
    closedir(d);
    return rc;
}

int farm_rundir_remove(const char *path)
{
    const char *name;
    int pfd = open_parent(path, &name);

    if (pfd < 0)
        return errno == ENOENT ? 0 : -1;
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = dfd < 0 ? -errno : empty_dir(dfd, 0);
    if (rc == 0 && unlinkat(pfd, name, AT_REMOVEDIR) != 0)
        rc = -errno;
    if (rc == -ENOENT)
        rc = 0;
    else if (rc == -ENOTDIR) {           /* a link or a file: never followed */
        struct stat sb;
        rc = fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode) ? -ELOOP
                                                                                     : rc;
    }
    close(pfd);
    if (rc) {
        errno = -rc;
        return -1;
    }
    return 0;
}

const char *farm_rundir_strerror(int e)
{
    return e == ELOOP ? "it is a symbolic link (refused)" : strerror(e);
}
