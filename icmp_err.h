/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_ERR_H
#define ICMP_ERR_H

#include <stdint.h>
#include <netinet/in.h>
#include <netinet/ip.h>

#include "pkt.h"

struct ctx;
struct flow_key;
struct l3_info;

/**
 * struct icmp_err_mirror - what of the guest's IP header a flow's socket
 *			    sends with now (icmp_err_send())
 * @ttl:	TTL or hop limit, the guest's last one
 * @pmtud:	path MTU discovery mode (IP_PMTUDISC_*, IPV6_PMTUDISC_*:
 *		the same values)
 */
struct icmp_err_mirror {
	uint8_t ttl;
	uint8_t pmtud;
};

/* A new socket's: the host's defaults */
#define ICMP_ERR_MIRROR_INIT	\
	((struct icmp_err_mirror){ .ttl = IPDEFTTL, .pmtud = IP_PMTUDISC_WANT })

#define ICMP_ERR_BATCH		8	/* errors read per wake-up */

void icmp_err_watch(int s, const struct flow_key *key);
void icmp_err_unwatch(int s, const struct flow_key *key);
int icmp_err_to_tap(struct ctx *c, int s, const struct flow_key *key,
		    uint32_t seq);
int icmp_err_send(struct ctx *c, int s, const struct flow_key *key,
		  struct icmp_err_mirror *now, const struct l3_info *l3,
		  struct pkt_view msg);
uint8_t icmp_err_ttl_set(int s, const struct flow_key *key, uint8_t now,
			 uint8_t ttl);

#endif /* ICMP_ERR_H */
