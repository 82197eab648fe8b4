/* Kernel and module text symbols from /proc/kallsyms, module ranges from
 * /proc/modules, grouped into one symbol table per kernel image or module. */
#include "config.h"

#include "kallsyms.h"
#include "kallsyms-test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid-cache.h"
#include "symtab.h"
#include "util.h"

/* kallsyms has no sizes: the last symbol of a group (or one whose group end
 * is unknown) is given this much room. */
#define KALLSYMS_TAIL 4096

/* One module symbol, kept until the module ranges are known. */
struct ks_raw {
	uint64_t addr;
	size_t name_off;          /* into ks_parse.names */
	size_t group;             /* groups[group - 1] */
	uint8_t bind;
};

/* A module name seen in kallsyms or /proc/modules. */
struct ks_group {
	char *name;
	uint64_t start, end;      /* from /proc/modules, when listed */
	uint64_t top;             /* its highest text symbol in that range + 1 */
	bool listed;
	size_t entry;             /* its index in the output modules (listed only) */
};

struct ks_parse {
	struct symtab *kernel;    /* kernel symbols go straight in */
	uint64_t klo, khi;        /* lowest and highest kernel text symbol */
	struct ks_raw *raw;       /* module symbols */
	size_t nraw, raw_cap;
	struct strbuf names;
	struct ks_group *groups;
	size_t ngroups, groups_cap;
	size_t last_group;        /* lines of one module come together */
	size_t nlines;
	bool any_nonzero;
	/* Section markers of the kernel image; 0 when absent. */
	uint64_t stext, text, etext, sinittext, einittext;
	/* ks_hex16's last high half: its text and value */
	uint64_t hi_text, hi_val;
	bool hi_known;
	size_t hi_decoded;
};

static uint64_t ks_tail(uint64_t addr)
{
	return addr > UINT64_MAX - KALLSYMS_TAIL ? UINT64_MAX : addr + KALLSYMS_TAIL;
}

/* A hex digit's value plus one, 0 for anything else: a table lookup per
 * digit of 122K+ sixteen-digit addresses instead of three range tests. */
static const unsigned char ks_hexdig[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Parse leading hex digits; returns the end, or NULL if none or too many. */
static const char *ks_parse_hex(const char *p, uint64_t *val)
{
	const unsigned char *q = (const unsigned char *)p, *start;
	uint64_t v = 0;
	unsigned d;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	start = q;
	while ((d = ks_hexdig[*q]) != 0) {
		if (q - start == 16)
			return NULL;
		v = v << 4 | (uint64_t)(d - 1);
		q++;
	}
	if (q == start)
		return NULL;
	*val = v;
	return (const char *)q;
}

static size_t ks_group_find(struct ks_parse *ps, const char *name, size_t len, bool create)
{
	size_t i;

	if (ps->last_group && strncmp(ps->groups[ps->last_group - 1].name, name, len) == 0 &&
	    ps->groups[ps->last_group - 1].name[len] == '\0')
		return ps->last_group;
	for (i = 0; i < ps->ngroups; i++)
		if (strncmp(ps->groups[i].name, name, len) == 0 && ps->groups[i].name[len] == '\0')
			return ps->last_group = i + 1;
	if (!create)
		return 0;
	ps->groups = xgrow(ps->groups, &ps->groups_cap, ps->ngroups + 1, sizeof(*ps->groups));
	memset(&ps->groups[ps->ngroups], 0, sizeof(*ps->groups));
	ps->groups[ps->ngroups].name = xstrndup(name, len);
	ps->ngroups++;
	return ps->last_group = ps->ngroups;
}

/* One /proc/modules line: "name size refcount deps state address [taint]". */
static void ks_parse_module_line(struct ks_parse *ps, char *line)
{
	char *save = NULL, *tok[6];
	unsigned long long size;
	uint64_t addr;
	struct ks_group *g;
	char *end;
	size_t i, gi;

	for (i = 0; i < 6; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t\n", &save);
		if (!tok[i])
			return;
	}
	errno = 0;
	size = strtoull(tok[1], &end, 10);
	if (errno || *end || size == 0)
		return;
	end = (char *)ks_parse_hex(tok[5], &addr);
	if (!end || *end || addr == 0 || addr + size < addr)
		return;
	/* Two statements: the lookup may move ps->groups. */
	gi = ks_group_find(ps, tok[0], strlen(tok[0]), true);
	g = &ps->groups[gi - 1];
	g->start = addr;
	g->end = addr + size;
	g->listed = true;
}

static void ks_take(struct ks_parse *ps, uint64_t addr, char type, char *name, char *name_end);

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]".  Malformed lines are
 * skipped; text after the module is ignored.  The name is cut in place. */
