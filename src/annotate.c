/* Per-instruction counts, kept only for the functions --annotate names:
 * a sorted array of sampled addresses per function, and its view built
 * from the ELF's bytes at each refresh. */
#include "config.h"

#include "annotate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate-payload.h"
#include "arch-disasm.h"
#include "arch.h"
#include "disasm.h"
#include "dso.h"
#include "elfsyms.h"
#include "errmsg.h"
#include "payload.h"
#include "procmem.h"
#include "symtab.h"
#include "util.h"

enum { ANNOTATE_PERIOD, ANNOTATE_SAMPLES, ANNOTATE_NV };

struct annotate_count {
	uint64_t addr;
	uint64_t v[ANNOTATE_NV];
};

struct annotate_target {
	char *spec, *name, *dso;     /* dso NULL: any */
	bool matched;
};

struct annotate_func {
	const struct dso *dso;
	const struct symbol *sym;
	size_t target;
	struct annotate_count *c;
	size_t nr, cap;
	uint64_t total[ANNOTATE_NV];
	struct annotate_payload *pl; /* payload stats per address, or NULL */
	/* the code, read at the first report */
	bool decoded;
	char *note;
	struct disasm_insn *insns;
	size_t nr_insns;
};

/* Symbols seen not to match, by pointer: a strcmp per sample otherwise. */
#define ANNOTATE_MISS 256

struct annotate {
	struct annotate_target *targets;
	size_t nr_targets;
	struct annotate_func *funcs;
	size_t nr_funcs, cap_funcs;
	enum disasm_syntax syntax;
	const struct symbol *miss[ANNOTATE_MISS];
	const struct payload_ops *payload;
	bool payload_seen; /* a decoded payload: from then on others count too */
	bool live;	   /* samples of this system now: JIT code is read from memory */
};

struct annotate *annotate_new(const char *const *specs, size_t n, bool intel)
{
	struct annotate *a = xcalloc(1, sizeof(*a));
	size_t i;

	a->targets = xcalloc(n ? n : 1, sizeof(*a->targets));
	a->nr_targets = n;
	a->syntax = intel ? DISASM_INTEL : DISASM_ATT;
	for (i = 0; i < n; i++) {
		struct annotate_target *t = &a->targets[i];
		char *at;

		t->spec = xstrdup(specs[i]);
		t->name = xstrdup(specs[i]);
		at = strrchr(t->name, '@');
		/* "name@@VERSION" style names keep their '@'s: only a DSO
		 * after the last one counts, and not an empty one. */
		if (at && at != t->name && at[1] && at[-1] != '@') {
			*at = '\0';
			t->dso = xstrdup(at + 1);
		}
	}
	return a;
}

static void annotate_func_release(struct annotate_func *f)
{
	free(f->c);
	free(f->note);
	free(f->insns);
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

static struct annotate_func *annotate_find(struct annotate *a, const struct dso *dso,
					   const struct symbol *sym)
{
	size_t slot = ((uintptr_t)sym >> 4) % ANNOTATE_MISS, i;
	struct annotate_func *f;

	for (i = 0; i < a->nr_funcs; i++)
		if (a->funcs[i].sym == sym && a->funcs[i].dso == dso)
			return &a->funcs[i];
	if (a->miss[slot] == sym)
		return NULL;
	for (i = 0; i < a->nr_targets; i++)
		if (annotate_target_matches(&a->targets[i], dso, sym))
			break;
	if (i == a->nr_targets) {
		a->miss[slot] = sym;
		return NULL;
	}
	a->targets[i].matched = true;
	a->funcs = xgrow(a->funcs, &a->cap_funcs, a->nr_funcs + 1, sizeof(*a->funcs));
	f = &a->funcs[a->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->dso = dso;
	f->sym = sym;
	f->target = i;
	return f;
}

void annotate_sample(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		     uint64_t addr, uint64_t period)
{
	struct annotate_func *f;
	size_t lo, hi;

	if (!a || !sym || !(f = annotate_find(a, dso, sym)))
		return;
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
	f->c[lo].v[ANNOTATE_SAMPLES]++;
	f->total[ANNOTATE_PERIOD] += period;
	f->total[ANNOTATE_SAMPLES]++;
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
	/* As hist_add_payload: a sample that is not the decoder's counts once
	 * some sample was. */
	if (decoded)
		a->payload_seen = true;
	else if (!a->payload_seen)
		return;
	f = annotate_find(a, dso, sym);
	if (!f)
		return;
	if (!f->pl)
		f->pl = annotate_payload_new(a->payload);
	annotate_payload_add(f->pl, addr, decoded);
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
	/* Symbols may be freed with their DSO after a refresh. */
	memset(a->miss, 0, sizeof(a->miss));
	if (mode == HIST_ACCUMULATE)
		return;
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
		for (; j < f->nr && f->c[j].addr < di->addr + di->size; j++) {
			l->period += f->c[j].v[ANNOTATE_PERIOD];
			l->samples += f->c[j].v[ANNOTATE_SAMPLES];
		}
	}
	while (j < f->nr)
		annotate_stray(&out->lines[n++], &f->c[j++]);
	out->nr_lines = n;
}

struct annotate_report *annotate_report(struct annotate *a)
{
	struct annotate_report *r = xcalloc(1, sizeof(*r));
	size_t i;

	if (!a)
		return r;
	r->fns = xcalloc(a->nr_funcs ? a->nr_funcs : 1, sizeof(*r->fns));
	for (i = 0; i < a->nr_funcs; i++) {
		struct annotate_func *f = &a->funcs[i];
		struct annotate_fn *o = &r->fns[r->nr_fns++];

		if (!f->decoded)
			annotate_decode(a, f);
		o->spec = xstrdup(a->targets[f->target].spec);
		o->symbol = xstrdup(f->sym->name);
		o->dso = xstrdup(f->dso ? dso_short_name(f->dso) : "[unknown]");
		o->dso_path = xstrdup(f->dso ? dso_path(f->dso) : "[unknown]");
		o->start = f->sym->start;
		o->size = f->sym->end - f->sym->start;
		o->period = f->total[ANNOTATE_PERIOD];
		o->samples = f->total[ANNOTATE_SAMPLES];
		o->note = f->note ? xstrdup(f->note) : NULL;
		annotate_fill(f, o);
		if (f->pl)
			annotate_fill_payload(a->payload, f->pl, o);
	}
	r->payload = a->payload;
	r->unmatched = xcalloc(a->nr_targets ? a->nr_targets : 1, sizeof(*r->unmatched));
	for (i = 0; i < a->nr_targets; i++)
		if (!a->targets[i].matched)
			r->unmatched[r->nr_unmatched++] = xstrdup(a->targets[i].spec);
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
