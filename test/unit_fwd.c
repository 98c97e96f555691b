// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_fwd.c - the -t/-u forwarding grammar (fwd.c), table-driven
 *
 * Each accepted spec is checked by what it means: the bind address and
 * device, and for a few host ports the guest port they reach (0: not
 * forwarded). Each rejected spec must add no rule. Prints TAP.
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../fwd.h"
#include "unit_lib.h"

#define PROBES_MAX	6

/**
 * struct fwd_case - a spec and what it must mean
 * @spec:	the -t or -u value
 * @passt:	parsed for passt (where "all" exists)
 * @addr:	bind address it must have, NULL for none
 * @ifname:	bind device it must have, "" for none
 * @probe:	host ports and the guest ports they must reach, 0 for none
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
	{ "all", true, NULL, "", { { 1, 1 }, { 8080, 8080 } } },
	{ "all,~22", true, NULL, "", { { 22, 0 }, { 23, 23 } } },
	{ "192.0.2.1/5", false, "192.0.2.1", "", { { 5, 5 }, { 6, 0 } } },
	{ "::1/8080-8080:8080-8080", false, "::1", "", { { 8080, 8080 } } },
	{ "127.0.0.1/18080-18080:8080-8080", false, "127.0.0.1", "",
	  { { 18080, 8080 } } },
	{ "2001:db8:1::1/8080-8081:80-81", false, "2001:db8:1::1", "",
	  { { 8080, 80 }, { 8081, 81 } } },
	{ "192.0.2.1%eth0/5981:5981", false, "192.0.2.1", "eth0",
	  { { 5981, 5981 } } },
	{ "127.0.0.1%lo/8000", false, "127.0.0.1", "lo", { { 8000, 8000 } } },
	{ "%lo/8000", false, NULL, "lo", { { 8000, 8000 } } },
	{ "65535", false, NULL, "", { { 65535, 65535 } } },
};

static const struct { const char *spec; bool passt; } bad[] = {
	{ "", false }, { "0", false }, { "65536", false }, { "-1", false },
	{ "22-", false }, { "80-22", false }, { "22:", false },
	{ "22-80:32-89", false }, { "a", false }, { "22,,", false },
	{ "~", false }, { "~22:23", false }, { "/22", false },
	{ "192.0.2.300/22", false }, { "fe80::1%/22", false },
	{ "192.0.2.1%abcdefghijklmnopq/22", false }, { "all", false },
	{ "22 ", false }, { "+22", false }, { "auto", true },
};

/**
 * check_good() - an accepted spec means what the case says
 * @k:		case
 */
static void check_good(const struct fwd_case *k)
{
	static struct fwd_table t;
	const struct fwd_rule *r = &t.rules[0];
	char a[INANY_STRLEN] = "";
	bool right = true;
	int i;

	memset(&t, 0, sizeof(t));
	if (fwd_parse(&t, k->spec, k->passt) || t.n != 1) {
		okf(0, "'%s' accepted", k->spec);
		return;
	}
	if (r->addr_set)
		inany_ntop(&r->addr, a, sizeof(a));
	if (!r->addr_set != !k->addr || (k->addr && strcmp(a, k->addr)) ||
	    strcmp(r->ifname, k->ifname))
		right = false;
	for (i = 0; i < PROBES_MAX && k->probe[i][0]; i++) {
		int to = fwd_rule_to(r, k->probe[i][0]);

		if (to != (k->probe[i][1] ? (int)k->probe[i][1] : -1)) {
			printf("# '%s': port %u -> %d\n", k->spec,
			       k->probe[i][0], to);
			right = false;
		}
	}
	okf(right, "'%s'%s: address '%s', device '%s', ports as meant",
	    k->spec, k->passt ? " (passt)" : "", a, r->ifname);
}

int main(void)
{
	static struct fwd_table t;
	unsigned int i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		check_good(&good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&t, 0, sizeof(t));
		okf(fwd_parse(&t, bad[i].spec, bad[i].passt) && !t.n,
		    "'%s'%s rejected", bad[i].spec,
		    bad[i].passt ? " (passt)" : "");
	}

	memset(&t, 0, sizeof(t));
	ok(!fwd_parse(&t, "none", false) && !t.n && t.set,
	   "'none': no rule, but the option was given");
	for (i = 0; i < FWD_RULES_MAX; i++)
		fwd_parse(&t, "80", false);
	ok(t.n == FWD_RULES_MAX && fwd_parse(&t, "81", false),
	   "rules accumulate up to FWD_RULES_MAX, then are refused");
	return tests_done();
}
