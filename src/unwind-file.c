/* ELF files for the unwinder, shared by the processes that map them: a
 * short-lived process (a compiler run) finds its libraries' CFI parsed and
 * their rules known, instead of opening and parsing them again; and the
 * rules themselves, made from a pc's CFI for the cached walk. */
#include "config.h"

#include "unwind-file.h"

#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"
#include "dso.h"
#include "machine.h"
#include "unwind-regs.h"
#include "util.h"

#define FILES_BUCKETS 1024
/* Rules a file keeps at most (a power of 2): emptied when 3/4 full. */
#define FILE_RULES_MAX 16384
/* CFI rows a file keeps at most (emptied when full), and how many wait,
 * unsorted, to be merged into the sorted ones. */
#define FILE_ROWS_MAX 16384
#define FILE_ROWS_PENDING 32

struct unwind_files {
	struct unwind_file *buckets[FILES_BUCKETS];
};

struct unwind_files *unwind_files_new(void)
{
	/* elf_begin fails until this is said once: the files may be the
	 * first ELF this program opens. */
	elf_version(EV_CURRENT);
	return xcalloc(1, sizeof(struct unwind_files));
}

static void unwind_file_debug_close(struct unwind_file *f)
{
	if (f->dbg_dw)
		dwarf_end(f->dbg_dw);
	if (f->dbg_elf)
		elf_end(f->dbg_elf);
	if (f->dbg_fd > 0)
		close(f->dbg_fd);
	f->dbg_dw = NULL;
	f->dbg_elf = NULL;
	f->dbg_cfi = NULL;
	f->dbg_fd = 0;
}

void unwind_files_free(struct unwind_files *fs)
{
	size_t i;

	if (!fs)
		return;
	for (i = 0; i < FILES_BUCKETS; i++) {
		while (fs->buckets[i]) {
			struct unwind_file *f = fs->buckets[i];

			fs->buckets[i] = f->next;
			unwind_file_debug_close(f);
			if (f->cfi)
				dwarf_cfi_end(f->cfi);
			if (f->elf)
				elf_end(f->elf);
			free(f->rules);
			free(f->rows);
			free(f);
		}
	}
	free(fs);
}

/* Open dso's file: the descriptor or -1, *path the name opened. */
static int unwind_dso_open(struct dso *dso, const char **path)
{
	/* The file the machine read symbols from (--symfs, a build ID) once
	 * known, else the mapped path. */
	int fd;

	*path = machine_dso_pending(dso) ? NULL : dso_sym_path(dso);
	if (*path && (fd = open(*path, O_RDONLY | O_CLOEXEC)) >= 0)
		return fd;
	/* A symbols' file under /proc/PID/root or map_files went with the
	 * process it was found through; the others may map it still. */
	*path = dso_path(dso);
	return open(*path, O_RDONLY | O_CLOEXEC);
}

static void unwind_file_open(struct unwind_file *f)
{
	const char *path;
	int fd = unwind_dso_open(f->dso, &path);

	f->opens++;
	/* Each new process mapping the file asks for it: one that failed
	 * (gone, in another mount namespace) is not opened at each. */
	f->next_try = f->asks < UINT32_MAX / 2 ? 2 * f->asks : UINT32_MAX;
	/* Its symbols' file, once found (the machine may find it where
	 * this path fails: under /proc/PID/root, --symfs), is tried at
	 * once: before the first sample is resolved, none is known. */
	f->failed_nosym = machine_dso_pending(f->dso) || !dso_sym_path(f->dso);
	if (fd < 0)
		return;
	f->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* Mapped whole: the descriptor is not needed any more. */
	if (f->elf && (elf_kind(f->elf) != ELF_K_ELF || elf_cntl(f->elf, ELF_C_FDREAD))) {
		elf_end(f->elf);
		f->elf = NULL;
	}
	if (f->elf)
		elf_cntl(f->elf, ELF_C_FDDONE);
	close(fd);
	if (f->elf)
		f->cfi = dwarf_getcfi_elf(f->elf);
}

struct unwind_file *unwind_files_get(struct unwind_files *fs, struct dso *dso)
{
	size_t h = ((uintptr_t)dso >> 4) % FILES_BUCKETS;
	struct unwind_file *f;

