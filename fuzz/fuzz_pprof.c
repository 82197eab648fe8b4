/* Fuzz target: the pprof reader (ui/pprof-read.c), the pprof writer read
 * back (ui/pprof.c), and the baseline reader (ui/baseline.c: pprof or
 * folded stacks).  Besides crashes, it checks what the users of the
 * decoder rely on: every index it hands out is in range; a profile it
 * accepts, turned into stacks and written again, reads back with the same
 * stacks, names and values; a baseline it accepts gives shares between 0
 * and 100 that add up to at most 100. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "fuzz.h"
#include "pprof-read.h"
#include "pprof.h"
#include "strbuf.h"
#include "util.h"
#include "view.h"

/* Bounds everything the decoder gives out, and reads every string. */
static void fz_check(const struct pprof_profile *p)
{
	size_t i, j;

	for (i = 0; i < p->nr_strs; i++)
		(void)fuzz_touch(p->strs[i], strlen(p->strs[i]) + 1);
	if (!p->nr_strs || p->strs[0][0])
		abort();
	for (i = 0; i < p->nr_samples; i++) {
		const struct pprof_sample *s = &p->samples[i];

		if (s->first_loc + s->nr_locs > p->nr_sample_locs ||
		    s->first_label + s->nr_labels > p->nr_labels ||
		    s->first_value + p->nr_types > p->nr_samples * p->nr_types)
			abort();
		for (j = 0; j < s->nr_locs; j++)
			if (p->sample_locs[s->first_loc + j] >= p->nr_locations)
				abort();
	}
	for (i = 0; i < p->nr_labels; i++)
		if (p->labels[i].key >= p->nr_strs || p->labels[i].str >= p->nr_strs)
			abort();
	for (i = 0; i < p->nr_locations; i++) {
		const struct pprof_location *l = &p->locations[i];

		if (l->mapping > p->nr_mappings || l->first_line + l->nr_lines > p->nr_lines)
			abort();
	}
	for (i = 0; i < p->nr_lines; i++)
		if (p->lines[i].function >= p->nr_functions)
			abort();
	for (i = 0; i < p->nr_functions; i++)
		if (p->functions[i].name >= p->nr_strs || p->functions[i].filename >= p->nr_strs ||
		    p->functions[i].system_name >= p->nr_strs)
			abort();
	for (i = 0; i < p->nr_mappings; i++)
		if (p->mappings[i].filename >= p->nr_strs || p->mappings[i].build_id >= p->nr_strs)
			abort();
}

/* The name a frame gets in what the writer writes. */
static const char *fz_written_name(const struct snapshot_frame *f, char *buf, size_t size)
{
	if (strcmp(f->symbol, "[unknown]") == 0 && strcmp(f->dso, "[unknown]") != 0 &&
	    f->dso[0] != '[') {
		snprintf(buf, size, "[%s]", f->dso);
		return buf;
	}
	return f->symbol;
}

/* p's samples as a snapshot's stacks (one frame per Location: the
 * function the others were inlined into), written, read back, compared. */
