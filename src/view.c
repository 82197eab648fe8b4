/* Views: turn the hist into an immutable, filtered and sorted snapshot of
 * rows with percentages, which every renderer draws from. */
#include "config.h"

#include "view.h"

#include <stdlib.h>
#include <string.h>

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

static void view_fill_row(const struct hist_entry *e, const bool *key, double total,
			  struct snapshot_row *r)
{
	memset(r, 0, sizeof(*r));
	r->self = total > 0 ? 100.0 * (double)e->period / total : 0.0;
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
		r->symbol = e->sym && e->sym->name ? e->sym->name : view_unknown;
	}
}

void view_build(const struct hist *h, const struct view_opts *opts, struct snapshot *snap)
{
	const struct sort_spec *spec = hist_sort_spec(h);
	size_t n = hist_count(h), i, nr = 0;
	bool key[SORT__MAX] = { false };
	struct snapshot_row *rows;
	uint64_t kernel_period = 0;
	double total;

	for (i = 0; i < spec->n; i++)
		key[spec->keys[i]] = true;
	snap->sort = *spec;
	snap->samples = hist_total_samples(h);
	snap->period = hist_total_period(h);
	snap->nr_entries = n;
	/* Percentages are of everything sampled, hidden rows included, as
	 * perf's absolute percentages: hiding a row must not inflate others. */
	total = (double)snap->period;

	rows = n ? xmalloc(n * sizeof(*rows)) : NULL;
	for (i = 0; i < n; i++) {
		const struct hist_entry *e = hist_entry_at(h, i);

		if (e->kernel)
			kernel_period += e->period;
		if (opts && ((opts->hide_kernel && e->kernel) || (opts->hide_user && !e->kernel)))
			continue;
		view_fill_row(e, key, total, &rows[nr++]);
	}
	snap->kernel_period = kernel_period;

	if (nr > 1)
		qsort(rows, nr, sizeof(*rows), view_row_cmp);

	if (opts && opts->percent_limit > 0) {
		size_t kept = 0;

		/* Sorted by period, so self is non-increasing: but compare
		 * each row anyway rather than rely on float monotonicity. */
		for (i = 0; i < nr; i++)
			if (!(rows[i].self < opts->percent_limit))
				rows[kept++] = rows[i];
		nr = kept;
	}
	if (opts && opts->max_rows && nr > opts->max_rows)
		nr = opts->max_rows;

	if (!nr) {
		free(rows);
		rows = NULL;
	}
	snap->rows = rows;
	snap->nr_rows = nr;
}

void snapshot_release(struct snapshot *snap)
{
	free(snap->rows);
	snap->rows = NULL;
	snap->nr_rows = 0;
}
