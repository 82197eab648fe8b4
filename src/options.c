/* Command-line parsing: getopt_long into struct options, with one clear
 * line per mistake. */
#include "config.h"

#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "debuginfod.h"
#include "errmsg.h"
#include "engine.h"
#include "util.h"
#include "walltime.h"

#define DEFAULT_FREQ 4000
#define DEFAULT_MMAP_PAGES 128
/* Rows that get call trees by default (-G). */
#define DEFAULT_TREE_ROWS 5

enum {
	OPT_JSON = 256,
	OPT_ACCUMULATE,
	OPT_PERCENT_LIMIT,
	OPT_SYMFS,
	OPT_ANNOTATE,
	OPT_BUILDID_DIR,
	OPT_VMLINUX,
	OPT_NO_KALLSYMS_CACHE,
	OPT_NO_DEMANGLE,
	OPT_DEBUGINFOD,
	OPT_DEBUGINFOD_TIMEOUT,
	OPT_CALL_GRAPH,
	OPT_MAX_STACK,
	OPT_CHILDREN,
	OPT_NO_CHILDREN,
	OPT_TREE_PERCENT,
	OPT_FOLDED,
	OPT_TUI,
	OPT_NO_COLOR,
	OPT_EXIT_ON_END,
	OPT_NO_EXIT_ON_END,
	OPT_ORDER,
	OPT_INLINE,
	OPT_OFF_CPU,
	OPT_WALL,
	OPT_PPROF,
	OPT_BASELINE,
	OPT_BASELINE_SAVE,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "sort", required_argument, NULL, 's' },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "zero", no_argument, NULL, 'z' },
	{ "accumulate", no_argument, NULL, OPT_ACCUMULATE },
	{ "delay", required_argument, NULL, 'd' },
	{ "iterations", required_argument, NULL, 'n' },
	{ "batch", no_argument, NULL, 'b' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "entries", required_argument, NULL, 'E' },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
	{ "hide-kernel", no_argument, NULL, 'K' },
	{ "hide-user", no_argument, NULL, 'U' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "input", required_argument, NULL, 'i' },
	{ "dump", no_argument, NULL, 'D' },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "annotate", required_argument, NULL, OPT_ANNOTATE },
	{ "disassembler-style", required_argument, NULL, 'M' },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "no-kallsyms-cache", no_argument, NULL, OPT_NO_KALLSYMS_CACHE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "debuginfod-timeout", required_argument, NULL, OPT_DEBUGINFOD_TIMEOUT },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "graph-rows", required_argument, NULL, 'G' },
	{ "tree-percent", required_argument, NULL, OPT_TREE_PERCENT },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "pprof", required_argument, NULL, OPT_PPROF },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "baseline-save", required_argument, NULL, OPT_BASELINE_SAVE },
	{ "tui", no_argument, NULL, OPT_TUI },
	{ "no-color", no_argument, NULL, OPT_NO_COLOR },
	{ "exit-on-end", no_argument, NULL, OPT_EXIT_ON_END },
	{ "no-exit-on-end", no_argument, NULL, OPT_NO_EXIT_ON_END },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wall", no_argument, NULL, OPT_WALL },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* --order's lines of --help, from the decoders' and --wall's column
 * words: a decoder's new column is listed with no edit here. */
