/* Unit tests for src/kernel.c: kernel and module symbols from given
 * kallsyms and modules files, at once and on a thread. */
#include "config.h"

#include "kernel.h"
#include "kernel-test.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "machine.h"
#include "procfs.h"
#include "symloader.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

/* ---- kernel ---- */

/* Kernel symbols on a thread of their own: while kallsyms is being read
 * (a FIFO nobody has written yet), kernel addresses are pending under
 * [kernel.kallsyms] and user DSOs are not held up; once it is read, the
 * deferred resolve names them, a module's under its module. */
START_TEST(test_kernel_async)
{
	char dir[] = "/tmp/check_machine_kXXXXXX";
	char *fifo, *mods;
	struct machine *m = machine_new();
	struct resolved r, d;
	bool restricted = true;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fifo = xasprintf("%s/kallsyms", dir);
	mods = xasprintf("%s/modules", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	f = fopen(mods, "w");
	ck_assert_ptr_nonnull(f);
	fputs("ext4 4096 0 - Live 0xffffffffc0000000\n", f);
	fclose(f);

	ck_assert_int_eq(machine_set_async(m, true), 0);
	machine_set_kernel_files(m, fifo, mods);
	ck_assert_int_eq(machine_load_kernel_async(m), 0);
	ck_assert(machine_kernel_loading(m));
	ck_assert_uint_ge(machine_symbols_loading(m), 1);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000010ULL, &r);
	ck_assert(r.pending);
	ck_assert(r.kernel);
	ck_assert_ptr_null(r.sym);
	ck_assert_str_eq(dso_short_name(r.dso), "[kernel.kallsyms]");
	ck_assert_uint_eq(r.addr, 0xffffffff81000010ULL);
	ck_assert(!machine_resolve_deferred(m, r.dso, r.addr, true, &d));
	ck_assert_int_eq(machine_kernel_status(m, &restricted), -EINPROGRESS);
	ck_assert(!machine_wait_symbols_for(m, 30));

	f = fopen(fifo, "w");
	ck_assert_ptr_nonnull(f);
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T kfunc_a\n"
	      "ffffffff81000100 T kfunc_b\n"
	      "ffffffff81001000 T _etext\n"
	      "ffffffffc0000010 t modfunc\t[ext4]\n", f);
	fclose(f);
	machine_wait_symbols(m);
	ck_assert(!machine_kernel_loading(m));
	ck_assert_uint_eq(machine_symbols_loading(m), 0);
	ck_assert(!machine_dso_pending(r.dso));
	ck_assert(machine_resolve_deferred(m, r.dso, r.addr, true, &d));
	ck_assert(!d.pending);
	ck_assert_ptr_nonnull(d.sym);
	ck_assert_str_eq(d.sym->name, "kfunc_a");
	ck_assert(machine_resolve_deferred(m, r.dso, 0xffffffffc0000020ULL, true, &d));
	ck_assert_ptr_nonnull(d.sym);
	ck_assert_str_eq(d.sym->name, "modfunc");
	ck_assert_str_eq(dso_short_name(d.dso), "[ext4]");
	ck_assert_int_eq(machine_kernel_status(m, &restricted), 0);
	ck_assert(!restricted);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffff81000104ULL, &r);
	ck_assert(!r.pending);
	ck_assert_str_eq(r.sym->name, "kfunc_b");
	machine_free(m);
	unlink(fifo);
	unlink(mods);
	rmdir(dir);
	free(fifo);
	free(mods);
}
END_TEST

