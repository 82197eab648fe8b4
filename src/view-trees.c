/* The view's call trees: callers and callees of the first rows, built
 * from the chain store (or its display frames) and flattened for the
 * snapshot. */
#include "config.h"

#include "view-impl.h"

#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "machine.h"
#include "symtab.h"
#include "util.h"

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
	/* Ids are the store's frames: a node is their function's (frames
	   keep addresses for --pprof), else NULL: display frames. */
	const struct callchain_store *st;
	uint64_t dropped;       /* paths cut short by the node cap */
};

static void view_builder_init(struct view_builder *b, size_t max)
{
	b->cap = 64;
	b->nodes = xcalloc(b->cap, sizeof(*b->nodes));
	b->n = 1;
	b->max = max;
	b->dropped = 0;
	b->st = NULL;
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
		uint32_t id = b->st ? callchain_store_function(b->st, *ids) : *ids, c;

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

const char *view_frame_symbol(const struct callchain_frame *f)
{
	return f && f->sym && f->sym->name ? demangle_display(f->sym->name) : view_unknown;
}

const char *view_frame_dso(const struct callchain_frame *f)
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
		n->synthetic = d->synthetic;
	} else if (t->dt) {
		const struct view_dframe *d = &t->dt->v[t->root_df];

		n->symbol = d->name;
		n->dso = d->dso ? dso_short_name(d->dso) : view_unknown;
		n->kernel = d->kernel;
		n->inlined = d->inlined;
		n->synthetic = d->synthetic;
	} else {
		n->symbol = view_frame_symbol(f);
		n->dso = view_frame_dso(f);
		n->kernel = f ? f->kernel : false;
		n->synthetic = f && dso_symbol_synthetic(f->dso, f->sym);
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

static bool view_chain_key_is(const struct callchain_key *k, const struct hist_entry *e,
			      const bool *key)
{
	return (!key[SORT_COMM] || k->comm == e->comm) && (!key[SORT_PID] || k->pid == e->pid) &&
	       (!key[SORT_TID] || k->tid == e->tid) && (!key[SORT_CPU] || k->cpu == e->cpu);
}

/* The rows whose entries' dso and sym (those in the keys) are a frame's:
 * open addressing on the pair, the rows of one pair chained. */
struct view_row_index {
	struct view_row_slot {
		const void *dso, *sym;
		uint32_t first;         /* row + 1; 0: empty slot */
	} *slots;
	uint32_t *next;                 /* per row: the next of its pair, + 1 */
	size_t mask;
	bool dso, sym;                  /* in the keys */
};

static size_t view_row_hash(const void *dso, const void *sym, size_t mask)
{
	uint64_t v = (uint64_t)(uintptr_t)dso * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)sym * 0xc2b2ae3d27d4eb4fULL;

	return (size_t)(v ^ (v >> 29)) & mask;
}

static struct view_row_slot *view_row_slot(const struct view_row_index *x, const void *dso,
					   const void *sym)
{
	size_t i = view_row_hash(dso, sym, x->mask);

	while (x->slots[i].first && (x->slots[i].dso != dso || x->slots[i].sym != sym))
		i = (i + 1) & x->mask;
	return &x->slots[i];
}

static void view_row_index_init(struct view_row_index *x, const struct hist_entry *const *es,
				size_t nr, const bool *key)
{
	size_t size = 16, i;

	while (size < 2 * nr)
		size *= 2;
	x->slots = xcalloc(size, sizeof(*x->slots));
	x->next = xcalloc(nr, sizeof(*x->next));
	x->mask = size - 1;
	x->dso = key[SORT_DSO];
	x->sym = key[SORT_SYM];
	/* Backwards, so that each pair's rows chain in row order. */
	for (i = nr; i-- > 0;) {
		const void *dso = x->dso ? es[i]->dso : NULL, *sym = x->sym ? es[i]->sym : NULL;
		struct view_row_slot *sl = view_row_slot(x, dso, sym);

		sl->dso = dso;
		sl->sym = sym;
		x->next[i] = sl->first;
		sl->first = (uint32_t)i + 1;
	}
}

/* The first row whose entry has f's dso and sym (those in the keys), + 1;
 * 0: none. */
static uint32_t view_row_first(const struct view_row_index *x, const struct callchain_frame *f)
{
	return view_row_slot(x, x->dso ? (const void *)f->dso : NULL,
			     x->sym ? (const void *)f->sym : NULL)->first;
}

/* A chain through a row's function: the chain, and the row's innermost
 * and outermost frames in it. */
struct view_tree_match {
	uint32_t row, chain, inner, outer;
};

