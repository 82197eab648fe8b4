/* Unit tests for the arch payload interface and the Alpha ProfileMe decoder:
 * the shared vectors at every alignment, the dump lines, the applies rules,
 * the attr adjustment, machine names and the per-row stats. */
#include "config.h"

#include <check.h>
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "alpha-profileme.h"
#include "arch.h"
#include "profileme_cases.h"
#include "testutil.h"
#include "util.h"

/* ---- the shared vectors ---- */

/* Decode case c from a heap copy of exactly off + size bytes, the payload
 * at off, so valgrind flags any read past it and off 1..7 are unaligned. */
static int decode_at(const struct profileme_case *c, unsigned off, struct profileme *pm)
{
	uint32_t size = profileme_case_size(c);
	unsigned char *buf = xmalloc(off + size);
	int rc;

	memset(buf, 0xee, off);
	profileme_case_bytes(c, buf + off);
	memset(pm, 0x5a, sizeof(*pm)); /* decode must overwrite everything */
	rc = profileme_decode(buf + off, size, pm);
	free(buf);
	return rc;
}

START_TEST(test_cases)
{
	const struct profileme_case *c = &profileme_cases[_i];
	unsigned off;

	for (off = 0; off < 8; off++) {
		struct profileme pm;
		char why[1024];
		int rc = decode_at(c, off, &pm);

		ck_assert_msg(profileme_case_check(c, rc, &pm, why, sizeof(why)), "offset %u: %s",
			      off, why);
	}
}
END_TEST

START_TEST(test_bytes_cases)
{
	const struct profileme_bytes_case *c = &profileme_bytes_cases[_i];
	unsigned off;

	for (off = 0; off < 8; off++) {
		unsigned char *buf = xmalloc(off + sizeof(c->bytes));
		struct profileme pm;

		memcpy(buf + off, c->bytes, sizeof(c->bytes));
		ck_assert_int_eq(profileme_decode(buf + off, sizeof(c->bytes), &pm), 0);
		free(buf);
		ck_assert_uint_eq(pm.version, c->version);
		ck_assert_msg(pm.pmpc == c->pmpc, "%s: pmpc %#llx", c->name,
			      (unsigned long long)pm.pmpc);
		ck_assert_msg(pm.i_stat == c->i_stat, "%s: i_stat %#llx", c->name,
			      (unsigned long long)pm.i_stat);
		ck_assert_msg(pm.pctr_ctl == c->pctr_ctl, "%s: pctr_ctl %#llx", c->name,
			      (unsigned long long)pm.pctr_ctl);
		if (c->trap)
			ck_assert_str_eq(pm.trap_name, c->trap);
	}
}
END_TEST

/* The raw version is read the same way, and only when there are 4 bytes. */
START_TEST(test_raw_version)
{
	static const unsigned char v[5] = { 0xff, 0x02, 0x00, 0x00, 0x00 };

	ck_assert_uint_eq(profileme_raw_version(v + 1, 4), 2);
	ck_assert_uint_eq(profileme_raw_version(v + 1, 3), 0);
	ck_assert_uint_eq(profileme_raw_version(NULL, 28), 0);
	ck_assert_int_eq(profileme_decode(NULL, 28, &(struct profileme){ 0 }), -EINVAL);
}
END_TEST

/* ---- dump lines ---- */

