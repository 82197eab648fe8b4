/* libdebuginfod through dlopen: the few client calls proftop needs, with an
 * overall deadline per file. */
#include "config.h"

#include "debuginfod.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "errmsg.h"

/* The prototypes of <elfutils/debuginfod.h> (elfutils 0.178+), declared
 * here so the build needs neither its header nor its library. */
typedef struct debuginfod_client debuginfod_client;
typedef int (*debuginfod_progressfn_t)(debuginfod_client *c, long a, long b);

static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *id, int id_len,
			      char **path);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
	void (*set_user_data)(debuginfod_client *c, void *data);
	void *(*get_user_data)(debuginfod_client *c);
	const char *why;
	bool ok;
} lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void debuginfod_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		lib.why = "libdebuginfod.so.1 not found (Debian package libdebuginfod1)";
		return;
	}
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
	*(void **)&lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
	if (!lib.begin || !lib.end || !lib.find_debuginfo || !lib.set_progressfn ||
	    !lib.set_user_data || !lib.get_user_data) {
		lib.why = "libdebuginfod.so.1 is too old (elfutils 0.179 or later needed)";
		dlclose(h);
		return;
	}
	/* Kept loaded: its functions are used until exit. */
	lib.ok = true;
}

int debuginfod_available(struct errmsg *em)
{
	pthread_once(&lib_once, debuginfod_load);
	return lib.ok ? 0 : errmsg_set(em, -ENOSYS, "%s", lib.why);
}

static long debuginfod_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct debuginfod_deadline {
	long at_ms;
	bool expired;
	const int *cancel;        /* non-zero: give up now (NULL: never) */
};

/* Called by libdebuginfod while it waits and downloads: non-zero aborts. */
static int debuginfod_progress(debuginfod_client *c, long a, long b)
{
	struct debuginfod_deadline *dl = lib.get_user_data(c);

	(void)a;
	(void)b;
	if (!dl)
		return 0;
	if (dl->cancel && __atomic_load_n(dl->cancel, __ATOMIC_RELAXED))
		return 1;
	if (debuginfod_now_ms() >= dl->at_ms) {
		dl->expired = true;
		return 1;
	}
	return 0;
}

int debuginfod_fetch_debuginfo(const uint8_t *id, size_t size, long timeout_ms,
			       const int *cancel, char **path)
{
	struct debuginfod_deadline dl;
	debuginfod_client *c;
	int fd;

	*path = NULL;
	if (debuginfod_available(NULL) < 0)
		return -ENOSYS;
	if (size == 0 || size > 64)
		return -EINVAL;
	c = lib.begin();
	if (!c)
		return -ENOMEM;
	dl.at_ms = debuginfod_now_ms() + timeout_ms;
	dl.expired = false;
	dl.cancel = cancel;
	lib.set_user_data(c, &dl);
	lib.set_progressfn(c, debuginfod_progress);
	fd = lib.find_debuginfo(c, id, (int)size, path);
	lib.end(c);
	if (fd < 0) {
		free(*path);
		*path = NULL;
		if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED))
			return -ECANCELED;
		return dl.expired ? -ETIMEDOUT : fd;
	}
	close(fd);
	if (!*path)
		return -ENOENT;
	return 0;
}
