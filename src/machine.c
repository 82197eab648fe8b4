/* Machine state: threads and processes in id-keyed hash tables, per-process
 * sorted exec map lists, and resolution: "what is at this ip in this
 * thread".  The DSOs the maps point to (dso.c), perf maps (jitmap.c), the
 * symbol loader threads (symloader.c), the kernel (kernel.c) and the /proc
 * synthesis (synth.c) are the machine's other modules; they share its
 * structs through machine-impl.h. */
#include "config.h"

#include "machine.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "elfsyms.h"
#include "machine-impl.h"
#include "procfs.h"
#include "symtab.h"
#include "util.h"
#include "vdso.h"

/* ---- machine, processes, threads ---- */

struct machine *machine_new(void)
{
	struct machine *m = xcalloc(1, sizeof(*m));
	struct thread *idle;

	/* The idle task (pid 0) never appears in /proc or in FORK records,
	 * yet every CPU samples it. */
	procfs_init(&m->procfs);
	m->sweep.procfd = -1;
	idle = machine_thread_get(m, 0, 0);
	idle->comm = idle->proc->comm = intern("swapper");
	return m;
}

static void process_free(struct machine *m, struct process *p)
{
	if (p->in_table)
		idtab_remove(&m->procs, p);
	m->stats.maps -= p->nmaps;
	jitmap_release(m, p);
	free(p->maps);
	free(p);
	m->stats.processes = m->procs.n;
}

void machine_free(struct machine *m)
{
	size_t i;

	if (!m)
		return;
	/* Every thread joined before anything is freed: the kernel thread
	 * first (it uses the loader's lock), then the loader's. */
	kernel_free(m);
	symloader_stop(m);
	for (i = 0; i < m->threads.n; i++) {
		struct thread *t = m->threads.objs[i];

		/* Processes are freed through their last thread only. */
		if (t && --t->proc->nthreads == 0) {
			free(t->proc->maps);
			free(t->proc);
		}
		free(t);
	}
	idtab_release(&m->threads);
	idtab_release(&m->procs);
	dso_table_free(m);
	free(m->gcbuf);
	procfs_release(&m->procfs);
	synth_end(m);
	jitmap_free_all(m);
	if (m->vdso_state > 0)
		elfsyms_release(&m->vdso_img);
	free(m);
}

static struct process *process_new(struct machine *m, uint32_t pid)
{
	struct process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->in_table = true;
	p->born = m->now;
	idtab_insert(&m->procs, p);
	m->stats.processes = m->procs.n;
	return p;
}

/* Take p out of the pid table (its pid was reused) and retire its threads:
 * they stay resolvable until gc, like exited ones. */
static void process_detach(struct machine *m, struct process *p)
{
	size_t i;

	idtab_remove(&m->procs, p);
	p->in_table = false;
	m->stats.processes = m->procs.n;
	for (i = 0; i < m->threads.n; i++) {
		struct thread *t = m->threads.objs[i];

		if (t && t->proc == p && t->state == THREAD_ALIVE)
			t->state = THREAD_EXITED;
	}
}

static void thread_free(struct machine *m, struct thread *t)
{
	idtab_remove(&m->threads, t);
	m->stats.threads = m->threads.n;
	if (--t->proc->nthreads == 0)
		process_free(m, t->proc);
	free(t);
}

/* A new thread tid in p, replacing any older thread with that tid. */
struct thread *machine_thread_new(struct machine *m, struct process *p, uint32_t tid,
				  const char *comm)
{
	struct thread *old = idtab_find(&m->threads, tid);
	struct thread *t = xcalloc(1, sizeof(*t));

	t->tid = tid;
	t->pid = p->pid;
	t->comm = comm;
	t->proc = p;
	t->born = m->now;
	p->nthreads++;
	/* Free the old one only now: it may hold the last reference to p. */
	if (old)
		thread_free(m, old);
	idtab_insert(&m->threads, t);
	m->stats.threads = m->threads.n;
	return t;
}

/* The live thread tid of process pid, created (with its process) if needed. */
struct thread *machine_thread_get(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = idtab_find(&m->threads, tid);
	struct process *p;

	if (t && t->pid == pid && t->state == THREAD_ALIVE)
		return t;
	p = idtab_find(&m->procs, pid);
	if (!p)
		p = process_new(m, pid);
	return machine_thread_new(m, p, tid, p->comm);
}

