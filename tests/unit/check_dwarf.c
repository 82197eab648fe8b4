/* Unit tests for symbols/dwarfinfo.c: inline chains and source lines of a
 * fixture built here (tests/helpers/inline-fixture.c, gcc -O2 -g), compared with
 * eu-addr2line where it is installed; caching, bounds and bad files.  And
 * the view over them: -s srcline rows, --inline rows and trees. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "callchain.h"
#include "dso.h"
#include "dwarfinfo.h"
#include "elfsyms.h"
#include "hist.h"
#include "machine.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "view.h"

static char *dir;
static char fixture[4096], stripped[4096], master[4096], master_stripped[4096];
static uint64_t outer_start, outer_end, main_start, main_end;

/* Once per test case (the compile is the slow part): the fixture and its
 * stripped copy, and the addresses of two functions in it. */
static void build_fixture(void)
{
	struct elfsyms_image img;
	size_t i;

	dir = testutil_tmpdir("dwarf");
	snprintf(master, sizeof(master), "%s/inlfix.master", dir);
	snprintf(master_stripped, sizeof(master_stripped), "%s/inlfix.master-stripped", dir);
	snprintf(fixture, sizeof(fixture), "%s/inlfix", dir);
	snprintf(stripped, sizeof(stripped), "%s/inlfix.stripped", dir);
	ck_assert_int_eq(testutil_sh("cc -O2 -g -o '%s' '%s/inline-fixture.c'", master,
				     getenv("srcdir") ? getenv("srcdir") : "tests/helpers"),
			 0);
	ck_assert_int_eq(testutil_sh("strip -g -o '%s' '%s'", master_stripped, master), 0);
	ck_assert_int_eq(elfsyms_load(master, &img), 0);
	for (i = 0; i < symtab_count(img.symtab); i++) {
		const struct symbol *s = symtab_get(img.symtab, i);

		if (!strcmp(s->name, "outer_noinline")) {
			outer_start = s->start;
			outer_end = s->end;
		} else if (!strcmp(s->name, "main")) {
			main_start = s->start;
			main_end = s->end;
		}
	}
	elfsyms_release(&img);
	ck_assert(outer_start && outer_end > outer_start && main_start);
}

static void remove_fixture(void)
{
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* Each test gets fresh copies (a test may replace or add files). */
static void setup(void)
{
	ck_assert_int_eq(testutil_sh("find '%s' -mindepth 1 -maxdepth 1 ! -name 'inlfix.master*' "
				     "-exec rm -rf {} + && cp '%s' '%s' && cp '%s' '%s'",
				     dir, master, fixture, master_stripped, stripped),
			 0);
}

static void teardown(void)
{
}

/* Some address of outer_noinline is in the inlined hot_inline, called
 * from line 23; the entry is not inlined and is on line 19. */
START_TEST(test_inline_chain)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	uint64_t a;
	bool found = false;

	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_uint_eq(in->nr_inlines, 0);
	ck_assert_str_eq(in->function, "outer_noinline");
	ck_assert_uint_eq(in->line, 19);
	ck_assert_str_eq(dwarfinfo_srcline(in), "inline-fixture.c:19");
	for (a = outer_start; a < outer_end && !found; a++) {
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
		if (!in->nr_inlines)
			continue;
		found = true;
		ck_assert_uint_eq(in->nr_inlines, 1);
		ck_assert_str_eq(in->inlines[0].name, "hot_inline");
		ck_assert_ptr_nonnull(in->inlines[0].call_file);
		ck_assert_ptr_nonnull(strstr(in->inlines[0].call_file, "inline-fixture.c"));
		ck_assert_uint_eq(in->inlines[0].call_line, 23);
		ck_assert_str_eq(in->function, "outer_noinline");
		/* hot_inline's body: lines 11..16 */
		ck_assert_uint_ge(in->line, 11);
		ck_assert_uint_le(in->line, 16);
	}
	ck_assert(found);
	dwarfinfo_cache_free(c);
}
END_TEST

