/* DWARF unwinding with libdw over the registers and stack copy of each
 * sample.  Each process keeps its Dwfl (modules, their CFI, the attached
 * thread callbacks) from sample to sample; only its maps' changes touch it.
 * Over 900 lines: the cached-rule walk and libdw's walk share the
 * per-process state (maps, their files, the Dwfl) and the stack reads, and
 * a walk moves from one to the other mid-chain; apart, each would reach
 * into the other's internals.  The rules themselves are in unwind-file.c. */
#include "config.h"

#include "unwind.h"
#include "unwind-test.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dso.h"
#include "machine.h"
#include "symloader.h"
#include "unwind-file.h"
#include "unwind-regs.h"
#include "util.h"

/* The sample being walked: what the callbacks read from. */
struct unwind_walk {
	struct unwinder *u;
	const struct unwind_regs_arch *arch;
	const struct sample *s;
	uint64_t mask;               /* the attr's sample_regs_user */
	uint64_t sp;                 /* where the stack copy starts */
	uint64_t *out;
	size_t n, max;
	uint64_t last_pc, last_sp;
	bool have_last;
	enum unwind_outcome stop;    /* set by a callback that ended the walk */
	bool stopped;
};

/* What the walks learnt of a map. */
struct unwind_mapx {
	struct unwind_file *file;    /* NULL until needed */
	uint64_t bias;
	bool bias_known;
};

struct unwind_proc {
	uint32_t pid;
	Dwfl *dwfl;                  /* NULL until the first sample */
	bool attached;               /* dwfl_attach_state done */
	bool dirty;                  /* maps changed since the last report */
	struct unwind_map *maps;     /* the process's, in address order */
	size_t nmaps, mapcap;
	/* Reported to dwfl, in address order: only the maps a walk went
	 * through (a process maps tens of libraries and runs in few). */
	struct unwind_map *rep;
	size_t nrep, repcap;
	bool all_reported;           /* every map (before libdw's own walk) */
	uint64_t dwfl_made;          /* unwind_file_debug_found_late() then */
	struct unwind_walk *walk;
	struct unwind_mapx *mapx;    /* per map: its file and bias, when known */
	size_t last_map;             /* the map a walk last looked up */
	size_t searches;             /* of the maps, for want of it */
	struct unwind_proc *next;    /* hash chain */
	/* The processes with a Dwfl, most recently walked by libdw first */
	struct unwind_proc *lru_prev, *lru_next;
	bool in_lru;
};

/* Processes that keep a Dwfl at most.  A Dwfl holds a private mapping and
 * libdw's state of every ELF file its process maps (a megabyte or more
 * each, for the few samples the cached rules leave to libdw); a
 * system-wide run sees hundreds of processes.  The least recently used
 * one's goes and is built again if needed. */
#define UNWIND_DWFL_MAX 8

struct unwinder {
	struct machine *m;           /* NULL: maps come from unwind_set_maps */
	struct unwind_files *files;
	const struct unwind_regs_arch *arch;
	struct unwind_proc **buckets;
	size_t nbuckets, nprocs;
	struct unwind_proc *lru_head, *lru_tail;
	size_t nlru;
	uint64_t counts[UNWIND_NOUTCOMES];   /* atomic: read by other threads */
	struct machine *settle;      /* unwind_set_settle, or NULL */
	/* scratch: the process's maps as the machine has them now */
	struct unwind_map *cur;
	size_t ncur, curcap;
};

static const char *const outcome_names[UNWIND_NOUTCOMES] = {
	[UNWIND_ROOT] = "root",           [UNWIND_NO_CFI] = "no CFI",
	[UNWIND_STACK_END] = "stack end", [UNWIND_MEMORY] = "memory",
	[UNWIND_LOOP] = "loop",           [UNWIND_TRUNCATED] = "truncated",
	[UNWIND_NO_REGS] = "no regs",     [UNWIND_DROPPED] = "dropped",
};

