// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd.c - inbound port forwarding: the -t and -u grammar, and the sockets
 *
 * Theory of operation: each -t or -u option is one rule,
 *
 *	[ADDR[%IFNAME]/]PORTS
 *
 * where PORTS is a comma-separated list of FIRST[-LAST][:TO[-TOLAST]]
 * ranges (a translated range has the length of its source) and ~FIRST[-LAST]
 * excludes; a list of excludes only means every port but those, as does
 * passt's "all" (which excludes may follow). ADDR, IPv4 or IPv6, and IFNAME bind the rule's sockets to
 * that address and device; without ADDR a socket takes every address of
 * both families (one dual-stack socket, see ip_sock_bind()). "none" adds no
 * rule. Rules accumulate, in order.
 *
 * At start-up fwd_listen() opens one socket per rule and forwarded port, and
 * registers it with epoll under its index in a static listener table, which
 * holds the host port and the guest port: the TCP and UDP handlers need
 * nothing else. A port that can't be bound is fatal, naming the port and
 * the address, after a second's retries (fwd_listen_port_retry()), except
 * for the "every port" forms, which skip ports already taken (and, like
 * upstream, the ephemeral range).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "passt.h"

#define FWD_SPEC_MAX		BUFSIZ
#define FWD_EPHEMERAL_PATH	"/proc/sys/net/ipv4/ip_local_port_range"
#define FWD_EPHEMERAL_DEFAULT	32768
#define FWD_BIND_RETRY_MS	1000	/* see fwd_listen_port_retry() */
#define FWD_BIND_RETRY_STEP_MS	20

static struct fwd_listener fwd_listeners[FWD_LISTENERS_MAX];
static unsigned int fwd_listeners_n;

/**
 * fwd_port() - parse a whole port number, 1 to 65535
 * @s:		string
 * @port:	port, set on success
 *
 * Return: 0 on success, -1 otherwise
 */
static int fwd_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > UINT16_MAX)
		return -1;
	*port = v;
	return 0;
}

/**
 * fwd_range_parse() - parse FIRST or FIRST-LAST
 * @s:		string, modified
 * @r:		range, @first and @last set on success
 *
 * Return: 0 on success, -1 on malformed input
 */
static int fwd_range_parse(char *s, struct fwd_range *r)
{
	char *dash = strchr(s, '-');

	if (dash)
		*dash = 0;
	if (fwd_port(s, &r->first))
		return -1;
	r->last = r->first;
	if (dash && (fwd_port(dash + 1, &r->last) || r->last < r->first))
		return -1;
	return 0;
}

/**
 * fwd_item_parse() - add one item of a port list to a rule
 * @r:		rule
 * @item:	~FIRST[-LAST], or FIRST[-LAST][:TO[-TOLAST]]; modified
 *
 * Return: 0 on success, -1 on malformed input or too many items
 */
static int fwd_item_parse(struct fwd_rule *r, char *item)
{
	struct fwd_range range, to;
	char *colon;

	if (*item == '~') {
		if (r->n_excl == FWD_RANGES_MAX ||
		    fwd_range_parse(item + 1, &range))
			return -1;
		r->excl[r->n_excl++] = range;
		return 0;
	}
	colon = strchr(item, ':');
	if (colon)
		*colon = 0;
	if (r->n_ranges == FWD_RANGES_MAX || fwd_range_parse(item, &range))
		return -1;
	range.to = range.first;
	if (colon) {
		if (fwd_range_parse(colon + 1, &to) ||
		    to.last - to.first != range.last - range.first)
			return -1;
		range.to = to.first;
	}
	r->ranges[r->n_ranges++] = range;
	return 0;
}

/**
 * fwd_bind_parse() - parse the ADDR[%IFNAME] before the slash
 * @r:		rule, @addr, @addr_set and @ifname set
 * @s:		string, modified
 *
 * Return: 0 on success, -1 on malformed input
 */
static int fwd_bind_parse(struct fwd_rule *r, char *s)
{
	char *pct = strchr(s, '%');
	struct in_addr a4;

	if (pct) {
		*pct = 0;
		if (!pct[1] || strlen(pct + 1) >= IFNAMSIZ)
			return -1;
		strcpy(r->ifname, pct + 1);
	}
	if (!*s)
		return pct ? 0 : -1;
	if (inet_pton(AF_INET, s, &a4) == 1)
		inany_from_v4(&r->addr, a4);
	else if (inet_pton(AF_INET6, s, &r->addr.a6) != 1)
		return -1;
	r->addr_set = true;
	return 0;
}

/**
 * fwd_parse() - add the rule of one -t or -u option
 * @t:		the protocol's rules
 * @spec:	the option's value
 * @passt:	passt mode: "all" is allowed
 *
 * Return: 0 on success, -1 on malformed input (nothing added)
 */
