/* Reading profile.proto (github.com/google/pprof proto/profile.proto):
 * gzip inflated with a bound, the wire format walked field by field, each
 * table checked before anything points into it. */
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

int pprof_get_varint(const unsigned char *p, size_t n, size_t *pos, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 70; shift += 7) {
		if (*pos >= n)
			return -EINVAL;
		*v |= (uint64_t)(p[*pos] & 0x7f) << shift;
		if (!(p[(*pos)++] & 0x80))
			return 0;
	}
	return -EINVAL;
}


/* Field numbers of profile.proto, as the reader needs them. */
enum {
	PR_SAMPLE_TYPE = 1, PR_SAMPLE, PR_MAPPING, PR_LOCATION, PR_FUNCTION, PR_STRING_TABLE,
	PR_TIME_NANOS = 9, PR_DURATION_NANOS, PR_PERIOD_TYPE, PR_PERIOD,
	PR_DEFAULT_SAMPLE_TYPE = 14,
};

/* One field of a message: a varint's (or fixed's) value, or a
 * length-delimited run. */
struct pb_field {
	unsigned num, wire;
	uint64_t v;
	const unsigned char *p;
	size_t n;
};

struct pb {
	const unsigned char *p;
	size_t n, pos;
};

/* The next field of b into f: 1, 0 at the end, -EINVAL on bad wire data
 * (a truncated field, a varint over 10 bytes, a group or unknown wire
 * type, field number 0). */
static int pb_next(struct pb *b, struct pb_field *f)
{
	uint64_t key;
	size_t k;

	if (b->pos >= b->n)
		return 0;
	if (pprof_get_varint(b->p, b->n, &b->pos, &key))
		return -EINVAL;
	f->num = (unsigned)(key >> 3);
	f->wire = (unsigned)(key & 7);
	f->p = NULL;
	f->n = 0;
	if (!f->num || key >> 3 > UINT32_MAX)
		return -EINVAL;
	switch (f->wire) {
	case 0:
		return pprof_get_varint(b->p, b->n, &b->pos, &f->v) ? -EINVAL : 1;
	case 1:
	case 5:
		k = f->wire == 1 ? 8 : 4;
		if (b->n - b->pos < k)
			return -EINVAL;
		f->v = 0;
		while (k--)
			f->v = f->v << 8 | b->p[b->pos + k];
		b->pos += f->wire == 1 ? 8 : 4;
		return 1;
	case 2:
		if (pprof_get_varint(b->p, b->n, &b->pos, &f->v) || f->v > b->n - b->pos)
			return -EINVAL;
		f->p = b->p + b->pos;
		f->n = (size_t)f->v;
		b->pos += f->n;
		return 1;
	default:
		return -EINVAL;
	}
}

/* A varint field's value (wire 0), or -EINVAL. */
static int pb_uint(const struct pb_field *f, uint64_t *v)
{
	if (f->wire != 0)
		return -EINVAL;
	*v = f->v;
	return 0;
}

/* A repeated varint field, packed (wire 2) or not, appended to *v. */
static int pb_repeated(const struct pb_field *f, uint64_t **v, size_t *n, size_t *cap)
{
	size_t pos = 0;
	uint64_t x;

	if (f->wire == 0) {
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = f->v;
		return 0;
	}
	if (f->wire != 2)
		return -EINVAL;
	while (pos < f->n) {
		if (pprof_get_varint(f->p, f->n, &pos, &x))
			return -EINVAL;
		*v = xgrow(*v, cap, *n + 1, sizeof(**v));
		(*v)[(*n)++] = x;
	}
	return 0;
}

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

/* The decoder's state: spans of the sub-messages, decoded once every
 * table they may name is known. */
struct pr {
	struct pprof_profile *out;
	struct errmsg *em;
	struct pr_ids fn_ids, map_ids, loc_ids;
	uint64_t *tmp;               /* a sample's location ids, values */
	size_t tmp_n, tmp_cap;
	size_t strs_cap, samples_cap, sample_locs_cap, values_cap, labels_cap;
	size_t locations_cap, lines_cap, functions_cap, mappings_cap;
};

static int pr_bad(struct pr *r, const char *what)
{
	return errmsg_set(r->em, -EINVAL, "not a valid pprof profile: %s", what);
}

