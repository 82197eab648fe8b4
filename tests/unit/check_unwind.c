/* Unit tests for the DWARF unwinder: walks over a small x86-64 library
 * whose CFI is written by hand (a normal frame under a root, a frame that
 * does not move the stack, a CFA far outside it), with stacks and
 * registers that end, lie or are missing.  Every walk must end, counted. */
#include "config.h"

#include <check.h>
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gelf.h>

#include "dso.h"
#include "machine.h"
#include "record.h"
#include "source.h"
#include "testutil.h"
#include "unwind-file.h"
#include "unwind-queue.h"
#include "unwind-regs.h"
#include "unwind-test.h"
#include "unwind.h"
#include "unwind-fixture.h"
#include "util.h"

START_TEST(test_arch_table)
{
	const struct unwind_regs_arch *a = unwind_regs_find(EM_X86_64);
	uint64_t regs[3] = { 10, 20, 30 }, v;

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->perf_mask, 0xff0fff);
	ck_assert_int_eq(a->perf_of_dwarf[1], 3); /* rdx */
	ck_assert_int_eq(a->perf_of_dwarf[3], 1); /* rbx */
	ck_assert_ptr_null(unwind_regs_find(EM_ALPHA));
	ck_assert_ptr_null(unwind_new(NULL, EM_ALPHA));
	/* mask 0b1101: bits 0, 2, 3 in that order */
	ck_assert(unwind_regs_get(0xd, regs, 3, 2, &v) && v == 20);
	ck_assert(unwind_regs_get(0xd, regs, 3, 3, &v) && v == 30);
	ck_assert(!unwind_regs_get(0xd, regs, 3, 1, &v));
	ck_assert(!unwind_regs_get(0xd, regs, 2, 3, &v));
	ck_assert(!unwind_regs_get(0xd, NULL, 3, 0, &v));
	ck_assert(!unwind_regs_get(~0ULL, regs, 3, 64, &v));
}
END_TEST

#if defined(__x86_64__)

/* good: a plain frame (CFA = rsp + 8, return address at CFA - 8);
 * top: the root (return address undefined); loopy: CFA = rsp and the
 * return address at CFA, so a stack word pointing back into it is a
 * frame that never moves; far: a CFA 1 GiB above the stack; exprf: good's
 * rule written as a DWARF expression (DW_CFA_def_cfa_expression, breg7 8),
 * a shape the cached rules leave to libdw's walk; pltf: a .plt entry's
 * CFA expression as ld writes it (rsp + 8, or + 16 from byte 11 of its
 * 16); nocfi: code no FDE covers (as ld.so's _start). */
static const char asm_src[] =
	"\t.text\n"
	"\t.globl good, top, loopy, far, exprf, pltf\n"
	"good:\n\t.cfi_startproc\n\tnop\n\tnop\n\tret\n\t.cfi_endproc\n"
	"top:\n\t.cfi_startproc\n\t.cfi_undefined rip\n\tnop\n\tnop\n\tret\n\t.cfi_endproc\n"
	"loopy:\n\t.cfi_startproc\n\t.cfi_def_cfa_offset 0\n\t.cfi_offset rip, 0\n"
	"\tnop\n\tnop\n\tret\n\t.cfi_endproc\n"
	"far:\n\t.cfi_startproc\n\t.cfi_def_cfa_offset 0x40000000\n\tnop\n\tnop\n\tret\n"
	"\t.cfi_endproc\n"
	"exprf:\n\t.cfi_startproc\n\t.cfi_escape 0x0f, 0x02, 0x77, 0x08\n\tnop\n\tnop\n\tret\n"
	"\t.cfi_endproc\n"
	"\t.p2align 4\n"
	"pltf:\n\t.cfi_startproc\n"
	"\t.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22\n"
	"\t.fill 32, 1, 0x90\n\t.cfi_endproc\n"
	"\t.globl nocfi\nnocfi:\n\tnop\n\tnop\n\tnop\n\tret\n";

#define BASE 0x10000000ULL
#define SP UW_SP
#define PID 4242

static char *dir;
static uint64_t sym_good, sym_top, sym_loopy, sym_far, sym_exprf, sym_pltf, sym_nocfi;

static uint64_t sym_value(const char *name)
{
	uint64_t v = uw_nm_value(dir, name);

	ck_assert_msg(v, "no symbol %s in %s/nm.txt", name, dir);
	return BASE + v;
}