static void options_usage_order(FILE *out)
{
	static const char lead[] = "      --order=KEY          ";
	const size_t indent = sizeof(lead) - 1, width = 79;
	struct strbuf sb;
	const char *p;
	size_t col;

	strbuf_init(&sb);
	strbuf_addstr(&sb, "row order: overhead (default), or ");
	arch_payload_order_help(&sb);
	strbuf_addf(&sb, "with --wall %s; with --off-cpu runq", walltime_order_keys());
	fputs(lead, out);
	col = indent;
	for (p = sb.buf; *p;) {
		size_t n = strcspn(p, " ");

		if (col > indent && col + 1 + n > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, n, out);
		col += n;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', out);
	strbuf_release(&sb);
}

void options_usage(FILE *out)
{
	fputs("Usage: proftop [options]\n"
	      "       proftop [options] -- command [args...]\n"
	      "\n"
	      "A live, top-like sampling profiler: the functions burning CPU, refreshed.\n"
	      "\n"
	      "Events:\n"
	      "  -e, --event=EVENT        cycles (default), instructions, cache-references,\n"
	      "                           cache-misses, branches, branch-misses, cpu-clock,\n"
	      "                           task-clock, page-faults, context-switches,\n"
	      "                           cpu-migrations, or rNNNN (raw, hex config);\n"
	      "                           cycles falls back to cpu-clock where unsupported;\n"
	      "                           a PMU from sysfs: NAME or NAME/term=value,.../\n"
	      "                           (AMD IBS: ibs_op, ibs_op/cnt_ctl=1/, ibs_fetch;\n"
	      "                           -c a multiple of 16)\n"
	      "  -F, --freq=HZ            samples per second per CPU (default 4000; \"max\")\n"
	      "  -c, --count=PERIOD       a sample every PERIOD events instead of -F\n"
	      "  -m, --mmap-pages=N       ring buffer data pages per CPU (power of 2, default 128)\n"
	      "      --off-cpu            time off the CPU instead of samples: each thread's\n"
	      "                           wait, from sched:sched_switch, charged to its chain\n"
	      "                           when it went off (implies -g; not with -e); with\n"
	      "                           -i, a perf record -e sched:sched_switch -g file\n"
	      "      --wall               wall-clock time: cpu-clock samples and off-CPU\n"
	      "                           intervals in one table, columns On-CPU, Off-CPU,\n"
	      "                           Runq (waiting to run) and Wall (implies -g; not\n"
	      "                           with -e); with -i, a perf record -e cpu-clock\n"
	      "                           -e sched:sched_switch -g file\n"
	      "Callchains:\n"
	      "  -g                       sample callchains (frame pointers): --call-graph fp\n"
	      "      --call-graph=fp|dwarf[,SIZE]\n"
	      "                           fp: the kernel walks frame pointers (-g); dwarf:\n"
	      "                           SIZE bytes of user stack copied per sample (default\n"
	      "                           8192, at most 65528) and unwound with its CFI, for\n"
	      "                           code built without frame pointers\n"
	      "      --max-stack=N        frames per chain (default kernel.perf_event_max_stack)\n"
	      "      --children           Children column: time with the function on the\n"
	      "                           stack (the default with callchains; sorted by it)\n"
	      "      --no-children        Self only, sorted by self\n"
	      "  -G, --graph-rows=N       callers/callees trees for the first N rows (default 5)\n"
	      "      --tree-percent=WHAT  tree shares of the row's entry (default) or of the\n"
	      "                           total: entry|total\n"
	      "      --folded             one \"comm;caller;...;leaf count\" line per stack,\n"
	      "                           for flame graphs (implies -g)\n"
	      "Recordings:\n"
	      "  -i, --input=FILE         replay a perf.data file (\"-\": pipe format on stdin);\n"
	      "                           its callchains are used when it has them, and its\n"
	      "                           user stacks unwound (perf record --call-graph dwarf)\n"
	      "  -D, --dump               print every record of the -i file, in file order\n"
	      "      --symfs=DIR          look for binaries and debug files under DIR too\n"
	      "                           (live: a process's own binaries first; its\n"
	      "                           .build-id links resolve inside DIR)\n"
	      "      --annotate=SYM[@DSO] after each table, the samples of function SYM\n"
	      "                           per instruction, disassembled, with jump targets\n"
	      "                           and source lines (repeatable; the browser: a)\n"
	      "  -M, --disassembler-style=STYLE  --annotate's x86 syntax: att (the\n"
	      "                           default, as objdump and perf) or intel\n"
	      "      --buildid-dir=DIR    perf's build-id cache (default PERF_BUILDID_DIR,\n"
	      "                           else ~/.debug): binaries and debug files by\n"
	      "                           build ID, after a rebuild or from perf archive\n"
	      "      --no-demangle        show C++ and Rust symbol names as in the binary\n"
	      "      --vmlinux=FILE       exact kernel symbol sizes from FILE (it must have\n"
	      "                           the running kernel's build ID); without it, a\n"
	      "                           vmlinux found by build ID is used\n"
	      "      --no-kallsyms-cache  live, read /proc/kallsyms, not the copy kept in\n"
	      "                           ~/.cache/proftop (per boot and module set)\n"
	      "      --debuginfod         fetch missing debug files by build ID from the\n"
	      "                           servers in DEBUGINFOD_URLS (never without it)\n"
	      "      --debuginfod-timeout=SECS  give up on a file after SECS (default\n"
	      "                           DEBUGINFOD_TIMEOUT, else 10)\n"
	      "Targets (default: system-wide):\n"
	      "  -a, --all-cpus           system-wide\n"
	      "  -C, --cpu=CPULIST        only these CPUs, e.g. 0-3,8\n"
	      "  -p, --pid=PID[,PID...]   these processes, all their threads, also new ones\n"
	      "  -t, --tid=TID[,TID...]   these threads only\n"
	      "  -- COMMAND [ARGS]        run COMMAND, profile it, exit with its status\n"
	      "Table:\n"
	      "  -s, --sort=KEYS          keys among comm,pid,tid,cpu,dso,sym,srcline,\n"
	      "                           daddr_dso,daddr_sym (default dso,sym); srcline:\n"
	      "                           file:line from the DWARF line table; daddr_dso,\n"
	      "                           daddr_sym: the mapping and data object of each load\n"
	      "                           or store's address (AMD IBS Op, or a recording's\n"
	      "                           PERF_SAMPLE_ADDR)\n"
	      "      --inline             inlined functions (DWARF) as rows and tree frames of\n"
	      "                           their own, marked \"(inlined)\"\n"
	      , out);
	options_usage_order(out);
	fputs(
	      "  -z, --zero               zero the table at each refresh instead of decaying it\n"
	      "      --accumulate         never decay: the table covers the whole run\n"
	      "  -E, --entries=N          show at most N rows\n"
	      "      --percent-limit=P    hide rows below P percent\n"
	      "  -K, --hide-kernel        hide kernel rows\n"
	      "  -U, --hide-user          hide user-space rows\n"
	      "Output:\n"
	      "  -d, --delay=SECS         refresh interval (default 2)\n"
	      "  -n, --iterations=N       stop after N refreshes\n"
	      "  -b, --batch              print a text table at every refresh (like top -b)\n"
	      "      --json               print one JSON object per refresh, one per line\n"
	      "      --pprof=FILE         write each refresh's stacks to FILE as a gzipped\n"
	      "                           pprof profile.proto (replaced whole; \"-\": the\n"
	      "                           last one to stdout at the end); no table unless\n"
	      "                           --batch or --json (implies -g)\n"
	      "      --baseline=FILE      Baseline and Delta columns: each row's share in\n"
	      "                           FILE (pprof, folded stacks or perf.data), matched\n"
	      "                           by name; B in the browser takes the table instead\n"
	      "      --baseline-save=FILE write the last table to FILE as pprof at the end\n"
	      "      --tui                the interactive browser even if not on a terminal\n"
	      "      --no-color           no colours in the browser (also: NO_COLOR set)\n"
	      "      --[no-]exit-on-end   leave the browser when the target ends (default:\n"
	      "                           only with -- COMMAND or -n)\n"
	      "  -h, --help               show this help\n"
	      "  -V, --version            show the version\n"
	      "\n"
	      "Exit status: 0 success, 1 runtime error (e.g. sampling refused), 2 usage\n"
	      "error; with -- COMMAND, the command's exit status (128+N if killed by signal N).\n"
	      "See proftop(1).\n",
	      out);
}

static int usage_error(const char *fmt, ...) PRINTFLIKE(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	msg_error("%s (see proftop --help)", msg);
	free(msg);
	return -EINVAL;
}

/* A decimal number in [min, max]; returns 0 or -EINVAL. */
static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return CMP(*(const int *)a, *(const int *)b);
}

