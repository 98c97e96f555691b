/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef DGRAM_MIGRATE_H
#define DGRAM_MIGRATE_H

#include <stdint.h>

struct ctx;
struct mig_io;

int dgram_mig_save(struct ctx *c, struct mig_io *io);
int dgram_mig_load(struct ctx *c, struct mig_io *io, uint32_t len);

#endif /* DGRAM_MIGRATE_H */
