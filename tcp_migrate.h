/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TCP_MIGRATE_H
#define TCP_MIGRATE_H

#include <stdint.h>

struct ctx;
struct mig_io;

int tcp_mig_save(struct ctx *c, struct mig_io *io);
int tcp_mig_load(struct ctx *c, struct mig_io *io, uint32_t len);

#endif /* TCP_MIGRATE_H */