int options_parse_cpulist(const char *s, int **cpus, size_t *n, struct errmsg *em)
{
	int *list = NULL;
	size_t cap = 0, cnt = 0, i, j;
	const char *p = s;

	if (!*s)
		return errmsg_set(em, -EINVAL, "empty CPU list");
	while (*p) {
		char *end;
		long lo, hi;

		if (*p < '0' || *p > '9')
			goto bad;
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				goto bad;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi >= 65536)
			goto bad;
		for (long c = lo; c <= hi; c++) {
			list = xgrow(list, &cap, cnt + 1, sizeof(*list));
			list[cnt++] = (int)c;
		}
		if (*p == ',') {
			p++;
			if (!*p)
				goto bad;
		} else if (*p) {
			goto bad;
		}
	}
	qsort(list, cnt, sizeof(*list), cmp_int);
	for (i = j = 0; i < cnt; i++)
		if (j == 0 || list[j - 1] != list[i])
			list[j++] = list[i];
	*cpus = list;
	*n = j;
	return 0;
bad:
	free(list);
	return errmsg_set(em, -EINVAL, "expected CPU numbers and ranges like 0-3,8");
}

int options_parse_idlist(const char *s, pid_t **ids, size_t *n, struct errmsg *em)
{
	pid_t *list = NULL;
	size_t cap = 0, cnt = 0;
	const char *p = s;

	while (1) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			goto bad;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v <= 0 || v > INT_MAX)
			goto bad;
		list = xgrow(list, &cap, cnt + 1, sizeof(*list));
		list[cnt++] = (pid_t)v;
		p = end;
		if (*p == '\0')
			break;
		if (*p != ',')
			goto bad;
		p++;
	}
	*ids = list;
	*n = cnt;
	return 0;
