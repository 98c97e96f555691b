/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UDP_H
#define UDP_H

#include <stdint.h>

#include "ip.h"
#include "passt.h"
#include "pkt.h"

/* Answered flows: upstream's timeout, longer than conntrack's 120 s for
 * an answered, repeated exchange
 */
#define UDP_IDLE_TIMEOUT_MS	(180 * MS_PER_S)

void udp_init(void);
void udp_stats(void);
void udp_tap_input(struct ctx *c, const struct l3_info *l3, uint16_t sport,
		   uint16_t dport, struct pkt_view data);
void udp_tap_send(struct ctx *c, uint8_t *buf, const union inany_addr *src,
		  uint16_t sport, const union inany_addr *dst, uint16_t dport,
		  size_t len);
void udp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
void udp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
int udp_flow_adopt(struct ctx *c, const struct flow_key *key, int s);

#endif /* UDP_H */
