/* Views: turn the hist into an immutable, filtered and sorted snapshot of
 * rows with percentages, which every renderer draws from. */
#include "config.h"

#include "view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "callchain.h"
#include "demangle.h"
#include "dso.h"
#include "dwarfinfo.h"
#include "errmsg.h"
#include "hashtab.h"
#include "machine.h"
#include "symtab.h"
#include "util.h"

static const char view_unknown[] = "[unknown]";

int view_strcmp(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? -1 : 1;
	return strcmp(a, b);
}

/* Hottest first; ties are broken on every visible field so that equal rows
 * do not swap places between refreshes (qsort is not stable). */
static int view_row_cmp(const void *pa, const void *pb)
{
	const struct snapshot_row *a = pa, *b = pb;
	int c;

	/* children_period is 0 without children: then this is a no-op. */
	if ((c = CMP(b->children_period, a->children_period)))
		return c;
	if ((c = CMP(b->period, a->period)))
		return c;
	if ((c = CMP(b->samples, a->samples)))
		return c;
	if ((c = view_strcmp(a->symbol, b->symbol)))
		return c;
	if ((c = CMP(a->inlined, b->inlined)))
		return c;
	if ((c = view_strcmp(a->srcline, b->srcline)))
		return c;
	if ((c = view_strcmp(a->dso, b->dso)))
		return c;
	if ((c = view_strcmp(a->comm, b->comm)))
		return c;
	if ((c = CMP(a->has_pid, b->has_pid)) || (c = CMP(a->pid, b->pid)))
		return c;
	if ((c = CMP(a->tid, b->tid)))
		return c;
	if ((c = CMP(a->cpu, b->cpu)))
		return c;
	if ((c = view_strcmp(a->dso_path, b->dso_path)))
		return c;
	return CMP(a->kernel, b->kernel);
}

/* ---- --order ---- */

int view_order_parse(const char *s, const char **out, struct errmsg *em)
{
	if (s && strcmp(s, VIEW_ORDER_DEFAULT) == 0) {
		*out = NULL;
		return 0;
	}
	if (s && arch_payload_order_known(s)) {
		*out = s;
		return 0;
	}
	return errmsg_set(em, -EINVAL, "known orders: %s, %s", VIEW_ORDER_DEFAULT,
			  arch_payload_order_keys());
}

static void view_fill_row(const struct hist_entry *e, const bool *key, double total,
			  bool children, struct snapshot_row *r)
{
	memset(r, 0, sizeof(*r));
	r->self = total > 0 ? 100.0 * (double)e->period / total : 0.0;
	if (children) {
		r->children_period = e->children;
		r->children = total > 0 ? 100.0 * (double)e->children / total : 0.0;
	}
	r->samples = e->samples;
	r->period = e->period;
	r->kernel = e->kernel;
	r->comm = key[SORT_COMM] ? e->comm : e->only_comm;
	if (key[SORT_PID]) {
		r->has_pid = true;
		r->pid = e->pid;
	} else if (!e->mixed_pid) {
		r->has_pid = true;
		r->pid = e->only_pid;
	}
	if (key[SORT_TID]) {
		r->has_tid = true;
		r->tid = e->tid;
	}
	if (key[SORT_CPU]) {
		r->has_cpu = true;
		r->cpu = e->cpu;
	}
	if (key[SORT_DSO]) {
		r->has_dso = true;
		r->dso = e->dso ? dso_short_name(e->dso) : view_unknown;
		r->dso_path = e->dso ? dso_path(e->dso) : view_unknown;
	}
	if (key[SORT_SYM]) {
		r->has_sym = true;
		r->symbol = e->sym && e->sym->name ? demangle_display(e->sym->name) : view_unknown;
	}
}

/* A frame as displayed: the real function, or one inlined into it, with
 * the source line when that is a key.  Interned in a table per snapshot;
 * node is the id of the same frame without srcline, which is what tree
 * nodes and folded stacks show. */
struct view_dframe {
	struct dso *dso;
	const char *name;       /* interned, or the symbol's own name */
	const char *srcline;    /* interned, or NULL */
	bool kernel, inlined;
	uint32_t node;
};

#define VIEW_MAX_INLINES 64

