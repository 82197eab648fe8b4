/* Unit tests for lib/hashtab.c and lib/hash.h: insert and find, growth
 * over many keys, keys that all collide, removal (backward shift), rebuild
 * and clear, a randomized run against a linear scan, and FNV-1a's
 * published vectors. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hashtab.h"
#include "testutil.h"

/* The caller's side: a dense array of keys, and how they hash. */
struct keys {
	uint64_t *k;
	bool *gone;             /* removed from the table */
	size_t n, cap;
	uint64_t hash_mask;     /* 0: every key collides */
};

static uint64_t keys_hash_key(const struct keys *ks, uint64_t key)
{
	return hash_finish(key) & ks->hash_mask;
}

static uint64_t keys_hash(const void *ctx, uint32_t idx)
{
	const struct keys *ks = ctx;

	return keys_hash_key(ks, ks->k[idx]);
}

static bool keys_eq(const void *ctx, uint32_t idx, const void *key)
{
	const struct keys *ks = ctx;

	return ks->k[idx] == *(const uint64_t *)key;
}

static uint32_t keys_find(const struct hashtab *t, const struct keys *ks, uint64_t key)
{
	return hashtab_find(t, keys_hash_key(ks, key), keys_eq, ks, &key);
}

/* Find key, or append and index it: the pattern every caller uses. */
static uint32_t keys_intern(struct hashtab *t, struct keys *ks, uint64_t key)
{
	size_t j = hashtab_probe(t, keys_hash_key(ks, key), keys_eq, ks, &key);

	if (t->slots[j] != HASHTAB_EMPTY)
		return t->slots[j];
	if (ks->n == ks->cap) {
		ks->cap = ks->cap ? ks->cap * 2 : 16;
		ks->k = realloc(ks->k, ks->cap * sizeof(*ks->k));
		ks->gone = realloc(ks->gone, ks->cap * sizeof(*ks->gone));
	}
	ks->k[ks->n] = key;
	ks->gone[ks->n] = false;
	hashtab_insert_at(t, j, (uint32_t)ks->n, keys_hash, ks);
	return (uint32_t)ks->n++;
}

static void keys_remove(struct hashtab *t, struct keys *ks, uint64_t key)
{
	size_t j = hashtab_probe(t, keys_hash_key(ks, key), keys_eq, ks, &key);

	if (t->slots[j] != HASHTAB_EMPTY) {
		ks->gone[t->slots[j]] = true;
		hashtab_remove(t, j, keys_hash, ks);
	}
}

/* The answer a linear scan gives. */
static uint32_t keys_scan(const struct keys *ks, uint64_t key)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (!ks->gone[i] && ks->k[i] == key)
			return (uint32_t)i;
	return HASHTAB_EMPTY;
}

static void keys_free(struct keys *ks)
{
	free(ks->k);
	free(ks->gone);
}

START_TEST(test_fnv1a_vectors)
{
	/* The published 64-bit FNV-1a test vectors. */
	ck_assert_uint_eq(hash_fnv1a(""), 0xcbf29ce484222325ULL);
	ck_assert_uint_eq(hash_fnv1a("a"), 0xaf63dc4c8601ec8cULL);
	ck_assert_uint_eq(hash_fnv1a("foobar"), 0x85944171f73967e8ULL);
	ck_assert_uint_eq(HASH_FNV1A_BASIS, 14695981039346656037ULL);
}
END_TEST

