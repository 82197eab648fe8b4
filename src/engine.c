/* The engine: starts a source (live events on the targets, or a recording)
 * and runs the loop that waits on it, drains it into the ingestion and
 * publishes when the refresh scheduler says so. */
#include "config.h"

#include "engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "errmsg.h"
#include "event.h"
#include "offcpu.h"
#include "ingest.h"
#include "pmu.h"
#include "kernel.h"
#include "machine.h"
#include "symloader.h"
#include "synth.h"
#include "perfdata.h"
#include "refresh.h"
#include "source-file.h"
#include "source-live.h"
#include "target.h"
#include "unwind-regs.h"
#include "util.h"

struct engine {
	struct engine_config cfg;
	struct source *src;
	bool live;                   /* src is the live events, else a recording */
	struct ingest *in;
	struct target target;
	char event_name[160];
	char event_note[160];
	struct offcpu_format offcpu_format;  /* --off-cpu: sched_switch's fields */
	bool freq;                   /* sampling by frequency, else by period */
	uint64_t sample_freq;        /* after -F max and clamping */
	uint64_t sample_period;
	size_t ring_pages;           /* live: each CPU's ring */
	double start;
	double file_seconds;         /* first to last sample of the recording */
	int64_t file_wall_start_ns;  /* its first sample on the wall clock, or 0 */

	/* The start-up work left to engine_run (live): kallsyms and the /proc
	 * synthesis, done on the engine thread while the events already
	 * sample into the rings, so the terminal comes up at once. */
	bool need_kernel;
	bool synth_all;
	pid_t *synth_procs;
	size_t nsynth_procs;

	/* controls from other threads */
	int wake_fd[2];              /* engine_stop writes here to end ppoll */
	atomic_bool stop_requested;
	atomic_bool returned;        /* engine_run is done with the ingest */
};

/* Processes read from /proc between two ring reads (~50 us each). */
#define ENGINE_SYNTH_STEP 32

static volatile sig_atomic_t got_stop_signal;
static volatile sig_atomic_t got_sigchld;

static void on_stop_signal(int sig)
{
	got_stop_signal = sig;
}

static void on_sigchld(int sig)
{
	got_sigchld = 1;
}

static bool engine_stopped(const struct engine *e)
{
	return atomic_load(&e->stop_requested);
}

/* perf's build-id cache: binaries and debug files by build ID after the
 * file on disk.  Missing is normal, unless named with --buildid-dir. */
static void engine_buildid_cache(struct engine *e)
{
	int err = machine_set_buildid_dir(ingest_machine(e->in), e->cfg.buildid_dir);

	if (err && e->cfg.buildid_dir)
		msg_notice("--buildid-dir %s: %s: binaries are not looked up there",
			   e->cfg.buildid_dir, strerror(-err));
}

static void engine_new_ingest(struct engine *e, int e_machine)
{
	struct ingest_config ic = {
		.sort = e->cfg.sort,
		.mode = e->cfg.mode,
		.view = e->cfg.view,
		.max_stack = e->cfg.max_stack,
		.live = e->live,
		.callchain = e->cfg.callchain,
		.demangle = e->cfg.demangle,
		.debuginfod = e->cfg.debuginfod,
		.debuginfod_timeout = e->cfg.debuginfod_timeout,
		.annotate = e->cfg.annotate,
		.nannotate = e->cfg.nannotate,
		.annotate_intel = e->cfg.annotate_intel,
		.annotate_browse = e->cfg.annotate_browse,
		.off_cpu = e->cfg.off_cpu ? &e->offcpu_format : NULL,
		.wall = e->cfg.wall,
	};

	e->in = ingest_new(&ic, e_machine);
	/* Live too: binaries gone from the disk since they were mapped. */
	machine_set_symfs(ingest_machine(e->in), e->cfg.symfs);
	engine_buildid_cache(e);
}

/* --vmlinux FILE: refused at once unless it is the running kernel's (its
 * symbols load later, on the kernel thread); without, one found by the
 * running kernel's build ID.  Returns 0 or the exit status 2. */
