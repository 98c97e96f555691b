// SPDX-License-Identifier: GPL-2.0-or-later
/* dns.c - DNS names in wire format, for DHCP, DHCPv6 and RA options */

#include <string.h>

#include "dns.h"
#include "log.h"
#include "passt.h"

#define DNS_LABEL_MAX		63	/* RFC 1035, 2.3.4 */

/**
 * dns_name_encode() - write a domain name in DNS wire format, uncompressed
 * @name:	dotted name, a trailing dot is allowed
 * @buf:	output
 * @size:	room in @buf
 *
 * Return: bytes written, 0 if the name is invalid (empty label, label over
 *	   63 bytes, name over 255) or doesn't fit
 */
size_t dns_name_encode(const char *name, uint8_t *buf, size_t size)
{
	size_t len = 0;

	while (*name) {
		const char *dot = strchrnul(name, '.');
		size_t l = dot - name;

		if (!l || l > DNS_LABEL_MAX || len + 1 + l + 1 > size ||
		    len + 1 + l + 1 > DNS_WIRE_NAME_MAX)
			return 0;
		buf[len++] = l;
		memcpy(buf + len, name, l);
		len += l;
		name = *dot ? dot + 1 : dot;
	}
	if (!len)
		return 0;	/* the root: nothing to search */
	buf[len++] = 0;
	return len;
}

/**
 * dns_name_check() - is this a domain name in DNS wire format?
 * @v:		view of the name
 *
 * Uncompressed: labels of 1 to 63 bytes, at most 255 bytes in all. A
 * zero-length label, the root, may only come last: a name without it is a
 * partial one (RFC 4704, 4.2). No label at all is fine too: a DHCPv6
 * client may leave the name to the server.
 *
 * Return: true if well-formed
 */
bool dns_name_check(struct pkt_view v)
{
	const uint8_t *l;

	if (v.len > DNS_WIRE_NAME_MAX)
		return false;
	while ((l = pkt_pull(&v, 1))) {
		if (!*l)
			return !v.len;
		if (*l > DNS_LABEL_MAX || !pkt_pull(&v, *l))
			return false;
	}
	return true;
}

/**
 * dns_search_encode() - the search list in wire format, names one after
 *			 the other (DHCP option 119, DHCPv6 option 24)
 * @offer:	the search list, in @offer->search
 * @buf:	output
 * @size:	room in @buf
 *
 * Names are written uncompressed, which RFC 3397, 2 allows; invalid names,
 * and those that don't fit, are left out.
 *
 * Return: length of the encoded list
 */
size_t dns_search_encode(const struct dns_offer *offer, uint8_t *buf,
			 size_t size)
{
	size_t len = 0, n;
	int i;

	for (i = 0; i < offer->search_n; i++) {
		n = dns_name_encode(offer->search[i], buf + len, size - len);
		if (!n)
			debug("DNS: search domain '%s' left out",
			      offer->search[i]);
		len += n;
	}
	return len;
}
