/* Fuzz target: the AMD IBS Op and Fetch decoders, their -D lines and row
 * counters (src/arch/amd-ibs.c), fed as an unaligned raw payload whose
 * caps word may claim registers past its end; the first byte picks the
 * family 19h errata.  The data address hook (-s daddr_sym) too. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "amd-ibs.h"
#include "fuzz.h"
#include "payload.h"
#include "textfmt.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_op op;
	struct ibs_fetch f;
	struct ibs_op_stats os, os2;
	struct ibs_fetch_stats fs;
	char dump[IBS_DUMP_MAX], small[24];
	uint32_t fam = size && (data[0] & 1) ? 0x19 : 0x17, model = size ? data[0] >> 4 : 0;
	uint8_t *raw;
	int n;

	/* a heap copy of exactly size bytes, at an odd address when the input
	 * says so: the payload follows a u32 in the record */
	raw = malloc(size + 1);
	memcpy(raw + (size & 1), data, size);
	memset(&os, 0, sizeof(os));
	memset(&fs, 0, sizeof(fs));
	if (ibs_op_decode(raw + (size & 1), (uint32_t)size, fam, model, &op) == 0) {
		n = ibs_op_format_dump(&op, dump, sizeof(dump));
		if (n < 0 || n >= IBS_DUMP_MAX || strlen(dump) != (size_t)n)
			abort(); /* the header promises the maximum */
		ibs_op_format_dump(&op, small, sizeof(small));
		if (strlen(small) >= sizeof(small))
			abort();
		if ((unsigned)op.src >= IBS_SRC_NR || size < IBS_OP_RAW_MIN)
			abort();
		ibs_op_stats_add(&os, &op);
		{
			uint64_t addr = 0;

			/* a data address only for a valid load or store's */
			if (ibs_op_payload.data_addr(&op, &addr) !=
			    ((op.ld || op.st) && op.dc_lin_valid))
				abort();
			if (op.dc_lin_valid && (op.ld || op.st) && addr != op.dc_lin)
				abort();
		}
		os2 = os;
		ibs_op_payload.stats_merge(&os2, &os);
		ibs_op_payload.stats_decay(&os2, 7, 8);
		if ((unsigned)ibs_op_stats_dominant_src(&os2) >= IBS_SRC_NR)
			abort();
		{
			struct strbuf sb;
			size_t c;

			strbuf_init(&sb);
			payload_json(&sb, &ibs_op_payload, &os, &os);
			ibs_op_payload.format_detail(&sb, &os, 40);
			for (c = 0; c < ibs_op_payload.nr_columns; c++)
				(void)payload_value(&ibs_op_payload, &os, &os, c);
			strbuf_release(&sb);
		}
	}
	if (ibs_fetch_decode(raw + (size & 1), (uint32_t)size, fam, model, &f) == 0) {
		n = ibs_fetch_format_dump(&f, dump, sizeof(dump));
		if (n < 0 || n >= IBS_DUMP_MAX || strlen(dump) != (size_t)n)
			abort();
		if (size < IBS_FETCH_RAW_MIN)
			abort();
		ibs_fetch_stats_add(&fs, &f);
	}
	if (size >= 1)
		(void)strlen(ibs_src_name((enum ibs_src)data[0]));
	free(raw);
	return 0;
}
