/* Unit tests for src/pmu.c: PMU events parsed against a fake sysfs tree
 * (type and format/ files written here, some as AMD's ibs_op has them),
 * the attr of a PMU that takes no exclude bits, this host's CPUID string. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "event.h"
#include "pmu.h"
#include "testutil.h"

static char *root;

/* root/sys/bus/event_source/devices/ibs_op: type 11, the formats of a Zen
 * 4, plus made-up ones for split ranges and config1. */
static void make_tree(void)
{
	free(root);
	root = testutil_tmpdir("pmu");
	ck_assert_int_eq(testutil_sh("d=%s/" PMU_DEVICES "/ibs_op && mkdir -p $d/format && "
				     "echo 11 >$d/type && echo config:19 >$d/format/cnt_ctl && "
				     "echo config:16 >$d/format/l3missonly && "
				     "echo config:0-7,32-35 >$d/format/split && "
				     "echo config1:0-11 >$d/format/ldlat && "
				     "echo config2:63 >$d/format/top && "
				     "echo bogus:1 >$d/format/bad && "
				     "mkdir -p %s/" PMU_DEVICES "/ibs_fetch/format && "
				     "echo 12 >%s/" PMU_DEVICES "/ibs_fetch/type",
				     root, root, root),
			 0);
}

START_TEST(test_parse)
{
	struct event_spec ev;
	struct errmsg em = ERRMSG_INIT;

	make_tree();
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op", &ev, &em), 0);
	ck_assert_uint_eq(ev.type, 11);
	ck_assert_uint_eq(ev.config, 0);
	ck_assert_str_eq(ev.name, "ibs_op");
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op//", &ev, &em), 0);
	ck_assert_uint_eq(ev.config, 0);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_fetch//", &ev, &em), 0);
	ck_assert_uint_eq(ev.type, 12);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/cnt_ctl=1,l3missonly/", &ev, &em), 0);
	ck_assert_uint_eq(ev.config, (1ULL << 19) | (1ULL << 16));
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/cnt_ctl=0/", &ev, &em), 0);
	ck_assert_uint_eq(ev.config, 0);
	/* a split range fills its bits low first */
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/split=0xabc/", &ev, &em), 0);
	ck_assert_uint_eq(ev.config, 0xbcULL | (0xaULL << 32));
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/ldlat=128,top=1/", &ev, &em), 0);
	ck_assert_uint_eq(ev.config1, 128);
	ck_assert_uint_eq(ev.config2, 1ULL << 63);
	ck_assert_uint_eq(ev.config, 0);
}
END_TEST

START_TEST(test_errors)
{
	struct event_spec ev;
	struct errmsg em = ERRMSG_INIT;
	int err;

	make_tree();
	err = pmu_event_parse(root, "ibs_op/nosuch=1/", &ev, &em);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_nonnull(strstr(errmsg_text(&em, err), "no term 'nosuch'"));
	err = pmu_event_parse(root, "ibs_op/cnt_ctl=2/", &ev, &em);
	ck_assert_int_eq(err, -EINVAL);
	ck_assert_ptr_nonnull(strstr(errmsg_text(&em, err), "does not fit"));
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/split=0x1000/", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/split=0xfff/", &ev, &em), 0);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/bad=1/", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/cnt_ctl=x/", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/cnt_ctl", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/a/b/", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/../", &ev, &em), -EINVAL);
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/,/", &ev, &em), 0);
	err = pmu_event_parse(root, "nosuch//", &ev, &em);
	ck_assert_int_eq(err, -ENOENT);
	ck_assert_ptr_nonnull(strstr(errmsg_text(&em, err), "no nosuch PMU"));
	ck_assert_int_eq(pmu_event_parse(root, "../x", &ev, &em), -ENOENT);
	ck_assert_int_eq(pmu_event_parse(root, "", &ev, &em), -ENOENT);
	errmsg_clear(&em);
}
END_TEST

START_TEST(test_spec_name)
{
	char name[64];

	pmu_spec_name("ibs_op/cnt_ctl=1/", name, sizeof(name));
	ck_assert_str_eq(name, "ibs_op");
	pmu_spec_name("ibs_fetch", name, sizeof(name));
	ck_assert_str_eq(name, "ibs_fetch");
}
END_TEST

START_TEST(test_host_cpuid)
{
	char buf[128];
	regex_t re;

	if (!pmu_host_cpuid(buf, sizeof(buf)))
		return; /* /proc/cpuinfo without vendor_id (not x86): nothing to check */
	ck_assert_int_eq(regcomp(&re, "^[A-Za-z]+,[0-9]+,[0-9]+,[0-9]+$", REG_EXTENDED), 0);
	ck_assert_msg(regexec(&re, buf, 0, NULL, 0) == 0, "cpuid '%s'", buf);
	regfree(&re);
}
END_TEST

/* IBS refuses exclude_hv and exclude_guest (the kernel's perf_ibs_init),
 * and exclude_kernel without its software filter. */
START_TEST(test_attr_no_exclude)
{
	struct event_spec ev;
	struct event_sampling smp = { .freq = true, .freq_or_period = 1000, .exclude_kernel = true };
	struct perf_event_attr attr;
	struct errmsg em = ERRMSG_INIT;

	make_tree();
	ck_assert_int_eq(pmu_event_parse(root, "ibs_op/ldlat=3/", &ev, &em), 0);
	event_attr_init(&attr, &ev, &smp);
	ck_assert(attr.exclude_hv && attr.exclude_guest && attr.exclude_kernel);
	ck_assert_uint_eq(attr.config1, 3);
	ck_assert(!(attr.sample_type & PERF_SAMPLE_RAW));
	ev.no_exclude = ev.sample_raw = true;
	event_attr_init(&attr, &ev, &smp);
	ck_assert(!attr.exclude_hv && !attr.exclude_guest && !attr.exclude_kernel);
	ck_assert(attr.sample_type & PERF_SAMPLE_RAW);
	ev.sw_filter = true;
	event_attr_init(&attr, &ev, &smp);
	ck_assert(!attr.exclude_hv && !attr.exclude_guest && attr.exclude_kernel);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pmu");
	TCase *tc = tcase_create("pmu");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_spec_name);
	tcase_add_test(tc, test_host_cpuid);
	tcase_add_test(tc, test_attr_no_exclude);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int failed = testutil_run(suite());

	free(root);
	return failed != 0;
}
