// SPDX-License-Identifier: GPL-2.0-or-later
/* migrate.c - our state in a guest's live migration: what it is made of,
 *	       and the checks it must pass before the target believes it
 *
 * Theory of operation: QEMU carries a vhost-user back-end's state in its
 * own migration stream (vhost_user.c: DEVICE_STATE). Once the source's
 * rings are stopped, it gives us a pipe and reads our state from it until
 * we close it; the target's QEMU writes the same bytes into a pipe of the
 * target passt's. The format is ours, and versioned:
 *
 *   header:   "pt-mig\r\n", version (32 bits), flags (32 bits, 0)
 *   sections: type (16 bits), flags (16 bits, 0), length (32 bits), then
 *	       that many bytes; integers in network order
 *   last:     MIG_END, empty, then the end of the pipe
 *
 * Sections, in order: MIG_GUEST (the guest's MAC and addresses), MIG_FWD
 * (our inbound forwarding rules, which a control client may have changed:
 * the target takes them when the guest runs there), MIG_HANDOVER (where
 * a target on this host fetches our sockets, mig_handover.c), one MIG_TCP
 * per established connection (tcp_migrate.c), one MIG_DGRAM per UDP flow
 * or echo session the guest started (dgram_migrate.c). Once saved, those
 * flows are frozen here: if the guest runs here again (the move failed,
 * or was cancelled), they resume (mig_resume()); if the front-end goes
 * away, they are closed without a word, the target has them.
 *
 * Loading trusts nothing: a section of a type we don't know, of the wrong
 * length, with a field out of range, anything after MIG_END or a stream
 * that ends before it refuses the whole state with a message saying
 * where (the front-end then fails the migration, and the source keeps
 * the guest). A value that passes is applied as the guest itself could
 * have set it: the guest's addresses go through the policy its own packets
 * meet (ip_guest_seen()).
 *
 * A transfer is bounded: MIG_TIMEOUT_MS in all, at most MIG_SECTION_MAX
 * bytes a section.
 */

#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>

#include "dgram_migrate.h"
#include "flow.h"
#include "fwd.h"
#include "fwd_rule.h"
#include "inany.h"
#include "ip.h"
#include "link.h"
#include "log.h"
#include "mig_handover.h"
#include "migrate.h"
#include "passt.h"
#include "repair.h"
#include "tcp.h"
#include "tcp_migrate.h"

#define MIG_MAGIC		"pt-mig\r\n"
#define MIG_MAGIC_LEN		8
#define MIG_SECTION_MAX		(32U << 20)	/* TCP: queues, tcp_repair.c */

/**
 * struct mig_header - the start of the state
 * @magic:	MIG_MAGIC
 * @version:	MIG_VERSION of the writer
 * @flags:	none yet: 0
 */
struct mig_header {
	char magic[MIG_MAGIC_LEN];
	uint32_t version;
	uint32_t flags;
};

static_assert(sizeof(struct mig_header) == 16, "header: no padding");

/**
 * struct mig_guest - MIG_GUEST: what we learnt of the guest
 * @mac:	its MAC address
 * @pad:	0
 * @addr4:	the IPv4 address it uses, 0 if none seen
 * @addr6:	its global IPv6 address, unspecified if none seen
 * @addr6_ll:	its link-local one
 */
struct mig_guest {
	uint8_t mac[ETH_ADDR_LEN];
	uint8_t pad[2];
	struct in_addr addr4;
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
};

static_assert(sizeof(struct mig_guest) == 44, "guest: no padding");

/* The source's inbound forwarding rules, as loaded: ours from when the
 * guest runs here (mig_resume()). Owner: this file.
 */
static struct fwd_rules mig_fwd;
static bool mig_fwd_pending;

/* Connections frozen here since we saved our state or loaded one, until
 * the guest runs here (mig_resume()) or its front-end goes
 * (mig_moved_away()). Owner: this file.
 */
static bool mig_frozen;

/**
 * mig_guest_save() - MIG_GUEST: the guest's MAC and addresses
 * @io:		transfer
 *
 * Return: 0 on success, -1 on failure
 */
static int mig_guest_save(struct mig_io *io)
{
	struct mig_guest g = { 0 };

	memcpy(g.mac, link_guest_mac(), ETH_ADDR_LEN);
	ip_guest_addrs(&g.addr4, &g.addr6, &g.addr6_ll);
	if (mig_section_start(io, MIG_GUEST, sizeof(g)))
		return -1;
	return mig_write(io, &g, sizeof(g));
}

/**
 * mig_guest_load() - MIG_GUEST: take the guest's MAC and addresses
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, -1 if the section is wrong
 */