/* A string index, checked against the string table. */
static int pr_str(struct pr *r, const struct pb_field *f, uint64_t *s)
{
	if (pb_uint(f, s))
		return pr_bad(r, "a string index is not a varint");
	if (*s >= r->out->nr_strs)
		return errmsg_set(r->em, -EINVAL,
				  "not a valid pprof profile: string index %llu, the table has %zu",
				  (unsigned long long)*s, r->out->nr_strs);
	return 0;
}

static int pr_value_type(struct pr *r, const unsigned char *p, size_t n, uint64_t *vt)
{
	struct pb b = { p, n, 0 };
	struct pb_field f;
	int k;

	vt[0] = vt[1] = 0;
	while ((k = pb_next(&b, &f)) > 0)
		if ((f.num == 1 || f.num == 2) && pr_str(r, &f, &vt[f.num - 1]))
			return -EINVAL;
	return k ? pr_bad(r, "a damaged ValueType") : 0;
}

static int pr_function(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pprof_function *fn;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	uint64_t v;
	int k;

	o->functions = xgrow(o->functions, &r->functions_cap, o->nr_functions + 1,
			     sizeof(*o->functions));
	fn = memset(&o->functions[o->nr_functions], 0, sizeof(*fn));
	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num == 1 && pb_uint(&f, &fn->id))
			return pr_bad(r, "a damaged Function id");
		if (f.num == 2 && pr_str(r, &f, &fn->name))
			return -EINVAL;
		if (f.num == 3 && pr_str(r, &f, &fn->system_name))
			return -EINVAL;
		if (f.num == 4 && pr_str(r, &f, &fn->filename))
			return -EINVAL;
		if (f.num == 5 && !pb_uint(&f, &v))
			fn->start_line = (int64_t)v;
	}
	if (k)
		return pr_bad(r, "a damaged Function");
	pr_ids_add(&r->fn_ids, fn->id);
	o->nr_functions++;
	return 0;
}

static int pr_mapping(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pprof_mapping *m;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	uint64_t v;
	int k;

	o->mappings = xgrow(o->mappings, &r->mappings_cap, o->nr_mappings + 1,
			    sizeof(*o->mappings));
	m = memset(&o->mappings[o->nr_mappings], 0, sizeof(*m));
	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num == 5 || f.num == 6) {
			if (pr_str(r, &f, f.num == 5 ? &m->filename : &m->build_id))
				return -EINVAL;
			continue;
		}
		if (pb_uint(&f, &v))
			continue;        /* a field of a later version */
		switch (f.num) {
		case 1: m->id = v; break;
		case 2: m->memory_start = v; break;
		case 3: m->memory_limit = v; break;
		case 4: m->file_offset = v; break;
		case 7: m->has_functions = !!v; break;
		case 8: m->has_filenames = !!v; break;
		case 9: m->has_line_numbers = !!v; break;
		case 10: m->has_inline_frames = !!v; break;
		default: break;
		}
	}
	if (k)
		return pr_bad(r, "a damaged Mapping");
	pr_ids_add(&r->map_ids, m->id);
	o->nr_mappings++;
	return 0;
}

static int pr_line(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	uint64_t fid = 0, v;
	int64_t line = 0;
	ssize_t idx;
	int k;

	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num == 1 && pb_uint(&f, &fid))
			return pr_bad(r, "a damaged Line");
		if (f.num == 2 && !pb_uint(&f, &v))
			line = (int64_t)v;
	}
	if (k)
		return pr_bad(r, "a damaged Line");
	if ((idx = pr_ids_find(&r->fn_ids, fid)) < 0)
		return errmsg_set(r->em, -EINVAL,
				  "not a valid pprof profile: a Line names function id %llu, "
				  "which no Function has", (unsigned long long)fid);
	o->lines = xgrow(o->lines, &r->lines_cap, o->nr_lines + 1, sizeof(*o->lines));
	o->lines[o->nr_lines].function = (size_t)idx;
	o->lines[o->nr_lines++].line = line;
	return 0;
}

