/* Kernel build-ID checks: a --vmlinux file, or a recording's kernel,
 * against the running kernel's build ID (/sys/kernel/notes). */
#include "config.h"

#include "kernel-check.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "elfsyms.h"
#include "errmsg.h"
#include "kallsyms.h"
#include "perfdata.h"

int kernel_check_vmlinux(const char *path, struct errmsg *em)
{
	uint8_t want[20], have[ELF_BUILD_ID_MAX];
	int nw = kallsyms_kernel_build_id(want), nh = elf_read_build_id(path, have);

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

bool kernel_check_recording(const struct perfdata_info *info, char **cached)
{
	uint8_t id[20];
	int n = kallsyms_kernel_build_id(id);
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
			*cached = kallsyms_find_cached(b->id, idsize);
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
