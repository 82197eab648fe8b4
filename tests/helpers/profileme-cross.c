/* Self-contained check of the Alpha decoders (ProfileMe payloads, and the
 * disassembler's vectors) for cross builds run under qemu (s390x: big
 * endian; alpha: the real target): no check library, no configure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <elf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alpha-profileme.h"
#include "alpha_disasm_cases.h"
#include "amd-ibs.h"
#include "arch.h"
#include "payload.h"
#include "profileme_cases.h"
#include "strbuf.h"

static int cross_failed, cross_passed;

static void cross_result(int ok, const char *what, const char *why)
{
	if (ok) {
		cross_passed++;
		return;
	}
	cross_failed++;
	printf("not ok - %s: %s\n", what, why);
}

/* Every case from a buffer of exactly off + size bytes, off 0..7. */
static void cross_cases(void)
{
	size_t i;
	unsigned off;

	for (i = 0; i < PROFILEME_NCASES; i++) {
		const struct profileme_case *c = &profileme_cases[i];
		uint32_t size = profileme_case_size(c);

		for (off = 0; off < 8; off++) {
			unsigned char *buf = malloc(off + size);
			struct profileme pm;
			char why[1024];
			int rc;

			if (!buf) {
				perror("malloc");
				exit(2);
			}
			profileme_case_bytes(c, buf + off);
			rc = profileme_decode(buf + off, size, &pm);
			free(buf);
			cross_result(profileme_case_check(c, rc, &pm, why, sizeof(why)), c->name,
				     why);
		}
	}
	printf("ok - %zu vectors at 8 alignments\n", PROFILEME_NCASES);
}

static void cross_bytes_cases(void)
{
	size_t i;
	unsigned off;

	for (i = 0; i < PROFILEME_NBYTES_CASES; i++) {
		const struct profileme_bytes_case *c = &profileme_bytes_cases[i];

		for (off = 0; off < 8; off++) {
			unsigned char buf[8 + sizeof(c->bytes)];
			struct profileme pm;
			char why[256];
			int ok;

			memcpy(buf + off, c->bytes, sizeof(c->bytes));
			ok = profileme_decode(buf + off, sizeof(c->bytes), &pm) == 0 &&
			     pm.version == c->version && pm.pmpc == c->pmpc &&
			     pm.i_stat == c->i_stat && pm.pctr_ctl == c->pctr_ctl &&
			     (!c->trap || strcmp(pm.trap_name, c->trap) == 0);
			snprintf(why, sizeof(why),
				 "off %u: version %#x pmpc %#llx i_stat %#llx pctr_ctl %#llx", off,
				 pm.version, (unsigned long long)pm.pmpc,
				 (unsigned long long)pm.i_stat, (unsigned long long)pm.pctr_ctl);
			cross_result(ok, c->name, why);
		}
	}
	printf("ok - %zu literal payloads at 8 alignments\n", PROFILEME_NBYTES_CASES);
}

/* The disassembler: instruction words from file-order bytes, then text
 * and targets. */
static void cross_disasm(void)
{
	size_t i;

	for (i = 0; i < ALPHA_DISASM_NCASES; i++) {
		char why[256] = "";

		cross_result(alpha_disasm_case_check(&alpha_disasm_cases[i], why, sizeof(why)),
			     alpha_disasm_cases[i].text, why);
	}
	printf("ok - %zu disassembler vectors\n", ALPHA_DISASM_NCASES);
}

/* The interface: applies, and the attr the live engine would open. */
static void cross_arch(void)
{
	const struct arch_payload_ops *ops = arch_payload_find(EM_ALPHA);
	struct perf_event_attr attr;
	unsigned char raw[28];

	cross_result(ops != NULL, "arch_payload_find(EM_ALPHA)", "NULL");
	cross_result(arch_payload_find(EM_S390) == NULL, "arch_payload_find(EM_S390)", "not NULL");
	if (!ops)
		return;
	profileme_case_bytes(&profileme_cases[0], raw);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	cross_result(ops->applies(&attr, raw, 28), "applies HARDWARE", "false");
	attr.type = PERF_TYPE_SOFTWARE;
	cross_result(!ops->applies(&attr, raw, 28), "applies SOFTWARE", "true");
	cross_result(!profileme_applies(PERF_TYPE_HARDWARE, EM_S390, 28, 1), "applies s390",
		     "true");

	attr.type = PERF_TYPE_HARDWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	arch_adjust_attr(&attr, EM_ALPHA);
	cross_result(attr.sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW),
		     "adjust_attr alpha", "no PERF_SAMPLE_RAW");
	attr.sample_type = PERF_SAMPLE_IP;
	arch_adjust_attr(&attr, EM_S390);
	cross_result(attr.sample_type == PERF_SAMPLE_IP, "adjust_attr s390", "changed");
	printf("ok - arch interface\n");
}

/* AMD IBS: a little-endian Op and Fetch block, at every alignment, give
 * perf's -D text (tests/integration/ibs.sh checks the same text against
 * perf report -D on x86) whatever the host's byte order. */