bad:
	free(list);
	return errmsg_set(em, -EINVAL, "expected positive numbers separated by commas");
}

static void options_defaults(struct options *o, bool stdout_is_tty)
{
	memset(o, 0, sizeof(*o));
	o->freq = true;
	o->sample_freq = DEFAULT_FREQ;
	o->mode = HIST_DECAY;
	o->delay = 2.0;
	o->output = stdout_is_tty ? OUTPUT_SCREEN : OUTPUT_TEXT;
	o->mmap_pages = DEFAULT_MMAP_PAGES;
	o->exit_on_end = -1;
	o->view.tree_rows = DEFAULT_TREE_ROWS;
	o->debuginfod_timeout = DEBUGINFOD_DEFAULT_TIMEOUT;
	sort_spec_parse("dso,sym", &o->sort, NULL);
}

/* A debuginfod timeout in seconds, as --debuginfod-timeout and
 * DEBUGINFOD_TIMEOUT give it. */
static int options_parse_timeout(const char *s, double *secs)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(d) || d < 0.1 || d > 3600)
		return -EINVAL;
	*secs = d;
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, bool stdout_is_tty,
		  enum options_result *res)
{
	bool explicit_all = false, have_freq = false, have_count = false;
	bool zero = false, accumulate = false, batch = false, json = false, folded = false;
	bool have_timeout = false;
	struct errmsg em = ERRMSG_INIT;
	uint64_t v;
	int c, err;

