// SPDX-License-Identifier: GPL-2.0-or-later
/* arp.c - answer the guest's ARP requests
 *
 * Every address but the guest's own is behind us: the gateway and any
 * neighbour the guest thinks is on its link. So we answer any request for a
 * target that is not the guest's address with our MAC, and ignore the rest
 * (including the guest's duplicate address probes and announcements).
 */

#include <linux/if_ether.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <string.h>
#include <arpa/inet.h>

#include "arp.h"
#include "ip.h"
#include "link.h"
#include "passt.h"

/**
 * struct arp_body - Ethernet/IPv4 ARP payload after struct arphdr
 */
struct arp_body {
	uint8_t sha[ETH_ALEN];
	uint8_t sip[4];
	uint8_t tha[ETH_ALEN];
	uint8_t tip[4];
} __attribute__((packed));

/**
 * arp_input() - reply to an ARP request for an address we stand in for
 * @c:		execution context
 * @v:		view from the ARP header to the end of the frame
 */
void arp_input(struct ctx *c, struct pkt_view v)
{
	uint8_t buf[FRAME_PAD + ETH_HLEN + sizeof(struct arphdr) +
		    sizeof(struct arp_body)] __attribute__((aligned(4)));
	const struct arphdr *ah = pkt_pull(&v, sizeof(*ah));
	const struct arp_body *req = pkt_pull(&v, sizeof(*req));
	struct ethhdr *eh = (struct ethhdr *)(buf + FRAME_PAD);
	struct arphdr *rah = (struct arphdr *)(eh + 1);
	struct arp_body *rep = (struct arp_body *)(rah + 1);

	if (!ah || !req || ah->ar_hrd != htons(ARPHRD_ETHER) ||
	    ah->ar_pro != htons(ETH_P_IP) || ah->ar_hln != ETH_ALEN ||
	    ah->ar_pln != 4) {
		pkt_drop(DROP_ARP_MALFORMED);
		return;
	}
	if (ah->ar_op != htons(ARPOP_REQUEST))
		return;
	/* Not for the guest's own address, nor its probes (sender 0.0.0.0) */
	if (!memcmp(req->tip, &ip_net()->addr4, 4) ||
	    !memcmp(req->tip, req->sip, 4))
		return;

	memcpy(eh->h_dest, req->sha, ETH_ALEN);
	memcpy(eh->h_source, c->mac_ours, ETH_ALEN);
	eh->h_proto = htons(ETH_P_ARP);
	*rah = *ah;
	rah->ar_op = htons(ARPOP_REPLY);
	memcpy(rep->sha, c->mac_ours, ETH_ALEN);
	memcpy(rep->sip, req->tip, 4);
	memcpy(rep->tha, req->sha, ETH_ALEN);
	memcpy(rep->tip, req->sip, 4);

	link_send_raw(c, buf + FRAME_PAD, sizeof(buf) - FRAME_PAD);
}
