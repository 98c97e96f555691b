// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd.c - port forwarding: the -t/-u/-T/-U grammar, and the sockets
 *
 * Theory of operation: each -t or -u option (and pasta's -T and -U, the
 * namespace's ports towards the host) is one rule,
 *
 *	[ADDR[%IFNAME]/]PORTS
 *
 * where PORTS is a comma-separated list of FIRST[-LAST][:TO[-TOLAST]]
 * ranges (a translated range has the length of its source) and
 * ~FIRST[-LAST] excludes; a list of excludes only means every port but
 * those, as does passt's "all" (which excludes may follow). ADDR, IPv4 or
 * IPv6, and IFNAME bind the rule's sockets to that address and device;
 * without ADDR a socket takes every address of both families (one
 * dual-stack socket, see ip_sock_bind()), or, for -T and -U, the
 * namespace's loopback (one socket per family, twins). "none" adds no
 * rule. Rules accumulate, in order.
 *
 * At start-up fwd_listen() opens one socket per rule and forwarded port, and
 * registers it with epoll under its index in a static listener table, which
 * holds the host port and the guest port: the TCP and UDP handlers need
 * nothing else. pasta's "auto" instead follows the ports the other side
 * listens on, asked every second through sock_diag (a netlink socket
 * opened inside the namespace for -t and -u, in the host for -T and -U,
 * whose sockets are then opened inside the namespace; its /proc/net files
 * where sock_diag can't answer), opening and closing listeners as
 * they come and go (fwd_auto_scan()); closed slots of the table are
 * reused. A port that can't be bound is fatal, naming the port and the
 * address, after a second's retries (fwd_listen_port_retry()), except for
 * the "every port" forms, which skip ports already taken, privileged ones
 * an ordinary user can't bind, and, like upstream, the ephemeral range.
 * Out of descriptors, accept() pauses every TCP listener for a while
 * (fwd_accept_error()) instead of failing again at once, for ever.
 */

#include <errno.h>
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

#define FWD_SPEC_MAX		BUFSIZ
#define FWD_EPHEMERAL_PATH	"/proc/sys/net/ipv4/ip_local_port_range"
#define FWD_EPHEMERAL_FIRST	32768	/* the kernel's default range */
#define FWD_EPHEMERAL_LAST	60999
#define FWD_BIND_RETRY_MS	1000	/* see fwd_listen_port_retry() */
#define FWD_BIND_RETRY_STEP_MS	20
#define FWD_SCAN_BUF		(64 * 1024)
#define FWD_TCP_LISTEN		0x0a	/* TCP_LISTEN, include/net/tcp_states.h */
#define FWD_UDP_CLOSE		0x07	/* TCP_CLOSE: bound, not connected */
#define FWD_ACCEPT_PAUSE_MS	1000	/* see fwd_accept_error() */

static struct fwd_listener fwd_listeners[FWD_LISTENERS_MAX];
static unsigned int fwd_listeners_n;
static uint32_t fwd_free[FWD_LISTENERS_MAX];	/* closed slots, for reuse */
static unsigned int fwd_free_n;

/* accept() ran out of descriptors: TCP listeners wait, see fwd_accept_error() */
static bool fwd_accept_paused;
static unsigned int fwd_paused_flows;	/* flows in use when paused */
static int64_t fwd_paused_until;

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

static unsigned int fwd_ephemeral_first = FWD_EPHEMERAL_FIRST;
static unsigned int fwd_ephemeral_last = FWD_EPHEMERAL_LAST;

/**
 * fwd_ephemeral_init() - read the host's ephemeral port range, at start-up
 *
 * Once, before the sandbox hides /proc: where ip_local_port_range can't
 * be read or makes no sense, the kernel's default stays.
 */
void fwd_ephemeral_init(void)
{
	unsigned int first, last;
	FILE *f;

	f = fopen(FWD_EPHEMERAL_PATH, "re");
	if (!f)
		return;
	if (fscanf(f, "%u %u", &first, &last) == 2 && first &&
	    last >= first) {
		fwd_ephemeral_first = first;
		fwd_ephemeral_last = last;
	}
	fclose(f);
}

/**
 * fwd_is_ephemeral() - is a port in the host's ephemeral range?
 * @port:	port
 *
 * Return: true if it is
 */
static bool fwd_is_ephemeral(unsigned int port)
{
	return port >= fwd_ephemeral_first && port <= fwd_ephemeral_last;
}

/**
 * fwd_listen_one() - open and register one socket of a forwarded port
 * @c:		execution context
 * @addr:	address to bind to, NULL for every address
 * @ifname:	device to bind to, empty for none
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ev_type:	enum epoll_type of the listener
 * @port:	host port
 * @to:		guest port
 *
 * Return: listener index, or -errno if the port can't be bound
 */
static int fwd_listen_one(struct ctx *c, const union inany_addr *addr,
			  const char *ifname, int type,
			  enum epoll_type ev_type, uint16_t port, uint16_t to)
{
	uint32_t idx = fwd_free_n ? fwd_free[fwd_free_n - 1] : fwd_listeners_n;
	struct fwd_listener *l = &fwd_listeners[idx];
	int s;

	if (idx == FWD_LISTENERS_MAX)
		return -EMFILE;
	s = ip_sock_bind(c, type, addr, ifname, port);
	if (s >= 0 && type == SOCK_STREAM && listen(s, SOMAXCONN)) {
		int ret = -errno;

		close(s);
		return ret;
	}
	if (s < 0)
		return s;
	*l = (struct fwd_listener){ .fd = s, .port = port, .to = to,
				    .ev_type = ev_type };
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
 * fwd_listen_port() - open and register the sockets of one forwarded port
 * @c:		execution context
 * @t:		the rule's table
 * @r:		rule
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ev_type:	enum epoll_type of the listener
 * @port:	host port
 * @to:		guest port
 *
 * Inside the namespace, a rule without an address listens on its loopback,
 * as upstream's -T and -U do: one socket per family, the second the first's
 * twin. A family the namespace lacks is skipped.
 *
 * Return: listener index (of the first socket), or -errno if the port
 *	   can't be bound
 */
static int fwd_listen_port(struct ctx *c, const struct fwd_table *t,
			   const struct fwd_rule *r, int type,
			   enum epoll_type ev_type, uint16_t port, uint16_t to)
{
	static const int families[] = { AF_INET, AF_INET6 };
	int first = -EADDRNOTAVAIL;
	union inany_addr lo;
	unsigned int i;

	if (!t->in_ns || r->addr_set)
		return fwd_listen_one(c, r->addr_set ? &r->addr : NULL,
				      r->ifname, type, ev_type, port, to);
	for (i = 0; i < ARRAY_SIZE(families); i++) {
		int ret;

		if (!ip_family_on(families[i]))
			continue;
		inany_loopback(&lo, families[i]);
		ret = fwd_listen_one(c, &lo, r->ifname, type, ev_type, port,
				     to);
		if (ret == -EADDRNOTAVAIL || ret == -EAFNOSUPPORT)
			continue;
		if (ret < 0) {
			if (first >= 0)
				fwd_listener_close(c, first);
			return ret;
		}
		if (first >= 0)
			fwd_listeners[first].twin = ret + 1;
		else
			first = ret;
	}
	return first;
}

/**
 * fwd_listen_port_retry() - fwd_listen_port(), waiting a little for a port
 *			     that a pasta on its way out still holds
 * @c:		execution context
 * @t:		the rule's table
 * @r:		rule
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ev_type:	enum epoll_type of the listener
 * @port:	host port
 * @to:		guest port
 *
 * "podman restart" starts the new pasta as soon as it deletes the old
 * namespace, and the old pasta, which then exits, may still hold the port
 * for some milliseconds. A port named explicitly is tried again for up to
 * FWD_BIND_RETRY_MS; one of the "every port" forms is skipped at once.
 *
 * Return: listener index, or -errno if the port can't be bound
 */
static int fwd_listen_port_retry(struct ctx *c, const struct fwd_table *t,
				 const struct fwd_rule *r, int type,
				 enum epoll_type ev_type, uint16_t port,
				 uint16_t to)
{
	int64_t until = now_ms() + FWD_BIND_RETRY_MS;
	int ret;

	while ((ret = fwd_listen_port(c, t, r, type, ev_type, port, to)) ==
	       -EADDRINUSE &&
	       !r->all && now_ms() < until)
		usleep(FWD_BIND_RETRY_STEP_MS * 1000);
	return ret;
}

/**
 * fwd_listen() - open the sockets of every rule of a protocol
 * @c:		execution context
 * @t:		rules
 * @type:	SOCK_STREAM (TCP) or SOCK_DGRAM (UDP)
 * @ev_type:	enum epoll_type of the listeners
 */
void fwd_listen(struct ctx *c, const struct fwd_table *t, int type,
		enum epoll_type ev_type)
{
	const char *proto = type == SOCK_STREAM ? "TCP" : "UDP";
	unsigned int i, port;

	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];
		char a[INANY_STRLEN] = "*";

		if (r->addr_set)
			inany_ntop(&r->addr, a, sizeof(a));
		for (port = 1; port <= UINT16_MAX; port++) {
			int to = fwd_rule_to(r, port), ret;

			if (to < 0 || (r->all && fwd_is_ephemeral(port)))
				continue;
			ret = fwd_listen_port_retry(c, t, r, type, ev_type,
						    port, to);
			/* "every port": not those taken, or privileged */
			if ((ret == -EADDRINUSE || ret == -EACCES) && r->all)
				continue;
			if (ret < 0)
				die("%s: can't forward port %u on %s%s%s: %s",
				    proto, port, a, r->ifname[0] ? "%" : "",
				    r->ifname, strerror(-ret));
		}
	}
}

/**
 * fwd_listen_ns_run() - open the -T and -U listeners, inside the namespace
 * @arg:	execution context
 *
 * Return: 0 (a port that can't be bound ends the child with die())
 */
static int fwd_listen_ns_run(void *arg)
{
	struct ctx *c = arg;

	fwd_listen(c, c->fwd_tcp_ns, SOCK_STREAM, EPOLL_TYPE_SPLICE_LISTEN);
	fwd_listen(c, c->fwd_udp_ns, SOCK_DGRAM, EPOLL_TYPE_UDP_NS_LISTEN);
	return 0;
}

/**
 * fwd_listen_ns() - pasta: open the namespace side's listeners, -T and -U
 * @c:		execution context, its namespace already set up
 */
void fwd_listen_ns(struct ctx *c)
{
	if ((c->fwd_tcp_ns->n || c->fwd_udp_ns->n) &&
	    pasta_ns_run(c, fwd_listen_ns_run, c))
		die("Can't listen on -T or -U ports in the namespace");
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
 * @t:		table, with "auto"
 * @tcp:	TCP listeners, or else bound, unconnected UDP sockets
 * @map:	bitmap of ports, bits set
 *
 * sock_diag dumps listening sockets alone, from the kernel's table of
 * listeners; the /proc/net files list every socket, connected and
 * TIME_WAIT ones too, and reading them took most of our time under load
 * (62% of our samples at 1,000 new connections a second). Those stay for a
 * kernel that can't dump the protocol (no tcp_diag or udp_diag): we switch
 * for good, logging it once. The IPv6 dump may fail where IPv6 is off.
 */
static void fwd_scan(struct fwd_table *t, bool tcp, uint8_t *map)
{
	unsigned int i;

	if (t->scan_nl >= 0) {
		if (!fwd_scan_diag_family(t->scan_nl, AF_INET, tcp, map)) {
			fwd_scan_diag_family(t->scan_nl, AF_INET6, tcp, map);
			return;
		}
		info("No socket diagnostics for %s: reading /proc/net instead",
		     tcp ? "TCP" : "UDP");
		close(t->scan_nl);
		t->scan_nl = -1;
	}
	for (i = 0; i < ARRAY_SIZE(t->scan_fd); i++)
		fwd_scan_file(t->scan_fd[i], tcp, map);
}

/**
 * fwd_rules_cover() - does a rule of a table name a port?
 * @t:		table
 * @port:	port on the table's listening side
 *
 * Return: true if one does
 */
static bool fwd_rules_cover(const struct fwd_table *t, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (fwd_rule_to(&t->rules[i], port) >= 0)
			return true;
	}
	return false;
}

/**
 * struct fwd_auto_arg - the listeners "auto" opens, for fwd_auto_bind()
 * @c:		execution context
 * @t:		table
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @ev_type:	enum epoll_type of the listeners
 * @add:	bitmap of the ports to open
 */
struct fwd_auto_arg {
	struct ctx *c;
	struct fwd_table *t;
	int type;
	enum epoll_type ev_type;
	const uint8_t *add;
};

/**
 * fwd_auto_bind() - open the listeners "auto" found missing
 * @arg:	struct fwd_auto_arg
 *
 * Runs inside the namespace (pasta_ns_run()) for -T and -U. A port that
 * can't be bound (the other side's own services) is tried again at the
 * next scan.
 *
 * Return: 0
 */
static int fwd_auto_bind(void *arg)
{
	static const struct fwd_rule any;
	const struct fwd_auto_arg *a = arg;
	unsigned int port;

	for (port = 1; port <= UINT16_MAX; port++) {
		int idx;

		if (!(a->add[port / 8] & (1 << (port % 8))))
			continue;
		idx = fwd_listen_port(a->c, a->t, &any, a->type, a->ev_type,
				      port, port);
		if (idx >= 0)
			a->t->auto_idx[port] = idx + 1;
	}
	return 0;
}

/**
 * fwd_auto_table() - follow the other side's listening ports, one table
 * @c:		execution context
 * @t:		the table, with "auto"
 * @rev:	the table of the opposite direction, same protocol
 * @type:	SOCK_STREAM (TCP) or SOCK_DGRAM (UDP)
 * @ev_type:	enum epoll_type of the table's listeners
 *
 * A port the other side listens on is forwarded to the same port, unless
 * a rule given explicitly covers it, it is in the ephemeral range (a
 * client's unconnected UDP socket is no service), or it is one the
 * opposite direction listens on: that is our own socket, seen from the
 * other side. One it no longer listens on is released.
 */
static void fwd_auto_table(struct ctx *c, struct fwd_table *t,
			   const struct fwd_table *rev, int type,
			   enum epoll_type ev_type)
{
	static uint8_t map[(UINT16_MAX + 1) / 8];
	struct fwd_auto_arg arg = { c, t, type, ev_type, map };
	bool add = false;
	unsigned int port;

	memset(map, 0, sizeof(map));
	fwd_scan(t, type == SOCK_STREAM, map);

	for (port = 1; port <= UINT16_MAX; port++) {
		bool want = map[port / 8] & (1 << (port % 8));
		uint32_t idx = t->auto_idx[port];

		want = want && !fwd_is_ephemeral(port) &&
		       !fwd_rules_cover(t, port) &&
		       !fwd_rules_cover(rev, port) && !rev->auto_idx[port];
		if (want && !idx) {
			add = true;
			continue;
		}
		map[port / 8] &= ~(1 << (port % 8));
		if (!want && idx) {
			fwd_listener_close(c, idx - 1);
			t->auto_idx[port] = 0;
		}
	}
	if (!add)
		return;
	if (t->in_ns)
		pasta_ns_run(c, fwd_auto_bind, &arg);
	else
		fwd_auto_bind(&arg);
}

/**
 * fwd_auto_scan() - pasta's "auto": look at the other side's ports each
 *		     second
 * @c:		execution context
 */
void fwd_auto_scan(struct ctx *c)
{
	static int64_t next;

	if (c->now < next)
		return;
	next = c->now + MS_PER_S;
	if (c->fwd_tcp->auto_scan)
		fwd_auto_table(c, c->fwd_tcp, c->fwd_tcp_ns, SOCK_STREAM,
			       EPOLL_TYPE_TCP_LISTEN);
	if (c->fwd_udp->auto_scan)
		fwd_auto_table(c, c->fwd_udp, c->fwd_udp_ns, SOCK_DGRAM,
			       EPOLL_TYPE_UDP_LISTEN);
	if (c->fwd_tcp_ns->auto_scan)
		fwd_auto_table(c, c->fwd_tcp_ns, c->fwd_tcp, SOCK_STREAM,
			       EPOLL_TYPE_SPLICE_LISTEN);
	if (c->fwd_udp_ns->auto_scan)
		fwd_auto_table(c, c->fwd_udp_ns, c->fwd_udp, SOCK_DGRAM,
			       EPOLL_TYPE_UDP_NS_LISTEN);
}
