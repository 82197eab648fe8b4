/* Table layout for the browser: column placement at the terminal's width
 * and middle ellipsis for long names (pure: no curses). */
#include "config.h"

#include "layout.h"

#include <string.h>

#include "util.h"

/* How narrow a name column may get: in the first pass its title's width
 * (or its minimum, when larger), in the second its minimum. */
static unsigned layout_floor(const struct snapshot *snap, enum column_id col, unsigned pass)
{
	unsigned min = column_min_width(snap, col), t = layout_text_width(column_title(snap, col));

	return pass == 0 && t > min ? t : min;
}

void layout_compute(struct layout *l, const struct snapshot *snap, const enum column_id *cols,
		    size_t n, const unsigned *want, unsigned width)
{
	unsigned sep = width < 90 ? 1 : 2, fixed = 0, names = 0, avail, x, rank, top = 0, pass;
	size_t i, last_name = n;

	memset(l, 0, sizeof(*l));
	l->width = width;
	if (n > COLUMN__MAX)
		n = COLUMN__MAX;
	l->n = n;
	for (i = 0; i < n; i++) {
		struct layout_cell *c = &l->cells[i];
		bool name = column_is_name(snap, cols[i]);
		unsigned w = want[cols[i]], t = layout_text_width(column_title(snap, cols[i]));

		/* A payload adds its columns: single spaces keep the names. */
		if (column_is_payload(cols[i]))
			sep = 1;
		c->col = cols[i];
		c->right = !name;
		if (w < t)
			w = t;
		if (w < column_min_width(snap, cols[i]))
			w = column_min_width(snap, cols[i]);
		if (name) {
			last_name = i;
			if (column_shrink_rank(snap, cols[i]) > top)
				top = column_shrink_rank(snap, cols[i]);
		} else {
			fixed += w;
		}
		c->width = w;
	}
	if (n)
		fixed += sep * (unsigned)(n - 1);
	avail = width > fixed ? width - fixed : 0;
	for (i = 0; i < n; i++) {
		struct layout_cell *c = &l->cells[i];
		unsigned cap = column_cap(snap, c->col, width);

		if (c->right)
			continue;
		if (i != last_name && c->width > cap)
			c->width = cap;
		names += c->width;
	}
	/* Too wide: the names of the lowest rank first, the widest of them
	 * by one column at a time, so that they end up sharing the room;
	 * first down to their titles (Command and Shared Object stay
	 * readable while the symbol gives way), then to their minimums. */
	for (pass = 0; pass < 2; pass++)
		for (rank = 0; rank <= top && names > avail; rank++)
			while (names > avail) {
				struct layout_cell *widest = NULL;

				for (i = 0; i < n; i++) {
					struct layout_cell *c = &l->cells[i];

					if (!c->right && column_shrink_rank(snap, c->col) == rank &&
					    c->width > layout_floor(snap, c->col, pass) &&
					    (!widest || c->width > widest->width))
						widest = c;
				}
				if (!widest)
					break;
				widest->width--;
				names--;
			}
	/* Room to spare: the last name column takes it. */
	if (last_name < n && names < avail)
		l->cells[last_name].width += avail - names;

	for (i = 0, x = 0; i < n; i++) {
		l->cells[i].x = x;
		x += l->cells[i].width + sep;
	}
}

const struct layout_cell *layout_find(const struct layout *l, enum column_id col)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->cells[i].col == col)
			return &l->cells[i];
	return NULL;
}

static bool layout_is_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

unsigned layout_text_width(const char *s)
{
	unsigned w = 0;

	for (; *s; s++)
		if (!layout_is_cont((unsigned char)*s))
			w++;
	return w;
}

/* Append bytes [from, to) of s to out, control characters as '?'. */
static size_t layout_copy(char *out, size_t pos, size_t size, const char *s, size_t from,
			  size_t to)
{
	for (; from < to && pos + 1 < size; from++) {
		unsigned char c = (unsigned char)s[from];

		out[pos++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	return pos;
}

/* Byte offset of the character number cp of s (or the end). */
static size_t layout_offset(const char *s, unsigned cp)
{
	size_t i = 0;

	while (s[i]) {
		if (!layout_is_cont((unsigned char)s[i])) {
			if (cp == 0)
				return i;
			cp--;
		}
		i++;
	}
	return i;
}

unsigned layout_ellipsize(const char *s, unsigned width, char *out, size_t size)
{
	static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
	unsigned total = layout_text_width(s), head, tail;
	size_t pos = 0, len = strlen(s);

	if (!size)
		return 0;
	if (total <= width) {
		pos = layout_copy(out, 0, size, s, 0, len);
		out[pos] = '\0';
		return total;
	}
	if (width == 0) {
		out[0] = '\0';
		return 0;
	}
	/* The start usually names the thing, so it gets the odd column. */
	tail = (width - 1) / 2;
	head = width - 1 - tail;
	pos = layout_copy(out, pos, size, s, 0, layout_offset(s, head));
	if (pos + sizeof(ellipsis) <= size) {
		memcpy(out + pos, ellipsis, sizeof(ellipsis) - 1);
		pos += sizeof(ellipsis) - 1;
	}
	pos = layout_copy(out, pos, size, s, layout_offset(s, total - tail), len);
	out[pos] = '\0';
	return width;
}
