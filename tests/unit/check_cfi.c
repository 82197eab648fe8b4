/* Unit tests for symbols/cfi.c: the sub_<hex> functions of a stripped
 * program built here are the FDEs readelf lists (and libdw agrees), one per
 * static function; a debug file's names replace them; crafted, truncated
 * and mutated CFI gives bounded walks and no crash. */
#include "config.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfi.h"
#include "elfsyms.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

static char *dir;
static pid_t builder;

static void remove_fixtures(void)
{
	if (!dir || getpid() != builder)
		return;
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* prog: static functions with -O2's unwind tables; prog.strip: no
 * .symtab; prog.debug: its debug file; dprog.strip: built without unwind
 * tables, its FDEs only in .debug_frame. */
static void build_fixtures(void)
{
	if (dir)
		return;
	dir = testutil_tmpdir("check_cfi");
	builder = getpid();
	atexit(remove_fixtures);
	if (testutil_sh(
		    "cd '%s' && printf '%%s\\n' '#include <stdio.h>' '#include <stdlib.h>' "
		    "'static __attribute__((noinline)) unsigned long spin_a(unsigned long n)' "
		    "'{ unsigned long s = 0; for (unsigned long i = 0; i < n; i++) s += i * i ^ (s >> 3); return s; }' "
		    "'static __attribute__((noinline)) unsigned long spin_b(unsigned long n)' "
		    "'{ unsigned long s = 1; for (unsigned long i = 0; i < n; i++) s = s * 31 + i; return s; }' "
		    "'static __attribute__((noinline)) unsigned long spin_c(unsigned long n)' "
		    "'{ return spin_a(n) + spin_b(n / 2); }' "
		    "'int main(int argc, char **argv)' "
		    "'{ printf(\"%%lu\\\\n\", spin_c(argc > 1 ? strtoul(argv[1], 0, 10) : 10)); return 0; }' "
		    "> prog.c && cc -O2 -g -o prog prog.c && cp prog prog.strip && "
		    "strip --strip-all prog.strip && objcopy --only-keep-debug prog prog.debug && "
		    "cc -O2 -g -fno-asynchronous-unwind-tables -o dprog prog.c && cp dprog dprog.strip && "
		    "strip --strip-all --keep-section=.debug_frame dprog.strip && "
		    /* mixed: spin_x built without unwind tables, its FDE only
		     * in the .debug_frame of the debug files (compressed):
		     * mixed.debug, mixed.nox.debug without spin_x's symbol,
		     * mixed.nosym.debug with no .symtab at all. */
		    "printf '%%s\n' 'unsigned long spin_x(unsigned long n)' "
		    "'{ unsigned long s = 3; for (unsigned long i = 0; i < n; i++) s = s * 7 ^ i; return s; }' >x.c && "
		    /* More FDEs: objcopy compresses only what shrinks. */
		    "for i in $(seq 40); do echo \"unsigned long pad$i(unsigned long n) { return n * $i + 1; }\"; "
		    "done >>x.c && "
		    "cc -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables -c x.c && "
		    /* spin_m, sized, before spin_x: a sizeless crt symbol
		     * there would cover spin_x's start without its symbol. */
		    "printf '%%s\n' 'unsigned long spin_x(unsigned long);' "
		    "'__attribute__((noinline)) unsigned long spin_m(unsigned long n) { return spin_x(n) + 1; }' "
		    "'int main(int argc, char **argv) { (void)argv; return (int)spin_m((unsigned long)argc); }' >m.c && "
		    "cc -O2 -g -o mixed m.c x.o && cp mixed mixed.strip && strip --strip-all mixed.strip && "
		    "objcopy --only-keep-debug --compress-debug-sections=zlib mixed mixed.debug && "
		    "readelf -SW mixed.debug 2>/dev/null | grep -Eq '\\.debug_frame +PROGBITS( +[0-9a-f]+){4} +[A-Z]*C' && "
		    "objcopy --strip-symbol=spin_x mixed.debug mixed.nox.debug && "
		    "strip --strip-all --keep-section=.debug_frame -o mixed.nosym.debug mixed.debug && "
		    "! readelf -S mixed.nosym.debug 2>/dev/null | grep -q symtab",
		    dir)) {
		fprintf(stderr, "check_cfi: cannot build the fixtures\n");
		abort();
	}
}

struct fde {
	uint64_t start, end;
};

/* The FDEs readelf lists for path (its .eh_frame and .debug_frame). */
static struct fde *readelf_fdes(const char *path, size_t *n)
{
	char *cmd = xasprintf("readelf --debug-dump=frames '%s' 2>/dev/null", path);
	FILE *p = popen(cmd, "r");
	struct fde *v = NULL;
	size_t cap = 0;
	char line[512];

	free(cmd);
	ck_assert_ptr_nonnull(p);
	*n = 0;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, b;
		char *pc = strstr(line, " FDE ");

		/* 00003380 0000000000000044 00003384 FDE cie=00000000 pc=0000000000015b10..0000000000015d1a */
		if (!pc || !(pc = strstr(pc, "pc=")) || sscanf(pc, "pc=%llx..%llx", &a, &b) != 2)
			continue;
		v = xgrow(v, &cap, *n + 1, sizeof(*v));
		v[*n].start = a;
		v[(*n)++].end = b;
	}
	pclose(p);
	return v;
}

