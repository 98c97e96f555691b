// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd.c - port forwarding: the rules in force, and their sockets
 *
 * Theory of operation: rules (fwd_rule.c) come in two tables, upstream's
 * "pifs": FWD_IN, host ports to the guest (-t, -u), and, for pasta,
 * FWD_OUT, the namespace's ports to the host's loopback (-T, -U), whose
 * sockets are opened inside the namespace. Each table starts as conf()
 * made it, and a client of the control socket (ctl.c) may replace it
 * whole at run time (fwd_update()).
 *
 * Each forwarded port has a socket of its own, registered with epoll under
 * its index in a static listener table, which holds what the TCP and UDP
 * handlers need: the target port and address. A rule without an address
 * takes one dual-stack socket, or, inside the namespace, one per family
 * on the loopback (twins). Applying a table (fwd_apply()) keeps the
 * socket of every port whose rule still binds it the same way, changing
 * its target in place, opens the new ones and closes the rest, so that
 * an update leaves the other forwarded ports alone: their connections
 * are never refused. A port that can't be bound fails the whole table,
 * which is then rolled back (at start-up: fatal, after a second's
 * retries, fwd_listen_port_retry()), except for the ports of a "best
 * effort" rule ("all", "auto"), which are skipped.
 *
 * "auto" rules (FWD_RULE_SCAN) instead follow the ports the other side
 * listens on, asked every second through sock_diag (a netlink socket
 * opened inside the namespace for FWD_IN, in the host for FWD_OUT; its
 * /proc/net files where sock_diag can't answer), opening and closing
 * listeners as they come and go (fwd_auto_scan()). Out of descriptors,
 * accept() pauses every TCP listener for a while (fwd_accept_error())
 * instead of failing again at once, for ever.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

#include "flow.h"
#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "pasta.h"

#define FWD_BIND_RETRY_MS	1000	/* see fwd_listen_port_retry() */
#define FWD_BIND_RETRY_STEP_MS	20
#define FWD_SCAN_BUF		(64 * 1024)
#define FWD_TCP_LISTEN		0x0a	/* TCP_LISTEN, include/net/tcp_states.h */
#define FWD_UDP_CLOSE		0x07	/* TCP_CLOSE: bound, not connected */
#define FWD_ACCEPT_PAUSE_MS	1000	/* see fwd_accept_error() */
#define FWD_PORTS		(UINT16_MAX + 1)
#define FWD_PROTOS		2	/* TCP, UDP: see fwd_proto_idx() */

/**
 * struct fwd_side - the rules in force in one direction, and their state
 * @rules:	rules
 * @fixed:	per protocol, bitmap of the ports a rule forwards, not "auto"
 * @scan_rule:	per protocol and port, index + 1 of the "auto" rule that
 *		covers it, 0 for none
 * @auto_idx:	per protocol and port, listener index + 1 "auto" opened, 0
 *		for none
 * @auto_open:	per protocol, bitmap of the ports with an @auto_idx: the
 *		scan reads those entries alone
 * @scan_nl:	per protocol, NETLINK_SOCK_DIAG socket of the other side, -1
 *		if not open
 * @scan_fd:	per protocol, its /proc/net files, IPv4 and IPv6, -1 if not
 *		open
 * @indexed:	@fixed and @scan_rule may have ports set: cleared before they
 *		are set again (untouched, they cost no memory)
 */
struct fwd_side {
	struct fwd_rules rules;
	uint8_t fixed[FWD_PROTOS][FWD_PORTS / 8];
	uint16_t scan_rule[FWD_PROTOS][FWD_PORTS];
	uint32_t auto_idx[FWD_PROTOS][FWD_PORTS];
	uint8_t auto_open[FWD_PROTOS][FWD_PORTS / 8];
	int scan_nl[FWD_PROTOS];
	int scan_fd[FWD_PROTOS][2];
	bool indexed;
};

static struct fwd_side fwd_sides[FWD_PIFS];
static const char *const fwd_pif_name[FWD_PIFS] = { "HOST", "SPLICE" };

static struct fwd_listener fwd_listeners[FWD_LISTENERS_MAX];
static unsigned int fwd_listeners_n;
static uint32_t fwd_free[FWD_LISTENERS_MAX];	/* closed slots, for reuse */
static unsigned int fwd_free_n;
/* passt --vhost-user: some inbound port was in use at start-up (a guest's
 * migration source on this host holds it until it goes), so we try again
 * each second (fwd_held_retry()); @fwd_hold_ok: ports in use may be held
 * now (retrying, or taking a migration source's rules)
 */
static bool fwd_held, fwd_hold_ok;
/* By side, protocol and port: index + 1 of the first listener, see @next */
static uint32_t fwd_head[FWD_PIFS][FWD_PROTOS][FWD_PORTS];

/* Distinct target addresses of the inbound rules in force, sorted: the
 * guest's frames from one are a server behind it answering, not the guest
 * taking that address (fwd_is_target())
 */
static union inany_addr fwd_targets[FWD_RULES_MAX];
static unsigned int fwd_targets_n;

/* accept() ran out of descriptors: TCP listeners wait, see fwd_accept_error() */
static bool fwd_accept_paused;
static unsigned int fwd_paused_flows;	/* flows in use when paused */
static int64_t fwd_paused_until;

static struct fwd_ephemeral fwd_eph = { FWD_EPHEMERAL_FIRST,
					FWD_EPHEMERAL_LAST };

/**
 * fwd_ephemeral_init() - read the host's ephemeral port range, at start-up
 *
 * Once, before the options ("all" and "auto" leave the range out) and the
 * sandbox.
 */
void fwd_ephemeral_init(void)
{
	fwd_ephemeral_read(&fwd_eph);
}

/**
 * fwd_ephemeral() - the host's ephemeral port range
 *
 * Return: the range
 */
const struct fwd_ephemeral *fwd_ephemeral(void)
{
	return &fwd_eph;
}

/**
 * fwd_is_ephemeral() - is a port in the host's ephemeral range?
 * @port:	port
 *
 * Return: true if it is
 */
static bool fwd_is_ephemeral(unsigned int port)
{
	return port >= fwd_eph.first && port <= fwd_eph.last;
}

/**
 * fwd_proto_idx() - index of a protocol in the per-protocol arrays
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: 0 for TCP, 1 for UDP
 */
static int fwd_proto_idx(uint8_t proto)
{
	return proto == IPPROTO_UDP;
}

/**
 * fwd_ev_type() - the epoll type of a side's listeners of a protocol
 * @pif:	side
 * @p:		protocol index
 *
 * Return: enum epoll_type
 */
static enum epoll_type fwd_ev_type(enum fwd_pif pif, int p)
{
	static const enum epoll_type types[FWD_PIFS][FWD_PROTOS] = {
		{ EPOLL_TYPE_TCP_LISTEN, EPOLL_TYPE_UDP_LISTEN },
		{ EPOLL_TYPE_SPLICE_LISTEN, EPOLL_TYPE_UDP_NS_LISTEN },
	};

	return types[pif][p];
}

/**
 * fwd_auto_mark() - note the listener "auto" opened on a port, or none
 * @s:		side
 * @p:		protocol index
 * @port:	port
 * @idx:	listener index + 1, 0 for none
 */
static void fwd_auto_mark(struct fwd_side *s, int p, unsigned int port,
			  uint32_t idx)
{
	s->auto_idx[p][port] = idx;
	if (idx)
		s->auto_open[p][port / 8] |= 1 << (port % 8);
	else
		s->auto_open[p][port / 8] &= ~(1 << (port % 8));
}

/**
 * fwd_pktinfo_on() - have a UDP port's socket tell each datagram's
 *		      destination
 * @s:		socket
 *
 * udp.c splices and answers by it: a client of 127.0.0.2 hears from
 * 127.0.0.2, an mDNS query to 224.0.0.251 reaches the guest's group.
 */
static void fwd_pktinfo_on(int s)
{
	int one = 1;

	setsockopt(s, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	setsockopt(s, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
}

/**
 * fwd_listen_one() - open and register one socket of a forwarded port
 * @c:		execution context
 * @addr:	address to bind to, NULL for every address
 * @r:		its rule: device, target and flags
 * @ev_type:	enum epoll_type of the listener
 * @port:	port
 *
 * Return: listener index, or -errno if the port can't be bound
 */
static int fwd_listen_one(struct ctx *c, const union inany_addr *addr,
			  const struct fwd_rule *r, enum epoll_type ev_type,
			  uint16_t port)
{
	uint32_t idx = fwd_free_n ? fwd_free[fwd_free_n - 1] : fwd_listeners_n;
	int type = r->proto == IPPROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
	struct fwd_listener *l = &fwd_listeners[idx];
	int s;

	if (idx == FWD_LISTENERS_MAX)
		return -EMFILE;
	s = ip_sock_bind(c, type, addr, r->ifname, port);
	if (s >= 0 && type == SOCK_DGRAM)
		fwd_pktinfo_on(s);
	if (s >= 0 && type == SOCK_STREAM && listen(s, SOMAXCONN)) {
		int ret = -errno;

		close(s);
		return ret;
	}
	if (s < 0)
		return s;
	*l = (struct fwd_listener){ .fd = s, .port = port,
				    .to = fwd_rule_to(r, port),
				    .taddr = r->taddr, .addr = r->addr,
				    .ev_type = ev_type,
				    .flags = r->flags & (FWD_RULE_DUAL |
							 FWD_RULE_SCAN) };
	memcpy(l->ifname, r->ifname, IFNAMSIZ);
	epoll_ref_add(c, s, ev_type, idx, EPOLLIN);
	if (fwd_free_n && idx == fwd_free[fwd_free_n - 1])
		fwd_free_n--;
	else
		fwd_listeners_n++;
	return idx;
}

/**
 * fwd_listener_close() - stop forwarding a port, free its slot and its twin's
 * @c:		execution context
 * @idx:	listener index
 *
 * An event of the same batch may still name the slot: handlers check that
 * its socket is still the one of the event.
 */
static void fwd_listener_close(struct ctx *c, uint32_t idx)
{
	struct fwd_listener *l = &fwd_listeners[idx];

	epoll_ref_del(c, l->fd);
	close(l->fd);
	l->fd = -1;
	fwd_free[fwd_free_n++] = idx;
	if (l->twin)
		fwd_listener_close(c, l->twin - 1);
	l->twin = 0;
}

/**
 * fwd_chain_add() - put a listener first among those of its port
 * @pif:	side
 * @p:		protocol index
 * @idx:	listener index
 */
static void fwd_chain_add(enum fwd_pif pif, int p, uint32_t idx)
{
	struct fwd_listener *l = &fwd_listeners[idx];

	l->next = fwd_head[pif][p][l->port];
	fwd_head[pif][p][l->port] = idx + 1;
}

/**
 * fwd_chain_close() - close a listener and take it off its port's list
 * @c:		execution context
 * @pif:	side
 * @p:		protocol index
 * @idx:	listener index
 */
static void fwd_chain_close(struct ctx *c, enum fwd_pif pif, int p,
			    uint32_t idx)
{
	uint32_t *link = &fwd_head[pif][p][fwd_listeners[idx].port];

	while (*link != idx + 1)
		link = &fwd_listeners[*link - 1].next;
	*link = fwd_listeners[idx].next;
	fwd_listener_close(c, idx);
}

/**
 * fwd_listen_port() - open and register the sockets of one forwarded port
 * @c:		execution context
 * @pif:	side
 * @r:		rule
 * @port:	port
 *
 * Inside the namespace, a rule without an address listens on its loopback,
 * as upstream's -T and -U do: one socket per family, the second the first's
 * twin. A family the namespace lacks is skipped.
 *
 * Return: listener index (of the first socket), or -errno if the port
 *	   can't be bound
 */
static int fwd_listen_port(struct ctx *c, enum fwd_pif pif,
			   const struct fwd_rule *r, uint16_t port)
{
	static const int families[] = { AF_INET, AF_INET6 };
	int p = fwd_proto_idx(r->proto), first = -EADDRNOTAVAIL;
	enum epoll_type ev_type = fwd_ev_type(pif, p);
	bool dual = r->flags & FWD_RULE_DUAL;
	union inany_addr lo;
	unsigned int i;

	if (pif != FWD_OUT || !dual) {
		first = fwd_listen_one(c, dual ? NULL : &r->addr, r, ev_type,
				       port);
		if (first >= 0)
			fwd_chain_add(pif, p, first);
		return first;
	}
	for (i = 0; i < ARRAY_SIZE(families); i++) {
		int ret;

		if (!ip_family_on(families[i]))
			continue;
		inany_loopback(&lo, families[i]);
		ret = fwd_listen_one(c, &lo, r, ev_type, port);
		if (ret == -EADDRNOTAVAIL || ret == -EAFNOSUPPORT)
			continue;
		if (ret < 0) {
			if (first >= 0)
				fwd_listener_close(c, first);
			return ret;
		}
		if (first >= 0) {
			fwd_listeners[first].twin = ret + 1;
			continue;
		}
		first = ret;
	}
	if (first >= 0)
		fwd_chain_add(pif, p, first);
	return first;
}
/**
 * fwd_listener_binds() - does a listener bind a port as a rule would?
 * @l:		listener
 * @r:		rule
 *
 * Return: true if its address, device and family choice are the rule's
 */
static bool fwd_listener_binds(const struct fwd_listener *l,
			       const struct fwd_rule *r)
{
	return !(l->flags & FWD_RULE_SCAN) &&
	       (l->flags & FWD_RULE_DUAL) == (r->flags & FWD_RULE_DUAL) &&
	       inany_equals(&l->addr, &r->addr) &&
	       !strncmp(l->ifname, r->ifname, IFNAMSIZ);
}

/**
 * fwd_find() - the listener that binds a port as a rule would
 * @pif:	side
 * @r:		rule
 * @port:	port
 *
 * Return: listener index, -1 if none
 */
static int fwd_find(enum fwd_pif pif, const struct fwd_rule *r,
		    uint16_t port)
{
	uint32_t i = fwd_head[pif][fwd_proto_idx(r->proto)][port];

	for (; i; i = fwd_listeners[i - 1].next) {
		if (fwd_listener_binds(&fwd_listeners[i - 1], r))
			return i - 1;
	}
	return -1;
}

/**
 * fwd_close_port() - close the stale listeners of a port, maybe the "auto"
 *		      ones too
 * @c:		execution context
 * @pif:	side
 * @p:		protocol index
 * @port:	port
 * @scan:	close those "auto" opened, too
 *
 * Return: true if one was closed
 */
static bool fwd_close_port(struct ctx *c, enum fwd_pif pif, int p,
			   uint16_t port, bool scan)
{
	uint32_t i = fwd_head[pif][p][port];
	bool closed = false;

	while (i) {
		const struct fwd_listener *l = &fwd_listeners[i - 1];
		uint32_t next = l->next;

		if (l->stale || (scan && (l->flags & FWD_RULE_SCAN))) {
			if (l->flags & FWD_RULE_SCAN)
				fwd_auto_mark(&fwd_sides[pif], p, port, 0);
			fwd_chain_close(c, pif, p, i - 1);
			closed = true;
		}
		i = next;
	}
	return closed;
}

/**
 * fwd_listen_port_retry() - fwd_listen_port(), at start-up waiting a little
 *			     for a port that a pasta on its way out holds
 * @c:		execution context
 * @pif:	side
 * @r:		rule
 * @port:	port
 * @startup:	we're starting: wait for the port
 *
 * "podman restart" starts the new pasta as soon as it deletes the old
 * namespace, and the old pasta, which then exits, may still hold the port
 * for some milliseconds. A port named explicitly is tried again for up to
 * FWD_BIND_RETRY_MS; one of a best-effort rule is skipped at once, and
 * nothing waits at run time.
 *
 * Return: listener index, or -errno if the port can't be bound
 */
static int fwd_listen_port_retry(struct ctx *c, enum fwd_pif pif,
				 const struct fwd_rule *r, uint16_t port,
				 bool startup)
{
	int64_t until = now_ms() + FWD_BIND_RETRY_MS;
	int p = fwd_proto_idx(r->proto);
	int ret;

	while ((ret = fwd_listen_port(c, pif, r, port)) == -EADDRINUSE) {
		/* Bound another way before (every address, then one): the
		 * old socket goes only now, so that a rollback finds most
		 * old sockets still there
		 */
		if (fwd_close_port(c, pif, p, port, true))
			continue;
		if (!startup || (r->flags & FWD_RULE_WEAK) ||
		    now_ms() >= until)
			break;
		usleep(FWD_BIND_RETRY_STEP_MS * 1000);
	}
	return ret;
}

/**
 * fwd_may_hold() - may a port in use be bound later, instead of failing?
 * @c:		execution context
 * @pif:	side
 * @startup:	we're starting
 *
 * passt --vhost-user, inbound, at start-up, retrying or taking the rules
 * of a migration's source (fwd_hold_ok): the target of a
 * migration on this host starts while the source holds the ports, and
 * takes them over once it goes. It doesn't wait at start-up either.
 *
 * Return: true if so
 */
static bool fwd_may_hold(const struct ctx *c, enum fwd_pif pif, bool startup)
{
	return c->mode == MODE_PASST && c->vhost_user && pif == FWD_IN &&
	       (startup || fwd_hold_ok);
}

/**
 * fwd_apply_rule() - make the sockets of one rule's ports be there
 * @c:		execution context
 * @pif:	side
 * @r:		rule, not "auto"
 * @startup:	we're starting: wait for ports a pasta on its way out holds
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 if a port can't be bound
 */
static int fwd_apply_rule(struct ctx *c, enum fwd_pif pif,
			  const struct fwd_rule *r, bool startup, char *err,
			  size_t err_len)
{
	unsigned int port;

	for (port = r->first; port <= r->last; port++) {
		char rs[FWD_RULE_STRLEN];
		int idx = fwd_find(pif, r, port);

		if (idx >= 0) {
			struct fwd_listener *l = &fwd_listeners[idx];

			l->stale = false;
			l->to = fwd_rule_to(r, port);
			l->taddr = r->taddr;
			if (l->twin) {
				fwd_listeners[l->twin - 1].to = l->to;
				fwd_listeners[l->twin - 1].taddr = l->taddr;
			}
			continue;
		}
		idx = fwd_listen_port_retry(c, pif, r, port,
					    startup && !fwd_may_hold(c, pif,
								     startup));
		/* Best effort: ports taken, privileged, or beyond our limit
		 * of descriptors are skipped
		 */
		if (idx >= 0 || (r->flags & FWD_RULE_WEAK))
			continue;
		if (idx == -EADDRINUSE && fwd_may_hold(c, pif, startup)) {
			if (!fwd_hold_ok)
				warn("Port %u of %s is in use: bound once it is "
				     "free (a migration's source holds it?)",
				     port, fwd_rule_fmt(r, rs, sizeof(rs)));
			fwd_held = true;
			continue;
		}
		snprintf(err, err_len, "Can't forward port %u of %s: %s", port,
			 fwd_rule_fmt(r, rs, sizeof(rs)), strerror(-idx));
		return -1;
	}
	return 0;
}

/**
 * fwd_apply() - make a side's sockets those of a table of rules
 * @c:		execution context
 * @pif:	side
 * @t:		rules
 * @startup:	we're starting: wait for ports a pasta on its way out holds
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 on failure: sockets of both tables may be
 *	   open, and applying the old table again makes it whole
 */
static int fwd_apply(struct ctx *c, enum fwd_pif pif,
		     const struct fwd_rules *t, bool startup, char *err,
		     size_t err_len)
{
	unsigned int i;

	for (i = 0; i < fwd_listeners_n; i++) {
		struct fwd_listener *l = &fwd_listeners[i];

		l->stale = l->fd >= 0 && !(l->flags & FWD_RULE_SCAN) &&
			   (l->ev_type == fwd_ev_type(pif, 0) ||
			    l->ev_type == fwd_ev_type(pif, 1));
	}
	for (i = 0; i < t->n; i++) {
		if (!(t->rule[i].flags & FWD_RULE_SCAN) &&
		    fwd_apply_rule(c, pif, &t->rule[i], startup, err, err_len))
			return -1;
	}
	/* The stale ones (this side's only, as marked above), by their
	 * port: not a walk through every port's list head, which would touch
	 * 512 KiB of them (and cost it here, where a page read first is a
	 * page of memory)
	 */
	for (i = 0; i < fwd_listeners_n; i++) {
		const struct fwd_listener *l = &fwd_listeners[i];
		int p = l->ev_type == fwd_ev_type(pif, 0) ? 0 : 1;

		if (l->fd >= 0 && l->stale)
			fwd_close_port(c, pif, p, l->port, false);
	}
	return 0;
}
/**
 * fwd_addr_cmp() - order of two addresses, for qsort() and bsearch()
 * @a:		address
 * @b:		address
 *
 * Return: memcmp() of the two
 */
static int fwd_addr_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(union inany_addr));
}

/**
 * fwd_targets_index() - collect the inbound rules' target addresses
 * @t:		inbound rules in force
 */
static void fwd_targets_index(const struct fwd_rules *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->n; i++) {
		if (inany_is_set(&t->rule[i].taddr))
			fwd_targets[n++] = t->rule[i].taddr;
	}
	qsort(fwd_targets, n, sizeof(*fwd_targets), fwd_addr_cmp);
	for (fwd_targets_n = 0, i = 0; i < n; i++) {
		if (!fwd_targets_n ||
		    !inany_equals(&fwd_targets[fwd_targets_n - 1],
				  &fwd_targets[i]))
			fwd_targets[fwd_targets_n++] = fwd_targets[i];
	}
}

