/* The perf.data reader: validates the header, attrs and feature sections of a
 * "PERFILE2" file (or perf's pipe format), and hands out its records aligned,
 * in native byte order and, where the file needs it, sorted by time. */
#include "config.h"

#include "perfdata.h"

#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hashtab.h"
#include "record.h"
#include "util.h"

/* "PERFILE2" read as a native u64 on a little-endian host. */
#define PERFDATA_MAGIC 0x32454c4946524550ULL
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define FEAT_BITS 256

enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_SAMPLE_TIME = 21,
};

/* perf's own record types (tools/perf/util/event.h). */
enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_ID_INDEX = 69,
	REC_AUXTRACE = 71,
	REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_FINISHED_INIT = 82,
	REC_COMPRESSED2 = 83,
};

#define MISC_BUILD_ID_SIZE (1U << 15)
#define EVENT_UPDATE_NAME 2

/* Records buffered for sorting; beyond this many the oldest half is
 * flushed, as perf does when its ordered-events memory runs out. */
#define MAX_PENDING (1U << 22)

/* A mapped file's data pages behind the reader are given back to the
 * kernel in steps of this many bytes (one madvise each): read once, they
 * would otherwise all count in the resident set until the end. */
#define DROP_STEP (1U << 20)

struct pending {
	uint64_t time;
	uint64_t off;             /* file order: ties keep it */
};

struct idmap_entry {
	uint64_t id;
	size_t ev;                /* index into events */
};

struct perfdata {
	char *path;
	const unsigned char *buf;  /* the whole file */
	size_t size;
	bool mapped;
	bool swapped;

	struct perfdata_info info;
	struct perfdata_build_id *bids;
	size_t nbids, bidcap;

	struct perfdata_event *events;
	size_t nevents, evcap;
	uint64_t **idbufs;         /* events[i].ids, owned */
	char **names;              /* events[i].name, owned */
	struct idmap_entry *idmap; /* each id once, the first event that has it */
	size_t nidmap;
	struct hashtab idindex;    /* over idmap (slots NULL before build_idmap) */
	/* Where the event id sits (perf takes it from the first attr):
	 * word index in a sample body, word index from the end of other
	 * records' trailer; -1 when absent. */
	int sample_id_word, trailer_id_word;

	uint64_t data_start, data_end;
	bool truncated;            /* the data section runs past the file end */
	uint64_t pos;              /* next record in file order */

	bool file_order, sorting;
	struct pending *pend;
	size_t npend, pendcap;
	struct pending *merge_tmp; /* the other half of the run merge */
	size_t merge_cap;
	size_t *runs;              /* where each ascending run of pend starts */
	size_t runs_cap;
	size_t emit_i, emit_n;     /* pend[emit_i..emit_n) are ready, sorted */
	uint64_t pend_low;         /* the lowest offset in pend (when npend) */
	uint64_t dropped;          /* mapped: pages below it were given back */
	uint64_t round_limit;      /* max time at the previous FINISHED_ROUND */
	uint64_t max_time;
	bool has_held;
	uint64_t held_off;         /* a record to return after the flush */
	int pending_err;
	bool started;

	uint64_t *scratch;         /* an aligned, native copy of one record */
	char err[512];
	bool damage_at_end;
};

static struct perfdata_event no_event;

/* ---- byte order ---- */

static uint16_t get16(const struct perfdata *pd, const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return pd->swapped ? bswap_16(v) : v;
}

static uint32_t get32(const struct perfdata *pd, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return pd->swapped ? bswap_32(v) : v;
}

static uint64_t get64(const struct perfdata *pd, const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return pd->swapped ? bswap_64(v) : v;
}

static void sw16(void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	v = bswap_16(v);
	memcpy(p, &v, 2);
}

static void sw32(void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	v = bswap_32(v);
	memcpy(p, &v, 4);
}

static void sw64(void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	v = bswap_64(v);
	memcpy(p, &v, 8);
}

/* Two u32 in one word (pid/tid, cpu/res): each swapped in place. */
static void sw32x2(void *p)
{
	sw32(p);
	sw32((char *)p + 4);
}

static unsigned char reverse_bits(unsigned char b)
{
	b = (unsigned char)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (unsigned char)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	return (unsigned char)((b & 0xaa) >> 1 | (b & 0x55) << 1);
}

/* The fields of a perf_event_attr by offset and width (0: the flag word). */
static const struct {
	unsigned short off, width;
} attr_fields[] = {
	{ 0, 4 },   { 4, 4 },   { 8, 8 },    { 16, 8 },   { 24, 8 },   { 32, 8 },
	{ 40, 0 },  { 48, 4 },  { 52, 4 },   { 56, 8 },   { 64, 8 },   { 72, 8 },
	{ 80, 8 },  { 88, 4 },  { 92, 4 },   { 96, 8 },   { 104, 4 },  { 108, 2 },
	{ 110, 2 }, { 112, 4 }, { 116, 4 },  { 120, 8 },  { 128, 8 },
};

/* Swap the first len bytes of an attr written on a host of the other byte
 * order.  The flag bitfields are allocated from the other end of the word
 * there: their bytes keep their order but each byte's bits reverse. */
static void swap_attr(unsigned char *a, size_t len)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(attr_fields); i++) {
		size_t off = attr_fields[i].off, w = attr_fields[i].width;

		if (off + (w ? w : 8) > len)
			break;
		if (w == 2)
			sw16(a + off);
		else if (w == 4)
			sw32(a + off);
		else if (w == 8)
			sw64(a + off);
		else
			for (j = 0; j < 8; j++)
				a[off + j] = reverse_bits(a[off + j]);
	}
}

/* ---- errors ---- */

