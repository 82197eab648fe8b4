/* Unit tests for symbols/elfsyms.c on small programs built with cc at test
 * time, checked against what nm and readelf say about the same files. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "nsopen.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

/* Built once, in the parent, by build_fixtures (an unchecked fixture). */
static char *dir;
static pid_t builder;
static bool have_lld, have_m32;

static const char prog_src[] =
	"#include <stdio.h>\n"
	"int data_object[64] = { 1, 2, 3 };\n"
	"static __attribute__((noinline)) int gamma_local(int x)\n"
	"{\n"
	"	return data_object[x & 63] * 5 + x;\n"
	"}\n"
	"__attribute__((noinline)) int alpha_func(int x)\n"
	"{\n"
	"	int i, s = 0;\n"
	"	for (i = 0; i < x * 10; i++)\n"
	"		s += data_object[i % 64] * i + gamma_local(i);\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline)) int beta_func(int x)\n"
	"{\n"
	"	return alpha_func(x) * 7 + x;\n"
	"}\n"
	"#ifndef NO_MAIN\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	printf(\"%d\\n\", beta_func(argc));\n"
	"	return 0;\n"
	"}\n"
	"#endif\n";

#define BUILD_ID_HEX "0123456789abcdef0123456789abcdef01234567"
#define MD5_ID_HEX "00112233445566778899aabbccddeeff"

static char *fixture(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void remove_fixtures(void)
{
	/* Forked test children run atexit handlers too: only the parent
	 * that built the directory removes it. */
	if (!dir || getpid() != builder)
		return;
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
	dir = NULL;
}

/* An unchecked fixture of every TCase, run in the parent: builds once. */
static void build_fixtures(void)
{
	char *src;
	FILE *f;

	if (dir)
		return;
	dir = testutil_tmpdir("check_elfsyms");
	builder = getpid();
	atexit(remove_fixtures);
	src = fixture("prog.c");
	f = fopen(src, "w");
	if (!f)
		abort();
	fputs(prog_src, f);
	fclose(f);
	free(src);
	/* A call through the PLT, for the func@plt names. */
	src = fixture("plt.c");
	f = fopen(src, "w");
	if (!f)
		abort();
	fputs("#include <stdio.h>\nint main(void)\n{\n\tputs(\"x\");\n\treturn 0;\n}\n", f);
	fclose(f);
	free(src);

	/* The compiles run side by side (one shell waits for them all). */
#define CC(out, flags) "cc -O0 -g0 -o " out " prog.c " flags " 2>/dev/null & p=\"$p $!\"; "
	if (testutil_sh("cd '%s' && p=; "
			CC("pie", "-fPIE -pie") CC("nopie", "-no-pie -fno-pie")
			CC("lib.so", "-DNO_MAIN -shared -fPIC")
			CC("dynfull", "-fPIE -pie -rdynamic")
			CC("bid", "-Wl,--build-id=0x" BUILD_ID_HEX)
			CC("sha1", "-Wl,--build-id=sha1")
			CC("nobid", "-Wl,--build-id=none")
			CC("md5", "-Wl,--build-id=0x" MD5_ID_HEX)
			CC("sect.so", "-DNO_MAIN -shared -fPIC -Wl,-z,separate-code "
			   "-Wl,--section-start=.text=0x5000")
			CC("prog.o", "-c")
			"cc -O0 -fPIE -pie -o plt plt.c 2>/dev/null & p=\"$p $!\"; "
			"st=0; for j in $p; do wait $j || st=1; done; [ $st = 0 ] && "
			"strip -o dyn dynfull && cp bid nosect && "
			"echo 'not an elf file' > text && : > empty", dir)) {
		fprintf(stderr, "check_elfsyms: cannot build the fixtures\n");
		abort();
	}
	/* Optional toolchains: their tests skip when these fail. */
	testutil_sh("cd '%s' && p=; " CC("lld", "-fPIE -pie -fuse-ld=lld")
		    "printf 'int f32(int x){return x*3;}\\n' > m32.c && "
		    "{ cc -m32 -shared -nostdlib -fPIC -o m32.so m32.c 2>/dev/null || rm -f m32.so; }; "
		    "wait", dir);
	have_lld = testutil_sh("test -s '%s/lld'", dir) == 0;
	have_m32 = testutil_sh("test -s '%s/m32.so'", dir) == 0;
#undef CC
}

/* Address and size of a symbol from nm (-D for .dynsym). */
static bool nm_symbol(const char *path, bool dynamic, const char *name,
		      uint64_t *addr, uint64_t *size)
{
	char *cmd = xasprintf("nm -S --defined-only %s '%s' 2>/dev/null", dynamic ? "-D" : "", path);
	FILE *p = popen(cmd, "r");
	char line[512], sym[256], type;
	unsigned long long a, s;
	bool found = false;

	free(cmd);
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) == 4 &&
		    strcmp(sym, name) == 0) {
			*addr = a;
			*size = s;
			found = true;
		}
	}
	pclose(p);
	return found;
}

