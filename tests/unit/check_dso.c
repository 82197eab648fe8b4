/* Unit tests for src/dso.c: DSO kinds, ELF resolution against binaries
 * built here, build IDs, --symfs, async loading and replaced files. */
#include "config.h"

#include "dso.h"

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
#include "machine_cases.h"
#include "procfs.h"
#include "symloader.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

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

/* Live, --symfs stands in only where the process's own file is gone: a
 * file there whose inode number happens to be the map's (here a hard link
 * of the same file) must not be read before the process's own. */
START_TEST(test_symfs_live_after_own)
{
	struct machine *m = machine_new();
	char *real = xasprintf("%s/pie", elf_dir);
	char *symfs = xasprintf("%s/symfs-live", elf_dir);
	struct elf_seg seg;
	uint64_t fa, fs, base = 0x555555554000ULL, start, end;
	struct mmap_event ev;
	struct resolved r;
	struct stat st;

	ck_assert_int_eq(testutil_sh("mkdir -p '%s%s' && rmdir '%s%s' && ln '%s' '%s%s'", symfs,
				     real, symfs, real, real, symfs, real), 0);
	machine_set_live(m, true);
	machine_set_symfs(m, symfs);
	ck_assert_int_eq(stat(real, &st), 0);
	ck_assert(exec_segment(real, &seg));
	ck_assert(nm_symbol(real, "func_a", &fa, &fs));
	start = base + (seg.vaddr & ~(PAGE - 1));
	end = (base + seg.vaddr + seg.filesz + PAGE - 1) & ~(PAGE - 1);
	ev = mk_mmap(60, 60, start, end - start, seg.offset & ~(PAGE - 1), real);
	ev.ino = (uint64_t)st.st_ino;
	machine_mmap(m, &ev);
	r = user(m, 60, 60, base + fa + 1);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "func_a");
	ck_assert_str_eq(dso_sym_path(r.dso), real);
	machine_free(m);
	free(real);
	free(symfs);
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("dso");
	TCase *tc;

	tc = tcase_create("dso");
	tcase_add_test(tc, test_dso_kinds);
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
	tcase_add_test(tc, test_symfs_live_after_own);
	tcase_add_test(tc, test_async_pending);
	tcase_add_test(tc, test_replaced_inode);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
