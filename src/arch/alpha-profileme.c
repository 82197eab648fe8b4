/* Alpha ProfileMe payload decoder: the PMPC, I_STAT and PCTR_CTL of each
 * sample, read byte by byte from little endian, and named as perf names them. */
#include "config.h"

#include "alpha-profileme.h"

#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

/* I_STAT: only bits 40:30 are defined. */
#define I_STAT_OVR(x) (((x) >> 30) & 0x7)
#define I_STAT_ICM(x) (((x) >> 33) & 0x1)
#define I_STAT_TRAP_TYPE(x) (((x) >> 34) & 0xf)
#define I_STAT_LSO(x) (((x) >> 38) & 0x1)
#define I_STAT_TRP(x) (((x) >> 39) & 0x1)
#define I_STAT_MIS(x) (((x) >> 40) & 0x1)

/* PCTR_CTL: only bits 47:0 are defined (bit 5 is not). */
#define PCTR_CTL_TAK(x) ((x)&0x1)
#define PCTR_CTL_VAL(x) (((x) >> 1) & 0x1)
#define PCTR_CTL_SL1(x) (((x) >> 2) & 0x3)
#define PCTR_CTL_SL0(x) (((x) >> 4) & 0x1)
#define PCTR_CTL_PCTR1(x) (((x) >> 6) & 0xfffff)
#define PCTR_CTL_KILLED(x) (((x) >> 26) & 0x1)
#define PCTR_CTL_STALLED(x) (((x) >> 27) & 0x1)
#define PCTR_CTL_PCTR0(x) (((x) >> 28) & 0xfffff)

/* PMPC: bit 0 flags PALcode; the PALcode entry offset includes that bit. */
#define PMPC_PAL(x) ((x)&0x1)
#define PMPC_PAL_OFFSET(x) ((x)&0x7fff)
#define PMPC_KERNEL(x) (((x) >> 63) & 0x1)

/* Byte offsets in the payload. */
#define OFF_VERSION 0
#define OFF_PMPC 4
#define OFF_I_STAT 12
#define OFF_PCTR_CTL 20

static const char *const profileme_trap_labels[PROFILEME_TRAP_NR] = {
	[PROFILEME_TRAP_NONE] = "none",
	[PROFILEME_TRAP_REPLAY] = "replay",
	[PROFILEME_TRAP_DTB_DOUBLE_3] = "DTB double miss (3 level)",
	[PROFILEME_TRAP_DTB_DOUBLE_4] = "DTB double miss (4 level)",
	[PROFILEME_TRAP_FP_DISABLED] = "FP disabled",
	[PROFILEME_TRAP_UNALIGNED] = "unaligned",
	[PROFILEME_TRAP_DTB_SINGLE] = "DTB single miss",
	[PROFILEME_TRAP_DSTREAM_FAULT] = "Dstream fault",
	[PROFILEME_TRAP_OPCDEC] = "OPCDEC",
	[PROFILEME_TRAP_MACHINE_CHECK] = "machine check",
	[PROFILEME_TRAP_ARITHMETIC] = "arithmetic",
	[PROFILEME_TRAP_MT_FPCR] = "MT_FPCR",
	[PROFILEME_TRAP_RESET] = "reset",
	[PROFILEME_TRAP_IACV] = "Istream access violation",
	[PROFILEME_TRAP_ITB_MISS] = "ITB miss",
	[PROFILEME_TRAP_INTERRUPT] = "interrupt",
	[PROFILEME_TRAP_OTHER] = "other (see PMPC)",
};

