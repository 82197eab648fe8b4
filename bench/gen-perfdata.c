/* gen-perfdata: writes a large perf.data for the ingestion benchmark, fast
 * (tests/helpers/mkperfdata parses a text line per record and holds the file in
 * memory; this streams binary records straight to the file).
 *
 * usage: gen-perfdata -o OUT -e ELF -s SYMS [-n SAMPLES] [-d DEPTH] [-p PROCS]
 *
 * SYMS lists the functions of ELF, one "ADDR SIZE" (hex, as nm -S prints
 * them) a line.  ELF is mapped whole at a fixed base into PROCS processes;
 * each sample is a user-mode cycles sample with a callchain of DEPTH
 * addresses (plus the PERF_CONTEXT_USER marker).  Chains come from a pool of
 * stacks, as in a real program: callers' return addresses are fixed call
 * sites, only the sampled ip moves inside the leaf function.  The stack
 * popularity is skewed, so the table has a head and a long tail. */
#define _GNU_SOURCE 1

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE 0x7f0000000000ULL
#define NSTACKS 8192
#define PERF_MAGIC 0x32454c4946524550ULL
#define FINISHED_ROUND 68
#define ROUND_EVERY 20000

struct func {
	uint64_t addr, size;
};

static struct func *funcs;
static size_t nfuncs;

__attribute__((format(printf, 1, 2))) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gen-perfdata: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* xorshift64*: reproducible files from run to run, and cheap. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* A skewed pick in [0, n): the square of a uniform variate piles up near 0. */
static size_t skewed(size_t n)
{
	double u = (double)(rng() >> 11) / 9007199254740992.0;

	return (size_t)(u * u * (double)n) % n;
}

static void read_syms(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	unsigned long long a, s;

	if (!f)
		die("cannot open %s", path);
	while (fscanf(f, "%llx %llx%*[^\n]", &a, &s) == 2) {
		if (s < 2)
			continue;
		if (nfuncs == cap) {
			cap = cap ? cap * 2 : 1024;
			funcs = realloc(funcs, cap * sizeof(*funcs));
			if (!funcs)
				die("%s", "out of memory");
		}
		funcs[nfuncs].addr = a;
		funcs[nfuncs].size = s;
		nfuncs++;
	}
	fclose(f);
	if (!nfuncs)
		die("no functions in %s", path);
}

static FILE *out;

static void put(const void *p, size_t n)
{
	if (fwrite(p, 1, n, out) != n)
		die("write failed: %s", strerror(errno));
}

static void put64(uint64_t v)
{
	put(&v, 8);
}

static void put_hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	put(&h, sizeof(h));
}

/* A NUL-terminated string padded to whole words; returns the bytes. */
static size_t str_words(const char *s)
{
	return (strlen(s) + 1 + 7) / 8 * 8;
}

static void put_str(const char *s)
{
	char pad[8] = { 0 };
	size_t n = strlen(s) + 1;

	put(s, n);
	put(pad, str_words(s) - n);
}

