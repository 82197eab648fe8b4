/* Unit tests for src/jitmap.c: JIT code named from perf-PID.map, read
 * at once, on the loader thread, per process, or refused. */
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
#include "machine_cases.h"
#include "procfs.h"
#include "symloader.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

/* JIT code: /tmp/perf-PID.map of a live process names anonymous code. */
#define JIT_BASE 0x7f0000000000ULL

static const char *jit_map_path(void)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	return path;
}

static void jit_write(const char *mode, const char *text)
{
	FILE *f = fopen(jit_map_path(), mode);

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A live machine with an anonymous exec map in this process. */
static struct machine *jit_machine(bool live)
{
	struct machine *m = machine_new();
	uint32_t pid = (uint32_t)getpid();

	machine_set_live(m, live);
	do_mmap(m, pid, pid, JIT_BASE, 0x10000, 0, "//anon");
	return m;
}

static const char *jit_sym(struct machine *m, uint64_t ip, const char **dso)
{
	struct resolved r = user(m, (uint32_t)getpid(), (uint32_t)getpid(), ip);

	*dso = r.dso ? dso_short_name(r.dso) : "-";
	return r.sym ? r.sym->name : "-";
}

START_TEST(test_jit_perfmap)
{
	uint32_t pid = (uint32_t)getpid();
	char *short_name = xasprintf("perf-%u.map", pid);
	struct machine *m;
	struct resolved r;
	const char *dso;

	unlink(jit_map_path());
	jit_write("w", "7f0000001000 100 jit_func\n400 10 outside_maps\n");
	m = jit_machine(true);
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "jit_func");
	ck_assert_str_eq(dso_short_name(r.dso), short_name);
	ck_assert_uint_eq(r.addr, JIT_BASE + 0x1010);
	/* Anonymous but not in the map: the anon DSO, no symbol. */
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x3000, &dso), "-");
	ck_assert_str_eq(dso, "//anon");
	/* Outside every map: the perf map still names it. */
	ck_assert_str_eq(jit_sym(m, 0x404, &dso), "outside_maps");
	ck_assert_str_eq(dso, short_name);
	ck_assert_str_eq(jit_sym(m, 0x500, &dso), "-");
	ck_assert_str_eq(dso, "-");

	/* Appended entries are read on a miss, at most once a second; the
	 * symbols resolved before stay valid. */
	jit_write("a", "7f0000003000 20 jit_later\n"
		       "7f0000001080 80 jit_recompiled\n");
	usleep(1100 * 1000);
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x3008, &dso), "jit_later");
	ck_assert_str_eq(r.sym->name, "jit_func");
	/* Only the appended lines were read, and they win over older ones;
	 * the older part keeps its symbol (the same row in the table). */
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x1090, &dso), "jit_recompiled");
	ck_assert_ptr_eq(user(m, pid, pid, JIT_BASE + 0x1010).sym, r.sym);
	machine_free(m);

	/* Replays do not read this host's perf maps. */
	m = jit_machine(false);
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x1010, &dso), "-");
	ck_assert_str_eq(dso, "//anon");
	machine_free(m);

	unlink(jit_map_path());
	free(short_name);
}
END_TEST

/* Over 1 MiB of lines that name nothing the tests look up. */
static void jit_write_filler(void)
{
	FILE *f = fopen(jit_map_path(), "a");
	int i;

	ck_assert_ptr_nonnull(f);
	for (i = 0; i < 30000; i++)
		fprintf(f, "%x 10 filler_of_a_big_perf_map_%d\n", 0x10000000 + i * 0x10, i);
	fclose(f);
}

/* With the loader thread: a small perf map is read at once; a big one
 * there, and a miss waits for the read (pending) rather than being filed
 * under //anon; once the read is in, the held address is named from the
 * map, or falls back to the DSO it would have had without one (//anon,
 * none when unmapped). */