static const char *const outcome_keys[UNWIND_NOUTCOMES] = {
	[UNWIND_ROOT] = "root",           [UNWIND_NO_CFI] = "no_cfi",
	[UNWIND_STACK_END] = "stack_end", [UNWIND_MEMORY] = "memory",
	[UNWIND_LOOP] = "loop",           [UNWIND_TRUNCATED] = "truncated",
	[UNWIND_NO_REGS] = "no_regs",     [UNWIND_DROPPED] = "dropped",
};

const char *unwind_outcome_name(enum unwind_outcome o)
{
	return o < UNWIND_NOUTCOMES ? outcome_names[o] : "?";
}

const char *unwind_outcome_key(enum unwind_outcome o)
{
	return o < UNWIND_NOUTCOMES ? outcome_keys[o] : "unknown";
}

bool unwind_attr_wants(const struct perf_event_attr *attr)
{
	return (attr->sample_type & PERF_SAMPLE_REGS_USER) &&
	       (attr->sample_type & PERF_SAMPLE_STACK_USER) && attr->sample_regs_user;
}

/* ---- libdw callbacks ---- */

/* The module's ELF: the unwinder's own, shared by every process's Dwfl
 * (a reference more, dropped by dwfl_end): not a mapping of the file per
 * process and Dwfl built. */
static int unwind_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	struct unwind_file *f = *userdata;

	(void)mod, (void)modname, (void)base, (void)file_name;
	if (f && f->elf)
		*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);
	return -1;
}

/* The .debug_frame of the module's file (its own or its debug file's), as
 * a small ELF the unwinder made once for every process: never a search
 * of libdw's own (that could reach debuginfod), nor the whole debug file
 * (libdw inflates every section of it, for each process's Dwfl).  libdw
 * asks when .eh_frame did not unwind a pc. */
static int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name,
				 const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	struct unwind_file *f = *userdata;
	int fd;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_file,
		(void)debuglink_crc;
	if (!f || (fd = unwind_file_debug_fd(f)) < 0)
		return -1;
	*debuginfo_file_name = xstrdup(".debug_frame");
	return fd;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = unwind_find_elf,
	.find_debuginfo = unwind_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t unwind_next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl, (void)dwfl_arg, (void)thread_argp;
	return 0;
}

static bool unwind_get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = dwfl_arg;
	return true;
}

/* A word of the walk's memory: the stack copy, else a read-only part of
 * a mapped file; a failure says how the walk ends. */
static bool unwind_at_file(struct unwinder *u, struct unwind_proc *p, uint64_t addr,
			   struct unwind_file **file, uint64_t *vaddr);

/* The word at addr in the stack copy, if there. */
static inline bool unwind_stack_read(const struct unwind_walk *w, uint64_t addr, uint64_t *result)
{
	uint64_t size = w->s->stack_size;

	if (addr < w->sp || size < 8 || addr - w->sp > size - 8)
		return false;
	memcpy(result, w->s->stack + (addr - w->sp), 8);
	return true;
}

static bool unwind_read(struct unwind_proc *p, struct unwind_walk *w, Dwarf_Addr addr,
			Dwarf_Word *result)
{
	struct unwind_file *f;
	uint64_t vaddr;

	if (unwind_stack_read(w, addr, result))
		return true;
	if (unwind_at_file(w->u, p, addr, &f, &vaddr) && unwind_file_read(f, vaddr, result))
		return true;
	/* Above the copy, within the stack's usual reach: the copy was too
	 * short; anywhere else the walk went astray. */
	w->stop = addr >= w->sp && addr - w->sp < (64u << 20) ? UNWIND_STACK_END : UNWIND_MEMORY;
	w->stopped = true;
	return false;
}

static bool unwind_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwind_proc *p = arg;

	(void)dwfl;
	return unwind_read(p, p->walk, addr, result);
}

static bool unwind_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind_walk *w = ((struct unwind_proc *)arg)->walk;
	const struct unwind_regs_arch *a = w->arch;
	Dwarf_Word regs[64];
	uint64_t pc;
	unsigned i;

	for (i = 0; i < a->ndwarf; i++) {
		uint64_t v = 0;

		/* A register the attr did not ask for stays undefined. */
		if (a->perf_of_dwarf[i] >= 0 &&
		    !unwind_regs_get(w->mask, w->s->regs, w->s->nr_regs,
				     (unsigned)a->perf_of_dwarf[i], &v)) {
			if (i && !dwfl_thread_state_registers(thread, 0, i, regs))
				return false;
			goto rest;
		}
		regs[i] = v;
	}
	if (!dwfl_thread_state_registers(thread, 0, a->ndwarf, regs))
		return false;
	goto pc;