static const struct fde *fde_at(const struct fde *v, size_t n, uint64_t start)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].start == start)
			return &v[i];
	return NULL;
}

/* Every synthetic function of path is a listed FDE, named from its start;
 * returns how many there are. */
static size_t check_against_readelf(const char *path, const struct elfsyms_image *img)
{
	size_t nf, i, n = img->cfi_symtab ? symtab_count(img->cfi_symtab) : 0;
	struct fde *f = readelf_fdes(path, &nf);

	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(img->cfi_symtab, i);
		const struct fde *d = fde_at(f, nf, s->start);
		char want[32];

		snprintf(want, sizeof(want), "sub_%" PRIx64, s->start);
		ck_assert_str_eq(s->name, want);
		ck_assert_msg(d != NULL, "%s: %s is no FDE start", path, s->name);
		/* Cut at the end of its section, never longer. */
		ck_assert_uint_le(s->end, d->end);
		ck_assert_uint_gt(s->end, s->start);
		ck_assert_ptr_null(symtab_lookup(img->symtab, s->start));
	}
	free(f);
	return n;
}

/* The bounds of a static function of the unstripped prog, by name. */
static struct fde named(const char *name)
{
	char *path = xasprintf("%s/prog", dir);
	struct elfsyms_image img;
	struct fde out = { 0, 0 };
	size_t i;

	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	for (i = 0; i < symtab_count(img.symtab); i++) {
		const struct symbol *s = symtab_get(img.symtab, i);

		/* spin_a, or a clone the compiler made (spin_a.constprop.0). */
		if (strncmp(s->name, name, strlen(name)) == 0 &&
		    (!s->name[strlen(name)] || s->name[strlen(name)] == '.')) {
			out.start = s->start;
			out.end = s->end;
		}
	}
	elfsyms_release(&img);
	free(path);
	ck_assert_msg(out.end > out.start, "no %s in prog", name);
	return out;
}

static const char *const statics[] = { "spin_a", "spin_b", "spin_c", "main" };

/* In stripped img, each static function is one synthetic function that
 * starts where it starts and covers it: one row each. */
static void check_one_per_function(const struct elfsyms_image *img)
{
	const struct symbol *seen[4];
	size_t i, j;

	for (i = 0; i < 4; i++) {
		struct fde f = named(statics[i]);
		const struct symbol *a = symtab_lookup(img->cfi_symtab, f.start);
		const struct symbol *b = symtab_lookup(img->cfi_symtab, f.end - 1);

		ck_assert_ptr_null(symtab_lookup(img->symtab, f.start));
		ck_assert_msg(a != NULL, "%s: no CFI function", statics[i]);
		ck_assert_ptr_eq(a, b);
		ck_assert_uint_eq(a->start, f.start);
		ck_assert(symtab_owns(img->cfi_symtab, a));
		ck_assert(!symtab_owns(img->symtab, a));
		for (j = 0; j < i; j++)
			ck_assert_ptr_ne(seen[j], a);
		seen[i] = a;
	}
}