static int engine_vmlinux(struct engine *e)
{
	struct errmsg em = ERRMSG_INIT;
	int err;

	if (!e->cfg.vmlinux) {
		machine_set_vmlinux(ingest_machine(e->in), true, NULL);
		return 0;
	}
	err = kernel_check_vmlinux(e->cfg.vmlinux, &em);
	if (err) {
		msg_error("%s", errmsg_text(&em, err));
		return 2;
	}
	machine_set_vmlinux(ingest_machine(e->in), true, e->cfg.vmlinux);
	return 0;
}

/* Where names came from, once, at the end: the build-id cache, and the
 * entries of it refused. */
static void engine_buildid_notice(struct engine *e)
{
	size_t refused, used = machine_buildid_cache_used(ingest_machine(e->in), &refused);

	if (used)
		msg_notice("%zu DSO%s from the build-id cache", used, used == 1 ? "" : "s");
	if (refused)
		msg_notice("%zu build-id cache entr%s refused (a link out of the cache, a loop, "
			   "not a regular file, or another build ID)",
			   refused, refused == 1 ? "y" : "ies");
}

/* Live: kallsyms through the cache unless --no-kallsyms-cache, and read
 * again for addresses outside it. */
static void engine_kernel_live(struct engine *e)
{
	machine_set_kernel_live(ingest_machine(e->in), e->cfg.kallsyms_cache);
}

/* Kernel symbols for a recording: this machine's kallsyms, only when the
 * recording was made on this kernel. */
static void engine_file_kernel(struct engine *e, const struct perfdata_info *info)
{
	struct machine *m = ingest_machine(e->in);
	char *cached;
	bool same = kernel_check_recording(info, e->cfg.buildid_dir, &cached);

	/* perf record's copy of kallsyms: what perf report reads, 5-10x
	 * faster than /proc/kallsyms, and from the recording's boot. */
	if (cached)
		machine_set_kernel_cache(m, cached);
	free(cached);
	if (!same) {
		msg_notice("the recording's kernel is not the running one: kernel samples show as "
			   "[unknown] in [kernel.kallsyms]%s",
			   e->cfg.vmlinux ? " (--vmlinux not used)" : "");
		return;
	}
	/* kallsyms (75-230 ms here) is read at the first kernel address, and
	 * not at all for a recording without one; the notice comes at the
	 * end (engine_run_file).  (Read on a thread beside the ingestion it
	 * saved no time on a busy machine and held every kernel sample in
	 * the meantime: +15% peak RSS.) */
	machine_load_kernel_lazy(m);
}

/* --wall -i FILE: its cpu-clock (or task-clock) samples beside its
 * sched_switch ones, *tp the latter.  Returns 0 or the exit status. */
static int engine_file_wall(struct engine *e, const struct perfdata_event **tp,
			    const struct perfdata_event **clockp)
{
	const struct perfdata_event *clock = NULL, *ev;
	size_t i;

	*tp = NULL;
	for (i = 0; (ev = source_file_event_at(e->src, i)); i++) {
		if (ev->attr.type == PERF_TYPE_TRACEPOINT && !*tp)
			*tp = ev;
		else if (ev->attr.type == PERF_TYPE_SOFTWARE && !clock &&
			 (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
			  ev->attr.config == PERF_COUNT_SW_TASK_CLOCK))
			clock = ev;
	}
	if (!*tp || !clock) {
		msg_error("--wall: %s was not recorded with both cpu-clock and the "
			  "sched:sched_switch tracepoint (perf record -e cpu-clock -e "
			  "sched:sched_switch -g)", e->cfg.input);
		return 1;
	}
	/* The header names both, with the clock's sampling. */
	snprintf(e->event_name, sizeof(e->event_name), "%s,%s",
		 clock->name ? clock->name : "cpu-clock",
		 (*tp)->name ? (*tp)->name : "sched:sched_switch");
	e->freq = clock->attr.freq;
	e->sample_freq = e->freq ? clock->attr.sample_freq : 0;
	e->sample_period = e->freq ? 0 : clock->attr.sample_period;
	*clockp = clock;
	return 0;
}

