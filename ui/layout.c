/* Table layout for the browser: column placement at the terminal's width
 * and middle ellipsis for long names (pure: no curses). */
#include "config.h"

#include "layout.h"

#include <string.h>

#include "util.h"

static const char *const layout_titles[LAYOUT__MAX] = {
	[LAYOUT_CHILDREN] = "Children", [LAYOUT_SELF] = "Self",
	[LAYOUT_SAMPLES] = "Samples",	[LAYOUT_COMM] = "Command",
	[LAYOUT_PM_RETIRED] = "Retired", [LAYOUT_PM_KILLED] = "Killed",
	[LAYOUT_PM_STALLED] = "Stalled", [LAYOUT_PM_MISPRED] = "Mispred",
	[LAYOUT_PM_TRAPS] = "Traps",	[LAYOUT_PM_TRAP] = "Trap",
	[LAYOUT_PM_ICMISS] = "ICmiss",	[LAYOUT_PM_LDST] = "LdSt",
	[LAYOUT_PM_PCTR1] = "PCTR1",
	[LAYOUT_PID] = "Pid",		[LAYOUT_TID] = "Tid",
	[LAYOUT_CPU] = "Cpu",		[LAYOUT_DSO] = "Shared Object",
	[LAYOUT_SYM] = "Symbol",	[LAYOUT_SRCLINE] = "Source:Line",
};

/* Names narrower than these stop saying anything. */
static const unsigned layout_min[LAYOUT__MAX] = {
	[LAYOUT_COMM] = 6, [LAYOUT_DSO] = 8, [LAYOUT_SYM] = 12, [LAYOUT_PM_TRAP] = 6,
	[LAYOUT_SRCLINE] = 10,
};

const char *layout_title(enum layout_col col)
{
	return col < LAYOUT__MAX ? layout_titles[col] : "";
}

bool layout_is_name(enum layout_col col)
{
	return col == LAYOUT_COMM || col == LAYOUT_DSO || col == LAYOUT_SYM ||
	       col == LAYOUT_PM_TRAP || col == LAYOUT_SRCLINE;
}

bool layout_is_profileme(enum layout_col col)
{
	return col >= LAYOUT_PM_RETIRED && col <= LAYOUT_PM_PCTR1;
}

/* The widest a name column gets while another could use the room: a comm
 * is at most 15 bytes; DSO names grow with the terminal. */
static unsigned layout_cap(enum layout_col col, unsigned width)
{
	switch (col) {
	case LAYOUT_COMM:
		return 16;
	case LAYOUT_PM_TRAP:
		/* "DTB double miss (3 level)" is long; the pane has it whole */
		return 15;
	case LAYOUT_DSO:
		return width / 6 > 20 ? width / 6 : 20;
	default:
		return ~0u;
	}
}

void layout_compute(struct layout *l, const enum layout_col *cols, size_t n,
		    const unsigned *want, unsigned width)
{
	unsigned sep = width < 90 ? 1 : 2, fixed = 0, names = 0, avail, x;
	size_t i, last_name = n;
	struct layout_cell *trap = NULL;

	/* The ProfileMe columns add nine: single spaces keep the names. */
	for (i = 0; i < n; i++)
		if (layout_is_profileme(cols[i]))
			sep = 1;

	memset(l, 0, sizeof(*l));
	l->width = width;
	if (n > LAYOUT__MAX)
		n = LAYOUT__MAX;
	l->n = n;
	for (i = 0; i < n; i++) {
		struct layout_cell *c = &l->cells[i];
		unsigned w = want[cols[i]], t = (unsigned)strlen(layout_titles[cols[i]]);

		c->col = cols[i];
		c->right = !layout_is_name(cols[i]);
		if (w < t)
			w = t;
		if (layout_is_name(cols[i])) {
			last_name = i;
			if (w < layout_min[cols[i]])
				w = layout_min[cols[i]];
		} else {
			fixed += w;
		}
		c->width = w;
		if (i)
			fixed += sep;
	}
	avail = width > fixed ? width - fixed : 0;
	for (i = 0; i < n; i++) {
		struct layout_cell *c = &l->cells[i];

		if (!layout_is_name(c->col))
			continue;
		if (i != last_name && c->width > layout_cap(c->col, width))
			c->width = layout_cap(c->col, width);
		names += c->width;
	}
	/* Too wide: the trap name first (the pane has it whole), then the
	 * widest name by one column at a time, so the names end up sharing
	 * the room evenly. */
	for (i = 0; i < n; i++)
		if (l->cells[i].col == LAYOUT_PM_TRAP)
			trap = &l->cells[i];
	while (trap && names > avail && trap->width > layout_min[LAYOUT_PM_TRAP]) {
		trap->width--;
		names--;
	}
	while (names > avail) {
		struct layout_cell *widest = NULL;

		for (i = 0; i < n; i++) {
			struct layout_cell *c = &l->cells[i];

			if (layout_is_name(c->col) && c->width > layout_min[c->col] &&
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

const struct layout_cell *layout_find(const struct layout *l, enum layout_col col)
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
