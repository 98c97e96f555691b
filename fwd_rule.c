// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_rule.c - forwarding rules: the -t/-u/-T/-U grammar, the rules it
 * makes, their text and their form on the control socket
 *
 * Shared by passt/pasta and pesto, which both parse specs into the same
 * tables: nothing here logs or exits, errors come back as text.
 *
 * Theory of operation: a spec is
 *
 *	[ADDR[%IFNAME]/]ITEM[,ITEM]...
 *
 * where ADDR may be bracketed, and an ITEM is FIRST[-LAST][:TARGET], with
 * TARGET [TADDR/]TFIRST[-TLAST] (a translated range has the length of its
 * source) or just TADDR (same ports); ~FIRST[-LAST] excludes ports; "all"
 * (passt) is every port but the ephemeral range, as is a list of excludes
 * only; "auto" (pasta) is as "all", but only for ports the other side
 * listens on, or, beside ranges, makes those ranges so. "none" is no rule.
 *
 * A spec becomes flat rules, upstream's unit: one port range of one
 * protocol with one bind address and one target, excludes cut out. Without
 * ADDR a rule takes every address of both families (FWD_RULE_DUAL), or,
 * for the namespace's side (-T, -U), its loopback ("lo"). Two rules whose
 * ports and bind addresses overlap conflict, unless they are the same
 * rule: adding a rule again changes nothing (upstream refuses it, and a
 * restarted container can't get its port back).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_rule.h"

#define FWD_SPEC_LEN		4096
#define FWD_ITEMS_MAX		64	/* ranges, excludes of one spec */

/**
 * struct fwd_item - one range of a spec, before excludes are cut out
 * @first:	first port
 * @last:	last port
 * @to:		target port of @first
 * @taddr:	target address, unset for the guest's own
 */
struct fwd_item {
	uint16_t first;
	uint16_t last;
	uint16_t to;
	union inany_addr taddr;
};

/**
 * struct fwd_spec - a parsed spec
 * @addr:	bind address
 * @addr_set:	@addr was given
 * @ifname:	bind device, empty for none
 * @range:	ranges
 * @n_range:	how many
 * @excl:	excluded ranges (@to, @taddr unused)
 * @n_excl:	how many
 * @all:	every port but the ephemeral range (and excludes)
 * @scan:	"auto"
 */
struct fwd_spec {
	union inany_addr addr;
	bool addr_set;
	char ifname[IFNAMSIZ];
	struct fwd_item range[FWD_ITEMS_MAX + 2];	/* "all": two more */
	unsigned int n_range;
	struct fwd_item excl[FWD_ITEMS_MAX];
	unsigned int n_excl;
	bool all;
	bool scan;
};

/**
 * fwd_err() - write an error message for the caller
 * @err:	buffer, may be NULL
 * @len:	its size
 * @fmt:	format
 *
 * Return: -1, for the caller to return
 */
static int __attribute__((format(printf, 3, 4)))
fwd_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/**
 * fwd_port() - parse a whole port number, 1 to 65535
 * @s:		string
 * @port:	port, set on success
 *
 * Return: 0 on success, -1 otherwise
 */
static int fwd_port(const char *s, uint16_t *port)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || !v || v > UINT16_MAX)
		return -1;
	*port = v;
	return 0;
}

/**
 * fwd_range_parse() - parse FIRST or FIRST-LAST
 * @s:		string, modified
 * @r:		range, @first and @last set on success
 *
 * Return: 0 on success, -1 on malformed input
 */
static int fwd_range_parse(char *s, struct fwd_item *r)
{
	char *dash = strchr(s, '-');

	if (dash)
		*dash = 0;
	if (fwd_port(s, &r->first))
		return -1;
	r->last = r->first;
	if (dash && (fwd_port(dash + 1, &r->last) || r->last < r->first))
		return -1;
	return 0;
}

/**
 * fwd_addr_parse() - parse an address, IPv6 ones maybe in brackets
 * @s:		string, modified
 * @a:		address, set on success
 *
 * Return: 0 on success, -1 if @s is no address
 */
