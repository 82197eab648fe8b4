/* The view's display frames (a function, or one inlined into it, with its
 * source line when that is a key), interned per snapshot, and the folded
 * stacks made of them. */
#include "config.h"

#include "view-impl.h"

#include <stdlib.h>
#include <string.h>

#include "dwarfinfo.h"
#include "hash.h"
#include "machine.h"
#include "symtab.h"
#include "util.h"

static uint64_t view_dframe_hash(const struct view_dframe *f)
{
	uint64_t h = (uintptr_t)f->dso * 0x9e3779b97f4a7c15ULL;

	h ^= (uintptr_t)f->name + (h << 6) + (h >> 2);
	h ^= (uintptr_t)f->srcline * 0xbf58476d1ce4e5b9ULL;
	h ^= (uint64_t)f->kernel << 1 | (uint64_t)f->inlined;
	h ^= h >> 31;
	return h * 0x94d049bb133111ebULL;
}

static bool view_dframe_eq(const struct view_dframe *a, const struct view_dframe *b)
{
	return a->dso == b->dso && a->name == b->name && a->srcline == b->srcline &&
	       a->kernel == b->kernel && a->inlined == b->inlined;
}

static uint64_t view_dtab_hash_of(const void *ctx, uint32_t idx)
{
	return view_dframe_hash(&((const struct view_dtab *)ctx)->v[idx]);
}

static bool view_dtab_eq(const void *ctx, uint32_t idx, const void *key)
{
	return view_dframe_eq(&((const struct view_dtab *)ctx)->v[idx], key);
}

void view_dtab_init(struct view_dtab *t, bool srcline, bool inl)
{
	memset(t, 0, sizeof(*t));
	t->srcline = srcline;
	t->inl = inl;
	hashtab_init(&t->index, 256);
}

void view_dtab_free(struct view_dtab *t)
{
	free(t->v);
	hashtab_release(&t->index);
	free(t->exp_off);
	free(t->exp_nr);
	free(t->pool);
}

static uint32_t view_dtab_intern(struct view_dtab *t, const struct view_dframe *f)
{
	size_t j = hashtab_probe(&t->index, view_dframe_hash(f), view_dtab_eq, t, f);
	uint32_t id = t->index.slots[j];

	if (id != HASHTAB_EMPTY)
		return id;
	if (t->n >= HASHTAB_MAX_ENTRIES)
		fatal(1, "view: too many display frames");
	if (t->n == t->cap)
		t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	id = (uint32_t)t->n++;
	t->v[id] = *f;
	hashtab_insert_at(&t->index, j, id, view_dtab_hash_of, t);
	/* The node: the same frame without its line (itself when it has none). */
	if (f->srcline) {
		struct view_dframe g = *f;
		uint32_t node;

		g.srcline = NULL;
		node = view_dtab_intern(t, &g);
		t->v[id].node = node;
	} else {
		t->v[id].node = id;
	}
	return id;
}

static void view_dtab_push(struct view_dtab *t, uint32_t id)
{
	if (t->npool == t->pool_cap)
		t->pool = xgrow(t->pool, &t->pool_cap, t->npool + 1, sizeof(*t->pool));
	t->pool[t->npool++] = id;
}

/* Append the display frames of (dso, sym, kernel, addr) to the pool,
 * innermost first: the inlined functions at addr (--inline), then the
 * function itself.  Returns how many. */
uint32_t view_dtab_expand(struct view_dtab *t, struct dso *dso, const struct symbol *sym,
			  bool kernel, uint64_t addr)
{
	const char *inl[VIEW_MAX_INLINES], *file[VIEW_MAX_INLINES];
	const struct dwarfinfo *in = NULL;
	struct view_dframe f;
	size_t ninl = 0, k;

	memset(&f, 0, sizeof(f));
	if (addr && dso) {
		in = dso_dwarf_at(dso, addr);
		t->lookups++;
	}
	if (t->srcline)
		f.srcline = dso_srcline_of(in, dso, sym, addr);
	/* Each function's own file: the innermost's is the address's line's,
	   an outer one's where it calls the next (its call_file). */
	if (t->inl && in)
		for (k = 0; k < in->nr_inlines && ninl < VIEW_MAX_INLINES; k++) {
			file[ninl] = k ? in->inlines[k - 1].call_file : in->file;
			inl[ninl++] = in->inlines[k].name;
		}
	f.dso = dso;
	f.kernel = kernel;
	f.inlined = true;
	for (k = 0; k < ninl; k++) {
		f.name = inl[k];
		f.file = file[k];
		view_dtab_push(t, view_dtab_intern(t, &f));
	}
	f.name = sym && sym->name ? sym->name : view_unknown;
	f.file = !in ? NULL : in->nr_inlines ? in->inlines[in->nr_inlines - 1].call_file : in->file;
	f.inlined = false;
	f.synthetic = dso_symbol_synthetic(dso, sym);
	view_dtab_push(t, view_dtab_intern(t, &f));
	return (uint32_t)ninl + 1;
}

