/* Unit tests for the AMD IBS decoder (src/arch/amd-ibs.c): every documented
 * bit set alone lands in its field and nowhere else, the caps word decides
 * the optional registers and the Zen 4 fields, short blocks are refused at
 * every alignment, the family 19h errata, the -D text, the row counters,
 * and the selection by the recording's CPUID and PMU names. */
#include "config.h"

#include <check.h>
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "amd-ibs.h"
#include "arch.h"
#include "payload.h"
#include "testutil.h"
#include "textfmt.h"
#include "util.h"

#define OP_VALID ((1ULL << 17) | (1ULL << 18))
#define FETCH_VALID ((1ULL << 48) | (1ULL << 49))

static void put_le64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A payload of caps then the registers, little endian, at buf + off. */
static uint32_t mk_raw(unsigned char *buf, unsigned off, uint32_t caps, const uint64_t *regs,
		       unsigned n)
{
	unsigned i;

	buf += off;
	buf[0] = (unsigned char)caps;
	buf[1] = (unsigned char)(caps >> 8);
	buf[2] = (unsigned char)(caps >> 16);
	buf[3] = (unsigned char)(caps >> 24);
	for (i = 0; i < n; i++)
		put_le64(buf + 4 + 8 * i, regs[i]);
	return 4 + 8 * n;
}

/* Decode an Op block of the 7 registers (ctl made valid). */
static struct ibs_op op_of(uint32_t caps, uint64_t ctl, uint64_t data, uint64_t data2,
			   uint64_t data3)
{
	unsigned char buf[128];
	uint64_t r[9] = { ctl | OP_VALID, 0x401000, data, data2, data3, 0x7f0000, 0x1000, 0, 0 };
	struct ibs_op op;
	uint32_t n = mk_raw(buf, 0, caps, r, 9);

	ck_assert_int_eq(ibs_op_decode(buf, n, 0, 0, &op), 0);
	return op;
}

/* One bit of IbsOpData3 and the field it sets: the struct must differ
 * from the all-zero decoding in that field only. */
static const struct {
	unsigned bit;
	size_t off;
} data3_bits[] = {
	{ 0, offsetof(struct ibs_op, ld) },
	{ 1, offsetof(struct ibs_op, st) },
	{ 2, offsetof(struct ibs_op, dc_l1tlb_miss) },
	{ 3, offsetof(struct ibs_op, dc_l2tlb_miss) },
	{ 4, offsetof(struct ibs_op, dc_l1tlb_hit_2m) },
	{ 5, offsetof(struct ibs_op, dc_l1tlb_hit_1g) },
	{ 6, offsetof(struct ibs_op, dc_l2tlb_hit_2m) },
	{ 7, offsetof(struct ibs_op, dc_miss) },
	{ 8, offsetof(struct ibs_op, dc_mis_acc) },
	{ 13, offsetof(struct ibs_op, dc_wc) },
	{ 14, offsetof(struct ibs_op, dc_uc) },
	{ 15, offsetof(struct ibs_op, dc_locked) },
	{ 16, offsetof(struct ibs_op, dc_no_mab) },
	{ 17, offsetof(struct ibs_op, dc_lin_valid) },
	{ 18, offsetof(struct ibs_op, dc_phy_valid) },
	{ 19, offsetof(struct ibs_op, dc_l2tlb_hit_1g) },
	{ 20, offsetof(struct ibs_op, l2_miss) },
	{ 21, offsetof(struct ibs_op, sw_pf) },
};

static const struct {
	unsigned bit;
	size_t off;
} data_bits[] = {
	{ 34, offsetof(struct ibs_op, ret) },	      { 35, offsetof(struct ibs_op, brn_taken) },
	{ 36, offsetof(struct ibs_op, brn_misp) },    { 37, offsetof(struct ibs_op, brn_ret) },
	{ 38, offsetof(struct ibs_op, rip_invalid) }, { 39, offsetof(struct ibs_op, brn_fuse) },
	{ 40, offsetof(struct ibs_op, microcode) },
};

