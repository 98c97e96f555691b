// SPDX-License-Identifier: GPL-2.0-or-later
/* follow.c - follow the host's addresses and default routes at run time
 *
 * Theory of operation: the guest copies, per family, the host's default
 * gateway and the address of the interface that route goes through (or of
 * -i's), as conf.c read them at start. A NETLINK_ROUTE socket in the
 * address and route groups of both families tells us when an address or a
 * default route changes; what a notification says beyond that doesn't
 * matter: a burst of them (an address replaced, then the route) settles for
 * FOLLOW_SETTLE_MS, then we read the host's state again with dumps, as at
 * start, and compare:
 *
 *   - the address: the one the guest has stays while the host has it on
 *     that interface (nl_addr_get() prefers it), so a second address, a
 *     route change or an IPv6 temporary address doesn't move the guest;
 *     otherwise the host's new one, and if the host has none at all, the
 *     link-local configuration of an offline start (IPv4 169.254.2.1/16
 *     through 169.254.2.2, IPv6 link-local only, as upstream's "local mode");
 *   - the gateway: the host's default route's, if it has one through a
 *     gateway; the link-local one with the link-local address; else as it
 *     was (a route that went away leaves the guest's in place: connections
 *     fail on the host as they would on the host itself).
 *
 * What -a and -g set never changes; --map-host-loopback follows the gateway
 * where it is the gateway by default. In pasta mode, the namespace's tap
 * gets the new address and its default route is replaced at once; the old
 * address goes FOLLOW_FORGET_MS later, once the guest took our resets of
 * its connections from there (follow_forget_now()). In passt mode, DHCP and DHCPv6 hand out the new configuration
 * from the next request, and an unsolicited router advertisement withdraws
 * the old IPv6 prefix (preferred and valid lifetime 0) and announces the new
 * one (ndp.c).
 *
 * Flows: every address the host had before and not after has vanished; TCP
 * connections whose host socket is bound to one are reset both ways, UDP and
 * ICMP flows closed (the guest's next datagram opens a new one, from the
 * address the host has now). In pasta mode, the namespace's old address is
 * gone too: connections of the guest from it are reset the same way. All
 * of it is logged once per change. --no-follow-host turns it off.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "flow.h"
#include "follow.h"
#include "ip.h"
#include "log.h"
#include "ndp.h"
#include "netlink.h"
#include "passt.h"
#include "pasta.h"

#define FOLLOW_SETTLE_MS	100
#define FOLLOW_FORGET_MS	250	/* see follow_forget_now() */
#define FOLLOW_ADDR_STRLEN	(INET6_ADDRSTRLEN + sizeof("/128"))
#define FOLLOW_ADDRS_MAX	256	/* per family: follow_vanished() */

/* Link-local configuration without a host route (upstream's values) */
#define FOLLOW_LL4_ADDR		0xa9fe0201	/* 169.254.2.1 */
#define FOLLOW_LL4_GW		0xa9fe0202	/* 169.254.2.2 */
#define FOLLOW_LL4_PREFIX	16

static int follow_nl = -1;		/* requests, host's namespace */
static int follow_mon = -1;		/* notifications */
static int64_t follow_due;		/* read the host again then (ms), 0 */

/**
 * struct follow_forget - pasta: an old address the namespace still has
 * @due:	when to remove it (ms), 0 if there's none
 * @old:	previous configuration, per family (INANY_V4, INANY_V6)
 * @new:	current one
 * @pending:	which families have one
 */
static struct follow_forget {
	int64_t due;
	struct guest_fam old[INANY_FAMILIES];
	struct guest_fam new[INANY_FAMILIES];
	bool pending[INANY_FAMILIES];
} follow_forget;

/**
 * struct follow_addrs - every address of the host, to tell which vanished
 * @a:		addresses, both families
 * @n:		how many of @a are valid
 * @full:	there were more than fit: some may be missed
 */
static struct follow_addrs {
	union inany_addr a[FOLLOW_ADDRS_MAX * INANY_FAMILIES];
	int n;
	bool full;
} follow_known;

/**
 * follow_sets_ns() - do we set the guest's addresses ourselves?
 * @c:		execution context
 *
 * Return: true for pasta with --config-net: the namespace has what we give
 */
static bool follow_sets_ns(const struct ctx *c)
{
	return c->mode == MODE_PASTA && c->config_net;
}

