/* perf's JIT map files (/tmp/perf-PID.map, Documentation/jit-interface.txt):
 * parsed into a symtab of non-overlapping symbols where later lines win. */
#include "config.h"

#include "perfmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symtab.h"
#include "util.h"

/* One well-formed line; its index in the file is its age. */
struct pm_entry {
	uint64_t start, end;      /* end exclusive */
	size_t name_off, name_len;
	size_t seq;
};

/* Hex digits (an optional 0x is tolerated) up to a space or tab. */
static bool pm_hex(const char **pp, const char *end, uint64_t *val)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; p < end && *p != ' ' && *p != '\t'; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		if (n >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return false;
	*val = v;
	*pp = p;
	return true;
}

static bool pm_parse_line(const char *buf, const char *p, const char *end,
			  struct pm_entry *e)
{
	uint64_t start, size;

	if (!pm_hex(&p, end, &start) || p == end)
		return false;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!pm_hex(&p, end, &size) || p == end || size == 0 || start + size < start)
		return false;
	p++;                      /* one separator: the name is the rest */
	if (end > p && end[-1] == '\r')
		end--;
	if (p >= end || memchr(p, '\0', (size_t)(end - p)))
		return false;
	e->start = start;
	e->end = start + size;
	e->name_off = (size_t)(p - buf);
	e->name_len = (size_t)(end - p);
	return true;
}

static int pm_start_cmp(const void *pa, const void *pb)
{
	const struct pm_entry *a = pa, *b = pb;

	return CMP(a->start, b->start);
}

static int u64_cmp(const void *pa, const void *pb)
{
	return CMP(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

/* A max-heap of entries by seq: the newest live entry on top. */
static void heap_push(const struct pm_entry **h, size_t *n, const struct pm_entry *e)
{
	size_t i = (*n)++;

	while (i > 0 && h[(i - 1) / 2]->seq < e->seq) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static void heap_pop(const struct pm_entry **h, size_t *n)
{
	const struct pm_entry *last = h[--(*n)];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1]->seq > h[c]->seq)
			c++;
		if (h[c]->seq <= last->seq)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

static void pm_add(struct symtab *st, const char *buf, const struct pm_entry *e,
		   uint64_t start, uint64_t end, struct strbuf *name)
{
	strbuf_reset(name);
	strbuf_add(name, buf + e->name_off, e->name_len);
	symtab_add(st, start, end - start, SYMTAB_GLOBAL, name->buf, UINT64_MAX);
}

struct symtab *perfmap_parse(const char *buf, size_t len)
{
	struct symtab *st = symtab_new();
	struct pm_entry *ents = NULL;
	const struct pm_entry **heap, *cur = NULL;
	uint64_t *bounds, cur_start = 0, cur_end = 0;
	size_t n = 0, cap = 0, nb = 0, nheap = 0, i, j, k;
	const char *p = buf, *end = buf + len;
	struct strbuf name;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		ents = xgrow(ents, &cap, n + 1, sizeof(*ents));
		if (pm_parse_line(buf, p, eol, &ents[n])) {
			ents[n].seq = n;
			n++;
		}
		p = nl ? nl + 1 : end;
	}

	/* Overlaps are rare but real (code freed and reused): cut the range
	 * at every start and end, and give each piece to the newest entry
	 * covering it, so lookups never return a superseded name. */
	if (n > 1) /* qsort(NULL, 0) is undefined */
		qsort(ents, n, sizeof(*ents), pm_start_cmp);
	bounds = xmalloc((2 * n + 1) * sizeof(*bounds));
	for (i = 0; i < n; i++) {
		bounds[nb++] = ents[i].start;
		bounds[nb++] = ents[i].end;
	}
	qsort(bounds, nb, sizeof(*bounds), u64_cmp);
	heap = xmalloc((n + 1) * sizeof(*heap));
	strbuf_init(&name);
	for (k = 0, j = 0; k < nb; k++) {
		uint64_t b = bounds[k];

		if (k > 0 && b == bounds[k - 1])
			continue;
		while (j < n && ents[j].start <= b)
			heap_push(heap, &nheap, &ents[j++]);
		while (nheap && heap[0]->end <= b)
			heap_pop(heap, &nheap);
		/* The piece [b, next bound) belongs to the heap's top. */
		if (cur && (!nheap || heap[0] != cur || cur_end != b)) {
			pm_add(st, buf, cur, cur_start, cur_end, &name);
			cur = NULL;
		}
		if (!nheap)
			continue;
		if (!cur) {
			cur = heap[0];
			cur_start = b;
		}
		/* Where the top entry's piece ends: its end, or the next bound. */
		for (i = k + 1; i < nb && bounds[i] == b; i++)
			;
		cur_end = i < nb ? bounds[i] : cur->end;
	}
	if (cur)
		pm_add(st, buf, cur, cur_start, cur_end, &name);
	strbuf_release(&name);
	free(heap);
	free(bounds);
	free(ents);
	symtab_finish(st);
	return st;
}

/* The real and effective uids of pid from /proc/PID/status. */
static int pm_proc_uids(uint32_t pid, uid_t *ruid, uid_t *euid)
{
	char path[64], line[256];
	unsigned long r, e;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*ruid = (uid_t)r;
			*euid = (uid_t)e;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/* Open path for reading if it is a regular file and not a symlink.  The
 * type is checked on an O_PATH descriptor first, which opens nothing:
 * merely opening some devices has effects. */
static int pm_open(const char *path)
{
	char proc[64];
	struct stat st;
	int pfd, fd;

	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		/* No /proc: the caller's fstat checks the type again. */
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	close(pfd);
	return fd;
}

int perfmap_load(uint32_t pid, uint64_t known_size, struct symtab **out,
		 uint64_t *size)
{
	char path[64];
	struct stat st;
	uid_t ruid = (uid_t)-1, euid = (uid_t)-1;
	size_t len = 0;
	char *buf;
	int fd, err;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
	/* /tmp is world-writable: refuse symlinks (O_NOFOLLOW), never block
	 * on a FIFO (O_NONBLOCK), and trust only files the process's own
	 * user or root wrote. */
	fd = pm_open(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto out;
	}
	/* The owner check last: most processes have no map, and a failed
	 * open is the cheapest way to learn that on every retry. */
	err = pm_proc_uids(pid, &ruid, &euid);
	if (err)
		goto out;
	if (st.st_uid != 0 && st.st_uid != ruid && st.st_uid != euid) {
		err = -EPERM;
		goto out;
	}
	if ((uint64_t)st.st_size > PERFMAP_MAX_SIZE) {
		err = -EFBIG;
		goto out;
	}
	if ((uint64_t)st.st_size <= known_size) {
		err = -EAGAIN;
		goto out;
	}
	/* Read what is there now: the JIT may be appending meanwhile. */
	buf = xmalloc((size_t)st.st_size + 1);
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	/* A line the JIT is still writing may be parsed cut short: the file
	 * grows when it is done, and the next load reads it whole. */
	if (len <= known_size) {
		free(buf);
		err = -EAGAIN;
		goto out;
	}
	*out = perfmap_parse(buf, len);
	*size = len;
	free(buf);
	err = 0;
out:
	close(fd);
	return err;
}
