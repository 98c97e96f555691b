/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MIGRATE_H
#define MIGRATE_H

#include <stdbool.h>

#include "mig_io.h"

struct ctx;

bool mig_save(struct ctx *c, struct mig_io *io);
bool mig_load(struct ctx *c, struct mig_io *io);
bool mig_transfer(struct ctx *c, int fd, bool save);
void mig_resume(struct ctx *c);
bool mig_moved_away(struct ctx *c);

#endif /* MIGRATE_H */