/* dwarfinfo_lines_id (annotate: one walk of a function's DIEs) gives
 * every address of outer_noinline and of main the file, line and
 * innermost inlined function dwarfinfo_lookup gives it one by one; and
 * some are in hot_inline. */
START_TEST(test_lines_batch)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const uint64_t range[2][2] = { { outer_start, outer_end }, { main_start, main_end } };
	struct dwarfinfo_line *out;
	uint64_t *addrs;
	size_t i, n, inlined = 0;
	int k;

	for (k = 0; k < 2; k++) {
		n = (size_t)(range[k][1] - range[k][0]);
		addrs = xmalloc(n * sizeof(*addrs));
		out = xmalloc(n * sizeof(*out));
		for (i = 0; i < n; i++)
			addrs[i] = range[k][0] + i;
		ck_assert_int_eq(dwarfinfo_lines_id(c, fixture, NULL, 0, addrs, n, out), 0);
		for (i = 0; i < n; i++) {
			const struct dwarfinfo *in;

			ck_assert_int_eq(dwarfinfo_lookup(c, fixture, addrs[i], &in), 0);
			ck_assert_ptr_eq(out[i].file, in->file);
			ck_assert_uint_eq(out[i].line, in->line);
			ck_assert_ptr_eq(out[i].inlined, in->nr_inlines ? in->inlines[0].name : NULL);
			inlined += out[i].inlined != NULL;
		}
		free(addrs);
		free(out);
	}
	ck_assert_uint_gt(inlined, 0);
	addrs = xmalloc(sizeof(*addrs));
	out = xmalloc(sizeof(*out));
	addrs[0] = outer_start;
	ck_assert_int_lt(dwarfinfo_lines_id(c, "/nonexistent/file", NULL, 0, addrs, 1, out), 0);
	free(addrs);
	free(out);
	dwarfinfo_cache_free(c);
}
END_TEST

/* The fixture again, built in DIR/src with -fdebug-prefix-map=DIR=. as
 * glibc is built: a relative compilation directory ("./src"), which
 * eu-addr2line (and binutils' addr2line, llvm-symbolizer) put in front
 * of the line table's and the call's files alike: "./src/./src/F". */
static char relfix[4096];

static void build_relative(void)
{
	char *abs = realpath(dir, NULL);

	ck_assert_ptr_nonnull(abs);
	snprintf(relfix, sizeof(relfix), "%s/inlfix.master-rel", abs);
	ck_assert_int_eq(testutil_sh("mkdir -p '%s/src' && cp '%s/inline-fixture.c' '%s/src/' && "
				     "cd '%s/src' && cc -O2 -g -fdebug-prefix-map='%s'=. -o '%s' "
				     "inline-fixture.c",
				     abs, getenv("srcdir") ? getenv("srcdir") : "tests/helpers", abs,
				     abs, abs, relfix),
			 0);
	free(abs);
}