/**
 * fwd_is_target() - is this address the target of an inbound rule?
 * @a:		address
 *
 * Return: true if a rule in force forwards to it
 */
bool fwd_is_target(const union inany_addr *a)
{
	return fwd_targets_n &&
	       bsearch(a, fwd_targets, fwd_targets_n, sizeof(*fwd_targets),
		       fwd_addr_cmp);
}

/**
 * fwd_guest_dest() - where in the guest a client of a forwarded port goes
 * @l:		the port's listener
 * @family:	the client's family
 * @a:		destination, set on success: the rule's target address, else
 *		the guest's own address
 *
 * Return: false if there is none in the client's family
 */
bool fwd_guest_dest(const struct fwd_listener *l, int family,
		    union inany_addr *a)
{
	if (!inany_is_set(&l->taddr))
		return ip_guest_addr(family, a);
	if (inany_family(&l->taddr) != family)
		return false;
	*a = l->taddr;
	return true;
}

/**
 * fwd_index() - what the ports of a side's rules are, for "auto"
 * @pif:	side
 */
static void fwd_index(enum fwd_pif pif)
{
	struct fwd_side *s = &fwd_sides[pif];
	unsigned int i, port;

	if (s->indexed) {
		memset(s->fixed, 0, sizeof(s->fixed));
		memset(s->scan_rule, 0, sizeof(s->scan_rule));
	}
	s->indexed = !!s->rules.n;
	for (i = 0; i < s->rules.n; i++) {
		const struct fwd_rule *r = &s->rules.rule[i];
		int p = fwd_proto_idx(r->proto);

		for (port = r->first; port <= r->last; port++) {
			if (!(r->flags & FWD_RULE_SCAN))
				s->fixed[p][port / 8] |= 1 << (port % 8);
			else if (!s->scan_rule[p][port])
				s->scan_rule[p][port] = i + 1;
		}
	}
	if (pif == FWD_IN)
		fwd_targets_index(&s->rules);
}

