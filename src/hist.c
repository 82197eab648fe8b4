/* The histogram: an open-addressing hash of entries keyed by the sort keys,
 * stored densely so iteration and snapshots are cheap. */
#include "config.h"

#include "hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define HIST_MIN_SLOTS 64
/* Grow when more than 5/8 of the slots are used: linear probing stays short. */
#define HIST_LOAD_NUM 5
#define HIST_LOAD_DEN 8
#define HIST_SLOT_EMPTY UINT32_MAX

/* Per-entry state the public struct hist_entry has no room for, kept in an
 * array parallel to the entries. */
struct hist_extra {
	uint64_t hash;
	bool mixed_comm; /* only_comm == NULL can also mean "all NULL" */
	uint32_t gen;    /* the last sample whose children counted this entry */
};

struct hist {
	struct sort_spec spec;
	bool key[SORT__MAX];
	struct hist_entry *entries; /* dense, hist_entry_at order */
	struct hist_extra *extra;   /* parallel to entries */
	size_t nr, cap;		    /* cap counts both arrays */
	uint32_t *slots;	    /* index into entries, or HIST_SLOT_EMPTY */
	size_t nslots;		    /* power of two */
	uint64_t total_period;
	uint64_t total_samples;
	struct callchain_store *chains; /* NULL without callchains */
	uint32_t gen;                   /* counts samples, for children dedup */
};

static const char *const sort_key_names[SORT__MAX] = {
	[SORT_COMM] = "comm", [SORT_PID] = "pid", [SORT_TID] = "tid",
	[SORT_CPU] = "cpu",   [SORT_DSO] = "dso", [SORT_SYM] = "sym",
};

const char *sort_key_name(enum sort_key key)
{
	if ((unsigned)key >= SORT__MAX)
		return "?";
	return sort_key_names[key];
}

bool sort_spec_has(const struct sort_spec *spec, enum sort_key key)
{
	size_t i;

	for (i = 0; i < spec->n; i++)
		if (spec->keys[i] == key)
			return true;
	return false;
}

/* Messages naming an arbitrary user word cannot be string literals; a
 * thread-local buffer keeps the "static message" contract without races. */
static _Thread_local char sort_spec_msg[128];

int sort_spec_parse(const char *s, struct sort_spec *out, const char **bad)
{
	struct sort_spec spec = { .n = 0 };
	const char *p = s ? s : "";

	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		size_t k;

		/* tolerate "dso, sym" as typed on a command line */
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (!len) {
			if (bad)
				*bad = spec.n || end ? "empty sort key (stray comma?)" :
						       "empty sort key list";
			return -EINVAL;
		}
		for (k = 0; k < SORT__MAX; k++)
			if (strlen(sort_key_names[k]) == len && !memcmp(sort_key_names[k], p, len))
				break;
		if (k == SORT__MAX) {
			snprintf(sort_spec_msg, sizeof(sort_spec_msg),
				 "unknown sort key '%.*s' (known: comm, pid, tid, cpu, dso, sym)",
				 (int)(len > 40 ? 40 : len), p);
			if (bad)
				*bad = sort_spec_msg;
			return -EINVAL;
		}
		if (sort_spec_has(&spec, (enum sort_key)k)) {
			snprintf(sort_spec_msg, sizeof(sort_spec_msg), "duplicate sort key '%s'",
				 sort_key_names[k]);
			if (bad)
				*bad = sort_spec_msg;
			return -EINVAL;
		}
		spec.keys[spec.n++] = (enum sort_key)k;
		if (!end)
			break;
		p = end + 1;
	}
	*out = spec;
	return 0;
}

static uint64_t hist_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

/* splitmix64's finaliser: pointers and small integers differ in few low
 * bits, and the slot index is taken from the low bits. */
