// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - messages to stderr with a relative timestamp
 *
 * Severity follows the trust boundary: die() before the loop starts, for bad
 * options and missing resources; err/warn/info/debug afterwards.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static bool log_debug_on;
static bool log_quiet;
static FILE *log_file;		/* -l: instead of standard error */
static struct timespec log_start;

/**
 * log_setup() - set verbosity and the time origin of timestamps
 * @debug:	print debug messages too
 * @quiet:	print errors and warnings only
 */
void log_setup(bool debug, bool quiet)
{
	log_debug_on = debug;
	log_quiet = quiet && !debug;
	clock_gettime(CLOCK_MONOTONIC, &log_start);
}

/**
 * log_to_file() - log to a file (-l) instead of standard error, appending
 * @path:	file
 */
void log_to_file(const char *path)
{
	log_file = fopen(path, "ae");
	if (!log_file)
		die("Can't open log file %s: %s", path, strerror(errno));
	setvbuf(log_file, NULL, _IOLBF, 0);
}

bool log_debug_enabled(void)
{
	return log_debug_on;
}

/**
 * log_now_s() - seconds on the monotonic clock, for rate limiting
 * Return: current monotonic time in seconds
 */
long log_now_s(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec;
}

static void log_vprint(int pri, const char *fmt, va_list ap)
{
	static const char *const prefix[] = {
		[LOG_ERR] = "ERROR: ", [LOG_WARNING] = "WARNING: ",
	};
	FILE *out = log_file ? log_file : stderr;
	struct timespec now;

	if (log_quiet && pri > LOG_WARNING)
		return;

	if (log_debug_on) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!log_start.tv_sec && !log_start.tv_nsec)
			log_start = now;
		fprintf(out, "%ld.%04ld: ",
			(long)(now.tv_sec - log_start.tv_sec) -
			(now.tv_nsec < log_start.tv_nsec),
			((now.tv_nsec - log_start.tv_nsec + 1000000000L) %
			 1000000000L) / 100000);
	}
	if (pri <= LOG_WARNING && prefix[pri])
		fputs(prefix[pri], out);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
}

/**
 * logmsg() - print one message at the given priority
 * @pri:	syslog priority
 * @fmt:	printf-style format
 */
void logmsg(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(pri, fmt, ap);
	va_end(ap);
}

/**
 * die() - print an error and exit with status 1, only before the loop starts
 * @fmt:	printf-style format
 */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_ERR, fmt, ap);
	va_end(ap);
	exit(EXIT_FAILURE);
}
