// SPDX-License-Identifier: GPL-2.0-or-later
/* dgram_migrate.c - a guest's datagram flows (UDP, ICMP echo) in its
 *		     migration's state
 *
 * Theory of operation: a UDP flow the guest started has a host socket of
 * its own, bound to a port (the guest's own where it was free) and
 * connected to the peer, who answers to that port; an echo session has a
 * ping socket, whose port is the echo identifier the peer answers to.
 * Each goes into the state as one MIG_DGRAM section (struct mig_dgram);
 * on the same host its socket is handed over with the TCP connections'
 * (mig_handover.c), so the port is the very same; elsewhere the target
 * makes a socket like it, bound to the same port if it is free there, and
 * connects it: a peer's datagram that comes before the guest's next one
 * finds the flow already.
 * Both ends keep the flows frozen (no events, no expiry) until the guest
 * runs on one of them, as for TCP.
 *
 * Inbound UDP flows (a datagram to a forwarded port) have no socket of
 * their own: the target's forwarded port takes the next one.
 */

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dgram_migrate.h"
#include "flow.h"
#include "flow_table.h"
#include "icmp.h"
#include "inany.h"
#include "ip.h"
#include "log.h"
#include "mig_handover.h"
#include "mig_io.h"
#include "passt.h"
#include "udp.h"

/**
 * struct mig_dgram - MIG_DGRAM: one flow, integers in network order
 * @gaddr:	the guest's address (flow key)
 * @paddr:	the peer's, as the guest sees it
 * @gport:	the guest's port, or echo identifier
 * @pport:	the peer's, 0 for an echo session
 * @local_port:	the port (echo identifier) of the host socket
 * @flags:	MIG_DGRAM_ANSWERED, or 0
 * @sock:	position of the socket in the handover
 * @peer:	the socket's peer, to check the one handed over; unspecified
 *		for an echo session (a ping socket names none)
 * @peer_port:	its port, 0 for an echo session
 * @proto:	IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 * @pad2:	0
 */
struct mig_dgram {
	struct in6_addr gaddr;
	struct in6_addr paddr;
	uint16_t gport;
	uint16_t pport;
	uint16_t local_port;
	uint16_t flags;
	uint32_t sock;
	struct in6_addr peer;
	uint16_t peer_port;
	uint8_t proto;
	uint8_t pad2;
};

static_assert(sizeof(struct mig_dgram) == 64, "mig_dgram: no padding");

#define MIG_DGRAM_ANSWERED	1	/* the peer answered already */

/**
 * dgram_mig_flow_save() - one flow's section, its socket handed over
 * @c:		execution context
 * @io:		transfer
 * @idx:	flow index, with a socket of its own
 *
 * Return: 0 on success, also for a flow not worth moving; -1 on failure
 */
static int dgram_mig_flow_save(struct ctx *c, struct mig_io *io, int idx)
{
	const struct flow_common *f = &flowtab[idx].f;
	int s = flow_sock(idx);
	struct mig_dgram d = {
		.gaddr = f->key.gaddr.a6, .paddr = f->key.paddr.a6,
		.gport = htons(f->key.gport), .pport = htons(f->key.pport),
		.sock = htonl(mig_handover_count()),
		.flags = htons(f->answered ? MIG_DGRAM_ANSWERED : 0),
		.proto = f->key.proto,
	};
	union inany_addr peer, local;
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);
	uint16_t port;

	/* A ping socket has no peer to name (no port): the key says it */
	if ((f->type == FLOW_UDP && mig_sock_peer(s, &peer, &port)) ||
	    getsockname(s, &sa.sa, &sl) ||
	    inany_from_sockaddr(&local, &d.local_port, &sa))
		return 0;
	if (f->type == FLOW_UDP) {
		d.peer = peer.a6;
		d.peer_port = htons(port);
	}
	d.local_port = htons(d.local_port);
	mig_handover_add(idx);
	flow_freeze(c, idx);
	if (mig_section_start(io, MIG_DGRAM, sizeof(d)))
		return -1;
	return mig_write(io, &d, sizeof(d));
}

/**
 * dgram_mig_save() - every outbound UDP flow and echo session of the guest
 * @c:		execution context
 * @io:		transfer
 *
 * Return: 0 on success, -1 on failure
 */