/**
 * follow_host_read() - the host's default route and address in a family
 * @c:		execution context
 * @nl:		netlink socket in the host's namespace
 * @family:	AF_INET or AF_INET6
 * @prefer:	address to keep if the interface still has it, or NULL
 * @h:		what the host has, set
 *
 * The interface of the first default route, or -i's: with -i, the route's
 * gateway counts only if the route goes through that interface.
 */
void follow_host_read(const struct ctx *c, int nl, int family,
		      const union inany_addr *prefer, struct host_fam *h)
{
	unsigned int ifi = 0;

	memset(h, 0, sizeof(*h));
	inany_unspecified(&h->gw, family);
	inany_unspecified(&h->addr, family);
	h->route = !nl_default_route(nl, family, &ifi, &h->gw);
	if (!h->route)
		inany_unspecified(&h->gw, family);
	if (c->host_ifname[0]) {
		/* Not if_nametoindex(): an ioctl() the sandbox refuses */
		int rc = nl_link_index(nl, c->host_ifname);

		h->ifi = rc > 0 ? (unsigned int)rc : 0;
		if (h->ifi != ifi)
			inany_unspecified(&h->gw, family);
	} else {
		h->ifi = h->route ? ifi : 0;
	}
	if (h->ifi &&
	    nl_addr_get(nl, family, h->ifi, prefer, &h->addr, &h->prefix))
		inany_unspecified(&h->addr, family);
}

/**
 * follow_local() - the link-local configuration of a family
 * @family:	AF_INET or AF_INET6
 * @g:		guest's configuration, set: IPv4 169.254.2.1/16 through
 *		169.254.2.2, IPv6 no global address through @ll6
 * @ll6:	our IPv6 link-local address
 */
void follow_local(int family, struct guest_fam *g, const struct in6_addr *ll6)
{
	if (family == AF_INET) {
		inany_from_v4(&g->addr, (struct in_addr){
			      htonl(FOLLOW_LL4_ADDR) });
		g->prefix = FOLLOW_LL4_PREFIX;
		inany_from_v4(&g->gw, (struct in_addr){ htonl(FOLLOW_LL4_GW) });
		return;
	}
	inany_unspecified(&g->addr, AF_INET6);
	g->prefix = 64;
	g->gw.a6 = *ll6;
}

/**
 * follow_guest_put() - give the guest a new configuration of a family
 * @c:		execution context
 * @family:	AF_INET or AF_INET6
 * @g:		new configuration, as far as options left it open
 *
 * Where we configure pasta's namespace, its address is what the guest uses
 * from now.
 */
static void follow_guest_put(const struct ctx *c, int family,
			     const struct guest_fam *g)
{
	bool addr_set = family == AF_INET ? c->addr4_set : c->addr6_set;

	ip_net_update(c, family, g);
	if (!addr_set && follow_sets_ns(c))
		ip_guest_assign(&g->addr);
}

/**
 * follow_addrs_read() - every address of the host, both families
 * @set:	written
 *
 * Return: 0 on success, -errno
 */
static int follow_addrs_read(struct follow_addrs *set)
{
	static const int families[] = { AF_INET, AF_INET6 };
	unsigned int i;
	int n;

	set->n = 0;
	set->full = false;
	for (i = 0; i < ARRAY_SIZE(families); i++) {
		n = nl_addr_list(follow_nl, families[i], set->a + set->n,
				 FOLLOW_ADDRS_MAX);
		if (n < 0)
			return n;
		set->full |= n > FOLLOW_ADDRS_MAX;
		set->n += MIN(n, FOLLOW_ADDRS_MAX);
	}
	return 0;
}

/**
 * follow_addr_str() - a guest's address and prefix length, for the log
 * @g:		configuration
 * @buf:	written
 * @len:	its size, FOLLOW_ADDR_STRLEN
 *
 * Return: @buf: ADDR/PREFIX, or "link-local only" for no address
 */
static const char *follow_addr_str(const struct guest_fam *g, char *buf,
				   size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (inany_is_unspecified(&g->addr))
		snprintf(buf, len, "link-local only");
	else
		snprintf(buf, len, "%s/%d", inany_ntop(&g->addr, a, sizeof(a)),
			 g->prefix);
	return buf;
}

