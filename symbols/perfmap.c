/* perf's JIT map files (/tmp/perf-PID.map, Documentation/jit-interface.txt):
 * parsed into a symtab of non-overlapping symbols where later lines win. */
#include "config.h"

#include "perfmap.h"
#include "perfmap-test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "nsopen.h"
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
	 * covering it, so lookups never return a superseded name.  JITs
	 * mostly write in address order without overlaps: then both arrays
	 * are sorted already, and the sorts (a third of a big map's parse)
	 * are skipped (equal starts may come in any order: seq decides). */
	for (i = 1; i < n && ents[i - 1].start <= ents[i].start; i++)
		;
	if (i < n)
		qsort(ents, n, sizeof(*ents), pm_start_cmp);
	bounds = xmalloc((2 * n + 1) * sizeof(*bounds));
	for (i = 0; i < n; i++) {
		bounds[nb++] = ents[i].start;
		bounds[nb++] = ents[i].end;
	}
	for (i = 1; i < nb && bounds[i - 1] <= bounds[i]; i++)
		;
	if (i < nb)
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

void perfmap_index_merge(const struct perfmap_index *ix, const struct symtab *newer,
			 struct perfmap_index *merged)
{
	size_t nn = symtab_count(newer), i, j0 = 0, k = 0, a = 0, b = 0, np = 0, cap;
	struct perfmap_range *pieces, *out;

	/* The older ranges minus the newer symbols: at most one more piece
	 * per newer symbol than there were ranges. */
	pieces = xmalloc((ix->n + nn + 1) * sizeof(*pieces));
	for (i = 0; i < ix->n; i++) {
		const struct perfmap_range *o = &ix->ranges[i];
		uint64_t s = o->start;
		size_t j;

		while (j0 < nn && symtab_get(newer, j0)->end <= o->start)
			j0++;
		for (j = j0; j < nn && symtab_get(newer, j)->start < o->end; j++) {
			const struct symbol *ns = symtab_get(newer, j);

			if (ns->start > s) {
				pieces[np].start = s;
				pieces[np].end = ns->start;
				pieces[np++].sym = o->sym;
			}
			if (ns->end > s)
				s = ns->end;
		}
		if (s < o->end) {
			pieces[np].start = s;
			pieces[np].end = o->end;
			pieces[np++].sym = o->sym;
		}
	}
	/* Merge the two sorted, mutually disjoint lists. */
	cap = np + nn;
	out = xmalloc((cap ? cap : 1) * sizeof(*out));
	while (a < np || b < nn) {
		if (b == nn || (a < np && pieces[a].start < symtab_get(newer, b)->start)) {
			out[k++] = pieces[a++];
		} else {
			const struct symbol *ns = symtab_get(newer, b++);

			out[k].start = ns->start;
			out[k].end = ns->end;
			out[k++].sym = ns;
		}
	}
	free(pieces);
	merged->ranges = out;
	merged->n = k;
}

void perfmap_index_add(struct perfmap_index *ix, const struct symtab *newer)
{
	struct perfmap_index merged;

	perfmap_index_merge(ix, newer, &merged);
	free(ix->ranges);
	*ix = merged;
}

const struct symbol *perfmap_index_lookup(const struct perfmap_index *ix, uint64_t addr)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->ranges[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->n && ix->ranges[lo].start <= addr ? ix->ranges[lo].sym : NULL;
}

void perfmap_index_release(struct perfmap_index *ix)
{
	free(ix->ranges);
	ix->ranges = NULL;
	ix->n = 0;
}

/* The real and effective uids of pid, and its pid in its own pid
 * namespace (the last NSpid field; pid itself before 4.1), from
 * /proc/PID/status. */
static int pm_proc_status(uint32_t pid, uid_t *ruid, uid_t *euid, uint32_t *nspid)
{
	char path[64], line[256];
	unsigned long r, e;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*nspid = pid;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*ruid = (uid_t)r;
			*euid = (uid_t)e;
			ret = 0;
		} else if (strncmp(line, "NSpid:", 6) == 0) {
			const char *last = strrchr(line, '\t');
			unsigned long v;
			char *end;

			if (!last)
				last = line + 5;
			v = strtoul(last + 1, &end, 10);
			if (end != last + 1 && v > 0 && v <= UINT32_MAX)
				*nspid = (uint32_t)v;
		}
	}
	fclose(f);
	return ret;
}

