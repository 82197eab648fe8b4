/* perfmap.c's insides that its unit test drives: included by perfmap.c and
 * tests/unit/check_perfmap.c only. */
#ifndef PROFTOP_PERFMAP_TEST_H
#define PROFTOP_PERFMAP_TEST_H

#include <stdint.h>
#include <sys/types.h>

struct symtab;

/* perfmap_load with the root directory (an O_PATH descriptor), the pid as
 * the process sees itself and its uids given. */
int perfmap_load_at(int rootfd, uint32_t nspid, uid_t ruid, uid_t euid, uint64_t known_size,
		    struct symtab **out, uint64_t *size);

#endif