static int mig_guest_load(struct mig_io *io, uint32_t len)
{
	static const uint8_t none[ETH_ADDR_LEN] = { 0 },
			     bcast[ETH_ADDR_LEN] = { 0xff, 0xff, 0xff, 0xff,
						     0xff, 0xff };
	const struct in6_addr *a6[2];
	struct mig_guest g;
	union inany_addr a;
	unsigned int i;

	if (len != sizeof(g) || mig_read(io, &g, sizeof(g))) {
		err("migration: guest section of %u bytes", len);
		return -1;
	}
	/* Broadcast: the source never heard from the guest */
	if (memcmp(g.mac, bcast, ETH_ADDR_LEN)) {
		if ((g.mac[0] & 1) || !memcmp(g.mac, none, ETH_ADDR_LEN)) {
			err("migration: guest MAC address isn't unicast");
			return -1;
		}
		link_guest_mac_seen(g.mac);
	}
	if (g.pad[0] || g.pad[1]) {
		err("migration: guest section padding isn't 0");
		return -1;
	}
	if (g.addr4.s_addr) {
		inany_from_v4(&a, g.addr4);
		ip_guest_seen(&a);
	}
	a6[0] = &g.addr6;
	a6[1] = &g.addr6_ll;
	for (i = 0; i < 2; i++) {
		a.a6 = *a6[i];
		if (!inany_v4(&a))	/* IPv4-mapped: not the guest's IPv6 */
			ip_guest_seen(&a);
	}
	return 0;
}

/**
 * mig_fwd_save() - MIG_FWD: our inbound forwarding rules, as they are now
 *		    (a control client may have changed them)
 * @io:		transfer
 *
 * Return: 0 on success, -1 on failure
 */
static int mig_fwd_save(struct mig_io *io)
{
	const struct fwd_rules *t = fwd_rules_now(FWD_IN);
	uint8_t buf[FWD_RULE_WIRE_LEN];
	uint32_t n = htonl(t->n);
	unsigned int i;

	if (mig_section_start(io, MIG_FWD, sizeof(n) + t->n * sizeof(buf)) ||
	    mig_write(io, &n, sizeof(n)))
		return -1;
	for (i = 0; i < t->n; i++) {
		fwd_rule_encode(&t->rule[i], buf);
		if (mig_write(io, buf, sizeof(buf)))
			return -1;
	}
	return 0;
}

/**
 * mig_fwd_differ() - are two tables of rules different, rule by rule?
 * @a:		rules
 * @b:		rules
 *
 * Return: true if they are
 */
static bool mig_fwd_differ(const struct fwd_rules *a,
			   const struct fwd_rules *b)
{
	unsigned int i;

	if (a->n != b->n)
		return true;
	for (i = 0; i < a->n; i++) {
		if (!fwd_rule_equal(&a->rule[i], &b->rule[i]))
			return true;
	}
	return false;
}

/**
 * mig_fwd_load() - MIG_FWD: the source's inbound rules, each checked as a
 *		    control client's would be, taken when the guest runs here
 * @io:		transfer
 * @len:	section length
 *
 * Return: 0 on success, -1 if the section is wrong
 */
static int mig_fwd_load(struct mig_io *io, uint32_t len)
{
	uint8_t buf[FWD_RULE_WIRE_LEN];
	char why[FWD_ERR_LEN];
	uint32_t n;

	if (len < sizeof(n) || mig_read(io, &n, sizeof(n)) ||
	    (n = ntohl(n)) > FWD_RULES_MAX ||
	    len != sizeof(n) + n * sizeof(buf)) {
		err("migration: forwarding section of %u bytes", len);
		return -1;
	}
	for (mig_fwd.n = 0; mig_fwd.n < n; mig_fwd.n++) {
		if (mig_read(io, buf, sizeof(buf)) ||
		    fwd_rule_decode(&mig_fwd.rule[mig_fwd.n], buf, why,
				    sizeof(why)))
			goto wrong;
	}
	if (fwd_rules_check(&mig_fwd, why, sizeof(why)))
		goto wrong;
	mig_fwd_pending = mig_fwd_differ(&mig_fwd, fwd_rules_now(FWD_IN));
	return 0;
wrong:
	err("migration: forwarding rule %u: %s", mig_fwd.n, why);
	return -1;
}

/**
 * mig_fwd_take() - the guest runs here: the source's rules replace ours,
 *		    if they differ
 * @c:		execution context
 */
static void mig_fwd_take(struct ctx *c)
{
	char why[FWD_ERR_LEN];

	if (!mig_fwd_pending)
		return;
	mig_fwd_pending = false;
	if (fwd_update_migrated(c, &mig_fwd, why, sizeof(why)))
		warn("migration: the source's forwarding rules: %s; ours stay",
		     why);
	else
		info("migration: the source's forwarding rules taken");
}

/**
 * mig_resume() - the guest runs here: after we saved our state, the move
 *		  failed; after we loaded one, it came here. The frozen
 *		  connections go on
 * @c:		execution context
 */
void mig_resume(struct ctx *c)
{
	if (!mig_frozen)
		return;
	mig_frozen = false;
	mig_handover_close(c);
	mig_handover_repair(c, REPAIR_OFF);
	mig_fwd_take(c);
	info("migration: the guest runs here, %u flows resumed",
	     flow_thaw_all(c));
}

