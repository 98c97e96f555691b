/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FLOW_H
#define FLOW_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "inany.h"
#include "util.h"

#define FLOW_MAX		(128 * 1024)

enum flow_type {
	FLOW_FREE = 0,
	FLOW_TCP,
	FLOW_UDP,
	FLOW_PING,
	FLOW_SPLICE,
	FLOW_TYPE_MAX,
};

/* Shares of the table (flow_alloc()): a flood of one kind of flow can't
 * lock the others out
 */
enum flow_budget {
	FLOW_BUDGET_TCP,	/* TCP, either side, spliced too: the oldest
				 * half-open outbound one is evicted
				 */
	FLOW_BUDGET_UDP_OUT,	/* UDP the guest starts */
	FLOW_BUDGET_UDP_IN,	/* UDP to a forwarded port: senders may be
				 * spoofed, the oldest idle one is evicted
				 */
	FLOW_BUDGET_ICMP,
	FLOW_BUDGETS,
};

/* Which side a spliced UDP flow's first datagram came from */
enum flow_spliced {
	FLOW_NOT_SPLICED = 0,
	FLOW_SPLICED_FROM_HOST,		/* to a -u port, from the host's loopback */
	FLOW_SPLICED_FROM_NS,		/* to a -U port, in the namespace */
};

/**
 * struct flow_key - a flow as the guest sees it
 * @gaddr:	guest address
 * @paddr:	peer address, as the guest addresses it
 * @gport:	guest port, host order
 * @pport:	peer port, host order
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 *		(gport: echo identifier)
 * @spliced:	enum flow_spliced: a UDP flow relayed loopback to loopback
 *		(pasta) has no guest side: @paddr and @pport are its sender,
 *		@gaddr and @gport the loopback address and port it goes to
 */
struct flow_key {
	union inany_addr gaddr;
	union inany_addr paddr;
	uint16_t gport;
	uint16_t pport;
	uint8_t proto;
	uint8_t spliced;
	uint8_t pad[2];
};

/**
 * struct flow_common - header every flow type starts with
 * @type:	enum flow_type
 * @closing:	freed after the current event batch
 * @hashed:	present in the lookup hash table
 * @budget:	enum flow_budget it counts against
 * @answered:	a datagram flow (UDP, ICMP echo) has had one back from the
 *		side its first datagram went to: see flow_dgram_seen()
 * @frozen:	migration moved it to another passt, which shares its
 *		socket: left alone here, closed without a word, unless the
 *		move fails and it resumes (migrate.c)
 * @serial:	allocation number, to know it again (flow_evict())
 * @key:	addresses and ports
 * @active_at:	last datagram either way (ms): UDP and ICMP flows expire
 *		after a while without any, sooner if never answered
 */
struct flow_common {
	uint8_t type;
	bool closing;
	bool hashed;
	uint8_t budget;
	bool answered;
	bool frozen;
	uint32_t serial;
	struct flow_key key;
	int64_t active_at;
};

/**
 * flow_dgram_seen() - note a datagram of a UDP or ICMP echo flow
 * @f:		flow
 * @now:	current time (ms)
 * @answer:	it comes from the side the flow's first datagram went to:
 *		the peer for the guest's own flows, the guest (or, spliced,
 *		the loopback side it goes to) for inbound ones
 */
static inline void flow_dgram_seen(struct flow_common *f, int64_t now,
				   bool answer)
{
	f->active_at = now;
	f->answered |= answer;
}

/* What a flow type's evictable() says of a candidate (flow_evict()) */
enum flow_evict_verdict {
	FLOW_EVICT_NOW,		/* end it for the new flow */
	FLOW_EVICT_LATER,	/* not now, maybe later: back to the end */
	FLOW_EVICT_NEVER,	/* not any more: forget it */
};

struct ctx;

/**
 * struct flow_type_ops - what the flow table asks of a flow type's module
 * @free:	release the resources of a flow closed during the batch that
 *		just ended (flow_defer_free()): required
 * @abort:	the guest is gone (flow_close_all()): end the host side too,
 *		then flow_close(); NULL: flow_close() only
 * @reset:	an address the flow uses went away (flow_reset_gone()): end it
 *		both ways, then flow_close(); NULL: flow_close() only
 * @evictable:	may a flow of its budget's ring be ended to make room
 *		(flow_evict())? NULL: never
 * @evict:	end it for room, releasing its descriptors now: the caller
 *		may be out of them; NULL: flow_close()
 * @sock:	its host-side socket, -1 if none of its own; NULL: none
 * @resume:	migration froze it (flow_common.frozen), and the guest runs
 *		here now: put it to work (flow_thaw_all()); NULL: never frozen
 * @idle_ms:	once answered, its lifetime without traffic (ms), as a
 *		datagram flow (see flow_dgram_seen()); 0 if its lifetime is
 *		not idle-based
 * @loopback:	it relays between loopback sockets: addresses going away
 *		(flow_reset_gone()) don't concern it
 *
 * Each module registers its types' table at start-up
 * (flow_type_register()), so that the table itself names no protocol.
 */
struct flow_type_ops {
	void (*free)(struct ctx *c, int idx);
	void (*abort)(struct ctx *c, int idx);
	void (*reset)(struct ctx *c, int idx);
	enum flow_evict_verdict (*evictable)(int idx, int64_t now);
	void (*evict)(struct ctx *c, int idx);
	int (*sock)(int idx);
	void (*resume)(struct ctx *c, int idx);
	int64_t idle_ms;
	bool loopback;
};

void flow_type_register(enum flow_type type, const struct flow_type_ops *ops);
void flow_init(void);
int flow_alloc(struct ctx *c, enum flow_budget budget);
bool flow_fd_reclaim(struct ctx *c, int err);
void flow_hash_insert(int idx);
int flow_lookup(const struct flow_key *key);
void flow_close(int idx);
void flow_defer_free(struct ctx *c);
void flow_close_all(struct ctx *c);
int flow_sock(int idx);
void flow_freeze(struct ctx *c, int idx);
void flow_dgram_resume(struct ctx *c, int idx, unsigned int type);
unsigned int flow_thaw_all(struct ctx *c);
int flow_reset_gone(struct ctx *c, const union inany_addr *host, int n_host,
		    const union inany_addr *guest, int n_guest);
void flow_timer(struct ctx *c);
unsigned int flow_count(void);
void flow_stats(void);
unsigned int flow_budget_used(enum flow_budget budget);
unsigned int flow_high_water(void);
struct flow_common *flow_at(int idx);
const char *flow_str(const struct flow_key *key, char *buf, size_t len);

#define FLOW_STRLEN	128

#endif /* FLOW_H */
