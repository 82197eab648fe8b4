/* The histogram: samples aggregated into entries keyed by the sort keys,
 * with decay or zeroing between refreshes.  No allocation per sample once
 * an entry exists. */
#ifndef PROFTOP_HIST_H
#define PROFTOP_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "callchain.h"

struct dso;
struct errmsg;
struct symbol;
struct payload_ops;

enum sort_key {
	SORT_COMM,
	SORT_PID,
	SORT_TID,
	SORT_CPU,
	SORT_DSO,
	SORT_SYM,
	SORT_SRCLINE,   /* source file:line of the sampled address (entries are
			   keyed by the address; rows merged by file:line in
			   the view) */
	SORT_DADDR_DSO, /* the mapping of the sample's data address (a load's
			   or store's: IBS Op, PERF_SAMPLE_ADDR) */
	SORT_DADDR_SYM, /* its data symbol, else that mapping */
	SORT__MAX,
};

struct sort_spec {
	enum sort_key keys[SORT__MAX]; /* in the order given, no repeats */
	size_t n;
};

/* Parse "dso,sym", "comm,pid", ...  Returns 0, or -EINVAL with em naming
 * the offending key. */
int sort_spec_parse(const char *s, struct sort_spec *out, struct errmsg *em);
bool sort_spec_has(const struct sort_spec *spec, enum sort_key key);
/* Whether daddr_dso or daddr_sym is a key: samples need data addresses. */
bool sort_spec_has_daddr(const struct sort_spec *spec);
const char *sort_key_name(enum sort_key key);

/* One sample as the hist sees it: resolved, with its thread's comm. */
struct hist_sample {
	const char *comm;            /* interned; NULL if unknown */
	uint32_t pid, tid, cpu;
	struct dso *dso;             /* NULL: no map */
	const struct symbol *sym;    /* NULL: [unknown] */
	bool kernel;
	uint64_t addr;               /* the sampled address in dso's symbol space
					(ELF vaddr) when the engine keeps addresses
					(--inline, -s srcline), else 0 */
	uint64_t period;
	/* With a daddr sort key: the data address's DSO (a file, [heap],
	 * [stack], //anon) and object symbol; NULL, NULL: no data address,
	 * or one in no map. */
	struct dso *ddso;
	const struct symbol *dsym;
	/* With callchains: the resolved chain, innermost first, chain[0]
	 * being the sampled function itself (the same dso/sym as above); the
	 * rest its callers.  NULL/0: no chain (the sample counts alone). */
	const struct callchain_frame *chain;
	size_t nr_chain;
	/* Or, with chain NULL: the callers alone, nr_chain - 1 of them, the
	 * sampled function being dso/sym/kernel above.  This lets the engine
	 * hand out the resolve cache's frames without copying them. */
	const struct callchain_frame *callers;
	/* With callers: 0, or a token naming them (callchain_cache_find's),
	 * which spares hashing them again (callchain_store_add_split). */
	uint64_t callers_token;
};

struct hist_entry {
	/* key fields: only those in the sort spec are set, the others 0/NULL */
	const char *comm;
	uint32_t pid, tid, cpu;
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;               /* with SORT_SRCLINE: the sampled address (or
					the frame's, for an entry only a caller has) */
	struct dso *ddso;            /* with SORT_DADDR_DSO or SORT_DADDR_SYM */
	const struct symbol *dsym;   /* with SORT_DADDR_SYM */
	/* not keys: */
	bool kernel;
	const char *only_comm;       /* the comm of every sample so far, NULL if mixed */
	uint32_t only_pid;           /* likewise; valid when !mixed_pid */
	bool mixed_pid;
	uint64_t period;             /* sum of periods (decayed) */
	uint64_t samples;            /* number of samples (decayed) */
	uint64_t children;           /* with callchains: period of the samples with this
					entry anywhere on their chain, self included,
					once per sample (decayed); else 0 */
};

enum hist_mode {
	HIST_DECAY,       /* x 7/8 at each refresh, like perf top */
	HIST_ZERO,        /* cleared at each refresh (-z) */
	HIST_ACCUMULATE,  /* never forgets (--accumulate) */
};

struct hist;

struct hist *hist_new(const struct sort_spec *spec);
void hist_free(struct hist *h);

/* Count callchains from now on: children per entry (every distinct entry on
 * a sample's chain gets its period once) and the chains themselves in a
 * store of at most max_ids frame ids (0: the default).  Idempotent. */
void hist_enable_callchains(struct hist *h, size_t max_ids);
bool hist_has_callchains(const struct hist *h);
/* Key entries by the sampled address too (hist_sample.addr, and the
 * frames' for entries only callers have), as SORT_SRCLINE does, without
 * it being a sort key: --inline, whose view splits rows by inlined
 * function.  Call before the first hist_add. */
void hist_key_addresses(struct hist *h);
/* The interned chains (NULL without callchains); their key holds pid, tid
 * and cpu only when those are sort keys, and always the comm.  Valid until
 * the next hist_add/hist_age. */
const struct callchain_store *hist_callchains(const struct hist *h);

void hist_add(struct hist *h, const struct hist_sample *s);

/* Apply the mode after a refresh: decay (dropping entries whose period and
 * children both reach 0), zero, or nothing; the chains age the same way. */
void hist_age(struct hist *h, enum hist_mode mode);

size_t hist_count(const struct hist *h);
/* Entries in no particular order; valid until the next hist_add/hist_age. */
const struct hist_entry *hist_entry_at(const struct hist *h, size_t i);
uint64_t hist_total_period(const struct hist *h);
uint64_t hist_total_samples(const struct hist *h);
const struct sort_spec *hist_sort_spec(const struct hist *h);

/* Precise-sample payloads (src/arch/payload.h).  The engine calls
 * hist_enable_payload once it knows the data's decoder; then
 * hist_add_payload instead of hist_add for each sample with a raw payload:
 * decoded (the decoder's own struct), or NULL when the payload was not the
 * decoder's.  Per-entry stats (ops->stats_size bytes each, opaque here)
 * exist only once a decoded sample has come (an array parallel to the
 * entries, so other data pays nothing); they age with their entry (x 7/8,
 * zeroed). */
void hist_enable_payload(struct hist *h, const struct payload_ops *ops);
void hist_add_payload(struct hist *h, const struct hist_sample *s, const void *decoded);
/* n samples at once, their periods summed in s->period, as n calls would
 * count them (samples, chains, totals); decoded stands for all n, so its
 * decoder's stats_add must count them (walltime's: its n). */
void hist_add_payload_n(struct hist *h, const struct hist_sample *s, const void *decoded,
			uint64_t n);
/* The data's decoder (hist_enable_payload), or NULL. */
const struct payload_ops *hist_payload(const struct hist *h);
/* Whether entries have stats: some decoded sample has come. */
bool hist_has_payload_stats(const struct hist *h);
/* Entry i's stats (same index as hist_entry_at), or NULL without stats. */
const void *hist_entry_payload(const struct hist *h, size_t i);
/* Since the start, never aged: decoded samples, and raw samples that were
 * not the decoder's. */
uint64_t hist_payload_samples(const struct hist *h);
uint64_t hist_payload_other(const struct hist *h);

#endif
