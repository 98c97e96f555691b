/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MIG_IO_H
#define MIG_IO_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Section types */
enum mig_section {
	MIG_END = 0,
	MIG_GUEST = 1,		/* struct mig_guest */
	MIG_HANDOVER = 2,	/* struct mig_handover */
	MIG_TCP = 3,		/* struct mig_tcp (tcp_migrate.c) */
	MIG_DGRAM = 4,		/* struct mig_dgram (dgram_migrate.c) */
	MIG_FWD = 5,		/* inbound forwarding rules (migrate.c) */
};

#define MIG_VERSION		1
#define MIG_TIMEOUT_MS		10000	/* a whole transfer, at most */

int mig_read(struct mig_io *io, void *buf, size_t len);
int mig_write(struct mig_io *io, const void *buf, size_t len);
int mig_section_start(struct mig_io *io, enum mig_section type, uint32_t len);
/**
 * struct mig_section_hdr - the start of a section
 * @type:	enum mig_section
 * @flags:	none yet: 0
 * @len:	bytes that follow
 */
struct mig_section_hdr {
	uint16_t type;
	uint16_t flags;
	uint32_t len;
};

static_assert(sizeof(struct mig_section_hdr) == 8, "no padding");

int64_t mig_now_ms(void);
int mig_wait(const struct mig_io *io, short events);

#endif /* MIG_IO_H */
