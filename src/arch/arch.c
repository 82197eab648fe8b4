/* The arch payload interface: one ops table per machine that has a decoder,
 * machine names to EM_* values, and the attr tweak that asks for payloads. */
#include "config.h"

#include "arch.h"

#include <elf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "alpha-profileme.h"
#include "amd-ibs.h"
#include "strbuf.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif
#ifndef EM_CSKY
#define EM_CSKY 252
#endif
#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* ---- the decoders ---- */

static const struct arch_payload_ops *const arch_payloads[] = {
	&profileme_arch,
	&ibs_op_arch,
	&ibs_fetch_arch,
};

const struct arch_pmu_rules *arch_pmu_rules(const char *pmu)
{
	size_t i;

	for (i = 0; pmu && i < sizeof(arch_payloads) / sizeof(arch_payloads[0]); i++) {
		const struct arch_pmu_rules *r = arch_payloads[i]->pmu_rules;

		if (r && strcmp(r->pmu, pmu) == 0)
			return r;
	}
	return NULL;
}

const char *arch_env_pmu_name(const struct arch_env *env, uint32_t type)
{
	size_t i;

	for (i = 0; env && i < env->npmus; i++)
		if (env->pmus[i].type == type)
			return env->pmus[i].name;
	return NULL;
}

void arch_env_parse_cpuid(struct arch_env *env)
{
	const char *p = env->cpuid ? strchr(env->cpuid, ',') : NULL;
	char *end;
	unsigned long f, m;

	env->cpu_known = false;
	env->cpu_family = env->cpu_model = 0;
	if (!p)
		return;
	f = strtoul(p + 1, &end, 10);
	if (end == p + 1 || *end != ',')
		return;
	p = end;
	m = strtoul(p + 1, &end, 10);
	if (end == p + 1 || (*end && *end != ','))
		return;
	env->cpu_known = true;
	env->cpu_family = (uint32_t)f;
	env->cpu_model = (uint32_t)m;
}

const struct arch_payload_ops *arch_payload_select(const struct arch_env *env,
						   const struct perf_event_attr *attr)
{
	size_t i;

	if (!env || env->e_machine == EM_NONE)
		return NULL;
	for (i = 0; i < sizeof(arch_payloads) / sizeof(arch_payloads[0]); i++) {
		const struct arch_payload_ops *ops = arch_payloads[i];

		if (ops->e_machine != env->e_machine)
			continue;
		if (!ops->selects || (attr && ops->selects(env, attr)))
			return ops;
	}
	return NULL;
}

const struct arch_payload_ops *arch_payload_find(int e_machine)
{
	struct arch_env env = { .e_machine = e_machine };

	return arch_payload_select(&env, NULL);
}

bool arch_payload_decode_in(const struct arch_env *env, const struct arch_payload_ops *ops,
			    const struct perf_event_attr *attr, const void *raw, uint32_t raw_size,
			    union arch_payload_buf *buf)
{
	if (!ops || !raw || !ops->applies(attr, raw, raw_size) ||
	    ops->decoded_size > sizeof(*buf))
		return false;
	if (ops->decode_in)
		return ops->decode_in(env, raw, raw_size, buf) == 0;
	return ops->decode(raw, raw_size, buf) == 0;
}

bool arch_payload_decode(const struct arch_payload_ops *ops, const struct perf_event_attr *attr,
			 const void *raw, uint32_t raw_size, union arch_payload_buf *buf)
{
	return arch_payload_decode_in(NULL, ops, attr, raw, raw_size, buf);
}

bool arch_payload_order_known(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(arch_payloads) / sizeof(arch_payloads[0]); i++)
		if (payload_order_column(arch_payloads[i]->payload, key) >= 0)
			return true;
	return false;
}

/* Whether key is a column's --order word in a decoder before the i-th. */
static bool arch_payload_order_before(size_t i, const char *key)
{
	while (i--)
		if (payload_order_column(arch_payloads[i]->payload, key) >= 0)
			return true;
	return false;
}

const char *arch_payload_order_keys(void)
{
	static char keys[512];
	size_t i, k, len = 0;

	if (keys[0])
		return keys;
	for (i = 0; i < sizeof(arch_payloads) / sizeof(arch_payloads[0]); i++) {
		const struct payload_ops *p = arch_payloads[i]->payload;

		for (k = 0; k < p->nr_columns; k++) {
			const char *key = p->columns[k].order_key;

			/* once each: decoders share words of one meaning */
			if (key && len < sizeof(keys) && !arch_payload_order_before(i, key) &&
			    payload_order_column(p, key) == (int)k)
				len += (size_t)snprintf(keys + len, sizeof(keys) - len, "%s%s",
							len ? ", " : "", key);
		}
	}
	return keys;
}