/* Build the library once (cc and nm from the toolchain that built us). */
static void build_lib(void)
{
	char path[512];
	FILE *f;

	if (dir)
		return;
	dir = testutil_tmpdir("unwind");
	snprintf(path, sizeof(path), "%s/cfi.s", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(asm_src, f);
	fclose(f);
	ck_assert_int_eq(testutil_sh("cc -shared -nostdlib -o '%s/cfi.so' '%s/cfi.s' && "
				     "nm '%s/cfi.so' >'%s/nm.txt'",
				     dir, dir, dir, dir),
			 0);
	sym_good = sym_value("good");
	sym_top = sym_value("top");
	sym_loopy = sym_value("loopy");
	sym_far = sym_value("far");
	sym_exprf = sym_value("exprf");
	sym_pltf = sym_value("pltf");
	sym_nocfi = sym_value("nocfi");
}

/* A machine (with --symfs symfs, if not NULL) whose process PID maps
 * path at BASE. */
static struct machine *machine_mapping(const char *path, const char *symfs)
{
	struct machine *m = machine_new();

	if (symfs)
		machine_set_symfs(m, symfs);
	uw_map(m, PID, BASE, path);
	return m;
}

/* A machine whose process PID maps the library at BASE. */
static struct machine *machine_with_lib(void)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/cfi.so", dir);
	return machine_mapping(path, NULL);
}

static void walk_init(struct uw_walk *w, uint64_t ip, size_t stack_bytes)
{
	uw_walk_init(w, PID, ip, stack_bytes);
}

static size_t run(struct unwinder *u, struct uw_walk *w, uint64_t *out, size_t max,
		  enum unwind_outcome *o)
{
	return unwind_sample(u, &w->s, &w->attr, out, max, o);
}

/* A sample of PID at ip whose caller (the stack's first word) is top, the
 * root. */
static void walk_to_top(struct uw_walk *w, uint64_t ip)
{
	walk_init(w, ip, sizeof(w->stack));
	w->stack[0] = sym_top + 1;
}

/* pid's sample at ip walks to top and ends there: ip, top. */
static void assert_root_walk(struct unwinder *u, uint32_t pid, uint64_t ip)
{
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;

	walk_to_top(&w, ip);
	w.s.sid.pid = w.s.sid.tid = pid;
	ck_assert_uint_eq(run(u, &w, out, 16, &o), 2);
	ck_assert_int_eq(o, UNWIND_ROOT);
	ck_assert_uint_eq(out[0], ip);
	ck_assert_uint_eq(out[1], sym_top + 1);
}

/* The library built, a machine whose PID maps it (*m) and an unwinder. */
static struct unwinder *lib_unwinder(struct machine **m)
{
	struct unwinder *u;

	build_lib();
	*m = machine_with_lib();
	u = unwind_new(*m, EM_X86_64);
	ck_assert_ptr_nonnull(u);
	return u;
}

START_TEST(test_root)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[16], counts[UNWIND_NOUTCOMES];
	enum unwind_outcome o;
	size_t n;

	u = lib_unwinder(&m);
	assert_root_walk(u, PID, sym_good);
	/* The same walk through libdw's (a CFA expression) */
	assert_root_walk(u, PID, sym_exprf + 1);
	walk_init(&w, sym_exprf + 1, 0);
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_STACK_END);
	ck_assert_uint_eq(n, 1);
	walk_to_top(&w, sym_good);
	/* The same Dwfl serves the next sample. */
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_ROOT);
	ck_assert_uint_eq(n, 2);
	/* max frames reached: cut and said so */
	n = run(u, &w, out, 1, &o);
	ck_assert_int_eq(o, UNWIND_TRUNCATED);
	ck_assert_uint_eq(n, 1);
	unwind_counts(u, counts);
	ck_assert_uint_eq(counts[UNWIND_ROOT], 3);
	ck_assert_uint_eq(counts[UNWIND_TRUNCATED], 1);
	ck_assert_uint_eq(counts[UNWIND_STACK_END], 1);
	/* Every frame in one map: the maps were searched once, at the first
	 * walk; after that the map last found served. */
	ck_assert_uint_eq(unwind_test_map_searches(u, PID), 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* A frame whose CFA does not move, its return address pointing back at
 * itself: the walk stops at the repeat, not at max frames. */
START_TEST(test_loop)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[100], counts[UNWIND_NOUTCOMES];
	enum unwind_outcome o;
	size_t n;

	u = lib_unwinder(&m);
	walk_init(&w, sym_loopy + 1, sizeof(w.stack));
	w.stack[0] = sym_loopy + 1;
	n = run(u, &w, out, 100, &o);
	ck_assert_int_eq(o, UNWIND_LOOP);
	ck_assert_uint_le(n, 2);
	unwind_counts(u, counts);
	ck_assert_uint_eq(counts[UNWIND_LOOP], 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* Reads the copy cannot serve: past its end (a zero-byte copy), far
 * outside the stack, and a return address in no file. */
START_TEST(test_reads_fail)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;
	size_t n;

	u = lib_unwinder(&m);

	walk_init(&w, sym_good, 0);
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_STACK_END);
	ck_assert_uint_eq(n, 1);

	walk_init(&w, sym_good, 4); /* shorter than a word */
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_STACK_END);

	walk_init(&w, sym_far, sizeof(w.stack));
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_MEMORY);
	ck_assert_uint_eq(n, 1);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.stack[0] = 0x1234;
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_CFI);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(out[1], 0x1234);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* Registers: a mask without the sp or the pc, another abi, a process the
 * machine never saw. */