START_TEST(test_jit_perfmap_async)
{
	uint32_t pid = (uint32_t)getpid();
	char *short_name = xasprintf("perf-%u.map", pid);
	struct machine *m;
	struct resolved r, miss, out, d;
	const struct symbol *func;
	const char *name;

	unlink(jit_map_path());
	jit_write("w", "7f0000001000 100 jit_func\n");
	m = jit_machine(true);
	ck_assert_int_eq(machine_set_async(m, true), 0);
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert(!r.pending);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "jit_func");
	ck_assert_uint_eq(machine_symbols_ticket(m), 0);
	machine_free(m);

	unlink(jit_map_path());
	jit_write_filler();
	jit_write("a", "7f0000001000 100 jit_func\n400 10 outside_maps\n");
	m = jit_machine(true);
	ck_assert_int_eq(machine_set_async(m, true), 0);
	/* The first sample queues the read: pending, whatever its speed. */
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert(r.pending);
	ck_assert_ptr_null(r.sym);
	ck_assert_uint_eq(r.addr, JIT_BASE + 0x1010);
	ck_assert_uint_eq(machine_symbols_ticket(m), 1);
	miss = user(m, pid, pid, JIT_BASE + 0x3000);
	out = user(m, pid, pid, 0x500);
	machine_wait_symbols(m);
	ck_assert(!machine_dso_pending(r.dso));
	ck_assert(machine_resolve_deferred(m, r.dso, r.addr, false, &d));
	ck_assert(!d.pending);
	ck_assert_ptr_nonnull(d.sym);
	ck_assert_str_eq(d.sym->name, "jit_func");
	ck_assert_str_eq(dso_short_name(d.dso), short_name);
	ck_assert_uint_eq(d.addr, JIT_BASE + 0x1010);
	func = d.sym;
	/* Misses held meanwhile: the anon DSO, or no DSO outside the maps. */
	if (miss.pending) {
		ck_assert(machine_resolve_deferred(m, miss.dso, miss.addr, false, &d));
		ck_assert_ptr_null(d.sym);
		ck_assert_str_eq(dso_short_name(d.dso), "//anon");
	} else {
		ck_assert_str_eq(dso_short_name(miss.dso), "//anon");
	}
	if (out.pending) {
		ck_assert(machine_resolve_deferred(m, out.dso, out.addr, false, &d));
		ck_assert_ptr_null(d.sym);
		ck_assert_ptr_null(d.dso);
	} else {
		ck_assert_ptr_null(out.dso);
	}
	/* Read: no longer pending, the same symbol. */
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert(!r.pending);
	ck_assert_ptr_eq(r.sym, func);
	ck_assert_str_eq(jit_sym(m, 0x404, &name), "outside_maps");
	ck_assert_str_eq(name, short_name);

	/* A re-read of the appended lines goes the same way: the miss that
	 * asks for it is pending, and named once it is in. */
	jit_write_filler();
	jit_write("a", "7f0000003000 20 jit_later\n");
	usleep(1100 * 1000);
	r = user(m, pid, pid, JIT_BASE + 0x3008);
	ck_assert(r.pending);
	ck_assert_uint_eq(machine_symbols_ticket(m), 2);
	/* Hits stay hits meanwhile. */
	ck_assert_ptr_eq(user(m, pid, pid, JIT_BASE + 0x1010).sym, func);
	machine_wait_symbols(m);
	ck_assert(machine_resolve_deferred(m, r.dso, r.addr, false, &d));
	ck_assert_ptr_nonnull(d.sym);
	ck_assert_str_eq(d.sym->name, "jit_later");
	ck_assert_ptr_eq(user(m, pid, pid, JIT_BASE + 0x1010).sym, func);
	machine_free(m);
	unlink(jit_map_path());
	free(short_name);
}
END_TEST

/* A process that reuses a pid, or execs, starts with a perf map of its
 * own: a map rewritten to the same size is read again, and the old
 * names are not the new code's. */