/* TRAP_TYPE values 1, 9, 11 and 13 have no name of their own. */
/* clang-format off */
static const enum profileme_trap profileme_trap_by_type[16] = {
	[0] = PROFILEME_TRAP_REPLAY,
	[1] = PROFILEME_TRAP_OTHER,
	[2] = PROFILEME_TRAP_DTB_DOUBLE_3,
	[3] = PROFILEME_TRAP_DTB_DOUBLE_4,
	[4] = PROFILEME_TRAP_FP_DISABLED,
	[5] = PROFILEME_TRAP_UNALIGNED,
	[6] = PROFILEME_TRAP_DTB_SINGLE,
	[7] = PROFILEME_TRAP_DSTREAM_FAULT,
	[8] = PROFILEME_TRAP_OPCDEC,
	[9] = PROFILEME_TRAP_OTHER,
	[10] = PROFILEME_TRAP_MACHINE_CHECK,
	[11] = PROFILEME_TRAP_OTHER,
	[12] = PROFILEME_TRAP_ARITHMETIC,
	[13] = PROFILEME_TRAP_OTHER,
	[14] = PROFILEME_TRAP_MT_FPCR,
	[15] = PROFILEME_TRAP_RESET,
};
/* clang-format on */

static const char *const profileme_pctr1_names[PROFILEME_SL1_NR] = {
	"cycles",
	"retire delay",
	"bcache misses",
	"mbox replays",
};

static const char *const profileme_mode_names[PROFILEME_MODE_NR] = {
	[PROFILEME_MODE_USER] = "user",
	[PROFILEME_MODE_KERNEL] = "kernel",
	[PROFILEME_MODE_PAL] = "PAL",
};

/* Little-endian loads assembled from bytes: no alignment assumed, right on
 * either byte order. */
static uint32_t profileme_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t profileme_le64(const unsigned char *p)
{
	return (uint64_t)profileme_le32(p) | (uint64_t)profileme_le32(p + 4) << 32;
}

bool profileme_applies(uint32_t attr_type, int e_machine, uint32_t raw_size, uint32_t version)
{
	if (attr_type != PERF_TYPE_HARDWARE && attr_type != PERF_TYPE_RAW)
		return false;
	return e_machine == EM_ALPHA && raw_size >= PROFILEME_RAW_SIZE &&
	       version >= PROFILEME_VERSION;
}

uint32_t profileme_raw_version(const void *raw, uint32_t raw_size)
{
	if (!raw || raw_size < 4)
		return 0;
	return profileme_le32((const unsigned char *)raw + OFF_VERSION);
}

/* TRP, and MIS and TRAP_TYPE with it, are stale for a killed instruction. */
static bool profileme_trapped(uint64_t i_stat, uint64_t ctl)
{
	return I_STAT_TRP(i_stat) && !PCTR_CTL_KILLED(ctl);
}

enum profileme_trap profileme_trap_of(uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl)
{
	/* Redirect traps leave TRAP_TYPE alone: only the PALcode entry the
	 * instruction was redirected to tells them apart, whatever TRP says. */
	if (PMPC_PAL(pmpc)) {
		switch (PMPC_PAL_OFFSET(pmpc)) {
		case 0x481:
			return PROFILEME_TRAP_IACV;
		case 0x581:
			return PROFILEME_TRAP_ITB_MISS;
		case 0x681:
			return PROFILEME_TRAP_INTERRUPT;
		default:
			break;
		}
	}
	if (!profileme_trapped(i_stat, pctr_ctl) || I_STAT_MIS(i_stat))
		return PROFILEME_TRAP_NONE;
	return profileme_trap_by_type[I_STAT_TRAP_TYPE(i_stat)];
}

const char *profileme_trap_label(enum profileme_trap trap)
{
	if ((unsigned)trap >= PROFILEME_TRAP_NR)
		return "?";
	return profileme_trap_labels[trap];
}

const char *profileme_trap_name(uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl)
{
	return profileme_trap_label(profileme_trap_of(pmpc, i_stat, pctr_ctl));
}

const char *profileme_pctr1_name(unsigned sl1)
{
	return sl1 < PROFILEME_SL1_NR ? profileme_pctr1_names[sl1] : "?";
}

