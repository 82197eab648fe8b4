/* Alpha ProfileMe payload decoder: the PMPC, I_STAT and PCTR_CTL of each
 * sample, read byte by byte from little endian, and named as perf names them;
 * the row counters, table columns, JSON and pane text they make. */
#include "config.h"

#include "alpha-profileme.h"

#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "payload.h"
#include "textfmt.h"
#include "util.h"

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

void profileme_stats_merge(struct profileme_stats *dst, const struct profileme_stats *src)
{
	payload_u64_merge(dst, src, sizeof(*dst));
}

void profileme_stats_decay(struct profileme_stats *st, unsigned num, unsigned den)
{
	payload_u64_decay(st, sizeof(*st), num, den);
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

/* ---- what ProfileMe shows: row stats, columns, JSON, the pane ---- */

unsigned profileme_stats_dominant_sl1(const struct profileme_stats *total)
{
	unsigned k, best = 0;

	for (k = 1; k < PROFILEME_SL1_NR; k++)
		if (total->pctr1_samples[k] > total->pctr1_samples[best])
			best = k;
	return best;
}

const char *profileme_pctr1_label(unsigned sl1)
{
	static const char *const labels[PROFILEME_SL1_NR] = { "Cycles", "RetDly", "BcMiss",
							      "MbRepl" };

	return sl1 < PROFILEME_SL1_NR ? labels[sl1] : "PCTR1";
}

enum {
	PM_COL_RETIRED,
	PM_COL_KILLED,
	PM_COL_STALLED,
	PM_COL_MISPRED,
	PM_COL_TRAPS,
	PM_COL_TRAP,
	PM_COL_ICMISS,
	PM_COL_LDST,
	PM_COL_PCTR1,
	PM_COL__MAX,
};

/* The measures of --order, the dominant trap's name after Traps.  On a
 * narrow screen the least telling give way first (keep_rank): the trap
 * name (the pane has it whole), then the rarer events. */
static const struct payload_column profileme_columns[PM_COL__MAX] = {
	[PM_COL_RETIRED] = { "Retired", "retired", PAYLOAD_PERCENT, 0, 9, "retired" },
	[PM_COL_KILLED] = { "Killed", "killed", PAYLOAD_PERCENT, 0, 5, "killed" },
	[PM_COL_STALLED] = { "Stalled", "stalled", PAYLOAD_PERCENT, 0, 4, "stalled" },
	[PM_COL_MISPRED] = { "Mispred", "mispredicted", PAYLOAD_PERCENT, 0, 8, "mispredict" },
	[PM_COL_TRAPS] = { "Traps", "traps", PAYLOAD_PERCENT, 0, 7, "traps" },
	/* "DTB double miss (3 level)" is long; the pane has it whole */
	[PM_COL_TRAP] = { "Trap", "trap", PAYLOAD_NAME, 15, 1, NULL },
	[PM_COL_ICMISS] = { "ICmiss", "icache_miss", PAYLOAD_PERCENT, 0, 3, "icmiss" },
	[PM_COL_LDST] = { "LdSt", "ldst_order", PAYLOAD_PERCENT, 0, 2, "ldst" },
	/* titled by what PCTR1 counted most: "RetDly" is the widest title */
	[PM_COL_PCTR1] = { "PCTR1", "pctr1_mean", PAYLOAD_MEAN, 6, 6, "pctr1" },
};

static double profileme_column_value(const void *stats, const void *total, size_t col)
{
	const struct profileme_stats *st = stats;
	unsigned sl1 = total ? profileme_stats_dominant_sl1(total) : 0;

	switch (col) {
	case PM_COL_RETIRED:
		return payload_pct(st->retired, st->samples);
	case PM_COL_KILLED:
		return payload_pct(st->killed, st->samples);
	case PM_COL_STALLED:
		return payload_pct(st->stalled, st->samples);
	case PM_COL_MISPRED:
		return payload_pct(st->mispredicted, st->samples);
	case PM_COL_TRAPS:
		return payload_pct(profileme_stats_traps(st), st->samples);
	case PM_COL_ICMISS:
		return payload_pct(st->icache_miss, st->samples);
	case PM_COL_LDST:
		return payload_pct(st->ldst_order, st->samples);
	case PM_COL_PCTR1:
		/* the mean of what PCTR1 counted in most of the table's samples */
		if (!st->pctr1_samples[sl1])
			return -1.0;
		return (double)st->pctr1_sum[sl1] / (double)st->pctr1_samples[sl1];
	default:
		return -1.0;
	}
}

static const char *profileme_column_name(const void *stats, size_t col)
{
	enum profileme_trap t;

	if (col != PM_COL_TRAP)
		return NULL;
	t = profileme_stats_dominant_trap(stats);
	return t == PROFILEME_TRAP_NONE ? NULL : profileme_trap_label(t);
}

static const char *profileme_column_title(const void *total, size_t col)
{
	return col == PM_COL_PCTR1 ? profileme_pctr1_label(profileme_stats_dominant_sl1(total)) :
				     NULL;
}

/* The names are the reference's (alpha-profileme.md), a contract for
 * scripts. */
static void profileme_format_json(struct strbuf *sb, const void *stats)
{
	const struct profileme_stats *st = stats;
	unsigned k;
	int t;

	strbuf_addf(sb,
		    "{\"samples\":%llu,\"retired\":%llu,\"taken\":%llu,\"killed\":%llu,"
		    "\"stalled\":%llu,\"mispredicted\":%llu,\"icache_miss\":%llu,"
		    "\"ldst_order\":%llu,\"traps\":{",
		    (unsigned long long)st->samples, (unsigned long long)st->retired,
		    (unsigned long long)st->taken, (unsigned long long)st->killed,
		    (unsigned long long)st->stalled, (unsigned long long)st->mispredicted,
		    (unsigned long long)st->icache_miss, (unsigned long long)st->ldst_order);
	for (t = 0; t < PROFILEME_TRAP_NR; t++) {
		if (t)
			strbuf_addch(sb, ',');
		strbuf_add_json_string(sb, profileme_trap_label((enum profileme_trap)t));
		strbuf_addf(sb, ":%llu", (unsigned long long)st->trap[t]);
	}
	strbuf_addf(sb, "},\"pctr0_sum\":%llu,\"pctr1_sum\":{", (unsigned long long)st->pctr0_sum);
	for (k = 0; k < PROFILEME_SL1_NR; k++)
		strbuf_addf(sb, "%s\"%s\":%llu", k ? "," : "", profileme_pctr1_name(k),
			    (unsigned long long)st->pctr1_sum[k]);
	strbuf_addstr(sb, "},\"pctr1_samples\":{");
	for (k = 0; k < PROFILEME_SL1_NR; k++)
		strbuf_addf(sb, "%s\"%s\":%llu", k ? "," : "", profileme_pctr1_name(k),
			    (unsigned long long)st->pctr1_samples[k]);
	strbuf_addf(sb,
		    "},\"modes\":{\"user\":%llu,\"kernel\":%llu,\"PAL\":%llu},"
		    "\"not_profileme\":%llu}",
		    (unsigned long long)st->mode[PROFILEME_MODE_USER],
		    (unsigned long long)st->mode[PROFILEME_MODE_KERNEL],
		    (unsigned long long)st->mode[PROFILEME_MODE_PAL], (unsigned long long)st->other);
}

static void profileme_format_json_summary(struct strbuf *sb, const void *total)
{
	strbuf_addf(sb, ",\"profileme_pctr1\":\"%s\"",
		    profileme_pctr1_name(profileme_stats_dominant_sl1(total)));
}

/* "N (P%)" of part in whole. */
static void profileme_count_pct(struct strbuf *sb, const char *name, uint64_t part,
				uint64_t whole)
{
	strbuf_addf(sb, "%s %llu (", name, (unsigned long long)part);
	textfmt_fixed(sb, whole ? 100.0 * (double)part / (double)whole : 0.0, 1);
	strbuf_addstr(sb, "%)");
}

/* The row's samples by mode, its event shares, the PCTR means and the
 * count of every trap name. */
static void profileme_format_detail(struct strbuf *sb, const void *stats, size_t width)
{
	static const char *const names[] = { "retired", "taken",	"killed",
					     "stalled", "mispredicted", "Icache miss",
					     "load-store order" };
	const struct profileme_stats *st = stats;
	const uint64_t vals[] = { st->retired,	    st->taken,	     st->killed,    st->stalled,
				  st->mispredicted, st->icache_miss, st->ldst_order };
	struct strbuf w;
	size_t line;
	unsigned k;
	int t;

	strbuf_init(&w);
	strbuf_addf(sb, "  samples %llu: user %llu  kernel %llu  PAL %llu  not ProfileMe %llu\n",
		    (unsigned long long)st->samples,
		    (unsigned long long)st->mode[PROFILEME_MODE_USER],
		    (unsigned long long)st->mode[PROFILEME_MODE_KERNEL],
		    (unsigned long long)st->mode[PROFILEME_MODE_PAL], (unsigned long long)st->other);
	line = sb->len;
	strbuf_addstr(sb, "  ");
	for (k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		strbuf_reset(&w);
		profileme_count_pct(&w, names[k], vals[k], st->samples);
		textfmt_wrap(sb, &line, w.buf, width, "  ");
	}
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  PCTR0 mean ");
	textfmt_fixed(sb, st->samples ? (double)st->pctr0_sum / (double)st->samples : 0.0, 1);
	strbuf_addstr(sb, "  PCTR1 mean:");
	for (k = 0; k < PROFILEME_SL1_NR; k++) {
		strbuf_reset(&w);
		strbuf_addf(&w, "%s ", profileme_pctr1_name(k));
		if (st->pctr1_samples[k]) {
			textfmt_fixed(&w, (double)st->pctr1_sum[k] / (double)st->pctr1_samples[k], 1);
			strbuf_addf(&w, " (%llu)", (unsigned long long)st->pctr1_samples[k]);
		} else {
			strbuf_addch(&w, '-');
		}
		textfmt_wrap(sb, &line, w.buf, width, "  ");
	}
	strbuf_addch(sb, '\n');
	line = sb->len;
	strbuf_addstr(sb, "  traps:");
	for (t = 0; t < PROFILEME_TRAP_NR; t++) {
		strbuf_reset(&w);
		strbuf_addf(&w, "%s %llu", profileme_trap_label((enum profileme_trap)t),
			    (unsigned long long)st->trap[t]);
		textfmt_wrap(sb, &line, w.buf, width, "    ");
	}
	strbuf_addch(sb, '\n');
	strbuf_release(&w);
}

static void profileme_p_stats_add(void *stats, const void *decoded)
{
	profileme_stats_add(stats, decoded);
}

static void profileme_p_stats_add_other(void *stats)
{
	profileme_stats_add_other(stats);
}

static void profileme_p_stats_merge(void *dst, const void *src)
{
	profileme_stats_merge(dst, src);
}

static void profileme_p_stats_decay(void *stats, unsigned num, unsigned den)
{
	profileme_stats_decay(stats, num, den);
}

static uint64_t profileme_p_stats_samples(const void *stats)
{
	return ((const struct profileme_stats *)stats)->samples;
}

const struct payload_ops profileme_payload = {
	.name = "profileme",
	.title = "ProfileMe",
	.stats_size = sizeof(struct profileme_stats),
	.stats_add = profileme_p_stats_add,
	.stats_add_other = profileme_p_stats_add_other,
	.stats_merge = profileme_p_stats_merge,
	.stats_decay = profileme_p_stats_decay,
	.stats_samples = profileme_p_stats_samples,
	.stats_counters = true,
	.columns = profileme_columns,
	.nr_columns = PM_COL__MAX,
	.column_value = profileme_column_value,
	.column_name = profileme_column_name,
	.column_title = profileme_column_title,
	.format_json = profileme_format_json,
	.format_json_summary = profileme_format_json_summary,
	.format_detail = profileme_format_detail,
};

/* ---- the perf side: which samples, decoding, -D, the attr ---- */

static bool profileme_a_applies(const struct perf_event_attr *attr, const void *raw,
				uint32_t raw_size)
{
	return profileme_applies(attr->type, EM_ALPHA, raw_size,
				 profileme_raw_version(raw, raw_size));
}

static int profileme_a_decode(const void *raw, uint32_t raw_size, void *decoded)
{
	return profileme_decode(raw, raw_size, decoded);
}

static int profileme_a_format_dump(const void *decoded, char *buf, size_t size)
{
	return profileme_format_dump(decoded, buf, size);
}

/* The Alpha PMU attaches ProfileMe data to HARDWARE and RAW events only. */
static void profileme_a_adjust_attr(struct perf_event_attr *attr)
{
	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_RAW)
		attr->sample_type |= PERF_SAMPLE_RAW;
}

const struct arch_payload_ops profileme_arch = {
	.payload = &profileme_payload,
	.e_machine = EM_ALPHA,
	.decoded_size = sizeof(struct profileme),
	.applies = profileme_a_applies,
	.decode = profileme_a_decode,
	.format_dump = profileme_a_format_dump,
	.adjust_attr = profileme_a_adjust_attr,
};
