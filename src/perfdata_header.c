/* The perf.data header half: file header, attrs and their ids (with the
 * id -> event map), feature sections, and the pipe format's header records.
 * Apart from perfdata.c so that the record reader and this format parsing
 * each fit in one reading. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata_priv.h"

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

struct perfdata_event *perfdata_header_event_by_id(const struct perfdata *pd, uint64_t id)
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
			ev = perfdata_header_event_by_id(pd, get64(pd, p));
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

/* u32 nr, then nr {u32 type; string name}: kept up to the first damage. */
static void parse_pmu_mappings(struct perfdata *pd, const unsigned char *p,
			       const unsigned char *end)
{
	struct perfdata_pmu *pmus;
	uint32_t nr, i;
	size_t n = 0;

	if (end - p < 4)
		return;
	nr = get32(pd, p);
	p += 4;
	/* each entry takes at least 8 bytes: nr cannot ask for more */
	if (nr > (size_t)(end - p) / 8)
		nr = (uint32_t)((size_t)(end - p) / 8);
	pmus = xcalloc(nr ? nr : 1, sizeof(*pmus));
	for (i = 0; i < nr && end - p >= 4; i++) {
		uint32_t type = get32(pd, p);
		char *name;

		p += 4;
		name = take_string(pd, &p, end);
		if (!name)
			break;
		pmus[n].type = type;
		pmus[n++].name = name;
	}
	pd->info.pmus = pmus;
	pd->info.npmus = n;
}

static void parse_feature(struct perfdata *pd, int feat, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len, *q = p;
	struct perfdata_info *in = &pd->info;

	switch (feat) {
	case FEAT_TRACING_DATA:
		if (!in->tracing_data && len && len <= (64u << 20)) {
			unsigned char *copy = xmalloc(len);

			memcpy(copy, p, len);
			in->tracing_data = copy;
			in->tracing_data_size = len;
		}
		break;
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
	case FEAT_CPUID:
		if (!in->cpuid)
			in->cpuid = take_string(pd, &q, end);
		break;
	case FEAT_PMU_MAPPINGS:
		if (!in->pmus)
			parse_pmu_mappings(pd, p, end);
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

/* ---- the header ---- */

static int open_file_format(struct perfdata *pd)
{
	const unsigned char *h = pd->buf;
	uint64_t hsize, attr_size, attrs_off, attrs_size, data_off, data_size, n, i;

	if (pd->size < FILE_HEADER_SIZE)
		return perfdata_set_error(pd, pd->size, "the file ends inside its %d-byte header "
				 "(truncated)", FILE_HEADER_SIZE);
	hsize = get64(pd, h + 8);
	attr_size = get64(pd, h + 16);
	attrs_off = get64(pd, h + 24);
	attrs_size = get64(pd, h + 32);
	data_off = get64(pd, h + 40);
	data_size = get64(pd, h + 48);
	if (hsize < FILE_HEADER_SIZE || hsize > pd->size)
		return perfdata_set_error(pd, 8, "header size %" PRIu64 " is not valid (expected %d)",
				 hsize, FILE_HEADER_SIZE);
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 4096)
		return perfdata_set_error(pd, 16, "attr size %" PRIu64 " is not valid", attr_size);
	if (!in_file(pd, attrs_off, attrs_size))
		return perfdata_set_error(pd, 24, "the attrs section (offset %" PRIu64 ", %" PRIu64
				 " bytes) is outside the file (%zu bytes)", attrs_off, attrs_size,
				 pd->size);
	if (attrs_size % attr_size)
		return perfdata_set_error(pd, 32, "the attrs section size %" PRIu64
				 " is not a multiple of the attr size %" PRIu64, attrs_size, attr_size);
	if (data_off < hsize || data_off > pd->size)
		return perfdata_set_error(pd, 40, "the data section offset %" PRIu64
				 " is outside the file (%zu bytes)", data_off, pd->size);
	n = attrs_size / attr_size;
	for (i = 0; i < n; i++) {
		uint64_t off = attrs_off + i * attr_size;
		const unsigned char *a = pd->buf + off;
		uint64_t ids_off = get64(pd, a + attr_size - 16);
		uint64_t ids_size = get64(pd, a + attr_size - 8);

		add_event(pd, a, (size_t)attr_size - 16);
		if (!in_file(pd, ids_off, ids_size) || ids_size % 8)
			return perfdata_set_error(pd, off + attr_size - 16, "attr %" PRIu64 "'s ids (offset %"
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
		} else if (type == REC_HEADER_TRACING_DATA && size >= 12) {
			/* The tracepoints' formats follow the record, outside its
			 * size: what the stream holds of them (a cut one is
			 * parsed as far as it goes). */
			uint64_t n = get32(pd, r + 8), have = pd->size - off - size;

			parse_feature(pd, FEAT_TRACING_DATA, r + size, (size_t)(n < have ? n : have));
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
			struct perfdata_event *ev = perfdata_header_event_by_id(pd, get64(pd, r + 16));
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


int perfdata_header_parse(struct perfdata *pd)
{
	uint64_t magic;
	int rc;

	if (pd->size < 8)
		return perfdata_set_error(pd, 0, pd->size ? "too short for a perf.data magic" :
					  "the file is empty");
	memcpy(&magic, pd->buf, 8);
	if (magic == PERFDATA_MAGIC)
		pd->swapped = false;
	else if (magic == bswap_64(PERFDATA_MAGIC))
		pd->swapped = true;
	else if (memcmp(pd->buf, "PERFFILE", 8) == 0)
		return perfdata_set_error(pd, 0, "version 1 perf.data (\"PERFFILE\") is not "
					  "supported: convert it with a newer perf (perf inject)");
	else
		return perfdata_set_error(pd, 0, "not a perf.data file (no \"PERFILE2\" magic)");
	pd->info.swapped = pd->swapped;
	if (pd->size >= 16 && get64(pd, pd->buf + 8) == PIPE_HEADER_SIZE) {
		pd->info.pipe = true;
		pd->data_start = PIPE_HEADER_SIZE;
		pd->data_end = pd->size;
		scan_pipe_headers(pd);
	} else {
		rc = open_file_format(pd);
		if (rc)
			return rc;
	}
	pd->info.build_ids = pd->bids;
	pd->info.nbuild_ids = pd->nbids;
	return 0;
}

void perfdata_header_release(struct perfdata *pd)
{
	size_t i;

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
	free((char *)pd->info.cpuid);
	for (i = 0; i < pd->info.npmus; i++)
		free((char *)pd->info.pmus[i].name);
	free((void *)pd->info.pmus);
	free((void *)pd->info.tracing_data);
}
