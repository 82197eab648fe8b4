/* Unit tests for the batch renderers: the JSON line (parsed back with
 * python3) and the text table. */
#include "config.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alpha-profileme.h"
#include "column.h"
#include "hist.h"
#include "machine.h"
#include "output.h"
#include "symtab.h"
#include "testutil.h"
#include "unwind.h"
#include "util.h"
#include "view.h"

typedef void (*render_fn)(FILE *, const struct snapshot *);

/* Render into a malloc'd string. */
static char *render(render_fn fn, const struct snapshot *snap)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	fn(f, snap);
	fclose(f);
	return buf;
}

static struct sort_spec spec_of(const char *s)
{
	struct sort_spec spec;
	ck_assert_int_eq(sort_spec_parse(s, &spec, NULL), 0);
	return spec;
}

/* The header as the engine would fill it. */
static struct snapshot header(void)
{
	struct snapshot snap = {
		.time = 2.0,
		.event = "cpu-clock",
		.event_note = "cycles not supported: using cpu-clock",
		.freq = true,
		.sample_freq = 4000,
		.target = "system-wide",
		.total_samples = 15873,
		.lost = 0,
		.throttled = 0,
		.samples_per_sec = 7936.4,
		.mode = "decay",
	};

	return snap;
}

static struct snapshot_row rows_std[] = {
	{ .self = 46.3,
	  .samples = 7300,
	  .period = 1825000000,
	  .comm = "wl",
	  .has_pid = true,
	  .pid = 1234,
	  .has_dso = true,
	  .dso = "wl",
	  .dso_path = "/tmp/wl",
	  .has_sym = true,
	  .symbol = "leaf_a" },
	{ .self = 41.25,
	  .samples = 6500,
	  .period = 1625000000,
	  .has_dso = true,
	  .dso = "libc.so.6",
	  .dso_path = "/usr/lib/libc.so.6",
	  .has_sym = true,
	  .symbol = "memcpy" },
	{ .self = 12.45,
	  .samples = 1960,
	  .period = 490000000,
	  .has_dso = true,
	  .dso = "[kernel.kallsyms]",
	  .dso_path = "[kernel.kallsyms]",
	  .has_sym = true,
	  .symbol = "native_safe_halt",
	  .kernel = true },
};

static struct snapshot std_snapshot(void)
{
	struct snapshot snap = header();

	snap.sort = spec_of("dso,sym");
	snap.samples = 15760;
	snap.period = 3940000000;
	snap.kernel_period = 490000000;
	snap.nr_entries = 3;
	snap.nr_rows = ARRAY_SIZE(rows_std);
	snap.rows = rows_std;
	return snap;
}

/* Write text to a file and run a python3 check over it, given as the body
 * of a script where `d` is the parsed JSON object.  Returns its status. */
static int python_check(const char *json, const char *body)
{
	char *dir = testutil_tmpdir("check_output");
	char *jpath = xasprintf("%s/line.json", dir);
	char *ppath = xasprintf("%s/check.py", dir);
	FILE *f;
	int st;

	f = fopen(jpath, "w");
	ck_assert_ptr_nonnull(f);
	fputs(json, f);
	fclose(f);
	f = fopen(ppath, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"import json, sys\n"
		"text = open(sys.argv[1]).read()\n"
		"assert text.endswith('\\n') and text.count('\\n') == 1, 'one line'\n"
		"d = json.loads(text)\n"
		"%s\n",
		body);
	fclose(f);
	st = testutil_sh("python3 '%s' '%s'", ppath, jpath);
	testutil_sh("rm -rf '%s'", dir);
	free(jpath);
	free(ppath);
	free(dir);
	return st;
}

START_TEST(test_json_valid)
{
	struct snapshot snap = std_snapshot();
	char *out = render(output_json, &snap);

	ck_assert_int_eq(python_check(out, ""), 0);
	free(out);
}
END_TEST

