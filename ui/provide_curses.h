/* The one place that includes curses: ncursesw's header where configure
 * found it, else the plain one (which is ncursesw when linked so). */
#ifndef PROFTOP_PROVIDE_CURSES_H
#define PROFTOP_PROVIDE_CURSES_H

#ifdef HAVE_NCURSESW_CURSES_H
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#endif
