/* perf's build-id cache: DIR/.build-id/xx/rest links to DIR/<path>/<id>/
 * holding elf (and debug); looked up beneath DIR only, never written. */
#include "config.h"

#include "buildid-cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "nsopen.h"
#include "util.h"

struct buildid_cache {
	char *dir;
	int rootfd;               /* O_PATH directory: every lookup starts here */
	bool strict;
	size_t refused;           /* atomic: lookups from several loader threads */
};

char *buildid_cache_dir(const char *dir)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	if (dir && *dir)
		return xstrdup(dir);
	if (env && *env)
		return xstrdup(env);
	if (home && *home)
		return xasprintf("%s/.debug", home);
	return NULL;
}

int buildid_cache_open(const char *dir, bool strict, struct buildid_cache **out)
{
	struct buildid_cache *c;
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	c = xcalloc(1, sizeof(*c));
	c->dir = xstrdup(dir);
	c->rootfd = fd;
	c->strict = strict;
	*out = c;
	return 0;
}

void buildid_cache_close(struct buildid_cache *c)
{
	if (!c)
		return;
	close(c->rootfd);
	free(c->dir);
	free(c);
}

const char *buildid_cache_path(const struct buildid_cache *c)
{
	return c->dir;
}

size_t buildid_cache_refused(const struct buildid_cache *c)
{
	return __atomic_load_n(&c->refused, __ATOMIC_RELAXED);
}

/* Count a refusal and pass err on; -ENOENT (no entry) and -EACCES are not
 * refusals of a hostile entry. */
static int buildid_cache_refuse(struct buildid_cache *c, int err)
{
	if (err != -ENOENT && err != -EACCES && err != -ENOMEM)
		__atomic_add_fetch(&c->refused, 1, __ATOMIC_RELAXED);
	return err;
}

/* The target of link (as found in directory base, both relative to the
 * cache root) made relative to the root in sb, or -EXDEV when it is
 * absolute or climbs above the root: perf's links are "../../path/id". */
static int buildid_cache_join(const char *base, const char *link, struct strbuf *sb)
{
	char *parts = xasprintf("%s/%s", base, link), *save = NULL, *p;
	size_t depth = 0;

	if (link[0] == '/') {
		free(parts);
		return -EXDEV;
	}
	strbuf_reset(sb);
	for (p = strtok_r(parts, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (strcmp(p, ".") == 0)
			continue;
		if (strcmp(p, "..") == 0) {
			char *slash;

			if (depth == 0) {
				free(parts);
				return -EXDEV;
			}
			slash = strrchr(sb->buf, '/');
			sb->len = slash ? (size_t)(slash - sb->buf) : 0;
			sb->buf[sb->len] = '\0';
			depth--;
			continue;
		}
		if (depth++)
			strbuf_addch(sb, '/');
		strbuf_addstr(sb, p);
	}
	free(parts);
	return depth ? 0 : -EXDEV;
}

/* Whether the file at fd carries build ID id, left at its start. */
static bool buildid_cache_id_ok(int fd, const uint8_t *id, size_t size)
{
	return elfsyms_fd_has_build_id(fd, id, size) && lseek(fd, 0, SEEK_SET) == 0;
}

/* The real path of the file open at fd, else dir/rel. */
static char *buildid_cache_real_path(const struct buildid_cache *c, int fd, const char *rel)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n > 0 && buf[0] == '/') {
		buf[n] = '\0';
		return xstrdup(buf);
	}
	return xasprintf("%s/%s", c->dir, rel);
}

/* The entry's path relative to the root in rel: the target of the
 * .build-id link (checked when strict), or the link's own path when it
 * is not one.  Returns 0 or -errno. */
static int buildid_cache_entry(struct buildid_cache *c, const char *hex, struct strbuf *rel)
{
	char base[16], target[PATH_MAX];
	int dfd, err = 0;
	ssize_t n;

	snprintf(base, sizeof(base), ".build-id/%.2s", hex);
	dfd = nsopen_at(c->rootfd, base, O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd == -ENOTDIR ? buildid_cache_refuse(c, dfd) : dfd;
	n = readlinkat(dfd, hex + 2, target, sizeof(target) - 1);
	if (n < 0)
		err = errno == EINVAL ? 0 : -errno;
	close(dfd);
	if (err)
		return err;
	if (n < 0 || !c->strict) {
		/* A plain file or directory, or (--symfs) any link: nsopen_at
		 * resolves it inside the root. */
		strbuf_reset(rel);
		strbuf_addf(rel, "%s/%s", base, hex + 2);
		return 0;
	}
	target[n] = '\0';
	return buildid_cache_join(base, target, rel);
}

int buildid_cache_find(struct buildid_cache *c, const uint8_t *id, size_t size,
		       enum buildid_cache_file which, char **path)
{
	char hex[2 * ELFSYMS_BUILD_ID_MAX + 1];
	struct strbuf rel;
	struct stat st;
	int pfd, fd, err;
	size_t i;

	*path = NULL;
	if (size < 2 || size > ELFSYMS_BUILD_ID_MAX)
		return -ENOENT;
	for (i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	strbuf_init(&rel);
	err = buildid_cache_entry(c, hex, &rel);
	if (err)
		goto out;
	pfd = nsopen_at(c->rootfd, rel.buf, O_PATH);
	if (pfd < 0) {
		err = pfd;
		goto out;
	}
	if (fstat(pfd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(pfd);
		strbuf_addstr(&rel, which == BUILDID_CACHE_ELF ? "/elf" : "/debug");
		pfd = nsopen_at(c->rootfd, rel.buf, O_PATH);
		if (pfd < 0) {
			err = pfd;
			goto out;
		}
	} else if (which == BUILDID_CACHE_DEBUG) {
		/* The old layout links to the binary alone. */
		close(pfd);
		err = -ENOENT;
		goto out;
	}
	fd = nsopen_regular(pfd);
	close(pfd);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	if (!buildid_cache_id_ok(fd, id, size)) {
		close(fd);
		err = -EBADMSG;
		goto out;
	}
	*path = buildid_cache_real_path(c, fd, rel.buf);
	strbuf_release(&rel);
	return fd;
out:
	strbuf_release(&rel);
	return buildid_cache_refuse(c, err);
}

int buildid_cache_open_file(const struct buildid_cache *c, const char *rel)
{
	int pfd = nsopen_at(c->rootfd, rel, O_PATH), fd;

	if (pfd < 0)
		return pfd;
	fd = nsopen_regular(pfd);
	close(pfd);
	return fd;
}
