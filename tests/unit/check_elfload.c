/* Unit tests for the descriptor and memory entry points of
 * symbols/elfsyms.c (elfsyms_load_fd, elfsyms_read_build_id_fd,
 * elfsyms_load_memory) and for symbols/vdso.c. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elfsyms.h"
#include "symtab.h"
#include "testutil.h"
#include "vdso.h"

/* A function of this binary, to look up in its own symbol table. */
__attribute__((noinline)) int elfload_marker(int x);
__attribute__((noinline)) int elfload_marker(int x)
{
	return x * 3 + 1;
}

static bool has_symbol(const struct symtab *st, const char *name)
{
	size_t i;

	for (i = 0; i < symtab_count(st); i++)
		if (strcmp(symtab_get(st, i)->name, name) == 0)
			return true;
	return false;
}

/* The descriptor loader gives what the path loader gives. */
START_TEST(test_load_fd)
{
	struct elfsyms_image a, b;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(elfsyms_load("/proc/self/exe", &a), 0);
	ck_assert_int_eq(elfsyms_load_fd(fd, &b), 0);
	ck_assert_int_eq(a.type, b.type);
	ck_assert_uint_eq(a.nsegs, b.nsegs);
	ck_assert_uint_eq(symtab_count(a.symtab), symtab_count(b.symtab));
	ck_assert(has_symbol(b.symtab, "elfload_marker"));
	ck_assert_uint_eq(a.build_id_size, b.build_id_size);
	ck_assert_int_eq(memcmp(a.build_id, b.build_id, a.build_id_size), 0);
	/* The descriptor stays open and usable. */
	ck_assert_int_eq(elfsyms_read_build_id_fd(fd, id), (int)a.build_id_size);
	ck_assert_int_eq(memcmp(a.build_id, id, a.build_id_size), 0);
	elfsyms_release(&a);
	elfsyms_release(&b);
	close(fd);
}
END_TEST

/* Not a regular file, or not ELF: -ENOEXEC, nothing read. */
START_TEST(test_load_fd_errors)
{
	struct elfsyms_image img;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	char *dir = testutil_tmpdir("elfload");
	char path[512];
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(elfsyms_load_fd(fd, &img), -ENOEXEC);
	ck_assert_int_eq(elfsyms_read_build_id_fd(fd, id), -ENOEXEC);
	close(fd);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(elfsyms_load_fd(fd, &img), -ENOEXEC);
	close(fd);
	snprintf(path, sizeof(path), "%s/text", dir);
	ck_assert_int_eq(testutil_sh("echo not an ELF > %s", path), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(elfsyms_load_fd(fd, &img), -ENOEXEC);
	close(fd);
	testutil_sh("rm -rf %s", dir);
	free(dir);
}
END_TEST

/* The vdso, from memory: its clock_gettime has a name and a size. */
START_TEST(test_vdso_memory)
{
	const void *image;
	size_t size, map_size;
	struct elfsyms_image img;
	const struct symbol *s = NULL;
	struct timespec ts;
	size_t i;

	if (vdso_self(&image, &size, &map_size) == -ENOENT) {
		fprintf(stderr, "SKIP: test_vdso_memory: no vdso\n");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ck_assert_int_eq(vdso_self(&image, &size, &map_size), 0);
	ck_assert_uint_ge(size, 512);
	ck_assert_uint_ge(map_size, size);
	ck_assert_uint_eq(map_size % (size_t)sysconf(_SC_PAGESIZE), 0);
	ck_assert_int_eq(elfsyms_load_memory(image, size, &img), 0);
	ck_assert_int_eq(img.type, ET_DYN);
	for (i = 0; i < symtab_count(img.symtab); i++) {
		const struct symbol *t = symtab_get(img.symtab, i);

		if (strstr(t->name, "clock_gettime") && !strstr(t->name, "64"))
			s = t;
	}
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_gt(s->end, s->start);
	ck_assert_uint_lt(s->end, map_size);
	ck_assert_ptr_eq(symtab_lookup(img.symtab, s->start), s);
	elfsyms_release(&img);
	/* A truncated image is refused (headers out of range), not read
	 * past its end. */
	ck_assert_int_ne(elfsyms_load_memory(image, 16, &img), 0);
	ck_assert_int_eq(elfsyms_load_memory(image, 0, &img), -ENOEXEC);
	ck_assert_int_eq(elfsyms_load_memory("garbage, not ELF", 16, &img), -ENOEXEC);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("elfload");
	TCase *tc = tcase_create("entry");

	tcase_add_test(tc, test_load_fd);
	tcase_add_test(tc, test_load_fd_errors);
	tcase_add_test(tc, test_vdso_memory);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
