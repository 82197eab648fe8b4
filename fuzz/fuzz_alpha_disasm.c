/* Fuzz target: the Alpha disassembler (src/arch/alpha-disasm.c) through the
 * dispatch annotate calls (arch_disasm_decode), on arbitrary code bytes
 * copied to a buffer of their exact size so that ASan sees any read past
 * it.  The instructions must cover every byte in order (words of 4, then
 * the tail byte by byte); each word's text, decoded again into a buffer of
 * every smaller size, must be cut there and NUL-terminated; a decoded
 * branch's target must be the text's last operand. */
#include "config.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-disasm.h"
#include "arch-disasm.h"
#include "fuzz.h"

#define BASE 0x120000000ull

static void fuzz_word(const struct disasm_insn *di)
{
	uint32_t w = alpha_disasm_word(di->bytes);
	char small[ALPHA_DISASM_TEXT_MAX];
	size_t len = strlen(di->text), size;
	uint64_t to;

	if (len + 1 > ALPHA_DISASM_TEXT_MAX)
		abort();
	for (size = 1; size <= len; size += 7) {
		memset(small, 'x', sizeof(small));
		alpha_disasm_insn(w, di->addr, small, size);
		if (strlen(small) != size - 1 || strncmp(small, di->text, size - 1) != 0)
			abort();
	}
	if (di->text[0] != '.' && (w >> 26) >= 0x30 && alpha_disasm_target(w, di->addr, &to)) {
		char hex[24];

		snprintf(hex, sizeof(hex), "%" PRIx64, to);
		if (len < strlen(hex) || strcmp(di->text + len - strlen(hex), hex) != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct disasm_insn *v = NULL;
	uint8_t *code = malloc(size ? size : 1);
	uint64_t addr = BASE;
	size_t n = 0, i;

	memcpy(code, data, size);
	if (arch_disasm_decode(EM_ALPHA, DISASM_ATT, code, size, BASE, &v, &n, NULL) != 0)
		abort();
	for (i = 0; i < n; i++) {
		if (v[i].addr != addr || v[i].size != (addr - BASE + 4 <= size ? 4 : 1) ||
		    memcmp(v[i].bytes, code + (addr - BASE), v[i].size) != 0 ||
		    !memchr(v[i].text, '\0', sizeof(v[i].text)))
			abort();
		if (v[i].size == 4)
			fuzz_word(&v[i]);
		addr += v[i].size;
	}
	if (addr - BASE != size)
		abort();
	free(v);
	free(code);
	return 0;
}