/* ---- maps ---- */

/* Index of the first map ending after addr. */
static size_t maps_lower(const struct process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The map holding addr: only a code map with code_only (a data map's
 * range is unmapped for code), else code or data. */
static inline const struct map *maps_find(const struct process *p, uint64_t addr,
					  bool code_only)
{
	size_t i = maps_lower(p, addr);

	if (i < p->nmaps && p->maps[i].start <= addr &&
	    (!code_only || p->maps[i].kind == MAP_CODE))
		return &p->maps[i];
	return NULL;
}

/* Map [start, end) to dso (or only unmap the range when dso is NULL), the
 * way mmap replaces what was there: overlapped maps keep their pieces
 * outside the range. */
static void maps_insert(struct machine *m, struct process *p, uint64_t start,
			uint64_t end, uint64_t pgoff, struct dso *dso, enum map_kind kind)
{
	size_t lo = maps_lower(p, start), hi = lo, nnew, i;
	struct map left = { 0 }, right = { 0 };
	bool has_left = false, has_right = false;

	if (end <= start)
		return;
	while (hi < p->nmaps && p->maps[hi].start < end)
		hi++;
	if (lo < hi && p->maps[lo].start < start) {
		left = p->maps[lo];
		left.end = start;
		has_left = true;
	}
	if (lo < hi && p->maps[hi - 1].end > end) {
		right = p->maps[hi - 1];
		right.pgoff += end - right.start;
		right.start = end;
		has_right = true;
	}
	nnew = has_left + (dso != NULL) + has_right;
	p->maps = xgrow(p->maps, &p->mapcap, p->nmaps - (hi - lo) + nnew, sizeof(*p->maps));
	/* A data map unmapping nothing in a process with no maps leaves
	 * p->maps NULL: memmove must not see it (UB even for 0 bytes). */
	if (p->nmaps > hi)
		memmove(&p->maps[lo + nnew], &p->maps[hi], (p->nmaps - hi) * sizeof(*p->maps));
	m->stats.maps -= p->nmaps;
	p->nmaps = p->nmaps - (hi - lo) + nnew;
	m->stats.maps += p->nmaps;
	i = lo;
	if (has_left)
		p->maps[i++] = left;
	if (dso)
		p->maps[i++] = (struct map){ start, end, pgoff, dso, (uint8_t)kind };
	if (has_right)
		p->maps[i++] = right;
}

void machine_maps_flush(struct machine *m, struct process *p)
{
	m->stats.maps -= p->nmaps;
	p->nmaps = 0;
}

static void maps_copy(struct machine *m, struct process *dst, const struct process *src)
{
	machine_maps_flush(m, dst);
	dst->maps = xgrow(dst->maps, &dst->mapcap, src->nmaps, sizeof(*dst->maps));
	if (src->nmaps)    /* maps may be NULL: memcpy(NULL, NULL, 0) is undefined */
		memcpy(dst->maps, src->maps, src->nmaps * sizeof(*src->maps));
	dst->nmaps = src->nmaps;
	m->stats.maps += dst->nmaps;
}

/* ---- side-band events ---- */

void machine_map_event(struct machine *m, struct process *p, const struct mmap_event *ev)
{
	struct dso *d = NULL;
	/* MMAP records carry no prot (0 here) and are exec maps; an MMAP2
	 * without PROT_EXEC (attr.mmap_data) still replaces what was there. */
	bool exec = ev->prot == 0 || (ev->prot & PROT_EXEC);
	enum map_kind mkind = exec ? MAP_CODE : (ev->prot & PROT_WRITE) ? MAP_DATA_RW : MAP_DATA_RO;

	if (exec || m->data_maps) {
		const char *path = ev->filename ? ev->filename : "";
		enum dso_kind kind = dso_kind_from_path(path);
		bool has_id = ev->has_build_id && ev->build_id_size &&
			      ev->build_id_size <= sizeof(d->build_id);
		enum dso_ident ident = kind != DSO_USER ? DSO_IDENT_PATH :
				       has_id ? DSO_IDENT_BUILD_ID :
				       ev->ino ? DSO_IDENT_INODE : DSO_IDENT_PATH;

		d = dso_lookup(m, path, kind, ident, ev->build_id, ev->build_id_size, ev->ino);
		/* A DSO still unloaded learns the stronger identity (its
		 * fields are frozen once queued: the loader reads them). */
		if (d->state == DSO_SYMS_NONE && kind == DSO_USER && ident > d->ident) {
			d->ident = ident;
			d->maj = ev->maj;
			d->min = ev->min;
			d->ino = ev->ino;
			if (has_id)
				dso_expect_build_id(d, ev->build_id, ev->build_id_size);
		}
		if (d->state == DSO_SYMS_NONE && !d->hint_pid && p->pid) {
			d->hint_pid = p->pid;
			d->hint_start = ev->start;
			d->hint_end = ev->start + ev->len;
		}
	}
	maps_insert(m, p, ev->start, ev->start + ev->len, ev->pgoff, d, mkind);
}

void machine_keep_data_maps(struct machine *m)
{
	m->data_maps = true;
	m->procfs.data_vmas = true;
}

void machine_set_time(struct machine *m, uint64_t time)
{
	m->now = time;
}

void machine_mmap(struct machine *m, const struct mmap_event *ev)
{
	/* pid -1: the kernel's own maps (perf.data); kernel addresses are
	 * resolved through kallsyms instead. */
	if (ev->pid == (uint32_t)-1)
		return;
	machine_map_event(m, machine_thread_get(m, ev->pid, ev->tid)->proc, ev);
}

void machine_comm(struct machine *m, const struct comm_event *ev)
{
	struct thread *t = machine_thread_get(m, ev->pid, ev->tid);
	const char *comm = intern(ev->comm ? ev->comm : "");

	t->comm = comm;
	if (ev->exec) {
		/* The new image's MMAP2s follow. */
		machine_maps_flush(m, t->proc);
		/* A new program: its own perf map (the machine keeps the old
		 * where it named samples). */
		jitmap_release(m, t->proc);
		t->proc->comm = comm;
		t->proc->execd = true;
	} else if (ev->tid == ev->pid || !t->proc->comm) {
		t->proc->comm = comm;
	}
}

void machine_fork(struct machine *m, const struct task_event *ev)
{
	struct thread *parent = idtab_find(&m->threads, ev->ptid);
	struct process *pp = idtab_find(&m->procs, ev->ppid), *p;
	const char *comm;

	if (parent && parent->pid != ev->ppid)
		parent = NULL;
	if (!pp && parent)
		pp = parent->proc;
	comm = parent && parent->comm ? parent->comm : pp ? pp->comm : NULL;
	if (ev->pid != ev->ppid) {
		p = idtab_find(&m->procs, ev->pid);
		if (p && ev->time && p->born > ev->time) {
			/* The child's own records (read from another CPU's ring,
			 * its EXIT maybe among them) came before this FORK: keep
			 * what they built, exited threads included. */
			if (!p->comm)
				p->comm = comm;
			if (pp && pp != p && p->nmaps == 0 && !p->execd)
				maps_copy(m, p, pp);
			if (!idtab_find(&m->threads, ev->tid))
				machine_thread_new(m, p, ev->tid, comm);
			return;
		}
		/* A new process; an existing one with that pid exited: pid reuse. */
		if (p)
			process_detach(m, p);
		p = process_new(m, ev->pid);
		p->comm = comm;
		if (pp)
			maps_copy(m, p, pp);
	} else {
		struct thread *t = idtab_find(&m->threads, ev->tid);

		p = idtab_find(&m->procs, ev->pid);
		if (!p)
			p = process_new(m, ev->pid);
		if (!p->comm)
			p->comm = comm;
		/* The new thread's records came first: keep its state. */
		if (t && t->proc == p && ev->time && t->born > ev->time)
			return;
	}
	machine_thread_new(m, p, ev->tid, comm);
}

void machine_exit(struct machine *m, const struct task_event *ev)
{
	struct thread *t = idtab_find(&m->threads, ev->tid);

	/* An EXIT read before the FORK that made the thread (rings of other
	 * CPUs): record the thread as exited, so the late FORK finds it born
	 * after itself and does not bring it back to life for ever. */
	if (!t || t->pid != ev->pid)
		t = machine_thread_get(m, ev->pid, ev->tid);
	if (t->state == THREAD_ALIVE)
		t->state = THREAD_EXITED;
}

void machine_gc(struct machine *m)
{
	size_t i, n = 0;

	/* Collect first: removal moves the last thread into the hole and would upset the scan. */
	for (i = 0; i < m->threads.n; i++) {
		struct thread *t = m->threads.objs[i];

		if (!t || t->state == THREAD_ALIVE)
			continue;
		if (t->state == THREAD_EXITED) {
			t->state = THREAD_EXITED_GC;
			continue;
		}
		m->gcbuf = xgrow(m->gcbuf, &m->gccap, n + 1, sizeof(*m->gcbuf));
		m->gcbuf[n++] = t;
	}
	for (i = 0; i < n; i++)
		thread_free(m, m->gcbuf[i]);
}

void machine_set_live(struct machine *m, bool live)
{
	m->live = live;
	m->vdso_allowed |= live;
}

/* ---- resolution ---- */

/* [vdso] code at offset out->addr of map: named from our own vdso image
 * when the map has its size (a 32-bit process's vdso is another image). */
static void resolve_vdso(struct machine *m, const struct map *map, struct resolved *out)
{
	const void *image;
	size_t size, map_size;
	uint64_t vaddr;

	if (!m->vdso_allowed)
		return;
	if (m->vdso_state == 0) {
		m->vdso_state = -1;
		if (vdso_self(&image, &size, &map_size) == 0 &&
		    elfsyms_load_memory(image, size, &m->vdso_img) == 0) {
			m->vdso_state = 1;
			m->vdso_map_size = map_size;
		}
	}
	if (m->vdso_state < 0 || map->end - map->start != m->vdso_map_size ||
	    elfsyms_offset_to_vaddr(&m->vdso_img, out->addr, &vaddr) != 0)
		return;
	out->addr = vaddr;
	out->sym = symtab_lookup(m->vdso_img.symtab, vaddr);
}

static void resolve_map(struct machine *m, struct process *p, const struct map *map,
			uint64_t ip, struct resolved *out)
{
	struct dso *d = map->dso;
	uint64_t file_off = ip - map->start + map->pgoff;
	int state;

	out->dso = d;
	switch (d->kind) {
	case DSO_USER:
		state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
		if (state == DSO_SYMS_NONE) {
			if (m->async) {
				symloader_push(m, d, NULL);
				state = DSO_SYMS_QUEUED;
			} else {
				dso_load_symbols(m, d, false);
				state = d->state;
			}
		}
		if (state == DSO_SYMS_QUEUED) {
			out->pending = true;
			out->addr = file_off;
			break;
		}
		dso_symbolize(d, state, file_off, out);
		break;
	case DSO_VDSO:
		/* pgoff means nothing for [vdso]. */
		out->addr = ip - map->start;
		resolve_vdso(m, map, out);
		break;
	default:
		/* Anonymous code (JIT): perf-PID.map uses absolute addresses. */
		out->addr = ip;
		if (d->kind == DSO_ANON)
			jitmap_resolve(m, p, ip, out, d);
		break;
	}
}

bool machine_dso_pending(const struct dso *d)
{
	if (d && d->jit)
		return __atomic_load_n(&d->jit->state, __ATOMIC_ACQUIRE) == JIT_LOADING;
	return d && __atomic_load_n(&d->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED;
}

bool machine_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, bool kernel,
			      struct resolved *out)
{
	int state;

	memset(out, 0, sizeof(*out));
	out->dso = d;
	out->kernel = kernel;
	out->addr = addr;
	if (d && d->jit) {
		if (__atomic_load_n(&d->jit->state, __ATOMIC_ACQUIRE) == JIT_LOADING) {
			out->pending = true;
			return false;
		}
		jitmap_resolve_deferred(m, d, addr, out);
		return true;
	}
	if (d && d->kind == DSO_KERNEL && kernel) {
		kernel_resolve(m, addr, out);
		return !out->pending;
	}
	if (!d || d->kind != DSO_USER)
		return true;
	state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
	if (state == DSO_SYMS_QUEUED || state == DSO_SYMS_NONE) {
		out->pending = true;
		return false;
	}
	dso_symbolize(d, state, addr, out);
	return true;
}

/* The process of a sample of pid/tid, or NULL.  The sample's pid is
 * authoritative: a thread filed under another pid is a stale entry for a
 * reused tid. */
static inline struct process *machine_process_of(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = idtab_find(&m->threads, tid);

	if (t && t->pid != pid)
		t = NULL;
	return t ? t->proc : idtab_find(&m->procs, pid);
}

void machine_resolve(struct machine *m, uint32_t pid, uint32_t tid,
		     uint16_t cpumode, uint64_t ip, struct resolved *out)
{
	struct process *p = machine_process_of(m, pid, tid);
	const struct map *map;

	memset(out, 0, sizeof(*out));
	cpumode &= PERF_RECORD_MISC_CPUMODE_MASK;
	if (!p)
		m->stats.unknown_thread++;
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		kernel_resolve(m, ip, out);
		return;
	case PERF_RECORD_MISC_GUEST_KERNEL:
		/* No guest symbols: a guest kernel address is [unknown]. */
		out->kernel = true;
		out->addr = ip;
		return;
	case PERF_RECORD_MISC_GUEST_USER:
	case PERF_RECORD_MISC_HYPERVISOR:
		out->addr = ip;
		return;
	default:
		break;
	}
	/* User or unknown mode: user maps first (some user code, like
	 * [vsyscall], sits in the top half), then the kernel half. */
	map = p ? maps_find(p, ip, true) : NULL;
	if (map) {
		resolve_map(m, p, map, ip, out);
		return;
	}
	if (ip >> 63) {
		kernel_resolve(m, ip, out);
		return;
	}
	out->addr = ip;
	/* Some JITs map code without telling perf (no MMAP2 record). */
	if (p && !jitmap_resolve(m, p, ip, out, NULL))
		m->stats.unmapped++;
}