/* The line of the fixture's source that holds text (1-based), or 0. */
static unsigned source_line(const char *text)
{
	char path[4096], buf[512];
	unsigned n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/src/inline-fixture.c", dir);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, text)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

/* Every name eu-addr2line -i prints for the fixture's code is ours:
 * the line table's file, the inlined function's call file, and the decl
 * files (hot_inline's, outer_noinline's) with their lines. */
START_TEST(test_relative_comp_dir)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	const char *want = "./src/./src/inline-fixture.c";
	char cmd[8192], out[4096];
	size_t n, inl = 0;
	uint64_t a;
	FILE *p;

	build_relative();
	for (a = outer_start; a < outer_end; a++) {
		ck_assert_int_eq(dwarfinfo_lookup(c, relfix, a, &in), 0);
		if (!in->file)
			continue;
		ck_assert_str_eq(in->file, want);
		ck_assert_str_eq(in->function_file, want);
		ck_assert_uint_eq(in->function_line, source_line(" outer_noinline(unsigned long n)"));
		if (!in->nr_inlines)
			continue;
		ck_assert_str_eq(in->inlines[0].call_file, want);
		ck_assert_str_eq(in->inlines[0].decl_file, want);
		ck_assert_uint_eq(in->inlines[0].decl_line, source_line(" hot_inline(unsigned long x)"));
		/* eu-addr2line -i: "hot_inline inlined at F:23:C in outer_noinline\nF:L:C\n..." */
		if (inl++)
			continue;
		snprintf(cmd, sizeof(cmd), "eu-addr2line -f -i -e '%s' 0x%llx", relfix,
			 (unsigned long long)a);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		if (pclose(p) != 0 || !n)
			continue;  /* no eu-addr2line here */
		snprintf(cmd, sizeof(cmd), "inlined at %s:%u:", want, in->inlines[0].call_line);
		ck_assert_msg(strstr(out, cmd), "eu-addr2line: %s, want %s", out, cmd);
		snprintf(cmd, sizeof(cmd), "\n%s:%u:", want, in->line);
		ck_assert_msg(strstr(out, cmd), "eu-addr2line: %s, want %s", out, cmd);
	}
	ck_assert_uint_gt(inl, 0);
	dwarfinfo_cache_free(c);
}
END_TEST

/* Every address of main and of outer_noinline agree with
 * eu-addr2line -f -i -s: the innermost file:line, then each inlined
 * function and where it was called from (the DWARF's functions: main and
 * outer_noinline, where main calls the noinline one in a loop). */
START_TEST(test_matches_eu_addr2line)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	struct strbuf cmd, all;
	char line[1024];
	const char *next;
	uint64_t a;
	FILE *p;
	size_t n = 0;

	if (testutil_sh("command -v eu-addr2line >/dev/null 2>&1") != 0) {
		fprintf(stderr, "SKIP: eu-addr2line not installed (Debian: elfutils)\n");
		dwarfinfo_cache_free(c);
		return;
	}
	strbuf_init(&cmd);
	strbuf_init(&all);
	/* One eu-addr2line for all the addresses, each followed by address 0
	 * ("??\n??:0\n", which no address of main or outer_noinline gives)
	 * to tell where one answer ends. */
	strbuf_addf(&cmd, "eu-addr2line -f -i -s -e '%s'", fixture);
	for (a = main_start; a < outer_end; a = a + 1 == main_end ? outer_start : a + 1)
		strbuf_addf(&cmd, " 0x%llx 0", (unsigned long long)a);
	p = popen(cmd.buf, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		strbuf_addf(&all, "%s", line);
	/* (it exits with 1: address 0 has no line) */
	ck_assert_int_ne(pclose(p), -1);
	next = all.buf;
	for (a = main_start; a < outer_end; a = a + 1 == main_end ? outer_start : a + 1) {
		static const char sentinel[] = "??\n??:0\n";
		const struct dwarfinfo *in;
		char want[2048], got[2048];
		const char *end = next ? strstr(next, sentinel) : NULL;
		size_t k, off = 0;

		ck_assert_ptr_nonnull(end);
		ck_assert_uint_lt((size_t)(end - next), sizeof(want));
		memcpy(want, next, (size_t)(end - next));
		want[end - next] = 0;
		next = end + sizeof(sentinel) - 1;
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
		/* eu-addr2line's shape: "f inlined at F:L:C in g\nF:L:C\ng\nF:L:C\n". */
		{
			const char *name = in->nr_inlines ? in->inlines[0].name : in->function;
			const char *sl = dwarfinfo_srcline(in);

			off += snprintf(got + off, sizeof(got) - off, "%s", name ? name : "??");
			for (k = 0; k < in->nr_inlines; k++) {
				const char *cf = in->inlines[k].call_file,
					   *b = cf ? strrchr(cf, '/') : NULL;
				const char *caller = k + 1 < in->nr_inlines ?
							     in->inlines[k + 1].name :
							     in->function;

				off += snprintf(got + off, sizeof(got) - off, " inlined at %s:%u",
						b  ? b + 1 :
						cf ? cf :
						     "??",
						in->inlines[k].call_line);
				/* (the column is left out of the comparison) */
				off += snprintf(got + off, sizeof(got) - off, " in %s", caller);
			}
			off += snprintf(got + off, sizeof(got) - off, "\n%s\n", sl ? sl : "??:0");
		}
		/* Compare the first two lines without columns. */
		{
			char norm[2048], *o = norm;
			const char *s;

			for (s = want; *s; s++) {
				/* drop ":COL" after ":LINE" */
				if (*s == ':' && s[1] >= '0' && s[1] <= '9') {
					const char *t = s + 1;

					while (*t >= '0' && *t <= '9')
						t++;
					if (*t == ':' && t[1] >= '0' && t[1] <= '9') {
						memcpy(o, s, (size_t)(t - s));
						o += t - s;
						s = t + 1;
						while (*s >= '0' && *s <= '9')
							s++;
						s--;
						continue;
					}
				}
				*o++ = *s;
			}
			*o = 0;
			/* our got has two lines: name line and innermost srcline */
			{
				char *nl = strchr(norm, '\n');

				nl = nl ? strchr(nl + 1, '\n') : NULL;
				if (nl)
					nl[1] = 0;
			}
			ck_assert_msg(!strcmp(norm, got), "at 0x%llx: eu-addr2line:\n%sours:\n%s",
				      (unsigned long long)a, norm, got);
		}
		n++;
	}
	ck_assert_uint_gt(n, 32);
	ck_assert_str_eq(next, "");
	strbuf_release(&cmd);
	strbuf_release(&all);
	dwarfinfo_cache_free(c);
}
END_TEST

