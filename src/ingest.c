/* Ingestion: records -> machine -> hist, through a resolve cache, with the
 * samples whose symbols are still loading held in a deferred queue; and
 * publishing: the snapshot at each refresh, then the hist's aging.
 * Over 900 lines since the DWARF unwinder's queue, the off-CPU intervals
 * and annotate's counts joined the sample path: they all read and write
 * struct ingest on it.  The frame-pointer root counting and the off-CPU
 * charging are the next to move out, behind a private header. */
#include "config.h"

#include "ingest.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "annotate.h"
#include "arch.h"
#include "callchain.h"
#include "callchain-cache.h"
#include "debuginfod.h"
#include "deferred.h"
#include "demangle.h"
#include "errmsg.h"
#include "event.h"
#include "kernel.h"
#include "machine.h"
#include "offcpu.h"
#include "offcpu-defer.h"
#include "offcpu-holes.h"
#include "symloader.h"
#include "symtab.h"
#include "synth.h"
#include "record.h"
#include "refresh.h"
#include "unwind-queue.h"
#include "util.h"
#include "walltime.h"

/* The maps and name a sample was taken under, when its process exec'd
 * while the sample waited for the unwinder (unwind_queue_old_maps). */
struct ingest_under {
	const struct unwind_map *maps;
	size_t nmaps;
	const char *comm;
};

/* How a sample is added: as n samples of one key (n > 1: an off-CPU
 * run's intervals, offcpu.h, charged at once), of this kind of time
 * (--off-cpu, --wall), and under the maps it was taken under (NULL: its
 * thread's current ones). */
struct ingest_charge {
	uint64_t n;
	enum walltime_kind kind;
	const struct ingest_under *under;
};

static const struct ingest_charge INGEST_ONE = { 1, WALLTIME_ON, NULL };

struct ingest {
	struct ingest_config cfg;
	struct machine *machine;
	struct hist *hist;
	const struct perf_event_attr *only_attr;  /* a recording's counted event, or NULL */
	const struct perf_event_attr *also_attr;  /* --wall: its other one, or NULL */

	/* counters since start */
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
	uint64_t zero_ends;          /* callchain_zero_ends, all samples */
	uint64_t bad_records;
	uint64_t samples_at_refresh;

	bool kernel_loading;         /* its notice not given yet */

	/* -p targets still alive */
	pid_t *targets;
	size_t ntargets, alive_targets;

	/* callchains: per-sample scratch, grown to the longest chain seen */
	unsigned max_stack;          /* frames kept per chain; 0 until the first chain */
	struct callchain_ip *cc_ips;
	struct callchain_frame *cc_frames;
	const struct callchain_frame *cc_callers;  /* cc_frames + 1, or the cache's */
	uint64_t cc_token;                         /* the cache's name for those, or 0 */
	size_t cc_cap;

	/* symbols: samples touching DSOs still loading wait here */
	struct deferred *deferred;
	struct deferred_addr *cc_at;       /* per frame, like cc_frames */
	bool cc_pending;                   /* some frame of this sample is pending */
	unsigned refresh_gen;              /* refreshes so far */
	/* resolved addresses and chains, per pid (see callchain.h) */
	struct callchain_cache *rcache;

	/* DWARF unwinding of samples with user registers and stack, on its
	 * thread: created at the first such sample */
	struct unwind_queue *uq;
	bool unwind_tried;
	struct source *src;                /* live: where stacks are held */
	/* frame-pointer chains with a user part, and those that reach a root
	 * (_start, clone, ...): the last root symbol seen, to skip the names */
	uint64_t fp_chains, fp_root;
	const struct symbol *fp_root_sym;
	/* chains whose outermost frame's symbols were loading: counted once
	 * they are (at most INGEST_FP_PENDING frames) */
	struct ingest_fp_pending {
		struct dso *dso;
		uint64_t addr;
		uint64_t n;
	} *fp_pending;
	size_t nfp_pending, fp_pending_cap;

	/* the machine the samples come from (EM_*): decides the payload decoder */
	int e_machine;
	const struct arch_payload_ops *payload; /* its raw payloads' decoder, or NULL */
	char *payload_cpuid;               /* the env's cpuid, for decode_in */
	struct arch_env payload_env;       /* with it, parsed once */
	bool daddr;                        /* a daddr sort key: samples' data addresses */
	bool want_addr;                    /* ingest_wants_addr */

	/* --annotate: per-instruction counts of some functions, or NULL */
	struct annotate *annotate;
	/* --off-cpu: intervals off the CPU, weighed in ns (see offcpu.h) */
	struct offcpu *offcpu;
	struct offcpu_defer *offcpu_defer;  /* with dwarf: waiting for the unwinder */
	struct offcpu_holes *offcpu_holes;  /* live system-wide: see offcpu-holes.h */
	uint64_t offcpu_now;               /* the latest switch's time */
	const struct perf_event_attr *offcpu_attr;  /* the tracepoint's */
	bool offcpu_no_runs;               /* ingest_offcpu_test_runs */
	/* --off-cpu, --wall: the rows' time columns (walltime.h) */
	const struct payload_ops *times;
	uint64_t oncpu_ns, oncpu_ns_at_refresh;         /* --wall: charged since start */
	uint64_t offcpu_ns, offcpu_ns_at_refresh;       /* charged since start */
	uint64_t offcpu_switches_at_refresh;
	uint64_t offcpu_bad;               /* raw payloads too short for the format */

	/* enum hist_mode: set by the UI thread, read at each refresh */
	atomic_int mode;
};

/* Frames of samples held for symbols still loading, beyond which the
 * engine waits for the loader rather than hold more (~40 MB). */
#define INGEST_DEFERRED_MAX (1u << 20)

static enum hist_mode ingest_mode(const struct ingest *in)
{
	return (enum hist_mode)atomic_load_explicit(&in->mode, memory_order_relaxed);
}

/* The samples' machine, once: it decides how raw payloads are decoded
 * (live: this host; a file: its ARCH feature). */
static void ingest_set_machine(struct ingest *in, int e_machine)
{
	in->e_machine = e_machine;
	/* Time columns take the place of a decoder's. */
	in->payload = in->cfg.off_cpu ? NULL : arch_payload_find(e_machine);
	if (in->payload && in->hist)
		hist_enable_payload(in->hist, in->payload->payload);
}

struct ingest *ingest_new(const struct ingest_config *cfg, int e_machine)
{
	struct ingest *in = xcalloc(1, sizeof(*in));