/* Decoders that select by event (AMD IBS): the recording's own CPUID and
 * PMU_MAPPINGS decide, never this machine's. */
static void engine_file_payload(struct engine *e, const struct perfdata_info *info,
				const struct perfdata_event *ev)
{
	struct arch_pmu *pmus = xcalloc(info->npmus ? info->npmus : 1, sizeof(*pmus));
	struct arch_env env = {
		.e_machine = arch_machine_from_name(info->arch),
		.cpuid = info->cpuid,
		.pmus = pmus,
		.npmus = info->npmus,
	};
	size_t i;

	for (i = 0; i < info->npmus; i++) {
		pmus[i].type = info->pmus[i].type;
		pmus[i].name = info->pmus[i].name;
	}
	ingest_payload_env(e->in, &env, &ev->attr);
	free(pmus);
}

/* The daddr sort keys need samples with data addresses: say so once and
 * return true when attr's (NULL: live, the decoder's alone) have none. */
static bool engine_daddr_check(struct engine *e, const struct perf_event_attr *attr)
{
	if (!sort_spec_has_daddr(&e->cfg.sort) || ingest_has_data_addr(e->in, attr))
		return false;
	msg_error("-s daddr_dso/daddr_sym: the event's samples have no data addresses "
		  "(AMD IBS Op has them; a recording, also PERF_SAMPLE_ADDR: perf mem, "
		  "perf record -d)");
	return true;
}

/* A recording: open it and prepare the machine for it. */
static int engine_start_file(struct engine *e)
{
	const struct engine_config *c = &e->cfg;
	const struct perfdata_info *info;
	const struct perfdata_event *ev, *clock = NULL;
	struct errmsg em = ERRMSG_INIT;
	size_t i;
	int err;

	if ((err = source_file_open(c->input, c->dump, &e->src, &em)) < 0) {
		msg_error("%s", errmsg_text(&em, err));
		return 1;
	}
	snprintf(e->target.name, sizeof(e->target.name), "file %s", c->input);
	info = source_file_info(e->src);
	ev = source_file_event(e->src);
	if (ev->name)
		snprintf(e->event_name, sizeof(e->event_name), "%s", ev->name);
	else
		event_name_from_attr(&ev->attr, e->event_name, sizeof(e->event_name));
	e->freq = ev->attr.freq;
	e->sample_freq = e->freq ? ev->attr.sample_freq : 0;
	e->sample_period = e->freq ? 0 : ev->attr.sample_period;
	e->file_seconds = source_file_seconds(e->src);
	/* The file is written as the recording ends: its time, less the
	   recording's length, is when it began. */
	if (info->mtime_ns)
		e->file_wall_start_ns = info->mtime_ns - (int64_t)(e->file_seconds * 1e9);
	if (c->dump)
		return 0;
	if (c->wall && (err = engine_file_wall(e, &ev, &clock)) != 0)
		return err;
	/* --off-cpu: the sched_switch format the recording was made with. */
	if (c->off_cpu &&
	    (ev->attr.type != PERF_TYPE_TRACEPOINT ||
	     (err = offcpu_format_from_tracing(info->tracing_data, info->tracing_data_size,
					       &e->offcpu_format, &em)) < 0)) {
		if (ev->attr.type != PERF_TYPE_TRACEPOINT)
			msg_error("--off-cpu: %s was not recorded with the sched:sched_switch "
				  "tracepoint (perf record -e sched:sched_switch -g)", c->input);
		else
			msg_error("--off-cpu: %s: %s", c->input, errmsg_text(&em, err));
		return 1;
	}
	/* No ARCH feature: EM_NONE, no payload is decoded. */
	engine_new_ingest(e, arch_machine_from_name(info->arch));
	ingest_only_attr(e->in, &ev->attr);
	if (clock)
		ingest_also_attr(e->in, &clock->attr);
	engine_file_payload(e, info, ev);
	if (engine_daddr_check(e, &ev->attr))
		return 2;
	ingest_symbols_async(e->in);
	if (engine_vmlinux(e))
		return 2;
	for (i = 0; i < info->nbuild_ids; i++)
		machine_add_build_id(ingest_machine(e->in), info->build_ids[i].filename,
				     info->build_ids[i].id, info->build_ids[i].size);
	engine_file_kernel(e, info);
	return 0;
}

