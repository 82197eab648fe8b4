/* JIT symbol maps in perf's /tmp/perf-PID.map format ("START SIZE name",
 * hex without 0x): a parser into a symtab and a careful loader. */
#ifndef PROFTOP_PERFMAP_H
#define PROFTOP_PERFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symtab;

/* Files larger than this are refused: a map is a few MB at most. */
#define PERFMAP_MAX_SIZE (64u << 20)

/* Parse buf[0..len) into a new, finished symtab in absolute addresses.
 * Malformed lines are skipped; where entries overlap the later line wins
 * (JITs append when they recompile).  Never returns NULL. */
struct symtab *perfmap_parse(const char *buf, size_t len);

/* One address range of an index and the symbol that names it. */
struct perfmap_range {
	uint64_t start, end;          /* end exclusive */
	const struct symbol *sym;     /* owned by one of the indexed tables */
};

/* Lookups over the tables of successive loads (perfmap_load) in one
 * binary search: sorted, non-overlapping ranges pointing at the tables'
 * own symbols, so a function keeps its symbol across re-reads. */
struct perfmap_index {
	struct perfmap_range *ranges;
	size_t n;
};

/* Add the table of a newer load: its symbols win where they overlap the
 * older ones (cut around them).  Costs O(ranges + symbols). */
void perfmap_index_add(struct perfmap_index *ix, const struct symtab *newer);
/* The same into a new index *merged, ix left as it is (and only read):
 * a thread can build the next index while another looks up in ix. */
void perfmap_index_merge(const struct perfmap_index *ix, const struct symtab *newer,
			 struct perfmap_index *merged);
const struct symbol *perfmap_index_lookup(const struct perfmap_index *ix, uint64_t addr);
void perfmap_index_release(struct perfmap_index *ix);

/* Load the lines of PID's perf map appended since known_size (the *size
 * of the previous load, 0 at first) into a new table: the caller looks
 * tables up newest first (perfmap_index_add), so that later lines win
 * across loads too.  The
 * file is /tmp/perf-NSPID.map as the process sees it (under /proc/PID/root,
 * NSpid: the pid in its own namespace), opened with nsopen (symlinks stay
 * inside that root) only if it is a regular file (not a symlink) owned by
 * the process's uid (from /proc/PID/status) or by root.  Only whole lines
 * are taken (an unterminated last one once the file has not changed for
 * 2 s).  Returns 0 with *out and *size set, -EAGAIN when nothing new is
 * complete, or -errno (-EPERM: wrong owner, -ELOOP: a symlink, -EINVAL:
 * not a regular file, -EFBIG: too large). */
int perfmap_load(uint32_t pid, uint64_t known_size, struct symtab **out,
		 uint64_t *size);

/* The same, but only when at most max_new bytes (0: no limit) are new:
 * else -E2BIG, having read nothing (a caller that must not wait reads it
 * elsewhere, with perfmap_load). */
int perfmap_load_max(uint32_t pid, uint64_t known_size, uint64_t max_new, struct symtab **out,
		     uint64_t *size);

#endif
