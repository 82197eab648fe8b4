/* Printing --annotate's report: text after the batch table, JSON inside
 * the refresh's object. */
#include "config.h"

#include "annotate-out.h"

#include <stdlib.h>
#include <string.h>

#include "payload.h"
#include "textfmt.h"
#include "util.h"
#include "view.h"

static double annotate_out_percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void annotate_out_bytes(struct strbuf *sb, const struct annotate_line *l)
{
	size_t k;

	for (k = 0; k < l->size; k++)
		strbuf_addf(sb, "%s%02x", k ? " " : "", l->bytes[k]);
}

void annotate_out_target(struct strbuf *sb, const struct annotate_line *l)
{
	if (!l->target)
		return;
	if (!l->target_sym[0])
		strbuf_addf(sb, "0x%llx", (unsigned long long)l->target);
	else if (l->target_off)
		strbuf_addf(sb, "%s+0x%llx", l->target_sym, (unsigned long long)l->target_off);
	else
		strbuf_addstr(sb, l->target_sym);
}

int annotate_out_pwidth(const struct payload_ops *ops, const struct annotate_fn *f,
			       size_t col, struct strbuf *cell)
{
	size_t w = strlen(payload_title(ops, f->payload, col)), k;

	if (ops->columns[col].width > w)
		w = ops->columns[col].width;
	if (w < 7)
		w = 7;
	if (ops->columns[col].kind == PAYLOAD_NAME)
		return (int)w;
	for (k = 0; k < f->nr_lines; k++) {
		strbuf_reset(cell);
		payload_cell(cell, ops, f->lines[k].payload, f->payload, col);
		if (cell->len > w)
			w = cell->len;
	}
	return (int)w;
}

void annotate_out_pcells(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
			 const void *total, bool title, const int *widths)
{
	struct strbuf cell;
	size_t c;

	strbuf_init(&cell);
	for (c = 0; c < ops->nr_columns; c++) {
		int w = widths[c];

		if (w < 0)
			continue;
		strbuf_reset(&cell);
		if (title)
			strbuf_addstr(&cell, payload_title(ops, total, c));
		else
			payload_cell(&cell, ops, stats, total, c);
		if (ops->columns[c].kind == PAYLOAD_NAME)
			strbuf_addf(sb, " %-*.*s", w, w, cell.buf);
		else
			strbuf_addf(sb, " %*s", w, cell.buf);
	}
	strbuf_release(&cell);
}

bool annotate_out_source_starts(const struct annotate_fn *f, size_t k)
{
	const struct annotate_line *l = &f->lines[k];

	return l->source && (!k || l->source != l[-1].source || l->inlined != l[-1].inlined);
}

void annotate_out_source(struct strbuf *sb, const struct annotate_line *l)
{
	const char *base = strrchr(l->source, '/');

	strbuf_addstr(sb, base ? base + 1 : l->source);
	if (l->inlined)
		strbuf_addf(sb, " [inlined: %s]", l->inlined);
	if (l->source_text)
		strbuf_addf(sb, "  %s", l->source_text);
}

void annotate_out_text(struct strbuf *sb, const struct annotate_report *r)
{
	size_t i, k;

	for (i = 0; i < r->nr_unmatched; i++)
		strbuf_addf(sb, "annotate %s: no sampled function of that name yet\n\n",
			    r->unmatched[i]);
	for (i = 0; i < r->nr_fns; i++) {
		const struct annotate_fn *f = &r->fns[i];
		int *pw = NULL;

		strbuf_addf(sb, "Annotate %s [%s] 0x%llx, %llu bytes: %llu samples, period %llu\n",
			    f->symbol, f->dso, (unsigned long long)f->start,
			    (unsigned long long)f->size, (unsigned long long)f->samples,
			    (unsigned long long)f->period);
		if (f->note)
			strbuf_addf(sb, "  (%s)\n", f->note);
		strbuf_addstr(sb, " Percent   Samples  Address         ");
		/* Payload columns for a function with payload samples. */
		if (r->payload && f->payload) {
			struct strbuf cell;

			strbuf_init(&cell);
			pw = xcalloc(r->payload->nr_columns, sizeof(*pw));
			for (k = 0; k < r->payload->nr_columns; k++)
				pw[k] = annotate_out_pwidth(r->payload, f, k, &cell);
			strbuf_release(&cell);
			annotate_out_pcells(sb, r->payload, NULL, f->payload, true, pw);
		}
		strbuf_addstr(sb, "  Instruction\n");
		for (k = 0; k < f->nr_lines; k++) {
			const struct annotate_line *l = &f->lines[k];
			struct strbuf pct;

			/* Its source line above the instructions it produced. */
			if (annotate_out_source_starts(f, k)) {
				strbuf_addf(sb, "%38s; ", "");
				annotate_out_source(sb, l);
				strbuf_addch(sb, '\n');
			}
			strbuf_init(&pct);
			textfmt_fixed(&pct, annotate_out_percent(l->period, f->period), 2);
			strbuf_addf(sb, "%7s%%  %8llu  %16llx", pct.buf,
				    (unsigned long long)l->samples, (unsigned long long)l->addr);
			if (pw)
				annotate_out_pcells(sb, r->payload, l->payload, f->payload, false,
						    pw);
			strbuf_addf(sb, "  %s", l->text);
			if (l->target) {
				strbuf_addstr(sb, "  <");
				annotate_out_target(sb, l);
				strbuf_addch(sb, '>');
			}
			strbuf_addch(sb, '\n');
			strbuf_release(&pct);
		}
		strbuf_addch(sb, '\n');
		free(pw);
	}
}

