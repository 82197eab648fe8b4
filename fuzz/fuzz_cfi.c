/* Fuzz target: the CFI walker (symbols/cfi.c) on mutated .eh_frame and
 * .debug_frame bytes.  The first byte picks the section kind, byte order
 * and address size, the next eight the section's address; the rest is the
 * section, copied to a buffer of its exact size so that ASan sees any read
 * past it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "fuzz.h"

static void check_range(uint64_t start, uint64_t end, void *arg)
{
	size_t *n = arg;

	if (end <= start)
		abort();
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_section sec;
	size_t seen = 0, n, i;
	uint8_t *copy;

	if (size < 9)
		return 0;
	memset(&sec, 0, sizeof(sec));
	sec.eh = !(data[0] & 1);
	sec.msb = (data[0] & 2) != 0;
	sec.addr_size = data[0] & 4 ? 4 : 8;
	for (i = 0; i < 8; i++)
		sec.addr |= (uint64_t)data[1 + i] << (8 * i);
	sec.size = size - 9;
	copy = malloc(sec.size ? sec.size : 1);
	if (!copy)
		abort();
	memcpy(copy, data + 9, sec.size);
	sec.buf = copy;
	n = cfi_walk(&sec, check_range, &seen);
	/* Every FDE has at least a length, an id and two 1-byte fields. */
	if (n != seen || n > sec.size / 10 + 1)
		abort();
	free(copy);
	return 0;
}