START_TEST(test_stripped_eh_frame)
{
	char *path;
	struct elfsyms_image img;

	build_fixtures();
	path = xasprintf("%s/prog.strip", dir);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_ptr_nonnull(img.cfi_symtab);
	ck_assert_uint_ge(check_against_readelf(path, &img), 4);
	check_one_per_function(&img);
	elfsyms_release(&img);
	free(path);
}
END_TEST

START_TEST(test_stripped_debug_frame)
{
	char *path;
	struct elfsyms_image img;

	build_fixtures();
	path = xasprintf("%s/dprog.strip", dir);
	ck_assert_int_eq(testutil_sh("readelf -S '%s' | grep -q '\\.debug_frame'", path), 0);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_uint_ge(check_against_readelf(path, &img), 1);
	/* main and the statics live only in .debug_frame here. */
	{
		char *full = xasprintf("%s/dprog", dir);
		struct elfsyms_image u;
		size_t i, found = 0;

		ck_assert_int_eq(elfsyms_load(full, &u), 0);
		for (i = 0; i < symtab_count(u.symtab); i++) {
			const struct symbol *s = symtab_get(u.symtab, i), *c;

			if (strncmp(s->name, "spin_", 5) != 0 && strcmp(s->name, "main") != 0)
				continue;
			c = symtab_lookup(img.cfi_symtab, s->start);
			ck_assert_msg(c && c->start == s->start, "%s not found", s->name);
			found++;
		}
		ck_assert_uint_ge(found, 3);
		elfsyms_release(&u);
		free(full);
	}
	elfsyms_release(&img);
	free(path);
}
END_TEST

/* libdw's reading of each FDE gives the same bounds. */
START_TEST(test_libdw_agrees)
{
	char *path;
	struct elfsyms_image img;
	Dwarf_CFI *cfi;
	size_t i;
	Elf *elf;
	int fd;

	build_fixtures();
	path = xasprintf("%s/prog.strip", dir);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	cfi = dwarf_getcfi_elf(elf);
	ck_assert_ptr_nonnull(cfi);
	for (i = 0; i < symtab_count(img.cfi_symtab); i++) {
		const struct symbol *s = symtab_get(img.cfi_symtab, i);
		Dwarf_Addr start, end = s->start;

		/* dwarf_frame_info gives the range of one row of the FDE's
		 * table (up to the next push or pop), not the FDE's: the rows
		 * from the start chain up to our end exactly. */
		do {
			Dwarf_Frame *frame = NULL;

			ck_assert_int_eq(dwarf_cfi_addrframe(cfi, end, &frame), 0);
			ck_assert_int_ge(dwarf_frame_info(frame, &start, &end, NULL), 0);
			free(frame);
			ck_assert_uint_le(end, s->end);
		} while (end < s->end);
		ck_assert_uint_eq(end, s->end);
		{
			Dwarf_Frame *frame = NULL;

			ck_assert_int_eq(dwarf_cfi_addrframe(cfi, s->start, &frame), 0);
			ck_assert_int_ge(dwarf_frame_info(frame, &start, &end, NULL), 0);
			free(frame);
			ck_assert_uint_eq(start, s->start);
		}
	}
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	elfsyms_release(&img);
	free(path);
}
END_TEST

/* A debug file merged later: its names replace the synthetic ones. */
START_TEST(test_debug_file_replaces)
{
	char *path, *dbg;
	struct elfsyms_image img;
	size_t before, i;

	build_fixtures();
	path = xasprintf("%s/prog.strip", dir);
	dbg = xasprintf("%s/prog.debug", dir);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	before = symtab_count(img.cfi_symtab);
	ck_assert_int_eq(elfsyms_merge_debug(&img, dbg), 0);
	for (i = 0; i < 4; i++) {
		struct fde f = named(statics[i]);
		const struct symbol *s = symtab_lookup(img.symtab, f.start);

		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(strncmp(s->name, statics[i], strlen(statics[i])), 0);
		ck_assert_ptr_null(symtab_lookup(img.cfi_symtab, f.start));
	}
	ck_assert_uint_lt(img.cfi_symtab ? symtab_count(img.cfi_symtab) : 0, before);
	elfsyms_release(&img);
	free(path);
	free(dbg);
}
END_TEST