const char *profileme_mode_name(enum profileme_mode mode)
{
	if ((unsigned)mode >= PROFILEME_MODE_NR)
		return "?";
	return profileme_mode_names[mode];
}

void profileme_from_regs(uint32_t version, uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl,
			 struct profileme *out)
{
	memset(out, 0, sizeof(*out));
	out->version = version;
	out->pmpc = pmpc;
	out->i_stat = i_stat;
	out->pctr_ctl = pctr_ctl;

	out->pal = PMPC_PAL(pmpc);
	out->pal_offset = (uint16_t)PMPC_PAL_OFFSET(pmpc);
	if (PMPC_PAL(pmpc))
		out->mode = PROFILEME_MODE_PAL;
	else if (PMPC_KERNEL(pmpc))
		out->mode = PROFILEME_MODE_KERNEL;
	else
		out->mode = PROFILEME_MODE_USER;

	out->ovr = (uint8_t)I_STAT_OVR(i_stat);
	out->icm = (uint8_t)I_STAT_ICM(i_stat);
	out->trap_type = (uint8_t)I_STAT_TRAP_TYPE(i_stat);
	out->lso = (uint8_t)I_STAT_LSO(i_stat);
	out->trp = (uint8_t)I_STAT_TRP(i_stat);
	out->mis = (uint8_t)I_STAT_MIS(i_stat);

	out->tak = (uint8_t)PCTR_CTL_TAK(pctr_ctl);
	out->val = (uint8_t)PCTR_CTL_VAL(pctr_ctl);
	out->sl1 = (uint8_t)PCTR_CTL_SL1(pctr_ctl);
	out->sl0 = (uint8_t)PCTR_CTL_SL0(pctr_ctl);
	out->pctr1 = (uint32_t)PCTR_CTL_PCTR1(pctr_ctl);
	out->killed = (uint8_t)PCTR_CTL_KILLED(pctr_ctl);
	out->stalled = (uint8_t)PCTR_CTL_STALLED(pctr_ctl);
	out->pctr0 = (uint32_t)PCTR_CTL_PCTR0(pctr_ctl);

	out->trapped = profileme_trapped(i_stat, pctr_ctl);
	out->mispredicted = out->trapped && out->mis;
	out->trap = profileme_trap_of(pmpc, i_stat, pctr_ctl);
	out->trap_name = profileme_trap_label(out->trap);
	out->pctr1_name = profileme_pctr1_name(out->sl1);
}

int profileme_decode(const void *raw, uint32_t raw_size, struct profileme *out)
{
	unsigned char b[PROFILEME_RAW_SIZE];
	uint32_t version;

	memset(out, 0, sizeof(*out));
	if (!raw || raw_size < PROFILEME_RAW_SIZE)
		return -EINVAL;
	/* Nothing guarantees the payload's alignment in a ring or a file. */
	memcpy(b, raw, sizeof(b));
	version = profileme_le32(b + OFF_VERSION);
	if (version < PROFILEME_VERSION)
		return -EINVAL;
	profileme_from_regs(version, profileme_le64(b + OFF_PMPC), profileme_le64(b + OFF_I_STAT),
			    profileme_le64(b + OFF_PCTR_CTL), out);
	return 0;
}