void arch_payload_order_help(struct strbuf *sb)
{
	size_t i, k;

	for (i = 0; i < sizeof(arch_payloads) / sizeof(arch_payloads[0]); i++) {
		const struct payload_ops *p = arch_payloads[i]->payload;
		bool first = true;

		for (k = 0; k < p->nr_columns; k++) {
			const char *key = p->columns[k].order_key;

			if (!key || payload_order_column(p, key) != (int)k)
				continue;
			if (first)
				strbuf_addf(sb, "on %s data ", p->title);
			else
				strbuf_addstr(sb, ", ");
			strbuf_addstr(sb, key);
			first = false;
		}
		if (!first)
			strbuf_addstr(sb, "; ");
	}
}

/* ---- machine names ---- */

struct arch_name {
	const char *name;
	bool prefix; /* matches any name starting with it */
	int e_machine;
};

/* uname -m spellings (which perf stores as the ARCH feature) and perf's
 * normalised names.  Searched in order: the prefix entries come last, so
 * that "arm64" is found before the "arm" prefix could take it. */
static const struct arch_name arch_names[] = {
	{ "alpha", false, EM_ALPHA },
	{ "x86_64", false, EM_X86_64 },
	{ "amd64", false, EM_X86_64 },
	{ "x86", false, EM_386 },
	{ "i386", false, EM_386 },
	{ "i486", false, EM_386 },
	{ "i586", false, EM_386 },
	{ "i686", false, EM_386 },
	{ "s390x", false, EM_S390 },
	{ "s390", false, EM_S390 },
	{ "aarch64", false, EM_AARCH64 },
	{ "arm64", false, EM_AARCH64 },
	{ "ppc64", true, EM_PPC64 }, /* ppc64, ppc64le */
	{ "powerpc64", true, EM_PPC64 },
	{ "ppc", false, EM_PPC },
	{ "powerpc", false, EM_PPC },
	{ "sparc64", false, EM_SPARCV9 },
	{ "sparc", false, EM_SPARC },
	{ "ia64", false, EM_IA_64 },
	{ "m68k", false, EM_68K },
	{ "csky", false, EM_CSKY },
	{ "arm", true, EM_ARM },     /* arm, armv7l, armv6l, ... */
	{ "mips", true, EM_MIPS },   /* mips, mips64, mipsel, ... */
	{ "riscv", true, EM_RISCV }, /* riscv32, riscv64 */
	{ "loongarch", true, EM_LOONGARCH },
	{ "parisc", true, EM_PARISC },
	{ "sh", true, EM_SH }, /* sh4, sh4a */
};

int arch_machine_from_name(const char *name)
{
	size_t i;

	if (!name || !*name)
		return EM_NONE;
	for (i = 0; i < sizeof(arch_names) / sizeof(arch_names[0]); i++) {
		const struct arch_name *a = &arch_names[i];

		if (a->prefix ? strncmp(name, a->name, strlen(a->name)) == 0 :
				strcmp(name, a->name) == 0)
			return a->e_machine;
	}
	return EM_NONE;
}

/* The build target, for a uname that says nothing we know. */
static int arch_build_machine(void)
{
#if defined(__alpha__)
	return EM_ALPHA;
#elif defined(__x86_64__)
	return EM_X86_64;
#elif defined(__i386__)
	return EM_386;
#elif defined(__aarch64__)
	return EM_AARCH64;
#elif defined(__arm__)
	return EM_ARM;
#elif defined(__s390__)
	return EM_S390;
#elif defined(__powerpc64__)
	return EM_PPC64;
#elif defined(__powerpc__)
	return EM_PPC;
#elif defined(__riscv)
	return EM_RISCV;
#elif defined(__mips__)
	return EM_MIPS;
#elif defined(__sparc__)
	return EM_SPARCV9;
#elif defined(__loongarch__)
	return EM_LOONGARCH;
#else
	return EM_NONE;
#endif
}

int arch_host_machine(void)
{
	struct utsname u;
	int m;

	/* uname, not the build target: a 32-bit build on a 64-bit kernel
	 * still samples the kernel's PMU. */
	if (uname(&u) == 0) {
		m = arch_machine_from_name(u.machine);
		if (m != EM_NONE)
			return m;
	}
	return arch_build_machine();
}

void arch_adjust_attr(struct perf_event_attr *attr, int e_machine)
{
	const struct arch_payload_ops *ops = arch_payload_find(e_machine);

	if (ops && ops->adjust_attr)
		ops->adjust_attr(attr);
}