	for (f = fs->buckets[h]; f; f = f->next) {
		if (f->dso != dso)
			continue;
		/* Asked for by another process's map: one that failed may be
		 * readable now (a path that was gone), or be found where its
		 * symbols were once they are in. */
		if (!f->elf && (++f->asks >= f->next_try ||
				(f->failed_nosym && !machine_dso_pending(dso) &&
				 dso_sym_path(dso))))
			unwind_file_open(f);
		return f;
	}
	f = xcalloc(1, sizeof(*f));
	f->dso = dso;
	f->asks = 1;
	unwind_file_open(f);
	f->next = fs->buckets[h];
	fs->buckets[h] = f;
	return f;
}

static uint64_t unwind_found_late;

uint64_t unwind_file_debug_found_late(void)
{
	return __atomic_load_n(&unwind_found_late, __ATOMIC_RELAXED);
}

/* Read f's .debug_frame: from the file itself, else from its debug file
 * (only its .debug_frame inflated, into an image libdw reads as is). */
static void unwind_file_debug_open(struct unwind_file *f)
{
	const char *path = NULL;
	Elf *elf;
	int fd;

	f->dbg_opens++;
	f->dbg_next_try = f->dbg_asks < UINT32_MAX / 2 ? 2 * f->dbg_asks : UINT32_MAX;
	if (!machine_dso_pending(f->dso))
		path = dso_debug_path(f->dso);
	f->dbg_path = path;
	fd = f->elf ? debugfile_frame_image(f->elf) : -ENOENT;
	if (fd == -ENOENT && path && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		int dfd = fd;

		/* Private: inflating .debug_frame writes to the copy. */
		elf = elf_begin(dfd, ELF_C_READ_MMAP_PRIVATE, NULL);
		fd = elf && elf_kind(elf) == ELF_K_ELF ? debugfile_frame_image(elf) : -ENOEXEC;
		if (elf)
			elf_end(elf);
		close(dfd);
	}
	/* None there: nothing to try again until another debug file is
	 * found (a failure to read is tried again now and then). */
	if (fd == -ENOENT)
		f->dbg_next_try = UINT32_MAX;
	if (fd < 0)
		return;
	f->dbg_fd = fd;
	f->dbg_elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (f->dbg_elf)
		f->dbg_dw = dwarf_begin_elf(f->dbg_elf, DWARF_C_READ, NULL);
	if (f->dbg_dw)
		f->dbg_cfi = dwarf_getcfi(f->dbg_dw);
	if (!f->dbg_cfi)
		unwind_file_debug_close(f);
	else if (f->dbg_refused)
		__atomic_add_fetch(&unwind_found_late, 1, __ATOMIC_RELAXED);
}

Dwarf_CFI *unwind_file_debug_cfi(struct unwind_file *f)
{
	const char *path;

	if (f->dbg_cfi || !f->dso)
		return f->dbg_cfi;
	f->dbg_asks++;
	/* Asked for at each pc without an FDE and by each process's libdw:
	 * a file without one is not read again at each. */
	path = machine_dso_pending(f->dso) ? NULL : dso_debug_path(f->dso);
	if (!f->dbg_opens || f->dbg_asks >= f->dbg_next_try || path != f->dbg_path)
		unwind_file_debug_open(f);
	return f->dbg_cfi;
}

int unwind_file_debug_fd(struct unwind_file *f)
{
	if (unwind_file_debug_cfi(f))
		return fcntl(f->dbg_fd, F_DUPFD_CLOEXEC, 0);
	f->dbg_refused = true;
	return -1;
}

bool unwind_elf_bias(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t phnum, i;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return false;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    pgoff < ph.p_offset || pgoff - ph.p_offset >= ph.p_filesz)
			continue;
		*bias = start - (ph.p_vaddr + (pgoff - ph.p_offset));
		return true;
	}
	return false;
}

