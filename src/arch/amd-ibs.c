/* AMD IBS payload decoder: the Op and Fetch register blocks of each sample,
 * read byte by byte from little endian and named as perf names them; the
 * row counters, table columns, JSON and pane text they make.
 * Over 900 lines: two decoders (Op and Fetch) share the reading, the -D
 * text and the arch glue; split into amd-ibs-op.c / -fetch.c if a third
 * register block comes. */
#include "config.h"

#include "amd-ibs.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "payload.h"
#include "textfmt.h"
#include "util.h"

#define BITS(x, lo, n) (((x) >> (lo)) & ((1ULL << (n)) - 1))

/* Little-endian loads from any alignment, on either byte order: one load
 * each on x86 (this runs for every sample). */
static uint32_t ibs_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t ibs_le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

/* A decimal field of a CPUID string at *p, up to the next ',' or the end;
 * false when it is not one.  By hand: this runs for every sample. */
static bool ibs_cpuid_field(const char **p, uint32_t *v)
{
	const char *q = *p;
	uint32_t x = 0;

	if (*q < '0' || *q > '9')
		return false;
	while (*q >= '0' && *q <= '9' && x < 100000000)
		x = x * 10 + (uint32_t)(*q++ - '0');
	if (*q && *q != ',')
		return false;
	*v = x;
	*p = *q ? q + 1 : q;
	return true;
}

bool ibs_cpuid_amd(const char *cpuid, uint32_t *family, uint32_t *model)
{
	const char *p;
	uint32_t f, m;

	*family = *model = 0;
	if (!cpuid || strncmp(cpuid, "AuthenticAMD,", 13) != 0)
		return false;
	p = cpuid + 13;
	/* AMD with no family or model: no errata */
	if (ibs_cpuid_field(&p, &f) && ibs_cpuid_field(&p, &m)) {
		*family = f;
		*model = m;
	}
	return true;
}

/* Family 19h models 00h-0Fh: errata 1238 (IbsIcMiss), 1293 (L2Miss and
 * IbsOpData2 with DcMissNoMabAlloc or SwPf) and 1347 (L1TlbPgSz). */
static bool ibs_errata(uint32_t family, uint32_t model)
{
	return family == 0x19 && model < 0x10;
}

/* The caps word and the registers after it: count registers always, plus
 * those the caps flag.  Returns false when the payload is too short. */
static bool ibs_read_regs(const void *raw, uint32_t raw_size, unsigned count, uint32_t *caps,
			  uint64_t *regs, unsigned nregs_max, unsigned *nregs,
			  const uint32_t *opt_caps, unsigned nopt)
{
	const unsigned char *p = raw;
	unsigned i, n = count;

	if (!raw || raw_size < 4 + 8 * count)
		return false;
	*caps = ibs_le32(p);
	for (i = 0; i < nopt; i++)
		if (*caps & opt_caps[i])
			n++;
	if (n > nregs_max || raw_size < 4 + 8 * n)
		return false;
	for (i = 0; i < n; i++)
		regs[i] = ibs_le64(p + 4 + 8 * i);
	*nregs = n;
	return true;
}

static enum ibs_src ibs_op_src(const struct ibs_op *op)
{
	if (!op->dc_miss)
		return IBS_SRC_NONE;
	if (op->l2_miss_valid && !op->l2_miss)
		return IBS_SRC_L2;
	if (!op->data2_valid)
		return IBS_SRC_NONE;
	if (op->zen4) {
		switch (op->data_src) {
		case 0:
			return IBS_SRC_NONE;
		case 1:
			return IBS_SRC_L3;
		case 2:
			return IBS_SRC_CCX;
		case 3:
			return op->rmt_node ? IBS_SRC_RMT_DRAM : IBS_SRC_DRAM;
		case 5:
			return IBS_SRC_RMT_CACHE;
		case 7:
			return IBS_SRC_IO;
		default:
			return IBS_SRC_OTHER;
		}
	}
	switch (op->data_src) {
	case 0:
		return IBS_SRC_NONE;
	case 2:
		return op->rmt_node ? IBS_SRC_RMT_CACHE : IBS_SRC_L3;
	case 3:
		return op->rmt_node ? IBS_SRC_RMT_DRAM : IBS_SRC_DRAM;
	case 4:
		return IBS_SRC_RMT_CACHE;
	case 7:
		return IBS_SRC_IO;
	default:
		return IBS_SRC_OTHER;
	}
}

int ibs_op_decode(const void *raw, uint32_t raw_size, uint32_t family, uint32_t model,
		  struct ibs_op *out)
{
	static const uint32_t opt[] = { IBS_CAPS_BRNTRGT, IBS_CAPS_OPDATA4 };
	uint64_t r[9], ctl, d, d2, d3;
	unsigned n, k;

	memset(out, 0, sizeof(*out));
	if (!ibs_read_regs(raw, raw_size, 7, &out->caps, r, 9, &n, opt, 2) ||
	    !BITS(r[0], 17, 1) || !BITS(r[0], 18, 1)) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	out->zen4 = out->caps & IBS_CAPS_ZEN4;
	out->cpu_family = family;
	out->cpu_model = model;
	out->ctl = ctl = r[0];
	out->rip = r[1];
	out->data = d = r[2];
	out->data2 = d2 = r[3];
	out->data3 = d3 = r[4];
	out->dc_lin = r[5];
	out->dc_phys = r[6];
	k = 7;
	if (out->caps & IBS_CAPS_BRNTRGT) {
		out->has_br_target = true;
		out->br_target = r[k++];
	}
	if (out->caps & IBS_CAPS_OPDATA4) {
		out->has_data4 = true;
		out->data4 = r[k++];
	}

	out->max_cnt = (uint32_t)((BITS(ctl, 20, 7) << 16 | BITS(ctl, 0, 16)) << 4);
	out->l3_miss_only = out->zen4 ? (uint8_t)BITS(ctl, 16, 1) : 0;
	out->en = (uint8_t)BITS(ctl, 17, 1);
	out->val = (uint8_t)BITS(ctl, 18, 1);
	out->cnt_ctl = (uint8_t)BITS(ctl, 19, 1);
	out->cur_cnt = (uint32_t)BITS(ctl, 32, 27);

