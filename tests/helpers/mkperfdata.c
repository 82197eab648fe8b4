/* mkperfdata: writes perf.data files from a line-based description, so that
 * tests need no checked-in binary recordings.  Independent of src/.
 *
 * usage: mkperfdata [-o OUT] [DESC]     (DESC and OUT default to stdin/stdout)
 *
 * One directive per line; '#' starts a comment; words are KEY=VALUE;
 * numbers in C syntax (0x1f, 42, -1); HEX is a run of hex digits.
 *
 *   order native|swapped|little|big   byte order of the file (default native)
 *   pipe                        perf's pipe format (attrs/features as records)
 *   attr type= config= sample_type=IP|TID|TIME|... period=N|freq=N
 *        sample_id_all=0|1 read_format=N exclude_kernel=0|1 name=NAME ids=1,2
 *                               an event; records name it with attr=INDEX
 *                               (default 0).  sample_type also takes numbers.
 *   mmap2 pid= tid= start= len= pgoff= maj= min= ino= prot= flags= file=PATH
 *        [buildid=HEX] [misc=N]   (buildid sets PERF_RECORD_MISC_MMAP_BUILD_ID)
 *   mmap pid= tid= start= len= pgoff= file=PATH
 *   comm pid= tid= comm=NAME [exec=1]
 *   fork|exit pid= ppid= tid= ptid= time=
 *   lost id= lost=
 *   sample [attr=N] [misc=N] ip= pid= tid= time= addr= id= stream_id= cpu=
 *        period= callchain=A,B,... raw=HEX
 *                               fields are written per the attr's sample_type
 *                               (misc defaults to user mode)
 *   Non-sample records get the attr's sample_id_all trailer from the same
 *   keys (pid, tid, time, id (default: the attr's first id), cpu).
 *   record type=N [misc=N] [size=N] [hex=HEX]
 *                               any record; size= overrides the true size
 *   round                       PERF_RECORD_FINISHED_ROUND
 *   finished_init               PERF_RECORD_FINISHED_INIT
 *   build_id [pid=N] [misc=N] id=HEX file=PATH    a BUILD_ID feature entry
 *   hostname S | osrelease S | version S | arch S | cpuid S   string features
 *   pmu TYPE NAME               a PMU_MAPPINGS entry ("pmu 11 ibs_op")
 *   pmu_cap PMU NAME VALUE      a PMU_CAPS entry ("pmu_cap ibs_op
 *                               zen4_ibs_extensions 1")
 *   nrcpus AVAIL ONLINE | sample_time FIRST LAST | cmdline WORDS...
 *   (EVENT_DESC is written when some attr has a name=)
 *   truncate OFF                cut the file at OFF
 *   poke OFF HEX                overwrite bytes at OFF
 *
 * OFF is a number, or @N (the N-th data record, from 0), @data (the data
 * section) or @end (the file end), optionally followed by +NUM or -NUM.
 * With -v, the offset of each data record is printed on stderr. */
#include "config.h"

#include <byteswap.h>
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ATTRS 16
#define MAX_IDS 64
#define MAX_RECS 100000

struct buf {
	unsigned char *p;
	size_t len, cap;
};

struct attr_desc {
	struct perf_event_attr a;
	char name[64];
	uint64_t ids[MAX_IDS];
	size_t nids;
};

struct feature {
	int bit;
	struct buf data;
};

struct damage {
	bool truncate;
	char off[64];
	struct buf bytes;
};

static bool swap_out;           /* writing the other byte order */
static bool pipe_mode;
static struct attr_desc attrs[MAX_ATTRS];
static size_t nattrs;
static struct buf data;          /* the data section */
static size_t rec_off[MAX_RECS]; /* offsets of records within data */
static size_t nrecs;
static struct feature feats[32];
static size_t nfeats;
static struct buf build_ids;
static struct damage damages[64];
static size_t ndamages;
static int lineno;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mkperfdata: line %d: ", lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	if (n)    /* p may be NULL (an empty section): memcpy would be undefined */
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

