/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_H
#define ICMP_H

#include <stdint.h>

#include "ip.h"
#include "passt.h"
#include "pkt.h"

#define ICMP_IDLE_TIMEOUT_MS	(60 * MS_PER_S)

void icmp_init(void);
void icmp_tap_input(struct ctx *c, const struct l3_info *l3,
		    struct pkt_view l4);
void icmp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
int icmp_flow_adopt(struct ctx *c, const struct flow_key *key, int s);

#endif /* ICMP_H */
