/* -D/--dump: every record of a recording in file order, one block each,
 * for humans and for diffing (like perf report -D). */
#ifndef PROFTOP_DUMP_H
#define PROFTOP_DUMP_H

#include <stdint.h>
#include <stdio.h>

struct perfdata;
struct perfdata_record;

/* The file's header, attrs and features. */
void dump_header(FILE *out, const struct perfdata *pd);
/* One record. */
void dump_record(FILE *out, const struct perfdata_record *rec);

/* A sample's RAW payload: its bytes in hex, then what the decoder for the
 * recording's architecture (from dump_header) makes of them: the place
 * where arch payload decoders (src/arch/) add their lines. */
void dump_raw(FILE *out, const struct perfdata_record *rec, const void *raw, uint32_t size);

#endif
