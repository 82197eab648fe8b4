/* The histogram: an open-addressing hash of entries keyed by the sort keys,
 * stored densely so iteration and snapshots are cheap. */
#include "config.h"

#include "hist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "hash.h"
#include "hashtab.h"
#include "payload.h"
#include "util.h"

#define HIST_MIN_SLOTS 64

/* Per-entry state the public struct hist_entry has no room for, kept in an
 * array parallel to the entries. */
struct hist_extra {
	uint64_t hash;
	bool mixed_comm; /* only_comm == NULL can also mean "all NULL" */
	uint32_t gen;    /* the last sample whose children counted this entry */
};

/* Per interned chain (by its store index): the distinct entries on it, the
 * sample's own first, so that a chain seen before adds its sample without
 * a single hash lookup.  Entry and chain indices both change at hist_age,
 * which starts a new epoch: a memo from an older one is rebuilt on use. */
struct hist_memo {
	uint32_t epoch;  /* 0: never built */
	uint32_t off;    /* into memo_ent */
	uint32_t nr;
	uint32_t pid;    /* the pid the lookups saw: see hist_add_chain */
	bool any_pid;    /* every entry on it is mixed_pid already */
};

struct hist {
	struct sort_spec spec;
	bool key[SORT__MAX];
	bool key_addr;            /* hist_key_addresses */
	bool key_daddr;           /* SORT_DADDR_DSO or SORT_DADDR_SYM: one test per lookup */
	struct hist_entry *entries; /* dense, hist_entry_at order */
	struct hist_extra *extra;   /* parallel to entries */
	/* The children column, parallel to entries and copied into them as
	 * they are read (hist_entry_at): a sample adds to one entry per
	 * distinct frame of its chain, and 8 bytes an entry keep those in a
	 * few cache lines where whole entries would take 32 of them. */
	uint64_t *children;
	size_t nr, cap;		    /* cap counts the three arrays */
	struct hashtab index;	    /* over entries, by extra[].hash */
	uint64_t total_period;
	uint64_t total_samples;
	struct callchain_store *chains; /* NULL without callchains */
	uint32_t gen;                   /* counts samples, for children dedup */
	struct hist_memo *memo;         /* per store chain index */
	size_t memo_cap;
	uint32_t *memo_ent;             /* entry indices of the memos */
	size_t memo_nent, memo_ent_cap;
	uint32_t epoch;                 /* bumped when entries or chains move */
	/* Payload stats (hist_enable_payload): */
	const struct payload_ops *payload; /* the data's decoder, or NULL */
	unsigned char *pstats;          /* parallel to entries (cap of them, stats_size
					   bytes each), or NULL before the first
					   decoded sample */
	uint64_t payload_samples;       /* since the start */
	uint64_t payload_other;         /* raw samples that were not the decoder's,
					   since the start */
};

/* Entry i's payload stats (h->pstats set). */
static void *hist_pstats(struct hist *h, size_t i)
{
	return h->pstats + i * h->payload->stats_size;
}

static const char *const sort_key_names[SORT__MAX] = {
	[SORT_COMM] = "comm", [SORT_PID] = "pid", [SORT_TID] = "tid",
	[SORT_CPU] = "cpu",   [SORT_DSO] = "dso", [SORT_SYM] = "sym", [SORT_SRCLINE] = "srcline",
	[SORT_DADDR_DSO] = "daddr_dso", [SORT_DADDR_SYM] = "daddr_sym",
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

bool sort_spec_has_daddr(const struct sort_spec *spec)
{
	return sort_spec_has(spec, SORT_DADDR_DSO) || sort_spec_has(spec, SORT_DADDR_SYM);
}

int sort_spec_parse(const char *s, struct sort_spec *out, struct errmsg *em)
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
		if (!len)
			return errmsg_set(em, -EINVAL, "%s",
					  spec.n || end ? "empty sort key (stray comma?)" :
							  "empty sort key list");
		for (k = 0; k < SORT__MAX; k++)
			if (strlen(sort_key_names[k]) == len && !memcmp(sort_key_names[k], p, len))
				break;
		if (k == SORT__MAX)
			return errmsg_set(em, -EINVAL,
					  "unknown sort key '%.*s' (known: comm, pid, tid, cpu, dso, "
					  "sym, srcline, daddr_dso, daddr_sym)",
					  (int)(len > 40 ? 40 : len), p);
		if (sort_spec_has(&spec, (enum sort_key)k))
			return errmsg_set(em, -EINVAL, "duplicate sort key '%s'",
					  sort_key_names[k]);
		spec.keys[spec.n++] = (enum sort_key)k;
		if (!end)
			break;
		p = end + 1;
	}
	*out = spec;
	return 0;
}

/* Key fields not in the spec are zero, so all of them can be hashed and
 * compared unconditionally.  comm is interned: the pointer is the identity. */
