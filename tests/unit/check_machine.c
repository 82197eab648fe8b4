/* Unit tests for the machine: maps, fork/exec/exit/gc, DSO kinds, ELF and
 * kernel resolution, and /proc synthesis. */
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
#include "procfs.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

#define PAGE 0x1000ULL

static struct mmap_event mk_mmap(uint32_t pid, uint32_t tid, uint64_t start, uint64_t len,
				  uint64_t pgoff, const char *path)
{
	struct mmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = pid;
	ev.tid = tid;
	ev.start = start;
	ev.len = len;
	ev.pgoff = pgoff;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = path;
	return ev;
}

static void do_mmap(struct machine *m, uint32_t pid, uint32_t tid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *path)
{
	struct mmap_event ev = mk_mmap(pid, tid, start, len, pgoff, path);

	machine_mmap(m, &ev);
}

static void do_fork(struct machine *m, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	struct task_event ev = { .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };

	machine_fork(m, &ev);
}

static void do_exit(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct task_event ev = { .pid = pid, .ppid = pid, .tid = tid, .ptid = tid };

	machine_exit(m, &ev);
}

static void do_comm(struct machine *m, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct comm_event ev = { .pid = pid, .tid = tid, .exec = exec, .comm = comm };

	machine_comm(m, &ev);
}

static struct resolved user(struct machine *m, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct resolved r;

	machine_resolve(m, pid, tid, PERF_RECORD_MISC_USER, ip, &r);
	return r;
}

/* The DSO short name at ip, or "-" when unmapped. */
static const char *name_at(struct machine *m, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct resolved r = user(m, pid, tid, ip);

	return r.dso ? dso_short_name(r.dso) : "-";
}

/* Check that ip maps to the (nonexistent, so symbol-less) file path at
 * file offset off. */
#define ck_map_at(m, pid, tid, ip, name, off) do {				\
		struct resolved r_ = user((m), (pid), (tid), (ip));		\
		ck_assert_ptr_nonnull(r_.dso);					\
		ck_assert_str_eq(dso_short_name(r_.dso), (name));		\
		ck_assert_uint_eq(r_.addr, (off));				\
		ck_assert_ptr_null(r_.sym);					\
	} while (0)

/* ---- maps ---- */

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

/* ---- DSOs ---- */

START_TEST(test_dso_kinds)
{
	static const struct {
		const char *path, *short_name;
		enum dso_kind kind;
	} cases[] = {
		{ "[vdso]", "[vdso]", DSO_VDSO },
		{ "//anon", "//anon", DSO_ANON },
		{ "[heap]", "[heap]", DSO_ANON },
		{ "[stack]", "[stack]", DSO_ANON },
		{ "/memfd:jit (deleted)", "memfd:jit (deleted)", DSO_ANON },
		{ "[anon:v8]", "[anon:v8]", DSO_ANON },
		{ "/usr/lib/libc.so.6", "libc.so.6", DSO_USER },
		{ "/opt/app/bin/my app (deleted)", "my app (deleted)", DSO_USER },
	};
	struct machine *m = machine_new();
	uint64_t base = 0x10000000;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct resolved r;

		do_mmap(m, 7, 7, base + i * PAGE, PAGE, 0, cases[i].path);
		r = user(m, 7, 7, base + i * PAGE + 8);
		ck_assert_ptr_nonnull(r.dso);
		ck_assert_int_eq(dso_kind(r.dso), cases[i].kind);
		ck_assert_str_eq(dso_short_name(r.dso), cases[i].short_name);
		ck_assert_str_eq(dso_path(r.dso), cases[i].path);
		ck_assert_ptr_null(r.sym);
		ck_assert(!r.kernel);
		/* One object per path. */
		ck_assert_ptr_eq(r.dso, machine_dso_get(m, cases[i].path, cases[i].kind));
	}
	/* An empty path is anonymous. */
	do_mmap(m, 7, 7, 0x20000000, PAGE, 0, "");
	ck_assert_int_eq(dso_kind(user(m, 7, 7, 0x20000000).dso), DSO_ANON);
	ck_assert_uint_eq(machine_get_stats(m)->dsos, ARRAY_SIZE(cases));
	machine_free(m);
}
END_TEST