	out->comp_to_ret = (uint16_t)BITS(d, 0, 16);
	out->tag_to_ret = (uint16_t)BITS(d, 16, 16);
	out->ret = (uint8_t)BITS(d, 34, 1);
	out->brn_taken = (uint8_t)BITS(d, 35, 1);
	out->brn_misp = (uint8_t)BITS(d, 36, 1);
	out->brn_ret = (uint8_t)BITS(d, 37, 1);
	out->rip_invalid = (uint8_t)BITS(d, 38, 1);
	out->brn_fuse = (uint8_t)BITS(d, 39, 1);
	out->microcode = (uint8_t)BITS(d, 40, 1);

	out->ld = (uint8_t)BITS(d3, 0, 1);
	out->st = (uint8_t)BITS(d3, 1, 1);
	out->dc_l1tlb_miss = (uint8_t)BITS(d3, 2, 1);
	out->dc_l2tlb_miss = (uint8_t)BITS(d3, 3, 1);
	out->dc_l1tlb_hit_2m = (uint8_t)BITS(d3, 4, 1);
	out->dc_l1tlb_hit_1g = (uint8_t)BITS(d3, 5, 1);
	out->dc_l2tlb_hit_2m = (uint8_t)BITS(d3, 6, 1);
	out->dc_miss = (uint8_t)BITS(d3, 7, 1);
	out->dc_mis_acc = (uint8_t)BITS(d3, 8, 1);
	out->dc_wc = (uint8_t)BITS(d3, 13, 1);
	out->dc_uc = (uint8_t)BITS(d3, 14, 1);
	out->dc_locked = (uint8_t)BITS(d3, 15, 1);
	out->dc_no_mab = (uint8_t)BITS(d3, 16, 1);
	out->dc_lin_valid = (uint8_t)BITS(d3, 17, 1);
	out->dc_phy_valid = (uint8_t)BITS(d3, 18, 1);
	out->dc_l2tlb_hit_1g = (uint8_t)BITS(d3, 19, 1);
	out->l2_miss = (uint8_t)BITS(d3, 20, 1);
	out->sw_pf = (uint8_t)BITS(d3, 21, 1);
	out->mem_width = (uint8_t)BITS(d3, 22, 4);
	out->open_mem_reqs = (uint8_t)BITS(d3, 26, 6);
	out->dc_miss_lat = (uint16_t)BITS(d3, 32, 16);
	out->tlb_refill_lat = (uint16_t)BITS(d3, 48, 16);
	out->l2_miss_valid = !(ibs_errata(family, model) && (out->dc_no_mab || out->sw_pf));

	out->data2_valid = out->l2_miss_valid;
	out->data_src = (uint8_t)(BITS(d2, 0, 3) | (out->zen4 ? BITS(d2, 6, 2) << 3 : 0));
	out->rmt_node = (uint8_t)BITS(d2, 4, 1);
	out->cache_hit_st = (uint8_t)BITS(d2, 5, 1);
	out->src = out->ld ? ibs_op_src(out) : IBS_SRC_NONE;
	return 0;
}

int ibs_fetch_decode(const void *raw, uint32_t raw_size, uint32_t family, uint32_t model,
		     struct ibs_fetch *out)
{
	static const uint32_t opt[] = { IBS_CAPS_FETCHCTLEXTD };
	uint64_t r[4], c;
	unsigned n;

	memset(out, 0, sizeof(*out));
	if (!ibs_read_regs(raw, raw_size, 3, &out->caps, r, 4, &n, opt, 1) ||
	    !BITS(r[0], 48, 1) || !BITS(r[0], 49, 1)) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	out->zen4 = out->caps & IBS_CAPS_ZEN4;
	out->cpu_family = family;
	out->cpu_model = model;
	out->ctl = c = r[0];
	out->lin = r[1];
	out->phys = r[2];
	if (n > 3) {
		out->has_extd = true;
		out->extd = r[3];
		out->itlb_refill_lat = (uint16_t)BITS(r[3], 0, 16);
	}
	out->max_cnt = (uint32_t)BITS(c, 0, 16) << 4;
	out->cnt = (uint32_t)BITS(c, 16, 16) << 4;
	out->lat = (uint16_t)BITS(c, 32, 16);
	out->en = (uint8_t)BITS(c, 48, 1);
	out->val = (uint8_t)BITS(c, 49, 1);
	out->comp = (uint8_t)BITS(c, 50, 1);
	out->ic_miss = (uint8_t)BITS(c, 51, 1);
	out->phy_valid = (uint8_t)BITS(c, 52, 1);
	out->pgsz = (uint8_t)BITS(c, 53, 2);
	out->l1tlb_miss = (uint8_t)BITS(c, 55, 1);
	out->l2tlb_miss = (uint8_t)BITS(c, 56, 1);
	out->rand_en = (uint8_t)BITS(c, 57, 1);
	out->l2_miss = (uint8_t)BITS(c, 58, 1);
	if (out->zen4) {
		out->l3_miss_only = (uint8_t)BITS(c, 59, 1);
		out->oc_miss = (uint8_t)BITS(c, 60, 1);
		out->l3_miss = (uint8_t)BITS(c, 61, 1);
	}
	out->ic_miss_valid = !ibs_errata(family, model);
	return 0;
}

/* ---- -D: perf's text ---- */

/* snprintf's convention, appending at *len. */
static void ibs_addf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void ibs_addf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

static const char *const ibs_src_ext_text[] = {
	"",
	" DataSrc 1=Local L3 or other L1/L2 in CCX",
	" DataSrc 2=A peer cache in a near CCX",
	" DataSrc 3=Data returned from DRAM",
	" DataSrc 4=(reserved)",
	" DataSrc 5=A peer cache in a far CCX",
	" DataSrc 6=DRAM address map with \"long latency\" bit set",
	" DataSrc 7=Data returned from MMIO/Config/PCI/APIC",
	" DataSrc 8=Extension Memory (S-Link, GenZ, etc)",
	" DataSrc 9=(reserved)",
	" DataSrc 10=(reserved)",
	" DataSrc 11=(reserved)",
	" DataSrc 12=Peer Agent Memory",
};

