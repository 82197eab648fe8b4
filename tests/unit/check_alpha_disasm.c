/* Unit tests for the Alpha disassembler (src/arch/alpha-disasm.c) and the
 * disassembly dispatch by machine (src/arch/arch-disasm.c): objdump's text
 * for every format, branch and hint targets, a text cut to a small
 * buffer, and a code buffer that does not end on a word. */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-disasm.h"
#include "alpha_disasm_cases.h"
#include "arch-disasm.h"
#include "errmsg.h"
#include "testutil.h"

START_TEST(test_cases)
{
	char why[256];
	size_t i;

	for (i = 0; i < ALPHA_DISASM_NCASES; i++)
		ck_assert_msg(alpha_disasm_case_check(&alpha_disasm_cases[i], why, sizeof(why)),
			      "%s", why);
}
END_TEST

/* The text is cut, NUL-terminated, at any buffer size. */
START_TEST(test_small_buffer)
{
	char buf[64];
	size_t size, i;

	for (i = 0; i < ALPHA_DISASM_NCASES; i++) {
		const struct alpha_disasm_case *c = &alpha_disasm_cases[i];
		uint32_t w = alpha_disasm_word(c->bytes);

		for (size = 1; size <= strlen(c->text) + 1; size++) {
			memset(buf, 'x', sizeof(buf));
			alpha_disasm_insn(w, c->pc, buf, size);
			ck_assert_uint_eq(strlen(buf),
					  size - 1 < strlen(c->text) ? size - 1 : strlen(c->text));
			ck_assert(strncmp(buf, c->text, size - 1) == 0);
			ck_assert_int_eq(buf[size], 'x');
		}
	}
}
END_TEST

/* Bytes in file order, whatever the host. */
START_TEST(test_word)
{
	static const uint8_t b[] = { 0x01, 0x80, 0xfa, 0x6b };

	ck_assert_uint_eq(alpha_disasm_word(b), 0x6bfa8001);
}
END_TEST

/* Through the dispatch: words, then the bytes past the last word one by
 * one; targets for branches only. */
START_TEST(test_dispatch)
{
	static const uint8_t code[] = { 0x0b, 0x00, 0x20, 0xee, 0x00, 0x00, 0x00,
					0x04, 0x01, 0x80, 0xfa, 0x6b, 0xaa, 0xbb };
	struct errmsg em = ERRMSG_INIT;
	struct disasm_insn *v = NULL;
	uint64_t to = 0;
	size_t n = 0;

	ck_assert_int_eq(arch_disasm_decode(EM_ALPHA, DISASM_ATT, code, sizeof(code), 0x120000854,
					    &v, &n, &em),
			 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_str_eq(v[0].text, "ble a1,120000884");
	ck_assert_uint_eq(v[0].size, 4);
	ck_assert(arch_disasm_target(EM_ALPHA, &v[0], &to));
	ck_assert_uint_eq(to, 0x120000884);
	ck_assert_str_eq(v[1].text, ".long 0x4000000");
	ck_assert_uint_eq(v[1].addr, 0x120000858);
	ck_assert_str_eq(v[2].text, "ret");
	ck_assert(!arch_disasm_target(EM_ALPHA, &v[2], &to));
	ck_assert_uint_eq(v[3].addr, 0x120000860);
	ck_assert_uint_eq(v[3].size, 1);
	ck_assert_str_eq(v[3].text, ".byte 0xaa");
	ck_assert_str_eq(v[4].text, ".byte 0xbb");
	ck_assert(!arch_disasm_target(EM_X86_64, &v[0], &to));
	/* The decoded flow, as Capstone's: ble jumps, ret has none. */
	ck_assert_uint_eq(v[0].flow, DISASM_FLOW_JUMP);
	ck_assert_uint_eq(v[0].target, 0x120000884);
	ck_assert_uint_eq(v[2].flow, DISASM_FLOW_NONE);
	free(v);

	/* bsr and jsr call (jsr to its hint); br and jmp jump. */
	{
		static const uint8_t calls[] = { 0x07, 0x01, 0x40, 0xd3, 0x00, 0x40, 0x5b, 0x6b,
						 0xd8, 0xff, 0xff, 0xc3, 0x02, 0x00, 0xfb, 0x6b };
		static const uint8_t flows[] = { DISASM_FLOW_CALL, DISASM_FLOW_CALL,
						 DISASM_FLOW_JUMP, DISASM_FLOW_JUMP };
		static const uint64_t tos[] = { 0x1200006a8 + 4 + 0x107 * 4, 0x1200006b0,
						0x1200006b0 + 4 - 40 * 4, 0x1200006b4 + 4 + 2 * 4 };
		size_t i;

		ck_assert_int_eq(arch_disasm_decode(EM_ALPHA, DISASM_ATT, calls, sizeof(calls),
						    0x1200006a8, &v, &n, &em),
				 0);
		ck_assert_uint_eq(n, 4);
		for (i = 0; i < n; i++) {
			ck_assert_uint_eq(v[i].flow, flows[i]);
			ck_assert_uint_eq(v[i].target, tos[i]);
		}
		ck_assert_str_eq(v[0].text, "bsr ra,120000ac8");
		free(v);
	}

	/* Nothing to decode: one element allocated, none used. */
	ck_assert_int_eq(arch_disasm_decode(EM_ALPHA, DISASM_ATT, code, 0, 0, &v, &n, &em), 0);
	ck_assert_uint_eq(n, 0);
	free(v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("alpha_disasm");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cases);
	tcase_add_test(tc, test_small_buffer);
	tcase_add_test(tc, test_word);
	tcase_add_test(tc, test_dispatch);
	suite_add_tcase(s, tc);
	return testutil_run(s) ? 1 : 0;
}