static int PRINTFLIKE(3, 4) set_error(struct perfdata *pd, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(pd->err, sizeof(pd->err), "%s: offset %" PRIu64 " (0x%" PRIx64 "): ",
			 pd->path, off, off);

	if (n < 0 || (size_t)n >= sizeof(pd->err))
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(pd->err + n, sizeof(pd->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Is [off, off + len) inside the file?  Written to avoid overflow. */
static bool in_file(const struct perfdata *pd, uint64_t off, uint64_t len)
{
	return off <= pd->size && len <= pd->size - off;
}

/* ---- events and ids ---- */

static struct perfdata_event *add_event(struct perfdata *pd, const unsigned char *attr,
					size_t len)
{
	unsigned char buf[sizeof(struct perf_event_attr)];
	struct perfdata_event *ev;

	pd->events = xgrow(pd->events, &pd->evcap, pd->nevents + 1, sizeof(*pd->events));
	pd->idbufs = xrealloc(pd->idbufs, pd->evcap * sizeof(*pd->idbufs));
	pd->names = xrealloc(pd->names, pd->evcap * sizeof(*pd->names));
	ev = &pd->events[pd->nevents];
	memset(ev, 0, sizeof(*ev));
	pd->idbufs[pd->nevents] = NULL;
	pd->names[pd->nevents] = NULL;
	pd->nevents++;
	/* Newer perf writes a longer attr: its extra fields are not ours;
	 * an older one a shorter attr: the rest is zero. */
	memset(buf, 0, sizeof(buf));
	if (len > sizeof(buf))
		len = sizeof(buf);
	memcpy(buf, attr, len);
	if (pd->swapped)
		swap_attr(buf, len);
	memcpy(&ev->attr, buf, sizeof(buf));
	return ev;
}

static void set_event_ids(struct perfdata *pd, size_t i, const unsigned char *p, size_t n)
{
	uint64_t *ids = xmalloc((n ? n : 1) * sizeof(*ids));
	size_t k;

	for (k = 0; k < n; k++)
		ids[k] = get64(pd, p + 8 * k);
	free(pd->idbufs[i]);
	pd->idbufs[i] = ids;
	pd->events[i].ids = ids;
	pd->events[i].nids = n;
}

static uint64_t idmap_hash(uint64_t id)
{
	return (id * 0x9e3779b97f4a7c15ULL) >> 17;
}

static uint64_t idmap_hash_of(const void *ctx, uint32_t idx)
{
	return idmap_hash(((const struct perfdata *)ctx)->idmap[idx].id);
}

static bool idmap_eq(const void *ctx, uint32_t idx, const void *key)
{
	return ((const struct perfdata *)ctx)->idmap[idx].id == *(const uint64_t *)key;
}

static void build_idmap(struct perfdata *pd)
{
	size_t total = 0, i, k;

	for (i = 0; i < pd->nevents; i++)
		total += pd->events[i].nids;
	free(pd->idmap);
	pd->idmap = xmalloc((total ? total : 1) * sizeof(*pd->idmap));
	pd->nidmap = 0;
	hashtab_release(&pd->idindex);
	hashtab_init(&pd->idindex, total * 2);
	for (i = 0; i < pd->nevents; i++) {
		for (k = 0; k < pd->events[i].nids && pd->nidmap < HASHTAB_MAX_ENTRIES; k++) {
			uint64_t id = pd->events[i].ids[k];
			size_t j = hashtab_probe(&pd->idindex, idmap_hash(id), idmap_eq, pd, &id);

			/* A duplicate id keeps its first event. */
			if (pd->idindex.slots[j] != HASHTAB_EMPTY)
				continue;
			pd->idmap[pd->nidmap].id = id;
			pd->idmap[pd->nidmap].ev = i;
			hashtab_insert_at(&pd->idindex, j, (uint32_t)pd->nidmap++, idmap_hash_of, pd);
		}
	}
	/* Where the id is, from the first attr (perf requires all to agree). */
	pd->sample_id_word = pd->trailer_id_word = -1;
	if (pd->nevents) {
		uint64_t t = pd->events[0].attr.sample_type;

		if (t & PERF_SAMPLE_IDENTIFIER) {
			pd->sample_id_word = 0;
			pd->trailer_id_word = 1;
		} else if (t & PERF_SAMPLE_ID) {
			pd->sample_id_word = !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
					     !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR);
			pd->trailer_id_word = 1 + !!(t & PERF_SAMPLE_STREAM_ID) +
					      !!(t & PERF_SAMPLE_CPU);
		}
		if (!pd->events[0].attr.sample_id_all)
			pd->trailer_id_word = -1;
	}
	/* Sort by time only when every event's records carry one. */
	pd->sorting = pd->nevents > 0;
	for (i = 0; i < pd->nevents; i++)
		if (!(pd->events[i].attr.sample_type & PERF_SAMPLE_TIME))
			pd->sorting = false;
}

static struct perfdata_event *event_by_id(const struct perfdata *pd, uint64_t id)
{
	uint32_t idx;

	if (!pd->idindex.slots)
		return NULL;
	idx = hashtab_find(&pd->idindex, idmap_hash(id), idmap_eq, pd, &id);
	return idx == HASHTAB_EMPTY ? NULL : &pd->events[pd->idmap[idx].ev];
}

/* ---- feature sections ---- */

/* A {u32 len; char s[len]} string at *p within [*p, end): malloc'd copy
 * cut at the first NUL; NULL when it does not fit. */
static char *take_string(const struct perfdata *pd, const unsigned char **p,
			 const unsigned char *end)
{
	const unsigned char *s, *nul;
	uint32_t len;

	if (end - *p < 4)
		return NULL;
	len = get32(pd, *p);
	if (len > (size_t)(end - *p) - 4)
		return NULL;
	s = *p + 4;
	nul = memchr(s, '\0', len);
	*p = s + len;
	return xstrndup((const char *)s, nul ? (size_t)(nul - s) : len);
}

static void parse_build_ids(struct perfdata *pd, const unsigned char *p, const unsigned char *end)
{
	/* struct build_id_event: header, pid, build_id[24], filename[]. */
	while (end - p >= 8 + 4 + 24) {
		uint16_t misc = get16(pd, p + 4), size = get16(pd, p + 6);
		struct perfdata_build_id *b;
		const unsigned char *name;
		size_t nlen;

		if (size < 8 + 4 + 24 || size > end - p)
			break;
		pd->bids = xgrow(pd->bids, &pd->bidcap, pd->nbids + 1, sizeof(*pd->bids));
		b = &pd->bids[pd->nbids++];
		memset(b, 0, sizeof(*b));
		b->pid = (int32_t)get32(pd, p + 8);
		b->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
		memcpy(b->id, p + 12, 20);
		/* Newer perf stores the size after the 20 bytes; older ones
		 * always 20, zero-padded. */
		b->size = (misc & MISC_BUILD_ID_SIZE) ? p[32] : 20;
		if (b->size > 20)
			b->size = 20;
		name = p + 36;
		nlen = size - 36;
		b->filename = xstrndup((const char *)name, strnlen((const char *)name, nlen));
		p += size;
	}
}

static void parse_event_desc(struct perfdata *pd, const unsigned char *p, const unsigned char *end)
{
	uint32_t nr, attr_size, i, nids;

	if (end - p < 8)
		return;
	nr = get32(pd, p);
	attr_size = get32(pd, p + 4);
	p += 8;
	for (i = 0; i < nr; i++) {
		struct perfdata_event *ev = NULL;
		char *name;

		if (attr_size > (size_t)(end - p) || (size_t)(end - p) - attr_size < 4)
			return;
		p += attr_size;
		nids = get32(pd, p);
		p += 4;
		name = take_string(pd, &p, end);
		if (!name)
			return;
		if (nids > (size_t)(end - p) / 8) {
			free(name);
			return;
		}
		if (nids)
			ev = event_by_id(pd, get64(pd, p));
		if (!ev && i < pd->nevents && pd->nevents == nr)
			ev = &pd->events[i];
		p += 8 * (size_t)nids;
		if (ev && !ev->name) {
			pd->names[ev - pd->events] = name;
			ev->name = name;
		} else {
			free(name);
		}
	}
}

static void parse_feature(struct perfdata *pd, int feat, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *q = p;
	struct perfdata_info *in = &pd->info;

	switch (feat) {
	case FEAT_BUILD_ID:
		parse_build_ids(pd, p, end);
		break;
	case FEAT_HOSTNAME:
		if (!in->hostname)
			in->hostname = take_string(pd, &q, end);
		break;
	case FEAT_OSRELEASE:
		if (!in->osrelease)
			in->osrelease = take_string(pd, &q, end);
		break;
	case FEAT_VERSION:
		if (!in->version)
			in->version = take_string(pd, &q, end);
		break;
	case FEAT_ARCH:
		if (!in->arch)
			in->arch = take_string(pd, &q, end);
		break;
	case FEAT_NRCPUS:
		if (len >= 8) {
			in->nr_cpus_avail = get32(pd, p);
			in->nr_cpus_online = get32(pd, p + 4);
		}
		break;
	case FEAT_CMDLINE:
		if (!in->cmdline && len >= 4) {
			uint32_t nr = get32(pd, p), i;
			struct strbuf sb;

			strbuf_init(&sb);
			q += 4;
			for (i = 0; i < nr; i++) {
				char *s = take_string(pd, &q, end);

				if (!s)
					break;
				if (i)
					strbuf_addch(&sb, ' ');
				strbuf_addstr(&sb, s);
				free(s);
			}
			in->cmdline = sb.buf ? sb.buf : xstrdup("");
		}
		break;
	case FEAT_EVENT_DESC:
		parse_event_desc(pd, p, end);
		break;
	case FEAT_SAMPLE_TIME:
		if (len >= 16) {
			in->first_sample_time = get64(pd, p);
			in->last_sample_time = get64(pd, p + 8);
		}
		break;
	default:
		break;
	}
}

/* The feature table after the data section.  A damaged table costs the
 * features, not the samples: it is only noted. */
static void parse_features(struct perfdata *pd, const unsigned char *bitmap)
{
	uint64_t words[FEAT_BITS / 64], table;
	size_t nsec = 0, i, k = 0;
	int bit;

	for (i = 0; i < FEAT_BITS / 64; i++) {
		words[i] = get64(pd, bitmap + 8 * i);
		nsec += (size_t)__builtin_popcountll(words[i]);
	}
	if (!nsec)
		return;
	table = pd->data_end;
	if (pd->truncated || !in_file(pd, table, nsec * 16)) {
		msg_notice("%s: the feature sections (hostname, build IDs...) are missing: "
			   "the file is truncated", pd->path);
		return;
	}
	for (bit = 0; bit < FEAT_BITS; bit++) {
		uint64_t off, len;

		if (!(words[bit / 64] >> (bit % 64) & 1))
			continue;
		off = get64(pd, pd->buf + table + 16 * k);
		len = get64(pd, pd->buf + table + 16 * k + 8);
		k++;
		if (!in_file(pd, off, len)) {
			/* One bad entry means the table is not where the header
			 * says (an unfinished recording): trust none of it. */
			msg_notice("%s: offset %" PRIu64 ": feature %d's section (offset %" PRIu64
				   ", %" PRIu64 " bytes) is outside the file: features ignored",
				   pd->path, table + 16 * (k - 1), bit, off, len);
			return;
		}
		parse_feature(pd, bit, pd->buf + off, (size_t)len);
	}
}

/* ---- opening ---- */

static int load_file(struct perfdata *pd, const char *path, char *err, size_t errsize)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc;

	if (fd < 0) {
		snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			pd->buf = p;
			pd->size = (size_t)st.st_size;
			pd->mapped = true;
			if (fd != STDIN_FILENO)
				close(fd);
			return 0;
		}
	}
	/* A pipe or a FIFO: read it all. */
	{
		char *buf = NULL;
		size_t len = 0;

		rc = fileread_fd(fd, SIZE_MAX, &buf, &len);
		if (fd != STDIN_FILENO)
			close(fd);
		if (rc) {
			snprintf(err, errsize, "cannot read %s: %s", path, strerror(-rc));
			return rc;
		}
		pd->buf = (unsigned char *)buf;
		pd->size = len;
	}
	return 0;
}

