/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FLOW_TABLE_H
#define FLOW_TABLE_H

#include "flow.h"
#include "tcp_conn.h"
#include "udp_flow.h"
#include "icmp_flow.h"
#include "splice_flow.h"

/**
 * union flow - an entry of the flow table: the common header comes first
 */
union flow {
	struct flow_common f;
	struct tcp_conn tcp;
	struct udp_flow udp;
	struct icmp_flow icmp;
	struct splice_flow splice;
};

extern union flow flowtab[FLOW_MAX];

/* The index of a flow, from a pointer to its entry (any member) */
#define FLOW_IDX_OF(p)		((int)((const union flow *)(p) - flowtab))

#endif /* FLOW_TABLE_H */