/* spin_x's FDE in .debug_frame and its bounds in mixed, by readelf. */
static struct fde mixed_spin_x(void)
{
	char *path = xasprintf("%s/mixed", dir);
	struct elfsyms_image img;
	const struct symbol *s = NULL;
	struct fde *f, out = { 0, 0 };
	size_t i, n;

	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	for (i = 0; i < symtab_count(img.symtab) && !s; i++)
		if (!strcmp(symtab_get(img.symtab, i)->name, "spin_x"))
			s = symtab_get(img.symtab, i);
	ck_assert_ptr_nonnull(s);
	f = readelf_fdes(path, &n);
	ck_assert_ptr_nonnull(fde_at(f, n, s->start));
	out = *fde_at(f, n, s->start);
	free(f);
	elfsyms_release(&img);
	free(path);
	/* Only in .debug_frame: the stripped file has no CFI for it. */
	path = xasprintf("%s/mixed.strip", dir);
	f = readelf_fdes(path, &n);
	ck_assert_ptr_null(fde_at(f, n, out.start));
	free(f);
	free(path);
	return out;
}

/* A function whose FDE only a debug file's .debug_frame has: sub_<hex>
 * (its FDE's bounds) when the debug file has no symbol for it, even one
 * with no .symtab at all; named by the debug file that has its symbol. */
START_TEST(test_debug_file_debug_frame)
{
	static const char *const debug[] = { "mixed.nox.debug", "mixed.nosym.debug",
					     "mixed.debug" };
	struct fde x;
	size_t k;

	build_fixtures();
	x = mixed_spin_x();
	for (k = 0; k < 3; k++) {
		char *path = xasprintf("%s/mixed.strip", dir), *dbg = xasprintf("%s/%s", dir, debug[k]);
		struct elfsyms_image img;
		const struct symbol *c, *s;
		char want[32];

		ck_assert_int_eq(elfsyms_load(path, &img), 0);
		ck_assert_ptr_null(img.cfi_symtab ? symtab_lookup(img.cfi_symtab, x.start) : NULL);
		ck_assert_int_eq(elfsyms_merge_debug(&img, dbg), 0);
		c = img.cfi_symtab ? symtab_lookup(img.cfi_symtab, x.start) : NULL;
		s = symtab_lookup(img.symtab, x.start);
		if (k < 2) {
			snprintf(want, sizeof(want), "sub_%" PRIx64, x.start);
			ck_assert_msg(c != NULL, "%s: no CFI function for spin_x", debug[k]);
			ck_assert_str_eq(c->name, want);
			ck_assert_uint_eq(c->start, x.start);
			ck_assert_uint_eq(c->end, x.end);
			ck_assert_ptr_null(s);
		} else {
			ck_assert_ptr_null(c);
			ck_assert_ptr_nonnull(s);
			ck_assert_str_eq(s->name, "spin_x");
		}
		/* main has its symbol everywhere but in mixed.nosym.debug,
		 * where it is its .eh_frame FDE. */
		elfsyms_release(&img);
		free(path);
		free(dbg);
	}
}
END_TEST

/* ---- crafted sections ---- */

struct got {
	struct fde v[64];
	size_t n;
};

static void collect(uint64_t start, uint64_t end, void *arg)
{
	struct got *g = arg;

	ck_assert_uint_gt(end, start);
	if (g->n < 64) {
		g->v[g->n].start = start;
		g->v[g->n].end = end;
	}
	g->n++;
}

struct buf {
	uint8_t b[256];
	size_t n;
	bool msb;
};

