/* A growable NUL-terminated string. */
#ifndef PROFTOP_STRBUF_H
#define PROFTOP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "macros.h"

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

#endif