/* The expansion of the store's frame id: pool[*off..*off + return). */
static uint32_t view_dtab_frame(struct view_dtab *t, const struct callchain_store *st,
				uint32_t id, uint32_t *off)
{
	const struct callchain_frame *f;
	uint32_t n;

	if (id >= t->nexp) {
		size_t old = t->nexp, cap = t->nexp;

		t->exp_nr = xgrow(t->exp_nr, &cap, (size_t)id + 1, sizeof(*t->exp_nr));
		t->exp_off = xrealloc(t->exp_off, cap * sizeof(*t->exp_off));
		memset(t->exp_nr + old, 0xff, (cap - old) * sizeof(*t->exp_nr));
		t->nexp = cap;
	}
	if (t->exp_nr[id] != UINT32_MAX) {
		*off = t->exp_off[id];
		return t->exp_nr[id];
	}
	f = callchain_store_frame(st, id);
	*off = (uint32_t)t->npool;
	n = f ? view_dtab_expand(t, f->dso, f->sym, f->kernel, f->addr) :
		view_dtab_expand(t, NULL, NULL, false, 0);
	t->exp_off[id] = *off;
	t->exp_nr[id] = n;
	return n;
}

/* A chain's frames expanded, innermost first, into *buf (grown): the
 * dframe ids, or with nodes their node ids.  Returns the count. */
size_t view_dtab_chain(struct view_dtab *t, const struct callchain_store *st,
		       const struct callchain_chain *c, bool nodes, uint32_t **buf,
		       size_t *cap)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr; i++) {
		uint32_t off, k, nr = view_dtab_frame(t, st, c->ids[i], &off);

		*buf = xgrow(*buf, cap, n + nr, sizeof(**buf));
		for (k = 0; k < nr; k++) {
			uint32_t id = t->pool[off + k];

			(*buf)[n++] = nodes ? t->v[id].node : id;
		}
	}
	return n;
}

/* ---- folded stacks ---- */

const char *view_object_path(const struct dso *d)
{
	return dso_path(d);
}

size_t view_object_build_id(const struct dso *d, const uint8_t **id)
{
	return dso_file_build_id(d, id);
}

int view_object_text(const struct dso *d, uint64_t *start, uint64_t *limit, uint64_t *offset)
{
	uint64_t memsz;
	int err = dso_text_segment(d, start, &memsz, offset);

	if (!err)
		*limit = *start + memsz;
	return err;
}

struct view_stack_tmp {
	const char *comm;
	const uint32_t *ids;    /* innermost first */
	const uint32_t *fns;    /* the same as functions (detail), else ids */
	const uint64_t *addrs;  /* detail: the frames' addresses */
	size_t nr;
	uint32_t pid, tid;      /* detail: the keys', else 0 */
	uint64_t samples, period;
	size_t first, end;      /* a group's members in the fine list (detail) */
};

/* By comm and functions, root first, as folded stacks group them. */
static int view_stack_cmp(const void *pa, const void *pb)
{
	const struct view_stack_tmp *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = view_strcmp(a->comm, b->comm)))
		return c;
	/* Root first, as printed. */
	for (i = 0; i < a->nr && i < b->nr; i++)
		if ((c = CMP(a->fns[a->nr - 1 - i], b->fns[b->nr - 1 - i])))
			return c;
	return CMP(a->nr, b->nr);
}

/* view_stack_cmp, then the pid, the tid and the frames' addresses (root
 * first): not their ids, which come in the order of storing, so that the
 * members of a group keep one order from run to run. */
static int view_stack_fine_cmp(const void *pa, const void *pb)
{
	const struct view_stack_tmp *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = view_stack_cmp(pa, pb)) || (c = CMP(a->pid, b->pid)) || (c = CMP(a->tid, b->tid)))
		return c;
	for (i = 0; i < a->nr; i++)
		if ((c = CMP(a->addrs[a->nr - 1 - i], b->addrs[b->nr - 1 - i])))
			return c;
	return 0;
}

/* The printed part of the order below: comm, then frames root first by
 * name, DSO and kind, then the count of frames. */
