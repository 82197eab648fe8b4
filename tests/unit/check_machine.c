/* Unit tests for the machine: maps, fork/exec/exit/gc and [vdso]
 * resolution. */
#include "config.h"

#include "machine.h"

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
#include "kernel.h"
#include "machine_cases.h"
#include "procfs.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

/* ---- maps ---- */

/* A data map (no PROT_EXEC) in a process with no maps yet only unmaps
 * nothing: no map appears, and nothing is moved through a NULL array (the
 * sanitizer build caught a memmove from NULL of 0 bytes there). */
START_TEST(test_maps_data_map_first)
{
	struct machine *m = machine_new();
	struct mmap_event ev = mk_mmap(300, 300, 0x1000, 0x1000, 0, "/tmp/data");
	struct resolved r;

	ev.prot = PROT_READ;
	machine_mmap(m, &ev);
	r = user(m, 300, 300, 0x1800);
	ck_assert_ptr_null(r.dso);
	ck_assert_uint_eq(machine_get_stats(m)->maps, 0);
	machine_free(m);
}
END_TEST

START_TEST(test_maps_lookup)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);

	do_mmap(m, 100, 100, 0x400000, 0x2000, 0x1000, "/nonexistent/a");
	do_mmap(m, 100, 100, 0x500000, 0x1000, 0, "/nonexistent/b");
	do_mmap(m, 100, 100, 0x300000, 0x1000, 0, "/nonexistent/c");
	ck_assert_uint_eq(st->maps, 3);
	ck_map_at(m, 100, 100, 0x400000, "a", 0x1000);
	ck_map_at(m, 100, 100, 0x401fff, "a", 0x2fff);
	ck_map_at(m, 100, 100, 0x500010, "b", 0x10);
	ck_map_at(m, 100, 100, 0x300fff, "c", 0xfff);
	/* End is exclusive; gaps and outside are unmapped. */
	ck_assert_str_eq(name_at(m, 100, 100, 0x402000), "-");
	ck_assert_str_eq(name_at(m, 100, 100, 0x2fffff), "-");
	ck_assert_str_eq(name_at(m, 100, 100, 0x501000), "-");
	ck_assert_str_eq(name_at(m, 100, 100, 0x10), "-");
	ck_assert_uint_eq(st->unmapped, 4);
	ck_assert_uint_eq(st->unknown_thread, 0);
	machine_free(m);
}
END_TEST

START_TEST(test_maps_overlap_split)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);

	do_mmap(m, 100, 100, 0x10000, 0x8000, 0x2000, "/nonexistent/old");
	/* Inside: old splits into a left piece and a right piece. */
	do_mmap(m, 100, 100, 0x12000, 0x2000, 0, "/nonexistent/new");
	ck_assert_uint_eq(st->maps, 3);
	ck_map_at(m, 100, 100, 0x11fff, "old", 0x3fff);
	ck_map_at(m, 100, 100, 0x12000, "new", 0);
	ck_map_at(m, 100, 100, 0x13fff, "new", 0x1fff);
	/* The right piece keeps mapping the same file bytes: pgoff moved. */
	ck_map_at(m, 100, 100, 0x14000, "old", 0x6000);
	ck_map_at(m, 100, 100, 0x17fff, "old", 0x9fff);

	/* Across three maps: trims the left's tail and the right's head, drops the middle. */
	do_mmap(m, 100, 100, 0x11000, 0x4000, 0x100000, "/nonexistent/wide");
	ck_assert_uint_eq(st->maps, 3);
	ck_map_at(m, 100, 100, 0x10fff, "old", 0x2fff);
	ck_map_at(m, 100, 100, 0x11000, "wide", 0x100000);
	ck_map_at(m, 100, 100, 0x14fff, "wide", 0x103fff);
	ck_map_at(m, 100, 100, 0x15000, "old", 0x7000);

	/* Exactly over an existing map: replaced. */
	do_mmap(m, 100, 100, 0x11000, 0x4000, 0, "/nonexistent/same");
	ck_assert_uint_eq(st->maps, 3);
	ck_map_at(m, 100, 100, 0x11000, "same", 0);

	/* A data mapping (no PROT_EXEC) over code removes the code there. */
	{
		struct mmap_event ev = mk_mmap(100, 100, 0x15000, 0x1000, 0, "/nonexistent/data");

		ev.prot = PROT_READ | PROT_WRITE;
		machine_mmap(m, &ev);
	}
	ck_assert_str_eq(name_at(m, 100, 100, 0x15000), "-");
	ck_map_at(m, 100, 100, 0x16000, "old", 0x8000);
	ck_assert_uint_eq(st->maps, 3);
	machine_free(m);
}
END_TEST