static int fwd_addr_parse(char *s, union inany_addr *a)
{
	size_t len = strlen(s);
	struct in_addr a4;

	if (len > 2 && s[0] == '[' && s[len - 1] == ']') {
		s[len - 1] = 0;
		s++;
		return inet_pton(AF_INET6, s, &a->a6) == 1 ? 0 : -1;
	}
	if (inet_pton(AF_INET, s, &a4) == 1) {
		inany_from_v4(a, a4);
		return 0;
	}
	return inet_pton(AF_INET6, s, &a->a6) == 1 ? 0 : -1;
}

/**
 * fwd_target_parse() - parse the target of a range: [TADDR/]PORTS, or TADDR
 * @s:		string after the colon, modified
 * @r:		range, its @first and @last set: @to and @taddr set
 *
 * Return: 0 on success, -1 on malformed input
 */
static int fwd_target_parse(char *s, struct fwd_item *r)
{
	char *slash = strrchr(s, '/');
	struct fwd_item to;

	if (slash) {
		*slash = 0;
		if (fwd_addr_parse(s, &r->taddr) ||
		    inany_is_unspecified(&r->taddr))
			return -1;
		s = slash + 1;
	} else if (strspn(s, "0123456789-") != strlen(s)) {
		r->to = r->first;
		return fwd_addr_parse(s, &r->taddr) ||
		       inany_is_unspecified(&r->taddr) ? -1 : 0;
	}
	if (fwd_range_parse(s, &to) || to.last - to.first != r->last - r->first)
		return -1;
	r->to = to.first;
	return 0;
}

/**
 * fwd_item_parse() - add one item of a port list to a spec
 * @sp:		spec
 * @item:	~FIRST[-LAST], or FIRST[-LAST][:TARGET]; modified
 *
 * Return: 0 on success, -1 on malformed input or too many items
 */
static int fwd_item_parse(struct fwd_spec *sp, char *item)
{
	struct fwd_item r = { 0 };
	char *colon;

	if (*item == '~') {
		if (sp->n_excl == FWD_ITEMS_MAX || fwd_range_parse(item + 1, &r))
			return -1;
		sp->excl[sp->n_excl++] = r;
		return 0;
	}
	colon = strchr(item, ':');
	if (colon)
		*colon = 0;
	if (sp->n_range == FWD_ITEMS_MAX || fwd_range_parse(item, &r))
		return -1;
	r.to = r.first;
	if (colon && fwd_target_parse(colon + 1, &r))
		return -1;
	sp->range[sp->n_range++] = r;
	return 0;
}

/**
 * fwd_rule_ifname_ok() - is a device name one we'd take, from a spec or
 *			  the wire?
 * @s:		name: only the first IFNAMSIZ bytes are read
 *
 * Return: true if it ends within them and has no odd characters
 */
static bool fwd_rule_ifname_ok(const char *s)
{
	size_t len = strnlen(s, IFNAMSIZ), i;

	if (len == IFNAMSIZ)
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '/' || s[i] == '%')
			return false;
	}
	return true;
}

/**
 * fwd_bind_parse() - parse the ADDR[%IFNAME] before the slash
 * @sp:		spec, @addr and @ifname set
 * @s:		string, modified
 *
 * Return: 0 on success, -1 if @s is no such thing
 */
static int fwd_bind_parse(struct fwd_spec *sp, char *s)
{
	char *pct = strrchr(s, '%');

	if (pct) {
		*pct = 0;
		if (!pct[1] || !fwd_rule_ifname_ok(pct + 1))
			return -1;
		strcpy(sp->ifname, pct + 1);
	}
	if (!*s)
		return pct ? 0 : -1;
	if (fwd_addr_parse(s, &sp->addr))
		return -1;
	sp->addr_set = true;
	return 0;
}

/**
 * fwd_spec_split() - parse a spec into bind address and items
 * @sp:		spec, zeroed, filled
 * @s:		the spec, modified
 * @opts:	FWD_SPEC_* flags: which keywords exist
 *
 * The part before the first slash is a bind address only if it reads as
 * one: the slash of a target address ("8080:10.88.0.2/80") is not it.
 *
 * Return: 0 on success, -1 on malformed input
 */