static int engine_off_cpu(struct engine *e, struct live_config *lc);
static int engine_sampling_rest(struct engine *e, struct live_config *lc);

/* -e NAME or NAME/terms/ of a PMU in sysfs: 0, or the exit status after a
 * one-line message (1: a payload decoder's PMU missing here; 2: a usage
 * error).  The decoder's rules (arch_pmu_rules) say what else it needs. */
static int engine_pmu_event(struct engine *e, struct live_config *lc)
{
	const struct engine_config *c = &e->cfg;
	struct errmsg em = ERRMSG_INIT;
	const struct arch_pmu_rules *rules;
	char pmu[64];
	const char *why;
	int err = pmu_event_parse("", c->event, &lc->event, &em);

	pmu_spec_name(c->event, pmu, sizeof(pmu));
	rules = arch_pmu_rules(pmu);
	if (err == -ENOENT && rules) {
		msg_error("%s: %s: %s", c->event, errmsg_text(&em, err), rules->missing);
		return 1;
	}
	if (err == -ENOENT) {
		msg_error("unknown event '%s': use cycles, instructions, cpu-clock, task-clock, "
			  "another name from proftop --help, rNNNN for a raw event, or a PMU "
			  "from " "/" PMU_DEVICES,
			  c->event);
		return 2;
	}
	if (err) {
		msg_error("%s", errmsg_text(&em, err));
		return 2;
	}
	if (!rules)
		return 0;
	lc->event.sample_raw = true;
	if (!c->freq && rules->period_error && (why = rules->period_error(c->sample_period))) {
		msg_error("%s", why);
		return 2;
	}
	lc->event.no_exclude = true;
	if (rules->sw_filter_term) {
		struct event_spec swf;
		char spec[160];

		/* user-only sampling (the unprivileged) where the kernel
		 * filters in software */
		snprintf(spec, sizeof(spec), "%s/%s=1/", pmu, rules->sw_filter_term);
		if (pmu_event_parse("", spec, &swf, &em) == 0) {
			lc->event.sw_filter = true;
			lc->event.config |= swf.config;
			lc->event.config1 |= swf.config1;
			lc->event.config2 |= swf.config2;
		}
		errmsg_clear(&em);
	}
	return 0;
}

/* The live payload decoder of a PMU event (AMD IBS): this host's CPUID
 * and the event's PMU decide, as a recording's headers do. */
static void engine_live_payload(struct engine *e, const struct event_spec *ev)
{
	char cpuid[128], pmu[64];
	struct arch_pmu map;
	struct perf_event_attr attr;
	struct arch_env env = { .e_machine = arch_host_machine(), .pmus = &map, .npmus = 1 };

	if (!ev->sample_raw)
		return;
	pmu_spec_name(ev->name, pmu, sizeof(pmu));
	map.type = ev->type;
	map.name = pmu;
	env.cpuid = pmu_host_cpuid(cpuid, sizeof(cpuid)) ? cpuid : NULL;
	memset(&attr, 0, sizeof(attr));
	attr.type = ev->type;
	ingest_payload_env(e->in, &env, &attr);
}

/* The event and how it samples, from the config.  Returns 0 or the exit
 * status after a message. */
static int engine_sampling(struct engine *e, struct live_config *lc)
{
	const struct engine_config *c = &e->cfg;

	if (c->off_cpu)
		return engine_off_cpu(e, lc);
	if (event_parse(c->event ? c->event : "cycles", &lc->event)) {
		int status = engine_pmu_event(e, lc);

		if (status)
			return status;
	}
	lc->event_is_default = !c->event || strcmp(c->event, "cycles") == 0;
	return engine_sampling_rest(e, lc);
}

