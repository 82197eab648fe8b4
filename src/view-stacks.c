/* The view's folded stacks kept from one refresh to the next: groups of
 * chains with the same functions, named and sorted once, kept with the
 * chain store (view-frames.c builds display frames' stacks from nothing). */
#include "config.h"

#include "view-impl.h"

#include <stdlib.h>
#include <string.h>

#include "callchain.h"
#include "hash.h"
#include "util.h"

/* A group: a comm and a run of functions (the store's function ids, which
 * never change meaning), with what it prints, named and sorted once, not
 * at every refresh (issue 18: --pprof at -d 1 rebuilt and sorted every
 * stack each second).  A chain's group is kept by its serial
 * (callchain_store_serial) from one build to the next; only chains new
 * since the last build are grouped by hashing their functions, and only
 * groups seen for the first time are sorted, then merged into the kept
 * order. */
struct view_sgroup {
	const char *comm;
	uint64_t hash;
	uint32_t fn_off, nr;     /* functions, innermost first, in fns */
	uint32_t fr_off;         /* nr printed frames, root first, addr 0 */
	uint32_t seen;           /* the last build it had chains in */
	/* this build's */
	uint32_t nmem, mem_off, fill;
	bool same_mem;           /* no chain the last build did not have (and
				    with perm_n, the same number: none went) */
	uint64_t samples, period;
	/* The last build's member order (detail, more than one member): the
	   sorted members' places in the chain store's order, at perm_off in
	   the scache's perm (VIEW_PERM_TIE set: the member ties with the one
	   before); perm_n members, 0: none. */
	uint32_t perm_off, perm_n;
};

struct view_scache {
	struct view_sgroup *g;
	size_t ng, gcap;
	uint32_t *fns;
	size_t nfns, fns_cap;
	struct view_frames_pool *pool;  /* the groups' printed frames */
	struct hashtab index;    /* over g */
	uint32_t *order;         /* every group, by view_sgroup_cmp */
	bool *same;              /* order[i] prints as order[i - 1] does */
	uint32_t build;          /* builds so far */
	size_t live;             /* groups of the last build */
	uint32_t *perm;          /* the groups' member orders (perm_off) */
	size_t perm_cap;
	/* The last build's chains in the store's order: serials, groups. */
	uint64_t *cser;
	uint32_t *cgrp;
	size_t ncc;
	unsigned mflags;         /* the last build's detail, pid and tid keys */
	/* The printed frames (name, DSO, kind: what orders groups) met so
	   far, each once, with its rank in view_printed_frame_cmp's order
	   (alike ones the same rank; ranked: how many have one), and the
	   pool's frames' (pk, by pool index): groups are compared by their
	   frames' ranks, not by their strings (issue 18: a compare walking
	   the frames' strings, new groups sorted and placed with them, was a
	   fifth of live --pprof's instructions on a load of many stacks).  A
	   new printed frame ranks them all again: its strings' order with
	   the others is fixed, so the kept order holds. */
	struct snapshot_frame *pf;
	size_t npf, pf_cap, ranked;
	struct hashtab pf_index; /* over pf */
	uint32_t *rank;
	uint32_t *pk;
	size_t pk_cap;
	/* (tests) member orders sorted, reused after a check, reused with no
	   compare; chains grouped by hashing */
	size_t resorts, reused, kept, hashed;
	size_t placing;          /* (tests) compares placing new groups */
	size_t reranks;          /* (tests) printed frames ranked again */
};

#define VIEW_PERM_TIE 0x80000000u
/* How far ahead a pass over the groups or stacks in an order other than
 * their memory's fetches them. */
#define VIEW_AHEAD 8

/* A chain of this build, in its group. */
struct view_smember {
	const uint32_t *ids;     /* the chain's frames, innermost first */
	uint32_t nr, group;
	uint32_t pid, tid;       /* detail: the keys', else 0 */
	uint64_t samples, period;
};

struct view_sgroup_key {
	const char *comm;
	const uint32_t *fns;
	size_t nr;
	uint64_t hash;
};

static struct view_frames_pool *view_pool_new(size_t cap)
{
	struct view_frames_pool *p = xmalloc(sizeof(*p) + cap * sizeof(p->v[0]));

	p->refs = 1;
	p->n = 0;
	p->cap = cap;
	return p;
}

