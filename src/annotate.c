/* Per-instruction counts, kept only for the functions --annotate names,
 * those the browser opened since (annotate_watch), or every function
 * (annotate_keep_all, a recording in the browser): a sorted array of
 * sampled addresses per function, and its view built from the ELF's
 * bytes at each refresh.  One lock: the browser asks from its thread. */
#include "config.h"

#include "annotate.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate-payload.h"
#include "annotate-source.h"
#include "annotate-test.h"
#include "arch-disasm.h"
#include "arch.h"
#include "disasm.h"
#include "dso.h"
#include "dwarfinfo.h"
#include "elfsyms.h"
#include "errmsg.h"
#include "hash.h"
#include "hashtab.h"
#include "intern.h"
#include "payload.h"
#include "procmem.h"
#include "symtab.h"
#include "util.h"

enum { ANNOTATE_PERIOD, ANNOTATE_SAMPLES, ANNOTATE_NV };

/* An instruction's source line (annotate_line's fields), interned. */
struct annotate_src {
	const char *where, *text, *inlined;
};

struct annotate_count {
	uint64_t addr;
	uint64_t v[ANNOTATE_NV];
};

struct annotate_target {
	char *spec, *name, *dso;     /* dso NULL: any */
	bool matched;
};

/* annotate_func.target of a function no target names (annotate_keep_all). */
#define ANNOTATE_NO_TARGET SIZE_MAX

struct annotate_func {
	const struct dso *dso;
	const struct symbol *sym;
	size_t target;               /* or ANNOTATE_NO_TARGET */
	struct annotate_count *c;
	size_t nr, cap;
	uint64_t total[ANNOTATE_NV];
	struct annotate_payload *pl; /* payload stats per address, or NULL */
	/* the code, read at the first report */
	bool decoded;
	char *note;
	struct disasm_insn *insns;
	size_t nr_insns;
	struct annotate_src *src;    /* per instruction, or NULL without DWARF */
};

/* Symbols seen not to match, by pointer: a strcmp per sample otherwise. */
#define ANNOTATE_MISS 256

struct annotate {
	/* Decoding (code, disassembly, the DWARF cache) and publishing it,
	 * taken before lock: the samples wait only for the publishing. */
	pthread_mutex_t decode_lock;
	void (*decode_hook)(void *); /* annotate_set_decode_hook's */
	void *decode_hook_arg;
	pthread_mutex_t lock;        /* everything below */
	struct annotate_target *targets;
	size_t nr_targets, cap_targets;
	/* Whether a sample can count: some target, or keep_all.  Read
	 * without the lock, so that a browser with nothing open costs a
	 * load per sample. */
	atomic_bool active;
	bool keep_all;
	struct annotate_func *funcs;
	size_t nr_funcs, cap_funcs;
	struct hashtab index;        /* funcs by (dso, sym) */
	enum disasm_syntax syntax;
	const struct symbol *miss[ANNOTATE_MISS];
	struct dwarfinfo_cache *dwarf;  /* source lines; our own: any thread */
	const struct payload_ops *payload;
	bool payload_seen; /* a decoded payload: the stats are shown */
	bool live;	   /* samples of this system now: JIT code is read from memory */
};

static void annotate_target_init(struct annotate_target *t, const char *spec)
{
	char *at;

	memset(t, 0, sizeof(*t));
	t->spec = xstrdup(spec);
	t->name = xstrdup(spec);
	at = strrchr(t->name, '@');
	/* "name@@VERSION" style names keep their '@'s: only a DSO after the
	 * last one counts, and not an empty one. */
	if (at && at != t->name && at[1] && at[-1] != '@') {
		*at = '\0';
		t->dso = xstrdup(at + 1);
	}
}

