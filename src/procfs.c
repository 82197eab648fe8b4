/* Fast /proc readers for synthesis: syscalls dominate, so one reusable
 * buffer, no stdio, and the PROCMAP_QUERY ioctl where the kernel has it. */
#include "config.h"

#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

/* PROCMAP_QUERY (Linux 6.11) from <linux/fs.h>, declared here because
 * older userspace headers lack it.  The layout is fixed ABI (size-versioned). */
struct procfs_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};

#define PROCFS_PROCMAP_QUERY _IOWR('f', 17, struct procfs_procmap_query)
/* vma_flags bits as query_flags name them: the same as PROT_* */
#define PROCFS_QUERY_VMA_PROT 0x07
#define PROCFS_QUERY_VMA_EXECUTABLE 0x04
#define PROCFS_QUERY_COVERING_OR_NEXT_VMA 0x10

/* Room for one path in the query: PATH_MAX plus " (deleted)". */
#define PROCFS_NAME_MAX 4200

void procfs_init(struct procfs *pf)
{
	pf->buf = NULL;
	pf->cap = 0;
	pf->query_ok = -1;
	pf->data_vmas = false;
}

void procfs_release(struct procfs *pf)
{
	free(pf->buf);
	pf->buf = NULL;
	pf->cap = 0;
}

ssize_t procfs_read(struct procfs *pf, int dirfd, const char *name, bool once)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t r;

		if (pf->cap - n < 4096)
			pf->buf = xgrow(pf->buf, &pf->cap, n + 65536, 1);
		r = read(fd, pf->buf + n, pf->cap - n - 1);
		if (r < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			return -err;
		}
		n += (size_t)r;
		/* A seq_file returns at most about a page per read: only a
		 * 0 read means the end, except for single-record files. */
		if (r == 0 || once)
			break;
	}
	close(fd);
	pf->buf[n] = '\0';
	return (ssize_t)n;
}

bool procfs_parse_stat(char *buf, const char **comm, unsigned long *nthreads)
{
	/* "pid (comm) state ppid ..."; the comm may hold spaces and
	 * parentheses, so it ends at the last ')'. */
	char *open = strchr(buf, '('), *close_paren = strrchr(buf, ')'), *s;
	int field;

	if (!open || !close_paren || close_paren < open)
		return false;
	/* s: the space before field 3; num_threads is field 20. */
	s = close_paren + 1;
	/* Stop at the NUL: a ')' that ends the buffer leaves nothing after. */
	for (field = 3; field < 20 && s && *s; field++)
		s = strchr(s + 1, ' ');
	*nthreads = s && *s ? strtoul(s + 1, NULL, 10) : 0;
	*close_paren = '\0';
	*comm = open + 1;
	return true;
}

static uint64_t parse_hex(char **sp)
{
	char *s = *sp;
	uint64_t v = 0;

	for (;; s++) {
		unsigned c = (unsigned char)*s;

		if (c - '0' < 10)
			v = v << 4 | (c - '0');
		else if ((c | 0x20) - 'a' < 6)
			v = v << 4 | ((c | 0x20) - 'a' + 10);
		else
			break;
	}
	*sp = s;
	return v;
}

static bool parse_char(char **sp, char c)
{
	if (**sp != c)
		return false;
	(*sp)++;
	return true;
}

bool procfs_parse_maps_line(char *s, struct procfs_map *map, bool *exec)
{
	char *perms;

	memset(map, 0, sizeof(*map));
	map->start = parse_hex(&s);
	if (!parse_char(&s, '-'))
		return false;
	map->end = parse_hex(&s);
	if (!parse_char(&s, ' '))
		return false;
	perms = s;
	if (strnlen(perms, 4) < 4)
		return false;
	*exec = perms[2] == 'x';
	map->prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		    (*exec ? PROT_EXEC : 0);
	s += 4;
	if (!parse_char(&s, ' '))
		return false;
	map->pgoff = parse_hex(&s);
	if (!parse_char(&s, ' '))
		return false;
	map->maj = (uint32_t)parse_hex(&s);
	if (!parse_char(&s, ':'))
		return false;
	map->min = (uint32_t)parse_hex(&s);
	if (!parse_char(&s, ' '))
		return false;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		map->ino = map->ino * 10 + (uint64_t)(*s - '0');
	/* The path starts after the padding and may itself contain spaces. */
	while (*s == ' ')
		s++;
	map->path = s;
	return map->end > map->start;
}

static int read_maps_text(struct procfs *pf, int dirfd, const char *name,
			  procfs_map_fn *fn, void *arg)
{
	ssize_t n = procfs_read(pf, dirfd, name, false);
	char *s, *end;

	if (n < 0)
		return (int)n;
	end = pf->buf + n;
	for (s = pf->buf; s < end; ) {
		char *eol = memchr(s, '\n', (size_t)(end - s));
		struct procfs_map map;
		bool exec;

		if (!eol)
			eol = end;
		*eol = '\0';
		if (procfs_parse_maps_line(s, &map, &exec) && (exec || pf->data_vmas) &&
		    strcmp(map.path, "[vsyscall]") != 0)
			fn(arg, &map);
		s = eol + 1;
	}
	return 0;
}

/* The executable VMAs (every one with data_vmas), already binary: no
 * formatting of the others. */
static int read_maps_query(struct procfs *pf, int fd, procfs_map_fn *fn, void *arg)
{
	uint64_t addr = 0;

	if (pf->cap < PROCFS_NAME_MAX)
		pf->buf = xgrow(pf->buf, &pf->cap, PROCFS_NAME_MAX, 1);
	for (;;) {
		struct procfs_procmap_query q;
		struct procfs_map map;

		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PROCFS_QUERY_COVERING_OR_NEXT_VMA |
				(pf->data_vmas ? 0 : PROCFS_QUERY_VMA_EXECUTABLE);
		q.query_addr = addr;
		q.vma_name_addr = (uint64_t)(uintptr_t)pf->buf;
		q.vma_name_size = (uint32_t)pf->cap;
		pf->buf[0] = '\0';
		if (ioctl(fd, PROCFS_PROCMAP_QUERY, &q) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (!q.vma_name_size)
			pf->buf[0] = '\0';
		map.start = q.vma_start;
		map.end = q.vma_end;
		map.pgoff = q.vma_offset;
		map.maj = q.dev_major;
		map.min = q.dev_minor;
		map.ino = q.inode;
		map.prot = (uint32_t)(q.vma_flags & PROCFS_QUERY_VMA_PROT);
		map.path = pf->buf;
		fn(arg, &map);
		if (q.vma_end <= addr)
			return -EINVAL;
		addr = q.vma_end;
	}
}

int procfs_read_maps(struct procfs *pf, int dirfd, const char *name,
		     enum procfs_maps_mode mode, procfs_map_fn *fn, void *arg)
{
	int fd, err;

	if (mode == PROCFS_MAPS_TEXT || (mode == PROCFS_MAPS_AUTO && pf->query_ok == 0))
		return read_maps_text(pf, dirfd, name, fn, arg);
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_maps_query(pf, fd, fn, arg);
	close(fd);
	if (err == -ENOTTY && mode == PROCFS_MAPS_AUTO) {
		/* Before 6.11: remember, and parse the text from now on. */
		pf->query_ok = 0;
		return read_maps_text(pf, dirfd, name, fn, arg);
	}
	if (!err)
		pf->query_ok = 1;
	return err;
}