struct load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

/* The PT_LOAD rows of `readelf -lW`:
 *   LOAD 0x001000 0x0000000000401000 0x0000000000401000 0x0001c5 0x0001c5 R E 0x1000 */
static size_t readelf_loads(const char *path, struct load *loads, size_t max)
{
	char *cmd = xasprintf("readelf -lW '%s'", path);
	FILE *p = popen(cmd, "r");
	unsigned long long off, va, pa, fs, ms;
	char line[512];
	size_t n = 0;
	int pos;

	free(cmd);
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		char *align;

		if (sscanf(line, " LOAD %llx %llx %llx %llx %llx%n",
			   &off, &va, &pa, &fs, &ms, &pos) != 5)
			continue;
		/* The flags sit between memsz and the alignment. */
		align = strstr(line + pos, "0x");
		ck_assert_ptr_nonnull(align);
		*align = '\0';
		if (n < max) {
			loads[n].offset = off;
			loads[n].vaddr = va;
			loads[n].filesz = fs;
			loads[n].memsz = ms;
			loads[n].exec = strchr(line + pos, 'E') != NULL;
			n++;
		}
	}
	pclose(p);
	return n;
}

/* The file offset of vaddr according to readelf's program headers. */
static bool vaddr_to_offset(const struct load *loads, size_t n, uint64_t vaddr,
			    uint64_t *off)
{
	for (size_t i = 0; i < n; i++)
		if (vaddr >= loads[i].vaddr && vaddr - loads[i].vaddr < loads[i].filesz) {
			*off = vaddr - loads[i].vaddr + loads[i].offset;
			return true;
		}
	return false;
}

/* Functions resolve at their nm address, mid-function and not past their
 * end; data gives NULL; offsets map back through the PT_LOADs. */
static void check_image(const char *name, int type, bool dynamic)
{
	static const char *const funcs[] = { "alpha_func", "beta_func" };
	char *path = fixture(name);
	struct elfsyms_image img;
	struct load loads[16];
	size_t nloads, i;
	uint64_t addr, size, off, va;
	int err;

	err = elfsyms_load(path, &img);
	ck_assert_int_eq(err, 0);
	ck_assert_int_eq(img.type, type);
	ck_assert_int_eq(img.machine, EM_X86_64);
	ck_assert_ptr_nonnull(img.symtab);
	ck_assert(img.from_dynsym == dynamic);

	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		const struct symbol *s;

		ck_assert_msg(nm_symbol(path, dynamic, funcs[i], &addr, &size),
			      "nm: no %s in %s", funcs[i], name);
		ck_assert_uint_gt(size, 2);
		s = symtab_lookup(img.symtab, addr);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->name, funcs[i]);
		ck_assert_uint_eq(s->start, addr);
		ck_assert_uint_eq(s->end, addr + size);
		s = symtab_lookup(img.symtab, addr + size / 2);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->name, funcs[i]);
		s = symtab_lookup(img.symtab, addr + size - 1);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->name, funcs[i]);
		s = symtab_lookup(img.symtab, addr + size);
		ck_assert(s == NULL || strcmp(s->name, funcs[i]) != 0);
	}

	/* A data object is in no function. */
	ck_assert(nm_symbol(path, false, "data_object", &addr, &size) ||
		  nm_symbol(path, true, "data_object", &addr, &size));
	ck_assert_ptr_null(symtab_lookup(img.symtab, addr));
	ck_assert_ptr_null(symtab_lookup(img.symtab, addr + size - 1));

	/* The local function: in .symtab, absent from .dynsym, and then its
	 * address must not resolve to the function before it. */
	if (!dynamic) {
		ck_assert(nm_symbol(path, false, "gamma_local", &addr, &size));
		ck_assert_ptr_nonnull(symtab_lookup(img.symtab, addr + 1));
		ck_assert_str_eq(symtab_lookup(img.symtab, addr + 1)->name, "gamma_local");
	}

	/* Segments as readelf sees them, and offsets mapped back. */
	nloads = readelf_loads(path, loads, ARRAY_SIZE(loads));
	ck_assert_uint_gt(nloads, 0);
	ck_assert_uint_eq(img.nsegs, nloads);
	for (i = 0; i < nloads; i++) {
		ck_assert_uint_eq(img.segs[i].offset, loads[i].offset);
		ck_assert_uint_eq(img.segs[i].vaddr, loads[i].vaddr);
		ck_assert_uint_eq(img.segs[i].filesz, loads[i].filesz);
		ck_assert_uint_eq(img.segs[i].memsz, loads[i].memsz);
		ck_assert(!!(img.segs[i].flags & PF_X) == loads[i].exec);
		if (loads[i].filesz == 0)
			continue;
		off = loads[i].offset + loads[i].filesz - 1;
		ck_assert_int_eq(elfsyms_offset_to_vaddr(&img, off, &va), 0);
		ck_assert_uint_eq(va, loads[i].vaddr + loads[i].filesz - 1);
	}
	for (i = 0; i < ARRAY_SIZE(funcs); i++) {
		const struct symbol *s;

		ck_assert(nm_symbol(path, dynamic, funcs[i], &addr, &size));
		ck_assert(vaddr_to_offset(loads, nloads, addr + 3, &off));
		ck_assert_int_eq(elfsyms_offset_to_vaddr(&img, off, &va), 0);
		ck_assert_uint_eq(va, addr + 3);
		s = symtab_lookup(img.symtab, va);
		ck_assert_ptr_nonnull(s);
		ck_assert_str_eq(s->name, funcs[i]);
	}
	ck_assert_int_eq(elfsyms_offset_to_vaddr(&img, UINT64_MAX / 2, &va), -ENOENT);

	elfsyms_release(&img);
	free(path);
}