/* The example sample of the report, written out once more in full. */
START_TEST(test_dump_example)
{
	/* clang-format off */
	static const unsigned char raw[28] = {
		0x01, 0x00, 0x00, 0x00,
		0x40, 0x23, 0x31, 0x00, 0x00, 0xfc, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x94, 0x00, 0x00, 0x00,
		0x06, 0x03, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x00,
	};
	/* clang-format on */
	struct profileme pm;
	char buf[PROFILEME_DUMP_MAX];

	ck_assert_int_eq(profileme_decode(raw, sizeof(raw), &pm), 0);
	ck_assert_int_eq(profileme_format_dump(&pm, buf, sizeof(buf)), (int)strlen(buf));
	ck_assert_str_eq(
		buf,
		"ProfileMe PMPC:\tfffffc0000312340 kernel trap unaligned\n"
		"ProfileMe I_STAT:\t0000009400000000 TRP 1 MIS 0 LSO 0 TrapType 5 ICM 0 OVR 0\n"
		"ProfileMe PCTR_CTL:\t0000007d00000306 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 0 SL1 1 PCTR0 2000 PCTR1 12 (retire delay)\n");
}
END_TEST

/* Every case's dump fits PROFILEME_DUMP_MAX; a short buffer gets a
 * NUL-terminated prefix and the full length back, like snprintf. */
START_TEST(test_dump_sizes)
{
	size_t i;

	for (i = 0; i < PROFILEME_NCASES; i++) {
		const struct profileme_case *c = &profileme_cases[i];
		char full[PROFILEME_DUMP_MAX], small[20];
		struct profileme pm;
		int n;

		if (decode_at(c, 0, &pm))
			continue;
		n = profileme_format_dump(&pm, full, sizeof(full));
		ck_assert_msg(n > 0 && n < PROFILEME_DUMP_MAX, "%s: %d", c->name, n);
		ck_assert_int_eq(n, (int)strlen(full));
		ck_assert_int_eq(full[n - 1], '\n');
		ck_assert_int_eq(profileme_format_dump(&pm, small, sizeof(small)), n);
		ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
		ck_assert_int_eq(strncmp(small, full, sizeof(small) - 1), 0);
	}
}
END_TEST

/* The dump comes from the registers alone, as perf's does. */
START_TEST(test_dump_from_registers)
{
	struct profileme pm, regs = { 0 };
	char a[PROFILEME_DUMP_MAX], b[PROFILEME_DUMP_MAX];

	profileme_from_regs(1, 0x0000000000008581ULL, IS_TRP | IS_MIS, PC_VAL, &pm);
	profileme_format_dump(&pm, a, sizeof(a));
	regs.version = 1;
	regs.pmpc = 0x0000000000008581ULL;
	regs.i_stat = IS_TRP | IS_MIS;
	regs.pctr_ctl = PC_VAL;
	profileme_format_dump(&regs, b, sizeof(b));
	ck_assert_str_eq(a, b);
	ck_assert_str_eq(
		a,
		"ProfileMe PMPC:\t0000000000008581 PAL trap ITB miss mispredicted\n"
		"ProfileMe I_STAT:\t0000018000000000 TRP 1 MIS 1 LSO 0 TrapType 0 ICM 0 OVR 0\n"
		"ProfileMe PCTR_CTL:\t0000000000000002 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 0 SL1 0 PCTR0 0 PCTR1 0 (cycles)\n");
}
END_TEST

/* ---- names ---- */

START_TEST(test_names)
{
	ck_assert_str_eq(profileme_pctr1_name(0), "cycles");
	ck_assert_str_eq(profileme_pctr1_name(1), "retire delay");
	ck_assert_str_eq(profileme_pctr1_name(2), "bcache misses");
	ck_assert_str_eq(profileme_pctr1_name(3), "mbox replays");
	ck_assert_str_eq(profileme_pctr1_name(4), "?");
	ck_assert_str_eq(profileme_mode_name(PROFILEME_MODE_USER), "user");
	ck_assert_str_eq(profileme_mode_name(PROFILEME_MODE_KERNEL), "kernel");
	ck_assert_str_eq(profileme_mode_name(PROFILEME_MODE_PAL), "PAL");
	ck_assert_str_eq(profileme_mode_name(PROFILEME_MODE_NR), "?");
	ck_assert_str_eq(profileme_trap_label(PROFILEME_TRAP_NONE), "none");
	ck_assert_str_eq(profileme_trap_label(PROFILEME_TRAP_OTHER), "other (see PMPC)");
	ck_assert_str_eq(profileme_trap_label(PROFILEME_TRAP_NR), "?");
	ck_assert_str_eq(profileme_trap_label((enum profileme_trap) - 1), "?");
	/* every enum value has a label */
	for (int t = 0; t < PROFILEME_TRAP_NR; t++)
		ck_assert_msg(profileme_trap_label(t) && strcmp(profileme_trap_label(t), "?"),
			      "trap %d", t);
}
END_TEST