void view_frames_pool_unref(struct view_frames_pool *p)
{
	if (p && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(p);
}

/* Room for nr more frames in c's pool: grown in place while no snapshot
 * holds it, else a bigger copy (the snapshots keep the old one). */
static void view_pool_room(struct view_scache *c, size_t nr)
{
	struct view_frames_pool *p = c->pool, *q;
	size_t cap;

	if (p && p->n + nr <= p->cap)
		return;
	cap = p ? 2 * p->cap : 1024;
	if (p && p->n + nr > cap)
		cap = p->n + nr;
	if (p && __atomic_load_n(&p->refs, __ATOMIC_ACQUIRE) == 1) {
		c->pool = xrealloc(p, sizeof(*p) + cap * sizeof(p->v[0]));
		c->pool->cap = cap;
		return;
	}
	q = view_pool_new(cap);
	if (p) {
		memcpy(q->v, p->v, p->n * sizeof(p->v[0]));
		q->n = p->n;
	}
	view_frames_pool_unref(p);
	c->pool = q;
}

static void view_scache_free(void *p)
{
	struct view_scache *c = p;

	free(c->g);
	free(c->fns);
	view_frames_pool_unref(c->pool);
	free(c->order);
	free(c->same);
	free(c->perm);
	free(c->cser);
	free(c->cgrp);
	hashtab_release(&c->index);
	free(c->pf);
	hashtab_release(&c->pf_index);
	free(c->rank);
	free(c->pk);
	free(c);
}

static uint64_t view_sgroup_hash_of(const void *ctx, uint32_t idx)
{
	return ((const struct view_scache *)ctx)->g[idx].hash;
}

static bool view_sgroup_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct view_scache *c = ctx;
	const struct view_sgroup *g = &c->g[idx];
	const struct view_sgroup_key *k = key;

	return g->hash == k->hash && g->comm == k->comm && g->nr == k->nr &&
	       memcmp(c->fns + g->fn_off, k->fns, k->nr * sizeof(*k->fns)) == 0;
}

static uint64_t view_pframe_hash(const struct snapshot_frame *f)
{
	return hash_finish(hash_combine(hash_combine((uintptr_t)f->symbol, (uintptr_t)f->dso),
					(uint64_t)f->kernel << 1 | f->inlined));
}

static uint64_t view_pframe_hash_of(const void *ctx, uint32_t idx)
{
	return view_pframe_hash(&((const struct view_scache *)ctx)->pf[idx]);
}

static bool view_pframe_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct snapshot_frame *a = &((const struct view_scache *)ctx)->pf[idx], *b = key;

	return a->symbol == b->symbol && a->dso == b->dso && a->kernel == b->kernel &&
	       a->inlined == b->inlined;
}

/* The printed frame of f (its index in c->pf), added when new. */
static uint32_t view_scache_pframe(struct view_scache *c, const struct snapshot_frame *f)
{
	uint64_t h = view_pframe_hash(f);
	size_t j = hashtab_probe(&c->pf_index, h, view_pframe_eq, c, f);

	if (c->pf_index.slots[j] != HASHTAB_EMPTY)
		return c->pf_index.slots[j];
	if (c->npf >= HASHTAB_MAX_ENTRIES)
		fatal(1, "view: too many frames");
	c->pf = xgrow(c->pf, &c->pf_cap, c->npf + 1, sizeof(*c->pf));
	c->pf[c->npf] = *f;
	hashtab_insert_at(&c->pf_index, j, (uint32_t)c->npf, view_pframe_hash_of, c);
	return (uint32_t)c->npf++;
}

static int view_pframe_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_scache *c = ctx;

	return view_printed_frame_cmp(&c->pf[*(const uint32_t *)pa], &c->pf[*(const uint32_t *)pb]);
}

/* Every printed frame's rank, when some are new. */
static void view_scache_rank(struct view_scache *c)
{
	uint32_t *by;
	size_t i;

	if (c->ranked == c->npf)
		return;
	by = xmalloc(c->npf * sizeof(*by));
	for (i = 0; i < c->npf; i++)
		by[i] = (uint32_t)i;
	qsort_r(by, c->npf, sizeof(*by), view_pframe_cmp, c);
	c->rank = xrealloc(c->rank, c->npf * sizeof(*c->rank));
	for (i = 0; i < c->npf; i++)
		c->rank[by[i]] = i && view_printed_frame_cmp(&c->pf[by[i - 1]], &c->pf[by[i]]) == 0 ?
					 c->rank[by[i - 1]] :
					 (uint32_t)i;
	free(by);
	c->ranked = c->npf;
	c->reranks++;
}

