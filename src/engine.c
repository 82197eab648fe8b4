/* The engine loop: drains the rings on poll wake-ups, feeds the machine and
 * the hist, and publishes a snapshot at each refresh deadline. */
#include "config.h"

#include "engine.h"

#include <errno.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "callchain.h"
#include "deferred.h"
#include "debuginfod.h"
#include "demangle.h"
#include "dump.h"
#include "elfsyms.h"
#include "event.h"
#include "hist.h"
#include "kallsyms.h"
#include "live.h"
#include "machine.h"
#include "options.h"
#include "perfdata.h"
#include "record.h"
#include "util.h"
#include "view.h"

struct engine {
	const struct options *opts;
	struct live *live;
	struct perfdata *file;       /* -i FILE instead of live */
	const struct perfdata_event *file_event;  /* the event whose samples count */
	char event_name[64];
	struct machine *machine;
	struct hist *hist;
	char target[128];
	char event_note[160];
	bool freq;                   /* sampling by frequency, else by period */
	uint64_t sample_freq;        /* after -F max and clamping */
	uint64_t sample_period;

	/* counters since start */
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
	uint64_t bad_records;
	uint64_t samples_at_refresh;

	/* The start-up work left to engine_run (live): kallsyms and the /proc
	 * synthesis, done on the engine thread while the events already
	 * sample into the rings, so the terminal comes up at once. */
	bool need_kernel;
	bool kernel_loading;         /* its notice not given yet */
	bool synth_all;
	pid_t *synth_procs;
	size_t nsynth_procs;

	/* -p targets still alive */
	pid_t *targets;
	size_t ntargets, alive_targets;

	/* -- COMMAND */
	pid_t child;
	int go_fd;                   /* write end: releases the child into exec */
	int exec_err_fd;             /* read end: errno if exec failed */
	int child_status;
	bool child_done;

	double start;
	double file_seconds;         /* first to last sample of the recording */

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

	/* the machine the samples come from (EM_*): decides the payload decoder */
	int e_machine;
	const struct arch_payload_ops *payload; /* its raw payloads' decoder, or NULL */

	/* controls from other threads */
	int wake_fd[2];              /* engine_stop writes here to end ppoll */
	volatile sig_atomic_t stop_requested;
	volatile sig_atomic_t mode;  /* enum hist_mode */
};

/* Frames of samples held for symbols still loading, beyond which the
 * engine waits for the loader rather than hold more (~40 MB). */
#define ENGINE_DEFERRED_MAX (1u << 20)
/* How long a refresh waits for symbols still loading (ms). */
#define ENGINE_SYMBOLS_WAIT_MS 150
/* The same for the last printed table of a live session (samples held
 * for symbols still loading after it are never shown). */
#define ENGINE_LAST_SYMBOLS_WAIT_MS 5000
/* How often a printed refresh held for the kernel's symbols looks again. */
#define ENGINE_KERNEL_POLL 0.02

/* Processes read from /proc between two ring reads (~50 us each). */
#define ENGINE_SYNTH_STEP 32

/* Seconds from the start to the first frame on the terminal. */
#define ENGINE_FIRST_FRAME 0.1
/* Ring reads until then are at most this far apart (s). */
#define ENGINE_FIRST_POLL 0.03
/* Then, until the first full refresh, a frame at most this often (s)
 * when more symbols have come in. */
#define ENGINE_CATCH_UP 0.2
/* How long past that it may wait for symbols still loading. */
#define ENGINE_FIRST_FRAME_WAIT 0.3

static void engine_kernel_notice(struct engine *e);

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

static bool proc_exists(pid_t pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0;
}

