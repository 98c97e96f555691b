// SPDX-License-Identifier: GPL-2.0-or-later
/* flow.c - fixed-capacity flow table with keyed-hash lookup
 *
 * Theory of operation: every TCP connection and UDP flow occupies one entry of
 * a static table of FLOW_MAX entries, found from a guest-side 5-tuple through
 * an open-addressing hash table (linear probing, backward-shift deletion) of
 * twice that size, keyed with SipHash-2-4 and a random key so that a guest
 * cannot choose ports that collide. Nothing is allocated per packet.
 *
 * Budgets: each kind of flow (enum flow_budget) may hold only its share of
 * the table. Two kinds make room for a new flow by ending their oldest one
 * that is worth less (flow_evict(), the type's evictable() says which): an
 * inbound UDP flow, whose sender may be spoofed, the oldest one idle for a
 * second; TCP, the oldest outbound connection whose handshake isn't
 * complete, never an established one. TCP evicts also when the
 * descriptors run out (flow_fd_reclaim()): a flood of SYNs to a peer that
 * never answers holds one socket per SYN for the whole handshake timeout.
 * The others are refused.
 *
 * Datagram flows (UDP, ICMP echo) have no end of their own: they expire
 * without traffic, as conntrack's mappings do. One never answered (see
 * flow_dgram_seen()) after FLOW_UNANSWERED_TIMEOUT_MS, one with traffic
 * both ways after its protocol's idle timeout (idle_ms of its type).
 *
 * Flow types: each module registers a struct flow_type_ops for its types
 * at start-up (flow_type_register()). The table calls a flow's module only
 * through it: to free, abort, reset or evict the flow, and to ask whether
 * it may be evicted. So it depends on no protocol, and a new type is one
 * more table.
 *
 * Lifecycle: FREE -> (flow_alloc) allocated, owned by a module that sets the
 * type and key -> (flow_hash_insert) findable -> (flow_close) closing: still
 * valid, but no longer findable, until the end of the current event batch ->
 * (flow_defer_free) its type's free() releases its resources, FREE.
 * Deferring the free means a later event of the same epoll batch never sees
 * a recycled entry: handlers check ->closing instead.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "flow.h"
#include "flow_table.h"
#include "log.h"
#include "passt.h"

#define HASH_SIZE		(FLOW_MAX * 2)
#define HASH_EMPTY		0	/* slots hold a flow's index + 1 */
#define FREE_NONE		UINT32_MAX	/* end of the free list */
/* nf_conntrack_udp_timeout and nf_conntrack_icmp_timeout: a mapping
 * nobody answered lives 30 s
 */
#define FLOW_UNANSWERED_TIMEOUT_MS	(30 * MS_PER_S)

static_assert((HASH_SIZE & (HASH_SIZE - 1)) == 0, "hash size: power of two");

/* The tables below are zero until used, and nothing writes them at
 * start-up: a page of them that no flow ever reached costs no memory. So
 * an empty hash slot is 0, and the free list holds only entries freed
 * once: those never used are the ones from @flow_fresh on.
 */
union flow flowtab[FLOW_MAX];
static uint32_t flow_hash_tab[HASH_SIZE];
static bool flow_hash_used;		/* some slot may be set */
static uint32_t flow_free_next[FLOW_MAX];	/* free list links */
static uint32_t flow_free_head = FREE_NONE;
static uint32_t flow_fresh;		/* first entry never used */
static unsigned int flow_used, flow_hwm;
static uint64_t flow_hash_key[2];
static bool flow_pending_close;
static const struct flow_type_ops *flow_type_ops[FLOW_TYPE_MAX];

/* Largest share of the table each enum flow_budget may hold */
static const unsigned int flow_budget_max[FLOW_BUDGETS] = {
	[FLOW_BUDGET_TCP]	= FLOW_MAX / 4 * 3,
	[FLOW_BUDGET_UDP_OUT]	= FLOW_MAX / 4,
	[FLOW_BUDGET_UDP_IN]	= FLOW_MAX / 8,
	[FLOW_BUDGET_ICMP]	= FLOW_MAX / 16,
};
static unsigned int flow_budget_n[FLOW_BUDGETS];	/* open, not closing */