START_TEST(test_regs_missing)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;
	size_t n;

	u = lib_unwinder(&m);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.attr.sample_regs_user = 0xff0f7f; /* no sp */
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_REGS);
	ck_assert_uint_eq(n, 0);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.attr.sample_regs_user = 0xff00ff; /* no ip, flags, cs, ss */
	w.s.nr_regs = 16;
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_REGS);
	ck_assert_uint_eq(n, 0);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.s.nr_regs = 5; /* fewer words than the mask says */
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_REGS);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.s.regs_abi = PERF_SAMPLE_REGS_ABI_32;
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_REGS);

	walk_init(&w, sym_good, sizeof(w.stack));
	w.s.sid.pid = w.s.sid.tid = PID + 1;
	n = run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_CFI);
	ck_assert_uint_le(n, 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* A new map is reported to the process's Dwfl; exit drops it. */
START_TEST(test_maps_change)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	char path[512];
	uint64_t out[16];
	enum unwind_outcome o;

	build_lib();
	m = machine_new();
	u = unwind_new(m, EM_X86_64);
	walk_to_top(&w, sym_good);
	run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_NO_CFI);

	snprintf(path, sizeof(path), "%s/cfi.so", dir);
	uw_map(m, PID, BASE, path);
	unwind_maps_changed(u, PID);
	run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_ROOT);
	unwind_forget(u, PID);
	run(u, &w, out, 16, &o);
	ck_assert_int_eq(o, UNWIND_ROOT);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* A queue of slots (0: no thread) for the library's process (*m), and in
 * w a sample in good whose caller is top. */
static struct unwind_queue *lib_queue(size_t slots, struct machine **m, struct uw_walk *w)
{
	struct unwind_queue *q;

	build_lib();
	*m = machine_with_lib();
	q = unwind_queue_new(*m, EM_X86_64, slots);
	ck_assert_ptr_nonnull(q);
	walk_to_top(w, sym_good);
	return q;
}

/* s, w's sample from lib_queue, came back walked: good, then top. */
static void assert_walked_to_top(const struct sample *s)
{
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->nr_callchain, 3);
	ck_assert_uint_eq(s->callchain[0], PERF_CONTEXT_USER);
	ck_assert_uint_eq(s->callchain[1], sym_good);
	ck_assert_uint_eq(s->callchain[2], sym_top + 1);
}

/* The queue: samples come back in order with their kernel part and the
 * frames found; a full queue refuses without blocking; a process's maps
 * go to the thread before its first sample. */
START_TEST(test_queue)
{
	static const uint64_t kchain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL };
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	uint64_t counts[UNWIND_NOUTCOMES];
	size_t i, queued = 0;

	q = lib_queue(8, &m, &w);
	ck_assert_uint_eq(unwind_queue_slots(q), 8);
	w.s.callchain = kchain;
	w.s.nr_callchain = 2;
	/* More than fit: the first pid's maps take a slot, then 7 samples;
	 * the thread may free some meanwhile. */
	for (i = 0; i < 64; i++) {
		w.s.period = i;
		if (unwind_queue_submit(q, &w.s, &w.attr, 16) == 0)
			queued++;
		else
			unwind_queue_count_dropped(q);
	}
	ck_assert_uint_ge(queued, 7);
	ck_assert_uint_lt(queued, 64);
	/* The copy is the queue's: the record may go (not the attr). */
	memset(w.regs, 0, sizeof(w.regs));
	memset(w.stack, 0, sizeof(w.stack));
	for (i = 0; i < queued; i++) {
		s = unwind_queue_next(q, &attr, true);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->sid.pid, PID);
		ck_assert_uint_eq(s->nr_callchain, 5);
		ck_assert_uint_eq(s->callchain[0], PERF_CONTEXT_KERNEL);
		ck_assert_uint_eq(s->callchain[1], 0xffffffff81000010ULL);
		ck_assert_uint_eq(s->callchain[2], PERF_CONTEXT_USER);
		ck_assert_uint_eq(s->callchain[3], sym_good);
		ck_assert_uint_eq(s->callchain[4], sym_top + 1);
		ck_assert_ptr_null(s->stack);
	}
	ck_assert_ptr_null(unwind_queue_next(q, &attr, true));
	ck_assert_uint_eq(unwind_queue_pending(q), 0);
	unwind_queue_counts(q, counts);
	ck_assert_uint_eq(counts[UNWIND_ROOT], queued);
	ck_assert_uint_eq(counts[UNWIND_DROPPED], 64 - queued);
	/* exit, then the pid again: its maps go again, the walk still works */
	unwind_queue_forget(q, PID);
	walk_to_top(&w, sym_good);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	s = unwind_queue_next(q, &attr, true);
	assert_walked_to_top(s);
	ck_assert_ptr_eq(attr, &w.attr);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* A sample in a .plt entry: its CFA expression is worked out by the
 * cached rules (no Dwfl made), 8 or 16 above the sp by where in the
 * entry the pc is. */
