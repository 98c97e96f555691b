// SPDX-License-Identifier: GPL-2.0-or-later
/* unit_netlink.c - netlink.c against the kernel, in a throwaway namespace
 *
 * Run as: unshare -rn ./test/unit_netlink
 *
 * This changes the configuration of the namespace it runs in: lo goes up and
 * gets addresses and default routes. It refuses to go on (TAP "Bail out!")
 * if the namespace already has a default route, which a fresh one from
 * unshare -rn never has. Only lo is used, no other link is created.
 *
 * The kernel refuses an IPv6 route with a gateway on a loopback interface,
 * whatever the prefix or onlink flag (ip6_validate_gw() in net/ipv6/route.c):
 * -EHOSTUNREACH, as IPv6 routes on lo are reject routes inside the kernel so
 * the gateway looks unreachable, or -EINVAL ("Egress device can not be
 * loopback device for this route") when the lookup is skipped. So we check
 * that nl_route_add_default() via 2001:db8::1 on lo is refused, then add and
 * read back a direct IPv6 default route on lo (gateway ::).
 * The IPv4 default route via 192.0.2.1 works once lo has 192.0.2.7/24.
 *
 * A missing link is reported as -ENODEV (as the kernel's rtnl_getlink() does).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inany.h"
#include "netlink.h"
#include "util.h"

#define TESTS_PLANNED		48
#define FILLER_ADDRS		1024	/* enough for a multi-datagram dump */
#define NO_SUCH_IFI		4242

static int tests_run, tests_failed;

/**
 * vok() - report one TAP test result
 * @pass:	whether the test passed
 * @fmt:	description, printf-style
 * @ap:		arguments for @fmt
 *
 * Return: @pass
 */
static bool vok(bool pass, const char *fmt, va_list ap)
{
	printf("%sok %d - ", pass ? "" : "not ", ++tests_run);
	vprintf(fmt, ap);
	putchar('\n');

	if (!pass)
		tests_failed++;
	return pass;
}

/**
 * ok() - report one TAP test result
 * @pass:	whether the test passed
 * @fmt:	description, printf-style
 *
 * Return: @pass
 */
__attribute__((format(printf, 2, 3)))
static bool ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = vok(pass, fmt, ap);
	va_end(ap);
	return pass;
}

/**
 * ok_rc() - report a test on a return code, with a diagnostic on failure
 * @got:	value returned
 * @want:	value expected
 * @fmt:	description, printf-style
 *
 * Return: true if @got is @want
 */
__attribute__((format(printf, 3, 4)))
static bool ok_rc(int got, int want, const char *fmt, ...)
{
	va_list ap;
	bool pass;

	va_start(ap, fmt);
	pass = vok(got == want, fmt, ap);
	va_end(ap);

	if (!pass)
		printf("# got %d (%s), expected %d (%s)\n", got,
		       got < 0 ? strerror(-got) : "-", want,
		       want < 0 ? strerror(-want) : "-");
	return pass;
}

static void bail_out(const char *why)
{
	printf("Bail out! %s\n", why);
	exit(EXIT_FAILURE);
}

/**
 * addr() - an address of either family from text
 * @s:		IPv4 or IPv6 address
 *
 * Return: @s as union inany_addr, IPv4 addresses IPv4-mapped
 */
static union inany_addr addr(const char *s)
{
	union inany_addr a;
	struct in_addr v4;

	if (inet_pton(AF_INET, s, &v4) == 1)
		inany_from_v4(&a, v4);
	else if (inet_pton(AF_INET6, s, &a.a6) != 1)
		bail_out("bad address in test");
	return a;
}

static const char *str(const union inany_addr *a)
{
	static char buf[INANY_STRLEN];

	return inany_ntop(a, buf, sizeof(buf));
}

static const char *af_name(int af)
{
	return af == AF_INET ? "AF_INET" : "AF_INET6";
}

/**
 * ok_addr() - test that nl_addr_get() finds an address on a link
 * @nl:		netlink socket
 * @ifi:	interface index
 * @want:	address expected, its family is the one asked for
 * @want_plen:	prefix length expected
 * @fmt:	description, printf-style
 *
 * Return: true if nl_addr_get() found @want/@want_plen
 */
