/* Sorted symbol tables: names in one string pool per table, aliases
 * collapsed, sizeless symbols extended, binary-search lookup. */
#include "config.h"

#include "symtab.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* A symbol as added, before symtab_finish.  Names are offsets into the pool
 * because the pool moves while it grows. */
struct symtab_raw {
	uint64_t start, size, max_end;
	uint32_t name_off;        /* grows with insertion: also the tie-break */
	uint8_t bind;
};

/* How far symtab_lookup walks back for an enclosing sized symbol; nesting
 * deeper than this is not worth a linear scan. */
#define SYMTAB_WALK_MAX 64

struct symtab {
	struct symtab_raw *raw;   /* freed by symtab_finish */
	size_t nraw, raw_cap;
	char *pool;               /* every name, NUL-terminated */
	size_t pool_len, pool_cap;

	struct symbol *syms;      /* after finish: sorted by start, unique starts */
	uint64_t *cover;          /* cover[i]: max end of the sized syms[0..i] */
	uint8_t *sized;           /* syms[i] had a size (0 = extended to next) */
	size_t nsyms;
	bool finished;
	bool prefer_last;         /* symtab_prefer_last */
};

struct symtab *symtab_new(void)
{
	return xcalloc(1, sizeof(struct symtab));
}

void symtab_prefer_last(struct symtab *st)
{
	st->prefer_last = true;
}

void symtab_free(struct symtab *st)
{
	if (!st)
		return;
	free(st->raw);
	free(st->pool);
	free(st->syms);
	free(st->cover);
	free(st->sized);
	free(st);
}

void symtab_reserve(struct symtab *st, size_t nsyms, size_t name_bytes)
{
	if (st->finished)
		return;
	st->pool = xgrow(st->pool, &st->pool_cap, st->pool_len + name_bytes, 1);
	st->raw = xgrow(st->raw, &st->raw_cap, st->nraw + nsyms, sizeof(*st->raw));
}

void symtab_add(struct symtab *st, uint64_t start, uint64_t size,
		enum symtab_bind bind, const char *name, uint64_t max_end)
{
	size_t len = strlen(name) + 1;
	struct symtab_raw *r;

	/* Offsets are 32-bit: 4 GB of names is not a symbol table. */
	if (st->finished || st->pool_len + len > UINT32_MAX)
		return;
	st->pool = xgrow(st->pool, &st->pool_cap, st->pool_len + len, 1);
	memcpy(st->pool + st->pool_len, name, len);

	st->raw = xgrow(st->raw, &st->raw_cap, st->nraw + 1, sizeof(*st->raw));
	r = &st->raw[st->nraw];
	r->start = start;
	r->size = size;
	r->max_end = max_end;
	r->name_off = (uint32_t)st->pool_len;
	r->bind = (uint8_t)bind;
	st->nraw++;
	st->pool_len += len;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Whether a is a better name than b for one address (see enum
 * symtab_bind, and symtab_prefer_last); on a tie the first one added
 * stays. */
static bool symtab_better(const struct symtab *st, const struct symtab_raw *a,
			  const struct symtab_raw *b)
{
	const char *na = st->pool + a->name_off, *nb = st->pool + b->name_off;
	size_t ua, ub, la, lb;

	if (st->prefer_last) {
		/* A name beats an end marker (""), else the later one wins. */
		if ((na[0] == '\0') != (nb[0] == '\0'))
			return nb[0] == '\0';
		return a->name_off > b->name_off;
	}

	if ((a->size != 0) != (b->size != 0))
		return a->size != 0;
	/* As perf chooses: not weak, then global. */
	if ((a->bind == SYMTAB_WEAK) != (b->bind == SYMTAB_WEAK))
		return b->bind == SYMTAB_WEAK;
	if (a->bind != b->bind)
		return a->bind == SYMTAB_GLOBAL;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la > lb;
	return a->name_off < b->name_off;
}

/* By start, then insertion order (the pool offset grows with it). */
static int raw_cmp(const void *pa, const void *pb)
{
	const struct symtab_raw *a = pa, *b = pb;
	int c = CMP(a->start, b->start);

	return c ? c : CMP(a->name_off, b->name_off);
}

/* Sort raw by start, keeping insertion order among equal starts (what
 * raw_cmp orders by): an LSD radix sort over the bytes in which the
 * starts differ, a pass each (three or four for a DSO), in place of a
 * comparison sort's ~n log n calls of raw_cmp. */
static void raw_sort(struct symtab *st)
{
	struct symtab_raw *a = st->raw, *b, *t;
	size_t n = st->nraw, i, count[256];
	uint64_t differ = 0;
	unsigned shift;

	if (n < 256) {
		qsort(a, n, sizeof(*a), raw_cmp);
		return;
	}
	for (i = 1; i < n; i++)
		differ |= a[i].start ^ a[0].start;
	b = xmalloc(n * sizeof(*b));
	for (shift = 0; shift < 64; shift += 8) {
		size_t sum = 0;

		if (!((differ >> shift) & 0xff))
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(a[i].start >> shift) & 0xff]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i].start >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	/* Keep raw the buffer its capacity describes. */
	if (a != st->raw)
		memcpy(st->raw, a, n * sizeof(*a));
	free(a == st->raw ? b : a);
}

