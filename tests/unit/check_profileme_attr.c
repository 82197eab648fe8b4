/* Unit tests for the attr the live path builds on an Alpha: event_attr_init
 * then arch_adjust_attr, composed as live_open does, and the machine the
 * engine picks for a recording's ARCH feature. */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "arch.h"
#include "event.h"
#include "testutil.h"

/* The attr of live_open for event name on machine e_machine. */
static struct perf_event_attr live_attr_of(const char *name, int e_machine, bool callchain)
{
	struct event_spec ev;
	struct event_sampling s = {
		.freq = true,
		.freq_or_period = 4000,
		.tracking = true,
		.callchain = callchain,
		.max_stack = 64,
		.wakeup_bytes = 4096,
	};
	struct perf_event_attr attr;

	ck_assert_int_eq(event_parse(name, &ev), 0);
	event_attr_init(&attr, &ev, &s);
	arch_adjust_attr(&attr, e_machine);
	return attr;
}

START_TEST(test_alpha_hardware)
{
	static const char *const names[] = { "cycles", "instructions", "branch-misses", "r1c2" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct perf_event_attr plain = live_attr_of(names[i], EM_X86_64, true);
		struct perf_event_attr a = live_attr_of(names[i], EM_ALPHA, true);

		ck_assert_msg(a.sample_type & PERF_SAMPLE_RAW, "%s: no PERF_SAMPLE_RAW", names[i]);
		/* Nothing else changes: the same sample layout plus RAW. */
		ck_assert_uint_eq(a.sample_type, plain.sample_type | PERF_SAMPLE_RAW);
		a.sample_type = plain.sample_type;
		ck_assert_int_eq(memcmp(&a, &plain, sizeof(a)), 0);
		ck_assert(a.sample_type & PERF_SAMPLE_CALLCHAIN);
	}
}
END_TEST

START_TEST(test_alpha_software)
{
	/* The PMU attaches no payload to timer events: do not ask. */
	struct perf_event_attr a = live_attr_of("cpu-clock", EM_ALPHA, false);

	ck_assert(!(a.sample_type & PERF_SAMPLE_RAW));
	a = live_attr_of("task-clock", EM_ALPHA, false);
	ck_assert(!(a.sample_type & PERF_SAMPLE_RAW));
}
END_TEST

START_TEST(test_other_machines)
{
	static const int machines[] = { EM_NONE, EM_X86_64, EM_386, EM_AARCH64, EM_S390 };
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++) {
		struct perf_event_attr a = live_attr_of("cycles", machines[i], false);

		ck_assert(!(a.sample_type & PERF_SAMPLE_RAW));
	}
	/* This build host is not an Alpha: live sampling asks for nothing. */
#if !defined(__alpha__)
	ck_assert_int_ne(arch_host_machine(), EM_ALPHA);
#endif
}
END_TEST

/* engine_start_file: arch_machine_from_name(info->arch), EM_NONE when
 * the recording has no ARCH feature. */
START_TEST(test_file_machine)
{
	ck_assert_int_eq(arch_machine_from_name("alpha"), EM_ALPHA);
	ck_assert_ptr_nonnull(arch_payload_find(arch_machine_from_name("alpha")));
	ck_assert_int_eq(arch_machine_from_name(NULL), EM_NONE);
	ck_assert_ptr_null(arch_payload_find(arch_machine_from_name(NULL)));
	ck_assert_ptr_null(arch_payload_find(arch_machine_from_name("x86_64")));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("profileme_attr");
	TCase *tc = tcase_create("attr");

	tcase_add_test(tc, test_alpha_hardware);
	tcase_add_test(tc, test_alpha_software);
	tcase_add_test(tc, test_other_machines);
	tcase_add_test(tc, test_file_machine);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
