// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_dhcp.c - unit tests for the DHCP server (dhcp.c)
 *
 * BOOTP messages are built here byte by byte and given to dhcp_input() as
 * udp.c would give them. The "tap" is one end of a datagram socketpair: in
 * pasta mode link_send() writes one Ethernet frame per call to fd_tap,
 * so each reply is one datagram read from the other end, and checked with
 * the parser of unit_lib.c (Ethernet, IPv4 and UDP checksums included). Every
 * malformed message must bump the DHCP drop counter and get no reply.
 * resolv.conf parsing runs on temporary files. Prints TAP.
 */

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../checksum.h"
#include "../dhcp.h"
#include "../ip.h"
#include "../link.h"
#include "../log.h"
#include "../passt.h"
#include "../pkt.h"
#include "../resolv.h"
#include "unit_lib.h"

static struct ctx c;

static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* --- building requests ---------------------------------------------------- */

static uint8_t msg[2048];
static size_t msg_len;

/**
 * req_start() - BOOTREQUEST header with the magic cookie, no options
 * @xid:	transaction ID
 * @ciaddr:	client address, or NULL for 0.0.0.0
 * @bcast:	set the broadcast flag
 */
static void req_start(uint32_t xid, const char *ciaddr, int bcast)
{
	memset(msg, 0, sizeof(msg));
	msg[0] = 1;			/* op: BOOTREQUEST */
	msg[1] = 1;			/* htype: Ethernet */
	msg[2] = 6;			/* hlen */
	xid = htonl(xid);
	memcpy(msg + 4, &xid, 4);
	if (bcast)
		msg[10] = 0x80;
	if (ciaddr)
		inet_pton(AF_INET, ciaddr, msg + 12);
	memcpy(msg + 28, guest_mac, 6);
	memcpy(msg + 236, "\x63\x82\x53\x63", 4);
	msg_len = 240;
}

static void req_opt(uint8_t code, const void *val, uint8_t len)
{
	msg[msg_len++] = code;
	msg[msg_len++] = len;
	if (len)
		memcpy(msg + msg_len, val, len);
	msg_len += len;
}

static void req_type(uint8_t type)
{
	req_opt(53, &type, 1);
}

static void req_addr_opt(uint8_t code, const char *addr)
{
	struct in_addr a;

	inet_pton(AF_INET, addr, &a);
	req_opt(code, &a, 4);
}

static void req_end(void)
{
	msg[msg_len++] = 255;
}

/* Give the message to dhcp_input() from a copy of exactly its length, so
 * that ASan catches any read past the end
 */
static void req_send(void)
{
	uint8_t *copy = malloc(msg_len ? msg_len : 1);
	struct pkt_view v = { copy, msg_len };

	memcpy(copy, msg, msg_len);
	dhcp_input(&c, v);
	free(copy);
}

/* --- parsing replies -------------------------------------------------------- */

/**
 * struct reply - a reply frame, checked and split up
 */
struct reply {
	int valid;		/* all checks of parse_bootp() passed */
	struct frame f;		/* Ethernet, IPv4 and UDP, checked */
	size_t bootp_len;
	uint8_t op;
	uint32_t xid;
	uint16_t flags;
	struct in_addr ciaddr, yiaddr;
	uint8_t chaddr[6];
	uint8_t opt[256][1024];	/* option values, concatenated (RFC 3396) */
	size_t opt_len[256];
	int opt_count[256];	/* instances of each option */
	int has_end;
};

static struct reply rep;

static int parse_options(const uint8_t *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint8_t code = p[i++], l;

		if (code == 0)
			continue;
		if (code == 255) {
			rep.has_end = 1;
			return 1;
		}
		if (i >= len || i + 1 + p[i] > len)
			return 0;
		l = p[i++];
		if (rep.opt_len[code] + l > sizeof(rep.opt[code]))
			return 0;
		memcpy(rep.opt[code] + rep.opt_len[code], p + i, l);
		rep.opt_len[code] += l;
		rep.opt_count[code]++;
		i += l;
	}
	return 1;
}

/**
 * parse_bootp() - check and split up the BOOTP message in rep.f
 */
