/* Alpha ProfileMe: decoding of the PERF_SAMPLE_RAW payload the Alpha cpu PMU
 * attaches to each sample (PMPC, I_STAT, PCTR_CTL), its -D dump lines, and
 * per-row counters.  Bytes in, fields out: no terminal, no engine.
 *
 * Layout (little endian, whatever the host; any alignment):
 *	u32 version, u64 pmpc, u64 i_stat, u64 pctr_ctl   (28 bytes)
 * Later versions may append fields; only the first 28 bytes are decoded.
 * Reference: the kernel patch "perf alpha: Decode ProfileMe raw samples",
 * tools/perf/util/alpha-sample-raw.c. */
#ifndef PROFTOP_ALPHA_PROFILEME_H
#define PROFTOP_ALPHA_PROFILEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILEME_RAW_SIZE 28 /* bytes decoded; a shorter payload is not ProfileMe */
#define PROFILEME_VERSION 1   /* the oldest version understood */

/* What the profiled instruction was running as, from PMPC. */
enum profileme_mode {
	PROFILEME_MODE_USER,
	PROFILEME_MODE_KERNEL, /* PMPC bit 63 */
	PROFILEME_MODE_PAL,    /* PMPC bit 0, before bit 63 */
	PROFILEME_MODE_NR
};

/* Every trap name the decoder can give, so rows can count by name in an
 * array.  The order is the display order of profileme_trap_label(). */
enum profileme_trap {
	PROFILEME_TRAP_NONE,	      /* not trapped, or mispredicted */
	PROFILEME_TRAP_REPLAY,	      /* TRAP_TYPE 0 */
	PROFILEME_TRAP_DTB_DOUBLE_3,  /* 2 */
	PROFILEME_TRAP_DTB_DOUBLE_4,  /* 3 */
	PROFILEME_TRAP_FP_DISABLED,   /* 4 */
	PROFILEME_TRAP_UNALIGNED,     /* 5 */
	PROFILEME_TRAP_DTB_SINGLE,    /* 6 */
	PROFILEME_TRAP_DSTREAM_FAULT, /* 7 */
	PROFILEME_TRAP_OPCDEC,	      /* 8 */
	PROFILEME_TRAP_MACHINE_CHECK, /* 10 */
	PROFILEME_TRAP_ARITHMETIC,    /* 12 */
	PROFILEME_TRAP_MT_FPCR,	      /* 14 */
	PROFILEME_TRAP_RESET,	      /* 15 */
	PROFILEME_TRAP_IACV,	      /* PALcode entry 0x481 */
	PROFILEME_TRAP_ITB_MISS,      /* PALcode entry 0x581 */
	PROFILEME_TRAP_INTERRUPT,     /* PALcode entry 0x681 */
	PROFILEME_TRAP_OTHER,	      /* TRAP_TYPE 1, 9, 11, 13 */
	PROFILEME_TRAP_NR
};

/* What PCTR1 counted during the window: the value of PCTR_CTL SL1. */
#define PROFILEME_SL1_NR 4

/* One decoded sample.  The raw registers are kept whole (undefined bits
 * included, as the dump prints them); every field below is extracted from
 * its defined bits only. */
struct profileme {
	uint32_t version;
	uint64_t pmpc;
	uint64_t i_stat;   /* bits 40:30 meaningful */
	uint64_t pctr_ctl; /* bits 47:0 meaningful */

	/* PMPC */
	bool pal;	     /* bit 0: in PALcode */
	uint16_t pal_offset; /* bits 14:0: the PALcode entry when pal */
	enum profileme_mode mode;

	/* I_STAT */
	uint8_t ovr;	   /* bits 32:30 */
	uint8_t icm;	   /* bit 33: Icache miss */
	uint8_t trap_type; /* bits 37:34 */
	uint8_t lso;	   /* bit 38: load-store order */
	uint8_t trp;	   /* bit 39: trapped, as the register says */
	uint8_t mis;	   /* bit 40: mispredicted, as the register says */

	/* PCTR_CTL */
	uint8_t tak;	 /* bit 0: taken branch */
	uint8_t val;	 /* bit 1: valid, i.e. retired */
	uint8_t sl1;	 /* bits 3:2: what PCTR1 counted */
	uint8_t sl0;	 /* bit 4 */
	uint32_t pctr1;	 /* bits 25:6 */
	uint8_t killed;	 /* bit 26 */
	uint8_t stalled; /* bit 27 */
	uint32_t pctr0;	 /* bits 47:28 */

	/* Meaning */
	bool trapped;	   /* TRP && !KILLED: an EV7 leaves TRP stale on a kill */
	bool mispredicted; /* trapped && MIS */
	enum profileme_trap trap;
	const char *trap_name;	/* static: profileme_trap_label(trap) */
	const char *pctr1_name; /* static: profileme_pctr1_name(sl1) */
};

/* Whether a sample's payload is to be decoded as ProfileMe: the event is
 * PERF_TYPE_HARDWARE or PERF_TYPE_RAW, the recording is from an Alpha
 * (e_machine EM_ALPHA: the host when live, the file's arch otherwise),
 * raw_size >= PROFILEME_RAW_SIZE and version >= PROFILEME_VERSION. */