/* ---- applies ---- */

static const struct {
	uint32_t type;
	int machine;
	uint32_t raw_size, version;
	bool want;
} applies_cases[] = {
	{ PERF_TYPE_HARDWARE, EM_ALPHA, 28, 1, true },
	{ PERF_TYPE_RAW, EM_ALPHA, 28, 1, true },
	{ PERF_TYPE_HARDWARE, EM_ALPHA, 40, 2, true },
	{ PERF_TYPE_HARDWARE, EM_ALPHA, 27, 1, false },
	{ PERF_TYPE_HARDWARE, EM_ALPHA, 0, 1, false },
	{ PERF_TYPE_HARDWARE, EM_ALPHA, 28, 0, false },
	{ PERF_TYPE_SOFTWARE, EM_ALPHA, 28, 1, false },
	{ PERF_TYPE_TRACEPOINT, EM_ALPHA, 28, 1, false },
	{ PERF_TYPE_HW_CACHE, EM_ALPHA, 28, 1, false },
	{ PERF_TYPE_BREAKPOINT, EM_ALPHA, 28, 1, false },
	{ 42, EM_ALPHA, 28, 1, false }, /* a dynamic PMU type */
	{ PERF_TYPE_HARDWARE, EM_X86_64, 28, 1, false },
	{ PERF_TYPE_RAW, EM_S390, 28, 1, false },
	{ PERF_TYPE_HARDWARE, EM_NONE, 28, 1, false },
};

START_TEST(test_applies)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(applies_cases); i++)
		ck_assert_msg(profileme_applies(applies_cases[i].type, applies_cases[i].machine,
						applies_cases[i].raw_size,
						applies_cases[i].version) == applies_cases[i].want,
			      "applies case %zu", i);
}
END_TEST