int dgram_mig_save(struct ctx *c, struct mig_io *io)
{
	unsigned int i, hwm = flow_high_water();

	for (i = 0; i < hwm; i++) {
		const union flow *fl = &flowtab[i];

		if (fl->f.closing || fl->f.frozen || fl->f.key.spliced ||
		    (fl->f.type != FLOW_PING &&
		     (fl->f.type != FLOW_UDP || fl->udp.sock < 0 ||
		      fl->udp.listen_fd >= 0)))
			continue;
		if (dgram_mig_flow_save(c, io, i))
			return -1;
	}
	return 0;
}

/**
 * dgram_mig_sock_new() - a socket like the source's: same local port (or
 *			  echo identifier) where it is free, connected
 * @c:		execution context
 * @key:	flow key, checked
 * @local_port:	the source's local port
 *
 * Return: socket, or -1 on failure
 */
static int dgram_mig_sock_new(struct ctx *c, const struct flow_key *key,
			      uint16_t local_port)
{
	union sockaddr_inany sa;
	socklen_t sl;
	int s;

	s = ip_flow_sock(c, SOCK_DGRAM, key->proto, &key->paddr, key->pport,
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
 * dgram_mig_key() - a loaded section's flow key, and what's wrong with it
 * @d:		section, as read
 * @key:	flow key, set
 *
 * Return: NULL if it could be the guest's, else what is wrong
 */
static const char *dgram_mig_key(const struct mig_dgram *d,
				 struct flow_key *key)
{
	bool echo = d->proto == IPPROTO_ICMP || d->proto == IPPROTO_ICMPV6;

	memset(key, 0, sizeof(*key));
	key->gaddr.a6 = d->gaddr;
	key->paddr.a6 = d->paddr;
	key->gport = ntohs(d->gport);
	key->pport = ntohs(d->pport);
	key->proto = d->proto;
	if ((ntohs(d->flags) & ~MIG_DGRAM_ANSWERED) || d->pad2 ||
	    (!echo && (!d->local_port || !d->peer_port)))
		return "flags or port";
	if (echo && (d->peer_port || !IN6_IS_ADDR_UNSPECIFIED(&d->peer)))
		return "echo session with a peer";
	if (d->proto != IPPROTO_UDP &&
	    d->proto != (inany_v4(&key->gaddr) ? IPPROTO_ICMP : IPPROTO_ICMPV6))
		return "protocol";
	if (echo && key->pport)
		return "echo session with a port";
	return ip_flow_key_check(key);
}

/**
 * dgram_mig_load() - MIG_DGRAM: take one flow
 * @c:		execution context
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, also for a flow left behind (the guest's next
 *	   datagram makes a new one); -1 if the section is wrong
 */
int dgram_mig_load(struct ctx *c, struct mig_io *io, uint32_t len)
{
	char str[FLOW_STRLEN];
	struct mig_dgram d;
	struct flow_key key;
	const char *wrong;
	int s, idx;

	if (len != sizeof(d) || mig_read(io, &d, sizeof(d))) {
		err("migration: datagram section of %u bytes", len);
		return -1;
	}
	if ((wrong = dgram_mig_key(&d, &key))) {
		err("migration: flow %s: %s", flow_str(&key, str, sizeof(str)),
		    wrong);
		return -1;
	}
	s = mig_handover_take(ntohl(d.sock));
	if (s >= 0 && !mig_sock_check(s, SOCK_DGRAM, d.proto, &d.peer,
				      ntohs(d.peer_port))) {
		err("migration: %s: the socket handed over isn't the flow's",
		    flow_str(&key, str, sizeof(str)));
		close(s);
		return -1;
	}
	if (s < 0)
		s = dgram_mig_sock_new(c, &key, ntohs(d.local_port));
	if (s >= 0)
		idx = d.proto == IPPROTO_UDP ? udp_flow_adopt(c, &key, s) :
					       icmp_flow_adopt(c, &key, s);
	if (s < 0 || idx < 0) {
		debug("migration: %s: left behind",
		      flow_str(&key, str, sizeof(str)));
		return 0;
	}
	flowtab[idx].f.answered = ntohs(d.flags) & MIG_DGRAM_ANSWERED;
	return 0;
}