START_TEST(test_op_data3_bits)
{
	struct ibs_op zero = op_of(0, 0, 0, 0, 0), one = op_of(0, 0, 0, 0, 1ULL << data3_bits[_i].bit);
	unsigned char *a = (unsigned char *)&zero, *b = (unsigned char *)&one;
	size_t i;

	ck_assert_int_eq(b[data3_bits[_i].off], 1);
	ck_assert_uint_eq(one.data3, 1ULL << data3_bits[_i].bit);
	for (i = offsetof(struct ibs_op, ld); i < offsetof(struct ibs_op, l2_miss_valid); i++)
		if (i != data3_bits[_i].off)
			ck_assert_msg(a[i] == b[i], "bit %u also changed byte %zu", data3_bits[_i].bit, i);
}
END_TEST

START_TEST(test_op_data_bits)
{
	struct ibs_op zero = op_of(0, 0, 0, 0, 0), one = op_of(0, 0, 1ULL << data_bits[_i].bit, 0, 0);
	unsigned char *a = (unsigned char *)&zero, *b = (unsigned char *)&one;
	size_t i;

	ck_assert_int_eq(b[data_bits[_i].off], 1);
	for (i = offsetof(struct ibs_op, ret); i <= offsetof(struct ibs_op, microcode); i++)
		if (i != data_bits[_i].off)
			ck_assert_int_eq(a[i], b[i]);
}
END_TEST

