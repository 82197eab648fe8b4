/* The few macros every layer uses: array length, three-way compare, and
 * the printf-format attribute. */
#ifndef PROFTOP_MACROS_H
#define PROFTOP_MACROS_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

#define PRINTFLIKE(f, a) __attribute__((format(printf, f, a)))

#endif