/* Groups by what they print (view_printed_key_cmp): comm, then the
 * frames' ranks root first, then the count of frames. */
static int view_sgroup_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_scache *c = ctx;
	const struct view_sgroup *a = &c->g[*(const uint32_t *)pa], *b = &c->g[*(const uint32_t *)pb];
	const uint32_t *x = c->pk + a->fr_off, *y = c->pk + b->fr_off;
	size_t i, n = a->nr < b->nr ? a->nr : b->nr;
	int d;

	if (a->comm != b->comm && (d = view_strcmp(a->comm, b->comm)))
		return d;
	for (i = 0; i < n; i++)
		if (x[i] != y[i] && c->rank[x[i]] != c->rank[y[i]])
			return CMP(c->rank[x[i]], c->rank[y[i]]);
	return CMP(a->nr, b->nr);
}

/* Members of one group (same comm and functions) as view_stack_fine_cmp
 * orders them: pid, tid, then the frames' addresses root first. */
static int view_smember_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct callchain_frame *fr = ctx;  /* the store's, by id */
	const struct view_smember *a = pa, *b = pb;
	size_t i;
	int c;

	if ((c = CMP(a->pid, b->pid)) || (c = CMP(a->tid, b->tid)))
		return c;
	for (i = 0; i < a->nr; i++) {
		uint32_t x = a->ids[a->nr - 1 - i], y = b->ids[b->nr - 1 - i];

		if (x != y && (c = CMP(fr[x].addr, fr[y].addr)))
			return c;
	}
	return 0;
}

/* The group of (comm, fns[0..nr)), made when new from chain ids (its
 * printed frames). */
static uint32_t view_scache_group(struct view_scache *c, const struct callchain_store *st,
				  const char *comm, const uint32_t *fns, const uint32_t *ids,
				  size_t nr)
{
	struct view_sgroup_key k = { comm, fns, nr, 0 };
	struct view_sgroup *g;
	size_t i, j;
	uint64_t h = hash_combine(0x9e3779b97f4a7c15ULL, (uintptr_t)comm);

	for (i = 0; i < nr; i++)
		h = hash_combine(h, fns[i]);
	k.hash = h = hash_finish(hash_combine(h, nr));
	j = hashtab_probe(&c->index, h, view_sgroup_eq, c, &k);
	if (c->index.slots[j] != HASHTAB_EMPTY)
		return c->index.slots[j];
	if (c->ng >= HASHTAB_MAX_ENTRIES)
		fatal(1, "view: too many stacks");
	c->g = xgrow(c->g, &c->gcap, c->ng + 1, sizeof(*c->g));
	c->fns = xgrow(c->fns, &c->fns_cap, c->nfns + nr, sizeof(*c->fns));
	view_pool_room(c, nr);
	g = &c->g[c->ng];
	memset(g, 0, sizeof(*g));
	g->comm = comm;
	g->hash = h;
	g->nr = (uint32_t)nr;
	g->fn_off = (uint32_t)c->nfns;
	memcpy(c->fns + c->nfns, fns, nr * sizeof(*fns));
	c->nfns += nr;
	g->fr_off = (uint32_t)c->pool->n;
	/* A group's frames are one function each: the names are any of its
	   chains'; the addresses are each member's. */
	view_chain_frames(st, ids, nr, c->pool->v + c->pool->n);
	c->pk = xgrow(c->pk, &c->pk_cap, c->pool->n + nr, sizeof(*c->pk));
	for (i = 0; i < nr; i++) {
		c->pool->v[c->pool->n + i].addr = 0;
		c->pk[c->pool->n + i] = view_scache_pframe(c, &c->pool->v[c->pool->n + i]);
	}
	c->pool->n += nr;
	hashtab_insert_at(&c->index, j, (uint32_t)c->ng, view_sgroup_hash_of, c);
	return (uint32_t)c->ng++;
}

