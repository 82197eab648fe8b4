/* --baseline: a profile read from a file (pprof or folded stacks) or taken
 * from the table (B), reduced to leaf functions with their counts, and
 * matched against each snapshot's rows by name. */
#include "config.h"

#include "baseline.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "fileread.h"
#include "hash.h"
#include "hashtab.h"
#include "intern.h"
#include "nsopen.h"
#include "pprof-read.h"
#include "pprof.h"
#include "util.h"
#include "view.h"

/* The keys a baseline can match on, as bits of 1 << enum sort_key. */
#define BL_KEYS (1u << SORT_COMM | 1u << SORT_PID | 1u << SORT_TID | 1u << SORT_DSO | \
		 1u << SORT_SYM)
/* A folded line longer than this is refused: no real stack is. */
#define BL_FOLDED_MAX_LINE (1u << 20)
#define BL_FOLDED_MAX_BYTES (512u << 20)

/* A row's identity, as far as the keys in use say (the others NULL/0). */
struct bl_key {
	const char *comm, *dso, *sym;   /* interned, or NULL */
	uint32_t pid, tid;
	bool has_pid, has_tid;
};

/* Leaf functions with their values, and the same summed by the keys of
 * the table they are matched against (groups, rebuilt when the keys
 * change). */
struct bl_entry {
	struct bl_key k;
	bool kernel;
};

struct bl_group {
	struct bl_key k;
	bool kernel;
	uint64_t value;
	bool matched;                   /* by a row of the snapshot being applied */
};

struct baseline {
	char *name;
	unsigned has;                   /* keys the baseline knows (BL_KEYS bits) */
	const char *types[PPROF_READ_MAX_VALUES]; /* each value's type ("cpu", "samples") */
	size_t nr_types;
	struct bl_entry *entries;
	uint64_t *values;               /* nr_types per entry */
	size_t nr_entries, entries_cap, values_cap;
	struct hashtab entry_ht;
	uint64_t unlisted[PPROF_READ_MAX_VALUES]; /* in the total, in no entry: a
					   table's rows that were filtered out */

	const char *event;              /* the event value_idx was chosen for */
	int value_idx;                  /* -1: not chosen yet */
	int default_idx;                /* the profile's default_sample_type, or -1 */
	unsigned mask;                  /* the groups' keys */
	bool grouped;
	struct bl_group *groups;
	size_t nr_groups, groups_cap;
	struct hashtab group_ht;
	uint64_t total;
};

static bool bl_streq(const char *a, const char *b)
{
	return view_strcmp(a, b) == 0;
}

static uint64_t bl_key_hash(const struct bl_key *k)
{
	uint64_t h = hash_fnv1a(k->comm ? k->comm : "");

	h = hash_combine(h, hash_fnv1a(k->dso ? k->dso : ""));
	h = hash_combine(h, hash_fnv1a(k->sym ? k->sym : ""));
	h = hash_combine(h, k->has_pid ? (uint64_t)k->pid + 1 : 0);
	h = hash_combine(h, k->has_tid ? (uint64_t)k->tid + 1 : 0);
	return hash_finish(h);
}

static bool bl_key_eq(const struct bl_key *a, const struct bl_key *b)
{
	return bl_streq(a->comm, b->comm) && bl_streq(a->dso, b->dso) && bl_streq(a->sym, b->sym) &&
	       a->has_pid == b->has_pid && (!a->has_pid || a->pid == b->pid) &&
	       a->has_tid == b->has_tid && (!a->has_tid || a->tid == b->tid);
}

/* k with only the keys of mask. */
static struct bl_key bl_key_masked(const struct bl_key *k, unsigned mask)
{
	struct bl_key m = { 0 };

	if (mask & 1u << SORT_COMM)
		m.comm = k->comm;
	if (mask & 1u << SORT_DSO)
		m.dso = k->dso;
	if (mask & 1u << SORT_SYM)
		m.sym = k->sym;
	if (mask & 1u << SORT_PID) {
		m.has_pid = k->has_pid;
		m.pid = k->pid;
	}
	if (mask & 1u << SORT_TID) {
		m.has_tid = k->has_tid;
		m.tid = k->tid;
	}
	return m;
}

static uint64_t bl_entry_hash(const void *ctx, uint32_t i)
{
	return bl_key_hash(&((const struct baseline *)ctx)->entries[i].k);
}

