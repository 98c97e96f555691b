// SPDX-License-Identifier: GPL-2.0-or-later
/* resolv.c - the host's resolvers: resolv.conf
 *
 * Theory of operation: /etc/resolv.conf gives what -D, -S and --dns-host
 * don't: the name servers and search list DHCP, DHCPv6 and RAs hand out
 * (c->dns4, c->dns6, c->dns_search), and the resolvers --dns-forward sends
 * queries to (c->dns_up, the first DNS_UP_MAX "nameserver" lines, as the
 * C library takes them). What the user gave stays fixed; the rest comes
 * from the file (c->resolv_dns, c->resolv_search, c->resolv_up say which).
 *
 * Bounded: at most DNS_UP_MAX resolvers, RESOLV_LINES_MAX lines of
 * RESOLV_LINE_MAX bytes.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dhcp.h"
#include "log.h"
#include "passt.h"
#include "resolv.h"

#define RESOLV_DIR		"/etc"
#define RESOLV_NAME		"resolv.conf"
#define RESOLV_PATH		RESOLV_DIR "/" RESOLV_NAME
#define RESOLV_LINE_MAX		4096
#define RESOLV_LINES_MAX	1000

/**
 * struct resolv_conf - what one reading of resolv.conf gives
 * @dns4:	IPv4 name servers the guest can reach
 * @dns4_n:	how many
 * @dns6:	IPv6 name servers
 * @dns6_n:	how many
 * @search:	search list
 * @search_n:	how many names
 * @up:		first DNS_UP_MAX name servers, either family
 * @up_n:	how many
 */
struct resolv_conf {
	struct in_addr dns4[DNS4_MAX];
	int dns4_n;
	struct in6_addr dns6[DNS6_MAX];
	int dns6_n;
	char search[DNS_SEARCH_MAX][DNS_NAME_MAX];
	int search_n;
	union inany_addr up[DNS_UP_MAX];
	int up_n;
};

/**
 * resolv_search() - take the search list from a "search" or "domain" line,
 * the rest of which is in @save
 * @r:		reading so far
 * @save:	strtok_r() state after the keyword
 * @max:	names to take: DNS_SEARCH_MAX, or 1 for "domain"
 */
static void resolv_search(struct resolv_conf *r, char **save, int max)
{
	char *w;

	r->search_n = 0;	/* resolv.conf(5): the last line wins */
	while (r->search_n < max && (w = strtok_r(NULL, " \t\r\n", save))) {
		size_t l = strlen(w);

		if (l > 1 && w[l - 1] == '.')
			w[--l] = '\0';
		if (w[0] == '.' || l >= DNS_NAME_MAX) {
			debug("DNS: search domain '%s' ignored", w);
			continue;
		}
		memcpy(r->search[r->search_n++], w, l + 1);
	}
}

/**
 * resolv_nameserver() - take a name server
 * @c:		execution context
 * @r:		reading so far
 * @w:		its address: IPv4, or IPv6 (for DHCPv6 and RAs, which decide
 *		themselves what the guest can reach); anything else is skipped
 */
static void resolv_nameserver(const struct ctx *c, struct resolv_conf *r,
			      const char *w)
{
	struct in6_addr a6;
	struct in_addr a;

	if (inet_pton(AF_INET, w, &a) == 1) {
		if (r->up_n < DNS_UP_MAX)
			inany_from_v4(&r->up[r->up_n++], a);
		if (!dhcp_dns_usable(c, a))
			debug("DNS: name server %s unreachable for guest", w);
		else if (r->dns4_n < DNS4_MAX)
			r->dns4[r->dns4_n++] = a;
	} else if (inet_pton(AF_INET6, w, &a6) == 1) {
		if (r->up_n < DNS_UP_MAX)
			r->up[r->up_n++].a6 = a6;
		if (r->dns6_n < DNS6_MAX)
			r->dns6[r->dns6_n++] = a6;
	}
}

/**
 * resolv_line() - take what we need from one line
 * @c:		execution context
 * @r:		reading so far
 * @line:	the line, without its newline, modified
 */
