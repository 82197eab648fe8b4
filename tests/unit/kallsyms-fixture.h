/* What the kallsyms unit tests share: kallsyms and /proc/modules text of
 * their own, parsed as the files would be. */
#ifndef PROFTOP_TESTS_KALLSYMS_FIXTURE_H
#define PROFTOP_TESTS_KALLSYMS_FIXTURE_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "kallsyms.h"

/* Parse kallsyms text (and modules text, if not NULL: else no
 * /proc/modules) into ks, which must work. */
static inline void ksfix_parse(const char *kallsyms, const char *modules, struct kernel_syms *ks)
{
	FILE *k = fmemopen((void *)kallsyms, strlen(kallsyms), "r");
	FILE *m = modules ? fmemopen((void *)modules, strlen(modules), "r") : NULL;

	ck_assert_ptr_nonnull(k);
	ck_assert(!modules || m);
	ck_assert_int_eq(kallsyms_parse(k, m, ks), 0);
	fclose(k);
	if (m)
		fclose(m);
}

#endif
