// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_migrate.c - a guest's UDP flows in its migration's state
 *
 * Theory of operation: a UDP flow the guest started has a host socket of
 * its own, bound to a port (the guest's own where it was free) and
 * connected to the peer, who answers to that port. Each goes into the
 * state as one MIG_UDP section (struct mig_udp); on the same host its
 * socket is handed over with the TCP connections' (mig_handover.c), so the
 * port is the very same; elsewhere the target makes a socket like it,
 * bound to the same port if it is free there, and connects it: a peer's
 * datagram that comes before the guest's next one finds the flow already.
 * Both ends keep the flows frozen (no events, no expiry) until the guest
 * runs on one of them, as for TCP.
 *
 * Inbound flows (a datagram to a forwarded port) have no socket of their
 * own: the target's forwarded port takes the next one.
 */

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "flow.h"
#include "flow_table.h"
#include "inany.h"
#include "ip.h"
#include "log.h"
#include "mig_handover.h"
#include "mig_io.h"
#include "passt.h"
#include "udp.h"
#include "udp_migrate.h"

/**
 * struct mig_udp - MIG_UDP: one flow, integers in network order
 * @gaddr:	the guest's address (flow key)
 * @paddr:	the peer's, as the guest sees it
 * @gport:	the guest's port
 * @pport:	the peer's
 * @local_port:	the port of the host socket
 * @flags:	MIG_UDP_ANSWERED, or 0
 * @sock:	position of the socket in the handover
 * @peer:	the socket's peer, to check the one handed over
 * @peer_port:	its port
 * @pad2:	0
 */
struct mig_udp {
	struct in6_addr gaddr;
	struct in6_addr paddr;
	uint16_t gport;
	uint16_t pport;
	uint16_t local_port;
	uint16_t flags;
	uint32_t sock;
	struct in6_addr peer;
	uint16_t peer_port;
	uint16_t pad2;
};

static_assert(sizeof(struct mig_udp) == 64, "mig_udp: no padding");

#define MIG_UDP_ANSWERED	1	/* the peer answered already */

/**
 * udp_mig_flow_save() - one flow's section, its socket handed over
 * @c:		execution context
 * @io:		transfer
 * @idx:	flow index, outbound, with its socket
 *
 * Return: 0 on success, also for a flow not worth moving; -1 on failure
 */
static int udp_mig_flow_save(struct ctx *c, struct mig_io *io, int idx)
{
	const struct udp_flow *uf = &flowtab[idx].udp;
	struct mig_udp u = {
		.gaddr = uf->f.key.gaddr.a6, .paddr = uf->f.key.paddr.a6,
		.gport = htons(uf->f.key.gport),
		.pport = htons(uf->f.key.pport),
		.sock = htonl(mig_handover_count()),
		.flags = htons(uf->f.answered ? MIG_UDP_ANSWERED : 0),
	};
	union inany_addr peer, local;
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);
	uint16_t port;

	if (mig_sock_peer(uf->sock, &peer, &port) ||
	    getsockname(uf->sock, &sa.sa, &sl) ||
	    inany_from_sockaddr(&local, &u.local_port, &sa))
		return 0;
	u.peer = peer.a6;
	u.peer_port = htons(port);
	u.local_port = htons(u.local_port);
	mig_handover_add(idx);
	udp_flow_freeze(c, idx);
	if (mig_section_start(io, MIG_UDP, sizeof(u)))
		return -1;
	return mig_write(io, &u, sizeof(u));
}

/**
 * udp_mig_save() - every outbound UDP flow of the guest
 * @c:		execution context
 * @io:		transfer
 *
 * Return: 0 on success, -1 on failure
 */
int udp_mig_save(struct ctx *c, struct mig_io *io)
{
	unsigned int i, hwm = flow_high_water();

	for (i = 0; i < hwm; i++) {
		const struct udp_flow *uf = &flowtab[i].udp;

		if (uf->f.type != FLOW_UDP || uf->f.closing || uf->f.frozen ||
		    uf->f.key.spliced || uf->sock < 0 || uf->listen_fd >= 0)
			continue;
		if (udp_mig_flow_save(c, io, i))
			return -1;
	}
	return 0;
}

/**
 * udp_mig_sock_new() - a socket like the source's: same local port where
 *			it is free, connected to the peer
 * @c:		execution context
 * @key:	flow key, checked
 * @local_port:	the source's local port
 *
 * Return: socket, or -1 on failure
 */
static int udp_mig_sock_new(struct ctx *c, const struct flow_key *key,
			    uint16_t local_port)
{
	union sockaddr_inany sa;
	socklen_t sl;
	int s;

	s = ip_flow_sock(c, SOCK_DGRAM, IPPROTO_UDP, &key->paddr, key->pport,
			 local_port, &sa, &sl);
	if (s < 0)
		return -1;
	if (connect(s, &sa.sa, sl)) {
		close(s);
		return -1;
	}
	return s;
}

/**
 * udp_mig_load() - MIG_UDP: take one flow
 * @c:		execution context
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, also for a flow left behind (the guest's next
 *	   datagram makes a new one); -1 if the section is wrong
 */
int udp_mig_load(struct ctx *c, struct mig_io *io, uint32_t len)
{
	char str[FLOW_STRLEN];
	struct flow_key key;
	const char *wrong;
	struct mig_udp u;
	int s, idx;

	if (len != sizeof(u) || mig_read(io, &u, sizeof(u))) {
		err("migration: UDP section of %u bytes", len);
		return -1;
	}
	memset(&key, 0, sizeof(key));
	key.gaddr.a6 = u.gaddr;
	key.paddr.a6 = u.paddr;
	key.gport = ntohs(u.gport);
	key.pport = ntohs(u.pport);
	key.proto = IPPROTO_UDP;
	wrong = (ntohs(u.flags) & ~MIG_UDP_ANSWERED) || u.pad2 ||
		!u.local_port ? "flags or port" : ip_flow_key_check(&key);
	if (wrong) {
		err("migration: UDP flow %s: %s",
		    flow_str(&key, str, sizeof(str)), wrong);
		return -1;
	}
	s = mig_handover_take(ntohl(u.sock));
	if (s >= 0 && !mig_sock_check(s, SOCK_DGRAM, IPPROTO_UDP, &u.peer,
				      ntohs(u.peer_port))) {
		err("migration: %s: the socket handed over isn't the flow's",
		    flow_str(&key, str, sizeof(str)));
		close(s);
		return -1;
	}
	if (s < 0)
		s = udp_mig_sock_new(c, &key, ntohs(u.local_port));
	if (s < 0 || (idx = udp_flow_adopt(c, &key, s)) < 0) {
		debug("migration: %s: left behind",
		      flow_str(&key, str, sizeof(str)));
		return 0;
	}
	flowtab[idx].f.answered = ntohs(u.flags) & MIG_UDP_ANSWERED;
	return 0;
}