START_TEST(test_op_fields)
{
	struct ibs_op op;

	/* counters and widths take their bits and no more */
	op = op_of(0, 0xffffULL | (0x7fULL << 20) | (0x7ffffffULL << 32) | (1ULL << 19), 0xffffffff,
		   0, (0xfULL << 22) | (0x3fULL << 26) | (0xffffULL << 32) | (0xffffULL << 48));
	ck_assert_uint_eq(op.max_cnt, 0x7fffffu << 4);
	ck_assert_uint_eq(op.cur_cnt, 0x7ffffff);
	ck_assert_int_eq(op.cnt_ctl, 1);
	ck_assert_int_eq(op.comp_to_ret, 0xffff);
	ck_assert_int_eq(op.tag_to_ret, 0xffff);
	ck_assert_int_eq(op.ret + op.brn_ret + op.brn_taken, 0);
	ck_assert_int_eq(op.mem_width, 15);
	ck_assert_int_eq(op.open_mem_reqs, 63);
	ck_assert_int_eq(op.dc_miss_lat, 0xffff);
	ck_assert_int_eq(op.tlb_refill_lat, 0xffff);
	ck_assert_int_eq(op.ld + op.st + op.dc_miss + op.sw_pf, 0);
	op = op_of(0, 3, 5ULL << 16, 0, 0);
	ck_assert_int_eq(op.comp_to_ret, 0);
	ck_assert_int_eq(op.tag_to_ret, 5);
	ck_assert_uint_eq(op.max_cnt, 3u << 4);
	/* all bits set: every flag 1 */
	op = op_of(IBS_CAPS_ZEN4, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	ck_assert_int_eq(op.ld & op.st & op.dc_miss & op.l2_miss & op.sw_pf & op.brn_ret & op.ret &
				 op.microcode & op.l3_miss_only & op.rmt_node & op.cache_hit_st,
			 1);
	ck_assert_int_eq(op.data_src, 31);
}
END_TEST

START_TEST(test_op_zen4)
{
	/* DataSrc bits 7:6 and L3MissOnly count only with the ZEN4 caps bit */
	struct ibs_op old = op_of(0, 1ULL << 16, 0, 0xc1, 0x81);
	struct ibs_op z4 = op_of(IBS_CAPS_ZEN4, 1ULL << 16, 0, 0xc1, 0x81);
	struct ibs_op far = op_of(IBS_CAPS_ZEN4, 0, 0, 5, 0x100081);

	ck_assert_int_eq(old.data_src, 1);
	ck_assert_int_eq(old.l3_miss_only, 0);
	ck_assert_int_eq(z4.data_src, 25);
	ck_assert_int_eq(z4.l3_miss_only, 1);
	/* a load that missed L1 but not L2 came from L2 */
	ck_assert_int_eq(old.src, IBS_SRC_L2);
	ck_assert_int_eq(far.src, IBS_SRC_RMT_CACHE);
	/* pre-Zen 4: 2 local cache, 3 DRAM (remote with RmtNode), 4 remote cache, 7 I/O */
	ck_assert_int_eq(op_of(0, 0, 0, 2, 0x100081).src, IBS_SRC_L3);
	ck_assert_int_eq(op_of(0, 0, 0, 3, 0x100081).src, IBS_SRC_DRAM);
	ck_assert_int_eq(op_of(0, 0, 0, 0x13, 0x100081).src, IBS_SRC_RMT_DRAM);
	ck_assert_int_eq(op_of(0, 0, 0, 4, 0x100081).src, IBS_SRC_RMT_CACHE);
	ck_assert_int_eq(op_of(0, 0, 0, 7, 0x100081).src, IBS_SRC_IO);
	ck_assert_int_eq(op_of(IBS_CAPS_ZEN4, 0, 0, 2, 0x100081).src, IBS_SRC_CCX);
	ck_assert_int_eq(op_of(IBS_CAPS_ZEN4, 0, 0, 0x40, 0x100081).src, IBS_SRC_OTHER);
	/* a store, or a load that hit L1, has no source */
	ck_assert_int_eq(op_of(0, 0, 0, 3, 0x100082).src, IBS_SRC_NONE);
	ck_assert_int_eq(op_of(0, 0, 0, 3, 0x100001).src, IBS_SRC_NONE);
}
END_TEST

/* Every length below what the caps word asks for is refused, at every
 * alignment; what it asks for, or more, is decoded. */
START_TEST(test_op_lengths)
{
	static const uint32_t caps[] = { 0, IBS_CAPS_BRNTRGT, IBS_CAPS_OPDATA4,
					 IBS_CAPS_BRNTRGT | IBS_CAPS_OPDATA4 };
	uint64_t r[9] = { OP_VALID, 1, 2, 3, 4, 5, 6, 7, 8 };
	unsigned c, off;

	for (c = 0; c < 4; c++) {
		uint32_t need = IBS_OP_RAW_MIN + 8 * (uint32_t)__builtin_popcount(caps[c]);

		for (off = 0; off < 8; off++) {
			unsigned char *buf = xmalloc(off + 4 + 8 * 9);
			struct ibs_op op;
			uint32_t len;

			mk_raw(buf, off, caps[c], r, 9);
			for (len = 0; len < need; len++) {
				/* a copy of exactly len bytes, for valgrind */
				unsigned char *cut = xmalloc(len ? len : 1);

				memcpy(cut, buf + off, len);
				ck_assert_int_eq(ibs_op_decode(cut, len, 0, 0, &op), -EINVAL);
				ck_assert_uint_eq(op.ctl, 0);
				free(cut);
			}
			ck_assert_int_eq(ibs_op_decode(buf + off, need, 0, 0, &op), 0);
			ck_assert_int_eq(op.has_br_target, !!(caps[c] & IBS_CAPS_BRNTRGT));
			ck_assert_int_eq(op.has_data4, !!(caps[c] & IBS_CAPS_OPDATA4));
			ck_assert_uint_eq(op.dc_phys, 6);
			if (caps[c] & IBS_CAPS_BRNTRGT)
				ck_assert_uint_eq(op.br_target, 7);
			if (caps[c] == (IBS_CAPS_BRNTRGT | IBS_CAPS_OPDATA4))
				ck_assert_uint_eq(op.data4, 8);
			else if (caps[c] == IBS_CAPS_OPDATA4)
				ck_assert_uint_eq(op.data4, 7);
			ck_assert_int_eq(ibs_op_decode(buf + off, need + 8, 0, 0, &op), 0);
			free(buf);
		}
	}
	/* not valid: En or Val clear */
	{
		unsigned char buf[80];
		struct ibs_op op;

		r[0] = 1ULL << 17;
		ck_assert_int_eq(ibs_op_decode(buf, mk_raw(buf, 0, 0, r, 7), 0, 0, &op), -EINVAL);
		r[0] = 1ULL << 18;
		ck_assert_int_eq(ibs_op_decode(buf, mk_raw(buf, 0, 0, r, 7), 0, 0, &op), -EINVAL);
		ck_assert_int_eq(ibs_op_decode(NULL, 60, 0, 0, &op), -EINVAL);
	}
}
END_TEST

static struct ibs_fetch fetch_of(uint32_t caps, uint64_t ctl, uint32_t family, uint32_t model)
{
	unsigned char buf[64];
	uint64_t r[4] = { ctl | FETCH_VALID, 0x401000, 0x2000, 0x1234 };
	struct ibs_fetch f;
	uint32_t n = mk_raw(buf, 0, caps, r, 4);

	ck_assert_int_eq(ibs_fetch_decode(buf, n, family, model, &f), 0);
	return f;
}

START_TEST(test_fetch)
{
	static const struct {
		unsigned bit;
		size_t off;
	} bits[] = {
		{ 50, offsetof(struct ibs_fetch, comp) },
		{ 51, offsetof(struct ibs_fetch, ic_miss) },
		{ 52, offsetof(struct ibs_fetch, phy_valid) },
		{ 55, offsetof(struct ibs_fetch, l1tlb_miss) },
		{ 56, offsetof(struct ibs_fetch, l2tlb_miss) },
		{ 57, offsetof(struct ibs_fetch, rand_en) },
		{ 58, offsetof(struct ibs_fetch, l2_miss) },
	};
	struct ibs_fetch zero = fetch_of(0, 0, 0, 0), f;
	unsigned char buf[64];
	uint64_t r[4] = { FETCH_VALID, 1, 2, 3 };
	size_t i, k;
	uint32_t len;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		f = fetch_of(0, 1ULL << bits[i].bit, 0, 0);
		for (k = offsetof(struct ibs_fetch, en); k <= offsetof(struct ibs_fetch, l3_miss); k++)
			ck_assert_msg(((unsigned char *)&f)[k] ==
					      (k == bits[i].off ? 1 : ((unsigned char *)&zero)[k]),
				      "bit %u byte %zu", bits[i].bit, k);
	}
	f = fetch_of(0, 0x1234 | (0x5678ULL << 16) | (77ULL << 32) | (3ULL << 53), 0, 0);
	ck_assert_uint_eq(f.max_cnt, 0x1234u << 4);
	ck_assert_uint_eq(f.cnt, 0x5678u << 4);
	ck_assert_int_eq(f.lat, 77);
	ck_assert_int_eq(f.pgsz, 3);
	/* the Zen 4 bits only with the caps bit */
	f = fetch_of(0, 7ULL << 59, 0, 0);
	ck_assert_int_eq(f.l3_miss_only + f.oc_miss + f.l3_miss, 0);
	f = fetch_of(IBS_CAPS_ZEN4, 7ULL << 59, 0, 0);
	ck_assert_int_eq(f.l3_miss_only + f.oc_miss + f.l3_miss, 3);
	/* IbsFetchExtd with FETCHCTLEXTD only */
	f = fetch_of(IBS_CAPS_FETCHCTLEXTD, 0, 0, 0);
	ck_assert(f.has_extd);
	ck_assert_int_eq(f.itlb_refill_lat, 0x1234);
	ck_assert(!fetch_of(0, 0, 0, 0).has_extd);
	/* erratum 1238: IcMiss of family 19h models 0-0Fh says nothing */
	ck_assert(!fetch_of(0, 0, 0x19, 0x01).ic_miss_valid);
	ck_assert(fetch_of(0, 0, 0x19, 0x10).ic_miss_valid);
	ck_assert(fetch_of(0, 0, 0x17, 0x01).ic_miss_valid);
	/* lengths */
	mk_raw(buf, 0, IBS_CAPS_FETCHCTLEXTD, r, 4);
	for (len = 0; len < IBS_FETCH_RAW_MIN + 8; len++)
		ck_assert_int_eq(ibs_fetch_decode(buf, len, 0, 0, &f), -EINVAL);
	ck_assert_int_eq(ibs_fetch_decode(buf, len, 0, 0, &f), 0);
	mk_raw(buf, 0, 0, r, 3);
	ck_assert_int_eq(ibs_fetch_decode(buf, IBS_FETCH_RAW_MIN - 1, 0, 0, &f), -EINVAL);
	ck_assert_int_eq(ibs_fetch_decode(buf, IBS_FETCH_RAW_MIN, 0, 0, &f), 0);
	r[0] = 1ULL << 48;
	mk_raw(buf, 0, 0, r, 3);
	ck_assert_int_eq(ibs_fetch_decode(buf, IBS_FETCH_RAW_MIN, 0, 0, &f), -EINVAL);
}
END_TEST