static const char *const ibs_src_text[8] = {
	"",
	" DataSrc 1=(reserved)",
	" DataSrc 2=Local node cache",
	" DataSrc 3=DRAM",
	" DataSrc 4=Remote node cache",
	" DataSrc 5=(reserved)",
	" DataSrc 6=(reserved)",
	" DataSrc 7=Other",
};

static const char *ibs_hit_state(const struct ibs_op *op)
{
	bool shown = op->zen4 ? (op->data_src == 1 || op->data_src == 2 || op->data_src == 5) :
				op->data_src == 2;

	if (!shown)
		return "";
	return op->cache_hit_st ? "CacheHitSt 1=O-State " : "CacheHitSt 0=M-state ";
}

int ibs_op_format_dump(const struct ibs_op *op, char *buf, size_t size)
{
	char l3[24] = "", l2[16] = "", width[32] = "", reqs[32] = "";
	size_t len = 0;
	const char *src = "";

	if (size)
		buf[0] = '\0';
	if (op->zen4)
		snprintf(l3, sizeof(l3), " L3MissOnly %d", op->l3_miss_only);
	ibs_addf(buf, size, &len, "ibs_op_ctl:\t%016llx MaxCnt %9d%s En %d Val %d CntCtl %d=%s CurCnt %9d\n",
		 (unsigned long long)op->ctl, (int)op->max_cnt, l3, op->en, op->val, op->cnt_ctl,
		 op->cnt_ctl ? "uOps" : "cycles", (int)op->cur_cnt);
	if (!op->rip_invalid)
		ibs_addf(buf, size, &len, "IbsOpRip:\t%016llx\n", (unsigned long long)op->rip);
	ibs_addf(buf, size, &len,
		 "ibs_op_data:\t%016llx CompToRetCtr %5d TagToRetCtr %5d%s%s%s BrnRet %d "
		 " RipInvalid %d BrnFuse %d Microcode %d\n",
		 (unsigned long long)op->data, op->comp_to_ret, op->tag_to_ret,
		 op->brn_ret ? (op->ret ? " OpReturn 1" : " OpReturn 0") : "",
		 op->brn_ret ? (op->brn_taken ? " OpBrnTaken 1" : " OpBrnTaken 0") : "",
		 op->brn_ret ? (op->brn_misp ? " OpBrnMisp 1" : " OpBrnMisp 0") : "", op->brn_ret,
		 op->rip_invalid, op->brn_fuse, op->microcode);
	if (op->data2_valid) {
		if (op->zen4 && op->data_src < sizeof(ibs_src_ext_text) / sizeof(ibs_src_ext_text[0]))
			src = ibs_src_ext_text[op->data_src];
		else if (!op->zen4)
			src = ibs_src_text[op->data_src & 7];
		ibs_addf(buf, size, &len, "ibs_op_data2:\t%016llx %sRmtNode %d%s\n",
			 (unsigned long long)op->data2, ibs_hit_state(op), op->rmt_node, src);
	}
	if (op->l2_miss_valid) {
		snprintf(l2, sizeof(l2), " L2Miss %d", op->l2_miss);
		snprintf(reqs, sizeof(reqs), " OpDcMissOpenMemReqs %2d", op->open_mem_reqs);
	}
	if (op->mem_width)
		snprintf(width, sizeof(width), " OpMemWidth %2d bytes", 1 << (op->mem_width - 1));
	ibs_addf(buf, size, &len,
		 "ibs_op_data3:\t%016llx LdOp %d StOp %d DcL1TlbMiss %d DcL2TlbMiss %d "
		 "DcL1TlbHit2M %d DcL1TlbHit1G %d DcL2TlbHit2M %d DcMiss %d DcMisAcc %d "
		 "DcWcMemAcc %d DcUcMemAcc %d DcLockedOp %d DcMissNoMabAlloc %d DcLinAddrValid %d "
		 "DcPhyAddrValid %d DcL2TlbHit1G %d%s SwPf %d%s%s DcMissLat %5d TlbRefillLat %5d\n",
		 (unsigned long long)op->data3, op->ld, op->st, op->dc_l1tlb_miss, op->dc_l2tlb_miss,
		 op->dc_l1tlb_hit_2m, op->dc_l1tlb_hit_1g, op->dc_l2tlb_hit_2m, op->dc_miss,
		 op->dc_mis_acc, op->dc_wc, op->dc_uc, op->dc_locked, op->dc_no_mab, op->dc_lin_valid,
		 op->dc_phy_valid, op->dc_l2tlb_hit_1g, l2, op->sw_pf, width, reqs, op->dc_miss_lat,
		 op->tlb_refill_lat);
	if (op->dc_lin_valid)
		ibs_addf(buf, size, &len, "IbsDCLinAd:\t%016llx\n", (unsigned long long)op->dc_lin);
	if (op->dc_phy_valid)
		ibs_addf(buf, size, &len, "IbsDCPhysAd:\t%016llx\n", (unsigned long long)op->dc_phys);
	if (op->brn_ret && op->has_br_target && op->br_target)
		ibs_addf(buf, size, &len, "IbsBrTarget:\t%016llx\n",
			 (unsigned long long)op->br_target);
	return (int)len;
}

