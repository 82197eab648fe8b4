/* Unit tests: option parsing, lists, and their error messages. */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arch.h"
#include "errmsg.h"
#include "engine.h"
#include "event.h"
#include "options.h"
#include "testutil.h"
#include "walltime.h"

/* Parse a NULL-terminated list of arguments after "proftop". */
static int parse(struct options *o, enum options_result *res, ...)
{
	static char *argv[32];
	int argc = 0;
	va_list ap;
	char *a;

	argv[argc++] = "proftop";
	va_start(ap, res);
	while ((a = va_arg(ap, char *)) != NULL)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return options_parse(o, argc, argv, false, res);
}

/* Parse with stderr captured into buf; returns the parse result. */
static int parse_err(char *buf, size_t size, const char *a1, const char *a2)
{
	struct options o;
	enum options_result res;
	char *argv[] = { "proftop", (char *)a1, (char *)a2, NULL };
	int argc = a2 ? 3 : 2;
	FILE *f = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	fflush(stderr);
	dup2(fileno(f), 2);
	rc = options_parse(&o, argc, argv, false, &res);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	options_release(&o);
	return rc;
}

/* --pprof alone prints nothing: no call trees are built for the rows
 * (issue 18's live cost); with --batch they are, as without --pprof. */
START_TEST(test_pprof_no_trees)
{
	struct options o;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, "--pprof=x.pb.gz", NULL), 0);
	ck_assert_int_eq(o.output, OUTPUT_NONE);
	ck_assert_uint_eq(o.view.tree_rows, 0);
	ck_assert(o.view.stacks && o.view.stack_detail);
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "--pprof=x.pb.gz", "--batch", NULL), 0);
	ck_assert_int_eq(o.output, OUTPUT_TEXT);
	ck_assert_uint_gt(o.view.tree_rows, 0);
	options_release(&o);
}
END_TEST

START_TEST(test_defaults)
{
	struct options o;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, NULL), 0);
	ck_assert_int_eq(res, OPTIONS_OK);
	ck_assert(o.system_wide);
	ck_assert(o.freq);
	ck_assert_uint_eq(o.sample_freq, 4000);
	ck_assert(o.event == NULL);
	ck_assert_int_eq(o.mode, HIST_DECAY);
	ck_assert(o.delay == 2.0);
	ck_assert_int_eq(o.output, OUTPUT_TEXT); /* stdout not a tty */
	ck_assert_uint_eq(o.sort.n, 2);
	ck_assert_int_eq(o.sort.keys[0], SORT_DSO);
	ck_assert_int_eq(o.sort.keys[1], SORT_SYM);
	ck_assert_uint_eq(o.mmap_pages, 128);
	options_release(&o);
}
END_TEST

