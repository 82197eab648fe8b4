/* Small helpers shared by every module: allocation, messages, strings. */
#include "config.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *util_progname = "proftop";

static void __attribute__((noreturn)) out_of_memory(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", util_progname, size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		out_of_memory(nmemb * size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 8;

	if (need <= *cap)
		return ptr;
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			out_of_memory(SIZE_MAX);
		n *= 2;
	}
	ptr = xrealloc(ptr, n * elem);
	*cap = n;
	return ptr;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb;
	va_list ap;

	strbuf_init(&sb);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return sb.buf;
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_addf(&sb, "%s: %s", util_progname, prefix);
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void msg_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("notice: ", fmt, ap);
	va_end(ap);
}

void fatal(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	exit(status);
}

void strbuf_init(struct strbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->buf[0] = '\0';
}

void strbuf_add(struct strbuf *sb, const char *s, size_t n)
{
	sb->buf = xgrow(sb->buf, &sb->cap, sb->len + n + 1, 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		sb->buf = xgrow(sb->buf, &sb->cap, sb->len + (size_t)n + 1, 1);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	const unsigned char *p;

	strbuf_addch(sb, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': strbuf_addstr(sb, "\\\""); break;
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			if (cap >= max + 1)
				break;
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			free(buf);
			close(fd);
			return -err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

int read_file_long(const char *path, long *val)
{
	char *buf, *end;
	int err = read_file(path, 64, &buf, NULL);

	if (err)
		return err;
	errno = 0;
	*val = strtol(buf, &end, 10);
	if (errno || end == buf) {
		free(buf);
		return -EINVAL;
	}
	free(buf);
	return 0;
}

double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Interned strings: an open-addressing set of malloc'd copies. */
static struct {
	const char **slots;
	size_t cap, count;
	pthread_mutex_t lock;
} interned = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void intern_insert(const char **slots, size_t cap, const char *s)
{
	size_t i = hash_str(s) & (cap - 1);

	while (slots[i])
		i = (i + 1) & (cap - 1);
	slots[i] = s;
}

const char *intern(const char *s)
{
	const char *res;
	size_t i;

	pthread_mutex_lock(&interned.lock);
	if ((interned.count + 1) * 2 > interned.cap) {
		size_t ncap = interned.cap ? interned.cap * 2 : 256, j;
		const char **ns = xcalloc(ncap, sizeof(*ns));

		for (j = 0; j < interned.cap; j++)
			if (interned.slots[j])
				intern_insert(ns, ncap, interned.slots[j]);
		free(interned.slots);
		interned.slots = ns;
		interned.cap = ncap;
	}
	i = hash_str(s) & (interned.cap - 1);
	while (interned.slots[i] && strcmp(interned.slots[i], s) != 0)
		i = (i + 1) & (interned.cap - 1);
	if (!interned.slots[i]) {
		interned.slots[i] = xstrdup(s);
		interned.count++;
	}
	res = interned.slots[i];
	pthread_mutex_unlock(&interned.lock);
	return res;
}
