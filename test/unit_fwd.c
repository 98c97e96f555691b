// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_fwd.c - the -t/-u forwarding grammar and its rules
 * (fwd_rule.c), table-driven
 *
 * Each accepted spec is checked by what it means: the bind address and
 * device, and for a few ports the target port they reach (0: not
 * forwarded). Each rejected spec must add no rule. Then the rules
 * themselves: upstream's text for them, conflicts, adding a rule again,
 * deleting, target addresses, and their form on the control socket,
 * where hostile input must be refused field by field. Prints TAP.
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../fwd_rule.h"
#include "unit_lib.h"

#define PROBES_MAX	6

static const struct fwd_ephemeral eph = { 32768, 60999 };

/**
 * struct fwd_case - a spec and what it must mean
 * @spec:	the -t or -u value
 * @passt:	parsed for passt (where "all" exists)
 * @addr:	bind address it must have, NULL for none
 * @ifname:	bind device it must have, "" for none
 * @probe:	ports and the target ports they must reach, 0 for none
 */
struct fwd_case {
	const char *spec;
	bool passt;
	const char *addr;
	const char *ifname;
	unsigned int probe[PROBES_MAX][2];
};

static const struct fwd_case good[] = {
	{ "22", false, NULL, "", { { 22, 22 }, { 21, 0 }, { 23, 0 } } },
	{ "22:23", false, NULL, "", { { 22, 23 }, { 23, 0 } } },
	{ "22,25", false, NULL, "", { { 22, 22 }, { 25, 25 }, { 23, 0 } } },
	{ "22-80", false, NULL, "", { { 22, 22 }, { 80, 80 }, { 81, 0 } } },
	{ "22-80:32-90", false, NULL, "",
	  { { 22, 32 }, { 80, 90 }, { 50, 60 }, { 21, 0 } } },
	{ "5-25,~10-20", false, NULL, "",
	  { { 5, 5 }, { 9, 9 }, { 10, 0 }, { 20, 0 }, { 21, 21 } } },
	{ "~25", false, NULL, "", { { 24, 24 }, { 25, 0 }, { 26, 26 } } },
	{ "all", true, NULL, "",
	  { { 1, 1 }, { 8080, 8080 }, { 40000, 0 }, { 65535, 65535 } } },
	{ "all,~22", true, NULL, "", { { 22, 0 }, { 23, 23 } } },
	{ "192.0.2.1/5", false, "192.0.2.1", "", { { 5, 5 }, { 6, 0 } } },
	{ "::1/8080-8080:8080-8080", false, "::1", "", { { 8080, 8080 } } },
	{ "[::]/8080", false, "::", "", { { 8080, 8080 } } },
	{ "0.0.0.0/8080", false, "0.0.0.0", "", { { 8080, 8080 } } },
	{ "127.0.0.1/18080-18080:8080-8080", false, "127.0.0.1", "",
	  { { 18080, 8080 } } },
	{ "2001:db8:1::1/8080-8081:80-81", false, "2001:db8:1::1", "",
	  { { 8080, 80 }, { 8081, 81 } } },
	{ "192.0.2.1%eth0/5981:5981", false, "192.0.2.1", "eth0",
	  { { 5981, 5981 } } },
	{ "127.0.0.1%lo/8000", false, "127.0.0.1", "lo", { { 8000, 8000 } } },
	{ "%lo/8000", false, NULL, "lo", { { 8000, 8000 } } },
	{ "65535", false, NULL, "", { { 65535, 65535 } } },
	{ "0.0.0.0/9090:10.88.0.2/80", false, "0.0.0.0", "",
	  { { 9090, 80 }, { 9091, 0 } } },
	{ "9090:[2001:db8::2]/80", false, NULL, "", { { 9090, 80 } } },
	{ "0.0.0.0/53:10.88.0.2", false, "0.0.0.0", "", { { 53, 53 } } },
	{ "0.0.0.0/9095-9096:10.88.0.2/80-81", false, "0.0.0.0", "",
	  { { 9095, 80 }, { 9096, 81 } } },
};