struct annotate *annotate_new(const char *const *specs, size_t n, bool intel)
{
	struct annotate *a = xcalloc(1, sizeof(*a));
	size_t i;

	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->decode_lock, NULL);
	a->targets = xgrow(NULL, &a->cap_targets, n ? n : 1, sizeof(*a->targets));
	a->nr_targets = n;
	atomic_init(&a->active, n > 0);
	a->syntax = intel ? DISASM_INTEL : DISASM_ATT;
	hashtab_init(&a->index, 0);
	for (i = 0; i < n; i++)
		annotate_target_init(&a->targets[i], specs[i]);
	return a;
}

static void annotate_func_release(struct annotate_func *f)
{
	free(f->c);
	free(f->note);
	free(f->insns);
	free(f->src);
	annotate_payload_free(f->pl);
}

void annotate_free(struct annotate *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->nr_targets; i++) {
		free(a->targets[i].spec);
		free(a->targets[i].name);
		free(a->targets[i].dso);
	}
	for (i = 0; i < a->nr_funcs; i++)
		annotate_func_release(&a->funcs[i]);
	free(a->targets);
	free(a->funcs);
	hashtab_release(&a->index);
	if (a->dwarf)
		dwarfinfo_cache_free(a->dwarf);
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->decode_lock);
	free(a);
}

static bool annotate_target_matches(const struct annotate_target *t, const struct dso *dso,
				    const struct symbol *sym)
{
	if (strcmp(t->name, sym->name) != 0)
		return false;
	return !t->dso || (dso && (strcmp(t->dso, dso_short_name(dso)) == 0 ||
				   strcmp(t->dso, dso_path(dso)) == 0));
}

static uint64_t annotate_key_hash(const struct dso *dso, const struct symbol *sym)
{
	return hash_finish(hash_combine((uintptr_t)dso, (uintptr_t)sym));
}

static uint64_t annotate_index_hash(const void *ctx, uint32_t idx)
{
	const struct annotate *a = ctx;

	return annotate_key_hash(a->funcs[idx].dso, a->funcs[idx].sym);
}

struct annotate_key {
	const struct dso *dso;
	const struct symbol *sym;
};

static bool annotate_index_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct annotate *a = ctx;
	const struct annotate_key *k = key;

	return a->funcs[idx].sym == k->sym && a->funcs[idx].dso == k->dso;
}

/* The first target naming sym (in dso), or ANNOTATE_NO_TARGET. */
static size_t annotate_match(const struct annotate *a, const struct dso *dso,
			     const struct symbol *sym)
{
	size_t i;

	for (i = 0; i < a->nr_targets; i++)
		if (annotate_target_matches(&a->targets[i], dso, sym))
			return i;
	return ANNOTATE_NO_TARGET;
}

static struct annotate_func *annotate_add(struct annotate *a, size_t at, const struct dso *dso,
					  const struct symbol *sym, size_t i);

static struct annotate_func *annotate_find(struct annotate *a, const struct dso *dso,
					   const struct symbol *sym)
{
	size_t slot = ((uintptr_t)sym >> 4) % ANNOTATE_MISS, i, at;
	struct annotate_key key = { dso, sym };
	uint64_t hash = annotate_key_hash(dso, sym);

	at = hashtab_probe(&a->index, hash, annotate_index_eq, a, &key);
	if (a->index.slots[at] != HASHTAB_EMPTY)
		return &a->funcs[a->index.slots[at]];
	if (a->miss[slot] == sym)
		return NULL;
	i = annotate_match(a, dso, sym);
	if (i == ANNOTATE_NO_TARGET && !a->keep_all) {
		a->miss[slot] = sym;
		return NULL;
	}
	return annotate_add(a, at, dso, sym, i);
}