static int open_file_format(struct perfdata *pd)
{
	const unsigned char *h = pd->buf;
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size, n, i;

	if (pd->size < FILE_HEADER_SIZE)
		return set_error(pd, pd->size, "the file ends inside its %d-byte header "
				 "(truncated)", FILE_HEADER_SIZE);
	hsize = get64(pd, h + 8);
	attr_size = get64(pd, h + 16);
	attrs_off = get64(pd, h + 24);
	attrs_size = get64(pd, h + 32);
	data_off = get64(pd, h + 40);
	data_size = get64(pd, h + 48);
	if (hsize < FILE_HEADER_SIZE || hsize > pd->size)
		return set_error(pd, 8, "header size %" PRIu64 " is not valid (expected %d)",
				 hsize, FILE_HEADER_SIZE);
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return set_error(pd, 16, "attr size %" PRIu64 " is not valid", attr_size);
	if (!in_file(pd, attrs_off, attrs_size))
		return set_error(pd, 24, "the attrs section (offset %" PRIu64 ", %" PRIu64
				 " bytes) is outside the file (%zu bytes)", attrs_off, attrs_size,
				 pd->size);
	if (attrs_size % attr_size)
		return set_error(pd, 32, "the attrs section size %" PRIu64
				 " is not a multiple of the attr size %" PRIu64, attrs_size, attr_size);
	if (data_off < hsize || data_off > pd->size)
		return set_error(pd, 40, "the data section offset %" PRIu64
				 " is outside the file (%zu bytes)", data_off, pd->size);
	n = attrs_size / attr_size;
	for (i = 0; i < n; i++) {
		uint64_t off = attrs_off + i * attr_size;
		const unsigned char *a = pd->buf + off;
		uint64_t ids_off = get64(pd, a + attr_size - 16);
		uint64_t ids_size = get64(pd, a + attr_size - 8);

		add_event(pd, a, (size_t)attr_size - 16);
		if (!in_file(pd, ids_off, ids_size) || ids_size % 8)
			return set_error(pd, off + attr_size - 16, "attr %" PRIu64 "'s ids (offset %"
					 PRIu64 ", %" PRIu64 " bytes) are outside the file",
					 i, ids_off, ids_size);
		set_event_ids(pd, (size_t)i, pd->buf + ids_off, (size_t)(ids_size / 8));
	}
	build_idmap(pd);
	pd->data_start = data_off;
	if (data_size > pd->size - data_off) {
		/* perf writes the sizes last: a cut file says more than it has. */
		pd->truncated = true;
		pd->data_end = pd->size;
	} else {
		pd->data_end = data_off + data_size;
	}
	parse_features(pd, h + 72);
	return 0;
}