START_TEST(test_errata_1293)
{
	unsigned char buf[80];
	uint64_t r[7] = { OP_VALID, 0, 0, 3, 0x100081 | (1ULL << 16), 0, 0 };
	struct ibs_op op;
	char text[IBS_DUMP_MAX];
	uint32_t n = mk_raw(buf, 0, 0, r, 7);

	ck_assert_int_eq(ibs_op_decode(buf, n, 0x19, 0x01, &op), 0);
	ck_assert(!op.l2_miss_valid && !op.data2_valid);
	ck_assert_int_eq(op.src, IBS_SRC_NONE);
	ibs_op_format_dump(&op, text, sizeof(text));
	ck_assert_ptr_null(strstr(text, "ibs_op_data2"));
	ck_assert_ptr_null(strstr(text, "L2Miss"));
	ck_assert_int_eq(ibs_op_decode(buf, n, 0x19, 0x11, &op), 0);
	ck_assert(op.l2_miss_valid && op.data2_valid);
	ck_assert_int_eq(op.src, IBS_SRC_DRAM);
}
END_TEST

START_TEST(test_cpuid)
{
	uint32_t f, m;

	ck_assert(ibs_cpuid_amd("AuthenticAMD,25,1,1", &f, &m));
	ck_assert_uint_eq(f, 25);
	ck_assert_uint_eq(m, 1);
	ck_assert(ibs_cpuid_amd("AuthenticAMD,23", &f, &m));
	ck_assert_uint_eq(f, 0);
	ck_assert(!ibs_cpuid_amd("GenuineIntel,6,85,4", &f, &m));
	ck_assert(!ibs_cpuid_amd(NULL, &f, &m));
	ck_assert(!ibs_cpuid_amd("AuthenticAMD", &f, &m));
	ck_assert(ibs_cpuid_amd("AuthenticAMD,25,x", &f, &m));
	ck_assert_uint_eq(f, 0);
	{
		struct arch_env env = { .e_machine = EM_X86_64, .cpuid = "AuthenticAMD,25,1,1" };

		arch_env_parse_cpuid(&env);
		ck_assert(env.cpu_known);
		ck_assert_uint_eq(env.cpu_family, 25);
		ck_assert_uint_eq(env.cpu_model, 1);
		env.cpuid = "GenuineIntel,6";
		arch_env_parse_cpuid(&env);
		ck_assert(!env.cpu_known);
		env.cpuid = NULL;
		arch_env_parse_cpuid(&env);
		ck_assert(!env.cpu_known);
	}
}
END_TEST