START_TEST(test_pie)
{
	check_image("pie", ET_DYN, false);
}
END_TEST

START_TEST(test_nopie)
{
	check_image("nopie", ET_EXEC, false);
}
END_TEST

START_TEST(test_shared)
{
	check_image("lib.so", ET_DYN, false);
}
END_TEST

START_TEST(test_dynsym_only)
{
	char *path = fixture("dyn");
	struct elfsyms_image img;
	uint64_t addr, size;
	char *sym_path = fixture("dynfull");

	check_image("dyn", ET_DYN, true);

	/* gamma_local is only in .symtab: it was stripped, and the lookup
	 * must not answer alpha_func or beta_func instead. */
	ck_assert(nm_symbol(sym_path, false, "gamma_local", &addr, &size));
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert(img.from_dynsym);
	ck_assert_ptr_null(symtab_lookup(img.symtab, addr + 1));
	elfsyms_release(&img);
	free(sym_path);
	free(path);
}
END_TEST

/* -s daddr_sym's table: the data objects, with nm's address and size, and
 * no functions; from .dynsym when the file has no .symtab. */
START_TEST(test_objects)
{
	static const char *const files[] = { "pie", "nopie", "lib.so", "dyn" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = fixture(files[i]);
		struct symtab *st;
		const struct symbol *sym;
		uint64_t addr, size, faddr, fsize;

		ck_assert(nm_symbol(path, i == 3, "data_object", &addr, &size));
		ck_assert_uint_eq(size, 256);
		ck_assert_int_eq(elfsyms_load_objects(path, EM_X86_64, &st), 0);
		sym = symtab_lookup(st, addr + 255);
		ck_assert_ptr_nonnull(sym);
		ck_assert_str_eq(sym->name, "data_object");
		ck_assert_uint_eq(sym->start, addr);
		sym = symtab_lookup(st, addr + 256);
		ck_assert(!sym || strcmp(sym->name, "data_object") != 0);
		ck_assert(nm_symbol(path, i == 3, "alpha_func", &faddr, &fsize));
		ck_assert_ptr_null(symtab_lookup(st, faddr));
		symtab_free(st);
		ck_assert_int_eq(elfsyms_load_objects(path, EM_ALPHA, &st), -ENOEXEC);
		ck_assert_ptr_null(st);
		free(path);
	}
}
END_TEST

/* A data map's offset to its address: the RELRO page of the writable
 * segment holds the end of the read-only one before it in the file, and
 * .bss follows the file bytes. */
