// SPDX-License-Identifier: GPL-2.0-or-later
/* frag.c - the guest's fragmented datagrams, put back together
 *
 * Theory of operation: a guest fragments a datagram larger than the path
 * MTU it knows, and it learns path MTUs from us (icmp_err.c: the host's,
 * or a router's on the way). Its UDP datagrams and echo requests come in
 * fragments then (IPv4 without DF; IPv6 with a fragment header), and we
 * put each datagram back together here, to send it whole on the flow's
 * socket, where the host's kernel fragments it again as the path needs.
 *
 * FRAG_SLOTS datagrams at a time, of at most 64 KiB each, in fixed slots:
 * a fragment finds its datagram by addresses, protocol and identification
 * (RFC 791, RFC 8200 4.5), or takes a free slot, an expired one (incomplete
 * for FRAG_TIMEOUT_MS), or else the oldest. A map of the 8-byte units
 * received tells when the datagram is whole. Overlapping fragments
 * (RFC 5722: never sent by a well-behaved host, the stuff of attacks) drop
 * the whole datagram, as do lengths that don't add up; an exact duplicate
 * is dropped alone. TCP is never fragmented by a guest that does path MTU
 * discovery, and its handler keeps pointers into what it's handed until
 * the end of a batch: its fragments are dropped, as are those of protocols
 * we don't relay.
 */

#include <string.h>
#include <netinet/in.h>
#include <netinet/ip.h>

#include "frag.h"
#include "ip.h"
#include "pkt.h"
#include "util.h"

#define FRAG_SLOTS		8
#define FRAG_TIMEOUT_MS		5000	/* RFC 8200 4.5 says 60 s: ours are
					 * from a guest on the same host
					 */
#define FRAG_UNIT		8	/* fragment offsets count in these */
#define FRAG_DATA_MAX		65535
#define FRAG_UNITS		((FRAG_DATA_MAX + FRAG_UNIT) / FRAG_UNIT)
#define FRAG_MAP_WORDS		((FRAG_UNITS + 63) / 64)

/**
 * struct frag_slot - a datagram being put together
 * @used:	the slot holds one
 * @l3:		addresses, protocol, identification, hop limit (the first
 *		fragment's to come)
 * @started:	when its first fragment came, milliseconds
 * @total:	its length, known from the last fragment; 0 until then
 * @have:	bytes of it received
 * @reach:	end of the furthest fragment received
 * @map:	8-byte units received
 * @data:	the datagram, from the L4 header on
 */
struct frag_slot {
	bool used;
	struct l3_info l3;
	int64_t started;
	size_t total;
	size_t have;
	size_t reach;
	uint64_t map[FRAG_MAP_WORDS];
	uint8_t data[FRAG_DATA_MAX + 1];
};

static struct frag_slot frag_slots[FRAG_SLOTS];

/**
 * frag_same() - is a fragment part of the datagram in a slot?
 * @fs:		slot in use
 * @l3:		the fragment's addresses, protocol and identification
 *
 * Return: true if so
 */
static bool frag_same(const struct frag_slot *fs, const struct l3_info *l3)
{
	return fs->l3.frag_id == l3->frag_id && fs->l3.proto == l3->proto &&
	       inany_equals(&fs->l3.src, &l3->src) &&
	       inany_equals(&fs->l3.dst, &l3->dst);
}

/**
 * frag_slot_find() - the slot of a fragment's datagram, a new one if none
 * @l3:		the fragment's addresses, protocol and identification
 * @now:	now, milliseconds
 *
 * Return: the slot; a new one is free, expired, or the oldest (its
 *	   datagram, incomplete, is dropped and counted)
 */
static struct frag_slot *frag_slot_find(const struct l3_info *l3, int64_t now)
{
	struct frag_slot *fs, *pick = NULL;

