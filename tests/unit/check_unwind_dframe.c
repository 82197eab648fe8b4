/* Unit tests for .debug_frame in DWARF unwinding: a stripped library whose
 * .eh_frame lacks the FDEs of the functions built without unwind tables,
 * their CFI in the .debug_frame of its separate debug file (compressed,
 * found by .gnu_debuglink, as Debian ships them).  Walks from them reach
 * the root through the cached rules and through libdw's walk, and the debug
 * file is read once for every process, not per process. */
#include "config.h"

#include <check.h>
#include <elf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dso.h"
#include "machine.h"
#include "record.h"
#include "testutil.h"
#include "unwind-file.h"
#include "unwind-test.h"
#include "unwind.h"
#include "unwind-fixture.h"
#include "util.h"

#if defined(__x86_64__)

#define BASE 0x10000000ULL
#define SP UW_SP
#define PID 4242

/* dtop: the root; dplain: a plain frame, in .eh_frame. */
static const char eh_src[] = "\t.text\n\t.globl dtop, dplain\n"
			     "dtop:\n\t.cfi_startproc\n\t.cfi_undefined rip\n\tnop\n\tnop\n\tret\n"
			     "\t.cfi_endproc\n"
			     "dplain:\n\t.cfi_startproc\n\tnop\n\tnop\n\tret\n\t.cfi_endproc\n";
/* Only in .debug_frame, static (the debug file adds their names: one that
 * adds none is not taken): dbg (CFA = rsp + 16, the cached walk's shape) and
 * dexpr (the same CFA as a DWARF expression: libdw's walk). */
static const char dbg_src[] = "\t.cfi_sections .debug_frame\n\t.text\n"
			      "\t.type dbg, @function\n"
			      "dbg:\n\t.cfi_startproc\n\t.cfi_def_cfa_offset 16\n\tnop\n\tnop\n\tret\n"
			      "\t.cfi_endproc\n\t.size dbg, .-dbg\n"
			      "\t.type dexpr, @function\n"
			      "dexpr:\n\t.cfi_startproc\n\t.cfi_escape 0x0f,0x02,0x77,0x10\n"
			      "\tnop\n\tnop\n\tret\n\t.cfi_endproc\n\t.size dexpr, .-dexpr\n";

static char *dir;
static pid_t builder;
static uint64_t sym_dtop, sym_dplain, sym_dbg, sym_dexpr;

/* Outside a test (the library is built once, before them): abort. */
static void need(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "check_unwind_dframe: %s\n", what);
		abort();
	}
}

static uint64_t sym_value(const char *name)
{
	uint64_t v = uw_nm_value(dir, name);

	need(v != 0, name);
	return BASE + v;
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	need(f != NULL, path);
	fputs(text, f);
	fclose(f);
}