START_TEST(test_cache_hits_and_bound)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(4);
	struct dwarfinfo_stats st;
	const struct dwarfinfo *in;
	uint64_t a;

	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_eq(st.misses, 1);
	ck_assert_uint_eq(st.hits, 1);
	ck_assert_uint_eq(st.files_opened, 1);
	for (a = outer_start; a < outer_start + 40; a++)
		ck_assert_int_eq(dwarfinfo_lookup(c, fixture, a, &in), 0);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_le(st.entries, 4);
	ck_assert_uint_eq(st.files_opened, 1);
	/* Still right after the cache started over. */
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	ck_assert_str_eq(in->function, "outer_noinline");
	dwarfinfo_cache_free(c);
}
END_TEST

START_TEST(test_bad_files)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	struct dwarfinfo_stats st;
	const struct dwarfinfo *in;
	char missing[4200];

	snprintf(missing, sizeof(missing), "%s/no-such-file", dir);
	ck_assert_int_eq(dwarfinfo_lookup(c, missing, 0x1000, &in), -ENOENT);
	ck_assert_int_eq(dwarfinfo_lookup(c, stripped, outer_start, &in), -ENODATA);
	ck_assert_int_eq(dwarfinfo_lookup(c, stripped, outer_start + 1, &in), -ENODATA);
	dwarfinfo_cache_stats(c, &st);
	ck_assert_uint_eq(st.files_opened, 2); /* the failures are remembered */
	/* A good file after bad ones still works. */
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, main_start, &in), 0);
	ck_assert_str_eq(in->function, "main");
	ck_assert_int_eq(dwarfinfo_lookup(c, NULL, 0, &in), -EINVAL);
	dwarfinfo_cache_free(c);
}
END_TEST

/* More files than are kept open: answers stay right as files are closed
 * and opened again. */
START_TEST(test_many_files)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	char path[4200];
	int i, round;

	for (i = 0; i < 12; i++)
		ck_assert_int_eq(testutil_sh("cp '%s' '%s/copy%d'", fixture, dir, i), 0);
	for (round = 0; round < 2; round++)
		for (i = 0; i < 12; i++) {
			snprintf(path, sizeof(path), "%s/copy%d", dir, i);
			ck_assert_int_eq(
				dwarfinfo_lookup(c, path, outer_start + (uint64_t)round, &in), 0);
			ck_assert_str_eq(in->function, "outer_noinline");
		}
	dwarfinfo_cache_free(c);
}
END_TEST