START_TEST(test_plt)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;
	unsigned k;

	u = lib_unwinder(&m);
	ck_assert_uint_eq(sym_pltf & 15, 0);
	for (k = 0; k < 16; k++) {
		walk_init(&w, sym_pltf + k, sizeof(w.stack));
		w.stack[k >= 11] = sym_top + 1;
		w.stack[k < 11] = sym_good; /* the wrong slot: a frame too many */
		ck_assert_uint_eq(run(u, &w, out, 16, &o), 2);
		ck_assert_int_eq(o, UNWIND_ROOT);
		ck_assert_uint_eq(out[1], sym_top + 1);
	}
	ck_assert_uint_eq(unwind_test_dwfls(u), 0);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* Map the library for pid too. */
static void map_lib(struct machine *m, uint32_t pid)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/cfi.so", dir);
	uw_map(m, pid, BASE, path);
}

/* Walks through libdw in 40 processes: only a few keep their Dwfl at a
 * time, and one whose Dwfl went walks as well as before. */
START_TEST(test_dwfl_bounded)
{
	struct machine *m;
	struct unwinder *u;
	uint32_t pid;

	u = lib_unwinder(&m);
	for (pid = PID; pid < PID + 40; pid++) {
		map_lib(m, pid);
		assert_root_walk(u, pid, sym_exprf + 1);
		ck_assert_uint_ge(unwind_test_dwfls(u), 1);
		ck_assert_uint_le(unwind_test_dwfls(u), 8);
	}
	ck_assert_uint_eq(unwind_test_procs(u), 40);
	assert_root_walk(u, PID, sym_exprf + 1);
	ck_assert_uint_le(unwind_test_dwfls(u), 8);
	for (pid = PID; pid < PID + 40; pid++)
		unwind_forget(u, pid);
	ck_assert_uint_eq(unwind_test_procs(u), 0);
	ck_assert_uint_eq(unwind_test_dwfls(u), 0);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* The file symbols were read from went (a /proc/PID/root/... path of a
 * process that exited: here a --symfs copy removed): the unwinder reads
 * the mapped path instead, in its own walk and in libdw's. */
START_TEST(test_sym_path_gone)
{
	struct machine *m;
	struct unwinder *u;
	struct resolved r;
	char *symfs, *abs, *path;
	const char *sp;

	build_lib();
	/* --symfs holds absolute paths */
	abs = realpath(dir, NULL);
	ck_assert_ptr_nonnull(abs);
	path = xasprintf("%s/cfi.so", abs);
	symfs = xasprintf("%s/symfs", abs);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s%s' && cp '%s' '%s%s/'", symfs, abs, path, symfs,
				     abs),
			 0);
	m = machine_mapping(path, symfs);
	machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, sym_good, &r);
	ck_assert_ptr_nonnull(r.dso);
	sp = dso_sym_path(r.dso);
	ck_assert_ptr_nonnull(sp);
	ck_assert_msg(strncmp(sp, symfs, strlen(symfs)) == 0, "symbols from %s", sp);
	ck_assert_int_eq(testutil_sh("rm -rf '%s'", symfs), 0);
	u = unwind_new(m, EM_X86_64);
	assert_root_walk(u, PID, sym_good);
	assert_root_walk(u, PID, sym_exprf + 1);
	unwind_free(u);
	machine_free(m);
	free(symfs);
	free(path);
	free(abs);
}
END_TEST

/* A program rebuilt while it runs: its mapped path is gone before the
 * first sample, the machine finds its symbols' file later (here in
 * --symfs; live, under /proc/PID/map_files).  The walks before fail; the
 * first walk after reads the file there, in the same process, its maps
 * unchanged, though the failure is not tried again at every walk. */
START_TEST(test_file_found_later)
{
	struct machine *m;
	struct unwinder *u;
	struct resolved r;
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;
	char *abs, *gone, *symfs;
	int i;

	build_lib();
	abs = realpath(dir, NULL);
	ck_assert_ptr_nonnull(abs);
	gone = xasprintf("%s/gone/cfi.so", abs);
	symfs = xasprintf("%s/symfs2", abs);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s%s/gone' && cp '%s/cfi.so' '%s%s/gone/'", symfs,
				     abs, abs, symfs, abs),
			 0);
	m = machine_mapping(gone, symfs);
	u = unwind_new(m, EM_X86_64);
	for (i = 0; i < 5; i++) {
		walk_to_top(&w, sym_good);
		run(u, &w, out, 16, &o);
		ck_assert_int_ne(o, UNWIND_ROOT);
	}
	machine_resolve(m, PID, PID, PERF_RECORD_MISC_USER, sym_good, &r);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_ptr_nonnull(dso_sym_path(r.dso));
	assert_root_walk(u, PID, sym_good);
	unwind_free(u);
	machine_free(m);
	free(symfs);
	free(gone);
	free(abs);
}
END_TEST

