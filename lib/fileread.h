/* Reading a whole file into memory: the one loop every reader of /proc,
 * /sys and piped perf.data files shares. */
#ifndef PROFTOP_FILEREAD_H
#define PROFTOP_FILEREAD_H

#include <stddef.h>
#include <stdint.h>

/* Read fd to its end, or to max bytes (what lies beyond is not read),
 * into a malloc'd buffer with a NUL after the data.  fd stays open.
 * Returns 0 or -errno (nothing allocated then). */
int fileread_fd(int fd, size_t max, char **out, size_t *len);

/* fileread_fd of path (opened O_RDONLY, e.g. a small file under /proc).
 * Returns 0 or -errno. */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* pread n bytes at off into buf, again after EINTR and short reads, until
 * the end of the file or an error.  Returns how many were read. */
size_t fileread_at(int fd, void *buf, size_t n, uint64_t off);
/* Read an integer from a one-line file; returns 0 or -errno. */
int read_file_long(const char *path, long *val);

#endif