/* Bytes that follow some of perf's records without being counted in their
 * header size (AUXTRACE's trace, pipe-mode tracing data). */
static uint64_t trailing_bytes(const struct perfdata *pd, const unsigned char *rec,
			       uint32_t type, uint16_t size)
{
	if (type == REC_AUXTRACE && size >= 16)
		return get64(pd, rec + 8);
	if (type == REC_HEADER_TRACING_DATA && size >= 12) {
		uint64_t n = get32(pd, rec + 8);

		return (n + 7) & ~7ULL;
	}
	return 0;
}

/* Pipe format: attrs, features and event names arrive as records; the
 * whole stream is in memory, so collect them all first. */
static void scan_pipe_headers(struct perfdata *pd)
{
	uint64_t off = pd->data_start;
	size_t i;

	while (pd->size - off >= 8) {
		const unsigned char *r = pd->buf + off;
		uint32_t type = get32(pd, r);
		uint16_t size = get16(pd, r + 6);
		uint64_t extra;

		if (size < 8 || size > pd->size - off)
			break;
		extra = trailing_bytes(pd, r, type, size);
		if (type == REC_HEADER_ATTR && size >= 8 + PERF_ATTR_SIZE_VER0) {
			uint32_t asize = get32(pd, r + 8 + 4);
			struct perfdata_event *ev;

			if (asize < PERF_ATTR_SIZE_VER0)
				asize = PERF_ATTR_SIZE_VER0;
			if (asize > (uint32_t)size - 8)
				asize = (uint32_t)size - 8;
			ev = add_event(pd, r + 8, asize);
			(void)ev;
			set_event_ids(pd, pd->nevents - 1, r + 8 + asize, (size - 8 - asize) / 8);
		} else if (type == REC_HEADER_FEATURE && size >= 16) {
			uint64_t feat = get64(pd, r + 8);

			if (feat < FEAT_BITS) {
				if (feat == FEAT_EVENT_DESC)
					build_idmap(pd);
				parse_feature(pd, (int)feat, r + 16, size - 16u);
			}
		} else if (type == REC_HEADER_BUILD_ID) {
			parse_build_ids(pd, r, r + size);
		}
		if (extra > pd->size - off - size)
			break;
		off += size + extra;
	}
	build_idmap(pd);
	/* EVENT_UPDATE name records need the id map: a second pass. */
	off = pd->data_start;
	while (pd->size - off >= 8) {
		const unsigned char *r = pd->buf + off;
		uint32_t type = get32(pd, r);
		uint16_t size = get16(pd, r + 6);
		uint64_t extra;

		if (size < 8 || size > pd->size - off)
			break;
		extra = trailing_bytes(pd, r, type, size);
		if (type == REC_EVENT_UPDATE && size > 24 && get64(pd, r + 8) == EVENT_UPDATE_NAME) {
			struct perfdata_event *ev = event_by_id(pd, get64(pd, r + 16));
			size_t len = strnlen((const char *)r + 24, size - 24u);

			if (ev && !ev->name) {
				i = (size_t)(ev - pd->events);
				pd->names[i] = xstrndup((const char *)r + 24, len);
				ev->name = pd->names[i];
			}
		}
		if (extra > pd->size - off - size)
			break;
		off += size + extra;
	}
}

