// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink.c - rtnetlink helpers: links, IPv4 and IPv6 addresses and routes
 *
 * Theory of operation
 *
 * pasta copies the host's addresses and default routes into a new network
 * namespace (--config-net). A NETLINK_ROUTE socket talks to the namespace it
 * was created in, whichever namespace its user is in later, so the caller
 * opens one socket per namespace with nl_open() (entering the target
 * namespace for the second one) and every helper takes the socket to use.
 *
 * Requests are synchronous. Each gets a new sequence number and NLM_F_ACK,
 * and nl_do() reads replies until the request is over:
 *   - a plain request ends with an NLMSG_ERROR message whose error is 0 (the
 *     ACK) or a negative errno; a RTM_GET* request for a single object gets
 *     its answer before the ACK;
 *   - a dump (NLM_F_DUMP) sends its objects in as many datagrams as it needs
 *     and ends with NLMSG_DONE, or with NLMSG_ERROR if it could not start; no
 *     ACK follows a dump.
 * A dump is read to its end even once the callback found what it looked for,
 * so that nothing is left queued when the next request starts. Messages with
 * another sequence number (left over by a request abandoned half-way, e.g.
 * after a truncated datagram) or not sent by the kernel are skipped: the
 * second socket lives in the guest's namespace, where a process with
 * CAP_NET_ADMIN could send us forged replies.
 *
 * Replies land in one static 64 KiB buffer, so this module is neither
 * reentrant nor thread-safe, which suits a single-threaded daemon. The kernel
 * makes dump datagrams of at most 32 KiB, and the largest single reply we
 * ask for (RTM_NEWLINK, without VF information) takes a few KiB; a truncated
 * datagram is reported as -EMSGSIZE, never parsed.
 *
 * Lengths coming from the kernel are checked before use: NLMSG_OK() for each
 * message, nlmsg_len against the fixed header that follows it, RTA_OK() for
 * each attribute. An attribute is only read if its payload has exactly the
 * size of the value we expect, and values are copied out with memcpy(), as
 * attribute data is only 4-byte aligned. An attribute of another size counts
 * as absent.
 */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "log.h"
#include "inany.h"
#include "netlink.h"
#include "util.h"

#define NL_BUF_SIZE		(64 * 1024)

/* Room for the family header and a few attributes after struct nlmsghdr */
#define NL_REQ_SPACE		256

/* Largest errno the kernel reports (MAX_ERRNO in include/linux/err.h) */
#define NL_ERRNO_MAX		4095

static char nl_buf[NL_BUF_SIZE] __attribute__((aligned(8)));
static uint32_t nl_seq;

/**
 * struct nl_req - request being built
 * @nlh:	netlink header, nlmsg_len is the length used so far
 * @data:	family header (ifinfomsg, ifaddrmsg, rtmsg), then attributes
 */
struct nl_req {
	struct nlmsghdr nlh;
	char data[NL_REQ_SPACE];
};

/* Called for each reply to the current request that is not NLMSG_ERROR,
 * NLMSG_DONE or another control message: 0 to see more, 1 when it found what
 * it wanted, -errno if the request failed after all
 */
typedef int (*nl_cb_t)(const struct nlmsghdr *nh, void *arg);

/**
 * nl_open() - open a NETLINK_ROUTE socket in the current network namespace
 *
 * Return: socket, or -errno
 */
int nl_open(void)
{
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;

	/* Best effort, for older kernels: extended ACKs tell why a request
	 * failed, and capped ACKs don't echo the whole request back to us.
	 */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	return fd;
}

/**
 * nl_req_init() - start a request
 * @req:	request to initialise
 * @type:	message type (RTM_*)
 * @flags:	NLM_F_* flags besides NLM_F_REQUEST and NLM_F_ACK
 * @hdr:	family header
 * @hdrlen:	size of @hdr
 */
static void nl_req_init(struct nl_req *req, uint16_t type, uint16_t flags,
			const void *hdr, size_t hdrlen)
{
	static_assert(sizeof(struct nlmsghdr) == NLMSG_HDRLEN,
		      "data must follow the header without padding");

	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_type = type;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	req->nlh.nlmsg_len = NLMSG_LENGTH(hdrlen);
	memcpy(req->data, hdr, hdrlen);
}

/**
 * nl_attr_put() - append an attribute to a request
 * @req:	request
 * @type:	attribute type
 * @val:	value
 * @len:	length of @val
 */
static void nl_attr_put(struct nl_req *req, unsigned short type,
			const void *val, size_t len)
{
	size_t off = NLMSG_ALIGN(req->nlh.nlmsg_len);
	struct rtattr rta = { .rta_len = RTA_LENGTH(len), .rta_type = type };

	/* Callers only add a few values of bounded size: no room is a bug */
	assert(off + RTA_SPACE(len) <= sizeof(*req));

	memcpy((char *)req + off, &rta, sizeof(rta));
	memcpy((char *)req + off + RTA_LENGTH(0), val, len);
	req->nlh.nlmsg_len = off + RTA_LENGTH(len);
}

