/* Unit tests for symbols/kallsyms.c: fixed kallsyms and /proc/modules text
 * through fmemopen, plus one check against the running kernel. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "kallsyms.h"
#include "kallsyms-fixture.h"
#include "kallsyms-test.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vmlinux.h"

static const char base_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t secondary_startup\n"
	"ffffffff81000200 T do_syscall_64\n"
	"ffffffff81000300 W weak_func\n"
	"ffffffff81000600 T last_text\n"
	"ffffffff81000680 T _etext\n"
	"ffffffff82000000 D data_obj\n"
	"ffffffff82000100 d data_local\n"
	"ffffffff82000200 B bss_obj\n"
	"ffffffff82000300 b bss_local\n"
	"ffffffff82000400 R ro_obj\n"
	"ffffffff82000500 r ro_local\n"
	"ffffffffc0001000 t ext4_init\t[ext4]\n"
	"ffffffffc0001100 T ext4_read\t[ext4]\n"
	"ffffffffc0001200 d ext4_data\t[ext4]\n"
	"ffffffffc0002000 t xfs_func\t[xfs]\n"
	"ffffffffa0000000 t bpf_prog_abc_handler\t[bpf]\n"
	"ffffffffa0000200 t bpf_prog_def_other\t[bpf]\n";

static const char base_modules[] =
	"ext4 8192 1 - Live 0xffffffffc0001000\n"
	"xfs 4096 0 - Live 0xffffffffc0002000 (OE)\n";

/* The name found at addr ("" for none) and its module ("" for the kernel). */
static void expect(const struct kernel_syms *ks, uint64_t addr, const char *name,
		   const char *module)
{
	const struct kernel_module *mod = (const void *)1;
	const struct symbol *s = kallsyms_lookup(ks, addr, &mod);

	ck_assert_msg(*name ? s && strcmp(s->name, name) == 0 : s == NULL,
		      "%#llx: got %s, want %s", (unsigned long long)addr,
		      s ? s->name : "(none)", *name ? name : "(none)");
	ck_assert_msg(*module ? mod && strcmp(mod->name, module) == 0 : mod == NULL,
		      "%#llx: module %s, want %s", (unsigned long long)addr,
		      mod ? mod->name : "(kernel)", *module ? module : "(kernel)");
}

static bool table_has(const struct symtab *st, const char *name)
{
	for (size_t i = 0; i < symtab_count(st); i++)
		if (strcmp(symtab_get(st, i)->name, name) == 0)
			return true;
	return false;
}

/* Modules sorted by start and not overlapping, as the header promises. */
static void check_module_order(const struct kernel_syms *ks)
{
	for (size_t i = 0; i < ks->nmodules; i++) {
		ck_assert_uint_lt(ks->modules[i].start, ks->modules[i].end);
		if (i > 0)
			ck_assert_uint_le(ks->modules[i - 1].end, ks->modules[i].start);
	}
}

