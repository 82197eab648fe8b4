/* Function bounds from the FDEs of .eh_frame or .debug_frame, parsed here
 * rather than through libdw: one linear walk, each CIE decoded once, and
 * every read checked against the section (the file is anyone's). */
#include "config.h"

#include "cfi.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "debugfile.h"
#include "symtab.h"
#include "util.h"

/* DW_EH_PE_*: the low four bits give the format, the next three how the
 * value applies; 0x80 (indirect) and 0xff (omit) are refused for a
 * function's start. */
enum {
	CFI_PE_ABSPTR = 0x00,
	CFI_PE_ULEB128 = 0x01,
	CFI_PE_UDATA2 = 0x02,
	CFI_PE_UDATA4 = 0x03,
	CFI_PE_UDATA8 = 0x04,
	CFI_PE_SLEB128 = 0x09,
	CFI_PE_SDATA2 = 0x0a,
	CFI_PE_SDATA4 = 0x0b,
	CFI_PE_SDATA8 = 0x0c,
	CFI_PE_PCREL = 0x10,
};

/* A CIE's augmentation string longer than this is not one a compiler
 * writes: refused, so that no walk rescans long strings. */
#define CFI_AUG_MAX 8

struct cfi_reader {
	const uint8_t *p, *end;
	bool msb, ok;
};

static uint64_t cfi_read_n(struct cfi_reader *r, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	if (!r->ok || (size_t)(r->end - r->p) < n) {
		r->ok = false;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * (r->msb ? n - 1 - i : i));
	r->p += n;
	return v;
}

