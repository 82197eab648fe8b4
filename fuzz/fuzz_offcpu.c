/* Fuzz target: sched_switch's format parser, the raw field decoder and the
 * interval bookkeeping (src/offcpu.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "fuzz.h"
#include "offcpu.h"

/* Input: format text (or a recording's tracing data), then optionally
 * "\n%%raw\n" and bytes: a raw payload to decode, which then also drives
 * the tracker, 8 bytes an operation: op, tid, a 16-bit time step, flags. */
static const char split[] = "\n%%raw\n";

static void fuzz_check(const struct offcpu_interval *iv)
{
	if (iv->end < iv->start)
		abort();    /* promised: nothing charged backwards */
	(void)fuzz_touch(iv->chain, iv->nr_chain * sizeof(*iv->chain));
}

static void fuzz_tracker(const uint8_t *p, size_t n)
{
	struct offcpu *o = offcpu_new();
	struct offcpu_interval iv, at;
	uint64_t chain[4] = { 1, 2, 3, 4 }, t = 1000;
	size_t i, cur;

	for (i = 0; i + 8 <= n; i += 8) {
		uint32_t tid = p[i + 1] % 16;
		uint64_t step = (uint64_t)p[i + 2] | (uint64_t)p[i + 3] << 8;

		/* Times go back now and then: records out of order. */
		t = p[i + 4] & 1 ? (t > step ? t - step : 0) : t + step;
		switch (p[i] % 4) {
		case 0:
			memset(&at, 0, sizeof(at));
			at.tid = tid;
			at.start = t;
			at.runnable = p[i + 5] & 1;
			at.chain = chain;
			at.nr_chain = p[i + 6] % 5;
			if (offcpu_out(o, &at, &iv))
				fuzz_check(&iv);
			break;
		case 1:
			if (offcpu_in(o, tid, t, &iv))
				fuzz_check(&iv);
			break;
		case 2:
			if (offcpu_exit(o, tid, t, &iv))
				fuzz_check(&iv);
			break;
		default:
			cur = 0;
			while (offcpu_next_open(o, &cur, t, &iv))
				fuzz_check(&iv);
			break;
		}
	}
	if (offcpu_threads(o) > 16)
		abort();    /* one entry per live tid */
	offcpu_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, split, sizeof(split) - 1);
	size_t tlen = sep ? (size_t)(sep - data) : size;
	const uint8_t *raw = sep ? sep + sizeof(split) - 1 : NULL;
	size_t rlen = sep ? size - tlen - (sizeof(split) - 1) : 0;
	struct errmsg em = ERRMSG_INIT;
	struct offcpu_format f, g;
	struct offcpu_switch sw;
	char *text = malloc(tlen + 1);
	uint8_t *rcopy;
	int err;

	memcpy(text, data, tlen);
	text[tlen] = '\0';
	err = offcpu_format_parse(text, &f, &em);
	(void)fuzz_touch(errmsg_text(&em, err), strlen(errmsg_text(&em, err)));
	/* The same bytes as a recording's tracing data, exactly sized. */
	if (offcpu_format_from_tracing(text, tlen, &g, &em) == 0 && err != 0)
		err = 0, f = g;
	free(text);
	if (err == 0 && raw) {
		/* An exact copy, so that ASan sees a read past the payload. */
		rcopy = malloc(rlen ? rlen : 1);
		memcpy(rcopy, raw, rlen);
		for (size_t n = 0; n <= rlen && n <= 256; n++)
			if (offcpu_decode(&f, rcopy, (uint32_t)n, &sw))
				(void)offcpu_state_runnable(sw.prev_state);
		free(rcopy);
	}
	if (raw)
		fuzz_tracker(raw, rlen);
	return 0;
}