START_TEST(test_all_options)
{
	struct options o;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, "-e", "instructions", "-c", "10000", "-C", "0-1",
			       "-p", "10,20", "-s", "comm,pid", "-z", "-d", "0.5", "-n", "3",
			       "--json", "-E", "7", "--percent-limit", "1.5", "-K", "-m", "16",
			       NULL),
			 0);
	ck_assert_str_eq(o.event, "instructions");
	ck_assert(!o.freq);
	ck_assert_uint_eq(o.sample_period, 10000);
	ck_assert_uint_eq(o.ncpus, 2);
	ck_assert_uint_eq(o.npids, 2);
	ck_assert_int_eq(o.pids[1], 20);
	ck_assert(!o.system_wide);
	ck_assert_int_eq(o.sort.keys[0], SORT_COMM);
	ck_assert_int_eq(o.sort.keys[1], SORT_PID);
	ck_assert_int_eq(o.mode, HIST_ZERO);
	ck_assert(o.delay == 0.5);
	ck_assert_int_eq(o.iterations, 3);
	ck_assert_int_eq(o.output, OUTPUT_JSON);
	ck_assert_uint_eq(o.view.max_rows, 7);
	ck_assert(o.view.percent_limit == 1.5);
	ck_assert(o.view.hide_kernel);
	ck_assert_uint_eq(o.mmap_pages, 16);
	options_release(&o);

	ck_assert_int_eq(parse(&o, &res, "--batch", "--json", NULL), 0);
	ck_assert_int_eq(o.output, OUTPUT_JSON);
	options_release(&o);

	ck_assert_int_eq(parse(&o, &res, "--vmlinux", "/boot/vmlinux-x", NULL), 0);
	ck_assert_str_eq(o.vmlinux, "/boot/vmlinux-x");
	options_release(&o);

	/* perf's name for it; passed on to the engine. */
	ck_assert_int_eq(parse(&o, &res, "--buildid-dir=/srv/bundle", NULL), 0);
	ck_assert_str_eq(o.buildid_dir, "/srv/bundle");
	{
		struct engine_config c;

		options_engine_config(&o, false, &c);
		ck_assert_str_eq(c.buildid_dir, "/srv/bundle");
	}
	options_release(&o);

	ck_assert_int_eq(parse(&o, &res, "--accumulate", "-b", "-F", "max", "-U", NULL), 0);
	ck_assert_int_eq(o.mode, HIST_ACCUMULATE);
	ck_assert_int_eq(o.output, OUTPUT_TEXT);
	ck_assert(o.freq_max);
	ck_assert(o.view.hide_user);
	ck_assert(!o.view.inline_frames);
	options_release(&o);

	/* --inline and the srcline key */
	ck_assert_int_eq(parse(&o, &res, "--inline", "-s", "sym,srcline", NULL), 0);
	ck_assert(o.view.inline_frames);
	ck_assert_uint_eq(o.sort.n, 2);
	ck_assert_int_eq(o.sort.keys[1], SORT_SRCLINE);
	options_release(&o);
}
END_TEST

START_TEST(test_command)
{
	struct options o;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, "--json", "--", "./wl", "-x", "3", NULL), 0);
	ck_assert_ptr_nonnull(o.command);
	ck_assert_str_eq(o.command[0], "./wl");
	ck_assert_str_eq(o.command[1], "-x");
	ck_assert_ptr_null(o.command[3]);
	ck_assert(!o.system_wide);
	options_release(&o);

	/* Without "--" the first non-option starts the command too. */
	ck_assert_int_eq(parse(&o, &res, "-F", "99", "sleep", "1", NULL), 0);
	ck_assert_str_eq(o.command[0], "sleep");
	ck_assert_uint_eq(o.sample_freq, 99);
	options_release(&o);
}
END_TEST