static void fz_round_trip(const struct pprof_profile *p)
{
	struct snapshot snap = { .event = "cpu-clock", .callchains = true };
	struct snapshot_stack *st;
	struct snapshot_frame *fr;
	struct pprof_profile q;
	struct strbuf out;
	size_t i, j, k, nf = 0, n = 0;
	/* The writer's buffer for "[dso]" names is as long. */
	char a[256];

	if (p->nr_types < 1 || p->nr_samples > 4096 || p->nr_sample_locs > 65536)
		return;
	st = calloc(p->nr_samples + 1, sizeof(*st));
	fr = calloc(p->nr_sample_locs + 1, sizeof(*fr));
	for (i = 0; i < p->nr_samples; i++) {
		const struct pprof_sample *s = &p->samples[i];
		int64_t v0 = p->values[s->first_value], v1 = p->values[s->first_value + p->nr_types - 1];

		/* The writer leaves out what has neither samples nor period. */
		if (v0 <= 0 && v1 <= 0)
			continue;
		st[n].frames = fr + nf;
		st[n].nr_frames = s->nr_locs;
		st[n].samples = v0 > 0 ? (uint64_t)v0 : 0;
		st[n].period = v1 > 0 ? (uint64_t)v1 : 0;
		for (j = 0; j < s->nr_locs; j++) {
			const struct pprof_location *l = &p->locations[p->sample_locs[s->first_loc +
										    s->nr_locs - 1 - j]];
			const char *path = l->mapping ?
				pprof_str_at(p, p->mappings[l->mapping - 1].filename) : "";
			const char *slash = strrchr(path, '/');

			fr[nf].symbol = l->nr_lines ?
				pprof_str_at(p, p->functions[p->lines[l->first_line + l->nr_lines - 1]
								    .function].name) :
				"[unknown]";
			fr[nf].dso = !path[0] ? "[unknown]" : slash && slash[1] ? slash + 1 : path;
			nf++;
		}
		n++;
	}
	snap.stacks = st;
	snap.nr_stacks = n;
	if (sort_spec_parse("dso,sym", &snap.sort, NULL))
		abort();
	strbuf_init(&out);
	pprof_encode(&out, &snap, "fuzz", 0);
	/* What proftop writes, it reads. */
	if (pprof_decode((const unsigned char *)out.buf, out.len, &q, NULL))
		abort();
	fz_check(&q);
	if (q.nr_samples != n || q.nr_types != 2)
		abort();
	for (i = 0; i < n; i++) {
		const struct pprof_sample *s = &q.samples[i];

		if ((uint64_t)q.values[s->first_value] != st[i].samples ||
		    (uint64_t)q.values[s->first_value + 1] != st[i].period || s->nr_locs > st[i].nr_frames)
			abort();
		/* Leaf first, one frame a Location. */
		for (j = k = 0; j < s->nr_locs; j++) {
			const struct pprof_location *l = &q.locations[q.sample_locs[s->first_loc + j]];
			const struct snapshot_frame *f = &st[i].frames[st[i].nr_frames - 1 - k++];
			const char *got = pprof_str_at(&q, q.functions[q.lines[l->first_line].function].name);

			if (l->nr_lines != 1 || strcmp(got, fz_written_name(f, a, sizeof(a))) != 0)
				abort();
		}
	}
	pprof_profile_release(&q);
	strbuf_release(&out);
	free(st);
	free(fr);
}

/* A baseline of the input, applied to a small table. */
static void fz_baseline(const uint8_t *data, size_t size)
{
	struct snapshot_row rows[2] = {
		{ .self = 60, .samples = 6, .period = 6, .comm = "wl", .dso = "wl", .symbol = "leaf" },
		{ .self = 40, .samples = 4, .period = 4, .comm = "wl", .dso = "[unknown]",
		  .symbol = "[unknown]" },
	};
	struct snapshot snap = { .event = "cpu-clock", .period = 10, .samples = 10, .nr_rows = 2 };
	struct baseline *bl;
	char *buf = malloc(size + 1);
	double sum = 0;
	size_t i;

	memcpy(buf, data, size);
	if (baseline_parse("fuzz", buf, size, &bl, NULL) == 0) {
		snap.rows = malloc(sizeof(rows));
		memcpy(snap.rows, rows, sizeof(rows));
		if (sort_spec_parse("comm,dso,sym", &snap.sort, NULL))
			abort();
		/* Twice: the second replaces the first's gone rows. */
		for (i = 0; i < 2; i++)
			if (baseline_apply(bl, &snap, NULL, NULL) == 0 && snap.nr_rows != 2 + snap.nr_gone)
				abort();
		for (i = 0; snap.baseline && i < snap.nr_rows; i++) {
			if (snap.rows[i].baseline < 0 || snap.rows[i].baseline > 100.0001)
				abort();
			sum += snap.rows[i].baseline;
			(void)fuzz_touch(snap.rows[i].symbol, strlen(snap.rows[i].symbol));
		}
		if (sum > 100.01)
			abort();
		snapshot_release(&snap);
		baseline_free(bl);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pprof_profile p;
	unsigned char *raw = NULL, *copy;
	size_t n = size;

	/* gzip is inflated first (bounded), anything else decoded as is. */
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if (pprof_gunzip(data, size, 1 << 22, &raw, &n, NULL) == 0) {
			copy = raw;
		} else {
			fz_baseline(data, size);
			return 0;
		}
	} else {
		/* An exactly sized copy: ASan then sees any read past the end. */
		copy = malloc(size ? size : 1);
		memcpy(copy, data, size);
	}
	if (pprof_decode(copy, n, &p, NULL) == 0) {
		fz_check(&p);
		fz_round_trip(&p);
	}
	pprof_profile_release(&p);
	free(copy);
	fz_baseline(data, size);
	return 0;
}
