// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_ndp.c - unit tests for Neighbour Discovery (ndp.c)
 *
 * NDP messages are given to ndp_input() as icmp.c would give them: a view
 * of exactly the ICMPv6 message, copied to a buffer of its own length so
 * that ASan catches any read past the end, and the packet's addresses and
 * hop limit. Some are built here byte by byte; others are real frames the
 * Linux kernel (6.18) sent, captured as follows, as root, in a throwaway
 * namespace (timeout 30 unshare -n python3 cap.py): a veth pair v0/v1 with
 * MAC addresses 02:00:00:00:00:01 and :02, DAD and router solicitations
 * off on v1; an AF_PACKET socket bound to v1 (ETH_P_IPV6) reads what v0
 * sends as both links come up, 2001:db8::1/64 is added to v0, and
 * "ping -6 2001:db8::2" and "ping -6 fe80::1%v0" run: two DAD probes (with
 * the RFC 7527 nonce option), a Router Solicitation, and two address
 * resolution solicitations. The ICMPv6 bytes are embedded below with the
 * IPv6 source and destination (hop limit 255 in all), as seen on v1; the
 * namespace, and the veth pair with it, went away when the script exited.
 *
 * The "tap" is one end of a datagram socketpair: in pasta mode each frame
 * we send is one datagram, read from the other end and checked with the
 * parser of unit_lib.c (Ethernet, IPv6 and the ICMPv6 checksum over the
 * pseudo-header), then here (hop limit 255, the message and its options).
 * Router Advertisements go out from ndp_timer(), which is driven here with a
 * simulated clock (c.now), as the main loop would drive it. Prints TAP.
 */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ip.h"
#include "../link.h"
#include "../log.h"
#include "../ndp.h"
#include "../passt.h"
#include "../pkt.h"
#include "../resolv.h"
#include "unit_lib.h"

/* The reason ndp.c gives for every malformed message */
#define NDP_DROP		DROP_NDP_MALFORMED

#define RS	133
#define RA	134
#define NS	135
#define NA	136
#define REDIR	137

static struct ctx c;
static int tap_fd;		/* c.fd_tap when connected */

static const uint8_t guest_mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t our_mac[6] = { 0x02, 0x70, 0x61, 0x73, 0x74, 0x61 };

/* --- building messages ---------------------------------------------------- */

static uint8_t msg[4096];
static size_t msg_len;

static void m_start(uint8_t type, size_t fixed_len)
{
	memset(msg, 0, sizeof(msg));
	msg[0] = type;
	msg_len = fixed_len;
}

/* An address in the fixed part, at @off: targets, Redirect destinations */
static void m_addr(size_t off, const char *s)
{
	struct in6_addr a = a6(s);

	memcpy(msg + off, &a, sizeof(a));
}

/* An option of @units * 8 bytes, its value from @val, zero padded */
static void m_opt(uint8_t type, uint8_t units, const void *val, size_t len)
{
	msg[msg_len] = type;
	msg[msg_len + 1] = units;
	if (len)
		memcpy(msg + msg_len + 2, val, len);
	msg_len += units ? units * 8 : 2;
}

static void m_slla(const uint8_t *mac)
{
	m_opt(1, 1, mac, 6);
}

static void m_csum(const char *src, const char *dst)
{
	struct in6_addr s = a6(src), d = a6(dst);
	uint16_t sum;

	msg[2] = msg[3] = 0;
	sum = ~l4_sum6(&s, &d, IPPROTO_ICMPV6, msg, msg_len);
	msg[2] = sum >> 8;
	msg[3] = sum & 0xff;
}

/* Give the message as it is to ndp_input(), from a copy of its length */
static void m_input(const char *src, const char *dst, uint8_t hop_limit)
{
	struct l3_info l3 = { .proto = IPPROTO_ICMPV6,
			      .hop_limit = hop_limit };
	uint8_t *copy = malloc(msg_len ? msg_len : 1);
	struct pkt_view v = { copy, msg_len };

	l3.src.a6 = a6(src);
	l3.dst.a6 = a6(dst);
	memcpy(copy, msg, msg_len);
	ndp_input(&c, &l3, v);
	free(copy);
}

/* Checksum, then give it with hop limit 255 */
static void m_send(const char *src, const char *dst)
{
	m_csum(src, dst);
	m_input(src, dst, 255);
}

static void m_hex(const char *hex)
{
	unsigned int b;

	memset(msg, 0, sizeof(msg));
	for (msg_len = 0; hex[2 * msg_len]; msg_len++) {
		sscanf(hex + 2 * msg_len, "%2x", &b);
		msg[msg_len] = b;
	}
}

/* --- frames the Linux kernel sent (see the top of this file) -------------- */

/**
 * struct captured - one NDP message from the kernel, as captured
 * @what:	description
 * @src:	IPv6 source
 * @dst:	IPv6 destination
 * @icmp:	the ICMPv6 message, in hex
 */