/**
 * nl_msg_hdr() - copy out the family header of a message, find its attributes
 * @nh:		message, already checked with NLMSG_OK()
 * @hdr:	family header, written
 * @hdrlen:	size of @hdr
 * @attrlen:	length of the attributes, set on success
 *
 * Return: first attribute, NULL if the message is too short for @hdr
 */
static const struct rtattr *nl_msg_hdr(const struct nlmsghdr *nh, void *hdr,
				       size_t hdrlen, int *attrlen)
{
	if (nh->nlmsg_len < NLMSG_LENGTH(hdrlen))
		return NULL;

	memcpy(hdr, NLMSG_DATA(nh), hdrlen);
	if (nh->nlmsg_len < NLMSG_SPACE(hdrlen))
		*attrlen = 0;
	else
		*attrlen = (int)(nh->nlmsg_len - NLMSG_SPACE(hdrlen));

	return (const struct rtattr *)((const char *)NLMSG_DATA(nh) +
				       NLMSG_ALIGN(hdrlen));
}

/**
 * nl_attr_get() - copy out the value of an attribute of an exact size
 * @rta:	attribute, already checked with RTA_OK()
 * @val:	value, written on success
 * @len:	expected size of the value
 *
 * Return: true if the payload has exactly @len bytes and was copied
 */
static bool nl_attr_get(const struct rtattr *rta, void *val, size_t len)
{
	if (RTA_PAYLOAD(rta) != len)
		return false;

	memcpy(val, RTA_DATA(rta), len);
	return true;
}

/**
 * nl_extack_msg() - log the text the kernel attached to an error, if any
 * @nh:		NLMSG_ERROR message of at least NLMSG_LENGTH(struct nlmsgerr)
 * @error:	negative errno it carries
 */
static void nl_extack_msg(const struct nlmsghdr *nh, int error)
{
	size_t off = NLMSG_SPACE(sizeof(struct nlmsgerr));
	const struct rtattr *rta;
	int left;

	/* With NETLINK_CAP_ACK, attributes follow struct nlmsgerr directly */
	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    !(nh->nlmsg_flags & NLM_F_CAPPED) || nh->nlmsg_len <= off)
		return;

	left = (int)(nh->nlmsg_len - off);
	rta = (const struct rtattr *)((const char *)nh + off);
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		const char *msg = RTA_DATA(rta);

		if ((rta->rta_type & NLA_TYPE_MASK) != NLMSGERR_ATTR_MSG)
			continue;

		debug("netlink: %s: %.*s", strerror(-error),
		      (int)strnlen(msg, RTA_PAYLOAD(rta)), msg);
		return;
	}
}

/**
 * nl_error() - result carried by an NLMSG_ERROR message
 * @nh:		message, already checked with NLMSG_OK()
 *
 * Return: 0 for an ACK, negative errno otherwise
 */
static int nl_error(const struct nlmsghdr *nh)
{
	struct nlmsgerr e;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
		return -EBADMSG;

	memcpy(&e, NLMSG_DATA(nh), sizeof(e));
	if (!e.error)
		return 0;
	if (e.error > 0 || e.error < -NL_ERRNO_MAX)
		return -EPROTO;

	nl_extack_msg(nh, e.error);
	return e.error;
}

/**
 * nl_done() - result carried by an NLMSG_DONE message
 * @nh:		message, already checked with NLMSG_OK()
 *
 * Return: 0 if the dump completed, negative errno if it was cut short
 */
static int nl_done(const struct nlmsghdr *nh)
{
	int error;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(error)))
		return 0;

	memcpy(&error, NLMSG_DATA(nh), sizeof(error));
	if (error > 0 || error < -NL_ERRNO_MAX)
		return -EPROTO;

	return error;
}

/**
 * nl_recv() - receive one datagram from the kernel into nl_buf
 * @nl:		netlink socket
 *
 * Return: length received, or negative errno
 */