rest:
	/* Past a missing register, one at a time. */
	for (i++; i < a->ndwarf; i++) {
		uint64_t v;

		if (a->perf_of_dwarf[i] >= 0 &&
		    unwind_regs_get(w->mask, w->s->regs, w->s->nr_regs,
				    (unsigned)a->perf_of_dwarf[i], &v)) {
			regs[0] = v;
			if (!dwfl_thread_state_registers(thread, (int)i, 1, regs))
				return false;
		}
	}
pc:
	if (!unwind_regs_get(w->mask, w->s->regs, w->s->nr_regs, a->perf_pc, &pc))
		return false;
	dwfl_thread_state_register_pc(thread, pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = unwind_next_thread,
	.get_thread = unwind_get_thread,
	.memory_read = unwind_memory_read,
	.set_initial_registers = unwind_set_initial_registers,
};

static int unwind_frame(Dwfl_Frame *f, void *arg)
{
	struct unwind_walk *w = arg;
	Dwarf_Addr pc;
	Dwarf_Word sp;
	bool activation;

	/* A read that failed before this frame did not end the walk. */
	w->stopped = false;
	if (!dwfl_frame_pc(f, &pc, &activation))
		return DWARF_CB_ABORT;
	/* The same pc on the same stack again: the CFI loops (a CFA that
	 * does not move), and libdw would walk it for ever. */
	if (dwfl_frame_reg(f, w->arch->dwarf_sp, &sp) == 0) {
		if (w->have_last && pc == w->last_pc && sp == w->last_sp) {
			w->stop = UNWIND_LOOP;
			w->stopped = true;
			return DWARF_CB_ABORT;
		}
		w->last_pc = pc;
		w->last_sp = sp;
		w->have_last = true;
	}
	if (w->n >= w->max) {
		w->stop = UNWIND_TRUNCATED;
		w->stopped = true;
		return DWARF_CB_ABORT;
	}
	w->out[w->n++] = pc;
	return DWARF_CB_OK;
}

/* ---- processes ---- */

static size_t unwind_hash(const struct unwinder *u, uint32_t pid)
{
	return (pid * 2654435761u) & (u->nbuckets - 1);
}

static struct unwind_proc **unwind_slot(struct unwinder *u, uint32_t pid)
{
	struct unwind_proc **pp = &u->buckets[unwind_hash(u, pid)];

	while (*pp && (*pp)->pid != pid)
		pp = &(*pp)->next;
	return pp;
}

static void unwind_lru_unlink(struct unwinder *u, struct unwind_proc *p)
{
	if (!p->in_lru)
		return;
	*(p->lru_prev ? &p->lru_prev->lru_next : &u->lru_head) = p->lru_next;
	*(p->lru_next ? &p->lru_next->lru_prev : &u->lru_tail) = p->lru_prev;
	p->lru_prev = p->lru_next = NULL;
	p->in_lru = false;
	u->nlru--;
}

/* p's Dwfl goes; its maps stay. */
static void unwind_proc_drop_dwfl(struct unwinder *u, struct unwind_proc *p)
{
	unwind_lru_unlink(u, p);
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->nrep = 0;
	p->all_reported = false;
}

static void unwind_proc_reset(struct unwinder *u, struct unwind_proc *p)
{
	unwind_proc_drop_dwfl(u, p);
	p->dirty = true;
}

/* p is about to walk with libdw: first in line, and the Dwfl of the one
 * last in line goes when p would be one too many. */
static void unwind_lru_touch(struct unwinder *u, struct unwind_proc *p)
{
	if (p->in_lru)
		unwind_lru_unlink(u, p);
	else
		while (u->nlru >= UNWIND_DWFL_MAX)
			unwind_proc_drop_dwfl(u, u->lru_tail);
	p->lru_next = u->lru_head;
	*(u->lru_head ? &u->lru_head->lru_prev : &u->lru_tail) = p;
	u->lru_head = p;
	p->in_lru = true;
	u->nlru++;
}