/* ---- ELF resolution against binaries built here ---- */

static char *elf_dir;

struct elf_seg {
	uint64_t offset, vaddr, filesz;
};

/* The executable PT_LOAD of path, read with readelf (independent of the
 * code under test). */
static bool exec_segment(const char *path, struct elf_seg *seg)
{
	char *out = xasprintf("%s/readelf.txt", elf_dir), *buf, *line;
	bool found = false;

	ck_assert_int_eq(testutil_sh("readelf -lW '%s' > '%s'", path, out), 0);
	ck_assert_int_eq(read_file(out, 1 << 20, &buf, NULL), 0);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t off, va, pa, fs, ms;
		char rest[64];

		if (sscanf(line, " LOAD 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64 " 0x%" SCNx64
			   " 0x%" SCNx64 " %63[^\n]", &off, &va, &pa, &fs, &ms, rest) == 6 &&
		    strchr(rest, 'E')) {
			seg->offset = off;
			seg->vaddr = va;
			seg->filesz = fs;
			found = true;
			break;
		}
	}
	free(buf);
	free(out);
	return found;
}

/* Address and size of symbol name from nm. */
static bool nm_symbol(const char *path, const char *name, uint64_t *addr, uint64_t *size)
{
	char *out = xasprintf("%s/nm.txt", elf_dir), *buf, *line;
	bool found = false;

	ck_assert_int_eq(testutil_sh("nm -S --defined-only '%s' > '%s'", path, out), 0);
	ck_assert_int_eq(read_file(out, 1 << 20, &buf, NULL), 0);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t a, s;
		char type, sym[128];

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %127s", &a, &s, &type, sym) == 4 &&
		    strcmp(sym, name) == 0) {
			*addr = a;
			*size = s;
			found = true;
			break;
		}
	}
	free(buf);
	free(out);
	return found;
}

/* Is any nm symbol covering addr? (to make sure padding is padding) */
static bool nm_covers(const char *path, uint64_t addr)
{
	char *out = xasprintf("%s/nm.txt", elf_dir), *buf, *line;
	bool covered = false;

	ck_assert_int_eq(testutil_sh("nm -S --defined-only '%s' > '%s'", path, out), 0);
	ck_assert_int_eq(read_file(out, 1 << 20, &buf, NULL), 0);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		uint64_t a, s;
		char type;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c", &a, &s, &type) == 3 &&
		    (type == 't' || type == 'T') && a <= addr && addr < a + s)
			covered = true;
	}
	free(buf);
	free(out);
	return covered;
}

static const char prog_src[] =
	"int func_a(int x);\n"
	"int func_b(int x);\n"
	"int func_a(int x) { return x * 3 + 1; }\n"
	"int func_b(int x) { return func_a(x) - 2; }\n"
	"int main(int argc, char **argv) { (void)argv; return func_b(argc); }\n";

static const char lib_src[] =
	"int lib_one(int x);\n"
	"int lib_two(int x);\n"
	"int lib_one(int x) { return x * 7; }\n"
	"int lib_two(int x) { return lib_one(x) + 5; }\n";

static void elf_setup(void)
{
	char cwd[PATH_MAX];
	char *dir = testutil_tmpdir("check_machine_elf");
	char *src, *lib;
	FILE *f;

	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	elf_dir = xasprintf("%s/%s", cwd, dir);
	free(dir);
	src = xasprintf("%s/prog.c", elf_dir);
	lib = xasprintf("%s/lib.c", elf_dir);
	f = fopen(src, "w");
	fputs(prog_src, f);
	fclose(f);
	f = fopen(lib, "w");
	fputs(lib_src, f);
	fclose(f);
	/* Wide alignment leaves padding after each small function. */
	ck_assert_int_eq(testutil_sh("cd '%s' && cc -O0 -falign-functions=256 -fPIE -pie -o pie prog.c"
				     " && cc -O0 -falign-functions=256 -fno-pie -no-pie -o nopie prog.c"
				     " && cc -O0 -falign-functions=256 -fPIC -shared -o libt.so lib.c",
				     elf_dir), 0);
	free(src);
	free(lib);
}

