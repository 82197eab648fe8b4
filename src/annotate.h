/* Per-instruction samples of the functions named by --annotate or opened
 * in the browser, aged like the table, and their view (code bytes from the
 * ELF, disassembled) at each refresh. */
#ifndef PROFTOP_ANNOTATE_H
#define PROFTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "view.h"

/* The report's types (annotate_report, annotate_fn, annotate_line) and
 * annotate_report_free are the snapshot's: view.h. */
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
/* n such samples at once, of period in all. */
void annotate_sample_n(struct annotate *a, const struct dso *dso, const struct symbol *sym,
		       uint64_t addr, uint64_t period, uint64_t n);

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

/* The view of every function a target matched, now (code read and
 * decoded once).  annotate_report_free is view.h's. */
struct annotate_report *annotate_report(struct annotate *a);

/* The browser, from its own thread (every call here takes the lock). */
/* Count symbol (in dso, its short name or path; NULL: any) from now on, as
 * if --annotate named it: the following reports carry it. */
void annotate_watch(struct annotate *a, const char *symbol, const char *dso);
/* Keep the counts of every function, so that any can be shown later
 * (annotate_report_of): for a recording, read once. */
void annotate_keep_all(struct annotate *a);
/* The view of the first function kept so far that symbol (in dso) names:
 * a report of that one function, or of none.  addr, when not 0, is an
 * address in it (a call's target): a function with no samples is found
 * there in the DSO of a function kept already. */
struct annotate_report *annotate_report_of(struct annotate *a, const char *symbol,
					   const char *dso, uint64_t addr);
/* The engine thread, before a report: names (--annotate's, or
 * annotate_watch's) that no sample matched yet are looked for among h's
 * entries (a row with only children, say, such as main under -g), so that
 * they show, with no samples. */
void annotate_resolve(struct annotate *a, const struct hist *h);

#endif