/* Keep (dso, sym) for target i (or none), at its empty index slot. */
static struct annotate_func *annotate_add(struct annotate *a, size_t at, const struct dso *dso,
					  const struct symbol *sym, size_t i)
{
	struct annotate_func *f;

	if (i != ANNOTATE_NO_TARGET)
		a->targets[i].matched = true;
	a->funcs = xgrow(a->funcs, &a->cap_funcs, a->nr_funcs + 1, sizeof(*a->funcs));
	f = &a->funcs[a->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->dso = dso;
	f->sym = sym;
	f->target = i;
	hashtab_insert_at(&a->index, at, (uint32_t)(a->nr_funcs - 1), annotate_index_hash, a);
	return f;
}

/* (dso, sym) kept for target i from now on, samples or not. */
static void annotate_add_for(struct annotate *a, const struct dso *dso, const struct symbol *sym,
			     size_t i)
{
	struct annotate_key key = { dso, sym };
	size_t at = hashtab_probe(&a->index, annotate_key_hash(dso, sym), annotate_index_eq, a,
				  &key);

	if (a->index.slots[at] == HASHTAB_EMPTY)
		annotate_add(a, at, dso, sym, i);
}

void annotate_resolve(struct annotate *a, const struct hist *h)
{
	size_t i, k;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nr_targets; i++) {
		const struct annotate_target *t = &a->targets[i];

		if (t->matched)
			continue;
		for (k = 0; k < hist_count(h); k++) {
			const struct hist_entry *e = hist_entry_at(h, k);

			if (e->sym && annotate_target_matches(t, e->dso, e->sym)) {
				annotate_add_for(a, e->dso, e->sym, i);
				break;
			}
		}
	}
	pthread_mutex_unlock(&a->lock);
}

void annotate_keep_all(struct annotate *a)
{
	pthread_mutex_lock(&a->lock);
	a->keep_all = true;
	atomic_store(&a->active, true);
	pthread_mutex_unlock(&a->lock);
}

void annotate_watch(struct annotate *a, const char *symbol, const char *dso)
{
	struct annotate_target *t;
	char *spec;
	size_t i;

	if (!a)
		return;
	spec = dso ? xasprintf("%s@%s", symbol, dso) : xstrdup(symbol);
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nr_targets; i++)
		if (strcmp(a->targets[i].spec, spec) == 0)
			goto out;
	a->targets = xgrow(a->targets, &a->cap_targets, a->nr_targets + 1, sizeof(*a->targets));
	t = &a->targets[a->nr_targets++];
	annotate_target_init(t, spec);
	/* Functions kept already (keep_all) join it; those missed may now match. */
	for (i = 0; i < a->nr_funcs; i++)
		if (a->funcs[i].target == ANNOTATE_NO_TARGET &&
		    annotate_target_matches(t, a->funcs[i].dso, a->funcs[i].sym)) {
			a->funcs[i].target = a->nr_targets - 1;
			t->matched = true;
		}
	memset(a->miss, 0, sizeof(a->miss));
	atomic_store(&a->active, true);
out:
	pthread_mutex_unlock(&a->lock);
	free(spec);
}

void annotate_sample(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		     uint64_t addr, uint64_t period)
{
	annotate_sample_n(a, dso, sym, addr, period, 1);
}

void annotate_sample_n(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		       uint64_t addr, uint64_t period, uint64_t n)
{
	struct annotate_func *f;
	size_t lo, hi;

	if (!a || !sym || !atomic_load_explicit(&a->active, memory_order_relaxed))
		return;
	pthread_mutex_lock(&a->lock);
	if (!(f = annotate_find(a, dso, sym)))
		goto out;
	lo = 0;
	hi = f->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->c[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->nr || f->c[lo].addr != addr) {
		f->c = xgrow(f->c, &f->cap, f->nr + 1, sizeof(*f->c));
		memmove(&f->c[lo + 1], &f->c[lo], (f->nr - lo) * sizeof(*f->c));
		memset(&f->c[lo], 0, sizeof(*f->c));
		f->c[lo].addr = addr;
		f->nr++;
	}
	f->c[lo].v[ANNOTATE_PERIOD] += period;
	f->c[lo].v[ANNOTATE_SAMPLES] += n;
	f->total[ANNOTATE_PERIOD] += period;
	f->total[ANNOTATE_SAMPLES] += n;
out:
	pthread_mutex_unlock(&a->lock);
}

