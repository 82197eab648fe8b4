/* The unwinder thread and its bounded queue: a ring of slots, each a copy
 * of a sample's registers and kernel chain, its stack held in the perf
 * ring or copied (or a process's new maps, or its end), filled by the
 * engine thread, walked by the unwinder thread in order, and handed back
 * in the same order. */
#include "config.h"

#include "unwind-queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "source.h"
#include "unwind-test.h"
#include "util.h"

enum slot_kind {
	SLOT_SAMPLE,
	SLOT_MAPS,      /* pid's maps are now maps[] */
	SLOT_FORGET,    /* pid is gone */
};

/* A process's maps before its exec, for the samples queued then. */
struct uq_old_maps {
	struct unwind_map *maps;
	size_t n, cap;
	unsigned refs;            /* samples holding it */
};

struct slot {
	enum slot_kind kind;
	uint32_t pid;
	/* SLOT_SAMPLE: the sample, its callchain pointing at chain */
	struct sample s;
	const struct perf_event_attr *attr;
	uint64_t regs[64];
	struct uq_buf {
		unsigned char *p;
		size_t cap;
	} stack;                  /* from the queue's free buffers, till done */
	/* The stack read in place in the source's memory (s.stack), held
	 * till the slot is handed back or copied out (uq_unhold) */
	bool held;
	struct source_hold hold;
	/* Copied out while the thread walked it in place: the kernel may
	 * have written over it meanwhile, so it is walked again from the
	 * copy (the thread's, under lock). */
	bool rewalk;
	uint64_t *chain;          /* the kernel's part, PERF_CONTEXT_USER, frames */
	size_t chain_cap, nkernel, max;
	/* SLOT_MAPS */
	struct unwind_map *maps;
	size_t nmaps, map_cap;
	/* SLOT_SAMPLE queued across its process's exec (the engine's) */
	struct uq_old_maps *old;
	const char *old_comm;
};

struct unwind_queue {
	struct machine *m;
	struct unwinder *u;       /* the thread's */
	struct slot *slots;
	size_t nslots;            /* a power of 2 */
	/* Positions, counted from 0 for ever: the thread walks [done, tail),
	 * the engine takes back [head, done).  tail and head are the
	 * engine's, done the thread's (all three under lock where shared). */
	size_t head, tail, done;
	/* The engine's: slots filled up to here, handed to the thread (tail)
	 * at the end of each ingest pass (unwind_queue_flush), or when batch
	 * wait: a wakeup of the thread costs more than a walk.  done is
	 * read without the lock on the engine's side (atomic). */
	size_t filled, batch, publishes, unholds;
	/* Stacks are held in place in src's memory where it can (live) */
	struct source *src;
	pthread_mutex_t lock;
	pthread_cond_t work;      /* tail moved, or stop */
	pthread_cond_t idle;      /* done moved */
	bool sleeping, stop;
	size_t want;              /* the engine sleeps until done reaches it; 0: not */
	pthread_t thread;
	/* No thread: submit walks at once on the caller's thread (a
	 * recording, which waits for the walks anyway: handing each sample
	 * to a thread cost a stack copy and two wakeups). */
	bool inline_walks;
	/* pids the thread has state for (engine's, sorted); stale: their
	 * maps changed since they were sent */
	struct uq_pid {
		uint32_t pid;
		bool stale;
	} *sent;
	size_t nsent, sent_cap;
	/* Stack buffers free, the last freed on top: the few in flight are
	 * used again and again (warm in the cache, and only they resident),
	 * not one per slot round the ring. */
	struct uq_buf *bufs;
	size_t nbufs, bufs_cap;
	/* pids gone while the queue was full: their forget goes first when
	 * there is room (before any sample: a pid may come back) */
	uint32_t *late;
	size_t nlate, late_cap;
	/* the old maps of the sample unwind_queue_next returned last */
	struct uq_old_maps *cur_old;
	const char *cur_comm;
};

static struct slot *uq_slot(struct unwind_queue *q, size_t pos)
{
	return &q->slots[pos & (q->nslots - 1)];
}

/* A copy of the n bytes of stack at p, in sl's buffer. */
static const unsigned char *uq_copy_stack(struct unwind_queue *q, struct slot *sl,
					  const unsigned char *p, size_t n)
{
	if (!sl->stack.p && q->nbufs)
		sl->stack = q->bufs[--q->nbufs];
	if (n > sl->stack.cap)
		sl->stack.p = xgrow(sl->stack.p, &sl->stack.cap, n, 1);
	memcpy(sl->stack.p, p, n);
	return sl->stack.p;
}

