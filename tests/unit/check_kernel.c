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
	ck_assert(machine_dso_pending(r.dso));
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


static Suite *suite(void)
{
	Suite *s = suite_create("kernel");
	TCase *tc;

	tc = tcase_create("kernel");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kernel);
	tcase_add_test(tc, test_kernel_async);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