START_TEST(test_json_keys)
{
	struct snapshot snap = std_snapshot();
	char *out = render(output_json, &snap);
	const char *p;

	/* the contract scripts rely on, in this order */
	ck_assert_int_eq(
		python_check(
			out,
			"assert list(d) == ['time','event','event_note','sample_freq','target',"
			"'samples','total_samples','lost','throttled','period','kernel_period',"
			"'mode','threads','processes','sort','rows'], list(d)\n"
			"assert d['time'] == 2.0 and d['event'] == 'cpu-clock'\n"
			"assert d['event_note'] == 'cycles not supported: using cpu-clock'\n"
			"assert d['sample_freq'] == 4000 and d['target'] == 'system-wide'\n"
			"assert d['samples'] == 15760 and d['total_samples'] == 15873\n"
			"assert d['lost'] == 0 and d['throttled'] == 0\n"
			"assert d['period'] == 3940000000 and d['kernel_period'] == 490000000\n"
			"assert d['mode'] == 'decay' and d['sort'] == ['dso','sym']\n"
			"r = d['rows']\n"
			"assert [x['symbol'] for x in r] == ['leaf_a','memcpy','native_safe_halt']\n"
			"assert list(r[0]) == ['self','samples','period','comm','pid','dso','dso_path','symbol','kernel'], list(r[0])\n"
			"assert list(r[1]) == ['self','samples','period','dso','dso_path','symbol','kernel'], list(r[1])\n"
			"assert r[0]['self'] == 46.3 and r[0]['samples'] == 7300 and r[0]['pid'] == 1234\n"
			"assert r[0]['comm'] == 'wl' and r[0]['dso_path'] == '/tmp/wl' and r[0]['kernel'] is False\n"
			"assert r[1]['self'] == 41.25 and r[2]['kernel'] is True\n"),
		0);

	/* and by plain string search, as a shell script would */
	ck_assert_ptr_nonnull(
		strstr(out, "{\"time\":2.000,\"event\":\"cpu-clock\",\"event_note\":"));
	ck_assert_ptr_nonnull(strstr(out, "\"sample_freq\":4000,\"target\":\"system-wide\""));
	ck_assert_ptr_nonnull(strstr(out, "\"sort\":[\"dso\",\"sym\"],\"rows\":[{\"self\":46.30,"));
	ck_assert_ptr_nonnull(strstr(out, "\"symbol\":\"native_safe_halt\",\"kernel\":true}]}\n"));
	ck_assert_ptr_null(strstr(out, "sample_period"));
	ck_assert_ptr_null(strstr(out, "\"tid\""));
	ck_assert_ptr_null(strstr(out, "\"cpu\""));
	p = strchr(out, '\n');
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p[1], '\0');
	free(out);
}
END_TEST

/* -c PERIOD and no note: sample_period instead of sample_freq, no note. */
START_TEST(test_json_period)
{
	struct snapshot snap = std_snapshot();
	char *out;

	snap.freq = false;
	snap.sample_period = 100000;
	snap.event_note = NULL;
	snap.event = "cycles";
	snap.mode = "zero";
	out = render(output_json, &snap);
	ck_assert_int_eq(
		python_check(out,
			     "assert 'event_note' not in d and 'sample_freq' not in d\n"
			     "assert d['sample_period'] == 100000 and d['mode'] == 'zero'\n"
			     "assert list(d)[:4] == ['time','event','sample_period','target']\n"),
		0);
	ck_assert_ptr_nonnull(strstr(out, "\"event\":\"cycles\",\"sample_period\":100000,"));
	free(out);
}
END_TEST

START_TEST(test_json_empty)
{
	struct snapshot snap = header();
	char *out;

	snap.sort = spec_of("comm,pid,tid,cpu");
	out = render(output_json, &snap);
	ck_assert_int_eq(
		python_check(out,
			     "assert d['rows'] == [] and d['sort'] == ['comm','pid','tid','cpu']\n"
			     "assert d['samples'] == 0 and d['period'] == 0\n"),
		0);
	ck_assert_ptr_nonnull(strstr(out, "\"rows\":[]}\n"));
	free(out);
}
END_TEST

/* Names come from the traced programs: quotes, backslashes and control
 * characters must come out as valid JSON and decode to the same bytes. */
START_TEST(test_json_escaping)
{
	struct snapshot_row row = {
		.self = 100,
		.samples = 1,
		.period = 1,
		.comm = "we\"ird\\ \n\t\x01",
		.has_pid = true,
		.pid = 1,
		.has_tid = true,
		.tid = 2,
		.has_cpu = true,
		.cpu = 3,
		.has_dso = true,
		.dso = "a\"b",
		.dso_path = "/x/a\"b\x1f",
		.has_sym = true,
		.symbol = "operator\"\"_x<\x7f>",
	};
	struct snapshot snap = header();
	char *out;

	snap.sort = spec_of("comm,pid,tid,cpu,dso,sym");
	snap.target = "command ./a \"b\"";
	snap.rows = &row;
	snap.nr_rows = 1;
	snap.nr_entries = 1;
	out = render(output_json, &snap);
	ck_assert_int_eq(
		python_check(
			out,
			"r = d['rows'][0]\n"
			"assert r['comm'] == 'we\"ird\\\\ \\n\\t\\x01', repr(r['comm'])\n"
			"assert r['dso'] == 'a\"b' and r['dso_path'] == '/x/a\"b\\x1f'\n"
			"assert r['symbol'] == 'operator\"\"_x<\\x7f>', repr(r['symbol'])\n"
			"assert d['target'] == 'command ./a \"b\"'\n"
			"assert (r['pid'], r['tid'], r['cpu']) == (1, 2, 3)\n"
			"assert list(r) == ['self','samples','period','comm','pid','tid','cpu','dso','dso_path','symbol','kernel']\n"),
		0);
	ck_assert_ptr_nonnull(strstr(out, "\"comm\":\"we\\\"ird\\\\ \\n\\t\\u0001\""));
	free(out);
}
END_TEST