size_t unwind_test_dwfls(const struct unwinder *u)
{
	size_t i, n = 0;
	const struct unwind_proc *p;

	for (i = 0; i < u->nbuckets; i++)
		for (p = u->buckets[i]; p; p = p->next)
			n += p->dwfl != NULL;
	return n;
}

size_t unwind_test_map_searches(struct unwinder *u, uint32_t pid)
{
	const struct unwind_proc *p = u->nbuckets ? *unwind_slot(u, pid) : NULL;

	return p ? p->searches : 0;
}

struct unwind_file *unwind_test_file(struct unwinder *u, struct dso *d)
{
	return unwind_files_get(u->files, d);
}

size_t unwind_test_procs(const struct unwinder *u)
{
	return u->nprocs;
}

static void unwind_grow(struct unwinder *u)
{
	struct unwind_proc **old = u->buckets;
	size_t i, n = u->nbuckets;

	u->nbuckets = n ? n * 2 : 64;
	u->buckets = xcalloc(u->nbuckets, sizeof(*u->buckets));
	for (i = 0; i < n; i++) {
		while (old[i]) {
			struct unwind_proc *p = old[i];
			size_t h = unwind_hash(u, p->pid);

			old[i] = p->next;
			p->next = u->buckets[h];
			u->buckets[h] = p;
		}
	}
	free(old);
}

static struct unwind_proc *unwind_proc_get(struct unwinder *u, uint32_t pid)
{
	struct unwind_proc **pp, *p;

	if (!u->nbuckets)
		unwind_grow(u);
	pp = unwind_slot(u, pid);
	if ((p = *pp))
		return p;
	if (u->nprocs >= u->nbuckets) {
		unwind_grow(u);
		pp = unwind_slot(u, pid);
	}
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->dirty = true;
	*pp = p;
	u->nprocs++;
	return p;
}

void unwind_forget(struct unwinder *u, uint32_t pid)
{
	struct unwind_proc **pp, *p;

	if (!u || !u->nbuckets)
		return;
	pp = unwind_slot(u, pid);
	if (!(p = *pp))
		return;
	*pp = p->next;
	unwind_proc_reset(u, p);
	free(p->maps);
	free(p->mapx);
	free(p->rep);
	free(p);
	u->nprocs--;
}

void unwind_maps_changed(struct unwinder *u, uint32_t pid)
{
	struct unwind_proc *p;

	if (!u || !u->nbuckets)
		return;
	p = *unwind_slot(u, pid);
	if (p)
		p->dirty = true;
}

struct unwind_collect {
	struct unwind_map **buf;
	size_t *cap, n;
};

static void unwind_collect_map(void *ctx, uint64_t start, uint64_t end, uint64_t pgoff,
			       struct dso *dso)
{
	struct unwind_collect *c = ctx;
	struct unwind_map *mp;

	if (!dso || dso_kind(dso) != DSO_USER)
		return;
	if (c->n == *c->cap)
		*c->buf = xgrow(*c->buf, c->cap, c->n + 1, sizeof(**c->buf));
	mp = &(*c->buf)[c->n++];
	mp->start = start;
	mp->end = end;
	mp->pgoff = pgoff;
	mp->dso = dso;
}

size_t unwind_maps_collect(struct machine *m, uint32_t pid, struct unwind_map **buf,
			   size_t *cap)
{
	struct unwind_collect c = { buf, cap, 0 };

	machine_maps_of(m, pid, unwind_collect_map, &c);
	return c.n;
}

/* DSO d's file.  A recording's (settle) is opened once d's symbols are
 * in: which file is read (the mapped path, or where the machine found the
 * symbols: a build ID, --symfs) must not depend on the loader's pace, nor
 * then the samples' chains (5 s at most a DSO: debuginfod may be asked). */
static struct unwind_file *unwind_file_of(struct unwinder *u, struct dso *d)
{
	if (u->settle)
		machine_dso_settle(u->settle, d, 5000);
	return unwind_files_get(u->files, d);
}

