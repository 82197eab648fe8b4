/* Perf maps (JIT code): each process's /tmp/perf-PID.map, read when a
 * sample in code no ELF file names needs it.
 *
 * The first miss in a live process's anonymous code, then a miss at most
 * once a second (for the lines appended since), reads its map at once if
 * at most JIT_READ_NOW bytes are new, else queues the read for the loader
 * thread; until it is in, a miss is pending under a proxy DSO of that
 * process's map (and the DSO the address falls back to when the map does
 * not name it), so a 36 MB map no longer stalls the ingestion.  Each process (a
 * reused pid, an exec) has a map of its own, kept with the machine: held
 * samples may outlive the process. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine-impl.h"
#include "perfmap.h"
#include "symtab.h"
#include "util.h"

/* p's map, made on first use. */
static struct jitmap *jitmap_get(struct machine *m, struct process *p)
{
	struct jitmap *j = p->jit;
	char *path;

	if (j)
		return j;
	j = xcalloc(1, sizeof(*j));
	j->pid = p->pid;
	path = xasprintf("/tmp/perf-%u.map", p->pid);
	/* DSO_ANON: never opened as ELF; shown as perf-PID.map.  Not in the
	 * DSO table: a reused pid's map is another DSO. */
	j->dso = dso_new(path, DSO_ANON);
	free(path);
	j->next = m->jitmaps;
	m->jitmaps = j;
	m->stats.jitmaps++;
	p->jit = j;
	return j;
}

/* Read the lines of j's map appended since j->size into next_tab and
 * next_index, and publish LOADED; but when more than max_new bytes (0: no
 * limit) are new, read nothing and return -E2BIG.  On the loader thread
 * when async (it only reads j->index and j->size: the engine leaves them
 * alone while LOADING).  Returns perfmap_load's result. */
int jitmap_read(struct jitmap *j, uint64_t max_new)
{
	struct symtab *st;
	uint64_t size;
	int err = perfmap_load_max(j->pid, j->size, max_new, &st, &size);

	if (err == -E2BIG)
		return err;
	if (err == 0) {
		perfmap_index_merge(&j->index, st, &j->next_index);
		j->next_size = size;
		j->next_tab = st;
	}
	__atomic_store_n(&j->state, JIT_LOADED, __ATOMIC_RELEASE);
	return err;
}

/* Engine thread: take a finished read into j's index. */
void jitmap_install(struct machine *m, struct jitmap *j)
{
	if (__atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != JIT_LOADED)
		return;
	if (j->next_tab) {
		m->jit_tabs = xgrow(m->jit_tabs, &m->jit_cap, m->njit_tabs + 1,
				    sizeof(*m->jit_tabs));
		m->jit_tabs[m->njit_tabs++] = j->next_tab;
		perfmap_index_release(&j->index);
		j->index = j->next_index;
		j->size = j->next_size;
		j->next_tab = NULL;
		memset(&j->next_index, 0, sizeof(j->next_index));
	}
	__atomic_store_n(&j->state, JIT_IDLE, __ATOMIC_RELAXED);
}

/* The DSO of samples held for j's read, falling back to fallback. */
static struct dso *jitmap_proxy(struct jitmap *j, struct dso *fallback)
{
	struct dso *d;
	size_t i;

	for (i = 0; i < j->nproxies; i++)
		if (j->proxies[i]->jit_fallback == fallback)
			return j->proxies[i];
	d = dso_new(j->dso->path, DSO_ANON);
	d->jit = j;
	d->jit_fallback = fallback;
	j->proxies = xgrow(j->proxies, &j->proxy_cap, j->nproxies + 1, sizeof(*j->proxies));
	j->proxies[j->nproxies++] = d;
	return d;
}

static void jitmap_free(struct jitmap *j)
{
	size_t i;

	perfmap_index_release(&j->index);
	perfmap_index_release(&j->next_index);
	symtab_free(j->next_tab);
	dso_free(j->dso);
	for (i = 0; i < j->nproxies; i++)
		dso_free(j->proxies[i]);
	free(j->proxies);
	free(j);
}
void jitmap_release(struct machine *m, struct process *p)
{
	struct jitmap *j = p->jit, **pp;

	p->jit = NULL;
	/* Kept while it may have named a sample (rows hold its DSO and
	 * symbols) or a read is in flight: only a map never read into, the
	 * usual process without perf-PID.map, goes. */
	if (!j || j->size || j->nproxies || j->index.n ||
	    __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != JIT_IDLE)
		return;
	for (pp = &m->jitmaps; *pp && *pp != j; pp = &(*pp)->next)
		;
	if (!*pp)
		return;
	*pp = j->next;
	m->stats.jitmaps--;
	jitmap_free(j);
}

/* ip in JIT code of live process p: its perf-PID.map names it.  Read on
 * the first such sample, then again on a miss at most once a second, and
 * only the lines appended since (JITs append); when async and more than
 * JIT_READ_NOW bytes are new on the loader thread, a miss then pending
 * until the read is in (under a proxy DSO that
 * falls back to fallback, the map's DSO or NULL).  Replays do not look:
 * the pids are another machine's.  Returns false for a final miss. */
bool jitmap_resolve(struct machine *m, struct process *p, uint64_t ip, struct resolved *out,
		    struct dso *fallback)
{
	const struct symbol *sym;
	struct jitmap *j = p->jit;
	double now;

	if (!j && !m->live)
		return false;
	j = jitmap_get(m, p);
	jitmap_install(m, j);
	sym = perfmap_index_lookup(&j->index, ip);
	if (!sym && m->live && __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) == JIT_IDLE) {
		now = now_monotonic();
		if (j->checked == 0 || now - j->checked >= 1.0) {
			j->checked = now;
			__atomic_store_n(&j->state, JIT_LOADING, __ATOMIC_RELAXED);
			/* Up to JIT_READ_NOW new bytes are read at once (a few
			 * ms: no sample held, none left unnamed at the end of
			 * a run); more on the loader thread. */
			if (jitmap_read(j, m->async ? JIT_READ_NOW : 0) == -E2BIG) {
				symloader_push(m, NULL, j);
			} else {
				jitmap_install(m, j);
				sym = perfmap_index_lookup(&j->index, ip);
			}
		}
	}
	out->addr = ip;
	/* A read in flight (or just done, not yet installed) may name it. */
	if (!sym && __atomic_load_n(&j->state, __ATOMIC_ACQUIRE) != JIT_IDLE) {
		out->dso = jitmap_proxy(j, fallback);
		out->sym = NULL;
		out->pending = true;
		return true;
	}
	if (!sym)
		return false;
	out->dso = j->dso;
	out->sym = sym;
	return true;
}

/* Finish a sample held for a read of a perf map (d is one of its
 * proxies): named from it once it is in, else the DSO the address would
 * have had without the map.  The read must be over. */
void jitmap_resolve_deferred(struct machine *m, struct dso *d, uint64_t addr, struct resolved *out)
{
	struct jitmap *j = d->jit;

	jitmap_install(m, j);
	out->sym = perfmap_index_lookup(&j->index, addr);
	out->dso = out->sym ? j->dso : d->jit_fallback;
	if (!out->dso)
		m->stats.unmapped++;
}

void jitmap_free_all(struct machine *m)
{
	size_t i;

	while (m->jitmaps) {
		struct jitmap *j = m->jitmaps;

		m->jitmaps = j->next;
		jitmap_free(j);
	}
	for (i = 0; i < m->njit_tabs; i++)
		symtab_free(m->jit_tabs[i]);
	free(m->jit_tabs);
}