START_TEST(test_kernel)
{
	struct machine *m = machine_new();
	bool restricted = true;
	char *buf, *line;
	uint64_t addr = 0;
	struct resolved r;
	int err = machine_load_kernel(m, &restricted);

	if (err || restricted) {
		fprintf(stderr, "check_machine: SKIP kernel test (err %d, restricted %d)\n",
			err, restricted);
		machine_free(m);
		return;
	}
	ck_assert_int_eq(read_file("/proc/kallsyms", 64 << 20, &buf, NULL), 0);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char type, name[128];
		uint64_t a;

		if (sscanf(line, "%" SCNx64 " %c %127s", &a, &type, name) == 3 &&
		    strcmp(name, "schedule") == 0 && (type == 'T' || type == 't')) {
			addr = a;
			break;
		}
	}
	free(buf);
	ck_assert_uint_ne(addr, 0);

	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, addr + 1, &r);
	ck_assert(r.kernel);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_int_eq(dso_kind(r.dso), DSO_KERNEL);
	ck_assert_str_eq(dso_short_name(r.dso), "[kernel.kallsyms]");
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "schedule");
	ck_assert_uint_eq(r.addr, addr + 1);
	/* A kernel-half address with an unknown cpumode is kernel too. */
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_CPUMODE_UNKNOWN, addr, &r);
	ck_assert(r.kernel);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "schedule");
	/* Guest kernel: no guest symbols. */
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_GUEST_KERNEL, addr, &r);
	ck_assert_ptr_null(r.sym);
	ck_assert_ptr_null(r.dso);
	machine_free(m);
}
END_TEST

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Live: a kernel address outside every table (past ext4's text page,
 * inside its /proc/modules size) is never ext4's last function; it makes
 * kallsyms be read again, at most once per wait, and a BPF program
 * loaded since gets its name.  Tables still the same are kept (results
 * point into them), and replaced ones stay readable. */
START_TEST(test_kernel_reload)
{
	static const char base[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000000 T kfunc_a\n"
				   "ffffffff81001000 T _etext\n"
				   "ffffffffc0001000 t ext4_init\t[ext4]\n"
				   "ffffffffc0001f00 t ext4_last\t[ext4]\n";
	char *dir = testutil_tmpdir("kernel-reload");
	char *ks = xasprintf("%s/kallsyms", dir), *mods = xasprintf("%s/modules", dir);
	struct machine *m = machine_new();
	const struct symbol *ext4_last, *bpf_a;
	struct resolved r, d;
	unsigned reloads;
	char *text;

	write_text(ks, base);
	write_text(mods, "ext4 65536 1 - Live 0xffffffffc0001000\n");
	ck_assert_int_eq(machine_set_async(m, true), 0);
	machine_set_kernel_files(m, ks, mods);
	machine_set_kernel_live(m, false);
	ck_assert_int_eq(machine_load_kernel_async(m), 0);
	machine_wait_kernel(m);
	ck_assert_str_eq(machine_kernel_source(m, &reloads), "/proc/kallsyms");
	ck_assert_uint_eq(reloads, 0);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001f10ULL, &r);
	ck_assert_str_eq(r.sym->name, "ext4_last");
	ext4_last = r.sym;
	/* Just read: no reload yet, and no name. */
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0003010ULL, &r);
	ck_assert(!r.pending);
	ck_assert_ptr_null(r.sym);
	ck_assert_str_eq(dso_short_name(r.dso), "[kernel.kallsyms]");

	text = xasprintf("%sffffffffc0003000 t bpf_prog_a\t[bpf]\n", base);
	write_text(ks, text);
	free(text);
	machine_test_kernel_reload_now(m);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0003010ULL, &r);
	ck_assert(r.pending);
	/* Held like the first read's samples; then named. */
	machine_wait_kernel(m);
	ck_assert(machine_resolve_deferred(m, r.dso, r.addr, true, &d));
	ck_assert_str_eq(d.sym->name, "bpf_prog_a");
	ck_assert_str_eq(dso_short_name(d.dso), "[bpf]");
	bpf_a = d.sym;
	ck_assert_uint_eq((machine_kernel_source(m, &reloads), reloads), 1);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0001f10ULL, &r);
	ck_assert_ptr_eq(r.sym, ext4_last);
	/* Still unknown elsewhere: no second read before the wait is over. */
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0100000ULL, &r);
	ck_assert(!r.pending);
	ck_assert_ptr_null(r.sym);
	ck_assert_uint_eq((machine_kernel_source(m, &reloads), reloads), 1);

	/* The program unloaded: its old table stays readable. */
	write_text(ks, base);
	machine_test_kernel_reload_now(m);
	machine_resolve(m, 1, 1, PERF_RECORD_MISC_KERNEL, 0xffffffffc0100000ULL, &r);
	ck_assert(r.pending);
	machine_wait_kernel(m);
	ck_assert(machine_resolve_deferred(m, r.dso, 0xffffffffc0003010ULL, true, &d));
	ck_assert_ptr_null(d.sym);
	ck_assert_str_eq(bpf_a->name, "bpf_prog_a");
	ck_assert_uint_eq((machine_kernel_source(m, &reloads), reloads), 2);
	machine_free(m);
	free(ks);
	free(mods);
	free(dir);
}
END_TEST

