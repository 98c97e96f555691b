/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UTIL_H
#define UTIL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define ROUND_UP(x, a)		(((x) + (a) - 1) / (a) * (a))

/* Sequence number comparisons, modulo 2^32 (RFC 793, 3.3) */
#define SEQ_LT(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LE(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)		SEQ_LT(b, a)
#define SEQ_GE(a, b)		SEQ_LE(b, a)

#define NS_PER_MS		1000000LL
#define MS_PER_S		1000LL

/**
 * now_ms() - monotonic time in milliseconds
 * Return: CLOCK_MONOTONIC in ms
 */
static inline int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * MS_PER_S + ts.tv_nsec / NS_PER_MS;
}

int fd_set_nonblock(int fd);
int path_dir_open(const char *path, const char **name);
int unix_sock_bind(const char *path);
int unix_sock_listen(const char *path, const char *opt, int backlog,
		     int *dir_fd, const char **name);
int write_all(int fd, const void *buf, size_t len);
int fd_send(int s, const void *buf, size_t len, int fd);
int fd_recv(int s, void *buf, size_t len, int *fd);
uint64_t random_u64(void);

#endif /* UTIL_H */