int main(int argc, char **argv)
{
	const char *outpath = NULL, *elf = NULL, *syms = NULL;
	unsigned long nsamples = 2000000, depth = 32, nprocs = 2, i, k;
	uint64_t *stacks, data_off, data_size, attr_off;
	struct perf_event_attr attr;
	struct stat st;
	int c;

	while ((c = getopt(argc, argv, "o:e:s:n:d:p:")) != -1) {
		switch (c) {
		case 'o': outpath = optarg; break;
		case 'e': elf = optarg; break;
		case 's': syms = optarg; break;
		case 'n': nsamples = strtoul(optarg, NULL, 0); break;
		case 'd': depth = strtoul(optarg, NULL, 0); break;
		case 'p': nprocs = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: gen-perfdata -o OUT -e ELF -s SYMS [-n SAMPLES] "
					"[-d DEPTH] [-p PROCS]\n");
			return 2;
		}
	}
	if (!outpath || !elf || !syms || !depth || depth > 127 || !nprocs)
		die("%s", "need -o, -e and -s (and 1 <= -d <= 127)");
	if (stat(elf, &st))
		die("cannot stat %s", elf);
	read_syms(syms);
	out = fopen(outpath, "w");
	if (!out)
		die("cannot create %s", outpath);
	setvbuf(out, NULL, _IOFBF, 1 << 20);

	/* The stack pool: [0] is the leaf function's index, then the fixed
	 * return addresses of its callers, innermost first. */
	stacks = malloc(NSTACKS * depth * sizeof(*stacks));
	if (!stacks)
		die("%s", "out of memory");
	for (i = 0; i < NSTACKS; i++) {
		uint64_t *s = stacks + i * depth;

		s[0] = skewed(nfuncs);
		for (k = 1; k < depth; k++) {
			const struct func *f = &funcs[rng() % nfuncs];

			s[k] = BASE + f->addr + 1 + rng() % (f->size - 1);
		}
	}

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HARDWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	attr.exclude_kernel = 1;
	attr.mmap = attr.comm = attr.task = attr.mmap2 = 1;

	/* Header, patched at the end; the attr section follows it. */
	put64(PERF_MAGIC);
	put64(104);
	put64(sizeof(attr) + 16);
	for (i = 0; i < 10; i++)
		put64(0);
	attr_off = 104;
	put(&attr, sizeof(attr));
	put64(0);	/* ids: none, one event */
	put64(0);
	data_off = (uint64_t)ftell(out);

	for (i = 0; i < nprocs; i++) {
		uint32_t pid = 1000 + (uint32_t)i;
		char comm[16];
		uint64_t len = ((uint64_t)st.st_size + 4095) & ~4095ULL;

		snprintf(comm, sizeof(comm), "ingest%u", (unsigned)(i % 1000));
		put_hdr(PERF_RECORD_COMM, 0, (uint16_t)(8 + 8 + str_words(comm)));
		put(&pid, 4);
		put(&pid, 4);
		put_str(comm);
		put_hdr(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
			(uint16_t)(8 + 8 + 24 + 8 + 16 + 8 + str_words(elf)));
		put(&pid, 4);
		put(&pid, 4);
		put64(BASE);
		put64(len);
		put64(0);
		{
			uint32_t maj = 8, min = 1, prot = 5, flags = 2;

			put(&maj, 4);
			put(&min, 4);
			put64((uint64_t)st.st_ino);
			put64(0);
			put(&prot, 4);
			put(&flags, 4);
		}
		put_str(elf);
	}

	for (i = 0; i < nsamples; i++) {
		const uint64_t *s = stacks + skewed(NSTACKS) * depth;
		const struct func *leaf = &funcs[s[0]];
		uint32_t pid = 1000 + (uint32_t)(rng() % nprocs);
		uint64_t ip = BASE + leaf->addr + rng() % leaf->size;

		put_hdr(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
			(uint16_t)(8 + 8 * 5 + 8 * (depth + 1)));
		put64(ip);
		put(&pid, 4);
		put(&pid, 4);
		put64(1000000000ULL + i * 1000);
		put64(100000);
		put64(depth + 1);
		put64((uint64_t)PERF_CONTEXT_USER);
		put64(ip);
		put(s + 1, (depth - 1) * 8);
		if ((i + 1) % ROUND_EVERY == 0)
			put_hdr(FINISHED_ROUND, 0, 8);
	}
	data_size = (uint64_t)ftell(out) - data_off;
	if (fseek(out, 24, SEEK_SET))
		die("seek failed: %s", strerror(errno));
	put64(attr_off);
	put64(sizeof(attr) + 16);
	put64(data_off);
	put64(data_size);
	if (fclose(out))
		die("write failed: %s", strerror(errno));
	free(stacks);
	free(funcs);
	return 0;
}