static void elf_teardown(void)
{
	testutil_sh("rm -rf '%s'", elf_dir);
	free(elf_dir);
	elf_dir = NULL;
}

/* Map path's executable segment at load bias base the way ld.so does, then
 * check that func resolves to itself and the padding after it to nothing. */
static void check_elf_binary(const char *file, uint64_t base, const char *func)
{
	char *path = xasprintf("%s/%s", elf_dir, file);
	struct machine *m = machine_new();
	struct elf_seg seg;
	uint64_t fa, fs, start, end, pad;
	struct resolved r;

	ck_assert(exec_segment(path, &seg));
	ck_assert(nm_symbol(path, func, &fa, &fs));
	ck_assert_uint_gt(fs, 0);
	start = base + (seg.vaddr & ~(PAGE - 1));
	end = (base + seg.vaddr + seg.filesz + PAGE - 1) & ~(PAGE - 1);
	do_mmap(m, 50, 50, start, end - start, seg.offset & ~(PAGE - 1), path);

	r = user(m, 50, 50, base + fa + 1);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_str_eq(dso_short_name(r.dso), file);
	ck_assert_str_eq(dso_path(r.dso), path);
	ck_assert_int_eq(dso_kind(r.dso), DSO_USER);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, func);
	ck_assert_uint_eq(r.sym->start, fa);
	ck_assert_uint_eq(r.addr, fa + 1);
	/* Last byte still inside. */
	r = user(m, 50, 50, base + fa + fs - 1);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, func);

	pad = fa + fs + 1;
	ck_assert_msg(!nm_covers(path, pad), "no padding after %s", func);
	r = user(m, 50, 50, base + pad);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_str_eq(dso_short_name(r.dso), file);
	ck_assert_ptr_null(r.sym);
	ck_assert_uint_eq(r.addr, pad);
	machine_free(m);
	free(path);
}

START_TEST(test_elf_pie)
{
	check_elf_binary("pie", 0x555555554000ULL, "func_a");
	check_elf_binary("pie", 0x555555554000ULL, "func_b");
}
END_TEST

START_TEST(test_elf_shared_lib)
{
	check_elf_binary("libt.so", 0x7f1234560000ULL, "lib_one");
	check_elf_binary("libt.so", 0x7f1234560000ULL, "lib_two");
}
END_TEST

START_TEST(test_elf_no_pie)
{
	/* ET_EXEC: mapped at its link address. */
	check_elf_binary("nopie", 0, "func_a");
}
END_TEST

START_TEST(test_elf_missing_file)
{
	struct machine *m = machine_new();
	struct resolved r;

	/* The failure is remembered: a second resolve still answers. */
	do_mmap(m, 50, 50, 0x400000, 0x2000, 0x1000, "/nonexistent/gone (deleted)");
	r = user(m, 50, 50, 0x400100);
	ck_assert_ptr_nonnull(r.dso);
	ck_assert_ptr_null(r.sym);
	ck_assert_uint_eq(r.addr, 0x1100);
	ck_assert_str_eq(dso_short_name(r.dso), "gone (deleted)");
	r = user(m, 50, 50, 0x400200);
	ck_assert_uint_eq(r.addr, 0x1200);
	machine_free(m);
}
END_TEST

/* ---- build IDs and --symfs ---- */

/* Map real's exec segment under the name mapped (which may not exist) and
 * resolve func there: its symbol name, or NULL for [unknown].  With id,
 * the MMAP2 carries that build ID. */
