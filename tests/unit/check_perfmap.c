/* Unit tests for symbols/perfmap.c: the /tmp/perf-PID.map parser (good and
 * bad lines, overlaps) and the loader's ownership and symlink checks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "perfmap.h"
#include "perfmap-test.h"
#include "symtab.h"
#include "testutil.h"

static struct symtab *parse(const char *text)
{
	return perfmap_parse(text, strlen(text));
}

static const char *name_at(const struct symtab *st, uint64_t addr)
{
	const struct symbol *s = symtab_lookup(st, addr);

	return s ? s->name : "-";
}

START_TEST(test_good_lines)
{
	struct symtab *st = parse("1000 10 foo\n"
				  "2000 20 bar baz (int)\n"
				  "7f0000001000 1 LazyCompile:~f /a.js:1\n"
				  "4000 10 crlf\r\n");

	ck_assert_uint_eq(symtab_count(st), 4);
	ck_assert_str_eq(name_at(st, 0x1000), "foo");
	ck_assert_str_eq(name_at(st, 0x100f), "foo");
	ck_assert_str_eq(name_at(st, 0x1010), "-");
	ck_assert_str_eq(name_at(st, 0xfff), "-");
	/* The name is the rest of the line, spaces included. */
	ck_assert_str_eq(name_at(st, 0x201f), "bar baz (int)");
	ck_assert_str_eq(name_at(st, 0x7f0000001000ULL), "LazyCompile:~f /a.js:1");
	ck_assert_str_eq(name_at(st, 0x7f0000001001ULL), "-");
	ck_assert_str_eq(name_at(st, 0x4000), "crlf");
	symtab_free(st);
}
END_TEST

START_TEST(test_bad_lines)
{
	struct symtab *st = parse("\n"
				  "zz 10 nothex\n"
				  "1000\n"
				  "1000 10\n"
				  "1000 10 \n"
				  "1000 0 empty\n"
				  "1000 1g bad_size\n"
				  "ffffffffffffffff 10 wraps\n"
				  "12345678901234567 10 too_long\n"
				  "3000 10 good\n"
				  " 5000 10 leading_space\n");

	ck_assert_uint_eq(symtab_count(st), 1);
	ck_assert_str_eq(name_at(st, 0x3008), "good");
	ck_assert_str_eq(name_at(st, 0x1000), "-");
	ck_assert_str_eq(name_at(st, 0x5000), "-");
	symtab_free(st);

	st = perfmap_parse("1000 10 a\0b\n2000 10 ok\n", 23);
	ck_assert_str_eq(name_at(st, 0x1000), "-");
	ck_assert_str_eq(name_at(st, 0x2000), "ok");
	symtab_free(st);

	st = perfmap_parse("", 0);
	ck_assert_uint_eq(symtab_count(st), 0);
	ck_assert_str_eq(name_at(st, 0), "-");
	symtab_free(st);
}
END_TEST

START_TEST(test_overlaps)
{
	/* A newer small entry inside an older big one: cut around it. */
	struct symtab *st = parse("1000 100 old\n1040 40 new\n");

	ck_assert_str_eq(name_at(st, 0x1000), "old");
	ck_assert_str_eq(name_at(st, 0x103f), "old");
	ck_assert_str_eq(name_at(st, 0x1040), "new");
	ck_assert_str_eq(name_at(st, 0x107f), "new");
	ck_assert_str_eq(name_at(st, 0x1080), "old");
	ck_assert_str_eq(name_at(st, 0x10ff), "old");
	ck_assert_str_eq(name_at(st, 0x1100), "-");
	symtab_free(st);

	/* A newer big entry hides an older small one entirely. */
	st = parse("1040 40 small\n1000 100 big\n");
	ck_assert_str_eq(name_at(st, 0x1000), "big");
	ck_assert_str_eq(name_at(st, 0x1050), "big");
	ck_assert_str_eq(name_at(st, 0x10ff), "big");
	ck_assert_uint_eq(symtab_count(st), 1);
	symtab_free(st);

	/* The same range twice, and partial overlaps both ways. */
	st = parse("5000 10 first\n5000 10 second\n"
		   "6000 20 left\n6010 20 right\n"
		   "7010 20 late_right\n7000 20 late_left\n");
	ck_assert_str_eq(name_at(st, 0x5000), "second");
	ck_assert_str_eq(name_at(st, 0x600f), "left");
	ck_assert_str_eq(name_at(st, 0x6010), "right");
	ck_assert_str_eq(name_at(st, 0x601f), "right");
	ck_assert_str_eq(name_at(st, 0x602f), "right");
	ck_assert_str_eq(name_at(st, 0x700f), "late_left");
	ck_assert_str_eq(name_at(st, 0x701f), "late_left");
	ck_assert_str_eq(name_at(st, 0x7020), "late_right");
	ck_assert_str_eq(name_at(st, 0x702f), "late_right");
	ck_assert_str_eq(name_at(st, 0x7030), "-");
	symtab_free(st);
}
END_TEST

