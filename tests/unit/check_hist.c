/* Unit tests for the hist: sort spec parsing, grouping per key set, totals,
 * decay/zero/accumulate, growth to many entries, uniform comm/pid. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "errmsg.h"
#include "hist.h"
#include "machine.h"
#include "symtab.h"
#include "testutil.h"
#include "util.h"
#include "walltime.h"

static struct sort_spec spec_of(const char *s)
{
	struct sort_spec spec;
	struct errmsg bad = ERRMSG_INIT;

	ck_assert_int_eq(sort_spec_parse(s, &spec, &bad), 0);
	return spec;
}

static struct hist_sample sample(const char *comm, uint32_t pid, uint32_t tid, uint32_t cpu,
				 struct dso *dso, const struct symbol *sym, bool kernel,
				 uint64_t period)
{
	struct hist_sample s = {
		.comm = comm ? intern(comm) : NULL,
		.pid = pid,
		.tid = tid,
		.cpu = cpu,
		.dso = dso,
		.sym = sym,
		.kernel = kernel,
		.period = period,
	};

	return s;
}

/* The entry with this sym (sym must be a key), or NULL. */
static const struct hist_entry *find_sym(const struct hist *h, const struct symbol *sym,
					 const char *comm)
{
	size_t i;

	for (i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_entry_at(h, i);

		if (e->sym == sym && (!comm || e->comm == intern(comm)))
			return e;
	}
	return NULL;
}

START_TEST(test_spec_good)
{
	struct sort_spec spec;
	struct errmsg bad = ERRMSG_INIT;

	ck_assert_int_eq(sort_spec_parse("dso,sym", &spec, &bad), 0);
	ck_assert_uint_eq(spec.n, 2);
	ck_assert_int_eq(spec.keys[0], SORT_DSO);
	ck_assert_int_eq(spec.keys[1], SORT_SYM);
	ck_assert(sort_spec_has(&spec, SORT_SYM));
	ck_assert(!sort_spec_has(&spec, SORT_COMM));

	ck_assert_int_eq(sort_spec_parse("sym,cpu,tid,pid,comm,dso", &spec, &bad), 0);
	ck_assert_uint_eq(spec.n, 6);
	ck_assert_int_eq(spec.keys[0], SORT_SYM);
	ck_assert_int_eq(spec.keys[1], SORT_CPU);
	ck_assert_int_eq(spec.keys[5], SORT_DSO);

	ck_assert_int_eq(sort_spec_parse(" comm , pid", &spec, &bad), 0);
	ck_assert_uint_eq(spec.n, 2);
	ck_assert_int_eq(spec.keys[0], SORT_COMM);
	ck_assert_int_eq(spec.keys[1], SORT_PID);
}
END_TEST

START_TEST(test_spec_names)
{
	ck_assert_str_eq(sort_key_name(SORT_COMM), "comm");
	ck_assert_str_eq(sort_key_name(SORT_PID), "pid");
	ck_assert_str_eq(sort_key_name(SORT_TID), "tid");
	ck_assert_str_eq(sort_key_name(SORT_CPU), "cpu");
	ck_assert_str_eq(sort_key_name(SORT_DSO), "dso");
	ck_assert_str_eq(sort_key_name(SORT_SYM), "sym");
	ck_assert_str_eq(sort_key_name(SORT_DADDR_DSO), "daddr_dso");
	ck_assert_str_eq(sort_key_name(SORT_DADDR_SYM), "daddr_sym");
}
END_TEST

START_TEST(test_spec_daddr)
{
	struct sort_spec spec = spec_of("sym,daddr_sym");

	ck_assert(sort_spec_has_daddr(&spec));
	ck_assert_int_eq(spec.keys[1], SORT_DADDR_SYM);
	spec = spec_of("daddr_dso");
	ck_assert(sort_spec_has_daddr(&spec));
	spec = spec_of("dso,sym,srcline");
	ck_assert(!sort_spec_has_daddr(&spec));
}
END_TEST

static void check_bad(const char *s, const char *needle)
{
	struct sort_spec spec = { .keys = { SORT_CPU }, .n = 1 };
	struct errmsg bad = ERRMSG_INIT;

	ck_assert_int_eq(sort_spec_parse(s, &spec, &bad), -EINVAL);
	ck_assert_msg(strstr(bad.text, needle), "'%s': message '%s' lacks '%s'", s, bad.text,
		      needle);
	/* the output is left alone on error */
	ck_assert_uint_eq(spec.n, 1);
	ck_assert_int_eq(spec.keys[0], SORT_CPU);
}

START_TEST(test_spec_bad)
{
	check_bad("", "empty");
	check_bad(",", "empty");
	check_bad("dso,", "empty");
	check_bad("dso,,sym", "empty");
	check_bad("foo", "foo");
	check_bad("dso,symbol", "symbol");
	check_bad("DSO", "DSO");
	check_bad("dso,sym,dso", "duplicate");
	check_bad("pid, pid", "pid");
	/* a NULL bad pointer is allowed */
	{
		struct sort_spec spec;

		ck_assert_int_eq(sort_spec_parse("nope", &spec, NULL), -EINVAL);
	}
}
END_TEST