/**
 * mig_moved_away() - the front-end went away after we saved our state:
 *		      the guest runs on the target now
 * @c:		execution context
 *
 * The frozen connections were closed with the rest, without a word.
 *
 * Return: true if the guest migrated away from here
 */
bool mig_moved_away(struct ctx *c)
{
	if (!mig_frozen)
		return false;
	mig_frozen = false;
	mig_handover_close(c);
	info("migration: the guest moved to the target");
	return true;
}

/**
 * mig_save() - write our state, from the header to MIG_END
 * @c:		execution context
 * @io:		transfer
 *
 * Return: true on success
 */
bool mig_save(struct ctx *c, struct mig_io *io)
{
	struct mig_header h = { MIG_MAGIC, htonl(MIG_VERSION), 0 };
	bool ok;

	tcp_batch_end(c);	/* nothing pending on a socket that moves */
	ok = !mig_write(io, &h, sizeof(h)) && !mig_guest_save(io) &&
	     !mig_fwd_save(io) && !mig_handover_save(c, io) && !tcp_mig_save(c, io) &&
	     !dgram_mig_save(c, io) && !mig_section_start(io, MIG_END, 0);
	mig_frozen = mig_handover_count() > 0;
	return ok;
}

/**
 * mig_header_load() - read and check the header
 * @io:		transfer
 *
 * Return: 0 if it is ours, of a version we read; -1 otherwise
 */
static int mig_header_load(struct mig_io *io)
{
	struct mig_header h;

	if (mig_read(io, &h, sizeof(h)) ||
	    memcmp(h.magic, MIG_MAGIC, MIG_MAGIC_LEN)) {
		err("migration: not our state (no header)");
		return -1;
	}
	if (ntohl(h.version) != MIG_VERSION || h.flags) {
		err("migration: state of version %u (flags %#x), we read %u",
		    ntohl(h.version), ntohl(h.flags), MIG_VERSION);
		return -1;
	}
	return 0;
}

/**
 * mig_sections_load() - the header, then every section, checked
 * @c:		execution context
 * @io:		transfer
 *
 * Return: true if the whole state was read and taken
 */
static bool mig_sections_load(struct ctx *c, struct mig_io *io)
{
	unsigned int n;

	if (mig_header_load(io))
		return false;
	for (n = 0;; n++) {
		struct mig_section_hdr h;
		uint32_t len;
		uint8_t more;

		if (mig_read(io, &h, sizeof(h))) {
			err("migration: state ends before its end mark");
			return false;
		}
		len = ntohl(h.len);
		if (h.flags || len > MIG_SECTION_MAX) {
			err("migration: section %u: flags %#x, %u bytes", n,
			    ntohs(h.flags), len);
			return false;
		}
		switch (ntohs(h.type)) {
		case MIG_END:
			if (len || !mig_read(io, &more, 1)) {
				err("migration: data past the end mark");
				return false;
			}
			return true;
		case MIG_GUEST:
			if (mig_guest_load(io, len))
				return false;
			break;
		case MIG_FWD:
			if (mig_fwd_load(io, len))
				return false;
			break;
		case MIG_HANDOVER:
			if (mig_handover_load(io, len))
				return false;
			break;
		case MIG_TCP:
			if (tcp_mig_load(c, io, len))
				return false;
			break;
		case MIG_DGRAM:
			if (dgram_mig_load(c, io, len))
				return false;
			break;
		default:
			err("migration: section %u of unknown type %u", n,
			    ntohs(h.type));
			return false;
		}
	}
}

/**
 * mig_load() - read the source's state and take it, section by section
 * @c:		execution context
 * @io:		transfer
 *
 * Return: true if the whole state was read and taken
 */
bool mig_load(struct ctx *c, struct mig_io *io)
{
	bool ok;

	mig_fwd_pending = false;
	ok = mig_sections_load(c, io);
	mig_fwd_pending = mig_fwd_pending && ok;

	mig_handover_release();
	mig_frozen = true;	/* what we took waits for the guest to run */
	return ok;
}

/**
 * mig_transfer() - run a device state transfer the front-end asked for
 * @c:		execution context
 * @fd:		its pipe, closed here: the end of our state, for a save
 * @save:	write our state, else read the source's
 *
 * Return: true if it went through
 */
bool mig_transfer(struct ctx *c, int fd, bool save)
{
	struct mig_io io = { .fd = fd, .deadline = mig_now_ms() +
						   MIG_TIMEOUT_MS };
	int64_t t0 = mig_now_ms();
	bool ok = save ? mig_save(c, &io) : mig_load(c, &io);

	close(fd);
	if (save && !ok)
		mig_resume(c);
	if (ok)
		info("migration: state %s in %lld ms", save ? "saved" : "loaded",
		     (long long)(mig_now_ms() - t0));
	else
		err("migration: state not %s", save ? "saved" : "loaded");
	return ok;
}

