/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef NDP_H
#define NDP_H

#include <netinet/in.h>
#include <stdint.h>

#include "pkt.h"

struct ctx;
struct l3_info;

/* Router advertisement timing, ms (RFC 4861, 6.2.1 and 10) */
#define NDP_MAX_RTR_ADV_INTERVAL_MS	600000	/* MaxRtrAdvInterval default */
#define NDP_MIN_RTR_ADV_INTERVAL_MS	200000	/* MinRtrAdvInterval: Max/3 */
#define NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS	16000
#define NDP_MAX_INITIAL_RTR_ADVERTISEMENTS	3
#define NDP_MIN_DELAY_BETWEEN_RAS_MS	3000
#define NDP_MAX_RA_DELAY_TIME_MS	500

void ndp_input(struct ctx *c, const struct l3_info *l3, struct pkt_view v);
int64_t ndp_timer(struct ctx *c);
int ndp_dns_offer(const struct ctx *c, struct in6_addr *dns);
void ndp_prefix_changed(struct ctx *c, const struct in6_addr *old,
			int old_len);

#endif /* NDP_H */