/**
 * struct flow_evict_ring - flows of a budget that evicts, oldest first
 * @e:		entries: index and serial (the slot may hold another flow
 *		by the time it comes up)
 * @head:	oldest entry
 * @n:		entries in use
 */
struct flow_evict_ring {
	struct {
		uint32_t idx;
		uint32_t serial;
	} e[FLOW_MAX];
	unsigned int head, n;
};

/* The budgets that make room by evicting, and their rings */
static struct flow_evict_ring flow_ring_tcp, flow_ring_udp_in;
static struct flow_evict_ring *const flow_evict_ring[FLOW_BUDGETS] = {
	[FLOW_BUDGET_TCP]	= &flow_ring_tcp,
	[FLOW_BUDGET_UDP_IN]	= &flow_ring_udp_in,
};
static uint32_t flow_serial;

/* For the stats: evictions per budget, expiry of datagram flows */
static uint64_t flow_evicted[FLOW_BUDGETS];
static uint64_t flow_expired_unanswered, flow_expired_answered;

#define ROTL(x, b)	(uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

/**
 * flow_key_hash() - SipHash-2-4 of a flow key (40 bytes, five words)
 * @key:	flow key
 *
 * Return: 64-bit keyed hash
 */
static uint64_t flow_key_hash(const struct flow_key *key)
{
	uint64_t v[4] = {
		flow_hash_key[0] ^ 0x736f6d6570736575ULL,
		flow_hash_key[1] ^ 0x646f72616e646f6dULL,
		flow_hash_key[0] ^ 0x6c7967656e657261ULL,
		flow_hash_key[1] ^ 0x7465646279746573ULL,
	};
	uint64_t m[5];
	unsigned int i;

	static_assert(sizeof(*key) == sizeof(m), "flow key is five words");
	memcpy(m, key, sizeof(m));

	for (i = 0; i < ARRAY_SIZE(m); i++) {
		v[3] ^= m[i];
		sip_round(v);
		sip_round(v);
		v[0] ^= m[i];
	}
	v[3] ^= (uint64_t)sizeof(m) << 56;
	sip_round(v);
	sip_round(v);
	v[0] ^= (uint64_t)sizeof(m) << 56;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/**
 * flow_type_register() - give the table a flow type's operations
 * @type:	enum flow_type, not FLOW_FREE
 * @ops:	its operations, static: the table keeps the pointer
 */
void flow_type_register(enum flow_type type, const struct flow_type_ops *ops)
{
	assert(type > FLOW_FREE && type < FLOW_TYPE_MAX && ops->free);
	flow_type_ops[type] = ops;
}

/**
 * flow_ops() - the operations of a flow's type
 * @f:		flow, allocated, its type set and registered
 *
 * Return: its type's operations
 */
static const struct flow_type_ops *flow_ops(const struct flow_common *f)
{
	assert(f->type > FLOW_FREE && f->type < FLOW_TYPE_MAX &&
	       flow_type_ops[f->type]);
	return flow_type_ops[f->type];
}

/**
 * flow_init() - empty the table, pick a new hash key
 *
 * Registered flow types stay.
 */
void flow_init(void)
{
	flow_hash_key[0] = random_u64();
	flow_hash_key[1] = random_u64();
	if (flow_hash_used)
		memset(flow_hash_tab, 0, sizeof(flow_hash_tab));
	flow_hash_used = false;
	flow_free_head = FREE_NONE;
	flow_fresh = 0;
	flow_used = flow_hwm = 0;
	memset(flow_budget_n, 0, sizeof(flow_budget_n));
	flow_ring_tcp.head = flow_ring_tcp.n = 0;
	flow_ring_udp_in.head = flow_ring_udp_in.n = 0;
}

/**
 * flow_evict_push() - note a flow as the newest candidate of its ring
 * @r:		ring
 * @idx:	flow index
 *
 * When the ring is full, its oldest entry is forgotten: most likely a flow
 * that ended already.
 */
static void flow_evict_push(struct flow_evict_ring *r, uint32_t idx)
{
	unsigned int tail;

	if (r->n == FLOW_MAX) {
		r->head = (r->head + 1) % FLOW_MAX;
		r->n--;
	}
	tail = (r->head + r->n++) % FLOW_MAX;
	r->e[tail].idx = idx;
	r->e[tail].serial = flowtab[idx].f.serial;
}

/**
 * flow_evict() - end the oldest flow of a budget that may make room
 * @c:		execution context
 * @budget:	enum flow_budget, one with a ring
 *
 * Entries of flows gone already are dropped, and so are those that will
 * never be evictable; one that may be later (an inbound UDP flow active a
 * moment ago) goes back to the end (a second chance), at most once round
 * the ring.
 *
 * Return: true if one was ended
 */
static bool flow_evict(struct ctx *c, enum flow_budget budget)
{
	struct flow_evict_ring *r = flow_evict_ring[budget];
	unsigned int tries = r->n;

	while (tries-- && r->n) {
		uint32_t idx = r->e[r->head].idx;
		uint32_t serial = r->e[r->head].serial;
		const struct flow_common *f = &flowtab[idx].f;
		const struct flow_type_ops *ops;

		r->head = (r->head + 1) % FLOW_MAX;
		r->n--;
		if (f->type == FLOW_FREE || f->closing || f->serial != serial)
			continue;	/* gone: its slot may hold another */
		ops = flow_ops(f);
		switch (ops->evictable ? ops->evictable(idx, c->now) :
					 FLOW_EVICT_NEVER) {
		case FLOW_EVICT_LATER:
			flow_evict_push(r, idx);
			continue;
		case FLOW_EVICT_NEVER:
			continue;
		case FLOW_EVICT_NOW:
			break;
		}
		if (ops->evict)
			ops->evict(c, idx);
		else
			flow_close(idx);
		flow_evicted[budget]++;
		return true;
	}
	return false;
}

/**
 * flow_alloc() - take a free entry, zeroed, within a budget
 * @c:		execution context, to evict a flow for room
 * @budget:	enum flow_budget the flow counts against
 *
 * A full budget with a ring evicts one of its flows; so does a full table,
 * but the evicted entry is free only after the event batch: that flow is
 * refused, the next one (the guest's retry) gets it.
 *
 * Return: index of the entry, or -1 if the table or the budget is full
 */
int flow_alloc(struct ctx *c, enum flow_budget budget)
{
	struct flow_evict_ring *r = flow_evict_ring[budget];
	bool full = flow_free_head == FREE_NONE && flow_fresh == FLOW_MAX;
	uint32_t idx;

	if ((full || flow_budget_n[budget] >= flow_budget_max[budget]) &&
	    (!r || !flow_evict(c, budget) || full))
		return -1;
	if (flow_free_head != FREE_NONE) {
		idx = flow_free_head;
		flow_free_head = flow_free_next[idx];
	} else {
		idx = flow_fresh++;
	}
	assert(flowtab[idx].f.type == FLOW_FREE);
	memset(&flowtab[idx], 0, sizeof(flowtab[idx]));
	flowtab[idx].f.budget = budget;
	flowtab[idx].f.serial = ++flow_serial;
	flow_budget_n[budget]++;
	if (r)
		flow_evict_push(r, idx);
	flow_used++;
	if (idx + 1 > flow_hwm)
		flow_hwm = idx + 1;
	return idx;
}

/**
 * flow_fd_reclaim() - out of descriptors: evict a half-open TCP flow
 * @c:		execution context
 * @err:	errno of the call that failed
 *
 * The evicted connection's socket is closed at once (its type's evict()),
 * so that the caller can try again.
 *
 * Return: true if @err is EMFILE or ENFILE and a descriptor was freed
 */
bool flow_fd_reclaim(struct ctx *c, int err)
{
	return (err == EMFILE || err == ENFILE) &&
	       flow_evict(c, FLOW_BUDGET_TCP);
}

/**
 * flow_budget_used() - flows open, not closing, of a budget
 * @budget:	enum flow_budget
 *
 * Return: how many
 */
unsigned int flow_budget_used(enum flow_budget budget)
{
	return flow_budget_n[budget];
}

static unsigned int flow_slot_of(const struct flow_key *key)
{
	return flow_key_hash(key) & (HASH_SIZE - 1);
}

/**
 * flow_hash_insert() - make an allocated flow findable by its key
 * @idx:	flow index, with type and key set
 */
void flow_hash_insert(int idx)
{
	struct flow_common *f = &flowtab[idx].f;
	unsigned int slot = flow_slot_of(&f->key);

	assert(f->type != FLOW_FREE && !f->hashed);
	while (flow_hash_tab[slot] != HASH_EMPTY)
		slot = (slot + 1) & (HASH_SIZE - 1);
	flow_hash_tab[slot] = idx + 1;
	flow_hash_used = true;
	f->hashed = true;
}

/**
 * flow_lookup() - find a live flow by key
 * @key:	flow key, padding zeroed
 *
 * Return: flow index, or -1 if none
 */
int flow_lookup(const struct flow_key *key)
{
	unsigned int slot = flow_slot_of(key);

	for (; flow_hash_tab[slot] != HASH_EMPTY;
	     slot = (slot + 1) & (HASH_SIZE - 1)) {
		uint32_t idx = flow_hash_tab[slot] - 1;

		if (!memcmp(&flowtab[idx].f.key, key, sizeof(*key)))
			return idx;
	}
	return -1;
}

/**
 * flow_hash_remove() - delete a flow from the hash, keeping probe chains
 * @idx:	flow index
 *
 * Backward-shift deletion: move later entries of the same cluster up if the
 * hole lies between their home slot and their current slot.
 */
static void flow_hash_remove(int idx)
{
	struct flow_common *f = &flowtab[idx].f;
	unsigned int hole = flow_slot_of(&f->key), next;

	while (flow_hash_tab[hole] != (uint32_t)idx + 1) {
		assert(flow_hash_tab[hole] != HASH_EMPTY);
		hole = (hole + 1) & (HASH_SIZE - 1);
	}
	for (next = (hole + 1) & (HASH_SIZE - 1);
	     flow_hash_tab[next] != HASH_EMPTY;
	     next = (next + 1) & (HASH_SIZE - 1)) {
		unsigned int home;

		home = flow_slot_of(&flowtab[flow_hash_tab[next] - 1].f.key);
		/* Can the entry at next move to hole? Only if its home is
		 * not in the cyclic interval (hole, next].
		 */
		if (((next - home) & (HASH_SIZE - 1)) >=
		    ((next - hole) & (HASH_SIZE - 1))) {
			flow_hash_tab[hole] = flow_hash_tab[next];
			hole = next;
		}
	}
	flow_hash_tab[hole] = HASH_EMPTY;
	f->hashed = false;
}

/**
 * flow_close() - stop finding a flow now, free it after the event batch
 * @idx:	flow index
 */
void flow_close(int idx)
{
	struct flow_common *f = &flowtab[idx].f;

	if (f->closing)
		return;
	if (f->hashed)
		flow_hash_remove(idx);
	f->closing = true;
	flow_budget_n[f->budget]--;
	flow_pending_close = true;
}

/**
 * flow_defer_free() - free flows closed during the batch: call after it
 * @c:		execution context
 */
void flow_defer_free(struct ctx *c)
{
	unsigned int i;

	if (!flow_pending_close)
		return;
	flow_pending_close = false;

	for (i = 0; i < flow_hwm; i++) {
		struct flow_common *f = &flowtab[i].f;

		if (f->type == FLOW_FREE || !f->closing)
			continue;
		flow_ops(f)->free(c, i);
		f->type = FLOW_FREE;
		flow_free_next[i] = flow_free_head;
		flow_free_head = i;
		flow_used--;
	}
	while (flow_hwm && flowtab[flow_hwm - 1].f.type == FLOW_FREE)
		flow_hwm--;
}

/**
 * flow_close_all() - close every flow, for when the guest goes away
 * @c:		execution context
 */
void flow_close_all(struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < flow_hwm; i++) {
		struct flow_common *f = &flowtab[i].f;

		if (f->type == FLOW_FREE)
			continue;
		if (!f->closing && !f->frozen && flow_ops(f)->abort)
			flow_ops(f)->abort(c, i);
		else
			flow_close(i);
	}
}