/* --off-cpu: sched:sched_switch on every switch, its fields from tracefs. */
static int engine_off_cpu(struct engine *e, struct live_config *lc)
{
	struct errmsg em = ERRMSG_INIT;
	char *format;
	int err;

	/* --wall: cpu-clock by -F or -c, the tracepoint beside it. */
	struct event_spec *tp = e->cfg.wall ? &lc->also : &lc->event;

	if ((err = event_tracepoint("sched", "sched_switch", tp, &format, &em)) ||
	    (err = offcpu_format_parse(format, &e->offcpu_format, &em))) {
		free(format);
		msg_error("%s: %s", e->cfg.wall ? "--wall" : "--off-cpu", errmsg_text(&em, err));
		return 1;
	}
	free(format);
	if (e->cfg.wall) {
		/* Time, whatever the CPU counts: cpu-clock's period is in ns. */
		event_parse("cpu-clock", &lc->event);
		lc->has_also = true;
	} else {
		e->cfg.freq = false;
		e->cfg.sample_period = 1;
	}
	return engine_sampling_rest(e, lc);
}

/* The sampling of the event in lc->event, from the config. */
static int engine_sampling_rest(struct engine *e, struct live_config *lc)
{
	const struct engine_config *c = &e->cfg;
	int status;

	if (c->cpus && (status = target_check_cpus(c->cpus, c->ncpus)) != 0)
		return status;

	lc->sampling.freq = e->freq = c->freq;
	e->sample_period = c->sample_period;
	if (c->freq) {
		uint64_t max = event_max_sample_rate();

		e->sample_freq = c->freq_max ? max : c->sample_freq;
		if (e->sample_freq > max) {
			msg_notice("-F %llu is above kernel.perf_event_max_sample_rate: using %llu Hz",
				   (unsigned long long)e->sample_freq, (unsigned long long)max);
			e->sample_freq = max;
		}
		lc->sampling.freq_or_period = e->sample_freq;
	} else {
		lc->sampling.freq_or_period = c->sample_period;
	}
	lc->sampling.tracking = true;
	lc->sampling.mmap_data = sort_spec_has_daddr(&c->sort);
	lc->cpus = c->cpus;
	lc->ncpus = c->ncpus;
	lc->mmap_pages = c->mmap_pages;
	/* Chains make samples 5-10 times larger, and the rings must hold
	 * what comes while kallsyms and /proc are read at the start (0.1-0.3 s
	 * at 4000 Hz): with -g and no -m, four times the default pages. */
	if (c->callchain && !c->mmap_pages_set)
		lc->mmap_pages = 4 * c->mmap_pages;
	/* A stack copy per sample: pages for about as many samples as
	 * frame-pointer chains get, 16 MiB per CPU at most. */
	if (c->dwarf_stack && !c->mmap_pages_set) {
		size_t pages = c->mmap_pages * (c->dwarf_stack / 512);

		while (lc->mmap_pages < pages && lc->mmap_pages < 4096)
			lc->mmap_pages *= 2;
	}
	if (c->dwarf_stack) {
		const struct unwind_regs_arch *ra = unwind_regs_find(arch_host_machine());

		if (!ra) {
			msg_error("--call-graph dwarf: the registers to unwind with are not known "
				  "on this machine: use --call-graph fp");
			return 2;
		}
		lc->sampling.dwarf_stack = c->dwarf_stack;
		lc->sampling.regs_user = ra->perf_mask;
		e->ring_pages = lc->mmap_pages;
	}
	if (c->callchain) {
		unsigned kmax = event_max_stack();

		lc->sampling.callchain = true;
		/* The kernel refuses a sample_max_stack above its sysctl. */
		lc->sampling.max_stack = (uint16_t)(c->max_stack && c->max_stack < kmax ?
							    c->max_stack : kmax);
	}
	return 0;
}

