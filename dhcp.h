/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef DHCP_H
#define DHCP_H

#include <netinet/in.h>
#include <stdbool.h>

#include "pkt.h"

struct ctx;

#define DHCP_SERVER_PORT	67
#define DHCP_CLIENT_PORT	68

void dhcp_input(struct ctx *c, struct pkt_view v);
int dhcp_dns_offer(const struct ctx *c, struct in_addr *dns);

#endif /* DHCP_H */