static void ks_parse_line(struct ks_parse *ps, char *line)
{
	char *p, *name;
	uint64_t addr;
	char type;

	p = (char *)ks_parse_hex(line, &addr);
	if (!p || (*p != ' ' && *p != '\t'))
		return;
	while (*p == ' ' || *p == '\t')
		p++;
	type = *p;
	if (!type || (p[1] != ' ' && p[1] != '\t'))
		return;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	name = p;
	p += strcspn(p, " \t\r\n");
	if (p == name)
		return;
	ks_take(ps, addr, type, name, p);
}

/* Bytes of the word x (little-endian: x's first byte is the text's first)
 * with m < byte < n get their high bit set, the others none (exact for
 * any byte: the bit hack of Stanford's "Bit Twiddling Hacks"). */
#define KS_ONES 0x0101010101010101ULL
#define KS_BETWEEN(x, m, n)                                                           \
	((KS_ONES * (127 + (n)) - ((x) & KS_ONES * 127)) & ~(x) &                       \
	 (((x) & KS_ONES * 127) + KS_ONES * (127 - (m))) & KS_ONES * 128)

/* Exactly 16 hex digits at p (the 64-bit kallsyms address): eight at a
 * time, a few dozen instructions for what ks_parse_hex does in 200. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 hex digits of x (text order) as a number; false if one is not. */
static inline bool ks_hex8(uint64_t x, uint64_t *val)
{
	uint64_t lower = x | KS_ONES * 0x20, n;   /* digits have the bit already */

	if ((KS_BETWEEN(x, '0' - 1, '9' + 1) | KS_BETWEEN(lower, 'a' - 1, 'f' + 1)) !=
	    KS_ONES * 128)
		return false;
	/* a-f have bit 6 set and 1-6 below: 10-15 */
	n = (lower & KS_ONES * 0x0f) + 9 * ((lower >> 6) & KS_ONES);
	/* Pack the nibbles, the first byte's most significant. */
	n = ((n << 4) | (n >> 8)) & 0x00ff00ff00ff00ffULL;
	n = ((n << 8) | (n >> 16)) & 0x0000ffff0000ffffULL;
	*val = ((n << 16) | (n >> 32)) & 0x00000000ffffffffULL;
	return true;
}
#endif

static bool ks_hex16(struct ks_parse *ps, const char *p, uint64_t *val)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t hi, lo, x;

	/* The high half is the last line's nearly always (ffffffff): its
	 * text compared, not decoded again. */
	memcpy(&x, p, 8);
	if (ps->hi_known && x == ps->hi_text) {
		hi = ps->hi_val;
	} else {
		if (!ks_hex8(x, &hi))
			return false;
		ps->hi_text = x;
		ps->hi_val = hi;
		ps->hi_known = true;
		ps->hi_decoded++;
	}
	memcpy(&x, p + 8, 8);
	if (!ks_hex8(x, &lo))
		return false;
	*val = hi << 32 | lo;
	return true;
#else
	(void)ps;
	(void)p;
	(void)val;
	return false;
#endif
}

/* Tests only: every line the slow way (ks_parse_line), to compare; the
 * high halves the last parse decoded. */
static bool ks_slow_only;
static size_t ks_hi_decoded;

size_t kallsyms_test_high_halves(void)
{
	return ks_hi_decoded;
}

void kallsyms_test_slow(bool on)
{
	ks_slow_only = on;
}