static const struct { const char *spec; bool passt; } bad[] = {
	{ "", false }, { "0", false }, { "65536", false }, { "-1", false },
	{ "22-", false }, { "80-22", false }, { "22:", false },
	{ "22-80:32-89", false }, { "a", false }, { "22,,", false },
	{ "~", false }, { "~22:23", false }, { "/22", false },
	{ "192.0.2.300/22", false }, { "fe80::1%/22", false },
	{ "192.0.2.1%abcdefghijklmnopq/22", false }, { "all", false },
	{ "%e\xff/22", false }, { "%a b/22", false },
	{ "224.0.0.251/5353", false },
	{ "22 ", false }, { "+22", false }, { "auto", true },
	{ "22/80", false }, { "8080:0.0.0.0/80", false },
	{ "8080:224.0.0.1/80", false }, { "8080:10.0.0.1/80-81", false },
};

/**
 * probe() - the target port of a port, in a table
 * @t:		table
 * @port:	port
 *
 * Return: target port, 0 if no rule forwards @port
 */
static unsigned int probe(const struct fwd_rules *t, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		int to = fwd_rule_to(&t->rule[i], port);

		if (to >= 0)
			return to;
	}
	return 0;
}

/**
 * check_good() - an accepted spec means what the case says
 * @k:		case
 */
static void check_good(const struct fwd_case *k)
{
	static struct fwd_rules t;
	const struct fwd_rule *r = &t.rule[0];
	char a[INANY_STRLEN] = "", err[FWD_ERR_LEN];
	bool right = true;
	int i;

	memset(&t, 0, sizeof(t));
	if (fwd_spec_parse(&t, IPPROTO_TCP, k->spec,
			   k->passt ? FWD_SPEC_ALL : FWD_SPEC_AUTO, &eph, err,
			   sizeof(err)) || !t.n) {
		okf(0, "'%s' accepted", k->spec);
		printf("# %s\n", err);
		return;
	}
	if (!(r->flags & FWD_RULE_DUAL))
		inany_ntop(&r->addr, a, sizeof(a));
	if (!(r->flags & FWD_RULE_DUAL) != !!k->addr ||
	    (k->addr && strcmp(a, k->addr)) || strcmp(r->ifname, k->ifname))
		right = false;
	for (i = 0; i < PROBES_MAX && k->probe[i][0]; i++) {
		unsigned int to = probe(&t, k->probe[i][0]);

		if (to != k->probe[i][1]) {
			printf("# '%s': port %u -> %u\n", k->spec,
			       k->probe[i][0], to);
			right = false;
		}
	}
	okf(right, "'%s'%s: address '%s', device '%s', ports as meant",
	    k->spec, k->passt ? " (passt)" : "", a, r->ifname);
}

/**
 * parse() - a spec into a table, TCP, for pasta
 * @t:		table
 * @spec:	spec
 * @opts:	more FWD_SPEC_* flags
 * @err:	error message, FWD_ERR_LEN bytes
 *
 * Return: fwd_spec_parse()'s
 */
static int parse(struct fwd_rules *t, const char *spec, unsigned int opts,
		 char *err)
{
	return fwd_spec_parse(t, IPPROTO_TCP, spec, FWD_SPEC_AUTO | opts, &eph,
			      err, FWD_ERR_LEN);
}

/**
 * test_text() - rules as upstream's pesto --show prints them
 */
static void test_text(void)
{
	static const struct { const char *spec; unsigned int opts;
			      const char *text; } k[] = {
		{ "9000", 0, "TCP [*]:9000  =>  9000 " },
		{ "127.0.0.1/9100-9102:9200-9202", 0,
		  "TCP [127.0.0.1]:9100-9102  =>  9200-9202 " },
		{ "9002", FWD_SPEC_LOOPBACK, "TCP [*]%lo:9002  =>  9002 " },
		{ "auto", FWD_SPEC_LOOPBACK, "TCP [*]%lo:1-32767  =>  1-32767"
		  "  (best effort) (auto-scan)" },
		{ "0.0.0.0/9090:10.88.0.2/80", 0,
		  "TCP [0.0.0.0]:9090  =>  10.88.0.2:80 " },
		{ "[::]/9092:[2001:db8::2]/80", 0,
		  "TCP [::]:9092  =>  2001:db8::2:80 " },
	};
	static struct fwd_rules t;
	char err[FWD_ERR_LEN], s[FWD_RULE_STRLEN];
	unsigned int i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		memset(&t, 0, sizeof(t));
		if (parse(&t, k[i].spec, k[i].opts, err)) {
			okf(0, "'%s' accepted", k[i].spec);
			continue;
		}
		fwd_rule_fmt(&t.rule[0], s, sizeof(s));
		okf(!strcmp(s, k[i].text), "'%s' shows as '%s'", k[i].spec, s);
	}
}