__attribute__((format(printf, 5, 6)))
static bool ok_addr(int nl, unsigned int ifi, const char *want, int want_plen,
		    const char *fmt, ...)
{
	union inany_addr a = addr(want), got;
	int plen = -1, rc;
	va_list ap;
	bool pass;

	memset(&got, 0xff, sizeof(got));
	rc = nl_addr_get(nl, inany_family(&a), ifi, NULL, &got, &plen);

	va_start(ap, fmt);
	pass = vok(!rc && inany_equals(&got, &a) && plen == want_plen, fmt, ap);
	va_end(ap);

	if (!pass)
		printf("# rc %d, got %s/%d\n", rc, str(&got), plen);
	return pass;
}

/**
 * ok_route() - test that nl_default_route() finds a route via a gateway
 * @nl:		netlink socket
 * @ifi:	output interface expected
 * @gw:		gateway expected, its family is the one asked for; 0.0.0.0 or
 *		:: for a direct route
 * @fmt:	description, printf-style
 *
 * Return: true if nl_default_route() found a route on @ifi via @gw
 */
__attribute__((format(printf, 4, 5)))
static bool ok_route(int nl, unsigned int ifi, const char *gw,
		     const char *fmt, ...)
{
	union inany_addr want = addr(gw), got;
	unsigned int got_ifi = 0;
	va_list ap;
	bool pass;
	int rc;

	memset(&got, 0xff, sizeof(got));
	rc = nl_default_route(nl, inany_family(&want), &got_ifi, &got);

	va_start(ap, fmt);
	pass = vok(!rc && got_ifi == ifi && inany_equals(&got, &want), fmt, ap);
	va_end(ap);

	if (!pass)
		printf("# rc %d, got ifindex %u via %s\n", rc, got_ifi,
		       str(&got));
	return pass;
}

static void test_link(int nl, unsigned int lo)
{
	char longname[64];
	int mtu;

	ok_rc(nl_link_index(nl, "nonexistent0"), -ENODEV,
	      "nl_link_index() of a missing link is -ENODEV");

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ok_rc(nl_link_index(nl, longname), -EINVAL,
	      "nl_link_index() of a name longer than IFNAMSIZ is -EINVAL");

	ok_rc(nl_link_set_up(nl, lo, 0), 0, "nl_link_set_up(lo, mtu 0)");
	ok_rc(nl_link_set_up(nl, 0, 0), -EINVAL,
	      "nl_link_set_up() of index 0 is -EINVAL");

	mtu = nl_link_mtu_get(nl, lo);
	if (!ok(mtu > 0, "nl_link_mtu_get(lo) > 0"))
		printf("# got %d\n", mtu);

	ok_rc(nl_link_mtu_get(nl, NO_SUCH_IFI), -ENODEV,
	      "nl_link_mtu_get() of a missing link is -ENODEV");
}

/**
 * test_addr() - add an address of global scope to lo, read it back
 * @nl:		netlink socket
 * @lo:		index of lo
 * @host:	loopback address lo already has, of host scope
 * @a:		address to add
 * @plen:	its prefix length
 */
static void test_addr(int nl, unsigned int lo, const char *host,
		      const char *a, int plen)
{
	union inany_addr want = addr(a), got;
	int af = inany_family(&want), got_plen;

	ok_rc(nl_addr_get(nl, af, lo, NULL, &got, &got_plen), -ENOENT,
	      "nl_addr_get(%s, lo) skips %s (host scope): -ENOENT",
	      af_name(af), host);
	ok_rc(nl_addr_add(nl, lo, &want, plen), 0,
	      "nl_addr_add(lo, %s/%d)", a, plen);
	ok_rc(nl_addr_add(nl, lo, &want, plen), -EEXIST,
	      "nl_addr_add() of %s/%d again is -EEXIST", a, plen);
	ok_addr(nl, lo, a, plen, "nl_addr_get(%s, lo) reads back %s/%d",
		af_name(af), a, plen);
}

/* What only the IPv4 half checks: a prefix too long, and a missing link */
static void test_addr_invalid(int nl, unsigned int lo)
{
	union inany_addr a = addr("192.0.2.7"), got;
	int plen;

	ok_rc(nl_addr_add(nl, lo, &a, 33), -EINVAL,
	      "nl_addr_add() of an IPv4 address with prefix length 33 is "
	      "-EINVAL");
	ok_rc(nl_addr_get(nl, AF_INET, NO_SUCH_IFI, NULL, &got, &plen), -ENOENT,
	      "nl_addr_get(AF_INET) on a missing link is -ENOENT");
}