/* The threads of process pid from /proc/PID/task, appended to *tids. */
static int list_threads(pid_t pid, pid_t **tids, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent **ents;
	int nents, i;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	nents = scandir(path, &ents, NULL, NULL);
	if (nents < 0)
		return -errno;
	for (i = 0; i < nents; i++) {
		long tid = strtol(ents[i]->d_name, NULL, 10);

		if (tid > 0) {
			*tids = xgrow(*tids, cap, *n + 1, sizeof(**tids));
			(*tids)[(*n)++] = (pid_t)tid;
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* Tgid of a thread, from /proc/TID/status; 0 if unknown. */
static pid_t thread_tgid(pid_t tid)
{
	char path[64], *buf, *p;
	pid_t tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_file(path, 1 << 16, &buf, NULL))
		return 0;
	p = strstr(buf, "\nTgid:");
	if (p)
		tgid = (pid_t)strtol(p + 6, NULL, 10);
	free(buf);
	return tgid;
}

static void format_idlist(char *buf, size_t size, const char *what, const pid_t *ids, size_t n)
{
	size_t len = (size_t)snprintf(buf, size, "%s ", what), i;

	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", (int)ids[i]);
}

/* Fork the command, stopped on a pipe until the events are open. */
static int start_command(struct engine *e, char **argv)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		msg_error("cannot fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		char c;
		int e_no;
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e_no = errno;
		if (write(err[1], &e_no, sizeof(e_no)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	e->child = pid;
	e->go_fd = go[1];
	e->exec_err_fd = err[0];
	return 0;
}

/* Let the child exec; returns 0, or 127 after a message if exec failed. */
static int release_command(struct engine *e, char **argv)
{
	int e_no;
	ssize_t n;

	if (write(e->go_fd, "x", 1) != 1) {
		msg_error("cannot start '%s': %s", argv[0], strerror(errno));
		return 1;
	}
	close(e->go_fd);
	e->go_fd = -1;
	/* Closed on a successful exec (O_CLOEXEC); an errno otherwise. */
	do
		n = read(e->exec_err_fd, &e_no, sizeof(e_no));
	while (n < 0 && errno == EINTR);
	close(e->exec_err_fd);
	e->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(e_no)) {
		msg_error("cannot run '%s': %s", argv[0], strerror(e_no));
		waitpid(e->child, NULL, 0);
		e->child = 0;
		return 127;
	}
	return 0;
}

static int check_cpus(const struct options *o)
{
	int *online;
	size_t n, i, j;
	int err = live_online_cpus(&online, &n);

	if (err) {
		msg_error("cannot read /sys/devices/system/cpu/online: %s", strerror(-err));
		return 1;
	}
	for (i = 0; i < o->ncpus; i++) {
		for (j = 0; j < n && online[j] != o->cpus[i]; j++)
			;
		if (j == n) {
			msg_error("CPU %d is not online (online CPUs: %d-%d)", o->cpus[i],
				  n ? online[0] : 0, n ? online[n - 1] : 0);
			free(online);
			return 2;
		}
	}
	free(online);
	return 0;
}

static void describe_target(struct engine *e, const struct options *o)
{
	if (o->command)
		snprintf(e->target, sizeof(e->target), "command %s", o->command[0]);
	else if (o->npids)
		format_idlist(e->target, sizeof(e->target), o->npids > 1 ? "pids" : "pid", o->pids,
			      o->npids);
	else if (o->ntids)
		format_idlist(e->target, sizeof(e->target), o->ntids > 1 ? "tids" : "tid", o->tids,
			      o->ntids);
	else
		snprintf(e->target, sizeof(e->target), "system-wide");
	if (o->cpus) {
		size_t len = strlen(e->target);

		snprintf(e->target + len, sizeof(e->target) - len, ", %zu CPU%s", o->ncpus,
			 o->ncpus > 1 ? "s" : "");
	}
}

/* --vmlinux FILE: refused at once unless it is the running kernel's
 * (its symbols load later, on the kernel thread).  Returns 0 or 2. */
static int engine_check_vmlinux(struct engine *e, const char *path)
{
	uint8_t want[20], have[ELF_BUILD_ID_MAX];
	int nw = kallsyms_kernel_build_id(want), nh = elf_read_build_id(path, have);

	if (nh < 0) {
		msg_error("--vmlinux %s: %s", path,
			  nh == -ENOEXEC ? "not an ELF file" : strerror(-nh));
		return 2;
	}
	if (nw <= 0) {
		msg_error("--vmlinux %s: the running kernel's build ID is unknown "
			  "(/sys/kernel/notes unreadable): cannot check that it matches", path);
		return 2;
	}
	if (nh != nw || memcmp(have, want, (size_t)nw) != 0) {
		msg_error("--vmlinux %s is not the running kernel's: %s; use the vmlinux of "
			  "this kernel (uname -r) or leave --vmlinux out",
			  path, nh ? "its build ID differs" : "it has no build ID");
		return 2;
	}
	machine_set_vmlinux(e->machine, true, path);
	return 0;
}

/* Kernel symbols for a recording: this machine's kallsyms, only when the
 * recording was made on this kernel (same build ID, else same release). */
static void engine_file_kernel(struct engine *e, const struct perfdata_info *info)
{
	uint8_t id[20];
	int n = kallsyms_kernel_build_id(id);
	bool same = false, known = false;
	size_t i;
	struct utsname uts;
	char *cached = NULL;
	size_t idsize;

	for (i = 0; i < info->nbuild_ids; i++) {
		const struct perfdata_build_id *b = &info->build_ids[i];

		if (strcmp(b->filename, "[kernel.kallsyms]") != 0)
			continue;
		known = true;
		idsize = b->size < 20 ? b->size : 20;
		same = n > 0 && idsize >= 1 && memcmp(b->id, id, idsize) == 0;
		if (same && !cached)
			cached = kallsyms_find_cached(b->id, idsize);
	}
	/* perf record's copy of kallsyms: what perf report reads, 5-10x
	 * faster than /proc/kallsyms, and from the recording's boot. */
	if (same && cached)
		machine_set_kernel_cache(e->machine, cached);
	free(cached);
	if (!known && info->osrelease && uname(&uts) == 0)
		same = strcmp(uts.release, info->osrelease) == 0;
	if (!same) {
		msg_notice("the recording's kernel is not the running one: kernel samples show as "
			   "[unknown] in [kernel.kallsyms]%s",
			   e->opts->vmlinux ? " (--vmlinux not used)" : "");
		return;
	}
	/* kallsyms (75-230 ms here) is read at the first kernel address, and
	 * not at all for a recording without one; the notice comes at the
	 * end (engine_run_file).  (Read on a thread beside the ingestion it
	 * saved no time on a busy machine and held every kernel sample in
	 * the meantime: +15% peak RSS.) */
	machine_load_kernel_lazy(e->machine);
}

/* The samples' machine, once: it decides how raw payloads are decoded
 * (live: this host; a file: its ARCH feature). */
static void engine_set_machine(struct engine *e, int e_machine)
{
	e->e_machine = e_machine;
	e->payload = arch_payload_find(e_machine);
	if (e->payload && e->hist)
		hist_enable_payload(e->hist, e->payload->payload);
}

/* Load DSO symbols on the machine's loader thread and hold the samples
 * that need them (machine.c), unless decoded payloads ride on samples:
 * those are added with their payload at once. */
static void engine_symbols_async(struct engine *e)
{
	const char *why;

	demangle_set_enabled(!e->opts->no_demangle);
	if (e->opts->debuginfod) {
		if (!getenv("DEBUGINFOD_URLS") || !*getenv("DEBUGINFOD_URLS"))
			msg_notice("--debuginfod: DEBUGINFOD_URLS is not set: no server to ask");
		else if (!debuginfod_available(&why))
			msg_notice("--debuginfod: %s", why);
		else
			machine_set_debuginfod(e->machine,
					       (long)(e->opts->debuginfod_timeout * 1000));
	}
	if (e->payload || machine_set_async(e->machine, true) != 0)
		return;
	e->deferred = deferred_new();
}

/* -i FILE: open the recording and prepare the machine for it. */
static int engine_start_file(struct engine *e, const struct options *o)
{
	const struct perfdata_info *info;
	char err[512];
	size_t i;

	if (perfdata_open(o->input, &e->file, err, sizeof(err))) {
		msg_error("%s", err);
		return 1;
	}
	snprintf(e->target, sizeof(e->target), "file %s", o->input);
	info = perfdata_get_info(e->file);
	if (perfdata_nr_events(e->file) == 0) {
		msg_error("%s: the recording has no events", o->input);
		return 1;
	}
	/* perf adds a dummy event for side-band records: count the first
	 * real one.  (A choice between several events comes later.) */
	e->file_event = perfdata_get_event(e->file, 0);
	for (i = 0; i < perfdata_nr_events(e->file); i++) {
		const struct perfdata_event *ev = perfdata_get_event(e->file, i);

		if (!(ev->attr.type == PERF_TYPE_SOFTWARE &&
		      ev->attr.config == PERF_COUNT_SW_DUMMY)) {
			e->file_event = ev;
			break;
		}
	}
	if (e->file_event->name)
		snprintf(e->event_name, sizeof(e->event_name), "%s", e->file_event->name);
	else
		event_name_from_attr(&e->file_event->attr, e->event_name, sizeof(e->event_name));
	e->freq = e->file_event->attr.freq;
	e->sample_freq = e->freq ? e->file_event->attr.sample_freq : 0;
	e->sample_period = e->freq ? 0 : e->file_event->attr.sample_period;
	if (info->last_sample_time > info->first_sample_time)
		e->file_seconds = (double)(info->last_sample_time - info->first_sample_time) / 1e9;
	if (o->dump) {
		perfdata_set_file_order(e->file, true);
		return 0;
	}
	e->machine = machine_new();
	e->hist = hist_new(&o->sort);
	if (o->view.inline_frames)
		hist_key_addresses(e->hist);
	/* No ARCH feature: EM_NONE, no payload is decoded. */
	engine_set_machine(e, arch_machine_from_name(info->arch));
	engine_symbols_async(e);
	if (o->symfs)
		machine_set_symfs(e->machine, o->symfs);
	if (o->vmlinux && engine_check_vmlinux(e, o->vmlinux))
		return 2;
	else if (!o->vmlinux)
		machine_set_vmlinux(e->machine, true, NULL);
	for (i = 0; i < info->nbuild_ids; i++)
		machine_add_build_id(e->machine, info->build_ids[i].filename, info->build_ids[i].id,
				     info->build_ids[i].size);
	engine_file_kernel(e, info);
	return 0;
}

int engine_start(const struct options *o, struct engine **out)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	struct live_config cfg = { 0 };
	pid_t *tids = NULL, *procs = NULL;
	size_t ntids = 0, cap = 0, nprocs = 0, i;
	char why[512];
	int status = 0, err;

	e->opts = o;
	e->go_fd = e->exec_err_fd = -1;
	e->wake_fd[0] = e->wake_fd[1] = -1;
	e->mode = o->mode;
	e->start = now_monotonic();
	if (pipe2(e->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		status = 1;
		goto fail;
	}
	if (o->input) {
		status = engine_start_file(e, o);
		if (status)
			goto fail;
		*out = e;
		return 0;
	}
	describe_target(e, o);

	if (event_parse(o->event ? o->event : "cycles", &cfg.event)) {
		msg_error("unknown event '%s': use cycles, instructions, cpu-clock, task-clock, "
			  "another name from proftop --help, or rNNNN for a raw event",
			  o->event);
		status = 2;
		goto fail;
	}
	cfg.event_is_default = !o->event || strcmp(o->event, "cycles") == 0;
	if (o->cpus && (status = check_cpus(o)) != 0)
		goto fail;

	cfg.sampling.freq = e->freq = o->freq;
	e->sample_period = o->sample_period;
	if (o->freq) {
		uint64_t max = event_max_sample_rate();

		e->sample_freq = o->freq_max ? max : o->sample_freq;
		if (e->sample_freq > max) {
			msg_notice("-F %llu is above kernel.perf_event_max_sample_rate: using %llu Hz",
				   (unsigned long long)e->sample_freq, (unsigned long long)max);
			e->sample_freq = max;
		}
		cfg.sampling.freq_or_period = e->sample_freq;
	} else {
		cfg.sampling.freq_or_period = o->sample_period;
	}
	cfg.sampling.tracking = true;
	cfg.cpus = o->cpus;
	cfg.ncpus = o->ncpus;
	cfg.mmap_pages = o->mmap_pages;
	/* Chains make samples 5-10 times larger, and the rings must hold
	 * what comes while kallsyms and /proc are read at the start (0.1-0.3 s
	 * at 4000 Hz): with -g and no -m, four times the default pages. */
	if (o->callchain && !o->mmap_pages_set)
		cfg.mmap_pages = 4 * o->mmap_pages;
	if (o->callchain) {
		unsigned kmax = event_max_stack();

		cfg.sampling.callchain = true;
		/* The kernel refuses a sample_max_stack above its sysctl. */
		cfg.sampling.max_stack = (uint16_t)(o->max_stack && o->max_stack < kmax ?
							    o->max_stack : kmax);
	}

	for (i = 0; i < o->npids; i++) {
		if (!proc_exists(o->pids[i])) {
			msg_error("no such process: %d", (int)o->pids[i]);
			status = 2;
			goto fail;
		}
		if (list_threads(o->pids[i], &tids, &ntids, &cap)) {
			msg_error("cannot list the threads of process %d", (int)o->pids[i]);
			status = 2;
			goto fail;
		}
	}
	if (o->npids) {
		procs = xmalloc(o->npids * sizeof(*procs));
		memcpy(procs, o->pids, o->npids * sizeof(*procs));
		nprocs = o->npids;
		e->targets = xmalloc(o->npids * sizeof(*e->targets));
		memcpy(e->targets, o->pids, o->npids * sizeof(*e->targets));
		e->ntargets = e->alive_targets = o->npids;
		cfg.sampling.inherit = true;
	}
	for (i = 0; i < o->ntids; i++) {
		pid_t tgid = thread_tgid(o->tids[i]);

		if (!tgid) {
			msg_error("no such thread: %d", (int)o->tids[i]);
			status = 2;
			goto fail;
		}
		tids = xgrow(tids, &cap, ntids + 1, sizeof(*tids));
		tids[ntids++] = o->tids[i];
		procs = xrealloc(procs, (nprocs + 1) * sizeof(*procs));
		procs[nprocs++] = tgid;
	}
	if (o->command) {
		if ((status = start_command(e, o->command)) != 0)
			goto fail;
		tids = xgrow(tids, &cap, ntids + 1, sizeof(*tids));
		tids[ntids++] = e->child;
		cfg.sampling.inherit = true;
		cfg.sampling.enable_on_exec = true;
	}
	cfg.tids = o->system_wide ? NULL : tids;
	cfg.ntids = ntids;

	err = live_open(&cfg, &e->live, why, sizeof(why));
	if (err) {
		msg_error("cannot sample %s with %s: %s", e->target, cfg.event.name, why);
		status = err == -ESRCH ? 2 : 1;
		goto fail;
	}
	snprintf(e->event_name, sizeof(e->event_name), "%s", live_get_info(e->live)->event_name);
	snprintf(e->event_note, sizeof(e->event_note), "%s", live_get_info(e->live)->note);
	if (e->event_note[0])
		msg_notice("%s", e->event_note);
	if (live_get_info(e->live)->restriction[0])
		msg_notice("%s", live_get_info(e->live)->restriction);

	e->machine = machine_new();
	e->hist = hist_new(&o->sort);
	if (o->view.inline_frames)
		hist_key_addresses(e->hist);
	/* live.c asks for the payload with arch_adjust_attr on the same host. */
	engine_set_machine(e, arch_host_machine());
	machine_set_live(e->machine, true);
	engine_symbols_async(e);
	if (o->vmlinux && (status = engine_check_vmlinux(e, o->vmlinux)) != 0)
		goto fail;
	else if (!o->vmlinux)
		machine_set_vmlinux(e->machine, true, NULL);
	/* Kernel symbols and /proc come in engine_run, before the first
	 * record is read: the rings hold what arrives meanwhile. */
	e->need_kernel = !live_get_info(e->live)->exclude_kernel;
	e->synth_all = o->system_wide;
	e->synth_procs = procs;
	e->nsynth_procs = nprocs;
	procs = NULL;

	if (o->command && (status = release_command(e, o->command)) != 0)
		goto fail;
	free(tids);
	free(procs);
	*out = e;
	return 0;
fail:
	free(tids);
	free(procs);
	engine_free(e);
	return status;
}

static bool is_target(const struct engine *e, uint32_t pid)
{
	size_t i;

	for (i = 0; i < e->ntargets; i++)
		if ((uint32_t)e->targets[i] == pid)
			return true;
	return false;
}

/* Whether samples and frames keep their address (hist_sample.addr,
 * callchain_frame.addr): only for what the view computes from them at
 * refresh (--inline frames, -s srcline), since each distinct address then
 * makes its own frame and entry. */
static bool engine_wants_addr(const struct engine *e)
{
	return e->opts->view.inline_frames || sort_spec_has(hist_sort_spec(e->hist), SORT_SRCLINE);
}

/* machine_resolve through the cache.  Only answers that cannot change
 * while the process's maps stay the same are kept: not an address whose
 * symbols are still loading, nor an [unknown] in a DSO (its table may
 * come later); kernel and unmapped answers are final. */
static bool engine_resolve(struct engine *e, uint32_t pid, uint32_t tid, uint16_t cpumode,
			   uint64_t ip, struct resolved *r)
{
	struct callchain_frame f;

	if (!e->rcache)
		e->rcache = callchain_cache_new(0);
	if (callchain_cache_find_ip(e->rcache, pid, ip, cpumode, &f, &r->addr)) {
		r->dso = f.dso;
		r->sym = f.sym;
		r->kernel = f.kernel;
		r->pending = false;
		return true;
	}
	machine_resolve(e->machine, pid, tid, cpumode, ip, r);
	if (r->pending || (!r->sym && r->dso && !r->kernel))
		return false;
	f.addr = 0;
	f.dso = r->dso;
	f.sym = r->sym;
	f.kernel = r->kernel;
	callchain_cache_insert_ip(e->rcache, pid, ip, cpumode, &f, r->addr);
	return true;
}

/* Resolve the sample's chain: e->cc_frames[0] the sampled function from r,
 * e->cc_callers its callers (innermost first); returns the number of frames
 * in all.  The callers are the resolve cache's own frames on a hit (valid
 * until its next insert or clear), e->cc_frames + 1 otherwise. */
static size_t engine_resolve_chain(struct engine *e, const struct sample *s,
				   const struct resolved *r)
{
	const struct callchain_frame *hit;
	bool final = true;
	size_t need, n, i;
	bool want_addr = engine_wants_addr(e);

	if (!e->max_stack)
		e->max_stack = e->opts->max_stack ? e->opts->max_stack : event_max_stack();
	/* The sampled ip, then at most max_stack entries of the chain. */
	need = (s->nr_callchain < e->max_stack ? (size_t)s->nr_callchain : e->max_stack) + 1;
	if (need > e->cc_cap) {
		size_t cap = e->cc_cap;

		e->cc_ips = xgrow(e->cc_ips, &cap, need, sizeof(*e->cc_ips));
		e->cc_frames = xrealloc(e->cc_frames, cap * sizeof(*e->cc_frames));
		e->cc_at = xrealloc(e->cc_at, cap * sizeof(*e->cc_at));
		e->cc_cap = cap;
	}
	e->cc_frames[0].dso = r->dso;
	e->cc_frames[0].sym = r->sym;
	e->cc_frames[0].kernel = r->kernel;
	e->cc_frames[0].addr = want_addr ? r->addr : 0;
	e->cc_at[0].addr = r->addr;
	e->cc_at[0].pending = r->pending;
	e->cc_pending = r->pending;
	e->cc_callers = e->cc_frames + 1;
	e->cc_token = 0;
	/* Callers' return addresses repeat from sample to sample: a chain
	 * seen before in this process costs a compare of its raw words, not
	 * the addresses and n lookups.  (need is the same for every sample.) */
	hit = callchain_cache_find_sample(e->rcache, s, &n, &e->cc_token);
	if (hit && n >= 2) {
		/* Not copied: 31 frames a sample was 12% of the ingestion. */
		e->cc_callers = hit;
		return n;
	}
	e->cc_token = 0;
	n = callchain_ips(s, e->cc_ips, need);
	if (n < 2)
		return n;
	for (i = 1; i < n; i++) {
		struct resolved fr;

		if (!engine_resolve(e, s->sid.pid, s->sid.tid, e->cc_ips[i].cpumode,
				    e->cc_ips[i].ip, &fr))
			final = false;
		e->cc_frames[i].dso = fr.dso;
		e->cc_frames[i].sym = fr.sym;
		e->cc_frames[i].kernel = fr.kernel;
		e->cc_frames[i].addr = want_addr ? fr.addr : 0;
		e->cc_at[i].addr = fr.addr;
		e->cc_at[i].pending = fr.pending;
		e->cc_pending |= fr.pending;
	}
	if (final)
		callchain_cache_insert_sample(e->rcache, s, e->cc_frames + 1, n - 1);
	return n;
}

static void engine_sample(struct engine *e, const struct sample *s,
			  const struct perf_event_attr *attr)
{
	struct hist_sample hs;
	struct resolved r;

	if (e->file_event && attr != &e->file_event->attr)
		return;

	e->samples++;
	engine_resolve(e, s->sid.pid, s->sid.tid, s->cpumode, s->ip, &r);
	hs.comm = machine_comm_of(e->machine, s->sid.pid, s->sid.tid);
	if (!hs.comm && s->sid.pid == 0)
		hs.comm = intern("swapper");
	hs.pid = s->sid.pid;
	hs.tid = s->sid.tid;
	hs.cpu = s->sid.cpu;
	hs.dso = r.dso;
	hs.sym = r.sym;
	hs.kernel = r.kernel;
	/* Pending: the file offset, made an address by deferred_flush. */
	hs.addr = engine_wants_addr(e) ? r.addr : 0;
	hs.period = s->period;
	hs.chain = NULL;
	hs.nr_chain = 0;
	hs.callers = NULL;
	hs.callers_token = 0;
	/* Live, the attr has chains with -g; a recording's are used
	 * whenever it has them. */
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		hist_enable_callchains(e->hist, 0);
		hs.nr_chain = engine_resolve_chain(e, s, &r);
		hs.callers = e->cc_callers;
		hs.callers_token = e->cc_token;
	}
	/* Symbols still loading (machine.c): hold the sample, not the engine. */
	if (e->deferred && (hs.callers ? e->cc_pending : r.pending)) {
		struct deferred_addr at = { r.addr, r.pending };

		/* The held copy wants the chain in one piece, with an
		 * address per frame (a cached caller is final: not pending). */
		if (hs.callers) {
			if (hs.callers != e->cc_frames + 1) {
				size_t i;

				memcpy(e->cc_frames + 1, hs.callers,
				       (hs.nr_chain - 1) * sizeof(*hs.callers));
				for (i = 1; i < hs.nr_chain; i++) {
					e->cc_at[i].addr = 0;
					e->cc_at[i].pending = false;
				}
			}
			hs.chain = e->cc_frames;
			hs.callers = NULL;
			hs.callers_token = 0;
		}
		deferred_add(e->deferred, &hs, hs.chain ? e->cc_at : &at, e->refresh_gen);
		if (deferred_frames(e->deferred) > ENGINE_DEFERRED_MAX) {
			machine_wait_symbols(e->machine);
			deferred_flush(e->deferred, e->machine, e->hist, e->refresh_gen,
				       (enum hist_mode)e->mode);
		}
		return;
	}
	if (e->payload && (attr->sample_type & PERF_SAMPLE_RAW) && s->raw) {
		union arch_payload_buf buf;
		bool ok = arch_payload_decode(e->payload, attr, s->raw, s->raw_size, &buf);

		hist_add_payload(e->hist, &hs, ok ? &buf : NULL);
		return;
	}
	hist_add(e->hist, &hs);
}

/* The /proc sweep is under way: read the process rec speaks of first. */
static void engine_synth_pid(struct engine *e, const struct record *rec)
{
	switch (rec->kind) {
	case RECORD_SAMPLE:
		machine_synthesize_pid(e->machine, rec->u.sample.sid.pid);
		break;
	case RECORD_MMAP:
		machine_synthesize_pid(e->machine, rec->u.mmap.pid);
		break;
	case RECORD_COMM:
		machine_synthesize_pid(e->machine, rec->u.comm.pid);
		break;
	case RECORD_FORK:
		/* The child inherits the parent's maps: the parent first. */
		machine_synthesize_pid(e->machine, rec->u.task.ppid);
		break;
	case RECORD_EXIT:
		machine_synthesize_pid(e->machine, rec->u.task.pid);
		break;
	default:
		break;
	}
}

/* What the cache holds for pid may now resolve differently. */
static void engine_maps_changed(struct engine *e, uint32_t pid)
{
	if (e->rcache)
		callchain_cache_invalidate(e->rcache, pid);
}

void engine_process_record(struct engine *e, const struct perf_event_header *hdr,
			   const struct perf_event_attr *attr)
{
	struct record rec;

	if (record_decode(hdr, attr, &rec, NULL)) {
		e->bad_records++;
		return;
	}
	if (rec.kind != RECORD_SAMPLE)
		machine_set_time(e->machine, rec.has_sid ? rec.sid.time : 0);
	if (machine_synthesizing(e->machine))
		engine_synth_pid(e, &rec);
	switch (rec.kind) {
	case RECORD_SAMPLE:
		engine_sample(e, &rec.u.sample, attr);
		break;
	case RECORD_MMAP:
		machine_mmap(e->machine, &rec.u.mmap);
		engine_maps_changed(e, rec.u.mmap.pid);
		break;
	case RECORD_COMM:
		machine_comm(e->machine, &rec.u.comm);
		if (rec.u.comm.exec)
			engine_maps_changed(e, rec.u.comm.pid);
		break;
	case RECORD_FORK:
		machine_fork(e->machine, &rec.u.task);
		/* A new process may reuse the pid of one cached before. */
		if (rec.u.task.pid != rec.u.task.ppid)
			engine_maps_changed(e, rec.u.task.pid);
		break;
	case RECORD_EXIT:
		machine_exit(e->machine, &rec.u.task);
		if (rec.u.task.pid == rec.u.task.tid)
			engine_maps_changed(e, rec.u.task.pid);
		if (rec.u.task.pid == rec.u.task.tid && is_target(e, rec.u.task.pid) &&
		    e->alive_targets > 0)
			e->alive_targets--;
		break;
	case RECORD_LOST:
	case RECORD_LOST_SAMPLES:
		e->lost += rec.u.lost.lost;
		break;
	case RECORD_THROTTLE:
		e->throttled++;
		break;
	default:
		break;
	}
}

static void live_record(const struct perf_event_header *hdr, void *ctx)
{
	struct engine *e = ctx;

	engine_process_record(e, hdr, live_attr(e->live));
}

static const char *mode_name(enum hist_mode m)
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
static void engine_publish(struct engine *e, double interval, engine_refresh_cb cb, void *ctx,
			   bool preview, bool last)
{
	const struct options *o = e->opts;
	struct snapshot snap;

	/* -g shows the callchain layout from the first (maybe empty) refresh. */
	if (o->callchain && !o->input)
		hist_enable_callchains(e->hist, 0);
	memset(&snap, 0, sizeof(snap));
	snap.time = e->file ? e->file_seconds : now_monotonic() - e->start;
	snap.event = e->event_name;
	snap.event_note = e->event_note[0] ? e->event_note : NULL;
	snap.freq = e->freq;
	snap.sample_freq = e->sample_freq;
	snap.sample_period = e->sample_period;
	snap.target = e->target;
	snap.total_samples = e->samples;
	snap.lost = e->lost;
	snap.throttled = e->throttled;
	snap.threads = machine_get_stats(e->machine)->threads;
	snap.processes = machine_get_stats(e->machine)->processes;
	snap.samples_per_sec =
		interval > 0 ? (double)(e->samples - e->samples_at_refresh) / interval : 0;
	snap.mode = mode_name((enum hist_mode)e->mode);
	/* A preview waited for user symbols in engine_run already, and does
	 * not wait for the kernel's: user rows come first. */
	/* Printed tables are read whole, later: no kernel rows missing
	 * for being early (the browser shows them at its next frame).
	 * Live, engine_run held the refresh until the kernel's thread was
	 * done: this only takes its symbols. */
	if (!preview && o->output != OUTPUT_SCREEN)
		machine_wait_kernel(e->machine);
	if (e->deferred && preview) {
		deferred_flush(e->deferred, e->machine, e->hist, e->refresh_gen,
			       (enum hist_mode)e->mode);
	} else if (e->deferred) {
		/* The rings are drained just before a refresh, so a DSO seen for
		 * the first time has only just been queued: give the loader a
		 * moment (the renderers wait, not the ingestion), and show
		 * whatever is left as "loading symbols" next time. */
		if (deferred_flush(e->deferred, e->machine, e->hist, e->refresh_gen,
				   (enum hist_mode)e->mode) &&
		    machine_wait_symbols_for(e->machine,
					     last && o->output != OUTPUT_SCREEN ?
						     ENGINE_LAST_SYMBOLS_WAIT_MS :
						     ENGINE_SYMBOLS_WAIT_MS))
			deferred_flush(e->deferred, e->machine, e->hist, e->refresh_gen,
				       (enum hist_mode)e->mode);
	}
	snap.symbols_loading = machine_symbols_loading(e->machine);
	snap.debuginfod_active = machine_debuginfod_active(e->machine);
	engine_kernel_notice(e);
	view_build(e->hist, &o->view, &snap);
	if (!cb(&snap, ctx))
		snapshot_release(&snap);
	if (preview)
		return;
	e->samples_at_refresh = e->samples;
	hist_age(e->hist, (enum hist_mode)e->mode);
	e->refresh_gen++;
	machine_gc(e->machine);
	/* Live, what one interval saw bounds the cache (and an [unknown]
	 * kept by mistake lasts one refresh at most). */
	if (e->rcache && !e->file)
		callchain_cache_clear(e->rcache);
}

static void engine_refresh(struct engine *e, double interval, engine_refresh_cb cb, void *ctx,
			   bool last)
{
	engine_publish(e, interval, cb, ctx, false, last);
}

/* Once the kernel's symbols are read (on their own thread): say why
 * kernel samples will show as [unknown], if they will. */
static void engine_kernel_notice(struct engine *e)
{
	bool restricted;
	int err;

	if (!e->kernel_loading)
		return;
	err = machine_kernel_status(e->machine, &restricted);
	if (err == -EINPROGRESS)
		return;
	e->kernel_loading = false;
	if (restricted)
		msg_notice("kernel addresses are hidden (kernel.kptr_restrict): kernel samples "
			   "show as [unknown]; run as root or `sysctl kernel.kptr_restrict=0`");
	else if (err)
		msg_notice("cannot read /proc/kallsyms (%s): kernel samples show as [unknown]",
			   strerror(-err));
	else if (machine_kernel_note(e->machine))
		msg_notice("%s", machine_kernel_note(e->machine));
}

/* The start-up work deferred from engine_start (see struct engine). */
static void engine_prepare_machine(struct engine *e)
{
	if (e->need_kernel) {
		/* Off the path to the first frame: kernel samples wait in
		 * e->deferred meanwhile, user ones go on. */
		machine_load_kernel_async(e->machine);
		e->kernel_loading = true;
		e->need_kernel = false;
		engine_kernel_notice(e);
	}
	/* After opening the events: what maps later comes as MMAP2 records.
	 * Read in steps between ring reads (engine_run), a process the
	 * records name at once (engine_process_record): the first samples
	 * do not wait for a busy process table. */
	if (e->synth_all)
		machine_synthesize_begin(e->machine, NULL, 0);
	else if (e->nsynth_procs)
		machine_synthesize_begin(e->machine, e->synth_procs, e->nsynth_procs);
	e->synth_all = false;
	free(e->synth_procs);
	e->synth_procs = NULL;
	e->nsynth_procs = 0;
}

static void reap_child(struct engine *e)
{
	int st;

	if (!e->child || e->child_done)
		return;
	if (waitpid(e->child, &st, WNOHANG) == e->child) {
		e->child_done = true;
		e->child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
}

/* -i FILE: every record through the same path as live ones, then one
 * snapshot of the whole recording (no decay); -D prints them instead. */
static int engine_run_file(struct engine *e, engine_refresh_cb cb, void *ctx)
{
	struct perfdata_record rec;
	bool restricted;
	int rc = 0;

	if (e->opts->dump)
		dump_header(stdout, e->file);
	while (!e->stop_requested && (rc = perfdata_next(e->file, &rec)) > 0) {
		if (e->opts->dump)
			dump_record(stdout, &rec);
		else
			engine_process_record(e, rec.hdr, &rec.event->attr);
	}
	if (rc < 0) {
		if (!perfdata_damage_at_end(e->file)) {
			fflush(stdout);
			msg_error("%s", perfdata_error(e->file));
			return 1;
		}
		msg_notice("%s (showing the records before it)", perfdata_error(e->file));
	}
	if (!e->opts->dump) {
		e->mode = HIST_ACCUMULATE;
		/* Every held sample gets its names before the one snapshot. */
		machine_wait_symbols(e->machine);
		if (machine_kernel_status(e->machine, &restricted) == 0) {
			if (restricted)
				msg_notice("kernel addresses are hidden (kernel.kptr_restrict): "
					   "kernel samples show as [unknown]");
			else if (machine_kernel_note(e->machine))
				msg_notice("%s", machine_kernel_note(e->machine));
		}
		engine_refresh(e, e->file_seconds, cb, ctx, true);
	}
	fflush(stdout);
	return 0;
}

/* Printed tables are read whole, later: no kernel row may be missing for
 * being early, so a printed refresh waits for the kernel's symbols (their
 * thread) -- in engine_run's loop, where the rings are still read, not in
 * a join that leaves them to overflow. */
static bool engine_refresh_held(const struct engine *e)
{
	return e->opts->output != OUTPUT_SCREEN && machine_kernel_loading(e->machine);
}

int engine_run(struct engine *e, engine_refresh_cb cb, void *ctx)
{
	const struct options *o = e->opts;
	size_t npfd, i;
	struct pollfd *pfd;
	struct sigaction sa;
	sigset_t block, orig;
	double last, next, preview = 0;
	uint64_t ticket = 0, shown_loaded = 0;
	double shown_at = 0;
	bool ticket_taken = false, catch_up = false, shown_kernel = false;
	long refreshes = 0;
	bool printed_since_data = false, ended = false;

	if (e->file)
		return engine_run_file(e, cb, ctx);
	engine_prepare_machine(e);
	/* Intervals count from the start (the events have been sampling
	 * since engine_start).  On the terminal, a first frame comes after
	 * ENGINE_FIRST_FRAME s rather than a whole -d: the user sees the hot
	 * functions at once, then a refresh every -d. */
	last = e->start;
	next = last + o->delay;
	if (o->output == OUTPUT_SCREEN && o->delay > ENGINE_FIRST_FRAME)
		preview = last + ENGINE_FIRST_FRAME;
	/* The rings, and last the wake-up pipe of engine_stop. */
	npfd = live_nr_pollfds(e->live) + 1;
	pfd = xcalloc(npfd, sizeof(*pfd));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* Signals are delivered only inside ppoll: no lost wake-up. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &orig);
	live_fill_pollfds(e->live, pfd);
	pfd[npfd - 1].fd = e->wake_fd[0];
	pfd[npfd - 1].events = POLLIN;

	while (!got_stop_signal && !e->stop_requested) {
		double now = now_monotonic(), wait = (preview ? preview : next) - now;
		struct timespec ts;

		/* A printed refresh is due but held (see below): keep reading
		 * the rings, and look again soon. */
		if (wait <= 0 && engine_refresh_held(e))
			wait = ENGINE_KERNEL_POLL;
		/* Past the preview time and waiting for symbols: look again soon. */
		if (preview && wait < 0)
			wait = 0.01;
		/* The /proc sweep goes on between ring reads. */
		if (machine_synthesizing(e->machine))
			wait = 0;
		/* Before the first frame, read the rings often: the hot DSOs
		 * start loading early. */
		if ((preview || catch_up) && wait > ENGINE_FIRST_POLL)
			wait = ENGINE_FIRST_POLL;

		if (wait < 0)
			wait = 0;
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
		if (live_read(e->live, live_record, e) > 0)
			printed_since_data = false;
		if (machine_synthesizing(e->machine))
			machine_synthesize_step(e->machine, ENGINE_SYNTH_STEP);
		/* Not only on SIGCHLD: a command that ended before the handler
		 * was installed (engine_start -> engine_run) sent it to nobody. */
		got_sigchld = 0;
		reap_child(e);
		if (e->child_done || (e->ntargets && e->alive_targets == 0))
			ended = true;
		now = now_monotonic();
		/* The first frame is worth a short wait for the symbols of the
		 * hot DSOs (loading on machine.c's thread): a frame full of
		 * [unknown] tells the user nothing. */
		if (preview && now >= preview && !ticket_taken) {
			/* The DSOs sampled so far are the hot ones: wait for
			 * those, not for every one a busy system adds since. */
			ticket = machine_symbols_ticket(e->machine);
			ticket_taken = true;
		}
		if (preview && now >= preview && now < next && !ended &&
		    (machine_symbols_done(e->machine, ticket) ||
		     now >= preview + ENGINE_FIRST_FRAME_WAIT)) {
			engine_publish(e, now - last, cb, ctx, true, false);
			preview = 0;
			catch_up = true;
			shown_at = now;
			shown_loaded = machine_symbols_loaded(e->machine);
			shown_kernel = !machine_kernel_loading(e->machine);
		} else if (catch_up && now < next && !ended && now >= shown_at + ENGINE_CATCH_UP &&
			   (machine_symbols_loaded(e->machine) > shown_loaded ||
			    (!shown_kernel && !machine_kernel_loading(e->machine)))) {
			/* Until the first full refresh, each batch of symbols
			 * that comes in (late hot DSOs, the kernel's) is shown
			 * at once rather than after a whole -d. */
			engine_publish(e, now - last, cb, ctx, true, false);
			shown_at = now;
			shown_loaded = machine_symbols_loaded(e->machine);
			shown_kernel = !machine_kernel_loading(e->machine);
		}
		if (now >= next && !ended && engine_refresh_held(e))
			continue;
		if (now >= next || ended) {
			preview = 0;
			catch_up = false;
			if (!ended || !printed_since_data || refreshes == 0) {
				/* The last printed table has no next one to
				 * show what is still loading: it waits longer. */
				engine_refresh(e, now - last, cb, ctx,
					       ended || (o->iterations && refreshes + 1 >= o->iterations));
				printed_since_data = true;
				refreshes++;
			}
			last = now;
			while (next <= now)
				next += o->delay;
			if (o->iterations && refreshes >= o->iterations)
				break;
		}
		if (ended)
			break;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	free(pfd);
	if (e->ntargets && e->alive_targets == 0)
		msg_notice("%s exited", e->target);
	if (e->child && !e->child_done) {
		/* Interrupted or -n reached before the command ended: we started
		 * it, so we stop it (SIGTERM, then SIGKILL after 2 s). */
		kill(e->child, SIGTERM);
		for (i = 0; i < 200 && !e->child_done; i++) {
			reap_child(e);
			if (!e->child_done)
				usleep(10000);
		}
		if (!e->child_done) {
			int st;

			kill(e->child, SIGKILL);
			if (waitpid(e->child, &st, 0) == e->child) {
				e->child_done = true;
				e->child_status = 128 + SIGKILL;
			}
		}
	}
	if (e->child_done)
		return e->child_status;
	return 0;
}

void engine_stop(struct engine *e)
{
	e->stop_requested = 1;
	if (write(e->wake_fd[1], "x", 1) < 0) {
		/* Full pipe: a wake-up is already pending. */
	}
}

void engine_set_mode(struct engine *e, enum hist_mode mode)
{
	e->mode = mode;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	if (e->wake_fd[0] >= 0)
		close(e->wake_fd[0]);
	if (e->wake_fd[1] >= 0)
		close(e->wake_fd[1]);
	perfdata_close(e->file);
	if (e->go_fd >= 0)
		close(e->go_fd);
	if (e->exec_err_fd >= 0)
		close(e->exec_err_fd);
	if (e->child && !e->child_done) {
		kill(e->child, SIGKILL);
		waitpid(e->child, NULL, 0);
	}
	live_close(e->live);
	if (e->hist)
		hist_free(e->hist);
	deferred_free(e->deferred);
	if (e->machine)
		machine_free(e->machine);
	free(e->targets);
	free(e->synth_procs);
	free(e->cc_ips);
	free(e->cc_frames);
	free(e->cc_at);
	callchain_cache_free(e->rcache);
	free(e);
}
