/* perf's build-id cache (~/.debug): the copies of binaries, debug files
 * and kallsyms perf record keeps by build ID, read-only and confined. */
#ifndef PROFTOP_BUILDID_CACHE_H
#define PROFTOP_BUILDID_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cache directory, perf's rule: dir when given (--buildid-dir), else
 * $PERF_BUILDID_DIR, else $HOME/.debug.  Returns it malloc'd, or NULL
 * when none of them is set. */
char *buildid_cache_dir(const char *dir);

struct buildid_cache;

/* Open the cache at dir for lookups.  strict: a .build-id link must be
 * relative and stay below dir (perf writes no other; anything else is a
 * hostile entry, refused and counted); not strict (--symfs): absolute
 * links and ".." resolve inside dir, as in a sysroot.  Either way every
 * link resolves beneath dir (nsopen_at).  Returns 0 or -errno. */
int buildid_cache_open(const char *dir, bool strict, struct buildid_cache **out);
void buildid_cache_close(struct buildid_cache *c);
const char *buildid_cache_path(const struct buildid_cache *c);

enum buildid_cache_file {
	BUILDID_CACHE_ELF,    /* the binary: <entry>/elf, or the entry itself
				 where it is a file (perf before 4.x) */
	BUILDID_CACHE_DEBUG,  /* its separate debug file: <entry>/debug */
};

/* The file of the entry DIR/.build-id/xx/rest for build ID id, where xx
 * and rest are the hex of id's first byte and the rest.  Only a regular
 * file whose ELF build ID is id.  Returns a readable descriptor (at offset
 * 0) and *path, the file's real path (malloc'd), or -ENOENT when there is
 * no entry, or another -errno when the entry is refused (-EXDEV: a link
 * out of dir; -ELOOP; -EINVAL: not a regular file; -EBADMSG: another build
 * ID) or unreadable.  Refusals are counted.  Thread-safe. */
int buildid_cache_find(struct buildid_cache *c, const uint8_t *id, size_t size,
		       enum buildid_cache_file which, char **path);

/* How many lookups were refused (hostile or broken entries). */
size_t buildid_cache_refused(const struct buildid_cache *c);

/* A readable regular file at rel (relative to the cache, e.g.
 * "[kernel.kallsyms]/HEX/kallsyms"), opened beneath the cache root.
 * Returns a descriptor, or -errno. */
int buildid_cache_open_file(const struct buildid_cache *c, const char *rel);

#endif