static ssize_t nl_recv(int nl)
{
	struct iovec iov = { .iov_base = nl_buf, .iov_len = sizeof(nl_buf) };
	struct sockaddr_nl sa;
	struct msghdr mh = {
		.msg_name = &sa, .msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n;

	for (;;) {
		mh.msg_namelen = sizeof(sa);
		mh.msg_flags = 0;
		n = recvmsg(nl, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}

		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;

		if (mh.msg_namelen != sizeof(sa) || sa.nl_pid) {
			debug("netlink: dropping datagram not from the kernel");
			continue;
		}

		return n;
	}
}

/**
 * nl_do() - send a request and process replies until it is complete
 * @nl:		netlink socket
 * @req:	request, its sequence number is set here
 * @cb:	called on each reply until it returns non-zero, can be NULL
 * @arg:	argument for @cb
 *
 * Return: negative errno on failure, otherwise the last value @cb returned
 *	   (0 if it was never called)
 */
static int nl_do(int nl, struct nl_req *req, nl_cb_t cb, void *arg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t seq = ++nl_seq;
	int ret = 0;
	ssize_t n;

	req->nlh.nlmsg_seq = seq;
	do {
		n = sendto(nl, req, req->nlh.nlmsg_len, 0,
			   (struct sockaddr *)&kernel, sizeof(kernel));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;

	for (;;) {
		const struct nlmsghdr *nh;
		int left;

		n = nl_recv(nl);
		if (n < 0)
			return (int)n;

		left = (int)n;
		nh = (const struct nlmsghdr *)nl_buf;
		for (; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			int rc;

			if (nh->nlmsg_seq != seq)
				continue;

			if (nh->nlmsg_type == NLMSG_ERROR ||
			    nh->nlmsg_type == NLMSG_DONE) {
				if (nh->nlmsg_type == NLMSG_ERROR)
					rc = nl_error(nh);
				else
					rc = nl_done(nh);

				if (rc < 0) {
					debug("netlink: request type %u: %s",
					      req->nlh.nlmsg_type,
					      strerror(-rc));
					return rc;
				}
				return ret;
			}

			/* NLMSG_NOOP, NLMSG_OVERRUN: nothing for us */
			if (nh->nlmsg_type < NLMSG_MIN_TYPE)
				continue;

			/* After a result, keep draining to the final message */
			if (cb && !ret)
				ret = cb(nh, arg);
		}

		if (left)
			debug("netlink: %d trailing bytes in datagram", left);
	}
}

/**
 * nl_ifi_ok() - check that an interface index fits the kernel's int
 * @ifi:	interface index
 *
 * Return: true if @ifi can name an interface
 */
static bool nl_ifi_ok(unsigned int ifi)
{
	return ifi && ifi <= INT_MAX;
}

/**
 * nl_alen() - length of an address of a family on the wire
 * @family:	AF_INET or AF_INET6
 *
 * Return: 4 or 16
 */
static size_t nl_alen(int family)
{
	return family == AF_INET ? sizeof(struct in_addr) :
				   sizeof(struct in6_addr);
}

/**
 * nl_inany_bytes() - an address as netlink carries it
 * @a:		address
 *
 * Return: the 4 bytes of an IPv4 address, or the 16 of an IPv6 one
 */
static const void *nl_inany_bytes(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	return v4 ? (const void *)v4 : (const void *)&a->a6;
}

/**
 * nl_inany_set() - an address from netlink's bytes
 * @a:		address, set
 * @family:	AF_INET or AF_INET6
 * @bytes:	nl_alen(@family) bytes
 */
static void nl_inany_set(union inany_addr *a, int family, const void *bytes)
{
	struct in_addr v4;

	if (family == AF_INET6) {
		memcpy(&a->a6, bytes, sizeof(a->a6));
		return;
	}
	memcpy(&v4, bytes, sizeof(v4));
	inany_from_v4(a, v4);
}

/**
 * struct nl_route_query - looking for the first default route of a family
 * @family:	AF_INET or AF_INET6
 * @alen:	address length for @family
 * @ifi:	output interface, set when found
 * @gw:		gateway, all zeroes if none, set when found
 */
struct nl_route_query {
	int family;
	size_t alen;
	unsigned int ifi;
	unsigned char gw[sizeof(struct in6_addr)];
};

/**
 * nl_route_nexthop() - interface and gateway of the first hop of a multipath
 * @mp:		RTA_MULTIPATH attribute, already checked with RTA_OK()
 * @q:		query, for the address length
 * @oif:	output interface, set if the first hop is well-formed
 * @gw:		gateway, set if the first hop has one
 * @via:	set if the first hop has a gateway of another family
 */
static void nl_route_nexthop(const struct rtattr *mp,
			     const struct nl_route_query *q, uint32_t *oif,
			     unsigned char *gw, bool *via)
{
	int len = (int)RTA_PAYLOAD(mp);
	const struct rtattr *rta;
	struct rtnexthop rtnh;
	int left;

	/* The first hop stands for the route, as pasta configures one path */
	if (len < (int)sizeof(rtnh))
		return;
	memcpy(&rtnh, RTA_DATA(mp), sizeof(rtnh));
	if (rtnh.rtnh_len < sizeof(rtnh) || rtnh.rtnh_len > len ||
	    rtnh.rtnh_ifindex <= 0)
		return;

	*oif = (uint32_t)rtnh.rtnh_ifindex;
	left = rtnh.rtnh_len - (int)RTNH_LENGTH(0);
	rta = (const struct rtattr *)((const char *)RTA_DATA(mp) +
				      RTNH_LENGTH(0));
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		if (rta->rta_type == RTA_GATEWAY)
			nl_attr_get(rta, gw, q->alen);
		else if (rta->rta_type == RTA_VIA)
			*via = true;
	}
}

/**
 * nl_route_cb() - match a default unicast route of the main table
 * @nh:		RTM_NEWROUTE message from a dump
 * @arg:	struct nl_route_query
 *
 * Return: 1 if @nh is such a route, 0 otherwise
 */
static int nl_route_cb(const struct nlmsghdr *nh, void *arg)
{
	unsigned char gw[sizeof(struct in6_addr)] = { 0 };
	struct nl_route_query *q = arg;
	const struct rtattr *rta;
	uint32_t table, oif = 0;
	struct rtmsg rtm;
	bool via = false;
	int left;

	if (nh->nlmsg_type != RTM_NEWROUTE)
		return 0;

	/* Only a route for all traffic: no source-specific (IPv6 "from") or
	 * TOS-specific default routes, no cached clones
	 */
	rta = nl_msg_hdr(nh, &rtm, sizeof(rtm), &left);
	if (!rta || rtm.rtm_family != q->family || rtm.rtm_dst_len ||
	    rtm.rtm_src_len || rtm.rtm_tos || rtm.rtm_type != RTN_UNICAST ||
	    (rtm.rtm_flags & RTM_F_CLONED))
		return 0;

	table = rtm.rtm_table;	/* RTA_TABLE, if present, has the full id */
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		switch (rta->rta_type) {
		case RTA_TABLE:
			nl_attr_get(rta, &table, sizeof(table));
			break;
		case RTA_OIF:
			nl_attr_get(rta, &oif, sizeof(oif));
			break;
		case RTA_GATEWAY:
			nl_attr_get(rta, gw, q->alen);
			break;
		case RTA_VIA:
			via = true;
			break;
		case RTA_MULTIPATH:
			nl_route_nexthop(rta, q, &oif, gw, &via);
			break;
		}
	}

	/* A gateway of the other family (RTA_VIA, RFC 8950) doesn't fit the
	 * caller's address type, and reporting none would turn the route
	 * into a direct one: look further instead.
	 */
	if (table != RT_TABLE_MAIN || !oif || oif > INT_MAX || via)
		return 0;

	q->ifi = oif;
	memcpy(q->gw, gw, sizeof(q->gw));
	return 1;
}