/* The -D text: perf 6.1's lines for a known block (checked against perf
 * report -D in tests/integration/ibs.sh), and the buffer contract. */
START_TEST(test_dump)
{
	struct ibs_op op = op_of(IBS_CAPS_ZEN4 | IBS_CAPS_BRNTRGT, 0x1234 | (5ULL << 32) | (1ULL << 16),
				 3 | (50ULL << 16) | (7ULL << 35), 0x13, 0xc800d20081ULL);
	char text[IBS_DUMP_MAX], small[40];
	int n;

	n = ibs_op_format_dump(&op, text, sizeof(text));
	ck_assert_int_eq(n, (int)strlen(text));
	ck_assert_str_eq(
		text,
		"ibs_op_ctl:\t0000000500071234 MaxCnt     74560 L3MissOnly 1 En 1 Val 1 CntCtl "
		"0=cycles CurCnt         5\n"
		"IbsOpRip:\t0000000000401000\n"
		"ibs_op_data:\t0000003800320003 CompToRetCtr     3 TagToRetCtr    50 OpReturn 0 "
		"OpBrnTaken 1 OpBrnMisp 1 BrnRet 1  RipInvalid 0 BrnFuse 0 Microcode 0\n"
		"ibs_op_data2:\t0000000000000013 RmtNode 1 DataSrc 3=Data returned from DRAM\n"
		"ibs_op_data3:\t000000c800d20081 LdOp 1 StOp 0 DcL1TlbMiss 0 DcL2TlbMiss 0 "
		"DcL1TlbHit2M 0 DcL1TlbHit1G 0 DcL2TlbHit2M 0 DcMiss 1 DcMisAcc 0 DcWcMemAcc 0 "
		"DcUcMemAcc 0 DcLockedOp 0 DcMissNoMabAlloc 0 DcLinAddrValid 1 DcPhyAddrValid 0 "
		"DcL2TlbHit1G 0 L2Miss 1 SwPf 0 OpMemWidth  4 bytes OpDcMissOpenMemReqs  0 DcMissLat "
		"  200 TlbRefillLat     0\n"
		"IbsDCLinAd:\t00000000007f0000\n");
	ck_assert_int_eq(ibs_op_format_dump(&op, small, sizeof(small)), n);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	/* the longest: every bit set, every register */
	op = op_of(~0u, ~0ULL, ~0ULL & ~(1ULL << 38), ~0ULL, ~0ULL);
	ck_assert_int_lt(ibs_op_format_dump(&op, text, sizeof(text)), IBS_DUMP_MAX);
}
END_TEST