/* The same rules through the arch interface, on real payload bytes. */
START_TEST(test_ops)
{
	const struct arch_payload_ops *ops = arch_payload_find(EM_ALPHA);
	const struct profileme_case *c = &profileme_cases[0];
	struct perf_event_attr attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(attr) };
	unsigned char raw[40];
	struct profileme pm;
	struct profileme_stats st = { 0 };
	char buf[PROFILEME_DUMP_MAX];
	union arch_payload_buf decoded;

	ck_assert_ptr_nonnull(ops);
	ck_assert_ptr_eq(ops->payload, &profileme_payload);
	ck_assert_str_eq(ops->payload->name, "profileme");
	ck_assert_int_eq(ops->e_machine, EM_ALPHA);
	ck_assert_uint_eq(ops->decoded_size, sizeof(struct profileme));
	ck_assert_uint_le(ops->decoded_size, ARCH_PAYLOAD_DECODED_MAX);
	ck_assert_uint_eq(ops->payload->stats_size, sizeof(struct profileme_stats));
	ck_assert_ptr_null(arch_payload_find(EM_X86_64));
	ck_assert_ptr_null(arch_payload_find(EM_S390));
	ck_assert_ptr_null(arch_payload_find(EM_NONE));

	profileme_case_bytes(c, raw + 1);
	ck_assert(ops->applies(&attr, raw + 1, 28));
	ck_assert(!ops->applies(&attr, raw + 1, 27));
	attr.type = PERF_TYPE_RAW;
	ck_assert(ops->applies(&attr, raw + 1, 28));
	attr.type = PERF_TYPE_SOFTWARE;
	ck_assert(!ops->applies(&attr, raw + 1, 28));
	attr.type = PERF_TYPE_HARDWARE;
	raw[1] = 0; /* version 0 */
	ck_assert(!ops->applies(&attr, raw + 1, 28));
	ck_assert_int_eq(ops->decode(raw + 1, 28, &pm), -EINVAL);
	ck_assert(!arch_payload_decode(ops, &attr, raw + 1, 28, &decoded));
	ops->payload->stats_add_other(&st);
	raw[1] = 1;
	ck_assert(arch_payload_decode(ops, &attr, raw + 1, 28, &decoded));
	ck_assert_uint_eq(((struct profileme *)&decoded)->pctr1, 37);
	ck_assert(!arch_payload_decode(ops, &attr, raw + 1, 27, &decoded));
	ck_assert(!arch_payload_decode(NULL, &attr, raw + 1, 28, &decoded));

	ck_assert_int_eq(ops->decode(raw + 1, 28, &pm), 0);
	ck_assert_int_eq(ops->format_dump(&pm, buf, sizeof(buf)), (int)strlen(c->dump));
	ck_assert_str_eq(buf, c->dump);
	ops->payload->stats_add(&st, &pm);
	ck_assert_uint_eq(ops->payload->stats_samples(&st), 1);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.other, 1);
	ck_assert_uint_eq(st.retired, 1);
	ck_assert_uint_eq(st.pctr1_sum[0], 37);
	ops->payload->stats_merge(&st, &st);
	ck_assert_uint_eq(st.samples, 2);
	ck_assert_uint_eq(st.pctr0_sum, 200);
	ops->payload->stats_decay(&st, 1, 2);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.pctr0_sum, 100);
}
END_TEST

/* The columns ProfileMe declares, as the view and the renderers read them
 * (payload.h): titles, --order words, values, the trap name. */
START_TEST(test_columns)
{
	const struct payload_ops *p = &profileme_payload;
	static const char *const titles[] = { "Retired", "Killed", "Stalled", "Mispred", "Traps",
					      "Trap",	 "ICmiss", "LdSt",    "PCTR1" };
	static const char *const orders[] = { "retired", "killed", "stalled", "mispredict", "traps",
					      NULL,	 "icmiss", "ldst",    "pctr1" };
	struct profileme_stats st = { 0 }, total = { 0 };
	struct profileme pm;
	size_t i;

	ck_assert_uint_eq(p->nr_columns, ARRAY_SIZE(titles));
	for (i = 0; i < p->nr_columns; i++) {
		ck_assert_str_eq(p->columns[i].title, titles[i]);
		if (orders[i]) {
			ck_assert_str_eq(p->columns[i].order_key, orders[i]);
			ck_assert_int_eq(payload_order_column(p, orders[i]), (int)i);
			ck_assert(arch_payload_order_known(orders[i]));
		} else {
			ck_assert_ptr_null(p->columns[i].order_key);
		}
		/* no samples: no value, no name */
		ck_assert(payload_value(p, &st, &total, i) < 0);
		ck_assert_ptr_null(payload_name(p, &st, i));
	}
	ck_assert_int_eq(payload_order_column(p, "overhead"), -1);
	ck_assert(!arch_payload_order_known("retire"));
	/* ProfileMe's words first; other decoders' follow (check_ibs) */
	ck_assert_int_eq(strncmp(arch_payload_order_keys(),
				 "retired, killed, stalled, mispredict, traps, icmiss, ldst, pctr1, ",
				 66), 0);
	ck_assert_int_eq(p->columns[5].kind, PAYLOAD_NAME);
	ck_assert_int_eq(p->columns[8].kind, PAYLOAD_MEAN);

	/* Two samples: one retired, one trapped (DTB single miss); PCTR1
	 * counting retire delay (SL1 1) in both. */
	profileme_from_regs(1, 0x1000, 0, (1ULL << 1) | (1ULL << 2) | (10ULL << 6), &pm);
	profileme_stats_add(&st, &pm);
	profileme_from_regs(1, 0x1000, (1ULL << 39) | (6ULL << 34), (1ULL << 2) | (30ULL << 6),
			    &pm);
	profileme_stats_add(&st, &pm);
	total = st;
	ck_assert_double_eq_tol(payload_value(p, &st, &total, 0), 50.0, 1e-9);
	ck_assert_double_eq_tol(payload_value(p, &st, &total, 4), 50.0, 1e-9);
	ck_assert_str_eq(payload_name(p, &st, 5), "DTB single miss");
	ck_assert_double_eq_tol(payload_value(p, &st, &total, 8), 20.0, 1e-9);
	ck_assert_str_eq(payload_title(p, &total, 8), "RetDly");
	ck_assert_str_eq(payload_title(p, &total, 0), "Retired");
	ck_assert_str_eq(profileme_pctr1_label(1), "RetDly");
	ck_assert_str_eq(profileme_pctr1_label(7), "PCTR1");
}
END_TEST