/**
 * fwd_log_changes() - log the rules a table gained and lost, once each
 * @pif:	side
 * @old:	rules before
 * @new:	rules now
 */
static void fwd_log_changes(enum fwd_pif pif, const struct fwd_rules *old,
			    const struct fwd_rules *new)
{
	const struct fwd_rules *t[] = { old, new, old };
	static const char *const what[] = { "removed", "added" };
	char rs[FWD_RULE_STRLEN];
	unsigned int k, i, j;

	for (k = 0; k < ARRAY_SIZE(what); k++) {
		for (i = 0; i < t[k]->n; i++) {
			const struct fwd_rule *r = &t[k]->rule[i];

			for (j = 0; j < t[k + 1]->n; j++) {
				if (fwd_rule_equal(r, &t[k + 1]->rule[j]))
					break;
			}
			if (j == t[k + 1]->n)
				info("Forwarding rule %s (%s): %s", what[k],
				     fwd_pif_name[pif],
				     fwd_rule_fmt(r, rs, sizeof(rs)));
		}
	}
}

/**
 * struct fwd_apply_arg - fwd_apply() arguments, for fwd_apply_run()
 * @c:		execution context
 * @pif:	side
 * @t:		rules
 * @startup:	we're starting
 * @err:	error message, written on failure
 * @err_len:	its size
 */
