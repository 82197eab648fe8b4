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
#include "arch.h"
#include "profileme_cases.h"

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

int main(void)
{
	const uint16_t one = 1;
	int host = arch_host_machine();

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
	printf("# %d checks passed, %d failed\n", cross_passed, cross_failed);
	return cross_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