int profileme_format_dump(const struct profileme *decoded, char *buf, size_t size)
{
	struct profileme f, *pm = &f;

	/* Everything from the three registers, as the patch does, whatever
	 * the caller did to the derived fields. */
	profileme_from_regs(decoded->version, decoded->pmpc, decoded->i_stat, decoded->pctr_ctl,
			    &f);
	/* The formats of the patch's evlist__alpha_sample_raw(), so that the
	 * output diffs clean against perf report -D. */
	return snprintf(
		buf, size,
		"ProfileMe PMPC:\t%016llx %s trap %s%s\n"
		"ProfileMe I_STAT:\t%016llx TRP %d MIS %d LSO %d TrapType %d ICM %d OVR %d\n"
		"ProfileMe PCTR_CTL:\t%016llx VAL %d TAK %d Stalled %d Killed %d"
		" SL0 %d SL1 %d PCTR0 %d PCTR1 %d (%s)\n",
		(unsigned long long)pm->pmpc, profileme_mode_name(pm->mode),
		profileme_trap_label(pm->trap), pm->mispredicted ? " mispredicted" : "",
		(unsigned long long)pm->i_stat, (int)pm->trp, (int)pm->mis, (int)pm->lso,
		(int)pm->trap_type, (int)pm->icm, (int)pm->ovr, (unsigned long long)pm->pctr_ctl,
		(int)pm->val, (int)pm->tak, (int)pm->stalled, (int)pm->killed, (int)pm->sl0,
		(int)pm->sl1, (int)pm->pctr0, (int)pm->pctr1, profileme_pctr1_name(pm->sl1));
}

void profileme_stats_add(struct profileme_stats *st, const struct profileme *pm)
{
	st->samples++;
	st->retired += pm->val;
	st->taken += pm->tak;
	st->killed += pm->killed;
	st->stalled += pm->stalled;
	st->trapped += pm->trapped;
	st->mispredicted += pm->mispredicted;
	st->icache_miss += pm->icm;
	st->ldst_order += pm->lso;
	if ((unsigned)pm->mode < PROFILEME_MODE_NR)
		st->mode[pm->mode]++;
	if ((unsigned)pm->trap < PROFILEME_TRAP_NR)
		st->trap[pm->trap]++;
	st->pctr0_sum += pm->pctr0;
	st->pctr1_sum[pm->sl1 & 3] += pm->pctr1;
	st->pctr1_samples[pm->sl1 & 3]++;
}

void profileme_stats_add_other(struct profileme_stats *st)
{
	st->other++;
}

/* The struct is an array of uint64_t in disguise; merge and decay rely on
 * it, so a field of another type must not slip in. */
_Static_assert(sizeof(struct profileme_stats) % sizeof(uint64_t) == 0,
	       "profileme_stats must hold uint64_t counters only");
#define PROFILEME_STATS_NWORDS (sizeof(struct profileme_stats) / sizeof(uint64_t))

void profileme_stats_merge(struct profileme_stats *dst, const struct profileme_stats *src)
{
	uint64_t d[PROFILEME_STATS_NWORDS], s[PROFILEME_STATS_NWORDS];
	size_t i;

	/* Copies rather than casts keep strict aliasing out of it. */
	memcpy(d, dst, sizeof(d));
	memcpy(s, src, sizeof(s));
	for (i = 0; i < PROFILEME_STATS_NWORDS; i++)
		d[i] += s[i];
	memcpy(dst, d, sizeof(d));
}

void profileme_stats_decay(struct profileme_stats *st, unsigned num, unsigned den)
{
	uint64_t w[PROFILEME_STATS_NWORDS];
	size_t i;

	if (!den)
		return;
	memcpy(w, st, sizeof(w));
	for (i = 0; i < PROFILEME_STATS_NWORDS; i++)
		w[i] = (w[i] / den) * num + (w[i] % den) * num / den;
	memcpy(st, w, sizeof(w));
}

enum profileme_trap profileme_stats_dominant_trap(const struct profileme_stats *st)
{
	enum profileme_trap best = PROFILEME_TRAP_NONE;
	int t;

	for (t = PROFILEME_TRAP_NONE + 1; t < PROFILEME_TRAP_NR; t++)
		if (st->trap[t] > (best == PROFILEME_TRAP_NONE ? 0 : st->trap[best]))
			best = (enum profileme_trap)t;
	return best;
}

uint64_t profileme_stats_traps(const struct profileme_stats *st)
{
	uint64_t n = 0;
	int t;

	for (t = PROFILEME_TRAP_NONE + 1; t < PROFILEME_TRAP_NR; t++)
		n += st->trap[t];
	return n;
}
