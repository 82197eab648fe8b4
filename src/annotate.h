/* Per-instruction samples of the functions named by --annotate, aged like
 * the table, and their view (code bytes from the ELF, disassembled) at
 * each refresh. */
#ifndef PROFTOP_ANNOTATE_H
#define PROFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"

struct annotate;
struct dso;
struct symbol;

/* One instruction of a function's view. */
struct annotate_line {
	uint64_t addr;               /* in the ELF's own address space, as objdump's */
	uint8_t size;                /* bytes: 0 for a sampled address that starts
					no instruction */
	uint8_t bytes[16];
	char text[200];              /* "mov %rsp, %rbp" (the raw bytes without Capstone) */
	uint64_t period, samples;    /* of the samples at addr */
};

/* One function matched by a --annotate name, as of a refresh. */
struct annotate_fn {
	char *spec;                  /* the --annotate argument it matched */
	char *symbol, *dso, *dso_path;
	uint64_t start, size;
	uint64_t period, samples;    /* the sum of its lines': the row's self */
	char *note;                  /* why there is no disassembly or it is cut, or NULL */
	struct annotate_line *lines;
	size_t nr_lines;
};

struct annotate_report {
	struct annotate_fn *fns;
	size_t nr_fns;
	char **unmatched;            /* specs no sampled function matched yet */
	size_t nr_unmatched;
};

/* specs: "SYMBOL" or "SYMBOL@DSO" (DSO: its short name or full path). */
/* intel: Intel syntax on x86 (-M intel), else AT&T. */
struct annotate *annotate_new(const char *const *specs, size_t n, bool intel);
void annotate_free(struct annotate *a);

/* One sample the table counted as self of sym (in dso) at addr, in the
 * DSO's symbol space (hist_add's period, and one sample). */
void annotate_sample(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		     uint64_t addr, uint64_t period);

/* What hist_age does to the table, to every count: per function, the
 * totals age as a hist entry's do and the lines share them (largest
 * remainders first), so that they still add up to the row's. */
void annotate_age(struct annotate *a, enum hist_mode mode);

/* The view of every matched function now (code read and decoded once). */
struct annotate_report *annotate_report(struct annotate *a);
void annotate_report_free(struct annotate_report *r);

#endif