/**
 * flow_sock() - the host-side socket of a flow, if it has one of its own
 * @idx:	flow index
 *
 * Return: socket, -1 for flows without one, or on a listener's socket
 */
int flow_sock(int idx)
{
	const struct flow_type_ops *ops = flow_ops(&flowtab[idx].f);

	return ops->sock ? ops->sock(idx) : -1;
}

/**
 * flow_freeze() - stop a datagram flow that migration moves: its socket
 *		   goes to another passt, we keep it only to resume if the
 *		   move fails (the type's .resume puts it back to work)
 * @c:		execution context
 * @idx:	flow index, with a socket of its own
 */
void flow_freeze(struct ctx *c, int idx)
{
	epoll_ref_del(c, flow_sock(idx));
	flowtab[idx].f.frozen = true;
}

/**
 * flow_dgram_resume() - put a frozen datagram flow to work (its type's
 *			 .resume): brought here, or given back
 * @c:		execution context
 * @idx:	flow index
 * @type:	epoll type of its socket, enum epoll_type
 */
void flow_dgram_resume(struct ctx *c, int idx, unsigned int type)
{
	struct flow_common *f = &flowtab[idx].f;

	f->frozen = false;
	f->active_at = c->now;
	epoll_ref_add(c, flow_sock(idx), (enum epoll_type)type, idx, EPOLLIN);
}

