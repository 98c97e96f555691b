/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef DHCPV6_H
#define DHCPV6_H

#include <netinet/in.h>

#include "pkt.h"

struct ctx;
struct l3_info;

#define DHCPV6_CLIENT_PORT	546	/* RFC 8415, 7.2 */
#define DHCPV6_SERVER_PORT	547

extern const struct in6_addr dhcpv6_all_servers;	/* ff02::1:2 */

void dhcpv6_input(struct ctx *c, const struct l3_info *l3, struct pkt_view v);

#endif /* DHCPV6_H */
