/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UDP_H
#define UDP_H

#include <netinet/ip.h>
#include <stdint.h>

#include "passt.h"
#include "pkt.h"

#define UDP_IDLE_TIMEOUT_MS	(180 * MS_PER_S)

void udp_init(struct ctx *c);
void udp_tap_input(struct ctx *c, const struct iphdr *ih, struct pkt_view l4);
void udp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
void udp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events);

#endif /* UDP_H */
