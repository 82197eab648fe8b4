/* Namespace-safe opens under /proc/PID/root: openat2 with RESOLVE_IN_ROOT,
 * or a component-by-component walk that resolves symlinks itself. */
#include "config.h"

#include "nsopen.h"
#include "nsopen-test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_openat2
#include <linux/openat2.h>
#endif

#include "util.h"

/* As the kernel's MAXSYMLINKS. */
#define NSOPEN_MAX_LINKS 40

int nsopen_root(uint32_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/root", pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Set *next to the component after *pp, NUL-terminate it in place and
 * return it; NULL at the end of the string. */
static char *nsopen_next(char **pp)
{
	char *p = *pp, *c;

	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	c = p;
	while (*p && *p != '/')
		p++;
	if (*p)
		*p++ = '\0';
	*pp = p;
	return c;
}

static bool nsopen_only_slashes(const char *p)
{
	while (*p == '/')
		p++;
	return !*p;
}

int nsopen_walk(int rootfd, const char *path, int flags)
{
	struct stat rootst, st;
	char *todo, *p, *comp, *link;
	int cur, nfd = -1, nlinks = 0, err = 0;

	if (fstat(rootfd, &rootst) < 0)
		return -errno;
	cur = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	todo = xstrdup(path);
	p = todo;
	link = xmalloc(PATH_MAX + 1);
	for (;;) {
		bool last;

		comp = nsopen_next(&p);
		if (!comp) {
			/* The path names the directory cur ("/", "a/.."). */
			if (flags & O_PATH) {
				nfd = cur;
				cur = -1;
			} else {
				nfd = openat(cur, ".", flags | O_CLOEXEC);
				if (nfd < 0)
					err = -errno;
			}
			break;
		}
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			/* Never above the root: its ".." is itself. */
			if (fstat(cur, &st) < 0) {
				err = -errno;
				break;
			}
			if (st.st_dev == rootst.st_dev && st.st_ino == rootst.st_ino)
				continue;
			nfd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (nfd < 0) {
				err = -errno;
				break;
			}
			close(cur);
			cur = nfd;
			nfd = -1;
			continue;
		}
		last = nsopen_only_slashes(p);
		nfd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 || fstat(nfd, &st) < 0) {
			err = -errno;
			break;
		}
		if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
			ssize_t n;
			char *rest;

			if (++nlinks > NSOPEN_MAX_LINKS) {
				err = -ELOOP;
				break;
			}
			/* An O_PATH symlink descriptor reads with "". */
			n = readlinkat(nfd, "", link, PATH_MAX);
			close(nfd);
			nfd = -1;
			if (n < 0) {
				err = -errno;
				break;
			}
			link[n] = '\0';
			/* The target, then what was left of the path. */
			rest = xasprintf("%s/%s", link, p);
			free(todo);
			todo = p = rest;
			if (link[0] == '/') {
				int r = openat(rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

				if (r < 0) {
					err = -errno;
					break;
				}
				close(cur);
				cur = r;
			}
			continue;
		}
		if (last) {
			if (!(flags & O_PATH)) {
				/* Not a symlink a moment ago; O_NOFOLLOW makes a
				 * swap since then fail rather than follow it. */
				close(nfd);
				nfd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
				if (nfd < 0)
					err = -errno;
			}
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			break;
		}
		close(cur);
		cur = nfd;
		nfd = -1;
	}
	free(link);
	free(todo);
	if (cur >= 0)
		close(cur);
	if (err) {
		if (nfd >= 0)
			close(nfd);
		return err;
	}
	return nfd;
}

int nsopen_at(int rootfd, const char *path, int flags)
{
#ifdef SYS_openat2
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	/* Seccomp filters of container runtimes answer ENOSYS too. */
	if (errno != ENOSYS)
		return -errno;
#endif
	return nsopen_walk(rootfd, path, flags);
}

int nsopen_pid(uint32_t pid, const char *path, int flags)
{
	int root = nsopen_root(pid), fd;

	if (root < 0)
		return root;
	fd = nsopen_at(root, path, flags);
	close(root);
	return fd;
}

int nsopen_regular(int fd)
{
	char proc[64];
	struct stat st;
	int rfd;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	rfd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	/* The same file: /proc/self/fd follows the descriptor, not a path. */
	if (fstat(rfd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(rfd);
		return -EINVAL;
	}
	return rfd;
}

bool nsopen_split(const char *path, uint32_t *pid, const char **inner)
{
	const char *p;
	uint64_t v = 0;

	if (strncmp(path, "/proc/", 6) != 0)
		return false;
	for (p = path + 6; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return false;
	}
	if (p == path + 6 || strncmp(p, "/root", 5) != 0 || (p[5] && p[5] != '/'))
		return false;
	*pid = (uint32_t)v;
	*inner = p[5] ? p + 5 : "/";
	return true;
}

int nsopen_file(const char *path)
{
	const char *inner;
	uint32_t pid;
	int pfd, fd;

	if (nsopen_split(path, &pid, &inner))
		pfd = nsopen_pid(pid, inner, O_PATH);
	else if ((pfd = open(path, O_PATH | O_CLOEXEC)) < 0)
		pfd = -errno;
	if (pfd < 0)
		return pfd;
	fd = nsopen_regular(pfd);
	close(pfd);
	return fd;
}