/**
 * nl_default_route() - first default route of a family in the main table
 * @nl:		netlink socket
 * @family:	AF_INET or AF_INET6
 * @ifi:	output interface, set on success
 * @gw:		gateway, unspecified (0.0.0.0 or ::) for a direct route, set
 *		on success
 *
 * IPv4 routes with an IPv6 gateway (RTA_VIA) are skipped. For a multipath
 * route, the first next hop counts.
 *
 * Return: 0 on success, -ENOENT if there is no such route, other -errno
 */
int nl_default_route(int nl, int family, unsigned int *ifi,
		     union inany_addr *gw)
{
	struct nl_route_query q = { .family = family, .alen = nl_alen(family) };
	struct rtmsg rtm = { .rtm_family = (unsigned char)family };
	struct nl_req req;
	int rc;

	nl_req_init(&req, RTM_GETROUTE, NLM_F_DUMP, &rtm, sizeof(rtm));
	rc = nl_do(nl, &req, nl_route_cb, &q);
	if (rc < 0)
		return rc;
	if (!rc)
		return -ENOENT;

	*ifi = q.ifi;
	nl_inany_set(gw, family, q.gw);
	return 0;
}

/**
 * struct nl_addr_msg - what we read from one RTM_NEWADDR message
 * @ifa:	its family header
 * @addr:	the address (our end), @alen bytes of it
 * @flags:	IFA_F_* flags, all 32 bits
 */
struct nl_addr_msg {
	struct ifaddrmsg ifa;
	unsigned char addr[sizeof(struct in6_addr)];
	uint32_t flags;
};

/**
 * nl_addr_parse() - read an address message of a family
 * @nh:		message from a dump
 * @family:	AF_INET or AF_INET6
 * @m:		what it says, set on success
 *
 * Return: true if @nh is a RTM_NEWADDR of @family with an address
 */
static bool nl_addr_parse(const struct nlmsghdr *nh, int family,
			  struct nl_addr_msg *m)
{
	unsigned char local[sizeof(struct in6_addr)];
	bool has_local = false, has_addr = false;
	size_t alen = nl_alen(family);
	const struct rtattr *rta;
	int left;

	if (nh->nlmsg_type != RTM_NEWADDR)
		return false;
	rta = nl_msg_hdr(nh, &m->ifa, sizeof(m->ifa), &left);
	if (!rta || m->ifa.ifa_family != family)
		return false;

	m->flags = m->ifa.ifa_flags;	/* IFA_FLAGS, if present, has all */
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		switch (rta->rta_type) {
		case IFA_LOCAL:
			has_local = nl_attr_get(rta, local, alen);
			break;
		case IFA_ADDRESS:
			has_addr = nl_attr_get(rta, m->addr, alen) || has_addr;
			break;
		case IFA_FLAGS:
			nl_attr_get(rta, &m->flags, sizeof(m->flags));
			break;
		}
	}

	/* IFA_LOCAL is our end; IFA_ADDRESS is the peer on point-to-point
	 * links, and the only one IPv6 sends for addresses without a peer.
	 */
	if (has_local)
		memcpy(m->addr, local, alen);
	return has_local || has_addr;
}