static const struct captured {
	const char *what, *src, *dst, *icmp;
} cap_dad_global = {
	"DAD probe for 2001:db8::1 (nonce option)",
	"::", "ff02::1:ff00:1",
	"8700f99a00000000" "20010db800000000" "0000000000000001"
	"0e01e290b9b7a900",
}, cap_dad_ll = {
	"DAD probe for fe80::ff:fe00:1 (nonce option)",
	"::", "ff02::1:ff00:1",
	"8700d15200000000" "fe80000000000000" "000000fffe000001"
	"0e01a09b956067cd",
}, cap_rs = {
	"Router Solicitation",
	"fe80::ff:fe00:1", "ff02::2",
	"85007b2c00000000" "0101020000000001",
}, cap_ns_gw = {
	"address resolution for 2001:db8::2 (the gateway)",
	"2001:db8::1", "ff02::1:ff00:2",
	"87001c2700000000" "20010db800000000" "0000000000000002"
	"0101020000000001",
}, cap_ns_ll = {
	"address resolution for fe80::1 (our link-local address)",
	"fe80::ff:fe00:1", "ff02::1:ff00:1",
	"87007b9900000000" "fe80000000000000" "0000000000000001"
	"0101020000000001",
};

static void cap_load(const struct captured *m)
{
	m_hex(m->icmp);
}

static void cap_input(const struct captured *m, uint8_t hop_limit)
{
	cap_load(m);
	m_input(m->src, m->dst, hop_limit);
}

/* --- parsing what we send ------------------------------------------------- */

/**
 * struct reply - a frame to the guest, checked and split up
 */
struct reply {
	int valid;		/* Ethernet, IPv6, checksum, options fine */
	struct frame f;		/* Ethernet, IPv6, ICMPv6 checksum: checked */
	uint8_t m[65536];	/* the ICMPv6 message */
	size_t len;
	int opt_count[256];
	size_t opt_off[256];	/* first option of each type: offset in m */
	size_t opt_len[256];	/* and its length in bytes */
};

static struct reply rep;

static size_t fixed_len(uint8_t type)
{
	switch (type) {
	case RA:
		return 16;
	case NA:
		return 24;
	}
	return 0;
}

static int parse_opts(void)
{
	size_t i = fixed_len(rep.m[0]);

	if (!i || rep.len < i)
		return 0;
	while (i < rep.len) {
		size_t l = rep.m[i + 1] * 8;

		if (i + 2 > rep.len || !l || i + l > rep.len)
			return 0;
		if (!rep.opt_count[rep.m[i]]++) {
			rep.opt_off[rep.m[i]] = i;
			rep.opt_len[rep.m[i]] = l;
		}
		i += l;
	}
	return 1;
}

/* Read and parse one frame: 1 if there was one, 0 if none */
static int read_frame(void)
{
	struct frame f;

	if (!frame_read(&f)) {
		rep.valid = 0;
		return 0;
	}
	memset(&rep, 0, sizeof(rep));
	rep.f = f;
	if (!f.valid || f.eth_type != ETH_P_IPV6 ||
	    f.proto != IPPROTO_ICMPV6 || f.ttl != 255)
		return 1;
	rep.len = f.data_len;
	memcpy(rep.m, f.data, rep.len);
	if (rep.m[1] == 0)
		rep.valid = parse_opts();
	return 1;
}

/* Exactly one frame waiting: 1, then in rep */
static int get_reply(void)
{
	return read_frame() && !frame_waiting();
}

static uint32_t get32(size_t off)
{
	return ((uint32_t)rep.m[off] << 24) | (rep.m[off + 1] << 16) |
	       (rep.m[off + 2] << 8) | rep.m[off + 3];
}

static int opt_is(uint8_t type, const void *val, size_t len)
{
	return rep.opt_count[type] == 1 && rep.opt_len[type] == len &&
	       !memcmp(rep.m + rep.opt_off[type], val, len);
}

/* The NA we must send for @target, to @dst */
static int na_ok(const char *target, const char *dst)
{
	struct in6_addr t = a6(target);
	uint8_t tlla[8] = { 2, 1 };

	memcpy(tlla + 2, our_mac, 6);
	return rep.valid && rep.m[0] == NA && rep.len == 32 &&
	       rep.m[4] == 0xe0 && !rep.m[5] && !rep.m[6] && !rep.m[7] &&
	       !memcmp(rep.m + 8, &t, 16) && opt_is(2, tlla, 8) &&
	       addr6_is(&rep.f.src6, target) && addr6_is(&rep.f.dst6, dst) &&
	       !memcmp(rep.f.eth_dst, guest_mac, 6) &&
	       !memcmp(rep.f.eth_src, our_mac, 6);
}

/* An RA as every one must be: addresses (from our link-local), header,
 * link-layer address
 */