	in->cfg = *cfg;
	atomic_init(&in->mode, (int)cfg->mode);
	in->machine = machine_new();
	in->hist = hist_new(&cfg->sort);
	/* Data addresses resolve in data maps too. */
	in->daddr = sort_spec_has_daddr(&cfg->sort);
	if (in->daddr)
		machine_keep_data_maps(in->machine);
	if (cfg->view.inline_frames)
		hist_key_addresses(in->hist);
	in->want_addr = cfg->view.inline_frames || cfg->view.stack_detail ||
			sort_spec_has(&cfg->sort, SORT_SRCLINE);
	ingest_set_machine(in, e_machine);
	if (cfg->nannotate || cfg->annotate_browse)
		in->annotate = annotate_new(cfg->annotate, cfg->nannotate,
					    cfg->annotate_intel);
	if (cfg->annotate_browse && !cfg->live)
		annotate_keep_all(in->annotate);
	if (in->payload)
		annotate_enable_payload(in->annotate, in->payload->payload);
	annotate_set_live(in->annotate, cfg->live);
	if (cfg->off_cpu) {
		in->offcpu = offcpu_new();
		in->offcpu_defer = offcpu_defer_new();
		in->times = cfg->wall ? &walltime_wall : &walltime_offcpu;
		hist_enable_payload(in->hist, in->times);
	}
	return in;
}

void ingest_free(struct ingest *in)
{
	if (!in)
		return;
	/* Its thread reads the machine's DSOs. */
	unwind_queue_free(in->uq);
	hist_free(in->hist);
	deferred_free(in->deferred);
	annotate_free(in->annotate);
	machine_free(in->machine);
	free(in->targets);
	free(in->payload_cpuid);
	free(in->cc_ips);
	free(in->cc_frames);
	free(in->cc_at);
	callchain_cache_free(in->rcache);
	offcpu_free(in->offcpu);
	offcpu_defer_free(in->offcpu_defer);
	offcpu_holes_free(in->offcpu_holes);
	free(in->fp_pending);
	free(in);
}

struct machine *ingest_machine(struct ingest *in)
{
	return in->machine;
}

static void ingest_offcpu_runs_end(struct ingest *in, uint32_t tid, bool evict);

struct annotate_report *ingest_annotate(struct ingest *in, const char *symbol, const char *dso,
				       uint64_t addr, bool ended)
{
	annotate_watch(in->annotate, symbol, dso);
	if (ended) {
		ingest_offcpu_runs_end(in, 0, false);
		annotate_resolve(in->annotate, in->hist);
	}
	return annotate_report_of(in->annotate, symbol, dso, addr);
}

void ingest_set_mode(struct ingest *in, enum hist_mode mode)
{
	atomic_store_explicit(&in->mode, (int)mode, memory_order_relaxed);
}

void ingest_only_attr(struct ingest *in, const struct perf_event_attr *attr)
{
	in->only_attr = attr;
}

void ingest_also_attr(struct ingest *in, const struct perf_event_attr *attr)
{
	in->also_attr = attr;
}

void ingest_payload_env(struct ingest *in, const struct arch_env *env,
			const struct perf_event_attr *attr)
{
	const struct arch_payload_ops *ops = arch_payload_select(env, attr);

	/* The time columns (--off-cpu, --wall) take a decoder's place. */
	if (!ops || ops == in->payload || in->times)
		return;
	in->payload = ops;
	free(in->payload_cpuid);
	in->payload_cpuid = env->cpuid ? xstrdup(env->cpuid) : NULL;
	memset(&in->payload_env, 0, sizeof(in->payload_env));
	in->payload_env.e_machine = env->e_machine;
	in->payload_env.cpuid = in->payload_cpuid;
	arch_env_parse_cpuid(&in->payload_env);
	if (in->hist)
		hist_enable_payload(in->hist, ops->payload);
	annotate_enable_payload(in->annotate, ops->payload);
}

void ingest_set_targets(struct ingest *in, const pid_t *pids, size_t n)
{
	free(in->targets);
	in->targets = xmalloc(n * sizeof(*in->targets));
	memcpy(in->targets, pids, n * sizeof(*in->targets));
	in->ntargets = in->alive_targets = n;
}

bool ingest_targets_gone(const struct ingest *in)
{
	return in->ntargets && in->alive_targets == 0;
}

/* Load DSO symbols on the machine's loader thread and hold the samples
 * that need them (machine.c), unless decoded payloads ride on samples:
 * those are added with their payload at once. */
void ingest_symbols_async(struct ingest *in)
{
	struct errmsg why = ERRMSG_INIT;
	int err;

	demangle_set_enabled(in->cfg.demangle);
	if (in->cfg.debuginfod) {
		if (!getenv("DEBUGINFOD_URLS") || !*getenv("DEBUGINFOD_URLS"))
			msg_notice("--debuginfod: DEBUGINFOD_URLS is not set: no server to ask");
		else if ((err = debuginfod_available(&why)) < 0)
			msg_notice("--debuginfod: %s", errmsg_text(&why, err));
		else
			machine_set_debuginfod(in->machine,
					       (long)(in->cfg.debuginfod_timeout * 1000));
	}
	/* Held samples are added without payload or data address
	 * (deferred.c): those with one load their symbols as they come. */
	if (in->payload || in->times || in->daddr || machine_set_async(in->machine, true) != 0)
		return;
	in->deferred = deferred_new();
	deferred_set_annotate(in->deferred, in->annotate);
}

/* Once the kernel's symbols are read (on their own thread): say why
 * kernel samples will show as [unknown], if they will. */
static void ingest_kernel_notice(struct ingest *in)
{
	bool restricted;
	int err;

	if (!in->kernel_loading)
		return;
	err = machine_kernel_status(in->machine, &restricted);
	if (err == -EINPROGRESS)
		return;
	in->kernel_loading = false;
	if (restricted)
		msg_notice("kernel addresses are hidden (kernel.kptr_restrict): kernel samples "
			   "show as [unknown]; run as root or `sysctl kernel.kptr_restrict=0`");
	else if (err)
		msg_notice("cannot read /proc/kallsyms (%s): kernel samples show as [unknown]",
			   strerror(-err));
	else if (machine_kernel_note(in->machine))
		msg_notice("%s", machine_kernel_note(in->machine));
}

void ingest_load_kernel_async(struct ingest *in)
{
	/* Off the path to the first frame: kernel samples wait in
	 * in->deferred meanwhile, user ones go on. */
	machine_load_kernel_async(in->machine);
	in->kernel_loading = true;
	ingest_kernel_notice(in);
}

static bool ingest_is_target(const struct ingest *in, uint32_t pid)
{
	size_t i;

	for (i = 0; i < in->ntargets; i++)
		if ((uint32_t)in->targets[i] == pid)
			return true;
	return false;
}

/* Whether samples and frames keep their address (hist_sample.addr,
 * callchain_frame.addr): only for what the view computes from them at
 * refresh (--inline frames, --pprof's locations, -s srcline), since each
 * distinct address then makes its own frame and entry.  Fixed with the
 * sort keys, so decided once (ingest_new): asked per sample, the sort
 * key search was 2.5% of a live --batch run's instructions. */
static bool ingest_wants_addr(const struct ingest *in)
{
	return in->want_addr;
}

/* ip of a sample taken before its process's exec, in its maps then (not
 * cached: the pid's are the new program's).  False outside them. */
