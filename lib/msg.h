/* Messages to the user on stderr, prefixed with the program's name. */
#ifndef PROFTOP_MSG_H
#define PROFTOP_MSG_H

#include "macros.h"

/* The program name used in messages ("proftop"). */
extern const char *util_progname;

/* "proftop: message" on stderr. */
void msg_error(const char *fmt, ...) PRINTFLIKE(1, 2);
/* "proftop: notice: message" on stderr (once-only logic is the caller's). */
void msg_notice(const char *fmt, ...) PRINTFLIKE(1, 2);
/* msg_error then exit(status). */
void fatal(int status, const char *fmt, ...) PRINTFLIKE(2, 3) __attribute__((noreturn));

#endif