	for (fs = frag_slots; fs < frag_slots + FRAG_SLOTS; fs++) {
		if (fs->used && now - fs->started >= FRAG_TIMEOUT_MS) {
			fs->used = false;
			pkt_drop(DROP_FRAG_EXPIRED);
		}
		if (fs->used && frag_same(fs, l3))
			return fs;
		if (!pick || (pick->used && (!fs->used ||
					     fs->started < pick->started)))
			pick = fs;
	}
	if (pick->used)
		pkt_drop(DROP_FRAG_EXPIRED);
	pick->used = true;
	pick->l3 = *l3;
	pick->started = now;
	pick->total = pick->have = pick->reach = 0;
	memset(pick->map, 0, sizeof(pick->map));
	return pick;
}

/**
 * frag_map_add() - mark the 8-byte units of a fragment as received
 * @fs:		slot
 * @first:	first unit
 * @end:	unit after the last
 *
 * Return: 1 if all were new, 0 if all were there already (a duplicate),
 *	   -1 if some were (overlap)
 */
static int frag_map_add(struct frag_slot *fs, size_t first, size_t end)
{
	size_t u, seen = 0;

	for (u = first; u < end; u++)
		seen += !!(fs->map[u / 64] & (1ULL << (u % 64)));
	if (seen)
		return seen == end - first ? 0 : -1;
	for (u = first; u < end; u++)
		fs->map[u / 64] |= 1ULL << (u % 64);
	return 1;
}

/**
 * frag_add() - a fragment of the guest's: its datagram, if now complete
 * @l3:		the fragment's addresses, protocol, hop limit and place in
 *		its datagram (ip4_parse(), ip6_parse()); the datagram's,
 *		not fragmented any more, if complete
 * @l4:		the fragment's data; the whole datagram's, if complete
 * @now:	now, milliseconds
 *
 * The datagram's view stays valid until the next call.
 *
 * Return: true if the datagram is complete, false if not (or dropped:
 *	   counted)
 */
bool frag_add(struct l3_info *l3, struct pkt_view *l4, int64_t now)
{
	size_t off = l3->frag_off, end = off + l4->len;
	bool v4 = inany_is_v4(&l3->src);
	struct frag_slot *fs;
	int fresh;

	if (l3->proto != IPPROTO_UDP &&
	    l3->proto != (v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
		pkt_drop(v4 ? DROP_IP4_FRAG : DROP_IP6_FRAG);
		return false;
	}
	/* All but the last carry whole units; none goes past 64 KiB */
	if (!l4->len || (l3->frag_more && l4->len % FRAG_UNIT) ||
	    end > FRAG_DATA_MAX - (v4 ? sizeof(struct iphdr) : 0)) {
		pkt_drop(DROP_FRAG_MALFORMED);
		return false;
	}

	/* Two ends, or data past the end: lengths that don't add up */
	fs = frag_slot_find(l3, now);
	if (l3->frag_more ? fs->total && end > fs->total :
			    (fs->total && fs->total != end) || fs->reach > end)
		fresh = -1;
	else
		fresh = frag_map_add(fs, off / FRAG_UNIT,
				     (end + FRAG_UNIT - 1) / FRAG_UNIT);
	if (fresh < 0) {
		fs->used = false;
		pkt_drop(DROP_FRAG_MALFORMED);
		return false;
	}
	if (!fresh) {
		pkt_drop(DROP_FRAG_DUPLICATE);
		return false;
	}
	memcpy(fs->data + off, l4->data, l4->len);
	fs->have += l4->len;
	fs->reach = MAX(fs->reach, end);
	if (!l3->frag_more)
		fs->total = end;
	if (!off)	/* the datagram's TTL is its first fragment's */
		fs->l3.hop_limit = l3->hop_limit;
	if (!fs->total || fs->have != fs->total)
		return false;

	fs->used = false;
	*l3 = fs->l3;
	l3->frag = l3->frag_more = l3->df = false;
	l3->frag_off = 0;
	l4->data = fs->data;
	l4->len = fs->total;
	return true;
}