static void put16(struct buf *b, uint16_t v)
{
	if (swap_out)
		v = bswap_16(v);
	put(b, &v, 2);
}

static void put32(struct buf *b, uint32_t v)
{
	if (swap_out)
		v = bswap_32(v);
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	if (swap_out)
		v = bswap_64(v);
	put(b, &v, 8);
}

static void pad8(struct buf *b)
{
	while (b->len % 8)
		put8(b, 0);
}

static void set64(struct buf *b, size_t off, uint64_t v)
{
	if (swap_out)
		v = bswap_64(v);
	memcpy(b->p + off, &v, 8);
}

static void set16(struct buf *b, size_t off, uint16_t v)
{
	if (swap_out)
		v = bswap_16(v);
	memcpy(b->p + off, &v, 2);
}

/* ---- parsing words ---- */

static char *words[128];
static size_t nwords;

static const char *get(const char *key)
{
	size_t i, n = strlen(key);

	for (i = 1; i < nwords; i++)
		if (strncmp(words[i], key, n) == 0 && words[i][n] == '=')
			return words[i] + n + 1;
	return NULL;
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = *s == '-' ? (uint64_t)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	if (errno || end == s || (*end && *end != ','))
		die("bad number '%s'", s);
	return v;
}

static uint64_t getnum(const char *key, uint64_t def)
{
	const char *v = get(key);

	return v ? num(v) : def;
}

static void hex(struct buf *b, const char *s)
{
	while (s[0] && s[1]) {
		unsigned v;

		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    sscanf(s, "%2x", &v) != 1)
			die("bad hex '%s'", s);
		put8(b, (uint8_t)v);
		s += 2;
	}
	if (*s)
		die("odd number of hex digits");
}

static const char *const sample_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
	"STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
	"DATA_SRC", "IDENTIFIER",
};