/**
 * test_route_add() - add a default route on lo, read it back
 * @nl:		netlink socket
 * @lo:		index of lo
 * @gw:		gateway, 0.0.0.0 or :: for a direct route
 */
static void test_route_add(int nl, unsigned int lo, const char *gw)
{
	union inany_addr a = addr(gw);
	const char *how = inany_is_unspecified(&a) ? "direct," : "via";

	ok_rc(nl_route_add_default(nl, lo, &a), 0,
	      "nl_route_add_default(lo, %s %s)", how, gw);
	ok_rc(nl_route_add_default(nl, lo, &a), -EEXIST,
	      "nl_route_add_default(lo, %s %s) again is -EEXIST", how, gw);
	ok_route(nl, lo, gw, "nl_default_route(%s) reads back lo, gateway %s",
		 af_name(inany_family(&a)), gw);
}

/**
 * monitor_settle() - drain notifications until none came for 200 ms
 * @mon:	socket from nl_monitor_open()
 *
 * The kernel announces an IPv6 address again (RTM_NEWADDR) once its
 * duplicate address detection is over, skipped or not (nodad, lo), from a
 * workqueue: whenever that runs, under load seconds later. Bounded: 5 s.
 */
static void monitor_settle(int mon)
{
	int quiet = 0, i;

	for (i = 0; i < 100 && quiet < 4; i++) {
		quiet = nl_monitor_drain(mon) ? 0 : quiet + 1;
		usleep(50 * 1000);
	}
}

/**
 * test_follow() - what follow.c uses: preferred address, list, removal,
 * route replacement, notifications
 * @nl:		netlink socket
 * @lo:		index of lo, with 192.0.2.7/24 and a route via 192.0.2.1
 */
static void test_follow(int nl, unsigned int lo)
{
	union inany_addr a8 = addr("192.0.2.8"), gw = addr("192.0.2.2");
	union inany_addr got, list[8];
	unsigned int ifi = 0;
	int mon, plen, n;

	mon = nl_monitor_open();
	ok(mon >= 0, "nl_monitor_open()");
	ok_rc(nl_addr_add(nl, lo, &a8, 24), 0, "nl_addr_add(lo, 192.0.2.8/24)");
	ok(!nl_addr_get(nl, AF_INET, lo, NULL, &got, &plen) &&
	   !strcmp(str(&got), "192.0.2.7"),
	   "nl_addr_get() without a preference: the first, 192.0.2.7");
	ok(!nl_addr_get(nl, AF_INET, lo, &a8, &got, &plen) &&
	   !strcmp(str(&got), "192.0.2.8") && plen == 24,
	   "nl_addr_get() preferring 192.0.2.8: 192.0.2.8/24");
	n = nl_addr_list(nl, AF_INET, list, ARRAY_SIZE(list));
	ok(n == 3, "nl_addr_list(AF_INET): 127.0.0.1, .7 and .8 (%d)", n);
	ok_rc(nl_addr_del(nl, lo, &a8, 24), 0, "nl_addr_del(lo, 192.0.2.8/24)");
	ok_rc(nl_addr_del(nl, lo, &a8, 24), -EADDRNOTAVAIL,
	      "nl_addr_del() of it again is -EADDRNOTAVAIL");
	ok_rc(nl_route_replace_default(nl, lo, &gw), 0,
	      "nl_route_replace_default(lo, via 192.0.2.2)");
	ok(!nl_default_route(nl, AF_INET, &ifi, &got) &&
	   !strcmp(str(&got), "192.0.2.2"),
	   "nl_default_route(AF_INET) reads back the replaced gateway");
	gw = addr("192.0.2.1");
	nl_route_replace_default(nl, lo, &gw);
	if (mon < 0)
		return;
	ok(nl_monitor_drain(mon) > 0, "nl_monitor_drain(): notifications");
	monitor_settle(mon);
	ok_rc(nl_monitor_drain(mon), 0, "nl_monitor_drain() again: none left");
	ok(!system("ip route add 198.51.100.0/24 via 192.0.2.1 dev lo"),
	   "a route that isn't a default one added (ip route)");
	ok_rc(nl_monitor_drain(mon), 0,
	      "nl_monitor_drain(): that one isn't counted");
	close(mon);
}