static bool bl_entry_eq(const void *ctx, uint32_t i, const void *key)
{
	return bl_key_eq(&((const struct baseline *)ctx)->entries[i].k, key);
}

static uint64_t bl_group_hash(const void *ctx, uint32_t i)
{
	return bl_key_hash(&((const struct baseline *)ctx)->groups[i].k);
}

static bool bl_group_eq(const void *ctx, uint32_t i, const void *key)
{
	return bl_key_eq(&((const struct baseline *)ctx)->groups[i].k, key);
}

static struct baseline *bl_new(const char *name)
{
	struct baseline *bl = xcalloc(1, sizeof(*bl));

	bl->name = xstrdup(name);
	bl->value_idx = -1;
	bl->default_idx = -1;
	hashtab_init(&bl->entry_ht, 0);
	hashtab_init(&bl->group_ht, 0);
	return bl;
}

void baseline_free(struct baseline *bl)
{
	if (!bl)
		return;
	free(bl->name);
	free(bl->entries);
	free(bl->values);
	free(bl->groups);
	hashtab_release(&bl->entry_ht);
	hashtab_release(&bl->group_ht);
	free(bl);
}

const char *baseline_name(const struct baseline *bl)
{
	return bl->name;
}

/* Count vals (nr_types of them) for the leaf k. */
static void bl_add(struct baseline *bl, const struct bl_key *k, bool kernel, const uint64_t *vals)
{
	uint64_t h = bl_key_hash(k);
	size_t slot = hashtab_probe(&bl->entry_ht, h, bl_entry_eq, bl, k), i;
	uint32_t e = bl->entry_ht.slots[slot];

	if (e == HASHTAB_EMPTY) {
		e = (uint32_t)bl->nr_entries;
		bl->entries = xgrow(bl->entries, &bl->entries_cap, e + 1, sizeof(*bl->entries));
		bl->entries[e].k = *k;
		bl->entries[e].kernel = kernel;
		bl->values = xgrow(bl->values, &bl->values_cap, (e + 1) * bl->nr_types,
				   sizeof(*bl->values));
		memset(&bl->values[e * bl->nr_types], 0, bl->nr_types * sizeof(*bl->values));
		bl->nr_entries++;
		hashtab_insert_at(&bl->entry_ht, slot, e, bl_entry_hash, bl);
	}
	for (i = 0; i < bl->nr_types; i++)
		bl->values[e * bl->nr_types + i] += vals[i];
}

/* Whether a DSO's short name is the kernel's or a module's ("[ext4]"),
 * for a gone row's [k] mark when the baseline does not say. */
static bool bl_kernel_dso(const char *dso)
{
	static const char *const user[] = { "[unknown]", "[vdso]", "[vsyscall]", "[vectors]",
					    "[heap]", "[stack]" };
	size_t i;

	if (!dso || dso[0] != '[' || strncmp(dso, "[anon", 5) == 0 || strncmp(dso, "[jit", 4) == 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(user); i++)
		if (strcmp(dso, user[i]) == 0)
			return false;
	return true;
}

/* The row name of an unknown function that exporters name by its object
 * ("[libc.so.6]", as --folded and --pprof write it). */
static const char *bl_symbol(const char *name, const char *dso)
{
	size_t n = strlen(name);

	if (!n)
		return intern("[unknown]");
	if (dso && name[0] == '[' && name[n - 1] == ']' && strlen(dso) == n - 2 &&
	    strncmp(name + 1, dso, n - 2) == 0)
		return intern("[unknown]");
	return intern(name);
}

/* ---- pprof ---- */

/* A mapping's short name, as the table names a DSO: the file's base
 * name, or a pseudo-name ("[kernel.kallsyms]") whole. */
static const char *bl_short_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!path[0])
		return intern("[unknown]");
	return intern(path[0] == '[' || !slash || !slash[1] ? path : slash + 1);
}

static struct baseline *bl_from_pprof(const char *name, const struct pprof_profile *p)
{
	struct baseline *bl = bl_new(name);
	uint64_t vals[PPROF_READ_MAX_VALUES];
	size_t i, j;

