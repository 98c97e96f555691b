/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FOLLOW_H
#define FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "inany.h"

struct ctx;
struct guest_fam;

/**
 * struct host_fam - the host's default route and address in one family
 * @ifi:	interface we copy from: -i's, else the default route's; 0 if
 *		neither is there
 * @route:	there is a default route
 * @gw:		its gateway; unspecified if none, direct, or not via -i
 * @addr:	address of global scope on @ifi, unspecified if none
 * @prefix:	its prefix length
 */
struct host_fam {
	unsigned int ifi;
	bool route;
	union inany_addr gw;
	union inany_addr addr;
	int prefix;
};

void follow_host_read(const struct ctx *c, int nl, int family,
		      const union inany_addr *prefer, struct host_fam *h);
void follow_local(int family, struct guest_fam *g, const struct in6_addr *ll6);
void follow_init(struct ctx *c);
void follow_handler(struct ctx *c);
int64_t follow_timer(struct ctx *c);

#endif /* FOLLOW_H */