void annotate_set_live(struct annotate *a, bool live)
{
	if (a)
		a->live = live;
}

void annotate_enable_payload(struct annotate *a, const struct payload_ops *ops)
{
	if (a)
		a->payload = ops;
}

void annotate_sample_payload(struct annotate *a, const struct dso *dso, const struct symbol *sym,
			     uint64_t addr, uint64_t period, const void *decoded)
{
	struct annotate_func *f;

	annotate_sample(a, dso, sym, addr, period);
	if (!a || !a->payload || !sym)
		return;
	pthread_mutex_lock(&a->lock);
	/* As hist_add_payload: a sample that is not the decoder's counts from
	 * the start (the stats show once some sample was the decoder's). */
	if (decoded)
		a->payload_seen = true;
	f = annotate_find(a, dso, sym);
	if (!f)
		goto out;
	if (!f->pl)
		f->pl = annotate_payload_new(a->payload);
	annotate_payload_add(f->pl, addr, decoded);
out:
	pthread_mutex_unlock(&a->lock);
}

/* hist_decay: x * 7 / 8, rounded down. */
static uint64_t annotate_decay_one(uint64_t x)
{
	return (x / 8) * 7 + (x % 8) * 7 / 8;
}

/* Decay value k of every count and the total; the units the rounding of
 * the parts lost go to the counts that lost the most (then the lowest
 * addresses), so the parts add up to the decayed total again. */
static void annotate_decay(struct annotate_func *f, int k, uint8_t *rems)
{
	uint64_t total = annotate_decay_one(f->total[k]), sum = 0;
	size_t i;
	unsigned rem;

	for (i = 0; i < f->nr; i++) {
		uint64_t x = f->c[i].v[k];

		rems[i] = (uint8_t)((x % 8) * 7 % 8);
		f->c[i].v[k] = annotate_decay_one(x);
		sum += f->c[i].v[k];
	}
	for (rem = 7; rem > 0 && sum < total; rem--)
		for (i = 0; i < f->nr && sum < total; i++)
			if (rems[i] == rem) {
				f->c[i].v[k]++;
				sum++;
			}
	f->total[k] = total;
}

void annotate_age(struct annotate *a, enum hist_mode mode)
{
	uint8_t *rems = NULL;
	size_t i, j, n, cap = 0;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	/* Symbols may be freed with their DSO after a refresh. */
	memset(a->miss, 0, sizeof(a->miss));
	if (mode == HIST_ACCUMULATE)
		goto out;
	for (i = 0; i < a->nr_funcs; i++) {
		struct annotate_func *f = &a->funcs[i];

		annotate_payload_age(f->pl, mode);
		if (mode == HIST_ZERO) {
			f->nr = 0;
			memset(f->total, 0, sizeof(f->total));
			continue;
		}
		rems = xgrow(rems, &cap, f->nr, 1);
		annotate_decay(f, ANNOTATE_PERIOD, rems);
		annotate_decay(f, ANNOTATE_SAMPLES, rems);
		for (j = n = 0; j < f->nr; j++)
			if (f->c[j].v[ANNOTATE_PERIOD] || f->c[j].v[ANNOTATE_SAMPLES])
				f->c[n++] = f->c[j];
		f->nr = n;
		/* hist_age drops a row with no period left, stats and all. */
		if (!f->total[ANNOTATE_PERIOD])
			annotate_payload_age(f->pl, HIST_ZERO);
	}
	free(rems);
out:
	pthread_mutex_unlock(&a->lock);
}