	bl->nr_types = p->nr_types;
	for (i = 0; i < p->nr_types; i++)
		bl->types[i] = intern(pprof_str_at(p, p->types[i][0]));
	/* The profile's default value first, when it names one. */
	if (p->default_sample_type) {
		for (i = 0; i < p->nr_types; i++)
			if (p->types[i][0] == p->default_sample_type)
				bl->default_idx = (int)i;
	}
	bl->has = 1u << SORT_SYM;
	if (p->nr_mappings)
		bl->has |= 1u << SORT_DSO;
	for (i = 0; i < p->nr_samples; i++) {
		const struct pprof_sample *s = &p->samples[i];
		const struct pprof_location *l = s->nr_locs ?
			&p->locations[p->sample_locs[s->first_loc]] : NULL;
		struct bl_key k = { 0 };

		k.dso = intern("[unknown]");
		if (l && l->mapping)
			k.dso = bl_short_name(pprof_str_at(p, p->mappings[l->mapping - 1].filename));
		/* The table's row is the function the inlined ones were
		   inlined into: the Location's last Line. */
		k.sym = l && l->nr_lines ?
			bl_symbol(pprof_str_at(p, p->functions[p->lines[l->first_line + l->nr_lines - 1]
								    .function].name), k.dso) :
			intern("[unknown]");
		for (j = 0; j < s->nr_labels; j++) {
			const struct pprof_label *lb = &p->labels[s->first_label + j];
			const char *key = pprof_str_at(p, lb->key);

			if (strcmp(key, "comm") == 0 && lb->str) {
				k.comm = intern(pprof_str_at(p, lb->str));
				bl->has |= 1u << SORT_COMM;
			} else if (strcmp(key, "pid") == 0 && !lb->str) {
				k.has_pid = true;
				k.pid = (uint32_t)lb->num;
				bl->has |= 1u << SORT_PID;
			} else if (strcmp(key, "tid") == 0 && !lb->str) {
				k.has_tid = true;
				k.tid = (uint32_t)lb->num;
				bl->has |= 1u << SORT_TID;
			}
		}
		for (j = 0; j < p->nr_types; j++) {
			int64_t v = p->values[s->first_value + j];

			vals[j] = v > 0 ? (uint64_t)v : 0;
		}
		bl_add(bl, &k, bl_kernel_dso(k.dso), vals);
	}
	return bl;
}

/* ---- folded stacks ---- */

/* One "comm;caller;...;leaf COUNT" line (len bytes, no newline). */
static int bl_folded_line(struct baseline *bl, char *line, size_t len, size_t lineno,
			  struct errmsg *em)
{
	char *sp, *end, *leaf, *semi;
	struct bl_key k = { 0 };
	unsigned long long count;
	bool kernel = false;
	size_t n;