struct view_dtab {
	bool srcline, inl;      /* what frames are expanded with */
	struct view_dframe *v;
	size_t n, cap;
	struct hashtab index;   /* over v */
	/* Expansions of the callchain store's frames, by frame id. */
	uint32_t *exp_off, *exp_nr;
	size_t nexp;
	uint32_t *pool;         /* dframe ids, innermost first */
	size_t npool, pool_cap;
	size_t lookups;         /* addresses asked of libdw */
};

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

static void view_dtab_init(struct view_dtab *t, bool srcline, bool inl)
{
	memset(t, 0, sizeof(*t));
	t->srcline = srcline;
	t->inl = inl;
	hashtab_init(&t->index, 256);
}

static void view_dtab_free(struct view_dtab *t)
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
static uint32_t view_dtab_expand(struct view_dtab *t, struct dso *dso, const struct symbol *sym,
				 bool kernel, uint64_t addr)
{
	const char *inl[VIEW_MAX_INLINES];
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
		for (k = 0; k < in->nr_inlines && ninl < VIEW_MAX_INLINES; k++)
			inl[ninl++] = in->inlines[k].name;
	f.dso = dso;
	f.kernel = kernel;
	f.inlined = true;
	for (k = 0; k < ninl; k++) {
		f.name = inl[k];
		view_dtab_push(t, view_dtab_intern(t, &f));
	}
	f.name = sym && sym->name ? sym->name : view_unknown;
	f.inlined = false;
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
static size_t view_dtab_chain(struct view_dtab *t, const struct callchain_store *st,
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

/* ---- call trees ---- */

/* A mutable tree while building: nodes in one array, linked by index. */
struct view_bnode {
	uint32_t id;            /* frame id in the store */
	uint32_t first_child;   /* index, or 0 for none (0 is the root) */
	uint32_t next_sibling;
	uint64_t period, samples;
};

struct view_builder {
	struct view_bnode *nodes;
	size_t n, cap, max;
	uint64_t dropped;       /* paths cut short by the node cap */
};

static void view_builder_init(struct view_builder *b, size_t max)
{
	b->cap = 64;
	b->nodes = xcalloc(b->cap, sizeof(*b->nodes));
	b->n = 1;
	b->max = max;
	b->dropped = 0;
}

/* Add a path below the root: ids[0], ids[step], ... (nr of them). */
static void view_builder_add(struct view_builder *b, const uint32_t *ids, size_t nr, int step,
			     uint64_t period, uint64_t samples)
{
	uint32_t cur = 0;
	size_t k;

	b->nodes[0].period += period;
	b->nodes[0].samples += samples;
	for (k = 0; k < nr; k++) {
		uint32_t id = *ids, c;

		ids += step;
		for (c = b->nodes[cur].first_child; c; c = b->nodes[c].next_sibling)
			if (b->nodes[c].id == id)
				break;
		if (!c) {
			if (b->n >= b->max) {
				b->dropped++;
				return;
			}
			if (b->n == b->cap)
				b->nodes = xgrow(b->nodes, &b->cap, b->n + 1, sizeof(*b->nodes));
			c = (uint32_t)b->n++;
			memset(&b->nodes[c], 0, sizeof(b->nodes[c]));
			b->nodes[c].id = id;
			b->nodes[c].next_sibling = b->nodes[cur].first_child;
			b->nodes[cur].first_child = c;
		}
		b->nodes[c].period += period;
		b->nodes[c].samples += samples;
		cur = c;
	}
}

static const char *view_frame_symbol(const struct callchain_frame *f)
{
	return f && f->sym && f->sym->name ? demangle_display(f->sym->name) : view_unknown;
}

static const char *view_frame_dso(const struct callchain_frame *f)
{
	return f && f->dso ? dso_short_name(f->dso) : view_unknown;
}

static int view_node_cmp(const void *pa, const void *pb)
{
	const struct snapshot_node *a = pa, *b = pb;
	int c;

	if ((c = CMP(b->period, a->period)))
		return c;
	if ((c = strcmp(a->symbol, b->symbol)))
		return c;
	return strcmp(a->dso, b->dso);
}

struct view_tree_ctx {
	const struct callchain_store *st;
	const struct view_dtab *dt;   /* node ids are its frames' (NULL: the store's) */
	const struct callchain_frame *root_frame;
	uint32_t root_df;             /* with dt: the root's frame */
	double total;           /* the snapshot's period */
	double threshold;       /* percent */
	bool share_total;
};

static void view_node_fill(const struct view_tree_ctx *t, const struct callchain_frame *f,
			   const struct view_bnode *bn, double root, unsigned depth,
			   struct snapshot_node *n)
{
	memset(n, 0, sizeof(*n));
	if (t->dt && depth) {
		const struct view_dframe *d = &t->dt->v[bn->id];

		n->symbol = d->name;
		n->dso = d->dso ? dso_short_name(d->dso) : view_unknown;
		n->kernel = d->kernel;
		n->inlined = d->inlined;
	} else if (t->dt) {
		const struct view_dframe *d = &t->dt->v[t->root_df];

		n->symbol = d->name;
		n->dso = d->dso ? dso_short_name(d->dso) : view_unknown;
		n->kernel = d->kernel;
		n->inlined = d->inlined;
	} else {
		n->symbol = view_frame_symbol(f);
		n->dso = view_frame_dso(f);
		n->kernel = f ? f->kernel : false;
	}
	n->period = bn->period;
	n->samples = bn->samples;
	n->share_entry = root > 0 ? 100.0 * (double)bn->period / root : 0.0;
	n->share_total = t->total > 0 ? 100.0 * (double)bn->period / t->total : 0.0;
	n->share = t->share_total ? n->share_total : n->share_entry;
	n->depth = depth;
}

/* The builder's tree as one immutable array, breadth first so that each
 * node's children are contiguous; nodes below the threshold are left out
 * with their subtrees. */
static struct snapshot_node *view_tree_flatten(const struct view_tree_ctx *t,
					       const struct view_builder *b)
{
	struct snapshot_node *out = xmalloc(b->n * sizeof(*out));
	uint32_t *q = xmalloc(b->n * sizeof(*q));
	double root = (double)b->nodes[0].period;
	size_t head, tail = 1;

	view_node_fill(t, t->root_frame, &b->nodes[0], root, 0, &out[0]);
	q[0] = 0;
	for (head = 0; head < tail; head++) {
		size_t first = tail, k;
		uint32_t c;

		for (c = b->nodes[q[head]].first_child; c; c = b->nodes[c].next_sibling) {
			struct snapshot_node *n = &out[tail];

			view_node_fill(t, t->dt ? NULL : callchain_store_frame(t->st, b->nodes[c].id),
				       &b->nodes[c], root, out[head].depth + 1, n);
			if (n->share < t->threshold)
				continue;
			q[tail++] = c;
		}
		if (tail == first)
			continue;
		/* Sort the run and its queue entries together. */
		{
			size_t cnt = tail - first;
			struct { struct snapshot_node n; uint32_t q; } *tmp = xmalloc(cnt * sizeof(*tmp));

			for (k = 0; k < cnt; k++) {
				tmp[k].n = out[first + k];
				tmp[k].q = q[first + k];
			}
			qsort(tmp, cnt, sizeof(*tmp), view_node_cmp);
			for (k = 0; k < cnt; k++) {
				out[first + k] = tmp[k].n;
				q[first + k] = tmp[k].q;
			}
			free(tmp);
		}
		out[head].children = &out[first];
		out[head].nr_children = tail - first;
	}
	free(q);
	return out;
}

/* Both trees of row r from the builders (freed here), shared by the
 * symbol and the srcline/inline row kinds.  Returns the nodes dropped. */
static uint64_t view_trees_finish(struct view_tree_ctx *t, struct snapshot_row *r,
				  struct view_builder *callers, struct view_builder *callees,
				  const struct snapshot *snap, const struct view_opts *opts)
{
	uint64_t dropped;

	t->total = (double)snap->period;
	t->threshold = opts->percent_limit > 0 ? opts->percent_limit : VIEW_TREE_MIN_PERCENT;
	t->share_total = opts->tree_percent_total;
	r->callers = view_tree_flatten(t, callers);
	r->callees = view_tree_flatten(t, callees);
	dropped = callers->dropped + callees->dropped;
	free(callers->nodes);
	free(callees->nodes);
	return dropped;
}

static bool view_frame_is(const struct callchain_frame *f, const struct hist_entry *e,
			  const bool *key)
{
	return (!key[SORT_DSO] || f->dso == e->dso) && (!key[SORT_SYM] || f->sym == e->sym);
}

static bool view_chain_key_is(const struct callchain_key *k, const struct hist_entry *e,
			      const bool *key)
{
	return (!key[SORT_COMM] || k->comm == e->comm) && (!key[SORT_PID] || k->pid == e->pid) &&
	       (!key[SORT_TID] || k->tid == e->tid) && (!key[SORT_CPU] || k->cpu == e->cpu);
}

/* The callers and callees trees of entry e, into row r. */
static uint64_t view_build_trees(const struct hist *h, const struct hist_entry *e,
				 const bool *key, const struct view_opts *opts,
				 const struct snapshot *snap, struct snapshot_row *r)
{
	const struct callchain_store *st = hist_callchains(h);
	struct view_builder callers, callees;
	struct callchain_frame root = { e->dso, e->sym, e->kernel, e->addr };
	struct view_tree_ctx t;
	size_t max = opts->tree_max_nodes ? opts->tree_max_nodes : VIEW_TREE_MAX_NODES;
	size_t n = callchain_store_count(st), i;

	view_builder_init(&callers, max);
	view_builder_init(&callees, max);
	for (i = 0; i < n; i++) {
		struct callchain_chain c;
		size_t inner, outer, k;

		callchain_store_get(st, i, &c);
		if (!c.nr || !view_chain_key_is(&c.key, e, key))
			continue;
		if (opts->no_children) {
			if (!view_frame_is(callchain_store_frame(st, c.ids[0]), e, key))
				continue;
			inner = outer = 0;
		} else {
			for (inner = 0; inner < c.nr; inner++)
				if (view_frame_is(callchain_store_frame(st, c.ids[inner]), e, key))
					break;
			if (inner == c.nr)
				continue;
			for (outer = c.nr - 1; outer > inner; outer--)
				if (view_frame_is(callchain_store_frame(st, c.ids[outer]), e, key))
					break;
		}
		k = c.nr - inner - 1;
		view_builder_add(&callers, c.ids + inner + 1, k, 1, c.period, c.samples);
		view_builder_add(&callees, outer ? c.ids + outer - 1 : c.ids, outer, -1, c.period,
				 c.samples);
	}
	t.st = st;
	t.dt = NULL;
	t.root_df = 0;
	t.root_frame = &root;
	return view_trees_finish(&t, r, &callers, &callees, snap, opts);
}

/* Whether display frame x is the row's (target's) in the keys shown. */
static bool view_dframe_is(const struct view_dframe *x, const struct view_dframe *target,
			   const bool *key)
{
	return (!key[SORT_DSO] || x->dso == target->dso) &&
	       (!key[SORT_SYM] || (x->name == target->name && x->inlined == target->inlined)) &&
	       (!key[SORT_SRCLINE] || x->srcline == target->srcline);
}

static bool view_chain_key_is_row(const struct callchain_key *k, const struct snapshot_row *r,
				  const bool *key)
{
	return (!key[SORT_COMM] || k->comm == r->comm) && (!key[SORT_PID] || k->pid == r->pid) &&
	       (!key[SORT_TID] || k->tid == r->tid) && (!key[SORT_CPU] || k->cpu == r->cpu);
}

/* view_build_trees over expanded chains (--inline, -s srcline): the row is
 * display frame df; nodes are display frames without their lines. */
static uint64_t view_build_trees_x(const struct hist *h, struct view_dtab *dt, uint32_t df,
				   const bool *key, const struct view_opts *opts,
				   const struct snapshot *snap, struct snapshot_row *r)
{
	const struct callchain_store *st = hist_callchains(h);
	struct view_builder callers, callees;
	struct view_tree_ctx t;
	size_t max = opts->tree_max_nodes ? opts->tree_max_nodes : VIEW_TREE_MAX_NODES;
	size_t n = callchain_store_count(st), i, cap = 0, ncap = 0;
	uint32_t *ids = NULL, *nodes = NULL;

	view_builder_init(&callers, max);
	view_builder_init(&callees, max);
	for (i = 0; i < n; i++) {
		struct callchain_chain c;
		size_t inner, outer, k, nr;

		callchain_store_get(st, i, &c);
		if (!c.nr || !view_chain_key_is_row(&c.key, r, key))
			continue;
		nr = view_dtab_chain(dt, st, &c, false, &ids, &cap);
		if (!nr)
			continue;
		if (opts->no_children) {
			if (!view_dframe_is(&dt->v[ids[0]], &dt->v[df], key))
				continue;
			inner = outer = 0;
		} else {
			for (inner = 0; inner < nr; inner++)
				if (view_dframe_is(&dt->v[ids[inner]], &dt->v[df], key))
					break;
			if (inner == nr)
				continue;
			for (outer = nr - 1; outer > inner; outer--)
				if (view_dframe_is(&dt->v[ids[outer]], &dt->v[df], key))
					break;
		}
		nodes = xgrow(nodes, &ncap, nr, sizeof(*nodes));
		for (k = 0; k < nr; k++)
			nodes[k] = dt->v[ids[k]].node;
		k = nr - inner - 1;
		view_builder_add(&callers, nodes + inner + 1, k, 1, c.period, c.samples);
		view_builder_add(&callees, outer ? nodes + outer - 1 : nodes, outer, -1, c.period,
				 c.samples);
	}
	free(ids);
	free(nodes);
	t.st = st;
	t.dt = dt;
	t.root_df = df;
	t.root_frame = NULL;
	return view_trees_finish(&t, r, &callers, &callees, snap, opts);
}

/* ---- folded stacks ---- */

struct view_stack_tmp {
	const char *comm;
	const uint32_t *ids;    /* innermost first */
	size_t nr;
	uint64_t samples, period;
};

static int view_stack_cmp(const void *pa, const void *pb)
{
	const struct view_stack_tmp *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = view_strcmp(a->comm, b->comm)))
		return c;
	/* Root first, as printed. */
	for (i = 0; i < a->nr && i < b->nr; i++)
		if ((c = CMP(a->ids[a->nr - 1 - i], b->ids[b->nr - 1 - i])))
			return c;
	return CMP(a->nr, b->nr);
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

	if ((c = view_strcmp(a->comm, b->comm)))
		return c;
	for (i = 0; i < a->nr_frames && i < b->nr_frames; i++) {
		const struct snapshot_frame *x = &a->frames[i], *y = &b->frames[i];

		if ((c = view_strcmp(x->symbol, y->symbol)) || (c = view_strcmp(x->dso, y->dso)) ||
		    (c = CMP(x->kernel, y->kernel)) || (c = CMP(x->inlined, y->inlined)))
			return c;
	}
	if ((c = CMP(a->nr_frames, b->nr_frames)))
		return c;
	if ((c = CMP(b->samples, a->samples)))
		return c;
	return CMP(b->period, a->period);
}