/* The usual line, "%016lx T name\n" or "%016lx t name\t[mod]\n", at
 * p (text up to end): taken as ks_parse_line would, and the next line's
 * start returned; NULL for anything else (ks_parse_line's, after all). */
static char *ks_parse_fast(struct ks_parse *ps, char *p, char *end)
{
	char *name = p + 19, *q, *nl;
	uint64_t addr, x;
	char type;

	if (end - p < 21 || ks_slow_only || p[16] != ' ' || p[18] != ' ' || !ks_hex16(ps, p, &addr))
		return NULL;
	type = p[17];
	if (type == ' ' || type == '\t' || type == '\n' || type == '\0')
		return NULL;
	/* The name ends at a space, tab, CR, LF or NUL, all below '!': a
	 * word at a time to the first byte below it (the lowest flagged
	 * byte of this bit hack is exact), then byte by byte from there. */
	for (q = name; end - q >= 8; q += 8) {
		uint64_t below;

		memcpy(&x, q, 8);
		below = (x - KS_ONES * '!') & ~x & KS_ONES * 128;
		if (below) {
			q += __builtin_ctzll(below) / 8;
			break;
		}
	}
	while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n' && *q != '\0')
		q++;
	if (q == name || q == end)
		return NULL;
	nl = *q == '\n' ? q : memchr(q, '\n', (size_t)(end - q));
	if (!nl)
		return NULL;
	*nl = '\0';
	ks_take(ps, addr, type, name, q);
	return nl + 1;
}

/* A line's parts, the name at [name, name_end), what follows it up to the
 * line's NUL: a module, or nothing to use. */
static void ks_take(struct ks_parse *ps, uint64_t addr, char type, char *name, char *name_end)
{
	const char *mod = NULL;
	char *p = name_end;
	size_t name_len = (size_t)(name_end - name), mod_len = 0;
	enum symtab_bind bind;
	struct ks_raw *r;

	ps->nlines++;
	if (addr)
		ps->any_nonzero = true;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '[') {
		const char *close = strchr(p, ']');

		if (!close)
			return;
		mod = p + 1;
		mod_len = (size_t)(close - mod);
		if (mod_len == 0)
			return;
	}

	if (!mod) {
		/* Markers may be of any type (_etext is 'T' or 'R' or 'D'). */
#define KS_IS(s) (name_len == sizeof(s) - 1 && memcmp(name, s, name_len) == 0)
		if (KS_IS("_stext"))
			ps->stext = addr;
		else if (KS_IS("_text"))
			ps->text = addr;
		else if (KS_IS("_sinittext"))
			ps->sinittext = addr;
		/* End markers: no function starts there, but the one before
		 * ends there.  Added in file order, which keeps a sorted
		 * kallsyms sorted for symtab_finish. */
		else if (KS_IS("_etext") || KS_IS("_einittext")) {
			if (KS_IS("_etext"))
				ps->etext = addr;
			else
				ps->einittext = addr;
			symtab_add(ps->kernel, addr, 0, SYMTAB_LOCAL, "", addr);
			return;
		}
#undef KS_IS
	}
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return;
	/* ARM-style mapping symbols are not functions. */
	if (name[0] == '$')
		return;

	bind = type == 'T' ? SYMTAB_GLOBAL : type == 't' ? SYMTAB_LOCAL : SYMTAB_WEAK;
	*name_end = '\0';
	if (!mod) {
		/* Its end is bounded later by barriers (ks_kernel_barriers). */
		symtab_add(ps->kernel, addr, 0, bind, name, UINT64_MAX);
		if (addr < ps->klo)
			ps->klo = addr;
		if (addr > ps->khi)
			ps->khi = addr;
		return;
	}
	ps->raw = xgrow(ps->raw, &ps->raw_cap, ps->nraw + 1, sizeof(*ps->raw));
	r = &ps->raw[ps->nraw++];
	r->addr = addr;
	r->name_off = ps->names.len;
	r->group = ks_group_find(ps, mod, mod_len, true);
	r->bind = (uint8_t)bind;
	strbuf_add(&ps->names, name, name_len + 1);
}