/**
 * follow_family() - follow the host in one family, in what we give the guest
 * @c:		execution context
 * @family:	AF_INET or AF_INET6
 * @now_addrs:	every address the host has now
 * @old:	the guest's configuration until now, set
 * @new:	from now on, set
 *
 * Return: true if the guest's configuration changed
 */
static bool follow_family(const struct ctx *c, int family,
			  const struct follow_addrs *now_addrs,
			  struct guest_fam *old, struct guest_fam *new)
{
	char a0[FOLLOW_ADDR_STRLEN], a1[FOLLOW_ADDR_STRLEN];
	char g0[INET6_ADDRSTRLEN], g1[INET6_ADDRSTRLEN];
	struct guest_fam local;
	struct host_fam h;

	ip_net_fam(family, old);
	*new = *old;
	follow_local(family, &local, &ip_net()->ll6_ours);
	follow_host_read(c, follow_nl, family, &old->addr, &h);

	if (!inany_is_unspecified(&h.addr)) {
		new->addr = h.addr;
		new->prefix = h.prefix;
	} else if (inany_is_unspecified(&old->addr) ||
		   !inany_in(&old->addr, now_addrs->a, now_addrs->n)) {
		new->addr = local.addr;
		new->prefix = local.prefix;
	}
	if (!inany_is_unspecified(&h.gw))
		new->gw = h.gw;
	else if (inany_equals(&new->addr, &local.addr))
		new->gw = local.gw;

	follow_guest_put(c, family, new);
	ip_net_fam(family, new);	/* what options left open */
	if (inany_equals(&new->addr, &old->addr) &&
	    new->prefix == old->prefix && inany_equals(&new->gw, &old->gw))
		return false;

	info("Host's IPv%c changed: guest address %s -> %s, gateway %s -> %s",
	     family == AF_INET ? '4' : '6',
	     follow_addr_str(old, a0, sizeof(a0)),
	     follow_addr_str(new, a1, sizeof(a1)),
	     inany_ntop(&old->gw, g0, sizeof(g0)),
	     inany_ntop(&new->gw, g1, sizeof(g1)));
	return true;
}

/**
 * follow_family_wake() - turn a family on if the host has it now
 * @c:		execution context
 * @family:	AF_INET or AF_INET6, off
 *
 * Only a family that was off as the host had none at start, not by -4 or
 * -6; on, as at start, once the host has an address, and for IPv4 a
 * gateway, with its default route.
 *
 * Return: true if it's on now
 */
static bool follow_family_wake(const struct ctx *c, int family)
{
	const struct guest_net *n = ip_net();
	struct host_fam h;

	if (!(family == AF_INET ? n->ip4_wait : n->ip6_wait))
		return false;
	follow_host_read(c, follow_nl, family, NULL, &h);
	if (inany_is_unspecified(&h.addr) ||
	    (family == AF_INET && inany_is_unspecified(&h.gw)))
		return false;
	info("The host has IPv%c now: the guest too",
	     family == AF_INET ? '4' : '6');
	ip_family_wake(family);
	return true;
}

/**
 * follow_vanished() - addresses the host had and has no more
 * @before:	the host's addresses last time
 * @after:	and now
 * @gone:	vanished ones, written
 * @max:	room in @gone
 *
 * Return: how many
 */
static int follow_vanished(const struct follow_addrs *before,
			   const struct follow_addrs *after,
			   union inany_addr *gone, int max)
{
	int i, n = 0;

	for (i = 0; i < before->n && n < max; i++) {
		if (!inany_in(&before->a[i], after->a, after->n))
			gone[n++] = before->a[i];
	}
	return n;
}

/**
 * follow_forget_now() - remove the old addresses from pasta's namespace
 * @c:		execution context
 *
 * Not at once: we reset the guest's connections from there first, and its
 * kernel may answer a reset with a challenge ACK (RFC 5961, when the
 * reset's sequence isn't exactly the one it expects), which gets the final
 * reset from us only while the address is still there.
 */
static void follow_forget_now(const struct ctx *c)
{
	int i;

	for (i = 0; i < INANY_FAMILIES; i++) {
		if (follow_forget.pending[i])
			pasta_ns_forget(c, &follow_forget.old[i],
					&follow_forget.new[i]);
		follow_forget.pending[i] = false;
	}
	follow_forget.due = 0;
}

/**
 * follow_host() - read the host's state again and follow it
 * @c:		execution context
 *
 * Flows are reset before pasta's namespace loses the old address: the
 * guest's kernel would drop our RSTs to an address it no longer has.
 */