	while (len && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\t'))
		line[--len] = '\0';
	sp = strrchr(line, ' ');
	if (!sp || sp == line)
		return errmsg_set(em, -EINVAL, "line %zu: not \"frame;frame;... COUNT\"", lineno);
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	/* strtoull skips blanks and takes a sign: "\t-1" is not a count. */
	if (*end || end == sp + 1 || errno || sp[1] < '0' || sp[1] > '9')
		return errmsg_set(em, -EINVAL, "line %zu: the count '%.40s' is not a whole number",
				  lineno, sp + 1);
	*sp = '\0';
	semi = strchr(line, ';');
	leaf = strrchr(line, ';');
	leaf = leaf ? leaf + 1 : line;
	if (semi) {
		*semi = '\0';
		k.comm = intern(line);
		bl->has |= 1u << SORT_COMM;
	}
	/* flamegraph's annotations: _[k] kernel, _[j] JIT, _[i] inlined. */
	n = strlen(leaf);
	if (n > 4 && leaf[n - 4] == '_' && leaf[n - 3] == '[' && leaf[n - 1] == ']') {
		kernel = leaf[n - 2] == 'k';
		leaf[n - 4] = '\0';
		n -= 4;
	}
	/* "[libc.so.6]": an unknown function of that object. */
	if (n > 2 && leaf[0] == '[' && leaf[n - 1] == ']' && !memchr(leaf, ' ', n)) {
		leaf[n - 1] = '\0';
		k.dso = intern(leaf + 1);
		k.sym = intern("[unknown]");
		kernel = kernel || bl_kernel_dso(leaf);
	} else {
		k.sym = intern(n ? leaf : "[unknown]");
	}
	bl_add(bl, &k, kernel, (uint64_t[]){ count });
	return 0;
}

static int bl_folded(struct baseline *bl, char *data, size_t n, struct errmsg *em)
{
	size_t pos = 0, lineno = 0;
	bool blank = false;
	int err;

	bl->nr_types = 1;
	bl->types[0] = intern("samples");
	bl->has = 1u << SORT_SYM;
	while (pos < n) {
		char *nl = memchr(data + pos, '\n', n - pos);
		size_t len = (nl ? (size_t)(nl - data) : n) - pos;

		lineno++;
		if (len > BL_FOLDED_MAX_LINE)
			return errmsg_set(em, -EINVAL, "line %zu is over %u bytes: not folded stacks",
					  lineno, BL_FOLDED_MAX_LINE);
		data[pos + len] = '\0';
		if (!len || strspn(data + pos, " \t\r") == len) {
			blank = true;
		} else {
			/* Several refreshes (--folded -n N): the last counts. */
			if (blank) {
				bl->nr_entries = 0;
				hashtab_release(&bl->entry_ht);
				hashtab_init(&bl->entry_ht, 0);
			}
			blank = false;
			if (memchr(data + pos, '\0', len))
				return errmsg_set(em, -EINVAL, "line %zu has a NUL byte: not text",
						  lineno);
			if ((err = bl_folded_line(bl, data + pos, len, lineno, em)))
				return err;
		}
		pos += len + 1;
	}
	if (!bl->nr_entries)
		return errmsg_set(em, -EINVAL, "no stacks in it");
	return 0;
}

int baseline_parse(const char *name, char *data, size_t n, struct baseline **out,
		   struct errmsg *em)
{
	struct errmsg inner = ERRMSG_INIT;
	struct pprof_profile p;
	struct baseline *bl;
	int err;

	*out = NULL;
	if (n >= 8 && memcmp(data, "PERFILE2", 8) == 0)
		return errmsg_set(em, -EINVAL, "%s: a perf.data recording: replay it for its table "
					       "(baseline_is_recording)", name);
	if (n >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b) {
		unsigned char *raw;
		size_t rn;

		err = pprof_gunzip(data, n, PPROF_READ_MAX_BYTES, &raw, &rn, &inner);
		if (!err) {
			err = pprof_decode(raw, rn, &p, &inner);
			free(raw);
			if (!err)
				*out = bl_from_pprof(name, &p);
			pprof_profile_release(&p);
		}
		if (err)
			return errmsg_set(em, err, "%s: %s", name, errmsg_text(&inner, err));
		return 0;
	}
	bl = bl_new(name);
	err = bl_folded(bl, data, n, &inner);
	if (err) {
		baseline_free(bl);
		return errmsg_set(em, err, "%s: neither a pprof profile (gzip) nor folded stacks: %s",
				  name, errmsg_text(&inner, err));
	}
	*out = bl;
	return 0;
}

bool baseline_is_recording(const char *path)
{
	char magic[8];
	int fd = nsopen_file(path);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      memcmp(magic, "PERFILE2", sizeof(magic)) == 0;
	close(fd);
	return yes;
}

int baseline_load(const char *path, struct baseline **out, struct errmsg *em)
{
	char *data;
	size_t n;
	int fd, err;

	*out = NULL;
	fd = nsopen_file(path);
	if (fd < 0)
		return errmsg_set(em, fd, "%s: %s", path,
				  fd == -EINVAL ? "not a regular file" : strerror(-fd));
	err = fileread_fd(fd, BL_FOLDED_MAX_BYTES, &data, &n);
	close(fd);
	if (err)
		return errmsg_set(em, err, "%s: %s", path, strerror(-err));
	err = baseline_parse(path, data, n, out, em);
	free(data);
	return err;
}

struct baseline *baseline_from_snapshot(const struct snapshot *snap, const char *name)
{
	uint64_t sum[2] = { 0, 0 };
	char at[64];
	struct baseline *bl;
	size_t i;