/**
 * test_conflicts() - overlapping rules, the same rule again, deleting
 */
static void test_conflicts(void)
{
	static struct fwd_rules t;
	char err[FWD_ERR_LEN];
	int ret;

	memset(&t, 0, sizeof(t));
	ret = parse(&t, "8080", 0, err) || parse(&t, "8080", 0, err);
	ok(!ret && t.n == 1, "the same rule twice: one rule, no error "
	   "(upstream refuses it: podman issue 29032)");

	ret = parse(&t, "0.0.0.0/8080", 0, err);
	okf(ret && t.n == 1 && !strcmp(err, "Forwarding configuration "
	    "conflict: TCP [0.0.0.0]:8080  =>  8080  versus TCP [*]:8080  =>  "
	    "8080 \nUnable to add rule TCP [0.0.0.0]:8080  =>  8080 "),
	    "0.0.0.0/8080 beside every address's 8080: refused, in "
	    "upstream's words");

	memset(&t, 0, sizeof(t));
	ret = parse(&t, "0.0.0.0/8080", 0, err) ||
	      parse(&t, "[::]/8080", 0, err) ||
	      parse(&t, "192.0.2.1/8081", 0, err) ||
	      parse(&t, "192.0.2.2/8081", 0, err);
	ok(!ret && t.n == 4, "0.0.0.0 and :: side by side, two addresses on "
	   "one port: no conflict");

	ret = parse(&t, "9092-9094", 0, err) ||
	      parse(&t, "9093", FWD_SPEC_DELETE, err);
	okf(ret && t.n == 5 && strstr(err, "conflicts with rule TCP [*]:"
	    "9092-9094  =>  9092-9094 , but doesn't match it, can't delete"),
	    "deleting part of a range: refused, as upstream");
	ret = parse(&t, "8090", FWD_SPEC_DELETE, err);
	ok(ret && strstr(err, "Couldn't find forwarding rule to delete: "
			 "TCP [*]:8090  =>  8090 ") != NULL,
	   "deleting a rule that isn't there: refused, as upstream");
	ret = parse(&t, "9092-9094", FWD_SPEC_DELETE, err) ||
	      parse(&t, "0.0.0.0/8080", FWD_SPEC_DELETE, err);
	ok(!ret && t.n == 3 && t.rule[0].addr.a6.s6_addr[15] == 0 &&
	   !inany_is_v4(&t.rule[0].addr),
	   "deleting whole rules: the others stay, in order");

	ret = parse(&t, "9091:10.88.0.2/80", 0, err);
	okf(ret && !strcmp(err, "Dual stack forward to IPv4 address 10.88.0.2 "
	    "unsupported\nDid you mean 0.0.0.0/... instead?\nUnable to add "
	    "rule TCP [*]:9091  =>  10.88.0.2:80 "),
	    "every address to an IPv4 target: refused, in upstream's words");
	ret = parse(&t, "0.0.0.0/9090:[2001:db8::2]/80", 0, err);
	ok(ret && strstr(err, "Forward from IPv4 (0.0.0.0) to IPv6 "
			 "(2001:db8::2) unsupported") != NULL,
	   "IPv4 to an IPv6 target: refused");

	memset(&t, 0, sizeof(t));
	ret = parse(&t, "auto", FWD_SPEC_LOOPBACK, err);
	ok(!ret && t.n == 2 && t.rule[0].last == 32767 &&
	   t.rule[1].first == 61000 &&
	   t.rule[0].flags == (FWD_RULE_DUAL | FWD_RULE_WEAK | FWD_RULE_SCAN),
	   "auto: both sides of the ephemeral range, best effort, scanned");
}

