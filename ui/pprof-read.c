/* Reading profile.proto (ui/profile.proto, pprof's schema): gzip inflated
 * with a bound, unpacked by protobuf-c within an allocation budget, then
 * each table checked (string indexes, ids, value counts) before anything
 * points into it.  On --pprof's 2.5 MB profile of a 151K-sample recording,
 * 498M instructions against the hand-written walker's 343M (callgrind
 * --toggle-collect=pprof_decode), once at start: not worth our own. */
#include "config.h"

#include "pprof-read.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "errmsg.h"
#include "pprof.h"
#include "util.h"
#include "profile.pb-c.h"



/* ids of a table, sorted, to find an entry by the id others name it by. */
struct pr_id {
	uint64_t id;
	size_t idx;
};

static int pr_id_cmp(const void *a, const void *b)
{
	const struct pr_id *x = a, *y = b;

	return CMP(x->id, y->id);
}

struct pr_ids {
	struct pr_id *v;
	size_t n, cap;
};

static void pr_ids_add(struct pr_ids *t, uint64_t id)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n].id = id;
	t->v[t->n].idx = t->n;
	t->n++;
}

/* Sort; 0, or -EINVAL for an id 0 or twice. */
static int pr_ids_sort(struct pr_ids *t)
{
	size_t i;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), pr_id_cmp);
	for (i = 0; i < t->n; i++)
		if (!t->v[i].id || (i && t->v[i].id == t->v[i - 1].id))
			return -EINVAL;
	return 0;
}

/* The index of id, or -1. */
static ssize_t pr_ids_find(const struct pr_ids *t, uint64_t id)
{
	struct pr_id k = { .id = id };
	const struct pr_id *f = t->n ? bsearch(&k, t->v, t->n, sizeof(*t->v), pr_id_cmp) : NULL;

	return f ? (ssize_t)f->idx : -1;
}

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;

/* protobuf-c's allocations for one unpack, counted against a budget: the
 * structures of a small message can be tens of times its size (an empty
 * Sample is 2 bytes on the wire), so a hostile file is refused before it
 * takes the machine's memory. */
struct pr_alloc {
	size_t used, budget;
	bool over;
};

static void *pr_alloc_alloc(void *data, size_t size)
{
	struct pr_alloc *a = data;

	if (size > a->budget - a->used) {
		a->over = true;
		return NULL;
	}
	a->used += size;
	return malloc(size);
}

static void pr_alloc_free(void *data, void *p)
{
	free(p);
}

/* The checks and the copy into struct pprof_profile, on what protobuf-c
 * unpacked: every string index, id and count before anything points in. */
struct pr {
	const Profile *in;
	struct pprof_profile *out;
	struct errmsg *em;
	struct pr_ids fn_ids, map_ids, loc_ids;
};

static int pr_bad(struct pr *r, const char *what)
{
	return errmsg_set(r->em, -EINVAL, "not a valid pprof profile: %s", what);
}

/* A string index, checked against the string table. */
static int pr_str(struct pr *r, int64_t i, uint64_t *s)
{
	if ((uint64_t)i >= r->out->nr_strs)
		return errmsg_set(r->em, -EINVAL,
				  "not a valid pprof profile: string index %llu, the table has %zu",
				  (unsigned long long)i, r->out->nr_strs);
	*s = (uint64_t)i;
	return 0;
}

static int pr_value_type(struct pr *r, const ValueType *vt, uint64_t *out)
{
	out[0] = out[1] = 0;
	return vt && (pr_str(r, vt->type, &out[0]) || pr_str(r, vt->unit, &out[1])) ? -EINVAL : 0;
}

static int pr_functions(struct pr *r)
{
	struct pprof_profile *o = r->out;
	size_t i;

	o->functions = xcalloc(r->in->n_function + 1, sizeof(*o->functions));
	for (i = 0; i < r->in->n_function; i++) {
		const Perftools__Profiles__Function *f = r->in->function[i];
		struct pprof_function *fn = &o->functions[i];

		fn->id = f->id;
		if (pr_str(r, f->name, &fn->name) || pr_str(r, f->system_name, &fn->system_name) ||
		    pr_str(r, f->filename, &fn->filename))
			return -EINVAL;
		fn->start_line = f->start_line;
		pr_ids_add(&r->fn_ids, fn->id);
		o->nr_functions++;
	}
	return 0;
}

static int pr_mappings(struct pr *r)
{
	struct pprof_profile *o = r->out;
	size_t i;

	o->mappings = xcalloc(r->in->n_mapping + 1, sizeof(*o->mappings));
	for (i = 0; i < r->in->n_mapping; i++) {
		const Perftools__Profiles__Mapping *m = r->in->mapping[i];
		struct pprof_mapping *om = &o->mappings[i];

		om->id = m->id;
		om->memory_start = m->memory_start;
		om->memory_limit = m->memory_limit;
		om->file_offset = m->file_offset;
		if (pr_str(r, m->filename, &om->filename) || pr_str(r, m->build_id, &om->build_id))
			return -EINVAL;
		om->has_functions = m->has_functions;
		om->has_filenames = m->has_filenames;
		om->has_line_numbers = m->has_line_numbers;
		om->has_inline_frames = m->has_inline_frames;
		pr_ids_add(&r->map_ids, om->id);
		o->nr_mappings++;
	}
	return 0;
}