static uint64_t hist_finish(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* Key fields not in the spec are zero, so all of them can be hashed and
 * compared unconditionally.  comm is interned: the pointer is the identity. */
static uint64_t hist_hash(const struct hist_entry *k)
{
	uint64_t h = 0;

	h = hist_mix(h, (uintptr_t)k->comm);
	h = hist_mix(h, k->pid);
	h = hist_mix(h, k->tid);
	h = hist_mix(h, k->cpu);
	h = hist_mix(h, (uintptr_t)k->dso);
	h = hist_mix(h, (uintptr_t)k->sym);
	return hist_finish(h);
}

static bool hist_key_eq(const struct hist_entry *a, const struct hist_entry *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->dso == b->dso && a->sym == b->sym;
}

struct hist *hist_new(const struct sort_spec *spec)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	size_t i;

	h->spec = *spec;
	for (i = 0; i < spec->n; i++)
		h->key[spec->keys[i]] = true;
	h->nslots = HIST_MIN_SLOTS;
	h->slots = xmalloc(h->nslots * sizeof(*h->slots));
	memset(h->slots, 0xff, h->nslots * sizeof(*h->slots));
	return h;
}

void hist_free(struct hist *h)
{
	if (!h)
		return;
	free(h->entries);
	free(h->extra);
	free(h->slots);
	callchain_store_free(h->chains);
	free(h);
}

void hist_enable_callchains(struct hist *h, size_t max_ids)
{
	if (!h->chains)
		h->chains = callchain_store_new(max_ids);
}

bool hist_has_callchains(const struct hist *h)
{
	return h->chains != NULL;
}

const struct callchain_store *hist_callchains(const struct hist *h)
{
	return h->chains;
}

/* Rebuild the slots from the dense array, with nslots slots. */
static void hist_rehash(struct hist *h, size_t nslots)
{
	size_t mask = nslots - 1, i;

	if (nslots != h->nslots) {
		free(h->slots);
		h->slots = xmalloc(nslots * sizeof(*h->slots));
		h->nslots = nslots;
	}
	memset(h->slots, 0xff, nslots * sizeof(*h->slots));
	for (i = 0; i < h->nr; i++) {
		size_t j = h->extra[i].hash & mask;

		while (h->slots[j] != HIST_SLOT_EMPTY)
			j = (j + 1) & mask;
		h->slots[j] = (uint32_t)i;
	}
}

/* The smallest slot count that holds n entries under the load limit. */
static size_t hist_slots_for(size_t n)
{
	size_t s = HIST_MIN_SLOTS;

	while (n * HIST_LOAD_DEN > s * HIST_LOAD_NUM)
		s *= 2;
	return s;
}

/* The index of the entry for sample s at (dso, sym, kernel), created with
 * zero counts when new.  Indices stay valid until hist_age; pointers into
 * entries do not survive the next call. */
static size_t hist_lookup(struct hist *h, const struct hist_sample *s, struct dso *dso,
			  const struct symbol *sym, bool kernel)
{
	struct hist_entry key = { 0 }, *e;
	struct hist_extra *x;
	uint64_t hash;
	size_t mask, j;

	if (h->key[SORT_COMM])
		key.comm = s->comm;
	if (h->key[SORT_PID])
		key.pid = s->pid;
	if (h->key[SORT_TID])
		key.tid = s->tid;
	if (h->key[SORT_CPU])
		key.cpu = s->cpu;
	if (h->key[SORT_DSO])
		key.dso = dso;
	if (h->key[SORT_SYM])
		key.sym = sym;
	hash = hist_hash(&key);

	mask = h->nslots - 1;
	for (j = hash & mask; h->slots[j] != HIST_SLOT_EMPTY; j = (j + 1) & mask) {
		uint32_t idx = h->slots[j];

		if (h->extra[idx].hash == hash && hist_key_eq(&h->entries[idx], &key)) {
			e = &h->entries[idx];
			x = &h->extra[idx];
			if (!x->mixed_comm && e->only_comm != s->comm) {
				x->mixed_comm = true;
				e->only_comm = NULL;
			}
			if (!e->mixed_pid && e->only_pid != s->pid)
				e->mixed_pid = true;
			return idx;
		}
	}

	/* A new entry.  The slot index is a uint32_t: 4G entries is far
	 * beyond what a terminal table can show anyway. */
	if (h->nr >= HIST_SLOT_EMPTY)
		fatal(1, "hist: too many entries");
	if (h->nr == h->cap) {
		size_t cap = h->cap;

		h->entries = xgrow(h->entries, &cap, h->nr + 1, sizeof(*h->entries));
		h->extra = xrealloc(h->extra, cap * sizeof(*h->extra));
		h->cap = cap;
	}
	e = &h->entries[h->nr];
	x = &h->extra[h->nr];
	*e = key;
	e->kernel = kernel;
	e->only_comm = s->comm;
	e->only_pid = s->pid;
	e->mixed_pid = false;
	e->period = 0;
	e->samples = 0;
	e->children = 0;
	x->hash = hash;
	x->mixed_comm = false;
	x->gen = h->gen - 1;
	h->nr++;
	if (h->nr * HIST_LOAD_DEN > h->nslots * HIST_LOAD_NUM)
		hist_rehash(h, h->nslots * 2);
	else
		h->slots[j] = (uint32_t)(h->nr - 1);
	return h->nr - 1;
}

