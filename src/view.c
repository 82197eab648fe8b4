/* Views: turn the hist into an immutable, filtered and sorted snapshot of
 * rows with percentages, which every renderer draws from. */
#include "config.h"

#include "view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callchain.h"
#include "demangle.h"
#include "machine.h"
#include "symtab.h"
#include "util.h"

static const char view_unknown[] = "[unknown]";

/* NULL sorts before any string, so rows without a comm group together. */
static int view_strcmp(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? 1 : -1;
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

/* ---- ProfileMe orders ---- */

static const char *const view_order_names[VIEW_ORDER__MAX] = {
	[VIEW_ORDER_OVERHEAD] = "overhead", [VIEW_ORDER_RETIRED] = "retired",
	[VIEW_ORDER_KILLED] = "killed",	    [VIEW_ORDER_STALLED] = "stalled",
	[VIEW_ORDER_MISPREDICT] = "mispredict", [VIEW_ORDER_TRAPS] = "traps",
	[VIEW_ORDER_ICMISS] = "icmiss",	    [VIEW_ORDER_LDST] = "ldst",
	[VIEW_ORDER_PCTR1] = "pctr1",
};

const char *view_order_name(enum view_order o)
{
	return (unsigned)o < VIEW_ORDER__MAX ? view_order_names[o] : "?";
}

int view_order_parse(const char *s, enum view_order *out, const char **bad)
{
	int o;

	for (o = 0; o < VIEW_ORDER__MAX; o++)
		if (s && strcmp(s, view_order_names[o]) == 0) {
			*out = (enum view_order)o;
			return 0;
		}
	if (bad)
		*bad = "known orders: overhead, retired, killed, stalled, mispredict, traps, "
		       "icmiss, ldst, pctr1";
	return -EINVAL;
}

const char *view_pctr1_label(unsigned sl1)
{
	static const char *const labels[PROFILEME_SL1_NR] = { "Cycles", "RetDly", "BcMiss",
							      "MbRepl" };

	return sl1 < PROFILEME_SL1_NR ? labels[sl1] : "PCTR1";
}

static double view_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : -1.0;
}

double view_profileme_value(const struct snapshot *snap, const struct profileme_stats *st,
			    enum view_order o)
{
	unsigned sl1 = snap ? snap->profileme_sl1 % PROFILEME_SL1_NR : 0;

	if (!st || !st->samples)
		return -1.0;
	switch (o) {
	case VIEW_ORDER_RETIRED:
		return view_pct(st->retired, st->samples);
	case VIEW_ORDER_KILLED:
		return view_pct(st->killed, st->samples);
	case VIEW_ORDER_STALLED:
		return view_pct(st->stalled, st->samples);
	case VIEW_ORDER_MISPREDICT:
		return view_pct(st->mispredicted, st->samples);
	case VIEW_ORDER_TRAPS:
		return view_pct(profileme_stats_traps(st), st->samples);
	case VIEW_ORDER_ICMISS:
		return view_pct(st->icache_miss, st->samples);
	case VIEW_ORDER_LDST:
		return view_pct(st->ldst_order, st->samples);
	case VIEW_ORDER_PCTR1:
		if (!st->pctr1_samples[sl1])
			return -1.0;
		return (double)st->pctr1_sum[sl1] / (double)st->pctr1_samples[sl1];
	default:
		return -1.0;
	}
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
	const struct callchain_frame *root_frame;
	double total;           /* the snapshot's period */
	double threshold;       /* percent */
	bool share_total;
};

static void view_node_fill(const struct view_tree_ctx *t, const struct callchain_frame *f,
			   const struct view_bnode *bn, double root, unsigned depth,
			   struct snapshot_node *n)
{
	memset(n, 0, sizeof(*n));
	n->symbol = view_frame_symbol(f);
	n->dso = view_frame_dso(f);
	n->kernel = f ? f->kernel : false;
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

			view_node_fill(t, callchain_store_frame(t->st, b->nodes[c].id),
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
	struct callchain_frame root = { e->dso, e->sym, e->kernel };
	struct view_tree_ctx t;
	size_t max = opts->tree_max_nodes ? opts->tree_max_nodes : VIEW_TREE_MAX_NODES;
	size_t n = callchain_store_count(st), i;
	uint64_t dropped;

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
	t.root_frame = &root;
	t.total = (double)snap->period;
	t.threshold = opts->percent_limit > 0 ? opts->percent_limit : VIEW_TREE_MIN_PERCENT;
	t.share_total = opts->tree_percent_total;
	r->callers = view_tree_flatten(&t, &callers);
	r->callees = view_tree_flatten(&t, &callees);
	dropped = callers.dropped + callees.dropped;
	free(callers.nodes);
	free(callees.nodes);
	return dropped;
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

/* Every unique (comm, frames) stack, merged over pid/tid/cpu. */
static void view_build_stacks(const struct callchain_store *st, struct snapshot *snap)
{
	size_t n = callchain_store_count(st), i, j, m = 0, nframes = 0;
	struct view_stack_tmp *tmp;
	struct snapshot_frame *f;

	if (!n)
		return;
	tmp = xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		struct callchain_chain c;

		callchain_store_get(st, i, &c);
		tmp[i].comm = c.key.comm;
		tmp[i].ids = c.ids;
		tmp[i].nr = c.nr;
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
			const struct callchain_frame *cf =
				callchain_store_frame(st, tmp[i].ids[tmp[i].nr - 1 - j]);

			f->symbol = view_frame_symbol(cf);
			f->dso = view_frame_dso(cf);
			f->kernel = cf ? cf->kernel : false;
			f++;
		}
	}
	snap->nr_stacks = m;
	free(tmp);
}