/* ---- machines ---- */

static const struct {
	const char *name;
	int machine;
} machine_cases[] = {
	{ "alpha", EM_ALPHA },	 { "x86_64", EM_X86_64 },   { "amd64", EM_X86_64 },
	{ "x86", EM_386 },	 { "i386", EM_386 },	    { "i686", EM_386 },
	{ "s390x", EM_S390 },	 { "s390", EM_S390 },	    { "aarch64", EM_AARCH64 },
	{ "arm64", EM_AARCH64 }, { "arm", EM_ARM },	    { "armv7l", EM_ARM },
	{ "ppc64le", EM_PPC64 }, { "ppc64", EM_PPC64 },	    { "powerpc", EM_PPC },
	{ "ppc", EM_PPC },	 { "mips64", EM_MIPS },	    { "mips", EM_MIPS },
	{ "riscv64", EM_RISCV }, { "sparc64", EM_SPARCV9 }, { "sparc", EM_SPARC },
	{ "ia64", EM_IA_64 },	 { "parisc64", EM_PARISC }, { "sh4", EM_SH },
	{ "m68k", EM_68K },	 { "loongarch64", 258 },    { "", EM_NONE },
	{ "vax", EM_NONE },	 { "alphaev6", EM_NONE },   { "Alpha", EM_NONE },
	{ NULL, EM_NONE },
};

START_TEST(test_machine_names)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(machine_cases); i++)
		ck_assert_msg(
			arch_machine_from_name(machine_cases[i].name) == machine_cases[i].machine,
			"\"%s\": %d, want %d",
			machine_cases[i].name ? machine_cases[i].name : "(null)",
			arch_machine_from_name(machine_cases[i].name), machine_cases[i].machine);
}
END_TEST

START_TEST(test_host_machine)
{
	struct utsname u;
	int m = arch_host_machine();

	ck_assert_int_eq(uname(&u), 0);
	ck_assert_int_ne(m, EM_NONE);
	if (arch_machine_from_name(u.machine) != EM_NONE)
		ck_assert_int_eq(m, arch_machine_from_name(u.machine));
#if defined(__x86_64__)
	ck_assert_int_eq(m, EM_X86_64);
#endif
}
END_TEST

/* ---- attr adjustment ---- */

static const struct {
	uint32_t type;
	uint64_t config;
	int machine;
	bool want_raw;
} attr_cases[] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, EM_ALPHA, true },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, EM_ALPHA, true },
	{ PERF_TYPE_RAW, 0x1234, EM_ALPHA, true },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, EM_ALPHA, false },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, EM_ALPHA, false },
	{ PERF_TYPE_HW_CACHE, 0, EM_ALPHA, false },
	{ PERF_TYPE_TRACEPOINT, 1, EM_ALPHA, false },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, EM_X86_64, false },
	{ PERF_TYPE_RAW, 0x1234, EM_S390, false },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, EM_NONE, false },
};