static int view_printed_key_cmp(const char *ca, const struct snapshot_frame *fa, size_t na,
				const char *cb, const struct snapshot_frame *fb, size_t nb)
{
	size_t i;
	int c;

	if ((c = view_strcmp(ca, cb)))
		return c;
	for (i = 0; i < na && i < nb; i++) {
		const struct snapshot_frame *x = &fa[i], *y = &fb[i];

		if ((c = view_strcmp(x->symbol, y->symbol)) || (c = view_strcmp(x->dso, y->dso)) ||
		    (c = CMP(x->kernel, y->kernel)) || (c = CMP(x->inlined, y->inlined)))
			return c;
	}
	return CMP(na, nb);
}

/* Folded stacks in the order of what they print (comm, then frames root
 * first): frame ids come in the order chains were first stored, which held
 * samples (symbols loading) make differ from run to run.  Stacks that print
 * the same (two functions of one name) fall back on their counts. */
static int view_printed_stack_cmp(const void *pa, const void *pb)
{
	const struct snapshot_stack *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = view_printed_key_cmp(a->comm, a->frames, a->nr_frames, b->comm, b->frames,
				      b->nr_frames)))
		return c;
	if ((c = CMP(b->samples, a->samples)) || (c = CMP(b->period, a->period)))
		return c;
	/* With addresses (stack_detail), those of the group's first member. */
	for (i = 0; i < a->nr_frames; i++)
		if ((c = CMP(a->frames[i].addr, b->frames[i].addr)))
			return c;
	return 0;
}

/* s's frames (root first) from t's ids, into f. */
static void view_stack_frames(const struct callchain_store *st, const struct view_dtab *dt,
			      const struct view_stack_tmp *t, struct snapshot_frame *f)
{
	size_t j;

	for (j = 0; j < t->nr; j++, f++) {
		uint32_t id = t->ids[t->nr - 1 - j];

		/* Padding too: --pprof compares whole frames. */
		memset(f, 0, sizeof(*f));
		if (dt) {
			const struct view_dframe *d = &dt->v[id];

			f->symbol = d->name;
			f->dso = d->dso ? dso_short_name(d->dso) : view_unknown;
			f->kernel = d->kernel;
			f->inlined = d->inlined;
			f->synthetic = d->synthetic;
			f->object = d->dso;
			f->addr = 0;
			f->file = d->file;
		} else {
			const struct callchain_frame *cf = callchain_store_frame(st, id);

			f->symbol = view_frame_symbol(cf);
			f->dso = view_frame_dso(cf);
			f->kernel = cf ? cf->kernel : false;
			f->inlined = false;
			f->synthetic = cf && dso_symbol_synthetic(cf->dso, cf->sym);
			f->object = cf ? cf->dso : NULL;
			f->addr = cf ? cf->addr : 0;
			f->file = NULL;
		}
	}
}

/* Every unique (comm, frames) stack, merged over pid/tid/cpu; with dt, of
 * display frames (inlined functions as frames of their own).  With
 * detail, each such stack (a group) is split again by pid and tid (when
 * keys) and frame addresses, the members in a row.  Everything is built
 * and sorted again: view_build_stacks keeps the groups between refreshes
 * where it can, and gives the same stacks. */
void view_build_stacks_sorted(const struct callchain_store *st, struct view_dtab *dt,
			      struct snapshot *snap, bool detail)
{
	size_t n = callchain_store_count(st), i, m = 0, nf = 0, nframes = 0, cap = 0, ncap = 0;
	size_t ngf;
	struct view_stack_tmp *tmp, *fine = NULL, *grp;
	struct snapshot_stack *coarse;
	struct snapshot_frame *f, *gframes;
	uint32_t *pool = NULL, *buf = NULL, *fns = NULL;
	uint64_t *addrs = NULL;
	size_t npool = 0, *offs = NULL, nfns = 0;
	bool pids = sort_spec_has(&snap->sort, SORT_PID), tids = sort_spec_has(&snap->sort, SORT_TID);