struct fwd_apply_arg {
	struct ctx *c;
	enum fwd_pif pif;
	const struct fwd_rules *t;
	bool startup;
	char *err;
	size_t err_len;
};

/**
 * fwd_apply_run() - fwd_apply(), where the side's sockets belong
 * @arg:	struct fwd_apply_arg
 *
 * Return: 0 on success, -1 on failure
 */
static int fwd_apply_run(void *arg)
{
	const struct fwd_apply_arg *a = arg;

	return fwd_apply(a->c, a->pif, a->t, a->startup, a->err, a->err_len);
}

/**
 * fwd_apply_side() - fwd_apply(), inside the namespace for FWD_OUT
 * @a:		arguments
 *
 * Return: 0 on success, -1 on failure
 */
static int fwd_apply_side(struct fwd_apply_arg *a)
{
	int ret;

	if (a->pif != FWD_OUT)
		return fwd_apply_run(a);
	snprintf(a->err, a->err_len, "Can't enter the namespace");
	ret = pasta_ns_run(a->c, fwd_apply_run, a);
	return ret ? -1 : 0;
}

/**
 * fwd_out_no_targets() - refuse outbound rules with a target address
 * @pif:	side of the rules
 * @t:		rules
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * A -T or -U port is spliced to the host's loopback: the splice path has
 * no way to a target address (upstream refuses their listening address).
 *
 * Return: 0 if no rule has one, -1 if one has
 */