	snprintf(at, sizeof(at), "the table at %.1fs", snap->time);
	bl = bl_new(name ? name : at);
	bl->nr_types = 2;
	bl->types[0] = intern("samples");
	bl->types[1] = intern(pprof_event_type(snap->event));
	for (i = 0; i < snap->sort.n; i++)
		bl->has |= 1u << snap->sort.keys[i];
	bl->has &= BL_KEYS;
	for (i = 0; i + snap->nr_gone < snap->nr_rows; i++) {
		const struct snapshot_row *r = &snap->rows[i];
		struct bl_key k = {
			.comm = r->comm ? intern(r->comm) : NULL,
			.dso = intern(r->dso ? r->dso : "[unknown]"),
			.sym = intern(r->symbol ? r->symbol : "[unknown]"),
			.pid = r->pid, .has_pid = r->has_pid,
			.tid = r->tid, .has_tid = r->has_tid,
		};

		k = bl_key_masked(&k, bl->has);
		bl_add(bl, &k, r->kernel, (uint64_t[]){ r->samples, r->period });
		sum[0] += r->samples;
		sum[1] += r->period;
	}
	/* Shares of the whole table, as the rows' Self are. */
	bl->unlisted[0] = snap->samples > sum[0] ? snap->samples - sum[0] : 0;
	bl->unlisted[1] = snap->period > sum[1] ? snap->period - sum[1] : 0;
	return bl;
}

/* The value matched against snap's event: the one of the same type (the
 * profile's default first), else a profile of counts alone ("samples").
 * -1 when the baseline counts another event. */
static int bl_value_for(const struct baseline *bl, const char *event)
{
	const char *want = pprof_event_type(event);
	size_t i;

	if (bl->default_idx >= 0 && strcmp(bl->types[bl->default_idx], want) == 0)
		return bl->default_idx;
	for (i = bl->nr_types; i-- > 0;)
		if (strcmp(bl->types[i], want) == 0)
			return (int)i;
	for (i = 0; i < bl->nr_types; i++)
		if (strcmp(bl->types[i], "samples") != 0)
			return -1;
	return bl->nr_types ? 0 : -1;
}

/* The groups of the keys mask: entries summed by them. */
static void bl_group(struct baseline *bl, unsigned mask)
{
	size_t i;

	bl->nr_groups = 0;
	bl->total = bl->unlisted[bl->value_idx];
	hashtab_release(&bl->group_ht);
	hashtab_init(&bl->group_ht, bl->nr_entries);
	for (i = 0; i < bl->nr_entries; i++) {
		struct bl_key k = bl_key_masked(&bl->entries[i].k, mask);
		size_t slot = hashtab_probe(&bl->group_ht, bl_key_hash(&k), bl_group_eq, bl, &k);
		uint32_t g = bl->group_ht.slots[slot];
		uint64_t v = bl->values[i * bl->nr_types + (size_t)bl->value_idx];

		if (g == HASHTAB_EMPTY) {
			g = (uint32_t)bl->nr_groups++;
			bl->groups = xgrow(bl->groups, &bl->groups_cap, bl->nr_groups,
					   sizeof(*bl->groups));
			memset(&bl->groups[g], 0, sizeof(*bl->groups));
			bl->groups[g].k = k;
			bl->groups[g].kernel = bl->entries[i].kernel;
			hashtab_insert_at(&bl->group_ht, slot, g, bl_group_hash, bl);
		}
		bl->groups[g].value += v;
		bl->total += v;
	}
	bl->mask = mask;
	bl->grouped = true;
}

static double bl_share(const struct baseline *bl, uint64_t v)
{
	return bl->total ? 100.0 * (double)v / (double)bl->total : 0.0;
}

/* Gone rows: the largest share first, then by name. */
static int bl_gone_cmp(const void *a, const void *b)
{
	const struct bl_group *x = *(const struct bl_group *const *)a;
	const struct bl_group *y = *(const struct bl_group *const *)b;
	int c = CMP(y->value, x->value);

	if (!c)
		c = view_strcmp(x->k.sym, y->k.sym);
	if (!c)
		c = view_strcmp(x->k.dso, y->k.dso);
	if (!c)
		c = view_strcmp(x->k.comm, y->k.comm);
	if (!c)
		c = CMP(x->k.pid, y->k.pid);
	return c ? c : CMP(x->k.tid, y->k.tid);
}

int baseline_apply(struct baseline *bl, struct snapshot *snap, const struct view_opts *view,
		   struct errmsg *em)
{
	struct bl_group **gone = NULL;
	unsigned mask = 0;
	size_t i, nr_gone = 0, gone_cap = 0;
	int idx;