static void ks_parse_release(struct ks_parse *ps)
{
	size_t i;

	for (i = 0; i < ps->ngroups; i++)
		free(ps->groups[i].name);
	free(ps->groups);
	free(ps->raw);
	strbuf_release(&ps->names);
	symtab_free(ps->kernel);
}

/* The kernel image range.  Its symbols were added without a bound: an
 * empty symbol (max_end == start) is invisible but still ends the one
 * before it.  Such barriers at _etext and _einittext (added while parsing)
 * and past the last symbol keep the last function of each part from
 * running across data. */
static void ks_kernel_barriers(struct ks_parse *ps, struct kernel_syms *out)
{
	uint64_t lo = ps->khi ? ps->klo : 0;
	struct kallsyms_image *im = &out->image;

	im->stext = ps->stext;
	im->text = ps->text;
	im->start = ps->stext ? ps->stext : ps->text ? ps->text : lo;
	im->end = ps->etext > im->start ? ps->etext : ps->khi ? ks_tail(ps->khi) : 0;
	if (ps->khi) {
		im->span_lo = im->start < lo ? im->start : lo;
		im->span_hi = ks_tail(ps->khi);
		if (im->span_hi < im->end)
			im->span_hi = im->end;
	}
	if (ps->khi)
		symtab_add(ps->kernel, ks_tail(ps->khi), 0, SYMTAB_LOCAL, "", ks_tail(ps->khi));
}

/* The end of the page holding addr. */
static uint64_t ks_page_end(uint64_t addr)
{
	return addr >= UINT64_MAX - (KALLSYMS_TAIL - 1) ? UINT64_MAX : (addr | (KALLSYMS_TAIL - 1)) + 1;
}

/* /proc/modules' size counts a module's data too, which is allocated
 * apart from its text since Linux 6.4: past the page of its last text
 * symbol may lie anything (a BPF program, loaded now or later), and
 * naming it after that symbol would be wrong.  So a listed module's range
 * ends there.  (A last function running on into the next page loses that
 * part to [unknown]: never a wrong name.) */
static void ks_module_text_ends(struct ks_parse *ps)
{
	size_t i;

	for (i = 0; i < ps->nraw; i++) {
		struct ks_group *g = &ps->groups[ps->raw[i].group - 1];
		uint64_t a = ps->raw[i].addr;

		if (g->listed && a >= g->start && a < g->end && a + 1 > g->top)
			g->top = a + 1;
	}
	for (i = 0; i < ps->ngroups; i++) {
		struct ks_group *g = &ps->groups[i];
		uint64_t lim = ks_page_end(g->top ? g->top - 1 : g->start);

		if (g->listed && lim < g->end)
			g->end = lim;
	}
}

static int ks_raw_cmp(const void *pa, const void *pb)
{
	const struct ks_raw *a = pa, *b = pb;
	int c = CMP(a->addr, b->addr);

	return c ? c : CMP(a->group, b->group);
}

static int ks_module_cmp(const void *pa, const void *pb)
{
	const struct kernel_module *a = pa, *b = pb;

	return CMP(a->start, b->start);
}

static struct kernel_module *ks_new_module(struct kernel_syms *out, size_t *cap,
					   const char *name, uint64_t start, uint64_t end)
{
	struct kernel_module *m;

	out->modules = xgrow(out->modules, cap, out->nmodules + 1, sizeof(*out->modules));
	m = &out->modules[out->nmodules++];
	m->name = xstrdup(name);
	m->start = start;
	m->end = end;
	m->listed = false;
	m->symtab = symtab_new();
	symtab_prefer_last(m->symtab);
	return m;
}

/* Modules: listed ones get their /proc/modules range; symbols of unlisted
 * groups ([bpf], or everything when /proc/modules is missing) form runs
 * ("clusters") that stop at any other module, so ranges never overlap. */
