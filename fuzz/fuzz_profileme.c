/* Fuzz target: the Alpha ProfileMe payload decoder and its dump lines
 * (src/arch/alpha-profileme.c), fed as an unaligned raw sample payload. */
#include "config.h"

#include <elf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profileme pm;
	struct profileme_stats st, st2;
	char dump[PROFILEME_DUMP_MAX], small[16];
	uint8_t *raw;
	int n;

	/* A heap copy of exactly size bytes, at an odd address when the
	 * input says so: the payload follows a u32 in the record. */
	raw = malloc(size + 1);
	memcpy(raw + (size & 1), data, size);
	(void)profileme_applies(PERF_TYPE_RAW, EM_ALPHA, (uint32_t)size,
				profileme_raw_version(raw + (size & 1), (uint32_t)size));
	memset(&st, 0, sizeof(st));
	if (profileme_decode(raw + (size & 1), (uint32_t)size, &pm) == 0) {
		n = profileme_format_dump(&pm, dump, sizeof(dump));
		if (n < 0 || n >= PROFILEME_DUMP_MAX)
			abort();    /* the header promises the maximum */
		if (strlen(dump) != (size_t)n)
			abort();
		n = profileme_format_dump(&pm, small, sizeof(small));
		if (strlen(small) >= sizeof(small))
			abort();
		if (strlen(pm.trap_name) + strlen(pm.pctr1_name) == 0)
			abort();
		profileme_stats_add(&st, &pm);
		profileme_stats_add_other(&st);
		st2 = st;
		profileme_stats_merge(&st2, &st);
		profileme_stats_decay(&st2, 7, 8);
		if (profileme_stats_dominant_trap(&st2) >= PROFILEME_TRAP_NR)
			abort();
		(void)profileme_stats_traps(&st2);
	}
	/* The label functions take any value. */
	if (size >= 2) {
		(void)strlen(profileme_trap_label((enum profileme_trap)data[0]));
		(void)strlen(profileme_pctr1_name(data[1]));
		(void)strlen(profileme_mode_name((enum profileme_mode)(data[1] % 8)));
	}
	free(raw);
	return 0;
}