/* A source file read for annotate_sources: its lines. */
/* f's source lines from the DWARF (line table and inlined scopes), once. */
static void annotate_sources(struct annotate *a, struct annotate_func *f)
{
	struct annotate_source *files = annotate_source_new();
	struct dwarfinfo_line *dl;
	uint64_t *addrs;
	size_t i;
	bool any = false;

	if (!f->nr_insns)
		return;
	if (!a->dwarf)
		a->dwarf = dwarfinfo_cache_new(0);
	addrs = xmalloc(f->nr_insns * sizeof(*addrs));
	dl = xmalloc(f->nr_insns * sizeof(*dl));
	for (i = 0; i < f->nr_insns; i++)
		addrs[i] = f->insns[i].addr;
	if (dso_dwarf_lines(a->dwarf, f->dso, addrs, f->nr_insns, dl) == 0) {
		f->src = xcalloc(f->nr_insns, sizeof(*f->src));
		for (i = 0; i < f->nr_insns; i++) {
			struct annotate_src *s = &f->src[i];
			char *where;

			if (!dl[i].file || !dl[i].line)
				continue;
			any = true;
			if (i && dl[i].file == dl[i - 1].file && dl[i].line == dl[i - 1].line &&
			    dl[i].inlined == dl[i - 1].inlined) {
				*s = f->src[i - 1];
				continue;
			}
			where = xasprintf("%s:%u", dl[i].file, dl[i].line);
			s->where = intern(where);
			free(where);
			s->inlined = dl[i].inlined;
			s->text = annotate_source_line(files, dl[i].file, dl[i].line);
		}
	}
	annotate_source_free(files);
	free(addrs);
	free(dl);
	if (!any) {
		free(f->src);
		f->src = NULL;
	}
}

/* Decode len bytes of f's code into f's instructions; a note when there is
 * no disassembler (raw bytes then) or the code is shorter than f. */
static void annotate_disasm(struct annotate *a, struct annotate_func *f, int e_machine,
			    const uint8_t *code, size_t len, const char *where)
{
	struct errmsg em = ERRMSG_INIT;
	uint64_t size = f->sym->end - f->sym->start;
	char *cut = NULL;
	int err = arch_disasm_decode(e_machine, a->syntax, code, len, f->sym->start, &f->insns,
				     &f->nr_insns, &em);

	if (len < size)
		cut = xasprintf("cut: %zu of %llu bytes %s%s", len, (unsigned long long)size, where,
				len == ELFSYMS_CODE_MAX ? " (1 MiB bound)" : "");
	if (err) {
		f->note = xasprintf("no disassembly: %s%s%s", errmsg_text(&em, err),
				    cut ? "; " : "", cut ? cut : "");
		free(cut);
		disasm_raw(code, len, f->sym->start, &f->insns, &f->nr_insns);
	} else {
		f->note = cut;
	}
}

/* JIT code (a perf-PID.map names it, in the process's anonymous memory):
 * read from the process while it runs, never from a recording's pid (it
 * may be another process now). */
static void annotate_decode_jit(struct annotate *a, struct annotate_func *f)
{
	struct errmsg em = ERRMSG_INIT;
	uint8_t *code = NULL;
	size_t len = 0;
	int pid, err;

	if (sscanf(dso_path(f->dso), "/tmp/perf-%d.map", &pid) != 1) {
		f->note = xstrdup("no code bytes: anonymous code no perf map names");
		return;
	}
	if (!a->live) {
		f->note = xasprintf("no code bytes: JIT code of process %d is read from the "
				    "live process only, not for a recording",
				    pid);
		return;
	}
	err = procmem_read(pid, f->sym->start, f->sym->end - f->sym->start, ELFSYMS_CODE_MAX, &code,
			   &len, &em);
	if (err) {
		f->note = xasprintf("no code bytes: %s", errmsg_text(&em, err));
		return;
	}
	annotate_disasm(a, f, arch_host_machine(), code, len, "in the process's memory");
	free(code);
}

/* Read and decode f's code once: from the file its symbols came from,
 * with the build ID they were checked against. */