/* Children: each distinct entry on the chain gets the period once, so a
 * recursive function is not counted once per frame. */
static void hist_add_children(struct hist *h, const struct hist_sample *s, size_t leaf)
{
	struct callchain_key ck;
	struct callchain_frame self;
	size_t i;

	h->gen++;
	h->entries[leaf].children += s->period;
	h->extra[leaf].gen = h->gen;
	for (i = 1; i < s->nr_chain; i++) {
		const struct callchain_frame *f = &s->chain[i];
		size_t idx = hist_lookup(h, s, f->dso, f->sym, f->kernel);

		if (h->extra[idx].gen == h->gen)
			continue;
		h->extra[idx].gen = h->gen;
		h->entries[idx].children += s->period;
	}
	ck.comm = s->comm;
	ck.pid = h->key[SORT_PID] ? s->pid : 0;
	ck.tid = h->key[SORT_TID] ? s->tid : 0;
	ck.cpu = h->key[SORT_CPU] ? s->cpu : 0;
	if (s->nr_chain) {
		callchain_store_add(h->chains, &ck, s->chain, s->nr_chain, s->period);
	} else {
		self.dso = s->dso;
		self.sym = s->sym;
		self.kernel = s->kernel;
		callchain_store_add(h->chains, &ck, &self, 1, s->period);
	}
}

void hist_add(struct hist *h, const struct hist_sample *s)
{
	size_t idx = hist_lookup(h, s, s->dso, s->sym, s->kernel);
	struct hist_entry *e = &h->entries[idx];

	e->period += s->period;
	e->samples++;
	h->total_period += s->period;
	h->total_samples++;
	if (h->chains)
		hist_add_children(h, s, idx);
}

/* x * 7 / 8 without overflowing for x above UINT64_MAX / 7. */
static uint64_t hist_decay(uint64_t x)
{
	return (x / 8) * 7 + (x % 8) * 7 / 8;
}

void hist_age(struct hist *h, enum hist_mode mode)
{
	size_t i, n = 0;

	switch (mode) {
	case HIST_ACCUMULATE:
		return;
	case HIST_ZERO:
		h->nr = 0;
		h->total_period = 0;
		h->total_samples = 0;
		hist_rehash(h, HIST_MIN_SLOTS);
		if (h->chains)
			callchain_store_clear(h->chains);
		return;
	case HIST_DECAY:
		break;
	}

	/* Totals are re-summed: the sum of rounded-down parts is not the
	 * rounded-down sum. */
	h->total_period = 0;
	h->total_samples = 0;
	for (i = 0; i < h->nr; i++) {
		struct hist_entry *e = &h->entries[i];

		e->period = hist_decay(e->period);
		e->samples = hist_decay(e->samples);
		e->children = hist_decay(e->children);
		if (!e->period && !e->children)
			continue;
		h->total_period += e->period;
		h->total_samples += e->samples;
		if (n != i) {
			h->entries[n] = *e;
			h->extra[n] = h->extra[i];
		}
		n++;
	}
	if (h->chains)
		callchain_store_decay(h->chains);
	if (n == h->nr)
		return;
	h->nr = n;
	/* Shrink after a burst so an idle table does not keep a huge index. */
	hist_rehash(h, hist_slots_for(n) < h->nslots / 4 ? hist_slots_for(n) : h->nslots);
}

size_t hist_count(const struct hist *h)
{
	return h->nr;
}

const struct hist_entry *hist_entry_at(const struct hist *h, size_t i)
{
	return i < h->nr ? &h->entries[i] : NULL;
}

uint64_t hist_total_period(const struct hist *h)
{
	return h->total_period;
}

uint64_t hist_total_samples(const struct hist *h)
{
	return h->total_samples;
}

const struct sort_spec *hist_sort_spec(const struct hist *h)
{
	return &h->spec;
}
