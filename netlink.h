/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef NETLINK_H
#define NETLINK_H

#include "inany.h"

int nl_open(void);
int nl_default_route(int nl, int family, unsigned int *ifi,
		     union inany_addr *gw);
int nl_addr_get(int nl, int family, unsigned int ifi,
		const union inany_addr *prefer, union inany_addr *addr,
		int *prefix_len);
int nl_addr_get_ll(int nl, unsigned int ifi, struct in6_addr *ll);
int nl_addr_list(int nl, int family, union inany_addr *list, int max);
int nl_link_index(int nl, const char *name);
int nl_link_mtu_get(int nl, unsigned int ifi);
int nl_link_set_up(int nl, unsigned int ifi, int mtu);
int nl_addr_add(int nl, unsigned int ifi, const union inany_addr *addr,
		int prefix_len);
int nl_addr_del(int nl, unsigned int ifi, const union inany_addr *addr,
		int prefix_len);
int nl_route_add_default(int nl, unsigned int ifi,
			 const union inany_addr *gw);
int nl_route_replace_default(int nl, unsigned int ifi,
			     const union inany_addr *gw);
int nl_monitor_open(void);
int nl_monitor_drain(int fd);

#endif /* NETLINK_H */