static int pr_location(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pprof_location *l;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	uint64_t map = 0;
	ssize_t idx;
	int k;

	o->locations = xgrow(o->locations, &r->locations_cap, o->nr_locations + 1,
			     sizeof(*o->locations));
	l = memset(&o->locations[o->nr_locations], 0, sizeof(*l));
	l->first_line = o->nr_lines;
	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num == 4) {
			if (f.wire != 2 || pr_line(r, f.p, f.n))
				return f.wire != 2 ? pr_bad(r, "a damaged Line") : -EINVAL;
			/* pr_line may move the table: l is found again. */
			l = &o->locations[o->nr_locations];
			l->nr_lines++;
			continue;
		}
		if ((f.num == 1 && pb_uint(&f, &l->id)) || (f.num == 2 && pb_uint(&f, &map)) ||
		    (f.num == 3 && pb_uint(&f, &l->address)))
			return pr_bad(r, "a damaged Location");
	}
	if (k)
		return pr_bad(r, "a damaged Location");
	if (map && (idx = pr_ids_find(&r->map_ids, map)) < 0)
		return errmsg_set(r->em, -EINVAL,
				  "not a valid pprof profile: a Location names mapping id %llu, "
				  "which no Mapping has", (unsigned long long)map);
	l->mapping = map ? (size_t)idx + 1 : 0;
	pr_ids_add(&r->loc_ids, l->id);
	o->nr_locations++;
	return 0;
}

static int pr_label(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pprof_label *lb;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	uint64_t v;
	int k;

	o->labels = xgrow(o->labels, &r->labels_cap, o->nr_labels + 1, sizeof(*o->labels));
	lb = memset(&o->labels[o->nr_labels], 0, sizeof(*lb));
	while ((k = pb_next(&b, &f)) > 0) {
		if ((f.num == 1 && pr_str(r, &f, &lb->key)) || (f.num == 2 && pr_str(r, &f, &lb->str)))
			return -EINVAL;
		if (f.num == 3 && !pb_uint(&f, &v))
			lb->num = (int64_t)v;
	}
	if (k)
		return pr_bad(r, "a damaged Label");
	o->nr_labels++;
	return 0;
}

static int pr_sample(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	struct pprof_sample *s;
	struct pb b = { p, n, 0 };
	struct pb_field f;
	size_t i, nvals = 0, nlocs;
	ssize_t idx;
	int k;

	o->samples = xgrow(o->samples, &r->samples_cap, o->nr_samples + 1, sizeof(*o->samples));
	s = &o->samples[o->nr_samples];
	s->first_label = o->nr_labels;
	s->nr_labels = 0;
	/* Location ids first, then values, in r->tmp: the fields may come in
	   any order and repeat. */
	r->tmp_n = 0;
	while ((k = pb_next(&b, &f)) > 0)
		if (f.num == 1 && pb_repeated(&f, &r->tmp, &r->tmp_n, &r->tmp_cap))
			return pr_bad(r, "a damaged Sample location_id");
	nlocs = r->tmp_n;
	b.pos = 0;
	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num == 2 && pb_repeated(&f, &r->tmp, &r->tmp_n, &r->tmp_cap))
			return pr_bad(r, "a damaged Sample value");
		if (f.num == 3) {
			if (f.wire != 2)
				return pr_bad(r, "a damaged Label");
			if (pr_label(r, f.p, f.n))
				return -EINVAL;
			o->samples[o->nr_samples].nr_labels++;
		}
	}
	if (k)
		return pr_bad(r, "a damaged Sample");
	s = &o->samples[o->nr_samples];
	nvals = r->tmp_n - nlocs;
	if (nvals != o->nr_types)
		return errmsg_set(r->em, -EINVAL,
				  "not a valid pprof profile: a Sample has %zu values for %zu "
				  "sample types", nvals, o->nr_types);
	s->first_loc = o->nr_sample_locs;
	s->nr_locs = nlocs;
	o->sample_locs = xgrow(o->sample_locs, &r->sample_locs_cap, o->nr_sample_locs + nlocs,
			       sizeof(*o->sample_locs));
	for (i = 0; i < nlocs; i++) {
		if ((idx = pr_ids_find(&r->loc_ids, r->tmp[i])) < 0)
			return errmsg_set(r->em, -EINVAL,
					  "not a valid pprof profile: a Sample names location id "
					  "%llu, which no Location has",
					  (unsigned long long)r->tmp[i]);
		o->sample_locs[o->nr_sample_locs++] = (size_t)idx;
	}
	s->first_value = o->nr_samples * o->nr_types;
	o->values = xgrow(o->values, &r->values_cap, s->first_value + nvals, sizeof(*o->values));
	for (i = 0; i < nvals; i++)
		o->values[s->first_value + i] = (int64_t)r->tmp[nlocs + i];
	o->nr_samples++;
	return 0;
}