/* Live: open the events on the targets and prepare the machine. */
static int engine_start_live(struct engine *e)
{
	const struct engine_config *c = &e->cfg;
	const struct live_info *info;
	struct live_config lc = { 0 };
	struct target_threads th = { 0 };
	struct errmsg why = ERRMSG_INIT;
	int status, err;

	e->live = true;
	target_describe(&e->target, c);
	if ((status = engine_sampling(e, &lc)) != 0 ||
	    (status = target_threads(&e->target, c, &th)) != 0)
		goto out;
	lc.sampling.inherit = th.inherit;
	lc.sampling.enable_on_exec = th.enable_on_exec;
	lc.tids = c->system_wide ? NULL : th.tids;
	lc.switch_holes = c->off_cpu && c->system_wide;
	lc.ntids = th.ntids;

	err = source_live_open(&lc, &e->src, &why);
	if (err) {
		msg_error("cannot sample %s with %s: %s", e->target.name, lc.event.name,
			  errmsg_text(&why, err));
		status = err == -ESRCH ? 2 : 1;
		goto out;
	}
	info = source_live_info(e->src);
	snprintf(e->event_name, sizeof(e->event_name), "%s", info->event_name);
	snprintf(e->event_note, sizeof(e->event_note), "%s", info->note);
	if (e->event_note[0])
		msg_notice("%s", e->event_note);
	if (info->restriction[0])
		msg_notice("%s", info->restriction);

	/* live.c asks for the payload with arch_adjust_attr on the same host. */
	engine_new_ingest(e, arch_host_machine());
	engine_live_payload(e, &lc.event);
	if (engine_daddr_check(e, NULL)) {
		status = 2;
		goto out;
	}
	if (c->npids)
		ingest_set_targets(e->in, c->pids, c->npids);
	if (lc.switch_holes)
		ingest_offcpu_watch_holes(e->in);
	machine_set_live(ingest_machine(e->in), true);
	/* Unwinding reads sample stacks in the rings, no copy. */
	ingest_set_source(e->in, e->src);
	ingest_symbols_async(e->in);
	if ((status = engine_vmlinux(e)) != 0)
		goto out;
	engine_kernel_live(e);
	/* Kernel symbols and /proc come in engine_run, before the first
	 * record is read: the rings hold what arrives meanwhile. */
	e->need_kernel = !info->exclude_kernel;
	e->synth_all = c->system_wide;
	e->synth_procs = th.procs;
	e->nsynth_procs = th.nprocs;
	th.procs = NULL;

	if (c->command)
		status = target_release_command(&e->target, c->command);
out:
	free(th.tids);
	free(th.procs);
	return status;
}

int engine_start(const struct engine_config *cfg, struct engine **out)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	int status;

	e->cfg = *cfg;
	target_init(&e->target);
	e->wake_fd[0] = e->wake_fd[1] = -1;
	atomic_init(&e->stop_requested, false);
	atomic_init(&e->returned, false);
	e->start = now_monotonic();
	if (pipe2(e->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		status = 1;
		goto fail;
	}
	status = cfg->input ? engine_start_file(e) : engine_start_live(e);
	if (status)
		goto fail;
	*out = e;
	return 0;
fail:
	engine_free(e);
	return status;
}

/* The start-up work deferred from engine_start (see struct engine). */
static void engine_prepare_machine(struct engine *e)
{
	struct machine *m = ingest_machine(e->in);

	if (e->need_kernel) {
		ingest_load_kernel_async(e->in);
		e->need_kernel = false;
	}
	/* After opening the events: what maps later comes as MMAP2 records.
	 * Read in steps between ring reads (engine_run), a process the
	 * records name at once (ingest_record): the first samples do not
	 * wait for a busy process table. */
	if (e->synth_all)
		machine_synthesize_begin(m, NULL, 0);
	else if (e->nsynth_procs)
		machine_synthesize_begin(m, e->synth_procs, e->nsynth_procs);
	e->synth_all = false;
	free(e->synth_procs);
	e->synth_procs = NULL;
	e->nsynth_procs = 0;
}

