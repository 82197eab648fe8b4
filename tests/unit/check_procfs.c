/* Unit tests for src/procfs.c: the /proc/PID/maps and stat parsers, and
 * PROCMAP_QUERY against the text. */
#include "config.h"

#include "procfs.h"

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
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "vdso.h"

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


static Suite *suite(void)
{
	Suite *s = suite_create("procfs");
	TCase *tc;

	tc = tcase_create("procfs");
	tcase_add_test(tc, test_procfs_parse_maps_line);
	tcase_add_test(tc, test_procfs_parse_stat);
	tcase_add_test(tc, test_procfs_query_matches_text);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