/**
 * struct nl_addr_query - looking for the best address of a scope on a link
 * @family:	AF_INET or AF_INET6
 * @ifi:	interface index
 * @scope:	RT_SCOPE_UNIVERSE (global) or RT_SCOPE_LINK (link-local)
 * @prefer:	address to take if it's there, NULL for none
 * @rank:	rank of the address found so far, 0 for none
 * @addr:	that address
 * @prefix_len:	its prefix length
 */
struct nl_addr_query {
	int family;
	unsigned int ifi;
	unsigned char scope;
	const union inany_addr *prefer;
	int rank;
	union inany_addr addr;
	int prefix_len;
};

/**
 * nl_addr_cb() - rank an address of the scope and link we're looking at
 * @nh:		RTM_NEWADDR message from a dump
 * @arg:	struct nl_addr_query
 *
 * Ranks, best first: the preferred address; a stable one (not temporary,
 * deprecated or tentative); any other. The first of the best rank wins.
 *
 * Return: 1 once the preferred address is found, 0 otherwise
 */
static int nl_addr_cb(const struct nlmsghdr *nh, void *arg)
{
	const uint32_t unstable = IFA_F_TEMPORARY | IFA_F_DEPRECATED |
				  IFA_F_TENTATIVE;
	struct nl_addr_query *q = arg;
	union inany_addr a;
	struct nl_addr_msg m;
	int rank;

	/* RT_SCOPE_UNIVERSE is what ip(8) calls "global": it leaves out
	 * loopback (host) and IPv6 link-local (link) addresses
	 */
	if (!nl_addr_parse(nh, q->family, &m) || m.ifa.ifa_index != q->ifi ||
	    m.ifa.ifa_scope != q->scope ||
	    (m.flags & IFA_F_DADFAILED))
		return 0;

	nl_inany_set(&a, q->family, m.addr);
	if (q->prefer && inany_equals(&a, q->prefer))
		rank = 3;
	else
		rank = m.flags & unstable ? 1 : 2;
	if (rank > q->rank) {
		q->rank = rank;
		q->addr = a;
		q->prefix_len = m.ifa.ifa_prefixlen;
	}
	return rank == 3;
}

/**
 * nl_addr_find() - the best address of a scope, family and link
 * @nl:		netlink socket
 * @q:		what to look for; the address found is set in it
 *
 * Return: 0 on success, -ENOENT if there is none, other -errno
 */
static int nl_addr_find(int nl, struct nl_addr_query *q)
{
	struct ifaddrmsg ifa = { .ifa_family = (unsigned char)q->family };
	struct nl_req req;
	int rc;

	if (!nl_ifi_ok(q->ifi))
		return -EINVAL;

	/* Filter here: kernels without strict checking ignore ifa_index */
	nl_req_init(&req, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa));
	rc = nl_do(nl, &req, nl_addr_cb, q);
	if (rc < 0)
		return rc;
	return q->rank ? 0 : -ENOENT;
}

/**
 * nl_addr_get() - the address of global scope of a family to copy from a link
 * @nl:		netlink socket
 * @family:	AF_INET or AF_INET6
 * @ifi:	interface index
 * @prefer:	address to keep if the link still has it, NULL for none
 * @addr:	address, set on success
 * @prefix_len:	prefix length, set on success
 *
 * Addresses that failed duplicate address detection are skipped; @prefer
 * comes first, then the first stable address (not an IPv6 temporary,
 * deprecated or tentative one), then the first at all.
 *
 * Return: 0 on success, -ENOENT if there is none, other -errno
 */
int nl_addr_get(int nl, int family, unsigned int ifi,
		const union inany_addr *prefer, union inany_addr *addr,
		int *prefix_len)
{
	struct nl_addr_query q = {
		.family = family, .ifi = ifi, .scope = RT_SCOPE_UNIVERSE,
		.prefer = prefer,
	};
	int rc = nl_addr_find(nl, &q);

	if (rc)
		return rc;
	*addr = q.addr;
	*prefix_len = q.prefix_len;
	return 0;
}

/**
 * nl_addr_get_ll() - the IPv6 link-local address of a link
 * @nl:		netlink socket
 * @ifi:	interface index
 * @ll:		address, set on success
 *
 * Ranked as nl_addr_get() does: a stable one first, a tentative one (DAD
 * still running) if that's all.
 *
 * Return: 0 on success, -ENOENT if there is none, other -errno
 */
int nl_addr_get_ll(int nl, unsigned int ifi, struct in6_addr *ll)
{
	struct nl_addr_query q = {
		.family = AF_INET6, .ifi = ifi, .scope = RT_SCOPE_LINK,
	};
	int rc = nl_addr_find(nl, &q);

	if (rc)
		return rc;
	*ll = q.addr.a6;
	return 0;
}

/**
 * struct nl_addr_all - every address of a family, for nl_addr_list()
 * @family:	AF_INET or AF_INET6
 * @list:	addresses, written
 * @max:	room in @list
 * @n:		addresses seen, may grow past @max
 */
struct nl_addr_all {
	int family;
	union inany_addr *list;
	int max;
	int n;
};

/**
 * nl_addr_all_cb() - add an address to the list
 * @nh:		RTM_NEWADDR message from a dump
 * @arg:	struct nl_addr_all
 *
 * Return: 0, to see them all
 */