START_TEST(test_group_dso_sym)
{
	struct machine *m = machine_new();
	struct dso *libc = machine_dso_get(m, "/usr/lib/libc.so.6", DSO_USER);
	struct dso *app = machine_dso_get(m, "/usr/bin/app", DSO_USER);
	struct symbol memcpy_sym = { 0x100, 0x200, "memcpy" };
	struct symbol main_sym = { 0x300, 0x400, "main" };
	struct sort_spec spec = spec_of("dso,sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;
	const struct hist_entry *e;

	s = sample("a", 10, 11, 0, libc, &memcpy_sym, false, 100);
	hist_add(h, &s);
	s = sample("b", 20, 21, 1, libc, &memcpy_sym, false, 50);
	hist_add(h, &s);
	s = sample("a", 10, 11, 2, app, &main_sym, false, 7);
	hist_add(h, &s);

	ck_assert_uint_eq(hist_count(h), 2);
	e = find_sym(h, &memcpy_sym, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->period, 150);
	ck_assert_uint_eq(e->samples, 2);
	ck_assert_ptr_eq(e->dso, libc);
	/* fields that are not keys stay zero */
	ck_assert_ptr_null(e->comm);
	ck_assert_uint_eq(e->pid, 0);
	ck_assert_uint_eq(e->tid, 0);
	ck_assert_uint_eq(e->cpu, 0);
	ck_assert_ptr_null(e->only_comm);
	ck_assert(e->mixed_pid);

	e = find_sym(h, &main_sym, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->period, 7);
	ck_assert_str_eq(e->only_comm, "a");
	ck_assert(!e->mixed_pid);
	ck_assert_uint_eq(e->only_pid, 10);

	ck_assert_uint_eq(hist_total_period(h), 157);
	ck_assert_uint_eq(hist_total_samples(h), 3);
	ck_assert_ptr_null(hist_entry_at(h, 2));
	hist_free(h);
	machine_free(m);
}
END_TEST

START_TEST(test_group_comm_dso_sym)
{
	struct machine *m = machine_new();
	struct dso *libc = machine_dso_get(m, "/usr/lib/libc.so.6", DSO_USER);
	struct symbol memcpy_sym = { 0x100, 0x200, "memcpy" };
	struct sort_spec spec = spec_of("comm,dso,sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;
	const struct hist_entry *e;

	s = sample("a", 10, 11, 0, libc, &memcpy_sym, false, 100);
	hist_add(h, &s);
	s = sample("b", 20, 21, 1, libc, &memcpy_sym, false, 50);
	hist_add(h, &s);
	s = sample("a", 12, 13, 1, libc, &memcpy_sym, false, 1);
	hist_add(h, &s);

	ck_assert_uint_eq(hist_count(h), 2);
	e = find_sym(h, &memcpy_sym, "a");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->period, 101);
	ck_assert_uint_eq(e->samples, 2);
	ck_assert_str_eq(e->comm, "a");
	ck_assert_str_eq(e->only_comm, "a");
	ck_assert(e->mixed_pid);
	e = find_sym(h, &memcpy_sym, "b");
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->period, 50);
	ck_assert_uint_eq(hist_total_period(h), 151);
	hist_free(h);
	machine_free(m);
}
END_TEST

/* pid,tid,cpu keys: each distinct triple is one entry, dso/sym ignored. */
START_TEST(test_group_pid_tid_cpu)
{
	struct machine *m = machine_new();
	struct dso *d1 = machine_dso_get(m, "/a", DSO_USER);
	struct dso *d2 = machine_dso_get(m, "/b", DSO_USER);
	struct symbol s1 = { 0, 1, "x" }, s2 = { 1, 2, "y" };
	struct sort_spec spec = spec_of("pid,tid,cpu");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;
	size_t i;

	s = sample("a", 1, 1, 0, d1, &s1, false, 1);
	hist_add(h, &s);
	s = sample("a", 1, 1, 0, d2, &s2, true, 1);
	hist_add(h, &s);
	s = sample("a", 1, 2, 0, d1, &s1, false, 1);
	hist_add(h, &s);
	s = sample("a", 1, 1, 3, d1, &s1, false, 1);
	hist_add(h, &s);
	s = sample("a", 2, 1, 0, d1, &s1, false, 1);
	hist_add(h, &s);
	ck_assert_uint_eq(hist_count(h), 4);
	for (i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_entry_at(h, i);

		ck_assert_ptr_null(e->dso);
		ck_assert_ptr_null(e->sym);
		if (e->pid == 1 && e->tid == 1 && e->cpu == 0) {
			ck_assert_uint_eq(e->samples, 2);
			/* kernel comes from the first sample */
			ck_assert(!e->kernel);
		} else {
			ck_assert_uint_eq(e->samples, 1);
		}
	}
	hist_free(h);
	machine_free(m);
}
END_TEST