/**
 * test_wire() - a rule on the control socket: upstream's 56 bytes, and
 *		 what a hostile client can't make us take
 */
static void test_wire(void)
{
	static const uint8_t upstream[FWD_RULE_WIRE_LEN] = {
		[10] = 0xff, [11] = 0xff, [12] = 127, [15] = 1,
		[48] = 0x23, [49] = 0x8c, [50] = 0x23, [51] = 0x8e,
		[52] = 0x23, [53] = 0xf0, [54] = 6, [55] = 0,
	};
	static struct fwd_rules t;
	uint8_t buf[FWD_RULE_WIRE_LEN], bad[FWD_RULE_WIRE_LEN];
	struct fwd_rule r;
	char err[FWD_ERR_LEN];
	unsigned int i;
	int fails = 0;

	memset(&t, 0, sizeof(t));
	parse(&t, "127.0.0.1/9100-9102:9200-9202", 0, err);
	fwd_rule_encode(&t.rule[0], buf);
	ok(!memcmp(buf, upstream, sizeof(buf)),
	   "127.0.0.1/9100-9102:9200-9202 in the bytes upstream's pasta sends");
	ok(!fwd_rule_decode(&r, upstream, err, sizeof(err)) &&
	   fwd_rule_equal(&r, &t.rule[0]), "and back");

	memset(&t, 0, sizeof(t));
	parse(&t, "192.0.2.1%eth0/9090:192.0.2.2/80", 0, err);
	fwd_rule_encode(&t.rule[0], buf);
	ok(!fwd_rule_decode(&r, buf, err, sizeof(err)) &&
	   fwd_rule_equal(&r, &t.rule[0]),
	   "a rule with a device and a target address, there and back");

	for (i = 0; i < 8; i++) {
		memcpy(bad, buf, sizeof(bad));
		switch (i) {
		case 0: bad[54] = 1; break;			/* protocol */
		case 1: bad[55] = 0x80; break;			/* flags */
		case 2: bad[48] = bad[49] = 0; break;		/* port 0 */
		case 3: bad[49]++; bad[51]--; break;		/* last < first */
		case 4: bad[51]++; bad[52] = bad[53] = 0xff; break; /* to + n */
		case 5: memset(bad + 32, 'a', 16); break;	/* no NUL */
		case 6: bad[55] = FWD_RULE_DUAL; break;		/* addr set */
		case 7: bad[16 + 12] = 224; break;		/* multicast */
		}
		if (fwd_rule_decode(&r, bad, err, sizeof(err)))
			fails++;
		else
			printf("# hostile rule %u taken\n", i);
	}
	okf(fails == 8, "hostile rules refused: %d of 8 (protocol, flags, "
	    "port 0, reversed range, target past 65535, device name without "
	    "end, every address with an address, multicast target)", fails);
}

int main(void)
{
	static struct fwd_rules t;
	char err[FWD_ERR_LEN];
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check_good(&good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0, sizeof(t));
		okf(fwd_spec_parse(&t, IPPROTO_TCP, bad[i].spec,
				   bad[i].passt ? FWD_SPEC_ALL : FWD_SPEC_AUTO,
				   &eph, err, sizeof(err)) && !t.n,
		    "'%s'%s rejected", bad[i].spec,
		    bad[i].passt ? " (passt)" : "");
	}

	memset(&t, 0, sizeof(t));
	ok(!parse(&t, "none", 0, err) && !t.n, "'none': no rule");
	for (i = 1; i <= FWD_RULES_MAX; i++) {
		char spec[8];

		snprintf(spec, sizeof(spec), "%u", i);
		parse(&t, spec, 0, err);
	}
	ok(t.n == FWD_RULES_MAX && parse(&t, "5000", 0, err) &&
	   strstr(err, "Too many forwarding rules") != NULL,
	   "rules accumulate up to FWD_RULES_MAX, then are refused");

	test_text();
	test_conflicts();
	test_wire();
	return tests_done();
}