static uint64_t hist_hash(const struct hist_entry *k)
{
	uint64_t h = 0;

	h = hash_combine(h, (uintptr_t)k->comm);
	h = hash_combine(h, k->pid);
	h = hash_combine(h, k->tid);
	h = hash_combine(h, k->cpu);
	h = hash_combine(h, (uintptr_t)k->dso);
	h = hash_combine(h, (uintptr_t)k->sym);
	h = hash_combine(h, k->addr);
	/* Only the daddr keys set them: other tables hash as before. */
	if (k->ddso || k->dsym) {
		h = hash_combine(h, (uintptr_t)k->ddso);
		h = hash_combine(h, (uintptr_t)k->dsym);
	}
	return hash_finish(h);
}

static bool hist_key_eq(const struct hist_entry *a, const struct hist_entry *b)
{
	return a->comm == b->comm && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->dso == b->dso && a->sym == b->sym && a->addr == b->addr &&
	       a->ddso == b->ddso && a->dsym == b->dsym;
}

struct hist_key {
	const struct hist_entry *e;
	uint64_t hash;
};

static uint64_t hist_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct hist *)ctx)->extra[idx].hash;
}

static bool hist_index_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct hist *h = ctx;
	const struct hist_key *k = key;

	return h->extra[idx].hash == k->hash && hist_key_eq(&h->entries[idx], k->e);
}

struct hist *hist_new(const struct sort_spec *spec)
{
	struct hist *h = xcalloc(1, sizeof(*h));
	size_t i;

	h->spec = *spec;
	for (i = 0; i < spec->n; i++)
		h->key[spec->keys[i]] = true;
	h->key_daddr = h->key[SORT_DADDR_DSO] || h->key[SORT_DADDR_SYM];
	h->epoch = 1;
	hashtab_init(&h->index, HIST_MIN_SLOTS);
	return h;
}

void hist_free(struct hist *h)
{
	if (!h)
		return;
	free(h->entries);
	free(h->extra);
	free(h->children);
	free(h->pstats);
	hashtab_release(&h->index);
	free(h->memo);
	free(h->memo_ent);
	callchain_store_free(h->chains);
	free(h);
}

void hist_enable_callchains(struct hist *h, size_t max_ids)
{
	if (!h->chains)
		h->chains = callchain_store_new(max_ids);
}

void hist_key_addresses(struct hist *h)
{
	h->key_addr = true;
}

bool hist_has_callchains(const struct hist *h)
{
	return h->chains != NULL;
}

const struct callchain_store *hist_callchains(const struct hist *h)
{
	return h->chains;
}

/* The index of the entry for sample s at (dso, sym, kernel), created with
 * zero counts when new.  Indices stay valid until hist_age; pointers into
 * entries do not survive the next call. */