	snap->nr_rows -= snap->nr_gone;
	snap->nr_gone = 0;
	snap->baseline = false;
	if (!bl->event || strcmp(bl->event, snap->event ? snap->event : "") != 0) {
		idx = bl_value_for(bl, snap->event);
		if (idx < 0)
			return errmsg_set(em, -EINVAL,
					  "the baseline %s counts %s, this profile %s: compare "
					  "profiles of one event", bl->name,
					  bl->nr_types ? bl->types[bl->nr_types - 1] : "nothing",
					  pprof_event_type(snap->event));
		bl->event = intern(snap->event ? snap->event : "");
		if (idx != bl->value_idx)
			bl->grouped = false;
		bl->value_idx = idx;
	}
	for (i = 0; i < snap->sort.n; i++)
		mask |= 1u << snap->sort.keys[i];
	mask &= bl->has;
	if (!bl->grouped || mask != bl->mask)
		bl_group(bl, mask);
	for (i = 0; i < bl->nr_groups; i++)
		bl->groups[i].matched = false;

	for (i = 0; i < snap->nr_rows; i++) {
		struct snapshot_row *r = &snap->rows[i];
		struct bl_key k = {
			.comm = r->comm, .dso = r->dso ? r->dso : "[unknown]",
			.sym = r->symbol ? r->symbol : "[unknown]",
			.pid = r->pid, .has_pid = r->has_pid, .tid = r->tid, .has_tid = r->has_tid,
		};
		uint32_t g;

		k = bl_key_masked(&k, mask);
		g = hashtab_find(&bl->group_ht, bl_key_hash(&k), bl_group_eq, bl, &k);
		r->gone = false;
		/* A row of callers alone (no Self) has nothing to be new in. */
		r->has_baseline = g != HASHTAB_EMPTY || !r->period;
		r->baseline = g != HASHTAB_EMPTY ? bl_share(bl, bl->groups[g].value) : 0.0;
		if (g != HASHTAB_EMPTY)
			bl->groups[g].matched = true;
	}

	for (i = 0; i < bl->nr_groups; i++) {
		const struct bl_group *g = &bl->groups[i];

		if (g->matched || !g->value)
			continue;
		if (view && ((view->hide_kernel && g->kernel) || (view->hide_user && !g->kernel) ||
			     bl_share(bl, g->value) < view->percent_limit))
			continue;
		gone = xgrow(gone, &gone_cap, nr_gone + 1, sizeof(*gone));
		gone[nr_gone++] = &bl->groups[i];
	}
	if (nr_gone) {
		qsort(gone, nr_gone, sizeof(*gone), bl_gone_cmp);
		if (view && view->max_rows)
			nr_gone = snap->nr_rows >= view->max_rows ? 0 :
				  nr_gone < view->max_rows - snap->nr_rows ? nr_gone :
				  view->max_rows - snap->nr_rows;
	}
	if (nr_gone) {
		snap->rows = xrealloc(snap->rows, (snap->nr_rows + nr_gone) * sizeof(*snap->rows));
	}
	for (i = 0; i < nr_gone; i++) {
		struct snapshot_row *r = &snap->rows[snap->nr_rows + i];
		const struct bl_group *g = gone[i];

		memset(r, 0, sizeof(*r));
		r->comm = g->k.comm;
		r->has_pid = g->k.has_pid;
		r->pid = g->k.pid;
		r->has_tid = g->k.has_tid;
		r->tid = g->k.tid;
		r->has_dso = sort_spec_has(&snap->sort, SORT_DSO);
		r->dso = r->dso_path = g->k.dso ? g->k.dso : "[unknown]";
		r->has_sym = sort_spec_has(&snap->sort, SORT_SYM);
		r->symbol = g->k.sym ? g->k.sym : "[unknown]";
		r->has_srcline = sort_spec_has(&snap->sort, SORT_SRCLINE);
		r->kernel = g->kernel;
		r->gone = true;
		r->has_baseline = true;
		r->baseline = bl_share(bl, g->value);
	}
	snap->nr_rows += nr_gone;
	snap->nr_gone = nr_gone;
	snap->baseline = true;
	free(gone);
	return 0;
}