static void parse_bootp(void)
{
	const uint8_t *f = rep.f.data;
	size_t len = rep.f.data_len;

	if (!rep.f.valid || rep.f.eth_type != ETH_P_IP ||
	    rep.f.proto != IPPROTO_UDP || len < 240)
		return;
	rep.bootp_len = len;
	rep.op = f[0];
	rep.xid = be32(f + 4);
	rep.flags = be16(f + 10);
	memcpy(&rep.ciaddr, f + 12, 4);
	memcpy(&rep.yiaddr, f + 16, 4);
	memcpy(rep.chaddr, f + 28, 6);
	if (f[1] != 1 || f[2] != 6 || memcmp(f + 236, "\x63\x82\x53\x63", 4))
		return;
	rep.valid = parse_options(f + 240, len - 240);
}

/**
 * get_reply() - read the reply to the last request, if any
 *
 * Return: 1 if there was exactly one frame, 0 if none (rep.valid = 0)
 */
static int get_reply(void)
{
	int one;

	memset(&rep, 0, sizeof(rep));
	one = frame_one(&rep.f);
	parse_bootp();
	return one;
}

static int opt_is(uint8_t code, const void *val, size_t len)
{
	return rep.opt_count[code] && rep.opt_len[code] == len &&
	       !memcmp(rep.opt[code], val, len);
}

static int opt_addr_is(uint8_t code, const char *addr)
{
	struct in_addr a;

	inet_pton(AF_INET, addr, &a);
	return opt_is(code, &a, 4);
}

/* --- tests ------------------------------------------------------------------- */

static void test_discover(void)
{
	req_start(0x11223344, NULL, 0);
	req_type(1);
	req_opt(55, "\x01\x03\x06\x1a\x77", 5);	/* parameter request list */
	req_end();
	req_send();

	ok(get_reply() && rep.valid,
	   "DISCOVER: one reply, valid Ethernet/IPv4/UDP checksums and BOOTP");
	ok(opt_is(53, "\x02", 1), "DISCOVER: reply is an OFFER");
	ok(!memcmp(rep.f.eth_dst, guest_mac, 6) && addr4_is(rep.f.src4,
	   "203.0.113.2") && addr4_is(rep.f.dst4, "255.255.255.255") &&
	   rep.f.sport == 67 && rep.f.dport == 68,
	   "OFFER: to the guest's MAC, from the gateway to 255.255.255.255, 67 -> 68");
	ok(rep.op == 2 && rep.xid == 0x11223344 &&
	   !memcmp(rep.chaddr, guest_mac, 6) && rep.flags == 0,
	   "OFFER: BOOTREPLY, xid, chaddr and flags echoed");
	ok(addr4_is(rep.yiaddr, "203.0.113.1") &&
	   addr4_is(rep.ciaddr, "0.0.0.0"),
	   "OFFER: yiaddr is the guest's address");
	ok(opt_addr_is(1, "255.255.255.0") && opt_addr_is(3, "203.0.113.2") &&
	   opt_addr_is(54, "203.0.113.2"),
	   "OFFER: subnet mask, router, server identifier");
	ok(opt_is(51, "\xff\xff\xff\xff", 4), "OFFER: infinite lease time");
	ok(opt_is(26, "\xff\xf0", 2), "OFFER: interface MTU 65520");
	ok(opt_is(6, "\xc0\x00\x02\x35\xcb\x00\x71\x02", 8),
	   "OFFER: DNS 192.0.2.53, then 127.0.0.1 offered as the gateway");
	ok(opt_is(119, search_wire, SEARCH_WIRE_LEN),
	   "OFFER: search list in RFC 1035 wire format (RFC 3397)");
	ok(!rep.opt_count[80], "OFFER: no rapid commit option");
	ok(!rep.opt_count[81], "OFFER: no client FQDN option without --fqdn");
	ok(rep.has_end && rep.bootp_len >= 300 && rep.bootp_len <= 548,
	   "OFFER: end option, 300 to 548 bytes (576-byte datagram)");
}