static void follow_host(struct ctx *c)
{
	static const int families[] = { AF_INET, AF_INET6 };
	static union inany_addr host_gone[FOLLOW_ADDRS_MAX * INANY_FAMILIES];
	struct guest_fam old[ARRAY_SIZE(families)], new[ARRAY_SIZE(families)];
	union inany_addr guest_gone[ARRAY_SIZE(families)];
	bool changed[ARRAY_SIZE(families)] = { false };
	static struct follow_addrs now_addrs;
	int rc, reset, n_host, n_guest = 0;
	unsigned int i;

	if (follow_forget.due)
		follow_forget_now(c);
	rc = follow_addrs_read(&now_addrs);
	if (rc) {
		warn("Can't read the host's addresses: %s", strerror(-rc));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (!ip_family_on(families[i]) &&
		    !follow_family_wake(c, families[i]))
			continue;
		changed[i] = follow_family(c, families[i], &now_addrs,
					   &old[i], &new[i]);
		if (changed[i] && follow_sets_ns(c) &&
		    !inany_is_unspecified(&old[i].addr) &&
		    !inany_equals(&old[i].addr, &new[i].addr))
			guest_gone[n_guest++] = old[i].addr;
	}

	n_host = follow_vanished(&follow_known, &now_addrs, host_gone,
				 ARRAY_SIZE(host_gone));
	reset = flow_reset_gone(c, host_gone, n_host, guest_gone, n_guest);
	if (reset)
		info("Reset %d flows whose address is gone", reset);
	if (follow_known.full || now_addrs.full)
		debug("Over %d addresses of a family on the host: flows from "
		      "some may not be reset", FOLLOW_ADDRS_MAX);
	follow_known = now_addrs;

	for (i = 0; i < ARRAY_SIZE(families); i++) {
		if (!changed[i])
			continue;
		if (follow_sets_ns(c)) {
			pasta_ns_follow(c, &old[i], &new[i]);
			follow_forget.old[i] = old[i];
			follow_forget.new[i] = new[i];
			follow_forget.pending[i] = true;
			follow_forget.due = c->now + FOLLOW_FORGET_MS;
		} else if (families[i] == AF_INET6) {
			ndp_prefix_changed(c, &old[i].addr.a6, old[i].prefix);
		}
	}
}

/**
 * follow_init() - start watching the host, unless --no-follow-host
 * @c:		execution context
 *
 * Before the sandbox: it opens sockets.
 */
void follow_init(struct ctx *c)
{
	int rc;

	if (c->no_follow_host)
		return;
	follow_nl = nl_open();
	follow_mon = nl_monitor_open();
	if (follow_nl < 0 || follow_mon < 0) {
		rc = follow_nl < 0 ? follow_nl : follow_mon;
		warn("Can't watch the host's addresses and routes: %s",
		     strerror(-rc));
		if (follow_nl >= 0)
			close(follow_nl);
		if (follow_mon >= 0)
			close(follow_mon);
		follow_nl = follow_mon = -1;
		return;
	}
	rc = follow_addrs_read(&follow_known);
	if (rc)
		warn("Can't read the host's addresses: %s", strerror(-rc));
	epoll_ref_add(c, follow_mon, EPOLL_TYPE_NL_HOST, 0, EPOLLIN);
	follow_due = c->now;	/* anything that changed since conf() */
}

/**
 * follow_handler() - the host's addresses or routes changed
 * @c:		execution context
 */
void follow_handler(struct ctx *c)
{
	int rc = nl_monitor_drain(follow_mon);

	if (rc < 0)
		warn("Reading the host's netlink notifications: %s",
		     strerror(-rc));
	if (rc && !follow_due)
		follow_due = c->now + FOLLOW_SETTLE_MS;
}

/**
 * follow_timer() - follow the host once the changes settled
 * @c:		execution context, with c->now set
 *
 * Return: when to look again (ms), INT64_MAX if nothing is pending
 */
int64_t follow_timer(struct ctx *c)
{
	if (follow_forget.due && c->now >= follow_forget.due)
		follow_forget_now(c);
	if (follow_due && c->now >= follow_due) {
		follow_due = 0;
		follow_host(c);
	}
	return MIN(follow_due ? follow_due : INT64_MAX,
		   follow_forget.due ? follow_forget.due : INT64_MAX);
}
