/* Fuzz target: the disassembly wrapper (src/arch/arch-disasm.c: Alpha's
 * decoder, else Capstone through symbols/disasm.c) on arbitrary code bytes.  The first byte picks the machine and syntax; the rest is
 * the code, copied to a buffer of its exact size so that ASan sees any
 * read past it.  The instructions must cover every byte, in order. */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "arch-disasm.h"
#include "fuzz.h"

static const int machines[] = { EM_X86_64, EM_386, EM_AARCH64, EM_ARM, EM_ALPHA };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct disasm_insn *v = NULL;
	uint64_t addr = 0x401000;
	uint8_t *code;
	size_t n = 0, i, len;

	if (size < 1)
		return 0;
	len = size - 1;
	code = malloc(len ? len : 1);
	memcpy(code, data + 1, len);
	if (arch_disasm_decode(machines[data[0] % 5], data[0] & 0x80 ? DISASM_INTEL : DISASM_ATT,
			       code, len, addr, &v, &n, NULL) == 0) {
		for (i = 0; i < n; i++) {
			if (v[i].addr != addr || !v[i].size || v[i].size > DISASM_INSN_MAX ||
			    memcmp(v[i].bytes, code + (addr - 0x401000), v[i].size) != 0 ||
			    !memchr(v[i].text, '\0', sizeof(v[i].text)))
				abort();
			addr += v[i].size;
		}
		if (addr - 0x401000 != len)
			abort();
		free(v);
	}
	free(code);
	return 0;
}