/* The attr the live engine builds for the default event, then adjusted:
 * only PERF_SAMPLE_RAW may change, and only for HARDWARE/RAW on an Alpha. */
START_TEST(test_adjust_attr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attr_cases); i++) {
		struct perf_event_attr attr, want;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = attr_cases[i].type;
		attr.config = attr_cases[i].config;
		attr.freq = 1;
		attr.sample_freq = 4000;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
		attr.disabled = 1;
		attr.mmap2 = 1;
		attr.comm = 1;
		attr.sample_id_all = 1;
		want = attr;
		if (attr_cases[i].want_raw)
			want.sample_type |= PERF_SAMPLE_RAW;

		arch_adjust_attr(&attr, attr_cases[i].machine);
		ck_assert_msg(memcmp(&attr, &want, sizeof(attr)) == 0,
			      "attr case %zu: sample_type %#llx", i,
			      (unsigned long long)attr.sample_type);
		/* idempotent */
		arch_adjust_attr(&attr, attr_cases[i].machine);
		ck_assert(memcmp(&attr, &want, sizeof(attr)) == 0);
	}
}
END_TEST

/* ---- stats ---- */

static void stats_of_cases(struct profileme_stats *st, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		struct profileme pm;

		if (decode_at(&profileme_cases[i], 0, &pm) == 0)
			profileme_stats_add(st, &pm);
		else
			profileme_stats_add_other(st);
	}
}

/* Each counter against a recount from the expectations of the vectors. */
START_TEST(test_stats_add)
{
	struct profileme_stats st = { 0 }, want = { 0 };
	size_t i;

	stats_of_cases(&st, 0, PROFILEME_NCASES);
	for (i = 0; i < PROFILEME_NCASES; i++) {
		const struct profileme_case *c = &profileme_cases[i];
		int t;

		if (c->rc) {
			want.other++;
			continue;
		}
		want.samples++;
		want.retired += c->val;
		want.taken += c->tak;
		want.killed += c->killed;
		want.stalled += c->stalled;
		want.trapped += c->trapped;
		want.mispredicted += c->mispredicted;
		want.icache_miss += c->icm;
		want.ldst_order += c->lso;
		want.mode[!strcmp(c->mode, "PAL")    ? PROFILEME_MODE_PAL :
			  !strcmp(c->mode, "kernel") ? PROFILEME_MODE_KERNEL :
						       PROFILEME_MODE_USER]++;
		for (t = 0; t < PROFILEME_TRAP_NR; t++)
			if (!strcmp(profileme_trap_label(t), c->trap))
				want.trap[t]++;
		want.pctr0_sum += c->pctr0;
		want.pctr1_sum[c->sl1] += c->pctr1;
		want.pctr1_samples[c->sl1]++;
	}
	ck_assert_uint_eq(st.samples, want.samples);
	ck_assert_uint_eq(st.other, want.other);
	ck_assert_uint_eq(st.retired, want.retired);
	ck_assert_uint_eq(st.mispredicted, want.mispredicted);
	ck_assert_uint_eq(st.trap[PROFILEME_TRAP_OTHER], 4);
	ck_assert_uint_eq(st.trap[PROFILEME_TRAP_ITB_MISS], 2);
	ck_assert(memcmp(&st, &want, sizeof(st)) == 0);
	ck_assert_uint_eq(st.mode[PROFILEME_MODE_USER] + st.mode[PROFILEME_MODE_KERNEL] +
				  st.mode[PROFILEME_MODE_PAL],
			  st.samples);
}
END_TEST