/* Validate the loaded pd->buf and make pd ready to read; frees pd on error. */
static int perfdata_start(struct perfdata *pd, struct perfdata **out, char *err, size_t errsize)
{
	uint64_t magic;
	int rc;

	pd->info.file_size = pd->size;
	pd->scratch = xmalloc(65536 + 8);
	if (pd->size < 8) {
		rc = set_error(pd, 0, pd->size ? "too short for a perf.data magic" :
				       "the file is empty");
		goto fail;
	}
	memcpy(&magic, pd->buf, 8);
	if (magic == PERFDATA_MAGIC) {
		pd->swapped = false;
	} else if (magic == bswap_64(PERFDATA_MAGIC)) {
		pd->swapped = true;
	} else if (memcmp(pd->buf, "PERFFILE", 8) == 0) {
		rc = set_error(pd, 0, "version 1 perf.data (\"PERFFILE\") is not supported: "
				       "convert it with a newer perf (perf inject)");
		goto fail;
	} else {
		rc = set_error(pd, 0, "not a perf.data file (no \"PERFILE2\" magic)");
		goto fail;
	}
	pd->info.swapped = pd->swapped;
	if (pd->size >= 16 && get64(pd, pd->buf + 8) == PIPE_HEADER_SIZE) {
		pd->info.pipe = true;
		pd->data_start = PIPE_HEADER_SIZE;
		pd->data_end = pd->size;
		scan_pipe_headers(pd);
	} else {
		rc = open_file_format(pd);
		if (rc)
			goto fail;
	}
	pd->info.build_ids = pd->bids;
	pd->info.nbuild_ids = pd->nbids;
	pd->pos = pd->data_start;
	*out = pd;
	return 0;
fail:
	snprintf(err, errsize, "%s", pd->err);
	perfdata_close(pd);
	return rc;
}

int perfdata_open(const char *path, struct perfdata **out, char *err, size_t errsize)
{
	struct perfdata *pd = xcalloc(1, sizeof(*pd));
	int rc;

	*out = NULL;
	pd->path = xstrdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
	rc = load_file(pd, path, err, errsize);
	if (rc) {
		perfdata_close(pd);
		return rc;
	}
	return perfdata_start(pd, out, err, errsize);
}

int perfdata_open_memory(const void *buf, size_t size, const char *name, struct perfdata **out,
			 char *err, size_t errsize)
{
	struct perfdata *pd = xcalloc(1, sizeof(*pd));
	unsigned char *copy = xmalloc(size ? size : 1);

	*out = NULL;
	/* A private copy: the caller's buffer may go away, and records are
	 * handed out by pointer into it. */
	if (size)
		memcpy(copy, buf, size);
	pd->path = xstrdup(name ? name : "<memory>");
	pd->buf = copy;
	pd->size = size;
	return perfdata_start(pd, out, err, errsize);
}

void perfdata_close(struct perfdata *pd)
{
	size_t i;

	if (!pd)
		return;
	if (pd->mapped)
		munmap((void *)pd->buf, pd->size);
	else
		free((void *)pd->buf);
	for (i = 0; i < pd->nevents; i++) {
		free(pd->idbufs[i]);
		free(pd->names[i]);
	}
	free(pd->idbufs);
	free(pd->names);
	free(pd->events);
	free(pd->idmap);
	hashtab_release(&pd->idindex);
	for (i = 0; i < pd->nbids; i++)
		free((char *)pd->bids[i].filename);
	free(pd->bids);
	free((char *)pd->info.hostname);
	free((char *)pd->info.osrelease);
	free((char *)pd->info.version);
	free((char *)pd->info.arch);
	free((char *)pd->info.cmdline);
	free(pd->pend);
	free(pd->merge_tmp);
	free(pd->runs);
	free(pd->scratch);
	free(pd->path);
	free(pd);
}

const struct perfdata_info *perfdata_get_info(const struct perfdata *pd)
{
	return &pd->info;
}

size_t perfdata_nr_events(const struct perfdata *pd)
{
	return pd->nevents;
}

const struct perfdata_event *perfdata_get_event(const struct perfdata *pd, size_t i)
{
	return i < pd->nevents ? &pd->events[i] : NULL;
}

void perfdata_set_file_order(struct perfdata *pd, bool file_order)
{
	if (!pd->started)
		pd->file_order = file_order;
}

const char *perfdata_error(const struct perfdata *pd)
{
	return pd->err;
}

bool perfdata_damage_at_end(const struct perfdata *pd)
{
	return pd->damage_at_end;
}

/* ---- records ---- */

/* Swap the sample_id_all trailer at the end of a non-sample record's words. */
static void swap_trailer(uint64_t *w, size_t nwords, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;
	size_t n = record_sample_id_size(attr) / 8, i;

	if (n > nwords)
		return;
	i = nwords - n;
	if (t & PERF_SAMPLE_TID)
		sw32x2(&w[i++]);
	if (t & PERF_SAMPLE_TIME)
		sw64(&w[i++]);
	if (t & PERF_SAMPLE_ID)
		sw64(&w[i++]);
	if (t & PERF_SAMPLE_STREAM_ID)
		sw64(&w[i++]);
	if (t & PERF_SAMPLE_CPU)
		sw32x2(&w[i++]);
	if (t & PERF_SAMPLE_IDENTIFIER)
		sw64(&w[i++]);
}

/* Swap a sample body field by field, as decode_sample reads it; stops
 * (leaving the rest for the decoder to reject) where a count does not fit. */