/* Every unique (comm, frames) stack, merged over pid/tid/cpu; with dt, of
 * display frames (inlined functions as frames of their own). */
static void view_build_stacks(const struct callchain_store *st, struct view_dtab *dt,
			      struct snapshot *snap)
{
	size_t n = callchain_store_count(st), i, j, m = 0, nframes = 0, cap = 0, ncap = 0;
	struct view_stack_tmp *tmp;
	struct snapshot_frame *f;
	uint32_t *pool = NULL, *buf = NULL;
	size_t npool = 0, *offs = NULL;

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
			pool = xgrow(pool, &cap, npool + k, sizeof(*pool));
			memcpy(pool + npool, buf, k * sizeof(*buf));
			offs[i] = npool;
			tmp[i].nr = k;
			npool += k;
		}
		free(buf);
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
		tmp[i].samples = c.samples;
		tmp[i].period = c.period;
	}
	qsort(tmp, n, sizeof(*tmp), view_stack_cmp);
	for (i = 0; i < n; i++) {
		if (m && view_stack_cmp(&tmp[m - 1], &tmp[i]) == 0) {
			tmp[m - 1].samples += tmp[i].samples;
			tmp[m - 1].period += tmp[i].period;
			continue;
		}
		tmp[m++] = tmp[i];
		nframes += tmp[i].nr;
	}
	snap->stacks = xcalloc(m, sizeof(*snap->stacks));
	snap->stack_frames = f = nframes ? xmalloc(nframes * sizeof(*f)) : NULL;
	for (i = 0; i < m; i++) {
		struct snapshot_stack *s = &snap->stacks[i];

		s->comm = tmp[i].comm;
		s->frames = f;
		s->nr_frames = tmp[i].nr;
		s->samples = tmp[i].samples;
		s->period = tmp[i].period;
		for (j = 0; j < tmp[i].nr; j++) {
			uint32_t id = tmp[i].ids[tmp[i].nr - 1 - j];

			if (dt) {
				const struct view_dframe *d = &dt->v[id];

				f->symbol = d->name;
				f->dso = d->dso ? dso_short_name(d->dso) : view_unknown;
				f->kernel = d->kernel;
				f->inlined = d->inlined;
			} else {
				const struct callchain_frame *cf = callchain_store_frame(st, id);

				f->symbol = view_frame_symbol(cf);
				f->dso = view_frame_dso(cf);
				f->kernel = cf ? cf->kernel : false;
				f->inlined = false;
			}
			f++;
		}
	}
	snap->nr_stacks = m;
	qsort(snap->stacks, m, sizeof(*snap->stacks), view_printed_stack_cmp);
	free(tmp);
	free(pool);
	free(offs);
}