/* Forget the groups the last build did not have once they are most of
 * the cache: the order stays, the pools are packed. */
static void view_scache_prune(struct view_scache *c)
{
	uint32_t *map, *fns, *pk;
	struct view_frames_pool *pool;
	size_t i, n = 0, nfns = 0, nframes = 0, no = 0;

	if (c->ng <= 2 * c->live + 1024)
		return;
	map = xmalloc(c->ng * sizeof(*map));
	fns = xmalloc((c->nfns + 1) * sizeof(*fns));
	/* (with the old one's room: packed to its size, the next build's
	   first new group copied it whole again, into pages faulted in
	   fresh; untouched room costs no page) */
	pool = view_pool_new(c->pool->cap);
	pk = xmalloc((c->pool->n + 1) * sizeof(*pk));
	for (i = 0; i < c->ng; i++) {
		struct view_sgroup g = c->g[i];

		map[i] = UINT32_MAX;
		if (g.seen != c->build)
			continue;
		memcpy(fns + nfns, c->fns + g.fn_off, g.nr * sizeof(*fns));
		memcpy(pool->v + nframes, c->pool->v + g.fr_off, g.nr * sizeof(*pool->v));
		memcpy(pk + nframes, c->pk + g.fr_off, g.nr * sizeof(*pk));
		g.fn_off = (uint32_t)nfns;
		g.fr_off = (uint32_t)nframes;
		nfns += g.nr;
		nframes += g.nr;
		map[i] = (uint32_t)n;
		c->g[n++] = g;
	}
	/* Printing the same is transitive: a group that goes joins its
	   neighbours' runs. */
	for (i = 0; i < c->ng; i++) {
		bool same = i && c->same[i];

		if (map[c->order[i]] == UINT32_MAX) {
			if (i + 1 < c->ng)
				c->same[i + 1] = c->same[i + 1] && same;
			continue;
		}
		c->same[no] = no && same;
		c->order[no++] = map[c->order[i]];
	}
	free(c->fns);
	c->fns = fns;
	c->fns_cap = c->nfns + 1;
	free(c->pk);
	c->pk = pk;
	c->pk_cap = c->pool->n + 1;
	c->nfns = nfns;
	/* (the old pool lives on in the snapshots that hold it) */
	view_frames_pool_unref(c->pool);
	pool->n = nframes;
	c->pool = pool;
	c->ng = n;
	hashtab_rebuild(&c->index, n, view_sgroup_hash_of, c);
	/* The last build's chains are in its groups, which stay. */
	for (i = 0; i < c->ncc; i++)
		c->cgrp[i] = map[c->cgrp[i]];
	free(map);
}

/* The first of the kept order's [from, old) that sorts after group x:
 * galloping from from (new groups fall between long runs of kept ones),
 * then halving. */
