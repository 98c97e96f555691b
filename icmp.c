// SPDX-License-Identifier: GPL-2.0-or-later
/* icmp.c - the guest's echo requests (ping) through host ping sockets
 *
 * Theory of operation: each echo identifier the guest uses towards a peer
 * gets a flow with an unprivileged ping socket (SOCK_DGRAM, IPPROTO_ICMP or
 * IPPROTO_ICMPV6, both allowed by net.ipv4.ping_group_range) connected to
 * the peer. The kernel replaces the identifier with the socket's own and
 * validates replies; we put the guest's identifier back on the way in.
 * ICMPv6 neighbour discovery goes to ndp.c (input.c). Other ICMP from the
 * guest are dropped: errors about our flows have no host counterpart.
 * Flows expire after ICMP_IDLE_TIMEOUT_MS without traffic, sooner if no
 * reply ever came (flow_timer()).
 */

#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "flow.h"
#include "flow_table.h"
#include "icmp.h"
#include "icmp_err.h"
#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"

#define ICMP_ECHO_HDR_LEN	8

/**
 * struct icmp_echo_types - echo request and reply types of one family
 * @request:	echo request
 * @reply:	echo reply
 */
struct icmp_echo_types {
	uint8_t request;
	uint8_t reply;
};

static const struct icmp_echo_types icmp_echo4 = { ICMP_ECHO, ICMP_ECHOREPLY };
static const struct icmp_echo_types icmp_echo6 = { ICMP6_ECHO_REQUEST,
						   ICMP6_ECHO_REPLY };

static const struct icmp_echo_types *icmp_echo(const union inany_addr *a)
{
	return inany_is_v4(a) ? &icmp_echo4 : &icmp_echo6;
}

static uint8_t icmp_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/**
 * icmp_flow_on() - an echo session on its ping socket
 * @c:		execution context
 * @key:	flow key, gport is the echo identifier
 * @s:		ping socket, connected; closed on failure
 *
 * Return: flow, or NULL if the table is full
 */
static struct icmp_flow *icmp_flow_on(struct ctx *c,
				      const struct flow_key *key, int s)
{
	int idx = flow_alloc(c, FLOW_BUDGET_ICMP);
	struct icmp_flow *pf;

	if (idx < 0) {
		pkt_drop(DROP_FLOW_TABLE_FULL);
		close(s);
		return NULL;
	}
	pf = &flowtab[idx].icmp;
	pf->f.type = FLOW_PING;
	pf->f.key = *key;
	pf->sock = s;
	pf->sent_as = ICMP_ERR_MIRROR_INIT;
	pf->f.active_at = c->now;
	icmp_err_watch(s, key);
	flow_hash_insert(idx);
	return pf;
}

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
	union sockaddr_inany sa;
	struct icmp_flow *pf;
	char str[FLOW_STRLEN];
	socklen_t sl;
	int s;

	s = ip_flow_sock(c, SOCK_DGRAM, key->proto, &key->paddr, 0, 0, &sa,
			 &sl);
	if (s < 0 || connect(s, &sa.sa, sl)) {
		err_ratelimit("ICMP: ping socket for %s: %s (see "
			      "net.ipv4.ping_group_range)",
			      flow_str(key, str, sizeof(str)),
			      strerror(s < 0 ? -s : errno));
		if (s >= 0)
			close(s);
		return NULL;
	}
	pf = icmp_flow_on(c, key, s);
	if (pf)
		epoll_ref_add(c, s, EPOLL_TYPE_PING, FLOW_IDX_OF(pf), EPOLLIN);
	return pf;
}

/**
 * icmp_flow_adopt() - an echo session on a socket migration brought here,
 *		       frozen until the guest runs here (icmp_flow_resume())
 * @c:		execution context
 * @key:	flow key, not in the table
 * @s:		its ping socket, connected; closed on failure
 *
 * Return: flow index, -1 if the table is full
 */
int icmp_flow_adopt(struct ctx *c, const struct flow_key *key, int s)
{
	struct icmp_flow *pf = icmp_flow_on(c, key, s);

	if (!pf)
		return -1;
	pf->f.frozen = true;
	return FLOW_IDX_OF(pf);
}