static void test_fqdn(void)
{
	strcpy(c.fqdn, "vm1.example.org.");
	req_start(0x11223345, NULL, 0);
	req_type(1);
	req_end();
	req_send();
	ok(get_reply() && opt_is(81, "\x0c\xff\xff\x03vm1\x07" "example"
				 "\x03org\x00", 20),
	   "OFFER with --fqdn vm1.example.org.: option 81, flags E and N, "
	   "RCODEs 255, the name in wire format (RFC 4702)");
	c.fqdn[0] = 0;
}

static void test_request(void)
{
	union inany_addr a;

	/* SELECTING: server identifier and requested address */
	inany_from_v4(&a, (struct in_addr){ 0 });
	ip_guest_assign(&a);	/* forget any address it used */
	req_start(0x55, NULL, 1);
	req_type(3);
	req_addr_opt(54, "203.0.113.2");
	req_addr_opt(50, "203.0.113.1");
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x05", 1) &&
	   addr4_is(rep.yiaddr, "203.0.113.1") && rep.xid == 0x55 &&
	   opt_is(51, "\xff\xff\xff\xff", 4) && opt_addr_is(1, "255.255.255.0"),
	   "REQUEST (selecting): ACK with the lease");
	ok(rep.flags == 0x8000 && addr4_is(rep.f.dst4, "255.255.255.255"),
	   "ACK: broadcast flag echoed, sent to 255.255.255.255");
	inany_from_v4(&a, c.net.addr4);
	ok(ip_guest_uses(&a),
	   "ACK with a lease: inbound flows go to the leased address");

	/* SELECTING another server's offer: not for us */
	req_start(0x56, NULL, 0);
	req_type(3);
	req_addr_opt(54, "192.0.2.1");
	req_addr_opt(50, "203.0.113.1");
	req_end();
	req_send();
	ok(no_reply(), "REQUEST for another server: no reply");

	/* INIT-REBOOT with someone else's address */
	req_start(0x57, NULL, 0);
	req_type(3);
	req_addr_opt(50, "192.0.2.99");
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x06", 1) &&
	   addr4_is(rep.yiaddr, "0.0.0.0") && !rep.opt_count[51] &&
	   !rep.opt_count[1] && opt_addr_is(54, "203.0.113.2") &&
	   addr4_is(rep.f.dst4, "255.255.255.255"),
	   "REQUEST for a wrong address: NAK, broadcast, no lease");

	/* RENEWING: ciaddr, no option 50, unicast */
	req_start(0x58, "203.0.113.1", 0);
	req_type(3);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x05", 1) &&
	   addr4_is(rep.f.dst4, "203.0.113.1") &&
	   addr4_is(rep.ciaddr, "203.0.113.1") &&
	   addr4_is(rep.yiaddr, "203.0.113.1"),
	   "REQUEST (renewing): ACK unicast to ciaddr");

	/* RENEWING the wrong address */
	req_start(0x59, "192.0.2.7", 0);
	req_type(3);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x06", 1) &&
	   addr4_is(rep.f.dst4, "255.255.255.255"),
	   "REQUEST (renewing) for a wrong ciaddr: NAK, broadcast");
}

static void test_other_types(void)
{
	req_start(0x60, NULL, 0);
	req_type(1);
	req_opt(80, NULL, 0);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x05", 1) &&
	   opt_is(80, "", 0) && addr4_is(rep.yiaddr, "203.0.113.1") &&
	   opt_is(51, "\xff\xff\xff\xff", 4),
	   "DISCOVER with rapid commit: ACK with option 80 (RFC 4039)");

	req_start(0x61, "203.0.113.1", 0);
	req_type(8);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x05", 1) &&
	   addr4_is(rep.yiaddr, "0.0.0.0") && !rep.opt_count[51] &&
	   opt_addr_is(3, "203.0.113.2") && addr4_is(rep.f.dst4, "203.0.113.1"),
	   "INFORM: ACK with configuration, no lease, unicast");

	req_start(0x62, "203.0.113.1", 0);
	req_type(7);
	req_end();
	req_send();
	ok(no_reply() && !pkt_drops[DROP_DHCP_MALFORMED],
	   "RELEASE: no reply, not a drop");

	req_start(0x63, NULL, 0);
	req_type(1);
	req_send();		/* no end option */
	ok(get_reply() && rep.valid && opt_is(53, "\x02", 1),
	   "missing end option tolerated");

	req_start(0x64, NULL, 0);
	msg[msg_len++] = 0;	/* pads around the options */
	req_type(1);
	msg[msg_len++] = 0;
	req_opt(52, "\x03", 1);	/* overload: ignored */
	req_end();
	msg[msg_len++] = 53;	/* garbage after the end: not read */
	req_send();
	ok(get_reply() && rep.valid && opt_is(53, "\x02", 1),
	   "pad options, overload ignored, nothing read after the end option");
}

