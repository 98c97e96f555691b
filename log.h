/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <syslog.h>

#define LOG_SIZE_DEFAULT	(1024 * 1024)	/* --log-size, upstream's */
#define LOG_SIZE_MIN		4096

/* die() is for start-up only: once the loop runs, guest input is never fatal */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void logmsg(int pri, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_setup(bool debug, bool quiet);
void log_to_file(const char *path, size_t size, const char *name);
bool log_debug_enabled(void);

#define err(...)	logmsg(LOG_ERR, __VA_ARGS__)
#define warn(...)	logmsg(LOG_WARNING, __VA_ARGS__)
#define info(...)	logmsg(LOG_INFO, __VA_ARGS__)
#define debug(...)							\
	do {								\
		if (log_debug_enabled())				\
			logmsg(LOG_DEBUG, __VA_ARGS__);			\
	} while (0)

/**
 * err_ratelimit() - err() at most once a second per call site
 */
#define err_ratelimit(...)						\
	do {								\
		static long last_;					\
		long now_ = (long)log_now_s();				\
		if (now_ != last_) {					\
			last_ = now_;					\
			err(__VA_ARGS__);				\
		}							\
	} while (0)

long log_now_s(void);

#endif /* LOG_H */