/* The TUI sets LC_ALL from the environment; a decimal comma must not leak
 * into JSON or the table.  Needs a comma locale: compiled on the fly. */
START_TEST(test_json_locale)
{
	char *dir = testutil_tmpdir("check_output_locale");
	struct snapshot snap = std_snapshot();
	char *out, *old;

	/* localedef may warn (non-zero) yet produce a usable locale */
	testutil_sh("localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1", dir);
	if (testutil_sh("test -e '%s/de_DE.UTF-8/LC_NUMERIC'", dir) != 0) {
		fprintf(stderr, "SKIP: no de_DE locale could be built\n");
		goto out;
	}
	setenv("LOCPATH", dir, 1);
	old = setlocale(LC_NUMERIC, "de_DE.UTF-8");
	if (!old) {
		fprintf(stderr, "SKIP: de_DE.UTF-8 locale not usable\n");
		unsetenv("LOCPATH");
		goto out;
	}
	{
		char probe[16];

		snprintf(probe, sizeof(probe), "%.1f", 1.5);
		ck_assert_str_eq(probe, "1,5");
	}
	out = render(output_json, &snap);
	setlocale(LC_NUMERIC, "C");
	unsetenv("LOCPATH");
	ck_assert_int_eq(python_check(out, "assert d['rows'][0]['self'] == 46.3\n"), 0);
	free(out);
	setlocale(LC_NUMERIC, "de_DE.UTF-8");
	out = render(output_text, &snap);
	setlocale(LC_NUMERIC, "C");
	ck_assert_ptr_nonnull(strstr(out, "46.30%"));
	ck_assert_ptr_nonnull(strstr(out, "kernel: 12.4%"));
	free(out);
out:
	testutil_sh("rm -rf '%s'", dir);
	free(dir);
}
END_TEST

START_TEST(test_text_header)
{
	struct snapshot snap = std_snapshot();
	char *out = render(output_text, &snap);

	static const char expect[] =
		"proftop: 2.0s  event cpu-clock (cycles not supported: using cpu-clock)"
		"  4000 Hz  system-wide\n"
		"samples: 15873 (7936/s)  lost: 0  throttled: 0  kernel: 12.4%  mode: decay\n"
		"\n";

	ck_assert_msg(!strncmp(out, expect, strlen(expect)), "%s", out);
	free(out);

	snap.freq = false;
	snap.sample_period = 250000;
	snap.event_note = NULL;
	snap.lost = 17;
	snap.throttled = 2;
	out = render(output_text, &snap);
	ck_assert_ptr_nonnull(
		strstr(out, "proftop: 2.0s  event cpu-clock  period 250000  system-wide\n"));
	ck_assert_ptr_nonnull(strstr(out, "lost: 17  throttled: 2"));
	free(out);
}
END_TEST

/* The unwind line: DWARF outcomes as shares (and lost samples' cause);
 * frame-pointer chains only when few reach a root, with the hint; JSON's
 * unwind object in both cases. */
START_TEST(test_unwind_header)
{
	struct snapshot snap = std_snapshot();
	char *out;
	int i;

	/* The engine names the outcomes in the snapshot (ingest_publish). */
	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++) {
		snap.unwind_name[i] = unwind_outcome_name((enum unwind_outcome)i);
		snap.unwind_key[i] = unwind_outcome_key((enum unwind_outcome)i);
	}
	snap.unwind_walks = 200;
	snap.unwind[0] = 150; /* root */
	snap.unwind[1] = 40;  /* no CFI */
	snap.unwind[2] = 10;  /* stack end */
	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "mode: decay\nunwind: dwarf 200 chains  root 75.0%  no CFI 20.0%"
				  "  stack end 5.0%\n\n"),
		      "%s", out);
	free(out);
	snap.lost = 3;
	out = render(output_text, &snap);
	ck_assert_ptr_nonnull(strstr(out, "stack end 5.0%  (samples lost: rings too small"));
	free(out);
	out = render(output_json, &snap);
	ck_assert_msg(strstr(out, "\"unwind\":{\"method\":\"dwarf\",\"chains\":200,\"root\":150,"
				  "\"no_cfi\":40,\"stack_end\":10,\"memory\":0,"),
		      "%s", out);
	free(out);

	snap.lost = 0;
	snap.unwind_fp = true;
	snap.unwind[1] = snap.unwind[2] = 0;
	out = render(output_text, &snap); /* 75% reach a root: quiet */
	ck_assert_ptr_null(strstr(out, "unwind:"));
	free(out);
	out = render(output_json, &snap);
	ck_assert_ptr_nonnull(strstr(out, "\"unwind\":{\"method\":\"fp\",\"chains\":200,"
					  "\"root\":150,\"hint\":null}"));
	free(out);
	snap.unwind[0] = 100;
	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "\nunwind: fp 200 chains  root 50.0%: code without frame "
				  "pointers? try --call-graph dwarf\n"),
		      "%s", out);
	free(out);
	snap.unwind_walks = 50; /* too few to say */
	snap.unwind[0] = 10;
	out = render(output_text, &snap);
	ck_assert_ptr_null(strstr(out, "unwind:"));
	free(out);
}
END_TEST

