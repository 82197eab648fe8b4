/* Locale-independent numbers and word wrapping for text output. */
#include "config.h"

#include "textfmt.h"

#include <math.h>
#include <string.h>

#include "util.h"

void textfmt_fixed(struct strbuf *sb, double x, int decimals)
{
	long long scale = 1, v;
	int i;

	if (!isfinite(x))
		x = 0.0;
	for (i = 0; i < decimals; i++)
		scale *= 10;
	if (fabs(x) * (double)scale >= 9e18) {
		/* beyond long long: no decimals to localise anyway */
		strbuf_addf(sb, "%.0f", x);
		return;
	}
	v = llround(x * (double)scale);
	if (v < 0) {
		strbuf_addch(sb, '-');
		v = -v;
	}
	strbuf_addf(sb, "%lld", v / scale);
	if (decimals)
		strbuf_addf(sb, ".%0*lld", decimals, v % scale);
}

void textfmt_wrap(struct strbuf *sb, size_t *line_start, const char *word, size_t width,
		  const char *indent)
{
	if (sb->len - *line_start + 2 + strlen(word) > width &&
	    sb->len - *line_start > strlen(indent)) {
		strbuf_addch(sb, '\n');
		*line_start = sb->len;
		strbuf_addstr(sb, indent);
	} else if (sb->len - *line_start > strlen(indent)) {
		strbuf_addstr(sb, sb->buf[sb->len - 1] == ':' ? " " : "  ");
	}
	strbuf_addstr(sb, word);
}