static int ra_ok(void)
{
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	uint8_t slla[8] = { 1, 1 };
	uint16_t lifetime = (rep.m[6] << 8) | rep.m[7];

	memcpy(slla + 2, our_mac, 6);
	return rep.valid && rep.m[0] == RA &&
	       IN6_ARE_ADDR_EQUAL(&rep.f.src6, &c.net.ll6_ours) &&
	       addr6_is(&rep.f.dst6, "ff02::1") &&
	       !memcmp(rep.f.eth_dst, all_nodes_mac, 6) &&
	       !memcmp(rep.f.eth_src, our_mac, 6) && rep.m[4] == 64 &&
	       lifetime >= NDP_MAX_RTR_ADV_INTERVAL_MS / 1000 &&
	       lifetime <= 9000 && !get32(8) && !get32(12) &&
	       opt_is(1, slla, 8) && rep.len <= (size_t)MAX(c.mtu, 1280) - 40;
}

/* --- driving the timer ---------------------------------------------------- */

/**
 * run_timer() - call ndp_timer() as the main loop would, until @until
 * @until:	simulated time to stop at (ms)
 * @times:	when each RA was sent, set, or NULL
 * @max:	size of @times
 * @bad:	frames that were not a valid RA to all nodes, incremented
 *
 * The loop wakes at the deadline, or earlier (at most a second later, at
 * random), as other events would wake it.
 *
 * Return: RAs sent
 */
static int run_timer(int64_t until, int64_t *times, int max, int *bad)
{
	int n = 0;

	while (c.now < until) {
		int64_t next = ndp_timer(&c), step = 1 + rand() % 1000;

		while (read_frame()) {
			if (!ra_ok())
				(*bad)++;
			else if (times && n < max)
				times[n++] = c.now;
			else
				n++;
		}
		c.now = MIN(MIN(next, c.now + step), until);
	}
	return n;
}

/* The RA for a solicitation: run the timer for up to @ms, in 1 ms steps */
static int solicited_ra(int ms, int64_t *when)
{
	int64_t end = c.now + ms;

	for (; c.now <= end; c.now++) {
		ndp_timer(&c);
		if (read_frame()) {
			*when = c.now;
			return ra_ok();
		}
	}
	return 0;
}

/* Let any RA that is due go, until the last is MIN_DELAY_BETWEEN_RAS ago */
static void settle(void)
{
	int64_t end = c.now + NDP_MIN_DELAY_BETWEEN_RAS_MS + 1;
	int bad = 0;

	while (c.now < end) {
		if (run_timer(end, NULL, 0, &bad))
			end = c.now + NDP_MIN_DELAY_BETWEEN_RAS_MS + 1;
	}
	drain();
}

/* Restore a saved configuration and the resolvers it gives, not the clock */
static void restore(const struct ctx *saved)
{
	int64_t now = c.now;

	c = *saved;
	c.now = now;
	ip_net_init(&c);
	resolv_conf_file(&c, NULL);
}

/* The RA deadline, with any RA due sent and thrown away */
static int64_t deadline(void)
{
	ndp_timer(&c);
	drain();
	return ndp_timer(&c);
}

/* RS from the guest, then its RA: 1 if it came within MAX_RA_DELAY_TIME */
static int rs_to_ra(void)
{
	int64_t t0, when;

	settle();
	t0 = c.now;
	cap_input(&cap_rs, 255);
	if (!no_reply())
		return 0;	/* never at once: after a random delay */
	return solicited_ra(NDP_MAX_RA_DELAY_TIME_MS + 1, &when) &&
	       when - t0 <= NDP_MAX_RA_DELAY_TIME_MS;
}

/* --- tests ---------------------------------------------------------------- */

static void test_captured_sums(void)
{
	const struct captured *all[] = { &cap_dad_global, &cap_dad_ll,
					 &cap_rs, &cap_ns_gw, &cap_ns_ll };
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		struct in6_addr src = a6(all[i]->src), dst = a6(all[i]->dst);

		cap_load(all[i]);
		okf(l4_sum6(&src, &dst, IPPROTO_ICMPV6, msg, msg_len) == 0xffff,
		    "captured %s: checksum verifies", all[i]->what);
	}
}