/* ,"key":"value" when there is a value. */
static void annotate_out_json_opt(struct strbuf *sb, const char *key, const char *value)
{
	if (!value)
		return;
	strbuf_addf(sb, ",\"%s\":", key);
	strbuf_add_json_string(sb, value);
}

void annotate_out_json(struct strbuf *sb, const struct annotate_report *r)
{
	size_t i, k;

	strbuf_addstr(sb, ",\"annotate\":[");
	for (i = 0; i < r->nr_fns; i++) {
		const struct annotate_fn *f = &r->fns[i];

		if (i)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, "{\"symbol\":");
		strbuf_add_json_string(sb, f->symbol);
		strbuf_addstr(sb, ",\"dso\":");
		strbuf_add_json_string(sb, f->dso);
		strbuf_addstr(sb, ",\"dso_path\":");
		strbuf_add_json_string(sb, f->dso_path);
		strbuf_addf(sb, ",\"start\":%llu,\"size\":%llu,\"samples\":%llu,\"period\":%llu",
			    (unsigned long long)f->start, (unsigned long long)f->size,
			    (unsigned long long)f->samples, (unsigned long long)f->period);
		annotate_out_json_opt(sb, "note", f->note);
		if (r->payload && f->payload) {
			strbuf_addf(sb, ",\"%s\":", r->payload->name);
			payload_json(sb, r->payload, f->payload, f->payload);
		}
		strbuf_addstr(sb, ",\"instructions\":[");
		for (k = 0; k < f->nr_lines; k++) {
			const struct annotate_line *l = &f->lines[k];

			if (k)
				strbuf_addch(sb, ',');
			strbuf_addf(sb, "{\"addr\":%llu,\"offset\":%llu,\"bytes\":\"",
				    (unsigned long long)l->addr,
				    (unsigned long long)(l->addr - f->start));
			annotate_out_bytes(sb, l);
			strbuf_addstr(sb, "\",\"text\":");
			strbuf_add_json_string(sb, l->text);
			strbuf_addf(sb, ",\"samples\":%llu,\"period\":%llu,\"percent\":",
				    (unsigned long long)l->samples, (unsigned long long)l->period);
			textfmt_fixed(sb, annotate_out_percent(l->period, f->period), 2);
			if (l->target) {
				struct strbuf t;

				strbuf_init(&t);
				annotate_out_target(&t, l);
				strbuf_addstr(sb, ",\"target\":");
				strbuf_add_json_string(sb, t.buf);
				strbuf_addf(sb, ",\"target_addr\":%llu,\"call\":%s",
					    (unsigned long long)l->target, l->call ? "true" : "false");
				strbuf_release(&t);
			}
			annotate_out_json_opt(sb, "source", l->source);
			annotate_out_json_opt(sb, "inlined", l->inlined);
			if (r->payload && l->payload) {
				strbuf_addf(sb, ",\"%s\":", r->payload->name);
				payload_json(sb, r->payload, l->payload, f->payload);
			}
			strbuf_addch(sb, '}');
		}
		strbuf_addstr(sb, "]}");
	}
	strbuf_addch(sb, ']');
	if (!r->nr_unmatched)
		return;
	strbuf_addstr(sb, ",\"annotate_unmatched\":[");
	for (i = 0; i < r->nr_unmatched; i++) {
		if (i)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, r->unmatched[i]);
	}
	strbuf_addch(sb, ']');
}
