/* What a precise-sample payload decoder shows: per-row counters it keeps
 * (opaque, sized by the decoder), the table columns it declares, and the
 * text of its JSON object and detail pane.  The hist, the view and every
 * renderer use this and nothing of the decoder's own: a second decoder
 * (AMD IBS, Arm SPE) is one more table of these, in src/arch/.  No perf
 * ABI here (src/arch/arch.h has the decoding side). */
#ifndef PROFTOP_PAYLOAD_H
#define PROFTOP_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* How a column's value reads, and so how it is printed. */
enum payload_kind {
	PAYLOAD_PERCENT, /* percent of the row's payload samples: "80.0%" */
	PAYLOAD_MEAN,	 /* a mean over the row's samples: "45.5" */
	PAYLOAD_COUNT,	 /* a count: "12" */
	PAYLOAD_NAME,	 /* a name (left-aligned, cut to fit): "replay" */
};

struct payload_column {
	const char *title;     /* "Retired"; see payload_ops.column_title */
	const char *json_key;  /* "retired": its key in the generic JSON object */
	enum payload_kind kind;
	/* Width policy: a name column gets at most this many screen columns
	 * while other names need room; a number column at least this many
	 * (for a title that changes with the data).  0: none. */
	unsigned width;
	/* On a narrow screen, columns with the lowest rank give way first. */
	unsigned keep_rank;
	const char *order_key; /* its word for --order ("retired"), or NULL */
};

/* Every stats pointer points to stats_size bytes (a multiple of 8, the
 * alignment they need); all zero is empty stats. */
struct payload_ops {
	const char *name;  /* "profileme": the JSON keys (NAME{...}, NAME_samples,
			      not_NAME) */
	const char *title; /* "ProfileMe": the batch header and the pane */
	/* Optional: "ibs" for ibs_op and ibs_fetch: FAMILY_samples and
	 * not_FAMILY beside NAME's, one key whichever of the family. */
	const char *family;
	size_t stats_size;
	/* Count a decoded sample (the decoder's own struct) in a row. */
	void (*stats_add)(void *stats, const void *decoded);
	/* Count a sample of the row whose payload was not the decoder's. */
	void (*stats_add_other)(void *stats);
	/* dst += src. */
	void (*stats_merge)(void *dst, const void *src);
	/* x = x * num / den for every counter. */
	void (*stats_decay)(void *stats, unsigned num, unsigned den);
	/* The row's samples that had the payload. */
	uint64_t (*stats_samples)(const void *stats);
	/* The stats are uint64_t counters and nothing else, which stats_decay
	 * scales one by one (x * num / den, rounded down): then a row's
	 * stats split in parts (annotate's, per instruction) can be decayed
	 * part by part and still add up to the row's, field by field. */
	bool stats_counters;

	const struct payload_column *columns; /* in display order */
	size_t nr_columns;
	/* Column col's value for a row (total: every row's stats, for values
	 * relative to the whole table); negative when the row has none.
	 * Called only for rows with samples (payload_value checks). */
	double (*column_value)(const void *stats, const void *total, size_t col);
	/* A PAYLOAD_NAME column's text, or NULL when the row has none. */
	const char *(*column_name)(const void *stats, size_t col);
	/* Optional: a title that depends on the data, or NULL for the
	 * column's own. */
	const char *(*column_title)(const void *total, size_t col);

	/* Optional: the JSON object of a row's (or the total's) stats; when
	 * NULL, {"samples":N,KEY:VALUE...} from the columns. */
	void (*format_json)(struct strbuf *sb, const void *stats);
	/* Optional: more top-level JSON members about the total, each as
	 * ,"key":value. */
	void (*format_json_summary)(struct strbuf *sb, const void *total);
	/* Optional: the detail pane's lines for a row (each ends in '\n'),
	 * at most about width columns wide. */
	void (*format_detail)(struct strbuf *sb, const void *stats, size_t width);
	/* Optional: the data address a decoded sample's op accessed (a load's
	 * or store's linear address) into *addr, true when the payload gives
	 * a valid one.  NULL: the decoder's samples carry none (the daddr_dso
	 * and daddr_sym sort keys then need PERF_SAMPLE_ADDR). */
	bool (*data_addr)(const void *decoded, uint64_t *addr);
};

/* For stats made of uint64_t counters only: dst += src, and every counter
 * x = x * num / den without overflow for num <= den (den 0: unchanged). */
void payload_u64_merge(void *dst, const void *src, size_t size);
void payload_u64_decay(void *stats, size_t size, unsigned num, unsigned den);
/* 100 * part / whole, or -1 (no value) when whole is 0. */
double payload_pct(uint64_t part, uint64_t whole);

/* Column col's value for stats: negative when stats is NULL, has no
 * samples or the column no value. */
double payload_value(const struct payload_ops *ops, const void *stats, const void *total,
		     size_t col);
/* A PAYLOAD_NAME column's text, NULL when the row has none. */
const char *payload_name(const struct payload_ops *ops, const void *stats, size_t col);
/* Column col's cell for stats, as the tables print it: its value as its
 * kind says ("80.0%", "45.5", "12", a name), "-" when there is none. */
void payload_cell(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
		  const void *total, size_t col);
/* Column col's title for this data. */
const char *payload_title(const struct payload_ops *ops, const void *total, size_t col);
/* The column that --order key sorts by, or -1. */
int payload_order_column(const struct payload_ops *ops, const char *key);
/* The JSON object of stats (total as for payload_value): the decoder's,
 * or the generic one. */
void payload_json(struct strbuf *sb, const struct payload_ops *ops, const void *stats,
		  const void *total);

#endif
