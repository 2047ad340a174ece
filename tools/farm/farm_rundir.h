/* SPDX-License-Identifier: BSD-3-Clause */
/* farm_rundir.h - the run directory checked, and its files opened, removed and renamed without following links. */
#ifndef FARM_RUNDIR_H
#define FARM_RUNDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Whether dir may hold a farm's files: a directory (not a symbolic link),
 * owned by this user, writable by no group and no other user. With create,
 * a missing dir is made first, mode 0700 (its parent must exist). Returns
 * 0, or -1 with err naming the directory, the problem and the fix, e.g.
 * "the run directory /run/ebfarm/demo is a symbolic link: refused (remove
 * it; ebfarm makes its own, mode 0700)".
 */
int farm_rundir_secure(const char *dir, int create, char *err, size_t len);

/*
 * open(2) of path ("<dir>/<name>") without following a link: the directory
 * is opened with O_NOFOLLOW | O_DIRECTORY and the file with openat and
 * O_NOFOLLOW | O_CLOEXEC added to flags. A link as the file or as the
 * directory's last component fails with ELOOP (or ENOTDIR). Returns the
 * descriptor, or -1 with errno.
 */
int farm_rundir_open(const char *path, int flags, mode_t mode);

/* farm_rundir_open as a stream: mode "r" (read), "w" (create or truncate,
 * 0600) or "a" (create or append, 0600). NULL with errno on failure. */
FILE *farm_rundir_fopen(const char *path, const char *mode);

/* unlinkat of path's last component in its directory, opened without
 * following a link: a link is removed itself, never its target. 0 or -1
 * with errno. */
int farm_rundir_unlink(const char *path);

/* renameat of from to to, both in the same directory, opened without
 * following a link. 0 or -1 with errno. */
int farm_rundir_rename(const char *from, const char *to);

/*
 * Remove the tree at path without ever following a link: entries are
 * removed with unlinkat relative to their directory's descriptor, a link
 * is removed itself. A path that is itself a link is not removed: -1 with
 * errno ELOOP. 0 when the tree is gone (or was not there), else -1 with
 * errno of the first failure.
 */
int farm_rundir_remove(const char *path);

/* strerror(e), but "is a symbolic link (refused)" for ELOOP. */
const char *farm_rundir_strerror(int e);

#endif /* FARM_RUNDIR_H */