START_TEST(test_kernel_symbols)
{
	struct kernel_syms ks;

	ksfix_parse(base_kallsyms, base_modules, &ks);
	ck_assert(!ks.restricted);
	ck_assert_uint_eq(ks.image.start, 0xffffffff81000000);
	ck_assert_uint_eq(ks.image.end, 0xffffffff81000680);
	ck_assert_uint_eq(symtab_count(ks.kernel), 5);
	/* _stext and _text are aliases: the plain name wins. */
	expect(&ks, 0xffffffff81000000, "startup_64", "");
	expect(&ks, 0xffffffff810000ff, "startup_64", "");
	expect(&ks, 0xffffffff81000100, "secondary_startup", "");
	expect(&ks, 0xffffffff81000250, "do_syscall_64", "");
	expect(&ks, 0xffffffff81000400, "weak_func", "");
	expect(&ks, 0xffffffff8100067f, "last_text", "");
	/* Past _etext: nothing, not last_text. */
	expect(&ks, 0xffffffff81000680, "", "");
	expect(&ks, 0xffffffff81001000, "", "");
	expect(&ks, 0xffffffff80ffffff, "", "");
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_data_ignored)
{
	static const char *const data[] = {
		"data_obj", "data_local", "bss_obj", "bss_local", "ro_obj", "ro_local",
	};
	struct kernel_syms ks;
	size_t i;

	ksfix_parse(base_kallsyms, base_modules, &ks);
	for (i = 0; i < ARRAY_SIZE(data); i++)
		ck_assert(!table_has(ks.kernel, data[i]));
	for (i = 0; i < ks.nmodules; i++)
		ck_assert(!table_has(ks.modules[i].symtab, "ext4_data"));
	expect(&ks, 0xffffffff82000000, "", "");
	expect(&ks, 0xffffffff82000450, "", "");
	/* ext4_data does not cut ext4_read short. */
	expect(&ks, 0xffffffffc0001250, "ext4_read", "ext4");
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_modules)
{
	struct kernel_syms ks;

	ksfix_parse(base_kallsyms, base_modules, &ks);
	ck_assert_uint_eq(ks.nmodules, 3);
	check_module_order(&ks);
	ck_assert_str_eq(ks.modules[0].name, "bpf");
	ck_assert_str_eq(ks.modules[1].name, "ext4");
	ck_assert_str_eq(ks.modules[2].name, "xfs");
	/* ext4 is listed with 8192 bytes, but xfs starts after 4096. */
	ck_assert_uint_eq(ks.modules[1].start, 0xffffffffc0001000);
	ck_assert_uint_eq(ks.modules[1].end, 0xffffffffc0002000);
	ck_assert_uint_eq(ks.modules[2].end, 0xffffffffc0003000);
	expect(&ks, 0xffffffffc0001000, "ext4_init", "ext4");
	expect(&ks, 0xffffffffc0001100, "ext4_read", "ext4");
	expect(&ks, 0xffffffffc0001fff, "ext4_read", "ext4");
	expect(&ks, 0xffffffffc0002000, "xfs_func", "xfs");
	expect(&ks, 0xffffffffc0002fff, "xfs_func", "xfs");
	/* Gaps: after the last module, before the first. */
	expect(&ks, 0xffffffffc0003000, "", "");
	expect(&ks, 0xffffffffc0000fff, "", "");
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_bpf)
{
	struct kernel_syms ks;

	ksfix_parse(base_kallsyms, base_modules, &ks);
	expect(&ks, 0xffffffffa0000000, "bpf_prog_abc_handler", "bpf");
	expect(&ks, 0xffffffffa00001ff, "bpf_prog_abc_handler", "bpf");
	expect(&ks, 0xffffffffa0000200, "bpf_prog_def_other", "bpf");
	/* The last one does not run on forever. */
	expect(&ks, 0xffffffffa0000200 + 4096, "", "");
	expect(&ks, 0xffffffffa0100000, "", "");
	kallsyms_release(&ks);
}
END_TEST

/* No /proc/modules: module ranges come from their symbols. */
START_TEST(test_no_modules_file)
{
	struct kernel_syms ks;

	ksfix_parse(base_kallsyms, NULL, &ks);
	ck_assert_uint_eq(ks.nmodules, 3);
	check_module_order(&ks);
	ck_assert_uint_eq(ks.modules[1].start, 0xffffffffc0001000);
	expect(&ks, 0xffffffffc0001150, "ext4_read", "ext4");
	/* ext4_read is cut at the next module's first symbol. */
	expect(&ks, 0xffffffffc0001fff, "ext4_read", "ext4");
	expect(&ks, 0xffffffffc0002000, "xfs_func", "xfs");
	expect(&ks, 0xffffffffc0002fff, "xfs_func", "xfs");
	expect(&ks, 0xffffffffc0003000, "", "");
	kallsyms_release(&ks);
}
END_TEST

/* BPF programs between and inside listed modules: the [bpf] group is split
 * around them and never overlaps a module. */
START_TEST(test_bpf_between_modules)
{
	static const char text[] =
		"ffffffffc0001000 t ext4_init\t[ext4]\n"
		"ffffffffc0002000 t bpf_prog_a\t[bpf]\n"
		"ffffffffc0003000 t bpf_prog_b\t[bpf]\n"
		"ffffffffc0004000 t xfs_func\t[xfs]\n"
		"ffffffffc0004100 t bpf_prog_bogus\t[bpf]\n"
		"ffffffffc0006000 t bpf_prog_c\t[bpf]\n"
		"ffffffff81000000 T _stext\n";
	static const char mods[] =
		"ext4 2048 1 - Live 0xffffffffc0001000\n"
		"xfs 4096 0 - Live 0xffffffffc0004000\n";
	struct kernel_syms ks;

	ksfix_parse(text, mods, &ks);
	check_module_order(&ks);
	ck_assert_uint_eq(ks.nmodules, 4);
	expect(&ks, 0xffffffffc00017ff, "ext4_init", "ext4");
	expect(&ks, 0xffffffffc0001800, "", "");
	expect(&ks, 0xffffffffc0002800, "bpf_prog_a", "bpf");
	expect(&ks, 0xffffffffc0003fff, "bpf_prog_b", "bpf");
	expect(&ks, 0xffffffffc0004100, "xfs_func", "xfs");
	expect(&ks, 0xffffffffc0005000, "", "");
	expect(&ks, 0xffffffffc0006010, "bpf_prog_c", "bpf");
	expect(&ks, 0xffffffffc0007000, "", "");
	kallsyms_release(&ks);
}
END_TEST