static int fwd_spec_split(struct fwd_spec *sp, char *s, unsigned int opts)
{
	char *slash = strchr(s, '/'), *item, *next;

	if (slash) {
		char bind[FWD_SPEC_LEN];

		memcpy(bind, s, slash - s);
		bind[slash - s] = 0;
		if (!fwd_bind_parse(sp, bind))
			s = slash + 1;
		else if (!strchr(s, ':') || strchr(s, ':') > slash)
			return -1;
	}
	for (item = s; item; item = next) {
		next = strchr(item, ',');
		if (next)
			*next++ = 0;
		if ((opts & FWD_SPEC_ALL) && !strcmp(item, "all"))
			sp->all = true;
		else if ((opts & FWD_SPEC_AUTO) && !strcmp(item, "auto"))
			sp->scan = true;
		else if (fwd_item_parse(sp, item))
			return -1;
	}
	if (!sp->all && !sp->scan && !sp->n_range && !sp->n_excl)
		return -1;
	return 0;
}

/**
 * fwd_spec_all() - the ranges of "every port": all but the ephemeral ones
 * @sp:		spec, ranges added
 * @eph:	ephemeral range
 */
static void fwd_spec_all(struct fwd_spec *sp, const struct fwd_ephemeral *eph)
{
	struct fwd_item r = { .first = 1, .last = UINT16_MAX };

	if (eph->first > 1) {
		r.last = eph->first - 1;
		r.to = r.first;
		sp->range[sp->n_range++] = r;
	}
	if (eph->last < UINT16_MAX) {
		r.first = r.to = eph->last + 1;
		r.last = UINT16_MAX;
		sp->range[sp->n_range++] = r;
	}
}

/**
 * fwd_rule_fmt_range() - FIRST, or FIRST-LAST
 * @buf:	output
 * @len:	its size
 * @first:	first port
 * @last:	last port
 *
 * Return: characters written, as snprintf()
 */
static int fwd_rule_fmt_range(char *buf, size_t len, unsigned int first,
			      unsigned int last)
{
	if (first == last)
		return snprintf(buf, len, "%u", first);
	return snprintf(buf, len, "%u-%u", first, last);
}

/**
 * fwd_rule_fmt() - a rule as upstream shows it
 * @r:		rule
 * @buf:	output
 * @len:	its size, FWD_RULE_STRLEN is enough
 *
 * "TCP [*]:8080  =>  80 ", "UDP [127.0.0.1]%lo:1-99  =>  10.88.0.2:1-99 ",
 * then " (best effort)" and " (auto-scan)" for those flags.
 *
 * Return: @buf
 */
const char *fwd_rule_fmt(const struct fwd_rule *r, char *buf, size_t len)
{
	char a[INANY_STRLEN] = "*", t[INANY_STRLEN + 1] = "";
	size_t n;

	if (!(r->flags & FWD_RULE_DUAL))
		inany_ntop(&r->addr, a, sizeof(a));
	if (inany_is_set(&r->taddr)) {
		inany_ntop(&r->taddr, t, sizeof(t) - 1);
		strcat(t, ":");
	}
	n = snprintf(buf, len, "%s [%s]%s%s:", r->proto == IPPROTO_UDP ?
		     "UDP" : "TCP", a, r->ifname[0] ? "%" : "", r->ifname);
	if (n < len)
		n += fwd_rule_fmt_range(buf + n, len - n, r->first, r->last);
	if (n < len)
		n += snprintf(buf + n, len - n, "  =>  %s", t);
	if (n < len)
		n += fwd_rule_fmt_range(buf + n, len - n, r->to,
					r->to + (r->last - r->first));
	if (n < len)
		snprintf(buf + n, len - n, " %s%s",
			 r->flags & FWD_RULE_WEAK ? " (best effort)" : "",
			 r->flags & FWD_RULE_SCAN ? " (auto-scan)" : "");
	return buf;
}

/**
 * fwd_rule_families() - check a rule's addresses: its bind address, and
 *			 its target against it
 * @r:		rule
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * A multicast bind address is for UDP (a socket of that group), as
 * upstream takes it, never for TCP.
 *
 * Return: 0 if the target can be reached from the bound family, -1 if not
 */