/* A file that cannot be opened (gone, another mount namespace) is not
 * opened again for every process that maps it: 100 asks, 8 opens at most
 * (the 1st, 2nd, 4th... ask); once it is there, it is read within twice
 * the asks so far. */
START_TEST(test_file_failure_cached)
{
	struct machine *m;
	struct unwind_files *fs;
	struct unwind_file *f = NULL;
	struct dso *d;
	char *path;
	int i;

	build_lib();
	path = xasprintf("%s/later/cfi.so", dir);
	m = machine_new();
	d = machine_dso_get(m, path, DSO_USER);
	ck_assert_ptr_nonnull(d);
	fs = unwind_files_new();
	for (i = 0; i < 100; i++) {
		f = unwind_files_get(fs, d);
		ck_assert_ptr_null(f->elf);
	}
	ck_assert_msg(f->opens <= 8, "%u opens for 100 asks", f->opens);
	ck_assert_uint_ge(f->opens, 2);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/later' && cp '%s/cfi.so' '%s/later/'", dir, dir,
				     dir),
			 0);
	for (i = 0; i < 200 && !f->elf; i++)
		f = unwind_files_get(fs, d);
	ck_assert_ptr_nonnull(f->elf);
	ck_assert_ptr_nonnull(f->cfi);
	unwind_files_free(fs);
	machine_free(m);
	free(path);
}
END_TEST

/* Drain q: every sample back, every forget walked. */
static void drain(struct unwind_queue *q)
{
	const struct perf_event_attr *attr;

	while (unwind_queue_next(q, &attr, true))
		;
}

/* The thread's state of a process goes at its exit: after new maps that
 * no sample carried yet, and when the queue was full at the exit. */
START_TEST(test_queue_forget)
{
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	uint32_t pid;
	size_t refused = 0;

	q = lib_queue(8, &m, &w);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	drain(q);
	ck_assert_uint_eq(unwind_queue_test_procs(q), 1);
	unwind_queue_maps_changed(q, PID);
	unwind_queue_forget(q, PID);
	drain(q);
	ck_assert_uint_eq(unwind_queue_test_procs(q), 0);

	/* Exits while the queue fills: each forget is walked, late or not. */
	for (pid = PID; pid < PID + 200; pid++) {
		w.s.sid.pid = w.s.sid.tid = pid;
		if (unwind_queue_submit(q, &w.s, &w.attr, 16))
			refused++;
		unwind_queue_forget(q, pid);
	}
	drain(q);
	/* forgets still waiting go before the next sample */
	w.s.sid.pid = w.s.sid.tid = PID;
	while (unwind_queue_submit(q, &w.s, &w.attr, 16))
		drain(q);
	drain(q);
	ck_assert_uint_eq(unwind_queue_test_procs(q), 1);
	/* Nothing is taken back while it fills: most are refused. */
	ck_assert_uint_gt(refused, 100);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* slots 0: no thread; the walk is done in submit, so the record may go
 * at once, and the sample is ready without waiting. */
START_TEST(test_queue_inline)
{
	static const uint64_t kchain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL };
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	uint64_t counts[UNWIND_NOUTCOMES];
	size_t i;

	q = lib_queue(0, &m, &w);
	for (i = 0; i < 100; i++) {
		walk_to_top(&w, sym_good);
		w.s.callchain = kchain;
		w.s.nr_callchain = 2;
		w.s.period = i;
		ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
		/* Walked already: what the sample pointed at may change. */
		memset(w.regs, 0, sizeof(w.regs));
		memset(w.stack, 0, sizeof(w.stack));
		ck_assert_uint_ge(unwind_queue_pending(q), 1);
		s = unwind_queue_next(q, &attr, false);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->period, i);
		ck_assert_uint_eq(s->nr_callchain, 5);
		ck_assert_uint_eq(s->callchain[2], PERF_CONTEXT_USER);
		ck_assert_uint_eq(s->callchain[3], sym_good);
		ck_assert_uint_eq(s->callchain[4], sym_top + 1);
		ck_assert_ptr_null(unwind_queue_next(q, &attr, false));
		if (i == 50)
			unwind_queue_forget(q, PID);
	}
	unwind_queue_counts(q, counts);
	ck_assert_uint_eq(counts[UNWIND_ROOT], 100);
	ck_assert_uint_eq(counts[UNWIND_DROPPED], 0);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* Samples go to the thread a batch at a time (a wakeup a sample cost as
 * much as its copy), and every one comes back, in order, with its
 * frames: those of an unfinished batch when the engine waits. */