static const char *resolve_as(struct machine *m, const char *mapped, const char *real,
			      const char *func, const uint8_t *id, struct resolved *out)
{
	struct elf_seg seg;
	uint64_t fa, fs, base = 0x555555554000ULL, start, end;
	struct mmap_event ev;

	ck_assert(exec_segment(real, &seg));
	ck_assert(nm_symbol(real, func, &fa, &fs));
	start = base + (seg.vaddr & ~(PAGE - 1));
	end = (base + seg.vaddr + seg.filesz + PAGE - 1) & ~(PAGE - 1);
	ev = mk_mmap(60, 60, start, end - start, seg.offset & ~(PAGE - 1), mapped);
	if (id) {
		ev.has_build_id = true;
		ev.build_id_size = 20;
		memcpy(ev.build_id, id, 20);
	}
	machine_mmap(m, &ev);
	*out = user(m, 60, 60, base + fa + 1);
	ck_assert_ptr_nonnull(out->dso);
	return out->sym ? out->sym->name : NULL;
}

static int pie_build_id(uint8_t id[20])
{
	char *path = xasprintf("%s/pie", elf_dir);
	int n = elfsyms_read_build_id(path, id);

	free(path);
	return n;
}

START_TEST(test_build_id_match)
{
	struct machine *m = machine_new();
	char *path = xasprintf("%s/pie", elf_dir);
	uint8_t id[20];
	struct resolved r;
	int n = pie_build_id(id);

	ck_assert_int_gt(n, 0);
	machine_add_build_id(m, path, id, (size_t)n);
	ck_assert_str_eq(resolve_as(m, path, path, "func_a", NULL, &r), "func_a");
	machine_free(m);
	free(path);
}
END_TEST

START_TEST(test_build_id_mismatch)
{
	struct machine *m = machine_new();
	char *path = xasprintf("%s/pie", elf_dir);
	uint8_t id[20];
	struct resolved r;
	int n = pie_build_id(id);

	/* The file on disk is another build: never its names. */
	ck_assert_int_gt(n, 0);
	id[0] ^= 0xff;
	machine_add_build_id(m, path, id, (size_t)n);
	ck_assert_ptr_null(resolve_as(m, path, path, "func_a", NULL, &r));
	/* Marked, so the [unknown] is not taken for a symbol-less binary. */
	ck_assert_str_eq(dso_short_name(r.dso), "pie (build-id mismatch)");
	machine_free(m);
	/* The same through an MMAP2 that carries the build ID. */
	m = machine_new();
	ck_assert_ptr_null(resolve_as(m, path, path, "func_a", id, &r));
	id[0] ^= 0xff;
	machine_free(m);
	m = machine_new();
	ck_assert_str_eq(resolve_as(m, path, path, "func_a", id, &r), "func_a");
	machine_free(m);
	free(path);
}
END_TEST

/* With the loader thread: the first resolve is pending (the file offset,
 * no name), the deferred resolve after the wait gives the name; the DSO
 * loads once however many samples asked. */
