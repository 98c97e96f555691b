/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef INANY_H
#define INANY_H

#include <assert.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/**
 * union inany_addr - an IPv4 or IPv6 address, in one 16-byte form
 * @a6:		the address as IPv6: IPv4 addresses are IPv4-mapped
 *		(::ffff:a.b.c.d, RFC 4291, 2.5.5.2)
 * @v4mapped:	the IPv4-mapped layout
 * @u32:	as words, for comparisons and hashing
 *
 * Flows, the flow table and the L4 handlers use this one type for both
 * families, so that no L4 code exists twice; only the IP layer (ip.c) and
 * socket addresses care which family an address is.
 */
union inany_addr {
	struct in6_addr a6;
	struct {
		uint8_t zero[10];
		uint8_t one[2];
		struct in_addr a4;
	} v4mapped;
	uint32_t u32[4];
};
static_assert(sizeof(union inany_addr) == 16, "inany_addr is 16 bytes");

/**
 * union sockaddr_inany - a socket address of either family
 */
union sockaddr_inany {
	struct sockaddr sa;
	struct sockaddr_in sa4;
	struct sockaddr_in6 sa6;
};

#define INANY_STRLEN	INET6_ADDRSTRLEN

/* Index of a family in per-family arrays of addresses */
enum {
	INANY_V4 = 0,
	INANY_V6,
	INANY_FAMILIES,
};

/**
 * inany_v4() - the IPv4 address, if this is one
 * @a:		address
 *
 * Return: pointer to the IPv4 address inside @a, NULL if @a is IPv6
 */
static inline const struct in_addr *inany_v4(const union inany_addr *a)
{
	if (!IN6_IS_ADDR_V4MAPPED(&a->a6))
		return NULL;
	return &a->v4mapped.a4;
}

static inline bool inany_is_v4(const union inany_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(&a->a6);
}

static inline int inany_idx(const union inany_addr *a)
{
	return inany_is_v4(a) ? INANY_V4 : INANY_V6;
}

static inline int inany_family(const union inany_addr *a)
{
	return inany_is_v4(a) ? AF_INET : AF_INET6;
}

/**
 * inany_from_v4() - an IPv4 address in the common form
 * @a:		address to set
 * @v4:		IPv4 address
 */
static inline void inany_from_v4(union inany_addr *a, struct in_addr v4)
{
	memset(a->v4mapped.zero, 0, sizeof(a->v4mapped.zero));
	a->v4mapped.one[0] = a->v4mapped.one[1] = 0xff;
	a->v4mapped.a4 = v4;
}

static inline bool inany_equals(const union inany_addr *a,
				const union inany_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static inline bool inany_equals6(const union inany_addr *a,
				 const struct in6_addr *b)
{
	return !memcmp(&a->a6, b, sizeof(*b));
}

static inline bool inany_equals4(const union inany_addr *a, struct in_addr b)
{
	const struct in_addr *v4 = inany_v4(a);

	return v4 && v4->s_addr == b.s_addr;
}

/* 127.0.0.0/8 or ::1 */
static inline bool inany_is_loopback(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return (ntohl(v4->s_addr) >> 24) == IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(&a->a6);
}

/* 127.0.0.1 for an IPv4 @family, ::1 otherwise */
static inline void inany_loopback(union inany_addr *a, int family)
{
	if (family == AF_INET)
		inany_from_v4(a, (struct in_addr){ htonl(INADDR_LOOPBACK) });
	else
		a->a6 = in6addr_loopback;
}

/* Given at all: an optional address is all zeroes (not even 0.0.0.0) if not */
static inline bool inany_is_set(const union inany_addr *a)
{
	return a->u32[0] || a->u32[1] || a->u32[2] || a->u32[3];
}

/* 0.0.0.0 or :: */
static inline bool inany_is_unspecified(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return !v4->s_addr;
	return IN6_IS_ADDR_UNSPECIFIED(&a->a6);
}

/**
 * inany_in() - is an address in a list?
 * @a:		address
 * @list:	addresses
 * @n:		how many
 *
 * Return: true if it is
 */
static inline bool inany_in(const union inany_addr *a,
			    const union inany_addr *list, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (inany_equals(a, &list[i]))
			return true;
	}
	return false;
}

/**
 * inany_unspecified() - 0.0.0.0 or ::
 * @a:		address, set
 * @family:	AF_INET or AF_INET6
 */
static inline void inany_unspecified(union inany_addr *a, int family)
{
	if (family == AF_INET)
		inany_from_v4(a, (struct in_addr){ 0 });
	else
		a->a6 = in6addr_any;
}

/* 224.0.0.0/4, 255.255.255.255, or ff00::/8 */
static inline bool inany_is_multicast(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return IN_MULTICAST(ntohl(v4->s_addr)) ||
		       v4->s_addr == htonl(INADDR_BROADCAST);
	return IN6_IS_ADDR_MULTICAST(&a->a6);
}

/* fe80::/10 */
static inline bool inany_is_linklocal6(const union inany_addr *a)
{
	return IN6_IS_ADDR_LINKLOCAL(&a->a6);
}

const char *inany_ntop(const union inany_addr *a, char *buf, size_t len);
socklen_t sockaddr_from_inany(union sockaddr_inany *sa,
			      const union inany_addr *a, uint16_t port,
			      uint32_t scope_id);
int inany_sock_local(int s, union inany_addr *a);
int inany_from_sockaddr(union inany_addr *a, uint16_t *port,
			const union sockaddr_inany *sa);

#endif /* INANY_H */