/* ---- processes and threads ---- */

START_TEST(test_fork_copies_maps)
{
	struct machine *m = machine_new();

	do_comm(m, 100, 100, "parent", true);
	do_mmap(m, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/exe");
	do_fork(m, 200, 100, 200, 100);
	ck_map_at(m, 200, 200, 0x400010, "exe", 0x10);
	ck_assert_str_eq(machine_comm_of(m, 200, 200), "parent");
	/* Child's own mmap does not leak into the parent, and vice versa. */
	do_mmap(m, 200, 200, 0x400000, 0x1000, 0, "/nonexistent/child");
	do_mmap(m, 200, 200, 0x600000, 0x1000, 0, "/nonexistent/child2");
	do_mmap(m, 100, 100, 0x700000, 0x1000, 0, "/nonexistent/late");
	ck_map_at(m, 200, 200, 0x400010, "child", 0x10);
	ck_map_at(m, 100, 100, 0x400010, "exe", 0x10);
	ck_assert_str_eq(name_at(m, 100, 100, 0x600000), "-");
	ck_assert_str_eq(name_at(m, 200, 200, 0x700000), "-");
	ck_assert_uint_eq(machine_get_stats(m)->processes, 3); /* with swapper */
	machine_free(m);
}
END_TEST

START_TEST(test_threads_share_maps)
{
	struct machine *m = machine_new();

	do_comm(m, 100, 100, "server", true);
	do_mmap(m, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/exe");
	do_fork(m, 100, 100, 101, 100);
	ck_map_at(m, 100, 101, 0x400000, "exe", 0);
	ck_assert_str_eq(machine_comm_of(m, 100, 101), "server");
	/* A map made by one thread is seen by all. */
	do_mmap(m, 100, 101, 0x500000, 0x1000, 0, "/nonexistent/lib");
	ck_map_at(m, 100, 100, 0x500000, "lib", 0);
	/* Thread names are per thread. */
	do_comm(m, 100, 101, "worker", false);
	ck_assert_str_eq(machine_comm_of(m, 100, 101), "worker");
	ck_assert_str_eq(machine_comm_of(m, 100, 100), "server");
	/* Interned: same pointer for the same contents. */
	ck_assert_ptr_eq(machine_comm_of(m, 100, 101), intern("worker"));
	ck_assert_uint_eq(machine_get_stats(m)->threads, 3);
	ck_assert_uint_eq(machine_get_stats(m)->processes, 2);
	machine_free(m);
}
END_TEST

START_TEST(test_exec_flushes_maps)
{
	struct machine *m = machine_new();

	do_comm(m, 100, 100, "sh", true);
	do_mmap(m, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/sh");
	do_comm(m, 100, 100, "make", true);
	ck_assert_str_eq(machine_comm_of(m, 100, 100), "make");
	ck_assert_str_eq(name_at(m, 100, 100, 0x400000), "-");
	ck_assert_uint_eq(machine_get_stats(m)->maps, 0);
	do_mmap(m, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/make");
	ck_map_at(m, 100, 100, 0x400000, "make", 0);
	machine_free(m);
}
END_TEST

START_TEST(test_exit_two_phase_gc)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);

	do_comm(m, 100, 100, "short", true);
	do_mmap(m, 100, 100, 0x400000, 0x1000, 0, "/nonexistent/exe");
	do_fork(m, 100, 100, 101, 100);
	ck_assert_uint_eq(st->processes, 2);
	do_exit(m, 100, 101);
	/* Samples from other rings may still come: resolvable until two gcs. */
	ck_map_at(m, 100, 101, 0x400000, "exe", 0);
	machine_gc(m);
	ck_map_at(m, 100, 101, 0x400000, "exe", 0);
	ck_assert_str_eq(machine_comm_of(m, 100, 101), "short");
	machine_gc(m);
	ck_assert_uint_eq(st->threads, 2);
	ck_assert_ptr_null(machine_comm_of(m, 555, 101));
	/* The process lives on through its main thread. */
	ck_map_at(m, 100, 100, 0x400000, "exe", 0);

	do_exit(m, 100, 100);
	machine_gc(m);
	machine_gc(m);
	ck_assert_uint_eq(st->threads, 1);
	ck_assert_uint_eq(st->processes, 1);
	ck_assert_uint_eq(st->maps, 0);
	ck_assert_str_eq(name_at(m, 100, 100, 0x400000), "-");
	ck_assert_uint_eq(st->unknown_thread, 1);
	ck_assert_ptr_null(machine_comm_of(m, 100, 100));
	machine_free(m);
}
END_TEST

START_TEST(test_pid_reuse)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);

	do_comm(m, 100, 100, "init", true);
	do_mmap(m, 100, 100, 0x100000, 0x1000, 0, "/nonexistent/init");
	do_comm(m, 300, 300, "old", true);
	do_mmap(m, 300, 300, 0x200000, 0x1000, 0, "/nonexistent/old");
	do_fork(m, 300, 300, 301, 300);
	/* EXIT records were lost: the pid comes back in a FORK. */
	do_fork(m, 300, 100, 300, 100);
	ck_assert_str_eq(machine_comm_of(m, 300, 300), "init");
	ck_map_at(m, 300, 300, 0x100000, "init", 0);
	ck_assert_str_eq(name_at(m, 300, 300, 0x200000), "-");
	/* The old process's other thread is retired like an exited one. */
	ck_map_at(m, 300, 301, 0x200000, "old", 0);
	machine_gc(m);
	machine_gc(m);
	ck_assert_str_eq(name_at(m, 300, 301, 0x200000), "-");
	ck_assert_uint_eq(st->processes, 3);
	ck_assert_uint_eq(st->threads, 3);
	ck_assert_uint_eq(st->maps, 2);
	machine_free(m);
}
END_TEST

