/* What is profiled, live: every CPU or some, the whole system or some
 * processes (-p), threads (-t) or a command proftop starts and reaps. */
#ifndef PROFTOP_TARGET_H
#define PROFTOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct engine_config;

struct target {
	char name[128];              /* "system-wide", "pid 12", "command ./wl", ", 2 CPUs" */
	/* -- COMMAND */
	pid_t child;                 /* 0: none */
	int go_fd;                   /* write end: releases the child into exec */
	int exec_err_fd;             /* read end: errno if exec failed */
	int child_status;            /* exit status, 128+N when killed by signal N */
	bool child_done;
};

/* An empty target (no child, no fds). */
void target_init(struct target *t);
/* Kill and reap a child still running, close the fds. */
void target_release(struct target *t);

/* t->name from the config. */
void target_describe(struct target *t, const struct engine_config *cfg);

/* The CPUs of -C are online.  0, or the exit status after a message. */
int target_check_cpus(const int *cpus, size_t ncpus);

/* What to sample for -p, -t and the command. */
struct target_threads {
	pid_t *tids;                 /* the threads to open the events on (malloc'd) */
	size_t ntids;
	pid_t *procs;                /* the processes to read from /proc (malloc'd) */
	size_t nprocs;
	bool inherit;                /* follow children and new threads */
	bool enable_on_exec;         /* the command: from its exec on */
};

/* The threads of -p, -t and the command (started here, stopped until
 * target_release_command) into *out, which the caller frees.  Returns 0
 * or the exit status after a message. */
int target_threads(struct target *t, const struct engine_config *cfg,
		   struct target_threads *out);

/* Let the child exec; returns 0, or 127 after a message if exec failed. */
int target_release_command(struct target *t, char **argv);
/* Note the child's end if it has ended (never blocks). */
void target_reap(struct target *t);
/* The child still runs: we started it, so we stop it (SIGTERM, then
 * SIGKILL after 2 s), and note its end. */
void target_stop_command(struct target *t);

#endif
