/* Off-CPU time: sched_switch's raw fields from the tracepoint's format, and
 * the per-thread bookkeeping of intervals off the CPU, and of runs of them
 * with one chain, which the engine charges at once. */
#include "config.h"

#include "offcpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "errmsg.h"
#include "hash.h"
#include "hashtab.h"

/* "name:VALUE;" on line (up to end): the number, or -1. */
static long offcpu_format_num(const char *line, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *p;
	char *stop;
	long v;

	for (p = line; p + n < end; p++) {
		if (memcmp(p, name, n) == 0 && p[n] == ':') {
			v = strtol(p + n + 1, &stop, 10);
			if (stop == p + n + 1 || *stop != ';' || v < 0)
				return -1;
			return v;
		}
	}
	return -1;
}

/* The field's name in "field:TYPE NAME[N];" ending at semi. */
static size_t offcpu_field_name(const char *start, const char *semi, const char **name)
{
	const char *e = semi, *b;

	if (e > start && e[-1] == ']')
		while (e > start && *e != '[')
			e--;
	b = e;
	while (b > start && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
			     (b[-1] >= 'A' && b[-1] <= 'Z') || (b[-1] >= '0' && b[-1] <= '9')))
		b--;
	*name = b;
	return (size_t)(e - b);
}

int offcpu_format_parse(const char *text, struct offcpu_format *f, struct errmsg *em)
{
	static const struct {
		const char *name;
		size_t at;
	} want[] = {
		{ "prev_pid", offsetof(struct offcpu_format, prev_pid) },
		{ "prev_state", offsetof(struct offcpu_format, prev_state) },
		{ "next_pid", offsetof(struct offcpu_format, next_pid) },
	};
	const char *line = text;
	size_t i;

	memset(f, 0, sizeof(*f));
	while (line && *line) {
		const char *end = strchr(line, '\n'), *decl, *semi, *name;
		size_t len;
		long off, size, sgn;

		if (!end)
			end = line + strlen(line);
		decl = strstr(line, "field:");
		if (decl && decl < end && (semi = memchr(decl, ';', (size_t)(end - decl)))) {
			len = offcpu_field_name(decl + 6, semi, &name);
			off = offcpu_format_num(semi, end, "offset");
			size = offcpu_format_num(semi, end, "size");
			sgn = offcpu_format_num(semi, end, "signed");
			for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
				struct offcpu_field *fl = (void *)((char *)f + want[i].at);

				if (strlen(want[i].name) != len || memcmp(name, want[i].name, len))
					continue;
				if (off < 0 || (size != 1 && size != 2 && size != 4 && size != 8))
					return errmsg_set(em, -EINVAL,
							  "sched_switch format: field %s has a bad "
							  "offset or size", want[i].name);
				fl->offset = (uint32_t)off;
				fl->size = (uint32_t)size;
				fl->is_signed = sgn == 1;
			}
		}
		line = *end ? end + 1 : NULL;
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct offcpu_field *fl = (const void *)((const char *)f + want[i].at);

		if (!fl->size)
			return errmsg_set(em, -EINVAL, "sched_switch format: no field %s",
					  want[i].name);
	}
	return 0;
}

int offcpu_format_from_tracing(const void *data, size_t size, struct offcpu_format *f,
			       struct errmsg *em)
{
	static const char name[] = "name: sched_switch\n";
	const char *p = data ? memmem(data, size, name, sizeof(name) - 1) : NULL;
	const char *end = (const char *)data + size, *stop;
	char *text;
	int err;

	if (!p)
		return errmsg_set(em, -ENOENT, "the recording's tracing data has no "
				  "sched:sched_switch format");
	/* The format runs to its "print fmt" line; the fields come before
	 * it, and a truncated copy stops at the data's end. */
	stop = memmem(p, (size_t)(end - p), "\nprint fmt:", 11);
	stop = stop ? stop + 1 : end;
	text = xmalloc((size_t)(stop - p) + 1);
	memcpy(text, p, (size_t)(stop - p));
	text[stop - p] = '\0';
	err = offcpu_format_parse(text, f, em);
	free(text);
	return err;
}

