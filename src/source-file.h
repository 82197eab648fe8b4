/* The replay source: a perf.data recording (perfdata.c), read in batches. */
#ifndef PROFTOP_SOURCE_FILE_H
#define PROFTOP_SOURCE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "source.h"

struct errmsg;
struct perfdata_info;
struct perfdata_event;

/* Open path ("-": the pipe format on stdin); dump: the records will be
 * printed in file order (source_file_dump).  Returns 0, or -errno with a
 * sentence for the user in em. */
int source_file_open(const char *path, bool dump, struct source **out, struct errmsg *em);

const struct perfdata_info *source_file_info(const struct source *src);
/* The event whose samples count: the first that is not perf's dummy
 * event for side-band records (a choice between several comes later). */
const struct perfdata_event *source_file_event(const struct source *src);
/* The recording's event i, or NULL past the last. */
const struct perfdata_event *source_file_event_at(const struct source *src, size_t i);
/* Seconds from the first to the last sample (0 when unknown). */
double source_file_seconds(const struct source *src);

/* -D: print the header, then every record.  Returns 0, or -errno (see
 * source_error). */
int source_file_dump(struct source *src, FILE *out);

#endif