int ibs_fetch_format_dump(const struct ibs_fetch *f, char *buf, size_t size)
{
	static const char *const pgsz[4] = { " L1TlbPgSz 4KB", " L1TlbPgSz 2MB", " L1TlbPgSz 1GB",
					     " L1TlbPgSz RESERVED" };
	static const char *const pgsz_1347[4] = { " L1TlbPgSz 4KB", " L1TlbPgSz 16KB",
						  " L1TlbPgSz 2MB", " L1TlbPgSz 1GB" };
	char l3[64] = "";
	size_t len = 0;
	const char *ic = "", *pg = "";

	if (size)
		buf[0] = '\0';
	if (f->phy_valid)
		pg = (f->ic_miss_valid ? pgsz : pgsz_1347)[f->pgsz & 3];
	if (f->ic_miss_valid)
		ic = f->ic_miss ? " IcMiss 1" : " IcMiss 0";
	if (f->zen4)
		snprintf(l3, sizeof(l3), " L3MissOnly %d FetchOcMiss %d FetchL3Miss %d",
			 f->l3_miss_only, f->oc_miss, f->l3_miss);
	ibs_addf(buf, size, &len,
		 "ibs_fetch_ctl:\t%016llx MaxCnt %7d Cnt %7d Lat %5d En %d Val %d Comp %d%s "
		 "PhyAddrValid %d%s L1TlbMiss %d L2TlbMiss %d RandEn %d%s%s\n",
		 (unsigned long long)f->ctl, (int)f->max_cnt, (int)f->cnt, f->lat, f->en, f->val,
		 f->comp, ic, f->phy_valid, pg, f->l1tlb_miss, f->l2tlb_miss, f->rand_en,
		 f->comp ? (f->l2_miss ? " L2Miss 1" : " L2Miss 0") : "", l3);
	ibs_addf(buf, size, &len, "IbsFetchLinAd:\t%016llx\n", (unsigned long long)f->lin);
	if (f->phy_valid)
		ibs_addf(buf, size, &len, "IbsFetchPhysAd:\t%016llx\n", (unsigned long long)f->phys);
	if (f->has_extd)
		ibs_addf(buf, size, &len, "ic_ibs_ext_ctl:\t%016llx IbsItlbRefillLat %3d\n",
			 (unsigned long long)f->extd, f->itlb_refill_lat);
	return (int)len;
}

/* ---- per-row counters ---- */

static const char *const ibs_src_names[IBS_SRC_NR] = {
	[IBS_SRC_NONE] = "none",
	[IBS_SRC_L2] = "L2",
	[IBS_SRC_L3] = "L3",
	[IBS_SRC_CCX] = "other CCX",
	[IBS_SRC_DRAM] = "DRAM",
	[IBS_SRC_RMT_CACHE] = "remote cache",
	[IBS_SRC_RMT_DRAM] = "remote DRAM",
	[IBS_SRC_IO] = "I/O",
	[IBS_SRC_OTHER] = "other",
};

/* JSON keys of the classes. */
static const char *const ibs_src_keys[IBS_SRC_NR] = {
	[IBS_SRC_NONE] = "none",
	[IBS_SRC_L2] = "l2",
	[IBS_SRC_L3] = "l3",
	[IBS_SRC_CCX] = "other_ccx",
	[IBS_SRC_DRAM] = "dram",
	[IBS_SRC_RMT_CACHE] = "remote_cache",
	[IBS_SRC_RMT_DRAM] = "remote_dram",
	[IBS_SRC_IO] = "io",
	[IBS_SRC_OTHER] = "other",
};

const char *ibs_src_name(enum ibs_src src)
{
	return (unsigned)src < IBS_SRC_NR ? ibs_src_names[src] : "?";
}

void ibs_op_stats_add(struct ibs_op_stats *st, const struct ibs_op *op)
{
	st->samples++;
	if (op->brn_ret) {
		st->branches++;
		st->taken += op->brn_taken;
		st->mispredicted += op->brn_misp;
		st->returns += op->ret;
		st->ret_mispredicted += op->ret && op->brn_misp;
	}
	st->loads += op->ld;
	st->stores += op->st;
	if (op->ld) {
		st->load_dc_miss += op->dc_miss;
		if (op->l2_miss_valid) {
			st->load_l2_known++;
			st->load_l2_miss += op->dc_miss && op->l2_miss;
		}
		if (op->dc_miss) {
			st->lat_sum += op->dc_miss_lat;
			st->lat_n++;
			st->src[op->src]++;
		}
	}
	if (op->ld || op->st) {
		st->ldst++;
		st->dtlb_l1_miss += op->dc_l1tlb_miss;
		st->dtlb_l2_miss += op->dc_l2tlb_miss;
	}
	st->tag_to_ret_sum += op->tag_to_ret;
	st->comp_to_ret_sum += op->comp_to_ret;
	st->locked += op->dc_locked;
	st->uncacheable += op->dc_uc;
	st->misaligned += op->dc_mis_acc;
	st->microcode += op->microcode;
	st->fused += op->brn_fuse;
}

void ibs_fetch_stats_add(struct ibs_fetch_stats *st, const struct ibs_fetch *f)
{
	st->samples++;
	st->completed += f->comp;
	st->aborted += !f->comp;
	if (f->ic_miss_valid) {
		st->ic_miss_known++;
		st->ic_miss += f->ic_miss;
	}
	st->l1tlb_miss += f->l1tlb_miss;
	st->l2tlb_miss += f->l2tlb_miss;
	st->l2_miss += f->comp && f->l2_miss;
	st->zen4 += f->zen4;
	st->l3_miss += f->l3_miss;
	st->oc_miss += f->oc_miss;
	st->lat_sum += f->lat;
}

enum ibs_src ibs_op_stats_dominant_src(const struct ibs_op_stats *st)
{
	enum ibs_src best = IBS_SRC_NONE;
	int s;

	for (s = IBS_SRC_NONE + 1; s < IBS_SRC_NR; s++)
		if (st->src[s] > (best == IBS_SRC_NONE ? 0 : st->src[best]))
			best = (enum ibs_src)s;
	return best;
}

/* Both stats structs are arrays of uint64_t in disguise. */
_Static_assert(sizeof(struct ibs_op_stats) % 8 == 0, "uint64_t counters only");
_Static_assert(sizeof(struct ibs_fetch_stats) % 8 == 0, "uint64_t counters only");

static double ibs_mean(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : -1.0;
}

/* ---- Op: columns, JSON, pane ---- */

enum {
	OP_COL_BRANCH,
	OP_COL_MISP,
	OP_COL_TAKEN,
	OP_COL_RETMISP,
	OP_COL_LOAD,
	OP_COL_STORE,
	OP_COL_DCMISS,
	OP_COL_L2MISS,
	OP_COL_SRC,
	OP_COL_DTLB1,
	OP_COL_DTLB2,
	OP_COL_LDLAT,
	OP_COL_TAG2RET,
	OP_COL_COMP2RET,
	OP_COL__MAX,
};