START_TEST(test_cpulist)
{
	int *cpus;
	size_t n;
	struct errmsg why = ERRMSG_INIT;

	ck_assert_int_eq(options_parse_cpulist("0-3,8", &cpus, &n, &why), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(cpus[3], 3);
	ck_assert_int_eq(cpus[4], 8);
	free(cpus);
	ck_assert_int_eq(options_parse_cpulist("8,1,1,0-1", &cpus, &n, &why), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cpus[0], 0);
	ck_assert_int_eq(cpus[2], 8);
	free(cpus);
	ck_assert_int_eq(options_parse_cpulist("3-1", &cpus, &n, &why), -EINVAL);
	ck_assert_str_eq(why.text, "expected CPU numbers and ranges like 0-3,8");
	ck_assert_int_eq(options_parse_cpulist("", &cpus, &n, &why), -EINVAL);
	ck_assert_str_eq(why.text, "empty CPU list");
	ck_assert_int_eq(options_parse_cpulist("1,", &cpus, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_cpulist("a", &cpus, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_cpulist("-1", &cpus, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_cpulist("1-", &cpus, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_cpulist("0-99999", &cpus, &n, &why), -EINVAL);
}
END_TEST

START_TEST(test_idlist)
{
	pid_t *ids;
	size_t n;
	struct errmsg why = ERRMSG_INIT;

	ck_assert_int_eq(options_parse_idlist("12,34", &ids, &n, &why), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(ids[1], 34);
	free(ids);
	ck_assert_int_eq(options_parse_idlist("0", &ids, &n, &why), -EINVAL);
	ck_assert_str_eq(why.text, "expected positive numbers separated by commas");
	ck_assert_int_eq(options_parse_idlist("12,", &ids, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_idlist("x", &ids, &n, &why), -EINVAL);
	ck_assert_int_eq(options_parse_idlist("99999999999", &ids, &n, &why), -EINVAL);
}
END_TEST

START_TEST(test_errors)
{
	static const struct {
		const char *a1, *a2, *msg;
	} cases[] = {
		{ "--bogus", NULL, "unknown option '--bogus'" },
		{ "-Q", NULL, "unknown option '-Q'" },
		{ "-C", "2-1", "bad CPU list '2-1'" },
		{ "-p", "x", "bad pid list 'x'" },
		{ "-t", "0", "bad tid list '0'" },
		{ "-s", "dso,foo", "bad sort keys 'dso,foo'" },
		{ "-F", "0", "-F wants a frequency" },
		{ "-F", "10k", "-F wants a frequency" },
		{ "-c", "-5", "-c wants a positive event count" },
		{ "-d", "0.01", "-d wants a delay" },
		{ "-d", "nan", "-d wants a delay" },
		{ "-n", "0", "-n wants a positive number" },
		{ "-E", "x", "-E wants a positive number" },
		{ "--percent-limit", "101", "--percent-limit wants a percentage" },
		{ "-m", "6", "-m wants a power of 2" },
		{ "-e", NULL, "option '-e' needs an argument" },
		{ "-z", "--accumulate", "-z and --accumulate exclude each other" },
		{ "-K", "-U", "-K and -U together" },
		{ "-a", "-p1", "choose one target" },
		{ "--vmlinux=", NULL, "--vmlinux wants a file name" },
		{ "--call-graph", "dwarf,12", "--call-graph dwarf,SIZE wants the bytes" },
		{ "--call-graph", "dwarf,65536", "--call-graph dwarf,SIZE wants the bytes" },
		{ "--call-graph", "dwarf,", "--call-graph dwarf,SIZE wants the bytes" },
		{ "--call-graph", "lbr", "--call-graph lbr is not supported yet" },
		{ "--call-graph", "x", "--call-graph wants fp or dwarf[,SIZE]" },
		{ "--buildid-dir=", NULL, "--buildid-dir wants a directory" },
		{ "--off-cpu", "-ecycles", "--off-cpu samples sched:sched_switch: it excludes -e" },
		{ "--off-cpu", "-F100", "--off-cpu takes every switch" },
		{ "--wall", "-ecycles", "--wall samples cpu-clock and sched:sched_switch" },
		{ "--order=wall", NULL, "--order wall is a column of --wall" },
		{ "--order=runq", NULL, "--order runq is a column of --wall and --off-cpu" },
		{ "--off-cpu", "--order=on-cpu", "--order on-cpu is a column of --wall" },
	};
	char buf[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(parse_err(buf, sizeof(buf), cases[i].a1, cases[i].a2) == -EINVAL,
			      "case %zu (%s) accepted", i, cases[i].a1);
		ck_assert_msg(strstr(buf, cases[i].msg) != NULL, "case %zu: got '%s', want '%s'", i,
			      buf, cases[i].msg);
		ck_assert_msg(strncmp(buf, "proftop: ", 9) == 0, "case %zu: no prefix: %s", i, buf);
		ck_assert_msg(strchr(buf, '\n') == buf + strlen(buf) - 1, "case %zu: not one line: %s",
			      i, buf);
	}
}
END_TEST

/* --help's --order paragraph names every word --order takes (each
 * decoder's and --wall's, from their tables) and stays within 80 columns. */
START_TEST(test_help_order_words)
{
	char *text, *para, *end, *words, *w, *save = NULL;
	FILE *f = tmpfile();
	long n;

	ck_assert_ptr_nonnull(f);
	options_usage(f);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	ck_assert_int_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	para = strstr(text, "--order=KEY");
	ck_assert_ptr_nonnull(para);
	end = strstr(para, "\n  -");
	ck_assert_ptr_nonnull(end);
	*end = '\0';
	for (w = para; w; w = strchr(w + 1, '\n'))
		ck_assert_msg(strcspn(w + (*w == '\n'), "\n") <= 80, "long line in: %s", para);
	words = malloc(strlen(arch_payload_order_keys()) + strlen(walltime_order_keys()) + 3);
	sprintf(words, "%s, %s", arch_payload_order_keys(), walltime_order_keys());
	for (w = strtok_r(words, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		char *hit = para;
		bool found = false;

		/* a whole word: not "dtlb" inside "dtlb2" */
		while (!found && (hit = strstr(hit, w)) != NULL) {
			char after = hit[strlen(w)];

			found = (hit[-1] == ' ') && (after == ',' || after == ';' || after == ' ' ||
						    after == '\n' || after == '\0');
			hit++;
		}
		ck_assert_msg(found, "--order word %s missing from --help: %s", w, para);
	}
	ck_assert_ptr_nonnull(strstr(para, "overhead (default)"));
	free(words);
	free(text);
}
END_TEST

START_TEST(test_help_version)
{
	struct options o;
	enum options_result res;
	FILE *f = tmpfile();
	int saved = dup(1);

	fflush(stdout);
	dup2(fileno(f), 1);
	ck_assert_int_eq(parse(&o, &res, "--help", NULL), 0);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	ck_assert_int_eq(res, OPTIONS_EXIT);
	ck_assert(ftell(f) > 500);
	fclose(f);
	options_release(&o);
}
END_TEST

START_TEST(test_event_parse)
{
	struct event_spec ev;

	ck_assert_int_eq(event_parse("cycles", &ev), 0);
	ck_assert_int_eq(ev.type, PERF_TYPE_HARDWARE);
	ck_assert_int_eq(ev.config, PERF_COUNT_HW_CPU_CYCLES);
	ck_assert_int_eq(event_parse("cpu-clock", &ev), 0);
	ck_assert_int_eq(ev.type, PERF_TYPE_SOFTWARE);
	ck_assert_int_eq(ev.config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert_int_eq(event_parse("task-clock", &ev), 0);
	ck_assert_int_eq(ev.config, PERF_COUNT_SW_TASK_CLOCK);
	ck_assert_int_eq(event_parse("instructions", &ev), 0);
	ck_assert_int_eq(ev.config, PERF_COUNT_HW_INSTRUCTIONS);
	ck_assert_int_eq(event_parse("r1C2", &ev), 0);
	ck_assert_int_eq(ev.type, PERF_TYPE_RAW);
	ck_assert_uint_eq(ev.config, 0x1c2);
	ck_assert_str_eq(ev.name, "r1c2");
	ck_assert_int_eq(event_parse("r0x10", &ev), 0);
	ck_assert_uint_eq(ev.config, 0x10);
	ck_assert_int_eq(event_parse("r", &ev), -EINVAL);
	ck_assert_int_eq(event_parse("rxyz", &ev), -EINVAL);
	ck_assert_int_eq(event_parse("r12345678901234567", &ev), -EINVAL);
	ck_assert_int_eq(event_parse("bogus", &ev), -EINVAL);
}
END_TEST

START_TEST(test_event_attr)
{
	struct event_spec ev;
	struct event_sampling s = { .freq = true, .freq_or_period = 4000, .tracking = true,
				    .inherit = true, .enable_on_exec = true };
	struct perf_event_attr a;

	event_parse("cpu-clock", &ev);
	event_attr_init(&a, &ev, &s);
	ck_assert_int_eq(a.size, sizeof(a));
	ck_assert(a.freq);
	ck_assert_uint_eq(a.sample_freq, 4000);
	ck_assert(a.sample_type & PERF_SAMPLE_IP);
	ck_assert(a.sample_type & PERF_SAMPLE_TID);
	ck_assert(a.sample_type & PERF_SAMPLE_PERIOD);
	ck_assert(a.sample_type & PERF_SAMPLE_IDENTIFIER);
	ck_assert(a.sample_id_all);
	ck_assert(a.mmap2 && a.comm && a.comm_exec && a.task);
	/* Build IDs only where the kernel keeps the flag to the asking event. */
	ck_assert_int_eq(a.build_id, event_build_id_is_safe());
	ck_assert(a.inherit && a.enable_on_exec && a.disabled);
	ck_assert(!a.exclude_kernel);
	ck_assert(a.wakeup_events == 1 && !a.watermark);
	ck_assert(!a.mmap_data);
	/* -s daddr_sym: data maps too */
	s.mmap_data = true;
	event_attr_init(&a, &ev, &s);
	ck_assert(a.mmap_data && a.mmap2);
	s.mmap_data = false;

	s.wakeup_bytes = 128 * 1024;
	event_attr_init(&a, &ev, &s);
	ck_assert(a.watermark);
	ck_assert_uint_eq(a.wakeup_watermark, 128 * 1024);

	s.freq = false;
	s.freq_or_period = 12345;
	s.tracking = false;
	s.exclude_kernel = true;
	event_attr_init(&a, &ev, &s);
	ck_assert(!a.freq);
	ck_assert_uint_eq(a.sample_period, 12345);
	ck_assert(!a.mmap2 && !a.comm && !a.task);
	ck_assert(a.exclude_kernel);
	ck_assert(!(a.sample_type & PERF_SAMPLE_RAW) && !a.context_switch);
	ck_assert(!(a.sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)));

	/* --call-graph dwarf: the kernel's chain up to the user boundary,
	 * then the registers and stack copy the unwinder reads. */
	s.callchain = true;
	s.dwarf_stack = 16384;
	s.regs_user = 0xff0fff;
	event_attr_init(&a, &ev, &s);
	ck_assert(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	ck_assert(a.sample_type & PERF_SAMPLE_REGS_USER);
	ck_assert(a.sample_type & PERF_SAMPLE_STACK_USER);
	ck_assert_uint_eq(a.sample_regs_user, 0xff0fff);
	ck_assert_uint_eq(a.sample_stack_user, 16384);
	ck_assert(a.exclude_callchain_user);

	/* A tracepoint (--off-cpu): its fields in RAW, and switch records
	 * for the switch-ins of per-thread targets. */
	s.dwarf_stack = 0;
	s.regs_user = 0;
	ev.type = PERF_TYPE_TRACEPOINT;
	ev.config = 316;
	s.freq_or_period = 1;
	s.tracking = true;
	event_attr_init(&a, &ev, &s);
	ck_assert(a.sample_type & PERF_SAMPLE_RAW);
	ck_assert(a.context_switch);
	ck_assert_uint_eq(a.sample_period, 1);
}
END_TEST

START_TEST(test_off_cpu)
{
	struct options o;
	enum options_result res;
	struct engine_config ec;

	ck_assert_int_eq(parse(&o, &res, "--off-cpu", "-p", "1", NULL), 0);
	ck_assert(o.off_cpu);
	ck_assert(o.callchain);
	options_engine_config(&o, false, &ec);
	ck_assert(ec.off_cpu && ec.callchain);
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "-p", "1", NULL), 0);
	ck_assert(!o.off_cpu);
	options_release(&o);
	/* --wall is --off-cpu with cpu-clock beside it: -F applies. */
	ck_assert_int_eq(parse(&o, &res, "--wall", "-F", "999", "--order=runq", "-t", "1", NULL), 0);
	ck_assert(o.wall && o.off_cpu && o.callchain);
	options_engine_config(&o, false, &ec);
	ck_assert(ec.wall && ec.off_cpu && ec.freq && ec.sample_freq == 999);
	ck_assert_str_eq(ec.view.order, "runq");
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "--off-cpu", "--order=runq", NULL), 0);
	ck_assert(!o.wall);
	options_release(&o);
	/* A switch-out's user frames unwound from its stack copy. */
	ck_assert_int_eq(parse(&o, &res, "--wall", "--call-graph=dwarf", "-p", "1", NULL), 0);
	options_engine_config(&o, false, &ec);
	ck_assert(ec.wall && ec.off_cpu && ec.callchain && ec.dwarf_stack == 8192);
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "--off-cpu", "--call-graph=dwarf,4096", NULL), 0);
	ck_assert(o.off_cpu && o.dwarf_stack == 4096);
	options_release(&o);
}
END_TEST

/* --call-graph dwarf[,SIZE]: perf's syntax, SIZE 8192 unless given. */
START_TEST(test_call_graph_dwarf)
{
	struct options o;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, "--call-graph", "dwarf", "-a", NULL), 0);
	ck_assert(o.callchain);
	ck_assert_uint_eq(o.dwarf_stack, 8192);
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "--call-graph=dwarf,65528", "-a", NULL), 0);
	ck_assert_uint_eq(o.dwarf_stack, 65528);
	options_release(&o);
	ck_assert_int_eq(parse(&o, &res, "--call-graph", "fp", "-a", NULL), 0);
	ck_assert(o.callchain);
	ck_assert_uint_eq(o.dwarf_stack, 0);
	options_release(&o);
}
END_TEST

