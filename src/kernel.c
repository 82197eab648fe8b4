/* The kernel's part of the machine: [kernel.kallsyms] and a DSO per
 * module, their symbols from kallsyms (or perf's copy of it) with sizes
 * from a vmlinux whose build ID is the running kernel's, read at once,
 * lazily at the first kernel address, or on a thread of its own; and the
 * build-ID checks that say whether a kernel's symbols apply. */
#include "config.h"

#include "kernel.h"
#include "kernel-test.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "elfsyms.h"
#include "errmsg.h"
#include "kallsyms-cache.h"
#include "kallsyms.h"
#include "machine-impl.h"
#include "perfdata.h"
#include "symtab.h"
#include "util.h"
#include "vmlinux.h"

static struct dso *kernel_dso(struct machine *m)
{
	if (!m->kernel_dso)
		m->kernel_dso = machine_dso_get(m, "[kernel.kallsyms]", DSO_KERNEL);
	return m->kernel_dso;
}

/* /proc/kallsyms through the cache: its copy when one of this boot,
 * kernel and module set is there (and kallsyms shows us addresses now),
 * else /proc's, saved for the next time when /proc/modules did not change
 * while it was read.  Sets kl->from_cache. */
static int kernel_read_cached(struct kernel_load *kl, struct kernel_syms *ks)
{
	struct kallsyms_cache_key key, after;
	int err;

	if (kallsyms_cache_key_read(&key) != 0)
		return kallsyms_load_files(NULL, NULL, ks);
	if (!kallsyms_cache_hidden(NULL) && kallsyms_cache_load(kl->cache_dir, &key, ks) == 0) {
		kl->from_cache = true;
		kallsyms_cache_key_release(&key);
		return 0;
	}
	err = kallsyms_load_files(NULL, NULL, ks);
	if (!err && !ks->restricted && kallsyms_cache_key_read(&after) == 0) {
		/* A failure only costs the next start the read again. */
		if (kallsyms_cache_key_equal(&key, &after))
			(void)kallsyms_cache_save(kl->cache_dir, &key, ks);
		kallsyms_cache_key_release(&after);
	}
	kallsyms_cache_key_release(&key);
	return err;
}

/* Read the kernel's symbols (any thread): kallsyms, then the sizes of
 * --vmlinux or of a vmlinux found by the kernel's build ID.  Writes only
 * ks and m->kload's note and from_cache.  A reload reads kallsyms alone:
 * its kernel image's table is the one already there (kernel_merge). */
static int kernel_read(struct machine *m, struct kernel_syms *ks)
{
	struct kernel_load *kl = &m->kload;
	uint8_t id[ELFSYMS_BUILD_ID_MAX];
	struct errmsg why = ERRMSG_INIT;
	char *path = NULL;
	struct utsname uts;
	int err, n;

	kl->from_cache = false;
	if (kl->reload)
		return kallsyms_load_files(kl->kallsyms, kl->modules, ks);
	if (kl->cache_dir && !kl->kallsyms)
		err = kernel_read_cached(kl, ks);
	else
		err = kallsyms_load_files(kl->kallsyms, kl->modules, ks);

	/* perf's copy was written by whoever recorded: zeros under
	 * kptr_restrict, or unreadable since. */
	if (kl->kallsyms_cached && (err || ks->restricted)) {
		kallsyms_release(ks);
		err = kallsyms_load_files(NULL, kl->modules, ks);
	}
	if (err || ks->restricted || !kl->use_vmlinux)
		return err;
	n = vmlinux_running_build_id(id);
	if (kl->vmlinux)
		path = xstrdup(kl->vmlinux);
	else if (n > 0 && uname(&uts) == 0)
		path = vmlinux_find(NULL, uts.release, id, (size_t)n);
	if (!path)
		return 0;
	if ((err = vmlinux_use(ks, path, id, n > 0 ? (size_t)n : 0, &why)) == 0)
		kl->note = xasprintf("kernel symbol sizes from %s", path);
	else
		kl->note = xasprintf("%s: using /proc/kallsyms alone", errmsg_text(&why, err));
	free(path);
	return 0;
}

/* A DSO per module of m->ks (one per name: [bpf] clusters share one). */
static void kernel_module_dsos(struct machine *m)
{
	size_t i;

	free(m->module_dsos);
	m->module_dsos = xcalloc(m->ks.nmodules ? m->ks.nmodules : 1, sizeof(*m->module_dsos));
	for (i = 0; i < m->ks.nmodules; i++) {
		char *name = xasprintf("[%s]", m->ks.modules[i].name);

		m->module_dsos[i] = machine_dso_get(m, name, DSO_MODULE);
		free(name);
	}
}