static int fwd_rule_families(const struct fwd_rule *r, char *err,
			     size_t err_len)
{
	char a[INANY_STRLEN], t[INANY_STRLEN];

	inany_ntop(&r->addr, a, sizeof(a));
	if (r->proto == IPPROTO_TCP && inany_is_multicast(&r->addr))
		return fwd_err(err, err_len, "Multicast listening address %s "
			       "for TCP", a);
	if (!inany_is_set(&r->taddr))
		return 0;
	inany_ntop(&r->taddr, t, sizeof(t));
	if (inany_is_multicast(&r->taddr) || inany_is_unspecified(&r->taddr))
		return fwd_err(err, err_len, "Invalid target address %s", t);
	if (r->flags & FWD_RULE_DUAL) {
		if (!inany_is_v4(&r->taddr))
			return 0;
		return fwd_err(err, err_len, "Dual stack forward to IPv4 "
			       "address %s unsupported\nDid you mean "
			       "0.0.0.0/... instead?", t);
	}
	if (inany_is_v4(&r->addr) && !inany_is_v4(&r->taddr))
		return fwd_err(err, err_len, "Forward from IPv4 (%s) to IPv6 "
			       "(%s) unsupported", a, t);
	if (!inany_is_v4(&r->addr) && inany_is_v4(&r->taddr))
		return fwd_err(err, err_len, "Forward from IPv6 (%s) to IPv4 "
			       "(%s) unsupported", a, t);
	return 0;
}

/**
 * fwd_rule_equal() - are two rules the same rule?
 * @a:		rule
 * @b:		rule
 *
 * Return: true if they are
 */
bool fwd_rule_equal(const struct fwd_rule *a, const struct fwd_rule *b)
{
	return fwd_rule_same_bind(a, b) && a->proto == b->proto &&
	       a->first == b->first && a->last == b->last && a->to == b->to &&
	       a->flags == b->flags && inany_equals(&a->taddr, &b->taddr);
}

/**
 * fwd_rule_same_bind() - do two rules bind the same address and device?
 * @a:		rule
 * @b:		rule
 *
 * Return: true if they do
 */
bool fwd_rule_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
{
	return (a->flags & FWD_RULE_DUAL) == (b->flags & FWD_RULE_DUAL) &&
	       inany_equals(&a->addr, &b->addr) &&
	       !strncmp(a->ifname, b->ifname, IFNAMSIZ);
}

/**
 * fwd_rule_binds_overlap() - could two rules' sockets take the same
 *			      connection?
 * @a:		rule
 * @b:		rule
 *
 * Return: true if their addresses overlap, on overlapping devices
 */
static bool fwd_rule_binds_overlap(const struct fwd_rule *a,
				   const struct fwd_rule *b)
{
	if (a->ifname[0] && b->ifname[0] &&
	    strncmp(a->ifname, b->ifname, IFNAMSIZ))
		return false;
	if ((a->flags & FWD_RULE_DUAL) || (b->flags & FWD_RULE_DUAL))
		return true;
	if (inany_is_v4(&a->addr) != inany_is_v4(&b->addr))
		return false;
	return inany_is_unspecified(&a->addr) ||
	       inany_is_unspecified(&b->addr) ||
	       inany_equals(&a->addr, &b->addr);
}

/**
 * fwd_rule_conflict() - do two different rules claim the same port?
 * @a:		rule
 * @b:		rule
 *
 * Return: true if they do
 */
static bool fwd_rule_conflict(const struct fwd_rule *a,
			      const struct fwd_rule *b)
{
	return a->proto == b->proto && a->first <= b->last &&
	       b->first <= a->last && fwd_rule_binds_overlap(a, b);
}

/**
 * fwd_rule_conflict_err() - the message for two conflicting rules
 * @a:		rule
 * @b:		the rule it conflicts with
 * @err:	error message, written
 * @err_len:	its size
 *
 * Return: -1
 */