static void swap_sample(uint64_t *w, size_t n, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type, nr, k;
	size_t i = 0;

#define ONE64(bit)                        \
	do {                              \
		if (t & (bit)) {          \
			if (i >= n)       \
				return;   \
			sw64(&w[i++]);    \
		}                         \
	} while (0)
#define ONE32X2(bit)                      \
	do {                              \
		if (t & (bit)) {          \
			if (i >= n)       \
				return;   \
			sw32x2(&w[i++]);  \
		}                         \
	} while (0)
/* Swap count words that follow, if they fit. */
#define RUN64(count)                                  \
	do {                                          \
		if ((count) > n - i)                  \
			return;                       \
		for (k = 0; k < (count); k++)         \
			sw64(&w[i++]);                \
	} while (0)

	ONE64(PERF_SAMPLE_IDENTIFIER);
	ONE64(PERF_SAMPLE_IP);
	ONE32X2(PERF_SAMPLE_TID);
	ONE64(PERF_SAMPLE_TIME);
	ONE64(PERF_SAMPLE_ADDR);
	ONE64(PERF_SAMPLE_ID);
	ONE64(PERF_SAMPLE_STREAM_ID);
	ONE32X2(PERF_SAMPLE_CPU);
	ONE64(PERF_SAMPLE_PERIOD);
	if (t & PERF_SAMPLE_READ) {
		uint64_t fmt = attr->read_format, per = 1 + !!(fmt & PERF_FORMAT_ID) +
							!!(fmt & (1U << 4));
		uint64_t hdr = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

		if (fmt & PERF_FORMAT_GROUP) {
			if (i >= n)
				return;
			sw64(&w[i]);
			nr = w[i++];
			RUN64(hdr);
			if (nr > (n - i) / per)
				return;
			RUN64(nr * per);
		} else {
			RUN64(per + hdr);
		}
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		if (i >= n)
			return;
		sw64(&w[i]);
		nr = w[i++];
		RUN64(nr);
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t size;

		if (i >= n)
			return;
		/* The u32 size only: the payload is the recording machine's
		 * bytes, for an arch decoder that knows their order. */
		sw32(&w[i]);
		memcpy(&size, &w[i], 4);
		nr = (4 + (uint64_t)size + 7) / 8;
		if (nr > n - i)
			return;
		i += nr;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t per = 3;

		if (i >= n)
			return;
		sw64(&w[i]);
		nr = w[i++];
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			RUN64(1);
		if (attr->branch_sample_type & (1U << 19))
			per++;
		if (nr > (n - i) / per)
			return;
		RUN64(nr * per);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		if (i >= n)
			return;
		sw64(&w[i]);
		if (w[i++])
			RUN64((uint64_t)__builtin_popcountll(attr->sample_regs_user));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		if (i >= n)
			return;
		sw64(&w[i]);
		nr = w[i++];
		if ((nr + 7) / 8 > n - i || nr > UINT64_MAX - 7)
			return;
		i += (nr + 7) / 8;
		if (nr)
			RUN64(1);
	}
	ONE64(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT);
	ONE64(PERF_SAMPLE_DATA_SRC);
	ONE64(PERF_SAMPLE_TRANSACTION);
	if (t & PERF_SAMPLE_REGS_INTR) {
		if (i >= n)
			return;
		sw64(&w[i]);
		if (w[i++])
			RUN64((uint64_t)__builtin_popcountll(attr->sample_regs_intr));
	}
	ONE64(PERF_SAMPLE_PHYS_ADDR);
	ONE64(PERF_SAMPLE_CGROUP);
	ONE64(PERF_SAMPLE_DATA_PAGE_SIZE);
	ONE64(PERF_SAMPLE_CODE_PAGE_SIZE);
	ONE64(PERF_SAMPLE_AUX);
#undef ONE64
#undef ONE32X2
#undef RUN64
}

