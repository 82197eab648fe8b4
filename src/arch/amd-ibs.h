/* AMD Instruction-Based Sampling: decoding of the PERF_SAMPLE_RAW register
 * block the kernel's ibs_op and ibs_fetch PMUs attach to each sample, its
 * -D lines (perf's amd-sample-raw.c text), and per-row counters.  Bytes in,
 * fields out: no terminal, no engine.
 *
 * Layout (little endian, whatever the host; any alignment), as
 * arch/x86/events/amd/ibs.c writes it:
 *	u32 caps, then u64 registers:
 *	op:    IbsOpCtl IbsOpRip IbsOpData IbsOpData2 IbsOpData3 IbsDcLinAd
 *	       IbsDcPhysAd [IbsBrTarget if caps BRNTRGT] [IbsOpData4 if OPDATA4]
 *	fetch: IbsFetchCtl IbsFetchLinAd IbsFetchPhysAd [IbsFetchExtd if
 *	       caps FETCHCTLEXTD]
 * A payload shorter than the caps word says is not IBS; a longer one (the
 * kernel pads to 8 bytes) is fine.  Field layouts: the kernel's
 * arch/x86/include/asm/amd-ibs.h; the Zen 4 fields (DataSrc high bits,
 * L3MissOnly, FetchOcMiss, FetchL3Miss) count only with the caps word's
 * ZEN4 bit, the bit the kernel's zen4_ibs_extensions PMU cap reports. */
#ifndef PROFTOP_AMD_IBS_H
#define PROFTOP_AMD_IBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The caps word (Fn8000_001B_EAX, bit 0 = IBS present). */
#define IBS_CAPS_AVAIL (1u << 0)
#define IBS_CAPS_FETCHSAM (1u << 1)
#define IBS_CAPS_OPSAM (1u << 2)
#define IBS_CAPS_RDWROPCNT (1u << 3)
#define IBS_CAPS_OPCNT (1u << 4)
#define IBS_CAPS_BRNTRGT (1u << 5)
#define IBS_CAPS_OPCNTEXT (1u << 6)
#define IBS_CAPS_RIPINVALIDCHK (1u << 7)
#define IBS_CAPS_OPBRNFUSE (1u << 8)
#define IBS_CAPS_FETCHCTLEXTD (1u << 9)
#define IBS_CAPS_OPDATA4 (1u << 10)
#define IBS_CAPS_ZEN4 (1u << 11)

/* Bytes of the payload without the optional registers. */
#define IBS_OP_RAW_MIN (4 + 7 * 8)
#define IBS_FETCH_RAW_MIN (4 + 3 * 8)

/* Where a load's data came from, by class.  IBS_SRC_NONE: the load hit
 * the L1 data cache, or IBS said nothing (DataSrc 0, or erratum 1293). */
enum ibs_src {
	IBS_SRC_NONE,
	IBS_SRC_L2,	    /* missed L1, hit L2 */
	IBS_SRC_L3,	    /* local L3, or another core's L1/L2 in the CCX */
	IBS_SRC_CCX,	    /* a cache in another CCX of the same node */
	IBS_SRC_DRAM,	    /* local DRAM */
	IBS_SRC_RMT_CACHE, /* a cache on another node (far CCX) */
	IBS_SRC_RMT_DRAM,  /* DRAM of another node */
	IBS_SRC_IO,	    /* MMIO, config, PCI, APIC */
	IBS_SRC_OTHER,	    /* long-latency DIMM, extension memory, peer agent, reserved */
	IBS_SRC_NR
};

/* One decoded Op sample: the raw registers whole, and each field from its
 * own bits.  Errata of family 19h models 0-0Fh (the recording's cpuid)
 * clear the fields they make meaningless: l2_miss_valid, data2_valid. */
struct ibs_op {
	uint32_t caps;
	bool zen4;		   /* caps & IBS_CAPS_ZEN4 */
	bool has_br_target, has_data4;
	uint32_t cpu_family, cpu_model; /* from the cpuid, 0 when unknown */
	uint64_t ctl, rip, data, data2, data3, dc_lin, dc_phys, br_target, data4;

	/* IbsOpCtl */
	uint32_t max_cnt;   /* ((OpMaxCnt ext << 16) | OpMaxCnt) << 4 */
	uint8_t l3_miss_only; /* Zen 4 */
	uint8_t en, val, cnt_ctl;
	uint32_t cur_cnt;
	/* IbsOpData */
	uint16_t comp_to_ret, tag_to_ret;
	uint8_t ret, brn_taken, brn_misp, brn_ret, rip_invalid, brn_fuse, microcode;
	/* IbsOpData2 */
	uint8_t data_src; /* 3 bits, 5 with Zen 4 */
	uint8_t rmt_node, cache_hit_st;
	bool data2_valid;
	/* IbsOpData3 */
	uint8_t ld, st, dc_l1tlb_miss, dc_l2tlb_miss, dc_l1tlb_hit_2m, dc_l1tlb_hit_1g;
	uint8_t dc_l2tlb_hit_2m, dc_miss, dc_mis_acc, dc_wc, dc_uc, dc_locked, dc_no_mab;
	uint8_t dc_lin_valid, dc_phy_valid, dc_l2tlb_hit_1g, l2_miss, sw_pf, mem_width;
	uint8_t open_mem_reqs;
	bool l2_miss_valid;
	uint16_t dc_miss_lat, tlb_refill_lat;