bool unwind_elf_range(Elf *elf, uint64_t *low, uint64_t *high)
{
	size_t phnum, i;
	bool any = false;

	if (!elf || elf_getphdrnum(elf, &phnum))
		return false;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* The first segment's start as libdw takes it (aligned down):
		 * the module's bias is its low address less that. */
		if (!any)
			*low = ph.p_align > 1 ? ph.p_vaddr & -ph.p_align : ph.p_vaddr;
		*high = ph.p_vaddr + ph.p_memsz;
		any = true;
	}
	return any && *high > *low;
}

bool unwind_file_read(const struct unwind_file *f, uint64_t vaddr, uint64_t *val)
{
	const char *raw;
	size_t size, phnum, i;

	if (!f->elf || elf_getphdrnum(f->elf, &phnum) || !(raw = elf_rawfile(f->elf, &size)))
		return false;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & PF_W))
			continue;
		if (vaddr < ph.p_vaddr || ph.p_filesz < 8 || vaddr - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		off = ph.p_offset + (vaddr - ph.p_vaddr);
		if (off > size || size - off < 8)
			return false;
		memcpy(val, raw + off, 8);
		return true;
	}
	return false;
}

static size_t unwind_rule_hash(uint64_t vaddr, size_t cap)
{
	return (size_t)((vaddr * 0x9e3779b97f4a7c15ULL) >> 40) & (cap - 1);
}

struct unwind_rule *unwind_file_rule(struct unwind_file *f, uint64_t vaddr)
{
	struct unwind_rule *r;
	size_t i;

	if (f->nrules >= f->cap / 4 * 3) {
		struct unwind_rule *old = f->rules;
		size_t oldcap = f->cap, j;

		/* Grow; at the cap, start again (the hot rules come back). */
		f->cap = !oldcap ? 64 : oldcap < FILE_RULES_MAX ? oldcap * 2 : oldcap;
		f->rules = xcalloc(f->cap, sizeof(*f->rules));
		f->nrules = 0;
		for (j = 0; oldcap < FILE_RULES_MAX && j < oldcap; j++) {
			if (old[j].kind == RULE_EMPTY)
				continue;
			for (i = unwind_rule_hash(old[j].vaddr, f->cap); f->rules[i].kind != RULE_EMPTY;
			     i = (i + 1) & (f->cap - 1))
				;
			f->rules[i] = old[j];
			f->nrules++;
		}
		free(old);
	}
	for (i = unwind_rule_hash(vaddr, f->cap);; i = (i + 1) & (f->cap - 1)) {
		r = &f->rules[i];
		if (r->kind == RULE_EMPTY)
			break;
		if (r->vaddr == vaddr)
			return r;
	}
	memset(r, 0, sizeof(*r));
	r->vaddr = vaddr;
	f->nrules++;
	return r;
}

/* A register's rule as "saved at CFA + *off" (value false) or "is CFA +
 * *off" (value true); false for any other expression. */
static bool unwind_file_cfa_rel(const Dwarf_Op *ops, size_t nops, bool *value, int32_t *off)
{
	int64_t o = 0;

	*value = nops && ops[nops - 1].atom == DW_OP_stack_value;
	nops -= *value;
	if (nops < 1 || nops > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 2) {
		if (ops[1].atom != DW_OP_plus_uconst)
			return false;
		o = (int64_t)ops[1].number;
	}
	if (o < INT32_MIN || o > INT32_MAX)
		return false;
	*off = (int32_t)o;
	return true;
}

/* The CFA of the x86-64 .plt entry holding vaddr, as "sp + *off": the
 * expression ld writes for it (DW_OP_breg7 8; breg16 0; lit15; and;
 * lit11; ge; lit3; shl; plus: 8 more past the entry's push), worked out
 * for this pc (rip's low bits are vaddr's: the load bias is page-aligned).
 * A sample in a call's PLT stub is common; libdw's walk costs 50 times
 * more. */