void machine_resolve_map(struct machine *m, uint64_t start, uint64_t end, uint64_t pgoff,
			 struct dso *dso, uint64_t ip, struct resolved *out)
{
	struct map map = { start, end, pgoff, dso, MAP_CODE };

	memset(out, 0, sizeof(*out));
	/* Not anonymous code: its perf map is the process's (p, here NULL). */
	if (dso && dso->kind == DSO_USER)
		resolve_map(m, NULL, &map, ip, out);
	else
		out->addr = ip;
}

void machine_resolve_data(struct machine *m, uint32_t pid, uint32_t tid, uint64_t addr,
			  struct resolved *out)
{
	struct process *p = machine_process_of(m, pid, tid);
	const struct map *map;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	map = p ? maps_find(p, addr, false) : NULL;
	if (!map) {
		/* The kernel's data: its DSO, no object names (kallsyms
		 * here keeps functions). */
		if (addr >> 63) {
			kernel_resolve(m, addr, out);
			out->sym = NULL;
			out->addr = addr;
		}
		return;
	}
	out->dso = map->dso;
	if (map->dso->kind != DSO_USER)
		return;
	/* Code maps too: constants read from a text segment. */
	if (__atomic_load_n(&map->dso->state, __ATOMIC_ACQUIRE) == DSO_SYMS_NONE && !m->async)
		dso_load_symbols(m, map->dso, false);
	dso_data_symbolize(map->dso, addr - map->start + map->pgoff, map->kind == MAP_DATA_RW,
			   out);
}

size_t machine_maps_of(struct machine *m, uint32_t pid, machine_map_fn fn, void *ctx)
{
	struct process *p = idtab_find(&m->procs, pid);
	size_t i;

	size_t n = 0;

	for (i = 0; p && i < p->nmaps; i++) {
		if (p->maps[i].kind != MAP_CODE)
			continue;
		fn(ctx, p->maps[i].start, p->maps[i].end, p->maps[i].pgoff, p->maps[i].dso);
		n++;
	}
	return n;
}

const char *machine_comm_of(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct thread *t = idtab_find(&m->threads, tid);
	struct process *p;

	if (t)
		return t->comm ? t->comm : t->proc->comm;
	p = idtab_find(&m->procs, pid);
	return p ? p->comm : NULL;
}

const struct machine_stats *machine_get_stats(const struct machine *m)
{
	return &m->stats;
}