static void test_ns(void)
{
	uint64_t drops = pkt_drops[NDP_DROP];
	struct in6_addr want;

	cap_input(&cap_ns_gw, 255);
	ok(get_reply() && na_ok("2001:db8::2", "2001:db8::1"),
	   "kernel NS for the gateway: NA from it, R, S, O, our MAC, to the guest");

	cap_input(&cap_ns_ll, 255);
	ok(get_reply() && na_ok("fe80::1", "fe80::ff:fe00:1"),
	   "kernel NS for our link-local address: NA");

	m_start(NS, 24);
	m_addr(8, "2001:db8::1234");
	m_slla(guest_mac);
	m_send("2001:db8::1", "ff02::1:ff00:1234");
	ok(get_reply() && na_ok("2001:db8::1234", "2001:db8::1"),
	   "NS for another on-link address: NA, we stand in for it");

	m_start(NS, 24);
	m_addr(8, "2001:db8:ffff::7");
	m_send("fe80::ff:fe00:1", "2001:db8:ffff::7");
	ok(get_reply() && na_ok("2001:db8:ffff::7", "fe80::ff:fe00:1"),
	   "unicast NS (unreachability detection), no SLLA: NA");

	m_start(NS, 24);
	m_addr(8, "2001:db8::1");
	m_slla(guest_mac);
	m_send("fe80::ff:fe00:1", "ff02::1:ff00:1");
	ok(no_reply(), "NS for the guest's address: no reply");

	ip_guest_seen(&(union inany_addr){ .a6 = a6("2001:db8::99") });
	m_start(NS, 24);
	m_addr(8, "2001:db8::99");
	m_send("fe80::ff:fe00:1", "ff02::1:ff00:99");
	ok(no_reply(), "NS for the guest's last seen source: no reply");
	ip_guest_assign(&(union inany_addr){ .a6 = in6addr_any });

	m_start(NS, 24);
	m_addr(8, "fe80::ff:fe00:1");
	m_send("2001:db8::1", "ff02::1:ff00:1");
	ok(no_reply(), "NS for the guest's link-local address: no reply");

	m_start(NS, 24);
	m_addr(8, "2001:db8::abc");
	m_send("2001:db8::abc", "ff02::1:ff00:abc");
	ok(no_reply(), "NS for its own source address: no reply");

	cap_input(&cap_dad_global, 255);
	ok(no_reply(), "kernel DAD probe for the guest's address: no reply");
	cap_input(&cap_dad_ll, 255);
	ok(no_reply(), "kernel DAD probe for its link-local address: no reply");

	m_start(NS, 24);
	m_addr(8, "2001:db8::2");
	m_send("::", "ff02::1:ff00:2");
	ok(no_reply(), "DAD probe for the gateway's address: no reply");
	ok(!ip_guest_uses(&(union inany_addr){ .a6 = c.net.gw6 }),
	   "... and the gateway's address isn't taken as the guest's");

	m_start(NS, 24);
	m_addr(8, "2001:db8::beef");
	m_send("::", "ff02::1:ff00:beef");
	want = a6("2001:db8::beef");
	ok(no_reply() && ip_guest_uses(&(union inany_addr){ .a6 = want }),
	   "DAD probe for a new address in the prefix: inbound flows go there");
	m_start(NS, 24);
	m_addr(8, "2001:db8:77::1");
	m_send("::", "ff02::1:ff00:1");
	want = a6("2001:db8:77::1");
	ok(no_reply() && !ip_guest_uses(&(union inany_addr){ .a6 = want }),
	   "DAD probe for an address outside the prefix: not taken");

	ok(pkt_drops[NDP_DROP] == drops, "none of these counted as a drop");
}

/* Every malformed message: counter + 1, no reply, no RA brought forward */
static void expect_malformed(const char *desc, const char *src,
			     const char *dst, uint8_t hop_limit, int csum)
{
	uint64_t before = pkt_drops[NDP_DROP];
	int64_t next = deadline();

	if (csum)
		m_csum(src, dst);
	m_input(src, dst, hop_limit);
	okf(dropped_silently(NDP_DROP, before, 1) && ndp_timer(&c) == next,
	    "malformed, dropped, no reply: %s", desc);
}

static void ns_for_gw(void)
{
	m_start(NS, 24);
	m_addr(8, "2001:db8::2");
}

static void test_malformed(void)
{
	settle();

	cap_load(&cap_ns_gw);
	expect_malformed("kernel NS with hop limit 254", cap_ns_gw.src,
			 cap_ns_gw.dst, 254, 0);
	cap_load(&cap_rs);
	expect_malformed("kernel RS with hop limit 64", cap_rs.src,
			 cap_rs.dst, 64, 0);
	cap_load(&cap_ns_gw);
	msg[3] ^= 1;
	expect_malformed("kernel NS, checksum off by one bit", cap_ns_gw.src,
			 cap_ns_gw.dst, 255, 0);
	cap_load(&cap_ns_gw);
	expect_malformed("kernel NS from another source than summed",
			 "2001:db8::3", cap_ns_gw.dst, 255, 0);

	ns_for_gw();
	msg[1] = 1;
	expect_malformed("NS with code 1", "2001:db8::1", "2001:db8::2", 255,
			 1);
	ns_for_gw();
	msg_len = 23;
	expect_malformed("NS of 23 bytes", "2001:db8::1", "2001:db8::2", 255,
			 1);
	m_start(RS, 7);
	expect_malformed("RS of 7 bytes", "fe80::ff:fe00:1", "ff02::2", 255, 1);
	m_start(RS, 0);
	expect_malformed("empty message", "fe80::ff:fe00:1", "ff02::2", 255, 1);

	ns_for_gw();
	m_slla(guest_mac);
	msg_len -= 4;
	expect_malformed("NS with its SLLA option cut short", "2001:db8::1",
			 "2001:db8::2", 255, 1);
	ns_for_gw();
	m_opt(1, 0, NULL, 0);
	msg_len += 6;
	expect_malformed("NS with an option of length 0", "2001:db8::1",
			 "2001:db8::2", 255, 1);
	ns_for_gw();
	m_slla(guest_mac);
	msg[25] = 2;
	expect_malformed("NS with an option past the end", "2001:db8::1",
			 "2001:db8::2", 255, 1);
	ns_for_gw();
	m_slla(guest_mac);
	msg_len++;
	expect_malformed("NS with a byte after the last option",
			 "2001:db8::1", "2001:db8::2", 255, 1);
	cap_load(&cap_rs);
	msg[9] = 0;
	expect_malformed("kernel RS with its option length zeroed",
			 cap_rs.src, cap_rs.dst, 255, 1);

}