/* The matches of rows es[0..nr) in the store's chains, grouped by row, in
 * chain order within a row (a stable counting sort); *first: per row, where
 * its run starts (nr + 1 entries). */
static struct view_tree_match *view_tree_matches(const struct callchain_store *st,
						 const struct hist_entry *const *es, size_t nr,
						 const bool *key, bool no_children,
						 size_t **first)
{
	struct view_tree_match *m = NULL, *out;
	size_t nm = 0, cap = 0, i, r;
	size_t n = callchain_store_count(st);
	/* Per row, within a chain: its match + 1, or SIZE_MAX for a chain of
	 * another comm (or pid, ...); 0 not seen yet */
	size_t *at = xcalloc(nr, sizeof(*at));
	uint32_t *touched = xmalloc(nr * sizeof(*touched));
	size_t *start = xcalloc(nr + 1, sizeof(*start));
	struct view_row_index x;

	view_row_index_init(&x, es, nr, key);
	for (i = 0; i < n; i++) {
		struct callchain_chain c;
		size_t ntouched = 0, k, depth;

		callchain_store_get(st, i, &c);
		/* Without children, only the sampled frame makes a row's. */
		depth = no_children && c.nr ? 1 : c.nr;
		for (k = 0; k < depth; k++) {
			uint32_t row = view_row_first(&x, callchain_store_frame(st, c.ids[k]));

			for (; row; row = x.next[row - 1]) {
				r = row - 1;
				if (!at[r]) {
					touched[ntouched++] = (uint32_t)r;
					if (!view_chain_key_is(&c.key, es[r], key)) {
						at[r] = SIZE_MAX;
						continue;
					}
					m = xgrow(m, &cap, nm + 1, sizeof(*m));
					m[nm].row = (uint32_t)r;
					m[nm].chain = (uint32_t)i;
					m[nm].inner = (uint32_t)k;
					at[r] = ++nm;
				}
				if (at[r] != SIZE_MAX)
					m[at[r] - 1].outer = (uint32_t)k;
			}
		}
		for (k = 0; k < ntouched; k++)
			at[touched[k]] = 0;
	}
	for (i = 0; i < nm; i++)
		start[m[i].row + 1]++;
	for (r = 0; r < nr; r++)
		start[r + 1] += start[r];
	out = xmalloc((nm ? nm : 1) * sizeof(*out));
	memcpy(at, start, nr * sizeof(*at));
	for (i = 0; i < nm; i++)
		out[at[m[i].row]++] = m[i];
	free(m);
	free(at);
	free(touched);
	free(x.slots);
	free(x.next);
	*first = start;
	return out;
}

/* The callers and callees trees of entries es[0..nr), into rows[0..nr).
 * The chains through each row's function are found in one pass (a pass
 * per row cost the browser's 50 rows fifty walks of every chain), then
 * each row's trees are built in turn from its chains, in the store's
 * order, as before (two builders at a time stay in the cache). */
uint64_t view_build_trees(const struct hist *h, const struct hist_entry *const *es, size_t nr,
			  const bool *key, const struct view_opts *opts,
			  const struct snapshot *snap, struct snapshot_row *rows)
{
	const struct callchain_store *st = hist_callchains(h);
	size_t max = opts->tree_max_nodes ? opts->tree_max_nodes : VIEW_TREE_MAX_NODES;
	size_t *first, r, j;
	struct view_tree_match *m = view_tree_matches(st, es, nr, key, opts->no_children, &first);
	uint64_t dropped = 0;

	for (r = 0; r < nr; r++) {
		const struct hist_entry *e = es[r];
		struct callchain_frame root = { e->dso, e->sym, e->kernel, e->addr };
		struct view_builder callers, callees;
		struct view_tree_ctx t;

		view_builder_init(&callers, max);
		view_builder_init(&callees, max);
		callers.st = callees.st = st;
		for (j = first[r]; j < first[r + 1]; j++) {
			struct callchain_chain c;
			size_t inner = m[j].inner, outer = m[j].outer;

			callchain_store_get(st, m[j].chain, &c);
			view_builder_add(&callers, c.ids + inner + 1, c.nr - inner - 1, 1, c.period,
					 c.samples);
			view_builder_add(&callees, outer ? c.ids + outer - 1 : c.ids, outer, -1,
					 c.period, c.samples);
		}
		t.st = st;
		t.dt = NULL;
		t.root_df = 0;
		t.root_frame = &root;
		dropped += view_trees_finish(&t, &rows[r], &callers, &callees, snap, opts);
	}
	free(m);
	free(first);
	return dropped;
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
uint64_t view_build_trees_x(const struct hist *h, struct view_dtab *dt, uint32_t df,
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