/* An unknown dso or symbol (NULL) is a key value like any other. */
START_TEST(test_group_null_keys)
{
	struct sort_spec spec = spec_of("dso,sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;

	s = sample(NULL, 1, 1, 0, NULL, NULL, true, 3);
	hist_add(h, &s);
	s = sample(NULL, 2, 2, 0, NULL, NULL, false, 4);
	hist_add(h, &s);
	ck_assert_uint_eq(hist_count(h), 1);
	ck_assert_uint_eq(hist_entry_at(h, 0)->period, 7);
	ck_assert(hist_entry_at(h, 0)->kernel);
	hist_free(h);
}
END_TEST

START_TEST(test_uniform_comm_pid)
{
	struct symbol sym = { 0, 1, "f" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;
	const struct hist_entry *e;

	s = sample("worker", 42, 43, 0, NULL, &sym, false, 1);
	hist_add(h, &s);
	s = sample("worker", 42, 44, 1, NULL, &sym, false, 1);
	hist_add(h, &s);
	e = hist_entry_at(h, 0);
	ck_assert_str_eq(e->only_comm, "worker");
	ck_assert(!e->mixed_pid);
	ck_assert_uint_eq(e->only_pid, 42);

	s = sample("worker", 7, 7, 1, NULL, &sym, false, 1);
	hist_add(h, &s);
	e = hist_entry_at(h, 0);
	ck_assert_str_eq(e->only_comm, "worker");
	ck_assert(e->mixed_pid);

	s = sample("other", 42, 42, 1, NULL, &sym, false, 1);
	hist_add(h, &s);
	e = hist_entry_at(h, 0);
	ck_assert_ptr_null(e->only_comm);
	/* once mixed, never uniform again */
	s = sample("worker", 42, 42, 1, NULL, &sym, false, 1);
	hist_add(h, &s);
	e = hist_entry_at(h, 0);
	ck_assert_ptr_null(e->only_comm);
	ck_assert(e->mixed_pid);
	hist_free(h);
}
END_TEST

/* A NULL comm (unknown thread) then a known one is mixed, not uniform. */
START_TEST(test_uniform_null_comm)
{
	struct symbol sym = { 0, 1, "f" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;

	s = sample(NULL, 1, 1, 0, NULL, &sym, false, 1);
	hist_add(h, &s);
	ck_assert_ptr_null(hist_entry_at(h, 0)->only_comm);
	s = sample("late", 1, 1, 0, NULL, &sym, false, 1);
	hist_add(h, &s);
	ck_assert_ptr_null(hist_entry_at(h, 0)->only_comm);
	hist_free(h);
}
END_TEST

START_TEST(test_decay)
{
	struct symbol a = { 0, 1, "a" }, b = { 1, 2, "b" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;
	uint64_t pa = 1000, sa = 10, pb = 7, sb = 1;
	const struct hist_entry *e;
	int round, i;

	for (i = 0; i < 10; i++) {
		s = sample("x", 1, 1, 0, NULL, &a, false, 100);
		hist_add(h, &s);
	}
	s = sample("x", 1, 1, 0, NULL, &b, false, 7);
	hist_add(h, &s);

	/* b: 7 6 5 4 3 2 1 0 -- gone after the 7th round */
	for (round = 1; round <= 7; round++) {
		hist_age(h, HIST_DECAY);
		pa = pa * 7 / 8;
		sa = sa * 7 / 8;
		pb = pb * 7 / 8;
		sb = sb * 7 / 8;
		e = find_sym(h, &a, NULL);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->period, pa);
		ck_assert_uint_eq(e->samples, sa);
		e = find_sym(h, &b, NULL);
		if (round < 7) {
			ck_assert_ptr_nonnull(e);
			ck_assert_uint_eq(e->period, pb);
			ck_assert_uint_eq(e->samples, sb);
			ck_assert_uint_eq(hist_count(h), 2);
		} else {
			ck_assert_ptr_null(e);
			ck_assert_uint_eq(hist_count(h), 1);
		}
		ck_assert_uint_eq(hist_total_period(h), pa + (round < 7 ? pb : 0));
		ck_assert_uint_eq(hist_total_samples(h), sa + (round < 7 ? sb : 0));
	}
	ck_assert_uint_eq(pb, 0);
	ck_assert_uint_eq(pa, 391); /* 1000 875 765 669 585 511 447 391 */

	/* the removed key can come back as a fresh entry */
	s = sample("y", 2, 2, 0, NULL, &b, true, 5);
	hist_add(h, &s);
	e = find_sym(h, &b, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->period, 5);
	ck_assert_uint_eq(e->samples, 1);
	ck_assert(e->kernel);
	ck_assert_str_eq(e->only_comm, "y");
	ck_assert_uint_eq(hist_total_period(h), pa + 5);

	/* everything decays away eventually */
	for (round = 0; round < 200 && hist_count(h); round++)
		hist_age(h, HIST_DECAY);
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(hist_total_period(h), 0);
	ck_assert_uint_eq(hist_total_samples(h), 0);
	hist_free(h);
}
END_TEST

/* The same chain with other data addresses: rows per data symbol (the
 * chain's memo of entries must not hide them), children per row too. */
START_TEST(test_daddr_chains)
{
	struct symbol leaf = { 0, 1, "leaf" }, top = { 2, 3, "top" };
	static const struct symbol obj_a = { 0x10, 0x20, "a" }, obj_b = { 0x20, 0x30, "b" };
	struct sort_spec spec = spec_of("daddr_sym");
	struct hist *h = hist_new(&spec);
	struct callchain_frame chain[2] = { { NULL, &leaf, false, 0 }, { NULL, &top, false, 0 } };
	const struct symbol *order[] = { &obj_a, &obj_a, &obj_b, &obj_a, NULL };
	uint64_t want_a = 0, want_b = 0, want_none = 0;
	struct hist_sample s;
	size_t i;

	hist_enable_callchains(h, 0);
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		s = sample("x", 1, 1, 0, NULL, &leaf, false, 10 + i);
		s.chain = chain;
		s.nr_chain = 2;
		s.dsym = order[i];
		hist_add(h, &s);
		*(order[i] == &obj_a ? &want_a : order[i] ? &want_b : &want_none) += 10 + i;
	}
	ck_assert_uint_eq(hist_count(h), 3);
	for (i = 0; i < hist_count(h); i++) {
		const struct hist_entry *e = hist_entry_at(h, i);
		uint64_t want = e->dsym == &obj_a ? want_a : e->dsym ? want_b : want_none;

		ck_assert_ptr_null(e->sym); /* sym is no key here */
		ck_assert_uint_eq(e->period, want);
		ck_assert_uint_eq(e->children, want);
	}
	hist_free(h);
}
END_TEST

/* Children are kept apart from the entries and copied in as they are
 * read: an entry only callers have (period 0) keeps decaying children and
 * is dropped with them, entries moved down by the compaction keep theirs,
 * and a read after more adds sees them. */
START_TEST(test_decay_children)
{
	struct symbol leaf = { 0, 1, "leaf" }, mid = { 1, 2, "mid" }, top = { 2, 3, "top" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct callchain_frame only[1] = { { NULL, &leaf, false, 0 } };
	struct callchain_frame chain[3] = { { NULL, &leaf, false, 0 }, { NULL, &mid, false, 0 },
					    { NULL, &top, false, 0 } };
	struct hist_sample s;
	uint64_t cl = 0, cm = 0, ct = 0;
	const struct hist_entry *e;
	int round;

	hist_enable_callchains(h, 0);
	/* leaf is entry 0 with self; mid and top only as callers */
	s = sample("x", 1, 1, 0, NULL, &leaf, false, 8);
	s.chain = only;
	s.nr_chain = 1;
	hist_add(h, &s);
	s.chain = chain;
	s.nr_chain = 3;
	s.period = 64;
	hist_add(h, &s);
	cl = 72;
	cm = ct = 64;
	for (round = 1; round <= 3; round++) {
		hist_age(h, HIST_DECAY);
		cl = cl * 7 / 8;
		cm = cm * 7 / 8;
		ct = ct * 7 / 8;
	}
	ck_assert_uint_eq(find_sym(h, &mid, NULL)->children, cm);
	ck_assert_uint_eq(find_sym(h, &mid, NULL)->period, 0);
	/* more adds, then a read: the column is current */
	s.chain = chain + 1;
	s.nr_chain = 2;
	s.sym = &mid;
	s.period = 50;
	hist_add(h, &s);
	cm += 50;
	ct += 50;
	ck_assert_uint_eq(find_sym(h, &leaf, NULL)->children, cl);
	ck_assert_uint_eq(find_sym(h, &mid, NULL)->children, cm);
	ck_assert_uint_eq(find_sym(h, &top, NULL)->children, ct);
	/* leaf decays away first (48 against 92): the others move down */
	while ((e = find_sym(h, &leaf, NULL)) != NULL) {
		hist_age(h, HIST_DECAY);
		cm = cm * 7 / 8;
		ct = ct * 7 / 8;
	}
	ck_assert_ptr_null(find_sym(h, &leaf, NULL));
	ck_assert_ptr_nonnull(find_sym(h, &top, NULL));
	ck_assert_uint_eq(find_sym(h, &top, NULL)->children, ct);
	ck_assert_uint_gt(ct, 0);
	ck_assert_uint_eq(hist_count(h), 2);
	ck_assert_uint_eq(find_sym(h, &mid, NULL)->children, cm);
	hist_free(h);
}
END_TEST

/* x * 7 / 8 must not overflow for periods near the top of uint64_t. */
/* a and b hold the same entries, counts, stats and chains. */
static void same_hists(const struct hist *a, const struct hist *b)
{
	const struct callchain_store *ca = hist_callchains(a), *cb = hist_callchains(b);
	size_t i;

	ck_assert_uint_eq(hist_count(a), hist_count(b));
	ck_assert_uint_eq(hist_total_period(a), hist_total_period(b));
	ck_assert_uint_eq(hist_total_samples(a), hist_total_samples(b));
	ck_assert_uint_eq(hist_payload_samples(a), hist_payload_samples(b));
	for (i = 0; i < hist_count(a); i++) {
		const struct hist_entry *x = hist_entry_at(a, i), *y = hist_entry_at(b, i);

		ck_assert_ptr_eq(x->sym, y->sym);
		ck_assert_uint_eq(x->period, y->period);
		ck_assert_uint_eq(x->samples, y->samples);
		ck_assert_uint_eq(x->children, y->children);
		ck_assert(!memcmp(hist_entry_payload(a, i), hist_entry_payload(b, i),
				  sizeof(struct walltime_stats)));
	}
	ck_assert_uint_eq(callchain_store_count(ca), callchain_store_count(cb));
	for (i = 0; i < callchain_store_count(ca); i++) {
		struct callchain_chain x, y;

		callchain_store_get(ca, i, &x);
		callchain_store_get(cb, i, &y);
		ck_assert_uint_eq(x.nr, y.nr);
		ck_assert_uint_eq(x.period, y.period);
		ck_assert_uint_eq(x.samples, y.samples);
	}
}

/* hist_add_payload_n of n samples (--off-cpu's runs) counts as n
 * hist_add_payload calls do: entries' samples, period and children (a
 * recursive chain's once), the stats, the chains' counts; and after a
 * decay. */
START_TEST(test_add_n)
{
	struct symbol leaf = { 0, 1, "leaf" }, mid = { 1, 2, "mid" };
	struct sort_spec spec = spec_of("comm,sym");
	struct hist *one = hist_new(&spec), *n = hist_new(&spec);
	struct callchain_frame chain[3] = { { NULL, &leaf, false, 0 }, { NULL, &mid, false, 0 },
					    { NULL, &leaf, false, 0 } };
	static const uint64_t periods[5] = { 7, 1000, 3, 55, 123457 };
	struct walltime_sample t = { WALLTIME_BLOCKED, 0, 1 };
	struct hist_sample s = sample("x", 1, 1, 0, NULL, &leaf, false, 0);
	uint64_t total = 0;
	size_t i;

	hist_enable_callchains(one, 0);
	hist_enable_callchains(n, 0);
	hist_enable_payload(one, &walltime_offcpu);
	hist_enable_payload(n, &walltime_offcpu);
	s.chain = chain;
	s.nr_chain = 3;
	for (i = 0; i < 5; i++) {
		s.period = t.ns = periods[i];
		hist_add_payload(one, &s, &t);
		total += periods[i];
	}
	s.period = t.ns = total;
	t.n = 5;
	hist_add_payload_n(n, &s, &t, 5);
	/* And one alone in both, of another chain. */
	s.nr_chain = 2;
	s.period = t.ns = 11;
	t.n = 1;
	hist_add_payload(one, &s, &t);
	hist_add_payload_n(n, &s, &t, 1);
	same_hists(one, n);
	ck_assert_uint_eq(hist_total_samples(n), 6);
	ck_assert_uint_eq(find_sym(n, &leaf, "x")->samples, 6);
	ck_assert_uint_eq(find_sym(n, &leaf, "x")->children, total + 11);
	ck_assert_uint_eq(find_sym(n, &mid, "x")->children, total + 11);
	hist_age(one, HIST_DECAY);
	hist_age(n, HIST_DECAY);
	same_hists(one, n);
	hist_free(one);
	hist_free(n);
}
END_TEST

START_TEST(test_decay_large)
{
	struct symbol a = { 0, 1, "a" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s = sample("x", 1, 1, 0, NULL, &a, false, UINT64_MAX - 5);

	hist_add(h, &s);
	hist_age(h, HIST_DECAY);
	/* floor((2^64 - 6) * 7 / 8) */
	ck_assert_uint_eq(hist_entry_at(h, 0)->period, 16140901064495857658ULL);
	hist_free(h);
}
END_TEST

START_TEST(test_zero)
{
	struct symbol a = { 0, 1, "a" }, b = { 1, 2, "b" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s;

	s = sample("x", 1, 1, 0, NULL, &a, false, 100);
	hist_add(h, &s);
	s = sample("x", 1, 1, 0, NULL, &b, false, 100);
	hist_add(h, &s);
	hist_age(h, HIST_ZERO);
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_uint_eq(hist_total_period(h), 0);
	ck_assert_uint_eq(hist_total_samples(h), 0);
	ck_assert_ptr_null(hist_entry_at(h, 0));

	s = sample("x", 1, 1, 0, NULL, &b, false, 3);
	hist_add(h, &s);
	hist_add(h, &s);
	ck_assert_uint_eq(hist_count(h), 1);
	ck_assert_uint_eq(hist_entry_at(h, 0)->period, 6);
	ck_assert_uint_eq(hist_entry_at(h, 0)->samples, 2);
	hist_free(h);
}
END_TEST


START_TEST(test_accumulate)
{
	struct symbol a = { 0, 1, "a" };
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	struct hist_sample s = sample("x", 1, 1, 0, NULL, &a, false, 1);
	int i;

	hist_add(h, &s);
	for (i = 0; i < 100; i++)
		hist_age(h, HIST_ACCUMULATE);
	ck_assert_uint_eq(hist_count(h), 1);
	ck_assert_uint_eq(hist_entry_at(h, 0)->period, 1);
	ck_assert_uint_eq(hist_total_period(h), 1);
	ck_assert_uint_eq(hist_total_samples(h), 1);
	hist_free(h);
}
END_TEST

#define MANY 100000

/* A deterministic permutation-ish order so entries are not added in key
 * order (that would hide probing bugs). */
static uint32_t many_key(uint32_t i)
{
	return (uint32_t)(((uint64_t)i * 2654435761u) % MANY);
}

START_TEST(test_many)
{
	struct sort_spec spec = spec_of("pid,tid");
	struct hist *h = hist_new(&spec);
	uint64_t *ref_period = xcalloc(MANY, sizeof(*ref_period));
	uint64_t *ref_samples = xcalloc(MANY, sizeof(*ref_samples));
	unsigned char *seen = xcalloc(MANY, 1);
	uint64_t tot_period = 0, tot_samples = 0;
	uint32_t i, round;
	size_t j;

	/* three passes, the later ones hitting existing entries after growth */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < MANY; i++) {
			uint32_t k = many_key(i);
			struct hist_sample s;

			if (round == 2 && k % 3)
				continue;
			s = sample("w", k, k ^ 0x5a5a, 0, NULL, NULL, false, 1 + k % 97);
			hist_add(h, &s);
			ref_period[k] += 1 + k % 97;
			ref_samples[k]++;
		}
	}
	ck_assert_uint_eq(hist_count(h), MANY);
	for (j = 0; j < hist_count(h); j++) {
		const struct hist_entry *e = hist_entry_at(h, j);

		ck_assert_uint_lt(e->pid, MANY);
		ck_assert_uint_eq(e->tid, e->pid ^ 0x5a5a);
		ck_assert(!seen[e->pid]);
		seen[e->pid] = 1;
		ck_assert_uint_eq(e->period, ref_period[e->pid]);
		ck_assert_uint_eq(e->samples, ref_samples[e->pid]);
		tot_period += e->period;
		tot_samples += e->samples;
	}
	ck_assert_uint_eq(hist_total_period(h), tot_period);
	ck_assert_uint_eq(hist_total_samples(h), tot_samples);

	/* decay until part of the table is gone, then check lookups still
	 * land on the compacted entries */
	for (round = 0; round < 30; round++)
		hist_age(h, HIST_DECAY);
	memset(seen, 0, MANY);
	for (i = 0; i < MANY; i++) {
		for (round = 0; round < 30; round++) {
			ref_period[i] = ref_period[i] * 7 / 8;
			ref_samples[i] = ref_samples[i] * 7 / 8;
		}
	}
	tot_period = 0;
	for (i = 0; i < MANY; i++)
		if (ref_period[i])
			tot_period++;
	ck_assert_uint_gt(tot_period, 0);
	ck_assert_uint_lt(tot_period, MANY);
	ck_assert_uint_eq(hist_count(h), tot_period);
	for (i = 0; i < MANY; i++) {
		struct hist_sample s = sample("w", i, i ^ 0x5a5a, 0, NULL, NULL, false, 1);

		hist_add(h, &s);
		ref_period[i] += 1;
		ref_samples[i] += 1;
	}
	ck_assert_uint_eq(hist_count(h), MANY);
	tot_period = 0;
	for (j = 0; j < hist_count(h); j++) {
		const struct hist_entry *e = hist_entry_at(h, j);

		ck_assert(!seen[e->pid]);
		seen[e->pid] = 1;
		ck_assert_uint_eq(e->period, ref_period[e->pid]);
		ck_assert_uint_eq(e->samples, ref_samples[e->pid]);
		tot_period += e->period;
	}
	ck_assert_uint_eq(hist_total_period(h), tot_period);
	free(ref_period);
	free(ref_samples);
	free(seen);
	hist_free(h);
}
END_TEST

/* ---- Alpha ProfileMe stats ---- */

/* A decoded sample from registers: VAL, KILLED and a DTB single miss trap
 * as asked; SL1 1 (retire delay) with PCTR1 = pctr1. */
static struct profileme pm_of(bool retired, bool killed, bool trap, uint32_t pctr1)
{
	struct profileme pm;
	uint64_t i_stat = trap ? (1ULL << 39 | 6ULL << 34) : 0;
	uint64_t ctl = (retired ? 2 : 0) | 1ULL << 2 | (uint64_t)pctr1 << 6 |
		       (killed ? 1ULL << 26 : 0) | 7ULL << 28;

	profileme_from_regs(1, 0x120001000, i_stat, ctl, &pm);
	return pm;
}

static size_t index_of(const struct hist *h, const struct symbol *sym)
{
	size_t i;

	for (i = 0; i < hist_count(h); i++)
		if (hist_entry_at(h, i)->sym == sym)
			return i;
	ck_abort_msg("no entry for %s", sym->name);
	return 0;
}

/* Entry i's ProfileMe stats: the hist keeps them opaque. */
static const struct profileme_stats *pm_stats(const struct hist *h, size_t i)
{
	return hist_entry_payload(h, i);
}

START_TEST(test_profileme_none)
{
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	static const struct symbol f = { 0x1000, 0x1100, "f" };
	struct hist_sample s = sample(NULL, 1, 1, 0, NULL, &f, false, 100);

	/* x86: no stats at all, not even enabled. */
	hist_add(h, &s);
	ck_assert_ptr_null(hist_payload(h));
	ck_assert(!hist_has_payload_stats(h));
	ck_assert_ptr_null(pm_stats(h, 0));
	/* Alpha, but no payload was ProfileMe: counted, still no stats. */
	hist_enable_payload(h, &profileme_payload);
	hist_add_payload(h, &s, NULL);
	ck_assert_ptr_eq(hist_payload(h), &profileme_payload);
	ck_assert(!hist_has_payload_stats(h));
	ck_assert_uint_eq(hist_payload_other(h), 1);
	ck_assert_uint_eq(hist_payload_samples(h), 0);
	ck_assert_uint_eq(hist_entry_at(h, 0)->samples, 2);
	hist_free(h);
}
END_TEST

/* A row's samples that were not the decoder's count in its stats even
 * when they come before the first decoded sample of the table. */
START_TEST(test_payload_other_first)
{
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	static const struct symbol f = { 0x1000, 0x1100, "f" }, g = { 0x2000, 0x2100, "g" };
	struct hist_sample sf = sample(NULL, 1, 1, 0, NULL, &f, false, 100);
	struct hist_sample sg = sample(NULL, 1, 1, 0, NULL, &g, false, 100);
	struct profileme pm;

	profileme_from_regs(1, 0x1000, 0, 0x2, &pm);
	hist_enable_payload(h, &profileme_payload);
	hist_add_payload(h, &sf, NULL);
	hist_add_payload(h, &sg, NULL);
	ck_assert(!hist_has_payload_stats(h));
	ck_assert_ptr_null(pm_stats(h, 0));
	hist_add_payload(h, &sg, &pm);
	ck_assert(hist_has_payload_stats(h));
	ck_assert_uint_eq(pm_stats(h, index_of(h, &f))->other, 1);
	ck_assert_uint_eq(pm_stats(h, index_of(h, &g))->other, 1);
	ck_assert_uint_eq(pm_stats(h, index_of(h, &g))->samples, 1);
	hist_free(h);
}
END_TEST

/* -s srcline and --inline (hist_key_addresses): entries by address, each
 * with its DSO and symbol even when those are not keys (the view looks
 * the address up in them); without either the address is not a key.
 * Callers' frames key their entries by their own address. */
START_TEST(test_group_by_address)
{
	static const struct symbol f = { 0x1000, 0x1100, "f" }, g = { 0x2000, 0x2100, "g" };
	struct dso *d = (struct dso *)(uintptr_t)0x1234; /* an identity only */
	struct sort_spec spec = spec_of("srcline"), plain = spec_of("sym");
	struct hist *h = hist_new(&spec), *hp = hist_new(&plain), *hk = hist_new(&plain);
	struct hist_sample s = sample("a", 1, 1, 0, d, &f, false, 10);
	struct callchain_frame chain[2] = { { d, &f, false, 0x1010 }, { d, &g, false, 0x2020 } };
	const struct hist_entry *e;
	size_t i, callers = 0;

	ck_assert_str_eq(sort_key_name(SORT_SRCLINE), "srcline");
	s.addr = 0x1010;
	hist_add(h, &s);
	hist_add(hp, &s);
	hist_add(hk, &s);
	s.addr = 0x1020;
	hist_add(h, &s);
	hist_add(hp, &s);
	hist_add(hk, &s);
	s.addr = 0x1010;
	hist_add(h, &s);
	ck_assert_uint_eq(hist_count(h), 2);
	ck_assert_uint_eq(hist_count(hp), 1);
	hist_key_addresses(hk);
	s.addr = 0x1030;
	hist_add(hk, &s);
	ck_assert_uint_eq(hist_count(hk), 2); /* from now on */
	for (i = 0; i < hist_count(h); i++) {
		e = hist_entry_at(h, i);
		ck_assert_ptr_eq(e->dso, d);
		ck_assert_ptr_eq(e->sym, &f);
		ck_assert_uint_eq(e->samples, e->addr == 0x1010 ? 2 : 1);
	}
	hist_free(h);

	/* chains: the caller's entry is at its frame's address */
	h = hist_new(&spec);
	hist_enable_callchains(h, 0);
	s.addr = 0x1010;
	s.chain = chain;
	s.nr_chain = 2;
	hist_add(h, &s);
	hist_add(h, &s);
	ck_assert_uint_eq(hist_count(h), 2);
	for (i = 0; i < hist_count(h); i++) {
		e = hist_entry_at(h, i);
		if (e->sym == &g) {
			ck_assert_uint_eq(e->addr, 0x2020);
			ck_assert_uint_eq(e->period, 0);
			ck_assert_uint_eq(e->children, 20);
			callers++;
		}
	}
	ck_assert_uint_eq(callers, 1);
	hist_free(h);
	hist_free(hp);
	hist_free(hk);
}
END_TEST

START_TEST(test_profileme_aggregate)
{
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	static const struct symbol f = { 0x1000, 0x1100, "f" }, g = { 0x2000, 0x2100, "g" },
				   k = { 0x3000, 0x3100, "k" };
	struct hist_sample sf = sample(NULL, 1, 1, 0, NULL, &f, false, 100);
	struct hist_sample sg = sample(NULL, 1, 1, 0, NULL, &g, false, 100);
	struct hist_sample sk = sample(NULL, 1, 1, 0, NULL, &k, false, 100);
	struct profileme a = pm_of(true, false, false, 10), b = pm_of(false, true, false, 30),
			 c = pm_of(true, false, true, 5);
	const struct profileme_stats *st;
	int i;

	hist_enable_payload(h, &profileme_payload);
	hist_add(h, &sk); /* an entry from before the first ProfileMe sample */
	hist_add_payload(h, &sf, &a);
	hist_add_payload(h, &sf, &b);
	hist_add_payload(h, &sf, NULL);
	for (i = 0; i < 40; i++)
		hist_add_payload(h, &sg, &c);
	/* Enough new entries to grow the arrays: the stats move along. */
	for (i = 0; i < 200; i++) {
		static struct symbol many[200];
		struct hist_sample sm;

		many[i].start = 0x10000 + 0x10 * (uint64_t)i;
		many[i].end = many[i].start + 0x10;
		many[i].name = "many";
		sm = sample(NULL, 1, 1, 0, NULL, &many[i], false, 1);
		hist_add_payload(h, &sm, &a);
		ck_assert_uint_eq(pm_stats(h, hist_count(h) - 1)->samples, 1);
	}
	ck_assert_uint_eq(hist_count(h), 203);
	ck_assert(hist_has_payload_stats(h));
	ck_assert_uint_eq(hist_payload_samples(h), 242);
	ck_assert_uint_eq(hist_payload_other(h), 1);

	st = pm_stats(h, index_of(h, &f));
	ck_assert_uint_eq(st->samples, 2);
	ck_assert_uint_eq(st->other, 1);
	ck_assert_uint_eq(st->retired, 1);
	ck_assert_uint_eq(st->killed, 1);
	ck_assert_uint_eq(st->trap[PROFILEME_TRAP_NONE], 2);
	ck_assert_uint_eq(st->pctr1_sum[1], 40);
	ck_assert_uint_eq(st->pctr1_samples[1], 2);
	ck_assert_uint_eq(st->pctr0_sum, 14);
	st = pm_stats(h, index_of(h, &g));
	ck_assert_uint_eq(st->samples, 40);
	ck_assert_uint_eq(st->retired, 40);
	ck_assert_uint_eq(st->trap[PROFILEME_TRAP_DTB_SINGLE], 40);
	ck_assert_int_eq(profileme_stats_dominant_trap(st), PROFILEME_TRAP_DTB_SINGLE);
	st = pm_stats(h, index_of(h, &k));
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->samples, 0);
	hist_free(h);
}
END_TEST

START_TEST(test_profileme_aging)
{
	struct sort_spec spec = spec_of("sym");
	struct hist *h = hist_new(&spec);
	static const struct symbol f = { 0x1000, 0x1100, "f" }, g = { 0x2000, 0x2100, "g" };
	struct hist_sample sf = sample(NULL, 1, 1, 0, NULL, &f, false, 1);
	struct hist_sample sg = sample(NULL, 1, 1, 0, NULL, &g, false, 1000);
	struct profileme a = pm_of(true, false, false, 8);
	const struct profileme_stats *st;
	int i;

	hist_enable_payload(h, &profileme_payload);
	/* f decays away first (period 1), g stays: g's stats must move with
	 * it when the entries are compacted. */
	hist_add_payload(h, &sf, &a);
	for (i = 0; i < 16; i++)
		hist_add_payload(h, &sg, &a);
	ck_assert_uint_eq(index_of(h, &g), 1);
	hist_age(h, HIST_DECAY);
	ck_assert_uint_eq(hist_count(h), 1);
	st = pm_stats(h, index_of(h, &g));
	ck_assert_uint_eq(st->samples, 14);
	ck_assert_uint_eq(st->retired, 14);
	ck_assert_uint_eq(st->pctr1_sum[1], 16 * 8 * 7 / 8);
	/* the counts since the start do not age */
	ck_assert_uint_eq(hist_payload_samples(h), 17);

	hist_age(h, HIST_ACCUMULATE);
	ck_assert_uint_eq(pm_stats(h, 0)->samples, 14);

	hist_age(h, HIST_ZERO);
	ck_assert_uint_eq(hist_count(h), 0);
	ck_assert_ptr_null(pm_stats(h, 0));
	/* A new entry after zeroing starts from empty stats. */
	hist_add_payload(h, &sf, &a);
	st = pm_stats(h, 0);
	ck_assert_uint_eq(st->samples, 1);
	ck_assert_uint_eq(st->pctr1_sum[1], 8);
	hist_free(h);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hist");
	TCase *tc;

	tc = tcase_create("sort_spec");
	tcase_add_test(tc, test_spec_good);
	tcase_add_test(tc, test_spec_names);
	tcase_add_test(tc, test_spec_daddr);
	tcase_add_test(tc, test_daddr_chains);
	tcase_add_test(tc, test_spec_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("grouping");
	tcase_add_test(tc, test_group_dso_sym);
	tcase_add_test(tc, test_group_comm_dso_sym);
	tcase_add_test(tc, test_group_pid_tid_cpu);
	tcase_add_test(tc, test_group_null_keys);
	tcase_add_test(tc, test_group_by_address);
	suite_add_tcase(s, tc);

	tc = tcase_create("uniform");
	tcase_add_test(tc, test_uniform_comm_pid);
	tcase_add_test(tc, test_uniform_null_comm);
	suite_add_tcase(s, tc);

	tc = tcase_create("aging");
	tcase_add_test(tc, test_decay);
	tcase_add_test(tc, test_decay_large);
	tcase_add_test(tc, test_decay_children);
	tcase_add_test(tc, test_zero);
	tcase_add_test(tc, test_accumulate);
	suite_add_tcase(s, tc);

	tc = tcase_create("profileme");
	tcase_add_test(tc, test_profileme_none);
	tcase_add_test(tc, test_payload_other_first);
	tcase_add_test(tc, test_profileme_aggregate);
	tcase_add_test(tc, test_profileme_aging);
	suite_add_tcase(s, tc);

	tc = tcase_create("many");
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_add_n);
	/* valgrind runs it unforked and slowly */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