/* Live --call-graph dwarf: the rings line when samples were lost or the
 * rings hold too few stack copies, with an -m that would do (a power of
 * 2); none for a recording (no ring size) or roomy rings. */
START_TEST(test_rings_line)
{
	struct snapshot snap = std_snapshot();
	size_t kib = (size_t)sysconf(_SC_PAGESIZE) / 1024;
	char want[160], *out;
	int i;

	for (i = 0; i < SNAPSHOT_UNWIND_OUTCOMES; i++) {
		snap.unwind_name[i] = unwind_outcome_name((enum unwind_outcome)i);
		snap.unwind_key[i] = unwind_outcome_key((enum unwind_outcome)i);
	}
	snap.unwind_walks = 200;
	snap.unwind[0] = 200;
	snap.total_samples = 300;
	snap.stack_copy = 8192;
	snap.ring_pages = 512;
	out = render(output_text, &snap); /* 2 MiB, nothing lost: quiet */
	ck_assert_msg(!strstr(out, "rings:"), "%s", out);
	free(out);
	snap.lost = 300; /* half lost: twice the pages, twice again */
	out = render(output_text, &snap);
	snprintf(want, sizeof(want),
		 "root 100.0%%\nrings: %zu KiB per CPU, too small for 8 KiB stack copies at "
		 "this rate: -m 2048\n\n", 512 * kib);
	ck_assert_msg(strstr(out, want), "%s", out);
	ck_assert_msg(!strstr(out, "(samples lost"), "%s", out);
	free(out);
	/* JSON says the same: the key, and none when the rings are roomy. */
	out = render(output_json, &snap);
	snprintf(want, sizeof(want),
		 ",\"rings_too_small\":{\"kib_per_cpu\":%zu,\"stack_copy\":8192,"
		 "\"suggest_mmap_pages\":2048}", 512 * kib);
	ck_assert_msg(strstr(out, want), "%s", out);
	free(out);
	snap.lost = 0;
	out = render(output_json, &snap);
	ck_assert_msg(!strstr(out, "rings_too_small"), "%s", out);
	free(out);
	snap.ring_pages = 4; /* fewer than 8 copies: said before any loss */
	snap.stack_copy = 4000;
	out = render(output_text, &snap);
	snprintf(want, sizeof(want),
		 "rings: %zu KiB per CPU, too small for 4000-byte stack copies at this rate: -m %d\n",
		 4 * kib, kib == 4 ? 16 : 4);
	ck_assert_msg(strstr(out, want), "%s", out);
	free(out);
	snap.ring_pages = 0; /* a recording: the old hint, no rings line */
	snap.lost = 3;
	out = render(output_text, &snap);
	ck_assert_msg(!strstr(out, "rings:") && strstr(out, "(samples lost: rings too small"),
		      "%s", out);
	free(out);
}
END_TEST

START_TEST(test_text_rows)
{
	struct snapshot snap = std_snapshot();
	char *out = render(output_text, &snap);
	const char *hdr, *r1, *r2, *r3;
	size_t len = strlen(out);

	hdr = strstr(out, "Overhead  Samples  Shared Object      Symbol\n");
	ck_assert_msg(hdr != NULL, "%s", out);
	r1 = strstr(out, "  46.30%     7300  wl                 [.] leaf_a\n");
	r2 = strstr(out, "  41.25%     6500  libc.so.6          [.] memcpy\n");
	r3 = strstr(out, "  12.45%     1960  [kernel.kallsyms]  [k] native_safe_halt\n");
	ck_assert_msg(r1 && r2 && r3, "%s", out);
	ck_assert(hdr < r1 && r1 < r2 && r2 < r3);
	/* each snapshot ends with a blank line */
	ck_assert(len > 2 && out[len - 1] == '\n' && out[len - 2] == '\n');
	ck_assert_ptr_null(strstr(out, " \n"));
	free(out);
}
END_TEST

/* Columns follow the sort keys, numbers right-aligned. */
START_TEST(test_text_columns)
{
	struct snapshot_row rows[] = {
		{ .self = 100.0 / 3,
		  .samples = 12345,
		  .period = 1,
		  .comm = "postgres",
		  .has_pid = true,
		  .pid = 31337,
		  .has_tid = true,
		  .tid = 31340,
		  .has_cpu = true,
		  .cpu = 12 },
		{ .self = 5,
		  .samples = 7,
		  .period = 1,
		  .comm = NULL,
		  .has_pid = true,
		  .pid = 1,
		  .has_tid = true,
		  .tid = 1,
		  .has_cpu = true,
		  .cpu = 0 },
	};
	struct snapshot snap = header();
	char *out;

	snap.sort = spec_of("comm,pid,tid,cpu");
	snap.rows = rows;
	snap.nr_rows = 2;
	snap.nr_entries = 2;
	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "\nOverhead  Samples  Command     Pid    Tid  Cpu\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n  33.33%    12345  postgres  31337  31340   12\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n   5.00%        7  -             1      1    0\n"), "%s", out);
	free(out);
}
END_TEST