START_TEST(test_no_trailing_newline)
{
	struct symtab *st = parse("1000 10 foo\n2000 10 last");

	ck_assert_str_eq(name_at(st, 0x1000), "foo");
	ck_assert_str_eq(name_at(st, 0x200f), "last");
	symtab_free(st);
}
END_TEST

/* Random small maps against a linear scan where the last line wins. */
START_TEST(test_overlaps_random)
{
	unsigned seed = 12345;
	int it, i;

	for (it = 0; it < 2000; it++) {
		uint64_t s[8], e[8], a;
		char buf[512];
		size_t len = 0;
		int n = (int)(rand_r(&seed) % 8);
		struct symtab *st;

		for (i = 0; i < n; i++) {
			s[i] = rand_r(&seed) % 40;
			e[i] = s[i] + 1 + rand_r(&seed) % 20;
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%llx %llx n%d\n",
						(unsigned long long)s[i],
						(unsigned long long)(e[i] - s[i]), i);
		}
		st = perfmap_parse(buf, len);
		for (a = 0; a < 70; a++) {
			char want[8] = "-";

			for (i = 0; i < n; i++)
				if (a >= s[i] && a < e[i])
					snprintf(want, sizeof(want), "n%d", i);
			ck_assert_msg(strcmp(name_at(st, a), want) == 0, "at %llx: %s, not %s in\n%s",
				      (unsigned long long)a, name_at(st, a), want, buf);
		}
		symtab_free(st);
	}
}
END_TEST

/* The index over the tables of successive loads names every address as
 * one parse of the whole file does, and points at the tables' symbols. */
START_TEST(test_index_random)
{
	unsigned seed = 777;
	int it, i;

	for (it = 0; it < 300; it++) {
		char buf[1024];
		size_t len = 0, cut[4], k;
		int n = (int)(rand_r(&seed) % 12);
		struct symtab *whole, *part[3];
		struct perfmap_index ix = { 0 };
		uint64_t a;

		cut[0] = 0;
		for (i = 0; i < n; i++) {
			uint64_t s = rand_r(&seed) % 60;

			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%llx %llx n%d\n",
						(unsigned long long)s,
						(unsigned long long)(1 + rand_r(&seed) % 20), i);
		}
		/* Two cuts at line ends (or the ends of the buffer). */
		for (k = 1; k < 3; k++) {
			const char *nl = len ? memchr(buf + rand_r(&seed) % len, '\n', 1) : NULL;

			cut[k] = nl ? (size_t)(nl - buf) + 1 : cut[k - 1];
			if (cut[k] < cut[k - 1])
				cut[k] = cut[k - 1];
		}
		cut[3] = len;
		whole = perfmap_parse(buf, len);
		for (k = 0; k < 3; k++) {
			part[k] = perfmap_parse(buf + cut[k], cut[k + 1] - cut[k]);
			if (k < 2) {
				perfmap_index_add(&ix, part[k]);
			} else {
				/* merge: the same result, the older index left
				 * as it was (another thread may read it). */
				struct perfmap_index merged;
				struct perfmap_range *before = ix.ranges;
				struct perfmap_range *copy = malloc((ix.n + 1) * sizeof(*copy));
				size_t nbefore = ix.n;

				ck_assert_ptr_nonnull(copy);
				if (ix.n)
					memcpy(copy, ix.ranges, ix.n * sizeof(*copy));
				perfmap_index_merge(&ix, part[k], &merged);
				ck_assert_ptr_eq(ix.ranges, before);
				ck_assert_uint_eq(ix.n, nbefore);
				ck_assert(!ix.n || memcmp(copy, ix.ranges, ix.n * sizeof(*copy)) == 0);
				free(copy);
				perfmap_index_release(&ix);
				ix = merged;
			}
		}
		for (a = 0; a < 90; a++) {
			const struct symbol *w = symtab_lookup(whole, a);
			const struct symbol *x = perfmap_index_lookup(&ix, a);

			ck_assert_msg((w == NULL) == (x == NULL) && (!w || !strcmp(w->name, x->name)),
				      "at %llx: %s, not %s, in\n%s", (unsigned long long)a,
				      x ? x->name : "-", w ? w->name : "-", buf);
			/* The symbol is the newest part's that has the address. */
			if (x) {
				for (k = 3; k-- > 0;)
					if (symtab_lookup(part[k], a))
						break;
				ck_assert_ptr_eq(x, symtab_lookup(part[k], a));
			}
		}
		perfmap_index_release(&ix);
		for (k = 0; k < 3; k++)
			symtab_free(part[k]);
		symtab_free(whole);
	}
}
END_TEST