START_TEST(test_data_offset)
{
	struct elfsyms_segment segs[] = {
		{ 0x0, 0x0, 0x5e0, 0x5e0, PF_R },
		{ 0x1000, 0x1000, 0x151, 0x151, PF_R | PF_X },
		{ 0x2000, 0x2000, 0x0d0, 0x0d0, PF_R },
		{ 0x3e00, 0x2e00, 0x640, 0x6e8, PF_R | PF_W }, /* vaddr, offset, ... */
	};
	struct elfsyms_image img = { .segs = segs, .nsegs = ARRAY_SIZE(segs) };
	uint64_t v = 0;

	/* .data and .bss in the writable map (pgoff 0x2000) */
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x2e20, true, &v), 0);
	ck_assert_uint_eq(v, 0x3e20);
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x3480, true, &v), 0);
	ck_assert_uint_eq(v, 0x4480);
	/* the same page, read-only: .rodata's */
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x2010, false, &v), 0);
	ck_assert_uint_eq(v, 0x2010);
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x2010, true, &v), 0);
	ck_assert_uint_eq(v, 0x3010);
	/* text read as data, and past every segment */
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x1040, false, &v), 0);
	ck_assert_uint_eq(v, 0x1040);
	ck_assert_int_eq(elfsyms_data_offset_to_vaddr(&img, 0x4000, true, &v), -ENOENT);
}
END_TEST

/* The PT_LOADs of --section-start put .text in a second executable segment
 * whose p_vaddr - p_offset differs from the first one. */
START_TEST(test_section_start)
{
	struct elfsyms_image img;
	char *path = fixture("sect.so");
	uint64_t addr, size, va;
	size_t i, nexec = 0;
	bool shifted = false;

	check_image("sect.so", ET_DYN, false);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	for (i = 0; i < img.nsegs; i++) {
		nexec += !!(img.segs[i].flags & PF_X);
		shifted |= img.segs[i].vaddr != img.segs[i].offset;
	}
	ck_assert_uint_ge(nexec, 2);
	ck_assert(shifted);
	ck_assert(nm_symbol(path, false, "alpha_func", &addr, &size));
	ck_assert_uint_ge(addr, 0x5000);
	for (i = 0; i < img.nsegs; i++) {
		const struct elfsyms_segment *seg = &img.segs[i];
		uint64_t off = addr - seg->vaddr + seg->offset;
		const struct symbol *s;

		if (addr < seg->vaddr || addr >= seg->vaddr + seg->filesz)
			continue;
		ck_assert_uint_ne(off, addr);
		ck_assert_int_eq(elfsyms_offset_to_vaddr(&img, off, &va), 0);
		ck_assert_uint_eq(va, addr);
		/* Taking the file offset for a vaddr would be wrong here. */
		s = symtab_lookup(img.symtab, off);
		ck_assert(s == NULL || strcmp(s->name, "alpha_func") != 0);
	}
	elfsyms_release(&img);
	free(path);
}
END_TEST

/* lld puts the text segment one page above its file offset. */
START_TEST(test_lld_pie)
{
	if (!have_lld) {
		fprintf(stderr, "SKIP: test_lld_pie: cc -fuse-ld=lld failed\n");
		return;
	}
	check_image("lld", ET_DYN, false);
}
END_TEST

START_TEST(test_elf32)
{
	char *path = fixture("m32.so");
	struct elfsyms_image img;
	uint64_t addr, size;
	const struct symbol *s;

	if (!have_m32) {
		fprintf(stderr, "SKIP: test_elf32: cc -m32 failed\n");
		free(path);
		return;
	}
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_int_eq(img.machine, EM_386);
	ck_assert_int_eq(img.type, ET_DYN);
	ck_assert(nm_symbol(path, false, "f32", &addr, &size));
	s = symtab_lookup(img.symtab, addr + size / 2);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "f32");
	ck_assert_uint_eq(s->end, addr + size);
	elfsyms_release(&img);
	free(path);
}
END_TEST

static void hex_to_bytes(const char *hex, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		ck_assert_int_eq(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

START_TEST(test_build_id_explicit)
{
	char *path = fixture("bid");
	uint8_t want[20], id[ELFSYMS_BUILD_ID_MAX];
	struct elfsyms_image img;

	hex_to_bytes(BUILD_ID_HEX, want, sizeof(want));
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_uint_eq(img.build_id_size, 20);
	ck_assert_mem_eq(img.build_id, want, 20);
	elfsyms_release(&img);

	memset(id, 0, sizeof(id));
	ck_assert_int_eq(elfsyms_read_build_id(path, id), 20);
	ck_assert_mem_eq(id, want, 20);
	free(path);
}
END_TEST

START_TEST(test_build_id_sha1)
{
	char *path = fixture("sha1");
	char *cmd = xasprintf("readelf -n '%s'", path);
	char line[256], hex[64] = "";
	uint8_t want[20], id[ELFSYMS_BUILD_ID_MAX];
	FILE *p = popen(cmd, "r");

	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " Build ID: %63s", hex) == 1)
			break;
	pclose(p);
	ck_assert_uint_eq(strlen(hex), 40);
	hex_to_bytes(hex, want, sizeof(want));
	ck_assert_int_eq(elfsyms_read_build_id(path, id), 20);
	ck_assert_mem_eq(id, want, 20);
	free(cmd);
	free(path);
}
END_TEST