/* -s sym,srcline --inline: a Source:Line column, " (inlined)" after an
 * inlined symbol (rows and tree nodes, as perf prints them), and in JSON
 * "srcline" and "inlined" fields. */
START_TEST(test_srcline_inline)
{
	struct snapshot_node callers[2] = {
		{ .symbol = "hot", .dso = "fix", .inlined = true, .period = 10, .share = 100,
		  .share_entry = 100, .depth = 0, .children = &callers[1], .nr_children = 1 },
		{ .symbol = "outer", .dso = "fix", .period = 10, .share = 100, .share_entry = 100,
		  .depth = 1 },
	};
	struct snapshot_row rows[] = {
		{ .self = 60, .samples = 6, .period = 6, .has_sym = true, .symbol = "hot",
		  .inlined = true, .has_srcline = true, .srcline = "fix.c:14",
		  .callers = callers },
		{ .self = 40, .samples = 4, .period = 4, .has_sym = true, .symbol = "outer",
		  .has_srcline = true, .srcline = "outer+12" },
	};
	struct snapshot snap = header();
	char *out;

	snap.sort = spec_of("sym,srcline");
	snap.rows = rows;
	snap.nr_rows = 2;
	snap.nr_entries = 2;
	snap.callchains = true;
	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "\nOverhead  Samples  Symbol             Source:Line\n"), "%s",
		      out);
	ck_assert_msg(strstr(out, "\n  60.00%        6  [.] hot (inlined)  fix.c:14\n"), "%s", out);
	ck_assert_msg(strstr(out, "\n  40.00%        4  [.] outer          outer+12\n"), "%s", out);
	ck_assert_msg(strstr(out, "---hot (inlined)\n"), "%s", out);
	free(out);
	out = render(output_json, &snap);
	ck_assert_int_eq(python_check(out, "r = d['rows']\n"
					   "assert d['sort'] == ['sym','srcline']\n"
					   "assert r[0]['symbol'] == 'hot' and r[0]['inlined'] is True\n"
					   "assert r[0]['srcline'] == 'fix.c:14'\n"
					   "assert 'inlined' not in r[1] and r[1]['srcline'] == 'outer+12'\n"
					   "c = r[0]['callers']\n"
					   "assert c[0]['symbol'] == 'outer' and 'inlined' not in c[0]\n"),
			 0);
	free(out);
}
END_TEST

START_TEST(test_text_empty)
{
	struct snapshot snap = header();
	char *out;

	snap.sort = spec_of("dso,sym");
	out = render(output_text, &snap);
	ck_assert_ptr_nonnull(strstr(out, "\n\nno samples yet\n\n"));
	ck_assert_ptr_null(strstr(out, "Overhead"));
	free(out);

	/* entries exist but all are filtered: say that instead */
	snap.nr_entries = 4;
	out = render(output_text, &snap);
	ck_assert_ptr_nonnull(strstr(out, "all 4 entries are filtered out"));
	free(out);
}
END_TEST

/* Long DSO names are cut in the middle; control characters never reach
 * the terminal. */
START_TEST(test_text_names)
{
	struct snapshot_row row = {
		.self = 100,
		.samples = 1,
		.period = 1,
		.has_dso = true,
		.dso = "libverylongname-0123456789-abcdefghijklmnopqrstuvwxyz.so.1.2.3",
		.dso_path = "/x",
		.has_sym = true,
		.symbol = "evil\nname\x1b[2J",
	};
	struct snapshot snap = header();
	char *out;
	const char *p, *nl;

	snap.sort = spec_of("dso,sym");
	snap.rows = &row;
	snap.nr_rows = 1;
	out = render(output_text, &snap);
	p = strstr(out, "  libverylongname-");
	ck_assert_msg(p != NULL, "%s", out);
	p += 2;
	nl = strstr(p, "  [.] ");
	ck_assert_ptr_nonnull(nl);
	ck_assert_int_eq(nl - p, 40);
	ck_assert(!memcmp(p, "libverylongname-0123", 18));
	ck_assert_ptr_nonnull(memmem(p, 40, "...", 3));
	ck_assert(!memcmp(p + 40 - 6, ".1.2.3", 6));
	ck_assert_ptr_nonnull(strstr(out, "[.] evil?name?[2J\n"));
	ck_assert_ptr_null(strchr(out, '\x1b'));
	free(out);
}
END_TEST