/* The running kernel through the cache: the second machine reads the
 * cache, names as the first did, and reads kallsyms again at once for an
 * address the cache cannot know (dynamic symbols are never in it). */
START_TEST(test_kernel_cache)
{
	char *rel = testutil_tmpdir("kernel-cache"), *dir = realpath(rel, NULL);
	struct machine *m1, *m2;
	uint64_t addrs[] = { 0, 0 };
	struct resolved r1, r2;
	unsigned reloads;
	bool restricted;
	size_t i;

	free(rel);
	/* Absolute: a relative XDG_CACHE_HOME is ignored. */
	ck_assert_ptr_nonnull(dir);
	ck_assert_int_eq(setenv("XDG_CACHE_HOME", dir, 1), 0);
	m1 = machine_new();
	machine_set_kernel_live(m1, true);
	if (machine_load_kernel(m1, &restricted) != 0 || restricted) {
		machine_free(m1);
		free(dir);
		return;
	}
	ck_assert_str_eq(machine_kernel_source(m1, &reloads), "/proc/kallsyms");
	m2 = machine_new();
	ck_assert_int_eq(machine_set_async(m2, true), 0);
	machine_set_kernel_live(m2, true);
	ck_assert_int_eq(machine_load_kernel_async(m2), 0);
	machine_wait_kernel(m2);
	ck_assert_str_eq(machine_kernel_source(m2, &reloads), "cache");
	ck_assert_uint_eq(reloads, 0);
	/* Two kernel functions of the image, by their own tables' names. */
	for (i = 0; i < 2000; i += 97) {
		uint64_t a = 0xffffffff81000000ULL + i * 4096;

		machine_resolve(m1, 1, 1, PERF_RECORD_MISC_KERNEL, a, &r1);
		machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, a, &r2);
		ck_assert(!r2.pending);
		ck_assert_int_eq(!r1.sym, !r2.sym);
		if (r1.sym) {
			ck_assert_str_eq(r1.sym->name, r2.sym->name);
			addrs[addrs[0] != 0] = a;
		}
	}
	ck_assert_uint_ne(addrs[0], 0);
	/* Garbage of a frame pointer chain, or just below _text: never
	 * dynamic code, no reload. */
	machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, 0x89480000000cb9bfULL, &r2);
	ck_assert(!r2.pending);
	machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, 0xfffffe8000000000ULL, &r2);
	ck_assert(!r2.pending);
	ck_assert_uint_eq((machine_kernel_source(m2, &reloads), reloads), 0);
	/* Far above the image, where BPF programs go. */
	machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, 0xfffffffff0000000ULL, &r2);
	ck_assert(r2.pending);
	machine_wait_kernel(m2);
	ck_assert_uint_eq((machine_kernel_source(m2, &reloads), reloads), 1);
	machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, 0xfffffffff0001000ULL, &r2);
	ck_assert(!r2.pending);
	machine_resolve(m2, 1, 1, PERF_RECORD_MISC_KERNEL, addrs[0], &r2);
	machine_resolve(m1, 1, 1, PERF_RECORD_MISC_KERNEL, addrs[0], &r1);
	ck_assert_str_eq(r1.sym->name, r2.sym->name);
	machine_free(m1);
	machine_free(m2);
	unsetenv("XDG_CACHE_HOME");
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *tc;

	tc = tcase_create("kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kernel);
	tcase_add_test(tc, test_kernel_async);
	tcase_add_test(tc, test_kernel_reload);
	tcase_add_test(tc, test_kernel_cache);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