START_TEST(test_explain)
{
	struct errmsg em = ERRMSG_INIT;

	ck_assert_int_eq(event_explain_error(-EACCES, true, &em), -EACCES);
	ck_assert(strstr(em.text, "paranoid"));
	ck_assert_int_eq(event_explain_error(-EMFILE, true, &em), -EMFILE);
	ck_assert_str_eq(em.text, "too many open files: raise `ulimit -n` or limit CPUs with -C");
	event_explain_error(-ENOENT, true, &em);
	ck_assert(strstr(em.text, "not supported"));
	event_explain_error(-E2BIG, true, &em);
	ck_assert_str_eq(em.text, "perf_event_open failed: Argument list too long");
	ck_assert(event_error_unsupported(-ENOENT));
	ck_assert(!event_error_unsupported(-EACCES));
}
END_TEST

/* --debuginfod is off unless given; its timeout comes from the option,
 * else DEBUGINFOD_TIMEOUT, else 10 s; bad values are usage errors (the
 * option) or ignored (the variable, which is libdebuginfod's too). */
START_TEST(test_debuginfod)
{
	struct options o;
	enum options_result res;

	unsetenv("DEBUGINFOD_TIMEOUT");
	ck_assert_int_eq(parse(&o, &res, NULL), 0);
	ck_assert(!o.debuginfod);
	ck_assert(o.debuginfod_timeout == 10.0);
	ck_assert_int_eq(parse(&o, &res, "--debuginfod", "--debuginfod-timeout", "2.5", NULL), 0);
	ck_assert(o.debuginfod);
	ck_assert(o.debuginfod_timeout == 2.5);
	setenv("DEBUGINFOD_TIMEOUT", "7", 1);
	ck_assert_int_eq(parse(&o, &res, "--debuginfod", NULL), 0);
	ck_assert(o.debuginfod_timeout == 7.0);
	ck_assert_int_eq(parse(&o, &res, "--debuginfod-timeout=3", NULL), 0);
	ck_assert(o.debuginfod_timeout == 3.0);
	setenv("DEBUGINFOD_TIMEOUT", "soon", 1);
	ck_assert_int_eq(parse(&o, &res, "--debuginfod", NULL), 0);
	ck_assert(o.debuginfod_timeout == 10.0);
	unsetenv("DEBUGINFOD_TIMEOUT");
	ck_assert_int_ne(parse(&o, &res, "--debuginfod-timeout", "0", NULL), 0);
	ck_assert_int_ne(parse(&o, &res, "--debuginfod-timeout", "x", NULL), 0);
	ck_assert_int_ne(parse(&o, &res, "--debuginfod-timeout", "1e9", NULL), 0);
}
END_TEST

