/* /proc synthesis: the processes, threads and exec maps that existed
 * before the record stream began, read into the machine. */
#ifndef PROFTOP_SYNTH_H
#define PROFTOP_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct machine;

/* Synthesize existing processes from /proc (comm, threads, exec maps):
 * all of them when npids == 0, else those pids and their threads.
 * Processes that vanish while being read are skipped.  Returns the number
 * of processes read, or -errno when /proc itself cannot be read. */
int machine_synthesize(struct machine *m, const pid_t *pids, size_t npids);

/* The same in steps, so that sampling goes on meanwhile: begin lists the
 * pids (all of /proc when npids == 0) and returns how many, or -errno;
 * each step reads at most max of them and returns how many are left.
 * While a sweep is under way, call machine_synthesize_pid with the pid of
 * every record before passing the record in: a process the records speak
 * of is read at once, and the sweep then skips it (it also skips pids the
 * records created).  No pid of the list is left out. */
int machine_synthesize_begin(struct machine *m, const pid_t *pids, size_t npids);
size_t machine_synthesize_step(struct machine *m, size_t max);
void machine_synthesize_pid(struct machine *m, uint32_t pid);
bool machine_synthesizing(const struct machine *m);

#endif