static void engine_record(const struct perf_event_header *hdr, const struct perf_event_attr *attr,
			  void *ctx)
{
	ingest_record(ctx, hdr, attr);
}

static void engine_publish(struct engine *e, const struct refresh_action *act, engine_refresh_cb cb,
			   void *ctx)
{
	struct ingest_header hdr = {
		.time = e->live ? now_monotonic() - e->start : e->file_seconds,
		.event = e->event_name,
		.event_note = e->event_note[0] ? e->event_note : NULL,
		.freq = e->freq,
		.sample_freq = e->sample_freq,
		.sample_period = e->sample_period,
		.target = e->target.name,
		.wall_start_ns = e->live ? 0 : e->file_wall_start_ns,
		.ring_pages = e->live ? e->ring_pages : 0,
		.stack_copy = e->live && e->ring_pages ? e->cfg.dwarf_stack : 0,
	};

	ingest_publish(e->in, &hdr, act, cb, ctx);
}

/* Live system-wide --off-cpu: switch records opened or closed on the CPUs
 * whose idle task's switch-outs the tracepoint misses or samples again, as
 * the last read found. */
static void engine_offcpu_watch(struct engine *e)
{
	uint32_t cpu;
	bool on;

	while (ingest_offcpu_hole_next(e->in, &cpu, &on))
		if (source_live_watch(e->src, (int)cpu, on) == 0)
			ingest_offcpu_cpu_watched(e->in, cpu, on);
}

/* A recording: every record through the same path as live ones, then one
 * snapshot of the whole recording (no decay); dump prints them instead. */
static int engine_run_file(struct engine *e, engine_refresh_cb cb, void *ctx)
{
	struct machine *m;
	struct refresh_config sc = {
		.wait_kernel = e->cfg.wait_kernel,
		.last_waits = e->cfg.last_waits,
	};
	struct refresh_action act;
	bool restricted;
	long rc = 0;

	if (e->cfg.dump)
		rc = source_file_dump(e->src, stdout);
	else
		while (!engine_stopped(e) && (rc = source_read(e->src, engine_record, e->in)) > 0)
			;
	if (rc < 0) {
		fflush(stdout);
		msg_error("%s", source_error(e->src));
		return 1;
	}
	if (!e->cfg.dump) {
		m = ingest_machine(e->in);
		ingest_set_mode(e->in, HIST_ACCUMULATE);
		/* Every held sample gets its names before the one snapshot. */
		machine_wait_symbols(m);
		if (machine_kernel_status(m, &restricted) == 0) {
			if (restricted)
				msg_notice("kernel addresses are hidden (kernel.kptr_restrict): "
					   "kernel samples show as [unknown]");
			else if (machine_kernel_note(m))
				msg_notice("%s", machine_kernel_note(m));
		}
		engine_buildid_notice(e);
		refresh_final(&sc, e->file_seconds, &act);
		engine_publish(e, &act, cb, ctx);
	}
	fflush(stdout);
	return 0;
}

/* What the scheduler needs to know now. */
static void engine_refresh_input(struct engine *e, struct refresh_input *in, bool data, bool ended)
{
	struct machine *m = ingest_machine(e->in);

	in->now = now_monotonic();
	in->data = data;
	in->ended = ended;
	in->kernel_loading = machine_kernel_loading(m);
	in->synthesizing = machine_synthesizing(m);
	in->symbols_queued = machine_symbols_ticket(m);
	in->symbols_loaded = machine_symbols_loaded(m);
}

/* Signals are delivered only inside ppoll (no lost wake-up): blocks them
 * and returns the mask to restore, the one ppoll waits with. */
static void engine_signals(sigset_t *orig)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, orig);
}

static int engine_run_sources(struct engine *e, engine_refresh_cb cb, void *ctx);

int engine_run(struct engine *e, engine_refresh_cb cb, void *ctx)
{
	int status = engine_run_sources(e, cb, ctx);

	atomic_store(&e->returned, true);
	return status;
}

