/* Holes in a CPU's chain of sched_switch samples, and the CPUs that need
 * switch records for them (see offcpu-holes.h). */
#include "config.h"

#include "offcpu-holes.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct offcpu_holes_cpu {
	uint32_t cur;       /* on the CPU, after the last sample */
	bool known;         /* a sample seen */
	bool asked;         /* switch records asked for (and not to close) */
	bool watched;       /* switch records open */
};

struct offcpu_holes_want {
	uint32_t cpu;
	bool on;
};

struct offcpu_holes {
	struct offcpu_holes_cpu *cpus;
	size_t ncpus, cpus_cap;
	struct offcpu_holes_want *want;    /* FIFO of CPUs to open or close */
	size_t nwant, want_head, want_cap;
	struct offcpu_holes_stats stats;
};

struct offcpu_holes *offcpu_holes_new(void)
{
	return xcalloc(1, sizeof(struct offcpu_holes));
}

void offcpu_holes_free(struct offcpu_holes *h)
{
	if (!h)
		return;
	free(h->cpus);
	free(h->want);
	free(h);
}

static struct offcpu_holes_cpu *offcpu_holes_cpu(struct offcpu_holes *h, uint32_t cpu)
{
	if (cpu >= h->ncpus) {
		h->cpus = xgrow(h->cpus, &h->cpus_cap, (size_t)cpu + 1, sizeof(*h->cpus));
		memset(h->cpus + h->ncpus, 0, ((size_t)cpu + 1 - h->ncpus) * sizeof(*h->cpus));
		h->ncpus = (size_t)cpu + 1;
	}
	return &h->cpus[cpu];
}

static void offcpu_holes_want(struct offcpu_holes *h, struct offcpu_holes_cpu *c, uint32_t cpu,
			      bool on)
{
	c->asked = on;
	if (on)
		h->stats.watches++;
	else
		h->stats.unwatches++;
	if (h->want_head == h->nwant)
		h->want_head = h->nwant = 0;
	h->want = xgrow(h->want, &h->want_cap, h->nwant + 1, sizeof(*h->want));
	h->want[h->nwant].cpu = cpu;
	h->want[h->nwant++].on = on;
}

void offcpu_holes_switch(struct offcpu_holes *h, uint32_t cpu, uint32_t prev_pid,
			 uint32_t next_pid)
{
	struct offcpu_holes_cpu *c = offcpu_holes_cpu(h, cpu);

	if (c->known && c->cur != prev_pid) {
		h->stats.holes++;
		if (c->watched)
			h->stats.closed++;
		if (!c->cur) {
			h->stats.idle++;
			if (!c->asked)
				offcpu_holes_want(h, c, cpu, true);
		}
	} else if (c->known && !prev_pid && c->asked) {
		/* The idle task's switch-out is sampled again. */
		offcpu_holes_want(h, c, cpu, false);
	}
	c->known = true;
	c->cur = next_pid;
}

void offcpu_holes_cpu_watched(struct offcpu_holes *h, uint32_t cpu, bool watched)
{
	offcpu_holes_cpu(h, cpu)->watched = watched;
}

bool offcpu_holes_take(struct offcpu_holes *h, uint32_t *cpu, bool *on)
{
	if (h->want_head == h->nwant)
		return false;
	*cpu = h->want[h->want_head].cpu;
	*on = h->want[h->want_head++].on;
	return true;
}

const struct offcpu_holes_stats *offcpu_holes_stats(const struct offcpu_holes *h)
{
	return &h->stats;
}
