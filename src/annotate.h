/* Per-instruction samples of the functions named by --annotate, aged like
 * the table, and their view (code bytes from the ELF, disassembled) at
 * each refresh. */
#ifndef PROFTOP_ANNOTATE_H
#define PROFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "view.h"

/* The report's types (annotate_report, annotate_fn, annotate_line) are
 * the snapshot's: view.h. */
struct annotate;
struct dso;
struct payload_ops;
struct symbol;

/* specs: "SYMBOL" or "SYMBOL@DSO" (DSO: its short name or full path). */
/* intel: Intel syntax on x86 (-M intel), else AT&T. */
struct annotate *annotate_new(const char *const *specs, size_t n, bool intel);
void annotate_free(struct annotate *a);

/* One sample the table counted as self of sym (in dso) at addr, in the
 * DSO's symbol space (hist_add's period, and one sample). */
void annotate_sample(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		     uint64_t addr, uint64_t period);

/* Samples of this system now (not a recording): the code of JIT functions
 * (named by a perf-PID.map) is then read from the process's memory. */
void annotate_set_live(struct annotate *a, bool live);

/* The data's payload decoder (hist_enable_payload's): from now on the
 * functions keep payload stats per instruction too. */
void annotate_enable_payload(struct annotate *a, const struct payload_ops *ops);

/* annotate_sample for a sample with a raw payload: decoded is the
 * decoder's struct, or NULL when the payload was not the decoder's
 * (hist_add_payload's arguments). */
void annotate_sample_payload(struct annotate *a, const struct dso *dso, const struct symbol *sym,
			     uint64_t addr, uint64_t period, const void *decoded);

/* What hist_age does to the table, to every count: per function, the
 * totals age as a hist entry's do and the lines share them (largest
 * remainders first), so that they still add up to the row's. */
void annotate_age(struct annotate *a, enum hist_mode mode);

/* The view of every matched function now (code read and decoded once). */
struct annotate_report *annotate_report(struct annotate *a);
void annotate_report_free(struct annotate_report *r);

#endif