/* Every malformed message: counter + 1, no reply */
static void expect_malformed(const char *desc)
{
	uint64_t before = pkt_drops[DROP_DHCP_MALFORMED];

	req_send();
	okf(dropped_silently(DROP_DHCP_MALFORMED, before, 1),
	    "malformed, dropped, no reply: %s", desc);
}

static void test_malformed(void)
{
	req_start(1, NULL, 0);
	msg_len = 0;
	expect_malformed("zero-length payload");

	req_start(1, NULL, 0);
	msg_len = 100;
	expect_malformed("truncated header (100 bytes)");

	req_start(1, NULL, 0);
	msg_len = 239;
	expect_malformed("truncated cookie (239 bytes)");

	req_start(1, NULL, 0);
	msg[238] = 0x54;
	req_type(1);
	req_end();
	expect_malformed("bad magic cookie");

	req_start(1, NULL, 0);
	msg[2] = 16;
	req_type(1);
	req_end();
	expect_malformed("hlen 16");

	req_start(1, NULL, 0);
	msg[1] = 6;
	req_type(1);
	req_end();
	expect_malformed("htype 6 (IEEE 802)");

	req_start(1, NULL, 0);
	msg[0] = 2;
	req_type(1);
	req_end();
	expect_malformed("op BOOTREPLY");

	req_start(1, NULL, 0);
	req_type(1);
	msg[msg_len++] = 12;	/* host name, length past the end */
	msg[msg_len++] = 10;
	memcpy(msg + msg_len, "guest", 5);
	msg_len += 5;
	expect_malformed("option length past the end");

	req_start(1, NULL, 0);
	req_type(1);
	msg[msg_len++] = 12;	/* code, then nothing */
	expect_malformed("option code without a length at the end");

	req_start(1, NULL, 0);
	req_opt(53, "\x01\x01", 2);
	req_end();
	expect_malformed("option 53 with length 2");

	req_start(1, NULL, 0);
	req_opt(53, NULL, 0);
	req_end();
	expect_malformed("option 53 with length 0");

	req_start(1, NULL, 0);
	req_type(3);
	req_opt(50, "\xcb\x00\x71", 3);
	req_end();
	expect_malformed("option 50 with length 3");

	req_start(1, NULL, 0);
	req_type(3);
	req_opt(54, "\xcb\x00\x71\x02\x00", 5);
	req_end();
	expect_malformed("option 54 with length 5");

	req_start(1, NULL, 0);
	req_type(1);
	req_opt(57, "\x05", 1);
	req_end();
	expect_malformed("option 57 with length 1");

	req_start(1, NULL, 0);
	req_type(1);
	req_opt(80, "\x00", 1);
	req_end();
	expect_malformed("option 80 with length 1");

	req_start(1, NULL, 0);
	req_type(1);
	req_type(3);
	req_end();
	expect_malformed("option 53 twice");

	req_start(1, NULL, 0);
	req_opt(12, "guest", 5);
	req_end();
	expect_malformed("no message type (plain BOOTP)");
}

