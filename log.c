// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - messages to stderr, or to a size-capped file, with a relative
 * timestamp
 *
 * Severity follows the trust boundary: die() before the loop starts, for bad
 * options and missing resources; err/warn/info/debug afterwards.
 *
 * A log file (-l) never grows past --log-size (default LOG_SIZE_DEFAULT, as
 * upstream's): when a line would not fit, the oldest lines go, from the
 * start of the file, until a quarter of it is free, by copying the rest
 * down in place (log_rotate()); the file always starts at a line.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define LOG_LINE_MAX		1024
#define LOG_COPY_BUF		(64 * 1024)

static bool log_debug_on;
static bool log_quiet;
static int log_fd = -1;		/* -l: instead of standard error */
static size_t log_size_max;	/* --log-size */
static size_t log_written;	/* the file's size */
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
 * @size:	the most it may hold (--log-size), 0 for LOG_SIZE_DEFAULT; at
 *		least LOG_SIZE_MIN
 */
void log_to_file(const char *path, size_t size)
{
	struct stat st;

	log_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (log_fd < 0 || fstat(log_fd, &st))
		die("Can't open log file %s: %s", path, strerror(errno));
	log_written = st.st_size;
	log_size_max = size ? size : LOG_SIZE_DEFAULT;
	if (log_size_max < LOG_SIZE_MIN)
		log_size_max = LOG_SIZE_MIN;
}

/**
 * log_rotate() - drop the oldest lines of the log file to make room
 * @need:	bytes the next line takes
 *
 * Keeps the newest three quarters of the limit (less @need), from the
 * first whole line on, moved to the start of the file.
 */
static void log_rotate(size_t need)
{
	static char buf[LOG_COPY_BUF];
	size_t keep = log_size_max * 3 / 4, from, to = 0;
	char *nl;
	ssize_t n;

	keep = MIN(keep, log_size_max - need);
	from = log_written > keep ? log_written - keep : 0;
	n = pread(log_fd, buf, MIN(sizeof(buf), log_written - from), from);
	if (n > 0 && (nl = memchr(buf, '\n', n)))
		from += nl - buf + 1;
	while (from < log_written) {
		n = pread(log_fd, buf, MIN(sizeof(buf), log_written - from),
			  from);
		if (n <= 0 || pwrite(log_fd, buf, n, to) != n)
			break;
		from += n;
		to += n;
	}
	if (!ftruncate(log_fd, to))
		log_written = to;
}

/**
 * log_file_write() - append a line to the log file, within its limit
 * @line:	the line, newline included
 * @len:	its length
 */
static void log_file_write(const char *line, size_t len)
{
	ssize_t n;

	if (log_written + len > log_size_max)
		log_rotate(len);
	n = pwrite(log_fd, line, len, log_written);
	if (n > 0)
		log_written += n;
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
	char line[LOG_LINE_MAX];
	struct timespec now;
	size_t len = 0;

	if (log_quiet && pri > LOG_WARNING)
		return;

	if (log_debug_on) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!log_start.tv_sec && !log_start.tv_nsec)
			log_start = now;
		len = snprintf(line, sizeof(line), "%ld.%04ld: ",
			       (long)(now.tv_sec - log_start.tv_sec) -
			       (now.tv_nsec < log_start.tv_nsec),
			       ((now.tv_nsec - log_start.tv_nsec + 1000000000L) %
				1000000000L) / 100000);
	}
	if (pri <= LOG_WARNING && prefix[pri])
		len += snprintf(line + len, sizeof(line) - len, "%s",
				prefix[pri]);
	len += vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	len = MIN(len, sizeof(line) - 2);	/* truncated: still a line */
	line[len++] = '\n';

	if (log_fd >= 0)
		log_file_write(line, len);
	else
		fwrite(line, 1, len, stderr);
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