/**
 * icmp_flow_resume() - put a frozen session to work: brought here, or
 *			given back by a move that failed
 * @c:		execution context
 * @idx:	flow index
 */
static void icmp_flow_resume(struct ctx *c, int idx)
{
	flow_dgram_resume(c, idx, EPOLL_TYPE_PING);
}

/**
 * icmp_tap_input() - handle an ICMP or ICMPv6 message from the guest
 * @c:		execution context
 * @l3:		addresses and protocol, checked
 * @l4:		view of the IP payload
 */
void icmp_tap_input(struct ctx *c, const struct l3_info *l3,
		    struct pkt_view l4)
{
	struct flow_key key = { .proto = l3->proto };
	struct pkt_view msg = l4;
	const struct icmphdr *icmph = pkt_pull(&msg, ICMP_ECHO_HDR_LEN);
	struct icmp_flow *pf;
	int idx;

	if (!icmph) {
		pkt_drop(DROP_ICMP_MALFORMED);
		return;
	}
	if (icmph->type != icmp_echo(&l3->src)->request || icmph->code ||
	    inany_is_multicast(&l3->dst))
		return;		/* nothing to relay */

	key.gaddr = l3->src;
	key.paddr = l3->dst;
	key.gport = ntohs(icmph->un.echo.id);

	idx = flow_lookup(&key);
	pf = idx >= 0 ? &flowtab[idx].icmp : icmp_flow_new(c, &key);
	if (!pf)
		return;

	/* Header and data as they are: the kernel sets the identifier and
	 * the checksum
	 */
	if (icmp_err_send(c, pf->sock, &key, &pf->sent_as, l3, l4))
		debug("ICMP: send: %s", strerror(errno));
	flow_dgram_seen(&pf->f, c->now, false);
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
	struct icmphdr *icmph = (struct icmphdr *)(icmp_frame + FRAME_L4_OFF);
	const struct flow_key *key = &pf->f.key;
	size_t max;
	int i;

	if (pf->f.type != FLOW_PING || pf->f.closing || pf->sock != ref.fd)
		return;
	for (i = 0; (events & EPOLLERR) && i < ICMP_ERR_BATCH &&
		    !icmp_err_to_tap(c, pf->sock, key, 0); i++)
		;
	max = c->mtu - (inany_is_v4(&key->gaddr) ? sizeof(struct iphdr) :
						   sizeof(struct ipv6hdr));

	for (i = 0; i < 16; i++) {
		ssize_t n = recv(pf->sock, icmph, max,
				 MSG_DONTWAIT | MSG_TRUNC);
		struct link_frame frame;

		if (n < 0)
			return;
		if (n < ICMP_ECHO_HDR_LEN || (size_t)n > max ||
		    icmph->type != icmp_echo(&key->gaddr)->reply)
			continue;

		icmph->un.echo.id = htons(key->gport);
		frame = ip_frame(c, icmp_frame, &key->paddr, &key->gaddr,
				 key->proto, n);
		link_send(c, &frame, 1);
		flow_dgram_seen(&pf->f, c->now, true);
	}
}

/**
 * icmp_flow_free() - release a closed session's socket
 * @c:		execution context
 * @idx:	flow index
 */
static void icmp_flow_free(struct ctx *c, int idx)
{
	struct icmp_flow *pf = &flowtab[idx].icmp;

	epoll_ref_del(c, pf->sock);
	close(pf->sock);
}

/**
 * icmp_flow_sock() - a session's ping socket
 * @idx:	flow index
 *
 * Return: socket
 */
static int icmp_flow_sock(int idx)
{
	return flowtab[idx].icmp.sock;
}

static const struct flow_type_ops icmp_flow_ops = {
	.free		= icmp_flow_free,
	.sock		= icmp_flow_sock,
	.resume		= icmp_flow_resume,
	.idle_ms	= ICMP_IDLE_TIMEOUT_MS,
};

/**
 * icmp_init() - register echo sessions with the flow table
 */
void icmp_init(void)
{
	flow_type_register(FLOW_PING, &icmp_flow_ops);
}
