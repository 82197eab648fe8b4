/* The time columns (--wall, --off-cpu) as a payload: per-row time on the
 * CPU, blocked and waiting to run, and their share of the table's time. */
#include "config.h"

#include "walltime.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "util.h"

enum {
	WT_COL_ON,
	WT_COL_OFF,
	WT_COL_RUNQ,
	WT_COL_WALL,
};

/* The Wall column goes last on a narrow screen; Runq, a part of Off-CPU,
 * first. */
static const struct payload_column walltime_wall_columns[] = {
	[WT_COL_ON] = { "On-CPU", "on_cpu", PAYLOAD_PERCENT, 7, 2, "on-cpu" },
	[WT_COL_OFF] = { "Off-CPU", "off_cpu", PAYLOAD_PERCENT, 7, 2, "off-cpu" },
	[WT_COL_RUNQ] = { "Runq", "runq", PAYLOAD_PERCENT, 6, 1, "runq" },
	[WT_COL_WALL] = { "Wall", "wall", PAYLOAD_PERCENT, 7, 3, "wall" },
};

static const struct payload_column walltime_offcpu_columns[] = {
	{ "Runq", "runq", PAYLOAD_PERCENT, 6, 1, "runq" },
};

static void walltime_stats_add(void *stats, const void *decoded)
{
	struct walltime_stats *st = stats;
	const struct walltime_sample *s = decoded;

	st->samples += s->n;
	switch (s->kind) {
	case WALLTIME_ON:
		st->on_ns += s->ns;
		break;
	case WALLTIME_BLOCKED:
		st->blocked_ns += s->ns;
		break;
	case WALLTIME_RUNQ:
		st->runq_ns += s->ns;
		break;
	}
}

/* Every sample of these tables comes with its time. */
static void walltime_stats_add_other(void *stats)
{
	((struct walltime_stats *)stats)->samples++;
}

static void walltime_stats_merge(void *dst, const void *src)
{
	struct walltime_stats *d = dst;
	const struct walltime_stats *s = src;

	d->samples += s->samples;
	d->on_ns += s->on_ns;
	d->blocked_ns += s->blocked_ns;
	d->runq_ns += s->runq_ns;
}

static uint64_t walltime_scale(uint64_t x, unsigned num, unsigned den)
{
	return (uint64_t)((unsigned __int128)x * num / den);
}

static void walltime_stats_decay(void *stats, unsigned num, unsigned den)
{
	struct walltime_stats *st = stats;

	st->samples = walltime_scale(st->samples, num, den);
	st->on_ns = walltime_scale(st->on_ns, num, den);
	st->blocked_ns = walltime_scale(st->blocked_ns, num, den);
	st->runq_ns = walltime_scale(st->runq_ns, num, den);
}

/* A row whose samples decayed to 0 still has time to show. */
static uint64_t walltime_stats_samples(const void *stats)
{
	const struct walltime_stats *st = stats;

	return st->samples ? st->samples : st->on_ns || st->blocked_ns || st->runq_ns;
}

static uint64_t walltime_off_ns(const struct walltime_stats *st)
{
	return st->blocked_ns + st->runq_ns;
}

static uint64_t walltime_wall_ns(const struct walltime_stats *st)
{
	return st->on_ns + walltime_off_ns(st);
}

static double walltime_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double walltime_wall_value(const void *stats, const void *total, size_t col)
{
	const struct walltime_stats *st = stats;
	uint64_t all = total ? walltime_wall_ns(total) : 0;

	switch (col) {
	case WT_COL_ON:
		return walltime_pct(st->on_ns, all);
	case WT_COL_OFF:
		return walltime_pct(walltime_off_ns(st), all);
	case WT_COL_RUNQ:
		return walltime_pct(st->runq_ns, all);
	default:
		return walltime_pct(walltime_wall_ns(st), all);
	}
}

static double walltime_offcpu_value(const void *stats, const void *total, size_t col)
{
	const struct walltime_stats *st = stats;

	(void)col;
	return walltime_pct(st->runq_ns, total ? walltime_off_ns(total) : 0);
}

/* Times in ns, which the percents are made of. */
static void walltime_format_json(struct strbuf *sb, const void *stats)
{
	const struct walltime_stats *st = stats;

	strbuf_addf(sb, "{\"samples\":%llu,\"on_cpu_ns\":%llu,\"blocked_ns\":%llu,"
		    "\"runq_ns\":%llu,\"off_cpu_ns\":%llu,\"wall_ns\":%llu}",
		    (unsigned long long)st->samples, (unsigned long long)st->on_ns,
		    (unsigned long long)st->blocked_ns, (unsigned long long)st->runq_ns,
		    (unsigned long long)walltime_off_ns(st),
		    (unsigned long long)walltime_wall_ns(st));
}

static void walltime_format_detail(struct strbuf *sb, const void *stats, size_t width)
{
	const struct walltime_stats *st = stats;
	uint64_t wall = walltime_wall_ns(st);

	(void)width;
	strbuf_addf(sb, "  on the CPU %.1f ms (%.1f%%)  blocked %.1f ms (%.1f%%)  "
		    "waiting to run %.1f ms (%.1f%%)\n",
		    (double)st->on_ns / 1e6, walltime_pct(st->on_ns, wall),
		    (double)st->blocked_ns / 1e6, walltime_pct(st->blocked_ns, wall),
		    (double)st->runq_ns / 1e6, walltime_pct(st->runq_ns, wall));
}

/* The two tables differ in their columns only. */
#define WALLTIME_OPS(NAME, TITLE, COLUMNS, VALUE)                   \
	{                                                           \
		.name = NAME,                                       \
		.title = TITLE,                                     \
		.stats_size = sizeof(struct walltime_stats),        \
		.stats_add = walltime_stats_add,                    \
		.stats_add_other = walltime_stats_add_other,        \
		.stats_merge = walltime_stats_merge,                \
		.stats_decay = walltime_stats_decay,                \
		.stats_samples = walltime_stats_samples,            \
		.columns = COLUMNS,                                 \
		.nr_columns = ARRAY_SIZE(COLUMNS),                  \
		.column_value = VALUE,                              \
		.format_json = walltime_format_json,                \
		.format_detail = walltime_format_detail,            \
	}

const struct payload_ops walltime_wall =
	WALLTIME_OPS("wall", "Wall time", walltime_wall_columns, walltime_wall_value);
const struct payload_ops walltime_offcpu =
	WALLTIME_OPS("times", "Off-CPU time", walltime_offcpu_columns, walltime_offcpu_value);

/* The Wall table's columns hold every order word of both. */
bool walltime_order_known(const char *key)
{
	return key && payload_order_column(&walltime_wall, key) >= 0;
}

const char *walltime_order_keys(void)
{
	static char keys[128];
	size_t i, len = 0;

	if (keys[0])
		return keys;
	for (i = 0; i < walltime_wall.nr_columns && len < sizeof(keys); i++)
		len += (size_t)snprintf(keys + len, sizeof(keys) - len, "%s%s", len ? ", " : "",
					walltime_wall.columns[i].order_key);
	return keys;
}
