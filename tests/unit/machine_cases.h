/* Helpers shared by the machine's unit suites (check_machine, check_dso,
 * check_jitmap, check_synth): side-band events fed in, and user-space
 * resolution checked. */
#ifndef PROFTOP_MACHINE_CASES_H
#define PROFTOP_MACHINE_CASES_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "machine.h"

#define PAGE 0x1000ULL

static inline struct mmap_event mk_mmap(uint32_t pid, uint32_t tid, uint64_t start,
					 uint64_t len, uint64_t pgoff, const char *path)
{
	struct mmap_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.pid = pid;
	ev.tid = tid;
	ev.start = start;
	ev.len = len;
	ev.pgoff = pgoff;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = path;
	return ev;
}

static inline void do_mmap(struct machine *m, uint32_t pid, uint32_t tid, uint64_t start,
			   uint64_t len, uint64_t pgoff, const char *path)
{
	struct mmap_event ev = mk_mmap(pid, tid, start, len, pgoff, path);

	machine_mmap(m, &ev);
}

static inline void do_fork(struct machine *m, uint32_t pid, uint32_t ppid, uint32_t tid,
			   uint32_t ptid)
{
	struct task_event ev = { .pid = pid, .ppid = ppid, .tid = tid, .ptid = ptid };

	machine_fork(m, &ev);
}

static inline void do_exit(struct machine *m, uint32_t pid, uint32_t tid)
{
	struct task_event ev = { .pid = pid, .ppid = pid, .tid = tid, .ptid = tid };

	machine_exit(m, &ev);
}

static inline void do_comm(struct machine *m, uint32_t pid, uint32_t tid, const char *comm,
			   bool exec)
{
	struct comm_event ev = { .pid = pid, .tid = tid, .exec = exec, .comm = comm };

	machine_comm(m, &ev);
}

static inline struct resolved user(struct machine *m, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct resolved r;

	machine_resolve(m, pid, tid, PERF_RECORD_MISC_USER, ip, &r);
	return r;
}

/* The DSO short name at ip, or "-" when unmapped. */
static inline const char *name_at(struct machine *m, uint32_t pid, uint32_t tid, uint64_t ip)
{
	struct resolved r = user(m, pid, tid, ip);

	return r.dso ? dso_short_name(r.dso) : "-";
}

/* Check that ip maps to the (nonexistent, so symbol-less) file path at
 * file offset off. */
#define ck_map_at(m, pid, tid, ip, name, off) do {				\
		struct resolved r_ = user((m), (pid), (tid), (ip));		\
		ck_assert_ptr_nonnull(r_.dso);					\
		ck_assert_str_eq(dso_short_name(r_.dso), (name));		\
		ck_assert_uint_eq(r_.addr, (off));				\
		ck_assert_ptr_null(r_.sym);					\
	} while (0)

#endif