/* ---- the view over DWARF: -s srcline and --inline ---- */

#define MAP_START 0x10000000ULL

static struct machine *vm;

/* A new machine with path mapped whole at MAP_START in pid 100. */
static void map_fixture(const char *path)
{
	struct mmap_event ev;

	machine_free(vm);
	vm = machine_new();
	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = 100;
	ev.start = MAP_START;
	ev.len = 0x10000;
	ev.pgoff = 0;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = path;
	machine_mmap(vm, &ev);
}

/* The fixture mapped whole at MAP_START in pid 100, its symbols loaded. */
static void view_setup(void)
{
	struct resolved r;

	setup();
	map_fixture(fixture);
	machine_resolve(vm, 100, 100, PERF_RECORD_MISC_USER, MAP_START + outer_start, &r);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_str_eq(r.sym->name, "outer_noinline");
}

static void view_teardown(void)
{
	machine_free(vm);
	vm = NULL;
	teardown();
}

/* Up to max addresses of outer_noinline inside the inlined hot_inline on
 * line want_line, by libdw directly. */
static size_t hot_addrs(uint64_t *out, size_t max, unsigned want_line)
{
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	const struct dwarfinfo *in;
	size_t n = 0;
	uint64_t a;

	for (a = outer_start; a < outer_end && n < max; a++)
		if (dwarfinfo_lookup(c, fixture, a, &in) == 0 && in->nr_inlines == 1 &&
		    in->line == want_line)
			out[n++] = a;
	dwarfinfo_cache_free(c);
	return n;
}

/* main's call of outer_noinline, as a return address - 1 */
static void main_caller(struct callchain_frame *caller)
{
	struct resolved r;

	machine_resolve(vm, 100, 100, PERF_RECORD_MISC_USER, MAP_START + main_start + 1, &r);
	ck_assert_str_eq(r.sym->name, "main");
	memset(caller, 0, sizeof(*caller));
	caller->dso = r.dso;
	caller->sym = r.sym;
	caller->addr = r.addr;
}

static void add_at(struct hist *h, uint64_t vaddr, const struct callchain_frame *callers,
		   size_t ncallers, unsigned times)
{
	struct resolved r;
	struct hist_sample s;
	struct callchain_frame chain[8];

	machine_resolve(vm, 100, 100, PERF_RECORD_MISC_USER, MAP_START + vaddr, &r);
	ck_assert_ptr_nonnull(r.sym);
	ck_assert_uint_eq(r.addr, vaddr);
	memset(&s, 0, sizeof(s));
	s.comm = intern("inlfix");
	s.pid = s.tid = 100;
	s.dso = r.dso;
	s.sym = r.sym;
	s.addr = r.addr;
	s.period = 1000;
	if (callers) {
		chain[0].dso = r.dso;
		chain[0].sym = r.sym;
		chain[0].kernel = false;
		chain[0].addr = r.addr;
		memcpy(chain + 1, callers, ncallers * sizeof(*callers));
		s.chain = chain;
		s.nr_chain = ncallers + 1;
	}
	while (times--)
		hist_add(h, &s);
}

static struct hist *hist_keys(const char *keys)
{
	struct sort_spec spec;
	ck_assert_int_eq(sort_spec_parse(keys, &spec, NULL), 0);
	return hist_new(&spec);
}

static const struct snapshot_row *row_named(const struct snapshot *snap, const char *sym,
					    bool inlined)
{
	size_t i;

	for (i = 0; i < snap->nr_rows; i++)
		if (snap->rows[i].symbol && !strcmp(snap->rows[i].symbol, sym) &&
		    snap->rows[i].inlined == inlined)
			return &snap->rows[i];
	return NULL;
}

/* Entries at two addresses of line 14 and one of the entry line make two
 * rows, by file:line, with perf's base-name format. */