static int engine_run_sources(struct engine *e, engine_refresh_cb cb, void *ctx)
{
	struct refresh_config sc = {
		.delay = e->cfg.delay,
		.iterations = e->cfg.iterations,
		.first_frame = e->cfg.first_frame,
		.wait_kernel = e->cfg.wait_kernel,
		.last_waits = e->cfg.last_waits,
	};
	struct refresh s;
	struct refresh_input si;
	struct refresh_action act;
	size_t npfd, i;
	struct pollfd *pfd;
	sigset_t orig;

	if (!e->live)
		return engine_run_file(e, cb, ctx);
	engine_prepare_machine(e);
	/* Intervals count from the start: the events have been sampling
	 * since engine_start. */
	sc.start = e->start;
	refresh_init(&s, &sc);
	/* The source's fds, and last the wake-up pipe of engine_stop. */
	npfd = source_nr_pollfds(e->src) + 1;
	pfd = xcalloc(npfd, sizeof(*pfd));
	engine_signals(&orig);
	source_fill_pollfds(e->src, pfd);
	pfd[npfd - 1].fd = e->wake_fd[0];
	pfd[npfd - 1].events = POLLIN;

	while (!got_stop_signal && !engine_stopped(e)) {
		double wait;
		struct timespec ts;
		bool data;

		engine_refresh_input(e, &si, false, false);
		wait = refresh_timeout(&s, &si);
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		if (ppoll(pfd, npfd, &ts, &orig) < 0 && errno != EINTR) {
			msg_error("poll failed: %s", strerror(errno));
			break;
		}
		/* A per-task ring whose tasks are all gone reports POLLHUP forever. */
		for (i = 0; i + 1 < npfd; i++)
			if (pfd[i].revents & (POLLHUP | POLLERR))
				pfd[i].fd = -1;
		data = source_read(e->src, engine_record, e->in) > 0;
		ingest_pass_end(e->in);
		engine_offcpu_watch(e);
		if (machine_synthesizing(ingest_machine(e->in)))
			machine_synthesize_step(ingest_machine(e->in), ENGINE_SYNTH_STEP);
		/* Not only on SIGCHLD: a command that ended before the handler
		 * was installed (engine_start -> engine_run) sent it to nobody. */
		got_sigchld = 0;
		target_reap(&e->target);
		engine_refresh_input(e, &si, data,
				   e->target.child_done || ingest_targets_gone(e->in));
		refresh_step(&s, &si, &act);
		if (act.what == REFRESH_PREVIEW || act.what == REFRESH_FULL)
			engine_publish(e, &act, cb, ctx);
		if (act.what == REFRESH_PREVIEW)
			refresh_shown(&s, machine_symbols_loaded(ingest_machine(e->in)),
				    machine_kernel_loading(ingest_machine(e->in)));
		if (act.stop)
			break;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	free(pfd);
	if (ingest_targets_gone(e->in))
		msg_notice("%s exited", e->target.name);
	engine_buildid_notice(e);
	/* Interrupted or -n reached before the command ended. */
	target_stop_command(&e->target);
	if (e->target.child_done)
		return e->target.child_status;
	return 0;
}

void engine_stop(struct engine *e)
{
	atomic_store(&e->stop_requested, true);
	if (write(e->wake_fd[1], "x", 1) < 0) {
		/* Full pipe: a wake-up is already pending. */
	}
}

void engine_set_mode(struct engine *e, enum hist_mode mode)
{
	if (e->in)
		ingest_set_mode(e->in, mode);
}

struct annotate_report *engine_annotate(struct engine *e, const char *symbol, const char *dso,
				       uint64_t addr)
{
	return ingest_annotate(e->in, symbol, dso, addr, atomic_load(&e->returned));
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->wake_fd[0] >= 0)
		close(e->wake_fd[0]);
	if (e->wake_fd[1] >= 0)
		close(e->wake_fd[1]);
	target_release(&e->target);
	/* The unwinder thread may read stacks in the rings: it stops first. */
	ingest_free(e->in);
	source_close(e->src);
	free(e->synth_procs);
	free(e);
}