/* Every top-level field of number num, through fn, in the file's order. */
static int pr_each(struct pr *r, const unsigned char *p, size_t n, unsigned num,
		   int (*fn)(struct pr *, const unsigned char *, size_t))
{
	struct pb b = { p, n, 0 };
	struct pb_field f;
	int k;

	while ((k = pb_next(&b, &f)) > 0) {
		if (f.num != num)
			continue;
		if (f.wire != 2)
			return pr_bad(r, "a message field is not length-delimited");
		if (fn(r, f.p, f.n))
			return -EINVAL;
	}
	return 0;
}

static int pr_string(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;
	char *s = xmalloc(n + 1);

	memcpy(s, p, n);
	s[n] = '\0';
	o->strs = xgrow(o->strs, &r->strs_cap, o->nr_strs + 1, sizeof(*o->strs));
	o->strs[o->nr_strs++] = s;
	return 0;
}

static int pr_sample_type(struct pr *r, const unsigned char *p, size_t n)
{
	struct pprof_profile *o = r->out;

	if (o->nr_types == PPROF_READ_MAX_VALUES)
		return errmsg_set(r->em, -E2BIG, "pprof profile with over %d sample types",
				  PPROF_READ_MAX_VALUES);
	return pr_value_type(r, p, n, o->types[o->nr_types++]);
}

static int pr_period_type(struct pr *r, const unsigned char *p, size_t n)
{
	return pr_value_type(r, p, n, r->out->period_type);
}

int pprof_decode(const unsigned char *p, size_t n, struct pprof_profile *out,
		 struct errmsg *em)
{
	struct pr r = { .out = out, .em = em };
	struct pb b = { p, n, 0 };
	struct pb_field f;
	int k, err = 0;

	memset(out, 0, sizeof(*out));
	/* The whole message is walked once first, so that a damaged field
	   is told as such before any table is looked at. */
	size_t at = 0;

	while ((k = pb_next(&b, &f)) > 0) {
		at = b.pos;
		if (f.wire != 0)
			continue;
		if (f.num == PR_DEFAULT_SAMPLE_TYPE)
			out->default_sample_type = f.v;
		else if (f.num == PR_TIME_NANOS)
			out->time_nanos = (int64_t)f.v;
		else if (f.num == PR_DURATION_NANOS)
			out->duration_nanos = (int64_t)f.v;
		else if (f.num == PR_PERIOD)
			out->period = (int64_t)f.v;
	}
	if (k) {
		err = errmsg_set(em, -EINVAL, "not a valid pprof profile: damaged or truncated "
					      "at byte %zu of %zu", at, n);
		goto out;
	}
	/* Strings first: every other table names them; then the tables in
	   the order they name each other. */
	if ((err = pr_each(&r, p, n, PR_STRING_TABLE, pr_string)))
		goto out;
	if (!out->nr_strs || out->strs[0][0]) {
		err = pr_bad(&r, "the string table does not start with \"\"");
		goto out;
	}
	if (out->default_sample_type >= out->nr_strs) {
		err = pr_bad(&r, "default_sample_type is out of the string table");
		goto out;
	}
	if ((err = pr_each(&r, p, n, PR_SAMPLE_TYPE, pr_sample_type)) ||
	    (err = pr_each(&r, p, n, PR_PERIOD_TYPE, pr_period_type)) ||
	    (err = pr_each(&r, p, n, PR_FUNCTION, pr_function)) ||
	    (err = pr_each(&r, p, n, PR_MAPPING, pr_mapping)))
		goto out;
	if (pr_ids_sort(&r.fn_ids) || pr_ids_sort(&r.map_ids)) {
		err = pr_bad(&r, "a Function or Mapping id is 0 or used twice");
		goto out;
	}
	if ((err = pr_each(&r, p, n, PR_LOCATION, pr_location)))
		goto out;
	if (pr_ids_sort(&r.loc_ids)) {
		err = pr_bad(&r, "a Location id is 0 or used twice");
		goto out;
	}
	err = pr_each(&r, p, n, PR_SAMPLE, pr_sample);
out:
	free(r.fn_ids.v);
	free(r.map_ids.v);
	free(r.loc_ids.v);
	free(r.tmp);
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