/* Merging the stats of two halves gives the stats of the whole. */
START_TEST(test_stats_merge)
{
	struct profileme_stats all = { 0 }, a = { 0 }, b = { 0 };

	stats_of_cases(&all, 0, PROFILEME_NCASES);
	stats_of_cases(&a, 0, PROFILEME_NCASES / 2);
	stats_of_cases(&b, PROFILEME_NCASES / 2, PROFILEME_NCASES);
	profileme_stats_merge(&a, &b);
	ck_assert(memcmp(&a, &all, sizeof(a)) == 0);
}
END_TEST

START_TEST(test_stats_decay)
{
	struct profileme_stats st = { 0 };

	st.samples = 8;
	st.retired = 7;
	st.pctr0_sum = UINT64_MAX;
	st.trap[PROFILEME_TRAP_RESET] = 1;
	st.pctr1_samples[3] = 80;
	profileme_stats_decay(&st, 7, 8);
	ck_assert_uint_eq(st.samples, 7);
	ck_assert_uint_eq(st.retired, 6);
	ck_assert_uint_eq(st.pctr0_sum, UINT64_MAX / 8 * 7 + 7 * 7 / 8);
	ck_assert_uint_eq(st.trap[PROFILEME_TRAP_RESET], 0);
	ck_assert_uint_eq(st.pctr1_samples[3], 70);
	profileme_stats_decay(&st, 0, 1);
	ck_assert_uint_eq(st.samples, 0);
	st.samples = 5;
	profileme_stats_decay(&st, 1, 0); /* den 0: unchanged */
	ck_assert_uint_eq(st.samples, 5);
}
END_TEST

START_TEST(test_stats_dominant_trap)
{
	struct profileme_stats st = { 0 };

	ck_assert_int_eq(profileme_stats_dominant_trap(&st), PROFILEME_TRAP_NONE);
	ck_assert_uint_eq(profileme_stats_traps(&st), 0);
	st.trap[PROFILEME_TRAP_NONE] = 100;
	ck_assert_int_eq(profileme_stats_dominant_trap(&st), PROFILEME_TRAP_NONE);
	st.trap[PROFILEME_TRAP_ITB_MISS] = 3;
	st.trap[PROFILEME_TRAP_REPLAY] = 3;
	st.trap[PROFILEME_TRAP_UNALIGNED] = 2;
	/* a tie goes to the lower enum value */
	ck_assert_int_eq(profileme_stats_dominant_trap(&st), PROFILEME_TRAP_REPLAY);
	st.trap[PROFILEME_TRAP_ITB_MISS] = 4;
	ck_assert_int_eq(profileme_stats_dominant_trap(&st), PROFILEME_TRAP_ITB_MISS);
	ck_assert_uint_eq(profileme_stats_traps(&st), 9);
}
END_TEST

static Suite *profileme_suite(void)
{
	Suite *s = suite_create("profileme");
	TCase *tc;

	tc = tcase_create("vectors");
	tcase_add_loop_test(tc, test_cases, 0, PROFILEME_NCASES);
	tcase_add_loop_test(tc, test_bytes_cases, 0, PROFILEME_NBYTES_CASES);
	tcase_add_test(tc, test_raw_version);
	suite_add_tcase(s, tc);

	tc = tcase_create("dump");
	tcase_add_test(tc, test_dump_example);
	tcase_add_test(tc, test_dump_sizes);
	tcase_add_test(tc, test_dump_from_registers);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("arch");
	tcase_add_test(tc, test_applies);
	tcase_add_test(tc, test_ops);
	tcase_add_test(tc, test_columns);
	tcase_add_test(tc, test_machine_names);
	tcase_add_test(tc, test_host_machine);
	tcase_add_test(tc, test_adjust_attr);
	suite_add_tcase(s, tc);

	tc = tcase_create("stats");
	tcase_add_test(tc, test_stats_add);
	tcase_add_test(tc, test_stats_merge);
	tcase_add_test(tc, test_stats_decay);
	tcase_add_test(tc, test_stats_dominant_trap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(profileme_suite()) ? EXIT_FAILURE : EXIT_SUCCESS;
}