static int nl_addr_all_cb(const struct nlmsghdr *nh, void *arg)
{
	struct nl_addr_all *q = arg;
	struct nl_addr_msg m;

	if (!nl_addr_parse(nh, q->family, &m))
		return 0;
	if (q->n < q->max)
		nl_inany_set(&q->list[q->n], q->family, m.addr);
	q->n++;
	return 0;
}

/**
 * nl_addr_list() - every address of a family, on any link, any scope
 * @nl:		netlink socket
 * @family:	AF_INET or AF_INET6
 * @list:	addresses, written
 * @max:	room in @list
 *
 * Return: number of addresses (more than @max if they didn't all fit),
 *	   or -errno
 */
int nl_addr_list(int nl, int family, union inany_addr *list, int max)
{
	struct nl_addr_all q = { .family = family, .list = list, .max = max };
	struct ifaddrmsg ifa = { .ifa_family = (unsigned char)family };
	struct nl_req req;
	int rc;

	nl_req_init(&req, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa));
	rc = nl_do(nl, &req, nl_addr_all_cb, &q);
	return rc < 0 ? rc : q.n;
}

/**
 * struct nl_link_query - what we read from a RTM_NEWLINK reply
 * @index:	interface index
 * @mtu:	MTU, 0 if the reply had none
 */
struct nl_link_query {
	int index;
	uint32_t mtu;
};

/**
 * nl_link_cb() - read index and MTU from the reply to RTM_GETLINK
 * @nh:		reply
 * @arg:	struct nl_link_query
 *
 * Return: 1 once read, 0 for other messages, -EBADMSG if too short
 */
static int nl_link_cb(const struct nlmsghdr *nh, void *arg)
{
	struct nl_link_query *q = arg;
	const struct rtattr *rta;
	struct ifinfomsg ifm;
	int left;

	if (nh->nlmsg_type != RTM_NEWLINK)
		return 0;

	rta = nl_msg_hdr(nh, &ifm, sizeof(ifm), &left);
	if (!rta)
		return -EBADMSG;

	q->index = ifm.ifi_index;
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left)) {
		if (rta->rta_type == IFLA_MTU)
			nl_attr_get(rta, &q->mtu, sizeof(q->mtu));
	}

	return 1;
}

/**
 * nl_link_get() - ask for one link, by index or by name
 * @nl:		netlink socket
 * @ifi:	interface index, 0 to look up @name
 * @name:	interface name, NULL to look up @ifi
 * @q:		results, set on success
 *
 * Return: 0 on success, negative errno (-ENODEV: no such link) on failure
 */
static int nl_link_get(int nl, unsigned int ifi, const char *name,
		       struct nl_link_query *q)
{
	struct ifinfomsg ifm = {
		.ifi_family = AF_UNSPEC, .ifi_index = (int)ifi,
	};
	struct nl_req req;
	int rc;

	nl_req_init(&req, RTM_GETLINK, 0, &ifm, sizeof(ifm));
	if (name)
		nl_attr_put(&req, IFLA_IFNAME, name, strlen(name) + 1);

	rc = nl_do(nl, &req, nl_link_cb, q);
	if (rc < 0)
		return rc;
	if (!rc || q->index <= 0)
		return -EBADMSG;	/* ACK, but no link in the reply */

	return 0;
}

/**
 * nl_link_index() - index of a link in the socket's namespace
 * @nl:		netlink socket
 * @name:	interface name
 *
 * Unlike if_nametoindex(), this works in the namespace of @nl, not of the
 * calling thread.
 *
 * Return: interface index (> 0), -ENODEV if there is no such link, -EINVAL if
 *	   @name can't be an interface name, other -errno
 */
int nl_link_index(int nl, const char *name)
{
	struct nl_link_query q = { 0 };
	size_t len = strnlen(name, IFNAMSIZ);
	int rc;

	if (!len || len >= IFNAMSIZ)
		return -EINVAL;

	rc = nl_link_get(nl, 0, name, &q);
	if (rc)
		return rc;

	return q.index;
}

/**
 * nl_link_mtu_get() - MTU of a link
 * @nl:		netlink socket
 * @ifi:	interface index
 *
 * Return: MTU (> 0), -ENODEV if there is no such link, other -errno
 */
int nl_link_mtu_get(int nl, unsigned int ifi)
{
	struct nl_link_query q = { 0 };
	int rc;

	if (!nl_ifi_ok(ifi))
		return -EINVAL;

	rc = nl_link_get(nl, ifi, NULL, &q);
	if (rc)
		return rc;
	if (!q.mtu || q.mtu > INT_MAX)
		return -EBADMSG;

	return (int)q.mtu;
}

/**
 * nl_link_set_up() - bring a link up, optionally setting its MTU
 * @nl:		netlink socket
 * @ifi:	interface index
 * @mtu:	new MTU if > 0, otherwise leave it alone
 *
 * Return: 0 on success, negative errno on failure
 */
