/* Fuzz target: the perf.data reader (src/perfdata.c) from memory, every
 * record it hands out then decoded with its event's attr (src/record.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fuzz.h"
#include "perfdata.h"
#include "perfdata-test.h"
#include "record.h"

/* Enough to read every record of an input within libFuzzer's size limits
 * while bounding a pathological one. */
#define MAX_RECORDS 100000

static unsigned touch_str(const char *s)
{
	return s ? fuzz_touch(s, strlen(s)) : 0;
}

/* Where touched bytes go, so that the reads are not optimised away. */
static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata *pd;
	const struct perfdata_info *info;
	struct perfdata_record rec;
	struct errmsg em = ERRMSG_INIT;
	size_t i, n = 0;
	int rc;

	if (perfdata_open_memory(data, size, "fuzz", &pd, &em)) {
		if (!em.text[0])
			abort();    /* a failed open must say why */
		return 0;
	}
	/* The low bit of the size picks the order: both paths get fuzzed. */
	perfdata_set_file_order(pd, size & 1);
	info = perfdata_get_info(pd);
	sink += touch_str(info->hostname) + touch_str(info->osrelease) +
		touch_str(info->version) + touch_str(info->arch) + touch_str(info->cmdline);
	for (i = 0; i < info->nbuild_ids; i++) {
		sink += touch_str(info->build_ids[i].filename);
		if (info->build_ids[i].size > 20)
			abort();
	}
	for (i = 0; i < perfdata_nr_events(pd); i++) {
		const struct perfdata_event *ev = perfdata_get_event(pd, i);

		sink += touch_str(ev->name);
		if (ev->nids)
			sink += fuzz_touch(ev->ids, ev->nids * 8);
	}
	while (n++ < MAX_RECORDS && (rc = perfdata_next(pd, &rec)) == 1) {
		struct record r;

		if (!rec.event || rec.hdr->size < 8)
			abort();
		sink += fuzz_touch(rec.hdr, rec.hdr->size);
		if (record_decode(rec.hdr, &rec.event->attr, &r, NULL) == 0 &&
		    r.kind == RECORD_MMAP)
			sink += touch_str(r.u.mmap.filename);
	}
	if (n <= MAX_RECORDS && rc < 0)
		sink += touch_str(perfdata_error(pd));
	perfdata_close(pd);
	return 0;
}