/* Report one map's file to p's Dwfl: its address range, the ELF itself
 * given by unwind_find_elf when libdw first needs it. */
static void unwind_report(struct unwinder *u, struct unwind_proc *p, const struct unwind_map *mp)
{
	struct unwind_file *f = unwind_file_of(u, mp->dso);
	uint64_t bias, low, high;
	Dwfl_Module *mod;
	void **userdata;

	if (!unwind_elf_bias(f->elf, mp->start, mp->pgoff, &bias) ||
	    !unwind_elf_range(f->elf, &low, &high))
		return;
	mod = dwfl_report_module(p->dwfl, dso_short_name(mp->dso), bias + low, bias + high);
	if (!mod)
		return;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
}

/* The map of p holding addr, or NULL. */
static const struct unwind_map *unwind_map_at(const struct unwind_map *maps, size_t n,
					      uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && maps[lo].start <= addr ? &maps[lo] : NULL;
}

const struct unwind_map *unwind_maps_find(const struct unwind_map *maps, size_t n,
					  uint64_t addr)
{
	return unwind_map_at(maps, n, addr);
}

/* Report mp to p's Dwfl (made at the first), once. */
static void unwind_proc_report(struct unwinder *u, struct unwind_proc *p,
			       const struct unwind_map *mp)
{
	size_t i;

	for (i = 0; i < p->nrep && p->rep[i].start < mp->start; i++)
		;
	if (i < p->nrep && p->rep[i].start == mp->start)
		return;
	if (!p->dwfl) {
		if (!(p->dwfl = dwfl_begin(&dwfl_callbacks)))
			return;
		p->dwfl_made = unwind_file_debug_found_late();
	}
	dwfl_report_begin_add(p->dwfl);
	unwind_report(u, p, mp);
	dwfl_report_end(p->dwfl, NULL, NULL);
	/* Tried, reported or not: a file that failed is not opened again. */
	if (p->nrep == p->repcap)
		p->rep = xgrow(p->rep, &p->repcap, p->nrep + 1, sizeof(*p->rep));
	memmove(p->rep + i + 1, p->rep + i, (p->nrep - i) * sizeof(*p->rep));
	p->rep[i] = *mp;
	p->nrep++;
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid, &thread_callbacks, p);
}

/* Every map, for libdw's walk, which looks modules up itself. */
static void unwind_proc_report_all(struct unwinder *u, struct unwind_proc *p)
{
	size_t i;

	if (p->all_reported)
		return;
	for (i = 0; i < p->nmaps; i++)
		unwind_proc_report(u, p, &p->maps[i]);
	p->all_reported = true;
}

/* p's maps are now u->cur: a reported map that went or moved means a new
 * Dwfl; the others are reported when a walk reaches them. */
static void unwind_proc_update(struct unwinder *u, struct unwind_proc *p)
{
	size_t i;

	for (i = 0; i < p->nrep; i++) {
		const struct unwind_map *mp = unwind_map_at(u->cur, u->ncur, p->rep[i].start);

		if (!mp || mp->start != p->rep[i].start || mp->end != p->rep[i].end ||
		    mp->dso != p->rep[i].dso) {
			unwind_proc_reset(u, p);
			break;
		}
	}
	p->all_reported = false;
	if (u->ncur > p->mapcap) {
		size_t cap = p->mapcap;

		p->maps = xgrow(p->maps, &cap, u->ncur, sizeof(*p->maps));
		p->mapx = xrealloc(p->mapx, cap * sizeof(*p->mapx));
		p->mapcap = cap;
	}
	if (u->ncur) {
		memcpy(p->maps, u->cur, u->ncur * sizeof(*p->maps));
		memset(p->mapx, 0, u->ncur * sizeof(*p->mapx));
	}
	p->nmaps = u->ncur;
	p->dirty = false;
}

void unwind_set_maps(struct unwinder *u, uint32_t pid, const struct unwind_map *maps,
		     size_t n)
{
	struct unwind_proc *p = unwind_proc_get(u, pid);

	if (n > u->curcap)
		u->cur = xgrow(u->cur, &u->curcap, n, sizeof(*u->cur));
	if (n)
		memcpy(u->cur, maps, n * sizeof(*maps));
	u->ncur = n;
	unwind_proc_update(u, p);
}