static void test_sizes(void)
{
	static const char *const long_names[] = {
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com",
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.example.com",
		"cccccccccccccccccccccccccccccccccccccccccccccccccc.example.com.",
		"dddddddddddddddddddddddddddddddddddddddddddddddddd.example.com",
		"bad..example.com",
		"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee.example.com",
	};
	struct ctx saved = c;
	size_t i, want = 0;

	c.dns_opt.search_n = 6;
	for (i = 0; i < 6; i++) {
		strcpy(c.dns_opt.search[i], long_names[i]);
		if (i != 4)
			want += strlen(long_names[i]) + 2 - (i == 2);
	}
	resolv_conf_file(&c, NULL);

	req_start(0x70, NULL, 0);
	req_type(1);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && !rep.opt_count[119] &&
	   opt_addr_is(1, "255.255.255.0") && opt_is(26, "\xff\xf0", 2) &&
	   rep.bootp_len <= 548,
	   "576-byte limit: search list left out, the rest sent");

	req_start(0x71, NULL, 0);
	req_type(1);
	req_opt(57, "\x05\xdc", 2);	/* 1500 */
	req_end();
	req_send();
	ok(get_reply() && rep.valid && rep.opt_count[119] == 2 &&
	   rep.opt_len[119] == want && rep.opt[119][0] == 51 &&
	   rep.bootp_len <= 1472,
	   "option 57 = 1500: search list over 255 bytes, in two pieces (RFC 3396), invalid name left out");

	c.mtu = 600;
	req_start(0x72, NULL, 0);
	req_type(1);
	req_opt(57, "\x05\xdc", 2);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && !rep.opt_count[119] &&
	   opt_is(26, "\x02\x58", 2) && rep.bootp_len <= 600 - 28,
	   "MTU 600 below option 57: reply fits the MTU, search list left out");

	c = saved;
	resolv_conf_file(&c, NULL);
	c.no_dhcp_dns = true;
	c.no_dhcp_search = true;
	req_start(0x73, NULL, 0);
	req_type(1);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && !rep.opt_count[6] && !rep.opt_count[119],
	   "--no-dhcp-dns, --no-dhcp-search: no options 6 and 119");

	/* pasta's default, and either of --dhcp-dns, --dhcp-search */
	c = saved;
	c.no_dhcp_search = true;
	req_start(0x74, NULL, 0);
	req_type(1);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && rep.opt_count[6] && !rep.opt_count[119],
	   "name servers without the search list: option 6, no option 119");
	c = saved;
	c.no_dhcp_dns = true;
	req_start(0x75, NULL, 0);
	req_type(1);
	req_end();
	req_send();
	ok(get_reply() && rep.valid && !rep.opt_count[6] && rep.opt_count[119],
	   "the search list without name servers: option 119, no option 6");
	c = saved;
}

/* Random options after a valid header: under ASan, nothing may read past
 * the end; each message is either dropped or answered, once
 */
