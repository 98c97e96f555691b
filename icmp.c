// SPDX-License-Identifier: GPL-2.0-or-later
/* icmp.c - the guest's echo requests (ping) through host ping sockets
 *
 * Theory of operation: each echo identifier the guest uses towards a peer
 * gets a flow with an unprivileged ping socket (SOCK_DGRAM, IPPROTO_ICMP,
 * allowed by net.ipv4.ping_group_range) connected to the peer. The kernel
 * replaces the identifier with the socket's own and validates replies; we
 * put the guest's identifier back on the way in. Other ICMP messages from
 * the guest are dropped: errors about our flows have no host counterpart.
 * Flows expire after ICMP_IDLE_TIMEOUT_MS (flow_timer()).
 */

#include <errno.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "checksum.h"
#include "flow.h"
#include "flow_table.h"
#include "icmp.h"
#include "log.h"
#include "passt.h"
#include "tap.h"

#define ICMP_ECHO_HDR_LEN	8

static uint8_t icmp_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/**
 * icmp_flow_new() - open a ping socket for a guest's echo session
 * @c:		execution context
 * @key:	flow key, gport is the echo identifier
 *
 * Return: flow, or NULL on failure (logged)
 */
static struct icmp_flow *icmp_flow_new(struct ctx *c,
				       const struct flow_key *key)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_addr = key->paddr,
	};
	struct icmp_flow *pf;
	char str[FLOW_STRLEN];
	int idx, s;

	if (!c->no_map_gw && key->paddr.s_addr == c->gw4.s_addr)
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   IPPROTO_ICMP);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa))) {
		err_ratelimit("ICMP: ping socket for %s: %s (see "
			      "net.ipv4.ping_group_range)",
			      flow_str(key, str, sizeof(str)), strerror(errno));
		if (s >= 0)
			close(s);
		return NULL;
	}
	idx = flow_alloc();
	if (idx < 0) {
		pkt_drop(DROP_FLOW_TABLE_FULL);
		close(s);
		return NULL;
	}
	pf = &flowtab[idx].icmp;
	pf->f.type = FLOW_PING;
	pf->f.key = *key;
	pf->sock = s;
	pf->f.active_at = c->now;
	flow_hash_insert(idx);
	epoll_ref_add(c, s, EPOLL_TYPE_PING, idx, EPOLLIN);
	return pf;
}

/**
 * icmp_tap_input() - handle an ICMP message from the guest
 * @c:		execution context
 * @ih:		IPv4 header, checked
 * @l4:		view of the IP payload
 */
void icmp_tap_input(struct ctx *c, const struct iphdr *ih, struct pkt_view l4)
{
	struct flow_key key = { .proto = IPPROTO_ICMP };
	const struct icmphdr *icmph = pkt_pull(&l4, ICMP_ECHO_HDR_LEN);
	struct icmp_flow *pf;
	int idx;

	if (!icmph) {
		pkt_drop(DROP_ICMP_MALFORMED);
		return;
	}
	if (icmph->type != ICMP_ECHO || icmph->code)
		return;		/* nothing to relay */

	key.gaddr.s_addr = ih->saddr;
	key.paddr.s_addr = ih->daddr;
	key.gport = ntohs(icmph->un.echo.id);

	idx = flow_lookup(&key);
	pf = idx >= 0 ? &flowtab[idx].icmp : icmp_flow_new(c, &key);
	if (!pf)
		return;

	/* Header and data as they are: the kernel sets the identifier and
	 * the checksum
	 */
	if (send(pf->sock, icmph, ICMP_ECHO_HDR_LEN + l4.len, MSG_DONTWAIT) < 0)
		debug("ICMP: send: %s", strerror(errno));
	pf->f.active_at = c->now;
}

/**
 * icmp_sock_handler() - echo replies on a ping socket, to the guest
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 */
void icmp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	struct icmp_flow *pf = &flowtab[ref.index].icmp;
	uint8_t *l4 = icmp_frame + FRAME_L4_OFF;
	size_t max = (size_t)c->mtu - sizeof(struct iphdr);
	int i;

	(void)events;
	if (pf->f.type != FLOW_PING || pf->f.closing || pf->sock != ref.fd)
		return;

	for (i = 0; i < 16; i++) {
		struct icmphdr *icmph = (struct icmphdr *)l4;
		ssize_t n = recv(pf->sock, l4, max, MSG_DONTWAIT | MSG_TRUNC);

		if (n < 0)
			return;
		if (n < ICMP_ECHO_HDR_LEN || (size_t)n > max ||
		    icmph->type != ICMP_ECHOREPLY)
			continue;

		icmph->un.echo.id = htons(pf->f.key.gport);
		icmph->checksum = 0;
		icmph->checksum = csum(l4, n, 0);
		tap_ip4_hdr_fill(c, icmp_frame, pf->f.key.paddr,
				 pf->f.key.gaddr, IPPROTO_ICMP, n);
		tap_send(c, icmp_frame, n);
		pf->f.active_at = c->now;
	}
}

/**
 * icmp_flow_free() - release a closed session's socket
 * @c:		execution context
 * @idx:	flow index
 */
void icmp_flow_free(struct ctx *c, int idx)
{
	struct icmp_flow *pf = &flowtab[idx].icmp;

	epoll_ref_del(c, pf->sock);
	close(pf->sock);
}
