/* Disassembles [START, START+SIZE) of an ELF file as proftop's annotate
 * does (elfsyms_read_code, then arch_disasm_decode), one "ADDR: TEXT" line
 * per instruction, for tests/integration/alpha-disasm.sh to compare with
 * objdump.  usage: alphadis FILE START SIZE */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "arch-disasm.h"
#include "elfsyms.h"
#include "errmsg.h"

int main(int argc, char **argv)
{
	struct errmsg em = ERRMSG_INIT;
	uint64_t start, size, at;

	if (argc != 4) {
		fprintf(stderr, "usage: alphadis FILE START SIZE\n");
		return 2;
	}
	start = strtoull(argv[2], NULL, 0);
	size = strtoull(argv[3], NULL, 0);
	/* A read stops at annotate's bound: the range in pieces of it. */
	for (at = start; at < start + size;) {
		struct disasm_insn *v;
		uint8_t *code;
		size_t len, n, i;
		int e_machine, err;

		err = elfsyms_read_code(argv[1], NULL, 0, at, start + size - at, &code, &len,
					&e_machine, &em);
		if (!err && !len)
			err = -EIO;
		if (!err)
			err = arch_disasm_decode(e_machine, DISASM_ATT, code, len, at, &v, &n, &em);
		if (err) {
			fprintf(stderr, "alphadis: %s\n", errmsg_text(&em, err));
			return 1;
		}
		for (i = 0; i < n; i++)
			printf("%" PRIx64 ": %s\n", v[i].addr, v[i].text);
		free(v);
		free(code);
		at += len;
	}
	return 0;
}