/* The kernel takes no IPv6 gateway on lo: see the top of this file */
static void test_route6_gw(int nl, unsigned int lo)
{
	union inany_addr gw = addr("2001:db8::1"), got;
	unsigned int ifi = 0;
	int rc;

	rc = nl_route_add_default(nl, lo, &gw);
	if (!ok(rc == -EHOSTUNREACH || rc == -EINVAL,
		"nl_route_add_default(lo, via 2001:db8::1) is refused: "
		"no IPv6 gateway on loopback"))
		printf("# got %d, expected -EHOSTUNREACH or -EINVAL\n", rc);
	ok_rc(nl_default_route(nl, AF_INET6, &ifi, &got), -ENOENT,
	      "nl_default_route(AF_INET6) after the refused route is -ENOENT");
}

/* Each address is about 80 bytes in an RTM_GETADDR dump, and each adds a
 * local route: with FILLER_ADDRS of them, neither dump fits one 64 KiB
 * receive buffer, so it takes several datagrams.
 */
static void test_multipart(int nl, unsigned int lo)
{
	union inany_addr a, got;
	int i, rc = 0, plen = -1;

	for (i = 0; i < FILLER_ADDRS && !rc; i++) {
		struct in_addr v4 = {
			htonl(0x0a000000 | (uint32_t)(i + 1))
		};

		inany_from_v4(&a, v4);
		rc = nl_addr_add(nl, lo, &a, 32);
	}
	if (!ok(!rc, "added %d more addresses to lo", FILLER_ADDRS))
		printf("# address %d: %s\n", i, strerror(-rc));

	ok_addr(nl, lo, "192.0.2.7", 24,
		"nl_addr_get(AF_INET, lo) in a multi-part dump finds "
		"192.0.2.7/24");

	ok_rc(nl_addr_get(nl, AF_INET, NO_SUCH_IFI, NULL, &got, &plen), -ENOENT,
	      "nl_addr_get(AF_INET) reads a whole multi-part dump to -ENOENT");

	ok_route(nl, lo, "192.0.2.1",
		 "nl_default_route(AF_INET) with %d local routes",
		 FILLER_ADDRS);

	/* A request right after an early match: the dump was drained */
	rc = nl_addr_get(nl, AF_INET, lo, NULL, &got, &plen);
	rc = rc ? rc : nl_link_mtu_get(nl, lo);
	ok(rc > 0, "requests after an early match in a dump still work");
}

static void test_mtu(int nl, unsigned int lo)
{
	ok_rc(nl_link_set_up(nl, lo, 1500), 0, "nl_link_set_up(lo, mtu 1500)");
	ok_rc(nl_link_mtu_get(nl, lo), 1500, "nl_link_mtu_get(lo) is 1500");
}

int main(void)
{
	static const int afs[] = { AF_INET, AF_INET6 };
	union inany_addr gw;
	unsigned int ifi;
	size_t i;
	int nl, lo;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", TESTS_PLANNED);

	nl = nl_open();
	if (!ok(nl >= 0, "nl_open()"))
		bail_out(strerror(-nl));

	/* Don't touch a namespace that looks configured, e.g. the host's */
	for (i = 0; i < ARRAY_SIZE(afs); i++) {
		if (!ok_rc(nl_default_route(nl, afs[i], &ifi, &gw), -ENOENT,
			   "nl_default_route(%s) in a fresh namespace is "
			   "-ENOENT", af_name(afs[i])))
			bail_out("namespace has a default route: "
				 "run as unshare -rn ./test/unit_netlink");
	}

	lo = nl_link_index(nl, "lo");
	if (!ok(lo > 0, "nl_link_index(lo) > 0"))
		bail_out(strerror(-lo));

	test_link(nl, lo);
	test_addr(nl, lo, "127.0.0.1", "192.0.2.7", 24);
	test_addr_invalid(nl, lo);
	test_addr(nl, lo, "::1", "2001:db8::7", 64);
	test_route_add(nl, lo, "192.0.2.1");
	test_route6_gw(nl, lo);
	test_route_add(nl, lo, "::");
	test_follow(nl, lo);
	test_multipart(nl, lo);
	test_mtu(nl, lo);

	close(nl);

	if (tests_run != TESTS_PLANNED) {
		printf("# planned %d tests, ran %d\n", TESTS_PLANNED,
		       tests_run);
		return EXIT_FAILURE;
	}
	return tests_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
