/* Dynamic PMUs named on the command line ("ibs_op", "ibs_op/cnt_ctl=1/"):
 * their type and config terms from sysfs, checked against the PMU's own
 * format/ files; the host's CPUID string. */
#include "config.h"

#include "pmu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "event.h"
#include "fileread.h"
#include "util.h"

void pmu_spec_name(const char *spec, char *buf, size_t size)
{
	size_t n = strcspn(spec, "/");

	snprintf(buf, size, "%.*s", (int)n, spec);
}

/* Put value into the bits a format file names ("config:0-15",
 * "config1:0-11", "config:0-7,32-35"), low bits first.  Returns 0 or
 * -EINVAL (a bad format, or a value wider than its bits). */
static int pmu_apply_format(const char *fmt, uint64_t value, struct event_spec *out)
{
	uint64_t *word;
	const char *p;
	unsigned used = 0;

	if (strncmp(fmt, "config2:", 8) == 0) {
		word = &out->config2;
		p = fmt + 8;
	} else if (strncmp(fmt, "config1:", 8) == 0) {
		word = &out->config1;
		p = fmt + 8;
	} else if (strncmp(fmt, "config:", 7) == 0) {
		word = &out->config;
		p = fmt + 7;
	} else {
		return -EINVAL;
	}
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, b;

		if (end == p)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
			p = end;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (b = lo; b <= hi; b++, used++)
			if (used < 64 && (value >> used) & 1)
				*word |= 1ULL << b;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return used < 64 && value >> used ? -EINVAL : 0;
}

/* One "term" or "term=value" of the PMU at dir. */
static int pmu_term(const char *dir, const char *spec, char *term, struct event_spec *out,
		    struct errmsg *em)
{
	char *eq = strchr(term, '='), *fmt = NULL, *end;
	uint64_t value = 1;
	char path[4096 + 80];
	size_t len;
	int err;

	if (eq) {
		*eq = '\0';
		errno = 0;
		value = strtoull(eq + 1, &end, 0);
		if (errno || end == eq + 1 || *end)
			return errmsg_set(em, -EINVAL, "%s: term %s: '%s' is not a number", spec,
					  term, eq + 1);
	}
	if (!*term || strlen(term) > 64 || strchr(term, '/') || strcmp(term, ".") == 0 || strcmp(term, "..") == 0)
		return errmsg_set(em, -EINVAL, "%s: empty or bad term '%s'", spec, term);
	snprintf(path, sizeof(path), "%s/format/%s", dir, term);
	if ((err = read_file(path, 256, &fmt, &len)) != 0)
		return errmsg_set(em, -EINVAL, "%s: the PMU has no term '%s' (its terms: %s/format/)",
				  spec, term, dir);
	err = pmu_apply_format(fmt, value, out);
	if (err)
		errmsg_set(em, err, "%s: %s=%llu does not fit %s's bits (%.*s)", spec, term,
			   (unsigned long long)value, term, (int)strcspn(fmt, "\n"), fmt);
	free(fmt);
	return err;
}

int pmu_event_parse(const char *root, const char *spec, struct event_spec *out,
		    struct errmsg *em)
{
	char name[64], dir[4096], path[4200], *terms, *t, *save = NULL;
	const char *slash = strchr(spec, '/');
	long type;
	int err = 0;

	memset(out, 0, sizeof(*out));
	pmu_spec_name(spec, name, sizeof(name));
	if (!*name || strlen(name) >= sizeof(name) - 1 || strchr(name, '.'))
		return errmsg_set(em, -ENOENT, "%s: not a PMU name", spec);
	if (slash) {
		size_t n = strlen(slash);

		if (n < 2 || slash[n - 1] != '/' || strchr(slash + 1, '/') != slash + n - 1)
			return errmsg_set(em, -EINVAL, "%s: write NAME or NAME/term=value,.../",
					  spec);
	}
	snprintf(dir, sizeof(dir), "%s/%s/%s", root, PMU_DEVICES, name);
	snprintf(path, sizeof(path), "%s/type", dir);
	if ((err = read_file_long(path, &type)) != 0 || type < 0 || type > UINT32_MAX)
		return errmsg_set(em, -ENOENT, "no %s PMU on this machine (no %s)", name, dir);
	out->type = (uint32_t)type;
	snprintf(out->name, sizeof(out->name), "%s", spec);
	if (!slash)
		return 0;
	terms = xstrndup(slash + 1, strlen(slash + 1) - 1);
	for (t = strtok_r(terms, ",", &save); t && !err; t = strtok_r(NULL, ",", &save))
		err = pmu_term(dir, spec, t, out, em);
	free(terms);
	return err;
}

bool pmu_host_cpuid(char *buf, size_t size)
{
	char *text = NULL, *line, *save = NULL, vendor[64] = "";
	long family = -1, model = -1, stepping = -1;
	size_t len;

	if (read_file("/proc/cpuinfo", 1 << 16, &text, &len) != 0)
		return false;
	/* the first CPU's block is enough */
	for (line = strtok_r(text, "\n", &save); line && *line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		size_t klen;

		if (!colon)
			continue;
		klen = strcspn(line, "\t:");
		if (klen == 9 && strncmp(line, "vendor_id", 9) == 0)
			snprintf(vendor, sizeof(vendor), "%s", colon + 1 + strspn(colon + 1, " "));
		else if (klen == 10 && strncmp(line, "cpu family", 10) == 0)
			family = strtol(colon + 1, NULL, 10);
		else if (klen == 5 && strncmp(line, "model", 5) == 0)
			model = strtol(colon + 1, NULL, 10);
		else if (klen == 8 && strncmp(line, "stepping", 8) == 0)
			stepping = strtol(colon + 1, NULL, 10);
	}
	free(text);
	if (!vendor[0] || family < 0 || model < 0)
		return false;
	snprintf(buf, size, "%s,%ld,%ld,%ld", vendor, family, model, stepping < 0 ? 0 : stepping);
	return true;
}