START_TEST(test_insert_find)
{
	struct keys ks = { .hash_mask = UINT64_MAX };
	struct hashtab t;

	hashtab_init(&t, 0);
	ck_assert_uint_eq(t.mask + 1, HASHTAB_MIN_SLOTS);
	ck_assert_uint_eq(keys_find(&t, &ks, 42), HASHTAB_EMPTY);
	ck_assert_uint_eq(keys_intern(&t, &ks, 42), 0);
	ck_assert_uint_eq(keys_intern(&t, &ks, 7), 1);
	ck_assert_uint_eq(keys_intern(&t, &ks, 42), 0);
	ck_assert_uint_eq(keys_find(&t, &ks, 7), 1);
	ck_assert_uint_eq(keys_find(&t, &ks, 8), HASHTAB_EMPTY);
	ck_assert_uint_eq(t.count, 2);
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

START_TEST(test_grow_many)
{
	struct keys ks = { .hash_mask = UINT64_MAX };
	struct hashtab t;
	uint64_t i;

	hashtab_init(&t, 100);
	ck_assert_uint_eq(t.mask + 1, 128);
	for (i = 0; i < 200000; i++)
		ck_assert_uint_eq(keys_intern(&t, &ks, i * 0x10000), i);
	ck_assert_uint_eq(t.count, 200000);
	/* At most half full, a power of two. */
	ck_assert_uint_ge(t.mask + 1, 400000);
	ck_assert_uint_eq((t.mask + 1) & t.mask, 0);
	for (i = 0; i < 200000; i++)
		ck_assert_uint_eq(keys_find(&t, &ks, i * 0x10000), i);
	ck_assert_uint_eq(keys_find(&t, &ks, 1), HASHTAB_EMPTY);
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

START_TEST(test_collisions)
{
	struct keys ks = { .hash_mask = 0 };
	struct hashtab t;
	uint64_t i;

	/* Every key in one probe run, wrapping around the end of the slots
	 * once the run is longer than what follows slot 0's neighbours. */
	hashtab_init(&t, 0);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(keys_intern(&t, &ks, i), i);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(keys_find(&t, &ks, i), i);
	/* Removal in the middle of the run keeps the rest reachable. */
	for (i = 0; i < 1000; i += 3)
		keys_remove(&t, &ks, i);
	for (i = 0; i < 1000; i++)
		ck_assert_uint_eq(keys_find(&t, &ks, i), i % 3 ? i : HASHTAB_EMPTY);
	ck_assert_uint_eq(t.count, 666);
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

/* Hashes that land near the last slot: runs wrap to slot 0, and removal
 * must shift across the wrap. */
START_TEST(test_remove_wraps)
{
	struct keys ks = { .hash_mask = 15 };
	struct hashtab t;
	uint64_t k, keys[8];
	size_t n = 0, i;

	/* Keys whose home is slot 14 or 15 of 16: their run goes on at 0. */
	for (k = 0; n < 8; k++)
		if ((hash_finish(k) & 15) >= 14)
			keys[n++] = k;
	hashtab_init(&t, 16);
	for (i = 0; i < 6; i++)
		keys_intern(&t, &ks, keys[i]);
	ck_assert_uint_eq(t.mask + 1, 16);
	keys_remove(&t, &ks, keys[0]);
	keys_remove(&t, &ks, keys[2]);
	for (i = 0; i < 6; i++)
		ck_assert_uint_eq(keys_find(&t, &ks, keys[i]), keys_scan(&ks, keys[i]));
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

START_TEST(test_rebuild_clear)
{
	struct keys ks = { .hash_mask = UINT64_MAX };
	struct hashtab t;
	size_t i, n = 0;

	hashtab_init(&t, 0);
	for (i = 0; i < 5000; i++)
		keys_intern(&t, &ks, i);
	/* Keep the odd keys, renumbered densely, as hist_age does. */
	for (i = 0; i < ks.n; i++)
		if (ks.k[i] & 1)
			ks.k[n++] = ks.k[i];
	ks.n = n;
	hashtab_rebuild(&t, n, keys_hash, &ks);
	ck_assert_uint_eq(t.count, 2500);
	for (i = 0; i < 5000; i++)
		ck_assert_uint_eq(keys_find(&t, &ks, i), i & 1 ? i / 2 : HASHTAB_EMPTY);
	/* A big drop shrinks the slots. */
	ks.n = 10;
	hashtab_rebuild(&t, 10, keys_hash, &ks);
	ck_assert_uint_eq(t.mask + 1, 32);
	ck_assert_uint_eq(keys_find(&t, &ks, 19), 9);
	hashtab_clear(&t);
	ck_assert_uint_eq(t.count, 0);
	ck_assert_uint_eq(t.mask + 1, 32);
	ck_assert_uint_eq(keys_find(&t, &ks, 19), HASHTAB_EMPTY);
	/* Twice the minimum is not far too big: kept. */
	hashtab_rebuild(&t, 0, keys_hash, &ks);
	ck_assert_uint_eq(t.mask + 1, 32);
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

/* Random inserts, finds and removals over a small key space (so that
 * they meet), with a weak hash (many collisions), checked against a
 * linear scan after every step. */
START_TEST(test_random_against_scan)
{
	struct keys ks = { .hash_mask = 0xff };
	struct hashtab t;
	unsigned seed = 12345;
	size_t step;

	hashtab_init(&t, 0);
	for (step = 0; step < 20000; step++) {
		uint64_t key = (uint64_t)(rand_r(&seed) % 700);
		int op = rand_r(&seed) % 4;

		if (op == 0) {
			keys_remove(&t, &ks, key);
		} else if (op == 1) {
			uint32_t want = keys_scan(&ks, key), got = keys_intern(&t, &ks, key);

			if (want != HASHTAB_EMPTY)
				ck_assert_uint_eq(got, want);
		}
		ck_assert_uint_eq(keys_find(&t, &ks, key), keys_scan(&ks, key));
	}
	/* Every key, present or not, answers as the scan does. */
	for (step = 0; step < 700; step++)
		ck_assert_uint_eq(keys_find(&t, &ks, step), keys_scan(&ks, step));
	hashtab_release(&t);
	keys_free(&ks);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hashtab");
	TCase *tc = tcase_create("hashtab");

	tcase_add_test(tc, test_fnv1a_vectors);
	tcase_add_test(tc, test_insert_find);
	tcase_add_test(tc, test_grow_many);
	tcase_add_test(tc, test_collisions);
	tcase_add_test(tc, test_remove_wraps);
	tcase_add_test(tc, test_rebuild_clear);
	tcase_add_test(tc, test_random_against_scan);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return testutil_run(suite()) != 0;
}