static void annotate_decode(struct annotate *a, struct annotate_func *f)
{
	struct errmsg em = ERRMSG_INIT;
	const char *path = f->dso ? dso_sym_path(f->dso) : NULL;
	const uint8_t *id = NULL;
	uint64_t size = f->sym->end - f->sym->start;
	uint8_t *code = NULL;
	size_t len = 0, id_size;
	int e_machine, err;

	f->decoded = true;
	if (f->dso && dso_kind(f->dso) == DSO_ANON) {
		annotate_decode_jit(a, f);
		return;
	}
	if (!path || dso_kind(f->dso) != DSO_USER) {
		f->note = xstrdup("no code bytes: not a function of an ELF file read by proftop "
				  "(kernel code is not annotated yet)");
		return;
	}
	id_size = dso_file_build_id(f->dso, &id);
	err = elfsyms_read_code(path, id, id_size, f->sym->start, size, &code, &len, &e_machine,
				&em);
	/* A process's root (/proc/PID/root/...) is gone with the process: the
	 * file by its own name then, if its build ID says it is the same. */
	if (err && id_size && strcmp(path, dso_path(f->dso)) != 0) {
		errmsg_clear(&em);
		err = elfsyms_read_code(dso_path(f->dso), id, id_size, f->sym->start, size, &code,
					&len, &e_machine, &em);
	}
	if (err) {
		f->note = xasprintf("no code bytes: %s", errmsg_text(&em, err));
		return;
	}
	annotate_disasm(a, f, e_machine, code, len, "in the file");
	free(code);
	annotate_sources(a, f);
}

/* A line for a sampled address that starts no instruction (before the
 * code, or past what was read). */
static void annotate_stray(struct annotate_line *l, const struct annotate_count *c)
{
	l->addr = c->addr;
	snprintf(l->text, sizeof(l->text), "(not an instruction start)");
	l->period = c->v[ANNOTATE_PERIOD];
	l->samples = c->v[ANNOTATE_SAMPLES];
}

/* A jump's or call's target as a name: the function's own, or the
 * symbol of f's DSO there. */
static void annotate_target(const struct annotate_func *f, const struct disasm_insn *di,
			    struct annotate_line *l)
{
	const struct symbol *to = f->sym;

	l->target = di->target;
	l->call = di->flow == DISASM_FLOW_CALL;
	if (di->target < to->start || di->target >= to->end)
		to = f->dso ? dso_symbol_at(f->dso, di->target) : NULL;
	if (!to)
		return;
	snprintf(l->target_sym, sizeof(l->target_sym), "%s", to->name);
	l->target_off = di->target - to->start;
}

/* Each sampled line's payload stats, and the function's. */
static void annotate_fill_payload(const struct payload_ops *ops, const struct annotate_payload *pl,
				  struct annotate_fn *out)
{
	size_t size = ops->stats_size, i;

	out->payload = xmalloc(size);
	memcpy(out->payload, annotate_payload_total(pl), size);
	for (i = 0; i < out->nr_lines; i++) {
		struct annotate_line *l = &out->lines[i];

		if (!l->samples)
			continue;
		l->payload = xmalloc(size);
		if (!annotate_payload_sum(pl, l->addr, l->addr + (l->size ? l->size : 1),
					  l->payload)) {
			free(l->payload);
			l->payload = NULL;
		}
	}
}

