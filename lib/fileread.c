/* Whole-file reads (lib/fileread.h). */
#include "config.h"

#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "alloc.h"

int fileread_fd(int fd, size_t max, char **out, size_t *len)
{
	/* cap counts the NUL; max + 1 cannot overflow where it is used. */
	size_t cap = max < (1 << 16) ? max + 1 : 1 << 16, n = 0;
	char *buf = xmalloc(cap);

	while (n < max) {
		ssize_t r;

		if (n + 1 == cap) {
			size_t ncap = cap <= SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;

			if (ncap - 1 > max)
				ncap = max + 1;
			buf = xrealloc(buf, ncap);
			cap = ncap;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			return -err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = fileread_fd(fd, max, out, len);
	close(fd);
	return err;
}

int read_file_long(const char *path, long *val)
{
	char *buf, *end;
	int err = read_file(path, 64, &buf, NULL);

	if (err)
		return err;
	errno = 0;
	*val = strtol(buf, &end, 10);
	if (errno || end == buf) {
		free(buf);
		return -EINVAL;
	}
	free(buf);
	return 0;
}

size_t fileread_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}
