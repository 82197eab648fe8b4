/* Fuzz target: the /proc/PID/maps and /proc/PID/stat parsers (src/procfs.c),
 * reading the input from a file as they read /proc. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "procfs.h"

static int dirfd_ = -1;
static char dir[64];

static void cleanup(void)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/maps", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof(dir), "/tmp/proftop-fuzz-maps.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd_ < 0)
		abort();
	atexit(cleanup);
	return 0;
}

struct seen {
	uint64_t last_start;
	size_t n;
};

static void on_map(void *arg, const struct procfs_map *map)
{
	struct seen *s = arg;

	/* Each map has a path string (maybe empty) and a non-empty range. */
	if (!map->path || map->end <= map->start)
		abort();
	(void)fuzz_touch(map->path, strlen(map->path));
	s->last_start = map->start;
	s->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procfs pf;
	struct seen seen = { 0, 0 };
	const char *comm;
	unsigned long nthreads;
	char *copy;
	int fd;

	fd = openat(dirfd_, "maps", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	procfs_init(&pf);
	if (procfs_read_maps(&pf, dirfd_, "maps", PROCFS_MAPS_TEXT, on_map, &seen))
		abort();
	/* The same bytes as a stat line (NUL-terminated copy). */
	copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	if (procfs_parse_stat(copy, &comm, &nthreads))
		(void)fuzz_touch(comm, strlen(comm));
	free(copy);
	procfs_release(&pf);
	return 0;
}