/* Branches: % of the row's ops; mispredicted and taken: % of its
 * branches; returns mispredicted: % of its returns; DC and L2 miss: % of
 * its loads; DTLB: % of its loads and stores; the latencies: means in
 * cycles.  On a narrow screen the source name and the rarer measures go
 * first. */
static const struct payload_column ibs_op_columns[OP_COL__MAX] = {
	[OP_COL_BRANCH] = { "Branch", "branches_pct", PAYLOAD_PERCENT, 0, 12, "branch" },
	[OP_COL_MISP] = { "BrMisp", "mispredicted_pct", PAYLOAD_PERCENT, 0, 11, "brmisp" },
	[OP_COL_TAKEN] = { "Taken", "taken_pct", PAYLOAD_PERCENT, 0, 6, "taken" },
	[OP_COL_RETMISP] = { "RetMisp", "ret_mispredicted_pct", PAYLOAD_PERCENT, 0, 2, "retmisp" },
	[OP_COL_LOAD] = { "Load", "loads_pct", PAYLOAD_PERCENT, 0, 13, "loads" },
	[OP_COL_STORE] = { "Store", "stores_pct", PAYLOAD_PERCENT, 0, 8, "stores" },
	[OP_COL_DCMISS] = { "DCmiss", "dc_miss_pct", PAYLOAD_PERCENT, 0, 14, "dcmiss" },
	[OP_COL_L2MISS] = { "L2miss", "l2_miss_pct", PAYLOAD_PERCENT, 0, 9, "l2miss" },
	[OP_COL_SRC] = { "Source", "source", PAYLOAD_NAME, 12, 1, NULL },
	[OP_COL_DTLB1] = { "DTLB1", "dtlb_l1_miss_pct", PAYLOAD_PERCENT, 0, 5, "dtlb" },
	[OP_COL_DTLB2] = { "DTLB2", "dtlb_l2_miss_pct", PAYLOAD_PERCENT, 0, 4, "dtlb2" },
	[OP_COL_LDLAT] = { "LdLat", "load_latency", PAYLOAD_MEAN, 0, 10, "ldlat" },
	[OP_COL_TAG2RET] = { "Tag2Ret", "tag_to_retire", PAYLOAD_MEAN, 0, 7, "tag2ret" },
	[OP_COL_COMP2RET] = { "Cmp2Ret", "comp_to_retire", PAYLOAD_MEAN, 0, 3, "comp2ret" },
};

static double ibs_op_column_value(const void *stats, const void *total, size_t col)
{
	const struct ibs_op_stats *st = stats;

	(void)total;
	switch (col) {
	case OP_COL_BRANCH:
		return payload_pct(st->branches, st->samples);
	case OP_COL_MISP:
		return payload_pct(st->mispredicted, st->branches);
	case OP_COL_TAKEN:
		return payload_pct(st->taken, st->branches);
	case OP_COL_RETMISP:
		return payload_pct(st->ret_mispredicted, st->returns);
	case OP_COL_LOAD:
		return payload_pct(st->loads, st->samples);
	case OP_COL_STORE:
		return payload_pct(st->stores, st->samples);
	case OP_COL_DCMISS:
		return payload_pct(st->load_dc_miss, st->loads);
	case OP_COL_L2MISS:
		return payload_pct(st->load_l2_miss, st->load_l2_known);
	case OP_COL_DTLB1:
		return payload_pct(st->dtlb_l1_miss, st->ldst);
	case OP_COL_DTLB2:
		return payload_pct(st->dtlb_l2_miss, st->ldst);
	case OP_COL_LDLAT:
		return ibs_mean(st->lat_sum, st->lat_n);
	case OP_COL_TAG2RET:
		return ibs_mean(st->tag_to_ret_sum, st->samples);
	case OP_COL_COMP2RET:
		return ibs_mean(st->comp_to_ret_sum, st->samples);
	default:
		return -1.0;
	}
}

static const char *ibs_op_column_name(const void *stats, size_t col)
{
	enum ibs_src s;

	if (col != OP_COL_SRC)
		return NULL;
	s = ibs_op_stats_dominant_src(stats);
	return s == IBS_SRC_NONE ? NULL : ibs_src_name(s);
}

/* Counts, so that rows add up to the total; the names are a contract for
 * scripts (README, man page). */
static void ibs_op_format_json(struct strbuf *sb, const void *stats)
{
	const struct ibs_op_stats *st = stats;
	int s;

	strbuf_addf(sb,
		    "{\"samples\":%llu,\"branches\":%llu,\"taken\":%llu,\"mispredicted\":%llu,"
		    "\"returns\":%llu,\"ret_mispredicted\":%llu,\"loads\":%llu,\"stores\":%llu,"
		    "\"dc_miss\":%llu,\"l2_miss\":%llu,\"l2_known\":%llu,\"loads_stores\":%llu,"
		    "\"dtlb_l1_miss\":%llu,\"dtlb_l2_miss\":%llu,\"load_latency_sum\":%llu,"
		    "\"load_latency_n\":%llu,\"tag_to_retire_sum\":%llu,"
		    "\"comp_to_retire_sum\":%llu,\"locked\":%llu,\"uncacheable\":%llu,"
		    "\"misaligned\":%llu,\"microcode\":%llu,\"fused\":%llu,\"source\":{",
		    (unsigned long long)st->samples, (unsigned long long)st->branches,
		    (unsigned long long)st->taken, (unsigned long long)st->mispredicted,
		    (unsigned long long)st->returns, (unsigned long long)st->ret_mispredicted,
		    (unsigned long long)st->loads, (unsigned long long)st->stores,
		    (unsigned long long)st->load_dc_miss, (unsigned long long)st->load_l2_miss,
		    (unsigned long long)st->load_l2_known, (unsigned long long)st->ldst,
		    (unsigned long long)st->dtlb_l1_miss, (unsigned long long)st->dtlb_l2_miss,
		    (unsigned long long)st->lat_sum, (unsigned long long)st->lat_n,
		    (unsigned long long)st->tag_to_ret_sum, (unsigned long long)st->comp_to_ret_sum,
		    (unsigned long long)st->locked, (unsigned long long)st->uncacheable,
		    (unsigned long long)st->misaligned, (unsigned long long)st->microcode,
		    (unsigned long long)st->fused);
	for (s = 0; s < IBS_SRC_NR; s++)
		strbuf_addf(sb, "%s\"%s\":%llu", s ? "," : "", ibs_src_keys[s],
			    (unsigned long long)st->src[s]);
	strbuf_addf(sb, "},\"not_ibs\":%llu}", (unsigned long long)st->other);
}