/* A row and the hist entry it came from, sorted together. */
struct view_row_tmp {
	struct snapshot_row row;
	size_t entry;
	uint32_t df;            /* with a view_dtab: the row's display frame */
};

/* ---- rows over display frames (--inline, -s srcline) ---- */

struct view_merge_ctx {
	const bool *key;
	const struct view_dtab *dt;
};

/* The keys shown, for merging rows: equal rows are one row. */
static int view_merge_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_merge_ctx *m = ctx;
	const struct view_row_tmp *a = pa, *b = pb;
	const struct view_dframe *x = &m->dt->v[a->df], *y = &m->dt->v[b->df];
	int c;

	if (m->key[SORT_COMM] && (c = view_strcmp(a->row.comm, b->row.comm)))
		return c;
	if (m->key[SORT_PID] && (c = CMP(a->row.pid, b->row.pid)))
		return c;
	if (m->key[SORT_TID] && (c = CMP(a->row.tid, b->row.tid)))
		return c;
	if (m->key[SORT_CPU] && (c = CMP(a->row.cpu, b->row.cpu)))
		return c;
	if (m->key[SORT_DSO] && (c = CMP((uintptr_t)x->dso, (uintptr_t)y->dso)))
		return c;
	if (m->key[SORT_SYM] && ((c = view_strcmp(x->name, y->name)) ||
				 (c = CMP(x->inlined, y->inlined))))
		return c;
	if (m->key[SORT_SRCLINE] && (c = view_strcmp(x->srcline, y->srcline)))
		return c;
	return CMP(a->entry, b->entry);
}

