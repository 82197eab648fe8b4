/* /proc synthesis: what the kernel will not send for processes that
 * existed before the record stream began (comm, threads, exec maps), read
 * at once or in steps while sampling goes on.
 *
 * Syscalls dominate synthesis, so: paths relative to one /proc fd, comm and
 * thread count from a single read of stat, the task directory only for
 * multi-threaded processes, exec maps through PROCMAP_QUERY where possible. */
#include "config.h"

#include "synth.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "machine-impl.h"
#include "procfs.h"
#include "util.h"

static bool parse_id(const char *s, uint32_t *id)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*id = (uint32_t)v;
	return true;
}

struct synth_ctx {
	struct machine *m;
	struct process *p;
};

static void synth_map(void *arg, const struct procfs_map *pm)
{
	struct synth_ctx *ctx = arg;
	struct mmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = ctx->p->pid;
	ev.start = pm->start;
	ev.len = pm->end - pm->start;
	ev.pgoff = pm->pgoff;
	ev.maj = pm->maj;
	ev.min = pm->min;
	ev.ino = pm->ino;
	ev.prot = pm->prot;
	ev.filename = pm->path;
	machine_map_event(ctx->m, ctx->p, &ev);
}

/* The one-line comm file under dirfd, interned; NULL if unreadable. */
static const char *read_comm(struct machine *m, int dirfd, const char *name)
{
	ssize_t n = procfs_read(&m->procfs, dirfd, name, true);

	if (n <= 0)
		return NULL;
	if (m->procfs.buf[n - 1] == '\n')
		m->procfs.buf[n - 1] = '\0';
	return intern(m->procfs.buf);
}

static void synth_threads(struct machine *m, struct process *p, int procfd, const char *name)
{
	int tfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir;
	struct dirent *de;

	if (tfd < 0)
		return;
	dir = fdopendir(tfd);
	if (!dir) {
		close(tfd);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		struct thread *t;
		uint32_t tid;
		char comm_name[32];

		if (!parse_id(de->d_name, &tid) || tid == p->pid)
			continue;
		t = idtab_find(&m->threads, tid);
		if (!t || t->proc != p || t->state != THREAD_ALIVE)
			t = machine_thread_new(m, p, tid, p->comm);
		snprintf(comm_name, sizeof(comm_name), "%u/comm", tid);
		t->comm = read_comm(m, tfd, comm_name);
		if (!t->comm)
			t->comm = p->comm;
	}
	closedir(dir);
}

/* Returns 1 if pid was read, 0 if it vanished or is unreadable. */
static int synth_process(struct machine *m, int procfd, uint32_t pid)
{
	char name[32];
	const char *comm;
	unsigned long nthreads;
	struct synth_ctx ctx = { m, NULL };
	struct thread *t;

	snprintf(name, sizeof(name), "%u/stat", pid);
	/* Missing: gone between readdir and here. */
	if (procfs_read(&m->procfs, procfd, name, true) <= 0 ||
	    !procfs_parse_stat(m->procfs.buf, &comm, &nthreads))
		return 0;
	comm = intern(comm);
	t = machine_thread_get(m, pid, pid);
	ctx.p = t->proc;
	ctx.p->comm = comm;
	t->comm = comm;
	/* Kernel threads have no maps; other users' need ptrace access. */
	machine_maps_flush(m, ctx.p);
	snprintf(name, sizeof(name), "%u/maps", pid);
	procfs_read_maps(&m->procfs, procfd, name, PROCFS_MAPS_AUTO, synth_map, &ctx);
	if (nthreads != 1) {
		snprintf(name, sizeof(name), "%u/task", pid);
		synth_threads(m, ctx.p, procfd, name);
	}
	return 1;
}

/* The pids of /proc, read in one pass of getdents (no stat per entry). */
static int synth_list_all(int procfd, uint32_t **pids, size_t *n)
{
	int fd = dup(procfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t cap = 0;

	if (!dir) {
		int err = -errno;

		if (fd >= 0)
			close(fd);
		return err;
	}
	while ((de = readdir(dir)) != NULL) {
		uint32_t pid;

		if (!parse_id(de->d_name, &pid))
			continue;
		*pids = xgrow(*pids, &cap, *n + 1, sizeof(**pids));
		(*pids)[(*n)++] = pid;
	}
	closedir(dir);
	return 0;
}

void synth_end(struct machine *m)
{
	struct synth_sweep *sw = &m->sweep;

	if (sw->procfd >= 0)
		close(sw->procfd);
	sw->procfd = -1;
	free(sw->pids);
	sw->pids = NULL;
	sw->n = sw->next = 0;
}

int machine_synthesize_begin(struct machine *m, const pid_t *pids, size_t npids)
{
	struct synth_sweep *sw = &m->sweep;
	size_t i;
	int err;

	synth_end(m);
	sw->done = 0;
	sw->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sw->procfd < 0)
		return -errno;
	if (npids) {
		sw->pids = xmalloc(npids * sizeof(*sw->pids));
		for (i = 0; i < npids; i++)
			sw->pids[i] = (uint32_t)pids[i];
		sw->n = npids;
	} else if ((err = synth_list_all(sw->procfd, &sw->pids, &sw->n)) < 0) {
		synth_end(m);
		return err;
	}
	if (!sw->n)
		synth_end(m);
	return (int)sw->n;
}

size_t machine_synthesize_step(struct machine *m, size_t max)
{
	struct synth_sweep *sw = &m->sweep;

	while (max-- && sw->next < sw->n) {
		uint32_t pid = sw->pids[sw->next++];

		/* Read already (a record asked for it), or known from the
		 * records themselves (a FORK): those are newer than /proc. */
		if (!idtab_find(&m->procs, pid))
			sw->done += (size_t)synth_process(m, sw->procfd, pid);
	}
	if (sw->next < sw->n)
		return sw->n - sw->next;
	synth_end(m);
	return 0;
}

void machine_synthesize_pid(struct machine *m, uint32_t pid)
{
	struct synth_sweep *sw = &m->sweep;

	if (sw->procfd >= 0 && !idtab_find(&m->procs, pid))
		sw->done += (size_t)synth_process(m, sw->procfd, pid);
}

bool machine_synthesizing(const struct machine *m)
{
	return m->sweep.procfd >= 0;
}

int machine_synthesize(struct machine *m, const pid_t *pids, size_t npids)
{
	int n = machine_synthesize_begin(m, pids, npids);

	if (n < 0)
		return n;
	while (machine_synthesize_step(m, SIZE_MAX))
		;
	return (int)m->sweep.done;
}
