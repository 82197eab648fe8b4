/* Reading a pprof profile.proto back (--baseline): gzip inflated with a
 * size bound, unpacked by protobuf-c within an allocation budget, then
 * every index and id checked, since a baseline file may come from
 * anywhere. */
#ifndef PROFTOP_PPROF_READ_H
#define PROFTOP_PPROF_READ_H

#include <stddef.h>
#include <stdint.h>

struct errmsg;

/* The most a profile may inflate to, and the most of each table: beyond,
 * the file is refused rather than let it take the machine's memory. */
#define PPROF_READ_MAX_BYTES (512u << 20)
#define PPROF_READ_MAX_VALUES 16

/* Strings are indexes in strs (checked: < nr_strs); ids are the file's. */
struct pprof_line {
	size_t function;             /* index in functions */
	int64_t line;
};

struct pprof_location {
	uint64_t id;
	size_t mapping;              /* index in mappings + 1, 0: none */
	uint64_t address;
	size_t first_line, nr_lines; /* in lines; innermost inlined first */
};

struct pprof_function {
	uint64_t id;
	uint64_t name, system_name, filename;
	int64_t start_line;
};

struct pprof_mapping {
	uint64_t id;
	uint64_t memory_start, memory_limit, file_offset;
	uint64_t filename, build_id;
	uint8_t has_functions, has_filenames, has_line_numbers, has_inline_frames;
};

struct pprof_label {
	uint64_t key, str;           /* str 0 ("") for a numeric label */
	int64_t num;
};

struct pprof_sample {
	size_t first_loc, nr_locs;   /* in sample_locs: location indexes, leaf first */
	size_t first_value;          /* in values: nr_types of them */
	size_t first_label, nr_labels;
};

struct pprof_profile {
	char **strs;                 /* NUL-terminated copies (a NUL inside is cut) */
	size_t nr_strs;
	uint64_t types[PPROF_READ_MAX_VALUES][2]; /* sample_type: type, unit */
	size_t nr_types;
	struct pprof_sample *samples;
	size_t nr_samples;
	size_t *sample_locs;
	size_t nr_sample_locs;
	int64_t *values;             /* nr_samples * nr_types */
	struct pprof_label *labels;
	size_t nr_labels;
	struct pprof_location *locations;
	size_t nr_locations;
	struct pprof_line *lines;
	size_t nr_lines;
	struct pprof_function *functions;
	size_t nr_functions;
	struct pprof_mapping *mappings;
	size_t nr_mappings;
	uint64_t period_type[2];
	int64_t period, time_nanos, duration_nanos;
	uint64_t default_sample_type;
};

/* Decode an uncompressed profile.proto message p[0..n) into *out (zeroed
 * first; pprof_profile_release it even on failure).  Returns 0, or
 * -EINVAL with em saying what is wrong (damaged or truncated wire data,
 * a string index out of range, a location id that names no location,
 * ...), -E2BIG over a bound. */
int pprof_decode(const unsigned char *p, size_t n, struct pprof_profile *out,
		 struct errmsg *em);

/* data[0..n) inflated from gzip (one or more members) into a malloc'd
 * *out, at most max bytes.  Returns 0, -EINVAL (not gzip, or damaged,
 * or truncated) or -E2BIG with em saying which. */
int pprof_gunzip(const void *data, size_t n, size_t max, unsigned char **out, size_t *out_n,
		 struct errmsg *em);

void pprof_profile_release(struct pprof_profile *p);

/* The string s of the profile ("" when out of range: only for indexes the
 * decoder has not checked). */
const char *pprof_str_at(const struct pprof_profile *p, uint64_t s);

#endif
