/* Views: turn the hist into an immutable, filtered and sorted snapshot of
 * rows with percentages, which every renderer draws from (call trees in
 * view-trees.c, display frames and folded stacks in view-frames.c). */
#include "config.h"

#include "view.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "arch.h"
#include "demangle.h"
#include "errmsg.h"
#include "machine.h"
#include "symtab.h"
#include "util.h"
#include "walltime.h"
#include "view-impl.h"

const char view_unknown[] = "[unknown]";

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
	if ((c = view_strcmp(a->daddr_sym, b->daddr_sym)) ||
	    (c = view_strcmp(a->daddr_dso, b->daddr_dso)))
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
	if (s && (arch_payload_order_known(s) || walltime_order_known(s))) {
		*out = s;
		return 0;
	}
	return errmsg_set(em, -EINVAL, "known orders: %s, %s, %s", VIEW_ORDER_DEFAULT,
			  arch_payload_order_keys(), walltime_order_keys());
}

/* A data address's mapping as perf report --mem-mode names it: the DSO's
 * short name, "anon" for an anonymous map (its "//anon" cut after the
 * last '/', as perf does). */
static const char *view_daddr_map(const struct dso *d)
{
	const char *name;

	if (!d)
		return view_unknown;
	name = dso_short_name(d);
	return strcmp(name, "//anon") == 0 ? "anon" : name;
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
		r->synthetic = dso_symbol_synthetic(e->dso, e->sym);
	}
	if (key[SORT_DADDR_DSO]) {
		r->has_daddr_dso = true;
		r->daddr_dso = view_daddr_map(e->ddso);
	}
	if (key[SORT_DADDR_SYM]) {
		r->has_daddr_sym = true;
		r->daddr_sym = e->dsym && e->dsym->name ? e->dsym->name : view_daddr_map(e->ddso);
	}
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
	if ((c = view_strcmp(a->row.daddr_dso, b->row.daddr_dso)) ||
	    (c = view_strcmp(a->row.daddr_sym, b->row.daddr_sym)))
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
				t->row.synthetic = d->synthetic;
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
	size_t n = hist_count(h), i, nr = 0, tree_rows;
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
	tree_rows = opts->tree_rows;
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

	/* The chains do not keep the data address: a row of one would get
	 * the trees of every data row of its functions. */
	if (key[SORT_DADDR_DSO] || key[SORT_DADDR_SYM])
		tree_rows = 0;
	rows = nr ? xmalloc(nr * sizeof(*rows)) : NULL;
	if (nr && snap->payload_rows)
		snap->payload_store = xmalloc(nr * snap->payload->stats_size);
	for (i = 0; i < nr; i++) {
		rows[i] = tmp[i].row;
		if (snap->payload_store) {
			unsigned char *st = snap->payload_store + i * snap->payload->stats_size;

			/* An inlined level's row has no samples of its own
			   (view_rows_expand): its stats are all zero. */
			if (tmp[i].row.payload)
				memcpy(st, tmp[i].row.payload, snap->payload->stats_size);
			else
				memset(st, 0, snap->payload->stats_size);
			rows[i].payload = st;
		}
		if (snap->callchains && i < tree_rows && expand)
			snap->callchain_nodes_dropped +=
				view_build_trees_x(h, &dt, tmp[i].df, key, opts, snap, &rows[i]);
	}
	/* The first rows' trees, in one pass over the chains. */
	if (snap->callchains && !expand && tree_rows && nr) {
		size_t nt = nr < tree_rows ? nr : tree_rows;
		const struct hist_entry **es = xmalloc(nt * sizeof(*es));

		for (i = 0; i < nt; i++)
			es[i] = hist_entry_at(h, tmp[i].entry);
		snap->callchain_nodes_dropped += view_build_trees(h, es, nt, key, opts, snap, rows);
		free(es);
	}
	free(tmp);
	free(merged_pm);
	snap->rows = rows;
	snap->nr_rows = nr;
	if (snap->callchains && opts->stacks)
		view_build_stacks(hist_callchains(h), expand ? &dt : NULL, snap,
				  opts->stack_detail);
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
	annotate_report_free(snap->annotate);
	snap->annotate = NULL;
	snap->nr_rows = 0;
	free(snap->payload_store);
	snap->payload_store = NULL;
	free(snap->payload_total);
	snap->payload_total = NULL;
	free(snap->stacks);
	free(snap->stack_frames);
	free(snap->stack_addrs);
	view_frames_pool_unref(snap->stack_pool);
	snap->stack_pool = NULL;
	snap->stack_addrs = NULL;
	snap->stacks = NULL;
	snap->frame_ids_of = NULL;
	snap->stack_frames = NULL;
	snap->nr_stacks = 0;
}
