/* The running kernel's kallsyms, parsed once per boot and module set and
 * kept in a binary file that loads with one read: what /proc/kallsyms
 * costs the kernel to format (tens of ms of system time) is paid once. */
#ifndef PROFTOP_KALLSYMS_CACHE_H
#define PROFTOP_KALLSYMS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel_syms;

/* What the cached symbols are valid for.  Within one boot the kernel
 * image's symbols never change (KASLR is fixed per boot); modules' stay
 * while /proc/modules lists the same names, sizes, states and addresses.
 * Dynamic symbols ([bpf], trampolines) are never cached. */
struct kallsyms_cache_key {
	char boot_id[40];          /* /proc/sys/kernel/random/boot_id, NUL-padded */
	uint8_t build_id[20];      /* /sys/kernel/notes */
	uint32_t build_id_size;
	char *modules;             /* "name size state address\n" per module */
	size_t modules_len;
};

/* The key from these texts (modules_text: /proc/modules' or NULL). */
void kallsyms_cache_key_make(struct kallsyms_cache_key *k, const char *boot_id,
			     const uint8_t *build_id, size_t build_id_size,
			     const char *modules_text);
/* The running kernel's key.  Returns 0, or -errno when the boot ID is
 * unreadable (nothing to key on). */
int kallsyms_cache_key_read(struct kallsyms_cache_key *k);
bool kallsyms_cache_key_equal(const struct kallsyms_cache_key *a,
			      const struct kallsyms_cache_key *b);
void kallsyms_cache_key_release(struct kallsyms_cache_key *k);

/* $XDG_CACHE_HOME/proftop, else $HOME/.cache/proftop (malloc'd), or NULL. */
char *kallsyms_cache_dir(void);

/* Write ks's kernel image and listed modules (not [bpf] and the like) to
 * DIR/kallsyms, atomically, mode 0600, DIR made 0700 if missing.  A
 * restricted (all-zero) read is refused.  Returns 0 or -errno. */
int kallsyms_cache_save(const char *dir, const struct kallsyms_cache_key *k,
			const struct kernel_syms *ks);

/* Load DIR/kallsyms into out (kallsyms_release it) when it is ours (DIR
 * and the file owned by the effective uid, writable by no one else, the
 * file regular), whole, and made under key k.  Returns 0; -ENOENT: none;
 * -EPERM: not trusted; -ESTALE: another boot, kernel or module set;
 * -EBADMSG: truncated or corrupt. */
int kallsyms_cache_load(const char *dir, const struct kallsyms_cache_key *k,
			struct kernel_syms *out);

/* Whether the kallsyms at path (NULL: /proc's) hides addresses from us
 * now (kptr_restrict): its first lines hold no non-zero one.  Reads a
 * few KB, not the whole file. */
bool kallsyms_cache_hidden(const char *path);

#endif