/* From samples to text and JSON through the real hist and view. */
START_TEST(test_pipeline)
{
	struct machine *m = machine_new();
	struct dso *wl = machine_dso_get(m, "/tmp/wl", DSO_USER);
	struct symbol a = { 0x10, 0x20, "leaf_a" }, b = { 0x20, 0x30, "leaf_b" };
	struct sort_spec spec = spec_of("dso,sym");
	struct hist *h = hist_new(&spec);
	struct snapshot snap = header();
	struct hist_sample s = {
		.comm = intern("wl"), .pid = 42, .tid = 42, .dso = wl, .period = 250000
	};
	char *out;
	int i;

	for (i = 0; i < 30; i++) {
		s.sym = i % 3 ? &a : &b;
		hist_add(h, &s);
	}
	s.sym = NULL;
	s.dso = NULL;
	s.kernel = true;
	hist_add(h, &s);
	view_build(h, NULL, &snap);
	out = render(output_json, &snap);
	ck_assert_int_eq(
		python_check(
			out,
			"r = d['rows']\n"
			"assert [x['symbol'] for x in r] == ['leaf_a','leaf_b','[unknown]']\n"
			"assert r[0]['samples'] == 20 and r[0]['comm'] == 'wl' and r[0]['pid'] == 42\n"
			"assert r[0]['dso'] == 'wl' and r[0]['dso_path'] == '/tmp/wl'\n"
			"assert r[2]['dso'] == '[unknown]' and r[2]['kernel'] is True\n"
			"assert abs(sum(x['self'] for x in r) - 100) < 0.02\n"
			"assert d['samples'] == 31 and d['period'] == 31 * 250000\n"),
		0);
	free(out);
	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "  64.52%       20  wl             [.] leaf_a\n"), "%s", out);
	ck_assert_msg(strstr(out, "   3.23%        1  [unknown]      [k] [unknown]\n"), "%s", out);
	free(out);
	snapshot_release(&snap);
	hist_free(h);
	machine_free(m);
}
END_TEST

/* ---- payload columns: a second decoder ---- */

/* A decoder of nothing real, with one count column: what the view and the
 * renderers need from any decoder, with no hook but the required ones. */
struct fake_stats {
	uint64_t samples, other, hits;
};

static void fake_add(void *stats, const void *decoded)
{
	struct fake_stats *st = stats;

	st->samples++;
	st->hits += *(const unsigned *)decoded;
}

static void fake_add_other(void *stats)
{
	((struct fake_stats *)stats)->other++;
}

static void fake_merge(void *dst, const void *src)
{
	struct fake_stats *d = dst;
	const struct fake_stats *s = src;

	d->samples += s->samples;
	d->other += s->other;
	d->hits += s->hits;
}

static void fake_decay(void *stats, unsigned num, unsigned den)
{
	struct fake_stats *st = stats;

	st->samples = st->samples * num / den;
	st->hits = st->hits * num / den;
}

static uint64_t fake_samples(const void *stats)
{
	return ((const struct fake_stats *)stats)->samples;
}

static double fake_value(const void *stats, const void *total, size_t col)
{
	return (double)((const struct fake_stats *)stats)->hits;
}

static const struct payload_column fake_columns[] = {
	{ "Hits", "hits", PAYLOAD_COUNT, 0, 1, "hits" },
};

static const struct payload_ops fake_payload = {
	.name = "fake",
	.title = "Fake",
	.stats_size = sizeof(struct fake_stats),
	.stats_add = fake_add,
	.stats_add_other = fake_add_other,
	.stats_merge = fake_merge,
	.stats_decay = fake_decay,
	.stats_samples = fake_samples,
	.columns = fake_columns,
	.nr_columns = 1,
	.column_value = fake_value,
};