/* A recording's 20-byte ID is a 16-byte one padded with zeros: the file
 * matches it, and nothing else (a non-zero pad, a shorter expected ID). */
START_TEST(test_build_id_padded)
{
	char *path = fixture("md5");
	uint8_t want[20] = { 0 };
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	hex_to_bytes(MD5_ID_HEX, want, 16);
	ck_assert(elfsyms_fd_has_build_id(fd, want, 16));
	ck_assert(elfsyms_fd_has_build_id(fd, want, 20));
	ck_assert(!elfsyms_fd_has_build_id(fd, want, 15));
	want[19] = 1;
	ck_assert(!elfsyms_fd_has_build_id(fd, want, 20));
	want[19] = 0;
	want[3] ^= 0xff;
	ck_assert(!elfsyms_fd_has_build_id(fd, want, 20));
	close(fd);
	free(path);
}
END_TEST

START_TEST(test_build_id_none)
{
	char *path = fixture("nobid");
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	struct elfsyms_image img;

	ck_assert_int_eq(elfsyms_read_build_id(path, id), 0);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_uint_eq(img.build_id_size, 0);
	ck_assert_uint_gt(symtab_count(img.symtab), 0);
	elfsyms_release(&img);
	free(path);
}
END_TEST

/* With no section headers the build ID comes from PT_NOTE.  The copy has
 * e_shoff, e_shnum and e_shstrndx zeroed (ELF64 header offsets). */
START_TEST(test_build_id_pt_note)
{
	char *path = fixture("nosect");
	uint8_t want[20], id[ELFSYMS_BUILD_ID_MAX];
	static const uint8_t zero[8];
	struct elfsyms_image img;
	FILE *f = fopen(path, "r+b");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0x28, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(zero, 1, 8, f), 8);
	ck_assert_int_eq(fseek(f, 0x3c, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(zero, 1, 4, f), 4);
	ck_assert_int_eq(fclose(f), 0);

	hex_to_bytes(BUILD_ID_HEX, want, sizeof(want));
	ck_assert_int_eq(elfsyms_read_build_id(path, id), 20);
	ck_assert_mem_eq(id, want, 20);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	ck_assert_uint_eq(img.build_id_size, 20);
	ck_assert_ptr_nonnull(img.symtab);
	ck_assert_uint_eq(symtab_count(img.symtab), 0);
	ck_assert_uint_gt(img.nsegs, 0);
	elfsyms_release(&img);
	free(path);
}
END_TEST

static int load_err(const char *name)
{
	char *path = fixture(name);
	struct elfsyms_image img;
	int err;

	memset(&img, 0xaa, sizeof(img));
	err = elfsyms_load(path, &img);
	if (err == 0)
		elfsyms_release(&img);
	else
		ck_assert_ptr_null(img.symtab);
	free(path);
	return err;
}

START_TEST(test_errors)
{
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	char *path = fixture("does-not-exist");

	ck_assert_int_eq(load_err("text"), -ENOEXEC);
	ck_assert_int_eq(load_err("empty"), -ENOEXEC);
	ck_assert_int_eq(load_err("does-not-exist"), -ENOENT);
	ck_assert_int_eq(load_err("prog.o"), -ENOEXEC);
	ck_assert_int_eq(elfsyms_read_build_id(path, id), -ENOENT);
	free(path);
	path = fixture("text");
	ck_assert_int_eq(elfsyms_read_build_id(path, id), -ENOEXEC);
	free(path);
}
END_TEST

/* The address objdump labels <name>: in path, from its .plt / .plt.sec. */
/* One policy opens the files others name (nsopen_file): the type is
 * checked on an O_PATH descriptor and the same file reopened through
 * /proc/self/fd, never by its name again.  elfsyms had a second policy
 * that, without /proc/self/fd, opened the name again: the checked file
 * could be swapped for a FIFO or a device in between.  Without /proc the
 * load now fails as nsopen_file does; before, it opened the name.  Needs
 * root, for a mount namespace of its own with /proc covered. */
