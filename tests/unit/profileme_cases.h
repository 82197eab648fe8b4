/* Test vectors for the Alpha ProfileMe decoder, shared by the check suite
 * (tests/unit/check_profileme.c) and the self-contained cross driver run under
 * qemu (tests/helpers/profileme-cross.c).  Expected values are written out by hand
 * from the kernel patch, not computed with the decoder's own macros. */
#ifndef PROFTOP_PROFILEME_CASES_H
#define PROFTOP_PROFILEME_CASES_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alpha-profileme.h"

/* The bits, spelled again independently of the decoder. */
#define IS_OVR(n) ((uint64_t)(n) << 30)
#define IS_ICM (1ULL << 33)
#define IS_TT(n) ((uint64_t)(n) << 34)
#define IS_LSO (1ULL << 38)
#define IS_TRP (1ULL << 39)
#define IS_MIS (1ULL << 40)
#define IS_UNDEFINED 0xfffffe003fffffffULL /* every bit but 40:30 */

#define PC_TAK (1ULL << 0)
#define PC_VAL (1ULL << 1)
#define PC_SL1(n) ((uint64_t)(n) << 2)
#define PC_SL0 (1ULL << 4)
#define PC_PCTR1(n) ((uint64_t)(n) << 6)
#define PC_KILLED (1ULL << 26)
#define PC_STALLED (1ULL << 27)
#define PC_PCTR0(n) ((uint64_t)(n) << 28)
#define PC_UNDEFINED 0xffff000000000020ULL /* bits 63:48 and bit 5 */

#define PMPC_USER 0x0000000120001000ULL
#define PMPC_KERN 0xfffffc0000312340ULL

struct profileme_case {
	const char *name;
	/* input: the payload is version, pmpc, i_stat, pctr_ctl in little
	 * endian, then raw_size - 28 filler bytes */
	uint32_t version;
	uint64_t pmpc, i_stat, pctr_ctl;
	uint32_t raw_size; /* 0 means 28 */
	/* expected */
	int rc;		  /* 0 or -EINVAL */
	const char *mode; /* "user", "kernel", "PAL" */
	const char *trap;
	const char *pctr1_name;
	bool trapped, mispredicted;
	uint8_t ovr, icm, trap_type, lso, trp, mis;
	uint8_t tak, val, sl1, sl0, killed, stalled;
	uint32_t pctr0, pctr1;
	const char *dump; /* the three -D lines, or NULL: not checked */
};

/* A retired, trapped user instruction with TRAP_TYPE n. */
#define TT_CASE(n, label)                                                                         \
	{                                                                                         \
		.name = "TRAP_TYPE " #n, .version = 1, .pmpc = PMPC_USER + 4 * (n),               \
		.i_stat = IS_TRP | IS_TT(n), .pctr_ctl = PC_VAL, .mode = "user", .trap = (label), \
		.pctr1_name = "cycles", .trapped = true, .trap_type = (n), .trp = 1, .val = 1     \
	}