	if (!n)
		return;
	/* Display frames have no address: their stacks are the groups. */
	detail = detail && !dt;
	tmp = xmalloc(n * sizeof(*tmp));
	if (dt) {
		/* Expanded chains in one pool; pointers taken once it is full. */
		offs = xmalloc(n * sizeof(*offs));
		for (i = 0; i < n; i++) {
			struct callchain_chain c;
			size_t k = 0;

			callchain_store_get(st, i, &c);
			k = view_dtab_chain(dt, st, &c, true, &buf, &ncap);
			pool = xgrow(pool, &cap, npool + k, sizeof(*pool));
			memcpy(pool + npool, buf, k * sizeof(*buf));
			offs[i] = npool;
			tmp[i].nr = k;
			npool += k;
		}
		free(buf);
	} else if (detail) {
		/* Each chain's functions, for the groups, and addresses. */
		offs = xmalloc(n * sizeof(*offs));
		for (i = 0; i < n; i++) {
			struct callchain_chain c;
			size_t k;

			callchain_store_get(st, i, &c);
			if (nfns + c.nr > cap) {
				fns = xgrow(fns, &cap, nfns + c.nr, sizeof(*fns));
				addrs = xrealloc(addrs, cap * sizeof(*addrs));
			}
			for (k = 0; k < c.nr; k++) {
				fns[nfns + k] = callchain_store_function(st, c.ids[k]);
				addrs[nfns + k] = callchain_store_frame(st, c.ids[k])->addr;
			}
			offs[i] = nfns;
			nfns += c.nr;
		}
	}
	for (i = 0; i < n; i++) {
		struct callchain_chain c;

		callchain_store_get(st, i, &c);
		tmp[i].comm = c.key.comm;
		if (dt) {
			tmp[i].ids = pool + offs[i];
		} else {
			tmp[i].ids = c.ids;
			tmp[i].nr = c.nr;
		}
		tmp[i].fns = detail ? fns + offs[i] : tmp[i].ids;
		tmp[i].addrs = detail ? addrs + offs[i] : NULL;
		tmp[i].pid = detail && pids ? c.key.pid : 0;
		tmp[i].tid = detail && tids ? c.key.tid : 0;
		tmp[i].samples = c.samples;
		tmp[i].period = c.period;
	}
	qsort(tmp, n, sizeof(*tmp), detail ? view_stack_fine_cmp : view_stack_cmp);
	if (detail) {
		/* The members, merged where they are the same. */
		fine = xmalloc(n * sizeof(*fine));
		for (i = 0; i < n; i++) {
			if (nf && view_stack_fine_cmp(&fine[nf - 1], &tmp[i]) == 0) {
				fine[nf - 1].samples += tmp[i].samples;
				fine[nf - 1].period += tmp[i].period;
				continue;
			}
			fine[nf++] = tmp[i];
			nframes += tmp[i].nr;
		}
		memcpy(tmp, fine, nf * sizeof(*tmp));
		n = nf;
	}
	for (i = 0; i < n; i++) {
		if (m && view_stack_cmp(&tmp[m - 1], &tmp[i]) == 0) {
			tmp[m - 1].samples += tmp[i].samples;
			tmp[m - 1].period += tmp[i].period;
			tmp[m - 1].end = i + 1;
			continue;
		}
		tmp[m] = tmp[i];
		tmp[m].first = i;
		tmp[m++].end = i + 1;
		if (!detail)
			nframes += tmp[i].nr;
	}
	/* The groups in the order they print, each pointing at its tmp. */
	coarse = xcalloc(m, sizeof(*coarse));
	grp = xmalloc(m * sizeof(*grp));
	memcpy(grp, tmp, m * sizeof(*grp));
	for (i = 0, ngf = 0; i < m; i++)
		ngf += grp[i].nr;
	gframes = f = ngf ? xmalloc(ngf * sizeof(*f)) : NULL;
	for (i = 0; i < m; i++) {
		struct snapshot_stack *s = &coarse[i];

		s->comm = grp[i].comm;
		s->frames = f;
		s->nr_frames = grp[i].nr;
		s->samples = grp[i].samples;
		s->period = grp[i].period;
		s->group = i;        /* its grp, until sorted */
		view_stack_frames(st, dt, &grp[i], f);
		f += grp[i].nr;
	}
	qsort(coarse, m, sizeof(*coarse), view_printed_stack_cmp);
	if (!detail) {
		for (i = 0; i < m; i++)
			coarse[i].group = i;
		snap->stacks = coarse;
		snap->nr_stacks = m;
		snap->stack_frames = gframes;
	} else {
		/* The members of each group, in the groups' order, with the
		   frames of their own addresses.  A member's frames are its
		   group's (the same functions: symbol, DSO and kind come from
		   the function) but for the address: copied, not looked up
		   and demangled again for every member at every refresh. */
		struct snapshot_stack *out = xcalloc(nf, sizeof(*out));
		size_t k = 0, g, j, x;

		snap->stack_frames = f = nframes ? xmalloc(nframes * sizeof(*f)) : NULL;
		for (g = 0; g < m; g++) {
			const struct view_stack_tmp *t = &grp[coarse[g].group];

			for (j = t->first; j < t->end; j++, k++) {
				out[k].comm = fine[j].comm;
				out[k].has_pid = pids;
				out[k].pid = fine[j].pid;
				out[k].has_tid = tids;
				out[k].tid = fine[j].tid;
				out[k].group = g;
				out[k].samples = fine[j].samples;
				out[k].period = fine[j].period;
				out[k].nr_frames = fine[j].nr;
				out[k].frames = f;
				memcpy(f, coarse[g].frames, fine[j].nr * sizeof(*f));
				for (x = 0; x < fine[j].nr; x++)
					f[x].addr = fine[j].addrs[fine[j].nr - 1 - x];
				f += fine[j].nr;
			}
		}
		free(coarse);
		free(gframes);
		snap->stacks = out;
		snap->nr_stacks = nf;
	}
	free(tmp);
	free(grp);
	free(fine);
	free(pool);
	free(fns);
	free(addrs);
	free(offs);
}