/* The lines of f: its instructions with the samples inside each. */
static void annotate_fill(const struct annotate_func *f, struct annotate_fn *out)
{
	size_t i, j = 0, n = 0;

	out->lines = xcalloc(f->nr_insns + f->nr + 1, sizeof(*out->lines));
	for (i = 0; i < f->nr_insns; i++) {
		const struct disasm_insn *di = &f->insns[i];
		struct annotate_line *l;

		while (j < f->nr && f->c[j].addr < di->addr)
			annotate_stray(&out->lines[n++], &f->c[j++]);
		l = &out->lines[n++];
		l->addr = di->addr;
		l->size = di->size;
		memcpy(l->bytes, di->bytes, sizeof(l->bytes));
		memcpy(l->text, di->text, sizeof(l->text));
		if (f->src) {
			l->source = f->src[i].where;
			l->source_text = f->src[i].text;
			l->inlined = f->src[i].inlined;
		}
		if (di->flow != DISASM_FLOW_NONE)
			annotate_target(f, di, l);
		for (; j < f->nr && f->c[j].addr < di->addr + di->size; j++) {
			l->period += f->c[j].v[ANNOTATE_PERIOD];
			l->samples += f->c[j].v[ANNOTATE_SAMPLES];
		}
	}
	while (j < f->nr)
		annotate_stray(&out->lines[n++], &f->c[j++]);
	out->nr_lines = n;
}

/* f's view into o, decoding its code the first time (a function kept
 * since annotate_decode_pending, under decode_lock too). */
static void annotate_fn_build(struct annotate *a, struct annotate_func *f, const char *spec,
			      struct annotate_fn *o)
{
	if (!f->decoded)
		annotate_decode(a, f);
	o->spec = xstrdup(spec);
	o->symbol = xstrdup(f->sym->name);
	o->dso = xstrdup(f->dso ? dso_short_name(f->dso) : "[unknown]");
	o->dso_path = xstrdup(f->dso ? dso_path(f->dso) : "[unknown]");
	o->start = f->sym->start;
	o->size = f->sym->end - f->sym->start;
	o->period = f->total[ANNOTATE_PERIOD];
	o->samples = f->total[ANNOTATE_SAMPLES];
	o->note = f->note ? xstrdup(f->note) : NULL;
	annotate_fill(f, o);
	if (f->pl && a->payload_seen)
		annotate_fill_payload(a->payload, f->pl, o);
}

void annotate_set_decode_hook(struct annotate *a, void (*hook)(void *), void *arg)
{
	a->decode_hook = hook;
	a->decode_hook_arg = arg;
}

/* Decode the functions not decoded yet that a report will show (only: that
 * one, or ANNOTATE_NO_TARGET: all with a target) without the lock, so that
 * samples go on meanwhile (reading and decoding a function takes tens of
 * ms), then publish them.  The caller holds decode_lock: functions are
 * only appended, so their indexes stay. */
static void annotate_decode_pending(struct annotate *a, size_t only)
{
	struct annotate_func *tmp;
	size_t *idx = NULL, n = 0, cap = 0, i;

	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nr_funcs; i++) {
		const struct annotate_func *f = &a->funcs[i];

		if (f->decoded || (only == ANNOTATE_NO_TARGET ? f->target == ANNOTATE_NO_TARGET :
								 i != only))
			continue;
		idx = xgrow(idx, &cap, n + 1, sizeof(*idx));
		idx[n++] = i;
	}
	tmp = xcalloc(n ? n : 1, sizeof(*tmp));
	for (i = 0; i < n; i++) {
		tmp[i].dso = a->funcs[idx[i]].dso;
		tmp[i].sym = a->funcs[idx[i]].sym;
	}
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < n; i++) {
		if (a->decode_hook)
			a->decode_hook(a->decode_hook_arg);
		annotate_decode(a, &tmp[i]);
	}
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < n; i++) {
		struct annotate_func *f = &a->funcs[idx[i]];

		f->decoded = true;
		f->note = tmp[i].note;
		f->insns = tmp[i].insns;
		f->nr_insns = tmp[i].nr_insns;
		f->src = tmp[i].src;
	}
	pthread_mutex_unlock(&a->lock);
	free(tmp);
	free(idx);
}

struct annotate_report *annotate_report(struct annotate *a)
{
	struct annotate_report *r = xcalloc(1, sizeof(*r));
	bool decode;
	size_t i;

