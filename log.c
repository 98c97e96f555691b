// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - messages to stderr, or to a size-capped file, with a relative
 * timestamp
 *
 * Severity follows the trust boundary: die() before the loop starts, for bad
 * options and missing resources; err/warn/info/debug afterwards.
 *
 * A log file (-l) starts empty with upstream's header line, "pasta VERSION:
 * EXE (PID)" (passt in passt mode), which tools read to tell what wrote it.
 * It never grows past --log-size (default LOG_SIZE_DEFAULT, as upstream's):
 * when a line would not fit, the oldest lines after the header go until a
 * quarter of the file is free, by copying the rest down in place
 * (log_rotate()); the header then says when, as upstream's does, and the
 * lines after it are whole.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "util.h"

#define LOG_LINE_MAX		1024
#define LOG_COPY_BUF		(64 * 1024)
#define LOG_TIME_MAX		32	/* "S.SSSS", see log_time_fmt() */

static bool log_debug_on;
static bool log_quiet;
static int log_fd = -1;		/* -l: instead of standard error */
static size_t log_size_max;	/* --log-size */
static size_t log_written;	/* the file's size */
static char log_header[LOG_LINE_MAX];	/* its first line, no newline */
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
 * log_time_fmt() - seconds since log_setup(), as each line's timestamp
 * @buf:	where to put them, "S.SSSS"
 * @len:	its size
 */
static void log_time_fmt(char *buf, size_t len)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!log_start.tv_sec && !log_start.tv_nsec)
		log_start = now;
	snprintf(buf, len, "%ld.%04ld",
		 (long)(now.tv_sec - log_start.tv_sec) -
		 (now.tv_nsec < log_start.tv_nsec),
		 ((now.tv_nsec - log_start.tv_nsec + 1000000000L) %
		  1000000000L) / 100000);
}

/**
 * log_header_write() - write the log file's first line
 * @cut:	time the oldest lines were dropped, or NULL: none yet
 *
 * Return: the line's length, newline included, 0 if it couldn't be written
 */
static size_t log_header_write(const char *cut)
{
	char line[LOG_LINE_MAX + LOG_TIME_MAX + sizeof(" - log truncated at ")];
	int len;

	len = snprintf(line, sizeof(line), cut ? "%s - log truncated at %s\n" :
		       "%s\n", log_header, cut);
	return pwrite(log_fd, line, len, 0) == len ? (size_t)len : 0;
}

/**
 * log_to_file() - log to a file (-l) instead of standard error, from empty
 * @path:	file
 * @size:	the most it may hold (--log-size), 0 for LOG_SIZE_DEFAULT; at
 *		least LOG_SIZE_MIN
 * @name:	"pasta" or "passt", for the header line
 */
void log_to_file(const char *path, size_t size, const char *name)
{
	char exe[PATH_MAX] = "(unknown)";
	ssize_t n;
	int len;

	log_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log_fd < 0)
		die("Can't open log file %s: %s", path, strerror(errno));
	log_size_max = size ? size : LOG_SIZE_DEFAULT;
	if (log_size_max < LOG_SIZE_MIN)
		log_size_max = LOG_SIZE_MIN;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	len = snprintf(log_header, sizeof(log_header), "%s %s: %s (%d)", name,
		       VERSION, exe, (int)getpid());
	if (len >= (int)sizeof(log_header))
		log_header[sizeof(log_header) - 2] = '\0';
	log_written = log_header_write(NULL);
	if (!log_written)
		die("Can't write to log file %s: %s", path, strerror(errno));
}

/**
 * log_rotate() - drop the oldest lines of the log file to make room
 * @need:	bytes the next line takes
 *
 * Keeps the header, marked with the time of the cut, then the newest three
 * quarters of the limit (less @need and the header), from the first whole
 * line on, moved down behind it: as the file is past the limit less @need,
 * what moves down starts after the header ends.
 */
static void log_rotate(size_t need)
{
	static char buf[LOG_COPY_BUF];
	char cut[LOG_TIME_MAX];
	size_t keep, from, to;
	char *nl;
	ssize_t n;

	log_time_fmt(cut, sizeof(cut));
	to = log_header_write(cut);
	keep = MIN(log_size_max * 3 / 4, log_size_max - need - to);
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
	size_t len = 0;

	if (log_quiet && pri > LOG_WARNING)
		return;

	if (log_debug_on) {
		log_time_fmt(line, LOG_TIME_MAX);
		len = strlen(line);
		len += snprintf(line + len, sizeof(line) - len, ": ");
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