static const struct profileme_case profileme_cases[] = {
	{
		.name = "user, retired, no trap",
		.version = 1,
		.pmpc = 0x0000000120001a40ULL,
		.i_stat = 0,
		.pctr_ctl = PC_VAL | PC_PCTR1(37) | PC_PCTR0(100),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
		.val = 1,
		.pctr0 = 100,
		.pctr1 = 37,
		.dump = "ProfileMe PMPC:\t0000000120001a40 user trap none\n"
			"ProfileMe I_STAT:\t0000000000000000 TRP 0 MIS 0 LSO 0 TrapType 0 ICM 0 OVR 0\n"
			"ProfileMe PCTR_CTL:\t0000000640000942 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 0 SL1 0 PCTR0 100 PCTR1 37 (cycles)\n",
	},
	TT_CASE(0, "replay"),
	TT_CASE(1, "other (see PMPC)"),
	TT_CASE(2, "DTB double miss (3 level)"),
	TT_CASE(3, "DTB double miss (4 level)"),
	TT_CASE(4, "FP disabled"),
	TT_CASE(5, "unaligned"),
	TT_CASE(6, "DTB single miss"),
	TT_CASE(7, "Dstream fault"),
	TT_CASE(8, "OPCDEC"),
	TT_CASE(9, "other (see PMPC)"),
	TT_CASE(10, "machine check"),
	TT_CASE(11, "other (see PMPC)"),
	TT_CASE(12, "arithmetic"),
	TT_CASE(13, "other (see PMPC)"),
	TT_CASE(14, "MT_FPCR"),
	TT_CASE(15, "reset"),
	{
		.name = "TRAP_TYPE without TRP: none",
		.version = 1,
		.pmpc = PMPC_USER,
		.i_stat = IS_TT(5),
		.pctr_ctl = PC_VAL,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
		.trap_type = 5,
		.val = 1,
	},
	{
		.name = "kernel, unaligned, retire delay",
		.version = 1,
		.pmpc = PMPC_KERN,
		.i_stat = IS_TRP | IS_TT(5),
		.pctr_ctl = PC_VAL | PC_SL1(1) | PC_PCTR1(12) | PC_PCTR0(2000),
		.mode = "kernel",
		.trap = "unaligned",
		.pctr1_name = "retire delay",
		.trapped = true,
		.trap_type = 5,
		.trp = 1,
		.val = 1,
		.sl1 = 1,
		.pctr0 = 2000,
		.pctr1 = 12,
		.dump = "ProfileMe PMPC:\tfffffc0000312340 kernel trap unaligned\n"
			"ProfileMe I_STAT:\t0000009400000000 TRP 1 MIS 0 LSO 0 TrapType 5 ICM 0 OVR 0\n"
			"ProfileMe PCTR_CTL:\t0000007d00000306 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 0 SL1 1 PCTR0 2000 PCTR1 12 (retire delay)\n",
	},
	/* Redirect traps: named by the PALcode entry, whatever TRP says. */
	{
		.name = "PAL 0x481, TRP clear",
		.version = 1,
		.pmpc = 0x0000000000020481ULL,
		.i_stat = 0,
		.pctr_ctl = PC_VAL,
		.mode = "PAL",
		.trap = "Istream access violation",
		.pctr1_name = "cycles",
		.val = 1,
	},
	{
		.name = "PAL 0x581, trapped and MIS",
		.version = 1,
		.pmpc = 0x0000000000008581ULL,
		.i_stat = IS_TRP | IS_MIS | IS_ICM | IS_OVR(2),
		.pctr_ctl = PC_VAL | PC_SL0,
		.mode = "PAL",
		.trap = "ITB miss",
		.pctr1_name = "cycles",
		.trapped = true,
		.mispredicted = true,
		.ovr = 2,
		.icm = 1,
		.trp = 1,
		.mis = 1,
		.val = 1,
		.sl0 = 1,
		.dump = "ProfileMe PMPC:\t0000000000008581 PAL trap ITB miss mispredicted\n"
			"ProfileMe I_STAT:\t0000018280000000 TRP 1 MIS 1 LSO 0 TrapType 0 ICM 1 OVR 2\n"
			"ProfileMe PCTR_CTL:\t0000000000000012 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 1 SL1 0 PCTR0 0 PCTR1 0 (cycles)\n",
	},
	{
		.name = "PAL 0x681 over TRAP_TYPE, killed",
		.version = 1,
		.pmpc = 0x0000000000000681ULL,
		.i_stat = IS_TRP | IS_TT(6),
		.pctr_ctl = PC_KILLED,
		.mode = "PAL",
		.trap = "interrupt",
		.pctr1_name = "cycles",
		.trap_type = 6,
		.trp = 1,
		.killed = 1,
	},
	{
		.name = "PAL 0x581 with bit 63: PAL before kernel",
		.version = 1,
		.pmpc = 0x8000000000018581ULL,
		.i_stat = 0,
		.pctr_ctl = 0,
		.mode = "PAL",
		.trap = "ITB miss",
		.pctr1_name = "cycles",
	},
	{
		.name = "PAL other offset, trapped: TRAP_TYPE",
		.version = 1,
		.pmpc = 0x0000000000020101ULL,
		.i_stat = IS_TRP | IS_TT(6),
		.pctr_ctl = PC_VAL,
		.mode = "PAL",
		.trap = "DTB single miss",
		.pctr1_name = "cycles",
		.trapped = true,
		.trap_type = 6,
		.trp = 1,
		.val = 1,
	},
	{
		.name = "PAL other offset, not trapped",
		.version = 1,
		.pmpc = 0x0000000000020001ULL,
		.i_stat = IS_TT(6),
		.pctr_ctl = PC_VAL,
		.mode = "PAL",
		.trap = "none",
		.pctr1_name = "cycles",
		.trap_type = 6,
		.val = 1,
	},
	{
		.name = "offset 0x481 without the PAL bit",
		.version = 1,
		.pmpc = 0x0000000000020480ULL,
		.i_stat = IS_TRP | IS_TT(0),
		.pctr_ctl = PC_VAL,
		.mode = "user",
		.trap = "replay",
		.pctr1_name = "cycles",
		.trapped = true,
		.trp = 1,
		.val = 1,
	},
	{
		.name = "TRP with KILLED: stale",
		.version = 1,
		.pmpc = 0x0000000120000010ULL,
		.i_stat = IS_TRP | IS_MIS | IS_TT(7),
		.pctr_ctl = PC_KILLED | PC_STALLED | PC_SL1(3) | PC_PCTR1(5) | PC_PCTR0(9),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "mbox replays",
		.trap_type = 7,
		.trp = 1,
		.mis = 1,
		.sl1 = 3,
		.killed = 1,
		.stalled = 1,
		.pctr0 = 9,
		.pctr1 = 5,
		.dump = "ProfileMe PMPC:\t0000000120000010 user trap none\n"
			"ProfileMe I_STAT:\t0000019c00000000 TRP 1 MIS 1 LSO 0 TrapType 7 ICM 0 OVR 0\n"
			"ProfileMe PCTR_CTL:\t000000009c00014c VAL 0 TAK 0 Stalled 1 Killed 1 SL0 0 SL1 3 PCTR0 9 PCTR1 5 (mbox replays)\n",
	},
	{
		.name = "MIS with TRP: mispredicted, trap none",
		.version = 1,
		.pmpc = 0x0000000120004c18ULL,
		.i_stat = IS_TRP | IS_MIS,
		.pctr_ctl = PC_TAK | PC_SL1(2) | PC_PCTR1(3) | PC_PCTR0(17),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "bcache misses",
		.trapped = true,
		.mispredicted = true,
		.trp = 1,
		.mis = 1,
		.tak = 1,
		.sl1 = 2,
		.pctr0 = 17,
		.pctr1 = 3,
		.dump = "ProfileMe PMPC:\t0000000120004c18 user trap none mispredicted\n"
			"ProfileMe I_STAT:\t0000018000000000 TRP 1 MIS 1 LSO 0 TrapType 0 ICM 0 OVR 0\n"
			"ProfileMe PCTR_CTL:\t00000001100000c9 VAL 0 TAK 1 Stalled 0 Killed 0 SL0 0 SL1 2 PCTR0 17 PCTR1 3 (bcache misses)\n",
	},
	{
		.name = "MIS with TRP and TRAP_TYPE: still none",
		.version = 1,
		.pmpc = PMPC_KERN,
		.i_stat = IS_TRP | IS_MIS | IS_TT(12),
		.pctr_ctl = PC_VAL,
		.mode = "kernel",
		.trap = "none",
		.pctr1_name = "cycles",
		.trapped = true,
		.mispredicted = true,
		.trap_type = 12,
		.trp = 1,
		.mis = 1,
		.val = 1,
	},
	{
		.name = "MIS without TRP: not mispredicted",
		.version = 1,
		.pmpc = PMPC_USER,
		.i_stat = IS_MIS,
		.pctr_ctl = PC_VAL | PC_TAK,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
		.mis = 1,
		.tak = 1,
		.val = 1,
	},
	{
		.name = "SL1 0: cycles",
		.version = 1,
		.pmpc = PMPC_USER,
		.pctr_ctl = PC_SL1(0) | PC_PCTR1(0xfffff),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
		.pctr1 = 0xfffff,
	},
	{
		.name = "SL1 1: retire delay",
		.version = 1,
		.pmpc = PMPC_USER,
		.pctr_ctl = PC_SL1(1) | PC_PCTR1(1),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "retire delay",
		.sl1 = 1,
		.pctr1 = 1,
	},
	{
		.name = "SL1 2: bcache misses",
		.version = 1,
		.pmpc = PMPC_USER,
		.pctr_ctl = PC_SL1(2) | PC_PCTR1(2) | PC_SL0,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "bcache misses",
		.sl1 = 2,
		.sl0 = 1,
		.pctr1 = 2,
	},
	{
		.name = "SL1 3: mbox replays",
		.version = 1,
		.pmpc = PMPC_USER,
		.pctr_ctl = PC_SL1(3) | PC_PCTR1(0x80000),
		.mode = "user",
		.trap = "none",
		.pctr1_name = "mbox replays",
		.sl1 = 3,
		.pctr1 = 0x80000,
	},
	{
		.name = "undefined bits set are ignored",
		.version = 1,
		.pmpc = 0x0000000120009ff0ULL,
		.i_stat = IS_UNDEFINED | IS_TRP | IS_TT(12) | IS_LSO,
		.pctr_ctl = PC_UNDEFINED | PC_VAL | PC_PCTR0(1),
		.mode = "user",
		.trap = "arithmetic",
		.pctr1_name = "cycles",
		.trapped = true,
		.trap_type = 12,
		.lso = 1,
		.trp = 1,
		.val = 1,
		.pctr0 = 1,
		.dump = "ProfileMe PMPC:\t0000000120009ff0 user trap arithmetic\n"
			"ProfileMe I_STAT:\tfffffef03fffffff TRP 1 MIS 0 LSO 1 TrapType 12 ICM 0 OVR 0\n"
			"ProfileMe PCTR_CTL:\tffff000010000022 VAL 1 TAK 0 Stalled 0 Killed 0 SL0 0 SL1 0 PCTR0 1 PCTR1 0 (cycles)\n",
	},
	{
		.name = "undefined bits only",
		.version = 1,
		.pmpc = PMPC_USER,
		.i_stat = IS_UNDEFINED,
		.pctr_ctl = PC_UNDEFINED,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
	},
	{
		.name = "every bit set",
		.version = 1,
		.pmpc = ~0ULL,
		.i_stat = ~0ULL,
		.pctr_ctl = ~0ULL,
		.mode = "PAL",
		.trap = "none",
		.pctr1_name = "mbox replays",
		.ovr = 7,
		.icm = 1,
		.trap_type = 15,
		.lso = 1,
		.trp = 1,
		.mis = 1,
		.tak = 1,
		.val = 1,
		.sl1 = 3,
		.sl0 = 1,
		.killed = 1,
		.stalled = 1,
		.pctr0 = 0xfffff,
		.pctr1 = 0xfffff,
		.dump = "ProfileMe PMPC:\tffffffffffffffff PAL trap none\n"
			"ProfileMe I_STAT:\tffffffffffffffff TRP 1 MIS 1 LSO 1 TrapType 15 ICM 1 OVR 7\n"
			"ProfileMe PCTR_CTL:\tffffffffffffffff VAL 1 TAK 1 Stalled 1 Killed 1 SL0 1 SL1 3 PCTR0 1048575 PCTR1 1048575 (mbox replays)\n",
	},
	{
		.name = "every field bit set, not killed",
		.version = 1,
		.pmpc = PMPC_KERN,
		.i_stat = 0x7ffULL << 30,
		.pctr_ctl = 0xffffffffffffULL & ~PC_KILLED,
		.mode = "kernel",
		.trap = "none",
		.pctr1_name = "mbox replays",
		.trapped = true,
		.mispredicted = true,
		.ovr = 7,
		.icm = 1,
		.trap_type = 15,
		.lso = 1,
		.trp = 1,
		.mis = 1,
		.tak = 1,
		.val = 1,
		.sl1 = 3,
		.sl0 = 1,
		.stalled = 1,
		.pctr0 = 0xfffff,
		.pctr1 = 0xfffff,
	},
	{
		.name = "OVR and ICM and LSO",
		.version = 1,
		.pmpc = PMPC_USER,
		.i_stat = IS_OVR(5) | IS_ICM | IS_LSO,
		.pctr_ctl = PC_VAL,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
		.ovr = 5,
		.icm = 1,
		.lso = 1,
		.val = 1,
	},
	{
		.name = "version 2 with 12 extra bytes",
		.version = 2,
		.pmpc = PMPC_USER,
		.i_stat = IS_TRP | IS_TT(4),
		.pctr_ctl = PC_VAL,
		.raw_size = 40,
		.mode = "user",
		.trap = "FP disabled",
		.pctr1_name = "cycles",
		.trapped = true,
		.trap_type = 4,
		.trp = 1,
		.val = 1,
	},
	{
		.name = "version 0xffffffff",
		.version = 0xffffffffU,
		.pmpc = PMPC_USER,
		.raw_size = 29,
		.mode = "user",
		.trap = "none",
		.pctr1_name = "cycles",
	},
	{
		.name = "version 0: rejected",
		.version = 0,
		.pmpc = PMPC_USER,
		.i_stat = IS_TRP,
		.pctr_ctl = PC_VAL,
		.rc = -EINVAL,
	},
	{
		.name = "raw_size 27: rejected",
		.version = 1,
		.pmpc = PMPC_USER,
		.i_stat = IS_TRP,
		.pctr_ctl = PC_VAL,
		.raw_size = 27,
		.rc = -EINVAL,
	},
	{
		.name = "raw_size 4: rejected",
		.version = 1,
		.raw_size = 4,
		.rc = -EINVAL,
	},
};