static int pr_locations(struct pr *r)
{
	struct pprof_profile *o = r->out;
	size_t i, j, nlines = 0;
	ssize_t idx;

	for (i = 0; i < r->in->n_location; i++)
		nlines += r->in->location[i]->n_line;
	o->locations = xcalloc(r->in->n_location + 1, sizeof(*o->locations));
	o->lines = xcalloc(nlines + 1, sizeof(*o->lines));
	for (i = 0; i < r->in->n_location; i++) {
		const Perftools__Profiles__Location *l = r->in->location[i];
		struct pprof_location *ol = &o->locations[i];

		ol->id = l->id;
		ol->address = l->address;
		ol->first_line = o->nr_lines;
		for (j = 0; j < l->n_line; j++) {
			if ((idx = pr_ids_find(&r->fn_ids, l->line[j]->function_id)) < 0)
				return errmsg_set(r->em, -EINVAL,
						  "not a valid pprof profile: a Line names function "
						  "id %llu, which no Function has",
						  (unsigned long long)l->line[j]->function_id);
			o->lines[o->nr_lines].function = (size_t)idx;
			o->lines[o->nr_lines++].line = l->line[j]->line;
			ol->nr_lines++;
		}
		/* Mapping 0 is "none"; others are kept 1-based. */
		idx = l->mapping_id ? pr_ids_find(&r->map_ids, l->mapping_id) : -1;
		if (l->mapping_id && idx < 0)
			return errmsg_set(r->em, -EINVAL,
					  "not a valid pprof profile: a Location names mapping id "
					  "%llu, which no Mapping has",
					  (unsigned long long)l->mapping_id);
		ol->mapping = (size_t)(idx + 1);
		pr_ids_add(&r->loc_ids, ol->id);
		o->nr_locations++;
	}
	return 0;
}

static int pr_samples(struct pr *r)
{
	struct pprof_profile *o = r->out;
	size_t i, j, nlocs = 0, nlabels = 0;
	ssize_t idx;

	for (i = 0; i < r->in->n_sample; i++) {
		nlocs += r->in->sample[i]->n_location_id;
		nlabels += r->in->sample[i]->n_label;
	}
	o->samples = xcalloc(r->in->n_sample + 1, sizeof(*o->samples));
	o->sample_locs = xcalloc(nlocs + 1, sizeof(*o->sample_locs));
	o->labels = xcalloc(nlabels + 1, sizeof(*o->labels));
	o->values = xcalloc(r->in->n_sample * o->nr_types + 1, sizeof(*o->values));
	for (i = 0; i < r->in->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = r->in->sample[i];
		struct pprof_sample *s = &o->samples[i];

		if (sm->n_value != o->nr_types)
			return errmsg_set(r->em, -EINVAL,
					  "not a valid pprof profile: a Sample has %zu values for %zu "
					  "sample types", sm->n_value, o->nr_types);
		s->first_loc = o->nr_sample_locs;
		s->nr_locs = sm->n_location_id;
		for (j = 0; j < sm->n_location_id; j++) {
			if ((idx = pr_ids_find(&r->loc_ids, sm->location_id[j])) < 0)
				return errmsg_set(r->em, -EINVAL,
						  "not a valid pprof profile: a Sample names location "
						  "id %llu, which no Location has",
						  (unsigned long long)sm->location_id[j]);
			o->sample_locs[o->nr_sample_locs++] = (size_t)idx;
		}
		s->first_label = o->nr_labels;
		for (j = 0; j < sm->n_label; j++) {
			struct pprof_label *lb = &o->labels[o->nr_labels];

			if (pr_str(r, sm->label[j]->key, &lb->key) ||
			    pr_str(r, sm->label[j]->str, &lb->str))
				return -EINVAL;
			lb->num = sm->label[j]->num;
			o->nr_labels++;
			s->nr_labels++;
		}
		s->first_value = i * o->nr_types;
		for (j = 0; j < sm->n_value; j++)
			o->values[s->first_value + j] = sm->value[j];
		o->nr_samples++;
	}
	return 0;
}

