/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UDP_MIGRATE_H
#define UDP_MIGRATE_H

#include <stdint.h>

struct ctx;
struct mig_io;

int udp_mig_save(struct ctx *c, struct mig_io *io);
int udp_mig_load(struct ctx *c, struct mig_io *io, uint32_t len);

#endif /* UDP_MIGRATE_H */