START_TEST(test_view_srcline_merges_by_line)
{
	struct hist *h = hist_keys("srcline");
	struct snapshot snap;
	uint64_t a[2];

	ck_assert_uint_eq(hot_addrs(a, 2, 14), 2);
	add_at(h, a[0], NULL, 0, 3);
	add_at(h, a[1], NULL, 0, 2);
	add_at(h, outer_start, NULL, 0, 1);
	ck_assert_uint_eq(hist_count(h), 3);
	memset(&snap, 0, sizeof(snap));
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 2);
	ck_assert(snap.rows[0].has_srcline);
	ck_assert_str_eq(snap.rows[0].srcline, "inline-fixture.c:14");
	ck_assert_uint_eq(snap.rows[0].samples, 5);
	ck_assert_uint_eq(snap.rows[0].period, 5000);
	ck_assert(fabs(snap.rows[0].self - 500.0 / 6.0) < 1e-9);
	ck_assert_str_eq(snap.rows[1].srcline, "inline-fixture.c:19");
	ck_assert_uint_eq(snap.rows[1].samples, 1);
	ck_assert_uint_eq(snap.dwarf_lookups, 3);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* -s sym,srcline: the symbol and the line; without DWARF perf's
 * fallbacks "sym+OFF" and "??:0". */
START_TEST(test_view_srcline_fallbacks)
{
	struct hist *h = hist_keys("sym,srcline");
	struct dso *nodw = machine_dso_get(vm, "/nonexistent/app", DSO_USER);
	struct symbol sym = { 0x1000, 0x1100, "main" };
	struct hist_sample s;
	struct snapshot snap;

	memset(&s, 0, sizeof(s));
	s.dso = nodw;
	s.sym = &sym;
	s.addr = 0x1010;
	s.period = 10000;
	hist_add(h, &s);
	s.dso = NULL;
	s.sym = NULL;
	s.addr = 0;
	s.period = 5000;
	hist_add(h, &s);
	add_at(h, outer_start, NULL, 0, 1);
	memset(&snap, 0, sizeof(snap));
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 3);
	ck_assert_str_eq(snap.rows[0].symbol, "main");
	ck_assert_str_eq(snap.rows[0].srcline, "main+16");
	ck_assert_str_eq(snap.rows[1].symbol, "[unknown]");
	ck_assert_str_eq(snap.rows[1].srcline, "??:0");
	ck_assert_str_eq(snap.rows[2].symbol, "outer_noinline");
	ck_assert_str_eq(snap.rows[2].srcline, "inline-fixture.c:19");
	ck_assert_str_eq(dso_srcline(nodw, NULL, 0x42), "app[42]");
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* --inline: the self of an address in inlined code goes to the inlined
 * function; the real function gets it as children; trees have the
 * inlined frame under (callers) the function it was inlined into. */