/* Messages that break the rules of their own type */
static void test_malformed_types(void)
{
	m_start(NS, 24);
	m_addr(8, "ff02::1");
	expect_malformed("NS for a multicast target", "2001:db8::1",
			 "ff02::1:ff00:1", 255, 1);
	m_start(NS, 24);
	m_addr(8, "2001:db8::2");
	expect_malformed("DAD probe to a unicast address", "::",
			 "2001:db8::2", 255, 1);
	m_start(NS, 24);
	m_addr(8, "2001:db8::2");
	m_slla(guest_mac);
	expect_malformed("DAD probe with an SLLA option", "::",
			 "ff02::1:ff00:2", 255, 1);
	m_start(RS, 8);
	m_slla(guest_mac);
	expect_malformed("RS from :: with an SLLA option", "::", "ff02::2",
			 255, 1);
	m_start(RA, 16);
	expect_malformed("RA from a global address", "2001:db8::1",
			 "ff02::1", 255, 1);
	m_start(NA, 24);
	m_addr(8, "2001:db8::1");
	msg[4] = 0x40;
	expect_malformed("solicited NA to all nodes", "2001:db8::1",
			 "ff02::1", 255, 1);
	m_start(NA, 24);
	m_addr(8, "ff02::1");
	expect_malformed("NA for a multicast target", "2001:db8::1",
			 "fe80::1", 255, 1);
	m_start(REDIR, 40);
	m_addr(8, "2001:db8::5");
	m_addr(24, "2001:db8::6");
	expect_malformed("Redirect to a global, different address",
			 "fe80::ff:fe00:1", "fe80::1", 255, 1);
	m_start(REDIR, 39);
	expect_malformed("Redirect of 39 bytes", "fe80::ff:fe00:1", "fe80::1",
			 255, 1);
	m_start(128, 8);
	expect_malformed("echo request (not NDP)", "fe80::ff:fe00:1",
			 "fe80::1", 255, 1);
}

static void test_others(void)
{
	uint64_t before = pkt_drops[NDP_DROP];
	uint8_t prefix[30] = { 64, 0xc0 };
	int64_t next = deadline();

	m_start(NA, 24);
	m_addr(8, "2001:db8::1");
	msg[4] = 0x20;
	m_opt(2, 1, guest_mac, 6);
	m_send("2001:db8::1", "ff02::1");
	m_start(RA, 16);
	m_slla(guest_mac);
	m_opt(3, 4, prefix, sizeof(prefix));
	m_send("fe80::ff:fe00:1", "ff02::1");
	m_start(REDIR, 40);
	m_addr(8, "fe80::9");
	m_addr(24, "2001:db8::9");
	m_send("fe80::ff:fe00:1", "2001:db8::1");
	ok(no_reply() && ndp_timer(&c) == next &&
	   pkt_drops[NDP_DROP] == before,
	   "valid NA, RA and Redirect from the guest: no reply, no drop");
}

static void test_ra(void)
{
	uint8_t mtu[8] = { 5, 1, 0, 0, 0, 0, 0xff, 0xf0 };
	uint8_t pio[32] = { 3, 4, 64, 0xc0, 0xff, 0xff, 0xff, 0xff,
			    0xff, 0xff, 0xff, 0xff };
	uint8_t rdnss[40] = { 25, 5 };
	uint8_t dnssl[40] = { 31, 5 };
	struct in6_addr p = a6("2001:db8::"), d1 = a6("2001:db8::53"),
			d2 = a6("2001:db8::2");

	memcpy(pio + 16, &p, 16);
	memcpy(rdnss + 8, &d1, 16);
	memcpy(rdnss + 24, &d2, 16);
	memcpy(dnssl + 8, search_wire, SEARCH_WIRE_LEN);

	ok(rs_to_ra() && ra_ok(),
	   "kernel RS: one RA within MAX_RA_DELAY_TIME, from fe80::1 to ff02::1 (33:33:00:00:00:01)");
	ok(rep.m[5] == 0xc0,
	   "RA: M and O flags (DHCPv6 on), preference medium");
	ok(((rep.m[6] << 8) | rep.m[7]) >= 600 && rep.m[4] == 64 &&
	   !get32(8) && !get32(12),
	   "RA: hop limit 64, router lifetime 600 to 9000 s, reachable and retransmit times unspecified");
	ok(rep.opt_count[1] == 1, "RA: SLLA option with our MAC");
	ok(opt_is(5, mtu, 8), "RA: MTU option, 65520");
	ok(rep.opt_count[3] == 1 && rep.opt_len[3] == 32 &&
	   !memcmp(rep.m + rep.opt_off[3], pio, 32),
	   "RA: prefix 2001:db8::/64, on-link and autonomous, infinite lifetimes");
	ok(rep.opt_count[25] == 1 && rep.opt_len[25] == 40 &&
	   !memcmp(rep.m + rep.opt_off[25], rdnss, 4) &&
	   get32(rep.opt_off[25] + 4) >= 3 * 600 &&
	   !memcmp(rep.m + rep.opt_off[25] + 8, rdnss + 8, 32),
	   "RA: RDNSS 2001:db8::53, ::1 as the gateway, link-local left out, lifetime >= 3 * MaxRtrAdvInterval");
	ok(rep.opt_count[31] == 1 && rep.opt_len[31] == 40 &&
	   !memcmp(rep.m + rep.opt_off[31], dnssl, 4) &&
	   get32(rep.opt_off[31] + 4) >= 3 * 600 &&
	   !memcmp(rep.m + rep.opt_off[31] + 8, dnssl + 8, 32),
	   "RA: DNSSL example.com, lab.example.org in wire format, zero padded");
	ok(rep.len == 16 + 8 + 8 + 32 + 40 + 40,
	   "RA: nothing else");
}