/**
 * flow_thaw_all() - the guest runs here: every flow migration froze works
 *		     again (a move that failed, or one that brought it here)
 * @c:		execution context
 *
 * Return: how many
 */
unsigned int flow_thaw_all(struct ctx *c)
{
	unsigned int i, n = 0;

	for (i = 0; i < flow_hwm; i++) {
		const struct flow_common *f = &flowtab[i].f;

		if (f->type == FLOW_FREE || !f->frozen || f->closing ||
		    !flow_ops(f)->resume)
			continue;
		flow_ops(f)->resume(c, i);
		n++;
	}
	return n;
}

/**
 * flow_uses_gone() - does a flow use an address that went away?
 * @idx:	flow index
 * @host:	addresses the host no longer has
 * @n_host:	how many
 * @guest:	addresses the guest no longer has
 * @n_guest:	how many
 *
 * Return: true if its guest address, or its socket's, is one of them
 */
static bool flow_uses_gone(int idx, const union inany_addr *host, int n_host,
			   const union inany_addr *guest, int n_guest)
{
	union inany_addr local;
	int s = flow_sock(idx);

	if (inany_in(&flowtab[idx].f.key.gaddr, guest, n_guest))
		return true;
	if (!n_host || s < 0 || inany_sock_local(s, &local))
		return false;
	return inany_in(&local, host, n_host);
}

