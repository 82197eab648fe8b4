/* Fuzz target: the /proc/kallsyms and /proc/modules parsers
 * (symbols/kallsyms.c) and lookups in what they built. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kallsyms.h"
#include "symtab.h"

/* Input: kallsyms text, then optionally "\n%%modules\n" and modules text. */
static const char split[] = "\n%%modules\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kernel_syms ks;
	const struct kernel_module *mod;
	const struct symbol *sym;
	const uint8_t *sep = memmem(data, size, split, sizeof(split) - 1);
	size_t klen = sep ? (size_t)(sep - data) : size;
	FILE *kf, *mf = NULL;
	char *kbuf, *mbuf = NULL;
	size_t i;

	/* fmemopen over heap copies: ASan sees the parser's reads as the
	 * stdio buffer's, so the copies are exactly sized. */
	kbuf = malloc(klen + 1);
	memcpy(kbuf, data, klen);
	kf = fmemopen(kbuf, klen ? klen : 1, "r");
	if (sep) {
		size_t mlen = size - klen - (sizeof(split) - 1);

		mbuf = malloc(mlen + 1);
		memcpy(mbuf, sep + sizeof(split) - 1, mlen);
		mf = fmemopen(mbuf, mlen ? mlen : 1, "r");
	}
	if (!kf)
		abort();
	memset(&ks, 0, sizeof(ks));
	if (kallsyms_parse(kf, mf, &ks) == 0) {
		for (i = 0; i < ks.nmodules; i++) {
			(void)fuzz_touch(ks.modules[i].name, strlen(ks.modules[i].name));
			if (i && ks.modules[i].start < ks.modules[i - 1].end)
				abort();    /* promised: sorted, non-overlapping */
		}
		/* Probe around every module and the kernel range. */
		for (i = 0; i < ks.nmodules && i < 64; i++) {
			sym = kallsyms_lookup(&ks, ks.modules[i].start, &mod);
			sym = kallsyms_lookup(&ks, ks.modules[i].end - 1, &mod);
			(void)sym;
		}
		(void)kallsyms_lookup(&ks, ks.image.start, &mod);
		(void)kallsyms_lookup(&ks, ks.image.end, &mod);
		(void)kallsyms_lookup(&ks, 0, &mod);
		(void)kallsyms_lookup(&ks, UINT64_MAX, &mod);
		kallsyms_release(&ks);
	}
	fclose(kf);
	if (mf)
		fclose(mf);
	free(kbuf);
	free(mbuf);
	return 0;
}
