/* The source files annotate shows beside the code: each read once (a
 * regular file only, up to ANNOTATE_SOURCE_MAX), its lines split. */
#include "config.h"

#include "annotate-source.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileread.h"
#include "intern.h"
#include "nsopen.h"
#include "util.h"

/* Source files are read whole, up to this. */
#define ANNOTATE_SOURCE_MAX (16 << 20)

struct annotate_srcfile {
	const char *path;            /* interned, as the DWARF's */
	char *buf;                   /* NULL: unreadable */
	const char **lines;
	size_t nr_lines;
};

struct annotate_source {
	struct annotate_srcfile *files;
	size_t n, cap;
};

struct annotate_source *annotate_source_new(void)
{
	return xcalloc(1, sizeof(struct annotate_source));
}

void annotate_source_free(struct annotate_source *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->files[i].buf);
		free(s->files[i].lines);
	}
	free(s->files);
	free(s);
}

static const struct annotate_srcfile *annotate_source_file(struct annotate_source *s,
							   const char *path)
{
	struct annotate_srcfile *sf;
	size_t i, len = 0, lcap = 0;
	char *p;
	int fd;

	for (i = 0; i < s->n; i++)
		if (s->files[i].path == path)
			return &s->files[i];
	s->files = xgrow(s->files, &s->cap, s->n + 1, sizeof(*s->files));
	sf = &s->files[s->n++];
	memset(sf, 0, sizeof(*sf));
	sf->path = path;
	/* A regular file only (nsopen_file): the path comes from the binary. */
	if ((fd = nsopen_file(path)) < 0)
		return sf;
	if (fileread_fd(fd, ANNOTATE_SOURCE_MAX, &sf->buf, &len) < 0)
		sf->buf = NULL;
	close(fd);
	for (p = sf->buf; p && *p;) {
		char *nl = strchr(p, '\n');

		sf->lines = xgrow(sf->lines, &lcap, sf->nr_lines + 1, sizeof(*sf->lines));
		sf->lines[sf->nr_lines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return sf;
}

const char *annotate_source_line(struct annotate_source *src, const char *path, unsigned line)
{
	const struct annotate_srcfile *sf = annotate_source_file(src, path);
	char buf[512];
	size_t o = 0;
	const char *s;

	if (!line || line > sf->nr_lines)
		return NULL;
	for (s = sf->lines[line - 1]; *s && o + 8 < sizeof(buf); s++) {
		if (*s == '\t')
			do
				buf[o++] = ' ';
			while (o % 8);
		else if (*s != '\r')
			buf[o++] = *s;
	}
	while (o && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
	return intern(buf);
}