/* ---- stack groups kept between refreshes ---- */

/* A group: a comm and a run of functions (the store's function ids, which
 * never change meaning), with what it prints, named and sorted once, not
 * at every refresh (issue 18: --pprof at -d 1 rebuilt and sorted every
 * stack each second).  Chains are grouped again at each refresh by
 * hashing; only groups seen for the first time are sorted, then merged
 * into the kept order. */
struct view_sgroup {
	const char *comm;
	uint64_t hash;
	uint32_t fn_off, nr;     /* functions, innermost first, in fns */
	uint32_t fr_off;         /* nr printed frames, root first, addr 0 */
	uint32_t seen;           /* the last build it had chains in */
	/* this build's */
	uint32_t nmem, mem_off, fill;
	uint64_t samples, period;
};

struct view_scache {
	struct view_sgroup *g;
	size_t ng, gcap;
	uint32_t *fns;
	size_t nfns, fns_cap;
	struct snapshot_frame *frames;
	size_t nframes, frames_cap;
	struct hashtab index;    /* over g */
	uint32_t *order;         /* every group, by view_sgroup_cmp */
	bool *same;              /* order[i] prints as order[i - 1] does */
	uint32_t build;          /* builds so far */
	size_t live;             /* groups of the last build */
};

/* A chain of this build, in its group. */
struct view_smember {
	const uint32_t *ids;     /* the chain's frames, innermost first */
	uint32_t nr, group;
	uint32_t pid, tid;       /* detail: the keys', else 0 */
	uint64_t samples, period;
};

struct view_sgroup_key {
	const char *comm;
	const uint32_t *fns;
	size_t nr;
	uint64_t hash;
};

static void view_scache_free(void *p)
{
	struct view_scache *c = p;

	free(c->g);
	free(c->fns);
	free(c->frames);
	free(c->order);
	free(c->same);
	hashtab_release(&c->index);
	free(c);
}

static uint64_t view_sgroup_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct view_scache *)ctx)->g[idx].hash;
}

static bool view_sgroup_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct view_scache *c = ctx;
	const struct view_sgroup *g = &c->g[idx];
	const struct view_sgroup_key *k = key;

	return g->hash == k->hash && g->comm == k->comm && g->nr == k->nr &&
	       memcmp(c->fns + g->fn_off, k->fns, k->nr * sizeof(*k->fns)) == 0;
}

/* Groups by what they print (view_printed_key_cmp). */
static int view_sgroup_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_scache *c = ctx;
	const struct view_sgroup *a = &c->g[*(const uint32_t *)pa], *b = &c->g[*(const uint32_t *)pb];

	return view_printed_key_cmp(a->comm, c->frames + a->fr_off, a->nr, b->comm,
				    c->frames + b->fr_off, b->nr);
}

/* Members of one group (same comm and functions) as view_stack_fine_cmp
 * orders them: pid, tid, then the frames' addresses root first. */
static int view_smember_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct callchain_store *st = ctx;
	const struct view_smember *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = CMP(a->pid, b->pid)) || (c = CMP(a->tid, b->tid)))
		return c;
	for (i = 0; i < a->nr; i++) {
		uint32_t x = a->ids[a->nr - 1 - i], y = b->ids[b->nr - 1 - i];

		if (x != y && (c = CMP(callchain_store_frame(st, x)->addr,
				       callchain_store_frame(st, y)->addr)))
			return c;
	}
	return 0;
}

/* The group of (comm, fns[0..nr)), made when new from chain ids (its
 * printed frames). */