/**
 * flow_reset_gone() - end the flows whose address went away
 * @c:		execution context
 * @host:	addresses the host no longer has: flows whose host socket is
 *		bound to one are ended
 * @n_host:	how many
 * @guest:	addresses the guest no longer has (pasta's namespace): flows
 *		of the guest from one are ended
 * @n_guest:	how many
 *
 * TCP connections are reset both ways, UDP and ICMP flows closed: the
 * guest's next datagram makes a new one. Spliced flows are on loopback
 * (their type's loopback).
 *
 * Return: how many flows were ended
 */
int flow_reset_gone(struct ctx *c, const union inany_addr *host, int n_host,
		    const union inany_addr *guest, int n_guest)
{
	unsigned int i;
	int n = 0;

	if (!n_host && !n_guest)
		return 0;
	for (i = 0; i < flow_hwm; i++) {
		const struct flow_common *f = &flowtab[i].f;

		if (f->type == FLOW_FREE || f->closing || f->frozen ||
		    flow_ops(f)->loopback ||
		    !flow_uses_gone(i, host, n_host, guest, n_guest))
			continue;
		if (flow_ops(f)->reset)
			flow_ops(f)->reset(c, i);
		else
			flow_close(i);
		n++;
	}
	return n;
}

/**
 * flow_idle_timeout() - how long a flow lives without traffic
 * @f:		flow, maybe free
 *
 * Return: timeout (ms), 0 for free entries and types whose lifetime is not
 *	   idle-based
 */