static char *map_path(void)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	return path;
}

static void write_map(const char *text)
{
	FILE *f;

	unlink(map_path());
	f = fopen(map_path(), "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_load)
{
	struct symtab *st = NULL;
	uint64_t size = 0;

	write_map("1000 10 jitted\n");
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), 0, &st, &size), 0);
	ck_assert_uint_eq(size, 15);
	ck_assert_str_eq(name_at(st, 0x1004), "jitted");
	symtab_free(st);
	/* Not grown: nothing to re-read. */
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), size, &st, &size), -EAGAIN);
	unlink(map_path());
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), 0, &st, &size), -ENOENT);
}
END_TEST

START_TEST(test_load_refuses)
{
	char target[64];
	struct symtab *st = NULL;
	uint64_t size = 0;

	/* A symlink, even to a good file. */
	snprintf(target, sizeof(target), "/tmp/perf-%d.map.target", (int)getpid());
	unlink(target);
	write_map("1000 10 jitted\n");
	ck_assert_int_eq(rename(map_path(), target), 0);
	ck_assert_int_eq(symlink(target, map_path()), 0);
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), 0, &st, &size), -ELOOP);
	unlink(map_path());
	unlink(target);

	/* A directory (or anything not regular). */
	ck_assert_int_eq(mkdir(map_path(), 0700), 0);
	ck_assert_int_lt(perfmap_load((uint32_t)getpid(), 0, &st, &size), 0);
	rmdir(map_path());

	/* Another user's file. */
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: test_load_refuses: foreign owner needs root\n");
		return;
	}
	write_map("1000 10 jitted\n");
	ck_assert_int_eq(chown(map_path(), 65534, 65534), 0);
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), 0, &st, &size), -EPERM);
	unlink(map_path());
}
END_TEST

/* Re-reads parse only the lines appended since, and only whole lines. */
START_TEST(test_load_incremental)
{
	struct symtab *st1 = NULL, *st2 = NULL, *st3 = NULL;
	uint64_t size1 = 0, size2 = 0, size3 = 0;
	struct utimbuf old = { 1000000000, 1000000000 };
	FILE *f;

	write_map("1000 10 first\n");
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), 0, &st1, &size1), 0);
	ck_assert_uint_eq(size1, 14);
	f = fopen(map_path(), "a");
	ck_assert_ptr_nonnull(f);
	fputs("1000 10 second\n2000 10 more\n3000 10 partial", f);
	fclose(f);
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), size1, &st2, &size2), 0);
	/* Only the two new whole lines: not "first", not the cut one. */
	ck_assert_uint_eq(size2, 14 + 15 + 13);
	ck_assert_uint_eq(symtab_count(st2), 2);
	ck_assert_str_eq(name_at(st2, 0x1000), "second");
	ck_assert_str_eq(name_at(st2, 0x2000), "more");
	ck_assert_str_eq(name_at(st2, 0x3000), "-");
	ck_assert_str_eq(name_at(st1, 0x1000), "first");
	/* The JIT is still writing the last line: nothing new yet. */
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), size2, &st3, &size3), -EAGAIN);
	/* Left alone for a while: an unterminated last line is whole. */
	ck_assert_int_eq(utime(map_path(), &old), 0);
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), size2, &st3, &size3), 0);
	ck_assert_uint_eq(symtab_count(st3), 1);
	ck_assert_str_eq(name_at(st3, 0x3000), "partial");
	ck_assert_int_eq(perfmap_load((uint32_t)getpid(), size3, &st3, &size3), -EAGAIN);
	symtab_free(st1);
	symtab_free(st2);
	symtab_free(st3);
	unlink(map_path());
}
END_TEST