START_TEST(test_no_proc_no_reopen_by_name)
{
	char *path = fixture("pie"), *fifo = fixture("fifo");
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	struct elfsyms_image img;
	int r_open, r_load, r_id;

	/* Before /proc goes: a FIFO is refused without being opened. */
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(load_err("fifo"), -ENOEXEC);
	ck_assert_int_eq(nsopen_file(fifo), -EINVAL);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	elfsyms_release(&img);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("none", "/proc", "tmpfs", 0, NULL) != 0) {
		fprintf(stderr, "SKIP: test_no_proc_no_reopen_by_name: cannot cover /proc "
			"(needs root)\n");
		unlink(fifo);
		free(path);
		free(fifo);
		return;
	}
	r_open = nsopen_file(path);
	r_load = elfsyms_load(path, &img);
	r_id = elfsyms_read_build_id(path, id);
	/* /proc back before any check can end the test: LeakSanitizer reads
	 * /proc/PID/task at exit (the sanitizer build failed here). */
	ck_assert_int_eq(umount("/proc"), 0);
	ck_assert_int_eq(r_open, -ENOENT);
	ck_assert_int_eq(r_load, -ENOENT);
	ck_assert_int_eq(r_id, -ENOENT);
	unlink(fifo);
	free(path);
	free(fifo);
}
END_TEST

static bool objdump_label(const char *path, const char *name, uint64_t *addr)
{
	char *cmd = xasprintf("objdump -d --section=.plt --section=.plt.sec '%s' 2>/dev/null", path);
	char *label = xasprintf("<%s>:", name);
	FILE *p = popen(cmd, "r");
	char line[512];
	unsigned long long a;
	bool found = false;

	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, label) && sscanf(line, "%llx", &a) == 1) {
			*addr = a;
			found = true;
		}
	}
	pclose(p);
	free(label);
	free(cmd);
	return found;
}

/* puts@plt is named where objdump puts it, 16 bytes long. */
static void check_plt(const char *name)
{
	char *path = fixture(name);
	const struct symbol *s;
	struct elfsyms_image img;
	uint64_t addr = 0;

	ck_assert_msg(objdump_label(path, "puts@plt", &addr), "objdump: no puts@plt in %s", name);
	ck_assert_int_eq(elfsyms_load(path, &img), 0);
	s = symtab_lookup(img.symtab, addr);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "puts@plt");
	ck_assert_uint_eq(s->start, addr);
	ck_assert_uint_eq(s->end, addr + 16);
	s = symtab_lookup(img.symtab, addr + 15);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(s->name, "puts@plt");
	/* The real functions are still there. */
	ck_assert_uint_gt(symtab_count(img.symtab), 1);
	elfsyms_release(&img);
	free(path);
}

START_TEST(test_plt)
{
	check_plt("plt");
}
END_TEST

START_TEST(test_plt_sec)
{
	if (testutil_sh("cd '%s' && cc -O0 -fPIE -pie -fcf-protection=full -Wl,-z,ibtplt "
			"-o pltsec plt.c 2>/dev/null && readelf -SW pltsec | grep -q '[.]plt[.]sec'",
			dir)) {
		fprintf(stderr, "SKIP: test_plt_sec: no .plt.sec (cc or ld without IBT)\n");
		return;
	}
	check_plt("pltsec");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("elfsyms");
	TCase *tc;

	tc = tcase_create("symbols");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pie);
	tcase_add_test(tc, test_nopie);
	tcase_add_test(tc, test_shared);
	tcase_add_test(tc, test_dynsym_only);
	tcase_add_test(tc, test_objects);
	tcase_add_test(tc, test_data_offset);
	tcase_add_test(tc, test_elf32);
	tcase_add_test(tc, test_plt);
	tcase_add_test(tc, test_plt_sec);
	suite_add_tcase(s, tc);

	tc = tcase_create("segments");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_section_start);
	tcase_add_test(tc, test_lld_pie);
	suite_add_tcase(s, tc);

	tc = tcase_create("build_id");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_build_id_explicit);
	tcase_add_test(tc, test_build_id_sha1);
	tcase_add_test(tc, test_build_id_none);
	tcase_add_test(tc, test_build_id_padded);
	tcase_add_test(tc, test_build_id_pt_note);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_unchecked_fixture(tc, build_fixtures, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_no_proc_no_reopen_by_name);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