	/* Meaning */
	enum ibs_src src; /* for a load that missed L1 */
};

struct ibs_fetch {
	uint32_t caps;
	bool zen4, has_extd;
	uint32_t cpu_family, cpu_model;
	uint64_t ctl, lin, phys, extd;

	uint32_t max_cnt, cnt; /* << 4, as perf prints them */
	uint16_t lat;
	uint8_t en, val, comp, ic_miss, phy_valid, pgsz, l1tlb_miss, l2tlb_miss, rand_en;
	uint8_t l2_miss, l3_miss_only, oc_miss, l3_miss; /* the last three: Zen 4 */
	bool ic_miss_valid; /* not with erratum 1238 */
	uint16_t itlb_refill_lat;
};

/* "AuthenticAMD,25,1,1" (perf's HEADER_CPUID on x86) to family and model;
 * false (and zeros) unless it is AMD's. */
bool ibs_cpuid_amd(const char *cpuid, uint32_t *family, uint32_t *model);

/* Decode a payload of raw_size bytes at raw (any alignment), for a CPU of
 * that family and model (0, 0 when unknown: no errata).  Returns 0, or
 * -EINVAL when it is not a valid IBS sample (shorter than its caps say,
 * or IbsOpEn/IbsOpVal, IbsFetchEn/IbsFetchVal not both set); *out is then
 * zeroed. */
int ibs_op_decode(const void *raw, uint32_t raw_size, uint32_t family, uint32_t model,
		  struct ibs_op *out);
int ibs_fetch_decode(const void *raw, uint32_t raw_size, uint32_t family, uint32_t model,
		     struct ibs_fetch *out);

/* perf report -D's lines for a sample (each ends in \n), byte for byte
 * (perf 6.1's amd-sample-raw.c; its Zen 4 text with the caps ZEN4 bit),
 * into buf: snprintf's return convention.  IBS_DUMP_MAX is always enough. */
#define IBS_DUMP_MAX 1024
int ibs_op_format_dump(const struct ibs_op *op, char *buf, size_t size);
int ibs_fetch_format_dump(const struct ibs_fetch *f, char *buf, size_t size);

/* "L2", "DRAM", "remote DRAM", ...; "?" out of range. */
const char *ibs_src_name(enum ibs_src src);

/* Per-row counters: uint64_t only (merge and decay go word by word). */
struct ibs_op_stats {
	uint64_t samples, other;
	uint64_t branches, taken, mispredicted, returns, ret_mispredicted;
	uint64_t loads, stores, load_dc_miss, load_l2_miss, load_l2_known;
	uint64_t ldst, dtlb_l1_miss, dtlb_l2_miss;
	uint64_t lat_sum, lat_n; /* DcMissLat of loads that missed L1 */
	uint64_t tag_to_ret_sum, comp_to_ret_sum;
	uint64_t locked, uncacheable, misaligned, microcode, fused;
	uint64_t src[IBS_SRC_NR];
};

struct ibs_fetch_stats {
	uint64_t samples, other;
	uint64_t completed, aborted, ic_miss, ic_miss_known, l1tlb_miss, l2tlb_miss;
	uint64_t l2_miss, l3_miss, oc_miss, zen4;
	uint64_t lat_sum;
};

void ibs_op_stats_add(struct ibs_op_stats *st, const struct ibs_op *op);
void ibs_fetch_stats_add(struct ibs_fetch_stats *st, const struct ibs_fetch *f);
/* The class with the most loads (the lowest on a tie), IBS_SRC_NONE when
 * no load of the row missed L1 with a known source. */
enum ibs_src ibs_op_stats_dominant_src(const struct ibs_op_stats *st);

/* The constraint a fixed period breaks for the PMU ("ibs_op" or
 * "ibs_fetch"), as a one-line usage error; NULL when it is fine.  The
 * hardware counts in units of 16 (the low 4 bits of MaxCnt are not kept),
 * up to 16 bits of MaxCnt for Fetch, 23 for Op (with OpCntExt). */
const char *ibs_period_error(const char *pmu, uint64_t period);

/* IBS behind the arch interface (arch.h). */
struct payload_ops;
struct arch_payload_ops;
extern const struct payload_ops ibs_op_payload, ibs_fetch_payload;
extern const struct arch_payload_ops ibs_op_arch, ibs_fetch_arch;

#endif