static void test_ra_config(void)
{
	struct ctx saved = c;
	uint8_t pio_head[4] = { 3, 4, 56, 0x80 }, pio64_head[4] = { 3, 4, 64, 0xc0 };
	struct in6_addr p56 = a6("2001:db8:0:1200::"), p64;
	int i;

	c.net.addr6 = a6("2001:db8:0:12ff::1");
	c.net.prefix6 = 56;
	ip_net_init(&c);
	ok(rs_to_ra() && rep.opt_count[3] == 1 &&
	   !memcmp(rep.m + rep.opt_off[3], pio_head, 4) &&
	   !memcmp(rep.m + rep.opt_off[3] + 16, &p56, 16),
	   "/56: prefix 2001:db8:0:1200::, on-link only (no SLAAC)");

	c.net.addr6 = in6addr_any;
	ip_net_init(&c);
	ok(rs_to_ra() && !rep.opt_count[3], "no address: no prefix option");
	restore(&saved);

	/* Podman's -a 2001:db8::1 with the host's gateway in another /64,
	 * and the host's own link-local address as ours (conf_ll6())
	 */
	c.net.gw6 = a6("2001:db8:1::2");
	c.net.ll6_ours = a6("fe80::c8b9:26ff:fe16:4a2");
	ip_net_init(&c);
	p64 = a6("2001:db8::");
	ok(rs_to_ra() && addr6_is(&rep.f.src6, "fe80::c8b9:26ff:fe16:4a2") &&
	   ((rep.m[6] << 8) | rep.m[7]) >= 600 && rep.opt_count[3] == 1 &&
	   !memcmp(rep.m + rep.opt_off[3], pio64_head, 4) &&
	   !memcmp(rep.m + rep.opt_off[3] + 16, &p64, 16),
	   "gateway outside the prefix: the RA names our link-local address as router, prefix 2001:db8::/64 on-link and autonomous");
	restore(&saved);

	c.no_dhcpv6 = true;
	ok(rs_to_ra() && rep.m[5] == 0, "--no-dhcpv6: no M, no O flag");
	restore(&saved);

	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	ok(rs_to_ra() && !rep.opt_count[25] && !rep.opt_count[31],
	   "--no-dhcp-dns, --no-dhcp-search: no RDNSS, no DNSSL");
	restore(&saved);

	c.no_dhcp_search = true;
	ok(rs_to_ra() && rep.opt_count[25] && !rep.opt_count[31],
	   "name servers without the search list: RDNSS, no DNSSL");
	restore(&saved);
	c.no_dhcp_dns = true;
	ok(rs_to_ra() && !rep.opt_count[25] && rep.opt_count[31],
	   "the search list without name servers: DNSSL, no RDNSS");
	restore(&saved);

	c.dns_opt.dns6_n = 1;
	c.dns_opt.dns6[0] = a6("::1");
	c.no_map_gw = true;
	memset(&c.net.map_host_lo, 0, sizeof(c.net.map_host_lo));
	ip_net_init(&c);
	c.dns_opt.search_n = 2;
	strcpy(c.dns_opt.search[0], "bad..example");
	strcpy(c.dns_opt.search[1], ".");
	resolv_conf_file(&c, NULL);
	ok(rs_to_ra() && !rep.opt_count[25] && !rep.opt_count[31],
	   "::1 with --no-map-gw, invalid search domains: no RDNSS, no DNSSL");
	restore(&saved);

	c.mtu = 1280;
	c.dns_opt.search_n = 6;
	for (i = 0; i < 6; i++) {
		char *s = c.dns_opt.search[i];

		/* 253 characters: 255 bytes in wire format */
		memset(s, 'a' + i, 253);
		s[63] = s[127] = s[191] = '.';
		s[253] = 0;
	}
	resolv_conf_file(&c, NULL);
	ok(rs_to_ra() && rep.f.len <= 14 + 1280 &&
	   opt_is(5, "\x05\x01\x00\x00\x00\x00\x05\x00", 8) &&
	   rep.opt_count[31] == 1 && rep.opt_len[31] == 8 + 4 * 255 + 4 &&
	   rep.m[rep.opt_off[31] + 8 + 3 * 255 + 1] == 'd',
	   "MTU 1280: RA fits, the four search domains that fit are sent");

	c.mtu = 576;
	ok(rs_to_ra() && rep.f.len <= 14 + 1280 && !rep.opt_count[5],
	   "MTU 576 (below IPv6's 1280): no MTU option, RA fits in 1280");
	restore(&saved);
}

