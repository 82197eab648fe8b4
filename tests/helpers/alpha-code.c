/* An Alpha program for the annotate tests, cross-compiled with
 * alpha-linux-gnu-gcc (tests/integration/alpha-disasm.sh, profileme.sh):
 * integer and floating-point loops, byte and word accesses, a switch (a
 * jump table), calls through pointers, division (a library call).  Its
 * code is decoded, not run, except under qemu-alpha when it is there. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The hot loop the ProfileMe recording samples. */
long alpha_hot(const long *v, long n)
{
	long s = 0, i;

	for (i = 0; i < n; i++)
		s += v[i] * 3 ^ (v[i] >> 7);
	return s;
}

double alpha_float(double a, double b, float c)
{
	double r = a * b + sqrt(fabs(a)) / (b + 1.0);

	r += (double)(long)(c * 2.5f);
	return r < a ? -r : r + (float)b;
}

unsigned alpha_bytes(unsigned char *p, unsigned short *w, size_t n)
{
	unsigned h = 5381;
	size_t i;

	for (i = 0; i < n; i++) {
		h = h * 33 + p[i];
		w[i / 2] = (unsigned short)(h ^ w[i / 2]);
		p[i] = (unsigned char)(h >> 3);
	}
	return h + (unsigned)__builtin_popcountl(h) + (unsigned)__builtin_clzl(h | 1);
}

long alpha_switch(int k, long x)
{
	switch (k) {
	case 0: return x + 1;
	case 1: return x * 7;
	case 2: return x / 3;
	case 3: return x % 11;
	case 4: return x << 5;
	case 5: return (long)((unsigned long)x >> 3);
	case 6: return -x;
	case 7: return ~x;
	default: return 0;
	}
}

static long alpha_twice(long x)
{
	return 2 * x;
}

long (*volatile alpha_fn)(long) = alpha_twice;

int main(int argc, char **argv)
{
	long v[64];
	unsigned char b[32];
	unsigned short w[16];
	long i, s = 0;

	for (i = 0; i < 64; i++)
		v[i] = i * argc;
	memset(b, argc, sizeof(b));
	memset(w, 0, sizeof(w));
	for (i = 0; i < 8; i++)
		s += alpha_switch((int)i, alpha_hot(v, 64)) + alpha_fn(i);
	printf("%ld %u %.3f %s\n", s, alpha_bytes(b, w, sizeof(b)),
	       alpha_float(argc, 2.0, 1.5f), argv[0] ? "ok" : "");
	return 0;
}
