/* Unit tests for src/symloader.c: machine_dso_settle waits for the one
 * DSO's job, not for the loader's others nor the kernel's load. */
#include "config.h"

#include "symloader.h"

#include <check.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dso.h"
#include "kernel.h"
#include "kernel-test.h"
#include "machine.h"
#include "testutil.h"
#include "util.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A machine loading symbols on the loader thread, and its kernel's on a
 * thread held in the open of kallsyms (a FIFO nobody has opened to write
 * yet): a job that does not end until kernel_release. */
struct held {
	struct machine *m;
	char *dir, *fifo, *mods;
};

static void kernel_hold(struct held *h)
{
	FILE *f;

	h->m = machine_new();
	h->dir = testutil_tmpdir("symloader");
	h->fifo = xasprintf("%s/kallsyms", h->dir);
	h->mods = xasprintf("%s/modules", h->dir);
	ck_assert_int_eq(mkfifo(h->fifo, 0600), 0);
	f = fopen(h->mods, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ck_assert_int_eq(machine_set_async(h->m, true), 0);
	machine_set_kernel_files(h->m, h->fifo, h->mods);
	ck_assert_int_eq(machine_load_kernel_async(h->m), 0);
	ck_assert(!machine_wait_symbols_for(h->m, 0));
}

static void kernel_release(struct held *h)
{
	FILE *f = fopen(h->fifo, "w");

	ck_assert_ptr_nonnull(f);
	fputs("ffffffff81000000 T _stext\n"
	      "ffffffff81000000 T kfunc_a\n"
	      "ffffffff81001000 T _etext\n", f);
	fclose(f);
	machine_wait_symbols(h->m);
	ck_assert(!machine_kernel_loading(h->m));
	machine_free(h->m);
	unlink(h->fifo);
	unlink(h->mods);
	rmdir(h->dir);
	free(h->fifo);
	free(h->mods);
	free(h->dir);
}

/* The ELF files this process maps (itself first): real DSOs to load. */
struct elf_list {
	char *path[32];
	size_t n;
};

static int elf_list_add(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct elf_list *l = arg;
	char buf[4096];
	ssize_t len;

	(void)size;
	if (l->n == ARRAY_SIZE(l->path))
		return 1;
	if (!info->dlpi_name[0]) {
		len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
		if (len <= 0)
			return 0;
		buf[len] = '\0';
		l->path[l->n++] = xstrdup(buf);
	} else if (info->dlpi_name[0] == '/' && access(info->dlpi_name, R_OK) == 0) {
		l->path[l->n++] = xstrdup(info->dlpi_name);
	}
	return 0;
}

static void elf_list_free(struct elf_list *l)
{
	while (l->n)
		free(l->path[--l->n]);
}

/* The kernel's load held: settling a DSO returns once that DSO is in,
 * not at the limit (the wait for the whole loader to be idle did). */
START_TEST(test_settle_not_held_by_others)
{
	struct held h;
	struct elf_list el = { .n = 0 };
	struct dso *a;
	double t0, took;

	dl_iterate_phdr(elf_list_add, &el);
	ck_assert_uint_ge(el.n, 1);
	kernel_hold(&h);
	a = machine_dso_get(h.m, el.path[0], DSO_USER);
	ck_assert_ptr_null(dso_sym_path(a));
	t0 = now_ms();
	ck_assert(machine_dso_settle(h.m, a, 3000));
	took = now_ms() - t0;
	ck_assert(!machine_dso_pending(a));
	ck_assert_ptr_nonnull(dso_sym_path(a));
	ck_assert_msg(took < 1500, "settle took %.0f ms", took);
	/* The kernel's load was held all along. */
	ck_assert(machine_kernel_loading(h.m));
	ck_assert(!machine_wait_symbols_for(h.m, 0));
	kernel_release(&h);
	elf_list_free(&el);
}
END_TEST

/* Jobs queued before d are taken first: settling d still waits for d
 * (loaded, not pending), however many are ahead of it. */
START_TEST(test_settle_waits_for_its_job)
{
	struct held h;
	struct elf_list el = { .n = 0 };
	struct dso *d = NULL;
	size_t i;

	dl_iterate_phdr(elf_list_add, &el);
	ck_assert_uint_ge(el.n, 2);
	kernel_hold(&h);
	for (i = 0; i < el.n; i++) {
		d = machine_dso_get(h.m, el.path[i], DSO_USER);
		/* 0 ms: queued, not waited for. */
		if (i + 1 < el.n)
			machine_dso_settle(h.m, d, 0);
	}
	ck_assert_uint_eq(machine_symbols_ticket(h.m), el.n - 1);
	ck_assert(machine_dso_settle(h.m, d, 10000));
	ck_assert(!machine_dso_pending(d));
	ck_assert_ptr_nonnull(dso_sym_path(d));
	ck_assert_str_eq(dso_sym_path(d), el.path[el.n - 1]);
	/* In order: every job before it is done too. */
	ck_assert(machine_symbols_done(h.m, el.n));
	ck_assert(!machine_wait_symbols_for(h.m, 0));
	kernel_release(&h);
	elf_list_free(&el);
}
END_TEST

/* Without the loader thread, settling loads d there and then. */
START_TEST(test_settle_sync)
{
	struct machine *m = machine_new();
	struct elf_list el = { .n = 0 };
	struct dso *d;

	dl_iterate_phdr(elf_list_add, &el);
	ck_assert_uint_ge(el.n, 1);
	d = machine_dso_get(m, el.path[0], DSO_USER);
	ck_assert(machine_dso_settle(m, d, 0));
	ck_assert_ptr_nonnull(dso_sym_path(d));
	ck_assert_uint_eq(machine_symbols_ticket(m), 0);
	machine_free(m);
	elf_list_free(&el);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("symloader");
	TCase *tc = tcase_create("symloader");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_settle_not_held_by_others);
	tcase_add_test(tc, test_settle_waits_for_its_job);
	tcase_add_test(tc, test_settle_sync);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
