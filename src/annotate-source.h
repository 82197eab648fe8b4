/* Source lines for annotate, read from the files DWARF names. */
#ifndef PROFTOP_ANNOTATE_SOURCE_H
#define PROFTOP_ANNOTATE_SOURCE_H

/* The files read so far: keep one while a function's lines are looked up. */
struct annotate_source;

struct annotate_source *annotate_source_new(void);
void annotate_source_free(struct annotate_source *s);
/* Line line of file path (an interned name: files are told apart by
 * pointer), tabs as spaces and trailing blanks cut, interned; NULL when
 * the file cannot be read or is shorter. */
const char *annotate_source_line(struct annotate_source *s, const char *path, unsigned line);

#endif