struct unwinder *unwind_new(struct machine *m, int e_machine)
{
	const struct unwind_regs_arch *arch = unwind_regs_find(e_machine);
	struct unwinder *u;

	if (!arch)
		return NULL;
	u = xcalloc(1, sizeof(*u));
	u->m = m;
	u->files = unwind_files_new();
	u->arch = arch;
	return u;
}

void unwind_free(struct unwinder *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nbuckets; i++) {
		while (u->buckets[i]) {
			struct unwind_proc *p = u->buckets[i];

			u->buckets[i] = p->next;
			unwind_proc_reset(u, p);
			free(p->maps);
			free(p->mapx);
			free(p->rep);
			free(p);
		}
	}
	free(u->buckets);
	unwind_files_free(u->files);
	free(u->cur);
	free(u);
}

void unwind_counts(const struct unwinder *u, uint64_t out[UNWIND_NOUTCOMES])
{
	size_t i;

	for (i = 0; i < UNWIND_NOUTCOMES; i++)
		out[i] = __atomic_load_n(&u->counts[i], __ATOMIC_RELAXED);
}

void unwind_count(struct unwinder *u, enum unwind_outcome o)
{
	__atomic_fetch_add(&u->counts[o], 1, __ATOMIC_RELAXED);
}

void unwind_uncount(struct unwinder *u, enum unwind_outcome o)
{
	__atomic_fetch_sub(&u->counts[o], 1, __ATOMIC_RELAXED);
}

/* ---- the cached-rule walk ----
 * libdw's walk costs about a microsecond a frame (a Dwarf_Frame built and
 * freed, every register evaluated).  Most frames follow one shape: CFA =
 * sp or fp + offset, the return address and maybe the fp saved at CFA +
 * offset, the caller's sp the CFA.  Those rules are cached per pc, and
 * per CFI row (the pcs that share one) for the pcs not seen yet; a frame
 * of any other shape hands the whole sample to libdw's walk. */

/* The ELF file of p's map mp, and addr in the file's own address space;
 * false when the file cannot be read. */
static bool unwind_map_file(struct unwinder *u, struct unwind_proc *p,
			    const struct unwind_map *mp, uint64_t addr, struct unwind_file **file,
			    uint64_t *vaddr)
{
	struct unwind_mapx *x = &p->mapx[mp - p->maps];

	/* An unreadable file is asked for again (unwind_files_get opens it
	 * again now and then, and once its symbols' file is known): a
	 * program rebuilt while it runs is read through /proc once the
	 * machine has found it there. */
	if (!x->file || !x->file->elf) {
		x->file = unwind_file_of(u, mp->dso);
		x->bias_known = unwind_elf_bias(x->file->elf, mp->start, mp->pgoff, &x->bias);
	}
	if (!x->bias_known)
		return false;
	*file = x->file;
	*vaddr = addr - x->bias;
	return true;
}

void unwind_set_settle(struct unwinder *u, struct machine *m)
{
	u->settle = m;
}

/* vaddr's frame from file's .debug_frame, for a pc .eh_frame has no FDE
 * for (code built without unwind tables): read once for every process. */
static bool unwind_debug_frame(struct unwinder *u, struct unwind_file *file, uint64_t vaddr,
			       Dwarf_Frame **f)
{
	Dwarf_CFI *cfi;

	/* Its debug file is known once its symbols are in (unwind_file_of:
	 * once a file). */
	if (u->settle && !file->dbg_cfi && !file->dbg_waited) {
		file->dbg_waited = true;
		machine_dso_settle(u->settle, file->dso, 5000);
	}
	cfi = unwind_file_debug_cfi(file);

	return cfi && dwarf_cfi_addrframe(cfi, vaddr, f) == 0;
}

/* The map of p holding addr, or NULL: most often the last one again (a
 * walk goes up one library's frames), when the search would find it (the
 * one before it ends by addr: maps may overlap). */