/* Parse the lines of buf[0..len) that are complete, the last one too when
 * tail_done (the file has not changed for a while): a line the JIT is
 * still writing is left for the next read.  Returns the bytes consumed. */
static size_t pm_complete(const char *buf, size_t len, bool tail_done)
{
	const char *nl;

	if (tail_done)
		return len;
	for (nl = buf + len; nl > buf && nl[-1] != '\n'; nl--)
		;
	return (size_t)(nl - buf);
}

static int pm_load_at(int rootfd, uint32_t nspid, uid_t ruid, uid_t euid, uint64_t known_size,
		      uint64_t max_new, struct symtab **out, uint64_t *size)
{
	char path[64];
	struct stat st;
	size_t len = 0, want, used;
	char *buf;
	int pfd, fd, err;

	snprintf(path, sizeof(path), "/tmp/perf-%u.map", nspid);
	/* /tmp is world-writable, and inside a container its user owns
	 * every symlink: resolve within the process's root, refuse a final
	 * symlink (O_NOFOLLOW), never block on a FIFO (only regular files
	 * are opened for reading), and trust only files the process's own
	 * user or root wrote. */
	pfd = nsopen_at(rootfd, path, O_PATH | O_NOFOLLOW);
	if (pfd < 0)
		return pfd;
	fd = nsopen_regular(pfd);
	close(pfd);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
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
	if (max_new && (uint64_t)st.st_size - known_size > max_new) {
		err = -E2BIG;
		goto out;
	}
	/* Only what was appended since the last read: JITs append, so the
	 * lines before known_size are parsed already. */
	want = (size_t)((uint64_t)st.st_size - known_size);
	buf = xmalloc(want + 1);
	len = fileread_at(fd, buf, want, known_size);
	/* An unterminated last line is taken once the file has been left
	 * alone for two seconds: a finished map without a final newline. */
	used = pm_complete(buf, len, len == want && time(NULL) - st.st_mtime >= 2);
	if (used == 0) {
		free(buf);
		err = -EAGAIN;
		goto out;
	}
	*out = perfmap_parse(buf, used);
	*size = known_size + used;
	free(buf);
	err = 0;
out:
	close(fd);
	return err;
}

int perfmap_load_at(int rootfd, uint32_t nspid, uid_t ruid, uid_t euid, uint64_t known_size,
		    struct symtab **out, uint64_t *size)
{
	return pm_load_at(rootfd, nspid, ruid, euid, known_size, 0, out, size);
}

int perfmap_load(uint32_t pid, uint64_t known_size, struct symtab **out, uint64_t *size)
{
	return perfmap_load_max(pid, known_size, 0, out, size);
}

int perfmap_load_max(uint32_t pid, uint64_t known_size, uint64_t max_new, struct symtab **out,
		     uint64_t *size)
{
	uid_t ruid = (uid_t)-1, euid = (uid_t)-1;
	uint32_t nspid = pid;
	int root, err;

	err = pm_proc_status(pid, &ruid, &euid, &nspid);
	if (err)
		return err;
	/* The map is in the process's own /tmp, named with the pid it sees
	 * itself as (NSpid): a container's JIT writes /tmp/perf-1.map. */
	root = nsopen_root(pid);
	if (root < 0)
		return root;
	err = pm_load_at(root, nspid, ruid, euid, known_size, max_new, out, size);
	close(root);
	return err;
}
