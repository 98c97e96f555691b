/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef MIG_HANDOVER_H
#define MIG_HANDOVER_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct in6_addr;
union inany_addr;
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
int mig_sock_peer(int s, union inany_addr *a, uint16_t *port);
bool mig_sock_check(int s, int type, int proto, const struct in6_addr *peer,
		    uint16_t port);

#endif /* MIG_HANDOVER_H */