static bool view_merge_same(const struct view_merge_ctx *m, const struct view_row_tmp *a,
			    const struct view_row_tmp *b)
{
	struct view_row_tmp x = *a, y = *b;

	x.entry = y.entry = 0;
	return view_merge_cmp(&x, &y, (void *)m) == 0;
}

/* The rows of entries tmp[0..n) (one per entry, df unset) over display
 * frames: an entry's self goes to the frame of its address (the innermost
 * inlined function with --inline), its children to every frame of the
 * expansion, since a sample through the address has all of them on its
 * chain; rows with the same keys shown are then merged.  Returns the new
 * array (tmp is freed) and its length in *nr; *pm holds merged payload
 * stats (free it after the rows are copied). */
static struct view_row_tmp *view_rows_expand(const struct hist *h, struct view_dtab *dt,
					     const bool *key, bool children, double total,
					     struct view_row_tmp *tmp, size_t *nr,
					     unsigned char **pm)
{
	const struct payload_ops *ops = hist_payload(h);
	struct view_merge_ctx m = { key, dt };
	struct view_row_tmp *out = NULL;
	size_t cap = 0, n = 0, i, j, kept;

	*pm = NULL;
	for (i = 0; i < *nr; i++) {
		const struct hist_entry *e = hist_entry_at(h, tmp[i].entry);
		size_t off = dt->npool;
		uint32_t levels = view_dtab_expand(dt, e->dso, e->sym, e->kernel, e->addr);

		/* Without sym as a key the levels would be one row. */
		if (!key[SORT_SYM]) {
			off += levels - 1;
			levels = 1;
		}
		for (j = 0; j < levels; j++) {
			struct view_row_tmp *t;
			const struct view_dframe *d = &dt->v[dt->pool[off + j]];

			out = xgrow(out, &cap, n + 1, sizeof(*out));
			t = &out[n++];
			*t = tmp[i];
			t->df = dt->pool[off + j];
			if (key[SORT_SYM]) {
				t->row.symbol = d->name;
				t->row.inlined = d->inlined;
			}
			t->row.has_srcline = key[SORT_SRCLINE];
			t->row.srcline = key[SORT_SRCLINE] ? d->srcline : NULL;
			if (j) {
				t->row.period = 0;
				t->row.samples = 0;
				t->row.payload = NULL;
			}
		}
	}
	free(tmp);
	if (n > 1)
		qsort_r(out, n, sizeof(*out), view_merge_cmp, &m);
	kept = 0;
	for (i = 0; i < n; i++) {
		struct snapshot_row *a, *b = &out[i].row;

		if (!kept || !view_merge_same(&m, &out[kept - 1], &out[i])) {
			out[kept++] = out[i];
			continue;
		}
		a = &out[kept - 1].row;
		a->period += b->period;
		a->samples += b->samples;
		a->children_period += b->children_period;
		if (a->comm != b->comm && !key[SORT_COMM])
			a->comm = NULL;
		if (!key[SORT_PID] && (!a->has_pid || !b->has_pid || a->pid != b->pid))
			a->has_pid = false;
		if (b->payload) {
			unsigned char *st;

			if (!*pm)
				*pm = xcalloc(n, ops->stats_size);
			st = *pm + (kept - 1) * ops->stats_size;
			if (a->payload != st) {
				memset(st, 0, ops->stats_size);
				if (a->payload)
					ops->stats_merge(st, a->payload);
				a->payload = st;
			}
			ops->stats_merge(st, b->payload);
		}
		/* Keep the hottest entry's as the row's own (for its path). */
		if (b->period > out[kept - 1].row.period - b->period)
			out[kept - 1].entry = out[i].entry;
	}
	n = kept;
	kept = 0;
	for (i = 0; i < n; i++) {
		struct snapshot_row *r = &out[i].row;

		r->self = total > 0 ? 100.0 * (double)r->period / total : 0.0;
		if (children)
			r->children = total > 0 ? 100.0 * (double)r->children_period / total : 0.0;
		if (!r->period && !children)
			continue;
		out[kept++] = out[i];
	}
	*nr = kept;
	return out;
}