static int fwd_out_no_targets(enum fwd_pif pif, const struct fwd_rules *t,
			      char *err, size_t err_len)
{
	char rs[FWD_RULE_STRLEN];
	unsigned int i;

	for (i = 0; pif == FWD_OUT && i < t->n; i++) {
		if (!inany_is_set(&t->rule[i].taddr))
			continue;
		snprintf(err, err_len, "Target address not supported for -T "
			 "and -U: %s",
			 fwd_rule_fmt(&t->rule[i], rs, sizeof(rs)));
		return -1;
	}
	return 0;
}

/**
 * fwd_held_retry() - bind, each second, the inbound ports that were in use
 * @c:		execution context
 */
void fwd_held_retry(struct ctx *c)
{
	static int64_t next;
	char err[FWD_ERR_LEN];

	if (!fwd_held || c->now < next)
		return;
	next = c->now + MS_PER_S;
	fwd_held = false;
	fwd_hold_ok = true;
	if (fwd_apply(c, FWD_IN, &fwd_sides[FWD_IN].rules, false, err,
		      sizeof(err)))
		warn("%s", err);
	fwd_hold_ok = false;
	if (!fwd_held)
		info("Inbound ports in use at start-up: all bound now");
}

/**
 * fwd_listen() - open the sockets of a side's rules, at start-up
 * @c:		execution context
 * @pif:	side
 *
 * A port that can't be bound is fatal, naming the port and its rule.
 */
