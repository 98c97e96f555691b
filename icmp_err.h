/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_ERR_H
#define ICMP_ERR_H

#include <stdint.h>

struct ctx;
struct flow_key;

#define ICMP_ERR_BATCH		8	/* errors read per wake-up */

void icmp_err_watch(int s, const struct flow_key *key);
void icmp_err_unwatch(int s, const struct flow_key *key);
int icmp_err_to_tap(struct ctx *c, int s, const struct flow_key *key,
		    uint32_t seq);
uint8_t icmp_err_ttl_set(int s, const struct flow_key *key, uint8_t now,
			 uint8_t ttl);

#endif /* ICMP_ERR_H */