	options_defaults(o, stdout_is_tty);
	*res = OPTIONS_OK;
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, which starts the command. */
	while ((c = getopt_long(argc, argv, "+:e:F:c:aC:p:t:s:zd:n:bE:KUm:i:DhVgG:M:", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			if (!*optarg)
				return usage_error("empty event name");
			o->event = optarg;
			break;
		case 'F':
			have_freq = true;
			o->freq = true;
			if (strcmp(optarg, "max") == 0) {
				o->freq_max = true;
				break;
			}
			o->freq_max = false;
			if (parse_u64(optarg, 1, 10000000, &v))
				return usage_error("-F wants a frequency in Hz (1 or more) or \"max\", "
						   "not '%s'", optarg);
			o->sample_freq = v;
			break;
		case 'c':
			have_count = true;
			o->freq = false;
			if (parse_u64(optarg, 1, UINT64_MAX >> 1, &v))
				return usage_error("-c wants a positive event count, not '%s'", optarg);
			o->sample_period = v;
			break;
		case 'a':
			explicit_all = true;
			break;
		case 'C':
			free(o->cpus);
			o->cpus = NULL;
			if ((err = options_parse_cpulist(optarg, &o->cpus, &o->ncpus, &em)) < 0)
				return usage_error("bad CPU list '%s': %s", optarg,
						   errmsg_text(&em, err));
			break;
		case 'p':
			free(o->pids);
			o->pids = NULL;
			if ((err = options_parse_idlist(optarg, &o->pids, &o->npids, &em)) < 0)
				return usage_error("bad pid list '%s': %s", optarg,
						   errmsg_text(&em, err));
			break;
		case 't':
			free(o->tids);
			o->tids = NULL;
			if ((err = options_parse_idlist(optarg, &o->tids, &o->ntids, &em)) < 0)
				return usage_error("bad tid list '%s': %s", optarg,
						   errmsg_text(&em, err));
			break;
		case 's':
			if ((err = sort_spec_parse(optarg, &o->sort, &em)) < 0)
				return usage_error("bad sort keys '%s': %s", optarg,
						   errmsg_text(&em, err));
			o->sort_set = true;
			break;
		case OPT_ORDER:
			if ((err = view_order_parse(optarg, &o->view.order, &em)) < 0)
				return usage_error("bad --order '%s': %s", optarg,
						   errmsg_text(&em, err));
			break;
		case 'z':
			zero = true;
			break;
		case OPT_ACCUMULATE:
			accumulate = true;
			break;
		case 'd': {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || *end || end == optarg || !isfinite(d) || d < 0.1 || d > 86400)
				return usage_error("-d wants a delay in seconds (0.1 or more), not '%s'",
						   optarg);
			o->delay = d;
			break;
		}
		case 'n':
			if (parse_u64(optarg, 1, LONG_MAX, &v))
				return usage_error("-n wants a positive number of refreshes, not '%s'",
						   optarg);
			o->iterations = (long)v;
			break;
		case 'b':
			batch = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'E':
			if (parse_u64(optarg, 1, SIZE_MAX, &v))
				return usage_error("-E wants a positive number of rows, not '%s'", optarg);
			o->view.max_rows = (size_t)v;
			break;
		case OPT_PERCENT_LIMIT: {
			char *end;
			double p;

			errno = 0;
			p = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(p >= 0 && p <= 100))
				return usage_error("--percent-limit wants a percentage from 0 to 100, "
						   "not '%s'", optarg);
			o->view.percent_limit = p;
			break;
		}
		case 'K':
			o->view.hide_kernel = true;
			break;
		case 'U':
			o->view.hide_user = true;
			break;
		case 'm':
			if (parse_u64(optarg, 1, 1u << 20, &v) || (v & (v - 1)))
				return usage_error("-m wants a power of 2 number of pages, not '%s'",
						   optarg);
			o->mmap_pages = (size_t)v;
			o->mmap_pages_set = true;
			break;
		case 'i':
			if (!*optarg)
				return usage_error("-i wants a perf.data file name");
			o->input = optarg;
			break;
		case 'D':
			o->dump = true;
			break;
		case OPT_SYMFS:
			if (!*optarg)
				return usage_error("--symfs wants a directory");
			o->symfs = optarg;
			break;
		case OPT_ANNOTATE: {
			size_t cap = o->nannotate;

			if (!*optarg)
				return usage_error("--annotate wants a function name");
			o->annotate = xgrow(o->annotate, &cap, o->nannotate + 1,
					    sizeof(*o->annotate));
			o->annotate[o->nannotate++] = optarg;
			break;
		}
		case 'M':
			if (strcmp(optarg, "intel") && strcmp(optarg, "att"))
				return usage_error("-M wants intel or att");
			o->annotate_intel = strcmp(optarg, "intel") == 0;
			break;
		case OPT_BUILDID_DIR:
			if (!*optarg)
				return usage_error("--buildid-dir wants a directory");
			o->buildid_dir = optarg;
			break;
		case OPT_VMLINUX:
			if (!*optarg)
				return usage_error("--vmlinux wants a file name");
			o->vmlinux = optarg;
			break;
		case OPT_NO_KALLSYMS_CACHE:
			o->no_kallsyms_cache = true;
			break;
		case OPT_NO_DEMANGLE:
			o->no_demangle = true;
			break;
		case OPT_DEBUGINFOD:
			o->debuginfod = true;
			break;
		case OPT_DEBUGINFOD_TIMEOUT:
			if (options_parse_timeout(optarg, &o->debuginfod_timeout))
				return usage_error("--debuginfod-timeout wants seconds "
						   "(0.1 to 3600), not '%s'", optarg);
			have_timeout = true;
			break;
		case 'g':
			o->callchain = true;
			break;
		case OPT_CALL_GRAPH:
			if (strcmp(optarg, "fp") == 0) {
				o->callchain = true;
				break;
			}
			if (strcmp(optarg, "dwarf") == 0) {
				o->callchain = true;
				o->dwarf_stack = OPTIONS_DWARF_STACK;
				break;
			}
			if (strncmp(optarg, "dwarf,", 6) == 0) {
				/* The kernel's limit: the record's u16 size. */
				if (parse_u64(optarg + 6, 8, 65528, &v) || v % 8)
					return usage_error("--call-graph dwarf,SIZE wants the bytes of "
							   "stack to copy: a multiple of 8 up to "
							   "65528, not '%s'",
							   optarg + 6);
				o->callchain = true;
				o->dwarf_stack = (uint32_t)v;
				break;
			}
			if (strcmp(optarg, "lbr") == 0)
				return usage_error("--call-graph lbr is not supported yet: use fp "
						   "(frame pointers, -g) or dwarf");
			return usage_error("--call-graph wants fp or dwarf[,SIZE], not '%s'", optarg);
		case OPT_MAX_STACK:
			if (parse_u64(optarg, 1, 65535, &v))
				return usage_error("--max-stack wants a number of frames from 1 to "
						   "65535, not '%s'",
						   optarg);
			o->max_stack = (unsigned)v;
			break;
		case OPT_CHILDREN:
			o->view.no_children = false;
			break;
		case OPT_NO_CHILDREN:
			o->view.no_children = true;
			break;
		case OPT_INLINE:
			o->view.inline_frames = true;
			break;
		case 'G':
			if (parse_u64(optarg, 0, 100000, &v))
				return usage_error("-G wants a number of rows (0 for none), not '%s'",
						   optarg);
			o->view.tree_rows = (size_t)v;
			break;
		case OPT_TREE_PERCENT:
			if (strcmp(optarg, "entry") == 0)
				o->view.tree_percent_total = false;
			else if (strcmp(optarg, "total") == 0)
				o->view.tree_percent_total = true;
			else
				return usage_error("--tree-percent wants entry or total, not '%s'",
						   optarg);
			break;
		case OPT_FOLDED:
			folded = true;
			break;
		case OPT_OFF_CPU:
			o->off_cpu = true;
			break;
		case OPT_WALL:
			o->wall = true;
			break;
		case OPT_PPROF:
			if (!*optarg)
				return usage_error("--pprof needs a file name (\"-\": stdout)");
			o->pprof = optarg;
			break;
		case OPT_BASELINE:
		case OPT_BASELINE_SAVE:
			if (!*optarg)
				return usage_error("--%s needs a file name", c == OPT_BASELINE ?
						   "baseline" : "baseline-save");
			*(c == OPT_BASELINE ? &o->baseline : &o->baseline_save) = optarg;
			break;
		case OPT_TUI:
			o->tui = true;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_EXIT_ON_END:
		case OPT_NO_EXIT_ON_END:
			o->exit_on_end = c == OPT_EXIT_ON_END;
			break;
		case 'h':
			options_usage(stdout);
			*res = OPTIONS_EXIT;
			return 0;
		case 'V':
			printf("proftop %s\n", PROFTOP_VERSION);
			*res = OPTIONS_EXIT;
			return 0;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->command = &argv[optind];

	if (have_freq && have_count)
		return usage_error("-F and -c exclude each other: sample by frequency or by count");
	if (zero && accumulate)
		return usage_error("-z and --accumulate exclude each other");
	if (o->view.hide_kernel && o->view.hide_user)
		return usage_error("-K and -U together would hide every row");
	if (!!o->npids + !!o->ntids + !!o->command + explicit_all + !!o->input > 1)
		return usage_error("choose one target: -a, -p, -t, a command or -i FILE");
	if (o->wall && o->event)
		return usage_error("--wall samples cpu-clock and sched:sched_switch: it "
				   "excludes -e");
	if (o->off_cpu && o->event)
		return usage_error("--off-cpu samples sched:sched_switch: it excludes -e");
	if (o->off_cpu && !o->wall && (have_freq || have_count))
		return usage_error("--off-cpu takes every switch: it excludes -F and -c");
	/* --wall is --off-cpu with the on-CPU samples beside it. */
	if (o->wall)
		o->off_cpu = true;
	if (o->view.order && !o->wall &&
	    (strcmp(o->view.order, "runq") ? walltime_order_known(o->view.order) : !o->off_cpu))
		return usage_error("--order %s is a column of --wall%s", o->view.order,
				   strcmp(o->view.order, "runq") ? "" : " and --off-cpu");
	if (o->off_cpu)
		o->callchain = true;
	if (o->dump && !o->input)
		return usage_error("-D dumps a recording: give it with -i FILE");
	if (o->input && o->cpus)
		return usage_error("-C selects CPUs to sample: it does not apply to -i FILE");
	/* libdebuginfod's own variable, when the option is not given. */
	if (!have_timeout && getenv("DEBUGINFOD_TIMEOUT") &&
	    options_parse_timeout(getenv("DEBUGINFOD_TIMEOUT"), &o->debuginfod_timeout))
		o->debuginfod_timeout = DEBUGINFOD_DEFAULT_TIMEOUT;
	o->mode = zero ? HIST_ZERO : accumulate ? HIST_ACCUMULATE : HIST_DECAY;
	/* --batch --json: JSON lines, the batch form of --json. */
	if (batch)
		o->output = OUTPUT_TEXT;
	if (json)
		o->output = OUTPUT_JSON;
	if (o->tui && (batch || json || folded || o->dump))
		return usage_error("--tui is the interactive browser: it excludes --batch, --json, "
				   "--folded and -D");
	if (folded && json)
		return usage_error("--folded and --json are two output formats: choose one");
	if (o->pprof && (o->tui || o->dump))
		return usage_error("--pprof writes a file: it excludes --tui and -D");
	if (o->pprof && strcmp(o->pprof, "-") == 0 && (batch || json || folded))
		return usage_error("--pprof=- writes the profile to stdout: it excludes --batch, "
				   "--json and --folded there");
	/* --pprof alone prints no table; with --batch or --json it does. */
	if (o->pprof && !batch && !json && !folded) {
		o->output = OUTPUT_NONE;
		/* Nothing shows the rows' call trees (pprof has the stacks):
		   not built at each refresh (issue 18's live cost). */
		o->view.tree_rows = 0;
	}
	if (folded)
		o->output = OUTPUT_FOLDED;
	if ((o->baseline_save || o->baseline) && o->dump)
		return usage_error("-D prints records, no table: it excludes --baseline and "
				   "--baseline-save");
	/* The saved profile has the stacks the recording or -g gives. */
	if (o->baseline_save)
		o->view.stacks = true;
	/* pprof keeps addresses, pids and tids in its stacks. */
	o->view.stack_detail = o->pprof || o->baseline_save;
	if (folded || o->pprof) {
		o->view.stacks = true;
		/* Live, stacks need chains; a recording has them or not. */
		if (!o->input)
			o->callchain = true;
	}
	o->system_wide = !o->npids && !o->ntids && !o->command && !o->input;
	return 0;
}

void options_release(struct options *o)
{
	free(o->cpus);
	free(o->pids);
	free(o->tids);
	free(o->annotate);
	memset(o, 0, sizeof(*o));
}

/* In the browser, rows further down than -G can be expanded too. */
#define OPTIONS_BROWSER_TREE_ROWS 50

void options_engine_config(const struct options *o, bool browser, struct engine_config *out)
{
	memset(out, 0, sizeof(*out));
	out->event = o->event;
	out->freq = o->freq;
	out->sample_freq = o->sample_freq;
	out->freq_max = o->freq_max;
	out->sample_period = o->sample_period;
	out->callchain = o->callchain;
	out->off_cpu = o->off_cpu;
	out->wall = o->wall;
	out->dwarf_stack = o->dwarf_stack;
	out->max_stack = o->max_stack;
	out->mmap_pages = o->mmap_pages;
	out->mmap_pages_set = o->mmap_pages_set;
	out->system_wide = o->system_wide;
	out->cpus = o->cpus;
	out->ncpus = o->ncpus;
	out->pids = o->pids;
	out->npids = o->npids;
	out->tids = o->tids;
	out->ntids = o->ntids;
	out->command = o->command;
	out->input = o->input;
	out->dump = o->dump;
	out->symfs = o->symfs;
	out->annotate = o->annotate;
	out->nannotate = o->nannotate;
	out->annotate_intel = o->annotate_intel;
	out->annotate_browse = browser;
	out->buildid_dir = o->buildid_dir;
	out->vmlinux = o->vmlinux;
	out->kallsyms_cache = !o->no_kallsyms_cache;
	out->demangle = !o->no_demangle;
	out->debuginfod = o->debuginfod;
	out->debuginfod_timeout = o->debuginfod_timeout;
	out->sort = o->sort;
	out->mode = o->mode;
	out->view = o->view;
	out->delay = o->delay;
	out->iterations = o->iterations;
	out->first_frame = browser;
	out->wait_kernel = !browser;
	out->last_waits = !browser;
	if (!browser)
		return;
	out->view.hide_kernel = false;
	out->view.hide_user = false;
	out->view.percent_limit = 0;
	out->view.max_rows = 0;
	if (out->view.tree_rows && out->view.tree_rows < OPTIONS_BROWSER_TREE_ROWS)
		out->view.tree_rows = OPTIONS_BROWSER_TREE_ROWS;
	/* Like perf report: Command, Shared Object, Symbol. */
	if (!o->sort_set)
		sort_spec_parse("comm,dso,sym", &out->sort, NULL);
}