static size_t hist_lookup(struct hist *h, const struct hist_sample *s, struct dso *dso,
			  const struct symbol *sym, bool kernel, uint64_t addr)
{
	struct hist_entry key = { 0 }, *e;
	struct hist_key k = { &key, 0 };
	struct hist_extra *x;
	uint32_t idx;
	size_t j;

	if (h->key[SORT_COMM])
		key.comm = s->comm;
	if (h->key[SORT_PID])
		key.pid = s->pid;
	if (h->key[SORT_TID])
		key.tid = s->tid;
	if (h->key[SORT_CPU])
		key.cpu = s->cpu;
	/* An address means something only with its DSO (and determines
	 * its symbol): the view needs both to look it up. */
	if (h->key[SORT_DSO] || h->key[SORT_SRCLINE] || h->key_addr)
		key.dso = dso;
	if (h->key[SORT_SYM] || h->key[SORT_SRCLINE] || h->key_addr)
		key.sym = sym;
	if (h->key[SORT_SRCLINE] || h->key_addr)
		key.addr = addr;
	/* A data symbol's row without one is named by its mapping. */
	if (h->key_daddr) {
		key.ddso = s->ddso;
		if (h->key[SORT_DADDR_SYM])
			key.dsym = s->dsym;
	}
	k.hash = hist_hash(&key);

	j = hashtab_probe(&h->index, k.hash, hist_index_eq, h, &k);
	idx = h->index.slots[j];
	if (idx != HASHTAB_EMPTY) {
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

	/* A new entry.  The slot index is a uint32_t: 4G entries is far
	 * beyond what a terminal table can show anyway. */
	if (h->nr >= HASHTAB_MAX_ENTRIES)
		fatal(1, "hist: too many entries");
	if (h->nr == h->cap) {
		size_t cap = h->cap;

		h->entries = xgrow(h->entries, &cap, h->nr + 1, sizeof(*h->entries));
		h->extra = xrealloc(h->extra, cap * sizeof(*h->extra));
		h->children = xrealloc(h->children, cap * sizeof(*h->children));
		if (h->pstats)
			h->pstats = xrealloc(h->pstats, cap * h->payload->stats_size);
		h->cap = cap;
	}
	if (h->pstats)
		memset(hist_pstats(h, h->nr), 0, h->payload->stats_size);
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
	h->children[h->nr] = 0;
	x->hash = k.hash;
	x->mixed_comm = false;
	x->gen = h->gen - 1;
	h->nr++;
	hashtab_insert_at(&h->index, j, (uint32_t)(h->nr - 1), hist_hash_of, h);
	return h->nr - 1;
}

/* Frame i of s's chain (i < nr_chain), whichever way it was given. */
static const struct callchain_frame *hist_chain_frame(const struct hist_sample *s,
						      const struct callchain_frame *leaf, size_t i)
{
	if (s->chain)
		return &s->chain[i];
	return i ? &s->callers[i - 1] : leaf;
}

/* Entry indices and chain indices move at hist_age: forget every memo. */
static void hist_memo_reset(struct hist *h)
{
	h->memo_nent = 0;
	if (++h->epoch == 0) {
		/* 4G refreshes later: no stale epoch may match again. */
		memset(h->memo, 0, h->memo_cap * sizeof(*h->memo));
		h->epoch = 1;
	}
}

/* The memo of store chain ci, grown to hold it (a new one is unbuilt). */
static struct hist_memo *hist_memo_of(struct hist *h, size_t ci)
{
	if (ci >= h->memo_cap) {
		size_t old = h->memo_cap;

		h->memo = xgrow(h->memo, &h->memo_cap, ci + 1, sizeof(*h->memo));
		memset(h->memo + old, 0, (h->memo_cap - old) * sizeof(*h->memo));
	}
	return &h->memo[ci];
}

/* A sample with callchains: self on its entry, and children on each
 * distinct entry of its chain, so a recursive function is not counted once
 * per frame.  The chain is interned first; its memo, when current, gives
 * the entries without lookups.  The lookups also keep each entry's
 * only_comm/only_pid: a memo is only used where they would change nothing,
 * that is with the comm of the chain (a key of it) and the pid its lookups
 * saw, or any pid once every entry on it is mixed_pid. */
static size_t hist_add_chain(struct hist *h, const struct hist_sample *s, uint64_t count)
{
	struct callchain_key ck;
	struct callchain_frame self = { s->dso, s->sym, s->kernel, s->addr };
	const struct callchain_frame *leaf = &self, *callers = s->callers;
	uint64_t token = 0;
	size_t n = 1, ci = 0, idx, i, nent = 0;
	struct hist_memo *m = NULL;
	bool memo;

	if (s->chain && s->nr_chain) {
		leaf = &s->chain[0];
		callers = s->chain + 1;
		n = s->nr_chain;
	} else if (s->callers && s->nr_chain) {
		n = s->nr_chain;
		token = s->callers_token;
	}
	ck.comm = s->comm;
	ck.pid = h->key[SORT_PID] ? s->pid : 0;
	ck.tid = h->key[SORT_TID] ? s->tid : 0;
	ck.cpu = h->key[SORT_CPU] ? s->cpu : 0;
	/* The memo's first entry is the leaf frame's: only valid when that
	 * is the sample's own function, as every caller passes it. */
	memo = callchain_store_add_split_n(h->chains, &ck, leaf, callers, n - 1, token, s->period,
					   count, &ci) == 0 &&
	       leaf->dso == s->dso && leaf->sym == s->sym && leaf->addr == s->addr &&
	       !h->key_daddr; /* the data address is no part of the chain */
	if (memo) {
		m = hist_memo_of(h, ci);
		if (m->epoch == h->epoch && (m->any_pid || m->pid == s->pid)) {
			const uint32_t *ent = h->memo_ent + m->off;
			struct hist_entry *e = &h->entries[ent[0]];

			e->period += s->period;
			e->samples += count;
			h->total_period += s->period;
			h->total_samples += count;
			for (i = 0; i < m->nr; i++)
				h->children[ent[i]] += s->period;
			return ent[0];
		}
		/* Rebuilt in place when it had room (the same chain has the
		 * same entries), else at the end of the pool. */
		if (m->epoch != h->epoch) {
			if (h->memo_nent + n > h->memo_ent_cap)
				h->memo_ent = xgrow(h->memo_ent, &h->memo_ent_cap, h->memo_nent + n,
						    sizeof(*h->memo_ent));
			m->off = (uint32_t)h->memo_nent;
			m->epoch = h->epoch;
			h->memo_nent += n;
		}
	}

	idx = hist_lookup(h, s, s->dso, s->sym, s->kernel, s->addr);
	h->entries[idx].period += s->period;
	h->entries[idx].samples += count;
	h->total_period += s->period;
	h->total_samples += count;
	h->gen++;
	h->children[idx] += s->period;
	h->extra[idx].gen = h->gen;
	if (memo)
		h->memo_ent[m->off + nent++] = (uint32_t)idx;
	for (i = 1; i < n; i++) {
		const struct callchain_frame *f = hist_chain_frame(s, leaf, i);
		size_t fi = hist_lookup(h, s, f->dso, f->sym, f->kernel, f->addr);

		if (h->extra[fi].gen == h->gen)
			continue;
		h->extra[fi].gen = h->gen;
		h->children[fi] += s->period;
		if (memo)
			h->memo_ent[m->off + nent++] = (uint32_t)fi;
	}
	if (memo) {
		m->nr = (uint32_t)nent;
		m->pid = s->pid;
		m->any_pid = true;
		for (i = 0; i < nent && m->any_pid; i++)
			m->any_pid = h->entries[h->memo_ent[m->off + i]].mixed_pid;
	}
	return idx;
}

/* hist_add of count samples at once (their periods summed in s), returning
 * the index of the sample's entry. */
static size_t hist_add_at(struct hist *h, const struct hist_sample *s, uint64_t count)
{
	size_t idx;
	struct hist_entry *e;

	if (h->chains)
		return hist_add_chain(h, s, count);
	idx = hist_lookup(h, s, s->dso, s->sym, s->kernel, s->addr);
	e = &h->entries[idx];
	e->period += s->period;
	e->samples += count;
	h->total_period += s->period;
	h->total_samples += count;
	return idx;
}

void hist_add(struct hist *h, const struct hist_sample *s)
{
	hist_add_at(h, s, 1);
}

void hist_enable_payload(struct hist *h, const struct payload_ops *ops)
{
	h->payload = ops;
}

void hist_add_payload(struct hist *h, const struct hist_sample *s, const void *decoded)
{
	hist_add_payload_n(h, s, decoded, 1);
}

void hist_add_payload_n(struct hist *h, const struct hist_sample *s, const void *decoded,
			uint64_t n)
{
	size_t idx = hist_add_at(h, s, n);

	if (!h->payload) {
		/* No decoder: the sample counts alone. */
		return;
	}
	/* The first sample of the event: every entry so far gets empty
	 * stats; later ones get theirs in hist_lookup.  Not at the first
	 * decoded one: the rows' samples not decoded before it would be
	 * lost from their counts (hist_has_payload_stats waits for it). */
	if (!h->pstats)
		h->pstats = xcalloc(h->cap ? h->cap : 1, h->payload->stats_size);
	if (decoded) {
		h->payload_samples += n;
		h->payload->stats_add(hist_pstats(h, idx), decoded);
	} else {
		h->payload_other += n;
		while (n--)
			h->payload->stats_add_other(hist_pstats(h, idx));
	}
}

const struct payload_ops *hist_payload(const struct hist *h)
{
	return h->payload;
}

bool hist_has_payload_stats(const struct hist *h)
{
	return h->pstats != NULL && h->payload_samples;
}

const void *hist_entry_payload(const struct hist *h, size_t i)
{
	return hist_has_payload_stats(h) && i < h->nr ? hist_pstats((struct hist *)h, i) : NULL;
}

uint64_t hist_payload_samples(const struct hist *h)
{
	return h->payload_samples;
}

uint64_t hist_payload_other(const struct hist *h)
{
	return h->payload_other;
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
		hashtab_rebuild(&h->index, 0, hist_hash_of, h);
		if (h->chains)
			callchain_store_clear(h->chains);
		hist_memo_reset(h);
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
		e->children = hist_decay(h->children[i]);
		if (h->pstats)
			h->payload->stats_decay(hist_pstats(h, i), 7, 8);
		if (!e->period && !e->children)
			continue;
		h->total_period += e->period;
		h->total_samples += e->samples;
		h->children[i] = e->children;
		if (n != i) {
			h->children[n] = e->children;
			h->entries[n] = *e;
			h->extra[n] = h->extra[i];
			if (h->pstats)
				memcpy(hist_pstats(h, n), hist_pstats(h, i), h->payload->stats_size);
		}
		n++;
	}
	if (h->chains)
		callchain_store_decay(h->chains);
	hist_memo_reset(h);
	if (n == h->nr)
		return;
	h->nr = n;
	/* Shrinks after a burst so an idle table does not keep a huge index. */
	hashtab_rebuild(&h->index, n, hist_hash_of, h);
}

size_t hist_count(const struct hist *h)
{
	return h->nr;
}

const struct hist_entry *hist_entry_at(const struct hist *h, size_t i)
{
	if (i >= h->nr)
		return NULL;
	/* The entries are the hist's own: reading one brings its children
	 * column up to date (the const is the caller's promise, not ours). */
	((struct hist *)h)->entries[i].children = h->children[i];
	return &h->entries[i];
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
