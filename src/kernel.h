/* The kernel's part of the machine: kallsyms, modules and vmlinux symbol
 * sizes, read at once, at the first kernel address (replays) or on a
 * thread of their own. */
#ifndef PROFTOP_KERNEL_H
#define PROFTOP_KERNEL_H

#include <stdbool.h>

struct errmsg;
struct machine;
struct perfdata_info;

/* Load kernel and module symbols from /proc.  Returns 0 or -errno; sets
 * *restricted when kptr_restrict hides the addresses. */
int machine_load_kernel(struct machine *m, bool *restricted);
/* The same, but only once a kernel address needs it (at the first one,
 * synchronously): a replay of a recording without kernel samples never
 * reads kallsyms. */
int machine_load_kernel_lazy(struct machine *m);
/* The same on a thread of its own when the machine is async (else at
 * once): until it is done, kernel addresses resolve as pending under
 * [kernel.kallsyms] (out->addr the address itself) and
 * machine_resolve_deferred names them after.  Counted in
 * machine_symbols_loading and waited for by machine_wait_symbols*. */
int machine_load_kernel_async(struct machine *m);
/* -EINPROGRESS while the kernel's symbols load, 1 when a lazy load was
 * never needed, else the load's result (-ENOENT when none was asked
 * for); *restricted as machine_load_kernel. */
int machine_kernel_status(struct machine *m, bool *restricted);
/* Block until the kernel's symbols are read, and take them. */
void machine_wait_kernel(struct machine *m);
/* Whether the kernel thread is still reading. */
bool machine_kernel_loading(const struct machine *m);
/* With use: exact kernel symbol sizes from the vmlinux at path, or, path
 * NULL, from one found by the running kernel's build ID (see
 * vmlinux_find); a file with another build ID is not used.
 * Call before loading the kernel. */
void machine_set_vmlinux(struct machine *m, bool use, const char *path);
/* After the kernel's symbols are loaded: which vmlinux gave the sizes,
 * or why the one given was not used; NULL when none was looked at. */
const char *machine_kernel_note(const struct machine *m);
/* Read the running kernel's symbols from perf's copy of its kallsyms
 * (kallsyms_find_cached) instead of /proc/kallsyms, and from /proc's
 * when that copy cannot be read or holds no addresses. */
void machine_set_kernel_cache(struct machine *m, const char *kallsyms);

/* A live session's kernel symbols: with cache, from the kallsyms cache
 * (kallsyms_cache_dir; see kallsyms-cache.h), written there after a read
 * of /proc/kallsyms; and read again, on the kernel's thread, when a kernel
 * address lies outside every table where code is added after boot
 * (kallsyms_maybe_dynamic: a BPF program or trampoline, never cached, or
 * one loaded since): at once after a load from the cache, else
 * at most once in KERNEL_RELOAD_WAIT s, doubling.  Call before loading. */
void machine_set_kernel_live(struct machine *m, bool cache);
#define KERNEL_RELOAD_WAIT 10.0
/* Where the kernel's symbols came from ("cache", "/proc/kallsyms"; NULL
 * before they are read, or when not live) and how many reloads since. */
const char *machine_kernel_source(const struct machine *m, unsigned *reloads);

/* --vmlinux FILE must be the running kernel's (same build ID).  Returns 0,
 * or -errno with the reason in em (for the user, naming the file). */
int kernel_check_vmlinux(const char *path, struct errmsg *em);

/* Whether the recording was made on the running kernel (same build ID,
 * else, when it names none, the same release).  When it was, *cached is
 * perf record's copy of that kernel's kallsyms if there is one (malloc'd),
 * else NULL; NULL too when it was not.  cache_dir: --buildid-dir or NULL
 * (see buildid_cache_dir). */
bool kernel_check_recording(const struct perfdata_info *info, const char *cache_dir,
			    char **cached);

#endif