static void cross_ibs(void)
{
	static const unsigned char op_raw[] = {
		0x20, 0x08, 0x00, 0x00,				/* caps: BRNTRGT, ZEN4 */
		0x34, 0x12, 0x07, 0x00, 0x05, 0x00, 0x00, 0x00, /* IbsOpCtl */
		0x00, 0x10, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, /* IbsOpRip */
		0x03, 0x00, 0x32, 0x00, 0x38, 0x00, 0x00, 0x00, /* IbsOpData */
		0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* IbsOpData2 */
		0x81, 0x00, 0xd2, 0x00, 0xc8, 0x00, 0x00, 0x00, /* IbsOpData3 */
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x00, 0x00, /* IbsDcLinAd */
		0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* IbsDcPhysAd */
		0x00, 0x11, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, /* IbsBrTarget */
	};
	static const char op_text[] =
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
		"IbsDCLinAd:\t00000000007f0000\n"
		"IbsBrTarget:\t0000000000401100\n";
	static const struct arch_pmu pmus[] = { { 11, "ibs_op" } };
	struct arch_env env = {
		.e_machine = EM_X86_64, .cpuid = "AuthenticAMD,25,17,1", .pmus = pmus, .npmus = 1
	};
	struct perf_event_attr attr;
	union arch_payload_buf buf;
	const struct arch_payload_ops *ops;
	char text[IBS_DUMP_MAX];
	unsigned off;

	memset(&attr, 0, sizeof(attr));
	attr.type = 11;
	ops = arch_payload_select(&env, &attr);
	cross_result(ops == &ibs_op_arch, "arch_payload_select(ibs_op)", "not the IBS Op decoder");
	if (!ops)
		return;
	for (off = 0; off < 8; off++) {
		unsigned char *p = malloc(off + sizeof(op_raw));

		memcpy(p + off, op_raw, sizeof(op_raw));
		if (!arch_payload_decode_in(&env, ops, &attr, p + off, sizeof(op_raw), &buf)) {
			cross_result(0, "IBS Op decode", "refused");
		} else {
			ops->format_dump(&buf, text, sizeof(text));
			cross_result(strcmp(text, op_text) == 0, "IBS Op -D text", text);
		}
		cross_result(!arch_payload_decode_in(&env, ops, &attr, p + off, sizeof(op_raw) - 1,
						     &buf),
			     "IBS Op short block", "decoded");
		free(p);
	}
}

/* argv "ibs FILE": FILE describes a recording for mkperfdata (written by
 * tests/helpers/ibs_gen.py): each sample's raw block, decoded for the
 * cpuid line's CPU as the attr line's event (ibs_op or ibs_fetch) from a
 * buffer at an alignment that changes from sample to sample, prints its
 * -D text or "not IBS"; then the JSON of all of them counted in one row.
 * The output must be the same bytes on every host (bigendian.sh). */
static int cross_ibs_file(const char *path)
{
	const struct payload_ops *p = &ibs_op_payload;
	uint32_t family = 0, model = 0, n = 0;
	FILE *f = fopen(path, "r");
	char line[8192], text[IBS_DUMP_MAX];
	unsigned char bytes[sizeof(line) / 2 + 8];
	struct strbuf sb;
	void *stats;

	if (!f) {
		perror(path);
		return EXIT_FAILURE;
	}
	stats = calloc(1, sizeof(struct ibs_op_stats) + sizeof(struct ibs_fetch_stats));
	if (!stats)
		exit(2);
	while (fgets(line, sizeof(line), f)) {
		const char *h = strstr(line, " raw=");
		unsigned char *raw = bytes + n % 8;
		uint32_t size = 0;
		unsigned x;
		union {
			struct ibs_op op;
			struct ibs_fetch fetch;
		} d;
		int rc;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "cpuid ", 6) == 0)
			ibs_cpuid_amd(line + 6, &family, &model);
		if (strncmp(line, "attr ", 5) == 0 && strstr(line, " name=ibs_fetch"))
			p = &ibs_fetch_payload;
		if (strncmp(line, "sample ", 7) != 0 || !h)
			continue;
		for (h += 5; sscanf(h, "%2x", &x) == 1; h += 2)
			raw[size++] = (unsigned char)x;
		if (p == &ibs_op_payload)
			rc = ibs_op_decode(raw, size, family, model, &d.op);
		else
			rc = ibs_fetch_decode(raw, size, family, model, &d.fetch);
		if (rc == 0) {
			if (p == &ibs_op_payload)
				ibs_op_format_dump(&d.op, text, sizeof(text));
			else
				ibs_fetch_format_dump(&d.fetch, text, sizeof(text));
			fputs(text, stdout);
			p->stats_add(stats, &d);
		} else {
			printf("sample %u: not IBS\n", n);
			p->stats_add_other(stats);
		}
		n++;
	}
	fclose(f);
	strbuf_init(&sb);
	p->format_json(&sb, stats);
	printf("%s\n", sb.buf);
	strbuf_release(&sb);
	free(stats);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	const uint16_t one = 1;
	int host = arch_host_machine();

	if (argc == 3 && strcmp(argv[1], "ibs") == 0)
		return cross_ibs_file(argv[2]);

	printf("# host: %s endian, machine %d (%s)\n",
	       *(const unsigned char *)&one ? "little" : "big", host,
	       host == EM_ALPHA	 ? "alpha" :
	       host == EM_S390	 ? "s390" :
	       host == EM_X86_64 ? "x86_64" :
				   "other");
#if defined(__alpha__)
	/* Under qemu-alpha uname says "alpha": the live engine would ask for
	 * the payload there. */
	cross_result(host == EM_ALPHA, "host machine on alpha", "not EM_ALPHA");
#elif defined(__s390x__)
	cross_result(host == EM_S390, "host machine on s390x", "not EM_S390");
#endif
	cross_cases();
	cross_bytes_cases();
	cross_arch();
	cross_disasm();
	cross_ibs();
	printf("# %d checks passed, %d failed\n", cross_passed, cross_failed);
	return cross_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