static bool offcpu_field_get(const struct offcpu_field *fl, const unsigned char *raw,
			     uint32_t size, uint64_t *out)
{
	const unsigned char *p = raw + fl->offset;

	if (fl->offset > size || fl->size > size - fl->offset)
		return false;
	/* A fixed size per case: one load each, where memcpy of fl->size
	 * bytes was a call, three per switch. */
	switch (fl->size) {
	case 1:
		*out = fl->is_signed ? (uint64_t)(int64_t)(int8_t)*p : *p;
		break;
	case 2: {
		uint16_t v;

		memcpy(&v, p, sizeof(v));
		*out = fl->is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
		break;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		*out = fl->is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
		break;
	}
	default:
		memcpy(out, p, sizeof(*out));
		break;
	}
	return true;
}

bool offcpu_decode(const struct offcpu_format *f, const void *raw, uint32_t size,
		   struct offcpu_switch *out)
{
	uint64_t prev, next;

	if (!offcpu_field_get(&f->prev_pid, raw, size, &prev) ||
	    !offcpu_field_get(&f->next_pid, raw, size, &next) ||
	    !offcpu_field_get(&f->prev_state, raw, size, &out->prev_state))
		return false;
	out->prev_pid = (uint32_t)prev;
	out->next_pid = (uint32_t)next;
	return true;
}

bool offcpu_state_runnable(uint64_t prev_state)
{
	return (prev_state & 0xff) == 0;
}

bool offcpu_state_dead(uint64_t prev_state)
{
	return (prev_state & 0x30) != 0 && !offcpu_state_runnable(prev_state);
}

/* Intervals closed since one charged alone, all with that one's key (at,
 * its chain in chain), counted here until the engine charges them at
 * once. */
struct offcpu_run {
	struct offcpu_interval at;
	uint64_t *chain;
	size_t cap;
	uint64_t n, ns;
	const void *tag;
	uint32_t gen;               /* the thread's chain_gen that is this chain */
	bool on;
};

#define OFFCPU_RUNS 2

struct offcpu_thread {
	struct offcpu_interval at;  /* chain: the thread's own copy */
	uint64_t *chain;
	size_t chain_cap;
	uint32_t chain_gen;         /* bumped when chain changes */
	bool off;
	bool charged;               /* charged up to a refresh at start */
	/* A switch-in seen while not off: its switch-out, from another CPU's
	 * ring, may come after it (a drain takes each ring up to where it
	 * is, not the rings up to one time), and closes there. */
	uint64_t in_at;
	/* Its runs (offcpu_run_*): two, as many threads go off with one
	 * of two chains in turn (a read, then a write). */
	struct offcpu_run run[OFFCPU_RUNS];
	uint8_t run_old;            /* the one a new run replaces */
};

struct offcpu {
	struct offcpu_thread *threads;
	size_t nthreads, cap;
	struct hashtab index;
	size_t last;                /* the thread closed last: the engine asks
				       about its run next */
	uint64_t *exit_chain;       /* the last exited thread's, for its interval */
	struct offcpu_stats stats;
};

static uint64_t offcpu_tid_hash(uint32_t tid)
{
	return hash_finish(hash_combine(0, tid));
}

static uint64_t offcpu_hash(const void *ctx, uint32_t idx)
{
	const struct offcpu *o = ctx;

	return offcpu_tid_hash(o->threads[idx].at.tid);
}

static bool offcpu_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct offcpu *o = ctx;

	return o->threads[idx].at.tid == *(const uint32_t *)key;
}

struct offcpu *offcpu_new(void)
{
	struct offcpu *o = xcalloc(1, sizeof(*o));

	hashtab_init(&o->index, 0);
	return o;
}