START_TEST(test_stats)
{
	struct ibs_op_stats st, st2;
	struct ibs_op a = op_of(0, 0, (1ULL << 37) | (1ULL << 36) | (1ULL << 34) | (20ULL << 16), 0, 0);
	struct ibs_op b = op_of(0, 0, 10ULL << 16, 3, 0x100081 | (300ULL << 32));
	struct ibs_op c = op_of(0, 0, 0, 0, 0x2 | 0x4);
	const struct payload_ops *p = &ibs_op_payload;
	struct strbuf sb;

	memset(&st, 0, sizeof(st));
	ibs_op_stats_add(&st, &a);
	ibs_op_stats_add(&st, &b);
	ibs_op_stats_add(&st, &c);
	p->stats_add_other(&st);
	ck_assert_uint_eq(st.samples, 3);
	ck_assert_uint_eq(st.other, 1);
	ck_assert_uint_eq(st.branches, 1);
	ck_assert_uint_eq(st.ret_mispredicted, 1);
	ck_assert_uint_eq(st.loads, 1);
	ck_assert_uint_eq(st.stores, 1);
	ck_assert_uint_eq(st.ldst, 2);
	ck_assert_uint_eq(st.dtlb_l1_miss, 1);
	ck_assert_uint_eq(st.lat_sum, 300);
	ck_assert_uint_eq(st.src[IBS_SRC_DRAM], 1);
	ck_assert_uint_eq(st.tag_to_ret_sum, 30);
	ck_assert_int_eq(ibs_op_stats_dominant_src(&st), IBS_SRC_DRAM);
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "branch")) > 33.3);
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "ldlat")) == 300.0);
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "dtlb")) == 50.0);
	ck_assert_str_eq(payload_name(p, &st, 8), "DRAM");
	st2 = st;
	p->stats_merge(&st2, &st);
	ck_assert_uint_eq(st2.samples, 6);
	ck_assert_uint_eq(st2.src[IBS_SRC_DRAM], 2);
	/* word by word: annotate may split a row's stats per instruction */
	ck_assert(ibs_op_payload.stats_counters && ibs_fetch_payload.stats_counters);
	p->stats_decay(&st2, 1, 2);
	ck_assert_uint_eq(st2.samples, 3);
	ck_assert_uint_eq(st2.lat_sum, 300);
	strbuf_init(&sb);
	payload_json(&sb, p, &st, &st);
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"samples\":3,\"branches\":1,"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"dram\":1,"));
	ck_assert_ptr_nonnull(strstr(sb.buf, "\"not_ibs\":1}"));
	strbuf_reset(&sb);
	p->format_detail(&sb, &st, 60);
	ck_assert_ptr_nonnull(strstr(sb.buf, "DRAM 1"));
	strbuf_release(&sb);
	/* the order words are known, once each */
	ck_assert(arch_payload_order_known("ldlat"));
	ck_assert(arch_payload_order_known("fetchlat"));
	ck_assert_ptr_nonnull(strstr(arch_payload_order_keys(), "pctr1, branch, brmisp"));
	ck_assert_ptr_null(strstr(strstr(arch_payload_order_keys(), "l2miss") + 1, "l2miss"));
}
END_TEST