static void put(struct buf *b, uint64_t v, unsigned size)
{
	unsigned i;

	/* Wider than 8: zeros. */
	for (i = 0; i < size; i++) {
		unsigned at = b->msb ? size - 1 - i : i;

		b->b[b->n + i] = at < 8 ? (uint8_t)(v >> (8 * at)) : 0;
	}
	b->n += size;
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/* An .eh_frame CIE "zR" with FDE encoding enc, at b's end; returns where. */
static size_t put_cie(struct buf *b, uint8_t enc)
{
	size_t at = b->n;
	/* version 1, "zR", code 1, data -8, ra 16, aug length 1, enc */
	const uint8_t body[] = { 1, 'z', 'R', 0, 1, 0x78, 16, 1, enc, 0, 0, 0 };

	put(b, 4 + sizeof(body), 4);
	put(b, 0, 4);
	put_bytes(b, body, sizeof(body));
	return at;
}

/* An FDE with a 4-byte pc_begin and range, pointing back to the CIE at cie. */
static void put_fde(struct buf *b, size_t cie, uint32_t begin, uint32_t range)
{
	put(b, 4 + 4 + 4 + 1 + 3, 4);
	put(b, b->n - cie, 4);
	put(b, begin, 4);
	put(b, range, 4);
	put(b, 0, 4);   /* no augmentation data, padding */
}

START_TEST(test_crafted_eh_frame)
{
	struct buf b = { .n = 0 };
	struct cfi_section sec = { .addr = 0x4000, .eh = true, .addr_size = 8 };
	struct got g = { .n = 0 };
	size_t cie;

	for (int msb = 0; msb < 2; msb++) {
		memset(&b, 0, sizeof(b));
		b.msb = msb;
		cie = put_cie(&b, 0x1b);              /* pcrel | sdata4 */
		/* pc_begin field at 0x4000 + b.n + 8: -0x3000 from there. */
		put_fde(&b, cie, (uint32_t)-0x3000, 0x40);
		put_fde(&b, cie, (uint32_t)0x10, 0);  /* empty: skipped */
		put(&b, 0, 4);                         /* terminator */
		put_fde(&b, cie, 0, 0x10);             /* past it: not read */
		sec.buf = b.b;
		sec.size = b.n;
		sec.msb = msb;
		g.n = 0;
		ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 1);
		ck_assert_uint_eq(g.v[0].start, 0x4000 + 20 + 8 - 0x3000);
		ck_assert_uint_eq(g.v[0].end, g.v[0].start + 0x40);
	}
	/* An absolute udata4 encoding, 32-bit, and a CIE pointer that points
	 * before the section: that FDE is skipped. */
	memset(&b, 0, sizeof(b));
	cie = put_cie(&b, 0x03);
	put_fde(&b, cie, 0x1000, 0x20);
	put(&b, 16, 4);
	put(&b, 0x7fffffff, 4);                 /* CIE pointer far back */
	put(&b, 0, 12);
	sec = (struct cfi_section){ .buf = b.b, .size = b.n, .eh = true, .addr_size = 4 };
	g.n = 0;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 1);
	ck_assert_uint_eq(g.v[0].start, 0x1000);
	ck_assert_uint_eq(g.v[0].end, 0x1020);
	/* Encodings that cannot give a function start: indirect, datarel,
	 * omit, an unknown format. */
	for (size_t k = 0; k < 4; k++) {
		const uint8_t bad[] = { 0x9b, 0x33, 0xff, 0x0e };

		memset(&b, 0, sizeof(b));
		cie = put_cie(&b, bad[k]);
		put_fde(&b, cie, 0x1000, 0x20);
		sec = (struct cfi_section){ .buf = b.b, .size = b.n, .eh = true, .addr_size = 8 };
		ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);
	}
}
END_TEST

START_TEST(test_crafted_debug_frame)
{
	struct buf b = { .n = 0 };
	struct cfi_section sec = { .eh = false, .addr_size = 8 };
	struct got g = { .n = 0 };
	/* version 4, "", address size 8, segment 0, code 1, data -8, ra 16 */
	const uint8_t cie[] = { 4, 0, 8, 0, 1, 0x78, 16, 0, 0, 0, 0, 0 };

	put(&b, 4 + sizeof(cie), 4);
	put(&b, 0xffffffffu, 4);
	put_bytes(&b, cie, sizeof(cie));
	put(&b, 4 + 16, 4);
	put(&b, 0, 4);                          /* the CIE at offset 0 */
	put(&b, 0x401000, 8);
	put(&b, 0x80, 8);
	/* 64-bit DWARF: 0xffffffff, then the length in 8 bytes. */
	put(&b, 0xffffffffu, 4);
	put(&b, 8 + 16, 8);
	put(&b, 0, 8);
	put(&b, 0x402000, 8);
	put(&b, 0x10, 8);
	sec.buf = b.b;
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 2);
	ck_assert_uint_eq(g.v[0].start, 0x401000);
	ck_assert_uint_eq(g.v[0].end, 0x401080);
	ck_assert_uint_eq(g.v[1].start, 0x402000);
	ck_assert_uint_eq(g.v[1].end, 0x402010);
}
END_TEST

