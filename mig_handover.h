/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MIG_HANDOVER_H
#define MIG_HANDOVER_H

#include <stdint.h>

struct ctx;
struct mig_io;

int mig_handover_save(const struct ctx *c, struct mig_io *io);
int mig_handover_load(struct mig_io *io, uint32_t len);
unsigned int mig_handover_count(void);
void mig_handover_add(int idx);
int mig_handover_flow(unsigned int pos);
int mig_handover_repair(const struct ctx *c, int8_t cmd);
int mig_handover_take(uint32_t pos);
void mig_handover_serve(struct ctx *c);
void mig_handover_close(const struct ctx *c);
void mig_handover_release(void);

#endif /* MIG_HANDOVER_H */
