// SPDX-License-Identifier: GPL-2.0-or-later
/* inany.c - the family-neutral address type: text and socket addresses */

#include <arpa/inet.h>
#include <errno.h>

#include "inany.h"

/**
 * inany_ntop() - format an address, IPv4 ones in dotted decimal
 * @a:		address
 * @buf:	output buffer
 * @len:	its size, INANY_STRLEN is always enough
 *
 * Return: @buf
 */
const char *inany_ntop(const union inany_addr *a, char *buf, size_t len)
{
	const struct in_addr *v4 = inany_v4(a);

	if (!(v4 ? inet_ntop(AF_INET, v4, buf, len) :
		   inet_ntop(AF_INET6, &a->a6, buf, len)))
		buf[0] = 0;
	return buf;
}

/**
 * sockaddr_from_inany() - socket address of the address's own family
 * @sa:		socket address to fill
 * @a:		address
 * @port:	port, host order
 * @scope_id:	interface for an IPv6 link-local address, else ignored
 *
 * Return: length of the socket address
 */
socklen_t sockaddr_from_inany(union sockaddr_inany *sa,
			      const union inany_addr *a, uint16_t port,
			      uint32_t scope_id)
{
	const struct in_addr *v4 = inany_v4(a);

	memset(sa, 0, sizeof(*sa));
	if (v4) {
		sa->sa4.sin_family = AF_INET;
		sa->sa4.sin_port = htons(port);
		sa->sa4.sin_addr = *v4;
		return sizeof(sa->sa4);
	}
	sa->sa6.sin6_family = AF_INET6;
	sa->sa6.sin6_port = htons(port);
	sa->sa6.sin6_addr = a->a6;
	if (IN6_IS_ADDR_LINKLOCAL(&a->a6))
		sa->sa6.sin6_scope_id = scope_id;
	return sizeof(sa->sa6);
}

/**
 * inany_from_sockaddr() - address and port of a socket address
 * @a:		address, set on success (IPv4-mapped IPv6 stays mapped: that
 *		is our form of IPv4)
 * @port:	port, host order, set on success
 * @sa:		socket address
 *
 * Return: 0 on success, -EAFNOSUPPORT for other families
 */
int inany_from_sockaddr(union inany_addr *a, uint16_t *port,
			const union sockaddr_inany *sa)
{
	if (sa->sa.sa_family == AF_INET) {
		inany_from_v4(a, sa->sa4.sin_addr);
		*port = ntohs(sa->sa4.sin_port);
		return 0;
	}
	if (sa->sa.sa_family == AF_INET6) {
		a->a6 = sa->sa6.sin6_addr;
		*port = ntohs(sa->sa6.sin6_port);
		return 0;
	}
	return -EAFNOSUPPORT;
}

/**
 * inany_sock_local() - the local address of a socket
 * @s:		socket
 * @a:		address, set on success
 *
 * Return: 0 on success, -1 if it has none we know
 */
int inany_sock_local(int s, union inany_addr *a)
{
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);
	uint16_t port;

	if (getsockname(s, &sa.sa, &sl) || inany_from_sockaddr(a, &port, &sa))
		return -1;
	return 0;
}