/* The chosen order's measure first (higher first; rows without one
 * last), then the default order. */
static int view_row_tmp_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct snapshot *snap = ctx;
	const struct snapshot_row *a = &((const struct view_row_tmp *)pa)->row;
	const struct snapshot_row *b = &((const struct view_row_tmp *)pb)->row;

	if (snap->order_column >= 0) {
		double x = payload_value(snap->payload, a->payload, snap->payload_total,
					 (size_t)snap->order_column);
		double y = payload_value(snap->payload, b->payload, snap->payload_total,
					 (size_t)snap->order_column);
		int c = CMP(y, x);

		if (c)
			return c;
	}
	return view_row_cmp(a, b);
}

/* The payload counts, and the stats over every entry. */
static void view_payload_totals(const struct hist *h, struct snapshot *snap)
{
	size_t n = hist_count(h), i;

	snap->payload = hist_payload(h);
	snap->payload_samples = hist_payload_samples(h);
	snap->payload_other = hist_payload_other(h);
	snap->payload_rows = snap->payload && hist_has_payload_stats(h);
	snap->payload_total = NULL;
	snap->payload_store = NULL;
	if (!snap->payload_rows)
		return;
	snap->payload_total = xcalloc(1, snap->payload->stats_size);
	for (i = 0; i < n; i++)
		snap->payload->stats_merge(snap->payload_total, hist_entry_payload(h, i));
}