static bool unwind_file_plt_cfa(const struct unwind_regs_arch *a, const Dwarf_Op *ops,
				size_t nops, uint64_t vaddr, int32_t *off)
{
	if (nops != 9 || a->dwarf_sp > 31 || a->dwarf_ra > 31 ||
	    ops[0].atom != DW_OP_breg0 + a->dwarf_sp || (int64_t)ops[0].number < 0 ||
	    (int64_t)ops[0].number > 64 || ops[1].atom != DW_OP_breg0 + a->dwarf_ra ||
	    ops[1].number != 0 || ops[2].atom != DW_OP_lit15 || ops[3].atom != DW_OP_and ||
	    ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit15 || ops[5].atom != DW_OP_ge ||
	    ops[6].atom != DW_OP_lit3 || ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return false;
	*off = (int32_t)ops[0].number + ((vaddr & 15) >= (uint64_t)(ops[4].atom - DW_OP_lit0) ? 8 : 0);
	return true;
}

/* The rule at vaddr from its CFI row f (module bias applied); false when
 * it holds for vaddr alone (a .plt entry's), not the whole row. */
static bool unwind_file_rule_row(const struct unwind_regs_arch *a, Dwarf_Frame *f,
				 uint64_t vaddr, struct unwind_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	Dwarf_Addr start, end;
	bool signalp, value, row = true;
	int32_t off;

	r->kind = RULE_LIBDW;
	if (dwarf_frame_info(f, &start, &end, &signalp) < 0 || signalp)
		return true;
	if (dwarf_frame_cfa(f, &ops, &nops))
		return true;
	if (unwind_file_plt_cfa(a, ops, nops, vaddr, &off)) {
		r->cfa_fp = false;
		r->cfa_off = off;
		row = false;
	} else {
		if (nops != 1 || ops[0].atom != DW_OP_bregx ||
		    (ops[0].number != a->dwarf_sp && ops[0].number != a->dwarf_fp) ||
		    (int64_t)ops[0].number2 < INT32_MIN || (int64_t)ops[0].number2 > INT32_MAX)
			return true;
		r->cfa_fp = ops[0].number == a->dwarf_fp;
		r->cfa_off = (int32_t)ops[0].number2;
	}
	/* The caller's sp is the CFA. */
	if (dwarf_frame_register(f, (int)a->dwarf_sp, mem, &ops, &nops) ||
	    !unwind_file_cfa_rel(ops, nops, &value, &off) || !value || off)
		return row;
	if (dwarf_frame_register(f, (int)a->dwarf_ra, mem, &ops, &nops))
		return row;
	if (!nops && ops) {
		r->kind = RULE_ROOT;
		return row;
	}
	if (!unwind_file_cfa_rel(ops, nops, &value, &r->ra_off) || value)
		return row;
	if (dwarf_frame_register(f, (int)a->dwarf_fp, mem, &ops, &nops))
		return row;
	if (!nops) {
		r->fp = ops ? FP_UNDEFINED : FP_SAME;
	} else {
		if (!unwind_file_cfa_rel(ops, nops, &value, &r->fp_off) || value)
			return row;
		r->fp = FP_SAVED;
	}
	r->kind = RULE_SIMPLE;
	return row;
}

void unwind_file_rule_make(const struct unwind_regs_arch *a, Dwarf_Frame *f, uint64_t vaddr,
			   struct unwind_rule *r)
{
	unwind_file_rule_row(a, f, vaddr, r);
}

/* How many of f's sorted rows start below x. */
static size_t unwind_rows_below(const struct unwind_file *f, uint64_t x)
{
	size_t lo = 0, hi = f->nrows_sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->rows[mid].start < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The row of f holding vaddr, or NULL. */
static const struct unwind_row *unwind_file_row(const struct unwind_file *f, uint64_t vaddr)
{
	size_t lo = vaddr == UINT64_MAX ? f->nrows_sorted : unwind_rows_below(f, vaddr + 1), i;

	if (lo && vaddr < f->rows[lo - 1].end)
		return &f->rows[lo - 1];
	for (i = f->nrows_sorted; i < f->nrows; i++)
		if (f->rows[i].start <= vaddr && vaddr < f->rows[i].end)
			return &f->rows[i];
	return NULL;
}

static int unwind_row_cmp(const void *a, const void *b)
{
	const struct unwind_row *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Keep the row [start, end) of rule r.  A row known with the same end is
 * the same row (no advance of the CFI between): it is widened.  Any other
 * overlap is CFI whose FDEs overlap: the row met first stays. */
static void unwind_file_row_add(struct unwind_file *f, uint64_t start, uint64_t end,
				const struct unwind_rule *r)
{
	struct unwind_row pend[FILE_ROWS_PENDING], *same = NULL;
	size_t i, j, k, np, over = 0;

	if (end <= start)
		return;
	/* The sorted rows that overlap end at the last one starting below
	 * end. */
	for (i = unwind_rows_below(f, end); i > 0 && f->rows[i - 1].end > start && over < 2; i--, over++)
		same = &f->rows[i - 1];
	for (i = f->nrows_sorted; i < f->nrows && over < 2; i++)
		if (f->rows[i].start < end && start < f->rows[i].end)
			same = &f->rows[i], over++;
	if (over) {
		if (over == 1 && same->end == end && start < same->start)
			same->start = start;
		return;
	}
	if (f->nrows >= FILE_ROWS_MAX)
		f->nrows = f->nrows_sorted = 0;
	if (f->nrows == f->rowcap)
		f->rows = xgrow(f->rows, &f->rowcap, f->nrows + 1, sizeof(*f->rows));
	f->rows[f->nrows].start = start;
	f->rows[f->nrows].end = end;
	f->rows[f->nrows].rule = *r;
	f->nrows++;
	np = f->nrows - f->nrows_sorted;
	if (np < FILE_ROWS_PENDING)
		return;
	/* Merge the pending rows in, from the top down. */
	memcpy(pend, f->rows + f->nrows_sorted, np * sizeof(*pend));
	qsort(pend, np, sizeof(*pend), unwind_row_cmp);
	i = f->nrows_sorted;
	j = np;
	for (k = f->nrows; j > 0; k--) {
		if (i > 0 && f->rows[i - 1].start > pend[j - 1].start)
			f->rows[k - 1] = f->rows[--i];
		else
			f->rows[k - 1] = pend[--j];
	}
	f->nrows_sorted = f->nrows;
}

/* The end of the CFI row holding vaddr, or 0. */
static uint64_t unwind_file_row_end(struct unwind_file *f, uint64_t vaddr)
{
	Dwarf_Addr start, end = 0;
	Dwarf_Frame *frame;
	bool signalp;

	f->cfi_lookups++;
	if (dwarf_cfi_addrframe(f->cfi, vaddr, &frame))
		return 0;
	if (dwarf_frame_info(frame, &start, &end, &signalp) < 0)
		end = 0;
	free(frame);
	return end;
}

void unwind_file_rule_fill(struct unwind_file *f, const struct unwind_regs_arch *a,
			   struct unwind_rule *r)
{
	const struct unwind_row *row = unwind_file_row(f, r->vaddr);
	uint64_t vaddr = r->vaddr;
	Dwarf_Addr start, end;
	Dwarf_Frame *frame;
	bool signalp;

	if (row) {
		*r = row->rule;
		r->vaddr = vaddr;
		return;
	}
	r->kind = RULE_LIBDW;
	f->cfi_lookups++;
	if (dwarf_cfi_addrframe(f->cfi, vaddr, &frame)) {
		r->kind = RULE_NO_FDE;
		return;
	}
	/* The row: where libdw's CFI program stopped either side of vaddr.
	 * Its end is exact; its start may be too low after a
	 * DW_CFA_restore_state (libdw takes back the start it had at the
	 * remember).  A pc whose row ends at the same place is in the same
	 * row (no advance between), and a row's end only grows with the pc:
	 * the start is the lowest such pc, searched for. */
	if (unwind_file_rule_row(a, frame, vaddr, r) &&
	    dwarf_frame_info(frame, &start, &end, &signalp) >= 0 && start <= vaddr && vaddr < end) {
		if (start < vaddr && unwind_file_row_end(f, start) != end) {
			uint64_t lo = start, hi = vaddr;

			while (hi - lo > 1) {
				uint64_t mid = lo + (hi - lo) / 2;

				*(unwind_file_row_end(f, mid) == end ? &hi : &lo) = mid;
			}
			start = hi;
		}
		unwind_file_row_add(f, start, end, r);
	}
	free(frame);
}