static int pr_profile(struct pr *r)
{
	const Profile *in = r->in;
	struct pprof_profile *o = r->out;
	size_t i;

	o->time_nanos = in->time_nanos;
	o->duration_nanos = in->duration_nanos;
	o->period = in->period;
	o->strs = xcalloc(in->n_string_table + 1, sizeof(*o->strs));
	for (i = 0; i < in->n_string_table; i++)
		o->strs[o->nr_strs++] = xstrdup(in->string_table[i]);
	if (!o->nr_strs || o->strs[0][0])
		return pr_bad(r, "the string table does not start with \"\"");
	if ((uint64_t)in->default_sample_type >= o->nr_strs)
		return pr_bad(r, "default_sample_type is out of the string table");
	o->default_sample_type = (uint64_t)in->default_sample_type;
	if (in->n_sample_type > PPROF_READ_MAX_VALUES)
		return errmsg_set(r->em, -E2BIG, "pprof profile with over %d sample types",
				  PPROF_READ_MAX_VALUES);
	for (i = 0; i < in->n_sample_type; i++)
		if (pr_value_type(r, in->sample_type[i], o->types[o->nr_types++]))
			return -EINVAL;
	if (pr_value_type(r, in->period_type, o->period_type) || pr_functions(r) ||
	    pr_mappings(r))
		return -EINVAL;
	if (pr_ids_sort(&r->fn_ids) || pr_ids_sort(&r->map_ids))
		return pr_bad(r, "a Function or Mapping id is 0 or used twice");
	if (pr_locations(r))
		return -EINVAL;
	if (pr_ids_sort(&r->loc_ids))
		return pr_bad(r, "a Location id is 0 or used twice");
	return pr_samples(r);
}

int pprof_decode(const unsigned char *p, size_t n, struct pprof_profile *out,
		 struct errmsg *em)
{
	/* 64 bytes of structures per byte of message, past a floor: more
	   than protobuf-c needs for any real profile. */
	struct pr_alloc budget = { 0, (n < (SIZE_MAX >> 7) ? 64 * n : SIZE_MAX >> 1) + (16u << 20),
				   false };
	ProtobufCAllocator alloc = { pr_alloc_alloc, pr_alloc_free, &budget };
	struct pr r = { .out = out, .em = em };
	Profile *in;
	int err;

	memset(out, 0, sizeof(*out));
	in = perftools__profiles__profile__unpack(&alloc, n, p);
	if (!in && budget.over)
		return errmsg_set(em, -E2BIG, "the pprof profile unpacks to over %zu MiB",
				  budget.budget >> 20);
	if (!in)
		return errmsg_set(em, -EINVAL, "not a valid pprof profile: damaged or truncated "
					       "(%zu bytes that do not unpack as profile.proto)", n);
	r.in = in;
	err = pr_profile(&r);
	perftools__profiles__profile__free_unpacked(in, &alloc);
	free(r.fn_ids.v);
	free(r.map_ids.v);
	free(r.loc_ids.v);
	return err;
}

int pprof_gunzip(const void *data, size_t n, size_t max, unsigned char **out, size_t *out_n,
		 struct errmsg *em)
{
	const unsigned char *in = data;
	unsigned char *buf = NULL;
	size_t cap = 0, len = 0;
	z_stream z;
	int rc = Z_OK, err = 0;

	*out = NULL;
	*out_n = 0;
	if (n < 18 || in[0] != 0x1f || in[1] != 0x8b)
		return errmsg_set(em, -EINVAL, "not a gzip-compressed pprof profile (pprof "
					       "files are gzip files)");
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return errmsg_set(em, -ENOMEM, "zlib: cannot start inflating");
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	for (;;) {
		if (len == cap) {
			if (cap >= max) {
				err = errmsg_set(em, -E2BIG, "the pprof profile inflates to over "
							     "%zu MiB", max >> 20);
				break;
			}
			buf = xgrow(buf, &cap, len + 65536 < max ? len + 65536 : max, 1);
			if (cap > max)
				cap = max;
		}
		z.next_out = buf + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		if (rc == Z_STREAM_END) {
			/* gzip allows members one after another. */
			if (!z.avail_in)
				break;
			if (inflateReset(&z) != Z_OK) {
				err = errmsg_set(em, -EINVAL, "damaged gzip data");
				break;
			}
			continue;
		}
		if (rc == Z_BUF_ERROR && z.avail_out) {
			err = errmsg_set(em, -EINVAL, "the gzip data is truncated");
			break;
		}
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			err = errmsg_set(em, -EINVAL, "damaged gzip data (%s)",
					 z.msg ? z.msg : "zlib error");
			break;
		}
	}
	inflateEnd(&z);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	*out_n = len;
	return 0;
}

void pprof_profile_release(struct pprof_profile *p)
{
	size_t i;

	for (i = 0; i < p->nr_strs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->samples);
	free(p->sample_locs);
	free(p->values);
	free(p->labels);
	free(p->locations);
	free(p->lines);
	free(p->functions);
	free(p->mappings);
	memset(p, 0, sizeof(*p));
}

const char *pprof_str_at(const struct pprof_profile *p, uint64_t s)
{
	return s < p->nr_strs ? p->strs[s] : "";
}