void offcpu_free(struct offcpu *o)
{
	size_t i, r;

	if (!o)
		return;
	for (i = 0; i < o->nthreads; i++) {
		free(o->threads[i].chain);
		for (r = 0; r < OFFCPU_RUNS; r++)
			free(o->threads[i].run[r].chain);
	}
	free(o->threads);
	free(o->exit_chain);
	hashtab_release(&o->index);
	free(o);
}

static struct offcpu_thread *offcpu_find(struct offcpu *o, uint32_t tid)
{
	uint32_t idx = hashtab_find(&o->index, offcpu_tid_hash(tid), offcpu_eq, o, &tid);

	return idx == HASHTAB_EMPTY ? NULL : &o->threads[idx];
}

/* Thread tid's entry, made when new. */
static struct offcpu_thread *offcpu_get(struct offcpu *o, uint32_t tid)
{
	size_t slot = hashtab_probe(&o->index, offcpu_tid_hash(tid), offcpu_eq, o, &tid);

	if (o->index.slots[slot] != HASHTAB_EMPTY)
		return &o->threads[o->index.slots[slot]];
	o->threads = xgrow(o->threads, &o->cap, o->nthreads + 1, sizeof(*o->threads));
	memset(&o->threads[o->nthreads], 0, sizeof(*o->threads));
	o->threads[o->nthreads].at.tid = tid;
	hashtab_insert_at(&o->index, slot, (uint32_t)o->nthreads, offcpu_hash, o);
	return &o->threads[o->nthreads++];
}

static void offcpu_count(struct offcpu *o, const struct offcpu_interval *iv)
{
	o->stats.intervals++;
	if (iv->runnable)
		o->stats.runnable_ns += iv->end - iv->start;
	else
		o->stats.blocked_ns += iv->end - iv->start;
}

bool offcpu_out(struct offcpu *o, const struct offcpu_interval *at, struct offcpu_interval *iv)
{
	struct offcpu_thread *t = offcpu_get(o, at->tid);
	bool late = !t->off && t->in_at > at->start;

	o->stats.switches++;
	/* A thread seen going out twice lost its switch-in: the first
	 * interval's end is unknown, so it is dropped, not guessed. */
	if (t->off)
		o->stats.dropped++;
	/* Most threads go off with the chain they had last time: then
	 * nothing is copied, and a run of it goes on (offcpu_run_extend). */
	if (!t->chain || at->nr_chain != t->at.nr_chain ||
	    memcmp(t->chain, at->chain, at->nr_chain * sizeof(*t->chain))) {
		if (t->chain_cap < at->nr_chain || !t->chain)
			t->chain = xgrow(t->chain, &t->chain_cap, at->nr_chain ? at->nr_chain : 1,
					 sizeof(*t->chain));
		if (at->nr_chain)
			memcpy(t->chain, at->chain, at->nr_chain * sizeof(*t->chain));
		t->chain_gen++;
	}
	t->at = *at;
	t->at.chain = t->chain;
	t->off = !late;
	t->charged = false;
	if (!late) {
		t->in_at = 0;
		return false;
	}
	/* Its switch-in came first: the interval is whole. */
	*iv = t->at;
	iv->end = t->in_at;
	t->in_at = 0;
	o->stats.unmatched_in--;
	o->stats.reordered++;
	offcpu_count(o, iv);
	return true;
}

/* Close t's interval at time into *iv. */
static bool offcpu_close(struct offcpu *o, struct offcpu_thread *t, uint64_t time,
			 struct offcpu_interval *iv)
{
	t->off = false;
	o->last = (size_t)(t - o->threads);
	if (time < t->at.start) {
		/* Back on the CPU just before a refresh charged it up to
		 * then (live, the refresh's clock runs ahead of the rings):
		 * nothing more to charge, and nothing lost. */
		if (!t->charged)
			o->stats.dropped++;
		return false;
	}
	*iv = t->at;
	iv->end = time;
	offcpu_count(o, iv);
	return true;
}