/* Swap a record body (the header is done) by its type's field layout. */
static void swap_body(uint32_t type, uint16_t misc, uint64_t *w, size_t n,
		      const struct perf_event_attr *attr)
{
	size_t i, body = n;

	if (type == PERF_RECORD_SAMPLE) {
		swap_sample(w, n, attr);
		return;
	}
	if (type < 64) {
		size_t sid = record_sample_id_size(attr) / 8;

		if (sid <= n) {
			swap_trailer(w, n, attr);
			body = n - sid;
		}
	}
	switch (type) {
	case PERF_RECORD_MMAP:
		if (body >= 4) {
			sw32x2(&w[0]);
			sw64(&w[1]);
			sw64(&w[2]);
			sw64(&w[3]);
		}
		break;
	case PERF_RECORD_MMAP2:
		if (body >= 7) {
			sw32x2(&w[0]);
			sw64(&w[1]);
			sw64(&w[2]);
			sw64(&w[3]);
			if (!(misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
				sw32x2(&w[4]);
				sw64(&w[5]);
				sw64(&w[6]);
			}
			if (body >= 8)
				sw32x2(&w[7]);
		}
		break;
	case PERF_RECORD_COMM:
		if (body >= 1)
			sw32x2(&w[0]);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (body >= 3) {
			sw32x2(&w[0]);
			sw32x2(&w[1]);
			sw64(&w[2]);
		}
		break;
	case PERF_RECORD_KSYMBOL:
		if (body >= 2) {
			sw64(&w[0]);
			sw32(&w[1]);
			sw16((char *)&w[1] + 4);
			sw16((char *)&w[1] + 6);
		}
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
	case REC_ID_INDEX:
	case REC_AUXTRACE:
		for (i = 0; i < body; i++)
			sw64(&w[i]);
		break;
	case REC_HEADER_FEATURE:
	case REC_EVENT_UPDATE:
		if (body >= 1)
			sw64(&w[0]);
		if (type == REC_EVENT_UPDATE && body >= 2)
			sw64(&w[1]);
		break;
	default:
		/* Strings, or records read only through perfdata_info. */
		break;
	}
}

/* The event a record belongs to, from its id where there are several. */
static const struct perfdata_event *record_event(const struct perfdata *pd,
						 const unsigned char *rec, uint32_t type,
						 size_t nwords)
{
	const unsigned char *body = rec + 8;
	const struct perfdata_event *ev = NULL;

	if (pd->nevents == 0)
		return &no_event;
	if (pd->nevents == 1 || type >= 64)
		return &pd->events[0];
	if (type == PERF_RECORD_SAMPLE) {
		if (pd->sample_id_word >= 0 && (size_t)pd->sample_id_word < nwords)
			ev = event_by_id(pd, get64(pd, body + 8 * (size_t)pd->sample_id_word));
	} else if (pd->trailer_id_word >= 0 && (size_t)pd->trailer_id_word <= nwords) {
		ev = event_by_id(pd, get64(pd, body + 8 * (nwords - (size_t)pd->trailer_id_word)));
	}
	return ev ? ev : &pd->events[0];
}

/* Frame, copy and check the record at off.  Fills rec and *next (the
 * offset after it), and *time unless checked.  On damage sets the error
 * and returns -EINVAL.  checked: the record was read and decoded before
 * (queued for sorting), so the decoder's checks are not repeated: the
 * engine decodes it anyway, and a queued record cannot have changed. */
static int read_record(struct perfdata *pd, uint64_t off, struct perfdata_record *rec,
		       uint64_t *next, uint64_t *time, bool checked)
{
	const unsigned char *r = pd->buf + off;
	uint64_t left = pd->data_end - off, extra;
	uint32_t type;
	uint16_t misc, size;
	const struct perf_event_header *hdr;
	const struct perfdata_event *ev;
	struct record dec;
	const char *why = NULL;

	if (left < 8) {
		pd->damage_at_end = true;
		return set_error(pd, off, "the data ends inside a record header (%" PRIu64
				 " of 8 bytes): the file is truncated", left);
	}
	type = get32(pd, r);
	misc = get16(pd, r + 4);
	size = get16(pd, r + 6);
	if (size < 8)
		return set_error(pd, off, "record size %u is smaller than its 8-byte header "
				 "(type %u)", size, type);
	if (size > left) {
		pd->damage_at_end = pd->truncated;
		return set_error(pd, off, "%s record of %u bytes runs past the end of the %s "
				 "(%" PRIu64 " bytes left)%s", record_type_name(type), size,
				 pd->truncated ? "file" : "data section", left,
				 pd->truncated ? ": the file is truncated" : "");
	}
	if (type < 64 && size % 8)
		return set_error(pd, off, "%s record size %u is not a multiple of 8",
				 record_type_name(type), size);
	if (type == REC_COMPRESSED || type == REC_COMPRESSED2)
		return set_error(pd, off, "compressed records (perf record -z) are not supported: "
				 "decompress with `perf inject -i FILE -o NEW`");
	extra = trailing_bytes(pd, r, type, size);
	if (extra > left - size) {
		pd->damage_at_end = pd->truncated;
		return set_error(pd, off, "%s data of %" PRIu64 " bytes runs past the end of "
				 "the data", record_type_name(type), extra);
	}
	ev = record_event(pd, r, type, (size - 8u) / 8);
	if (!pd->swapped && (uintptr_t)r % 8 == 0) {
		hdr = (const struct perf_event_header *)r;
	} else {
		struct perf_event_header *h = (struct perf_event_header *)pd->scratch;

		memcpy(pd->scratch, r, size);
		if (pd->swapped) {
			h->type = type;
			h->misc = misc;
			h->size = size;
			swap_body(type, misc, pd->scratch + 1, (size - 8u) / 8, &ev->attr);
		}
		hdr = h;
	}
	*time = 0;
	if (type < 64 && !checked) {
		if (record_decode(hdr, &ev->attr, &dec, &why))
			return set_error(pd, off, "%s record of %u bytes: %s", record_type_name(type),
					 size, why ? why : "cannot be decoded");
		if (dec.has_sid && (ev->attr.sample_type & PERF_SAMPLE_TIME))
			*time = dec.sid.time;
	}
	rec->hdr = hdr;
	rec->event = ev;
	rec->offset = off;
	*next = off + size + extra;
	return 0;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return CMP(x->time, y->time);
	return CMP(x->off, y->off);
}

static bool pending_before(const struct pending *x, const struct pending *y)
{
	return x->time < y->time || (x->time == y->time && x->off < y->off);
}

/* Sort pend by (time, offset).  The records of a round come in a few
 * ascending runs (one per CPU ring as perf writes them, a single run for
 * a one-CPU or already ordered recording): the runs are found in one pass
 * and merged pairwise, O(n log runs), and an ordered round costs that one
 * pass.  Many short runs (no order to use) go to qsort. */
static void sort_pending(struct perfdata *pd)
{
	struct pending *a = pd->pend, *b;
	size_t n = pd->npend, nruns = 0, i;

	if (n < 2)
		return;
	pd->runs = xgrow(pd->runs, &pd->runs_cap, 1, sizeof(*pd->runs));
	pd->runs[nruns++] = 0;
	for (i = 1; i < n; i++) {
		if (!pending_before(&a[i], &a[i - 1]))
			continue;
		if (nruns >= 64 && nruns > n / 16) {
			qsort(a, n, sizeof(*a), cmp_pending);
			return;
		}
		pd->runs = xgrow(pd->runs, &pd->runs_cap, nruns + 2, sizeof(*pd->runs));
		pd->runs[nruns++] = i;
	}
	if (nruns == 1)
		return;
	pd->merge_tmp = xgrow(pd->merge_tmp, &pd->merge_cap, n, sizeof(*pd->merge_tmp));
	b = pd->merge_tmp;
	pd->runs[nruns] = n;
	while (nruns > 1) {
		size_t r, out = 0;

		for (r = 0; r < nruns; r += 2) {
			size_t lo = pd->runs[r], mid = pd->runs[r + 1], hi, x, y, k = lo;

			pd->runs[out++] = lo;
			if (r + 1 == nruns) {
				memcpy(b + lo, a + lo, (n - lo) * sizeof(*a));
				break;
			}
			hi = pd->runs[r + 2];
			/* Stable: on equal keys (never: offsets differ) x first. */
			for (x = lo, y = mid; x < mid && y < hi;)
				b[k++] = pending_before(&a[y], &a[x]) ? a[y++] : a[x++];
			memcpy(b + k, a + x, (mid - x) * sizeof(*a));
			k += mid - x;
			memcpy(b + k, a + y, (hi - y) * sizeof(*a));
		}
		pd->runs[out] = n;
		nruns = out;
		/* Swap the halves: the merged runs are in b now. */
		if (b == pd->merge_tmp) {
			b = pd->pend;
			a = pd->merge_tmp;
		} else {
			b = pd->merge_tmp;
			a = pd->pend;
		}
	}
	if (a != pd->pend) {
		/* Keep pend the array that xgrow owns: swap the buffers. */
		struct pending *t = pd->pend;
		size_t cap = pd->pendcap;

		pd->pend = pd->merge_tmp;
		pd->pendcap = pd->merge_cap;
		pd->merge_tmp = t;
		pd->merge_cap = cap;
	}
}

/* Make pend[0..k) ready for emission: those with time <= limit, sorted. */
static void flush_upto(struct perfdata *pd, uint64_t limit, bool all)
{
	size_t k = 0;

	sort_pending(pd);
	if (all)
		k = pd->npend;
	else
		while (k < pd->npend && pd->pend[k].time <= limit)
			k++;
	pd->emit_i = 0;
	pd->emit_n = k;
}

/* Drop the emitted prefix of pend. */
static void compact_pending(struct perfdata *pd)
{
	size_t i;

	if (!pd->emit_n)
		return;
	memmove(pd->pend, pd->pend + pd->emit_n, (pd->npend - pd->emit_n) * sizeof(*pd->pend));
	pd->npend -= pd->emit_n;
	pd->emit_i = pd->emit_n = 0;
	/* Records queued later lie further on in the file: only the ones
	 * kept here can be below them. */
	pd->pend_low = UINT64_MAX;
	for (i = 0; i < pd->npend; i++)
		if (pd->pend[i].off < pd->pend_low)
			pd->pend_low = pd->pend[i].off;
}

/* Queue the record at off for sorting. */
static inline void queue_pending(struct perfdata *pd, uint64_t time, uint64_t off)
{
	if (!pd->npend)
		pd->pend_low = off;
	pd->pend = xgrow(pd->pend, &pd->pendcap, pd->npend + 1, sizeof(*pd->pend));
	pd->pend[pd->npend++] = (struct pending){ time, off };
	if (time > pd->max_time)
		pd->max_time = time;
}

/* Give back the mapped file pages wholly below keep, the lowest offset
 * still to be read (a queued record, or the next one in the file).  The
 * mapping is private and read-only: MADV_DONTNEED only unmaps the pages,
 * a later touch would read them from the file again (the page cache),
 * so nothing handed out earlier can turn into zeros. */
static inline void drop_consumed(struct perfdata *pd, uint64_t keep)
{
	uint64_t page, from, to;

	if (!pd->mapped || keep < pd->dropped + DROP_STEP)
		return;
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	from = pd->dropped;
	if (!from)      /* never the header's pages: the first data page on */
		from = (pd->data_start + page - 1) & ~(page - 1);
	to = keep & ~(page - 1);
	if (to <= from)
		return;
	(void)madvise((void *)(pd->buf + from), (size_t)(to - from), MADV_DONTNEED);
	pd->dropped = to;
}

static int next_file_order(struct perfdata *pd, struct perfdata_record *rec)
{
	uint64_t next, time;
	int rc;

	if (pd->pending_err)
		return pd->pending_err;
	if (pd->pos >= pd->data_end)
		return 0;
	drop_consumed(pd, pd->pos);
	rc = read_record(pd, pd->pos, rec, &next, &time, false);
	if (rc) {
		pd->pending_err = rc;
		return rc;
	}
	pd->pos = next;
	return 1;
}

int perfdata_next(struct perfdata *pd, struct perfdata_record *rec)
{
	uint64_t next, time;
	int rc;

	pd->started = true;
	if (pd->file_order || !pd->sorting)
		return next_file_order(pd, rec);
	for (;;) {
		if (pd->emit_i < pd->emit_n) {
			/* Read and checked once already: cannot fail now. */
			rc = read_record(pd, pd->pend[pd->emit_i++].off, rec, &next, &time, true);
			return rc ? rc : 1;
		}
		compact_pending(pd);
		if (pd->has_held) {
			pd->has_held = false;
			rc = read_record(pd, pd->held_off, rec, &next, &time, false);
			return rc ? rc : 1;
		}
		if (pd->pending_err) {
			if (pd->npend) {
				flush_upto(pd, 0, true);
				continue;
			}
			return pd->pending_err;
		}
		if (pd->pos >= pd->data_end) {
			if (!pd->npend)
				return 0;
			flush_upto(pd, 0, true);
			continue;
		}
		drop_consumed(pd, pd->npend ? pd->pend_low : pd->pos);
		rc = read_record(pd, pd->pos, rec, &next, &time, false);
		if (rc) {
			/* Hand out what was read before the damage first. */
			pd->pending_err = rc;
			continue;
		}
		pd->pos = next;
		if (rec->hdr->type == REC_FINISHED_ROUND || rec->hdr->type == REC_FINISHED_INIT) {
			/* perf's rule: what was written before the previous
			 * round's end is complete up to that round's max time. */
			bool all = rec->hdr->type == REC_FINISHED_INIT;

			if (pd->npend)
				flush_upto(pd, pd->round_limit, all);
			pd->round_limit = pd->max_time;
			if (pd->emit_n) {
				pd->has_held = true;
				pd->held_off = rec->offset;
				continue;
			}
			return 1;
		}
		if (!time)
			return 1;
		if (pd->npend >= MAX_PENDING) {
			flush_upto(pd, pd->pend[MAX_PENDING / 2].time, false);
			/* Queue the new record behind the flushed half. */
			queue_pending(pd, time, rec->offset);
			continue;
		}
		queue_pending(pd, time, rec->offset);
	}
}