void view_build(const struct hist *h, const struct view_opts *opts, struct snapshot *snap)
{
	static const struct view_opts none;
	const struct sort_spec *spec = hist_sort_spec(h);
	size_t n = hist_count(h), i, nr = 0;
	bool key[SORT__MAX] = { false };
	struct view_row_tmp *tmp;
	struct snapshot_row *rows;
	uint64_t kernel_period = 0;
	double total;
	struct view_dtab dt;
	unsigned char *merged_pm = NULL;
	bool expand;

	if (!opts)
		opts = &none;
	for (i = 0; i < spec->n; i++)
		key[spec->keys[i]] = true;
	/* Rows over display frames: only then is libdw asked anything. */
	expand = key[SORT_SRCLINE] || opts->inline_frames;
	if (expand)
		view_dtab_init(&dt, key[SORT_SRCLINE], opts->inline_frames);
	snap->inline_frames = opts->inline_frames;
	snap->dwarf_lookups = 0;
	snap->sort = *spec;
	snap->samples = hist_total_samples(h);
	snap->period = hist_total_period(h);
	snap->nr_entries = n;
	snap->callchains = hist_has_callchains(h);
	snap->children = snap->callchains && !opts->no_children;
	snap->tree_percent_total = opts->tree_percent_total;
	if (snap->callchains)
		snap->callchain_nodes_dropped = callchain_store_dropped(hist_callchains(h));
	view_payload_totals(h, snap);
	snap->order = opts->order;
	snap->order_column = payload_order_column(snap->payload, opts->order);
	/* Percentages are of everything sampled, hidden rows included, as
	 * perf's absolute percentages: hiding a row must not inflate others. */
	total = (double)snap->period;

	tmp = n ? xmalloc(n * sizeof(*tmp)) : NULL;
	for (i = 0; i < n; i++) {
		const struct hist_entry *e = hist_entry_at(h, i);

		if (e->kernel)
			kernel_period += e->period;
		if ((opts->hide_kernel && e->kernel) || (opts->hide_user && !e->kernel))
			continue;
		/* Without children, an entry only a caller has no row (expanded
		 * rows are merged first: see view_rows_expand). */
		if (!e->period && !snap->children && !expand)
			continue;
		view_fill_row(e, key, total, snap->children, &tmp[nr].row);
		/* The hist's own until the rows are chosen, copied below. */
		tmp[nr].row.payload = hist_entry_payload(h, i);
		tmp[nr].df = 0;
		tmp[nr++].entry = i;
	}
	snap->kernel_period = kernel_period;
	if (expand)
		tmp = view_rows_expand(h, &dt, key, snap->children, total, tmp, &nr, &merged_pm);

	if (nr > 1)
		qsort_r(tmp, nr, sizeof(*tmp), view_row_tmp_cmp, snap);

	if (opts->percent_limit > 0) {
		size_t kept = 0;

		/* Sorted by period, so self is non-increasing: but compare
		 * each row anyway rather than rely on float monotonicity. */
		for (i = 0; i < nr; i++) {
			double v = snap->children ? tmp[i].row.children : tmp[i].row.self;

			if (!(v < opts->percent_limit))
				tmp[kept++] = tmp[i];
		}
		nr = kept;
	}
	if (opts->max_rows && nr > opts->max_rows)
		nr = opts->max_rows;

	rows = nr ? xmalloc(nr * sizeof(*rows)) : NULL;
	if (nr && snap->payload_rows)
		snap->payload_store = xmalloc(nr * snap->payload->stats_size);
	for (i = 0; i < nr; i++) {
		rows[i] = tmp[i].row;
		if (snap->payload_store) {
			unsigned char *st = snap->payload_store + i * snap->payload->stats_size;

			memcpy(st, tmp[i].row.payload, snap->payload->stats_size);
			rows[i].payload = st;
		}
		if (snap->callchains && i < opts->tree_rows && expand)
			snap->callchain_nodes_dropped +=
				view_build_trees_x(h, &dt, tmp[i].df, key, opts, snap, &rows[i]);
		else if (snap->callchains && i < opts->tree_rows)
			snap->callchain_nodes_dropped +=
				view_build_trees(h, hist_entry_at(h, tmp[i].entry), key, opts, snap,
						 &rows[i]);
	}
	free(tmp);
	free(merged_pm);
	snap->rows = rows;
	snap->nr_rows = nr;
	if (snap->callchains && opts->stacks)
		view_build_stacks(hist_callchains(h), expand ? &dt : NULL, snap);
	if (expand) {
		snap->dwarf_lookups = dt.lookups;
		view_dtab_free(&dt);
	}
}

void snapshot_release(struct snapshot *snap)
{
	size_t i;

	for (i = 0; i < snap->nr_rows; i++) {
		free((void *)snap->rows[i].callers);
		free((void *)snap->rows[i].callees);
	}
	free(snap->rows);
	snap->rows = NULL;
	snap->nr_rows = 0;
	free(snap->payload_store);
	snap->payload_store = NULL;
	free(snap->payload_total);
	snap->payload_total = NULL;
	free(snap->stacks);
	free(snap->stack_frames);
	snap->stacks = NULL;
	snap->stack_frames = NULL;
	snap->nr_stacks = 0;
}