START_TEST(test_queue_batches)
{
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	size_t i, got = 0;

	q = lib_queue(512, &m, &w);
	for (i = 0; i < 200; i++) {
		w.s.period = i;
		ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
		/* The engine takes back what is done as it goes. */
		while ((s = unwind_queue_next(q, &attr, false))) {
			ck_assert_uint_eq(s->period, got++);
			assert_walked_to_top(s);
		}
	}
	ck_assert_uint_le(unwind_queue_test_publishes(q), 200 / 16 + 1);
	while ((s = unwind_queue_next(q, &attr, true))) {
		ck_assert_uint_eq(s->period, got++);
		assert_walked_to_top(s);
	}
	ck_assert_uint_eq(got, 200);
	ck_assert_uint_eq(unwind_queue_pending(q), 0);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* The stack copies go into buffers used again, the last freed first: a
 * queue of 512 slots that never holds more than 20 samples keeps 20
 * buffers, not one per slot it went round. */
START_TEST(test_queue_buffers)
{
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	size_t round, i, got = 0;

	q = lib_queue(512, &m, &w);
	for (round = 0; round < 30; round++) {
		for (i = 0; i < 20; i++)
			ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
		while ((s = unwind_queue_next(q, &attr, true))) {
			assert_walked_to_top(s);
			got++;
		}
	}
	ck_assert_uint_eq(got, 600);
	ck_assert_uint_le(unwind_queue_test_buffers(q), 20);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* A source that holds what it is asked to, counting holds and releases
 * (a ring's own bookkeeping is check_ring's). */
struct fake_source {
	struct source src;
	const void *p;           /* the bytes the record has: a hold covers them */
	size_t n;
	uint64_t next;
	size_t holds, releases;
	bool released[64];
	bool short_of_room;
};

static bool fake_hold(struct source *src, const void *p, size_t n, struct source_hold *h)
{
	struct fake_source *f = (struct fake_source *)src;

	if ((const char *)p < (const char *)f->p ||
	    (const char *)p + n > (const char *)f->p + f->n || f->next >= 64)
		return false;
	h->where = f;
	h->pos = f->next++;
	f->holds++;
	return true;
}

static void fake_release(struct source *src, const struct source_hold *h)
{
	struct fake_source *f = (struct fake_source *)src;

	ck_assert_ptr_eq(h->where, f);
	ck_assert_uint_lt(h->pos, f->next);
	ck_assert(!f->released[h->pos]); /* once */
	f->released[h->pos] = true;
	f->releases++;
}

static bool fake_short(const struct source *src)
{
	return ((const struct fake_source *)src)->short_of_room;
}

static const struct source_ops fake_ops = {
	.hold = fake_hold, .release = fake_release, .short_of_room = fake_short,
};

/* Live, a stack is read where the record is, no copy: held while the
 * sample waits and is walked, released as it comes back, in order. */
START_TEST(test_queue_holds)
{
	struct fake_source f = { .src.ops = &fake_ops };
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	size_t i, unholds;

	q = lib_queue(512, &m, &w);
	unwind_queue_set_source(q, &f.src);
	f.p = w.stack;
	f.n = sizeof(w.stack);
	unwind_queue_test_hold(true);
	for (i = 0; i < 10; i++) {
		w.s.period = i;
		ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	}
	unwind_queue_flush(q);
	ck_assert_uint_eq(f.holds, 10);
	ck_assert_uint_eq(unwind_queue_test_held(q, &unholds), 10);
	ck_assert_uint_eq(unholds, 0);
	ck_assert_uint_eq(unwind_queue_test_buffers(q), 0); /* nothing copied */
	ck_assert_uint_eq(f.releases, 0);
	/* The hold holds: none walked meanwhile (the thread reads it once
	 * a pass, as it wakes). */
	usleep(20 * 1000);
	ck_assert_ptr_null(unwind_queue_next(q, &attr, false));
	unwind_queue_test_hold(false);
	for (i = 0; i < 10; i++) {
		s = unwind_queue_next(q, &attr, true);
		assert_walked_to_top(s);
		ck_assert_uint_eq(s->period, i);
		ck_assert_ptr_null(s->stack);
		/* Walked and handed back: released, the later ones not. */
		ck_assert(f.released[i]);
		ck_assert(i == 9 || !f.released[i + 1]);
	}
	/* Bytes not in the record: copied. */
	f.n = 0;
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	ck_assert_uint_eq(f.holds, 10);
	ck_assert_uint_eq(unwind_queue_test_buffers(q), 1);
	assert_walked_to_top(unwind_queue_next(q, &attr, true));
	/* Stopped with samples held: released too. */
	f.n = sizeof(w.stack);
	unwind_queue_test_hold(true);
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	unwind_queue_flush(q);
	ck_assert_uint_eq(f.holds, 11);
	unwind_queue_test_hold(false);
	unwind_queue_free(q);
	ck_assert_uint_eq(f.releases, 11);
	machine_free(m);
}
END_TEST

/* The source short of room: every stack held is copied out and released
 * at the end of the pass, the kernel may write over them at once, and the
 * walks still see the stacks as sampled: the one the thread had started
 * on too, walked again from its copy and counted once. */
START_TEST(test_queue_unhold)
{
	struct fake_source f = { .src.ops = &fake_ops };
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	uint64_t counts[UNWIND_NOUTCOMES];
	size_t i, unholds, walks = 0;

	q = lib_queue(512, &m, &w);
	unwind_queue_set_source(q, &f.src);
	f.p = w.stack;
	f.n = sizeof(w.stack);
	/* The process's maps sent, the thread takes the first sample, then
	 * waits before walking it. */
	ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	ck_assert_ptr_nonnull(unwind_queue_next(q, &attr, true));
	unwind_queue_test_hold(true);
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
	unwind_queue_flush(q);
	ck_assert_uint_eq(unwind_queue_test_held(q, &unholds), 10);
	usleep(20 * 1000);
	ck_assert_ptr_null(unwind_queue_next(q, &attr, false));
	f.short_of_room = true;
	unwind_queue_flush(q);
	ck_assert_uint_eq(unwind_queue_test_held(q, &unholds), 0);
	ck_assert_uint_eq(unholds, 1);
	ck_assert_uint_eq(f.releases, 11);
	/* Once released, the kernel writes there. */
	memset(w.stack, 0xa5, sizeof(w.stack));
	f.short_of_room = false;
	unwind_queue_test_hold(false);
	while ((s = unwind_queue_next(q, &attr, true))) {
		assert_walked_to_top(s);
		walks++;
	}
	ck_assert_uint_eq(walks, 10);
	unwind_queue_counts(q, counts);
	ck_assert_uint_eq(counts[UNWIND_ROOT], 11);
	for (i = 0; i < UNWIND_NOUTCOMES; i++)
		if (i != UNWIND_ROOT)
			ck_assert_uint_eq(counts[i], 0);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* One wakeup of the thread an ingest pass: what is submitted waits for
 * the pass's end (unwind_queue_flush), unless a quarter of the queue
 * waits, so the thread is not left idle while the queue fills. */
START_TEST(test_queue_once_a_pass)
{
	struct machine *m;
	struct unwind_queue *q;
	struct uw_walk w;
	const struct perf_event_attr *attr;
	const struct sample *s;
	size_t i, pass, got = 0;

	q = lib_queue(512, &m, &w);
	for (pass = 0; pass < 5; pass++) {
		for (i = 0; i < 60; i++) {
			ck_assert_int_eq(unwind_queue_submit(q, &w.s, &w.attr, 16), 0);
			while (unwind_queue_next(q, &attr, false))
				got++;
		}
		ck_assert_uint_eq(unwind_queue_test_publishes(q), pass);
		unwind_queue_flush(q);
		ck_assert_uint_eq(unwind_queue_test_publishes(q), pass + 1);
		unwind_queue_flush(q); /* nothing new: no wakeup */
		ck_assert_uint_eq(unwind_queue_test_publishes(q), pass + 1);
	}
	/* A pass longer than a quarter of the queue: handed over on the way. */
	for (i = 0; i < 300; i++) {
		while (unwind_queue_submit(q, &w.s, &w.attr, 16))
			if (unwind_queue_next(q, &attr, false))
				got++;
	}
	ck_assert_uint_ge(unwind_queue_test_publishes(q), 5 + 2);
	while ((s = unwind_queue_next(q, &attr, true))) {
		assert_walked_to_top(s);
		got++;
	}
	ck_assert_uint_eq(got, 600);
	unwind_queue_free(q);
	machine_free(m);
}
END_TEST

/* A return address in code no FDE covers, the fp 0 (a process just
 * exec'd, in ld.so's _start): the walk ends there with the frames found,
 * no CFI, without building the process's Dwfl (libdw's walk would read
 * the same .eh_frame).  With an fp, libdw's walk (which may follow it)
 * decides. */
START_TEST(test_no_fde)
{
	struct machine *m;
	struct unwinder *u;
	struct uw_walk w;
	uint64_t out[16];
	enum unwind_outcome o;

	u = lib_unwinder(&m);
	walk_init(&w, sym_good, sizeof(w.stack));
	w.stack[0] = sym_nocfi + 2;
	ck_assert_uint_eq(run(u, &w, out, 16, &o), 2);
	ck_assert_int_eq(o, UNWIND_NO_CFI);
	ck_assert_uint_eq(out[1], sym_nocfi + 2);
	ck_assert_uint_eq(unwind_test_dwfls(u), 0);
	walk_init(&w, sym_good, sizeof(w.stack));
	w.stack[0] = sym_nocfi + 2;
	w.regs[6] = SP + 4096;
	ck_assert_uint_eq(run(u, &w, out, 16, &o), 2);
	/* libdw followed the fp: the word it points at is past the copy. */
	ck_assert_int_eq(o, UNWIND_STACK_END);
	ck_assert_uint_eq(unwind_test_dwfls(u), 1);
	unwind_free(u);
	machine_free(m);
}
END_TEST

/* The rules of every address in the first len bytes of a file's
 * executable segment, found through the rows already met, are those made
 * from libdw's CFI for that address alone.  Returns the pcs tried, and
 * in *asked how often libdw was. */
static size_t rows_match(const char *path, uint64_t len, uint64_t *asked)
{
	const struct unwind_regs_arch *a = unwind_regs_find(EM_X86_64);
	struct machine *m = machine_new();
	struct dso *d = machine_dso_get(m, path, DSO_USER);
	struct unwind_files *fs = unwind_files_new(), *fs2 = unwind_files_new();
	struct unwind_file *f, *g;
	uint64_t lo = 0, hi = 0;
	size_t phnum, i, n;

	ck_assert_ptr_nonnull(d);
	f = unwind_files_get(fs, d);
	g = unwind_files_get(fs2, d);
	ck_assert_ptr_nonnull(f->cfi);
	ck_assert(!elf_getphdrnum(f->elf, &phnum));
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			lo = ph.p_vaddr;
			hi = ph.p_vaddr + ph.p_memsz;
		}
	}
	ck_assert_uint_gt(hi, lo);
	if (hi - lo > len)
		hi = lo + len;
	/* From the top down as well: a row met first at its end must not
	 * reach below its start. */
	for (n = 0; n < 2 * (hi - lo); n++) {
		uint64_t v = n < hi - lo ? lo + n : hi - 1 - (n - (hi - lo));
		struct unwind_rule *r = unwind_file_rule(f, v), fresh = { .vaddr = v };

		if (n == hi - lo) {
			/* Start again with no row known. */
			f->nrows = f->nrows_sorted = 0;
			f->nrules = 0;
			memset(f->rules, 0, f->cap * sizeof(*f->rules));
			r = unwind_file_rule(f, v);
		}

		ck_assert_int_eq(r->kind, RULE_EMPTY);
		unwind_file_rule_fill(f, a, r);
		/* No row known: the rule of libdw's CFI for v. */
		g->nrows = g->nrows_sorted = 0;
		unwind_file_rule_fill(g, a, &fresh);
		ck_assert_msg(r->kind == fresh.kind && r->cfa_fp == fresh.cfa_fp &&
				      r->fp == fresh.fp && r->cfa_off == fresh.cfa_off &&
				      (r->kind != RULE_SIMPLE ||
				       (r->ra_off == fresh.ra_off &&
					(r->fp != FP_SAVED || r->fp_off == fresh.fp_off))),
			      "%s+0x%" PRIx64 ": rule %d cfa %d%+d, fresh %d cfa %d%+d", path, v,
			      r->kind, r->cfa_fp, r->cfa_off, fresh.kind, fresh.cfa_fp,
			      fresh.cfa_off);
		/* The hash keeps a few thousand pcs: the rows must serve. */
		if (f->nrules > 2048)
			f->nrules = 0, memset(f->rules, 0, f->cap * sizeof(*f->rules));
	}
	*asked = f->cfi_lookups;
	unwind_files_free(fs);
	unwind_files_free(fs2);
	machine_free(m);
	return n;
}

START_TEST(test_rule_rows)
{
	static const char *const libs[] = {
		"/lib/x86_64-linux-gnu/liblzma.so.5", "/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/bin/xz",
	};
	size_t i, n;
	uint64_t asked;

	char *path;

	build_lib();
	/* The hand-written CFI: the .plt entry's rule is its pc's alone. */
	path = xasprintf("%s/cfi.so", dir);
	n = rows_match(path, 4096, &asked);
	free(path);
	ck_assert_uint_gt(n, 40);
	/* Debian's: a row is 30-40 bytes on average; libdw is asked for
	 * each row and each pc outside any FDE. */
	for (i = 0; i < ARRAY_SIZE(libs); i++) {
		if (access(libs[i], R_OK))
			continue;
		n = rows_match(libs[i], 65536, &asked);
		ck_assert_msg(asked * 8 < n, "%s: libdw asked %" PRIu64 " times for %zu pcs",
			      libs[i], asked, n);
	}
}
END_TEST

#endif

int main(void)
{
	Suite *s = suite_create("unwind");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_arch_table);
#if defined(__x86_64__)
	tcase_add_test(tc, test_root);
	tcase_add_test(tc, test_loop);
	tcase_add_test(tc, test_reads_fail);
	tcase_add_test(tc, test_regs_missing);
	tcase_add_test(tc, test_maps_change);
	tcase_add_test(tc, test_queue);
	tcase_add_test(tc, test_queue_inline);
	tcase_add_test(tc, test_dwfl_bounded);
	tcase_add_test(tc, test_plt);
	tcase_add_test(tc, test_sym_path_gone);
	tcase_add_test(tc, test_file_failure_cached);
	tcase_add_test(tc, test_file_found_later);
	tcase_add_test(tc, test_queue_forget);
	tcase_add_test(tc, test_rule_rows);
	tcase_add_test(tc, test_queue_batches);
	tcase_add_test(tc, test_queue_buffers);
	tcase_add_test(tc, test_queue_holds);
	tcase_add_test(tc, test_queue_unhold);
	tcase_add_test(tc, test_queue_once_a_pass);
	tcase_add_test(tc, test_no_fde);
#endif
	suite_add_tcase(s, tc);
	return testutil_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