#define PROFILEME_NCASES (sizeof(profileme_cases) / sizeof(profileme_cases[0]))

/* Payloads written out byte by byte, to pin the byte order down without
 * trusting the test's own little-endian writer. */
struct profileme_bytes_case {
	const char *name;
	unsigned char bytes[28];
	uint32_t version;
	uint64_t pmpc, i_stat, pctr_ctl;
	const char *trap;
};

/* clang-format off */
static const struct profileme_bytes_case profileme_bytes_cases[] = {
	{
		"user, retired",
		{ 0x01, 0x00, 0x00, 0x00,
		  0x40, 0x1a, 0x00, 0x20, 0x01, 0x00, 0x00, 0x00,
		  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		  0x42, 0x09, 0x00, 0x40, 0x06, 0x00, 0x00, 0x00 },
		1, 0x0000000120001a40ULL, 0, 0x0000000640000942ULL, "none",
	},
	{
		"kernel, unaligned",
		{ 0x01, 0x00, 0x00, 0x00,
		  0x40, 0x23, 0x31, 0x00, 0x00, 0xfc, 0xff, 0xff,
		  0x00, 0x00, 0x00, 0x00, 0x94, 0x00, 0x00, 0x00,
		  0x06, 0x03, 0x00, 0x00, 0x7d, 0x00, 0x00, 0x00 },
		1, 0xfffffc0000312340ULL, 0x0000009400000000ULL, 0x0000007d00000306ULL,
		"unaligned",
	},
	{
		"distinct bytes everywhere",
		{ 0x03, 0x02, 0x01, 0x00,
		  0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		  0xf1, 0xe2, 0xd3, 0xc4, 0xb5, 0xa6, 0x97, 0x88 },
		0x00010203U, 0x8877665544332211ULL, 0x0807060504030201ULL,
		0x8897a6b5c4d3e2f1ULL, NULL,
	},
};
/* clang-format on */