static size_t view_order_after(struct view_scache *c, size_t from, size_t old, uint32_t x)
{
	size_t lo = from, hi, step = 1;

	c->placing++;
	if (from >= old || view_sgroup_cmp(&c->order[from], &x, (void *)c) > 0)
		return from;
	/* order[lo] <= x */
	for (;;) {
		hi = lo + step;
		if (hi >= old) {
			hi = old;
			break;
		}
		c->placing++;
		if (view_sgroup_cmp(&c->order[hi], &x, (void *)c) > 0)
			break;
		lo = hi;
		step *= 2;
	}
	/* order[lo] <= x < order[hi] (or hi is old) */
	for (lo++; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		c->placing++;
		if (view_sgroup_cmp(&c->order[mid], &x, (void *)c) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The groups first seen in this build, [old, ng), sorted and merged into
 * the kept order (a kept group first of two alike), each new one's place
 * found by galloping (a compare a kept group cost live --pprof a sixth
 * of its CPU, with tens of thousands of stacks); whether each prints as
 * the one before it is carried over between kept neighbours, compared
 * next to a new one. */
static void view_scache_order(struct view_scache *c, size_t old)
{
	size_t nnew = c->ng - old, i, a = 0, b, k = 0;
	uint32_t *add, *merged;
	bool *same;

	if (!nnew)
		return;
	view_scache_rank(c);
	add = xmalloc(nnew * sizeof(*add));
	for (i = 0; i < nnew; i++)
		add[i] = (uint32_t)(old + i);
	qsort_r(add, nnew, sizeof(*add), view_sgroup_cmp, c);
	merged = xmalloc(c->ng * sizeof(*merged));
	same = xmalloc(c->ng * sizeof(*same));
	for (b = 0; b <= nnew; b++) {
		size_t e = b < nnew ? view_order_after(c, a, old, add[b]) : old;

		/* the kept run [a, e): its first compared when a new one
		   is before it, the others as they were */
		for (i = a; a < e; a++, k++) {
			merged[k] = c->order[a];
			if (!k)
				same[k] = false;
			else if (a == i && b)
				same[k] = view_sgroup_cmp(&merged[k - 1], &merged[k], c) == 0;
			else
				same[k] = c->same[a];
		}
		if (b == nnew)
			break;
		merged[k] = add[b];
		same[k] = k && view_sgroup_cmp(&merged[k - 1], &merged[k], c) == 0;
		k++;
	}
	free(c->order);
	free(c->same);
	free(add);
	c->order = merged;
	c->same = same;
}

/* Stacks that print the same (one run of equal keys in the kept order)
 * by counts, then their first member's addresses, as
 * view_printed_stack_cmp: the live groups' run [from, to) of grp. */
struct view_stie {
	const struct view_scache *c;
	const struct callchain_frame *fr;  /* the store's, by id */
	const struct view_smember *mem;
	const uint32_t *mi;      /* member indices, each group's together */
};

static int view_stie_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct view_stie *t = ctx;
	const struct view_sgroup *a = &t->c->g[*(const uint32_t *)pa];
	const struct view_sgroup *b = &t->c->g[*(const uint32_t *)pb];
	const struct view_smember *x = &t->mem[t->mi[a->mem_off]], *y = &t->mem[t->mi[b->mem_off]];
	size_t i;
	int c;

	if ((c = CMP(b->samples, a->samples)) || (c = CMP(b->period, a->period)))
		return c;
	for (i = 0; i < a->nr; i++)
		if ((c = CMP(t->fr[x->ids[x->nr - 1 - i]].addr, t->fr[y->ids[y->nr - 1 - i]].addr)))
			return c;
	return 0;
}

/* Group g's members m[0..nmem) (chain store order) sorted by
 * view_smember_cmp (fr: the store's frames).  Chains keep their order in
 * the store (decay drops some, new ones come last), and what orders them
 * (pid, tid, addresses) is the chain's: a group with the last build's
 * chains and no other (same_mem) has the last build's order and ties,
 * taken with no compare.  Otherwise the last order is tried first and kept
 * when each member is not greater than the next, else they are sorted
 * (issue 18: sorting every group at every refresh was a third of live
 * --pprof's view work).  Ties print the same, merged after: either order
 * of them gives the same stacks.  The order is recorded in perm[*nperm..)
 * for the next build; tie[k]: m[k] compares equal to m[k - 1]. */
static void view_smembers_order(struct view_scache *c, struct view_sgroup *g,
				const struct callchain_frame *fr, struct view_smember *mem,
				uint32_t *m, uint32_t *asc, uint32_t *pos, struct view_smember *tmp,
				uint32_t *perm, size_t *nperm, bool *tie, bool same_mem)
{
	uint32_t k, n = g->nmem;
	bool sorted = false;
	int d = 0;

	memcpy(asc, m, n * sizeof(*m));
	if (g->perm_n == n && same_mem) {
		for (k = 0; k < n; k++) {
			pos[k] = c->perm[g->perm_off + k] & ~VIEW_PERM_TIE;
			tie[k] = k && (c->perm[g->perm_off + k] & VIEW_PERM_TIE);
		}
		sorted = true;
		c->kept++;
	} else if (g->perm_n == n) {
		for (k = 0; k < n; k++)
			m[k] = asc[c->perm[g->perm_off + k] & ~VIEW_PERM_TIE];
		for (k = 1; k < n && (d = view_smember_cmp(&mem[m[k - 1]], &mem[m[k]], (void *)fr)) <= 0; k++)
			tie[k] = d == 0;
		sorted = k == n;
		if (sorted) {
			for (k = 0; k < n; k++)
				pos[k] = c->perm[g->perm_off + k] & ~VIEW_PERM_TIE;
			c->reused++;
		}
	}
	if (sorted) {
		/* pos and tie are set */
	} else if (n > 16) {
		/* A long one is sorted as a copy (its place in group) */
		for (k = 0; k < n; k++) {
			tmp[k] = mem[asc[k]];
			tmp[k].group = k;
		}
		qsort_r(tmp, n, sizeof(*tmp), view_smember_cmp, (void *)fr);
		for (k = 0; k < n; k++)
			pos[k] = tmp[k].group;
		c->resorts++;
	} else {
		/* a few (insertion sort) */
		for (k = 0; k < n; k++) {
			uint32_t y = k;

			for (; y && view_smember_cmp(&mem[asc[pos[y - 1]]], &mem[asc[k]], (void *)fr) > 0; y--)
				pos[y] = pos[y - 1];
			pos[y] = k;
		}
		c->resorts++;
	}
	for (k = 0; k < n; k++)
		m[k] = asc[pos[k]];
	for (k = 1; !sorted && k < n; k++)
		tie[k] = view_smember_cmp(&mem[m[k - 1]], &mem[m[k]], (void *)fr) == 0;
	g->perm_off = (uint32_t)*nperm;
	g->perm_n = n;
	for (k = 0; k < n; k++)
		perm[*nperm + k] = pos[k] | (k && tie[k] ? VIEW_PERM_TIE : 0);
	*nperm += n;
}

/* view_build_stacks_sorted's stacks without display frames, from groups
 * kept with the store. */
static void view_build_stacks_kept(const struct callchain_store *st, struct snapshot *snap,
				   bool detail)
{
	struct view_scache *c = callchain_store_view_cache(st);
	size_t n = callchain_store_count(st), i, j, old, nlive = 0, nout = 0;
	size_t naddrs = 0;
	uint64_t *ad;
	size_t fcap = 0;
	struct view_smember *mem;
	uint32_t *fns = NULL, *live, *mi, off;
	struct snapshot_stack *out;
	struct view_stie tie;
	struct view_smember *tmp;
	uint32_t *asc, *pos, *perm, *cgrp;
	struct view_slot {
		size_t stack, addrs;
	} *slot;
	uint64_t *ad0;
	uint64_t *cser;
	size_t nperm = 0, p = 0;
	bool *same, *eq, run;
	bool pids = sort_spec_has(&snap->sort, SORT_PID), tids = sort_spec_has(&snap->sort, SORT_TID);
	const struct callchain_frame *fr = callchain_store_frames(st);
	unsigned mflags = 1u | detail << 1 | pids << 2 | tids << 3;

	if (!n)
		return;
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		hashtab_init(&c->index, 256);
		hashtab_init(&c->pf_index, 256);
		callchain_store_set_view_cache(st, c, view_scache_free);
	}
	view_scache_prune(c);
	c->build++;
	old = c->ng;
	mem = xmalloc(n * sizeof(*mem));
	cser = xmalloc(n * sizeof(*cser));
	cgrp = xmalloc(n * sizeof(*cgrp));
	for (i = 0; i < n; i++) {
		struct callchain_chain ch;
		struct view_sgroup *g;
		uint32_t gi;
		bool known;

		callchain_store_get(st, i, &ch);
		/* Both builds' chains by serial, ascending: the last build's
		   group of a chain it had, found by walking along. */
		cser[i] = callchain_store_serial(st, i);
		while (p < c->ncc && c->cser[p] < cser[i])
			p++;
		known = p < c->ncc && c->cser[p] == cser[i];
		if (known) {
			gi = c->cgrp[p];
		} else {
			fns = xgrow(fns, &fcap, ch.nr + 1, sizeof(*fns));
			for (j = 0; j < ch.nr; j++)
				fns[j] = callchain_store_function(st, ch.ids[j]);
			gi = view_scache_group(c, st, ch.key.comm, fns, ch.ids, ch.nr);
			c->hashed++;
		}
		cgrp[i] = gi;
		g = &c->g[gi];
		if (g->seen != c->build) {
			/* The same chains as the last build's, so far */
			g->same_mem = g->seen == c->build - 1 && c->mflags == mflags;
			g->seen = c->build;
			g->nmem = 0;
			g->samples = g->period = 0;
			nlive++;
		}
		g->same_mem = g->same_mem && known;
		g->nmem++;
		g->samples += ch.samples;
		g->period += ch.period;
		mem[i].ids = ch.ids;
		mem[i].nr = (uint32_t)ch.nr;
		mem[i].group = gi;
		mem[i].pid = detail && pids ? ch.key.pid : 0;
		mem[i].tid = detail && tids ? ch.key.tid : 0;
		mem[i].samples = ch.samples;
		mem[i].period = ch.period;
	}
	free(fns);
	free(c->cser);
	free(c->cgrp);
	c->cser = cser;
	c->cgrp = cgrp;
	c->ncc = n;
	c->mflags = mflags;
	c->live = nlive;
	view_scache_order(c, old);

	/* The live groups in order, each one's members together; whether
	   each prints as the live one before it. */
	live = xmalloc(nlive * sizeof(*live));
	same = xmalloc(nlive * sizeof(*same));
	for (i = 0, j = 0, off = 0, run = false; i < c->ng; i++) {
		struct view_sgroup *g = &c->g[c->order[i]];

		if (i + VIEW_AHEAD < c->ng)
			__builtin_prefetch(&c->g[c->order[i + VIEW_AHEAD]]);
		run = i && c->same[i] && run;
		if (g->seen != c->build)
			continue;
		same[j] = j && run;
		run = true;
		live[j++] = c->order[i];
		g->mem_off = off;
		g->fill = 0;
		off += g->nmem;
	}
	mi = xmalloc(n * sizeof(*mi));
	for (i = 0; i < n; i++) {
		struct view_sgroup *g = &c->g[mem[i].group];

		if (i + VIEW_AHEAD < n)
			__builtin_prefetch(&c->g[mem[i + VIEW_AHEAD].group]);
		mi[g->mem_off + g->fill++] = (uint32_t)i;
	}
	/* Each group's members in order, the same ones merged (in mem). */
	asc = xmalloc(2 * (n + 1) * sizeof(*asc));
	pos = asc + n + 1;
	perm = xmalloc((n + 1) * sizeof(*perm));
	tmp = xmalloc((n + 1) * sizeof(*tmp));
	eq = xmalloc((n + 1) * sizeof(*eq));
	for (i = 0; i < nlive; i++) {
		struct view_sgroup *g = &c->g[live[i]];
		uint32_t *m = mi + g->mem_off, k, kept = 0;

		if (i + VIEW_AHEAD < nlive)
			__builtin_prefetch(&c->g[live[i + VIEW_AHEAD]]);
		if (!detail || g->nmem < 2)
			g->perm_n = 0;
		if (!detail) {
			nout++;
			continue;
		}
		if (g->nmem > 1) {
			view_smembers_order(c, g, fr, mem, m, asc, pos, tmp, perm, &nperm, eq,
					    g->same_mem);
			/* The same ones merged into the first (ties are
			   transitive: m[k - 1] is in m[kept - 1]). */
			for (k = 0; k < g->nmem; k++) {
				if (kept && eq[k]) {
					mem[m[kept - 1]].samples += mem[m[k]].samples;
					mem[m[kept - 1]].period += mem[m[k]].period;
					continue;
				}
				m[kept++] = m[k];
			}
			g->nmem = kept;
		}
		nout += g->nmem;
		naddrs += (size_t)g->nmem * g->nr;
	}
	/* The orders kept: those of groups not in this build go. */
	for (i = 0; i < c->ng; i++)
		if (c->g[i].seen != c->build)
			c->g[i].perm_n = 0;
	free(c->perm);
	c->perm = perm;
	free(asc);
	free(tmp);
	free(eq);
	/* Groups that print the same, by their counts. */
	tie.c = c;
	tie.fr = fr;
	tie.mem = mem;
	tie.mi = mi;
	for (i = 0; i < nlive; i = j) {
		for (j = i + 1; j < nlive && same[j]; j++)
			;
		if (j - i > 1)
			qsort_r(live + i, j - i, sizeof(*live), view_stie_cmp, &tie);
	}

	/* (each one set whole below: no calloc's pass over them first) */
	out = xmalloc((nout + 1) * sizeof(*out));
	/* The groups' frames are the pool's (addresses 0), not copied:
	   with detail each stack's addresses are apart (issue 18: a copy of
	   the frames a stack was most of live --pprof's memory traffic, and
	   a copy a group still a tenth of its CPU). */
	snap->stack_pool = c->pool;
	__atomic_add_fetch(&c->pool->refs, 1, __ATOMIC_RELAXED);
	snap->stack_addrs = ad = naddrs ? xmalloc(naddrs * sizeof(*ad)) : NULL;
	/* The stacks in order with what their group gives; with detail each
	   member's place and that of its addresses (slot, by chain), its own
	   filled in below. */
	slot = detail ? xmalloc((n + 1) * sizeof(*slot)) : NULL;
	if (detail)
		memset(slot, 0xff, n * sizeof(*slot));
	ad0 = ad;
	for (i = 0, j = 0; i < nlive; i++) {
		const struct view_sgroup *g = &c->g[live[i]];
		const struct snapshot_frame *f = c->pool->v + g->fr_off;
		uint32_t k, nm = detail ? g->nmem : 1;

		/* (the groups are all over memory in this order) */
		if (i + VIEW_AHEAD < nlive)
			__builtin_prefetch(&c->g[live[i + VIEW_AHEAD]]);

		for (k = 0; k < nm; k++, j++) {
			out[j] = (struct snapshot_stack){
				.comm = g->comm,
				.group = i,
				.nr_frames = g->nr,
				.frames = f,
				.samples = g->samples,
				.period = g->period,
			};
			if (detail) {
				slot[mi[g->mem_off + k]] = (struct view_slot){ j, (size_t)(ad - ad0) };
				out[j].addrs = ad;
				out[j].has_pid = pids;
				out[j].has_tid = tids;
				ad += g->nr;
			}
		}
	}
	/* A member's own (counts, keys, addresses) in the store's order,
	   where its frame ids and counts are next to each other's (issue 18:
	   in the groups' order each stack's reads were a cache miss or two,
	   and most of the build's time on a load of many stacks). */
	for (i = 0; detail && i < n; i++) {
		const struct view_smember *m = &mem[i];
		struct snapshot_stack *o;
		const uint32_t *id;
		uint64_t *a;
		size_t x, nr;

		/* (and the stacks written to) */
		if (i + VIEW_AHEAD < n && slot[i + VIEW_AHEAD].stack != SIZE_MAX) {
			__builtin_prefetch(&out[slot[i + VIEW_AHEAD].stack], 1);
			__builtin_prefetch(&out[slot[i + VIEW_AHEAD].stack].addrs, 1);
			__builtin_prefetch(ad0 + slot[i + VIEW_AHEAD].addrs, 1);
		}
		if (slot[i].stack == SIZE_MAX)
			continue;
		o = &out[slot[i].stack];
		o->pid = m->pid;
		o->tid = m->tid;
		o->samples = m->samples;
		o->period = m->period;
		/* (locals: the stores through a would make the compiler read
		   the others again for every frame) */
		a = ad0 + slot[i].addrs;
		nr = m->nr;
		o->frame_ids = m->ids;
		for (x = 0, id = m->ids + nr; x < nr; x++)
			a[x] = fr[*--id].addr;
	}
	free(slot);
	snap->stacks = out;
	snap->nr_stacks = nout;
	snap->frame_ids_of = detail ? st : NULL;
	free(live);
	free(same);
	free(mi);
	free(mem);
}

size_t view_stacks_kept_groups(const struct callchain_store *st)
{
	const struct view_scache *c = callchain_store_view_cache(st);

	return c ? c->ng : 0;
}

void view_stacks_counts(const struct callchain_store *st, struct view_stacks_counts *out)
{
	const struct view_scache *c = callchain_store_view_cache(st);

	memset(out, 0, sizeof(*out));
	if (!c)
		return;
	out->sorted = c->resorts;
	out->reused = c->reused;
	out->kept = c->kept;
	out->hashed = c->hashed;
	out->placing = c->placing;
	out->reranks = c->reranks;
}

void view_build_stacks(const struct callchain_store *st, struct view_dtab *dt,
		       struct snapshot *snap, bool detail)
{
	/* Display frames are interned per snapshot: nothing to keep. */
	if (dt)
		view_build_stacks_sorted(st, dt, snap, detail);
	else
		view_build_stacks_kept(st, snap, detail);
}
