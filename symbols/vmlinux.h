/* The kernel image behind kallsyms: build IDs and vmlinux files. */
#ifndef PROFTOP_VMLINUX_H
#define PROFTOP_VMLINUX_H

#include <stddef.h>
#include <stdint.h>

struct errmsg;
struct kernel_syms;

/* The running kernel's build ID from /sys/kernel/notes.  Returns its size
 * (0 when there is none) or -errno. */
int vmlinux_running_build_id(uint8_t id[20]);

/* Exact sizes from a vmlinux: replace ks->kernel by the ELF file's
 * function symbols (moved by the KASLR shift, found by matching names
 * with kallsyms), keeping kallsyms symbols that lie outside all of them.
 * The file must carry build ID id (the running kernel's): any other, or
 * none, is refused.  Returns 0, or -errno with a message for the user in
 * em (-EINVAL: not this kernel's). */
int vmlinux_use(struct kernel_syms *ks, const char *path, const uint8_t *id, size_t id_size,
		struct errmsg *em);

/* A vmlinux with build ID id under root ("" or NULL: /), where
 * distributions put them: /usr/lib/debug/.build-id/xx/rest.debug,
 * /usr/lib/debug/boot/vmlinux-RELEASE, /boot/vmlinux-RELEASE,
 * /lib/modules/RELEASE/build/vmlinux.  Returns the path (free it) or NULL. */
char *vmlinux_find(const char *root, const char *release, const uint8_t *id, size_t id_size);

#endif