/* Engine thread: make ks (read by kernel_read, err its result) the
 * machine's kernel symbols, with a DSO per module. */
static int kernel_take(struct machine *m, struct kernel_syms *ks, int err, bool *restricted)
{
	/* Called only when the samples are the running kernel's. */
	m->vdso_allowed = true;
	if (m->ks_loaded) {
		kallsyms_release(&m->ks);
		m->ks_loaded = false;
	}
	kernel_dso(m)->state = err ? DSO_SYMS_FAILED : DSO_SYMS_LOADED;
	m->kernel_err = err;
	if (restricted)
		*restricted = false;
	if (err) {
		memset(&m->ks, 0, sizeof(m->ks));
		return err;
	}
	m->ks = *ks;
	m->ks_loaded = true;
	kernel_module_dsos(m);
	if (restricted)
		*restricted = m->ks.restricted;
	return 0;
}

/* Engine thread: a reload's symbols (ks) in place of the machine's.  The
 * kernel image's table and each module's still listed at the same place
 * are kept as they are (same boot: the same symbols, and results point
 * into them); the others are retired, not freed. */
static void kernel_merge(struct machine *m, struct kernel_syms *ks, int err)
{
	struct kernel_load *kl = &m->kload;
	struct kernel_syms *old = &m->ks;
	size_t i, j;

	kl->reloads++;
	if (err || ks->restricted || !m->ks_loaded) {
		if (!err)
			kallsyms_release(ks);
		return;
	}
	symtab_free(ks->kernel);
	ks->kernel = old->kernel;
	ks->image = old->image;
	old->kernel = NULL;
	for (i = 0; i < ks->nmodules; i++) {
		struct kernel_module *nm = &ks->modules[i];

		for (j = 0; j < old->nmodules && nm->listed; j++) {
			struct kernel_module *om = &old->modules[j];

			if (om->symtab && om->listed && om->start == nm->start &&
			    om->end == nm->end && strcmp(om->name, nm->name) == 0) {
				symtab_free(nm->symtab);
				nm->symtab = om->symtab;
				om->symtab = NULL;
				break;
			}
		}
	}
	for (j = 0; j < old->nmodules; j++) {
		if (!old->modules[j].symtab)
			continue;
		kl->retired = xgrow(kl->retired, &kl->retired_cap, kl->nretired + 1,
				    sizeof(*kl->retired));
		kl->retired[kl->nretired++] = old->modules[j].symtab;
		old->modules[j].symtab = NULL;
	}
	kallsyms_release(old);
	m->ks = *ks;
	kernel_module_dsos(m);
}

/* ---- kallsyms only when needed (replay) ---- */

int machine_load_kernel_lazy(struct machine *m)
{
	kernel_dso(m);
	m->ks_lazy = true;
	/* Called only for samples of the running kernel: its vdso names
	 * theirs from the first sample on, not from the first kernel
	 * address (that came late in some recordings, and every [vdso]
	 * sample before it was [unknown]). */
	m->vdso_allowed = true;
	return 0;
}

void machine_set_kernel_files(struct machine *m, const char *kallsyms, const char *modules)
{
	free(m->kload.kallsyms);
	free(m->kload.modules);
	m->kload.kallsyms = kallsyms ? xstrdup(kallsyms) : NULL;
	m->kload.modules = modules ? xstrdup(modules) : NULL;
	m->kload.kallsyms_cached = false;
}

void machine_set_kernel_cache(struct machine *m, const char *kallsyms)
{
	machine_set_kernel_files(m, kallsyms, NULL);
	m->kload.kallsyms_cached = true;
}

void machine_set_vmlinux(struct machine *m, bool use, const char *path)
{
	free(m->kload.vmlinux);
	m->kload.use_vmlinux = use;
	m->kload.vmlinux = path ? xstrdup(path) : NULL;
}

const char *machine_kernel_note(const struct machine *m)
{
	return m->kload.started ? NULL : m->kload.note;
}

static void kernel_loaded(struct machine *m);

int machine_load_kernel(struct machine *m, bool *restricted)
{
	struct kernel_syms ks;
	int err;

	kernel_dso(m);
	err = kernel_read(m, &ks);
	err = kernel_take(m, &ks, err, restricted);
	kernel_loaded(m);
	return err;
}