static void test_random(void)
{
	int i, bad = 0, answered = 0;

	srand(5);
	for (i = 0; i < 20000; i++) {
		uint64_t before = pkt_drops[DROP_DHCP_MALFORMED];
		size_t n = rand() % 64, j;

		req_start(i, (i & 1) ? "203.0.113.1" : NULL, i & 2);
		if (i & 4)
			req_type(1 + rand() % 8);
		for (j = 0; j < n; j++)
			msg[msg_len++] = (i & 8) ? rand() % 8 : rand();
		if (i & 16)
			msg_len = rand() % msg_len;
		req_send();
		bad += !replies_ok(pkt_drops[DROP_DHCP_MALFORMED] != before,
				   &answered);
	}
	ok(!bad && answered > 100,
	   "20000 random messages: no reply to a dropped one, at most one reply");
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_resolv(void)
{
	char path[] = "/tmp/unit_dhcp_resolv.XXXXXX", longline[6000];
	const struct dns_offer *o = resolv_offer();
	int fd = mkstemp(path);
	struct ctx t;

	close(fd);
	memset(longline, 'x', sizeof(longline));
	memcpy(longline, "search ", 7);
	longline[sizeof(longline) - 2] = '\n';
	longline[sizeof(longline) - 1] = '\0';

	memset(&t, 0, sizeof(t));
	/* The gateway stands for the host's loopback, as conf() sets it */
	inany_from_v4(&t.net.map_host_lo[INANY_V4], c.net.gw4);
	write_file(path, "# comment\n; nameserver 192.0.2.9\n"
			 "nameserver 2001:db8::1\n"
			 "nameserver 127.0.0.53\n"
			 "nameserver\n"
			 "nameserver 192.0.2.1\n"
			 "  nameserver\t127.0.0.1  # local\n"
			 "search old.example\n"
			 "nameserver 192.0.2.3\n"
			 "nameserver 192.0.2.4\n"
			 "options edns0\n"
			 "search example.com. lab.example.org . a b c d e f g\n");
	resolv_conf_file(&t, path);
	ok(o->dns4_n == 3 && addr4_is(o->dns4[0], "192.0.2.1") &&
	   addr4_is(o->dns4[1], "127.0.0.1") &&
	   addr4_is(o->dns4[2], "192.0.2.3"),
	   "resolv.conf: IPv4 servers, 127.0.0.53 and IPv6 skipped, at most 3");
	ok(o->search_n == 6 && !strcmp(o->search[0], "example.com") &&
	   !strcmp(o->search[1], "lab.example.org") &&
	   !strcmp(o->search[2], "a") && !strcmp(o->search[5], "d"),
	   "resolv.conf: last search line wins, trailing dot and '.' dropped, at most 6");

	memset(&t, 0, sizeof(t));
	write_file(path, "search one.example two.example\ndomain three.example\n");
	resolv_conf_file(&t, path);
	ok(o->search_n == 1 && !strcmp(o->search[0], "three.example") &&
	   o->dns4_n == 0, "resolv.conf: a later domain line replaces search");

	memset(&t, 0, sizeof(t));
	t.no_map_gw = true;
	write_file(path, "nameserver 127.0.0.1\nnameserver 0.0.0.0\n");
	resolv_conf_file(&t, path);
	ok(o->dns4_n == 0, "resolv.conf: 127.0.0.1 skipped with --no-map-gw, 0.0.0.0 skipped");

	memset(&t, 0, sizeof(t));
	t.dns_opt.dns4_n = 1;
	inet_pton(AF_INET, "192.0.2.200", &t.dns_opt.dns4[0]);
	t.no_dhcp_search = true;
	write_file(path, "nameserver 192.0.2.1\nsearch example.com\n");
	resolv_conf_file(&t, path);
	ok(o->dns4_n == 1 && addr4_is(o->dns4[0], "192.0.2.200") &&
	   o->search_n == 0,
	   "resolv.conf: -D servers kept, --no-dhcp-search honoured");

	memset(&t, 0, sizeof(t));
	{
		FILE *f = fopen(path, "w");

		fputs(longline, f);
		fputs("nameserver 192.0.2.5\n", f);
		fclose(f);
	}
	resolv_conf_file(&t, path);
	ok(o->search_n == 0 && o->dns4_n == 1 &&
	   addr4_is(o->dns4[0], "192.0.2.5"),
	   "resolv.conf: over-long line skipped whole, next line read");

	unlink(path);
	memset(&t, 0, sizeof(t));
	resolv_conf_file(&t, path);
	ok(o->dns4_n == 0 && o->search_n == 0, "resolv.conf missing: nothing set");
	resolv_conf_file(&c, NULL);
}

int main(void)
{
	log_setup(false, true);		/* info() lines would clutter TAP */
	tap_peer_open(&c);	/* link_send(): one write() per frame */
	c.mtu = 65520;
	inet_pton(AF_INET, "203.0.113.1", &c.net.addr4);
	inet_pton(AF_INET, "203.0.113.2", &c.net.gw4);
	inany_from_v4(&c.net.map_host_lo[INANY_V4], c.net.gw4);
	c.net.prefix4 = 24;
	ip_net_init(&c);
	memcpy(c.mac_ours, "\x02\x70\x61\x73\x74\x61", 6);
	link_guest_mac_seen(guest_mac);
	c.dns_opt.dns4_n = 2;
	inet_pton(AF_INET, "192.0.2.53", &c.dns_opt.dns4[0]);
	inet_pton(AF_INET, "127.0.0.1", &c.dns_opt.dns4[1]);
	search_list_set(&c);
	resolv_conf_file(&c, NULL);

	test_discover();
	test_fqdn();
	test_request();
	test_other_types();
	test_malformed();
	test_sizes();
	test_random();
	test_resolv();

	return tests_done();
}