static bool ingest_resolve_old(struct ingest *in, const struct ingest_under *under,
			       uint16_t cpumode, uint64_t ip, struct resolved *r)
{
	const struct unwind_map *mp;

	if ((cpumode & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER ||
	    !(mp = unwind_maps_find(under->maps, under->nmaps, ip)))
		return false;
	machine_resolve_map(in->machine, mp->start, mp->end, mp->pgoff, mp->dso, ip, r);
	return true;
}

/* machine_resolve through the cache.  Only answers that cannot change
 * while the process's maps stay the same are kept: not an address whose
 * symbols are still loading, nor an [unknown] in a DSO (its table may
 * come later); kernel and unmapped answers are final. */
static bool ingest_resolve(struct ingest *in, const struct ingest_under *under, uint32_t pid,
			   uint32_t tid, uint16_t cpumode, uint64_t ip, struct resolved *r)
{
	struct callchain_frame f;

	if (!in->rcache)
		in->rcache = callchain_cache_new(0);
	if (under && ingest_resolve_old(in, under, cpumode, ip, r))
		return false;
	if (callchain_cache_find_ip(in->rcache, pid, ip, cpumode, &f, &r->addr)) {
		r->dso = f.dso;
		r->sym = f.sym;
		r->kernel = f.kernel;
		r->pending = false;
		return true;
	}
	machine_resolve(in->machine, pid, tid, cpumode, ip, r);
	if (r->pending || (!r->sym && r->dso && !r->kernel))
		return false;
	f.addr = 0;
	f.dso = r->dso;
	f.sym = r->sym;
	f.kernel = r->kernel;
	callchain_cache_insert_ip(in->rcache, pid, ip, cpumode, &f, r->addr);
	return true;
}

/* Resolve the sample's chain: in->cc_frames[0] the sampled function from r,
 * in->cc_callers its callers (innermost first); returns the number of frames
 * in all.  The callers are the resolve cache's own frames on a hit (valid
 * until its next insert or clear), in->cc_frames + 1 otherwise. */
static size_t ingest_resolve_chain(struct ingest *in, const struct ingest_under *under,
				   const struct sample *s, const struct resolved *r)
{
	const struct callchain_frame *hit;
	bool final = true;
	size_t need, n, i;
	bool want_addr = ingest_wants_addr(in);

	if (!in->max_stack)
		in->max_stack = in->cfg.max_stack ? in->cfg.max_stack : event_max_stack();
	/* The sampled ip, then at most max_stack entries of the chain. */
	need = (s->nr_callchain < in->max_stack ? (size_t)s->nr_callchain : in->max_stack) + 1;
	if (need > in->cc_cap) {
		size_t cap = in->cc_cap;

		in->cc_ips = xgrow(in->cc_ips, &cap, need, sizeof(*in->cc_ips));
		in->cc_frames = xrealloc(in->cc_frames, cap * sizeof(*in->cc_frames));
		in->cc_at = xrealloc(in->cc_at, cap * sizeof(*in->cc_at));
		in->cc_cap = cap;
	}
	in->cc_frames[0].dso = r->dso;
	in->cc_frames[0].sym = r->sym;
	in->cc_frames[0].kernel = r->kernel;
	in->cc_frames[0].addr = want_addr ? r->addr : 0;
	in->cc_at[0].addr = r->addr;
	in->cc_at[0].pending = r->pending;
	in->cc_pending = r->pending;
	in->cc_callers = in->cc_frames + 1;
	in->cc_token = 0;
	/* Callers' return addresses repeat from sample to sample: a chain
	 * seen before in this process costs a compare of its raw words, not
	 * the addresses and n lookups.  (need is the same for every sample.) */
	hit = under ? NULL : callchain_cache_find_sample(in->rcache, s, &n, &in->cc_token);
	if (hit && n >= 2) {
		/* Not copied: 31 frames a sample was 12% of the ingestion. */
		in->cc_callers = hit;
		return n;
	}
	in->cc_token = 0;
	n = callchain_ips(s, in->cc_ips, need);
	if (n < 2)
		return n;
	for (i = 1; i < n; i++) {
		struct resolved fr;

		if (!ingest_resolve(in, under, s->sid.pid, s->sid.tid, in->cc_ips[i].cpumode,
				    in->cc_ips[i].ip, &fr))
			final = false;
		in->cc_frames[i].dso = fr.dso;
		in->cc_frames[i].sym = fr.sym;
		in->cc_frames[i].kernel = fr.kernel;
		in->cc_frames[i].addr = want_addr ? fr.addr : 0;
		in->cc_at[i].addr = fr.addr;
		in->cc_at[i].pending = fr.pending;
		in->cc_pending |= fr.pending;
	}
	if (final)
		callchain_cache_insert_sample(in->rcache, s, in->cc_frames + 1, n - 1);
	return n;
}

static void ingest_offcpu_sample(struct ingest *in, const struct sample *s,
				 const struct perf_event_attr *attr);
static void ingest_offcpu_switch(struct ingest *in, const struct sample *s,
				 const struct offcpu_switch *sw, const struct perf_event_attr *attr,
				 const struct ingest_under *under);
static void ingest_offcpu_deferred(struct ingest *in, const struct sample *queued,
				   const struct ingest_under *under);

/* Samples on the unwinder's queue, at most: ~4 MiB of 8 KiB stacks. */
#define INGEST_UNWIND_SLOTS 512

/* The unwinder's queue for attr's samples, or NULL when they carry no user
 * registers and stack (or this machine's are unknown to it). */
static struct unwind_queue *ingest_unwinder(struct ingest *in, const struct perf_event_attr *attr)
{
	if (!unwind_attr_wants(attr))
		return NULL;
	if (!in->unwind_tried) {
		in->unwind_tried = true;
		/* A recording walks inline: it would wait for a thread. */
		in->uq = unwind_queue_new(in->machine, in->e_machine,
					  in->cfg.live ? INGEST_UNWIND_SLOTS : 0);
		if (in->uq && in->src)
			unwind_queue_set_source(in->uq, in->src);
	}
	return in->uq;
}

void ingest_set_source(struct ingest *in, struct source *src)
{
	in->src = src;
	if (in->uq)
		unwind_queue_set_source(in->uq, src);
}

void ingest_pass_end(struct ingest *in)
{
	if (in->uq)
		unwind_queue_flush(in->uq);
}

static bool ingest_sample_add(struct ingest *in, const struct sample *s,
			      const struct perf_event_attr *attr, bool dwarf,
			      const struct ingest_charge *c);

/* s without user frames: the kernel's part of its chain only. */
static struct sample ingest_kernel_part(const struct sample *sample)
{
	struct sample s = *sample;
	size_t n;

	for (n = 0; n < s.nr_callchain && s.callchain[n] != PERF_CONTEXT_USER; n++)
		;
	s.nr_callchain = n;
	return s;
}

static void ingest_sample_kernel_part(struct ingest *in, const struct sample *sample,
				      const struct perf_event_attr *attr)
{
	struct sample s = ingest_kernel_part(sample);

	ingest_sample_add(in, &s, attr, true, &INGEST_ONE);
}

/* The samples whose user frames the unwinder found, in order; with wait,
 * every one queued. */
static void ingest_unwound(struct ingest *in, bool wait)
{
	const struct perf_event_attr *attr;
	const struct sample *s;

	if (!in->uq || !unwind_queue_pending(in->uq))
		return;
	while ((s = unwind_queue_next(in->uq, &attr, wait))) {
		struct ingest_under under;
		struct ingest_charge c = INGEST_ONE;

		under.maps = unwind_queue_old_maps(in->uq, &under.nmaps, &under.comm);
		c.under = under.maps ? &under : NULL;
		if (in->offcpu && attr->type == PERF_TYPE_TRACEPOINT)
			ingest_offcpu_deferred(in, s, c.under);
		else
			ingest_sample_add(in, s, attr, true, &c);
	}
}

/* Queue s to be unwound: 0, or -EAGAIN live when the unwinder is behind
 * (a recording waits for it). */
static int ingest_submit(struct ingest *in, struct unwind_queue *uq, const struct sample *s,
			 const struct perf_event_attr *attr)
{
	if (!in->max_stack)
		in->max_stack = in->cfg.max_stack ? in->cfg.max_stack : event_max_stack();
	while (!in->cfg.live && unwind_queue_submit(uq, s, attr, in->max_stack)) {
		/* Half the queue at a time: one by one, the two threads
		 * would take turns waking each other. */
		unwind_queue_wait(uq, unwind_queue_slots(uq) / 2);
		ingest_unwound(in, false);
	}
	return in->cfg.live ? unwind_queue_submit(uq, s, attr, in->max_stack) : 0;
}

static void ingest_sample(struct ingest *in, const struct sample *s,
			  const struct perf_event_attr *attr)
{
	struct unwind_queue *uq;

	if (in->only_attr && attr != in->only_attr && attr != in->also_attr)
		return;
	/* A switch opens and closes intervals; the closed ones come back
	 * here as samples without RAW, weighed by their duration. */
	if (in->offcpu && s->raw && attr->type == PERF_TYPE_TRACEPOINT) {
		ingest_offcpu_sample(in, s, attr);
		return;
	}
	if (!(uq = ingest_unwinder(in, attr))) {
		ingest_sample_add(in, s, attr, false, &INGEST_ONE);
		return;
	}
	/* A kernel thread's sample has no user part; on the queue, a
	 * tracepoint's samples are --off-cpu's switches alone. */
	if (s->regs_abi == PERF_SAMPLE_REGS_ABI_NONE ||
	    (in->offcpu && attr->type == PERF_TYPE_TRACEPOINT)) {
		ingest_sample_kernel_part(in, s, attr);
		return;
	}
	/* The unwinder is behind: a live sample keeps its kernel frames and
	 * leaf, and says so. */
	if (ingest_submit(in, uq, s, attr)) {
		unwind_queue_count_dropped(uq);
		ingest_sample_kernel_part(in, s, attr);
	}
}

/* Whether a chain ending in sym reached where a thread starts. */
static bool ingest_is_root(const struct symbol *sym)
{
	static const char *const roots[] = {
		"_start", "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
		"clone", "clone3", "__clone", "__clone3", "start_thread", "thread_start",
	};
	size_t i, n;

	if (!sym || !sym->name)
		return false;
	/* Versioned names: __libc_start_main@@GLIBC_2.34 */
	n = strcspn(sym->name, "@");
	for (i = 0; i < ARRAY_SIZE(roots); i++)
		if (strlen(roots[i]) == n && !strncmp(sym->name, roots[i], n))
			return true;
	return false;
}

/* Frames of chains counted once their symbols are in, at most (~24 MiB). */
#define INGEST_FP_PENDING (1u << 20)

static void ingest_count_fp_sym(struct ingest *in, const struct symbol *sym, uint64_t n)
{
	in->fp_chains += n;
	if (sym && sym == in->fp_root_sym) {
		in->fp_root += n;
	} else if (ingest_is_root(sym)) {
		in->fp_root_sym = sym;
		in->fp_root += n;
	}
}

/* A frame-pointer chain of n frames just resolved: count it if it has a
 * user part, and whether its outermost frame is a root; one whose
 * symbols are loading waits for them (ingest_count_fp_pending). */
static void ingest_count_fp_root(struct ingest *in, size_t n, uint64_t count)
{
	const struct callchain_frame *f = n >= 2 ? &in->cc_callers[n - 2] : &in->cc_frames[0];
	size_t i;

	if (!n || f->kernel)
		return;
	/* cc_at is the chain's own while cc_callers is cc_frames + 1. */
	if (in->cc_callers != in->cc_frames + 1 || !in->cc_at[n - 1].pending) {
		ingest_count_fp_sym(in, f->sym, count);
		return;
	}
	/* The same frame as a recent chain's: most are. */
	for (i = in->nfp_pending; i > 0 && i + 8 > in->nfp_pending; i--) {
		if (in->fp_pending[i - 1].dso == f->dso &&
		    in->fp_pending[i - 1].addr == in->cc_at[n - 1].addr) {
			in->fp_pending[i - 1].n += count;
			return;
		}
	}
	/* Too many frames loading: this chain is not counted. */
	if (in->nfp_pending == INGEST_FP_PENDING)
		return;
	if (in->nfp_pending == in->fp_pending_cap)
		in->fp_pending = xgrow(in->fp_pending, &in->fp_pending_cap, in->nfp_pending + 1,
				       sizeof(*in->fp_pending));
	i = in->nfp_pending;
	in->fp_pending[i].dso = f->dso;
	in->fp_pending[i].addr = in->cc_at[n - 1].addr;
	in->fp_pending[i].n = count;
	in->nfp_pending++;
}

/* Count the chains held by ingest_count_fp_root whose symbols are in. */
static void ingest_count_fp_pending(struct ingest *in)
{
	size_t i, k = 0;

	for (i = 0; i < in->nfp_pending; i++) {
		struct ingest_fp_pending *p = &in->fp_pending[i];
		struct resolved r;

		if (machine_resolve_deferred(in->machine, p->dso, p->addr, false, &r))
			ingest_count_fp_sym(in, r.sym, p->n);
		else
			in->fp_pending[k++] = *p;
	}
	in->nfp_pending = k;
}

bool ingest_has_data_addr(const struct ingest *in, const struct perf_event_attr *attr)
{
	if (in->payload && in->payload->payload->data_addr)
		return true;
	return attr && (attr->sample_type & PERF_SAMPLE_ADDR);
}

/* With a daddr key: the data symbol and mapping of s into hs, from its
 * decoded payload (IBS Op: exact, only loads and stores with a valid
 * address), else from PERF_SAMPLE_ADDR (perf mem's; 0 is none); neither:
 * none ([unknown]). */
static void ingest_data_addr(struct ingest *in, const struct sample *s,
			     const struct perf_event_attr *attr, const void *decoded,
			     struct hist_sample *hs)
{
	const struct payload_ops *ops = in->payload ? in->payload->payload : NULL;
	struct resolved d;
	uint64_t addr;

	if (ops && ops->data_addr) {
		if (!decoded || !ops->data_addr(decoded, &addr))
			return;
	} else if (attr->sample_type & PERF_SAMPLE_ADDR) {
		addr = s->addr;
		if (!addr)
			return;
	} else {
		return;
	}
	machine_resolve_data(in->machine, s->sid.pid, s->sid.tid, addr, &d);
	hs->ddso = d.dso;
	hs->dsym = d.sym;
}

/* Count and add s as c says, its chain complete (dwarf: unwound, the
 * chain in perf's layout with its user part, whatever attr says).
 * Whether it was added resolved for good (not held for symbols, no frame
 * pending): an off-CPU run may then start from it. */
static bool ingest_sample_add(struct ingest *in, const struct sample *s,
			      const struct perf_event_attr *attr, bool dwarf,
			      const struct ingest_charge *c)
{
	struct hist_sample hs;
	struct resolved r;
	uint64_t count = c->n;
	bool final;

	in->samples += count;
	ingest_resolve(in, c->under, s->sid.pid, s->sid.tid, s->cpumode, s->ip, &r);
	/* Waiting for a CPU, not blocked: told apart by its own leaf. */
	if (c->kind == WALLTIME_RUNQ) {
		static const struct symbol runqueue = { 0, 1, "[runqueue]" };

		r.sym = &runqueue;
		r.pending = false;
	}
	hs.comm = c->under && c->under->comm ? c->under->comm :
		  machine_comm_of(in->machine, s->sid.pid, s->sid.tid);
	if (!hs.comm && s->sid.pid == 0)
		hs.comm = intern("swapper");
	hs.pid = s->sid.pid;
	hs.tid = s->sid.tid;
	hs.cpu = s->sid.cpu;
	hs.dso = r.dso;
	hs.sym = r.sym;
	hs.kernel = r.kernel;
	/* Pending: the file offset, made an address by deferred_flush. */
	hs.addr = ingest_wants_addr(in) ? r.addr : 0;
	hs.period = s->period;
	hs.chain = NULL;
	hs.nr_chain = 0;
	hs.callers = NULL;
	hs.callers_token = 0;
	hs.ddso = NULL;
	hs.dsym = NULL;
	/* Live, the attr has chains with -g; a recording's are used
	 * whenever it has them. */
	if ((attr->sample_type & PERF_SAMPLE_CALLCHAIN) || dwarf) {
		hist_enable_callchains(in->hist, 0);
		hs.nr_chain = ingest_resolve_chain(in, c->under, s, &r);
		in->zero_ends += callchain_zero_ends(s) * count;
		hs.callers = in->cc_callers;
		hs.callers_token = in->cc_token;
		if (!dwarf)
			ingest_count_fp_root(in, hs.nr_chain, count);
	}
	final = !(hs.callers ? in->cc_pending : r.pending);
	/* Symbols still loading (machine.c): hold the sample, not the engine. */
	if (in->deferred && !final) {
		struct deferred_addr at = { r.addr, r.pending };

		/* The held copy wants the chain in one piece, with an
		 * address per frame (a cached caller is final: not pending). */
		if (hs.callers) {
			if (hs.callers != in->cc_frames + 1) {
				size_t i;

				memcpy(in->cc_frames + 1, hs.callers,
				       (hs.nr_chain - 1) * sizeof(*hs.callers));
				for (i = 1; i < hs.nr_chain; i++) {
					in->cc_at[i].addr = 0;
					in->cc_at[i].pending = false;
				}
			}
			hs.chain = in->cc_frames;
			hs.callers = NULL;
			hs.callers_token = 0;
		}
		deferred_add(in->deferred, &hs, hs.chain ? in->cc_at : &at, in->refresh_gen);
		if (deferred_frames(in->deferred) > INGEST_DEFERRED_MAX) {
			machine_wait_symbols(in->machine);
			deferred_flush(in->deferred, in->machine, in->hist, in->refresh_gen,
				       ingest_mode(in));
		}
		return false;
	}
	if (in->times) {
		struct walltime_sample t = { c->kind, s->period, count };

		if (t.kind == WALLTIME_ON)
			in->oncpu_ns += s->period;
		annotate_sample_n(in->annotate, r.dso, r.sym, r.addr, s->period, count);
		hist_add_payload_n(in->hist, &hs, &t, count);
		return final;
	}
	/* a sample of the event without a payload is not the decoder's either */
	if (in->payload && (attr->sample_type & PERF_SAMPLE_RAW)) {
		union arch_payload_buf buf;
		bool ok = arch_payload_decode_in(&in->payload_env, in->payload, attr, s->raw,
						 s->raw_size, &buf);

		if (in->daddr)
			ingest_data_addr(in, s, attr, ok ? &buf : NULL, &hs);
		annotate_sample_payload(in->annotate, r.dso, r.sym, r.addr, s->period,
					ok ? &buf : NULL);
		hist_add_payload(in->hist, &hs, ok ? &buf : NULL);
		return final;
	}
	if (in->daddr)
		ingest_data_addr(in, s, attr, NULL, &hs);
	annotate_sample(in->annotate, r.dso, r.sym, r.addr, s->period);
	hist_add(in->hist, &hs);
	return final;
}

/* Charge n off-CPU intervals of one key (a run, offcpu.h) as one sample
 * of their summed duration in ns, with the chain the thread had when it
 * went off, under the maps it was taken under (under: see ingest_charge).
 * Whether it was added for good (ingest_sample_add). */
static bool ingest_offcpu_charge_n(struct ingest *in, const struct offcpu_interval *iv,
				   uint64_t n, const struct perf_event_attr *attr,
				   const struct ingest_under *under)
{
	struct ingest_charge c = { n, iv->runnable ? WALLTIME_RUNQ : WALLTIME_BLOCKED, under };
	struct sample s;

	memset(&s, 0, sizeof(s));
	s.sid.pid = iv->pid;
	s.sid.tid = iv->tid;
	s.sid.cpu = iv->cpu;
	s.sid.time = iv->end;
	s.cpumode = iv->cpumode;
	s.ip = iv->ip;
	s.callchain = iv->chain;
	s.nr_callchain = iv->nr_chain;
	s.period = iv->end - iv->start;
	/* With dwarf the chain has its user part already (the unwinder's).
	 * The switch that opened the interval passed ingest_sample's
	 * filter. */
	return ingest_sample_add(in, &s, attr, unwind_attr_wants(attr), &c);
}

/* Thread tid's runs charged (only the one a new run would replace, with
 * evict); all threads' with tid 0 (none is charged: the idle task never
 * goes off). */
static void ingest_offcpu_runs_end(struct ingest *in, uint32_t tid, bool evict)
{
	const void *attr;
	struct offcpu_interval iv;
	size_t cursor = 0;
	uint64_t n;

	if (!in->offcpu)
		return;
	/* A run is of the thread's current maps (see ingest_offcpu_charge). */
	if (evict) {
		if (offcpu_run_evict(in->offcpu, tid, &iv, &n, &attr))
			ingest_offcpu_charge_n(in, &iv, n, attr, NULL);
	} else if (tid) {
		while (offcpu_run_take(in->offcpu, tid, &iv, &n, &attr))
			ingest_offcpu_charge_n(in, &iv, n, attr, NULL);
	} else {
		while (offcpu_run_next(in->offcpu, &cursor, &iv, &n, &attr))
			ingest_offcpu_charge_n(in, &iv, n, attr, NULL);
	}
}

/* Charge an off-CPU interval: counted into its thread's run when it has
 * the run's key, else alone (ending the run), then starting a run of its
 * own when its sample was added for good.  Not when it was taken under
 * the maps of before an exec (under: a run is charged with the current
 * ones). */
static void ingest_offcpu_charge(struct ingest *in, const struct offcpu_interval *iv,
				 const struct perf_event_attr *attr,
				 const struct ingest_under *under)
{
	bool runs = !in->offcpu_no_runs && !under && !machine_synthesizing(in->machine);

	if (iv->end <= iv->start)
		return;
	in->offcpu_ns += iv->end - iv->start;
	if (runs && offcpu_run_extend(in->offcpu, iv, attr))
		return;
	/* Alone, with a new run taking the older one's place. */
	ingest_offcpu_runs_end(in, iv->tid, true);
	if (ingest_offcpu_charge_n(in, iv, 1, attr, under) && runs)
		offcpu_run_start(in->offcpu, iv, attr);
}

/* A sched_switch sample s, taken under the maps under (see
 * ingest_charge): the next task's interval ends, the previous one's
 * starts. */
static void ingest_offcpu_switch(struct ingest *in, const struct sample *s,
				 const struct offcpu_switch *sw, const struct perf_event_attr *attr,
				 const struct ingest_under *under)
{
	struct offcpu_interval iv;

	if (s->sid.time > in->offcpu_now)
		in->offcpu_now = s->sid.time;
	in->offcpu_attr = attr;
	/* System-wide the next task's switch-in is here; per thread, in the
	 * PERF_RECORD_SWITCH that follows. */
	if (sw->next_pid && offcpu_in(in->offcpu, sw->next_pid, s->sid.time, &iv))
		ingest_offcpu_charge(in, &iv, attr, NULL);
	if (!sw->prev_pid || offcpu_state_dead(sw->prev_state))
		return;    /* the idle task, or a thread's last switch */
	memset(&iv, 0, sizeof(iv));
	iv.pid = s->sid.pid;
	iv.tid = sw->prev_pid;
	iv.cpu = s->sid.cpu;
	iv.start = s->sid.time;
	iv.runnable = offcpu_state_runnable(sw->prev_state);
	iv.ip = s->ip;
	iv.cpumode = s->cpumode;
	iv.chain = s->callchain;
	iv.nr_chain = s->nr_callchain;
	if (offcpu_out(in->offcpu, &iv, &iv))
		ingest_offcpu_charge(in, &iv, attr, under);
}

/* A switch-in (or, with exit, an exit) of tid at time. */
static void ingest_offcpu_end(struct ingest *in, uint32_t tid, uint64_t time, bool exit,
			      const struct perf_event_attr *attr)
{
	struct offcpu_interval iv;
	bool closed;

	/* An exit forgets the thread, and its run with it. */
	if (exit)
		ingest_offcpu_runs_end(in, tid, false);
	closed = exit ? offcpu_exit(in->offcpu, tid, time, &iv) :
			offcpu_in(in->offcpu, tid, time, &iv);

	if (time > in->offcpu_now)
		in->offcpu_now = time;
	if (closed)
		ingest_offcpu_charge(in, &iv, attr, NULL);
}

/* Switch and exit records end intervals (--off-cpu); behind switch-outs
 * still being unwound, they wait for them. */
static void ingest_offcpu_record(struct ingest *in, const struct record *rec,
				 const struct perf_event_attr *attr)
{
	struct offcpu_defer_event ev = { .attr = attr, .time = rec->sid.time };

	if (!rec->has_sid)
		return;
	if ((rec->type == PERF_RECORD_SWITCH || rec->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
	    !(rec->misc & PERF_RECORD_MISC_SWITCH_OUT)) {
		ev.kind = OFFCPU_DEFER_IN;
		ev.tid = rec->sid.tid;
	} else if (rec->kind == RECORD_EXIT) {
		ev.kind = OFFCPU_DEFER_EXIT;
		ev.tid = rec->u.task.tid;
	} else {
		if (rec->sid.time > in->offcpu_now)
			in->offcpu_now = rec->sid.time;
		return;
	}
	if (offcpu_defer_len(in->offcpu_defer))
		offcpu_defer_push(in->offcpu_defer, &ev);
	else
		ingest_offcpu_end(in, ev.tid, ev.time, ev.kind == OFFCPU_DEFER_EXIT, attr);
}

uint64_t ingest_offcpu_test_runs(struct ingest *in, bool on)
{
	in->offcpu_no_runs = !on;
	return in->offcpu ? offcpu_stats(in->offcpu)->in_runs : 0;
}

void ingest_offcpu_watch_holes(struct ingest *in)
{
	if (in->offcpu && !in->offcpu_holes)
		in->offcpu_holes = offcpu_holes_new();
}

bool ingest_offcpu_hole_next(struct ingest *in, uint32_t *cpu, bool *on)
{
	return in->offcpu_holes && offcpu_holes_take(in->offcpu_holes, cpu, on);
}

void ingest_offcpu_cpu_watched(struct ingest *in, uint32_t cpu, bool watched)
{
	if (in->offcpu_holes)
		offcpu_holes_cpu_watched(in->offcpu_holes, cpu, watched);
}

/* The events behind the oldest switch-out on the unwinder's queue wait;
 * those before it go now. */
static void ingest_offcpu_flush(struct ingest *in)
{
	const struct offcpu_defer_event *ev;

	while ((ev = offcpu_defer_head(in->offcpu_defer)) && ev->kind != OFFCPU_DEFER_QUEUED) {
		if (ev->kind == OFFCPU_DEFER_SWITCH)
			ingest_offcpu_switch(in, &ev->s, &ev->sw, ev->attr, NULL);
		else
			ingest_offcpu_end(in, ev->tid, ev->time, ev->kind == OFFCPU_DEFER_EXIT,
					  ev->attr);
		offcpu_defer_pop(in->offcpu_defer);
	}
}

/* A switch-out back from the unwinder: the FIFO's head is its switch. */
static void ingest_offcpu_deferred(struct ingest *in, const struct sample *queued,
				   const struct ingest_under *under)
{
	const struct offcpu_defer_event *ev = offcpu_defer_head(in->offcpu_defer);

	/* The queue returns in submit order, and queues no other
	 * tracepoint sample (ingest_sample): always there. */
	if (!ev || ev->kind != OFFCPU_DEFER_QUEUED)
		return;
	ingest_offcpu_switch(in, queued, &ev->sw, ev->attr, under);
	offcpu_defer_pop(in->offcpu_defer);
	ingest_offcpu_flush(in);
}

/* A sched_switch sample.  With dwarf, a thread going off with a user
 * stack is unwound first, on the unwinder's thread, and what follows it
 * waits for it. */
static void ingest_offcpu_sample(struct ingest *in, const struct sample *s,
				 const struct perf_event_attr *attr)
{
	struct offcpu_defer_event ev = { .kind = OFFCPU_DEFER_QUEUED, .attr = attr };
	struct unwind_queue *uq = ingest_unwinder(in, attr);
	struct sample kernel = uq ? ingest_kernel_part(s) : *s;

	if (!offcpu_decode(in->cfg.off_cpu, s->raw, s->raw_size, &ev.sw)) {
		in->offcpu_bad++;
		return;
	}
	if (in->offcpu_holes)
		offcpu_holes_switch(in->offcpu_holes, s->sid.cpu, ev.sw.prev_pid, ev.sw.next_pid);
	if (uq && s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE && ev.sw.prev_pid &&
	    !offcpu_state_dead(ev.sw.prev_state)) {
		/* Pushed first: a recording's submit may drain the queue. */
		offcpu_defer_push(in->offcpu_defer, &ev);
		if (!ingest_submit(in, uq, s, attr))
			return;
		/* Live and the unwinder behind: its kernel frames only, in
		 * its turn (the last event, just pushed). */
		offcpu_defer_drop_last(in->offcpu_defer);
		unwind_queue_count_dropped(uq);
	}
	if (offcpu_defer_len(in->offcpu_defer)) {
		ev.kind = OFFCPU_DEFER_SWITCH;
		ev.s = kernel;
		offcpu_defer_push(in->offcpu_defer, &ev);
		return;
	}
	ingest_offcpu_switch(in, &kernel, &ev.sw, attr, NULL);
}

/* The /proc sweep is under way: read the process rec speaks of first. */
static void ingest_synth_pid(struct ingest *in, const struct record *rec)
{
	switch (rec->kind) {
	case RECORD_SAMPLE:
		machine_synthesize_pid(in->machine, rec->u.sample.sid.pid);
		break;
	case RECORD_MMAP:
		machine_synthesize_pid(in->machine, rec->u.mmap.pid);
		break;
	case RECORD_COMM:
		machine_synthesize_pid(in->machine, rec->u.comm.pid);
		break;
	case RECORD_FORK:
		/* The child inherits the parent's maps: the parent first. */
		machine_synthesize_pid(in->machine, rec->u.task.ppid);
		break;
	case RECORD_EXIT:
		machine_synthesize_pid(in->machine, rec->u.task.pid);
		break;
	default:
		break;
	}
}

/* What the cache holds for pid may now resolve differently; gone: pid
 * exec'd, exited or is a new process, not one with a new map. */
static void ingest_maps_changed(struct ingest *in, uint32_t pid, bool gone)
{
	if (in->rcache)
		callchain_cache_invalidate(in->rcache, pid);
	if (!in->uq)
		return;
	/* A recording's samples are unwound with the maps they were taken
	 * with; live, ingestion does not wait (a sample in flight across an
	 * exec keeps its maps: unwind_queue_exec). */
	if (!in->cfg.live)
		ingest_unwound(in, true);
	if (gone)
		unwind_queue_forget(in->uq, pid);
	else
		unwind_queue_maps_changed(in->uq, pid);
}

void ingest_record(struct ingest *in, const struct perf_event_header *hdr,
		   const struct perf_event_attr *attr)
{
	struct record rec;

	/* Live --off-cpu: a switch-out record says nothing the tracepoint's
	 * sample of that switch did not (a refresh charges up to its own
	 * clock), so it is not even decoded: a third of the records in a
	 * switch storm. */
	if (in->offcpu && in->cfg.live && (hdr->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
	    (hdr->type == PERF_RECORD_SWITCH || hdr->type == PERF_RECORD_SWITCH_CPU_WIDE))
		return;
	ingest_unwound(in, false);
	if (record_decode(hdr, attr, &rec, NULL)) {
		in->bad_records++;
		return;
	}
	if (rec.kind != RECORD_SAMPLE)
		machine_set_time(in->machine, rec.has_sid ? rec.sid.time : 0);
	if (machine_synthesizing(in->machine))
		ingest_synth_pid(in, &rec);
	if (in->offcpu && rec.kind != RECORD_SAMPLE) {
		/* Runs are charged at once, with the machine as it is now:
		 * before it changes. */
		if (rec.kind == RECORD_MMAP || rec.kind == RECORD_COMM ||
		    rec.kind == RECORD_FORK || rec.kind == RECORD_EXIT)
			ingest_offcpu_runs_end(in, 0, false);
		ingest_offcpu_record(in, &rec, attr);
	}
	switch (rec.kind) {
	case RECORD_SAMPLE:
		ingest_sample(in, &rec.u.sample, attr);
		break;
	case RECORD_MMAP:
		machine_mmap(in->machine, &rec.u.mmap);
		ingest_maps_changed(in, rec.u.mmap.pid, false);
		break;
	case RECORD_COMM:
		/* Live, samples still on the unwinder's queue keep the maps
		 * they were taken under (a recording's are added by now). */
		if (rec.u.comm.exec && in->uq && in->cfg.live)
			unwind_queue_exec(in->uq, rec.u.comm.pid);
		machine_comm(in->machine, &rec.u.comm);
		if (rec.u.comm.exec)
			ingest_maps_changed(in, rec.u.comm.pid, true);
		break;
	case RECORD_FORK:
		machine_fork(in->machine, &rec.u.task);
		/* A new process may reuse the pid of one cached before. */
		if (rec.u.task.pid != rec.u.task.ppid)
			ingest_maps_changed(in, rec.u.task.pid, true);
		break;
	case RECORD_EXIT:
		machine_exit(in->machine, &rec.u.task);
		if (rec.u.task.pid == rec.u.task.tid)
			ingest_maps_changed(in, rec.u.task.pid, true);
		if (rec.u.task.pid == rec.u.task.tid && ingest_is_target(in, rec.u.task.pid) &&
		    in->alive_targets > 0)
			in->alive_targets--;
		break;
	case RECORD_LOST:
	case RECORD_LOST_SAMPLES:
		in->lost += rec.u.lost.lost;
		break;
	case RECORD_THROTTLE:
		in->throttled++;
		break;
	default:
		break;
	}
}

static const char *ingest_mode_name(enum hist_mode m)
{
	switch (m) {
	case HIST_ZERO:
		return "zero";
	case HIST_ACCUMULATE:
		return "accumulate";
	default:
		return "decay";
	}
}

/* A refresh publishes a snapshot, then ages the hist; a preview (the quick
 * first frame) only publishes, so the first full interval is unchanged. */
void ingest_publish(struct ingest *in, const struct ingest_header *hdr,
		    const struct refresh_action *act, ingest_publish_cb cb, void *ctx)
{
	bool preview = act->what == REFRESH_PREVIEW;
	enum hist_mode mode = ingest_mode(in);
	struct snapshot snap;

	/* The snapshot counts every sample read so far. */
	ingest_unwound(in, true);
	ingest_offcpu_runs_end(in, 0, false);
	/* -g shows the callchain layout from the first (maybe empty) refresh. */
	if (in->cfg.callchain && in->cfg.live)
		hist_enable_callchains(in->hist, 0);
	memset(&snap, 0, sizeof(snap));
	snap.time = hdr->time;
	snap.event = hdr->event;
	snap.event_note = hdr->event_note;
	snap.freq = hdr->freq;
	snap.sample_freq = hdr->sample_freq;
	snap.sample_period = hdr->sample_period;
	snap.target = hdr->target;
	snap.wall_start_ns = hdr->wall_start_ns;
	snap.total_samples = in->samples;
	snap.lost = in->lost;
	snap.throttled = in->throttled;
	snap.ring_pages = hdr->ring_pages;
	snap.stack_copy = hdr->stack_copy;
	snap.callchain_zero_ends = in->zero_ends;
	snap.threads = machine_get_stats(in->machine)->threads;
	snap.processes = machine_get_stats(in->machine)->processes;
	snap.samples_per_sec = act->interval > 0 ?
		(double)(in->samples - in->samples_at_refresh) / act->interval : 0;
	snap.mode = ingest_mode_name(mode);
	for (size_t i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++) {
		snap.unwind_name[i] = unwind_outcome_name((enum unwind_outcome)i);
		snap.unwind_key[i] = unwind_outcome_key((enum unwind_outcome)i);
	}
	if (in->uq) {
		_Static_assert(UNWIND_NOUTCOMES == SNAPSHOT_UNWIND_OUTCOMES, "snapshot.unwind");
		_Static_assert(UNWIND_ROOT == SNAPSHOT_UNWIND_ROOT, "snapshot.unwind root");
		unwind_queue_counts(in->uq, snap.unwind);
		for (size_t i = 0; i < UNWIND_NOUTCOMES; i++)
			snap.unwind_walks += snap.unwind[i];
	} else if (in->fp_chains || in->nfp_pending) {
		ingest_count_fp_pending(in);
		snap.unwind_fp = true;
		snap.unwind_walks = in->fp_chains;
		snap.unwind[UNWIND_ROOT] = in->fp_root;
	}
	/* Printed tables are read whole, later: no kernel rows missing for
	 * being early (the browser shows them at its next frame).  Live, the
	 * scheduler held the refresh until the kernel's thread was done: this
	 * only takes its symbols.  A preview does not wait for them: user
	 * rows come first. */
	if (act->wait_kernel)
		machine_wait_kernel(in->machine);
	/* Threads still off the CPU are charged up to now, and go on: live,
	 * the clock the tracepoint's times are on (event.c); a recording,
	 * its latest switch. */
	if (in->offcpu && in->offcpu_attr && !preview) {
		struct offcpu_interval iv;
		size_t at = 0;

		if (in->cfg.live && in->offcpu_attr->use_clockid &&
		    in->offcpu_attr->clockid == CLOCK_MONOTONIC) {
			struct timespec ts;
			uint64_t now;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			if (now > in->offcpu_now)
				in->offcpu_now = now;
		}

		while (offcpu_next_open(in->offcpu, &at, in->offcpu_now, &iv))
			ingest_offcpu_charge(in, &iv, in->offcpu_attr, NULL);
		ingest_offcpu_runs_end(in, 0, false);
	}
	if (in->offcpu) {
		const struct offcpu_stats *st = offcpu_stats(in->offcpu);

		snap.off_cpu = true;
		snap.wall = in->cfg.wall;
		snap.offcpu_dropped = st->dropped;
		if (in->offcpu_holes) {
			const struct offcpu_holes_stats *hs = offcpu_holes_stats(in->offcpu_holes);

			snap.offcpu_holes_on = true;
			snap.offcpu_holes = hs->holes;
			snap.offcpu_holes_closed = hs->closed;
			snap.offcpu_holes_idle = hs->idle;
			snap.offcpu_watches = hs->watches;
			snap.offcpu_unwatches = hs->unwatches;
		}
		if (act->interval > 0) {
			snap.oncpu_ms_per_sec = (double)(in->oncpu_ns - in->oncpu_ns_at_refresh) /
						1e6 / act->interval;
			snap.offcpu_ms_per_sec = (double)(in->offcpu_ns - in->offcpu_ns_at_refresh) /
						 1e6 / act->interval;
			snap.switches_per_sec = (double)(st->switches -
							 in->offcpu_switches_at_refresh) /
						act->interval;
		}
		if (!preview) {
			in->offcpu_ns_at_refresh = in->offcpu_ns;
			in->offcpu_switches_at_refresh = st->switches;
			in->oncpu_ns_at_refresh = in->oncpu_ns;
		}
	}
	if (in->deferred && preview) {
		/* The first frame waited for user symbols in the loop already. */
		deferred_flush(in->deferred, in->machine, in->hist, in->refresh_gen, mode);
	} else if (in->deferred) {
		/* The rings are drained just before a refresh, so a DSO seen for
		 * the first time has only just been queued: give the loader a
		 * moment (the renderers wait, not the ingestion), and show
		 * whatever is left as "loading symbols" next time. */
		if (deferred_flush(in->deferred, in->machine, in->hist, in->refresh_gen, mode) &&
		    machine_wait_symbols_for(in->machine, act->symbols_wait_ms))
			deferred_flush(in->deferred, in->machine, in->hist, in->refresh_gen, mode);
	}
	snap.symbols_loading = machine_symbols_loading(in->machine);
	snap.debuginfod_active = machine_debuginfod_active(in->machine);
	snap.kallsyms_source = machine_kernel_source(in->machine, &snap.kallsyms_reloads);
	ingest_kernel_notice(in);
	view_build(in->hist, &in->cfg.view, &snap);
	if (in->annotate) {
		annotate_resolve(in->annotate, in->hist);
		snap.annotate = annotate_report(in->annotate);
	}
	if (!cb(&snap, ctx))
		snapshot_release(&snap);
	if (preview)
		return;
	in->samples_at_refresh = in->samples;
	hist_age(in->hist, mode);
	annotate_age(in->annotate, mode);
	in->refresh_gen++;
	machine_gc(in->machine);
	/* Live, what one interval saw bounds the cache (and an [unknown]
	 * kept by mistake lasts one refresh at most). */
	if (in->rcache && in->cfg.live)
		callchain_cache_clear(in->rcache);
}