/* The engine's config: printed tables wait for the kernel's symbols and
 * the last one longer; the browser gets a quick first frame, every row
 * (it filters on its side), more call trees and perf report's sort. */
START_TEST(test_engine_config)
{
	struct options o;
	struct engine_config c;
	enum options_result res;

	ck_assert_int_eq(parse(&o, &res, "-K", "-E", "7", "--percent-limit", "2", "-G", "3",
			       "-d", "0.5", "-n", "4", "--no-demangle", "-C", "0", "-p", "1",
			       NULL),
			 0);
	options_engine_config(&o, false, &c);
	ck_assert(c.wait_kernel && c.last_waits && !c.first_frame);
	ck_assert(c.view.hide_kernel);
	ck_assert_uint_eq(c.view.max_rows, 7);
	ck_assert_double_eq(c.view.percent_limit, 2);
	ck_assert_uint_eq(c.view.tree_rows, 3);
	ck_assert_uint_eq(c.sort.n, o.sort.n);
	ck_assert_double_eq(c.delay, 0.5);
	ck_assert_int_eq(c.iterations, 4);
	ck_assert(!c.demangle);
	ck_assert_ptr_eq(c.cpus, o.cpus);
	ck_assert_uint_eq(c.npids, 1);
	ck_assert_int_eq(c.pids[0], 1);

	options_engine_config(&o, true, &c);
	ck_assert(!c.wait_kernel && !c.last_waits && c.first_frame);
	ck_assert(!c.view.hide_kernel);
	ck_assert_uint_eq(c.view.max_rows, 0);
	ck_assert_double_eq(c.view.percent_limit, 0);
	ck_assert_uint_eq(c.view.tree_rows, 50);
	ck_assert_uint_eq(c.sort.n, 3);
	ck_assert_int_eq(c.sort.keys[0], SORT_COMM);
	ck_assert_int_eq(c.sort.keys[1], SORT_DSO);
	ck_assert_int_eq(c.sort.keys[2], SORT_SYM);
	/* The user's own options are left alone. */
	ck_assert(o.view.hide_kernel);
	ck_assert_uint_eq(o.view.max_rows, 7);
	options_release(&o);

	/* -s given: the browser keeps it. */
	ck_assert_int_eq(parse(&o, &res, "-s", "pid", NULL), 0);
	options_engine_config(&o, true, &c);
	ck_assert_uint_eq(c.sort.n, 1);
	ck_assert_int_eq(c.sort.keys[0], SORT_PID);
	options_release(&o);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("options");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_all_options);
	tcase_add_test(tc, test_command);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_help_order_words);
	tcase_add_test(tc, test_debuginfod);
	tcase_add_test(tc, test_engine_config);
	suite_add_tcase(s, tc);
	tc = tcase_create("lists");
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_idlist);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_off_cpu);
	tcase_add_test(tc, test_call_graph_dwarf);
	suite_add_tcase(s, tc);
	tc = tcase_create("events");
	tcase_add_test(tc, test_event_parse);
	tcase_add_test(tc, test_event_attr);
	tcase_add_test(tc, test_explain);
	tcase_add_test(tc, test_pprof_no_trees);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