/* A child's records read (from another CPU's ring) before its FORK. */
START_TEST(test_fork_after_child_records)
{
	struct machine *m = machine_new();
	struct task_event fork_ev = { .pid = 200, .ppid = 100, .tid = 200, .ptid = 100,
				      .time = 1000 };

	do_comm(m, 100, 100, "parent", true);
	do_mmap(m, 100, 100, 0x100000, 0x1000, 0, "/nonexistent/parent");
	machine_set_time(m, 1500);
	do_comm(m, 200, 200, "child", true);
	do_mmap(m, 200, 200, 0x300000, 0x1000, 0, "/nonexistent/child");
	machine_set_time(m, 0);
	machine_fork(m, &fork_ev);
	ck_assert_str_eq(machine_comm_of(m, 200, 200), "child");
	ck_map_at(m, 200, 200, 0x300000, "child", 0);
	/* It exec'd: the parent's maps are not its own. */
	ck_assert_str_eq(name_at(m, 200, 200, 0x100000), "-");

	/* A later FORK of the same pid after its exit is pid reuse. */
	machine_set_time(m, 2000);
	do_exit(m, 200, 200);
	fork_ev.time = 3000;
	machine_fork(m, &fork_ev);
	ck_assert_str_eq(machine_comm_of(m, 200, 200), "parent");
	ck_map_at(m, 200, 200, 0x100000, "parent", 0);
	machine_free(m);
}
END_TEST

/* A short-lived child whose EXIT is read before its FORK is freed. */
START_TEST(test_exit_before_fork)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);
	struct task_event fork_ev = { .pid = 300, .ppid = 100, .tid = 300, .ptid = 100,
				      .time = 1000 };
	struct task_event thr_ev = { .pid = 100, .ppid = 100, .tid = 101, .ptid = 100,
				     .time = 1100 };
	uint64_t threads, procs;

	do_comm(m, 100, 100, "parent", true);
	threads = st->threads;
	procs = st->processes;
	machine_set_time(m, 1500);
	do_exit(m, 300, 300);
	do_exit(m, 100, 101);
	machine_set_time(m, 0);
	machine_fork(m, &fork_ev);
	machine_fork(m, &thr_ev);
	machine_gc(m);
	machine_gc(m);
	ck_assert_uint_eq(st->threads, threads);
	ck_assert_uint_eq(st->processes, procs);
	machine_free(m);
}
END_TEST