static uint64_t sample_type(const char *s)
{
	uint64_t t = 0;
	char tmp[256], *tok, *save;
	size_t i;

	snprintf(tmp, sizeof(tmp), "%s", s);
	for (tok = strtok_r(tmp, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		for (i = 0; i < sizeof(sample_names) / sizeof(sample_names[0]); i++)
			if (strcmp(tok, sample_names[i]) == 0)
				break;
		if (i < sizeof(sample_names) / sizeof(sample_names[0]))
			t |= 1ULL << i;
		else
			t |= num(tok);
	}
	return t;
}

/* ---- records ---- */

static struct attr_desc *rec_attr(void)
{
	uint64_t i = getnum("attr", 0);

	if (i >= nattrs)
		die("attr=%llu: no such attr (define it first)", (unsigned long long)i);
	return &attrs[i];
}

static size_t begin_record(uint32_t type, uint16_t misc)
{
	size_t start = data.len;

	if (nrecs == MAX_RECS)
		die("too many records");
	rec_off[nrecs++] = start;
	put32(&data, type);
	put16(&data, misc);
	put16(&data, 0);
	return start;
}

static void end_record(size_t start)
{
	set16(&data, start + 6, (uint16_t)(data.len - start));
}

static void sid_trailer(const struct attr_desc *ad)
{
	uint64_t t = ad->a.sample_type, id = getnum("id", ad->nids ? ad->ids[0] : 0);

	if (!ad->a.sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		put32(&data, (uint32_t)getnum("pid", 0));
		put32(&data, (uint32_t)getnum("tid", getnum("pid", 0)));
	}
	if (t & PERF_SAMPLE_TIME)
		put64(&data, getnum("time", 0));
	if (t & PERF_SAMPLE_ID)
		put64(&data, id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(&data, getnum("stream_id", id));
	if (t & PERF_SAMPLE_CPU) {
		put32(&data, (uint32_t)getnum("cpu", 0));
		put32(&data, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(&data, id);
}

static void put_string(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
	pad8(b);
}

static void do_sample(void)
{
	struct attr_desc *ad = rec_attr();
	uint64_t t = ad->a.sample_type, id = getnum("id", ad->nids ? ad->ids[0] : 0);
	size_t start = begin_record(PERF_RECORD_SAMPLE,
				    (uint16_t)getnum("misc", PERF_RECORD_MISC_USER));
	const char *cc = get("callchain"), *raw = get("raw");

	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(&data, id);
	if (t & PERF_SAMPLE_IP)
		put64(&data, getnum("ip", 0));
	if (t & PERF_SAMPLE_TID) {
		put32(&data, (uint32_t)getnum("pid", 0));
		put32(&data, (uint32_t)getnum("tid", getnum("pid", 0)));
	}
	if (t & PERF_SAMPLE_TIME)
		put64(&data, getnum("time", 0));
	if (t & PERF_SAMPLE_ADDR)
		put64(&data, getnum("addr", 0));
	if (t & PERF_SAMPLE_ID)
		put64(&data, id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(&data, getnum("stream_id", id));
	if (t & PERF_SAMPLE_CPU) {
		put32(&data, (uint32_t)getnum("cpu", 0));
		put32(&data, 0);
	}
	if (t & PERF_SAMPLE_PERIOD)
		put64(&data, getnum("period", ad->a.freq ? 1 : ad->a.sample_period));
	if (t & PERF_SAMPLE_READ) {
		uint64_t f = ad->a.read_format;

		if (f & PERF_FORMAT_GROUP)
			put64(&data, 1);
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put64(&data, 0);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put64(&data, 0);
		put64(&data, getnum("value", 0));
		if (f & PERF_FORMAT_ID)
			put64(&data, id);
		if (f & (1U << 4))
			put64(&data, 0);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		size_t nrpos = data.len, nr = 0;

		put64(&data, 0);
		while (cc && *cc) {
			put64(&data, num(cc));
			nr++;
			cc = strchr(cc, ',');
			if (cc)
				cc++;
		}
		set64(&data, nrpos, nr);
	}
	if (t & PERF_SAMPLE_RAW) {
		struct buf r = { 0 };

		if (raw)
			hex(&r, raw);
		/* The kernel pads u32 size + payload to whole words. */
		put32(&data, (uint32_t)r.len);
		if (r.len)
			put(&data, r.p, r.len);
		pad8(&data);
		free(r.p);
	}
	if (t & ~((uint64_t)PERF_SAMPLE_IDENTIFIER * 2 - 1) ||
	    t & (PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		die("sample_type 0x%llx: the writer supports IP..RAW, WEIGHT, DATA_SRC, IDENTIFIER",
		    (unsigned long long)t);
	if (t & PERF_SAMPLE_WEIGHT)
		put64(&data, getnum("weight", 0));
	if (t & PERF_SAMPLE_DATA_SRC)
		put64(&data, getnum("data_src", 0));
	end_record(start);
}

static void do_mmap(bool two)
{
	struct attr_desc *ad = rec_attr();
	const char *file = get("file"), *bid = get("buildid");
	uint16_t misc = (uint16_t)getnum("misc", PERF_RECORD_MISC_USER);
	size_t start;

	if (two && bid)
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	start = begin_record(two ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP, misc);
	put32(&data, (uint32_t)getnum("pid", 0));
	put32(&data, (uint32_t)getnum("tid", getnum("pid", 0)));
	put64(&data, getnum("start", 0));
	put64(&data, getnum("len", 0x1000));
	put64(&data, getnum("pgoff", 0));
	if (two) {
		if (bid) {
			struct buf b = { 0 };

			hex(&b, bid);
			if (b.len > 20)
				die("build id longer than 20 bytes");
			put8(&data, (uint8_t)b.len);
			put8(&data, 0);
			put16(&data, 0);
			put(&data, b.p, b.len);
			while (b.len++ < 20)
				put8(&data, 0);
			free(b.p);
		} else {
			put32(&data, (uint32_t)getnum("maj", 8));
			put32(&data, (uint32_t)getnum("min", 1));
			put64(&data, getnum("ino", 1234));
			put64(&data, getnum("ino_generation", 0));
		}
		put32(&data, (uint32_t)getnum("prot", 5));
		put32(&data, (uint32_t)getnum("flags", 2));
	}
	put_string(&data, file ? file : "//anon");
	sid_trailer(ad);
	end_record(start);
}

static void do_comm(void)
{
	struct attr_desc *ad = rec_attr();
	const char *c = get("comm");
	size_t start = begin_record(PERF_RECORD_COMM,
				    getnum("exec", 0) ? PERF_RECORD_MISC_COMM_EXEC : 0);

	put32(&data, (uint32_t)getnum("pid", 0));
	put32(&data, (uint32_t)getnum("tid", getnum("pid", 0)));
	put_string(&data, c ? c : "");
	sid_trailer(ad);
	end_record(start);
}

static void do_task(uint32_t type)
{
	struct attr_desc *ad = rec_attr();
	size_t start = begin_record(type, 0);

	put32(&data, (uint32_t)getnum("pid", 0));
	put32(&data, (uint32_t)getnum("ppid", 0));
	put32(&data, (uint32_t)getnum("tid", getnum("pid", 0)));
	put32(&data, (uint32_t)getnum("ptid", getnum("ppid", 0)));
	put64(&data, getnum("time", 0));
	sid_trailer(ad);
	end_record(start);
}

static void do_lost(void)
{
	struct attr_desc *ad = rec_attr();
	size_t start = begin_record(PERF_RECORD_LOST, 0);

	put64(&data, getnum("id", ad->nids ? ad->ids[0] : 0));
	put64(&data, getnum("lost", 0));
	sid_trailer(ad);
	end_record(start);
}

static void do_record(void)
{
	const char *h = get("hex");
	size_t start = begin_record((uint32_t)getnum("type", 0), (uint16_t)getnum("misc", 0));

	if (h)
		hex(&data, h);
	end_record(start);
	if (get("size"))
		set16(&data, start + 6, (uint16_t)getnum("size", 0));
}

static void do_attr(void)
{
	struct attr_desc *ad;
	const char *v;

	if (nattrs == MAX_ATTRS)
		die("too many attrs");
	ad = &attrs[nattrs++];
	memset(ad, 0, sizeof(*ad));
	ad->a.size = sizeof(ad->a);
	ad->a.type = (uint32_t)getnum("type", PERF_TYPE_SOFTWARE);
	ad->a.config = getnum("config", PERF_COUNT_SW_CPU_CLOCK);
	v = get("sample_type");
	ad->a.sample_type = v ? sample_type(v) : PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (get("freq")) {
		ad->a.freq = 1;
		ad->a.sample_freq = getnum("freq", 0);
	} else {
		ad->a.sample_period = getnum("period", 1000000);
	}
	ad->a.read_format = getnum("read_format", 0);
	ad->a.sample_id_all = getnum("sample_id_all", 1) != 0;
	ad->a.exclude_kernel = getnum("exclude_kernel", 0) != 0;
	ad->a.disabled = getnum("disabled", 1) != 0;
	ad->a.mmap = ad->a.comm = getnum("mmap", nattrs == 1) != 0;
	ad->a.inherit = getnum("inherit", 1) != 0;
	if ((v = get("name")))
		snprintf(ad->name, sizeof(ad->name), "%s", v);
	if ((v = get("ids"))) {
		while (*v && ad->nids < MAX_IDS) {
			ad->ids[ad->nids++] = num(v);
			v = strchr(v, ',');
			if (!v)
				break;
			v++;
		}
	}
}

/* The attr in the output byte order.  The flag bitfields of a host of the
 * other order run from the other end of the word: same bytes, each byte's
 * bits reversed. */
static void put_attr(struct buf *b, const struct perf_event_attr *a)
{
	unsigned char flags[8];
	size_t i;
	int k;

	put32(b, a->type);
	put32(b, a->size);
	put64(b, a->config);
	put64(b, a->sample_period);
	put64(b, a->sample_type);
	put64(b, a->read_format);
	memcpy(flags, (const char *)a + 40, 8);
	if (swap_out) {
		for (i = 0; i < 8; i++) {
			unsigned char r = 0;

			for (k = 0; k < 8; k++)
				if (flags[i] & (1 << k))
					r |= (unsigned char)(0x80 >> k);
			flags[i] = r;
		}
	}
	put(b, flags, 8);
	put32(b, a->wakeup_events);
	put32(b, a->bp_type);
	put64(b, a->config1);
	put64(b, a->config2);
	put64(b, a->branch_sample_type);
	put64(b, a->sample_regs_user);
	put32(b, a->sample_stack_user);
	put32(b, (uint32_t)a->clockid);
	put64(b, a->sample_regs_intr);
	put32(b, a->aux_watermark);
	put16(b, a->sample_max_stack);
	put16(b, 0);
	put32(b, a->aux_sample_size);
	put32(b, 0);
	put64(b, a->sig_data);
}

/* ---- features ---- */

static struct buf *feature(int bit)
{
	size_t i;

	for (i = 0; i < nfeats; i++)
		if (feats[i].bit == bit)
			return &feats[i].data;
	if (nfeats == sizeof(feats) / sizeof(feats[0]))
		die("too many features");
	feats[nfeats].bit = bit;
	memset(&feats[nfeats].data, 0, sizeof(feats[nfeats].data));
	return &feats[nfeats++].data;
}

/* perf's string: u32 length, then the NUL-terminated text padded to 64. */
static void feat_string(struct buf *b, const char *s)
{
	size_t len = (strlen(s) + 1 + 63) / 64 * 64, n = strlen(s);

	put32(b, (uint32_t)len);
	put(b, s, n);
	while (n++ < len)
		put8(b, 0);
}

/* PMU_MAPPINGS and PMU_CAPS, assembled at the end (they start with a
 * count). */
static struct buf pmu_maps;
static uint32_t npmu_maps;
#define MAX_CAP_PMUS 8
static struct {
	char name[64];
	struct buf caps;
	uint32_t ncaps;
} cap_pmus[MAX_CAP_PMUS];
static size_t ncap_pmus;

static void do_pmu_cap(void)
{
	size_t i;

	if (nwords != 4)
		die("pmu_cap PMU NAME VALUE");
	for (i = 0; i < ncap_pmus; i++)
		if (strcmp(cap_pmus[i].name, words[1]) == 0)
			break;
	if (i == ncap_pmus) {
		if (ncap_pmus == MAX_CAP_PMUS)
			die("too many pmu_cap PMUs");
		snprintf(cap_pmus[i].name, sizeof(cap_pmus[i].name), "%s", words[1]);
		ncap_pmus++;
	}
	feat_string(&cap_pmus[i].caps, words[2]);
	feat_string(&cap_pmus[i].caps, words[3]);
	cap_pmus[i].ncaps++;
}

static void rest_of_line(char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 1; i < nwords; i++)
		len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", i > 1 ? " " : "",
					words[i]);
}

static void do_build_id(void)
{
	const char *id = get("id"), *file = get("file");
	struct buf b = { 0 };
	size_t start = build_ids.len, n, name;

	if (!id || !file)
		die("build_id wants id= and file=");
	hex(&b, id);
	if (b.len > 20)
		die("build id longer than 20 bytes");
	put32(&build_ids, 0);
	put16(&build_ids, (uint16_t)(getnum("misc", PERF_RECORD_MISC_USER) | (1U << 15)));
	put16(&build_ids, 0);
	put32(&build_ids, (uint32_t)getnum("pid", (uint64_t)-1));
	put(&build_ids, b.p, b.len);
	for (n = b.len; n < 20; n++)
		put8(&build_ids, 0);
	put8(&build_ids, (uint8_t)b.len);
	put8(&build_ids, 0);
	put16(&build_ids, 0);
	name = (strlen(file) + 1 + 63) / 64 * 64;
	put(&build_ids, file, strlen(file));
	for (n = strlen(file); n < name; n++)
		put8(&build_ids, 0);
	if (swap_out) {
		uint16_t v = bswap_16((uint16_t)(build_ids.len - start));

		memcpy(build_ids.p + start + 6, &v, 2);
	} else {
		uint16_t v = (uint16_t)(build_ids.len - start);

		memcpy(build_ids.p + start + 6, &v, 2);
	}
	free(b.p);
}

static void finish_features(void)
{
	size_t i, k;
	bool named = false;

	if (build_ids.len) {
		struct buf *b = feature(2);

		put(b, build_ids.p, build_ids.len);
	}
	if (npmu_maps) {
		struct buf *b = feature(16);

		put32(b, npmu_maps);
		put(b, pmu_maps.p, pmu_maps.len);
	}
	if (ncap_pmus) {
		struct buf *b = feature(31);

		put32(b, (uint32_t)ncap_pmus);
		for (i = 0; i < ncap_pmus; i++) {
			put32(b, cap_pmus[i].ncaps);
			put(b, cap_pmus[i].caps.p, cap_pmus[i].caps.len);
			feat_string(b, cap_pmus[i].name);
		}
	}
	for (i = 0; i < nattrs; i++)
		named |= attrs[i].name[0] != '\0';
	if (named) {
		struct buf *b = feature(12);

		put32(b, (uint32_t)nattrs);
		put32(b, sizeof(struct perf_event_attr));
		for (i = 0; i < nattrs; i++) {
			put_attr(b, &attrs[i].a);
			put32(b, (uint32_t)attrs[i].nids);
			feat_string(b, attrs[i].name);
			for (k = 0; k < attrs[i].nids; k++)
				put64(b, attrs[i].ids[k]);
		}
	}
}

static int cmp_feat(const void *a, const void *b)
{
	const struct feature *x = a, *y = b;

	return x->bit - y->bit;
}

/* ---- assembling ---- */

static long long resolve_off(const char *s, size_t data_off, size_t total)
{
	long long base = 0;
	char *end;

	if (s[0] == '@') {
		if (strncmp(s, "@data", 5) == 0) {
			base = (long long)data_off;
			s += 5;
		} else if (strncmp(s, "@end", 4) == 0) {
			base = (long long)total;
			s += 4;
		} else {
			unsigned long n = strtoul(s + 1, &end, 10);

			if (end == s + 1 || n >= nrecs)
				die("%s: no such record", s);
			base = (long long)(data_off + rec_off[n]);
			s = end;
		}
		if (!*s)
			return base;
	}
	return base + strtoll(s, NULL, 0);
}

static void assemble(struct buf *out, bool verbose)
{
	size_t i, k, data_off, ids_off[MAX_ATTRS];
	uint64_t magic = 0x32454c4946524550ULL;

	finish_features();
	qsort(feats, nfeats, sizeof(feats[0]), cmp_feat);
	put64(out, magic);
	if (pipe_mode) {
		put64(out, 16);
		/* attrs and features as records, then the data. */
		for (i = 0; i < nattrs; i++) {
			size_t start = out->len;

			put32(out, 64);
			put16(out, 0);
			put16(out, 0);
			put_attr(out, &attrs[i].a);
			for (k = 0; k < attrs[i].nids; k++)
				put64(out, attrs[i].ids[k]);
			set16(out, start + 6, (uint16_t)(out->len - start));
		}
		for (i = 0; i < nfeats; i++) {
			size_t start = out->len;

			put32(out, 80);
			put16(out, 0);
			put16(out, 0);
			put64(out, (uint64_t)feats[i].bit);
			put(out, feats[i].data.p, feats[i].data.len);
			pad8(out);
			set16(out, start + 6, (uint16_t)(out->len - start));
		}
		data_off = out->len;
		put(out, data.p, data.len);
	} else {
		uint64_t bits[4] = { 0 };
		size_t attrs_off, table;

		put64(out, 104);
		put64(out, sizeof(struct perf_event_attr) + 16);
		for (i = 0; i < 80; i++)
			put8(out, 0);           /* sections and flags: below */
		for (i = 0; i < nattrs; i++) {
			ids_off[i] = out->len;
			for (k = 0; k < attrs[i].nids; k++)
				put64(out, attrs[i].ids[k]);
		}
		attrs_off = out->len;
		for (i = 0; i < nattrs; i++) {
			put_attr(out, &attrs[i].a);
			put64(out, ids_off[i]);
			put64(out, attrs[i].nids * 8);
		}
		data_off = out->len;
		put(out, data.p, data.len);
		table = out->len;
		for (i = 0; i < nfeats * 2; i++)
			put64(out, 0);
		for (i = 0; i < nfeats; i++) {
			set64(out, table + 16 * i, out->len);
			set64(out, table + 16 * i + 8, feats[i].data.len);
			put(out, feats[i].data.p, feats[i].data.len);
			bits[feats[i].bit / 64] |= 1ULL << (feats[i].bit % 64);
		}
		set64(out, 24, attrs_off);
		set64(out, 32, nattrs * (sizeof(struct perf_event_attr) + 16));
		set64(out, 40, data_off);
		set64(out, 48, data.len);
		for (i = 0; i < 4; i++)
			set64(out, 72 + 8 * i, bits[i]);
	}
	if (verbose)
		for (i = 0; i < nrecs; i++)
			fprintf(stderr, "record %zu at %zu\n", i, data_off + rec_off[i]);
	for (i = 0; i < ndamages; i++) {
		long long off = resolve_off(damages[i].off, data_off, out->len);

		if (off < 0 || (size_t)off > out->len)
			die("damage offset %lld outside the file (%zu bytes)", off, out->len);
		if (damages[i].truncate) {
			out->len = (size_t)off;
		} else {
			if ((size_t)off + damages[i].bytes.len > out->len)
				die("poke at %lld runs past the end", off);
			memcpy(out->p + off, damages[i].bytes.p, damages[i].bytes.len);
		}
	}
}

static void do_line(char *line)
{
	char *p = strchr(line, '#'), *tok, *save;
	const char *w;
	char text[1024];

	if (p)
		*p = '\0';
	nwords = 0;
	for (tok = strtok_r(line, " \t\r\n", &save); tok && nwords < 128;
	     tok = strtok_r(NULL, " \t\r\n", &save))
		words[nwords++] = tok;
	if (!nwords)
		return;
	w = words[0];
	if (strcmp(w, "order") == 0) {
		const char *o = nwords > 1 ? words[1] : "";
		bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

		if (data.len || nattrs)
			die("order must come first");
		if (strcmp(o, "native") == 0)
			swap_out = false;
		else if (strcmp(o, "swapped") == 0)
			swap_out = true;
		else if (strcmp(o, "little") == 0)
			swap_out = !little;
		else if (strcmp(o, "big") == 0)
			swap_out = little;
		else
			die("order native|swapped|little|big");
	} else if (strcmp(w, "pipe") == 0) {
		pipe_mode = true;
	} else if (strcmp(w, "attr") == 0) {
		do_attr();
	} else if (strcmp(w, "sample") == 0) {
		do_sample();
	} else if (strcmp(w, "mmap2") == 0 || strcmp(w, "mmap") == 0) {
		do_mmap(strcmp(w, "mmap2") == 0);
	} else if (strcmp(w, "comm") == 0) {
		do_comm();
	} else if (strcmp(w, "fork") == 0) {
		do_task(PERF_RECORD_FORK);
	} else if (strcmp(w, "exit") == 0) {
		do_task(PERF_RECORD_EXIT);
	} else if (strcmp(w, "lost") == 0) {
		do_lost();
	} else if (strcmp(w, "record") == 0) {
		do_record();
	} else if (strcmp(w, "round") == 0) {
		end_record(begin_record(68, 0));
	} else if (strcmp(w, "finished_init") == 0) {
		end_record(begin_record(82, 0));
	} else if (strcmp(w, "build_id") == 0) {
		do_build_id();
	} else if (strcmp(w, "hostname") == 0 || strcmp(w, "osrelease") == 0 ||
		   strcmp(w, "version") == 0 || strcmp(w, "arch") == 0 || strcmp(w, "cpuid") == 0) {
		int bit = w[0] == 'h' ? 3 : w[0] == 'o' ? 4 : w[0] == 'v' ? 5 : w[0] == 'c' ? 9 : 6;

		rest_of_line(text, sizeof(text));
		feat_string(feature(bit), text);
	} else if (strcmp(w, "pmu") == 0) {
		if (nwords != 3)
			die("pmu TYPE NAME");
		put32(&pmu_maps, (uint32_t)num(words[1]));
		feat_string(&pmu_maps, words[2]);
		npmu_maps++;
	} else if (strcmp(w, "pmu_cap") == 0) {
		do_pmu_cap();
	} else if (strcmp(w, "nrcpus") == 0) {
		struct buf *b = feature(7);

		if (nwords != 3)
			die("nrcpus AVAIL ONLINE");
		put32(b, (uint32_t)num(words[1]));
		put32(b, (uint32_t)num(words[2]));
	} else if (strcmp(w, "sample_time") == 0) {
		struct buf *b = feature(21);

		if (nwords != 3)
			die("sample_time FIRST LAST");
		put64(b, num(words[1]));
		put64(b, num(words[2]));
	} else if (strcmp(w, "cmdline") == 0) {
		struct buf *b = feature(11);
		size_t i;

		put32(b, (uint32_t)(nwords - 1));
		for (i = 1; i < nwords; i++)
			feat_string(b, words[i]);
	} else if (strcmp(w, "truncate") == 0 || strcmp(w, "poke") == 0) {
		struct damage *d;

		if (ndamages == sizeof(damages) / sizeof(damages[0]))
			die("too much damage");
		d = &damages[ndamages++];
		memset(d, 0, sizeof(*d));
		d->truncate = w[0] == 't';
		if (nwords != (d->truncate ? 2u : 3u))
			die("truncate OFF | poke OFF HEX");
		snprintf(d->off, sizeof(d->off), "%s", words[1]);
		if (!d->truncate)
			hex(&d->bytes, words[2]);
	} else {
		die("unknown directive '%s'", w);
	}
}

int main(int argc, char **argv)
{
	const char *outpath = NULL;
	FILE *in = stdin, *out;
	char line[4096];
	struct buf img = { 0 };
	bool verbose = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			outpath = argv[++i];
		} else if (strcmp(argv[i], "-v") == 0) {
			verbose = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: mkperfdata [-v] [-o OUT] [DESC]\n");
			return 2;
		} else if (strcmp(argv[i], "-") != 0) {
			in = fopen(argv[i], "r");
			if (!in) {
				fprintf(stderr, "mkperfdata: %s: %s\n", argv[i], strerror(errno));
				return 2;
			}
		}
	}
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		do_line(line);
	}
	lineno = 0;
	if (!nattrs)
		die("no attr");
	assemble(&img, verbose);
	out = outpath ? fopen(outpath, "wb") : stdout;
	if (!out || fwrite(img.p, 1, img.len, out) != img.len || (outpath && fclose(out))) {
		fprintf(stderr, "mkperfdata: cannot write %s\n", outpath ? outpath : "stdout");
		return 1;
	}
	free(img.p);    /* for LeakSanitizer in sanitizer builds */
	return 0;
}