static void resolv_line(const struct ctx *c, struct resolv_conf *r,
			char *line)
{
	char *save, *kw = strtok_r(line, " \t\r\n", &save), *w;

	if (!kw)
		return;
	if (!strcmp(kw, "nameserver")) {
		w = strtok_r(NULL, " \t\r\n", &save);
		if (w)
			resolv_nameserver(c, r, w);
	} else if (!strcmp(kw, "search")) {
		resolv_search(r, &save, DNS_SEARCH_MAX);
	} else if (!strcmp(kw, "domain")) {
		resolv_search(r, &save, 1);
	}
}

/**
 * resolv_parse() - read a file in resolv.conf(5) format
 * @c:		execution context
 * @fd:		the file, read to its end or RESOLV_LINES_MAX lines
 * @r:		what it gives, set
 *
 * With read() into a buffer of our own, no stdio: nothing to allocate.
 * Lines longer than RESOLV_LINE_MAX
 * are skipped whole.
 */
static void resolv_parse(const struct ctx *c, int fd, struct resolv_conf *r)
{
	char buf[RESOLV_LINE_MAX];
	int lines = 0;
	bool skip = false;
	size_t len = 0;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		char *p = buf, *nl;

		len += n;
		while ((nl = memchr(p, '\n', len - (p - buf)))) {
			*nl = '\0';
			if (!skip)
				resolv_line(c, r, p);
			skip = false;
			if (++lines >= RESOLV_LINES_MAX)
				return;
			p = nl + 1;
		}
		len -= p - buf;
		memmove(buf, p, len);
		if (len == sizeof(buf) - 1) {	/* too long: skip to its end */
			skip = true;
			len = 0;
		}
	}
	if (len && !skip) {		/* a last line without newline */
		buf[len] = '\0';
		resolv_line(c, r, buf);
	}
}

/**
 * resolv_apply() - take what follows resolv.conf from a reading
 * @c:		execution context
 * @r:		the reading
 */
static void resolv_apply(struct ctx *c, const struct resolv_conf *r)
{
	int i;

	if (c->resolv_dns) {
		memcpy(c->dns4, r->dns4, sizeof(c->dns4));
		c->dns4_n = r->dns4_n;
		memcpy(c->dns6, r->dns6, sizeof(c->dns6));
		c->dns6_n = r->dns6_n;
	}
	if (c->resolv_search) {
		memcpy(c->dns_search, r->search, sizeof(c->dns_search));
		c->dns_search_n = r->search_n;
	}
	if (c->resolv_up) {
		memset(c->dns_up, 0, sizeof(c->dns_up));
		for (i = 0; i < r->up_n; i++)
			c->dns_up[i].addr = r->up[i];
		c->dns_up_n = r->up_n;
	}
}

/**
 * resolv_conf_file() - name servers and search list from a file, at start-up
 * @c:		execution context
 * @path:	file in resolv.conf(5) format
 *
 * Sets what follows the file: c->dns4 and c->dns6 if both are empty and
 * not --no-dhcp-dns, c->dns_search if empty and not --no-dhcp-search,
 * c->dns_up unless --dns-host, which is then the one resolver. A missing
 * file is not an error: nothing is set.
 */
void resolv_conf_file(struct ctx *c, const char *path)
{
	struct resolv_conf r;
	int fd;

	c->resolv_dns = !c->dns4_n && !c->dns6_n && !c->no_dhcp_dns;
	c->resolv_search = !c->dns_search_n && !c->no_dhcp_search;
	c->resolv_up = !inany_is_set(&c->dns_host);
	if (!c->resolv_up) {
		c->dns_up[0].addr = c->dns_host;
		c->dns_up_n = 1;
	}
	if (!c->resolv_dns && !c->resolv_search && !c->resolv_up)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		debug("DNS: can't read %s: %s", path, strerror(errno));
		return;
	}
	resolv_parse(c, fd, &r);
	close(fd);
	resolv_apply(c, &r);
	debug("DNS: %d IPv4 and %d IPv6 name servers, %d search domains, "
	      "%d resolvers after %s", c->dns4_n, c->dns6_n, c->dns_search_n,
	      c->dns_up_n, path);
}

/**
 * resolv_conf() - name servers and search list from /etc/resolv.conf
 * @c:		execution context
 */
void resolv_conf(struct ctx *c)
{
	resolv_conf_file(c, RESOLV_PATH);
}