/* A container's map, under its root: /tmp/perf-NSPID.map, with its
 * symlinks kept inside that root. */
START_TEST(test_load_at_root)
{
	char *dir = testutil_tmpdir("perfmap-root");
	char path[512], abs[512];
	struct symtab *st = NULL;
	uint64_t size = 0;
	uid_t me = geteuid();
	int root, err;

	ck_assert_int_eq(testutil_sh("mkdir -p %s/root/tmp %s/root2 %s/host", dir, dir, dir), 0);
	ck_assert_int_eq(testutil_sh("printf '1000 10 inside\\n' > %s/root/tmp/perf-7.map", dir), 0);
	ck_assert_int_eq(testutil_sh("printf '1000 10 host_secret\\n' > %s/host/perf-9.map", dir), 0);
	write_map("1000 10 host_tmp\n");
	snprintf(path, sizeof(path), "%s/root", dir);
	root = open(path, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(root, 0);
	ck_assert_int_eq(perfmap_load_at(root, 7, me, me, 0, &st, &size), 0);
	ck_assert_str_eq(name_at(st, 0x1000), "inside");
	symtab_free(st);
	/* A final symlink, even to the host's good map: refused. */
	snprintf(path, sizeof(path), "%s/root/tmp/perf-8.map", dir);
	ck_assert_int_eq(symlink(map_path(), path), 0);
	ck_assert_int_eq(perfmap_load_at(root, 8, me, me, 0, &st, &size), -ELOOP);
	/* A FIFO: refused without blocking. */
	ck_assert_int_eq(testutil_sh("mkfifo %s/root/tmp/perf-10.map", dir), 0);
	ck_assert_int_eq(perfmap_load_at(root, 10, me, me, 0, &st, &size), -EINVAL);
	close(root);

	/* /tmp itself a symlink out of the root: looked up inside it. */
	ck_assert_ptr_nonnull(realpath(dir, abs));
	snprintf(path, sizeof(path), "%s/root2/tmp", dir);
	strncat(abs, "/host", sizeof(abs) - strlen(abs) - 1);
	ck_assert_int_eq(symlink(abs, path), 0);
	snprintf(path, sizeof(path), "%s/root2", dir);
	root = open(path, O_PATH | O_DIRECTORY);
	ck_assert_int_ge(root, 0);
	/* -ELOOP when dir is under /tmp: inside root2, the target's "/tmp"
	 * is the link itself. */
	err = perfmap_load_at(root, 9, me, me, 0, &st, &size);
	ck_assert_msg(err == -ENOENT || err == -ELOOP, "err %d", err);
	close(root);
	snprintf(path, sizeof(path), "%s/root2/tmp", dir);
	unlink(path);
	ck_assert_int_eq(symlink("../../../../../../../../host", path), 0);
	snprintf(path, sizeof(path), "%s/root2", dir);
	root = open(path, O_PATH | O_DIRECTORY);
	ck_assert_int_eq(perfmap_load_at(root, 9, me, me, 0, &st, &size), -ENOENT);
	close(root);

	unlink(map_path());
	testutil_sh("rm -rf %s", dir);
	free(dir);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("perfmap");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_good_lines);
	tcase_add_test(tc, test_bad_lines);
	tcase_add_test(tc, test_overlaps);
	tcase_add_test(tc, test_no_trailing_newline);
	tcase_add_test(tc, test_overlaps_random);
	tcase_add_test(tc, test_index_random);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_test(tc, test_load);
	tcase_add_test(tc, test_load_refuses);
	tcase_add_test(tc, test_load_incremental);
	tcase_add_test(tc, test_load_at_root);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