static uint64_t cfi_read_leb(struct cfi_reader *r, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	/* Ten bytes hold 64 bits: longer ones are refused, so that no
	 * entry costs more than its fixed fields to decode. */
	do {
		if (!r->ok || r->p >= r->end || shift >= 70) {
			r->ok = false;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

/* A value in format fmt (enc & 0x0f); false when the format is unknown. */
static bool cfi_read_fmt(struct cfi_reader *r, unsigned fmt, unsigned addr_size, uint64_t *v)
{
	switch (fmt) {
	case CFI_PE_ABSPTR:
		*v = cfi_read_n(r, addr_size);
		break;
	case CFI_PE_ULEB128:
		*v = cfi_read_leb(r, false);
		break;
	case CFI_PE_SLEB128:
		*v = cfi_read_leb(r, true);
		break;
	case CFI_PE_UDATA2:
		*v = cfi_read_n(r, 2);
		break;
	case CFI_PE_UDATA4:
		*v = cfi_read_n(r, 4);
		break;
	case CFI_PE_UDATA8:
	case CFI_PE_SDATA8:
		*v = cfi_read_n(r, 8);
		break;
	case CFI_PE_SDATA2:
		*v = (uint64_t)(int64_t)(int16_t)cfi_read_n(r, 2);
		break;
	case CFI_PE_SDATA4:
		*v = (uint64_t)(int64_t)(int32_t)cfi_read_n(r, 4);
		break;
	default:
		return false;
	}
	return r->ok;
}

/* What an FDE needs from its CIE. */
struct cfi_cie {
	size_t off;               /* where it starts; SIZE_MAX: none parsed yet */
	bool ok;
	uint8_t enc;              /* the FDEs' pointer encoding */
	unsigned addr_size, seg_size;
};

/* Entry header at off: its bounds and CIE id (or pointer).  Returns false
 * when the section ends (terminator or truncation). */
struct cfi_entry {
	size_t id_off;            /* where the id field starts */
	size_t body;              /* just past it */
	size_t end;
	uint64_t id;
	bool is_cie;
};

static bool cfi_entry_at(const struct cfi_section *sec, size_t off, struct cfi_entry *e)
{
	struct cfi_reader r = { sec->buf + off, sec->buf + sec->size, sec->msb, true };
	uint64_t len;
	unsigned idsize = 4;

	if (off > sec->size)
		return false;
	len = cfi_read_n(&r, 4);
	if (!r.ok || len == 0)
		return false;
	if (len == 0xffffffffu) {
		len = cfi_read_n(&r, 8);
		idsize = 8;
	}
	e->id_off = (size_t)(r.p - sec->buf);
	if (!r.ok || len > (uint64_t)(r.end - r.p) || len < idsize)
		return false;
	e->end = e->id_off + (size_t)len;
	e->id = cfi_read_n(&r, idsize);
	e->body = e->id_off + idsize;
	if (sec->eh)
		e->is_cie = e->id == 0;
	else
		e->is_cie = e->id == (idsize == 8 ? UINT64_MAX : 0xffffffffu);
	return true;
}

/* Decode the CIE at off into c (c->ok false when it cannot serve). */
static void cfi_cie_parse(const struct cfi_section *sec, size_t off, struct cfi_cie *c)
{
	struct cfi_entry e;
	struct cfi_reader r;
	char aug[CFI_AUG_MAX + 1];
	unsigned version, i, n = 0;
	bool have_r = false, unknown = false;

	c->off = off;
	c->ok = false;
	c->enc = CFI_PE_ABSPTR;
	c->addr_size = sec->addr_size;
	c->seg_size = 0;
	if (!cfi_entry_at(sec, off, &e) || !e.is_cie)
		return;
	r = (struct cfi_reader){ sec->buf + e.body, sec->buf + e.end, sec->msb, true };
	version = (unsigned)cfi_read_n(&r, 1);
	if (version != 1 && version != 3 && version != 4)
		return;
	for (;;) {
		unsigned ch = (unsigned)cfi_read_n(&r, 1);

		if (!r.ok || n == CFI_AUG_MAX)
			return;
		if (!ch)
			break;
		aug[n++] = (char)ch;
	}
	aug[n] = '\0';
	if (version == 4) {
		c->addr_size = (unsigned)cfi_read_n(&r, 1);
		c->seg_size = (unsigned)cfi_read_n(&r, 1);
		if (c->addr_size != 4 && c->addr_size != 8)
			return;
		if (c->seg_size > 8)
			return;
	}
	cfi_read_leb(&r, false);                 /* code alignment */
	cfi_read_leb(&r, true);                  /* data alignment */
	if (version == 1)
		cfi_read_n(&r, 1);               /* return address register */
	else
		cfi_read_leb(&r, false);
	if (!r.ok)
		return;
	if (n == 0) {
		c->ok = true;
		return;
	}
	/* Without 'z' the data of the letters cannot be skipped safely. */
	if (aug[0] != 'z')
		return;
	{
		uint64_t alen = cfi_read_leb(&r, false);

		if (!r.ok || alen > (uint64_t)(r.end - r.p))
			return;
		r.end = r.p + alen;
	}
	for (i = 1; i < n && r.ok; i++) {
		uint64_t skip;
		unsigned penc;

		switch (aug[i]) {
		case 'R':
			c->enc = (uint8_t)cfi_read_n(&r, 1);
			have_r = true;
			break;
		case 'P':
			penc = (unsigned)cfi_read_n(&r, 1);
			if (!cfi_read_fmt(&r, penc & 0x0f, c->addr_size, &skip))
				return;
			break;
		case 'L':
			cfi_read_n(&r, 1);
			break;
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			/* The rest cannot be parsed, and 'R' may be past it:
			 * without 'R' so far the encoding is unknown. */
			unknown = true;
			i = n;
			break;
		}
	}
	c->ok = have_r || (r.ok && !unknown);
	if (!have_r)
		c->enc = CFI_PE_ABSPTR;
}

/* The FDE e: its range, through its CIE c.  False when it does not decode. */
static bool cfi_fde_range(const struct cfi_section *sec, const struct cfi_entry *e,
			  const struct cfi_cie *c, uint64_t *start, uint64_t *end)
{
	struct cfi_reader r = { sec->buf + e->body, sec->buf + e->end, sec->msb, true };
	unsigned fmt = c->enc & 0x0f, app = c->enc & 0xf0;
	uint64_t mask = c->addr_size == 4 ? 0xffffffffu : UINT64_MAX;
	uint64_t field, v, len;

	if (app != 0 && app != CFI_PE_PCREL)
		return false;
	if (c->seg_size)
		cfi_read_n(&r, c->seg_size);
	/* pcrel: from the address of the pointer itself. */
	field = sec->addr + (uint64_t)(r.p - sec->buf);
	if (!cfi_read_fmt(&r, fmt, c->addr_size, &v) || !cfi_read_fmt(&r, fmt, c->addr_size, &len))
		return false;
	if (app == CFI_PE_PCREL)
		v += field;
	v &= mask;
	len &= mask;
	if (len == 0 || v + len < v || (v + len) > mask)
		return false;
	*start = v;
	*end = v + len;
	return true;
}

size_t cfi_walk(const struct cfi_section *sec,
		void (*fn)(uint64_t start, uint64_t end, void *arg), void *arg)
{
	struct cfi_cie cie = { .off = SIZE_MAX };
	struct cfi_entry e;
	size_t off = 0, n = 0;

	if (!sec->buf || (sec->addr_size != 4 && sec->addr_size != 8))
		return 0;
	while (off < sec->size && cfi_entry_at(sec, off, &e)) {
		off = e.end;
		if (e.is_cie)
			continue;
		{
			size_t cie_off;
			uint64_t start, end;

			if (sec->eh) {
				/* A pointer back from the id field to the CIE. */
				if (e.id > e.id_off)
					continue;
				cie_off = e.id_off - (size_t)e.id;
			} else {
				if (e.id >= sec->size)
					continue;
				cie_off = (size_t)e.id;
			}
			if (cie_off != cie.off)
				cfi_cie_parse(sec, cie_off, &cie);
			if (!cie.ok || !cfi_fde_range(sec, &e, &cie, &start, &end))
				continue;
			fn(start, end, arg);
			n++;
		}
	}
	return n;
}

/* An executable section's bounds. */
struct cfi_text {
	uint64_t lo, hi;
};

struct cfi_build {
	struct cfi_text *text;
	size_t ntext;
	const struct symtab *real;
	struct symtab *st;
	size_t added;
	/* A debug file's FDEs: those known before (may be NULL), and how
	 * many added are not among them */
	bool count_fresh;
	const struct symtab *known;
	size_t fresh;
};

static void cfi_symtab_add(struct symtab *st, uint64_t start, uint64_t end)
{
	/* By hand: printf was a tenth of the load time of a large library. */
	static const char hex[] = "0123456789abcdef";
	char name[4 + 16 + 1], digits[16];
	size_t n = 0, i;
	uint64_t v = start;

	do {
		digits[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	memcpy(name, "sub_", 4);
	for (i = 0; i < n; i++)
		name[4 + i] = digits[n - 1 - i];
	name[4 + n] = '\0';
	symtab_add(st, start, end - start, SYMTAB_LOCAL, name, end);
}

/* cfi_walk's callback: keep an FDE that starts in code no symbol covers,
 * cut at the end of its section (a hostile range covers nothing more). */
static void cfi_build_one(uint64_t start, uint64_t end, void *arg)
{
	struct cfi_build *b = arg;
	size_t i;

	for (i = 0; i < b->ntext; i++)
		if (start >= b->text[i].lo && start < b->text[i].hi)
			break;
	if (i == b->ntext || symtab_lookup(b->real, start))
		return;
	if (end > b->text[i].hi)
		end = b->text[i].hi;
	cfi_symtab_add(b->st, start, end);
	b->added++;
	if (b->count_fresh) {
		const struct symbol *k = b->known ? symtab_lookup(b->known, start) : NULL;

		b->fresh += !k || k->start != start;
	}
}

/* The symtab of b, or NULL when nothing was added. */
static struct symtab *cfi_build_finish(struct cfi_build *b)
{
	if (!b->added) {
		symtab_free(b->st);
		return NULL;
	}
	symtab_finish(b->st);
	return b->st;
}

/* Walk the CFI section scn (eh: .eh_frame) into b. */
static void cfi_walk_scn(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, bool eh,
			 struct cfi_build *b)
{
	struct cfi_section sec;
	GElf_Ehdr ehdr;
	Elf_Data *data;

	/* Raw bytes: .eh_frame's type is SHT_X86_64_UNWIND on x86_64. */
	if (!scn || !gelf_getehdr(elf, &ehdr) || !(data = elf_rawdata(scn, NULL)) || !data->d_buf)
		return;
	sec.buf = data->d_buf;
	sec.size = data->d_size;
	sec.addr = sh->sh_addr;
	sec.eh = eh;
	sec.msb = ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	sec.addr_size = ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	cfi_walk(&sec, cfi_build_one, b);
}

/* The executable sections of elf into b (a debug file's too: there they
 * are SHT_NOBITS, at the same addresses); its .eh_frame into *eh. */
static void cfi_find_sections(Elf *elf, struct cfi_build *b, Elf_Scn **eh, GElf_Shdr *ehsh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, cap = 0;

	*eh = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
		    sh.sh_addr + sh.sh_size > sh.sh_addr) {
			b->text = xgrow(b->text, &cap, b->ntext + 1, sizeof(*b->text));
			b->text[b->ntext].lo = sh.sh_addr;
			b->text[b->ntext++].hi = sh.sh_addr + sh.sh_size;
		}
		/* A compiler does not compress the .eh_frame an unwinder
		 * reads at run time. */
		if (sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".eh_frame") == 0 && !*eh) {
			*eh = scn;
			*ehsh = sh;
		}
	}
}

/* elf's .debug_frame (inflated: a debug file's usually is compressed)
 * into b. */
static void cfi_walk_debug_frame(Elf *elf, struct cfi_build *b)
{
	Elf_Scn *dbg = debugfile_frame_scn(elf);
	GElf_Shdr sh;

	if (dbg && gelf_getshdr(dbg, &sh))
		cfi_walk_scn(elf, dbg, &sh, false, b);
}

struct symtab *cfi_symtab_new(Elf *elf, const struct symtab *real)
{
	struct cfi_build b = { .real = real };
	Elf_Scn *eh;
	GElf_Shdr ehsh;

	cfi_find_sections(elf, &b, &eh, &ehsh);
	/* Both: code built without unwind tables (-fno-asynchronous-unwind-
	 * tables -g) has its FDEs only in .debug_frame, next to the crt
	 * files' .eh_frame.  A start in both is one function (symtab). */
	if (b.ntext) {
		b.st = symtab_new();
		if (eh)
			cfi_walk_scn(elf, eh, &ehsh, true, &b);
		cfi_walk_debug_frame(elf, &b);
	}
	free(b.text);
	return cfi_build_finish(&b);
}

/* The functions of cfi (may be NULL) whose start no symbol of b->real
 * covers, into b. */
static void cfi_keep_uncovered(struct cfi_build *b, const struct symtab *cfi)
{
	size_t i, n = cfi ? symtab_count(cfi) : 0;

	for (i = 0; i < n; i++) {
		const struct symbol *s = symtab_get(cfi, i);

		if (symtab_lookup(b->real, s->start))
			continue;
		symtab_add(b->st, s->start, s->end - s->start, SYMTAB_LOCAL, s->name, s->end);
		b->added++;
	}
}

struct symtab *cfi_symtab_debug(Elf *dbg, const struct symtab *cfi, const struct symtab *real,
				size_t *added)
{
	struct cfi_build b = { .real = real, .count_fresh = true, .known = cfi };
	Elf_Scn *eh;
	GElf_Shdr ehsh;

	cfi_find_sections(dbg, &b, &eh, &ehsh);
	b.st = symtab_new();
	if (b.ntext)
		cfi_walk_debug_frame(dbg, &b);
	free(b.text);
	*added = b.fresh;
	/* Nothing new (most debug files have no .debug_frame): no copy. */
	if (!b.fresh) {
		symtab_free(b.st);
		return NULL;
	}
	cfi_keep_uncovered(&b, cfi);
	return cfi_build_finish(&b);
}

struct symtab *cfi_symtab_refine(const struct symtab *cfi, const struct symtab *real)
{
	struct cfi_build b = { .real = real };

	b.st = symtab_new();
	cfi_keep_uncovered(&b, cfi);
	return cfi_build_finish(&b);
}
