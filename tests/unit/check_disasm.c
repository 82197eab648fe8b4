/* Unit tests for disasm: x86-64 in AT&T and Intel syntax, undecodable
 * bytes as .byte, machines without a decoder; and elfsyms_read_code on
 * this test's own binary. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "elfsyms.h"
#include "errmsg.h"
#include "testutil.h"
#include "util.h"

/* push %rbp; mov %rsp,%rbp; (0x06: invalid in 64-bit mode); ret */
static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x06, 0xc3 };

#ifdef HAVE_CAPSTONE
START_TEST(test_att_intel)
{
	struct errmsg em = ERRMSG_INIT;
	struct disasm_insn *v;
	size_t n;

	ck_assert_int_eq(disasm_decode(EM_X86_64, DISASM_ATT, code, sizeof(code), 0x1000, &v, &n,
				       &em), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(v[0].addr, 0x1000);
	ck_assert_str_eq(v[0].text, "pushq %rbp");
	ck_assert_uint_eq(v[1].addr, 0x1001);
	ck_assert_uint_eq(v[1].size, 3);
	ck_assert_str_eq(v[1].text, "movq %rsp, %rbp");
	ck_assert_uint_eq(v[2].addr, 0x1004);
	ck_assert_str_eq(v[2].text, ".byte 0x06");
	ck_assert_uint_eq(v[3].addr, 0x1005);
	ck_assert_str_eq(v[3].text, "retq");
	free(v);
	ck_assert_int_eq(disasm_decode(EM_X86_64, DISASM_INTEL, code, sizeof(code), 0x1000, &v,
				       &n, &em), 0);
	ck_assert_str_eq(v[1].text, "mov rbp, rsp");
	free(v);
}
END_TEST

/* Whether this process maps Capstone's library. */
static bool capstone_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/libcapstone.so"))
			found = true;
	fclose(f);
	return found;
}

/* Capstone is loaded at the first disassembly, not at start: a run that
 * never annotates does not carry its 3 MB. */
START_TEST(test_loaded_lazily)
{
	struct errmsg em = ERRMSG_INIT;
	struct disasm_insn *v;
	size_t n;

	/* under CK_FORK=no an earlier test may have loaded it already */
	ck_assert(disasm_loaded() == capstone_mapped());
	ck_assert_int_eq(disasm_decode(EM_X86_64, DISASM_ATT, code, sizeof(code), 0, &v, &n, &em),
			 0);
	free(v);
	ck_assert(disasm_loaded());
	ck_assert(capstone_mapped());
}
END_TEST
#endif

START_TEST(test_no_decoder)
{
	struct errmsg em = ERRMSG_INIT;
	struct disasm_insn *v = NULL;
	size_t n = 0;

	/* Alpha: Capstone 4 has none (nor does a build without Capstone). */
	ck_assert_int_eq(disasm_decode(EM_ALPHA, DISASM_ATT, code, sizeof(code), 0, &v, &n, &em),
			 -ENOTSUP);
	ck_assert_ptr_null(v);
	ck_assert(em.text[0]);
}
END_TEST

/* The fallback: 8 bytes a line, the last one shorter. */
START_TEST(test_raw)
{
	struct disasm_insn *v;
	uint8_t bytes[11];
	size_t n, i;

	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(0xa0 + i);
	disasm_raw(bytes, sizeof(bytes), 0x2000, &v, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].addr, 0x2000);
	ck_assert_uint_eq(v[0].size, 8);
	ck_assert_str_eq(v[0].text, "a0 a1 a2 a3 a4 a5 a6 a7");
	ck_assert_uint_eq(v[1].addr, 0x2008);
	ck_assert_uint_eq(v[1].size, 3);
	ck_assert_str_eq(v[1].text, "a8 a9 aa");
	free(v);
	disasm_raw(bytes, 0, 0x2000, &v, &n);
	ck_assert_uint_eq(n, 0);
	free(v);
}
END_TEST

START_TEST(test_syntax)
{
	enum disasm_syntax s;

	ck_assert(disasm_parse_syntax("intel", &s) && s == DISASM_INTEL);
	ck_assert(disasm_parse_syntax("att", &s) && s == DISASM_ATT);
	ck_assert(!disasm_parse_syntax("masm", &s));
}
END_TEST

/* The bytes of this very binary's PT_LOADs, read by vaddr: the ELF header
 * at the first segment's start, and a build ID that differs is refused. */
START_TEST(test_read_code)
{
	struct errmsg em = ERRMSG_INIT;
	struct elfsyms_image img;
	uint8_t *bytes, bad_id[ELFSYMS_BUILD_ID_MAX];
	size_t len, i;
	int mach;

	ck_assert_int_eq(elfsyms_load("/proc/self/exe", &img), 0);
	for (i = 0; i < img.nsegs && img.segs[i].offset != 0; i++)
		;
	ck_assert_uint_lt(i, img.nsegs);
	ck_assert_int_eq(elfsyms_read_code("/proc/self/exe", img.build_id, img.build_id_size,
					   img.segs[i].vaddr, 4, &bytes, &len, &mach, &em), 0);
	ck_assert_uint_eq(len, 4);
	ck_assert(memcmp(bytes, ELFMAG, 4) == 0);
	ck_assert_int_eq(mach, img.machine);
	free(bytes);
	/* Bounded by the segment's file part and by ELFSYMS_CODE_MAX. */
	ck_assert_int_eq(elfsyms_read_code("/proc/self/exe", NULL, 0, img.segs[i].vaddr,
					   UINT64_MAX / 2, &bytes, &len, &mach, &em), 0);
	ck_assert_uint_le(len, ELFSYMS_CODE_MAX);
	ck_assert_uint_le(len, img.segs[i].filesz);
	free(bytes);
	ck_assert_int_eq(elfsyms_read_code("/proc/self/exe", NULL, 0, 0x7fff00000000ull, 4,
					   &bytes, &len, &mach, &em), -ENOENT);
	if (img.build_id_size) {
		memcpy(bad_id, img.build_id, img.build_id_size);
		bad_id[0] ^= 0xff;
		ck_assert_int_eq(elfsyms_read_code("/proc/self/exe", bad_id, img.build_id_size,
						   img.segs[i].vaddr, 4, &bytes, &len, &mach,
						   &em), -ESTALE);
	}
	elfsyms_release(&img);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("disasm");
	TCase *tc = tcase_create("decode");

#ifdef HAVE_CAPSTONE
	tcase_add_test(tc, test_att_intel);
	tcase_add_test(tc, test_loaded_lazily);
#endif
	tcase_add_test(tc, test_no_decoder);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_raw);
	tcase_add_test(tc, test_read_code);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