START_TEST(test_view_inline_rows_and_trees)
{
	struct hist *h = hist_keys("dso,sym");
	struct view_opts o;
	struct snapshot snap;
	const struct snapshot_row *hot, *outer;
	struct callchain_frame caller;
	uint64_t a[2];

	hist_key_addresses(h);
	hist_enable_callchains(h, 0);
	ck_assert_uint_eq(hot_addrs(a, 1, 14), 1);
	main_caller(&caller);
	add_at(h, a[0], &caller, 1, 8);
	add_at(h, outer_start, &caller, 1, 2);
	memset(&o, 0, sizeof(o));
	o.inline_frames = true;
	o.tree_rows = 10;
	memset(&snap, 0, sizeof(snap));
	view_build(h, &o, &snap);
	ck_assert(snap.inline_frames);
	hot = row_named(&snap, "hot_inline", true);
	outer = row_named(&snap, "outer_noinline", false);
	ck_assert_ptr_nonnull(hot);
	ck_assert_ptr_nonnull(outer);
	ck_assert_ptr_null(row_named(&snap, "hot_inline", false));
	ck_assert_uint_eq(hot->period, 8000);
	ck_assert_uint_eq(hot->children_period, 8000);
	ck_assert_uint_eq(outer->period, 2000);
	ck_assert_uint_eq(outer->children_period, 10000);
	ck_assert_str_eq(hot->dso, "inlfix");
	/* callers of hot_inline: outer_noinline, then main */
	ck_assert_ptr_nonnull(hot->callers);
	ck_assert(hot->callers[0].inlined);
	ck_assert_uint_eq(hot->callers[0].nr_children, 1);
	ck_assert_str_eq(hot->callers[0].children[0].symbol, "outer_noinline");
	ck_assert(!hot->callers[0].children[0].inlined);
	ck_assert_uint_eq(hot->callers[0].children[0].nr_children, 1);
	ck_assert_str_eq(hot->callers[0].children[0].children[0].symbol, "main");
	/* callees of outer_noinline: hot_inline (inlined) with 8 of 10 */
	ck_assert_ptr_nonnull(outer->callees);
	ck_assert_uint_eq(outer->callees[0].nr_children, 1);
	ck_assert_str_eq(outer->callees[0].children[0].symbol, "hot_inline");
	ck_assert(outer->callees[0].children[0].inlined);
	ck_assert_uint_eq(outer->callees[0].children[0].period, 8000);
	snapshot_release(&snap);

	/* Without --inline: no inlined rows, and libdw is not asked. */
	memset(&snap, 0, sizeof(snap));
	o.inline_frames = false;
	view_build(h, &o, &snap);
	ck_assert_uint_eq(snap.dwarf_lookups, 0);
	ck_assert_ptr_null(row_named(&snap, "hot_inline", true));
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* A DSO whose symbols came from a /proc/PID path now gone: the DWARF is
 * taken from its path only when the build ID is the same. */
START_TEST(test_view_build_id_checked)
{
	struct hist *h = hist_keys("srcline");
	struct snapshot snap;
	struct dwarfinfo_cache *c;
	const struct dwarfinfo *in;
	char *other;

	add_at(h, outer_start, NULL, 0, 1);
	/* Another binary at the same path: the fixture rebuilt differently. */
	ck_assert_int_eq(testutil_sh("cc -O0 -g -o '%s' '%s/inline-fixture.c'", fixture,
				     getenv("srcdir") ? getenv("srcdir") : "tests/helpers"),
			 0);
	c = dwarfinfo_cache_new(0);
	ck_assert_int_eq(dwarfinfo_lookup(c, fixture, outer_start, &in), 0);
	other = strdup(dwarfinfo_srcline(in));
	dwarfinfo_cache_free(c);
	ck_assert_str_ne(other, "inline-fixture.c:19");
	memset(&snap, 0, sizeof(snap));
	view_build(h, NULL, &snap);
	ck_assert_uint_eq(snap.nr_rows, 1);
	/* Not the -O0 file's line for that address: no line at all, or,
	   where the process-wide DWARF cache read the sampled binary before
	   it was replaced (an earlier test, under CK_FORK=no), its own. */
	ck_assert_str_ne(snap.rows[0].srcline, other);
	if (strcmp(snap.rows[0].srcline, "inline-fixture.c:19") != 0)
		ck_assert_str_eq(snap.rows[0].srcline, "outer_noinline+0");
	free(other);
	snapshot_release(&snap);
	hist_free(h);
}
END_TEST

/* --pprof's stacks with --inline (view_opts.stack_detail): each frame has
 * its address and its line there, and a function's file and start line do
 * not depend on which of its addresses comes first: with a relative
 * compilation directory, an address in inlined code and one outside it
 * once named outer_noinline's file differently ("./src/F" from the call,
 * "./src/./src/F" from the line table), and the first one stored won. */
static void stacks_of(bool inlined_first, uint64_t hot, const struct callchain_frame *caller,
		      struct strbuf *sb)
{
	struct hist *h = hist_keys("dso,sym");
	struct view_opts o;
	struct snapshot snap;
	size_t i, j;

	hist_key_addresses(h);
	hist_enable_callchains(h, 0);
	add_at(h, inlined_first ? hot : outer_start, caller, 1, 1);
	add_at(h, inlined_first ? outer_start : hot, caller, 1, 1);
	memset(&o, 0, sizeof(o));
	o.inline_frames = o.stacks = o.stack_detail = true;
	memset(&snap, 0, sizeof(snap));
	view_build(h, &o, &snap);
	for (i = 0; i < snap.nr_stacks; i++) {
		for (j = 0; j < snap.stacks[i].nr_frames; j++) {
			const struct snapshot_frame *f = &snap.stacks[i].frames[j];

			strbuf_addf(sb, "%s%s 0x%llx %s:%u@%u", j ? ";" : "", f->symbol,
				    (unsigned long long)f->addr, f->file ? f->file : "-",
				    f->start_line, f->line);
		}
		strbuf_addch(sb, '\n');
	}
	snapshot_release(&snap);
	hist_free(h);
}

START_TEST(test_view_stack_lines)
{
	struct callchain_frame caller;
	struct strbuf a, b;
	const struct dwarfinfo *in;
	struct dwarfinfo_cache *c = dwarfinfo_cache_new(0);
	uint64_t hot[1];
	char want[512];

	build_relative();
	/* pid 100 maps the relative build (the same code) instead. */
	map_fixture(relfix);
	ck_assert_uint_eq(hot_addrs(hot, 1, 14), 1);
	main_caller(&caller);
	strbuf_init(&a);
	strbuf_init(&b);
	stacks_of(true, hot[0], &caller, &a);
	stacks_of(false, hot[0], &caller, &b);
	ck_assert_str_eq(a.buf, b.buf);
	/* main's line is its call's, outer_noinline's its call of hot_inline
	   (23) in the inlined code, its entry's (19) outside, hot_inline's 14. */
	ck_assert_int_eq(dwarfinfo_lookup(c, relfix, main_start + 1, &in), 0);
	snprintf(want, sizeof(want),
		 "main 0x%llx ./src/./src/inline-fixture.c:%u@%u;"
		 "outer_noinline 0x%llx ./src/./src/inline-fixture.c:%u@23;"
		 "hot_inline 0x%llx ./src/./src/inline-fixture.c:%u@14\n",
		 (unsigned long long)(main_start + 1), in->function_line, in->line,
		 (unsigned long long)hot[0], source_line(" outer_noinline(unsigned long n)"),
		 (unsigned long long)hot[0], source_line(" hot_inline(unsigned long x)"));
	ck_assert_msg(strstr(a.buf, want), "stacks:\n%s\nwant:\n%s", a.buf, want);
	snprintf(want, sizeof(want), "outer_noinline 0x%llx ./src/./src/inline-fixture.c:%u@19\n",
		 (unsigned long long)outer_start, source_line(" outer_noinline(unsigned long n)"));
	ck_assert_msg(strstr(a.buf, want), "stacks:\n%s\nwant:\n%s", a.buf, want);
	strbuf_release(&a);
	strbuf_release(&b);
	dwarfinfo_cache_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("dwarf");
	TCase *tc = tcase_create("dwarf");

	tcase_add_unchecked_fixture(tc, build_fixture, remove_fixture);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_inline_chain);
	tcase_add_test(tc, test_lines_batch);
	tcase_add_test(tc, test_matches_eu_addr2line);
	tcase_add_test(tc, test_relative_comp_dir);
	tcase_add_test(tc, test_cache_hits_and_bound);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_many_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("view");
	tcase_add_unchecked_fixture(tc, build_fixture, remove_fixture);
	tcase_add_checked_fixture(tc, view_setup, view_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_view_srcline_merges_by_line);
	tcase_add_test(tc, test_view_srcline_fallbacks);
	tcase_add_test(tc, test_view_inline_rows_and_trees);
	tcase_add_test(tc, test_view_build_id_checked);
	tcase_add_test(tc, test_view_stack_lines);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