static void uq_release(struct unwind_queue *q, struct slot *sl)
{
	if (sl->held) {
		source_release(q->src, &sl->hold);
		sl->held = false;
	}
}

/* A slot's work; a sample's walk ends in *o. */
static void uq_run(struct unwind_queue *q, struct slot *sl, enum unwind_outcome *o)
{
	size_t n;

	switch (sl->kind) {
	case SLOT_MAPS:
		unwind_set_maps(q->u, sl->pid, sl->maps, sl->nmaps);
		break;
	case SLOT_FORGET:
		unwind_forget(q->u, sl->pid);
		break;
	case SLOT_SAMPLE:
		n = unwind_sample(q->u, &sl->s, sl->attr, sl->chain + sl->nkernel + 1, sl->max, o);
		/* Without user frames, no PERF_CONTEXT_USER either. */
		sl->s.nr_callchain = n ? sl->nkernel + 1 + n : sl->nkernel;
		break;
	}
}

static bool uq_test_held;

void unwind_queue_test_hold(bool hold)
{
	__atomic_store_n(&uq_test_held, hold, __ATOMIC_RELEASE);
}

static void *uq_thread(void *arg)
{
	struct unwind_queue *q = arg;
	/* Started or woken since the test hook was read: it is read once a
	 * pass (the engine wakes the thread once an ingest pass), before the
	 * pass's first slot, which is taken (pos) so that uq_unhold sees it
	 * as under way, as check_unwind's test_queue_unhold needs. */
	bool woke = true;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		size_t pos;
		struct slot *sl;
		enum unwind_outcome o;

		while (q->done == q->tail && !q->stop) {
			q->sleeping = true;
			pthread_cond_wait(&q->work, &q->lock);
			q->sleeping = false;
			woke = true;
		}
		if (q->stop)
			break;
		pos = q->done;
		pthread_mutex_unlock(&q->lock);
		if (woke) {
			woke = false;
			while (__atomic_load_n(&uq_test_held, __ATOMIC_ACQUIRE))
				usleep(1000);
		}
		sl = uq_slot(q, pos);
		uq_run(q, sl, &o);
		pthread_mutex_lock(&q->lock);
		/* Copied out under the walk (uq_unhold): the walk may have
		 * read what the kernel wrote since; the copy is what was. */
		if (sl->rewalk) {
			sl->rewalk = false;
			sl->s.stack = sl->stack.p;
			pthread_mutex_unlock(&q->lock);
			unwind_uncount(q->u, o);
			uq_run(q, sl, &o);
			pthread_mutex_lock(&q->lock);
		}
		__atomic_store_n(&q->done, pos + 1, __ATOMIC_RELEASE);
		if (q->want && (q->done >= q->want || q->done == q->tail))
			pthread_cond_signal(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct unwind_queue *unwind_queue_new(struct machine *m, int e_machine, size_t slots)
{
	struct unwind_queue *q;
	struct unwinder *u = unwind_new(NULL, e_machine);
	size_t n = 1;

	if (!u)
		return NULL;
	while (n < slots)
		n *= 2;
	q = xcalloc(1, sizeof(*q));
	q->m = m;
	q->u = u;
	/* Inline: a sample and its process's maps, then one forget. */
	q->inline_walks = slots == 0;
	unwind_set_settle(u, q->inline_walks ? m : NULL);
	q->nslots = q->inline_walks ? 4 : n;
	/* Between flushes, a quarter of the queue: the thread is not left
	 * idle while the queue fills. */
	q->batch = q->inline_walks || q->nslots < 4 ? 1 : q->nslots / 4;
	q->slots = xcalloc(q->nslots, sizeof(*q->slots));
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->idle, NULL);
	if (!q->inline_walks && pthread_create(&q->thread, NULL, uq_thread, q)) {
		q->thread = 0;
		unwind_queue_free(q);
		return NULL;
	}
	return q;
}

static void uq_old_put(struct uq_old_maps *o)
{
	if (o && !--o->refs) {
		free(o->maps);
		free(o);
	}
}

/* The old maps of the sample returned last go with it. */
static void uq_old_release(struct unwind_queue *q)
{
	uq_old_put(q->cur_old);
	q->cur_old = NULL;
	q->cur_comm = NULL;
}

void unwind_queue_free(struct unwind_queue *q)
{
	size_t i;

	if (!q)
		return;
	if (q->thread) {
		pthread_mutex_lock(&q->lock);
		q->stop = true;
		pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
	}
	for (i = 0; i < q->nbufs; i++)
		free(q->bufs[i].p);
	free(q->bufs);
	uq_old_release(q);
	for (; q->head != q->filled; q->head++) {
		uq_old_put(uq_slot(q, q->head)->old);
		uq_release(q, uq_slot(q, q->head));
	}
	for (i = 0; i < q->nslots; i++) {
		free(q->slots[i].stack.p);
		free(q->slots[i].chain);
		free(q->slots[i].maps);
	}
	free(q->slots);
	free(q->sent);
	free(q->late);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->idle);
	unwind_free(q->u);
	free(q);
}