static const struct unwind_map *unwind_proc_map(struct unwind_proc *p, uint64_t addr)
{
	const struct unwind_map *mp = &p->maps[p->last_map];

	if (p->last_map < p->nmaps && mp->start <= addr && addr < mp->end &&
	    (!p->last_map || mp[-1].end <= addr))
		return mp;
	mp = unwind_map_at(p->maps, p->nmaps, addr);
	p->searches++;
	if (mp)
		p->last_map = (size_t)(mp - p->maps);
	return mp;
}

/* The ELF file mapped at addr in p and addr in its own address space;
 * false when no readable file is mapped there. */
static bool unwind_at_file(struct unwinder *u, struct unwind_proc *p, uint64_t addr,
			   struct unwind_file **file, uint64_t *vaddr)
{
	const struct unwind_map *mp = unwind_proc_map(p, addr);

	return mp && unwind_map_file(u, p, mp, addr, file, vaddr);
}

static const struct unwind_rule rule_no_map = { .kind = RULE_NO_MAP };
static const struct unwind_rule rule_libdw = { .kind = RULE_LIBDW };

/* The rule for looking up pc in p: cached in its file, made on a miss;
 * valid until the next rule is looked up. */
static const struct unwind_rule *unwind_rule_at(struct unwinder *u, struct unwind_proc *p,
						uint64_t pc)
{
	const struct unwind_map *mp = unwind_proc_map(p, pc);
	struct unwind_rule *r;
	struct unwind_file *file;
	Dwarf_Frame *f;
	uint64_t vaddr;

	if (!mp)
		return &rule_no_map;
	/* Unreadable here: libdw's. */
	if (!unwind_map_file(u, p, mp, pc, &file, &vaddr))
		return &rule_libdw;
	r = unwind_file_rule(file, vaddr);
	if (r->kind == RULE_EMPTY) {
		r->kind = RULE_NO_FDE;
		if (file->cfi)
			unwind_file_rule_fill(file, u->arch, r);
	}
	/* No FDE, and no .debug_frame read yet (its debug file may be found
	 * since: its symbols were loading). */
	if (r->kind == RULE_NO_FDE && !r->dbg_read) {
		if (unwind_debug_frame(u, file, vaddr, &f)) {
			unwind_file_rule_make(u->arch, f, vaddr, r);
			free(f);
		}
		r->dbg_read = file->dbg_cfi != NULL;
	}
	return r;
}

/* Walk w with cached rules; *libdw set when a frame needs libdw's walk
 * (the frames found so far are then dropped by the caller). */
static enum unwind_outcome unwind_fast(const struct unwind_regs_arch *a, struct unwind_proc *p,
				       struct unwind_walk *w, bool *libdw)
{
	uint64_t pc, sp = w->sp, fp = 0, key;
	bool fp_known;

	*libdw = false;
	if (!unwind_regs_get(w->mask, w->s->regs, w->s->nr_regs, a->perf_pc, &pc))
		return UNWIND_NO_REGS;
	fp_known = unwind_regs_get(w->mask, w->s->regs, w->s->nr_regs, a->perf_fp, &fp);
	if (!w->max)
		return UNWIND_TRUNCATED;
	w->out[w->n++] = pc;
	/* A caller's pc is a return address: its call is the byte before. */
	for (key = pc;; key = pc - 1) {
		const struct unwind_rule *r = unwind_rule_at(w->u, p, key);
		uint64_t cfa, ra, saved_fp;

		if (r->kind == RULE_ROOT)
			return UNWIND_ROOT;
		if (r->kind == RULE_NO_MAP)
			return UNWIND_NO_CFI;
		/* No FDE in .eh_frame nor in the .debug_frame to be had now:
		 * libdw's walk would end here too, after building the
		 * process's Dwfl (most often a process just exec'd, in ld.so's
		 * _start): it reads the same CFI, and its x86-64 fallback
		 * follows a frame pointer, none here. */
		if (r->kind == RULE_NO_FDE && (!fp_known || !fp))
			return UNWIND_NO_CFI;
		if (r->kind != RULE_SIMPLE || (r->cfa_fp && !fp_known)) {
			*libdw = true;
			return UNWIND_NO_CFI;
		}
		cfa = (r->cfa_fp ? fp : sp) + (uint64_t)(int64_t)r->cfa_off;
		/* The stack copy first: unwind_read's call is for the rest. */
		if (!unwind_stack_read(w, cfa + (uint64_t)(int64_t)r->ra_off, &ra) &&
		    !unwind_read(p, w, cfa + (uint64_t)(int64_t)r->ra_off, &ra))
			return w->stop;
		if (r->fp == FP_SAVED) {
			/* As libdw: a register it cannot read is lost, not fatal. */
			fp_known = unwind_stack_read(w, cfa + (uint64_t)(int64_t)r->fp_off,
						     &saved_fp) ||
				   unwind_read(p, w, cfa + (uint64_t)(int64_t)r->fp_off,
					       &saved_fp);
			fp = saved_fp;
			w->stopped = false;
		} else if (r->fp == FP_UNDEFINED) {
			fp_known = false;
		}
		if (ra == pc && cfa == sp)
			return UNWIND_LOOP;
		if (w->n >= w->max)
			return UNWIND_TRUNCATED;
		w->out[w->n++] = ra;
		pc = ra;
		sp = cfa;
	}
}