START_TEST(test_fetch_stats)
{
	struct ibs_fetch_stats st;
	struct ibs_fetch a = fetch_of(0, (1ULL << 50) | (1ULL << 51) | (40ULL << 32), 0, 0);
	struct ibs_fetch b = fetch_of(0, (1ULL << 55) | (60ULL << 32), 0x19, 0);
	const struct payload_ops *p = &ibs_fetch_payload;

	memset(&st, 0, sizeof(st));
	ibs_fetch_stats_add(&st, &a);
	ibs_fetch_stats_add(&st, &b);
	ck_assert_uint_eq(st.completed, 1);
	ck_assert_uint_eq(st.aborted, 1);
	ck_assert_uint_eq(st.ic_miss, 1);
	ck_assert_uint_eq(st.ic_miss_known, 1); /* b: erratum 1238 */
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "icmiss")) == 100.0);
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "fetchlat")) == 50.0);
	ck_assert(payload_value(p, &st, &st, payload_order_column(p, "itlb")) == 50.0);
}
END_TEST

/* The recording's headers decide: x86_64, an AMD cpuid, the event's type
 * mapped to ibs_op or ibs_fetch (by prefix, as perf does). */
START_TEST(test_select)
{
	static const struct arch_pmu pmus[] = { { 4, "cpu" }, { 11, "ibs_op" }, { 12, "ibs_fetch" } };
	struct arch_env env = {
		.e_machine = EM_X86_64, .cpuid = "AuthenticAMD,25,17,1", .pmus = pmus, .npmus = 3
	};
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = 11;
	ck_assert_ptr_eq(arch_payload_select(&env, &attr), &ibs_op_arch);
	attr.type = 12;
	ck_assert_ptr_eq(arch_payload_select(&env, &attr), &ibs_fetch_arch);
	attr.type = 4;
	ck_assert_ptr_null(arch_payload_select(&env, &attr));
	attr.type = 11;
	env.cpuid = "GenuineIntel,6,85,4";
	ck_assert_ptr_null(arch_payload_select(&env, &attr));
	env.cpuid = NULL;
	ck_assert_ptr_null(arch_payload_select(&env, &attr));
	env.cpuid = "AuthenticAMD,25,17,1";
	env.e_machine = EM_ALPHA;
	ck_assert_ptr_eq(arch_payload_select(&env, &attr), &profileme_arch);
	env.e_machine = EM_S390;
	ck_assert_ptr_null(arch_payload_select(&env, &attr));
	env.e_machine = EM_X86_64;
	env.npmus = 1;
	ck_assert_ptr_null(arch_payload_select(&env, &attr));
	/* the machine alone finds no IBS */
	ck_assert_ptr_null(arch_payload_find(EM_X86_64));
	ck_assert_str_eq(arch_env_pmu_name(&env, 4), "cpu");
	ck_assert_ptr_null(arch_env_pmu_name(&env, 11));
	ck_assert_ptr_null(arch_env_pmu_name(NULL, 11));
}
END_TEST