START_TEST(test_async_pending)
{
	struct machine *m = machine_new();
	char *path = xasprintf("%s/pie", elf_dir);
	struct elf_seg seg;
	uint64_t fa, fs, base = 0x555555554000ULL, start, end, off;
	struct resolved r, r2, d;

	ck_assert_int_eq(machine_set_async(m, true), 0);
	ck_assert_uint_eq(machine_symbols_ticket(m), 0);
	ck_assert(machine_symbols_done(m, 0));
	ck_assert_uint_eq(machine_symbols_loaded(m), 0);
	ck_assert(exec_segment(path, &seg));
	ck_assert(nm_symbol(path, "func_b", &fa, &fs));
	start = base + (seg.vaddr & ~(PAGE - 1));
	end = (base + seg.vaddr + seg.filesz + PAGE - 1) & ~(PAGE - 1);
	do_mmap(m, 70, 70, start, end - start, seg.offset & ~(PAGE - 1), path);
	r = user(m, 70, 70, base + fa + 2);
	off = base + fa + 2 - start + (seg.offset & ~(PAGE - 1));
	if (r.pending) {
		ck_assert_ptr_null(r.sym);
		ck_assert_uint_eq(r.addr, off);
		r2 = user(m, 70, 70, base + fa + 3);
		ck_assert(r2.pending || r2.sym);
	}
	/* One DSO queued, once, however many samples asked. */
	ck_assert_uint_eq(machine_symbols_ticket(m), 1);
	machine_wait_symbols(m);
	ck_assert(machine_symbols_done(m, 1));
	ck_assert(!machine_symbols_done(m, 2));
	ck_assert_uint_eq(machine_symbols_loaded(m), 1);
	ck_assert_uint_eq(machine_symbols_loading(m), 0);
	ck_assert(!machine_dso_pending(r.dso));
	ck_assert(machine_resolve_deferred(m, r.dso, r.pending ? r.addr : off, false, &d));
	ck_assert(!d.pending);
	ck_assert_ptr_nonnull(d.sym);
	ck_assert_str_eq(d.sym->name, "func_b");
	ck_assert_uint_eq(d.addr, fa + 2);
	/* Ready now: no longer pending, the same symbol object. */
	r2 = user(m, 70, 70, base + fa + 2);
	ck_assert(!r2.pending);
	ck_assert_ptr_eq(r2.sym, d.sym);
	machine_free(m);
	free(path);
}
END_TEST

/* A map whose inode is not the file's (the binary was replaced): another
 * DSO than a map of the same path with the right inode, and no names from
 * the file now at the path. */
START_TEST(test_replaced_inode)
{
	struct machine *m = machine_new();
	char *path = xasprintf("%s/pie", elf_dir);
	struct elf_seg seg;
	uint64_t fa, fs, base = 0x555555554000ULL, start, end;
	struct mmap_event ev;
	struct resolved r_old, r_new;
	struct stat st;

	machine_set_live(m, true);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(exec_segment(path, &seg));
	ck_assert(nm_symbol(path, "func_a", &fa, &fs));
	start = base + (seg.vaddr & ~(PAGE - 1));
	end = (base + seg.vaddr + seg.filesz + PAGE - 1) & ~(PAGE - 1);
	ev = mk_mmap(80, 80, start, end - start, seg.offset & ~(PAGE - 1), path);
	ev.ino = (uint64_t)st.st_ino + 1;
	machine_mmap(m, &ev);
	ev = mk_mmap(81, 81, start, end - start, seg.offset & ~(PAGE - 1), path);
	ev.ino = (uint64_t)st.st_ino;
	machine_mmap(m, &ev);
	r_old = user(m, 80, 80, base + fa + 1);
	r_new = user(m, 81, 81, base + fa + 1);
	ck_assert_ptr_nonnull(r_old.dso);
	ck_assert_ptr_ne(r_old.dso, r_new.dso);
	ck_assert_ptr_null(r_old.sym);
	ck_assert_str_eq(dso_short_name(r_old.dso), "pie (replaced)");
	ck_assert_ptr_nonnull(r_new.sym);
	ck_assert_str_eq(r_new.sym->name, "func_a");
	ck_assert_str_eq(dso_short_name(r_new.dso), "pie");
	machine_free(m);
	free(path);
}
END_TEST

START_TEST(test_symfs)
{
	struct machine *m = machine_new();
	char *real = xasprintf("%s/pie", elf_dir);
	char *symfs = xasprintf("%s/symfs", elf_dir);
	uint8_t id[20];
	char hexid[41];
	struct resolved r;
	int n = pie_build_id(id), i;

	ck_assert_int_gt(n, 0);
	for (i = 0; i < n; i++)
		snprintf(hexid + 2 * i, 3, "%02x", id[i]);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/opt/app' '%s/.build-id/%.2s' && cp '%s' "
				     "'%s/opt/app/prog' && cp '%s' '%s/.build-id/%.2s/%s'",
				     symfs, symfs, hexid, real, symfs, real, symfs, hexid,
				     hexid + 2), 0);
	/* symfs/path, without a build ID. */
	machine_set_symfs(m, symfs);
	ck_assert_str_eq(resolve_as(m, "/opt/app/prog", real, "func_a", NULL, &r), "func_a");
	ck_assert_str_eq(dso_short_name(r.dso), "prog");
	ck_assert_str_eq(dso_path(r.dso), "/opt/app/prog");
	machine_free(m);
	/* symfs/.build-id/xx/rest for a path found nowhere. */
	m = machine_new();
	machine_set_symfs(m, symfs);
	machine_add_build_id(m, "/gone/prog", id, (size_t)n);
	ck_assert_str_eq(resolve_as(m, "/gone/prog", real, "func_b", NULL, &r), "func_b");
	machine_free(m);
	/* Without --symfs neither is found. */
	m = machine_new();
	ck_assert_ptr_null(resolve_as(m, "/opt/app/prog", real, "func_a", NULL, &r));
	machine_free(m);
	free(real);
	free(symfs);
}
END_TEST

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