/* Why a walk that libdw ended with an error stopped, when no callback
 * said: the last pc is in no module, or its module has no CFI for it. */
static enum unwind_outcome unwind_why(Dwfl *dwfl, const struct unwind_walk *w)
{
	Dwfl_Module *mod;
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	Dwarf_Addr bias, pc;

	if (w->stopped)
		return w->stop;
	if (!w->n)
		return UNWIND_NO_REGS;
	/* A return address: its call is the byte before. */
	pc = w->out[w->n - 1] - (w->n > 1);
	mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return UNWIND_NO_CFI;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return UNWIND_MEMORY;
	}
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0) {
		free(frame);
		return UNWIND_MEMORY;
	}
	return UNWIND_NO_CFI;
}

static enum unwind_outcome unwind_walk(struct unwinder *u, const struct sample *s,
				       const struct perf_event_attr *attr, struct unwind_walk *w)
{
	struct unwind_proc *p;
	int rc;

	if (s->regs_abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs ||
	    !unwind_regs_get(attr->sample_regs_user, s->regs, s->nr_regs, u->arch->perf_sp, &w->sp))
		return UNWIND_NO_REGS;
	p = unwind_proc_get(u, s->sid.pid);
	if (p->dirty && u->m) {
		u->ncur = unwind_maps_collect(u->m, p->pid, &u->cur, &u->curcap);
		unwind_proc_update(u, p);
	}
	if (u->arch->fast) {
		bool libdw;
		enum unwind_outcome o = unwind_fast(u->arch, p, w, &libdw);

		if (!libdw)
			return o;
		w->n = 0;
		w->stopped = false;
	}
	/* A .debug_frame found since p's Dwfl was told there was none. */
	if (p->dwfl && p->dwfl_made != unwind_file_debug_found_late())
		unwind_proc_drop_dwfl(u, p);
	unwind_lru_touch(u, p);
	unwind_proc_report_all(u, p);
	if (!p->dwfl || !p->attached)
		return UNWIND_NO_CFI;
	p->walk = w;
	rc = dwfl_getthread_frames(p->dwfl, (pid_t)s->sid.tid, unwind_frame, w);
	p->walk = NULL;
	/* libdw ends a walk whose return address it could not read as if it
	 * had reached the root: the failed read says otherwise. */
	if (rc == 0 && !w->stopped)
		return UNWIND_ROOT;
	return unwind_why(p->dwfl, w);
}

size_t unwind_sample(struct unwinder *u, const struct sample *s,
		     const struct perf_event_attr *attr, uint64_t *out, size_t max,
		     enum unwind_outcome *outcome)
{
	struct unwind_walk w;
	enum unwind_outcome o;

	memset(&w, 0, sizeof(w));
	w.u = u;
	w.arch = u->arch;
	w.s = s;
	w.mask = attr->sample_regs_user;
	w.out = out;
	w.max = max;
	o = unwind_walk(u, s, attr, &w);
	unwind_count(u, o);
	if (outcome)
		*outcome = o;
	return w.n;
}