void fwd_listen(struct ctx *c, enum fwd_pif pif)
{
	struct fwd_side *s = &fwd_sides[pif];
	char err[FWD_ERR_LEN];
	struct fwd_apply_arg a = { c, pif, c->fwd[pif], true, err,
				   sizeof(err) };

	if (fwd_out_no_targets(pif, c->fwd[pif], err, sizeof(err)))
		die("%s", err);
	fwd_rules_copy(&s->rules, c->fwd[pif]);
	fwd_index(pif);
	if (s->rules.n && fwd_apply_side(&a))
		die("%s", err);
}

/**
 * fwd_update() - replace a side's rules, at run time
 * @c:		execution context
 * @pif:	side
 * @new:	new rules
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 if the rules conflict or a port can't be bound:
 *	   the old rules stay in force
 */
int fwd_update(struct ctx *c, enum fwd_pif pif, const struct fwd_rules *new,
	       char *err, size_t err_len)
{
	struct fwd_side *s = &fwd_sides[pif];
	struct fwd_apply_arg a = { c, pif, new, false, err, err_len };
	char ignored[FWD_ERR_LEN];

	if (fwd_rules_check(new, err, err_len) ||
	    fwd_out_no_targets(pif, new, err, err_len))
		return -1;
	if (fwd_apply_side(&a)) {
		a.t = &s->rules;
		a.err = ignored;
		a.err_len = sizeof(ignored);
		if (fwd_apply_side(&a))
			warn("Rolling back %s forwarding rules: %s",
			     fwd_pif_name[pif], ignored);
		return -1;
	}
	fwd_log_changes(pif, &s->rules, new);
	fwd_rules_copy(&s->rules, new);
	fwd_index(pif);
	return 0;
}

/**
 * fwd_update_migrated() - take the inbound rules a migration's source had
 *			   (changed at run time, maybe), as fwd_update()
 * @c:		execution context
 * @new:	its rules
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * On the same host, the source holds the ports until it goes: they are
 * bound once free (fwd_held_retry()), as at start-up.
 *
 * Return: 0 on success, -1 on failure (our own rules stay)
 */
int fwd_update_migrated(struct ctx *c, const struct fwd_rules *new,
			char *err, size_t err_len)
{
	int ret;

	fwd_hold_ok = true;
	ret = fwd_update(c, FWD_IN, new, err, err_len);
	fwd_hold_ok = false;
	return ret;
}

/**
 * fwd_rules_now() - the rules in force on a side
 * @pif:	side
 *
 * Return: the rules
 */
const struct fwd_rules *fwd_rules_now(enum fwd_pif pif)
{
	return &fwd_sides[pif].rules;
}

/**
 * fwd_listener_at() - a forwarded port's socket, from its epoll index
 * @idx:	index
 *
 * Return: the listener
 */
const struct fwd_listener *fwd_listener_at(uint32_t idx)
{
	assert(idx < fwd_listeners_n);
	return &fwd_listeners[idx];
}
/**
 * fwd_accept_events() - set the epoll events of every TCP listener
 * @c:		execution context
 * @events:	EPOLLIN, or 0 to pause them
 */
static void fwd_accept_events(const struct ctx *c, uint32_t events)
{
	uint32_t idx;

	for (idx = 0; idx < fwd_listeners_n; idx++) {
		const struct fwd_listener *l = &fwd_listeners[idx];

		if (l->fd >= 0 && (l->ev_type == EPOLL_TYPE_TCP_LISTEN ||
				   l->ev_type == EPOLL_TYPE_SPLICE_LISTEN))
			epoll_ref_mod(c, l->fd, l->ev_type, idx, events);
	}
}

/**
 * fwd_accept_error() - accept() on a forwarded port failed
 * @c:		execution context
 * @l:		the port's listener
 * @err:	errno
 *
 * Out of descriptors, the oldest half-open connection of the guest makes
 * room (flow_fd_reclaim()): the listener, level-triggered, wakes us again
 * for the connection. Out of them with none to evict, or of memory, it
 * would wake us at once, for ever: every TCP listener is paused instead,
 * until a flow ends (it frees descriptors) or for FWD_ACCEPT_PAUSE_MS, and
 * the connections wait in the kernel's backlog meanwhile.
 */
void fwd_accept_error(struct ctx *c, const struct fwd_listener *l, int err)
{
	if (err == EAGAIN || err == EWOULDBLOCK || flow_fd_reclaim(c, err))
		return;
	if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM) {
		err_ratelimit("accept on port %u: %s", l->port, strerror(err));
		return;
	}
	err_ratelimit("accept on port %u: %s: pausing forwarded ports",
		      l->port, strerror(err));
	if (fwd_accept_paused)
		return;
	fwd_accept_events(c, 0);
	fwd_accept_paused = true;
	fwd_paused_flows = flow_count();
	fwd_paused_until = c->now + FWD_ACCEPT_PAUSE_MS;
}

/**
 * fwd_accept_resume() - listen again once a flow ended, or after a while
 * @c:		execution context
 */
void fwd_accept_resume(struct ctx *c)
{
	if (!fwd_accept_paused ||
	    (flow_count() >= fwd_paused_flows && c->now < fwd_paused_until))
		return;
	fwd_accept_paused = false;
	fwd_accept_events(c, EPOLLIN);
}

/**
 * fwd_scan_line() - the port of a listening socket in a /proc/net line
 * @line:	line of /proc/net/tcp, tcp6, udp or udp6
 * @tcp:	the line is TCP's
 *
 * A TCP socket listens in state LISTEN (0x0A); a UDP one is bound and
 * unconnected in state CLOSE (0x07) with no remote port.
 *
 * Return: local port, 0 if the line is not such a socket
 */
