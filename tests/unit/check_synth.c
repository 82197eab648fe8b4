/* Unit tests for src/synth.c: the machine synthesized from /proc, at
 * once and in steps. */
#include "config.h"

#include "synth.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "machine.h"
#include "machine_cases.h"
#include "procfs.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

/* ---- /proc synthesis ---- */

static int __attribute__((noinline)) machine_test_marker(int x)
{
	return x * 5 + 3;
}

static int (*volatile marker_ptr)(int) = machine_test_marker;

static pthread_mutex_t thr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thr_cond = PTHREAD_COND_INITIALIZER;
static pid_t thr_tid;
static bool thr_stop;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "mtest-worker");
	pthread_mutex_lock(&thr_lock);
	thr_tid = gettid();
	pthread_cond_broadcast(&thr_cond);
	while (!thr_stop)
		pthread_cond_wait(&thr_cond, &thr_lock);
	pthread_mutex_unlock(&thr_lock);
	return NULL;
}

START_TEST(test_synthesize_self)
{
	struct machine *m = machine_new();
	pid_t self = getpid();
	char exe[PATH_MAX];
	ssize_t n;
	pthread_t th;
	struct resolved r;
	const char *comm;
	char *want;

	ck_assert_int_eq(pthread_create(&th, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&thr_lock);
	while (!thr_tid)
		pthread_cond_wait(&thr_cond, &thr_lock);
	pthread_mutex_unlock(&thr_lock);

	ck_assert_int_eq(machine_synthesize(m, &self, 1), 1);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';

	r = user(m, (uint32_t)self, (uint32_t)self, (uint64_t)(uintptr_t)marker_ptr + 2);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_str_eq(dso_path(r.dso), exe);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "machine_test_marker");
	ck_assert_int_eq(marker_ptr(1), 8);

	/* libc is mapped too, and the other thread shares the maps. */
	r = user(m, (uint32_t)self, (uint32_t)thr_tid, (uint64_t)(uintptr_t)&getpid);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_int_eq(dso_kind(r.dso), DSO_USER);
	ck_assert_ptr_nonnull(strstr(dso_short_name(r.dso), "libc"));

	/* Not "check_machine" under valgrind: compare with what the kernel says. */
	ck_assert_int_eq(read_file("/proc/self/comm", 64, &want, NULL), 0);
	want[strcspn(want, "\n")] = '\0';
	comm = machine_comm_of(m, (uint32_t)self, (uint32_t)self);
	ck_assert_ptr_nonnull(comm);
	ck_assert_str_eq(comm, want);
	free(want);
	ck_assert_str_eq(machine_comm_of(m, (uint32_t)self, (uint32_t)thr_tid), "mtest-worker");
	ck_assert_uint_eq(machine_get_stats(m)->unknown_thread, 0);

	pthread_mutex_lock(&thr_lock);
	thr_stop = true;
	pthread_cond_broadcast(&thr_cond);
	pthread_mutex_unlock(&thr_lock);
	pthread_join(th, NULL);
	machine_free(m);
}
END_TEST

/* The sweep in steps: a process a record names is read at once, before
 * the sweep gets to it, and the sweep then leaves it alone (what records
 * added since stays); every listed process is read in the end. */
