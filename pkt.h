/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PKT_H
#define PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/**
 * struct pkt_view - bounds-checked read cursor over one frame
 * @data:	next unread byte
 * @len:	bytes left from @data to the end of the frame
 *
 * Every header read from guest input goes through pkt_pull(), which never
 * moves past the end: no pointer arithmetic on frame data elsewhere.
 */
struct pkt_view {
	const uint8_t *data;
	size_t len;
};

/**
 * pkt_pull() - take @n bytes from the front of the view
 * @v:		view
 * @n:		number of bytes
 *
 * Return: pointer to the bytes, or NULL (view unchanged) if fewer are left
 */
static inline const void *pkt_pull(struct pkt_view *v, size_t n)
{
	const void *p = v->data;

	if (v->len < n)
		return NULL;
	v->data += n;
	v->len -= n;
	return p;
}

/**
 * pkt_sub() - split off the first @n bytes as a view of their own
 * @v:		view, advanced past the bytes
 * @n:		length of the new view
 * @sub:	new view
 *
 * Return: true on success, false if fewer than @n bytes are left
 */
static inline bool pkt_sub(struct pkt_view *v, size_t n, struct pkt_view *sub)
{
	const void *p = pkt_pull(v, n);

	if (!p)
		return false;
	sub->data = p;
	sub->len = n;
	return true;
}

/**
 * struct pkt_tail - the rest of a frame past what a view covers, where the
 *		     link left it: payload, read by sendmsg() alone
 * @iov:	its buffers, in order
 * @n:		how many
 * @len:	bytes in all
 */
struct pkt_tail {
	const struct iovec *iov;
	unsigned int n;
	size_t len;
};

/* Why a frame from the guest was dropped: one counter each */
enum pkt_drop_reason {
	DROP_ETH_SHORT,
	DROP_ETH_TYPE,
	DROP_TAP_GSO,
	DROP_ARP_MALFORMED,
	DROP_IP4_MALFORMED,
	DROP_IP4_CSUM,
	DROP_IP4_FRAG,
	DROP_IP4_PROTO,
	DROP_IP6_MALFORMED,
	DROP_IP6_JUMBO,
	DROP_IP6_EXTHDR,
	DROP_IP6_FRAG,
	DROP_FRAG_MALFORMED,
	DROP_FRAG_DUPLICATE,
	DROP_FRAG_EXPIRED,
	DROP_IP6_ADDR,
	DROP_IP6_PROTO,
	DROP_IP_FAMILY_OFF,
	DROP_SRC_ADDR,
	DROP_DST_ADDR,
	DROP_MULTICAST_DST,
	DROP_PORT_ZERO,
	DROP_L4_DISABLED,
	DROP_TCP_MALFORMED,
	DROP_TCP_FLAGS,
	DROP_TCP_OPTS,
	DROP_TCP_NOFLOW,
	DROP_TCP_SEQ,
	DROP_UDP_MALFORMED,
	DROP_ICMP_MALFORMED,
	DROP_NDP_MALFORMED,
	DROP_DHCP_MALFORMED,
	DROP_DHCP6_MALFORMED,
	DROP_FLOW_TABLE_FULL,
	DROP_REASONS,
};

extern uint64_t pkt_drops[DROP_REASONS];
extern const char *const pkt_drop_names[DROP_REASONS];

void pkt_drop(enum pkt_drop_reason reason);

#endif /* PKT_H */