static void *kernel_load_main(void *arg)
{
	struct machine *m = arg;
	struct kernel_load *kl = &m->kload;
	const char *delay = getenv("PROFTOP_TEST_KERNEL_DELAY_MS");

	/* For the tests: a kallsyms read as slow as a loaded machine's. */
	if (delay && atoi(delay) > 0)
		usleep((useconds_t)atoi(delay) * 1000u);
	kl->err = kernel_read(m, &kl->ks);
	/* Published before busy drops: a waiter woken by it sees the state.
	 * A failed reload leaves the tables there were. */
	__atomic_store_n(&m->kernel_dso->state,
			 kl->err && !kl->reload ? DSO_SYMS_FAILED : DSO_SYMS_LOADED,
			 __ATOMIC_RELEASE);
	symloader_unbusy(&m->loader);
	return NULL;
}

/* Start the kernel's thread; returns 0 or the pthread error. */
static int kernel_start_thread(struct machine *m)
{
	struct dso *kd = kernel_dso(m);
	int err;

	kd->state = DSO_SYMS_QUEUED;
	symloader_busy(&m->loader);
	err = pthread_create(&m->kload.thread, NULL, kernel_load_main, m);
	if (err) {
		symloader_unbusy(&m->loader);
		kd->state = DSO_SYMS_NONE;
		return err;
	}
	m->kload.started = true;
	return 0;
}

int machine_load_kernel_async(struct machine *m)
{
	if (!m->async || m->kload.started)
		return m->kload.started ? 0 : machine_load_kernel(m, NULL);
	if (kernel_start_thread(m))
		return machine_load_kernel(m, NULL);
	return 0;
}

/* Live, after a load: when the next reload may start.  The cache holds
 * no dynamic symbols, so after it the first one may start at once. */
static void kernel_loaded(struct machine *m)
{
	struct kernel_load *kl = &m->kload;

	if (!kl->live)
		return;
	if (kl->from_cache && kl->reloads == 0) {
		kl->first_from_cache = true;
		kl->next_reload = 0;
		return;
	}
	kl->next_reload = now_monotonic() + kl->reload_wait;
	if (kl->reload_wait < 300)
		kl->reload_wait *= 2;
}

/* Engine thread, the kernel thread joined: take what it read. */
static void kernel_finish(struct machine *m)
{
	struct kernel_load *kl = &m->kload;

	pthread_join(kl->thread, NULL);
	kl->started = false;
	if (kl->reload) {
		kl->reload = false;
		kernel_merge(m, &kl->ks, kl->err);
	} else {
		kernel_take(m, &kl->ks, kl->err, NULL);
	}
	kernel_loaded(m);
}

/* Engine thread: once the kernel thread is done, join it and take its
 * symbols.  Returns false while it is still reading. */