int fwd_parse(struct fwd_table *t, const char *spec, bool passt)
{
	char buf[FWD_SPEC_MAX], *ports = buf, *slash, *item, *next;
	struct fwd_rule *r = &t->rules[t->n];

	t->set = true;
	if (!strcmp(spec, "none"))
		return 0;
	if (t->n == FWD_RULES_MAX || !*spec || strlen(spec) >= sizeof(buf))
		return -1;
	strcpy(buf, spec);
	memset(r, 0, sizeof(*r));

	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		ports = slash + 1;
		if (fwd_bind_parse(r, buf))
			return -1;
	}
	for (item = ports; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		if (passt && !strcmp(item, "all"))
			r->all = true;
		else if (fwd_item_parse(r, item))
			return -1;
	}
	if (!r->all && !r->n_ranges && !r->n_excl)
		return -1;
	r->all = r->all || !r->n_ranges;
	t->n++;
	return 0;
}

/**
 * fwd_rule_to() - the guest port a rule forwards a host port to
 * @r:		rule
 * @port:	host port
 *
 * Return: guest port, or -1 if the rule doesn't forward @port
 */
int fwd_rule_to(const struct fwd_rule *r, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < r->n_excl; i++) {
		if (port >= r->excl[i].first && port <= r->excl[i].last)
			return -1;
	}
	if (r->all)
		return port;
	for (i = 0; i < r->n_ranges; i++) {
		const struct fwd_range *f = &r->ranges[i];

		if (port >= f->first && port <= f->last)
			return f->to + (port - f->first);
	}
	return -1;
}

/**
 * fwd_ephemeral_first() - first port of the host's ephemeral range
 *
 * Return: from ip_local_port_range, or the kernel's default
 */
static unsigned int fwd_ephemeral_first(void)
{
	unsigned int first = FWD_EPHEMERAL_DEFAULT;
	FILE *f = fopen(FWD_EPHEMERAL_PATH, "re");

	if (f) {
		if (fscanf(f, "%u", &first) != 1 || !first)
			first = FWD_EPHEMERAL_DEFAULT;
		fclose(f);
	}
	return first;
}

/**
 * fwd_listen_port() - open and register the socket of one forwarded port
 * @c:		execution context
 * @r:		rule
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @port:	host port
 * @to:		guest port
 *
 * Return: 0 on success, -errno if the port can't be bound
 */
static int fwd_listen_port(struct ctx *c, const struct fwd_rule *r, int type,
			   uint16_t port, uint16_t to)
{
	struct fwd_listener *l = &fwd_listeners[fwd_listeners_n];
	int s;

	if (fwd_listeners_n == FWD_LISTENERS_MAX)
		return -EMFILE;
	s = ip_sock_bind(c, type, r->addr_set ? &r->addr : NULL, r->ifname,
			 port);
	if (s >= 0 && type == SOCK_STREAM && listen(s, SOMAXCONN)) {
		int ret = -errno;

		close(s);
		return ret;
	}
	if (s < 0)
		return s;
	*l = (struct fwd_listener){ .fd = s, .port = port, .to = to };
	epoll_ref_add(c, s, type == SOCK_STREAM ? EPOLL_TYPE_TCP_LISTEN :
						  EPOLL_TYPE_UDP_LISTEN,
		      fwd_listeners_n++, EPOLLIN);
	return 0;
}

/**
 * fwd_listen_port_retry() - fwd_listen_port(), waiting a little for a port
 *			     that a pasta on its way out still holds
 * @c:		execution context
 * @r:		rule
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @port:	host port
 * @to:		guest port
 *
 * "podman restart" starts the new pasta as soon as it deletes the old
 * namespace, and the old pasta, which then exits, may still hold the port
 * for some milliseconds. A port named explicitly is tried again for up to
 * FWD_BIND_RETRY_MS; one of the "every port" forms is skipped at once.
 *
 * Return: 0 on success, -errno if the port can't be bound
 */
static int fwd_listen_port_retry(struct ctx *c, const struct fwd_rule *r,
				 int type, uint16_t port, uint16_t to)
{
	int64_t until = now_ms() + FWD_BIND_RETRY_MS;
	int ret;

	while ((ret = fwd_listen_port(c, r, type, port, to)) == -EADDRINUSE &&
	       !r->all && now_ms() < until)
		usleep(FWD_BIND_RETRY_STEP_MS * 1000);
	return ret;
}

/**
 * fwd_listen() - open the sockets of every rule of a protocol
 * @c:		execution context
 * @t:		rules
 * @type:	SOCK_STREAM (TCP) or SOCK_DGRAM (UDP)
 */
void fwd_listen(struct ctx *c, const struct fwd_table *t, int type)
{
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	unsigned int i, port, ephemeral = fwd_ephemeral_first();

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		char a[INANY_STRLEN] = "*";

		if (r->addr_set)
			inany_ntop(&r->addr, a, sizeof(a));
		for (port = 1; port <= UINT16_MAX; port++) {
			int to = fwd_rule_to(r, port), ret;

			if (to < 0 || (r->all && port >= ephemeral))
				continue;
			ret = fwd_listen_port_retry(c, r, type, port, to);
			if (ret == -EADDRINUSE && r->all)
				continue;
			if (ret)
				die("%s: can't forward port %u on %s%s%s: %s",
				    proto, port, a, r->ifname[0] ? "%" : "",
				    r->ifname, strerror(-ret));
		}
	}
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