static int fwd_rule_conflict_err(const struct fwd_rule *a,
				 const struct fwd_rule *b, char *err,
				 size_t err_len)
{
	char sa[FWD_RULE_STRLEN], sb[FWD_RULE_STRLEN];

	return fwd_err(err, err_len,
		       "Forwarding configuration conflict: %s versus %s",
		       fwd_rule_fmt(a, sa, sizeof(sa)),
		       fwd_rule_fmt(b, sb, sizeof(sb)));
}

/**
 * fwd_rule_add() - add a rule to a table, unless it is there already
 * @t:		table
 * @r:		rule
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success (the same rule there already is success), -1 if
 *	   it conflicts with another rule, or the table is full
 */
int fwd_rule_add(struct fwd_rules *t, const struct fwd_rule *r, char *err,
		 size_t err_len)
{
	unsigned int i;

	if (fwd_rule_families(r, err, err_len))
		return -1;
	for (i = 0; i < t->n; i++) {
		if (fwd_rule_equal(&t->rule[i], r))
			return 0;
		if (fwd_rule_conflict(r, &t->rule[i]))
			return fwd_rule_conflict_err(r, &t->rule[i], err,
						     err_len);
	}
	if (t->n == FWD_RULES_MAX)
		return fwd_err(err, err_len, "Too many forwarding rules "
			       "(at most %d)", FWD_RULES_MAX);
	t->rule[t->n++] = *r;
	return 0;
}

/**
 * fwd_rule_delete() - remove a rule from a table
 * @t:		table
 * @r:		rule, as it is in the table
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 if the table has no such rule
 */
int fwd_rule_delete(struct fwd_rules *t, const struct fwd_rule *r, char *err,
		    size_t err_len)
{
	char sa[FWD_RULE_STRLEN], sb[FWD_RULE_STRLEN];
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		if (!fwd_rule_equal(&t->rule[i], r))
			continue;
		memmove(&t->rule[i], &t->rule[i + 1],
			(t->n - i - 1) * sizeof(t->rule[0]));
		t->n--;
		return 0;
	}
	for (i = 0; i < t->n; i++) {
		if (fwd_rule_conflict(r, &t->rule[i]))
			return fwd_err(err, err_len, "Specifier %s conflicts "
				       "with rule %s, but doesn't match it, "
				       "can't delete",
				       fwd_rule_fmt(r, sa, sizeof(sa)),
				       fwd_rule_fmt(&t->rule[i], sb,
						    sizeof(sb)));
	}
	return fwd_err(err, err_len, "Couldn't find forwarding rule to "
		       "delete: %s", fwd_rule_fmt(r, sa, sizeof(sa)));
}

/**
 * fwd_rules_check() - is a whole table consistent?
 * @t:		table
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 if no two rules conflict and every target fits its rule, -1
 *	   if not
 */
int fwd_rules_check(const struct fwd_rules *t, char *err, size_t err_len)
{
	unsigned int i, j;

	for (i = 0; i < t->n; i++) {
		if (fwd_rule_families(&t->rule[i], err, err_len))
			return -1;
		for (j = i + 1; j < t->n; j++) {
			if (fwd_rule_conflict(&t->rule[i], &t->rule[j]))
				return fwd_rule_conflict_err(&t->rule[j],
							     &t->rule[i], err,
							     err_len);
		}
	}
	return 0;
}

/**
 * fwd_rules_copy() - a table's rules into another table
 * @dst:	table, replaced
 * @src:	table
 *
 * Only the rules in use: a table has room for FWD_RULES_MAX (224 KiB), and
 * a page of it that nothing wrote costs no memory.
 */
void fwd_rules_copy(struct fwd_rules *dst, const struct fwd_rules *src)
{
	memcpy(dst->rule, src->rule, src->n * sizeof(src->rule[0]));
	dst->n = src->n;
}

/**
 * fwd_spec_emit() - the flat rules of one range: the excludes cut out
 * @t:		table, rules added or deleted
 * @tmpl:	rule with everything but the ports
 * @sp:		spec, for its excludes
 * @r:		range
 * @del:	delete the rules instead
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 on failure
 */
