// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_dhcpv6.c - unit tests for the DHCPv6 server (dhcpv6.c)
 *
 * DHCPv6 messages are built here byte by byte, or taken from real clients
 * (see real_*[] below), and given to dhcpv6_input() as udp.c would give
 * them: the UDP payload, and the addresses of the datagram, from the
 * client's link-local address. The "tap" is one end of a datagram
 * socketpair: in pasta mode each frame we send is one write() to fd_tap,
 * so each reply is one datagram read from the other end, and checked with
 * the parser of unit_lib.c: Ethernet, IPv6 header (from our link-local address
 * to the client's), UDP ports and the UDP checksum over the IPv6
 * pseudo-header (RFC 8200, 8.1), then the DHCPv6 options. Every malformed
 * message must bump the DHCP drop counter and get no reply. Prints TAP.
 */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dhcpv6.h"
#include "../inany.h"
#include "../ip.h"
#include "../link.h"
#include "../log.h"
#include "../passt.h"
#include "../pkt.h"
#include "../resolv.h"
#include "unit_lib.h"

static struct ctx c;
static struct l3_info l3;	/* of the requests: client to ff02::1:2 */

/* 00:00:5e:00:53:xx is the documentation range (RFC 7042, 2.1.2), made
 * locally administered here: the same as in the captures below
 */
static const uint8_t guest_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
static const uint8_t our_mac[6] = { 0x02, 0x00, 0x5e, 0x00, 0x53, 0x02 };
#define GUEST_LL	"fe80::5eff:fe00:5301"
#define OUR_LL		"fe80::5eff:fe00:5302"
#define GUEST_ADDR	"2001:db8::2"

/* DUID-LL of our_mac: what the server must call itself (RFC 8415, 11.4) */
static const uint8_t our_duid[] = { 0, 3, 0, 1, 0x02, 0x00, 0x5e, 0x00, 0x53,
				    0x02 };
/* A DUID-LLT, as dhclient makes them */
static const uint8_t client_duid[] = { 0, 1, 0, 1, 0x32, 0xa1, 0x98, 0x74,
				       0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
static const uint8_t other_duid[] = { 0, 3, 0, 1, 0x02, 0x00, 0x5e, 0x00,
				      0x53, 0x99 };

/* Messages captured from real clients, UDP payloads as hex.
 *
 * Captured on Debian 12 in two throwaway network namespaces joined by a
 * veth pair (MAC addresses 02:00:5e:00:53:01 for the client, :02 for the
 * other end, DAD off, no address but the link-local ones), with a Python
 * AF_PACKET socket on the far end printing the UDP payload of every IPv6
 * datagram to port 547, each client run under timeout(1), the namespaces
 * deleted afterwards. Busybox's udhcpc6 could not be used: Debian builds
 * busybox (and busybox-static) 1.35 without it.
 *
 * real_dhclient_solicit: ISC dhclient 4.4.3-P1, "dhclient -6 -d -1": DUID-LLT,
 * ORO 23, 24, 39, 31, Elapsed Time, IA_NA with IAID 5e:00:53:01 and T1/T2
 * hints 3600/5400.
 */
static const char real_dhclient_solicit[] =
	"016dd7d00001000e0001000132a1987402005e005301000600080017001800270"
	"01f0008000200000003000c5e00530100000e1000001518";

/* real_dhcpcd_solicit: dhcpcd 9.4.1, "dhcpcd -6 -1" with "ia_na 1",
 * "option rapid_commit", "fqdn both", host name "guest": Rapid Commit,
 * ORO 39, 82, 83 (no DNS options: the configuration didn't ask for them),
 * Vendor Class, Client FQDN with S set and the partial name "guest"
 */
static const char real_dhcpcd_solicit[] =
	"0106536d0001000e0001000132a1988002005e0053010003000c00000001000000"
	"000000000000060006002700520053000800020000000e00000010003d00009f08"
	"00376468637063642d392e342e313a4c696e75782d362e31382e34342d66632d76"
	"313034353a7838365f36343a41757468656e746963414d44002700070105677565"
	"7374";

/* real_dhclient_inforeq: dhclient -6 -S: Information-request, DUID-LL */
static const char real_dhclient_inforeq[] =
	"0b7b23c60001000a0003000102005e00530100060008001700180027001f00080002"
	"0000";

/* --- building requests ---------------------------------------------------- */

static uint8_t msg[4096];
static size_t msg_len;

static void m_raw(const void *p, size_t len)
{
	memcpy(msg + msg_len, p, len);
	msg_len += len;
}

static void m_be16(uint16_t v)
{
	v = htons(v);
	m_raw(&v, 2);
}

static void m_be32(uint32_t v)
{
	v = htonl(v);
	m_raw(&v, 4);
}

static void m_start(uint8_t type, uint32_t xid)
{
	memset(msg, 0, sizeof(msg));
	msg_len = 0;
	msg[msg_len++] = type;
	msg[msg_len++] = xid >> 16;
	msg[msg_len++] = xid >> 8;
	msg[msg_len++] = xid;
}

static void m_opt(uint16_t code, const void *val, size_t len)
{
	m_be16(code);
	m_be16(len);
	if (len)
		m_raw(val, len);
}

/* Start an option whose length is set by m_close() */
static size_t m_open(uint16_t code)
{
	size_t at = msg_len;

	m_be16(code);
	m_be16(0);
	return at;
}

static void m_close(size_t at)
{
	uint16_t len = htons(msg_len - at - 4);

	memcpy(msg + at + 2, &len, 2);
}

static void m_client_id(void)
{
	m_opt(1, client_duid, sizeof(client_duid));
}

static void m_server_id(void)
{
	m_opt(2, our_duid, sizeof(our_duid));
}

static void m_iaaddr(const char *addr, uint32_t pref, uint32_t valid)
{
	struct in6_addr a;

	inet_pton(AF_INET6, addr, &a);
	m_be16(5);
	m_be16(24);
	m_raw(&a, 16);
	m_be32(pref);
	m_be32(valid);
}

/* Start an IA_NA with T1 = T2 = 0: its options follow, then m_close() */
static size_t m_ia_open(uint32_t iaid)
{
	size_t at = m_open(3);

	m_be32(iaid);
	m_be32(0);
	m_be32(0);
	return at;
}

/* IA_NA with T1 = T2 = 0 and, if @addr, one IA Address */
static void m_ia_na(uint32_t iaid, const char *addr)
{
	size_t at = m_ia_open(iaid);

	if (addr)
		m_iaaddr(addr, 0, 0);
	m_close(at);
}

/* ORO with @n option codes */
static void m_oro(int n, ...)
{
	size_t at = m_open(6);
	va_list ap;

	va_start(ap, n);
	while (n--)
		m_be16(va_arg(ap, int));
	va_end(ap);
	m_close(at);
}

static void m_hex(const char *hex)
{
	unsigned int b;

	for (; hex[0] && hex[1]; hex += 2) {
		sscanf(hex, "%2x", &b);
		msg[msg_len++] = b;
	}
}

/* Give the message to dhcpv6_input() from a copy of exactly its length, so
 * that ASan catches any read past the end
 */
static void m_send(void)
{
	uint8_t *copy = malloc(msg_len ? msg_len : 1);
	struct pkt_view v = { copy, msg_len };

	memcpy(copy, msg, msg_len);
	dhcpv6_input(&c, &l3, v);
	free(copy);
}

/* --- parsing replies ------------------------------------------------------ */

struct opt {
	uint16_t code;
	uint16_t len;
	const uint8_t *val;
};

#define OPTS_MAX	64

/**
 * struct reply - the frame of a reply, and its DHCPv6 message split up
 * @f:		Ethernet, IPv6 and UDP, checked by frame_parse()
 * @valid:	all checks of read_reply() passed
 * @opt:	options of the message
 * @opt_n:	number of options
 * @type:	message type
 * @xid:	transaction ID
 * @msg_len:	length of the message
 */
struct reply {
	struct frame f;
	int valid;
	struct opt opt[OPTS_MAX];
	int opt_n;
	uint8_t type;
	uint32_t xid;
	size_t msg_len;
};

static struct reply rep;

/* Split a list of options: -1 if one doesn't fit */
static int parse_opts(const uint8_t *p, size_t len, struct opt *out, int max)
{
	int n = 0;

	while (len) {
		if (len < 4 || n == max || (size_t)be16(p + 2) + 4 > len)
			return -1;
		out[n].code = be16(p);
		out[n].len = be16(p + 2);
		out[n].val = p + 4;
		len -= 4 + out[n].len;
		p += 4 + out[n].len;
		n++;
	}
	return n;
}

/**
 * read_reply() - read the reply to the last request, and split it up
 *
 * Return: 1 if there was exactly one frame, and a valid DHCPv6 message in it
 */
static int read_reply(void)
{
	const uint8_t *m;

	memset(&rep, 0, sizeof(rep));
	if (!frame_one(&rep.f) || !rep.f.valid ||
	    rep.f.eth_type != ETH_P_IPV6 || rep.f.proto != IPPROTO_UDP ||
	    rep.f.data_len < 4)
		return 0;
	m = rep.f.data;
	rep.msg_len = rep.f.data_len;
	rep.type = m[0];
	rep.xid = be32(m) & 0xffffff;
	rep.opt_n = parse_opts(m + 4, rep.msg_len - 4, rep.opt, OPTS_MAX);
	rep.valid = rep.opt_n >= 0;
	return rep.valid;
}

/* The @nth (from 0) instance of option @code in a list, NULL if none */
static const struct opt *find(const struct opt *o, int n, uint16_t code,
			      int nth)
{
	int i;

	for (i = 0; i < n; i++) {
		if (o[i].code == code && !nth--)
			return &o[i];
	}
	return NULL;
}

static const struct opt *ropt(uint16_t code)
{
	return find(rep.opt, rep.opt_n, code, 0);
}

static int count(uint16_t code)
{
	int i, n = 0;

	for (i = 0; i < rep.opt_n; i++)
		n += rep.opt[i].code == code;
	return n;
}

static int opt_is(const struct opt *o, const void *val, size_t len)
{
	return o && o->len == len && (!len || !memcmp(o->val, val, len));
}

/* One reply of @type to transaction @xid, framed and addressed right */
static int reply_is(uint8_t type, uint32_t xid)
{
	return read_reply() && rep.type == type && rep.xid == xid &&
	       !memcmp(rep.f.eth_dst, guest_mac, 6) &&
	       !memcmp(rep.f.eth_src, our_mac, 6) &&
	       addr6_is(&rep.f.src6, OUR_LL) &&
	       addr6_is(&rep.f.dst6, GUEST_LL) &&
	       rep.f.sport == 547 && rep.f.dport == 546;
}

/* Our DUID, and the client's echoed */
static int ids_ok(void)
{
	return opt_is(ropt(1), client_duid, sizeof(client_duid)) &&
	       opt_is(ropt(2), our_duid, sizeof(our_duid)) &&
	       count(1) == 1 && count(2) == 1;
}

/* Status Code option @o holds @code */
static int status_is(const struct opt *o, uint16_t code)
{
	return o && o->len >= 2 && be16(o->val) == code;
}

/**
 * struct ia - an IA_NA of a reply, split up
 */
struct ia {
	int valid;
	uint32_t iaid, t1, t2;
	struct opt sub[8];
	int sub_n;
};

static struct ia ia_get(int nth)
{
	const struct opt *o = find(rep.opt, rep.opt_n, 3, nth);
	struct ia ia = { 0 };

	if (!o || o->len < 12)
		return ia;
	ia.iaid = be32(o->val);
	ia.t1 = be32(o->val + 4);
	ia.t2 = be32(o->val + 8);
	ia.sub_n = parse_opts(o->val + 12, o->len - 12, ia.sub, 8);
	ia.valid = ia.sub_n >= 0;
	return ia;
}

/* The @nth IA Address of @ia holds @addr with both lifetimes @life */
static int iaaddr_is(const struct ia *ia, int nth, const char *addr,
		     uint32_t life)
{
	const struct opt *a = find(ia->sub, ia->sub_n, 5, nth);

	return a && a->len == 24 && addr6_is(a->val, addr) &&
	       be32(a->val + 16) == life && be32(a->val + 20) == life;
}

/* IA_NA @nth of the reply: IAID @iaid, infinite T1/T2, our address only */
static int ia_leased(int nth, uint32_t iaid)
{
	struct ia ia = ia_get(nth);

	return ia.valid && ia.iaid == iaid && ia.t1 == 0xffffffff &&
	       ia.t2 == 0xffffffff && ia.sub_n == 1 &&
	       iaaddr_is(&ia, 0, GUEST_ADDR, 0xffffffff);
}

static const uint8_t dns_wire[] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x53,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
};

/* Name servers and search list, as configured in main() */
static int config_ok(void)
{
	return opt_is(ropt(23), dns_wire, sizeof(dns_wire)) &&
	       opt_is(ropt(24), search_wire, SEARCH_WIRE_LEN);
}

/**
 * expect_silent() - send the message: no reply, and @drops counted
 * @drops:	1 for a malformed or invalid message, 0 for one ignored
 * @what:	how it should go, for the description
 * @desc:	the message, for the description
 */
static void expect_silent(int drops, const char *what, const char *desc)
{
	uint64_t before = pkt_drops[DROP_DHCP6_MALFORMED];

	m_send();
	okf(dropped_silently(DROP_DHCP6_MALFORMED, before, drops), "%s: %s",
	    what, desc);
}

/* Every malformed or invalid message: counter + 1, no reply */
#define expect_drop(desc)	expect_silent(1, "dropped, no reply", (desc))

/* Messages for another server, or not for a server: no reply, no drop */
#define expect_ignored(desc)	expect_silent(0, "ignored, not a drop", (desc))

/* --- tests ---------------------------------------------------------------- */

static void test_solicit(void)
{
	m_start(1, 0x123456);
	m_client_id();
	m_oro(2, 23, 24);
	m_opt(8, "\x00\x00", 2);		/* elapsed time */
	m_ia_na(0xa1b2c3d4, NULL);
	m_send();

	ok(reply_is(2, 0x123456),
	   "SOLICIT: one ADVERTISE, same xid, guest MAC, " OUR_LL " -> "
	   GUEST_LL ", 547 -> 546, UDP checksum over the IPv6 pseudo-header");
	ok(ids_ok(), "ADVERTISE: client DUID echoed, server DUID-LL of our MAC");
	ok(opt_is(ropt(7), "\xff", 1), "ADVERTISE: preference 255");
	ok(count(3) == 1 && ia_leased(0, 0xa1b2c3d4),
	   "ADVERTISE: IA_NA, IAID echoed, T1 = T2 = infinity, "
	   GUEST_ADDR " with infinite lifetimes");
	ok(config_ok(),
	   "ADVERTISE: DNS 2001:db8::53, ::1 as the gateway, link-local "
	   "left out; search list in wire format");
	ok(!count(14) && !count(39) && !count(13),
	   "ADVERTISE: no rapid commit, FQDN or status code");
}

static void test_rapid_commit(void)
{
	m_start(1, 0x000001);
	m_client_id();
	m_opt(14, NULL, 0);
	m_ia_na(7, NULL);
	m_send();
	ok(reply_is(7, 1) && ids_ok() && opt_is(ropt(14), NULL, 0) &&
	   ia_leased(0, 7) && !count(7),
	   "SOLICIT with rapid commit: REPLY at once, option 14 echoed, "
	   "address, no preference");
	ok(!count(23) && !count(24),
	   "no ORO: no name servers, no search list");
}

static void test_request(void)
{
	struct ia ia;
	int got;

	m_start(3, 0xabcdef);
	m_client_id();
	m_server_id();
	m_oro(1, 23);
	m_ia_na(0x01020304, GUEST_ADDR);
	m_send();
	ok(reply_is(7, 0xabcdef) && ids_ok() && ia_leased(0, 0x01020304) &&
	   !count(7) && !count(14),
	   "REQUEST: REPLY with the address, IAID echoed");
	ok(opt_is(ropt(23), dns_wire, sizeof(dns_wire)) && !count(24),
	   "REQUEST: ORO asks for name servers only: no search list");

	m_start(3, 0xabcdf0);
	m_client_id();
	m_opt(2, other_duid, sizeof(other_duid));
	m_ia_na(0x01020304, GUEST_ADDR);
	expect_ignored("REQUEST for another server's DUID");

	m_start(3, 0xabcdf1);
	m_client_id();
	m_opt(2, our_duid, sizeof(our_duid) - 1);
	m_ia_na(1, NULL);
	expect_ignored("REQUEST for a DUID that is a prefix of ours");

	/* An address from an earlier life goes back with lifetimes 0 */
	m_start(3, 0xabcdf2);
	m_client_id();
	m_server_id();
	{
		size_t at = m_ia_open(9);

		m_iaaddr("2001:db8:ffff::9", 3600, 7200);
		m_iaaddr(GUEST_ADDR, 3600, 7200);
		m_close(at);
	}
	m_send();
	got = reply_is(7, 0xabcdf2);
	ia = ia_get(0);
	ok(got && ia.valid && ia.iaid == 9 &&
	   ia.sub_n == 2 && iaaddr_is(&ia, 0, GUEST_ADDR, 0xffffffff) &&
	   iaaddr_is(&ia, 1, "2001:db8:ffff::9", 0),
	   "REQUEST with a stale address: ours, and the stale one with lifetimes 0");
}

static void test_renew_rebind(void)
{
	m_start(5, 0x0a0b0c);
	m_client_id();
	m_server_id();
	m_oro(2, 24, 23);
	m_ia_na(0x5e005301, GUEST_ADDR);
	m_send();
	ok(reply_is(7, 0x0a0b0c) && ids_ok() && ia_leased(0, 0x5e005301) &&
	   config_ok(), "RENEW: REPLY with the address and configuration");

	m_start(5, 0x0a0b0d);
	m_client_id();
	m_opt(2, other_duid, sizeof(other_duid));
	m_ia_na(0x5e005301, GUEST_ADDR);
	expect_ignored("RENEW for another server");

	m_start(6, 0x0a0b0e);
	m_client_id();
	m_ia_na(0x5e005301, GUEST_ADDR);
	m_send();
	ok(reply_is(7, 0x0a0b0e) && ids_ok() && ia_leased(0, 0x5e005301),
	   "REBIND: REPLY with the address");
}

/**
 * our_addr_success() - send a message for our address, expect Success
 * @type:	message type
 * @xid:	transaction ID
 * @server_id:	add our server ID
 *
 * Return: 1 if the reply is a REPLY, IDs right, Success, and no IA
 */
static int our_addr_success(uint8_t type, uint32_t xid, int server_id)
{
	m_start(type, xid);
	m_client_id();
	if (server_id)
		m_server_id();
	m_ia_na(1, GUEST_ADDR);
	m_send();
	return reply_is(7, xid) && ids_ok() && status_is(ropt(13), 0) &&
	       !count(3);
}

static void test_confirm(void)
{
	ok(our_addr_success(4, 0x44, 0),
	   "CONFIRM of our address: REPLY, Success, no IA");

	m_start(4, 0x45);
	m_client_id();
	{
		size_t at = m_ia_open(1);

		m_iaaddr(GUEST_ADDR, 0, 0);
		m_iaaddr("2001:db8:1::2", 0, 0);
		m_close(at);
	}
	m_send();
	ok(reply_is(7, 0x45) && status_is(ropt(13), 4) && !count(3),
	   "CONFIRM with a foreign address: NotOnLink");

	m_start(4, 0x46);
	m_client_id();
	m_ia_na(1, NULL);
	expect_ignored("CONFIRM without addresses (RFC 8415, 18.3.3)");
}

static void test_release_decline(void)
{
	ok(our_addr_success(8, 0x88, 1) && !count(23),
	   "RELEASE: REPLY with Success, no IA, no configuration");
	ok(our_addr_success(9, 0x99, 1), "DECLINE: REPLY with Success");

	m_start(8, 0x89);
	m_client_id();
	m_opt(2, other_duid, sizeof(other_duid));
	expect_ignored("RELEASE for another server");
}

static void test_inforeq(void)
{
	m_start(11, 0x111111);
	m_oro(2, 23, 24);
	m_send();
	ok(reply_is(7, 0x111111) && !count(1) &&
	   opt_is(ropt(2), our_duid, sizeof(our_duid)) && config_ok() &&
	   !count(3) && !count(13),
	   "INFORMATION-REQUEST without client ID: REPLY, configuration only");

	m_start(11, 0x111112);
	m_client_id();
	m_server_id();
	m_oro(1, 24);
	m_send();
	ok(reply_is(7, 0x111112) && ids_ok() && !count(23) &&
	   opt_is(ropt(24), search_wire, SEARCH_WIRE_LEN),
	   "INFORMATION-REQUEST with client and server ID: both echoed");

	m_start(11, 0x111113);
	m_client_id();
	m_opt(2, other_duid, sizeof(other_duid));
	m_oro(1, 23);
	expect_ignored("INFORMATION-REQUEST for another server");

	m_start(11, 0x111114);
	m_client_id();
	m_ia_na(1, NULL);
	expect_drop("INFORMATION-REQUEST with an IA_NA (RFC 8415, 16.12)");

	m_start(11, 0x111115);
	m_opt(25, "\0\0\0\1\0\0\0\0\0\0\0\0", 12);
	expect_drop("INFORMATION-REQUEST with an IA_PD");
}

/**
 * fqdn_reply() - send a message with an IA_NA and a Client FQDN option
 * @type:	SOLICIT (1), or REQUEST (3), then with our server ID
 * @xid:	transaction ID
 * @fqdn:	value of the option
 * @len:	length of @fqdn
 *
 * Return: the Client FQDN option of the ADVERTISE or REPLY, NULL if none
 */
static const struct opt *fqdn_reply(uint8_t type, uint32_t xid,
				    const void *fqdn, size_t len)
{
	m_start(type, xid);
	m_client_id();
	if (type == 3)
		m_server_id();
	m_ia_na(1, NULL);
	m_opt(39, fqdn, len);
	m_send();
	return reply_is(type == 1 ? 2 : 7, xid) ? ropt(39) : NULL;
}

static void test_ia_fqdn(void)
{
	struct ia ia;
	int got;

	m_start(1, 0x2);
	m_client_id();
	m_ia_na(0x10, NULL);
	m_ia_na(0x20, NULL);
	m_send();
	got = reply_is(2, 0x2);
	ia = ia_get(1);
	ok(got && count(3) == 2 && ia_leased(0, 0x10) &&
	   ia.valid && ia.iaid == 0x20 && !ia.t1 && !ia.t2 && ia.sub_n == 1 &&
	   status_is(find(ia.sub, ia.sub_n, 13, 0), 2),
	   "two IA_NAs: the first gets the address, the second NoAddrsAvail");

	ok(opt_is(fqdn_reply(1, 0x3, "\x01\x05guest", 7), "\x06\x05guest", 7),
	   "FQDN, S set, partial name: N and O set, S clear, name echoed (RFC 4704)");
	ok(opt_is(fqdn_reply(3, 0x4, "\x00\x05guest\x07" "example\x00", 16),
		  "\x04\x05guest\x07" "example\x00", 16),
	   "FQDN, S clear, full name: N set only, name echoed");
	ok(opt_is(fqdn_reply(3, 0x5, "\x01", 1), "\x06", 1),
	   "FQDN with an empty name: answered with an empty name");
	strcpy(c.fqdn, "vm1.example.org");
	ok(opt_is(fqdn_reply(3, 0x7, "\x00\x05guest", 7),
		  "\x04\x03vm1\x07" "example\x03org\x00", 18),
	   "FQDN with --fqdn vm1.example.org: that name, full, N set");
	c.fqdn[0] = 0;

	m_start(11, 0x6);
	m_opt(39, "\x01\x05guest", 7);
	m_send();
	ok(reply_is(7, 0x6) && !count(39),
	   "FQDN in an INFORMATION-REQUEST: not answered (no address)");
}

static void test_not_served(void)
{
	static const uint8_t types[] = { 2, 7, 10, 12, 13, 0, 14, 255 };
	char d[100];
	size_t i;

	for (i = 0; i < sizeof(types); i++) {
		m_start(types[i], 0x77);
		m_client_id();
		m_server_id();
		m_raw("\xff\xff\xff", 3);	/* not walked: no drop */
		snprintf(d, sizeof(d), "message type %u from the guest",
			 types[i]);
		expect_ignored(d);
	}
}

static void test_invalid(void)
{
	m_start(1, 1);
	m_ia_na(1, NULL);
	expect_drop("SOLICIT without client ID");

	m_start(1, 1);
	m_client_id();
	m_server_id();
	expect_drop("SOLICIT with a server ID (RFC 8415, 16.2)");

	m_start(3, 1);
	m_client_id();
	m_ia_na(1, NULL);
	expect_drop("REQUEST without server ID");

	m_start(5, 1);
	m_server_id();
	m_ia_na(1, NULL);
	expect_drop("RENEW without client ID");

	m_start(6, 1);
	m_client_id();
	m_server_id();
	expect_drop("REBIND with a server ID (RFC 8415, 16.7)");

	m_start(4, 1);
	m_client_id();
	m_server_id();
	m_ia_na(1, GUEST_ADDR);
	expect_drop("CONFIRM with a server ID");

	m_start(9, 1);
	m_client_id();
	expect_drop("DECLINE without server ID");

	m_start(1, 1);
	m_client_id();
	inet_pton(AF_INET6, "::", &l3.src.a6);
	expect_drop("source address ::");
	inet_pton(AF_INET6, GUEST_LL, &l3.src.a6);
}

static void test_malformed_framing(void)
{
	size_t at;

	m_start(1, 1);
	msg_len = 0;
	expect_drop("zero-length message");

	m_start(1, 1);
	msg_len = 3;
	expect_drop("3 bytes: truncated transaction ID");

	m_start(1, 1);
	m_client_id();
	m_raw("\x00\x08\x00", 3);
	expect_drop("truncated option header at the end");

	m_start(1, 1);
	m_client_id();
	m_be16(8);
	m_be16(10);
	m_raw("\0\0", 2);
	expect_drop("option length beyond the message");

	m_start(1, 1);
	m_client_id();
	at = m_ia_open(1);
	m_be16(5);
	m_be16(24);
	m_raw("\x20\x01\x0d\xb8", 4);	/* IA Address runs past the IA_NA */
	m_close(at);
	m_raw("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
	expect_drop("nested IA Address overrunning its IA_NA");
}

static void test_malformed_ia(void)
{
	size_t at;

	m_start(1, 1);
	m_client_id();
	m_opt(3, "\0\0\0\1\0\0\0\0\0\0\0", 11);
	expect_drop("IA_NA of 11 bytes");

	m_start(3, 1);
	m_client_id();
	m_server_id();
	at = m_ia_open(1);
	m_opt(5, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\2\0\0\0\0\0\0\0", 23);
	m_close(at);
	expect_drop("IA Address of 23 bytes");

	m_start(3, 1);
	m_client_id();
	m_server_id();
	at = m_ia_open(1);
	{
		size_t a = m_open(5);

		m_raw("\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\2", 16);
		m_be32(0);
		m_be32(0);
		m_raw("\x00\x0d\x00\x09\x00", 5);	/* status runs over */
		m_close(a);
	}
	m_close(at);
	expect_drop("option inside an IA Address overrunning it");

	m_start(3, 1);
	m_client_id();
	m_server_id();
	at = m_ia_open(1);
	m_raw("\x00\x0d\x00", 3);		/* truncated sub-option */
	m_close(at);
	expect_drop("truncated option header inside an IA_NA");
}

static void test_malformed_opts(void)
{
	m_start(1, 1);
	m_opt(1, "\0\1", 2);
	expect_drop("client ID of 2 bytes");

	m_start(1, 1);
	{
		uint8_t big[131] = { 0, 2 };

		m_opt(1, big, sizeof(big));
	}
	expect_drop("client ID of 131 bytes");

	m_start(3, 1);
	m_client_id();
	m_opt(2, "\0\3", 2);
	expect_drop("server ID of 2 bytes");

	m_start(1, 1);
	m_client_id();
	m_client_id();
	expect_drop("client ID twice");

	m_start(1, 1);
	m_client_id();
	m_opt(14, "\0", 1);
	expect_drop("rapid commit of 1 byte");

	m_start(1, 1);
	m_client_id();
	m_opt(6, "\0\x17\0", 3);
	expect_drop("ORO of odd length");

	m_start(1, 1);
	m_client_id();
	m_oro(1, 23);
	m_oro(1, 24);
	expect_drop("ORO twice");
}

static void test_malformed_fqdn(void)
{
	m_start(1, 1);
	m_client_id();
	m_opt(39, NULL, 0);
	expect_drop("FQDN without flags");

	m_start(1, 1);
	m_client_id();
	m_opt(39, "\x00\x06guest", 7);
	expect_drop("FQDN label running past the name");

	m_start(1, 1);
	m_client_id();
	m_opt(39, "\x00\x05guest\x00\x03" "com", 11);
	expect_drop("FQDN with the root label in the middle");

	m_start(1, 1);
	m_client_id();
	m_opt(39, "\x00\xc0\x0c", 3);
	expect_drop("FQDN with a compression pointer");

	m_start(1, 1);
	m_client_id();
	{
		uint8_t name[1 + 1 + 64] = { 0, 64 };

		memset(name + 2, 'a', 64);
		m_opt(39, name, sizeof(name));
	}
	expect_drop("FQDN with a 64-byte label");
}

static void test_sizes(void)
{
	struct ctx saved = c;
	struct ia ia;
	int i, got;

	c.dns_opt.search_n = 5;
	for (i = 0; i < 5; i++) {
		memset(c.dns_opt.search[i], 'a' + i, 60);
		memcpy(c.dns_opt.search[i] + 60, ".", 1);
		memset(c.dns_opt.search[i] + 61, 'b', 60);
		memcpy(c.dns_opt.search[i] + 121, ".", 1);
		memset(c.dns_opt.search[i] + 122, 'c', 60);
		memcpy(c.dns_opt.search[i] + 182, ".", 1);
		memset(c.dns_opt.search[i] + 183, 'd', 50);
		memcpy(c.dns_opt.search[i] + 233, ".example", 9);
	}
	resolv_conf_file(&c, NULL);

	c.mtu = 1280;
	m_start(1, 0x5);
	m_client_id();
	m_oro(2, 23, 24);
	m_ia_na(1, NULL);
	m_send();
	ok(reply_is(2, 0x5) && ia_leased(0, 1) && !count(24) &&
	   opt_is(ropt(23), dns_wire, sizeof(dns_wire)) &&
	   rep.msg_len <= 1280 - 48,
	   "MTU 1280: 1215-byte search list left out, the rest sent");

	c.mtu = 65520;
	m_send();
	ok(reply_is(2, 0x5) && ropt(24) && ropt(24)->len == 5 * 243 &&
	   rep.msg_len <= 1500 - 48,
	   "MTU 65520: search list sent, reply within 1500 bytes");

	c.mtu = 576;
	m_send();
	ok(reply_is(2, 0x5) && ia_leased(0, 1) && !count(24) &&
	   rep.msg_len <= 1280 - 48,
	   "MTU 576: replies still use the IPv6 minimum of 1280");

	c = saved;
	resolv_conf_file(&c, NULL);
	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	m_send();
	ok(reply_is(2, 0x5) && !count(23) && !count(24),
	   "--no-dhcp-dns, --no-dhcp-search: no options 23 and 24");

	c = saved;
	c.no_dhcp_search = true;
	m_send();
	ok(reply_is(2, 0x5) && count(23) && !count(24),
	   "name servers without the search list: option 23, no option 24");
	c = saved;
	c.no_dhcp_dns = true;
	m_send();
	ok(reply_is(2, 0x5) && !count(23) && count(24),
	   "the search list without name servers: option 24, no option 23");

	c = saved;
	memset(&c.net.addr6, 0, sizeof(c.net.addr6));
	ip_net_init(&c);
	m_send();
	got = reply_is(2, 0x5);
	ia = ia_get(0);
	ok(got && count(3) == 1 && ia.valid && !find(ia.sub, ia.sub_n, 5, 0) &&
	   status_is(find(ia.sub, ia.sub_n, 13, 0), 2),
	   "no address to give: IA_NA with NoAddrsAvail");
	c = saved;
	ip_net_init(&c);
}

static void test_real_clients(void)
{
	static const uint8_t dhclient_duid[] = {
		0, 1, 0, 1, 0x32, 0xa1, 0x98, 0x74,
		0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
	static const uint8_t dhcpcd_duid[] = {
		0, 1, 0, 1, 0x32, 0xa1, 0x98, 0x80,
		0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };
	static const uint8_t dhclient_ll[] = {
		0, 3, 0, 1, 0x02, 0x00, 0x5e, 0x00, 0x53, 0x01 };

	m_start(0, 0);
	msg_len = 0;
	m_hex(real_dhclient_solicit);
	m_send();
	ok(reply_is(2, 0x6dd7d0) && ia_leased(0, 0x5e005301) &&
	   opt_is(ropt(1), dhclient_duid, sizeof(dhclient_duid)) &&
	   opt_is(ropt(2), our_duid, sizeof(our_duid)) && config_ok() &&
	   opt_is(ropt(7), "\xff", 1) && !count(39),
	   "real dhclient SOLICIT: ADVERTISE, DUID and IAID echoed, DNS and "
	   "search list");

	msg_len = 0;
	m_hex(real_dhcpcd_solicit);
	m_send();
	ok(reply_is(7, 0x06536d) && ia_leased(0, 1) &&
	   opt_is(ropt(1), dhcpcd_duid, sizeof(dhcpcd_duid)) &&
	   opt_is(ropt(14), NULL, 0) &&
	   opt_is(ropt(39), "\x06\x05guest", 7) && !count(23) && !count(24),
	   "real dhcpcd SOLICIT: rapid commit REPLY, FQDN answered, no "
	   "unrequested DNS");

	msg_len = 0;
	m_hex(real_dhclient_inforeq);
	m_send();
	ok(reply_is(7, 0x7b23c6) &&
	   opt_is(ropt(1), dhclient_ll, sizeof(dhclient_ll)) &&
	   config_ok() && !count(3),
	   "real dhclient INFORMATION-REQUEST: REPLY with configuration");
}

/* Random options after a valid header: under ASan, nothing may read past
 * the end; each message is either dropped or answered, once
 */
static void test_random(void)
{
	static const uint16_t codes[] = { 1, 2, 3, 5, 6, 8, 13, 14, 23, 39 };
	int i, bad = 0, answered = 0;

	srand(6);
	for (i = 0; i < 20000; i++) {
		uint64_t before = pkt_drops[DROP_DHCP6_MALFORMED];
		int n = rand() % 6, j;

		m_start(1 + rand() % 11, i);
		if (i & 1)
			m_client_id();
		if (i & 2)
			m_server_id();
		for (j = 0; j < n; j++) {
			size_t len = rand() % ((i & 4) ? 40 : 4), k;

			m_be16(codes[rand() % 10]);
			m_be16(len + ((i & 8) ? rand() % 3 : 0));
			for (k = 0; k < len; k++)
				msg[msg_len++] = (i & 16) ? rand() % 8 : rand();
		}
		if (i & 32)
			msg_len = rand() % (msg_len + 1);
		m_send();
		bad += !replies_ok(pkt_drops[DROP_DHCP6_MALFORMED] != before,
				   &answered);
	}
	ok(!bad && answered > 100,
	   "20000 random messages: no reply to a dropped one, at most one reply");
}

int main(void)
{
	log_setup(false, true);		/* info() lines would clutter TAP */
	tap_peer_open(&c);
	c.mtu = 65520;
	memcpy(c.mac_ours, our_mac, 6);
	link_guest_mac_seen(guest_mac);
	inet_pton(AF_INET6, GUEST_ADDR, &c.net.addr6);
	c.net.prefix6 = 64;
	inet_pton(AF_INET6, "2001:db8::1", &c.net.gw6);
	c.net.map_host_lo[INANY_V6].a6 = c.net.gw6;	/* as conf() sets it */
	inet_pton(AF_INET6, OUR_LL, &c.net.ll6_ours);
	ip_net_init(&c);
	c.dns_opt.dns6_n = 3;
	inet_pton(AF_INET6, "2001:db8::53", &c.dns_opt.dns6[0]);
	inet_pton(AF_INET6, "::1", &c.dns_opt.dns6[1]);
	inet_pton(AF_INET6, "fe80::53", &c.dns_opt.dns6[2]);
	search_list_set(&c);
	resolv_conf_file(&c, NULL);

	inet_pton(AF_INET6, GUEST_LL, &l3.src.a6);
	inet_pton(AF_INET6, "ff02::1:2", &l3.dst.a6);
	l3.proto = IPPROTO_UDP;
	l3.hop_limit = 1;

	test_solicit();
	test_rapid_commit();
	test_request();
	test_renew_rebind();
	test_confirm();
	test_release_decline();
	test_inforeq();
	test_ia_fqdn();
	test_not_served();
	test_invalid();
	test_malformed_framing();
	test_malformed_ia();
	test_malformed_opts();
	test_malformed_fqdn();
	test_sizes();
	test_real_clients();
	test_random();

	return tests_done();
}
