/* Unit tests for annotate on JIT code (a perf-PID.map function): its bytes
 * read from this process's memory; a function running past its mapping
 * (cut, with a note), one over the 1 MiB bound, undecodable bytes; and the
 * refusals: a recording's pid, a process that has exited. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "annotate.h"
#include "dso.h"
#include "elfsyms.h"
#include "machine.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"

/* sub $1,%rdi; jnz -6; (0x06: invalid in 64-bit mode); ret */
static const uint8_t jit_code[] = { 0x48, 0x83, 0xef, 0x01, 0x75, 0xfa, 0x06, 0xc3 };

/* The report of one function sym of the perf map of pid, sampled once at
 * its start. */
static struct annotate_report *report_of(struct machine *m, int pid, struct symbol *sym, bool live)
{
	const char *specs[] = { sym->name };
	char *path = xasprintf("/tmp/perf-%d.map", pid);
	struct dso *dso = machine_dso_get(m, path, DSO_ANON);
	struct annotate *a = annotate_new(specs, 1, false);
	struct annotate_report *r;

	free(path);
	annotate_set_live(a, live);
	annotate_sample(a, dso, sym, sym->start, 1);
	r = annotate_report(a);
	annotate_free(a);
	ck_assert_uint_eq(r->nr_fns, 1);
	return r;
}

START_TEST(test_live_bytes)
{
	struct machine *m = machine_new();
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	struct symbol sym;
	struct annotate_report *r;
	const struct annotate_fn *f;
	size_t i, off = 0;

	ck_assert(p != MAP_FAILED);
	memcpy(p + 0x40, jit_code, sizeof(jit_code));
	ck_assert_int_eq(mprotect(p, (size_t)page, PROT_READ | PROT_EXEC), 0);
	sym = (struct symbol){ (uintptr_t)p + 0x40, (uintptr_t)p + 0x40 + sizeof(jit_code),
			       "jit_fn" };
	r = report_of(m, (int)getpid(), &sym, true);
	f = &r->fns[0];
#ifdef HAVE_CAPSTONE
	ck_assert_ptr_null(f->note);
#else
	ck_assert_ptr_nonnull(strstr(f->note, "no disassembly: built without Capstone"));
#endif
	for (i = 0; i < f->nr_lines; i++) {
		ck_assert_uint_eq(f->lines[i].addr, sym.start + off);
		ck_assert(memcmp(f->lines[i].bytes, jit_code + off, f->lines[i].size) == 0);
		off += f->lines[i].size;
	}
	ck_assert_uint_eq(off, sizeof(jit_code));
#ifdef HAVE_CAPSTONE
	ck_assert_uint_eq(f->nr_lines, 4);
	ck_assert_str_eq(f->lines[0].text, "subq $1, %rdi");
	ck_assert_str_eq(f->lines[2].text, ".byte 0x06");
	ck_assert_str_eq(f->lines[3].text, "retq");
#endif
	ck_assert_uint_eq(f->lines[0].samples, 1);
	annotate_report_free(r);

	/* A recording's pid may be another process now: not read. */
	r = report_of(m, (int)getpid(), &sym, false);
	ck_assert_ptr_nonnull(strstr(r->fns[0].note, "live process only"));
	ck_assert_uint_eq(r->fns[0].nr_lines, 1); /* the sampled address alone */
	annotate_report_free(r);
	munmap(p, (size_t)page);
	machine_free(m);
}
END_TEST

/* A symbol longer than its mapping: what is mapped, and a note. */
START_TEST(test_past_mapping)
{
	struct machine *m = machine_new();
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct symbol sym;
	struct annotate_report *r;

	ck_assert(p != MAP_FAILED);
	ck_assert_int_eq(munmap(p + page, (size_t)page), 0);
	sym = (struct symbol){ (uintptr_t)p + page - 64, (uintptr_t)p + page + 4096, "jit_long" };
	r = report_of(m, (int)getpid(), &sym, true);
	ck_assert_ptr_nonnull(r->fns[0].note);
	ck_assert_ptr_nonnull(strstr(r->fns[0].note, "cut: 64 of 4160 bytes in the process's memory"));
	ck_assert_uint_eq(r->fns[0].lines[r->fns[0].nr_lines - 1].addr +
				  r->fns[0].lines[r->fns[0].nr_lines - 1].size,
			  sym.start + 64);
	annotate_report_free(r);

	/* Nothing mapped at all: no bytes, a reason. */
	sym = (struct symbol){ (uintptr_t)p + page, (uintptr_t)p + page + 16, "jit_gone" };
	r = report_of(m, (int)getpid(), &sym, true);
	ck_assert_ptr_nonnull(strstr(r->fns[0].note, "no code bytes: "));
	annotate_report_free(r);
	munmap(p, (size_t)page);
	machine_free(m);
}
END_TEST

/* 2 MiB of code: the first MiB, and the bound in the note. */
START_TEST(test_bound)
{
	struct machine *m = machine_new();
	size_t size = 2u << 20;
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct symbol sym;
	struct annotate_report *r;
	const struct annotate_fn *f;

	ck_assert(p != MAP_FAILED);
	memset(p, 0x90, size); /* nop */
	sym = (struct symbol){ (uintptr_t)p, (uintptr_t)p + size, "jit_huge" };
	r = report_of(m, (int)getpid(), &sym, true);
	f = &r->fns[0];
	ck_assert_ptr_nonnull(f->note);
	ck_assert_ptr_nonnull(
		strstr(f->note, "cut: 1048576 of 2097152 bytes in the process's memory (1 MiB bound)"));
	ck_assert_uint_eq(f->lines[f->nr_lines - 1].addr + f->lines[f->nr_lines - 1].size,
			  sym.start + ELFSYMS_CODE_MAX);
	annotate_report_free(r);
	munmap(p, size);
	machine_free(m);
}
END_TEST

START_TEST(test_exited)
{
	struct symbol sym = { 0x400000, 0x400010, "jit_dead" };
	struct annotate_report *r;
	struct machine *m;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	m = machine_new();
	r = report_of(m, (int)pid, &sym, true);
	ck_assert_ptr_nonnull(strstr(r->fns[0].note, "has exited"));
	annotate_report_free(r);
	machine_free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("annotate_jit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_live_bytes);
	tcase_add_test(tc, test_past_mapping);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_exited);
	suite_add_tcase(s, tc);
	return testutil_run(s) ? 1 : 0;
}