static uint32_t view_scache_group(struct view_scache *c, const struct callchain_store *st,
				  const char *comm, const uint32_t *fns, const uint32_t *ids,
				  size_t nr)
{
	struct view_sgroup_key k = { comm, fns, nr, 0 };
	struct view_stack_tmp t = { 0 };
	struct view_sgroup *g;
	size_t i, j;
	uint64_t h = hash_combine(0x9e3779b97f4a7c15ULL, (uintptr_t)comm);

	for (i = 0; i < nr; i++)
		h = hash_combine(h, fns[i]);
	k.hash = h = hash_finish(hash_combine(h, nr));
	j = hashtab_probe(&c->index, h, view_sgroup_eq, c, &k);
	if (c->index.slots[j] != HASHTAB_EMPTY)
		return c->index.slots[j];
	if (c->ng >= HASHTAB_MAX_ENTRIES)
		fatal(1, "view: too many stacks");
	c->g = xgrow(c->g, &c->gcap, c->ng + 1, sizeof(*c->g));
	c->fns = xgrow(c->fns, &c->fns_cap, c->nfns + nr, sizeof(*c->fns));
	c->frames = xgrow(c->frames, &c->frames_cap, c->nframes + nr, sizeof(*c->frames));
	g = &c->g[c->ng];
	memset(g, 0, sizeof(*g));
	g->comm = comm;
	g->hash = h;
	g->nr = (uint32_t)nr;
	g->fn_off = (uint32_t)c->nfns;
	memcpy(c->fns + c->nfns, fns, nr * sizeof(*fns));
	c->nfns += nr;
	g->fr_off = (uint32_t)c->nframes;
	/* A group's frames are one function each: the names are any of its
	   chains'; the addresses are each member's. */
	t.ids = ids;
	t.nr = nr;
	view_stack_frames(st, NULL, &t, c->frames + c->nframes);
	for (i = 0; i < nr; i++)
		c->frames[c->nframes + i].addr = 0;
	c->nframes += nr;
	hashtab_insert_at(&c->index, j, (uint32_t)c->ng, view_sgroup_hash_of, c);
	return (uint32_t)c->ng++;
}

/* Forget the groups the last build did not have once they are most of
 * the cache: the order stays, the pools are packed. */
static void view_scache_prune(struct view_scache *c)
{
	uint32_t *map, *fns;
	struct snapshot_frame *frames;
	size_t i, n = 0, nfns = 0, nframes = 0, no = 0;

	if (c->ng <= 2 * c->live + 1024)
		return;
	map = xmalloc(c->ng * sizeof(*map));
	fns = xmalloc((c->nfns + 1) * sizeof(*fns));
	frames = xmalloc((c->nframes + 1) * sizeof(*frames));
	for (i = 0; i < c->ng; i++) {
		struct view_sgroup g = c->g[i];

		map[i] = UINT32_MAX;
		if (g.seen != c->build)
			continue;
		memcpy(fns + nfns, c->fns + g.fn_off, g.nr * sizeof(*fns));
		memcpy(frames + nframes, c->frames + g.fr_off, g.nr * sizeof(*frames));
		g.fn_off = (uint32_t)nfns;
		g.fr_off = (uint32_t)nframes;
		nfns += g.nr;
		nframes += g.nr;
		map[i] = (uint32_t)n;
		c->g[n++] = g;
	}
	/* Printing the same is transitive: a group that goes joins its
	   neighbours' runs. */
	for (i = 0; i < c->ng; i++) {
		bool same = i && c->same[i];

		if (map[c->order[i]] == UINT32_MAX) {
			if (i + 1 < c->ng)
				c->same[i + 1] = c->same[i + 1] && same;
			continue;
		}
		c->same[no] = no && same;
		c->order[no++] = map[c->order[i]];
	}
	free(c->fns);
	free(c->frames);
	c->fns = fns;
	c->fns_cap = c->nfns + 1;
	c->nfns = nfns;
	c->frames = frames;
	c->frames_cap = c->nframes + 1;
	c->nframes = nframes;
	c->ng = n;
	hashtab_rebuild(&c->index, n, view_sgroup_hash_of, c);
	free(map);
}

/* The groups first seen in this build, [old, ng), sorted and merged into
 * the kept order; whether each prints as the one before it is carried
 * over between kept neighbours, compared next to a new one. */