void symtab_finish(struct symtab *st)
{
	size_t i, n = 0;
	uint64_t cover = 0;
	bool sorted = true, any_sized = false;

	if (st->finished)
		return;
	st->finished = true;
	/* kallsyms and most linkers emit symbols nearly in order: skip the
	 * sort when there is nothing to do. */
	for (i = 1; i < st->nraw && sorted; i++)
		sorted = st->raw[i - 1].start <= st->raw[i].start;
	if (!sorted)
		raw_sort(st);

	/* Keep the best symbol of each run of equal starts. */
	for (i = 0; i < st->nraw; i++) {
		if (n > 0 && st->raw[i].start == st->raw[n - 1].start) {
			if (symtab_better(st, &st->raw[i], &st->raw[n - 1]))
				st->raw[n - 1] = st->raw[i];
			continue;
		}
		st->raw[n++] = st->raw[i];
		any_sized |= st->raw[i].size != 0;
	}

	st->syms = xmalloc((n ? n : 1) * sizeof(*st->syms));
	st->sized = xmalloc(n ? n : 1);
	/* Only sized symbols can overlap: without any, nothing to walk. */
	st->cover = any_sized ? xmalloc(n * sizeof(*st->cover)) : NULL;
	for (i = 0; i < n; i++) {
		const struct symtab_raw *r = &st->raw[i];
		struct symbol *s = &st->syms[st->nsyms];
		uint64_t end;

		if (r->size) {
			end = r->start + r->size;
			if (end < r->start)     /* wrapped */
				end = UINT64_MAX;
		} else {
			end = i + 1 < n ? st->raw[i + 1].start : UINT64_MAX;
			if (end > r->max_end)
				end = r->max_end;
		}
		/* A sizeless symbol at (or past) its max_end covers nothing,
		 * but has still ended the one before it: kallsyms.c adds such
		 * empty symbols on purpose as barriers. */
		if (end <= r->start)
			continue;
		s->start = r->start;
		s->end = end;
		s->name = st->pool + r->name_off;
		if (r->size && end > cover)
			cover = end;
		if (st->cover)
			st->cover[st->nsyms] = cover;
		st->sized[st->nsyms] = r->size != 0;
		st->nsyms++;
	}
	free(st->raw);
	st->raw = NULL;
	st->nraw = st->raw_cap = 0;
}

/* Index of the last symbol starting at or below addr, or -1. */
static ptrdiff_t symtab_upper(const struct symtab *st, uint64_t addr)
{
	size_t lo = 0, hi = st->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ptrdiff_t)lo - 1;
}

const struct symbol *symtab_lookup(const struct symtab *st, uint64_t addr)
{
	const struct symbol *zero = NULL;
	ptrdiff_t i = st && st->finished ? symtab_upper(st, addr) : -1;
	int steps;

	if (i < 0)
		return NULL;
	if (addr < st->syms[i].end) {
		if (st->sized[i])
			return &st->syms[i];
		/* A sizeless label inside a sized function: the function is
		 * the better answer (and the label is kept for the rest). */
		zero = &st->syms[i];
	}
	/* Nested or overlapping sized symbols: an earlier one may still
	 * cover addr.  cover[] says when none before i can. */
	for (steps = 0, i--; st->cover && i >= 0 && steps < SYMTAB_WALK_MAX; i--, steps++) {
		if (st->cover[i] <= addr)
			break;
		if (st->sized[i] && addr < st->syms[i].end)
			return &st->syms[i];
	}
	return zero;
}

bool symtab_owns(const struct symtab *st, const struct symbol *sym)
{
	uintptr_t p = (uintptr_t)sym, lo;

	if (!st || !st->nsyms || !sym)
		return false;
	lo = (uintptr_t)st->syms;
	return p >= lo && p < (uintptr_t)(st->syms + st->nsyms);
}

size_t symtab_count(const struct symtab *st)
{
	return st->nsyms;
}

const struct symbol *symtab_get(const struct symtab *st, size_t i)
{
	return i < st->nsyms ? &st->syms[i] : NULL;
}

bool symtab_sized(const struct symtab *st, size_t i)
{
	return i < st->nsyms && st->sized[i];
}

struct symtab *symtab_from_sorted(size_t n, const uint64_t *starts, const uint64_t *ends,
				  const uint32_t *name_offs, const uint8_t *sized,
				  const char *pool, size_t pool_len)
{
	struct symtab *st;
	uint64_t cover = 0;
	bool any_sized = false;
	size_t i;

	if ((pool_len == 0 || pool[pool_len - 1] != '\0') && n > 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if (ends[i] <= starts[i] || name_offs[i] >= pool_len ||
		    (i > 0 && starts[i] <= starts[i - 1]))
			return NULL;
		any_sized |= sized[i] != 0;
	}
	st = symtab_new();
	st->finished = true;
	st->pool = xmalloc(pool_len ? pool_len : 1);
	if (pool_len)
		memcpy(st->pool, pool, pool_len);
	st->pool_len = st->pool_cap = pool_len;
	st->syms = xmalloc((n ? n : 1) * sizeof(*st->syms));
	st->sized = xmalloc(n ? n : 1);
	for (i = 0; i < n; i++) {
		st->syms[i].start = starts[i];
		st->syms[i].end = ends[i];
		st->syms[i].name = st->pool + name_offs[i];
	}
	for (i = 0; i < n; i++)
		st->sized[i] = sized[i] != 0;
	/* Only sized symbols can overlap (see symtab_finish). */
	st->cover = any_sized ? xmalloc(n * sizeof(*st->cover)) : NULL;
	for (i = 0; st->cover && i < n; i++) {
		if (sized[i] && ends[i] > cover)
			cover = ends[i];
		st->cover[i] = cover;
	}
	st->nsyms = n;
	return st;
}
