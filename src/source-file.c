/* The replay source over perfdata.c: its records in time order, a batch
 * per read; damage at the very end is shown as a notice, not an error. */
#include "config.h"

#include "source-file.h"

#include <errno.h>
#include <stdlib.h>

#include "dump.h"
#include "errmsg.h"
#include "perfdata.h"
#include "util.h"

/* Records per read: between two, the engine looks for a stop request. */
#define SOURCE_FILE_BATCH 1024

struct source_file {
	struct source src;           /* first: the ops */
	struct perfdata *file;
	const struct perfdata_event *event;
	bool done;                   /* every record read */
};

/* The next record, or 0 at the end, or -errno; damage at the end of the
 * file ends it with a notice (the records before it are good). */
static int source_file_next(struct source_file *s, struct perfdata_record *rec)
{
	int rc;

	if (s->done)
		return 0;
	rc = perfdata_next(s->file, rec);
	if (rc > 0)
		return rc;
	s->done = true;
	if (rc < 0 && perfdata_damage_at_end(s->file)) {
		msg_notice("%s (showing the records before it)", perfdata_error(s->file));
		return 0;
	}
	return rc;
}

static long source_file_read(struct source *src, source_record_cb cb, void *ctx)
{
	struct source_file *s = (struct source_file *)src;
	struct perfdata_record rec;
	long n;
	int rc = 0;

	for (n = 0; n < SOURCE_FILE_BATCH && (rc = source_file_next(s, &rec)) > 0; n++)
		cb(rec.hdr, &rec.event->attr, ctx);
	return rc < 0 ? rc : n;
}

static const char *source_file_error(const struct source *src)
{
	return perfdata_error(((const struct source_file *)src)->file);
}

static void source_file_close(struct source *src)
{
	struct source_file *s = (struct source_file *)src;

	perfdata_close(s->file);
	free(s);
}

static const struct source_ops source_file_ops = {
	.read = source_file_read,
	.error = source_file_error,
	.close = source_file_close,
};

int source_file_open(const char *path, bool dump, struct source **out, struct errmsg *em)
{
	struct source_file *s = xcalloc(1, sizeof(*s));
	size_t i;
	int err = perfdata_open(path, &s->file, em);

	if (err < 0) {
		free(s);
		return err;
	}
	s->src.ops = &source_file_ops;
	if (perfdata_nr_events(s->file) == 0) {
		source_file_close(&s->src);
		return errmsg_set(em, -EINVAL, "%s: the recording has no events", path);
	}
	/* perf adds a dummy event for side-band records: count the first
	 * real one. */
	s->event = perfdata_get_event(s->file, 0);
	for (i = 0; i < perfdata_nr_events(s->file); i++) {
		const struct perfdata_event *ev = perfdata_get_event(s->file, i);

		if (!(ev->attr.type == PERF_TYPE_SOFTWARE &&
		      ev->attr.config == PERF_COUNT_SW_DUMMY)) {
			s->event = ev;
			break;
		}
	}
	if (dump)
		perfdata_set_file_order(s->file, true);
	*out = &s->src;
	return 0;
}

const struct perfdata_info *source_file_info(const struct source *src)
{
	return perfdata_get_info(((const struct source_file *)src)->file);
}

const struct perfdata_event *source_file_event(const struct source *src)
{
	return ((const struct source_file *)src)->event;
}

const struct perfdata_event *source_file_event_at(const struct source *src, size_t i)
{
	const struct source_file *s = (const struct source_file *)src;

	return i < perfdata_nr_events(s->file) ? perfdata_get_event(s->file, i) : NULL;
}

double source_file_seconds(const struct source *src)
{
	const struct perfdata_info *info = source_file_info(src);

	if (info->last_sample_time > info->first_sample_time)
		return (double)(info->last_sample_time - info->first_sample_time) / 1e9;
	return 0;
}

int source_file_dump(struct source *src, FILE *out)
{
	struct source_file *s = (struct source_file *)src;
	struct perfdata_record rec;
	int rc;

	dump_header(out, s->file);
	while ((rc = source_file_next(s, &rec)) > 0)
		dump_record(out, &rec);
	return rc;
}