static void view_scache_order(struct view_scache *c, size_t old)
{
	size_t nnew = c->ng - old, i, a = 0, b = 0, k = 0;
	uint32_t *add, *merged;
	bool *same, last_kept = false;

	if (!nnew)
		return;
	add = xmalloc(nnew * sizeof(*add));
	for (i = 0; i < nnew; i++)
		add[i] = (uint32_t)(old + i);
	qsort_r(add, nnew, sizeof(*add), view_sgroup_cmp, c);
	merged = xmalloc(c->ng * sizeof(*merged));
	same = xmalloc(c->ng * sizeof(*same));
	while (a < old || b < nnew) {
		bool kept = b == nnew || (a < old && view_sgroup_cmp(&c->order[a], &add[b], c) <= 0);

		merged[k] = kept ? c->order[a] : add[b];
		if (!k)
			same[k] = false;
		else if (kept && last_kept)
			same[k] = c->same[a];
		else
			same[k] = view_sgroup_cmp(&merged[k - 1], &merged[k], c) == 0;
		k++;
		if (kept)
			a++;
		else
			b++;
		last_kept = kept;
	}
	free(c->order);
	free(c->same);
	free(add);
	c->order = merged;
	c->same = same;
}

/* Stacks that print the same (one run of equal keys in the kept order)
 * by counts, then their first member's addresses, as
 * view_printed_stack_cmp: the live groups' run [from, to) of grp. */
struct view_stie {
	const struct view_scache *c;
	const struct callchain_store *st;
	const struct view_smember *mem;
	const uint32_t *mi;      /* member indices, each group's together */
};

static int view_stie_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_stie *t = ctx;
	const struct view_sgroup *a = &t->c->g[*(const uint32_t *)pa];
	const struct view_sgroup *b = &t->c->g[*(const uint32_t *)pb];
	const struct view_smember *x = &t->mem[t->mi[a->mem_off]], *y = &t->mem[t->mi[b->mem_off]];
	size_t i;
	int c;

	if ((c = CMP(b->samples, a->samples)) || (c = CMP(b->period, a->period)))
		return c;
	for (i = 0; i < a->nr; i++)
		if ((c = CMP(callchain_store_frame(t->st, x->ids[x->nr - 1 - i])->addr,
			     callchain_store_frame(t->st, y->ids[y->nr - 1 - i])->addr)))
			return c;
	return 0;
}

/* view_build_stacks_sorted's stacks without display frames, from groups
 * kept with the store. */