START_TEST(test_unknown_thread)
{
	struct machine *m = machine_new();
	const struct machine_stats *st = machine_get_stats(m);
	struct resolved r;

	machine_resolve(m, 4242, 4243, PERF_RECORD_MISC_USER, 0x400000, &r);
	ck_assert_ptr_null(r.dso);
	ck_assert_ptr_null(r.sym);
	ck_assert(!r.kernel);
	ck_assert_uint_eq(st->unknown_thread, 1);
	ck_assert_uint_eq(st->threads, 1);
	ck_assert_ptr_null(machine_comm_of(m, 4242, 4243));
	/* Kernel addresses still resolve (to the kernel, at least). */
	machine_resolve(m, 4242, 4243, PERF_RECORD_MISC_KERNEL, 0xffffffff81000000ULL, &r);
	ck_assert(r.kernel);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert(dso_is_kernel(r.dso));
	ck_assert_str_eq(dso_short_name(r.dso), "[kernel.kallsyms]");
	/* A tid filed under another pid is stale: the sample's pid decides. */
	do_mmap(m, 500, 500, 0x400000, PAGE, 0, "/nonexistent/five");
	do_mmap(m, 600, 600, 0x400000, PAGE, 0, "/nonexistent/six");
	ck_map_at(m, 600, 500, 0x400000, "six", 0);
	/* The idle task is always known. */
	ck_assert_str_eq(machine_comm_of(m, 0, 0), "swapper");
	machine_free(m);
}
END_TEST

/* [vdso]: named from our own vdso image, live only, and only for maps of
 * its size. */
START_TEST(test_vdso_symbols)
{
	const void *image;
	size_t size, map_size, i;
	struct elfsyms_image img;
	const struct symbol *want = NULL;
	uint64_t base = 0x7ffff7fc0000ULL;
	struct machine *m;
	struct resolved r;

	if (vdso_self(&image, &size, &map_size) != 0) {
		fprintf(stderr, "SKIP: test_vdso_symbols: no vdso\n");
		return;
	}
	ck_assert_int_eq(elfsyms_load_memory(image, size, &img), 0);
	for (i = 0; i < symtab_count(img.symtab) && !want; i++)
		if (strstr(symtab_get(img.symtab, i)->name, "clock_gettime"))
			want = symtab_get(img.symtab, i);
	ck_assert_ptr_nonnull(want);

	m = machine_new();
	machine_set_live(m, true);
	do_mmap(m, 100, 100, base, map_size, 0, "[vdso]");
	do_mmap(m, 200, 200, base, map_size + 4096, 0, "[vdso]");
	r = user(m, 100, 100, base + want->start + 1);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, want->name);
	ck_assert_str_eq(dso_short_name(r.dso), "[vdso]");
	/* Another image (a 32-bit process's): no name from ours. */
	r = user(m, 200, 200, base + want->start + 1);
	ck_assert_ptr_null(r.sym);
	ck_assert_str_eq(dso_short_name(r.dso), "[vdso]");
	machine_free(m);

	/* A recording of this kernel, its kallsyms not read yet (no kernel
	 * address so far): named all the same. */
	m = machine_new();
	machine_load_kernel_lazy(m);
	do_mmap(m, 100, 100, base, map_size, 0, "[vdso]");
	r = user(m, 100, 100, base + want->start + 1);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, want->name);
	machine_free(m);

	/* A recording of another kernel: not ours to name. */
	m = machine_new();
	do_mmap(m, 100, 100, base, map_size, 0, "[vdso]");
	r = user(m, 100, 100, base + want->start + 1);
	ck_assert_ptr_null(r.sym);
	ck_assert_uint_eq(r.addr, want->start + 1);
	machine_free(m);
	elfsyms_release(&img);
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("machine");
	TCase *tc;

	tc = tcase_create("maps");
	tcase_add_test(tc, test_maps_lookup);
	tcase_add_test(tc, test_maps_data_map_first);
	tcase_add_test(tc, test_maps_overlap_split);
	suite_add_tcase(s, tc);

	tc = tcase_create("tasks");
	tcase_add_test(tc, test_fork_copies_maps);
	tcase_add_test(tc, test_threads_share_maps);
	tcase_add_test(tc, test_exec_flushes_maps);
	tcase_add_test(tc, test_exit_two_phase_gc);
	tcase_add_test(tc, test_pid_reuse);
	tcase_add_test(tc, test_fork_after_child_records);
	tcase_add_test(tc, test_exit_before_fork);
	tcase_add_test(tc, test_unknown_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("vdso");
	tcase_add_test(tc, test_vdso_symbols);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