static void ks_build_modules(struct ks_parse *ps, struct kernel_syms *out)
{
	struct ks_raw *mraw;
	size_t *listed, nlisted = 0, nm = 0, cap = 0, i, j;
	size_t *entry;            /* per mraw: module index, or SIZE_MAX */
	size_t first_cluster;

	/* Listed modules, sorted; a range running into the next module is
	 * cut (newer kernels count data allocated elsewhere in the size). */
	ks_module_text_ends(ps);
	listed = xmalloc((ps->ngroups + 1) * sizeof(*listed));
	for (i = 0; i < ps->ngroups; i++)
		if (ps->groups[i].listed)
			listed[nlisted++] = i;
	for (i = 1; i < nlisted; i++) {
		size_t k = listed[i];

		for (j = i; j > 0 && ps->groups[listed[j - 1]].start > ps->groups[k].start; j--)
			listed[j] = listed[j - 1];
		listed[j] = k;
	}
	for (i = 0; i < nlisted; i++) {
		struct ks_group *g = &ps->groups[listed[i]];

		if (i + 1 < nlisted && g->end > ps->groups[listed[i + 1]].start)
			g->end = ps->groups[listed[i + 1]].start;
		g->entry = out->nmodules;
		ks_new_module(out, &cap, g->name, g->start, g->end)->listed = true;
	}
	first_cluster = out->nmodules;

	mraw = ps->raw;
	nm = ps->nraw;
	if (nm)    /* qsort(NULL, 0) is undefined: an empty kallsyms */
		qsort(mraw, nm, sizeof(*mraw), ks_raw_cmp);
	entry = xmalloc((nm + 1) * sizeof(*entry));

	/* Pass 1: which module each symbol goes to. */
	j = 0;                    /* first listed module starting above addr */
	for (i = 0; i < nm; i++) {
		const struct ks_raw *r = &mraw[i];
		const struct ks_group *g = &ps->groups[r->group - 1];
		uint64_t boundary;
		struct kernel_module *cur;

		entry[i] = SIZE_MAX;
		while (j < nlisted && ps->groups[listed[j]].start <= r->addr)
			j++;
		if (g->listed && r->addr >= g->start && r->addr < g->end) {
			entry[i] = g->entry;
			continue;
		}
		/* Inside another listed module: it cannot belong there. */
		if (j > 0 && r->addr < ps->groups[listed[j - 1]].end)
			continue;
		boundary = j < nlisted ? ps->groups[listed[j]].start : UINT64_MAX;
		cur = out->nmodules > first_cluster ? &out->modules[out->nmodules - 1] : NULL;
		if (cur && i > 0 && entry[i - 1] == out->nmodules - 1 &&
		    strcmp(cur->name, g->name) == 0 && cur->end == boundary) {
			entry[i] = out->nmodules - 1;
			continue;
		}
		/* Two groups claiming one address: the first one keeps it. */
		if (cur && cur->end == boundary && i > 0 && mraw[i - 1].addr == r->addr)
			continue;
		/* end holds the boundary until pass 2 computes the real end. */
		ks_new_module(out, &cap, g->name, r->addr, boundary);
		entry[i] = out->nmodules - 1;
	}

	/* A cluster ends at the next module start, and not far past its
	 * last symbol. */
	for (i = nm; i-- > 0;) {
		struct kernel_module *m;
		uint64_t end;

		if (entry[i] == SIZE_MAX || entry[i] < first_cluster)
			continue;
		m = &out->modules[entry[i]];
		if (i + 1 < nm && entry[i + 1] == entry[i])
			continue;         /* not its last symbol */
		end = ks_tail(mraw[i].addr);
		if (end > m->end)
			end = m->end;
		if (entry[i] + 1 < out->nmodules && end > out->modules[entry[i] + 1].start)
			end = out->modules[entry[i] + 1].start;
		m->end = end;
	}

	/* Pass 2: the symbols, each bounded by its module's end. */
	for (i = 0; i < nm; i++) {
		struct kernel_module *m;

		if (entry[i] == SIZE_MAX)
			continue;
		m = &out->modules[entry[i]];
		symtab_add(m->symtab, mraw[i].addr, 0, mraw[i].bind,
			   ps->names.buf + mraw[i].name_off, m->end);
	}
	for (i = 0; i < out->nmodules; i++)
		symtab_finish(out->modules[i].symtab);
	if (out->nmodules)
		qsort(out->modules, out->nmodules, sizeof(*out->modules), ks_module_cmp);

	free(entry);
	free(listed);
}