static int64_t flow_idle_timeout(const struct flow_common *f)
{
	if (f->type == FLOW_FREE || !flow_ops(f)->idle_ms)
		return 0;
	if (!f->answered)
		return FLOW_UNANSWERED_TIMEOUT_MS;
	return flow_ops(f)->idle_ms;
}

/**
 * flow_timer() - close idle datagram flows, once a second
 * @c:		execution context
 */
void flow_timer(struct ctx *c)
{
	static int64_t next_check;
	unsigned int i;

	/* Once a second is fine for timeouts of half a minute and more */
	if (c->now < next_check)
		return;
	next_check = c->now + MS_PER_S;

	for (i = 0; i < flow_hwm; i++) {
		struct flow_common *f = &flowtab[i].f;
		int64_t timeout = flow_idle_timeout(f);

		if (!timeout || f->closing || f->frozen ||
		    f->active_at + timeout > c->now)
			continue;
		if (f->answered)
			flow_expired_answered++;
		else
			flow_expired_unanswered++;
		flow_close(i);
	}
}

unsigned int flow_count(void)
{
	return flow_used;
}

/**
 * flow_stats() - log the table's use, evictions and expiries (SIGUSR1)
 */
void flow_stats(void)
{
	info("flows: %u in use; evicted: %llu TCP half-open, %llu inbound UDP "
	     "idle; datagram flows expired: %llu unanswered, %llu answered",
	     flow_used, (unsigned long long)flow_evicted[FLOW_BUDGET_TCP],
	     (unsigned long long)flow_evicted[FLOW_BUDGET_UDP_IN],
	     (unsigned long long)flow_expired_unanswered,
	     (unsigned long long)flow_expired_answered);
}

/**
 * flow_high_water() - one past the highest index in use, bound for scans
 *
 * Return: high-water mark
 */
unsigned int flow_high_water(void)
{
	return flow_hwm;
}

struct flow_common *flow_at(int idx)
{
	return &flowtab[idx].f;
}

/**
 * flow_str() - format a flow key for log messages
 * @key:	flow key
 * @buf:	output buffer
 * @len:	size of @buf, at least FLOW_STRLEN
 *
 * Return: @buf
 */
const char *flow_str(const struct flow_key *key, char *buf, size_t len)
{
	char g[INANY_STRLEN], p[INANY_STRLEN];
	const char *fmt = inany_is_v4(&key->gaddr) ? "%s %s:%u <-> %s:%u" :
						     "%s [%s]:%u <-> [%s]:%u";

	inany_ntop(&key->gaddr, g, sizeof(g));
	inany_ntop(&key->paddr, p, sizeof(p));
	snprintf(buf, len, fmt,
		 key->proto == IPPROTO_TCP ? "TCP" :
		 key->proto == IPPROTO_UDP ? "UDP" :
		 key->proto == IPPROTO_ICMP ? "ICMP" : "ICMPv6",
		 g, key->gport, p, key->pport);
	return buf;
}
