/* The generic side of payload columns: values and titles with the
 * decoder's hooks optional, --order keys, and a JSON object for decoders
 * that do not write their own. */
#include "config.h"

#include "payload.h"

#include <string.h>

#include "textfmt.h"
#include "util.h"

void payload_u64_merge(void *dst, const void *src, size_t size)
{
	uint64_t d, s;
	size_t i;

	/* Copies rather than casts keep strict aliasing out of it. */
	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&d, (char *)dst + i, 8);
		memcpy(&s, (const char *)src + i, 8);
		d += s;
		memcpy((char *)dst + i, &d, 8);
	}
}

void payload_u64_decay(void *stats, size_t size, unsigned num, unsigned den)
{
	uint64_t w;
	size_t i;

	if (!den)
		return;
	for (i = 0; i + 8 <= size; i += 8) {
		memcpy(&w, (char *)stats + i, 8);
		w = (w / den) * num + (w % den) * num / den;
		memcpy((char *)stats + i, &w, 8);
	}
}

double payload_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : -1.0;
}

double payload_value(const struct payload_ops *ops, const void *stats, const void *total,
		     size_t col)
{
	if (!ops || !stats || col >= ops->nr_columns || !ops->stats_samples(stats) ||
	    !ops->column_value)
		return -1.0;
	return ops->column_value(stats, total, col);
}

const char *payload_name(const struct payload_ops *ops, const void *stats, size_t col)
{
	if (!ops || !stats || col >= ops->nr_columns || !ops->stats_samples(stats) ||
	    !ops->column_name)
		return NULL;
	return ops->column_name(stats, col);
}

void payload_cell(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
		  const void *total, size_t col)
{
	const struct payload_column *p = &ops->columns[col];
	const char *name;
	double v;

	if (p->kind == PAYLOAD_NAME) {
		name = payload_name(ops, stats, col);
		strbuf_addstr(sb, name ? name : "-");
		return;
	}
	v = payload_value(ops, stats, total, col);
	if (v < 0) {
		strbuf_addch(sb, '-');
		return;
	}
	textfmt_fixed(sb, v, p->kind == PAYLOAD_COUNT ? 0 : 1);
	if (p->kind == PAYLOAD_PERCENT)
		strbuf_addch(sb, '%');
}

const char *payload_title(const struct payload_ops *ops, const void *total, size_t col)
{
	const char *t = NULL;

	if (!ops || col >= ops->nr_columns)
		return "?";
	if (ops->column_title && total)
		t = ops->column_title(total, col);
	return t ? t : ops->columns[col].title;
}

int payload_order_column(const struct payload_ops *ops, const char *key)
{
	size_t i;

	if (!ops || !key)
		return -1;
	for (i = 0; i < ops->nr_columns; i++)
		if (ops->columns[i].order_key && strcmp(ops->columns[i].order_key, key) == 0)
			return (int)i;
	return -1;
}

void payload_json(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
		  const void *total)
{
	size_t i;

	if (ops->format_json) {
		ops->format_json(sb, stats);
		return;
	}
	strbuf_addf(sb, "{\"samples\":%llu", (unsigned long long)ops->stats_samples(stats));
	for (i = 0; i < ops->nr_columns; i++) {
		const struct payload_column *c = &ops->columns[i];
		double v;

		if (!c->json_key)
			continue;
		strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, c->json_key);
		strbuf_addch(sb, ':');
		if (c->kind == PAYLOAD_NAME) {
			const char *s = payload_name(ops, stats, i);

			if (s)
				strbuf_add_json_string(sb, s);
			else
				strbuf_addstr(sb, "null");
			continue;
		}
		v = payload_value(ops, stats, total, i);
		if (v < 0)
			strbuf_addstr(sb, "null");
		else
			textfmt_fixed(sb, v, c->kind == PAYLOAD_COUNT ? 0 : 1);
	}
	strbuf_addch(sb, '}');
}