START_TEST(test_jit_perfmap_new_process)
{
	uint32_t pid = (uint32_t)getpid();
	struct machine *m;
	struct resolved r, r2;

	unlink(jit_map_path());
	jit_write("w", "7f0000001000 100 old_func\n");
	m = jit_machine(true);
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "old_func");

	/* exec: a new program, its JIT writes the map anew (same size). */
	jit_write("w", "7f0000001000 100 new_func\n");
	do_comm(m, pid, pid, "java", true);
	do_mmap(m, pid, pid, JIT_BASE, 0x10000, 0, "//anon");
	r2 = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert_ptr_nonnull(r2.sym);
	ck_assert_str_eq(r2.sym->name, "new_func");
	ck_assert_ptr_ne(r2.dso, r.dso);
	ck_assert_str_eq(dso_short_name(r2.dso), dso_short_name(r.dso));

	/* pid reuse: the process exits, another one gets its pid. */
	jit_write("w", "7f0000001000 100 neu_func\n");
	do_exit(m, pid, pid);
	do_fork(m, pid, 1, pid, 1);
	do_mmap(m, pid, pid, JIT_BASE, 0x10000, 0, "//anon");
	r = user(m, pid, pid, JIT_BASE + 0x1010);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "neu_func");
	ck_assert_ptr_ne(r.dso, r2.dso);
	/* The old process's names stay valid for rows that hold them. */
	ck_assert_str_eq(r2.sym->name, "new_func");
	machine_free(m);
	unlink(jit_map_path());
}
END_TEST

/* Process churn: a process without perf-PID.map whose samples fell in
 * anonymous memory leaves no map state behind at its exit or exec (the
 * machine kept one per process for ever, in a 10-minute churn run). */
START_TEST(test_jit_churn_bounded)
{
	uint32_t pid, base = 4000000;
	struct machine *m = jit_machine(true);
	struct resolved r;

	for (pid = base; pid < base + 200; pid++) {
		char path[64];

		snprintf(path, sizeof(path), "/tmp/perf-%u.map", pid);
		unlink(path);
		do_fork(m, pid, 1, pid, 1);
		do_mmap(m, pid, pid, JIT_BASE, 0x10000, 0, "//anon");
		r = user(m, pid, pid, JIT_BASE + 0x10);
		ck_assert_ptr_null(r.sym);
		/* exec: the new program's samples look again. */
		do_comm(m, pid, pid, "next", true);
		do_mmap(m, pid, pid, JIT_BASE, 0x10000, 0, "//anon");
		r = user(m, pid, pid, JIT_BASE + 0x10);
		ck_assert_ptr_null(r.sym);
		do_exit(m, pid, pid);
		machine_gc(m);
		machine_gc(m);
	}
	ck_assert_uint_le(machine_get_stats(m)->jitmaps, 2);
	machine_free(m);
}
END_TEST

START_TEST(test_jit_perfmap_refused)
{
	char *target = xasprintf("%s.target", jit_map_path());
	struct machine *m;
	const char *dso;

	/* A symlink in /tmp, to a good file. */
	unlink(jit_map_path());
	unlink(target);
	jit_write("w", "7f0000001000 100 jit_func\n");
	ck_assert_int_eq(rename(jit_map_path(), target), 0);
	ck_assert_int_eq(symlink(target, jit_map_path()), 0);
	m = jit_machine(true);
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x1010, &dso), "-");
	ck_assert_str_eq(dso, "//anon");
	machine_free(m);
	unlink(jit_map_path());
	unlink(target);
	free(target);

	/* Another user's file. */
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: test_jit_perfmap_refused: foreign owner needs root\n");
		return;
	}
	jit_write("w", "7f0000001000 100 jit_func\n");
	ck_assert_int_eq(chown(jit_map_path(), 65534, 65534), 0);
	m = jit_machine(true);
	ck_assert_str_eq(jit_sym(m, JIT_BASE + 0x1010, &dso), "-");
	ck_assert_str_eq(dso, "//anon");
	machine_free(m);
	unlink(jit_map_path());
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("jitmap");
	TCase *tc;

	tc = tcase_create("jit");
	tcase_add_test(tc, test_jit_perfmap);
	tcase_add_test(tc, test_jit_perfmap_refused);
	tcase_add_test(tc, test_jit_perfmap_async);
	tcase_add_test(tc, test_jit_perfmap_new_process);
	tcase_add_test(tc, test_jit_churn_bounded);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
