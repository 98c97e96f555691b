/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MIGRATE_H
#define MIGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

/**
 * struct mig_io - where the state goes or comes from: a pipe, or memory
 * @fd:		pipe (the front-end's end), -1 for memory
 * @mem:	memory, for @fd -1 (tests, fuzzing): what to load
 * @len:	its length
 * @off:	bytes read from it so far
 * @deadline:	for a pipe, when the transfer gives up (ms, monotonic)
 */
struct mig_io {
	int fd;
	const uint8_t *mem;
	size_t len;
	size_t off;
	int64_t deadline;
};

#define MIG_VERSION		1
#define MIG_TIMEOUT_MS		10000	/* a whole transfer, at most */

int mig_read(struct mig_io *io, void *buf, size_t len);
int mig_write(struct mig_io *io, const void *buf, size_t len);
bool mig_save(struct ctx *c, struct mig_io *io);
bool mig_load(struct ctx *c, struct mig_io *io);
bool mig_transfer(struct ctx *c, int fd, bool save);

#endif /* MIGRATE_H */
