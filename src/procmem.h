/* Bytes of a live process's memory (JIT code for annotate): with
 * process_vm_readv, else through /proc/PID/mem. */
#ifndef PROFTOP_PROCMEM_H
#define PROFTOP_PROCMEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct errmsg;

/* [addr, addr + size) of pid, at most max bytes of it, into *out
 * (allocated: free it) and *len: fewer when the mapping ends first (a
 * page that is not there ends the read).  Returns 0, or -errno with the
 * reason in em (-ESRCH: the process is gone; -EPERM: not ours to read;
 * -EFAULT: nothing mapped at addr). */
int procmem_read(pid_t pid, uint64_t addr, uint64_t size, size_t max, uint8_t **out, size_t *len,
		 struct errmsg *em);

#endif