static void test_no_ra(void)
{
	int bad = 0, n;

	settle();
	c.no_ra = true;
	cap_input(&cap_rs, 255);
	n = run_timer(c.now + 3600 * 1000, NULL, 0, &bad);
	ok(!n && !bad && no_reply() && ndp_timer(&c) == INT64_MAX,
	   "--no-ra: no RA for an RS, none unsolicited, no deadline");
	cap_input(&cap_ns_gw, 255);
	ok(get_reply() && na_ok("2001:db8::2", "2001:db8::1"),
	   "--no-ra: NS still answered");
	c.no_ra = false;

	c.no_ndp = true;
	ok(ndp_timer(&c) == INT64_MAX, "--no-ndp: no deadline");
	c.no_ndp = false;

	c.net.ip6_off = true;
	ip_net_init(&c);
	ok(ndp_timer(&c) == INT64_MAX, "IPv6 off: no deadline");
	c.net.ip6_off = false;
	ip_net_init(&c);
}

#define RA_TIMES_MAX	2048

static void test_unsolicited(void)
{
	static int64_t t[RA_TIMES_MAX];
	int64_t t0, gap, min_gap = INT64_MAX, max_gap = 0, sum = 0;
	int i, n, bad = 0, initial_ok = 1, later_ok = 1;

	c.fd_tap = -1;
	c.mode = MODE_PASST;
	n = run_timer(c.now + 24 * 3600 * 1000LL, t, RA_TIMES_MAX, &bad);
	ok(!n && ndp_timer(&c) == INT64_MAX,
	   "passt, no guest connected: no schedule for a day");

	c.fd_tap = tap_fd;
	c.mode = MODE_PASTA;
	t0 = c.now;
	n = run_timer(c.now + 48 * 3600 * 1000LL, t, RA_TIMES_MAX, &bad);
	ok(!bad && n > 3, "link up: RAs to all nodes, nothing else");
	ok(t[0] > t0 && t[0] - t0 <= NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS,
	   "first RA within MAX_INITIAL_RTR_ADVERT_INTERVAL (16 s), not at once");
	for (i = 1; i < NDP_MAX_INITIAL_RTR_ADVERTISEMENTS; i++) {
		gap = t[i] - t[i - 1];
		initial_ok &= gap >= NDP_MIN_DELAY_BETWEEN_RAS_MS &&
			      gap <= NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS;
	}
	ok(initial_ok, "first MAX_INITIAL_RTR_ADVERTISEMENTS (3): at most 16 s apart");
	for (i = NDP_MAX_INITIAL_RTR_ADVERTISEMENTS; i < n; i++) {
		gap = t[i] - t[i - 1];
		later_ok &= gap >= NDP_MIN_RTR_ADV_INTERVAL_MS &&
			    gap <= NDP_MAX_RTR_ADV_INTERVAL_MS;
		min_gap = MIN(min_gap, gap);
		max_gap = MAX(max_gap, gap);
		sum += gap;
	}
	n -= NDP_MAX_INITIAL_RTR_ADVERTISEMENTS;
	okf(later_ok && n >= 48 * 3600 / 600 - 1 && n <= 48 * 3600 / 200,
	    "then %d RAs in 48 h, %.1f to %.1f s apart, within MinRtrAdvInterval (200 s) and MaxRtrAdvInterval (600 s)",
	    n, min_gap / 1000.0, max_gap / 1000.0);
	okf(sum / n > 370000 && sum / n < 430000 &&
	    max_gap - min_gap > 300000,
	    "intervals uniform at random: mean %.1f s (400 expected), spread %.1f s",
	    sum / 1000.0 / n, (max_gap - min_gap) / 1000.0);
}