/* "name N (P%)", P of whole, wrapped into the pane's width. */
static void ibs_count_pct(struct strbuf *sb, size_t *line, struct strbuf *w, size_t width,
			  const char *name, uint64_t part, uint64_t whole)
{
	strbuf_reset(w);
	strbuf_addf(w, "%s %llu (", name, (unsigned long long)part);
	textfmt_fixed(w, whole ? 100.0 * (double)part / (double)whole : 0.0, 1);
	strbuf_addstr(w, "%)");
	textfmt_wrap(sb, line, w->buf, width, "  ");
}

static void ibs_op_format_detail(struct strbuf *sb, const void *stats, size_t width)
{
	const struct ibs_op_stats *st = stats;
	struct strbuf w;
	size_t line;
	int s;

	strbuf_init(&w);
	strbuf_addf(sb, "  ops %llu  not IBS %llu\n", (unsigned long long)st->samples,
		    (unsigned long long)st->other);
	line = sb->len;
	strbuf_addstr(sb, "  ");
	ibs_count_pct(sb, &line, &w, width, "branches", st->branches, st->samples);
	ibs_count_pct(sb, &line, &w, width, "taken", st->taken, st->branches);
	ibs_count_pct(sb, &line, &w, width, "mispredicted", st->mispredicted, st->branches);
	ibs_count_pct(sb, &line, &w, width, "returns mispredicted", st->ret_mispredicted,
		      st->returns);
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  ");
	ibs_count_pct(sb, &line, &w, width, "loads", st->loads, st->samples);
	ibs_count_pct(sb, &line, &w, width, "stores", st->stores, st->samples);
	ibs_count_pct(sb, &line, &w, width, "L1D miss (loads)", st->load_dc_miss, st->loads);
	ibs_count_pct(sb, &line, &w, width, "L2 miss (loads)", st->load_l2_miss,
		      st->load_l2_known);
	ibs_count_pct(sb, &line, &w, width, "DTLB L1 miss", st->dtlb_l1_miss, st->ldst);
	ibs_count_pct(sb, &line, &w, width, "DTLB L2 miss", st->dtlb_l2_miss, st->ldst);
	ibs_count_pct(sb, &line, &w, width, "locked", st->locked, st->samples);
	ibs_count_pct(sb, &line, &w, width, "uncacheable", st->uncacheable, st->samples);
	ibs_count_pct(sb, &line, &w, width, "misaligned", st->misaligned, st->samples);
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  data source of L1D-missing loads:");
	for (s = IBS_SRC_L2; s < IBS_SRC_NR; s++) {
		strbuf_reset(&w);
		strbuf_addf(&w, "%s %llu", ibs_src_name((enum ibs_src)s),
			    (unsigned long long)st->src[s]);
		textfmt_wrap(sb, &line, w.buf, width, "    ");
	}
	strbuf_reset(&w);
	strbuf_addf(&w, "unknown %llu", (unsigned long long)st->src[IBS_SRC_NONE]);
	textfmt_wrap(sb, &line, w.buf, width, "    ");
	strbuf_addch(sb, '\n');
	strbuf_addstr(sb, "  mean cycles: load miss latency ");
	textfmt_fixed(sb, st->lat_n ? (double)st->lat_sum / (double)st->lat_n : 0.0, 1);
	strbuf_addstr(sb, "  tag to retire ");
	textfmt_fixed(sb, st->samples ? (double)st->tag_to_ret_sum / (double)st->samples : 0.0, 1);
	strbuf_addstr(sb, "  completion to retire ");
	textfmt_fixed(sb, st->samples ? (double)st->comp_to_ret_sum / (double)st->samples : 0.0, 1);
	strbuf_addch(sb, '\n');
	strbuf_release(&w);
}

static void ibs_op_p_add(void *stats, const void *decoded)
{
	ibs_op_stats_add(stats, decoded);
}

static void ibs_op_p_add_other(void *stats)
{
	((struct ibs_op_stats *)stats)->other++;
}

static void ibs_op_p_merge(void *dst, const void *src)
{
	payload_u64_merge(dst, src, sizeof(struct ibs_op_stats));
}

static void ibs_op_p_decay(void *stats, unsigned num, unsigned den)
{
	payload_u64_decay(stats, sizeof(struct ibs_op_stats), num, den);
}

static uint64_t ibs_op_p_samples(const void *stats)
{
	return ((const struct ibs_op_stats *)stats)->samples;
}

/* IbsDcLinAd, only where IbsOpData3 says the op is a load or a store and
 * the address is valid (IbsDcLinAddrValid), as the kernel's
 * perf_ibs_get_data_addr decides PERF_SAMPLE_ADDR for perf mem. */
static bool ibs_op_p_data_addr(const void *decoded, uint64_t *addr)
{
	const struct ibs_op *op = decoded;

	if (!(op->ld || op->st) || !op->dc_lin_valid)
		return false;
	*addr = op->dc_lin;
	return true;
}

const struct payload_ops ibs_op_payload = {
	.name = "ibs_op",
	.title = "IBS Op",
	.family = "ibs",
	.stats_size = sizeof(struct ibs_op_stats),
	.stats_add = ibs_op_p_add,
	.stats_add_other = ibs_op_p_add_other,
	.stats_merge = ibs_op_p_merge,
	.stats_decay = ibs_op_p_decay,
	.stats_samples = ibs_op_p_samples,
	.stats_counters = true,
	.columns = ibs_op_columns,
	.nr_columns = OP_COL__MAX,
	.column_value = ibs_op_column_value,
	.column_name = ibs_op_column_name,
	.format_json = ibs_op_format_json,
	.format_detail = ibs_op_format_detail,
	.data_addr = ibs_op_p_data_addr,
};

/* ---- Fetch: columns, JSON, pane ---- */