static bool kernel_install(struct machine *m)
{
	if (!m->kload.started)
		return true;
	if (__atomic_load_n(&m->kernel_dso->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED)
		return false;
	kernel_finish(m);
	return true;
}

void machine_wait_kernel(struct machine *m)
{
	if (m->kload.started)
		kernel_finish(m);
}

/* Read kallsyms again on the kernel's thread, if the wait since the last
 * read is over.  Returns whether a read started. */
static bool kernel_reload(struct machine *m)
{
	struct kernel_load *kl = &m->kload;

	if (!m->async || kl->started || now_monotonic() < kl->next_reload)
		return false;
	kl->reload = true;
	if (kernel_start_thread(m) == 0)
		return true;
	kl->reload = false;
	kernel_loaded(m);
	return false;
}

void machine_set_kernel_live(struct machine *m, bool cache)
{
	free(m->kload.cache_dir);
	m->kload.cache_dir = cache ? kallsyms_cache_dir() : NULL;
	m->kload.live = true;
	m->kload.reload_wait = KERNEL_RELOAD_WAIT;
}

void machine_test_kernel_reload_now(struct machine *m)
{
	m->kload.next_reload = 0;
}

const char *machine_kernel_source(const struct machine *m, unsigned *reloads)
{
	*reloads = m->kload.reloads;
	if (!m->kload.live || !m->ks_loaded)
		return NULL;
	return m->kload.first_from_cache ? "cache" : "/proc/kallsyms";
}

int machine_kernel_status(struct machine *m, bool *restricted)
{
	*restricted = false;
	if (m->ks_lazy)
		return 1;
	if (!kernel_install(m))
		return -EINPROGRESS;
	if (!m->kernel_dso)
		return -ENOENT;
	*restricted = m->ks_loaded && m->ks.restricted;
	return m->kernel_err;
}

bool machine_kernel_loading(const struct machine *m)
{
	return m->kload.started && m->kernel_dso &&
	       __atomic_load_n(&m->kernel_dso->state, __ATOMIC_ACQUIRE) == DSO_SYMS_QUEUED;
}

void kernel_resolve(struct machine *m, uint64_t ip, struct resolved *out)
{
	const struct kernel_module *mod = NULL;

	out->kernel = true;
	out->addr = ip;
	out->dso = kernel_dso(m);
	if (m->ks_lazy) {
		/* The first kernel address of a replay: read kallsyms now
		 * (a recording without kernel samples never does). */
		m->ks_lazy = false;
		machine_load_kernel(m, NULL);
	}
	/* Still reading kallsyms: held like a user DSO still loading. */
	if (!kernel_install(m)) {
		out->pending = true;
		return;
	}
	if (!m->ks_loaded || m->ks.restricted)
		return;
	/* Past every table, where code comes and goes: a fresh read may
	 * know it (held meanwhile). */
	if (m->kload.live && kallsyms_maybe_dynamic(&m->ks, ip) && kernel_reload(m)) {
		out->pending = true;
		return;
	}
	out->sym = kallsyms_lookup(&m->ks, ip, &mod);
	if (mod)
		out->dso = m->module_dsos[mod - m->ks.modules];
}


void kernel_free(struct machine *m)
{
	/* Before the loader stops: the kernel thread uses the loader's lock. */
	if (m->kload.started) {
		pthread_join(m->kload.thread, NULL);
		if (!m->kload.err)
			kallsyms_release(&m->kload.ks);
	}
	free(m->kload.kallsyms);
	free(m->kload.modules);
	free(m->kload.vmlinux);
	free(m->kload.note);
	free(m->kload.cache_dir);
	for (size_t i = 0; i < m->kload.nretired; i++)
		symtab_free(m->kload.retired[i]);
	free(m->kload.retired);
	if (m->ks_loaded)
		kallsyms_release(&m->ks);
	free(m->module_dsos);
}

/* ---- whether a kernel's symbols apply ---- */

int kernel_check_vmlinux(const char *path, struct errmsg *em)
{
	uint8_t want[20], have[ELFSYMS_BUILD_ID_MAX];
	int nw = vmlinux_running_build_id(want), nh = elfsyms_read_build_id(path, have);

	if (nh < 0)
		return errmsg_set(em, nh, "--vmlinux %s: %s", path,
				  nh == -ENOEXEC ? "not an ELF file" : strerror(-nh));
	if (nw <= 0)
		return errmsg_set(em, -ENOENT,
				  "--vmlinux %s: the running kernel's build ID is unknown "
				  "(/sys/kernel/notes unreadable): cannot check that it matches",
				  path);
	if (nh != nw || memcmp(have, want, (size_t)nw) != 0)
		return errmsg_set(em, -EINVAL,
				  "--vmlinux %s is not the running kernel's: %s; use the vmlinux "
				  "of this kernel (uname -r) or leave --vmlinux out",
				  path, nh ? "its build ID differs" : "it has no build ID");
	return 0;
}

bool kernel_check_recording(const struct perfdata_info *info, const char *cache_dir,
			    char **cached)
{
	uint8_t id[20];
	int n = vmlinux_running_build_id(id);
	bool same = false, known = false;
	size_t i, idsize;
	struct utsname uts;

	*cached = NULL;
	for (i = 0; i < info->nbuild_ids; i++) {
		const struct perfdata_build_id *b = &info->build_ids[i];

		if (strcmp(b->filename, "[kernel.kallsyms]") != 0)
			continue;
		known = true;
		idsize = b->size < 20 ? b->size : 20;
		same = n > 0 && idsize >= 1 && memcmp(b->id, id, idsize) == 0;
		if (same && !*cached)
			*cached = kallsyms_find_cached(cache_dir, b->id, idsize);
	}
	/* The last [kernel.kallsyms] entry decides (perf writes one). */
	if (!same) {
		free(*cached);
		*cached = NULL;
	}
	if (!known && info->osrelease && uname(&uts) == 0)
		same = strcmp(uts.release, info->osrelease) == 0;
	return same;
}
