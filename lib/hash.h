/* The hash functions of the tables (lib/hashtab.h): FNV-1a over strings,
 * and a combine step and finaliser for keys made of pointers and ids. */
#ifndef PROFTOP_HASH_H
#define PROFTOP_HASH_H

#include <stdint.h>

#define HASH_FNV1A_BASIS 14695981039346656037ULL
#define HASH_FNV1A_PRIME 1099511628211ULL

/* 64-bit FNV-1a of the NUL-terminated s ("" gives the offset basis). */
static inline uint64_t hash_fnv1a(const char *s)
{
	uint64_t h = HASH_FNV1A_BASIS;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HASH_FNV1A_PRIME;
	return h;
}

/* Fold v into h (boost's hash_combine, 64-bit); end with hash_finish. */
static inline uint64_t hash_combine(uint64_t h, uint64_t v)
{
	return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

/* splitmix64's finaliser: pointers and small integers differ in few low
 * bits, and a table takes its slot from the low bits. */
static inline uint64_t hash_finish(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

#endif
