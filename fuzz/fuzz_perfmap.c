/* Fuzz target: the perf-PID.map parser (symbols/perfmap.c).  Besides
 * crashes, it checks what the loader relies on: the table is sorted and
 * non-overlapping, and parsing the file in two parts split at a line end
 * (a re-read of the appended part), looked up newest part first, names
 * every address as parsing it whole does, and so does the index over the
 * two parts (perfmap_index). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "perfmap.h"
#include "symtab.h"

static const char *fz_name(const struct symbol *s)
{
	return s ? s->name : NULL;
}

static void fz_same(const struct symtab *whole, const struct symtab *old,
		    const struct symtab *appended, const struct perfmap_index *ix, uint64_t addr)
{
	const struct symbol *w = symtab_lookup(whole, addr);
	const struct symbol *p = symtab_lookup(appended, addr);
	const char *a, *b;

	if (!p)
		p = symtab_lookup(old, addr);
	/* The index answers with that very symbol. */
	if (perfmap_index_lookup(ix, addr) != p)
		abort();
	a = fz_name(w);
	b = fz_name(p);
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exactly sized copy: ASan then sees any read past the end. */
	char *buf = malloc(size ? size : 1);
	struct symtab *whole, *old, *appended;
	struct perfmap_index ix = { 0 };
	const char *nl;
	size_t n, i, cut = 0;

	memcpy(buf, data, size);
	whole = perfmap_parse(buf, size);
	n = symtab_count(whole);
	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(whole, i);

		if (s->end <= s->start || (i && s->start < symtab_get(whole, i - 1)->end))
			abort();    /* promised: sorted, non-empty, no overlaps */
		if (!s->name[0] || strchr(s->name, '\n'))
			abort();
		(void)fuzz_touch(s->name, strlen(s->name));
		if (symtab_lookup(whole, s->start) != s || symtab_lookup(whole, s->end - 1) != s)
			abort();
	}
	/* Split after the line end nearest the middle (size % 7 moves it). */
	if (size) {
		nl = memchr(buf + (size / 2 + size % 7) % size, '\n',
			    size - (size / 2 + size % 7) % size);
		cut = nl ? (size_t)(nl - buf) + 1 : size;
	}
	old = perfmap_parse(buf, cut);
	appended = perfmap_parse(buf + cut, size - cut);
	perfmap_index_add(&ix, old);
	perfmap_index_add(&ix, appended);
	for (i = 0; i < ix.n; i++)
		if (ix.ranges[i].end <= ix.ranges[i].start ||
		    (i && ix.ranges[i].start < ix.ranges[i - 1].end))
			abort();    /* sorted, non-empty, no overlaps */
	for (i = 0; i < n && i < 512; i++) {
		const struct symbol *s = symtab_get(whole, i);

		fz_same(whole, old, appended, &ix, s->start);
		fz_same(whole, old, appended, &ix, s->end - 1);
		fz_same(whole, old, appended, &ix, s->end);
		if (s->start)
			fz_same(whole, old, appended, &ix, s->start - 1);
	}
	for (i = 0; i < symtab_count(old) && i < 512; i++)
		fz_same(whole, old, appended, &ix, symtab_get(old, i)->start);
	for (i = 0; i < symtab_count(appended) && i < 512; i++)
		fz_same(whole, old, appended, &ix, symtab_get(appended, i)->start);
	perfmap_index_release(&ix);
	symtab_free(appended);
	symtab_free(old);
	symtab_free(whole);
	free(buf);
	return 0;
}