/* Entries that lie: a length past the end, a CIE with a long run of LEB128
 * continuation bytes, an augmentation string without its NUL, an FDE whose
 * CIE pointer points at itself, a range that wraps. */
START_TEST(test_crafted_hostile)
{
	struct buf b = { .n = 0 };
	struct cfi_section sec = { .eh = true, .addr_size = 8 };
	struct got g = { .n = 0 };
	size_t i;

	put(&b, 0xfffffff0u, 4);
	put(&b, 0, 4);
	sec.buf = b.b;
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);

	memset(&b, 0, sizeof(b));
	put(&b, 4 + 1 + 1 + 40, 4);
	put(&b, 0, 4);
	put(&b, 1, 1);
	put(&b, 0, 1);
	for (i = 0; i < 40; i++)
		put(&b, 0x80, 1);                       /* endless LEB128 */
	put_fde(&b, 0, 0x1000, 0x10);
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);

	memset(&b, 0, sizeof(b));
	put(&b, 4 + 1 + 12, 4);
	put(&b, 0, 4);
	put(&b, 1, 1);
	put_bytes(&b, "zRzRzRzRzRzR", 12);         /* no NUL, too long */
	put_fde(&b, 0, 0x1000, 0x10);
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);

	memset(&b, 0, sizeof(b));
	put(&b, 16, 4);
	put(&b, 4, 4);                              /* points at its own id field - 4 */
	put(&b, 0, 12);
	put(&b, 16, 4);
	put(&b, 0, 4);                              /* a CIE with version 0 */
	put(&b, 0, 12);
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);

	/* An unknown letter before 'R': the encoding is not known. */
	memset(&b, 0, sizeof(b));
	{
		const uint8_t body[] = { 1, 'z', 'X', 'R', 0, 1, 0x78, 16, 2, 0, 0x03, 0 };

		put(&b, 4 + sizeof(body), 4);
		put(&b, 0, 4);
		put_bytes(&b, body, sizeof(body));
	}
	/* 8-byte fields: they would decode as absptr. */
	put(&b, 4 + 16, 4);
	put(&b, b.n, 4);
	put(&b, 0x1000, 8);
	put(&b, 0x10, 8);
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);

	memset(&b, 0, sizeof(b));
	put_cie(&b, 0x04);                           /* udata8, absolute */
	put(&b, 4 + 16, 4);
	put(&b, b.n, 4);
	put(&b, UINT64_MAX - 8, 8);
	put(&b, 0x100, 8);                          /* wraps: skipped */
	sec.size = b.n;
	ck_assert_uint_eq(cfi_walk(&sec, collect, &g), 0);
}
END_TEST

/* The executable sections of path, and its .eh_frame: where it is, and
 * a copy of its bytes (free eh). */
struct layout {
	struct fde text[64];
	size_t ntext;
	uint64_t eh_off, eh_size, eh_addr;
	uint8_t *eh;
};

static void read_layout(const char *path, struct layout *l)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	memset(l, 0, sizeof(*l));
	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if ((sh.sh_flags & SHF_EXECINSTR) && l->ntext < 64) {
			l->text[l->ntext].start = sh.sh_addr;
			l->text[l->ntext++].end = sh.sh_addr + sh.sh_size;
		}
		if (strcmp(name, ".eh_frame") == 0 && !l->eh) {
			Elf_Data *d = elf_rawdata(scn, NULL);

			ck_assert_ptr_nonnull(d);
			l->eh_off = sh.sh_offset;
			l->eh_size = d->d_size;
			l->eh_addr = sh.sh_addr;
			l->eh = xmalloc(d->d_size);
			memcpy(l->eh, d->d_buf, d->d_size);
		}
	}
	elf_end(elf);
	close(fd);
	ck_assert_uint_gt(l->eh_size, 0);
}