/* Read all of f into a NUL-terminated heap buffer. */
static int ks_slurp(FILE *f, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = xmalloc(cap);

	for (;;) {
		size_t n;

		if (cap - len < 4096)
			buf = xgrow(buf, &cap, len + (1 << 16), 1);
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
}

static void ks_parse_begin(struct ks_parse *ps, char *mtext, size_t size_hint)
{
	memset(ps, 0, sizeof(*ps));
	strbuf_init(&ps->names);
	ps->kernel = symtab_new();
	symtab_prefer_last(ps->kernel);
	/* ~45 bytes a line, ~25 of them name: room for all at once, so the
	 * table is never copied while it grows. */
	symtab_reserve(ps->kernel, size_hint / 40 + 16, size_hint / 2 + 4096);
	ps->klo = UINT64_MAX;
	/* Modules first: kallsyms symbols are then placed by range. */
	if (mtext) {
		char *line, *save = NULL;

		for (line = strtok_r(mtext, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			ks_parse_module_line(ps, line);
	}
	ps->last_group = 0;
}

/* Parse the complete lines of text[0..len) in place; returns how many
 * bytes were consumed (up to the last newline, or all when last). */
static size_t ks_parse_lines(struct ks_parse *ps, char *text, size_t len, bool last)
{
	char *p = text, *end = text + len;

	while (p < end) {
		char *nl, *next = ks_parse_fast(ps, p, end);

		if (next) {
			p = next;
			continue;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			if (!last)
				break;
			*end = '\0';
			ks_parse_line(ps, p);
			p = end;
			break;
		}
		*nl = '\0';
		ks_parse_line(ps, p);
		p = nl + 1;
	}
	return (size_t)(p - text);
}

static void ks_parse_end(struct ks_parse *ps, struct kernel_syms *out)
{
	if (ps->nlines > 0 && !ps->any_nonzero) {
		/* kptr_restrict: every symbol would sit at 0. */
		out->restricted = true;
		symtab_free(ps->kernel);
		ps->kernel = symtab_new();
		symtab_prefer_last(ps->kernel);
	} else {
		ks_kernel_barriers(ps, out);
		ks_build_modules(ps, out);
	}
	symtab_finish(ps->kernel);
	out->kernel = ps->kernel;
	ps->kernel = NULL;
	ks_hi_decoded = ps->hi_decoded;
	ks_parse_release(ps);
}

int kallsyms_parse(FILE *kallsyms, FILE *modules, struct kernel_syms *out)
{
	struct ks_parse ps;
	char *ktext = NULL, *mtext = NULL;
	size_t klen = 0, mlen = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = ks_slurp(kallsyms, &ktext, &klen);
	if (!err && modules)
		err = ks_slurp(modules, &mtext, &mlen);
	if (!err) {
		ks_parse_begin(&ps, mtext, klen);
		ks_parse_lines(&ps, ktext, klen, true);
		ks_parse_end(&ps, out);
	}
	free(ktext);
	free(mtext);
	return err;
}

/* Size of the window /proc/kallsyms is read through.  seq_file hands out
 * at most a page per read(2) whatever the buffer, so the number of calls
 * is fixed; what a small reused window saves is the page faults (and the
 * stdio copy) of holding the whole 5-10 MB file. */
#define KS_WINDOW (256 << 10)

int kallsyms_load(struct kernel_syms *out)
{
	return kallsyms_load_files(NULL, NULL, out);
}

int kallsyms_load_files(const char *kallsyms, const char *modules, struct kernel_syms *out)
{
	struct ks_parse ps;
	char *mtext = NULL, *win;
	size_t mlen = 0, have = 0;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	fd = open(kallsyms ? kallsyms : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Modules are absent without module support: not an error. */
	if (read_file(modules ? modules : "/proc/modules", SIZE_MAX, &mtext, &mlen))
		mtext = NULL;
	/* The file's size is unknown (st_size 0): reserve for a typical one. */
	ks_parse_begin(&ps, mtext, 6 << 20);
	win = xmalloc(KS_WINDOW + 1);
	for (;;) {
		ssize_t n = read(fd, win + have, KS_WINDOW - have);
		size_t used;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		have += (size_t)n;
		used = ks_parse_lines(&ps, win, have, n == 0);
		/* A line longer than the window is not kallsyms: cut it.  (Not
		 * merely a full window: a regular file fills it, and its last
		 * line goes on in the next read.) */
		if (used == 0 && have == KS_WINDOW)
			used = ks_parse_lines(&ps, win, have, true);
		memmove(win, win + used, have - used);
		have -= used;
		if (n == 0)
			break;
	}
	free(win);
	close(fd);
	free(mtext);
	if (err) {
		ks_parse_release(&ps);
		memset(out, 0, sizeof(*out));
		return err;
	}
	ks_parse_end(&ps, out);
	return 0;
}

void kallsyms_release(struct kernel_syms *ks)
{
	size_t i;

	if (!ks)
		return;
	symtab_free(ks->kernel);
	for (i = 0; i < ks->nmodules; i++) {
		free(ks->modules[i].name);
		symtab_free(ks->modules[i].symtab);
	}
	free(ks->modules);
	memset(ks, 0, sizeof(*ks));
}

/* The module whose range holds addr, or NULL. */
static const struct kernel_module *ks_module_at(const struct kernel_syms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks->nmodules;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->modules[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && addr < ks->modules[lo - 1].end ? &ks->modules[lo - 1] : NULL;
}

const struct symbol *kallsyms_lookup(const struct kernel_syms *ks, uint64_t addr,
				     const struct kernel_module **module)
{
	const struct kernel_module *mod;

	if (module)
		*module = NULL;
	if (!ks || !ks->kernel)
		return NULL;
	if ((mod = ks_module_at(ks, addr))) {
		if (module)
			*module = mod;
		return symtab_lookup(mod->symtab, addr);
	}
	/* Not only [start, end): .init.text lies beyond _etext, and the
	 * kernel's symbols carry their own bounds. */
	return symtab_lookup(ks->kernel, addr);
}

bool kallsyms_covers(const struct kernel_syms *ks, uint64_t addr)
{
	if (!ks || !ks->kernel)
		return false;
	return (addr >= ks->image.span_lo && addr < ks->image.span_hi) || ks_module_at(ks, addr);
}

bool kallsyms_maybe_dynamic(const struct kernel_syms *ks, uint64_t addr)
{
	uint64_t lo, hi;

	if (!ks || !ks->kernel || kallsyms_covers(ks, addr))
		return false;
	lo = ks->image.span_hi;
	hi = ks->image.span_hi;
	if (ks->nmodules && ks->modules[0].start < lo)
		lo = ks->modules[0].start;
	if (ks->nmodules && ks->modules[ks->nmodules - 1].end > hi)
		hi = ks->modules[ks->nmodules - 1].end;
	hi = hi > UINT64_MAX - KALLSYMS_DYNAMIC_REACH ? UINT64_MAX : hi + KALLSYMS_DYNAMIC_REACH;
	return addr >= lo && addr < hi;
}

char *kallsyms_find_cached(const char *cache_dir, const uint8_t *id, size_t id_size)
{
	char hex[2 * 20 + 1], *dir, *rel, *path = NULL;
	struct buildid_cache *c;
	struct stat st;
	size_t i;
	int fd;

	if (id_size == 0 || id_size > 20 || !(dir = buildid_cache_dir(cache_dir)))
		return NULL;
	for (i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	rel = xasprintf("[kernel.kallsyms]/%s/kallsyms", hex);
	/* A user's directory read by root: its links stay inside it. */
	if (buildid_cache_open(dir, false, &c) == 0) {
		fd = buildid_cache_open_file(c, rel);
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
			path = xasprintf("%s/%s", dir, rel);
		if (fd >= 0)
			close(fd);
		buildid_cache_close(c);
	}
	free(rel);
	free(dir);
	return path;
}
