/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SPLICE_H
#define SPLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "passt.h"

void splice_init(void);
void splice_handler(struct ctx *c, union epoll_ref ref, uint32_t events);
void splice_listen_handler(struct ctx *c, union epoll_ref ref,
			   uint32_t events);
bool splice_inbound(const struct ctx *c, const union inany_addr *client,
		    const union inany_addr *local, union inany_addr *dst);
void splice_from_host(struct ctx *c, int s, const union inany_addr *dst,
		      uint16_t to);

#endif /* SPLICE_H */