/* A row and the hist entry it came from, sorted together. */
struct view_row_tmp {
	struct snapshot_row row;
	size_t entry;
};

/* The chosen order's measure first (higher first; rows without one
 * last), then the default order. */
static int view_row_tmp_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct snapshot *snap = ctx;
	const struct snapshot_row *a = &((const struct view_row_tmp *)pa)->row;
	const struct snapshot_row *b = &((const struct view_row_tmp *)pb)->row;

	if (snap->order != VIEW_ORDER_OVERHEAD) {
		double x = view_profileme_value(snap, a->profileme, snap->order);
		double y = view_profileme_value(snap, b->profileme, snap->order);
		int c = CMP(y, x);

		if (c)
			return c;
	}
	return view_row_cmp(a, b);
}

/* The totals over every entry, and what PCTR1 counted most. */
static void view_profileme_totals(const struct hist *h, struct snapshot *snap)
{
	size_t n = hist_count(h), i;
	unsigned k;

	snap->profileme_arch = hist_profileme_enabled(h);
	snap->profileme_samples = hist_profileme_samples(h);
	snap->not_profileme = hist_not_profileme(h);
	snap->profileme = hist_has_profileme(h);
	memset(&snap->profileme_total, 0, sizeof(snap->profileme_total));
	snap->profileme_sl1 = 0;
	if (!snap->profileme)
		return;
	for (i = 0; i < n; i++)
		profileme_stats_merge(&snap->profileme_total, hist_entry_profileme(h, i));
	for (k = 1; k < PROFILEME_SL1_NR; k++)
		if (snap->profileme_total.pctr1_samples[k] >
		    snap->profileme_total.pctr1_samples[snap->profileme_sl1])
			snap->profileme_sl1 = k;
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

	if (!opts)
		opts = &none;
	for (i = 0; i < spec->n; i++)
		key[spec->keys[i]] = true;
	snap->sort = *spec;
	snap->samples = hist_total_samples(h);
	snap->period = hist_total_period(h);
	snap->nr_entries = n;
	snap->callchains = hist_has_callchains(h);
	snap->children = snap->callchains && !opts->no_children;
	snap->tree_percent_total = opts->tree_percent_total;
	if (snap->callchains)
		snap->callchain_nodes_dropped = callchain_store_dropped(hist_callchains(h));
	snap->order = (unsigned)opts->order < VIEW_ORDER__MAX ? opts->order : VIEW_ORDER_OVERHEAD;
	snap->profileme_rows = NULL;
	view_profileme_totals(h, snap);
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
		/* Without children, an entry only a caller has no row. */
		if (!e->period && !snap->children)
			continue;
		view_fill_row(e, key, total, snap->children, &tmp[nr].row);
		/* The hist's own until the rows are chosen, copied below. */
		tmp[nr].row.profileme = hist_entry_profileme(h, i);
		tmp[nr++].entry = i;
	}
	snap->kernel_period = kernel_period;

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
	if (nr && snap->profileme)
		snap->profileme_rows = xmalloc(nr * sizeof(*snap->profileme_rows));
	for (i = 0; i < nr; i++) {
		rows[i] = tmp[i].row;
		if (snap->profileme_rows) {
			snap->profileme_rows[i] = *tmp[i].row.profileme;
			rows[i].profileme = &snap->profileme_rows[i];
		}
		if (snap->callchains && i < opts->tree_rows)
			snap->callchain_nodes_dropped +=
				view_build_trees(h, hist_entry_at(h, tmp[i].entry), key, opts, snap,
						 &rows[i]);
	}
	free(tmp);
	snap->rows = rows;
	snap->nr_rows = nr;
	if (snap->callchains && opts->stacks)
		view_build_stacks(hist_callchains(h), snap);
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
	free(snap->profileme_rows);
	snap->profileme_rows = NULL;
	free(snap->stacks);
	free(snap->stack_frames);
	snap->stacks = NULL;
	snap->stack_frames = NULL;
	snap->nr_stacks = 0;
}
