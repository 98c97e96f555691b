/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tool_lib.h - what the stand-alone test tools (delayline, tcprr) share
 *
 * Header only: each tool is still one .c file built on its own.  Define
 * TOOL_NAME, the prefix of every message, before including it.
 */

#ifndef TOOL_LIB_H
#define TOOL_LIB_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef TOOL_NAME
#error "define TOOL_NAME before including tool_lib.h"
#endif

#define NS_PER_US		((int64_t)1000)
#define NS_PER_MS		((int64_t)1000000)
#define NS_PER_S		((int64_t)1000000000)

static inline void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/**
 * die() - "TOOL_NAME: message" on stderr, exit with EXIT_FAILURE
 * @fmt:	printf() format of the message
 * @...:	its arguments
 */
static inline void die(const char *fmt, ...)
{
	va_list ap;

	fputs(TOOL_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

/**
 * now_ns() - CLOCK_MONOTONIC in nanoseconds
 *
 * Return: current time, ns
 */
static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

#endif /* TOOL_LIB_H */
