/* The view's display frames (a function, or one inlined into it, with its
 * source line when that is a key), interned per snapshot, and the folded
 * stacks made of them. */
#include "config.h"

#include "view-impl.h"

#include <stdlib.h>
#include <string.h>

#include "dwarfinfo.h"
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
	free(t->pool_line);
}

/* The file and start line of a frame that several functions (or several
 * addresses' answers) share: the least file by strcmp, then line, the
 * same whatever order they come in. */
static void view_dframe_decl(struct view_dframe *d, const struct view_dframe *f)
{
	int c;

	if (!f->file)
		return;
	c = d->file ? strcmp(f->file, d->file) : -1;
	if (c < 0 || (c == 0 && f->start_line < d->start_line)) {
		d->file = f->file;
		d->start_line = f->start_line;
	}
}

static uint32_t view_dtab_intern(struct view_dtab *t, const struct view_dframe *f)
{
	size_t j = hashtab_probe(&t->index, view_dframe_hash(f), view_dtab_eq, t, f);
	uint32_t id = t->index.slots[j];

	if (id != HASHTAB_EMPTY) {
		view_dframe_decl(&t->v[id], f);
		view_dframe_decl(&t->v[t->v[id].node], f);
		return id;
	}
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

static void view_dtab_push(struct view_dtab *t, uint32_t id, unsigned line)
{
	if (t->npool == t->pool_cap) {
		t->pool = xgrow(t->pool, &t->pool_cap, t->npool + 1, sizeof(*t->pool));
		t->pool_line = xrealloc(t->pool_line, t->pool_cap * sizeof(*t->pool_line));
	}
	t->pool_line[t->npool] = line;
	t->pool[t->npool++] = id;
}

/* Append the display frames of (dso, sym, kernel, addr) to the pool,
 * innermost first: the inlined functions at addr (--inline), then the
 * function itself.  Returns how many. */
uint32_t view_dtab_expand(struct view_dtab *t, struct dso *dso, const struct symbol *sym,
			  bool kernel, uint64_t addr)
{
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
	if (t->inl && in)
		ninl = in->nr_inlines < VIEW_MAX_INLINES ? in->nr_inlines : VIEW_MAX_INLINES;
	f.dso = dso;
	f.kernel = kernel;
	f.inlined = true;
	/* Each function's line at addr: the innermost's is the address's
	   line's, an outer one's where it calls the next (its call_line). */
	for (k = 0; k < ninl; k++) {
		f.name = in->inlines[k].name;
		f.file = in->inlines[k].decl_file;
		f.start_line = in->inlines[k].decl_line;
		view_dtab_push(t, view_dtab_intern(t, &f),
			       k ? in->inlines[k - 1].call_line : in->line);
	}
	f.name = sym && sym->name ? sym->name : view_unknown;
	f.file = NULL;
	f.start_line = 0;
	/* A frame without a symbol stands for all the object's unnamed code:
	   no one file or line is its. */
	if (!sym)
		in = NULL;
	if (in) {
		/* Code without a DW_TAG_subprogram (assembly) has its lines. */
		f.file = in->function_file ? in->function_file :
			 in->nr_inlines    ? in->inlines[in->nr_inlines - 1].call_file :
					     in->file;
		f.start_line = in->function_file ? in->function_line : 0;
	}
	f.inlined = false;
	f.synthetic = dso_symbol_synthetic(dso, sym);
	view_dtab_push(t, view_dtab_intern(t, &f),
		       !in ? 0 : in->nr_inlines ? in->inlines[in->nr_inlines - 1].call_line : in->line);
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

/* What view_dtab_chain gives for c, innermost first, but each display
 * frame's address (its chain frame's: an inlined function shares it with
 * the one it is inlined into) and source line there. */
static void view_dtab_chain_detail(struct view_dtab *t, const struct callchain_store *st,
				   const struct callchain_chain *c, uint64_t *addrs,
				   uint32_t *lines)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr; i++) {
		const struct callchain_frame *f = callchain_store_frame(st, c->ids[i]);
		uint32_t off, k, nr = view_dtab_frame(t, st, c->ids[i], &off);

		for (k = 0; k < nr; k++, n++) {
			addrs[n] = f ? f->addr : 0;
			lines[n] = t->pool_line[off + k];
		}
	}
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
	const uint32_t *lines;  /* detail with display frames: their lines */
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

/* A frame's printed part: name, DSO and kind. */
int view_printed_frame_cmp(const struct snapshot_frame *x, const struct snapshot_frame *y)
{
	int c;

	if ((c = view_strcmp(x->symbol, y->symbol)) || (c = view_strcmp(x->dso, y->dso)) ||
	    (c = CMP(x->kernel, y->kernel)))
		return c;
	return CMP(x->inlined, y->inlined);
}

/* The printed part of the order below: comm, then frames root first by
 * name, DSO and kind, then the count of frames. */
int view_printed_key_cmp(const char *ca, const struct snapshot_frame *fa, size_t na,
			 const char *cb, const struct snapshot_frame *fb, size_t nb)
{
	size_t i;
	int c;

	if ((c = view_strcmp(ca, cb)))
		return c;
	for (i = 0; i < na && i < nb; i++)
		if ((c = view_printed_frame_cmp(&fa[i], &fb[i])))
			return c;
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
			f->start_line = d->start_line;
			f->line = 0;
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
			f->start_line = 0;
			f->line = 0;
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
	uint32_t *pool = NULL, *buf = NULL, *fns = NULL, *lines = NULL;
	uint64_t *addrs = NULL;
	size_t npool = 0, *offs = NULL, nfns = 0;
	bool pids = sort_spec_has(&snap->sort, SORT_PID), tids = sort_spec_has(&snap->sort, SORT_TID);

	if (!n)
		return;
	tmp = xmalloc(n * sizeof(*tmp));
	if (dt) {
		/* Expanded chains in one pool; pointers taken once it is full. */
		offs = xmalloc(n * sizeof(*offs));
		for (i = 0; i < n; i++) {
			struct callchain_chain c;
			size_t k = 0;

			callchain_store_get(st, i, &c);
			k = view_dtab_chain(dt, st, &c, true, &buf, &ncap);
			if (npool + k > cap) {
				pool = xgrow(pool, &cap, npool + k, sizeof(*pool));
				if (detail) {
					addrs = xrealloc(addrs, cap * sizeof(*addrs));
					lines = xrealloc(lines, cap * sizeof(*lines));
				}
			}
			memcpy(pool + npool, buf, k * sizeof(*buf));
			if (detail)
				view_dtab_chain_detail(dt, st, &c, addrs + npool, lines + npool);
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
		tmp[i].fns = detail && !dt ? fns + offs[i] : tmp[i].ids;
		tmp[i].addrs = detail ? addrs + offs[i] : NULL;
		tmp[i].lines = detail && dt ? lines + offs[i] : NULL;
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
				for (x = 0; fine[j].lines && x < fine[j].nr; x++)
					f[x].line = fine[j].lines[fine[j].nr - 1 - x];
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
	free(lines);
	free(offs);
}

void view_chain_frames(const struct callchain_store *st, const uint32_t *ids, size_t nr,
		       struct snapshot_frame *f)
{
	struct view_stack_tmp t = { 0 };

	t.ids = ids;
	t.nr = nr;
	view_stack_frames(st, NULL, &t, f);
}