static void test_solicited_timing(void)
{
	int64_t last, when, t1;
	int i, n, bad = 0;

	ok(rs_to_ra(), "RS after a quiet time: RA within 500 ms");
	last = c.now;
	c.now += 100;
	cap_input(&cap_rs, 255);
	ok(solicited_ra(NDP_MIN_DELAY_BETWEEN_RAS_MS +
			NDP_MAX_RA_DELAY_TIME_MS + 10, &when) &&
	   when - last >= NDP_MIN_DELAY_BETWEEN_RAS_MS &&
	   when - last <= NDP_MIN_DELAY_BETWEEN_RAS_MS +
			  NDP_MAX_RA_DELAY_TIME_MS,
	   "RS 100 ms after an RA: next RA MIN_DELAY_BETWEEN_RAS (3 s) plus at most 500 ms after it");

	/* A flood of solicitations, one every 10 ms for a minute */
	settle();
	t1 = c.now;
	for (i = 0, n = 0; i < 6000; i++) {
		cap_input(&cap_rs, 255);
		n += run_timer(c.now + 10, NULL, 0, &bad);
	}
	ok(!bad && n >= 60000 / (NDP_MIN_DELAY_BETWEEN_RAS_MS +
				 NDP_MAX_RA_DELAY_TIME_MS) &&
	   n <= 60000 / NDP_MIN_DELAY_BETWEEN_RAS_MS + 1 &&
	   c.now - t1 == 60000,
	   "RS every 10 ms for a minute: one RA per 3 to 3.5 s");

	/* The guest goes, a new one comes: its schedule starts again */
	settle();
	c.fd_tap = -1;
	ok(ndp_timer(&c) == INT64_MAX, "guest gone: no deadline");
	c.fd_tap = tap_fd;
	t1 = c.now;
	n = run_timer(c.now + NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS + 1,
		      &when, 1, &bad);
	ok(n == 1 && !bad && when > t1,
	   "new guest: first RA within 16 s of its connection");
}

/* Random messages: under ASan nothing may read past the end; a dropped
 * message gets no reply, any other at most one
 */
static void test_random(void)
{
	static const uint8_t types[] = { RS, RA, NS, NA, REDIR };
	static const size_t fixed[] = { 8, 16, 24, 24, 40 };
	static const char *const srcs[] = { "::", "fe80::ff:fe00:1",
					    "2001:db8::1" };
	static const char *const dsts[] = { "ff02::1:ff00:2", "ff02::2",
					    "fe80::1", "2001:db8::2" };
	int i, bad = 0, answered = 0, dropped = 0;

	srand(7);
	for (i = 0; i < 20000; i++) {
		uint64_t before = pkt_drops[NDP_DROP];
		const char *src = srcs[rand() % 3], *dst = dsts[rand() % 4];
		int t = rand() % 5, u;
		size_t j, n = rand() % 48;
		uint8_t val[14];

		m_start(types[t], fixed[t]);
		if (i & 1)
			m_addr(8, (i & 2) ? "2001:db8::2" : "fe80::1");
		for (j = 0; (i & 4) && j < n / 8; j++) {
			for (t = 0; t < (int)sizeof(val); t++)
				val[t] = rand();
			u = 1 + rand() % 2;
			m_opt(rand() % 40, u, val, u * 8 - 2);
		}
		for (j = 0; !(i & 4) && j < n; j++)
			msg[msg_len++] = (i & 8) ? rand() % 4 : rand();
		if (i & 16)
			msg_len = rand() % (msg_len + 1);
		m_csum(src, dst);
		if (i % 7 == 5)
			msg[rand() % (msg_len + 1)] ^= 1 << (rand() % 8);
		m_input(src, dst, i % 7 == 6 ? rand() % 256 : 255);
		bad += !replies_ok(pkt_drops[NDP_DROP] != before, &answered);
		dropped += pkt_drops[NDP_DROP] != before;
	}
	settle();
	okf(!bad && answered > 100 && dropped > 1000,
	    "20000 random messages (%d dropped, %d answered): no reply to a dropped one, at most one reply",
	    dropped, answered);
}

int main(void)
{
	log_setup(false, true);
	tap_fd = tap_peer_open(&c);	/* one write() per frame */
	c.fd_tap_listen = -1;
	c.mtu = 65520;
	c.now = 1000000;
	c.net.addr6 = a6("2001:db8::1");
	c.net.prefix6 = 64;
	c.net.gw6 = a6("2001:db8::2");
	c.net.map_host_lo[INANY_V6].a6 = c.net.gw6;	/* as conf() sets it */
	c.net.ll6_ours = a6("fe80::1");
	ip_net_init(&c);
	ip_guest_seen(&(union inany_addr){ .a6 = a6("fe80::ff:fe00:1") });
	memcpy(c.mac_ours, our_mac, 6);
	link_guest_mac_seen(guest_mac);
	c.dns_opt.dns6_n = 3;
	c.dns_opt.dns6[0] = a6("2001:db8::53");
	c.dns_opt.dns6[1] = a6("::1");
	c.dns_opt.dns6[2] = a6("fe80::53");
	search_list_set(&c);
	resolv_conf_file(&c, NULL);

	test_captured_sums();
	test_ns();
	test_ra();
	test_ra_config();
	test_malformed();
	test_malformed_types();
	test_others();
	test_no_ra();
	test_unsolicited();
	test_solicited_timing();
	test_random();

	return tests_done();
}