int nl_link_set_up(int nl, unsigned int ifi, int mtu)
{
	struct ifinfomsg ifm = {
		.ifi_family = AF_UNSPEC, .ifi_index = (int)ifi,
		.ifi_flags = IFF_UP, .ifi_change = IFF_UP,
	};
	struct nl_req req;

	if (!nl_ifi_ok(ifi))
		return -EINVAL;

	/* No NLM_F_CREATE: change an existing link, never make a new one.
	 * The kernel applies the MTU before the flags.
	 */
	nl_req_init(&req, RTM_NEWLINK, 0, &ifm, sizeof(ifm));
	if (mtu > 0) {
		uint32_t val = (uint32_t)mtu;

		nl_attr_put(&req, IFLA_MTU, &val, sizeof(val));
	}

	return nl_do(nl, &req, NULL, NULL);
}

/**
 * nl_addr_add() - add an address of global scope to a link
 * @nl:		netlink socket
 * @ifi:	interface index
 * @addr:	address, IPv4 or IPv6
 * @prefix_len:	prefix length, up to 32 or 128
 *
 * An IPv6 address is copied from the host, where it already passed
 * duplicate address detection: with IFA_F_NODAD it's usable at once, not
 * tentative.
 *
 * Return: 0 on success, -EEXIST if it's already there, other -errno
 */
int nl_addr_add(int nl, unsigned int ifi, const union inany_addr *addr,
		int prefix_len)
{
	int family = inany_family(addr);
	uint32_t flags = family == AF_INET6 ? IFA_F_NODAD : 0;
	struct ifaddrmsg ifa = {
		.ifa_family = (unsigned char)family,
		.ifa_prefixlen = (unsigned char)prefix_len,
		.ifa_flags = (unsigned char)flags,
		.ifa_scope = RT_SCOPE_UNIVERSE,
		.ifa_index = ifi,
	};
	size_t alen = nl_alen(family);
	const void *a = nl_inany_bytes(addr);
	struct nl_req req;

	if (!nl_ifi_ok(ifi) || prefix_len < 0 || prefix_len > (int)alen * 8)
		return -EINVAL;

	nl_req_init(&req, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
		    &ifa, sizeof(ifa));

	/* Same IFA_LOCAL and IFA_ADDRESS: no peer, as ip(8) does it */
	nl_attr_put(&req, IFA_LOCAL, a, alen);
	nl_attr_put(&req, IFA_ADDRESS, a, alen);

	/* ifa_flags has only 8 bits: IFA_FLAGS carries all of them */
	if (flags)
		nl_attr_put(&req, IFA_FLAGS, &flags, sizeof(flags));

	return nl_do(nl, &req, NULL, NULL);
}

/**
 * nl_addr_del() - remove an address from a link
 * @nl:		netlink socket
 * @ifi:	interface index
 * @addr:	address, IPv4 or IPv6
 * @prefix_len:	its prefix length
 *
 * Return: 0 on success, -EADDRNOTAVAIL if it's not there, other -errno
 */
int nl_addr_del(int nl, unsigned int ifi, const union inany_addr *addr,
		int prefix_len)
{
	int family = inany_family(addr);
	struct ifaddrmsg ifa = {
		.ifa_family = (unsigned char)family,
		.ifa_prefixlen = (unsigned char)prefix_len,
		.ifa_index = ifi,
	};
	struct nl_req req;

	if (!nl_ifi_ok(ifi))
		return -EINVAL;
	nl_req_init(&req, RTM_DELADDR, 0, &ifa, sizeof(ifa));
	nl_attr_put(&req, IFA_LOCAL, nl_inany_bytes(addr), nl_alen(family));
	return nl_do(nl, &req, NULL, NULL);
}

/**
 * nl_route_req() - send one RTM_NEWROUTE request
 * @nl:		netlink socket
 * @rtm:	route header
 * @flags:	NLM_F_EXCL to add, NLM_F_REPLACE to add or replace
 * @oif:	output interface
 * @gw:		gateway, NULL for a direct route
 *
 * Return: 0 on success, negative errno on failure
 */
static int nl_route_req(int nl, const struct rtmsg *rtm, uint16_t flags,
			uint32_t oif, const union inany_addr *gw)
{
	struct nl_req req;

	nl_req_init(&req, RTM_NEWROUTE, NLM_F_CREATE | flags,
		    rtm, sizeof(*rtm));
	nl_attr_put(&req, RTA_OIF, &oif, sizeof(oif));
	if (gw)
		nl_attr_put(&req, RTA_GATEWAY, nl_inany_bytes(gw),
			    nl_alen(inany_family(gw)));
	return nl_do(nl, &req, NULL, NULL);
}

/**
 * nl_route_default_rtm() - header of a default route of the main table
 * @family:	AF_INET or AF_INET6
 * @has_gw:	through a gateway, not direct
 *
 * Return: the header
 */