#define PROFILEME_NBYTES_CASES (sizeof(profileme_bytes_cases) / sizeof(profileme_bytes_cases[0]))

/* The payload of case c in little endian at buf (which must hold
 * profileme_case_size(c) bytes); filler after the 28 bytes. */
static inline uint32_t profileme_case_size(const struct profileme_case *c)
{
	return c->raw_size ? c->raw_size : 28;
}

static inline void profileme_case_put(unsigned char *p, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void profileme_case_bytes(const struct profileme_case *c, unsigned char *buf)
{
	unsigned char full[28];
	uint32_t size = profileme_case_size(c), i;

	profileme_case_put(full, c->version, 4);
	profileme_case_put(full + 4, c->pmpc, 8);
	profileme_case_put(full + 12, c->i_stat, 8);
	profileme_case_put(full + 20, c->pctr_ctl, 8);
	for (i = 0; i < size; i++)
		buf[i] = i < 28 ? full[i] : (unsigned char)(0xa5 ^ i);
}

/* Compare a decode of case c (rc, *pm) with what c expects.  Returns true
 * when they agree; else false with the first difference in why. */
static inline bool profileme_case_check(const struct profileme_case *c, int rc,
					const struct profileme *pm, char *why, size_t whysize)
{
#define PMC_FIELD(f, want)                                                                 \
	do {                                                                               \
		if ((uint64_t)(pm->f) != (uint64_t)(want)) {                               \
			snprintf(why, whysize, "%s: %s = %#llx, want %#llx", c->name, #f,  \
				 (unsigned long long)(pm->f), (unsigned long long)(want)); \
			return false;                                                      \
		}                                                                          \
	} while (0)
#define PMC_STR(got, want)                                                                    \
	do {                                                                                  \
		if (!(got) || strcmp((got), (want)) != 0) {                                   \
			snprintf(why, whysize, "%s: %s = \"%s\", want \"%s\"", c->name, #got, \
				 (got) ? (got) : "(null)", (want));                           \
			return false;                                                         \
		}                                                                             \
	} while (0)

	if (rc != c->rc) {
		snprintf(why, whysize, "%s: rc %d, want %d", c->name, rc, c->rc);
		return false;
	}
	if (rc != 0) {
		/* A rejected payload leaves *pm zeroed, never half decoded. */
		PMC_FIELD(version, 0);
		PMC_FIELD(pmpc, 0);
		PMC_FIELD(i_stat, 0);
		PMC_FIELD(pctr_ctl, 0);
		PMC_FIELD(trapped, 0);
		return true;
	}
	PMC_FIELD(version, c->version);
	PMC_FIELD(pmpc, c->pmpc);
	PMC_FIELD(i_stat, c->i_stat);
	PMC_FIELD(pctr_ctl, c->pctr_ctl);
	PMC_FIELD(pal, c->pmpc & 1);
	PMC_FIELD(pal_offset, c->pmpc & 0x7fff);
	PMC_STR(profileme_mode_name(pm->mode), c->mode);
	PMC_FIELD(ovr, c->ovr);
	PMC_FIELD(icm, c->icm);
	PMC_FIELD(trap_type, c->trap_type);
	PMC_FIELD(lso, c->lso);
	PMC_FIELD(trp, c->trp);
	PMC_FIELD(mis, c->mis);
	PMC_FIELD(tak, c->tak);
	PMC_FIELD(val, c->val);
	PMC_FIELD(sl1, c->sl1);
	PMC_FIELD(sl0, c->sl0);
	PMC_FIELD(pctr1, c->pctr1);
	PMC_FIELD(killed, c->killed);
	PMC_FIELD(stalled, c->stalled);
	PMC_FIELD(pctr0, c->pctr0);
	PMC_FIELD(trapped, c->trapped);
	PMC_FIELD(mispredicted, c->mispredicted);
	PMC_STR(pm->trap_name, c->trap);
	PMC_STR(profileme_trap_label(pm->trap), c->trap);
	PMC_STR(profileme_trap_name(c->pmpc, c->i_stat, c->pctr_ctl), c->trap);
	PMC_STR(pm->pctr1_name, c->pctr1_name);
	if (c->dump) {
		char buf[PROFILEME_DUMP_MAX];
		int n = profileme_format_dump(pm, buf, sizeof(buf));

		if (n != (int)strlen(c->dump) || strcmp(buf, c->dump) != 0) {
			snprintf(why, whysize, "%s: dump\n%s(%d bytes), want\n%s(%d bytes)",
				 c->name, buf, n, c->dump, (int)strlen(c->dump));
			return false;
		}
	}
	return true;
#undef PMC_FIELD
#undef PMC_STR
}

#endif