enum {
	FE_COL_ICMISS,
	FE_COL_ITLB1,
	FE_COL_ITLB2,
	FE_COL_LAT,
	FE_COL_COMP,
	FE_COL_ABORT,
	FE_COL_L2MISS,
	FE_COL__MAX,
};

/* % of the row's fetches (the I-cache miss of those that report it, the
 * L2 miss of the completed); the mean fetch latency in cycles. */
static const struct payload_column ibs_fetch_columns[FE_COL__MAX] = {
	[FE_COL_ICMISS] = { "ICmiss", "ic_miss_pct", PAYLOAD_PERCENT, 0, 7, "icmiss" },
	[FE_COL_ITLB1] = { "ITLB1", "itlb_l1_miss_pct", PAYLOAD_PERCENT, 0, 5, "itlb" },
	[FE_COL_ITLB2] = { "ITLB2", "itlb_l2_miss_pct", PAYLOAD_PERCENT, 0, 4, "itlb2" },
	[FE_COL_LAT] = { "FetLat", "fetch_latency", PAYLOAD_MEAN, 0, 6, "fetchlat" },
	[FE_COL_COMP] = { "Compl", "completed_pct", PAYLOAD_PERCENT, 0, 2, "completed" },
	[FE_COL_ABORT] = { "Abort", "aborted_pct", PAYLOAD_PERCENT, 0, 3, "aborted" },
	[FE_COL_L2MISS] = { "L2miss", "l2_miss_pct", PAYLOAD_PERCENT, 0, 1, "l2miss" },
};

static double ibs_fetch_column_value(const void *stats, const void *total, size_t col)
{
	const struct ibs_fetch_stats *st = stats;

	(void)total;
	switch (col) {
	case FE_COL_ICMISS:
		return payload_pct(st->ic_miss, st->ic_miss_known);
	case FE_COL_ITLB1:
		return payload_pct(st->l1tlb_miss, st->samples);
	case FE_COL_ITLB2:
		return payload_pct(st->l2tlb_miss, st->samples);
	case FE_COL_LAT:
		return ibs_mean(st->lat_sum, st->samples);
	case FE_COL_COMP:
		return payload_pct(st->completed, st->samples);
	case FE_COL_ABORT:
		return payload_pct(st->aborted, st->samples);
	case FE_COL_L2MISS:
		return payload_pct(st->l2_miss, st->completed);
	default:
		return -1.0;
	}
}

static void ibs_fetch_format_json(struct strbuf *sb, const void *stats)
{
	const struct ibs_fetch_stats *st = stats;

	strbuf_addf(sb,
		    "{\"samples\":%llu,\"completed\":%llu,\"aborted\":%llu,\"ic_miss\":%llu,"
		    "\"ic_miss_known\":%llu,\"itlb_l1_miss\":%llu,\"itlb_l2_miss\":%llu,"
		    "\"l2_miss\":%llu,\"l3_miss\":%llu,\"oc_miss\":%llu,\"zen4\":%llu,"
		    "\"latency_sum\":%llu,\"not_ibs\":%llu}",
		    (unsigned long long)st->samples, (unsigned long long)st->completed,
		    (unsigned long long)st->aborted, (unsigned long long)st->ic_miss,
		    (unsigned long long)st->ic_miss_known, (unsigned long long)st->l1tlb_miss,
		    (unsigned long long)st->l2tlb_miss, (unsigned long long)st->l2_miss,
		    (unsigned long long)st->l3_miss, (unsigned long long)st->oc_miss,
		    (unsigned long long)st->zen4, (unsigned long long)st->lat_sum,
		    (unsigned long long)st->other);
}

static void ibs_fetch_format_detail(struct strbuf *sb, const void *stats, size_t width)
{
	const struct ibs_fetch_stats *st = stats;
	struct strbuf w;
	size_t line;

	strbuf_init(&w);
	strbuf_addf(sb, "  fetches %llu  not IBS %llu  mean latency ",
		    (unsigned long long)st->samples, (unsigned long long)st->other);
	textfmt_fixed(sb, st->samples ? (double)st->lat_sum / (double)st->samples : 0.0, 1);
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  ");
	ibs_count_pct(sb, &line, &w, width, "completed", st->completed, st->samples);
	ibs_count_pct(sb, &line, &w, width, "aborted", st->aborted, st->samples);
	ibs_count_pct(sb, &line, &w, width, "I-cache miss", st->ic_miss, st->ic_miss_known);
	ibs_count_pct(sb, &line, &w, width, "ITLB L1 miss", st->l1tlb_miss, st->samples);
	ibs_count_pct(sb, &line, &w, width, "ITLB L2 miss", st->l2tlb_miss, st->samples);
	ibs_count_pct(sb, &line, &w, width, "L2 miss", st->l2_miss, st->completed);
	if (st->zen4) {
		ibs_count_pct(sb, &line, &w, width, "L3 miss", st->l3_miss, st->zen4);
		ibs_count_pct(sb, &line, &w, width, "op cache miss", st->oc_miss, st->zen4);
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&w);
}

static void ibs_fetch_p_add(void *stats, const void *decoded)
{
	ibs_fetch_stats_add(stats, decoded);
}

static void ibs_fetch_p_add_other(void *stats)
{
	((struct ibs_fetch_stats *)stats)->other++;
}

static void ibs_fetch_p_merge(void *dst, const void *src)
{
	payload_u64_merge(dst, src, sizeof(struct ibs_fetch_stats));
}

static void ibs_fetch_p_decay(void *stats, unsigned num, unsigned den)
{
	payload_u64_decay(stats, sizeof(struct ibs_fetch_stats), num, den);
}

static uint64_t ibs_fetch_p_samples(const void *stats)
{
	return ((const struct ibs_fetch_stats *)stats)->samples;
}

const struct payload_ops ibs_fetch_payload = {
	.name = "ibs_fetch",
	.title = "IBS Fetch",
	.family = "ibs",
	.stats_size = sizeof(struct ibs_fetch_stats),
	.stats_add = ibs_fetch_p_add,
	.stats_add_other = ibs_fetch_p_add_other,
	.stats_merge = ibs_fetch_p_merge,
	.stats_decay = ibs_fetch_p_decay,
	.stats_samples = ibs_fetch_p_samples,
	.stats_counters = true,
	.columns = ibs_fetch_columns,
	.nr_columns = FE_COL__MAX,
	.column_value = ibs_fetch_column_value,
	.format_json = ibs_fetch_format_json,
	.format_detail = ibs_fetch_format_detail,
};

