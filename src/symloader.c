/* The symbol loader: one worker thread for DSO symbol tables and perf map
 * reads, one for --debuginfod fetches, each behind a FIFO of jobs (struct
 * jobq) under one lock.
 *
 * Symbol loading (machine_set_async): ingestion never waits for a symbol
 * table.  The first machine_resolve that needs a DSO's symbols queues the
 * DSO for the loader thread (state NONE -> QUEUED) and reports the address
 * as pending: out->dso is set, out->sym is NULL and out->addr is the file
 * offset.  The caller keeps such samples raw, as (dso, file offset) per
 * frame, and folds them in with machine_resolve_deferred once
 * machine_dso_pending says the DSO is done: no sample is lost, and none is
 * filed under [unknown] (or a wrong name) for being early.
 *
 * Threads: only the loader thread runs libelf/libdw.  Everything the loader
 * reads from a DSO (paths, expected build ID, identity, pid hint) is frozen
 * once the DSO leaves NONE; everything it writes (img) is published by the
 * release store of the final state, read with acquire by the engine.  The
 * DSO objects themselves are freed only after the thread is joined.
 *
 * --debuginfod fetches run on a thread of their own (one at a time), so
 * that a slow or hanging server holds only the DSO that waits for it: the
 * loader reads that DSO's ELF symbols, hands it to the fetch thread still
 * QUEUED, and goes on with the next; the fetch thread merges the debug
 * file (or gives up) and publishes the state.  The kernel's symbols load
 * on a thread of their own (kernel.c), counted in busy like a job. */
#include "config.h"

#include "symloader.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "machine-impl.h"
#include "util.h"

/* Under l->lock: one job (or fetch) is over.  A DSO's state was
 * published before: machine_dso_settle, waiting under the lock for that
 * state, wakes here.  (No waiter: the broadcast makes no system call.) */
static void symloader_done_locked(struct symloader *l)
{
	__atomic_store_n(&l->done_total, l->done_total + 1, __ATOMIC_RELEASE);
	l->busy--;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&l->done);
	if (l->busy == 0)
		pthread_cond_broadcast(&l->idle);
}

void symloader_busy(struct symloader *l)
{
	pthread_mutex_lock(&l->lock);
	l->busy++;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->lock);
}

void symloader_unbusy(struct symloader *l)
{
	pthread_mutex_lock(&l->lock);
	l->busy--;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	if (l->busy == 0)
		pthread_cond_broadcast(&l->idle);
	pthread_mutex_unlock(&l->lock);
}