static int fwd_spec_emit(struct fwd_rules *t, const struct fwd_rule *tmpl,
			 const struct fwd_spec *sp, const struct fwd_item *r,
			 bool del, char *err, size_t err_len)
{
	unsigned int port = r->first, i;

	while (port <= r->last) {
		struct fwd_rule f = *tmpl;
		unsigned int end = r->last;

		for (i = 0; i < sp->n_excl; i++) {
			const struct fwd_item *x = &sp->excl[i];

			if (port >= x->first && port <= x->last)
				break;
			if (x->first > port && x->first - 1U < end)
				end = x->first - 1U;
		}
		if (i < sp->n_excl) {		/* @port is excluded */
			port = sp->excl[i].last + 1U;
			continue;
		}
		f.first = port;
		f.last = end;
		f.to = r->to + (port - r->first);
		f.taddr = r->taddr;
		if (del ? fwd_rule_delete(t, &f, err, err_len) :
			  fwd_rule_add(t, &f, err, err_len))
			return -1;
		port = end + 1;
	}
	return 0;
}

/**
 * fwd_spec_parse() - add (or delete) the rules of one -t/-u/-T/-U spec
 * @t:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @spec:	the spec
 * @opts:	FWD_SPEC_* flags
 * @eph:	ephemeral range, which "all" and "auto" leave out
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 on malformed input or a rule that can't be
 *	   added or deleted; rules before that one stay as they are
 */
int fwd_spec_parse(struct fwd_rules *t, uint8_t proto, const char *spec,
		   unsigned int opts, const struct fwd_ephemeral *eph,
		   char *err, size_t err_len)
{
	static struct fwd_spec sp;
	char buf[FWD_SPEC_LEN], rs[FWD_RULE_STRLEN];
	struct fwd_rule tmpl = { .proto = proto };
	unsigned int i;

	if (!strcmp(spec, "none"))
		return 0;
	memset(&sp, 0, sizeof(sp));
	if (!*spec || strlen(spec) >= sizeof(buf))
		return fwd_err(err, err_len, "Invalid port specifier '%s'",
			       spec);
	strcpy(buf, spec);
	if (fwd_spec_split(&sp, buf, opts))
		return fwd_err(err, err_len, "Invalid port specifier '%s'",
			       spec);

	if (sp.all || sp.scan || !sp.n_range) {
		if (sp.n_range && !sp.all)	/* "8000-8010,auto" */
			tmpl.flags |= FWD_RULE_SCAN;
		else
			fwd_spec_all(&sp, eph);
		tmpl.flags |= FWD_RULE_WEAK;
	}
	if (sp.scan)
		tmpl.flags |= FWD_RULE_SCAN;
	if (sp.addr_set) {
		tmpl.addr = sp.addr;
	} else {
		tmpl.flags |= FWD_RULE_DUAL;
		if ((opts & FWD_SPEC_LOOPBACK) && !sp.ifname[0])
			strcpy(sp.ifname, "lo");
	}
	memcpy(tmpl.ifname, sp.ifname, IFNAMSIZ);

	for (i = 0; i < sp.n_range; i++) {
		char e[FWD_ERR_LEN];

		if (!fwd_spec_emit(t, &tmpl, &sp, &sp.range[i],
				   opts & FWD_SPEC_DELETE, e, sizeof(e)))
			continue;
		tmpl.first = sp.range[i].first;
		tmpl.last = sp.range[i].last;
		tmpl.to = sp.range[i].to;
		tmpl.taddr = sp.range[i].taddr;
		return fwd_err(err, err_len, "%s\nUnable to %s rule %s", e,
			       opts & FWD_SPEC_DELETE ? "delete" : "add",
			       fwd_rule_fmt(&tmpl, rs, sizeof(rs)));
	}
	return 0;
}

/**
 * fwd_ephemeral_read() - the ephemeral port range of our network namespace
 * @eph:	range, set: the kernel's default where it can't be read
 */
