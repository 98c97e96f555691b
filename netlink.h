/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef NETLINK_H
#define NETLINK_H

#include <netinet/in.h>

int nl_open(void);
int nl_default_route4(int nl, unsigned int *ifi, struct in_addr *gw);
int nl_default_route6(int nl, unsigned int *ifi, struct in6_addr *gw);
int nl_addr4_get(int nl, unsigned int ifi, struct in_addr *addr,
		 int *prefix_len);
int nl_addr6_get(int nl, unsigned int ifi, struct in6_addr *addr,
		 int *prefix_len);
int nl_link_index(int nl, const char *name);
int nl_link_mtu_get(int nl, unsigned int ifi);
int nl_link_set_up(int nl, unsigned int ifi, int mtu);
int nl_addr4_add(int nl, unsigned int ifi, struct in_addr addr,
		 int prefix_len);
int nl_addr6_add(int nl, unsigned int ifi, const struct in6_addr *addr,
		 int prefix_len);
int nl_route4_add_default(int nl, unsigned int ifi, struct in_addr gw);
int nl_route6_add_default(int nl, unsigned int ifi,
			  const struct in6_addr *gw);

#endif /* NETLINK_H */
