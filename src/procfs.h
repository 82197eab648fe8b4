/* Fast readers for /proc/PID files used to synthesize existing processes:
 * stat (comm, thread count) and the executable mappings of maps. */
#ifndef PROFTOP_PROCFS_H
#define PROFTOP_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One executable mapping (or any, with procfs.data_vmas). */
struct procfs_map {
	uint64_t start, end, pgoff;  /* pgoff in bytes */
	uint32_t maj, min;
	uint64_t ino;
	uint32_t prot;               /* PROT_READ, PROT_WRITE, PROT_EXEC */
	const char *path;            /* "" for anonymous; valid until the next read */
};

enum procfs_maps_mode {
	PROCFS_MAPS_AUTO,            /* PROCMAP_QUERY ioctl (6.11+), else text */
	PROCFS_MAPS_TEXT,            /* parse the text only */
	PROCFS_MAPS_QUERY,           /* the ioctl only (-ENOTTY where missing) */
};

/* A reusable read buffer, and whether the ioctl works here. */
struct procfs {
	char *buf;
	size_t cap;
	int query_ok;                /* -1 untried, 0 unsupported, 1 works */
	bool data_vmas;              /* procfs_read_maps: every mapping, not only
					the executable ones (-s daddr_sym) */
};

void procfs_init(struct procfs *pf);
void procfs_release(struct procfs *pf);

/* Read dirfd/name whole into pf->buf, NUL-terminated.  once: the file is
 * one record that a single read returns (stat, comm).  Returns the length
 * or -errno. */
ssize_t procfs_read(struct procfs *pf, int dirfd, const char *name, bool once);

/* Split a /proc/PID/stat buffer (modified): *comm points into it. */
bool procfs_parse_stat(char *buf, const char **comm, unsigned long *nthreads);

/* Parse one NUL-terminated maps line; *exec tells whether it has 'x'. */
bool procfs_parse_maps_line(char *line, struct procfs_map *map, bool *exec);

typedef void procfs_map_fn(void *arg, const struct procfs_map *map);

/* Call fn for each executable mapping (each one with pf->data_vmas) of
 * the maps file dirfd/name, in address order ([vsyscall] skipped: it is
 * not in the process's mm).  Returns 0 or -errno. */
int procfs_read_maps(struct procfs *pf, int dirfd, const char *name,
		     enum procfs_maps_mode mode, procfs_map_fn *fn, void *arg);

#endif
