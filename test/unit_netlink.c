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
 * that nl_route6_add_default() via 2001:db8::1 on lo is refused, then add and
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

#include "netlink.h"

#define TESTS_PLANNED		35
#define FILLER_ADDRS		1024	/* enough for a multi-datagram dump */
#define NO_SUCH_IFI		4242

static int tests_run, tests_failed;

/**
 * ok() - report one TAP test result
 * @pass:	whether the test passed
 * @fmt:	description, printf-style
 *
 * Return: @pass
 */
static bool ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", pass ? "" : "not ", ++tests_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');

	if (!pass)
		tests_failed++;
	return pass;
}

/**
 * ok_rc() - report a test on a return code, with a diagnostic on failure
 * @got:	value returned
 * @want:	value expected
 * @what:	description
 *
 * Return: true if @got is @want
 */
static bool ok_rc(int got, int want, const char *what)
{
	bool pass = ok(got == want, "%s", what);

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

static const char *str4(struct in_addr a)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

static const char *str6(const struct in6_addr *a)
{
	static char buf[INET6_ADDRSTRLEN];

	return inet_ntop(AF_INET6, a, buf, sizeof(buf));
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

static void test_addr4(int nl, unsigned int lo)
{
	struct in_addr want, got = { 0 };
	int plen = -1, rc;

	inet_pton(AF_INET, "192.0.2.7", &want);

	ok_rc(nl_addr4_get(nl, lo, &got, &plen), -ENOENT,
	      "nl_addr4_get(lo) skips 127.0.0.1 (host scope): -ENOENT");
	ok_rc(nl_addr4_add(nl, lo, want, 24), 0,
	      "nl_addr4_add(lo, 192.0.2.7/24)");
	ok_rc(nl_addr4_add(nl, lo, want, 24), -EEXIST,
	      "nl_addr4_add() of the same address again is -EEXIST");
	ok_rc(nl_addr4_add(nl, lo, want, 33), -EINVAL,
	      "nl_addr4_add() with prefix length 33 is -EINVAL");

	rc = nl_addr4_get(nl, lo, &got, &plen);
	if (!ok(!rc && got.s_addr == want.s_addr && plen == 24,
		"nl_addr4_get(lo) reads back 192.0.2.7/24"))
		printf("# rc %d, got %s/%d\n", rc, str4(got), plen);

	ok_rc(nl_addr4_get(nl, NO_SUCH_IFI, &got, &plen), -ENOENT,
	      "nl_addr4_get() on a missing link is -ENOENT");
}

static void test_addr6(int nl, unsigned int lo)
{
	struct in6_addr want, got = IN6ADDR_ANY_INIT;
	int plen = -1, rc;

	inet_pton(AF_INET6, "2001:db8::7", &want);

	ok_rc(nl_addr6_get(nl, lo, &got, &plen), -ENOENT,
	      "nl_addr6_get(lo) skips ::1 (host scope): -ENOENT");
	ok_rc(nl_addr6_add(nl, lo, &want, 64), 0,
	      "nl_addr6_add(lo, 2001:db8::7/64)");
	ok_rc(nl_addr6_add(nl, lo, &want, 64), -EEXIST,
	      "nl_addr6_add() of the same address again is -EEXIST");

	rc = nl_addr6_get(nl, lo, &got, &plen);
	if (!ok(!rc && IN6_ARE_ADDR_EQUAL(&got, &want) && plen == 64,
		"nl_addr6_get(lo) reads back 2001:db8::7/64"))
		printf("# rc %d, got %s/%d\n", rc, str6(&got), plen);
}

static void test_route4(int nl, unsigned int lo)
{
	struct in_addr gw, got = { 0 };
	unsigned int ifi = 0;
	int rc;

	inet_pton(AF_INET, "192.0.2.1", &gw);

	ok_rc(nl_route4_add_default(nl, lo, gw), 0,
	      "nl_route4_add_default(lo, via 192.0.2.1)");
	ok_rc(nl_route4_add_default(nl, lo, gw), -EEXIST,
	      "nl_route4_add_default() of the same route again is -EEXIST");

	rc = nl_default_route4(nl, &ifi, &got);
	if (!ok(!rc && ifi == lo && got.s_addr == gw.s_addr,
		"nl_default_route4() reads back lo via 192.0.2.1"))
		printf("# rc %d, got ifindex %u via %s\n", rc, ifi, str4(got));
}

static void test_route6(int nl, unsigned int lo)
{
	struct in6_addr gw, got;
	unsigned int ifi = 0;
	int rc;

	inet_pton(AF_INET6, "2001:db8::1", &gw);

	rc = nl_route6_add_default(nl, lo, &gw);
	if (!ok(rc == -EHOSTUNREACH || rc == -EINVAL,
		"nl_route6_add_default(lo, via 2001:db8::1) is refused: "
		"no IPv6 gateway on loopback"))
		printf("# got %d, expected -EHOSTUNREACH or -EINVAL\n", rc);
	ok_rc(nl_default_route6(nl, &ifi, &got), -ENOENT,
	      "nl_default_route6() after the refused route is -ENOENT");
	ok_rc(nl_route6_add_default(nl, lo, &in6addr_any), 0,
	      "nl_route6_add_default(lo, direct)");
	ok_rc(nl_route6_add_default(nl, lo, &in6addr_any), -EEXIST,
	      "nl_route6_add_default() of the same route again is -EEXIST");

	memset(&got, 0xff, sizeof(got));
	rc = nl_default_route6(nl, &ifi, &got);
	if (!ok(!rc && ifi == lo && IN6_IS_ADDR_UNSPECIFIED(&got),
		"nl_default_route6() reads back lo, gateway ::"))
		printf("# rc %d, got ifindex %u via %s\n", rc, ifi, str6(&got));
}

/* Each address is about 80 bytes in an RTM_GETADDR dump, and each adds a
 * local route: with FILLER_ADDRS of them, neither dump fits one 64 KiB
 * receive buffer, so it takes several datagrams.
 */
static void test_multipart(int nl, unsigned int lo)
{
	struct in_addr a, want, got4 = { 0 }, gw;
	unsigned int ifi = 0;
	int i, rc = 0, plen = -1;

	for (i = 0; i < FILLER_ADDRS && !rc; i++) {
		a.s_addr = htonl(0x0a000000 | (uint32_t)(i + 1));
		rc = nl_addr4_add(nl, lo, a, 32);
	}
	if (!ok(!rc, "added %d more addresses to lo", FILLER_ADDRS))
		printf("# address %d: %s\n", i, strerror(-rc));

	inet_pton(AF_INET, "192.0.2.7", &want);
	rc = nl_addr4_get(nl, lo, &got4, &plen);
	if (!ok(!rc && got4.s_addr == want.s_addr && plen == 24,
		"nl_addr4_get(lo) in a multi-part dump finds 192.0.2.7/24"))
		printf("# rc %d, got %s/%d\n", rc, str4(got4), plen);

	ok_rc(nl_addr4_get(nl, NO_SUCH_IFI, &got4, &plen), -ENOENT,
	      "nl_addr4_get() reads a whole multi-part dump to -ENOENT");

	inet_pton(AF_INET, "192.0.2.1", &gw);
	rc = nl_default_route4(nl, &ifi, &got4);
	if (!ok(!rc && ifi == lo && got4.s_addr == gw.s_addr,
		"nl_default_route4() with %d local routes", FILLER_ADDRS))
		printf("# rc %d, got ifindex %u via %s\n", rc, ifi, str4(got4));

	/* A request right after an early match: the dump was drained */
	rc = nl_addr4_get(nl, lo, &got4, &plen);
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
	struct in6_addr gw6;
	struct in_addr gw4;
	unsigned int ifi;
	int nl, lo;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%d\n", TESTS_PLANNED);

	nl = nl_open();
	if (!ok(nl >= 0, "nl_open()"))
		bail_out(strerror(-nl));

	/* Don't touch a namespace that looks configured, e.g. the host's */
	if (!ok_rc(nl_default_route4(nl, &ifi, &gw4), -ENOENT,
		   "nl_default_route4() in a fresh namespace is -ENOENT") ||
	    !ok_rc(nl_default_route6(nl, &ifi, &gw6), -ENOENT,
		   "nl_default_route6() in a fresh namespace is -ENOENT"))
		bail_out("namespace has a default route: "
			 "run as unshare -rn ./test/unit_netlink");

	lo = nl_link_index(nl, "lo");
	if (!ok(lo > 0, "nl_link_index(lo) > 0"))
		bail_out(strerror(-lo));

	test_link(nl, lo);
	test_addr4(nl, lo);
	test_addr6(nl, lo);
	test_route4(nl, lo);
	test_route6(nl, lo);
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