START_TEST(test_synthesize_steps)
{
	struct machine *m = machine_new();
	pid_t self = getpid(), pids[3] = { 1, 0x3ffffff0, 0 };
	struct resolved r;
	int n = machine_synthesize_begin(m, NULL, 0);
	size_t left;

	ck_assert_int_gt(n, 1);
	ck_assert(machine_synthesizing(m));
	left = machine_synthesize_step(m, 1);
	ck_assert_uint_eq(left, (size_t)n - 1);
	/* The sweep has not read us yet (pid 1 comes first)... */
	ck_assert_ptr_null(machine_comm_of(m, (uint32_t)self, (uint32_t)self));
	machine_synthesize_pid(m, (uint32_t)self);
	r = user(m, (uint32_t)self, (uint32_t)self, (uint64_t)(uintptr_t)marker_ptr + 2);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "machine_test_marker");
	/* ...a record maps more; the rest of the sweep must keep it. */
	do_mmap(m, (uint32_t)self, (uint32_t)self, 0x10000, 0x1000, 0, "/tmp/synth-step.so");
	ck_assert_str_eq(name_at(m, (uint32_t)self, (uint32_t)self, 0x10010), "synth-step.so");
	while ((left = machine_synthesize_step(m, 7)) > 0)
		ck_assert(machine_synthesizing(m));
	ck_assert(!machine_synthesizing(m));
	ck_assert_str_eq(name_at(m, (uint32_t)self, (uint32_t)self, 0x10010), "synth-step.so");
	ck_assert_ptr_nonnull(machine_comm_of(m, 1, 1));
	ck_assert_uint_ge(machine_get_stats(m)->processes, (uint64_t)n - 8);
	/* Once done, a pid is not read on demand any more. */
	machine_synthesize_pid(m, 2);
	machine_free(m);

	/* A list: each pid once, a vanished one skipped. */
	m = machine_new();
	pids[2] = self;
	ck_assert_int_eq(machine_synthesize_begin(m, pids, 3), 3);
	ck_assert_uint_eq(machine_synthesize_step(m, 2), 1);
	ck_assert_ptr_null(machine_comm_of(m, (uint32_t)self, (uint32_t)self));
	ck_assert_uint_eq(machine_synthesize_step(m, 2), 0);
	ck_assert_ptr_nonnull(machine_comm_of(m, (uint32_t)self, (uint32_t)self));
	machine_free(m);
}
END_TEST

START_TEST(test_synthesize_vanished)
{
	struct machine *m = machine_new();
	pid_t pids[2] = { getpid(), 0x3ffffff0 };

	/* A pid that does not exist is skipped, not an error. */
	ck_assert_int_eq(machine_synthesize(m, pids, 2), 1);
	machine_free(m);
}
END_TEST

START_TEST(test_synthesize_all)
{
	struct machine *m = machine_new();
	double t0 = now_monotonic(), dt;
	int n = machine_synthesize(m, NULL, 0);
	const struct machine_stats *st = machine_get_stats(m);

	dt = now_monotonic() - t0;
	ck_assert_int_gt(n, 0);
	ck_assert_uint_ge(st->processes, (uint64_t)n);
	ck_assert_uint_gt(st->maps, 0);
	/* For the report; speed goals live in bench/, not in assertions. */
	fprintf(stderr, "check_machine: synthesized %d processes, %" PRIu64 " threads, %"
		PRIu64 " maps, %" PRIu64 " dsos in %.1f ms\n",
		n, st->threads, st->maps, st->dsos, dt * 1e3);
	ck_assert_ptr_nonnull(machine_comm_of(m, 1, 1));
	machine_free(m);
}
END_TEST

/* ---- data addresses (-s daddr_sym) ---- */

/* Objects of this binary, one per kind of section: .data, .bss, .rodata. */
int synth_test_data[16] = { 1, 2 };
char synth_test_bss[300];
const char synth_test_rodata[64] = "read only";

/* The name /proc/self/maps gives the mapping holding p ("" anonymous),
 * as the kernel sees it: under valgrind or ASan the heap may be no
 * [heap]. */
static char *maps_name_of(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], *name = NULL;

	ck_assert_ptr_nonnull(f);
	while (!name && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		int off = 0;

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || !off ||
		    a < lo || a >= hi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		name = xstrdup(line + off);
	}
	fclose(f);
	ck_assert_ptr_nonnull(name);
	return name;
}