static unsigned int fwd_scan_line(const char *line, bool tcp)
{
	unsigned int lport, rport, state;

	if (sscanf(line, "%*u: %*[0-9A-Fa-f]:%x %*[0-9A-Fa-f]:%x %x",
		   &lport, &rport, &state) != 3 || lport > UINT16_MAX)
		return 0;
	if (tcp ? state != FWD_TCP_LISTEN : state != FWD_UDP_CLOSE || rport)
		return 0;
	return lport;
}

/**
 * fwd_scan_file() - mark the ports sockets listen on in a /proc/net file
 * @fd:		the file, opened in the namespace
 * @tcp:	it is tcp or tcp6, not udp or udp6
 * @map:	bitmap of ports, bits set
 */
static void fwd_scan_file(int fd, bool tcp, uint8_t *map)
{
	static char buf[FWD_SCAN_BUF];
	size_t have = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return;
	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *line = buf, *nl;

		have += n;
		buf[have] = 0;
		while ((nl = strchr(line, '\n'))) {
			unsigned int port;

			*nl = 0;
			port = fwd_scan_line(line, tcp);
			if (port)
				map[port / 8] |= 1 << (port % 8);
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;	/* no line is that long: skip it */
	}
}

/**
 * fwd_scan_diag_family() - mark the ports of one family's listening sockets
 * @nl:		NETLINK_SOCK_DIAG socket, opened on the side scanned
 * @family:	AF_INET or AF_INET6
 * @tcp:	TCP listeners, or else bound, unconnected UDP sockets
 * @map:	bitmap of ports, bits set
 *
 * Return: 0 on success, -1 if the kernel answered with an error, or none
 */
static int fwd_scan_diag_family(int nl, uint8_t family, bool tcp,
				uint8_t *map)
{
	static char buf[FWD_SCAN_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
		.r = {
			.sdiag_family = family,
			.sdiag_protocol = tcp ? IPPROTO_TCP : IPPROTO_UDP,
			.idiag_states = 1U << (tcp ? FWD_TCP_LISTEN :
						     FWD_UDP_CLOSE),
		},
	};
	ssize_t n;

	if (send(nl, &req, sizeof(req), 0) < 0)
		return -1;
	while ((n = recv(nl, buf, sizeof(buf), 0)) > 0) {
		const struct nlmsghdr *nh = (const struct nlmsghdr *)buf;

		for (; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			const struct inet_diag_msg *d = NLMSG_DATA(nh);
			unsigned int port;

			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*d)) ||
			    (!tcp && d->id.idiag_dport))
				continue;
			port = ntohs(d->id.idiag_sport);
			map[port / 8] |= 1 << (port % 8);
		}
	}
	return -1;
}

/**
 * fwd_scan() - mark the ports sockets listen on, on the other side
 * @s:		side, with "auto" rules
 * @p:		protocol index: TCP listeners, or else bound, unconnected UDP
 *		sockets
 * @map:	bitmap of ports, bits set
 *
 * sock_diag dumps listening sockets alone, from the kernel's table of
 * listeners; the /proc/net files list every socket, connected and
 * TIME_WAIT ones too, and reading them took most of our time under load
 * (62% of our samples at 1,000 new connections a second). Those stay for a
 * kernel that can't dump the protocol (no tcp_diag or udp_diag): we switch
 * for good, logging it once. The IPv6 dump may fail where IPv6 is off.
 */
static void fwd_scan(struct fwd_side *s, int p, uint8_t *map)
{
	bool tcp = !p;
	unsigned int i;

	if (s->scan_nl[p] >= 0) {
		if (!fwd_scan_diag_family(s->scan_nl[p], AF_INET, tcp, map)) {
			fwd_scan_diag_family(s->scan_nl[p], AF_INET6, tcp, map);
			return;
		}
		info("No socket diagnostics for %s: reading /proc/net instead",
		     tcp ? "TCP" : "UDP");
		close(s->scan_nl[p]);
		s->scan_nl[p] = -1;
	}
	for (i = 0; i < ARRAY_SIZE(s->scan_fd[p]); i++)
		fwd_scan_file(s->scan_fd[p][i], tcp, map);
}

/**
 * fwd_scan_open() - open what "auto" reads a side's other side from
 * @pif:	side whose rules follow the ports: called where they are
 *		scanned (the namespace for FWD_IN, the host for FWD_OUT)
 *
 * A sock_diag netlink socket and the /proc/net files (where sock_diag
 * can't dump the protocol, see fwd_scan()): opened on the side scanned,
 * they keep showing its sockets, and we read them from ours, every second
 * (fwd_auto_scan()). Always, for both protocols: a client of the control
 * socket may add "auto" rules at any time.
 *
 * Return: 0 on success, -errno on failure
 */
static int fwd_scan_open(enum fwd_pif pif)
{
	static const char *const fmt[] = { "/proc/self/net/%s",
					    "/proc/self/net/%s6" };
	static const char *const proto[] = { "tcp", "udp" };
	struct fwd_side *s = &fwd_sides[pif];
	unsigned int p, i;
	char path[32];

	for (p = 0; p < FWD_PROTOS; p++) {
		s->scan_nl[p] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
				       NETLINK_SOCK_DIAG);
		for (i = 0; i < ARRAY_SIZE(s->scan_fd[p]); i++) {
			snprintf(path, sizeof(path), fmt[i], proto[p]);
			s->scan_fd[p][i] = open(path, O_RDONLY | O_CLOEXEC);
			if (s->scan_fd[p][i] < 0 && !i)	/* IPv6 may be off */
				return -errno;
		}
	}
	return 0;
}

/**
 * fwd_scan_open_in() - fwd_scan_open() for FWD_IN, inside the namespace
 * @arg:	unused
 *
 * Return: fwd_scan_open()'s
 */