/* Every truncation of a real .eh_frame, and many mutations of it, walk
 * within their bytes (ASan in the sanitizer pass) and give ranges only. */
START_TEST(test_truncated_and_mutated)
{
	char *path;
	struct got g;
	struct layout l;
	size_t size, len, full, i;
	uint64_t addr, seed = 0x9e3779b97f4a7c15ULL;
	uint8_t *orig, *copy;

	build_fixtures();
	path = xasprintf("%s/prog.strip", dir);
	read_layout(path, &l);
	orig = l.eh;
	size = l.eh_size;
	addr = l.eh_addr;
	{
		struct cfi_section sec = { orig, size, addr, true, false, 8 };

		g.n = 0;
		full = cfi_walk(&sec, collect, &g);
		ck_assert_uint_ge(full, 4);
	}
	for (len = 0; len <= size; len++) {
		/* A copy of exactly len bytes: ASan sees a read past it. */
		struct cfi_section sec = { NULL, len, addr, true, false, 8 };

		copy = xmalloc(len ? len : 1);
		memcpy(copy, orig, len);
		sec.buf = copy;
		g.n = 0;
		ck_assert_uint_le(cfi_walk(&sec, collect, &g), full);
		free(copy);
	}
	copy = xmalloc(size);
	for (i = 0; i < 20000; i++) {
		struct cfi_section sec = { copy, size, addr, true, (i & 1) != 0, (i & 2) ? 4 : 8 };
		size_t k;

		memcpy(copy, orig, size);
		for (k = 0; k < 1 + i % 4; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			copy[(seed >> 33) % size] = (uint8_t)(seed >> 17);
		}
		g.n = 0;
		ck_assert_uint_le(cfi_walk(&sec, collect, &g), size / 8);
	}
	free(copy);
	free(orig);
	free(path);
}
END_TEST

/* Files whose .eh_frame is garbage still load, and no synthetic function
 * lies outside the code. */
START_TEST(test_garbage_file)
{
	char *path, *src;
	struct elfsyms_image img;
	struct layout l;
	uint64_t seed = 12345;
	uint8_t *junk;
	size_t i, k;
	int round, fd;

	build_fixtures();
	src = xasprintf("%s/prog.strip", dir);
	path = xasprintf("%s/garbage", dir);
	read_layout(src, &l);
	free(l.eh);
	junk = xmalloc(l.eh_size);
	for (round = 0; round < 20; round++) {
		ck_assert_int_eq(testutil_sh("cp '%s' '%s'", src, path), 0);
		for (k = 0; k < l.eh_size; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			junk[k] = (uint8_t)(seed >> 33);
		}
		/* Half the rounds keep the first CIE: the FDEs then decode. */
		k = round & 1 ? 24 : 0;
		fd = open(path, O_WRONLY);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(pwrite(fd, junk + k, l.eh_size - k, (off_t)(l.eh_off + k)),
				 (ssize_t)(l.eh_size - k));
		close(fd);
		ck_assert_int_eq(elfsyms_load(path, &img), 0);
		for (i = 0; img.cfi_symtab && i < symtab_count(img.cfi_symtab); i++) {
			const struct symbol *s = symtab_get(img.cfi_symtab, i);
			bool in = false;

			for (k = 0; k < l.ntext && !in; k++)
				in = s->start >= l.text[k].start && s->end <= l.text[k].end;
			ck_assert_msg(in, "%s outside the code", s->name);
		}
		elfsyms_release(&img);
	}
	free(junk);
	free(src);
	free(path);
}
END_TEST

static Suite *cfi_suite(void)
{
	Suite *s = suite_create("cfi");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stripped_eh_frame);
	tcase_add_test(tc, test_stripped_debug_frame);
	tcase_add_test(tc, test_libdw_agrees);
	tcase_add_test(tc, test_debug_file_replaces);
	tcase_add_test(tc, test_debug_file_debug_frame);
	tcase_add_test(tc, test_crafted_eh_frame);
	tcase_add_test(tc, test_crafted_debug_frame);
	tcase_add_test(tc, test_crafted_hostile);
	tcase_add_test(tc, test_truncated_and_mutated);
	tcase_add_test(tc, test_garbage_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(cfi_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