static void check_data_map(struct machine *m, const void *p, const char *what)
{
	struct resolved r;
	char *want = maps_name_of(p);
	const char *base = strrchr(want, '/');

	machine_resolve_data(m, (uint32_t)getpid(), (uint32_t)getpid(), (uint64_t)(uintptr_t)p,
			     &r);
	ck_assert_msg(r.dso != NULL, "%s: no map", what);
	if (!want[0])
		ck_assert_str_eq(dso_short_name(r.dso), "//anon");
	else
		ck_assert_str_eq(dso_short_name(r.dso),
				 want[0] == '[' || !base ? want : base + 1);
	ck_assert_ptr_null(r.sym);
	free(want);
}

/* Whether p lies in a file's mapping here: the end of .bss past the last
 * page the file fills is anonymous memory (where depends on the link's
 * layout: the sanitizers' build put synth_test_bss there). */
static bool file_backed(const void *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi, ino;
	bool in = false;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &ino) == 3 &&
		    lo <= (uintptr_t)p && (uintptr_t)p < hi) {
			in = ino != 0;
			break;
		}
	fclose(f);
	return in;
}

START_TEST(test_synthesize_data)
{
	struct machine *m = machine_new();
	pid_t self = getpid();
	struct resolved r;
	volatile int local = 1;
	void *heap = malloc(64);
	void *anon = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct {
		const void *p;
		const char *name;
		uint64_t off;
	} objs[] = {
		{ &synth_test_data[3], "synth_test_data", 12 },
		{ &synth_test_bss[299], "synth_test_bss", 299 },
		{ &synth_test_rodata[5], "synth_test_rodata", 5 },
	};
	size_t i;

	ck_assert_ptr_ne(anon, MAP_FAILED);
	/* Without data maps, data maps are not read: no map holds them. */
	ck_assert_int_eq(machine_synthesize(m, &self, 1), 1);
	machine_resolve_data(m, (uint32_t)self, (uint32_t)self, (uint64_t)(uintptr_t)anon, &r);
	ck_assert_ptr_null(r.dso);
	machine_free(m);

	m = machine_new();
	machine_keep_data_maps(m);
	ck_assert_int_eq(machine_synthesize(m, &self, 1), 1);
	for (i = 0; i < ARRAY_SIZE(objs); i++) {
		machine_resolve_data(m, (uint32_t)self, (uint32_t)self,
				     (uint64_t)(uintptr_t)objs[i].p, &r);
		ck_assert_ptr_nonnull(r.dso);
		/* Past the file's last page: anonymous, as perf names it. */
		if (!file_backed(objs[i].p)) {
			ck_assert_int_eq(dso_kind(r.dso), DSO_ANON);
			ck_assert_ptr_null(r.sym);
			continue;
		}
		ck_assert_int_eq(dso_kind(r.dso), DSO_USER);
		ck_assert_msg(r.sym != NULL, "%s: no symbol", objs[i].name);
		ck_assert_str_eq(r.sym->name, objs[i].name);
		ck_assert_uint_eq(r.addr - r.sym->start, objs[i].off);
	}
	check_data_map(m, heap, "heap");
	check_data_map(m, (const void *)&local, "stack");
	check_data_map(m, anon, "anon");
	/* Code resolves as it did: data maps do not hide functions. */
	r = user(m, (uint32_t)self, (uint32_t)self, (uint64_t)(uintptr_t)marker_ptr + 2);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "machine_test_marker");
	/* A data map's range is no code's. */
	r = user(m, (uint32_t)self, (uint32_t)self, (uint64_t)(uintptr_t)anon);
	ck_assert_ptr_null(r.dso);
	munmap(anon, 8192);
	free(heap);
	machine_free(m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("synth");
	TCase *tc;

	tc = tcase_create("proc");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_synthesize_self);
	tcase_add_test(tc, test_synthesize_vanished);
	tcase_add_test(tc, test_synthesize_all);
	tcase_add_test(tc, test_synthesize_steps);
	tcase_add_test(tc, test_synthesize_data);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