bool profileme_applies(uint32_t attr_type, int e_machine, uint32_t raw_size, uint32_t version);

/* The payload's version field (0 when raw_size < 4), for profileme_applies. */
uint32_t profileme_raw_version(const void *raw, uint32_t raw_size);

/* Decode a payload of raw_size bytes at raw (any alignment).  Returns 0, or
 * -EINVAL when it is not ProfileMe (shorter than 28 bytes, version 0); *out
 * is then zeroed.  Does not look at the event or the machine: call
 * profileme_applies (or the arch interface) first. */
int profileme_decode(const void *raw, uint32_t raw_size, struct profileme *out);

/* Fill *out from register values already in host order (what decode does
 * after reading them): for callers that keep the registers, and tests. */
void profileme_from_regs(uint32_t version, uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl,
			 struct profileme *out);

/* The trap name from the three registers, as the patch names it: redirect
 * traps from the PALcode entry in PMPC first, then "none" when not trapped
 * or mispredicted, then TRAP_TYPE. */
enum profileme_trap profileme_trap_of(uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl);
/* "replay", "ITB miss", "other (see PMPC)", ...; "?" out of range. */
const char *profileme_trap_label(enum profileme_trap trap);
/* Shorthand: the label of profileme_trap_of(). */
const char *profileme_trap_name(uint64_t pmpc, uint64_t i_stat, uint64_t pctr_ctl);

/* "cycles", "retire delay", "bcache misses", "mbox replays" for SL1 0..3. */
const char *profileme_pctr1_name(unsigned sl1);
/* "user", "kernel", "PAL". */
const char *profileme_mode_name(enum profileme_mode mode);

/* The three lines perf report -D prints for the sample (each ends in \n),
 * byte for byte, into buf.  Only version and the three registers of *pm
 * are read; the rest is derived again.  Returns what snprintf returns: the length the
 * whole text needs, so a return >= size means buf was too small (and holds
 * a truncated, NUL-terminated prefix).  PROFILEME_DUMP_MAX is always enough. */
#define PROFILEME_DUMP_MAX 320
int profileme_format_dump(const struct profileme *pm, char *buf, size_t size);

/* Per-row counters: plain uint64_t only, so that rows can be merged (add
 * field by field) and decayed (scale field by field) without knowing the
 * fields; profileme_stats_merge and _decay do just that.  Counts are in
 * samples; the sums are of the 20-bit counter values. */
struct profileme_stats {
	uint64_t samples; /* ProfileMe samples */
	uint64_t other;	  /* samples of the row that were not ProfileMe
					   (the caller counts them: see
					   profileme_stats_add_other) */
	uint64_t retired; /* VAL */
	uint64_t taken;	  /* TAK */
	uint64_t killed;
	uint64_t stalled;
	uint64_t trapped;		  /* TRP && !KILLED */
	uint64_t mispredicted;		  /* trapped && MIS */
	uint64_t icache_miss;		  /* ICM */
	uint64_t ldst_order;		  /* LSO */
	uint64_t mode[PROFILEME_MODE_NR]; /* PAL / kernel / user split */
	uint64_t trap[PROFILEME_TRAP_NR]; /* by trap name, "none" included */
	uint64_t pctr0_sum;
	uint64_t pctr1_sum[PROFILEME_SL1_NR];	  /* by what PCTR1 counted (SL1) */
	uint64_t pctr1_samples[PROFILEME_SL1_NR]; /* samples per SL1, for averages */
};

/* Count one decoded sample. */
void profileme_stats_add(struct profileme_stats *st, const struct profileme *pm);
/* Count one sample whose payload was not ProfileMe. */
void profileme_stats_add_other(struct profileme_stats *st);
/* dst += src, field by field. */
void profileme_stats_merge(struct profileme_stats *dst, const struct profileme_stats *src);
/* Every field x = x * num / den (e.g. 7/8 for perf top's decay), without
 * overflow for num <= den; den 0 leaves st unchanged. */
void profileme_stats_decay(struct profileme_stats *st, unsigned num, unsigned den);
/* The most frequent trap other than "none" (the lowest enum value on a tie),
 * or PROFILEME_TRAP_NONE when the row has no named trap. */
enum profileme_trap profileme_stats_dominant_trap(const struct profileme_stats *st);
/* Samples of the row with a trap name other than "none". */
uint64_t profileme_stats_traps(const struct profileme_stats *st);
/* What PCTR1 counted in most samples of st (SL1): the PCTR1 column's
 * meaning. */
unsigned profileme_stats_dominant_sl1(const struct profileme_stats *st);
/* A short column title for what PCTR1 counted: "Cycles", "RetDly",
 * "BcMiss", "MbRepl" for SL1 0..3, "PCTR1" otherwise. */
const char *profileme_pctr1_label(unsigned sl1);

/* ProfileMe behind the arch interface (arch.h): its columns (Retired,
 * Killed, Stalled, Mispred, Traps, Trap, ICmiss, LdSt and the PCTR1 mean),
 * its JSON object and pane, and the decoding of Alpha samples. */
struct payload_ops;
struct arch_payload_ops;
extern const struct payload_ops profileme_payload;
extern const struct arch_payload_ops profileme_arch;

#endif
