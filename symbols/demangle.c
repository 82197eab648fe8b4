/* C++ and Rust demangling through libstdc++'s __cxa_demangle, dlopen'ed:
 * proftop is C, libiberty has no shared library on Debian, and a program
 * without C++ should not need libstdc++ to start. */
#include "config.h"

#include "demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hash.h"
#include "hashtab.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static bool demangle_on = true;
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

static void demangle_load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	/* Never dlclose'd: names it returned are plain malloc'd strings, but
	 * the library is cheap to keep. */
	if (h)
		cxa_demangle = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
}

void demangle_set_enabled(bool on)
{
	demangle_on = on;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Rust legacy mangling ends the path with a "h" + 16 hex digits element:
 * "17h0123456789abcdefE".  Its demangled form ends in "::h<hash>". */
static bool rust_legacy(const char *name)
{
	size_t n = strlen(name), i;

	if (n < 21 || name[n - 1] != 'E' || memcmp(name + n - 20, "17h", 3) != 0)
		return false;
	for (i = n - 17; i < n - 1; i++)
		if (!is_hex(name[i]))
			return false;
	return true;
}

/* Cut a demangled C++ name to what perf shows by default: no parameter
 * list (nor the cv/ref qualifiers after it) and no return type, so
 * "unsigned long hot::spin<unsigned long>(unsigned long) const" becomes
 * "hot::spin<unsigned long>": tables stay narrow and names match perf's. */
static void demangle_strip_signature(char *s)
{
	size_t n = strlen(s), i;
	int depth = 0;
	char *start;

	/* Qualifiers after the parameter list. */
	for (;;) {
		static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
		bool cut = false;

		for (i = 0; i < sizeof(quals) / sizeof(quals[0]); i++) {
			size_t q = strlen(quals[i]);

			if (n > q && strcmp(s + n - q, quals[i]) == 0) {
				n -= q;
				s[n] = '\0';
				cut = true;
			}
		}
		if (!cut)
			break;
	}
	if (n == 0 || s[n - 1] != ')')
		return;
	/* The '(' that opens the last top-level parenthesis group. */
	for (i = n; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			break;
	}
	if (depth != 0 || i == 0 || i == (size_t)-1)
		return;
	s[i] = '\0';
	/* A return type (template functions only) ends at the last top-level
	 * space; operator names have spaces and angle brackets of their own. */
	if (strstr(s, "operator"))
		return;
	depth = 0;
	start = NULL;
	for (i = 0; s[i]; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth > 0)
			depth--;
		else if (s[i] == ' ' && depth == 0)
			start = s + i + 1;
	}
	if (start && *start)
		memmove(s, start, strlen(start) + 1);
}

char *demangle(const char *name)
{
	const char *mangled = name;
	char *out;
	int status = -1;

	if (!demangle_on || strncmp(name, "_Z", 2) != 0)
		return NULL;
	pthread_once(&demangle_once, demangle_load);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(mangled, NULL, NULL, &status);
	if (status != 0 || !out) {
		free(out);
		return NULL;
	}
	demangle_strip_signature(out);
	if (rust_legacy(name)) {
		size_t n = strlen(out);

		if (n > 19 && memcmp(out + n - 19, "::h", 3) == 0)
			out[n - 19] = '\0';
	}
	return out;
}

/* demangle_display's cache: raw name -> demangled, by content (a name's
 * storage may be freed and reused by another table).  Entries are never
 * freed: they are the names on screen, a few thousand at most. */
struct demangle_entry {
	uint64_t hash;
	char *raw;
	char *shown;              /* the demangled form, NULL: shown raw */
};

struct demangle_key {
	const char *raw;
	uint64_t hash;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct demangle_entry *cache;
static size_t cache_n, cache_cap;
static struct hashtab cache_index;

static uint64_t demangle_hash_of(const void *ctx, uint32_t idx)
{
	(void)ctx;
	return cache[idx].hash;
}

static bool demangle_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct demangle_key *k = key;

	(void)ctx;
	return cache[idx].hash == k->hash && strcmp(cache[idx].raw, k->raw) == 0;
}

/* The demangled form of name, malloc'd; a func@plt suffix is kept. */
static char *demangle_with_suffix(const char *name)
{
	static const char plt[] = "@plt";
	size_t n = strlen(name), k = sizeof(plt) - 1;
	char *base, *dem, *out;

	if (n <= k || strcmp(name + n - k, plt) != 0)
		return demangle(name);
	base = strndup(name, n - k);
	if (!base)
		abort();
	dem = demangle(base);
	free(base);
	if (!dem)
		return NULL;
	out = malloc(strlen(dem) + k + 1);
	if (!out)
		abort();
	strcpy(out, dem);
	strcat(out, plt);
	free(dem);
	return out;
}

const char *demangle_display(const char *name)
{
	struct demangle_key k;
	const char *shown;
	uint32_t idx;
	size_t j;
	char *dem;

	/* Most names are C: no lock, no hash. */
	if (!name || !demangle_on || strncmp(name, "_Z", 2) != 0)
		return name;
	k.raw = name;
	k.hash = hash_fnv1a(name);
	pthread_mutex_lock(&cache_lock);
	if (!cache_index.slots)
		hashtab_init(&cache_index, 256);
	j = hashtab_probe(&cache_index, k.hash, demangle_eq, NULL, &k);
	idx = cache_index.slots[j];
	if (idx != HASHTAB_EMPTY) {
		shown = cache[idx].shown;
		pthread_mutex_unlock(&cache_lock);
		return shown ? shown : name;
	}
	/* Demangled under the lock: each name once, and rarely (names are
	 * looked up once per refresh, demangled once per run). */
	dem = demangle_with_suffix(name);
	if (cache_n < HASHTAB_MAX_ENTRIES) {
		cache = xgrow(cache, &cache_cap, cache_n + 1, sizeof(*cache));
		cache[cache_n].hash = k.hash;
		cache[cache_n].raw = xstrdup(name);
		cache[cache_n].shown = dem;
		hashtab_insert_at(&cache_index, j, (uint32_t)cache_n++, demangle_hash_of, NULL);
	}
	pthread_mutex_unlock(&cache_lock);
	return dem ? dem : name;
}