bool offcpu_in(struct offcpu *o, uint32_t tid, uint64_t time, struct offcpu_interval *iv)
{
	struct offcpu_thread *t = offcpu_find(o, tid);

	if (!t || !t->off) {
		o->stats.unmatched_in++;
		/* Kept for a switch-out still to come (offcpu_out), of a
		 * thread known (those never seen going out make none: per
		 * thread, next_pid names other processes' threads too). */
		if (t && time > t->in_at)
			t->in_at = time;
		return false;
	}
	return offcpu_close(o, t, time, iv);
}

/* Forget thread idx (at slot), the last entry taking its place: an
 * exited thread's tid may come back as another thread. */
static void offcpu_forget(struct offcpu *o, size_t slot, uint32_t idx)
{
	uint32_t last = (uint32_t)o->nthreads - 1;

	hashtab_remove(&o->index, slot, offcpu_hash, o);
	free(o->threads[idx].chain);
	for (size_t r = 0; r < OFFCPU_RUNS; r++)
		free(o->threads[idx].run[r].chain);
	if (idx != last) {
		uint32_t moved = o->threads[last].at.tid;

		o->threads[idx] = o->threads[last];
		hashtab_set(&o->index,
			    hashtab_probe(&o->index, offcpu_tid_hash(moved), offcpu_eq, o, &moved),
			    idx);
	}
	o->nthreads--;
}

bool offcpu_exit(struct offcpu *o, uint32_t tid, uint64_t time, struct offcpu_interval *iv)
{
	size_t slot = hashtab_probe(&o->index, offcpu_tid_hash(tid), offcpu_eq, o, &tid);
	uint32_t idx = o->index.slots[slot];
	struct offcpu_thread *t;
	bool closed = false;

	if (idx == HASHTAB_EMPTY)
		return false;
	t = &o->threads[idx];
	if (t->off) {
		o->stats.exited++;
		closed = offcpu_close(o, t, time, iv);
		/* *iv's chain is t's: kept until the next call, as promised. */
		if (closed) {
			free(o->exit_chain);
			o->exit_chain = t->chain;
			iv->chain = t->chain;
			t->chain = NULL;
		}
	}
	offcpu_forget(o, slot, idx);
	return closed;
}

size_t offcpu_threads(const struct offcpu *o)
{
	return o->nthreads;
}

bool offcpu_next_open(struct offcpu *o, size_t *cursor, uint64_t time,
		      struct offcpu_interval *iv)
{
	for (; *cursor < o->nthreads; (*cursor)++) {
		struct offcpu_thread *t = &o->threads[*cursor];

		if (!t->off || time <= t->at.start)
			continue;
		(*cursor)++;
		*iv = t->at;
		iv->end = time;
		if (iv->runnable)
			o->stats.runnable_ns += time - t->at.start;
		else
			o->stats.blocked_ns += time - t->at.start;
		t->at.start = time;
		t->charged = true;
		return true;
	}
	return false;
}

/* Thread tid's entry, or NULL; the one closed last without a lookup. */
static struct offcpu_thread *offcpu_run_thread(struct offcpu *o, uint32_t tid)
{
	if (o->last < o->nthreads && o->threads[o->last].at.tid == tid)
		return &o->threads[o->last];
	return offcpu_find(o, tid);
}

/* Whether iv, of t, would be charged as run r's intervals are but for
 * its duration.  Its chain is t's own unless iv comes from elsewhere: the
 * generation then says whether it is still the run's. */
static bool offcpu_run_same(struct offcpu_thread *t, struct offcpu_run *r,
			    const struct offcpu_interval *iv)
{
	const struct offcpu_interval *a = &r->at;

	if (a->pid != iv->pid || a->cpu != iv->cpu || a->runnable != iv->runnable ||
	    a->ip != iv->ip || a->cpumode != iv->cpumode || a->nr_chain != iv->nr_chain)
		return false;
	if (iv->chain == t->chain && t->chain_gen == r->gen)
		return true;
	if (memcmp(a->chain, iv->chain, a->nr_chain * sizeof(*a->chain)))
		return false;
	if (iv->chain == t->chain)
		r->gen = t->chain_gen;
	return true;
}