/* Under l->lock: append job and wake q's thread. */
static void jobq_push(struct jobq *q, struct loader_job job)
{
	if (q->count == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64, i;
		struct loader_job *nv = xmalloc(ncap * sizeof(*nv));

		for (i = 0; i < q->count; i++)
			nv[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = nv;
		q->cap = ncap;
		q->head = 0;
	}
	q->v[(q->head + q->count) % q->cap] = job;
	q->count++;
	pthread_cond_signal(&q->wake);
}

/* Under l->lock: take the oldest job (count > 0). */
static struct loader_job jobq_pop(struct jobq *q)
{
	struct loader_job job = q->v[q->head];

	q->head = (q->head + 1) % q->cap;
	q->count--;
	return job;
}

/* A worker: run q's jobs in order until stop. */
static void *jobq_main(void *arg)
{
	struct jobq *q = arg;
	struct symloader *l = q->l;

	pthread_mutex_lock(&l->lock);
	for (;;) {
		struct loader_job job;
		bool done;

		while (!l->stop && q->count == 0)
			pthread_cond_wait(&q->wake, &l->lock);
		if (l->stop)
			break;
		job = jobq_pop(q);
		pthread_mutex_unlock(&l->lock);
		done = q->run(q->m, job);
		pthread_mutex_lock(&l->lock);
		if (done)
			symloader_done_locked(l);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

/* Start q's thread.  Returns 0 or -errno. */
static int jobq_start(struct jobq *q, struct machine *m,
		      bool (*run)(struct machine *m, struct loader_job job))
{
	int err;

	q->l = &m->loader;
	q->m = m;
	q->run = run;
	pthread_cond_init(&q->wake, NULL);
	err = pthread_create(&q->thread, NULL, jobq_main, q);
	if (err) {
		pthread_cond_destroy(&q->wake);
		return -err;
	}
	q->started = true;
	return 0;
}

/* After stop: wait for q's thread to end. */
static void jobq_join(struct jobq *q)
{
	if (!q->started)
		return;
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->wake);
	q->started = false;
}

/* The loader's job: a DSO's symbols (false when it went on to the fetch
 * thread), or a read of a perf map. */
static bool symloader_load_run(struct machine *m, struct loader_job job)
{
	if (job.jit) {
		jitmap_read(job.jit, 0);
		return true;
	}
	return dso_load_symbols(m, job.dso, true);
}

/* The fetch thread's job: job.dso's ELF symbols are in (the loader read
 * them): LOADED with or without the fetched debug file. */
static bool symloader_fetch_run(struct machine *m, struct loader_job job)
{
	dso_fetch_debuginfo(m, job.dso);
	__atomic_store_n(&job.dso->state, DSO_SYMS_LOADED, __ATOMIC_RELEASE);
	return true;
}

/* Loader thread: hand d (loaded, still QUEUED) to the fetch thread,
 * started at the first call.  False when it cannot be started: then the
 * loader fetches itself. */
bool symloader_fetch(struct machine *m, struct dso *d)
{
	struct symloader *l = &m->loader;
	bool ok = true;

	pthread_mutex_lock(&l->lock);
	if (!l->fetch.started)
		ok = jobq_start(&l->fetch, m, symloader_fetch_run) == 0;
	if (ok)
		jobq_push(&l->fetch, (struct loader_job){ d, NULL });
	pthread_mutex_unlock(&l->lock);
	return ok;
}

/* Hand a job to the loader thread (engine thread): DSO d in state NONE,
 * or a read of map j (LOADING). */
void symloader_push(struct machine *m, struct dso *d, struct jitmap *j)
{
	struct symloader *l = &m->loader;

	if (d)
		d->state = DSO_SYMS_QUEUED;
	pthread_mutex_lock(&l->lock);
	jobq_push(&l->load, (struct loader_job){ d, j });
	l->queued_total++;
	l->busy++;
	__atomic_store_n(&l->busy_hint, l->busy, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&l->lock);
}

int machine_set_async(struct machine *m, bool async)
{
	struct symloader *l = &m->loader;
	int err;

	if (!async || l->load.started) {
		m->async = async && l->load.started;
		return 0;
	}
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->idle, NULL);
	pthread_cond_init(&l->done, NULL);
	err = jobq_start(&l->load, m, symloader_load_run);
	if (err) {
		pthread_mutex_destroy(&l->lock);
		pthread_cond_destroy(&l->idle);
		pthread_cond_destroy(&l->done);
		return err;
	}
	m->async = true;
	return 0;
}

size_t machine_symbols_loading(const struct machine *m)
{
	return m->loader.load.started ? __atomic_load_n(&m->loader.busy_hint, __ATOMIC_RELAXED) : 0;
}

uint64_t machine_symbols_ticket(const struct machine *m)
{
	return m->loader.queued_total;
}

uint64_t machine_symbols_loaded(const struct machine *m)
{
	return m->loader.load.started ? __atomic_load_n(&m->loader.done_total, __ATOMIC_ACQUIRE) :
					0;
}

bool machine_symbols_done(const struct machine *m, uint64_t ticket)
{
	return !m->loader.load.started ||
	       __atomic_load_n(&m->loader.done_total, __ATOMIC_ACQUIRE) >= ticket;
}

/* Wait on cv under l's lock until ready(l, arg), at most ms milliseconds
 * (< 0: no limit).  Returns whether it is ready. */
static bool symloader_wait(struct symloader *l, pthread_cond_t *cv,
			   bool (*ready)(const struct symloader *l, const void *arg),
			   const void *arg, int ms)
{
	struct timespec until;
	bool ok;

	clock_gettime(CLOCK_REALTIME, &until);
	if (ms >= 0) {
		until.tv_sec += ms / 1000;
		until.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&l->lock);
	while (!ready(l, arg)) {
		if (ms < 0)
			pthread_cond_wait(cv, &l->lock);
		else if (pthread_cond_timedwait(cv, &l->lock, &until) != 0)
			break;
	}
	ok = ready(l, arg);
	pthread_mutex_unlock(&l->lock);
	return ok;
}

static bool symloader_dso_in(const struct symloader *l, const void *d)
{
	(void)l;
	return !machine_dso_pending(d);
}

static bool symloader_idle(const struct symloader *l, const void *arg)
{
	(void)arg;
	return l->busy == 0;
}

bool machine_dso_settle(struct machine *m, struct dso *d, int ms)
{
	if (!d || d->kind != DSO_USER || d->jit)
		return true;
	if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_NONE) {
		if (!m->async) {
			dso_load_symbols(m, d, false);
			return true;
		}
		symloader_push(m, d, NULL);
	}
	/* d's job only, not the loader's others (nor the kernel's load):
	 * whoever publishes d's state (the loader, or the fetch thread)
	 * then takes the lock to count the job done, and wakes us. */
	return !machine_dso_pending(d) ||
	       symloader_wait(&m->loader, &m->loader.done, symloader_dso_in, d, ms);
}

void machine_wait_symbols(struct machine *m)
{
	machine_wait_symbols_for(m, -1);
}

bool machine_wait_symbols_for(struct machine *m, int ms)
{
	struct symloader *l = &m->loader;

	return !l->load.started || symloader_wait(l, &l->idle, symloader_idle, NULL, ms);
}

void symloader_stop(struct machine *m)
{
	struct symloader *l = &m->loader;

	if (!l->load.started)
		return;
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	/* A fetch under way gives up now, not at its timeout. */
	__atomic_store_n(&l->cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&l->load.wake);
	if (l->fetch.started)
		pthread_cond_signal(&l->fetch.wake);
	pthread_mutex_unlock(&l->lock);
	/* Joined before any DSO is freed: the threads may be loading one.
	 * The loader first: it may start the fetch thread. */
	jobq_join(&l->load);
	jobq_join(&l->fetch);
	/* DSOs left waiting for a fetch have their ELF symbols: LOADED, so
	 * that dso_free releases them. */
	while (l->fetch.count)
		__atomic_store_n(&jobq_pop(&l->fetch).dso->state, DSO_SYMS_LOADED,
				 __ATOMIC_RELEASE);
	free(l->fetch.v);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->idle);
	pthread_cond_destroy(&l->done);
	free(l->load.v);
}

void machine_set_debuginfod(struct machine *m, long timeout_ms)
{
	m->debuginfod_ms = timeout_ms > 0 ? timeout_ms : 0;
}

size_t machine_debuginfod_active(const struct machine *m)
{
	return __atomic_load_n(&m->debuginfod_active, __ATOMIC_RELAXED);
}