/* ---- procfs parsers ---- */

START_TEST(test_procfs_parse_maps_line)
{
	char l1[] = "7f3a1c028000-7f3a1c1bd000 r-xp 00028000 fd:01 1053452"
		    "                    /usr/lib/x86_64-linux-gnu/libc.so.6";
	char l2[] = "5581a0e00000-5581a0e01000 r-xp 00001000 103:02 18446744073709551615 /tmp/my dir/a b (deleted)";
	char l3[] = "7ffd5b9f2000-7ffd5b9f4000 r-xp 00000000 00:00 0                          [vdso]";
	char l4[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 ";
	char l5[] = "7f0000000000-7f0000001000 r-xp 00000000 00:00 0";
	char bad[] = "7f0000000000 r-xp 00000000 00:00 0";
	struct procfs_map pm;
	bool exec;

	ck_assert(procfs_parse_maps_line(l1, &pm, &exec));
	ck_assert(exec);
	ck_assert_uint_eq(pm.start, 0x7f3a1c028000ULL);
	ck_assert_uint_eq(pm.end, 0x7f3a1c1bd000ULL);
	ck_assert_uint_eq(pm.pgoff, 0x28000);
	ck_assert_uint_eq(pm.maj, 0xfd);
	ck_assert_uint_eq(pm.min, 1);
	ck_assert_uint_eq(pm.ino, 1053452);
	ck_assert_str_eq(pm.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");

	ck_assert(procfs_parse_maps_line(l2, &pm, &exec));
	ck_assert_uint_eq(pm.maj, 0x103);
	ck_assert_uint_eq(pm.min, 2);
	ck_assert_uint_eq(pm.ino, UINT64_MAX);
	ck_assert_str_eq(pm.path, "/tmp/my dir/a b (deleted)");

	ck_assert(procfs_parse_maps_line(l3, &pm, &exec));
	ck_assert_str_eq(pm.path, "[vdso]");
	ck_assert(procfs_parse_maps_line(l4, &pm, &exec));
	ck_assert(!exec);
	ck_assert_str_eq(pm.path, "");
	ck_assert(procfs_parse_maps_line(l5, &pm, &exec));
	ck_assert(exec);
	ck_assert_str_eq(pm.path, "");
	ck_assert(!procfs_parse_maps_line(bad, &pm, &exec));
}
END_TEST

START_TEST(test_procfs_parse_stat)
{
	char st[] = "1234 (we (ird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 "
		    "7 0 12345 1000000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0";
	char bad[] = "1234 we S 1";
	const char *comm;
	unsigned long n;

	ck_assert(procfs_parse_stat(st, &comm, &n));
	ck_assert_str_eq(comm, "we (ird) name");
	ck_assert_uint_eq(n, 7);
	ck_assert(!procfs_parse_stat(bad, &comm, &n));
	{
		/* Found by fuzz_maps: a ')' at the very end made the field
		 * walk read past the NUL (exact heap size so ASan sees it). */
		char *end = strdup("55 (x)");

		ck_assert(procfs_parse_stat(end, &comm, &n));
		ck_assert_str_eq(comm, "x");
		ck_assert_uint_eq(n, 0);
		free(end);
	}
}
END_TEST

struct map_list {
	struct procfs_map maps[512];
	char paths[512][256];
	size_t n;
};

static void collect_map(void *arg, const struct procfs_map *pm)
{
	struct map_list *l = arg;

	/* Anonymous code (a JIT, valgrind's cache) may change between reads. */
	if (l->n >= ARRAY_SIZE(l->maps) || !pm->ino)
		return;
	l->maps[l->n] = *pm;
	snprintf(l->paths[l->n], sizeof(l->paths[0]), "%s", pm->path);
	l->n++;
}

/* The ioctl and the text must agree on this very process. */
START_TEST(test_procfs_query_matches_text)
{
	static struct map_list text, query;
	struct procfs pf;
	int procfd = open("/proc/self", O_RDONLY | O_DIRECTORY), err;
	size_t i;

	ck_assert_int_ge(procfd, 0);
	procfs_init(&pf);
	text.n = query.n = 0;
	ck_assert_int_eq(procfs_read_maps(&pf, procfd, "maps", PROCFS_MAPS_TEXT, collect_map, &text), 0);
	err = procfs_read_maps(&pf, procfd, "maps", PROCFS_MAPS_QUERY, collect_map, &query);
	if (err == -ENOTTY) {
		fprintf(stderr, "check_machine: SKIP PROCMAP_QUERY (kernel before 6.11)\n");
	} else {
		ck_assert_int_eq(err, 0);
		ck_assert_uint_gt(text.n, 2);
		ck_assert_uint_eq(query.n, text.n);
		for (i = 0; i < text.n; i++) {
			ck_assert_uint_eq(query.maps[i].start, text.maps[i].start);
			ck_assert_uint_eq(query.maps[i].end, text.maps[i].end);
			ck_assert_uint_eq(query.maps[i].pgoff, text.maps[i].pgoff);
			ck_assert_uint_eq(query.maps[i].ino, text.maps[i].ino);
			ck_assert_uint_eq(query.maps[i].maj, text.maps[i].maj);
			ck_assert_uint_eq(query.maps[i].min, text.maps[i].min);
			ck_assert_str_eq(query.paths[i], text.paths[i]);
		}
	}
	procfs_release(&pf);
	close(procfd);
}
END_TEST

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

	tc = tcase_create("dso");
	tcase_add_test(tc, test_dso_kinds);
	suite_add_tcase(s, tc);

	tc = tcase_create("jit");
	tcase_add_test(tc, test_jit_perfmap);
	tcase_add_test(tc, test_jit_perfmap_refused);
	tcase_add_test(tc, test_jit_perfmap_async);
	tcase_add_test(tc, test_jit_perfmap_new_process);
	tcase_add_test(tc, test_vdso_symbols);
	suite_add_tcase(s, tc);

	tc = tcase_create("elf");
	tcase_add_unchecked_fixture(tc, elf_setup, elf_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_elf_pie);
	tcase_add_test(tc, test_elf_shared_lib);
	tcase_add_test(tc, test_elf_no_pie);
	tcase_add_test(tc, test_elf_missing_file);
	tcase_add_test(tc, test_build_id_match);
	tcase_add_test(tc, test_build_id_mismatch);
	tcase_add_test(tc, test_symfs);
	tcase_add_test(tc, test_async_pending);
	tcase_add_test(tc, test_replaced_inode);
	suite_add_tcase(s, tc);

	tc = tcase_create("procfs");
	tcase_add_test(tc, test_procfs_parse_maps_line);
	tcase_add_test(tc, test_procfs_parse_stat);
	tcase_add_test(tc, test_procfs_query_matches_text);
	suite_add_tcase(s, tc);

	tc = tcase_create("proc");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_synthesize_self);
	tcase_add_test(tc, test_synthesize_vanished);
	tcase_add_test(tc, test_synthesize_all);
	tcase_add_test(tc, test_synthesize_steps);
	suite_add_tcase(s, tc);

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
