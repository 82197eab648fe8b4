/* Fuzz target: the DWARF unwinder (src/unwind.c) over random registers and
 * stacks, walking this very binary's CFI (mapped where it is loaded): every
 * walk must end within max frames, with an outcome, whatever the stack
 * holds.  x86-64 only (the registers' layout is perf's x86-64 one). */
#include "config.h"

#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "machine.h"
#include "record.h"
#include "unwind.h"

#define PID 4242
#define MAX_FRAMES 64

static struct machine *m;
static struct unwinder *u;
static uint64_t text_lo, text_hi;

/* The main program's executable segment: where the walks start. */
static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mmap_event *ev = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		ev->start = (info->dlpi_addr + ph->p_vaddr) & ~4095ULL;
		ev->pgoff = ph->p_offset & ~4095ULL;
		ev->len = info->dlpi_addr + ph->p_vaddr + ph->p_memsz - ev->start;
		text_lo = info->dlpi_addr + ph->p_vaddr;
		text_hi = text_lo + ph->p_memsz;
		return 1;
	}
	return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char exe[PATH_MAX];
	struct mmap_event ev;
	ssize_t n;

	(void)argc, (void)argv;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		abort();
	exe[n] = '\0';
	memset(&ev, 0, sizeof(ev));
	ev.pid = ev.tid = PID;
	ev.prot = PROT_READ | PROT_EXEC;
	ev.filename = exe;
	dl_iterate_phdr(find_text, &ev);
	m = machine_new();
	machine_mmap(m, &ev);
	u = unwind_new(m, EM_X86_64);
	return 0;
}

/* Input: the ip's offset into the text, sp, fp (8 bytes each), then the
 * stack copy (at most 8192 bytes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr attr;
	struct sample s;
	uint64_t regs[20], w[3], out[MAX_FRAMES];
	unsigned char *stack;
	enum unwind_outcome o;
	size_t n, len;

	if (!u || size < sizeof(w) || text_hi <= text_lo)
		return 0;
	memcpy(w, data, sizeof(w));
	data += sizeof(w);
	size -= sizeof(w);
	len = size > 8192 ? 8192 : size;
	/* Exactly len bytes: ASan sees a read past the copy. */
	stack = malloc(len ? len : 1);
	if (!stack)
		abort();
	memcpy(stack, data, len);
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	attr.sample_regs_user = 0xff0fff;
	memset(regs, 0, sizeof(regs));
	regs[8] = text_lo + w[0] % (text_hi - text_lo); /* ip */
	regs[7] = w[1];                                  /* sp */
	regs[6] = w[2];                                  /* bp */
	memset(&s, 0, sizeof(s));
	s.sid.pid = s.sid.tid = PID;
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.regs = regs;
	s.nr_regs = 20;
	s.stack = len ? stack : NULL;
	s.stack_size = len;
	n = unwind_sample(u, &s, &attr, out, MAX_FRAMES, &o);
	if (n > MAX_FRAMES || (unsigned)o >= UNWIND_NOUTCOMES)
		abort();
	free(stack);
	return 0;
}