START_TEST(test_payload_generic)
{
	struct machine *m = machine_new();
	struct dso *wl = machine_dso_get(m, "/tmp/wl", DSO_USER);
	struct symbol a = { 0x10, 0x20, "leaf_a" }, b = { 0x20, 0x30, "leaf_b" };
	struct sort_spec spec = spec_of("dso,sym");
	struct hist *h = hist_new(&spec);
	struct snapshot snap = header();
	struct view_opts opts = { .order = "hits" };
	struct hist_sample s = {
		.comm = intern("wl"), .pid = 42, .tid = 42, .dso = wl, .period = 1000
	};
	enum column_id cols[COLUMN__MAX];
	unsigned one = 1, five = 5;
	char *out;
	int i;

	hist_enable_payload(h, &fake_payload);
	/* leaf_a: 3 samples, 3 hits; leaf_b: 2 samples, 10 hits, and one
	 * sample whose payload was not the decoder's. */
	s.sym = &a;
	for (i = 0; i < 3; i++)
		hist_add_payload(h, &s, &one);
	s.sym = &b;
	for (i = 0; i < 2; i++)
		hist_add_payload(h, &s, &five);
	hist_add_payload(h, &s, NULL);
	view_build(h, &opts, &snap);
	ck_assert_ptr_eq(snap.payload, &fake_payload);
	ck_assert_uint_eq(snap.payload_samples, 5);
	ck_assert_uint_eq(snap.payload_other, 1);
	/* --order hits: leaf_b (10) before leaf_a (3), though colder */
	ck_assert_str_eq(snap.rows[0].symbol, "leaf_b");
	ck_assert_uint_eq(column_list(&snap, true, cols), 5);
	ck_assert_int_eq(cols[2], COLUMN_PAYLOAD);
	ck_assert_str_eq(column_title(&snap, cols[2]), "Hits");
	ck_assert_int_eq(column_of_order(&snap), COLUMN_PAYLOAD);

	out = render(output_text, &snap);
	ck_assert_msg(strstr(out, "  Fake: 5  not Fake: 1  order: hits"), "%s", out);
	ck_assert_msg(strstr(out, "Overhead  Samples  Hits  Shared Object  Symbol\n"), "%s", out);
	ck_assert_msg(strstr(out, "  50.00%        3    10  wl             [.] leaf_b\n"), "%s",
		      out);
	ck_assert_msg(strstr(out, "  50.00%        3     3  wl             [.] leaf_a\n"), "%s",
		      out);
	/* no detail hook: the pane is the row's line alone */
	ck_assert_msg(strstr(out, "\nFake: [.] leaf_b  wl\n\n"), "%s", out);
	free(out);
	out = render(output_json, &snap);
	ck_assert_int_eq(python_check(out, "assert d['fake_samples'] == 5 and d['not_fake'] == 1\n"
					   "assert d['fake'] == {'samples': 5, 'hits': 13}\n"
					   "r = d['rows']\n"
					   "assert r[0]['fake'] == {'samples': 2, 'hits': 10}\n"
					   "assert r[1]['fake'] == {'samples': 3, 'hits': 3}\n"
					   "assert d['order'] == 'hits'\n"),
			 0);
	free(out);
	snapshot_release(&snap);
	hist_free(h);
	machine_free(m);
}
END_TEST

/* The batch table's titles are the column table's, in its order. */
START_TEST(test_text_titles)
{
	struct snapshot snap = std_snapshot();
	enum column_id cols[COLUMN__MAX];
	size_t n = column_list(&snap, true, cols), k;
	char *out = render(output_text, &snap);
	const char *p = strstr(out, column_title(&snap, cols[0]));

	ck_assert_ptr_nonnull(p);
	for (k = 1; k < n; k++) {
		const char *q = strstr(p, column_title(&snap, cols[k]));

		ck_assert_msg(q && q > p && !memchr(p, '\n', (size_t)(q - p)), "title %zu: %s", k,
			      out);
		p = q;
	}
	free(out);
}
END_TEST

/* ---- Alpha ProfileMe ---- */

/* Two rows with ProfileMe stats: a (3 samples, one of each trap kind
 * below) and b (none: a row of the table with no ProfileMe sample). */
static struct profileme_stats pm_a, pm_b, pm_total;

static struct snapshot pm_snapshot(void)
{
	struct snapshot snap = std_snapshot();
	static struct snapshot_row rows[2];
	struct profileme pm;

	memset(&pm_a, 0, sizeof(pm_a));
	memset(&pm_b, 0, sizeof(pm_b));
	/* retired, taken, SL1 1, PCTR1 12, PCTR0 3 */
	profileme_from_regs(1, 0x120001000, 0, 3ULL << 28 | 12 << 6 | 1 << 2 | 3, &pm);
	profileme_stats_add(&pm_a, &pm);
	/* TRP + DTB single miss, ICM, LSO; in the kernel */
	profileme_from_regs(1, 0xfffffc0000310000ULL, 1ULL << 39 | 6ULL << 34 | 1ULL << 33 | 1ULL << 38,
			    1 << 2, &pm);
	profileme_stats_add(&pm_a, &pm);
	/* PAL redirect: ITB miss; killed, stalled, mispredict stale */
	profileme_from_regs(1, 0x581, 1ULL << 39 | 1ULL << 40, 1ULL << 26 | 1ULL << 27, &pm);
	profileme_stats_add(&pm_a, &pm);
	profileme_stats_add_other(&pm_b);
	rows[0] = rows_std[0];
	rows[0].payload = &pm_a;
	rows[1] = rows_std[1];
	rows[1].payload = &pm_b;
	snap.rows = rows;
	snap.nr_rows = 2;
	snap.payload = &profileme_payload;
	snap.payload_rows = true;
	snap.payload_samples = 3;
	snap.payload_other = 1;
	pm_total = pm_a;
	profileme_stats_merge(&pm_total, &pm_b);
	snap.payload_total = &pm_total;
	return snap;
}

