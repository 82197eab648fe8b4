/* Fuzz target: the record decoder (src/record.c) with an attr taken from
 * the input, so that every sample_type / read_format combination is tried. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fuzz.h"
#include "record.h"

/* Input: 48 bytes of attr (sample_type, read_format, branch_sample_type,
 * sample_regs_user, sample_regs_intr, then a word whose bit 0 is
 * sample_id_all, bit 1 freq and bits 8.. the period), then the record. */
#define ATTR_BYTES 48

static uint64_t word(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Where touched bytes go, so that the reads are not optimised away. */
static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;
	struct perf_event_header *hdr;
	struct record rec;
	struct errmsg em = ERRMSG_INIT;
	uint64_t flags, *buf;
	size_t len;

	if (size < ATTR_BYTES + sizeof(*hdr))
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.sample_type = word(data);
	attr.read_format = word(data + 8);
	attr.branch_sample_type = word(data + 16);
	attr.sample_regs_user = word(data + 24);
	attr.sample_regs_intr = word(data + 32);
	flags = word(data + 40);
	attr.sample_id_all = flags & 1;
	attr.freq = !!(flags & 2);
	attr.sample_period = flags >> 8;
	data += ATTR_BYTES;
	size -= ATTR_BYTES;

	/* Exactly as many bytes as the record claims, or fewer: the decoder
	 * is promised hdr->size readable bytes, and ASan sees one past. */
	len = size > 65535 ? 65535 : size;
	buf = malloc(len);
	memcpy(buf, data, len);
	hdr = (struct perf_event_header *)buf;
	if (hdr->size > len)
		hdr->size = (uint16_t)len;

	if (record_decode(hdr, &attr, &rec, &em) == 0) {
		switch (rec.kind) {
		case RECORD_SAMPLE:
			if (rec.u.sample.nr_callchain)
				sink += fuzz_touch(rec.u.sample.callchain,
						   rec.u.sample.nr_callchain * 8);
			if (rec.u.sample.raw)
				sink += fuzz_touch(rec.u.sample.raw, rec.u.sample.raw_size);
			/* The unwinder's input: registers and the stack copy. */
			if (rec.u.sample.regs)
				sink += fuzz_touch(rec.u.sample.regs, rec.u.sample.nr_regs * 8);
			if (rec.u.sample.stack)
				sink += fuzz_touch(rec.u.sample.stack, rec.u.sample.stack_size);
			break;
		case RECORD_MMAP:
			sink += fuzz_touch(rec.u.mmap.filename, strlen(rec.u.mmap.filename));
			if (rec.u.mmap.has_build_id && rec.u.mmap.build_id_size > 20)
				abort();
			break;
		case RECORD_COMM:
			sink += fuzz_touch(rec.u.comm.comm, strlen(rec.u.comm.comm));
			break;
		case RECORD_KSYMBOL:
			sink += fuzz_touch(rec.u.ksymbol.name, strlen(rec.u.ksymbol.name));
			break;
		default:
			break;
		}
	} else if (!em.text[0]) {
		abort();    /* every failure must say why */
	}
	sink += (unsigned)strlen(record_type_name(hdr->type));
	free(buf);
	return 0;
}