static struct rtmsg nl_route_default_rtm(int family, bool has_gw)
{
	return (struct rtmsg){
		.rtm_family = (unsigned char)family,
		.rtm_table = RT_TABLE_MAIN,
		.rtm_protocol = RTPROT_BOOT,
		/* Scope matters to IPv4 only: a direct route is link-local */
		.rtm_scope = has_gw || family == AF_INET6 ? RT_SCOPE_UNIVERSE :
							    RT_SCOPE_LINK,
		.rtm_type = RTN_UNICAST,
	};
}

/**
 * nl_route_set_default() - add, or add or replace, a default route
 * @nl:		netlink socket
 * @ifi:	output interface
 * @gw:		gateway, unspecified for a direct route on @ifi
 * @flags:	NLM_F_EXCL or NLM_F_REPLACE
 *
 * A gateway that no prefix of @ifi covers is added again as on-link
 * (RTNH_F_ONLINK): IPv4 says -ENETUNREACH or -EINVAL, IPv6 -EHOSTUNREACH
 * (ip6_validate_gw() in net/ipv6/route.c). The kernel refuses any IPv6
 * gateway on a loopback interface, on-link too, but takes a direct route
 * there.
 *
 * Return: 0 on success, -EEXIST if adding and there's one, other -errno
 */
static int nl_route_set_default(int nl, unsigned int ifi,
				const union inany_addr *gw, uint16_t flags)
{
	bool has_gw = !inany_is_unspecified(gw);
	struct rtmsg rtm = nl_route_default_rtm(inany_family(gw), has_gw);
	uint32_t oif = ifi;
	int rc;

	if (!nl_ifi_ok(ifi))
		return -EINVAL;

	rc = nl_route_req(nl, &rtm, flags, oif, has_gw ? gw : NULL);
	/* A gateway outside the prefixes of @ifi (-a and -g apart, as with a
	 * host's /32, or Podman's -a 2001:db8::1 with the host's gateway in
	 * another /64) is on the link all the same
	 */
	if ((rc == -ENETUNREACH || rc == -EINVAL || rc == -EHOSTUNREACH) &&
	    has_gw) {
		rtm.rtm_flags |= RTNH_F_ONLINK;
		rc = nl_route_req(nl, &rtm, flags, oif, gw);
	}
	return rc;
}

/**
 * nl_route_add_default() - add a default route to the main table
 * @nl:		netlink socket
 * @ifi:	output interface
 * @gw:		gateway, IPv4 or IPv6; unspecified (0.0.0.0 or ::) for a
 *		direct route on @ifi
 *
 * Return: 0 on success, -EEXIST if there's already one, other -errno
 */
int nl_route_add_default(int nl, unsigned int ifi, const union inany_addr *gw)
{
	return nl_route_set_default(nl, ifi, gw, NLM_F_EXCL);
}

/**
 * nl_route_replace_default() - set the default route, whatever was there
 * @nl:		netlink socket
 * @ifi:	output interface
 * @gw:		gateway, unspecified for a direct route on @ifi
 *
 * Return: 0 on success, negative errno on failure
 */
int nl_route_replace_default(int nl, unsigned int ifi,
			     const union inany_addr *gw)
{
	return nl_route_set_default(nl, ifi, gw, NLM_F_REPLACE);
}

/**
 * nl_monitor_open() - a socket told of address and route changes
 *
 * Return: non-blocking NETLINK_ROUTE socket in the current namespace,
 *	   member of the IPv4 and IPv6 address and route groups, or -errno
 */
int nl_monitor_open(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE |
			     RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE,
	};
	int fd, rc;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/**
 * nl_monitor_relevant() - does a notification concern what follow.c copies?
 * @nh:		message, already checked with NLMSG_OK()
 *
 * Return: true for any address change, and a change of a default route
 *	   (other routes come and go by the thousand on some hosts, and a
 *	   dump of the routing table follows each relevant change)
 */
static bool nl_monitor_relevant(const struct nlmsghdr *nh)
{
	struct rtmsg rtm;
	int left;

	switch (nh->nlmsg_type) {
	case RTM_NEWADDR:
	case RTM_DELADDR:
		return true;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		return nl_msg_hdr(nh, &rtm, sizeof(rtm), &left) &&
		       !rtm.rtm_dst_len;
	default:
		return false;
	}
}

/**
 * nl_monitor_drain() - read every pending notification
 * @fd:		socket from nl_monitor_open()
 *
 * What they say doesn't matter beyond what they are about: the caller
 * reads the state again. Notifications lost to a full receive buffer
 * (ENOBUFS), or cut short, count as one; only the kernel's are read
 * (nl_recv()).
 *
 * Return: how many relevant notifications from the kernel there were, or
 *	   -errno for errors other than those two
 */
int nl_monitor_drain(int fd)
{
	const struct nlmsghdr *nh;
	ssize_t len;
	int n = 0, left;

	for (;;) {
		len = nl_recv(fd);
		if (len == -ENOBUFS || len == -EMSGSIZE) {
			n++;
			continue;
		}
		if (len < 0)
			return len == -EAGAIN ? n : (int)len;
		left = (int)len;
		nh = (const struct nlmsghdr *)nl_buf;
		for (; NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left))
			n += nl_monitor_relevant(nh);
	}
}