START_TEST(test_json_profileme)
{
	struct snapshot snap = pm_snapshot();
	char *out = render(output_json, &snap);

	ck_assert_int_eq(
		python_check(out,
			     "assert d['profileme_samples'] == 3 and d['not_profileme'] == 1\n"
			     "a, b = d['rows'][0]['profileme'], d['rows'][1]['profileme']\n"
			     "want = {'samples': 3, 'retired': 1, 'taken': 1, 'killed': 1,\n"
			     "        'stalled': 1, 'mispredicted': 0, 'icache_miss': 1,\n"
			     "        'ldst_order': 1, 'pctr0_sum': 3, 'not_profileme': 0}\n"
			     "for k, v in want.items(): assert a[k] == v, (k, a[k], v)\n"
			     "assert a['pctr1_sum'] == {'cycles': 0, 'retire delay': 12,\n"
			     "    'bcache misses': 0, 'mbox replays': 0}, a['pctr1_sum']\n"
			     "assert a['modes'] == {'user': 1, 'kernel': 1, 'PAL': 1}\n"
			     "names = ['none', 'replay', 'DTB double miss (3 level)',\n"
			     "  'DTB double miss (4 level)', 'FP disabled', 'unaligned',\n"
			     "  'DTB single miss', 'Dstream fault', 'OPCDEC', 'machine check',\n"
			     "  'arithmetic', 'MT_FPCR', 'reset', 'Istream access violation',\n"
			     "  'ITB miss', 'interrupt', 'other (see PMPC)']\n"
			     "assert list(a['traps']) == names, list(a['traps'])\n"
			     "assert a['traps']['none'] == 1 and a['traps']['DTB single miss'] == 1\n"
			     "assert a['traps']['ITB miss'] == 1 and sum(a['traps'].values()) == 3\n"
			     "assert b['samples'] == 0 and b['not_profileme'] == 1\n"
			     "t = d['profileme']\n"
			     "for k in want: assert t[k] == a[k] + b[k], k\n"
			     "assert d['profileme_pctr1'] == 'retire delay'\n"),
		0);
	free(out);
	/* Without ProfileMe data: none of it. */
	snap = std_snapshot();
	out = render(output_json, &snap);
	ck_assert_ptr_null(strstr(out, "profileme"));
	free(out);
}
END_TEST

START_TEST(test_text_profileme)
{
	struct snapshot snap = pm_snapshot();
	char *out = render(output_text, &snap);

	ck_assert_ptr_nonnull(strstr(out, "ProfileMe: 3  not ProfileMe: 1"));
	ck_assert_ptr_nonnull(strstr(out, "Samples  Retired  Killed  Stalled  Mispred  Traps  "
					  "Trap             ICmiss   LdSt  RetDly  Shared Object"));
	/* a: 1 of 3 retired; traps 2 of 3 (DTB single miss first on a tie);
	 * RetDly: (12 + 0) / 2 samples with SL1 1 */
	ck_assert_ptr_nonnull(strstr(out, "   33.3%   33.3%    33.3%     0.0%  66.7%  "
					  "DTB single miss   33.3%  33.3%     6.0  wl"));
	/* b: no ProfileMe sample */
	ck_assert_ptr_nonnull(strstr(out, "        -       -        -        -      -  "
					  "-                     -      -       -  libc.so.6"));
	/* the first row's breakdown */
	ck_assert_ptr_nonnull(strstr(out, "\nProfileMe: [.] leaf_a  wl\n"
					  "  samples 3: user 1  kernel 1  PAL 1  not ProfileMe 0\n"));
	ck_assert_ptr_nonnull(strstr(out, "  traps: none 1  replay 0"));
	ck_assert_ptr_nonnull(strstr(out, "ITB miss 1"));
	ck_assert_ptr_nonnull(strstr(out, "PCTR1 mean: cycles 0.0 (1)  retire delay 6.0 (2)  bcache misses -"));
	free(out);
	snap = std_snapshot();
	out = render(output_text, &snap);
	ck_assert_ptr_null(strstr(out, "Retired"));
	ck_assert_ptr_null(strstr(out, "ProfileMe"));
	free(out);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("output");
	TCase *tc;

	tc = tcase_create("json");
	tcase_add_test(tc, test_json_valid);
	tcase_add_test(tc, test_unwind_header);
	tcase_add_test(tc, test_rings_line);
	tcase_add_test(tc, test_json_profileme);
	tcase_add_test(tc, test_json_keys);
	tcase_add_test(tc, test_json_period);
	tcase_add_test(tc, test_json_empty);
	tcase_add_test(tc, test_json_escaping);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("locale");
	tcase_add_test(tc, test_json_locale);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_test(tc, test_text_header);
	tcase_add_test(tc, test_text_titles);
	tcase_add_test(tc, test_text_profileme);
	tcase_add_test(tc, test_text_rows);
	tcase_add_test(tc, test_text_columns);
	tcase_add_test(tc, test_text_empty);
	tcase_add_test(tc, test_text_names);
	tcase_add_test(tc, test_srcline_inline);
	/* test_srcline_inline runs python3: seconds on a loaded machine. */
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tc = tcase_create("pipeline");
	tcase_add_test(tc, test_pipeline);
	tcase_add_test(tc, test_payload_generic);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
