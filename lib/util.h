/* Small helpers shared by every module: allocation that cannot fail,
 * messages to the user, and a growable string buffer. */
#ifndef PROFTOP_UTIL_H
#define PROFTOP_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

#define PRINTFLIKE(f, a) __attribute__((format(printf, f, a)))

/* Allocators: on failure they print a message and exit(1). */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Grow an array of *cap elements of size elem to hold at least need. */
void *xgrow(void *ptr, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTFLIKE(1, 2);

/* The program name used in messages ("proftop"). */
extern const char *util_progname;

/* "proftop: message" on stderr. */
void msg_error(const char *fmt, ...) PRINTFLIKE(1, 2);
/* "proftop: notice: message" on stderr (once-only logic is the caller's). */
void msg_notice(const char *fmt, ...) PRINTFLIKE(1, 2);
/* msg_error then exit(status). */
void fatal(int status, const char *fmt, ...) PRINTFLIKE(2, 3) __attribute__((noreturn));

/* A growable NUL-terminated string. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
};
void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const char *s, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) PRINTFLIKE(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append s as a JSON string literal, quotes included. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);

/* Read a whole small file (e.g. under /proc) into a malloc'd NUL-terminated
 * buffer of at most max bytes.  Returns 0 or -errno. */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* Read an integer from a one-line file; returns 0 or -errno. */
int read_file_long(const char *path, long *val);

/* Decimal digits of v (1 for 0): column widths. */
static inline unsigned util_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Monotonic time in seconds. */
double now_monotonic(void);

/* Interned strings: equal contents give the same pointer, valid until
 * the program exits.  Used for comm names and other hist keys. */
const char *intern(const char *s);

#endif
