/* Unit tests for src/nsopen.c: paths opened under a root directory, with
 * absolute and relative symlinks and ".." that point outside it, through
 * openat2 and through the fallback walk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nsopen.h"
#include "nsopen-test.h"
#include "testutil.h"

typedef int (*open_fn)(int rootfd, const char *path, int flags);

static char *base;       /* tmpdir: root/ inside, out/ outside */
static char rootpath[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void lnk(const char *target, const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void setup(void)
{
	char abs[PATH_MAX * 2];

	base = testutil_tmpdir("nsopen");
	ck_assert_int_eq(testutil_sh("mkdir -p %s/root/etc %s/root/out %s/root/dir %s/out", base,
				     base, base, base), 0);
	put("out/secret", "OUTSIDE\n");
	put("root/etc/target", "INSIDE\n");
	put("root/out/secret", "INSIDE-OUT\n");
	/* Into the root only. */
	lnk("/etc/target", "root/abs_inside");
	lnk("../etc/target", "root/dir/rel_inside");
	lnk("/etc", "root/etcdir");
	/* Out of the root, if followed as the host would. */
	lnk("../../out/secret", "root/dir/rel_escape");
	lnk("../../../../../../../../../../out/secret", "root/rel_deep");
	ck_assert_ptr_nonnull(realpath(base, rootpath));
	snprintf(abs, sizeof(abs), "%s/out/secret", rootpath);
	lnk(abs, "root/abs_escape");
	lnk("/proc/self/root/etc/passwd", "root/magic");
	lnk("loop2", "root/loop1");
	lnk("loop1", "root/loop2");
	ck_assert_int_eq(testutil_sh("mkfifo %s/root/fifo", base), 0);
	snprintf(rootpath, sizeof(rootpath), "%s/root", base);
}

static void teardown(void)
{
	testutil_sh("rm -rf %s", base);
	free(base);
}

/* Open path under root with fn and read the file: its first line, or
 * "E<errno>". */
static const char *content(open_fn fn, const char *path, int flags)
{
	static char buf[64];
	int root = open(rootpath, O_PATH | O_DIRECTORY | O_CLOEXEC), fd, rfd;
	ssize_t n;

	ck_assert_int_ge(root, 0);
	fd = fn(root, path, flags);
	close(root);
	if (fd < 0) {
		snprintf(buf, sizeof(buf), "E%d", -fd);
		return buf;
	}
	rfd = nsopen_regular(fd);
	close(fd);
	if (rfd < 0) {
		snprintf(buf, sizeof(buf), "E%d", -rfd);
		return buf;
	}
	n = read(rfd, buf, sizeof(buf) - 1);
	close(rfd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void check_all(open_fn fn)
{
	char path[PATH_MAX * 2];
	char expect[32];

	ck_assert_str_eq(content(fn, "/etc/target", O_PATH), "INSIDE");
	ck_assert_str_eq(content(fn, "etc/target", O_PATH), "INSIDE");
	ck_assert_str_eq(content(fn, "//etc/./target", O_PATH), "INSIDE");
	ck_assert_str_eq(content(fn, "/abs_inside", O_PATH), "INSIDE");
	ck_assert_str_eq(content(fn, "/dir/rel_inside", O_PATH), "INSIDE");
	ck_assert_str_eq(content(fn, "/etcdir/target", O_PATH), "INSIDE");
	/* ".." stops at the root: these land on root/out/secret. */
	ck_assert_str_eq(content(fn, "/../../out/secret", O_PATH), "INSIDE-OUT");
	ck_assert_str_eq(content(fn, "/dir/rel_escape", O_PATH), "INSIDE-OUT");
	ck_assert_str_eq(content(fn, "/rel_deep", O_PATH), "INSIDE-OUT");
	/* An absolute link to the host's file is looked up inside root. */
	snprintf(expect, sizeof(expect), "E%d", ENOENT);
	ck_assert_str_eq(content(fn, "/abs_escape", O_PATH), expect);
	ck_assert_ptr_nonnull(realpath(base, path));
	strcat(path, "/out/secret");
	ck_assert_str_eq(content(fn, path, O_PATH), expect);
	/* No /proc in this root: the magic link leads nowhere. */
	ck_assert_str_ne(content(fn, "/magic", O_PATH), "OUTSIDE");
	ck_assert_str_eq(content(fn, "/nothing", O_PATH), expect);
	snprintf(expect, sizeof(expect), "E%d", ELOOP);
	ck_assert_str_eq(content(fn, "/loop1", O_PATH), expect);
	/* O_NOFOLLOW: a final symlink is returned as itself, and refused. */
	ck_assert_str_eq(content(fn, "/abs_inside", O_PATH | O_NOFOLLOW), expect);
	snprintf(expect, sizeof(expect), "E%d", EINVAL);
	ck_assert_str_eq(content(fn, "/fifo", O_PATH), expect);
	ck_assert_str_eq(content(fn, "/etc", O_PATH), expect);
	snprintf(expect, sizeof(expect), "E%d", ENOTDIR);
	ck_assert_str_eq(content(fn, "/etc/target/x", O_PATH), expect);
}

START_TEST(test_openat2)
{
	check_all(nsopen_at);
}
END_TEST

START_TEST(test_walk)
{
	check_all(nsopen_walk);
}
END_TEST

/* Without O_PATH the walk opens the file itself (and never a symlink). */
START_TEST(test_walk_flags)
{
	int root = open(rootpath, O_PATH | O_DIRECTORY | O_CLOEXEC), fd;
	char buf[16];

	ck_assert_int_ge(root, 0);
	fd = nsopen_walk(root, "/abs_inside", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, 6), 6);
	ck_assert_int_eq(memcmp(buf, "INSIDE", 6), 0);
	close(fd);
	fd = nsopen_walk(root, "/", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	close(fd);
	close(root);
}
END_TEST

/* Our own /proc/PID/root is "/": the same file as a plain open. */
START_TEST(test_pid)
{
	char path[PATH_MAX * 3];
	struct stat a, b;
	int fd;

	snprintf(path, sizeof(path), "%s/etc/target", rootpath);
	if (path[0] != '/') {
		char cwd[PATH_MAX];

		ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
		snprintf(path, sizeof(path), "%s/%s/etc/target", cwd, rootpath);
	}
	fd = nsopen_pid((uint32_t)getpid(), path, O_PATH);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &a), 0);
	ck_assert_int_eq(stat(path, &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	close(fd);
	ck_assert_int_eq(nsopen_pid(0x7fffffff, "/etc/passwd", O_PATH), -ENOENT);
}
END_TEST

/* Paths under a process's root are told apart from others, and
 * nsopen_file opens only regular files, under the root when there is one. */
START_TEST(test_split_file)
{
	char path[PATH_MAX * 3], fifo[PATH_MAX * 2], abs[PATH_MAX], buf[8];
	const char *inner;
	uint32_t pid;
	int fd;

	ck_assert(nsopen_split("/proc/12/root/usr/bin/x", &pid, &inner));
	ck_assert_uint_eq(pid, 12);
	ck_assert_str_eq(inner, "/usr/bin/x");
	ck_assert(nsopen_split("/proc/7/root", &pid, &inner));
	ck_assert_str_eq(inner, "/");
	ck_assert(!nsopen_split("/proc/7/rootfs/x", &pid, &inner));
	ck_assert(!nsopen_split("/proc/self/root/x", &pid, &inner));
	ck_assert(!nsopen_split("/proc//root/x", &pid, &inner));
	ck_assert(!nsopen_split("/proc/99999999999/root/x", &pid, &inner));
	ck_assert(!nsopen_split("/usr/bin/x", &pid, &inner));
	ck_assert(!nsopen_split("proc/1/root/x", &pid, &inner));

	/* Our own root through /proc/PID/root: a regular file opens. */
	ck_assert_ptr_nonnull(realpath(rootpath, abs));
	snprintf(path, sizeof(path), "/proc/%d/root%s/etc/target", (int)getpid(), abs);
	fd = nsopen_file(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, 6), 6);
	ck_assert_int_eq(memcmp(buf, "INSIDE", 6), 0);
	close(fd);
	/* Never a FIFO (it would block), nor a directory. */
	snprintf(fifo, sizeof(fifo), "%s/fifo", abs);
	unlink(fifo);
	ck_assert_msg(mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno));
	ck_assert_int_eq(nsopen_file(fifo), -EINVAL);
	snprintf(path, sizeof(path), "/proc/%d/root%s/fifo", (int)getpid(), abs);
	ck_assert_int_eq(nsopen_file(path), -EINVAL);
	ck_assert_int_eq(nsopen_file(rootpath), -EINVAL);
	ck_assert_int_eq(nsopen_file("/proc/2147483647/root/etc/passwd"), -ENOENT);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nsopen");
	TCase *tc = tcase_create("root");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_openat2);
	tcase_add_test(tc, test_walk);
	tcase_add_test(tc, test_walk_flags);
	tcase_add_test(tc, test_pid);
	tcase_add_test(tc, test_split_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