/* The rules the live path asks for: the PMU's, the period's. */
START_TEST(test_pmu_rules)
{
	const struct arch_pmu_rules *r = arch_pmu_rules("ibs_op");

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->pmu, "ibs_op");
	ck_assert_str_eq(r->sw_filter_term, "swfilt");
	ck_assert_ptr_nonnull(strstr(r->missing, "AMD"));
	ck_assert_ptr_nonnull(arch_pmu_rules("ibs_fetch"));
	ck_assert_ptr_null(arch_pmu_rules("cpu"));
	ck_assert_ptr_null(arch_pmu_rules(NULL));
	ck_assert_ptr_null(r->period_error(100000 - 100000 % 16));
	ck_assert_ptr_null(r->period_error(0x7fffffULL << 4));
	ck_assert_ptr_nonnull(r->period_error(0x800000ULL << 4));
	ck_assert_ptr_nonnull(strstr(r->period_error(100001), "multiple of 16"));
	ck_assert_ptr_nonnull(r->period_error(0));
	r = arch_pmu_rules("ibs_fetch");
	ck_assert_ptr_null(r->period_error(0xffffULL << 4));
	ck_assert_ptr_nonnull(strstr(r->period_error(0x10000ULL << 4), "1048560"));
	ck_assert_ptr_nonnull(strstr(ibs_period_error("ibs_fetch", 17), "ibs_fetch"));
}
END_TEST

/* The data address hook: IbsDcLinAd (0x7f0000 in op_of) only for a load
 * or a store whose IbsDcLinAddrValid (Data3 bit 17) is set; Fetch and
 * ProfileMe have none. */
START_TEST(test_data_addr)
{
	static const struct {
		uint64_t data3;
		bool has;
	} cases[] = {
		{ 1 | 1ULL << 17, true },           /* load, valid */
		{ 2 | 1ULL << 17, true },           /* store, valid */
		{ 3 | 1ULL << 17, true },           /* both (a read-modify-write) */
		{ 1, false },                       /* load, not valid */
		{ 1ULL << 17, false },              /* valid, neither */
		{ 1ULL << 18 | 1, false },          /* only the physical one valid */
		{ 0, false },
	};
	size_t i;

	ck_assert_ptr_nonnull(ibs_op_payload.data_addr);
	ck_assert_ptr_null(ibs_fetch_payload.data_addr);
	ck_assert_ptr_null(profileme_payload.data_addr);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ibs_op op = op_of(0x1f, 0, 0, 0, cases[i].data3);
		uint64_t addr = 42;

		ck_assert_int_eq(ibs_op_payload.data_addr(&op, &addr), cases[i].has);
		ck_assert_uint_eq(addr, cases[i].has ? 0x7f0000 : 42);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ibs");
	TCase *tc = tcase_create("decode");

	tcase_add_loop_test(tc, test_op_data3_bits, 0, sizeof(data3_bits) / sizeof(data3_bits[0]));
	tcase_add_loop_test(tc, test_op_data_bits, 0, sizeof(data_bits) / sizeof(data_bits[0]));
	tcase_add_test(tc, test_op_fields);
	tcase_add_test(tc, test_op_zen4);
	tcase_add_test(tc, test_op_lengths);
	tcase_add_test(tc, test_fetch);
	tcase_add_test(tc, test_errata_1293);
	tcase_add_test(tc, test_cpuid);
	tcase_add_test(tc, test_dump);
	tcase_add_test(tc, test_stats);
	tcase_add_test(tc, test_fetch_stats);
	tcase_add_test(tc, test_select);
	tcase_add_test(tc, test_pmu_rules);
	tcase_add_test(tc, test_data_addr);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