/* Since Linux 6.4 a module's /proc/modules size counts its data, which
 * lies apart from its text: a BPF program loaded past the text's last
 * page (here 0xc0003000, inside ext4's listed 64 KB) is its own, and an
 * address there with no symbol at all is not ext4's last function. */
START_TEST(test_module_size_counts_data)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000100 T do_thing\n"
		"ffffffff81000200 T _etext\n"
		"ffffffffc0001000 t ext4_init\t[ext4]\n"
		"ffffffffc0001f00 t ext4_last\t[ext4]\n"
		"ffffffffc0003000 t bpf_prog_a\t[bpf]\n";
	static const char mods[] = "ext4 65536 1 - Live 0xffffffffc0001000\n";
	struct kernel_syms ks;

	ksfix_parse(text, mods, &ks);
	check_module_order(&ks);
	expect(&ks, 0xffffffffc0001fff, "ext4_last", "ext4");
	expect(&ks, 0xffffffffc0002000, "", "");
	expect(&ks, 0xffffffffc0003010, "bpf_prog_a", "bpf");
	expect(&ks, 0xffffffffc0008000, "", "");
	ck_assert(ks.modules[0].listed && !ks.modules[1].listed);
	/* What a kallsyms read could name: the image, ext4's text, [bpf]. */
	ck_assert(kallsyms_covers(&ks, 0xffffffff81000000));
	ck_assert(kallsyms_covers(&ks, 0xffffffff81000150));
	ck_assert(kallsyms_covers(&ks, 0xffffffffc0001fff));
	ck_assert(kallsyms_covers(&ks, 0xffffffffc0003010));
	ck_assert(!kallsyms_covers(&ks, 0xffffffffc0002000));
	ck_assert(!kallsyms_covers(&ks, 0xffffffffc0008000));
	ck_assert(!kallsyms_covers(&ks, 0xffffffff80000000));
	/* Where a reload may find something: above the image, not garbage
	 * nor below it. */
	ck_assert(kallsyms_maybe_dynamic(&ks, 0xffffffffc0002000));
	ck_assert(kallsyms_maybe_dynamic(&ks, 0xffffffffc0008000));
	ck_assert(kallsyms_maybe_dynamic(&ks, 0xffffffff81001100));
	ck_assert(!kallsyms_maybe_dynamic(&ks, 0xffffffffc0001fff));
	ck_assert(!kallsyms_maybe_dynamic(&ks, 0xffffffff80ffffff));
	ck_assert(!kallsyms_maybe_dynamic(&ks, 0x89480000000cb9bf));
	ck_assert(!kallsyms_maybe_dynamic(&ks, 0xfffffe8000000000));
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_restricted)
{
	static const char text[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 T startup_64\n"
		"0000000000000000 t helper\n"
		"0000000000000000 t ext4_init\t[ext4]\n";
	static const char mods[] = "ext4 8192 1 - Live 0x0000000000000000\n";
	struct kernel_syms ks;

	ksfix_parse(text, mods, &ks);
	ck_assert(ks.restricted);
	ck_assert_ptr_nonnull(ks.kernel);
	ck_assert_uint_eq(symtab_count(ks.kernel), 0);
	ck_assert_uint_eq(ks.nmodules, 0);
	expect(&ks, 0, "", "");
	expect(&ks, 0x10, "", "");
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_not_restricted_by_one_zero)
{
	static const char text[] =
		"0000000000000000 A fixed_percpu_data\n"
		"ffffffff81000000 T startup_64\n";
	struct kernel_syms ks;

	ksfix_parse(text, NULL, &ks);
	ck_assert(!ks.restricted);
	expect(&ks, 0xffffffff81000010, "startup_64", "");
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_malformed_lines)
{
	static const char text[] =
		"\n"
		"zzzz T bad_addr\n"
		"ffffffff81000000\n"
		"ffffffff81000000 T\n"
		"ffffffff81000000 TT two_char_type\n"
		"ffffffff81000000T glued\n"
		"ffffffff810000000000 T too_long_addr\n"
		"ffffffff81000000 t no_close\t[mod\n"
		"ffffffff81000100 T good_one\n"
		"ffffffffc0000200 t spaced_mod [spc]\n"
		"ffffffffc0001300 t extra_text\t[xtra] trailing words\n"
		"ffffffff81000400 T crlf_name\r\n"
		"0xFFFFFFFF81000480 T upper_hex\n"
		"ffffffff8100048g T bad_digit\n"
		"ffffffff81000500 T no_newline";
	struct kernel_syms ks;

	ksfix_parse(text, NULL, &ks);
	ck_assert_uint_eq(symtab_count(ks.kernel), 4);
	expect(&ks, 0xffffffff81000100, "good_one", "");
	expect(&ks, 0xffffffff81000480, "upper_hex", "");
	ck_assert(!table_has(ks.kernel, "bad_digit"));
	expect(&ks, 0xffffffff81000400, "crlf_name", "");
	expect(&ks, 0xffffffff81000500, "no_newline", "");
	expect(&ks, 0xffffffffc0000200, "spaced_mod", "spc");
	expect(&ks, 0xffffffffc0001300, "extra_text", "xtra");
	ck_assert(!table_has(ks.kernel, "two_char_type"));
	ck_assert(!table_has(ks.kernel, "glued"));
	ck_assert(!table_has(ks.kernel, "no_close"));
	kallsyms_release(&ks);
}
END_TEST

START_TEST(test_empty)
{
	struct kernel_syms ks;

	ksfix_parse("", "", &ks);
	ck_assert(!ks.restricted);
	ck_assert_ptr_nonnull(ks.kernel);
	ck_assert_uint_eq(symtab_count(ks.kernel), 0);
	ck_assert_uint_eq(ks.nmodules, 0);
	expect(&ks, 0xffffffff81000000, "", "");
	kallsyms_release(&ks);
}
END_TEST

/* The running kernel: a text symbol read from /proc/kallsyms resolves to
 * itself (or an alias at the same address). */
START_TEST(test_real_kallsyms)
{
	static const char *const wanted[] = { "schedule", "do_syscall_64", "vfs_read" };
	struct kernel_syms ks;
	const struct kernel_module *mod;
	const struct symbol *s;
	unsigned long long addr = 0;
	char line[512], name[256], type;
	const char *found = NULL;
	FILE *f;
	double t0;
	int err;

	t0 = now_monotonic();
	err = kallsyms_load(&ks);
	ck_assert_int_eq(err, 0);
	fprintf(stderr, "kallsyms_load: %.1f ms, %zu kernel symbols, %zu modules\n",
		(now_monotonic() - t0) * 1e3, symtab_count(ks.kernel), ks.nmodules);
	if (ks.restricted) {
		fprintf(stderr, "SKIP: test_real_kallsyms: /proc/kallsyms shows zero "
			"addresses (kptr_restrict)\n");
		kallsyms_release(&ks);
		return;
	}
	ck_assert_uint_gt(symtab_count(ks.kernel), 1000);
	ck_assert_uint_lt(ks.image.start, ks.image.end);

	f = fopen("/proc/kallsyms", "r");
	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || strchr(line, '['))
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(wanted); i++)
			if (type == 'T' && strcmp(name, wanted[i]) == 0)
				found = wanted[i];
	}
	fclose(f);
	ck_assert_msg(found != NULL, "none of schedule/do_syscall_64/vfs_read in /proc/kallsyms");

	s = kallsyms_lookup(&ks, addr, &mod);
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(mod);
	ck_assert_uint_eq(s->start, addr);
	s = kallsyms_lookup(&ks, addr + 1, &mod);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->start, addr);
	kallsyms_release(&ks);
}
END_TEST

