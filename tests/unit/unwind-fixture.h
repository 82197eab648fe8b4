/* What the unwinder's unit tests share: a process that maps a file, and a
 * user sample's registers and stack copy (x86-64, perf's register order). */
#ifndef PROFTOP_TESTS_UNWIND_FIXTURE_H
#define PROFTOP_TESTS_UNWIND_FIXTURE_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "machine.h"
#include "record.h"

#define UW_SP 0x7ff000000000ULL

/* Process pid of m maps path at base (64 KiB, r-x). */
static inline void uw_map(struct machine *m, uint32_t pid, uint64_t base, const char *path)
{
	struct mmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = pid;
	ev.start = base;
	ev.len = 0x10000;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = path;
	machine_mmap(m, &ev);
}

/* name's value in dir/nm.txt (nm's output for a library the test
 * built), or 0 when it is not there. */
static inline uint64_t uw_nm_value(const char *dir, const char *name)
{
	char path[512], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/nm.txt", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char n[64], t;
		uint64_t a;

		if (sscanf(line, "%" SCNx64 " %c %63s", &a, &t, n) == 3 && strcmp(n, name) == 0)
			v = a;
	}
	fclose(f);
	return v;
}

struct uw_walk {
	uint64_t regs[20];           /* perf's x86-64 order, mask 0xff0fff */
	uint64_t stack[8];
	struct sample s;
	struct perf_event_attr attr;
};

/* A user sample of pid at ip, its stack pointer UW_SP, with the first
 * stack_bytes of w->stack as its copy (none when 0). */
static inline void uw_walk_init(struct uw_walk *w, uint32_t pid, uint64_t ip,
				size_t stack_bytes)
{
	memset(w, 0, sizeof(*w));
	w->attr.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	w->attr.sample_regs_user = 0xff0fff;
	w->regs[7] = UW_SP;
	w->regs[8] = ip;
	w->s.ip = ip;
	w->s.cpumode = PERF_RECORD_MISC_USER;
	w->s.sid.pid = w->s.sid.tid = pid;
	w->s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	w->s.regs = w->regs;
	w->s.nr_regs = 20;
	w->s.stack = stack_bytes ? (const unsigned char *)w->stack : NULL;
	w->s.stack_size = stack_bytes;
}

#endif
