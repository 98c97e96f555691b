/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TCP_H
#define TCP_H

#include <stdint.h>

#include "flow.h"
#include "ip.h"
#include "passt.h"
#include "pkt.h"

void tcp_init(void);
void tcp_tap_input(struct ctx *c, const struct l3_info *l3,
		   struct pkt_view l4, const struct pkt_tail *tail);
void tcp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
void tcp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
void tcp_tx_flush(struct ctx *c);
void tcp_batch_end(struct ctx *c);
void tcp_link_room(struct ctx *c);
int64_t tcp_timer(struct ctx *c);
void tcp_stats(const struct ctx *c);
int tcp_conn_new(struct ctx *c, const struct flow_key *key, int s);
void tcp_conn_freeze(struct ctx *c, int idx);
void tcp_conn_resume(struct ctx *c, int idx);
void tcp_conn_rewind(struct ctx *c, int idx);
void tcp_rst_to_guest(struct ctx *c, const struct flow_key *key, uint32_t seq);

#endif /* TCP_H */