/* ---- vmlinux ---- */

static const uint8_t vm_id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				   11, 12, 13, 14, 15, 16, 17, 18, 19, 20 };

/* A vmlinux built by the test: functions with exact sizes in a NOBITS
 * text section linked at 0xffffffff81000000, and build ID vm_id.  NULL
 * (the test skips) without an assembler and linker. */
static char *make_vmlinux(const char *dir)
{
	static const struct { const char *name; unsigned off, size; } fn[] = {
		{ "startup_64", 0x0, 0x40 },
		{ "secondary_startup", 0x100, 0x80 },
		{ "do_syscall_64", 0x200, 0x100 },
		{ "last_text", 0x600, 0x20 },
	};
	char *src = xasprintf("%s/vmlinux.s", dir), *out = xasprintf("%s/vmlinux", dir);
	char hex[41];
	FILE *f = fopen(src, "w");
	size_t i;

	ck_assert_ptr_nonnull(f);
	fprintf(f, "\t.section .ktext,\"ax\",@nobits\n");
	for (i = 0; i < sizeof(fn) / sizeof(fn[0]); i++)
		fprintf(f, "\t.org %#x\n\t.globl %s\n\t.type %s,@function\n%s:\n\t.size %s, %#x\n",
			fn[i].off, fn[i].name, fn[i].name, fn[i].name, fn[i].name, fn[i].size);
	fprintf(f, "\t.org 0x1000\n");
	fclose(f);
	for (i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", vm_id[i]);
	if (testutil_sh("cc -c -o %s.o %s 2>/dev/null && ld -static -nostdlib -e 0 "
			"--build-id=0x%s --section-start=.ktext=0xffffffff81000000 -o %s %s.o "
			"2>/dev/null", out, src, hex, out, out) != 0) {
		free(out);
		out = NULL;
	}
	free(src);
	return out;
}

/* kallsyms of the same kernel moved by KASLR, with one function the
 * vmlinux does not have. */
static const char kaslr_kallsyms[] =
	"ffffffff9a000000 T _stext\n"
	"ffffffff9a000000 T startup_64\n"
	"ffffffff9a000100 t secondary_startup\n"
	"ffffffff9a000200 T do_syscall_64\n"
	"ffffffff9a000300 T tramp_only\n"
	"ffffffff9a000600 T last_text\n"
	"ffffffff9a000680 T _etext\n";

START_TEST(test_vmlinux_sizes)
{
	char *dir = testutil_tmpdir("kallsyms-vmlinux"), *vm = make_vmlinux(dir);
	struct errmsg why = ERRMSG_INIT;
	struct kernel_syms ks;
	uint8_t other[20];

	if (!vm) {
		fprintf(stderr, "check_kallsyms: SKIP vmlinux test (no cc or ld)\n");
		free(dir);
		return;
	}
	ksfix_parse(kaslr_kallsyms, NULL, &ks);
	/* kallsyms alone: a function runs up to the next one. */
	expect(&ks, 0xffffffff9a000050ULL, "startup_64", "");
	expect(&ks, 0xffffffff9a000630ULL, "last_text", "");

	/* Another kernel's vmlinux is refused, and changes nothing. */
	memcpy(other, vm_id, sizeof(other));
	other[19] ^= 0xff;
	ck_assert_int_eq(vmlinux_use(&ks, vm, other, 20, &why), -EINVAL);
	{
		char want[128], have[41], other_hex[41];
		size_t i;

		for (i = 0; i < 20; i++) {
			snprintf(have + 2 * i, 3, "%02x", vm_id[i]);
			snprintf(other_hex + 2 * i, 3, "%02x", other[i]);
		}
		snprintf(want, sizeof(want), "another kernel's: build ID %s, the kernel's is %s",
			 have, other_hex);
		ck_assert_msg(strstr(why.text, want) && strncmp(why.text, vm, strlen(vm)) == 0,
			      "%s", why.text);
	}
	ck_assert_int_eq(vmlinux_use(&ks, dir, vm_id, 20, &why), -ENOEXEC);
	ck_assert_str_eq(why.text + strlen(dir), ": not an ELF file with symbols");
	expect(&ks, 0xffffffff9a000050ULL, "startup_64", "");

	ck_assert_int_eq(vmlinux_use(&ks, vm, vm_id, 20, &why), 0);
	expect(&ks, 0xffffffff9a000010ULL, "startup_64", "");
	expect(&ks, 0xffffffff9a000050ULL, "", "");     /* past its 0x40 bytes */
	expect(&ks, 0xffffffff9a000120ULL, "secondary_startup", "");
	expect(&ks, 0xffffffff9a000180ULL, "", "");
	expect(&ks, 0xffffffff9a0002ffULL, "do_syscall_64", "");
	expect(&ks, 0xffffffff9a000310ULL, "tramp_only", "");  /* kallsyms only */
	expect(&ks, 0xffffffff9a000610ULL, "last_text", "");
	expect(&ks, 0xffffffff9a000630ULL, "", "");
	kallsyms_release(&ks);
	free(vm);
	free(dir);
}
END_TEST

START_TEST(test_vmlinux_find)
{
	char *dir = testutil_tmpdir("kallsyms-find"), *vm = make_vmlinux(dir), *found;
	uint8_t other[20];

	if (!vm) {
		fprintf(stderr, "check_kallsyms: SKIP vmlinux test (no cc or ld)\n");
		free(dir);
		return;
	}
	memcpy(other, vm_id, sizeof(other));
	other[0] ^= 0xff;
	ck_assert_ptr_null(vmlinux_find(dir, "6.0-test", vm_id, 20));
	ck_assert_int_eq(testutil_sh("mkdir -p %s/boot && cp %s %s/boot/vmlinux-6.0-test",
				     dir, vm, dir), 0);
	found = vmlinux_find(dir, "6.0-test", vm_id, 20);
	ck_assert_ptr_nonnull(found);
	ck_assert_ptr_nonnull(strstr(found, "/boot/vmlinux-6.0-test"));
	free(found);
	/* Another release's name, or another build ID: not this kernel's. */
	ck_assert_ptr_null(vmlinux_find(dir, "6.0-other", vm_id, 20));
	ck_assert_ptr_null(vmlinux_find(dir, "6.0-test", other, 20));
	/* The debug tree by build ID comes first. */
	ck_assert_int_eq(testutil_sh("mkdir -p %s/usr/lib/debug/.build-id/01 && cp %s "
				     "%s/usr/lib/debug/.build-id/01/02030405060708090a0b0c0d0e0f"
				     "1011121314.debug", dir, vm, dir), 0);
	found = vmlinux_find(dir, "6.0-test", vm_id, 20);
	ck_assert_ptr_nonnull(found);
	ck_assert_ptr_nonnull(strstr(found, "/.build-id/01/"));
	free(found);
	free(vm);
	free(dir);
}
END_TEST

/* A regular file fills the reader's 256 KB window at every read (/proc
 * hands out a page): a line cut by the window's end is whole again in the
 * next read, not two lines.  ~900 KB of lines of varying length. */
START_TEST(test_load_regular_file)
{
	enum { N = 20000 };
	char *dir = testutil_tmpdir("kallsyms-file");
	char *path = xasprintf("%s/kallsyms", dir), *mods = xasprintf("%s/modules", dir);
	FILE *f = fopen(path, "w");
	struct kernel_syms ks;
	char name[64];
	size_t i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < N; i++)
		fprintf(f, "%016llx %c func_%zu_%.*s\n",
			0xffffffff81000000ULL + (unsigned long long)i * 64, i % 2 ? 't' : 'T', i,
			(int)(i % 13), "xxxxxxxxxxxxx");
	fclose(f);
	f = fopen(mods, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(kallsyms_load_files(path, mods, &ks), 0);
	ck_assert_uint_eq(symtab_count(ks.kernel), N);
	for (i = 0; i < N; i++) {
		const struct symbol *s = symtab_get(ks.kernel, i);

		snprintf(name, sizeof(name), "func_%zu_%.*s", i, (int)(i % 13), "xxxxxxxxxxxxx");
		ck_assert_uint_eq(s->start, 0xffffffff81000000ULL + i * 64);
		ck_assert_str_eq(s->name, name);
	}
	kallsyms_release(&ks);
	testutil_sh("rm -rf '%s'", dir);
	free(path);
	free(mods);
	free(dir);
}
END_TEST

/* Two parses of one text: the usual lines' fast way, and every line the
 * general way; both tables must be the same, symbol by symbol. */
static void same_tables(const struct kernel_syms *a, const struct kernel_syms *b)
{
	size_t i, j;

	ck_assert_int_eq(a->restricted, b->restricted);
	ck_assert_mem_eq(&a->image, &b->image, sizeof(a->image));
	ck_assert_uint_eq(symtab_count(a->kernel), symtab_count(b->kernel));
	for (i = 0; i < symtab_count(a->kernel); i++) {
		const struct symbol *x = symtab_get(a->kernel, i), *y = symtab_get(b->kernel, i);

		ck_assert_uint_eq(x->start, y->start);
		ck_assert_uint_eq(x->end, y->end);
		ck_assert_str_eq(x->name, y->name);
	}
	ck_assert_uint_eq(a->nmodules, b->nmodules);
	for (i = 0; i < a->nmodules; i++) {
		const struct kernel_module *x = &a->modules[i], *y = &b->modules[i];

		ck_assert_str_eq(x->name, y->name);
		ck_assert_uint_eq(x->start, y->start);
		ck_assert_uint_eq(x->end, y->end);
		ck_assert_uint_eq(symtab_count(x->symtab), symtab_count(y->symtab));
		for (j = 0; j < symtab_count(x->symtab); j++)
			ck_assert_str_eq(symtab_get(x->symtab, j)->name,
					 symtab_get(y->symtab, j)->name);
	}
}

static void parse_both(const char *text, size_t len, const char *modules, size_t *nsyms)
{
	struct kernel_syms fast, slow;
	FILE *k, *m;

	for (int pass = 0; pass < 2; pass++) {
		k = fmemopen((void *)text, len, "r");
		m = fmemopen((void *)modules, strlen(modules), "r");
		ck_assert_ptr_nonnull(k);
		kallsyms_test_slow(pass == 1);
		ck_assert_int_eq(kallsyms_parse(k, m, pass ? &slow : &fast), 0);
		fclose(k);
		fclose(m);
	}
	kallsyms_test_slow(false);
	same_tables(&fast, &slow);
	*nsyms = symtab_count(fast.kernel);
	kallsyms_release(&fast);
	kallsyms_release(&slow);
}

/* Random lines near the usual shape (hex of either case, 15-17 digits,
 * "0x", doubled or odd separators, names with CR, NUL, spaces, modules
 * with and without "]", no final newline): the fast and general ways
 * agree on every one. */
START_TEST(test_fast_lines_agree)
{
	static const char types[] = "tTwWdDrRbB \t";
	static const char namech[] = "abc_xyz.$09[] \t\r";
	static const char *const mods[] = { "", "\t[ext4]", "\t[bpf]", " [ext4]", "\t[xfs",
					     "\t[]", "\t[xfs] tail" };
	static const char modules[] = "ext4 8192 1 - Live 0xffffffffc0001000\n";
	size_t cap = 1 << 20, len = 0, n, i, k;
	char *text = xmalloc(cap);
	unsigned seed = 12345;

	for (i = 0; i < 20000; i++) {
		char line[128];
		int digits = 16, l = 0;
		uint64_t addr;

		seed = seed * 1103515245u + 12345u;
		addr = (seed >> 4) % 4 ? 0xffffffff81000000ULL + (seed >> 8) % 0x100000
				       : 0xffffffffc0001000ULL + (seed >> 8) % 0x3000;
		if ((seed >> 20) % 50 == 0)
			digits = 15 + (int)((seed >> 10) % 3);
		if ((seed >> 22) % 80 == 0)
			l += sprintf(line + l, "0x");
		l += sprintf(line + l, (seed >> 12) % 9 ? "%0*llx" : "%0*llX", digits,
			     (unsigned long long)addr);
		if ((seed >> 24) % 97 == 0)
			line[l - 3] = 'g';
		/* a bad digit in the high half, or another high half */
		if ((seed >> 24) % 89 == 1)
			line[l - 12] = 'g';
		if ((seed >> 24) % 83 == 2)
			line[l - 14] = '0';
		line[l++] = (seed >> 14) % 60 ? ' ' : '\t';
		line[l++] = types[(seed >> 16) % 4 ? (seed >> 16) % 4 : (seed >> 18) % 12];
		line[l++] = ' ';
		if ((seed >> 26) % 70 == 0)
			line[l++] = ' ';
		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 8) % 24;
		for (k = 0; k < n; k++) {
			unsigned r = (seed >> (k % 16)) ^ (unsigned)(k * 7);

			line[l++] = r % 23 == 0 ? namech[(r >> 5) % (sizeof(namech) - 1)]
						: (char)('a' + (r >> 3) % 26);
		}
		if ((seed >> 20) % 300 == 0)
			line[l++] = '\0';
		l += sprintf(line + l, "%s", mods[(seed >> 4) % 3 ? 0 : (seed >> 9) % 7]);
		if ((seed >> 27) % 40 == 0)
			line[l++] = '\r';
		line[l++] = '\n';
		memcpy(text + len, line, (size_t)l);
		len += (size_t)l;
	}
	parse_both(text, len, modules, &n);
	ck_assert_uint_gt(n, 5000);
	/* Mostly ffffffff (FFFFFFFF one line in 9): decoded where the
	 * text changes only, not at each line. */
	{
		struct kernel_syms ks;
		FILE *kf = fmemopen(text, len, "r");

		ck_assert_int_eq(kallsyms_parse(kf, NULL, &ks), 0);
		fclose(kf);
		ck_assert_uint_gt(kallsyms_test_high_halves(), 0);
		ck_assert_uint_lt(kallsyms_test_high_halves(), 20000 / 3);
		kallsyms_release(&ks);
	}
	/* no final newline, and a line cut short */
	parse_both(text, len - 1, modules, &n);
	parse_both(text, len - 9, modules, &n);
	free(text);
}
END_TEST