void offcpu_run_start(struct offcpu *o, const struct offcpu_interval *iv, const void *tag)
{
	struct offcpu_thread *t = offcpu_run_thread(o, iv->tid);
	struct offcpu_run *r;

	if (!t)
		return;
	r = &t->run[t->run_old];
	t->run_old = (uint8_t)((t->run_old + 1) % OFFCPU_RUNS);
	if (r->cap < iv->nr_chain || !r->chain)
		r->chain = xgrow(r->chain, &r->cap, iv->nr_chain ? iv->nr_chain : 1,
				 sizeof(*r->chain));
	if (iv->nr_chain)
		memcpy(r->chain, iv->chain, iv->nr_chain * sizeof(*r->chain));
	r->at = *iv;
	r->at.chain = r->chain;
	/* iv's chain may be another's (an exited thread's): then no
	 * generation of t's own is the run's. */
	r->gen = iv->chain == t->chain ? t->chain_gen : t->chain_gen - 1;
	r->n = 0;
	r->ns = 0;
	r->tag = tag;
	r->on = true;
}

bool offcpu_run_extend(struct offcpu *o, const struct offcpu_interval *iv, const void *tag)
{
	struct offcpu_thread *t = offcpu_run_thread(o, iv->tid);
	size_t i;

	if (!t)
		return false;
	for (i = 0; i < OFFCPU_RUNS; i++) {
		struct offcpu_run *r = &t->run[i];

		if (!r->on || r->tag != tag || !offcpu_run_same(t, r, iv))
			continue;
		r->n++;
		r->ns += iv->end - iv->start;
		r->at.end = iv->end;
		/* The other goes first when a new run comes. */
		t->run_old = (uint8_t)((i + 1) % OFFCPU_RUNS);
		o->stats.in_runs++;
		return true;
	}
	return false;
}

/* Run r into *iv, *n and *tag (when it has intervals), ended. */
static bool offcpu_run_end(struct offcpu_run *r, struct offcpu_interval *iv, uint64_t *n,
			   const void **tag)
{
	bool some = r->on && r->n;

	if (some) {
		*iv = r->at;
		iv->start = iv->end - r->ns;
		*n = r->n;
		*tag = r->tag;
	}
	r->on = false;
	r->n = 0;
	r->ns = 0;
	return some;
}

bool offcpu_run_evict(struct offcpu *o, uint32_t tid, struct offcpu_interval *iv, uint64_t *n,
		      const void **tag)
{
	struct offcpu_thread *t = offcpu_run_thread(o, tid);

	return t && offcpu_run_end(&t->run[t->run_old], iv, n, tag);
}

bool offcpu_run_take(struct offcpu *o, uint32_t tid, struct offcpu_interval *iv, uint64_t *n,
		     const void **tag)
{
	struct offcpu_thread *t = offcpu_run_thread(o, tid);
	size_t i;

	for (i = 0; t && i < OFFCPU_RUNS; i++)
		if (offcpu_run_end(&t->run[i], iv, n, tag))
			return true;
	return false;
}

bool offcpu_run_next(struct offcpu *o, size_t *cursor, struct offcpu_interval *iv, uint64_t *n,
		     const void **tag)
{
	for (; *cursor < o->nthreads * OFFCPU_RUNS; (*cursor)++) {
		struct offcpu_thread *t = &o->threads[*cursor / OFFCPU_RUNS];

		if (offcpu_run_end(&t->run[*cursor % OFFCPU_RUNS], iv, n, tag)) {
			(*cursor)++;
			return true;
		}
	}
	return false;
}

const struct offcpu_stats *offcpu_stats(const struct offcpu *o)
{
	return &o->stats;
}
