/* Shared declarations for the libFuzzer targets in fuzz/: each file defines
 * LLVMFuzzerTestOneInput and is linked with libFuzzer and the sanitizers. */
#ifndef PROFTOP_FUZZ_H
#define PROFTOP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Read every byte of a decoder's output so that a pointer past the input
 * shows up under ASan here, not somewhere later. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
	const volatile unsigned char *b = p;
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += b[i];
	return sum;
}

#endif