/* The same on the running kernel's kallsyms, when readable. */
START_TEST(test_fast_real_kallsyms)
{
	char *text = NULL;
	size_t len = 0, n;

	if (read_file("/proc/kallsyms", SIZE_MAX, &text, &len) || len == 0)
		return;
	parse_both(text, len, "", &n);
	free(text);
}
END_TEST

/* perf record's copy: DIR/[kernel.kallsyms]/HEX/kallsyms under
 * $PERF_BUILDID_DIR, else $HOME/.debug; only an existing, non-empty
 * regular file. */
START_TEST(test_find_cached)
{
	static const uint8_t id[20] = { 0xa3, 0xe4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
					11, 12, 13, 14, 15, 16, 17, 0xff };
	static const char hex[] = "a3e40102030405060708090a0b0c0d0e0f1011ff";
	char *dir = testutil_tmpdir("kallsyms-cache"), *want, *got;

	setenv("PERF_BUILDID_DIR", dir, 1);
	ck_assert_ptr_null(kallsyms_find_cached(NULL, id, 20));
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/[kernel.kallsyms]/%s/kallsyms'", dir, hex), 0);
	ck_assert_ptr_null(kallsyms_find_cached(NULL, id, 20));    /* a directory */
	ck_assert_int_eq(testutil_sh("rmdir '%s/[kernel.kallsyms]/%s/kallsyms' && "
				     ": >'%s/[kernel.kallsyms]/%s/kallsyms'", dir, hex, dir, hex), 0);
	ck_assert_ptr_null(kallsyms_find_cached(NULL, id, 20));    /* empty */
	ck_assert_int_eq(testutil_sh("echo 'ffffffff81000000 T f' >"
				     "'%s/[kernel.kallsyms]/%s/kallsyms'", dir, hex), 0);
	want = xasprintf("%s/[kernel.kallsyms]/%s/kallsyms", dir, hex);
	got = kallsyms_find_cached(NULL, id, 20);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_ptr_null(kallsyms_find_cached(NULL, id, 0));
	/* Without PERF_BUILDID_DIR: $HOME/.debug. */
	unsetenv("PERF_BUILDID_DIR");
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/.debug' && mv '%s/[kernel.kallsyms]' '%s/.debug/'",
				     dir, dir, dir), 0);
	setenv("HOME", dir, 1);
	free(want);
	want = xasprintf("%s/.debug/[kernel.kallsyms]/%s/kallsyms", dir, hex);
	got = kallsyms_find_cached(NULL, id, 20);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kallsyms");
	TCase *tc;

	tc = tcase_create("kernel");
	tcase_add_test(tc, test_kernel_symbols);
	tcase_add_test(tc, test_data_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("modules");
	tcase_add_test(tc, test_modules);
	tcase_add_test(tc, test_bpf);
	tcase_add_test(tc, test_no_modules_file);
	tcase_add_test(tc, test_bpf_between_modules);
	tcase_add_test(tc, test_module_size_counts_data);
	suite_add_tcase(s, tc);

	tc = tcase_create("restricted");
	tcase_add_test(tc, test_restricted);
	tcase_add_test(tc, test_not_restricted_by_one_zero);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsing");
	tcase_add_test(tc, test_malformed_lines);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_load_regular_file);
	tcase_add_test(tc, test_fast_lines_agree);
	tcase_add_test(tc, test_find_cached);
	suite_add_tcase(s, tc);

	tc = tcase_create("vmlinux");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_vmlinux_sizes);
	tcase_add_test(tc, test_vmlinux_find);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_real_kallsyms);
	tcase_add_test(tc, test_fast_real_kallsyms);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
