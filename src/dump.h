/* -D/--dump: every record of a recording in file order, one block each,
 * for humans and for diffing (like perf report -D). */
#ifndef PROFTOP_DUMP_H
#define PROFTOP_DUMP_H

#include <stdio.h>

struct perfdata;
struct perfdata_record;

/* The file's header, attrs and features. */
void dump_header(FILE *out, const struct perfdata *pd);
/* One record. */
void dump_record(FILE *out, const struct perfdata_record *rec);

#endif
