/* JIT symbol maps in perf's /tmp/perf-PID.map format ("START SIZE name",
 * hex without 0x): a parser into a symtab and a careful loader. */
#ifndef PROFTOP_PERFMAP_H
#define PROFTOP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct symtab;

/* Files larger than this are refused: a map is a few MB at most. */
#define PERFMAP_MAX_SIZE (64u << 20)

/* Parse buf[0..len) into a new, finished symtab in absolute addresses.
 * Malformed lines are skipped; where entries overlap the later line wins
 * (JITs append when they recompile).  Never returns NULL. */
struct symtab *perfmap_parse(const char *buf, size_t len);

/* Load /tmp/perf-PID.map if it is a regular file (not a symlink) owned by
 * the process's uid (from /proc/PID/status) or by root, and larger than
 * known_size (the size of the previous load, 0 at first).  Returns 0 with
 * *out and *size set, -EAGAIN when the file has not grown, or -errno
 * (-EPERM: wrong owner, -ELOOP: a symlink, -EFBIG: too large). */
int perfmap_load(uint32_t pid, uint64_t known_size, struct symtab **out,
		 uint64_t *size);

#endif