static void view_build_stacks_kept(const struct callchain_store *st, struct snapshot *snap,
				   bool detail)
{
	struct view_scache *c = callchain_store_view_cache(st);
	size_t n = callchain_store_count(st), i, j, old, nlive = 0, nout = 0, nframes = 0;
	size_t fcap = 0;
	struct view_smember *mem;
	uint32_t *fns = NULL, *live, *mi, off;
	struct snapshot_stack *out;
	struct snapshot_frame *f;
	struct view_stie tie;
	bool *same, run;
	bool pids = sort_spec_has(&snap->sort, SORT_PID), tids = sort_spec_has(&snap->sort, SORT_TID);

	if (!n)
		return;
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		hashtab_init(&c->index, 256);
		callchain_store_set_view_cache(st, c, view_scache_free);
	}
	view_scache_prune(c);
	c->build++;
	old = c->ng;
	mem = xmalloc(n * sizeof(*mem));
	for (i = 0; i < n; i++) {
		struct callchain_chain ch;
		struct view_sgroup *g;
		uint32_t gi;

		callchain_store_get(st, i, &ch);
		fns = xgrow(fns, &fcap, ch.nr + 1, sizeof(*fns));
		for (j = 0; j < ch.nr; j++)
			fns[j] = callchain_store_function(st, ch.ids[j]);
		gi = view_scache_group(c, st, ch.key.comm, fns, ch.ids, ch.nr);
		g = &c->g[gi];
		if (g->seen != c->build) {
			g->seen = c->build;
			g->nmem = 0;
			g->samples = g->period = 0;
			nlive++;
		}
		g->nmem++;
		g->samples += ch.samples;
		g->period += ch.period;
		mem[i].ids = ch.ids;
		mem[i].nr = (uint32_t)ch.nr;
		mem[i].group = gi;
		mem[i].pid = detail && pids ? ch.key.pid : 0;
		mem[i].tid = detail && tids ? ch.key.tid : 0;
		mem[i].samples = ch.samples;
		mem[i].period = ch.period;
	}
	free(fns);
	c->live = nlive;
	view_scache_order(c, old);

	/* The live groups in order, each one's members together; whether
	   each prints as the live one before it. */
	live = xmalloc(nlive * sizeof(*live));
	same = xmalloc(nlive * sizeof(*same));
	for (i = 0, j = 0, off = 0, run = false; i < c->ng; i++) {
		struct view_sgroup *g = &c->g[c->order[i]];

		run = i && c->same[i] && run;
		if (g->seen != c->build)
			continue;
		same[j] = j && run;
		run = true;
		live[j++] = c->order[i];
		g->mem_off = off;
		g->fill = 0;
		off += g->nmem;
	}
	mi = xmalloc(n * sizeof(*mi));
	for (i = 0; i < n; i++) {
		struct view_sgroup *g = &c->g[mem[i].group];

		mi[g->mem_off + g->fill++] = (uint32_t)i;
	}
	/* Each group's members in order, the same ones merged (in mem). */
	for (i = 0; i < nlive; i++) {
		struct view_sgroup *g = &c->g[live[i]];
		uint32_t *m = mi + g->mem_off, k, kept = 0;
		struct view_smember *tmp;

		if (!detail) {
			nout++;
			nframes += g->nr;
			continue;
		}
		if (g->nmem > 1) {
			/* Their indices: a group has a few members (insertion
			   sort), a long one is sorted in place of a copy. */
			if (g->nmem > 16) {
				tmp = xmalloc(g->nmem * sizeof(*tmp));
				for (k = 0; k < g->nmem; k++)
					tmp[k] = mem[m[k]];
				qsort_r(tmp, g->nmem, sizeof(*tmp), view_smember_cmp, (void *)st);
				for (k = 0; k < g->nmem; k++)
					mem[m[k]] = tmp[k];
				free(tmp);
			} else {
				for (k = 1; k < g->nmem; k++) {
					uint32_t x = m[k], y = k;

					for (; y && view_smember_cmp(&mem[m[y - 1]], &mem[x], (void *)st) > 0; y--)
						m[y] = m[y - 1];
					m[y] = x;
				}
			}
			/* The same ones merged into the first. */
			for (k = 0; k < g->nmem; k++) {
				if (kept && view_smember_cmp(&mem[m[kept - 1]], &mem[m[k]], (void *)st) == 0) {
					mem[m[kept - 1]].samples += mem[m[k]].samples;
					mem[m[kept - 1]].period += mem[m[k]].period;
					continue;
				}
				m[kept++] = m[k];
			}
			g->nmem = kept;
		}
		nout += g->nmem;
		nframes += (size_t)g->nmem * g->nr;
	}
	/* Groups that print the same, by their counts. */
	tie.c = c;
	tie.st = st;
	tie.mem = mem;
	tie.mi = mi;
	for (i = 0; i < nlive; i = j) {
		for (j = i + 1; j < nlive && same[j]; j++)
			;
		if (j - i > 1)
			qsort_r(live + i, j - i, sizeof(*live), view_stie_cmp, &tie);
	}

	out = xcalloc(nout, sizeof(*out));
	snap->stack_frames = f = nframes ? xmalloc(nframes * sizeof(*f)) : NULL;
	for (i = 0, j = 0; i < nlive; i++) {
		const struct view_sgroup *g = &c->g[live[i]];
		const struct snapshot_frame *gf = c->frames + g->fr_off;
		uint32_t k, nm = detail ? g->nmem : 1;

		for (k = 0; k < nm; k++, j++) {
			const struct view_smember *m = &mem[mi[g->mem_off + k]];
			size_t x;

			out[j].comm = g->comm;
			out[j].group = i;
			out[j].nr_frames = g->nr;
			out[j].frames = f;
			if (detail) {
				out[j].has_pid = pids;
				out[j].pid = m->pid;
				out[j].has_tid = tids;
				out[j].tid = m->tid;
				out[j].samples = m->samples;
				out[j].period = m->period;
			} else {
				out[j].samples = g->samples;
				out[j].period = g->period;
			}
			memcpy(f, gf, g->nr * sizeof(*f));
			for (x = 0; x < g->nr; x++)
				f[x].addr = callchain_store_frame(st, m->ids[g->nr - 1 - x])->addr;
			f += g->nr;
		}
	}
	snap->stacks = out;
	snap->nr_stacks = nout;
	free(live);
	free(same);
	free(mi);
	free(mem);
}

size_t view_stacks_kept_groups(const struct callchain_store *st)
{
	const struct view_scache *c = callchain_store_view_cache(st);

	return c ? c->ng : 0;
}

void view_build_stacks(const struct callchain_store *st, struct view_dtab *dt,
		       struct snapshot *snap, bool detail)
{
	/* Display frames are interned per snapshot: nothing to keep. */
	if (dt)
		view_build_stacks_sorted(st, dt, snap, detail);
	else
		view_build_stacks_kept(st, snap, detail);
}