/* ---- the perf side: which events, decoding, -D, the attr ---- */

/* The event is the PMU named name in env ("ibs_op", as perf matches it:
 * by prefix) and the samples come from an AMD CPU. */
static bool ibs_selects(const struct arch_env *env, const struct perf_event_attr *attr,
			const char *name)
{
	const char *pmu = arch_env_pmu_name(env, attr->type);
	uint32_t f, m;

	return pmu && strncmp(pmu, name, strlen(name)) == 0 && ibs_cpuid_amd(env->cpuid, &f, &m);
}

static bool ibs_op_a_selects(const struct arch_env *env, const struct perf_event_attr *attr)
{
	return ibs_selects(env, attr, "ibs_op");
}

static bool ibs_fetch_a_selects(const struct arch_env *env, const struct perf_event_attr *attr)
{
	return ibs_selects(env, attr, "ibs_fetch");
}

/* The selected event's samples are all IBS: decode says which are valid. */
static bool ibs_a_applies(const struct perf_event_attr *attr, const void *raw, uint32_t raw_size)
{
	(void)attr;
	(void)raw;
	return raw_size >= 4;
}

static void ibs_env_model(const struct arch_env *env, uint32_t *family, uint32_t *model)
{
	if (env && env->cpu_known) {
		*family = env->cpu_family;
		*model = env->cpu_model;
	} else if (!env || !ibs_cpuid_amd(env->cpuid, family, model)) {
		*family = *model = 0;
	}
}

static int ibs_op_a_decode_in(const struct arch_env *env, const void *raw, uint32_t raw_size,
			      void *decoded)
{
	uint32_t f, m;

	ibs_env_model(env, &f, &m);
	return ibs_op_decode(raw, raw_size, f, m, decoded);
}

static int ibs_op_a_decode(const void *raw, uint32_t raw_size, void *decoded)
{
	return ibs_op_decode(raw, raw_size, 0, 0, decoded);
}

static int ibs_op_a_format_dump(const void *decoded, char *buf, size_t size)
{
	return ibs_op_format_dump(decoded, buf, size);
}

static int ibs_fetch_a_decode_in(const struct arch_env *env, const void *raw, uint32_t raw_size,
				 void *decoded)
{
	uint32_t f, m;

	ibs_env_model(env, &f, &m);
	return ibs_fetch_decode(raw, raw_size, f, m, decoded);
}

static int ibs_fetch_a_decode(const void *raw, uint32_t raw_size, void *decoded)
{
	return ibs_fetch_decode(raw, raw_size, 0, 0, decoded);
}

static int ibs_fetch_a_format_dump(const void *decoded, char *buf, size_t size)
{
	return ibs_fetch_format_dump(decoded, buf, size);
}

/* The registers beyond the ip come only with PERF_SAMPLE_RAW. */
static void ibs_a_adjust_attr(struct perf_event_attr *attr)
{
	attr->sample_type |= PERF_SAMPLE_RAW;
}

const char *ibs_period_error(const char *pmu, uint64_t period)
{
	bool op = strcmp(pmu, "ibs_op") == 0;
	uint64_t max = op ? 0x7fffffULL << 4 : 0xffffULL << 4;

	if (period & 0xf)
		return op ? "-c: an ibs_op period is a multiple of 16 (the low 4 bits of "
			    "IbsOpMaxCnt are not kept)" :
			    "-c: an ibs_fetch period is a multiple of 16 (the low 4 bits of "
			    "IbsFetchMaxCnt are not kept)";
	if (period < 16 || period > max)
		return op ? "-c: an ibs_op period is 16 to 134217712 (23 bits of IbsOpMaxCnt, "
			    "in units of 16)" :
			    "-c: an ibs_fetch period is 16 to 1048560 (16 bits of IbsFetchMaxCnt, "
			    "in units of 16)";
	return NULL;
}

static const char *ibs_op_period_error(uint64_t period)
{
	return ibs_period_error("ibs_op", period);
}

static const char *ibs_fetch_period_error(uint64_t period)
{
	return ibs_period_error("ibs_fetch", period);
}

#define IBS_MISSING                                                                       \
	"AMD IBS needs an AMD CPU (family 10h or later) with the kernel's IBS driver, and " \
	"no VM hides it"

/* The kernel's perf_ibs_init refuses exclude_hv and exclude_guest, and
 * exclude_kernel unless its software filter (swfilt) is on. */
static const struct arch_pmu_rules ibs_op_rules = { "ibs_op", IBS_MISSING, ibs_op_period_error,
						    "swfilt" };
static const struct arch_pmu_rules ibs_fetch_rules = { "ibs_fetch", IBS_MISSING,
						       ibs_fetch_period_error, "swfilt" };

const struct arch_payload_ops ibs_op_arch = {
	.payload = &ibs_op_payload,
	.e_machine = EM_X86_64,
	.decoded_size = sizeof(struct ibs_op),
	.applies = ibs_a_applies,
	.decode = ibs_op_a_decode,
	.format_dump = ibs_op_a_format_dump,
	.adjust_attr = ibs_a_adjust_attr,
	.selects = ibs_op_a_selects,
	.decode_in = ibs_op_a_decode_in,
	.pmu_rules = &ibs_op_rules,
};

const struct arch_payload_ops ibs_fetch_arch = {
	.payload = &ibs_fetch_payload,
	.e_machine = EM_X86_64,
	.decoded_size = sizeof(struct ibs_fetch),
	.applies = ibs_a_applies,
	.decode = ibs_fetch_a_decode,
	.format_dump = ibs_fetch_a_format_dump,
	.adjust_attr = ibs_a_adjust_attr,
	.selects = ibs_fetch_a_selects,
	.decode_in = ibs_fetch_a_decode_in,
	.pmu_rules = &ibs_fetch_rules,
};