/* ---- the engine's side ---- */

/* Where pid is, or would be, in the sorted sent list. */
static size_t uq_sent_pos(const struct unwind_queue *q, uint32_t pid)
{
	size_t lo = 0, hi = q->nsent;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->sent[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* pid's entry in the sent list, or NULL. */
static struct uq_pid *uq_sent(struct unwind_queue *q, uint32_t pid)
{
	size_t i = uq_sent_pos(q, pid);

	return i < q->nsent && q->sent[i].pid == pid ? &q->sent[i] : NULL;
}

static void uq_sent_remove(struct unwind_queue *q, uint32_t pid)
{
	size_t i = uq_sent_pos(q, pid);

	if (i < q->nsent && q->sent[i].pid == pid) {
		memmove(q->sent + i, q->sent + i + 1, (q->nsent - i - 1) * sizeof(*q->sent));
		q->nsent--;
	}
}

static void uq_sent_add(struct unwind_queue *q, uint32_t pid)
{
	size_t i = uq_sent_pos(q, pid);

	if (i < q->nsent && q->sent[i].pid == pid) {
		q->sent[i].stale = false;
		return;
	}
	if (q->nsent == q->sent_cap)
		q->sent = xgrow(q->sent, &q->sent_cap, q->nsent + 1, sizeof(*q->sent));
	memmove(q->sent + i + 1, q->sent + i, (q->nsent - i) * sizeof(*q->sent));
	q->sent[i].pid = pid;
	q->sent[i].stale = false;
	q->nsent++;
}

static size_t uq_free_slots(const struct unwind_queue *q)
{
	return q->nslots - (q->filled - q->head);
}

/* The slots up to filled are filled: handed to the thread (inline: walked)
 * once a batch waits, or with force. */
static void uq_publish(struct unwind_queue *q, size_t filled, bool force)
{
	q->filled = filled;
	if (q->inline_walks) {
		enum unwind_outcome o;

		for (; q->tail < filled; q->tail++)
			uq_run(q, uq_slot(q, q->tail), &o);
		q->done = filled;
		return;
	}
	if (filled == q->tail || (!force && filled - q->tail < q->batch))
		return;
	q->publishes++;
	pthread_mutex_lock(&q->lock);
	q->tail = filled;
	if (q->sleeping)
		pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

/* The source is short of room: every stack still held is copied out and
 * released, the one being walked too (walked again from the copy), so the
 * kernel never waits for the thread.  The lock keeps the thread from
 * starting a slot meanwhile (it only ever holds it briefly). */
static void uq_unhold(struct unwind_queue *q)
{
	size_t pos, done;

	pthread_mutex_lock(&q->lock);
	done = q->done;
	for (pos = q->head; pos != q->filled; pos++) {
		struct slot *sl = uq_slot(q, pos);

		if (!sl->held)
			continue;
		if (pos >= done) {
			uq_copy_stack(q, sl, sl->s.stack, sl->s.stack_size);
			if (pos == done && done != q->tail)
				sl->rewalk = true;
			else
				sl->s.stack = sl->stack.p;
		}
		uq_release(q, sl);
	}
	pthread_mutex_unlock(&q->lock);
	q->unholds++;
}

void unwind_queue_flush(struct unwind_queue *q)
{
	if (q->src && source_short_of_room(q->src))
		uq_unhold(q);
	uq_publish(q, q->filled, true);
}

void unwind_queue_set_source(struct unwind_queue *q, struct source *src)
{
	if (!q->inline_walks)
		q->src = src;
}

/* Queue the forgets that waited for room; false while some still wait. */
static bool uq_flush_late(struct unwind_queue *q)
{
	size_t tail = q->filled, i = 0;

	for (; i < q->nlate && tail - q->head < q->nslots; i++) {
		struct slot *sl = uq_slot(q, tail++);

		sl->kind = SLOT_FORGET;
		sl->pid = q->late[i];
	}
	if (i) {
		memmove(q->late, q->late + i, (q->nlate - i) * sizeof(*q->late));
		q->nlate -= i;
		uq_publish(q, tail, false);
	}
	return !q->nlate;
}

int unwind_queue_submit(struct unwind_queue *q, const struct sample *s,
			const struct perf_event_attr *attr, size_t max)
{
	const struct uq_pid *known;
	bool maps;
	size_t tail, i, need;
	struct slot *sl;

	if (q->nlate && !uq_flush_late(q))
		return -EAGAIN;
	known = uq_sent(q, s->sid.pid);
	maps = !known || known->stale;
	tail = q->filled;
	if (uq_free_slots(q) < 1u + maps) {
		/* Full: what waits goes to the thread, to make room. */
		uq_publish(q, tail, true);
		return -EAGAIN;
	}
	if (maps) {
		sl = uq_slot(q, tail++);
		sl->kind = SLOT_MAPS;
		sl->pid = s->sid.pid;
		sl->nmaps = unwind_maps_collect(q->m, s->sid.pid, &sl->maps, &sl->map_cap);
		uq_sent_add(q, s->sid.pid);
	}
	sl = uq_slot(q, tail++);
	sl->kind = SLOT_SAMPLE;
	sl->pid = s->sid.pid;
	sl->attr = attr;
	sl->s = *s;
	sl->s.raw = NULL;
	sl->s.raw_size = 0;
	sl->s.nr_regs = s->nr_regs < 64 ? s->nr_regs : 64;
	if (s->regs && sl->s.nr_regs)
		memcpy(sl->regs, s->regs, sl->s.nr_regs * sizeof(*s->regs));
	sl->s.regs = s->regs ? sl->regs : NULL;
	/* Inline, the walk is done before s goes: no copy.  Live, the stack
	 * is read where the kernel wrote it, held there till the walk is
	 * done; else (the record wrapped, the ring is short of room) it is
	 * copied. */
	sl->held = false;
	if (!s->stack_size && !q->inline_walks)
		sl->s.stack = NULL;
	else if (!q->inline_walks && q->src &&
		 source_hold(q->src, s->stack, s->stack_size, &sl->hold))
		sl->held = true;
	else if (!q->inline_walks)
		sl->s.stack = uq_copy_stack(q, sl, s->stack, s->stack_size);
	/* The kernel's part of the chain (all of it: exclude_callchain_user),
	 * then room for PERF_CONTEXT_USER and max frames. */
	for (i = 0; i < s->nr_callchain && s->callchain[i] != PERF_CONTEXT_USER; i++)
		;
	need = i + 1 + max;
	if (need > sl->chain_cap)
		sl->chain = xgrow(sl->chain, &sl->chain_cap, need, sizeof(*sl->chain));
	if (i)
		memcpy(sl->chain, s->callchain, i * sizeof(*sl->chain));
	sl->chain[i] = PERF_CONTEXT_USER;
	sl->nkernel = i;
	sl->max = max;
	sl->s.callchain = sl->chain;
	sl->s.nr_callchain = i;
	uq_publish(q, tail, false);
	return 0;
}

/* Under the lock: sleep until done reaches want, or all is done. */
static void uq_wait(struct unwind_queue *q, size_t want)
{
	while (q->done < want && q->done != q->tail) {
		q->want = want;
		pthread_cond_wait(&q->idle, &q->lock);
	}
	q->want = 0;
}

void unwind_queue_wait(struct unwind_queue *q, size_t n)
{
	uq_publish(q, q->filled, true);
	pthread_mutex_lock(&q->lock);
	uq_wait(q, q->head + n);
	pthread_mutex_unlock(&q->lock);
}

size_t unwind_queue_slots(const struct unwind_queue *q)
{
	return q->nslots;
}

const struct sample *unwind_queue_next(struct unwind_queue *q,
				       const struct perf_event_attr **attr, bool wait)
{
	for (;;) {
		size_t done;
		struct slot *sl;

		if (wait) {
			uq_publish(q, q->filled, true);
			pthread_mutex_lock(&q->lock);
			uq_wait(q, q->head + 1);
			pthread_mutex_unlock(&q->lock);
		}
		/* Called for every record: no lock, the thread's release
		 * store of done (after the walk) pairs with this. */
		done = __atomic_load_n(&q->done, __ATOMIC_ACQUIRE);
		if (q->head == done) {
			/* Room made by earlier calls: forgets that waited. */
			if (q->nlate)
				uq_flush_late(q);
			return NULL;
		}
		uq_old_release(q);
		sl = uq_slot(q, q->head++);
		uq_release(q, sl);
		sl->s.regs = NULL;
		sl->s.stack = NULL;
		if (sl->stack.p) {
			if (q->nbufs == q->bufs_cap)
				q->bufs = xgrow(q->bufs, &q->bufs_cap, q->nbufs + 1, sizeof(*q->bufs));
			q->bufs[q->nbufs++] = sl->stack;
			sl->stack.p = NULL;
			sl->stack.cap = 0;
		}
		if (sl->kind == SLOT_SAMPLE) {
			q->cur_old = sl->old;
			q->cur_comm = sl->old_comm;
			sl->old = NULL;
			*attr = sl->attr;
			return &sl->s;
		}
	}
}

size_t unwind_queue_pending(const struct unwind_queue *q)
{
	return q->filled - q->head;
}

void unwind_queue_exec(struct unwind_queue *q, uint32_t pid)
{
	struct uq_old_maps *o = NULL;
	size_t pos;

	/* The thread reads none of what is written here: the slots it may
	 * be walking are only given fields of the engine's. */
	for (pos = q->head; pos != q->filled; pos++) {
		struct slot *sl = uq_slot(q, pos);

		if (sl->kind != SLOT_SAMPLE || sl->pid != pid || sl->old)
			continue;
		if (!o) {
			o = xcalloc(1, sizeof(*o));
			o->n = unwind_maps_collect(q->m, pid, &o->maps, &o->cap);
		}
		o->refs++;
		sl->old = o;
		sl->old_comm = machine_comm_of(q->m, pid, sl->s.sid.tid);
	}
}

const struct unwind_map *unwind_queue_old_maps(const struct unwind_queue *q, size_t *n,
					       const char **comm)
{
	if (!q->cur_old)
		return NULL;
	*n = q->cur_old->n;
	*comm = q->cur_comm;
	return q->cur_old->maps;
}

void unwind_queue_maps_changed(struct unwind_queue *q, uint32_t pid)
{
	struct uq_pid *known = uq_sent(q, pid);

	if (known)
		known->stale = true;
}

void unwind_queue_forget(struct unwind_queue *q, uint32_t pid)
{
	struct slot *sl;

	if (!uq_sent(q, pid))
		return;
	uq_sent_remove(q, pid);
	/* The thread's state for pid must go, or a system-wide run keeps
	 * that of every process it saw: when the queue is full, later. */
	if (q->nlate || !uq_free_slots(q)) {
		q->late = xgrow(q->late, &q->late_cap, q->nlate + 1, sizeof(*q->late));
		q->late[q->nlate++] = pid;
		return;
	}
	sl = uq_slot(q, q->filled);
	sl->kind = SLOT_FORGET;
	sl->pid = pid;
	uq_publish(q, q->filled + 1, false);
}

void unwind_queue_counts(const struct unwind_queue *q, uint64_t out[UNWIND_NOUTCOMES])
{
	unwind_counts(q->u, out);
}

void unwind_queue_count_dropped(struct unwind_queue *q)
{
	unwind_count(q->u, UNWIND_DROPPED);
}

size_t unwind_queue_test_buffers(const struct unwind_queue *q)
{
	size_t i, n = q->nbufs;

	for (i = 0; i < q->nslots; i++)
		n += q->slots[i].stack.p != NULL;
	return n;
}

size_t unwind_queue_test_publishes(const struct unwind_queue *q)
{
	return q->publishes;
}

size_t unwind_queue_test_held(const struct unwind_queue *q, size_t *unholds)
{
	size_t i, n = 0;

	for (i = 0; i < q->nslots; i++)
		n += q->slots[i].held;
	*unholds = q->unholds;
	return n;
}

size_t unwind_queue_test_procs(const struct unwind_queue *q)
{
	return unwind_test_procs(q->u);
}
