/* Interned strings (lib/intern.h): one lock, one table, copies never freed. */
#include "config.h"

#include "intern.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "hash.h"
#include "hashtab.h"
#include "msg.h"

/* The copies in order of arrival, their hashes beside them, and the
 * index over both. */
static struct {
	const char **str;
	uint64_t *hash;
	size_t n, cap;
	struct hashtab index;
	pthread_mutex_t lock;
} interned = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct intern_key {
	const char *s;
	uint64_t hash;
};

static uint64_t intern_hash_of(const void *ctx, uint32_t idx)
{
	(void)ctx;
	return interned.hash[idx];
}

static bool intern_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct intern_key *k = key;

	(void)ctx;
	return interned.hash[idx] == k->hash && strcmp(interned.str[idx], k->s) == 0;
}

const char *intern(const char *s)
{
	struct intern_key k = { s, hash_fnv1a(s) };
	const char *res;
	uint32_t idx;
	size_t j;

	pthread_mutex_lock(&interned.lock);
	if (!interned.index.slots)
		hashtab_init(&interned.index, 256);
	j = hashtab_probe(&interned.index, k.hash, intern_eq, NULL, &k);
	idx = interned.index.slots[j];
	if (idx == HASHTAB_EMPTY) {
		if (interned.n >= HASHTAB_MAX_ENTRIES)
			fatal(1, "intern: too many strings");
		if (interned.n == interned.cap) {
			size_t cap = interned.cap;

			interned.str = xgrow(interned.str, &cap, interned.n + 1, sizeof(*interned.str));
			interned.hash = xrealloc(interned.hash, cap * sizeof(*interned.hash));
			interned.cap = cap;
		}
		idx = (uint32_t)interned.n++;
		interned.str[idx] = xstrdup(s);
		interned.hash[idx] = k.hash;
		hashtab_insert_at(&interned.index, j, idx, intern_hash_of, NULL);
	}
	res = interned.str[idx];
	pthread_mutex_unlock(&interned.lock);
	return res;
}