static int fwd_scan_open_in(void *arg)
{
	(void)arg;
	return fwd_scan_open(FWD_IN);
}

/**
 * fwd_scan_init() - pasta: open what "auto" reads both sides' ports from
 * @c:		execution context, the namespace set up
 */
void fwd_scan_init(const struct ctx *c)
{
	int ret;

	if (c->mode != MODE_PASTA)
		return;
	ret = pasta_ns_run(c, fwd_scan_open_in, NULL);
	if (!ret)
		ret = fwd_scan_open(FWD_OUT);
	if (ret)
		die("Can't open /proc/net files for \"auto\": %s",
		    strerror(-ret));
}

/**
 * struct fwd_auto_arg - the listeners "auto" opens, for fwd_auto_bind()
 * @c:		execution context
 * @pif:	side
 * @p:		protocol index
 * @add:	bitmap of the ports to open
 */
struct fwd_auto_arg {
	struct ctx *c;
	enum fwd_pif pif;
	int p;
	const uint8_t *add;
};

/**
 * fwd_auto_bind() - open the listeners "auto" found missing
 * @arg:	struct fwd_auto_arg
 *
 * Runs inside the namespace (pasta_ns_run()) for FWD_OUT. A port that
 * can't be bound (the other side's own services) is tried again at the
 * next scan.
 *
 * Return: 0
 */
static int fwd_auto_bind(void *arg)
{
	const struct fwd_auto_arg *a = arg;
	struct fwd_side *s = &fwd_sides[a->pif];
	unsigned int port;

	for (port = 1; port < FWD_PORTS; port++) {
		const struct fwd_rule *r;
		int idx;

		if (!(a->add[port / 8] & (1 << (port % 8))))
			continue;
		r = &s->rules.rule[s->scan_rule[a->p][port] - 1];
		idx = fwd_listen_port(a->c, a->pif, r, port);
		if (idx >= 0)
			fwd_auto_mark(s, a->p, port, idx + 1);
	}
	return 0;
}

/**
 * fwd_auto_wants() - should "auto" forward a port the other side listens on?
 * @pif:	side
 * @p:		protocol index
 * @port:	port
 *
 * Only if an "auto" rule covers it and no other rule does, it is not in
 * the ephemeral range (a client's unconnected UDP socket is no service),
 * and the opposite direction doesn't forward it: that is our own socket,
 * seen from the other side.
 *
 * Return: true if so
 */
static bool fwd_auto_wants(enum fwd_pif pif, int p, unsigned int port)
{
	const struct fwd_side *s = &fwd_sides[pif];
	const struct fwd_side *rev = &fwd_sides[!pif];

	return s->scan_rule[p][port] && !fwd_is_ephemeral(port) &&
	       !(s->fixed[p][port / 8] & (1 << (port % 8))) &&
	       !(rev->fixed[p][port / 8] & (1 << (port % 8))) &&
	       !(rev->auto_open[p][port / 8] & (1 << (port % 8)));
}

/**
 * fwd_auto_side() - follow the other side's listening ports, one protocol
 * @c:		execution context
 * @pif:	side
 * @p:		protocol index
 */
static void fwd_auto_side(struct ctx *c, enum fwd_pif pif, int p)
{
	static uint8_t map[FWD_PORTS / 8];
	struct fwd_auto_arg arg = { c, pif, p, map };
	struct fwd_side *s = &fwd_sides[pif];
	bool add = false;
	unsigned int port;

	memset(map, 0, sizeof(map));
	fwd_scan(s, p, map);

	for (port = 1; port < FWD_PORTS; port++) {
		bool want = map[port / 8] & (1 << (port % 8));
		uint32_t idx = 0;

		if (s->auto_open[p][port / 8] & (1 << (port % 8)))
			idx = s->auto_idx[p][port];
		want = want && fwd_auto_wants(pif, p, port);
		if (want && !idx) {
			add = true;
			continue;
		}
		map[port / 8] &= ~(1 << (port % 8));
		if (!want && idx) {
			fwd_chain_close(c, pif, p, idx - 1);
			fwd_auto_mark(s, p, port, 0);
		}
	}
	if (!add)
		return;
	if (pif == FWD_OUT)
		pasta_ns_run(c, fwd_auto_bind, &arg);
	else
		fwd_auto_bind(&arg);
}

/**
 * fwd_has_scan() - does a side have an "auto" rule of a protocol?
 * @pif:	side
 * @p:		protocol index
 *
 * Return: true if it does
 */
static bool fwd_has_scan(enum fwd_pif pif, int p)
{
	const struct fwd_rules *t = &fwd_sides[pif].rules;
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if ((t->rule[i].flags & FWD_RULE_SCAN) &&
		    fwd_proto_idx(t->rule[i].proto) == p)
			return true;
	}
	return false;
}

/**
 * fwd_auto_scan() - pasta's "auto": look at the other side's ports each
 *		     second
 * @c:		execution context
 *
 * A side whose "auto" rules went has its "auto" listeners closed by the
 * last scan that finds no rule covering them.
 */
void fwd_auto_scan(struct ctx *c)
{
	static bool had[FWD_PIFS][FWD_PROTOS];
	static int64_t next;
	unsigned int pif, p;

	if (c->now < next || c->mode != MODE_PASTA)
		return;
	next = c->now + MS_PER_S;
	for (pif = 0; pif < FWD_PIFS; pif++) {
		for (p = 0; p < FWD_PROTOS; p++) {
			bool has = fwd_has_scan(pif, p);

			if (has || had[pif][p])
				fwd_auto_side(c, pif, p);
			had[pif][p] = has;
		}
	}
}
