/* The perf.data reader: loads a "PERFILE2" file (or perf's pipe format),
 * has perfdata_header.c validate its header, attrs and feature sections,
 * and hands out its records aligned, in native byte order and, where the
 * file needs it, sorted by time. */
#include "config.h"

#include "perfdata.h"
#include "perfdata-test.h"

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

#include "errmsg.h"
#include "perfdata_priv.h"
#include "record.h"

static struct perfdata_event no_event;

/* ---- errors ---- */

int perfdata_set_error(struct perfdata *pd, uint64_t off, const char *fmt, ...)
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


/* ---- opening ---- */

static int load_file(struct perfdata *pd, const char *path, struct errmsg *em)
{
	int fd = strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc;

	if (fd < 0) {
		rc = -errno;
		return errmsg_set(em, rc, "cannot open %s: %s", path, strerror(-rc));
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		pd->info.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
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
		if (rc)
			return errmsg_set(em, rc, "cannot read %s: %s", path, strerror(-rc));
		pd->buf = (unsigned char *)buf;
		pd->size = len;
	}
	return 0;
}

/* Validate the loaded pd->buf and make pd ready to read; frees pd on error. */
static int perfdata_start(struct perfdata *pd, struct perfdata **out, struct errmsg *em)
{
	int rc;

	pd->info.file_size = pd->size;
	pd->scratch = xmalloc(65536 + 8);
	rc = perfdata_header_parse(pd);
	if (rc)
		goto fail;
	pd->pos = pd->data_start;
	*out = pd;
	return 0;
fail:
	errmsg_set(em, rc, "%s", pd->err);
	perfdata_close(pd);
	return rc;
}

int perfdata_open(const char *path, struct perfdata **out, struct errmsg *em)
{
	struct perfdata *pd = xcalloc(1, sizeof(*pd));
	int rc;

	*out = NULL;
	pd->path = xstrdup(strcmp(path, "-") == 0 ? "<stdin>" : path);
	rc = load_file(pd, path, em);
	if (rc) {
		perfdata_close(pd);
		return rc;
	}
	return perfdata_start(pd, out, em);
}

int perfdata_open_memory(const void *buf, size_t size, const char *name, struct perfdata **out,
			 struct errmsg *em)
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
	return perfdata_start(pd, out, em);
}

void perfdata_close(struct perfdata *pd)
{
	if (!pd)
		return;
	if (pd->mapped)
		munmap((void *)pd->buf, pd->size);
	else
		free((void *)pd->buf);
	perfdata_header_release(pd);
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
			ev = perfdata_header_event_by_id(pd, get64(pd, body + 8 * (size_t)pd->sample_id_word));
	} else if (pd->trailer_id_word >= 0 && (size_t)pd->trailer_id_word <= nwords) {
		ev = perfdata_header_event_by_id(pd, get64(pd, body + 8 * (nwords - (size_t)pd->trailer_id_word)));
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
	struct errmsg em;

	if (left < 8) {
		pd->damage_at_end = true;
		return perfdata_set_error(pd, off, "the data ends inside a record header (%" PRIu64
				 " of 8 bytes): the file is truncated", left);
	}
	type = get32(pd, r);
	misc = get16(pd, r + 4);
	size = get16(pd, r + 6);
	if (size < 8)
		return perfdata_set_error(pd, off, "record size %u is smaller than its 8-byte header "
				 "(type %u)", size, type);
	if (size > left) {
		pd->damage_at_end = pd->truncated;
		return perfdata_set_error(pd, off, "%s record of %u bytes runs past the end of the %s "
				 "(%" PRIu64 " bytes left)%s", record_type_name(type), size,
				 pd->truncated ? "file" : "data section", left,
				 pd->truncated ? ": the file is truncated" : "");
	}
	if (type < 64 && size % 8)
		return perfdata_set_error(pd, off, "%s record size %u is not a multiple of 8",
				 record_type_name(type), size);
	if (type == REC_COMPRESSED || type == REC_COMPRESSED2)
		return perfdata_set_error(pd, off, "compressed records (perf record -z) are not supported: "
				 "decompress with `perf inject -i FILE -o NEW`");
	extra = trailing_bytes(pd, r, type, size);
	if (extra > left - size) {
		pd->damage_at_end = pd->truncated;
		return perfdata_set_error(pd, off, "%s data of %" PRIu64 " bytes runs past the end of "
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
		em.text[0] = '\0';     /* a store, not a call: once per record */
		if (record_decode(hdr, &ev->attr, &dec, &em))
			return perfdata_set_error(pd, off, "%s record of %u bytes: %s",
						  record_type_name(type), size,
						  em.text[0] ? em.text : "cannot be decoded");
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