static void remove_lib(void)
{
	if (!dir || getpid() != builder)
		return;
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* gap.so, stripped, beside gap.so.debug (its .debug_frame compressed);
 * nodbg.so: the same without a debug file. */
static void build_lib(void)
{
	char *rel;

	if (dir)
		return;
	rel = testutil_tmpdir("unwind-dframe");
	/* The debug file is looked for beside an absolute path. */
	dir = realpath(rel, NULL);
	need(dir != NULL, rel);
	free(rel);
	builder = getpid();
	atexit(remove_lib);
	write_file("eh.s", eh_src);
	write_file("dbg.s", dbg_src);
	need(testutil_sh("cd '%s' && cc -shared -nostdlib -Wl,--build-id -o gap.so eh.s dbg.s && "
				     "nm gap.so >nm.txt && cp gap.so nodbg.so && "
				     "objcopy --only-keep-debug --compress-debug-sections=zlib gap.so gap.so.debug && "
				     "objcopy --strip-all --add-gnu-debuglink=gap.so.debug gap.so && "
				     "objcopy --strip-all nodbg.so && "
				     "! readelf -S gap.so | grep -q debug_frame && "
				     "readelf -SW gap.so.debug | grep debug_frame | grep -q ' [A-Z]*C[A-Z]* '",
				     dir) == 0,
	     "cannot build gap.so");
	sym_dtop = sym_value("dtop");
	sym_dplain = sym_value("dplain");
	sym_dbg = sym_value("dbg");
	sym_dexpr = sym_value("dexpr");
}

/* Process pid of m maps dir/name at BASE. */
static void map_file(struct machine *m, uint32_t pid, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	uw_map(m, pid, BASE, path);
}

/* A walk of pid from ip, the caller's return address (into dtop) on the
 * stack where ip's frame has it: rsp, or rsp + 8 for dbg and dexpr. */
static void walk_init(struct uw_walk *w, uint32_t pid, uint64_t ip)
{
	uw_walk_init(w, pid, ip, sizeof(w->stack));
	w->stack[ip >= sym_dbg] = sym_dtop + 1;
}

/* Walk pid from ip: the frames in out (16 at most), their number. */
static size_t walk_from(struct unwinder *u, uint32_t pid, uint64_t ip, uint64_t *out,
			enum unwind_outcome *o)
{
	struct uw_walk w;

	walk_init(&w, pid, ip);
	return unwind_sample(u, &w.s, &w.attr, out, 16, o);
}

/* How a walk of pid from ip ends. */
static enum unwind_outcome walk_outcome(struct unwinder *u, uint32_t pid, uint64_t ip)
{
	uint64_t out[16];
	enum unwind_outcome o;

	walk_from(u, pid, ip, out, &o);
	return o;
}

/* Walk pid from ip: it must reach dtop, the root, in two frames. */
static void walk_to_root(struct unwinder *u, uint32_t pid, uint64_t ip)
{
	uint64_t out[16];
	enum unwind_outcome o;
	size_t n = walk_from(u, pid, ip, out, &o);

	ck_assert_msg(o == UNWIND_ROOT && n == 2, "from %#" PRIx64 ": %s after %zu frames", ip,
		      unwind_outcome_name(o), n);
	ck_assert_uint_eq(out[1], sym_dtop + 1);
}

/* The library built, a machine (*m) where processes PID to PID + nprocs - 1
 * map dir/name, and an unwinder on it. */
static struct unwinder *lib_unwinder(struct machine **m, const char *name, uint32_t nprocs)
{
	struct unwinder *u;
	uint32_t pid;

	build_lib();
	*m = machine_new();
	for (pid = PID; pid < PID + nprocs; pid++)
		map_file(*m, pid, name);
	u = unwind_new(*m, EM_X86_64);
	ck_assert_ptr_nonnull(u);
	return u;
}

/* The DSO of dir/name in m, its symbols (and debug file) loaded. */
static struct dso *loaded_dso(struct machine *m, uint32_t pid)
{
	struct resolved r;

	machine_resolve(m, pid, pid, PERF_RECORD_MISC_USER, sym_dtop, &r);
	ck_assert_ptr_nonnull(r.dso);
	return r.dso;
}

/* Through the cached rules (dbg) and libdw's walk (dexpr), in many
 * processes, each with its Dwfl: the debug file is read once. */
START_TEST(test_gap_unwinds)
{
	struct machine *m;
	struct unwinder *u = lib_unwinder(&m, "gap.so", 40);
	struct unwind_file *f;
	struct dso *d = loaded_dso(m, PID);
	uint32_t pid;

	ck_assert_ptr_nonnull(dso_debug_path(d));
	/* An .eh_frame function first: no .debug_frame is read for it. */
	walk_to_root(u, PID, sym_dplain);
	f = unwind_test_file(u, d);
	ck_assert_uint_eq(f->dbg_opens, 0);
	for (pid = PID; pid < PID + 40; pid++) {
		walk_to_root(u, pid, sym_dbg + 1);
		walk_to_root(u, pid, sym_dexpr + 1);
	}
	ck_assert_uint_ge(unwind_test_dwfls(u), 2);
	ck_assert_uint_eq(f->dbg_opens, 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* Walked before the machine found the debug file: read at once when it
 * has (not at the back-off's next turn). */
START_TEST(test_gap_debug_found_later)
{
	struct machine *m;
	struct unwinder *u = lib_unwinder(&m, "gap.so", 1);

	ck_assert_int_eq(walk_outcome(u, PID, sym_dbg + 1), UNWIND_NO_CFI);
	loaded_dso(m, PID);
	/* The same pc (its rule was "no CFI"), and a new one. */
	walk_to_root(u, PID, sym_dbg + 1);
	walk_to_root(u, PID, sym_dbg + 2);
	walk_to_root(u, PID, sym_dexpr + 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* No .debug_frame anywhere: looked for once, not at each of 100 pcs and
 * processes. */
START_TEST(test_gap_none_cached)
{
	struct machine *m;
	struct unwinder *u = lib_unwinder(&m, "nodbg.so", 100);
	struct unwind_file *f = unwind_test_file(u, loaded_dso(m, PID));
	uint32_t pid;

	for (pid = PID; pid < PID + 100; pid++)
		/* Some pcs in the cached walk, some in libdw's. */
		ck_assert_int_eq(walk_outcome(u, pid,
					      pid % 2 ? sym_dbg + 1 + pid % 3 : sym_dexpr + 1 + pid % 3),
				 UNWIND_NO_CFI);
	ck_assert_uint_ge(f->dbg_asks, 100);
	ck_assert_uint_eq(f->dbg_opens, 1);
	ck_assert_ptr_null(f->dbg_cfi);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* A debug file that cannot be read (gone since it was found): read again
 * at the 2nd, 4th, 8th... ask, not at each; once back, read. */
START_TEST(test_gap_failure_backoff)
{
	struct machine *m;
	struct unwinder *u = lib_unwinder(&m, "gap.so", 100);
	struct unwind_file *f = unwind_test_file(u, loaded_dso(m, PID));
	uint32_t pid;
	int i;

	ck_assert_int_eq(testutil_sh("mv '%s/gap.so.debug' '%s/gap.so.away'", dir, dir), 0);
	for (pid = PID; pid < PID + 100; pid++)
		ck_assert_int_ne(walk_outcome(u, pid, pid % 2 ? sym_dbg + 1 : sym_dexpr + 1),
				 UNWIND_ROOT);
	ck_assert_msg(f->dbg_opens >= 2 && f->dbg_opens <= 9, "%u reads for %u asks", f->dbg_opens,
		      f->dbg_asks);
	ck_assert_int_eq(testutil_sh("mv '%s/gap.so.away' '%s/gap.so.debug'", dir, dir), 0);
	for (i = 0; i < 400 && !f->dbg_cfi; i++)
		walk_outcome(u, PID, sym_dbg + 1);
	ck_assert_ptr_nonnull(f->dbg_cfi);
	walk_to_root(u, PID, sym_dbg + 1);
	walk_to_root(u, PID + 1, sym_dexpr + 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

#endif

int main(void)
{
	Suite *s = suite_create("unwind_dframe");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
#if defined(__x86_64__)
	/* Once, for every test's process. */
	build_lib();
	tcase_add_test(tc, test_gap_unwinds);
	tcase_add_test(tc, test_gap_debug_found_later);
	tcase_add_test(tc, test_gap_none_cached);
	tcase_add_test(tc, test_gap_failure_backoff);
#endif
	suite_add_tcase(s, tc);
	return testutil_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