	if (!a)
		return r;
	/* The browser decoding a function it opened: the engine does not
	 * wait for it, the function joins the next report. */
	decode = pthread_mutex_trylock(&a->decode_lock) == 0;
	if (decode)
		annotate_decode_pending(a, ANNOTATE_NO_TARGET);
	pthread_mutex_lock(&a->lock);
	r->fns = xcalloc(a->nr_funcs ? a->nr_funcs : 1, sizeof(*r->fns));
	for (i = 0; i < a->nr_funcs; i++) {
		struct annotate_func *f = &a->funcs[i];

		if (f->target != ANNOTATE_NO_TARGET && (decode || f->decoded))
			annotate_fn_build(a, f, a->targets[f->target].spec, &r->fns[r->nr_fns++]);
	}
	r->payload = a->payload;
	r->unmatched = xcalloc(a->nr_targets ? a->nr_targets : 1, sizeof(*r->unmatched));
	for (i = 0; i < a->nr_targets; i++)
		if (!a->targets[i].matched)
			r->unmatched[r->nr_unmatched++] = xstrdup(a->targets[i].spec);
	pthread_mutex_unlock(&a->lock);
	if (decode)
		pthread_mutex_unlock(&a->decode_lock);
	return r;
}

/* A function of a DSO some kept function is in (dso: its path or short
 * name), by address: a call's callee that has no samples. */
static void annotate_add_at(struct annotate *a, const char *dso, uint64_t addr)
{
	const struct symbol *sym;
	size_t i;

	for (i = 0; i < a->nr_funcs; i++) {
		const struct dso *d = a->funcs[i].dso;

		if (!d || (strcmp(dso, dso_path(d)) != 0 && strcmp(dso, dso_short_name(d)) != 0))
			continue;
		if ((sym = dso_symbol_at(d, addr)))
			annotate_add_for(a, d, sym, annotate_match(a, d, sym));
		return;
	}
}

struct annotate_report *annotate_report_of(struct annotate *a, const char *symbol,
					   const char *dso, uint64_t addr)
{
	struct annotate_report *r = xcalloc(1, sizeof(*r));
	struct annotate_target t = { .name = (char *)symbol, .dso = (char *)dso };
	size_t i;

	r->fns = xcalloc(1, sizeof(*r->fns));
	r->unmatched = xcalloc(1, sizeof(*r->unmatched));
	if (!a)
		return r;
	pthread_mutex_lock(&a->decode_lock);
	pthread_mutex_lock(&a->lock);
	for (i = 0; i < a->nr_funcs; i++)
		if (annotate_target_matches(&t, a->funcs[i].dso, a->funcs[i].sym))
			break;
	if (i == a->nr_funcs && addr && dso) {
		annotate_add_at(a, dso, addr);
		if (i < a->nr_funcs &&
		    !annotate_target_matches(&t, a->funcs[i].dso, a->funcs[i].sym))
			i = a->nr_funcs;
	}
	pthread_mutex_unlock(&a->lock);
	if (i < a->nr_funcs)
		annotate_decode_pending(a, i);
	pthread_mutex_lock(&a->lock);
	if (i < a->nr_funcs)
		annotate_fn_build(a, &a->funcs[i], symbol, &r->fns[r->nr_fns++]);
	r->payload = a->payload;
	pthread_mutex_unlock(&a->lock);
	pthread_mutex_unlock(&a->decode_lock);
	return r;
}

void annotate_report_free(struct annotate_report *r)
{
	size_t i, k;

	if (!r)
		return;
	for (i = 0; i < r->nr_fns; i++) {
		struct annotate_fn *o = &r->fns[i];

		free(o->spec);
		free(o->symbol);
		free(o->dso);
		free(o->dso_path);
		free(o->note);
		for (k = 0; k < o->nr_lines; k++)
			free(o->lines[k].payload);
		free(o->payload);
		free(o->lines);
	}
	for (i = 0; i < r->nr_unmatched; i++)
		free(r->unmatched[i]);
	free(r->unmatched);
	free(r->fns);
	free(r);
}
