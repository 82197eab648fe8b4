/* Opening a path as another process sees it (its mount namespace and root),
 * without letting symlinks inside that root lead out of it: binaries and
 * perf-PID.map files of containers are opened through /proc/PID/root, and a
 * container's user controls the symlinks there. */
#ifndef PROFTOP_NSOPEN_H
#define PROFTOP_NSOPEN_H

#include <stdbool.h>
#include <stdint.h>

/* An O_PATH descriptor of /proc/PID/root (the process's root directory in
 * its own mount namespace), or -errno. */
int nsopen_root(uint32_t pid);

/* Open path (absolute or not: both start at the root) under rootfd, the
 * way a process whose root is rootfd would, except that every symlink,
 * absolute or relative, and every "..", stays inside rootfd, and magic
 * links (/proc/PID/fd/N...) are refused.  flags are open(2) flags: pass
 * O_PATH (| O_NOFOLLOW to get a final symlink itself) and check the type
 * before reading, since merely opening some files has effects.
 * Uses openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), or nsopen_walk
 * where the kernel lacks it (ENOSYS, before 5.6).  Returns a descriptor
 * (O_CLOEXEC) or -errno. */
int nsopen_at(int rootfd, const char *path, int flags);

/* nsopen_at under /proc/PID/root. */
int nsopen_pid(uint32_t pid, const char *path, int flags);

/* A readable descriptor (O_RDONLY | O_NONBLOCK) for the file an O_PATH
 * descriptor names, only if it is a regular file: -ELOOP for a symlink,
 * -EINVAL for anything else (a FIFO would block, a device could act).
 * fd stays open.  Returns the new descriptor or -errno. */
int nsopen_regular(int fd);

/* Whether path is under a process's root, "/proc/PID/root[/INNER]": then
 * *pid, and *inner the rest ("/" when none). */
bool nsopen_split(const char *path, uint32_t *pid, const char **inner);

/* A readable descriptor (nsopen_regular) for the regular file at path,
 * where a path under /proc/PID/root is resolved inside that root
 * (nsopen_pid: the container's symlinks stay in it) and any other path as
 * open(2) would.  For files found under a process's root and opened again
 * later by name (debug files, DWARF readers).  Returns it or -errno. */
int nsopen_file(const char *path);

#endif