void fwd_ephemeral_read(struct fwd_ephemeral *eph)
{
	unsigned int first, last;
	FILE *f;

	eph->first = FWD_EPHEMERAL_FIRST;
	eph->last = FWD_EPHEMERAL_LAST;
	f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "re");
	if (!f)
		return;
	if (fscanf(f, "%u %u", &first, &last) == 2 && first &&
	    last >= first && last <= UINT16_MAX) {
		eph->first = first;
		eph->last = last;
	}
	fclose(f);
}

/**
 * fwd_rule_to() - the target port of a port
 * @r:		rule
 * @port:	port
 *
 * Return: target port, or -1 if the rule doesn't forward @port
 */
int fwd_rule_to(const struct fwd_rule *r, unsigned int port)
{
	if (port < r->first || port > r->last)
		return -1;
	return r->to + (port - r->first);
}

/* On the wire, upstream's layout: addr 16, taddr 16, ifname 16, then
 * first, last and to in network order, proto, flags: 56 bytes
 */
#define FWD_WIRE_TADDR		16
#define FWD_WIRE_IFNAME		32
#define FWD_WIRE_PORTS		48
#define FWD_WIRE_PROTO		54
#define FWD_WIRE_FLAGS		55

/**
 * fwd_rule_encode() - a rule as the control protocol carries it
 * @r:		rule
 * @buf:	FWD_RULE_WIRE_LEN bytes, written
 */
void fwd_rule_encode(const struct fwd_rule *r, uint8_t *buf)
{
	uint16_t ports[3] = { htons(r->first), htons(r->last), htons(r->to) };

	memcpy(buf, &r->addr, sizeof(r->addr));
	memcpy(buf + FWD_WIRE_TADDR, &r->taddr, sizeof(r->taddr));
	memset(buf + FWD_WIRE_IFNAME, 0, IFNAMSIZ);
	memcpy(buf + FWD_WIRE_IFNAME, r->ifname,
	       strnlen(r->ifname, IFNAMSIZ - 1));
	memcpy(buf + FWD_WIRE_PORTS, ports, sizeof(ports));
	buf[FWD_WIRE_PROTO] = r->proto;
	buf[FWD_WIRE_FLAGS] = r->flags;
}

/**
 * fwd_rule_decode() - a rule from the control protocol, checked field by
 *		       field
 * @r:		rule, set on success
 * @buf:	FWD_RULE_WIRE_LEN bytes
 * @err:	error message, written on failure
 * @err_len:	its size
 *
 * Return: 0 on success, -1 if a field makes no sense
 */
int fwd_rule_decode(struct fwd_rule *r, const uint8_t *buf, char *err,
		    size_t err_len)
{
	uint16_t ports[3];

	memset(r, 0, sizeof(*r));
	memcpy(&r->addr, buf, sizeof(r->addr));
	memcpy(&r->taddr, buf + FWD_WIRE_TADDR, sizeof(r->taddr));
	memcpy(r->ifname, buf + FWD_WIRE_IFNAME, IFNAMSIZ);
	memcpy(ports, buf + FWD_WIRE_PORTS, sizeof(ports));
	r->first = ntohs(ports[0]);
	r->last = ntohs(ports[1]);
	r->to = ntohs(ports[2]);
	r->proto = buf[FWD_WIRE_PROTO];
	r->flags = buf[FWD_WIRE_FLAGS];

	if (r->proto != IPPROTO_TCP && r->proto != IPPROTO_UDP)
		return fwd_err(err, err_len, "rule with protocol %u", r->proto);
	if (r->flags & ~FWD_RULE_FLAGS)
		return fwd_err(err, err_len, "rule with flags 0x%x", r->flags);
	if (!r->first || r->last < r->first || !r->to ||
	    r->to + (r->last - r->first) > UINT16_MAX)
		return fwd_err(err, err_len, "rule with ports %u-%u to %u",
			       r->first, r->last, r->to);
	if (!fwd_rule_ifname_ok(r->ifname))
		return fwd_err(err, err_len, "rule with a bad device name");
	if ((r->flags & FWD_RULE_DUAL) &&
	    !IN6_IS_ADDR_UNSPECIFIED(&r->addr.a6))
		return fwd_err(err, err_len, "rule with a bad bind address");
	return fwd_rule_families(r, err, err_len);
}
