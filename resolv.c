// SPDX-License-Identifier: GPL-2.0-or-later
/* resolv.c - the host's resolvers: resolv.conf, followed while we run
 *
 * Theory of operation: /etc/resolv.conf gives what -D, -S and --dns-host
 * don't: the name servers and search list DHCP, DHCPv6 and RAs hand out
 * (resolv_s.offer), and the resolvers --dns-forward sends queries to
 * (resolv_s.up, the first DNS_UP_MAX "nameserver" lines, as the C library
 * takes them). What the user gave (c->dns_opt, c->dns_host) stays fixed;
 * the rest follows the file (resolv_s.follow_* say which). This state is
 * ours alone: set at start-up, changed only here, read by others through
 * resolv_offer() and resolv_up_*().
 *
 * The file is usually replaced, not rewritten (a rename over it), or is a
 * symbolic link into /run, so resolv_watch() watches with inotify the
 * directory it is in and, for a link, the directory of what the link
 * leads to, opened before the sandbox hides every path (isolation.c): we
 * read it again through those descriptors. A link that later leads
 * elsewhere can't be followed; that is logged once, and we keep what we
 * had. The file itself is watched too, for a file mounted over it (bind
 * mounts don't show in the directory) and rewritten in place; once the
 * file is replaced, that watch sees nothing more, and the directories'
 * do. A file with no name server at all, as while one is being written
 * in place, changes nothing either. Any change is logged once, old and
 * new, and what the guest already holds (a DHCP lease) stays as it is:
 * --dns-forward, which the guest keeps using, follows at once.
 *
 * Several resolvers: UDP queries go to the first that isn't marked as
 * failed; one that doesn't answer within RESOLV_UP_TIMEOUT_S of a query
 * is marked for RESOLV_UP_FAILED_S, and the next query goes to the next
 * one. We resend nothing: the guest's resolver retries. Bounded: at most
 * DNS_UP_MAX resolvers, RESOLV_LINES_MAX lines of RESOLV_LINE_MAX bytes.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "log.h"
#include "passt.h"
#include "resolv.h"

#define RESOLV_DIR		"/etc"
#define RESOLV_NAME		"resolv.conf"
#define RESOLV_PATH		RESOLV_DIR "/" RESOLV_NAME
#define RESOLV_LINE_MAX		4096
#define RESOLV_LINES_MAX	1000
#define RESOLV_EVENTS		(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | \
				 IN_DELETE | IN_MOVED_FROM)
#define RESOLV_UP_TIMEOUT_S	2
#define RESOLV_UP_TIMEOUT_MS	(RESOLV_UP_TIMEOUT_S * MS_PER_S)
#define RESOLV_UP_FAILED_S	30
#define RESOLV_UP_FAILED_MS	(RESOLV_UP_FAILED_S * MS_PER_S)

/**
 * struct resolv_upstream - a resolver of the host, where --dns-forward goes
 * @addr:		its address
 * @pending_since:	when a query went to it that no answer followed
 *			yet (ms), 0 if none
 * @failed_until:	skipped until then (ms): it didn't answer in time
 * @down_logged:	its failure was logged at info level already
 */
struct resolv_upstream {
	union inany_addr addr;
	int64_t pending_since;
	int64_t failed_until;
	bool down_logged;
};

/**
 * struct resolv_state - the resolvers we use now: set at start-up from the
 * options, or resolv.conf where they give none, changed only here
 * @offer:		name servers and search list the guest is given
 * @up:			where --dns-forward queries go, in order: --dns-host,
 *			or else the name servers of resolv.conf
 * @up_n:		how many
 * @up_gen:		changes with the list: an index into an older one
 *			means nothing (udp.c)
 * @follow_dns:		@offer's name servers follow resolv.conf: no -D,
 *			no --dns-forward, name servers handed out
 * @follow_search:	@offer's search list follows it: no -S, handed out
 * @follow_up:		@up follows it: no --dns-host
 */
static struct resolv_state {
	struct dns_offer offer;
	struct resolv_upstream up[DNS_UP_MAX];
	int up_n;
	uint32_t up_gen;
	bool follow_dns;
	bool follow_search;
	bool follow_up;
} resolv_s;

/**
 * struct resolv_conf - what one reading of resolv.conf gives
 * @offer:	name servers (IPv4 ones the guest can reach) and search list
 * @up:		first DNS_UP_MAX name servers, either family
 * @up_n:	how many
 */
struct resolv_conf {
	struct dns_offer offer;
	union inany_addr up[DNS_UP_MAX];
	int up_n;
};

/**
 * struct resolv_watch - how we reach resolv.conf once in the sandbox
 * @fd:		inotify descriptor, -1 if not watching
 * @wd_dir:	its watch on RESOLV_DIR
 * @wd_target:	its watch on the link target's directory, -1 if none
 * @wd_file:	its watch on the file itself, as it was at start-up, -1 if
 *		none: a file mounted over resolv.conf and rewritten in place
 *		changes nothing in either directory
 * @dir:	RESOLV_DIR, O_PATH
 * @target_dir:	directory of what the link led to at start-up, O_PATH, -1
 *		if it's @dir, or if there was no link
 * @target:	name of what the link led to, there; empty if no link
 * @link:	what the link said at start-up
 * @lost_logged: a link we can't follow was logged already
 * @last:	what the last reading gave
 */
static struct resolv_watch {
	int fd;
	int wd_dir;
	int wd_target;
	int wd_file;
	int dir;
	int target_dir;
	char target[NAME_MAX + 1];
	char link[PATH_MAX];
	bool lost_logged;
	struct resolv_conf last;
} resolv_w = { .fd = -1, .wd_dir = -1, .wd_target = -1, .wd_file = -1,
	       .dir = -1, .target_dir = -1 };

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

	r->offer.search_n = 0;	/* resolv.conf(5): the last line wins */
	while (r->offer.search_n < max && (w = strtok_r(NULL, " \t\r\n", save))) {
		size_t l = strlen(w);

		if (l > 1 && w[l - 1] == '.')
			w[--l] = '\0';
		if (w[0] == '.' || l >= DNS_NAME_MAX) {
			debug("DNS: search domain '%s' ignored", w);
			continue;
		}
		memcpy(r->offer.search[r->offer.search_n++], w, l + 1);
	}
}

/**
 * resolv_dns_usable() - can the guest reach this name server of the host?
 * @net:	what we give the guest
 * @a:		name server address
 *
 * Return: true unless it's 0.0.0.0 or on the host's loopback, other than
 *	   127.0.0.1 with an address standing for it (--map-host-loopback,
 *	   by default the gateway)
 */
bool resolv_dns_usable(const struct guest_net *net, struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	if (h == INADDR_ANY)
		return false;
	if ((h >> IN_CLASSA_NSHIFT) != IN_LOOPBACKNET)
		return true;
	return h == INADDR_LOOPBACK &&
	       inany_is_set(&net->map_host_lo[INANY_V4]);
}

/**
 * resolv_nameserver() - take a name server
 * @net:	what we give the guest: which IPv4 ones it can reach
 * @r:		reading so far
 * @w:		its address: IPv4, or IPv6 (for DHCPv6 and RAs, which decide
 *		themselves what the guest can reach); anything else is skipped
 */
static void resolv_nameserver(const struct guest_net *net,
			      struct resolv_conf *r, const char *w)
{
	struct in6_addr a6;
	struct in_addr a;

	if (inet_pton(AF_INET, w, &a) == 1) {
		if (r->up_n < DNS_UP_MAX)
			inany_from_v4(&r->up[r->up_n++], a);
		if (!resolv_dns_usable(net, a))
			debug("DNS: name server %s unreachable for guest", w);
		else if (r->offer.dns4_n < DNS4_MAX)
			r->offer.dns4[r->offer.dns4_n++] = a;
	} else if (inet_pton(AF_INET6, w, &a6) == 1) {
		if (r->up_n < DNS_UP_MAX)
			r->up[r->up_n++].a6 = a6;
		if (r->offer.dns6_n < DNS6_MAX)
			r->offer.dns6[r->offer.dns6_n++] = a6;
	}
}

/**
 * resolv_line() - take what we need from one line
 * @net:	what we give the guest
 * @r:		reading so far
 * @line:	the line, without its newline, modified
 */
static void resolv_line(const struct guest_net *net, struct resolv_conf *r,
			char *line)
{
	char *save, *kw = strtok_r(line, " \t\r\n", &save), *w;

	if (!kw)
		return;
	if (!strcmp(kw, "nameserver")) {
		w = strtok_r(NULL, " \t\r\n", &save);
		if (w)
			resolv_nameserver(net, r, w);
	} else if (!strcmp(kw, "search")) {
		resolv_search(r, &save, DNS_SEARCH_MAX);
	} else if (!strcmp(kw, "domain")) {
		resolv_search(r, &save, 1);
	}
}

/**
 * resolv_parse() - read a file in resolv.conf(5) format
 * @net:	what we give the guest
 * @fd:		the file, read to its end or RESOLV_LINES_MAX lines
 * @r:		what it gives, set
 *
 * With read() into a buffer of our own, no stdio: this also runs in the
 * sandbox, where nothing may allocate. Lines longer than RESOLV_LINE_MAX
 * are skipped whole.
 */
static void resolv_parse(const struct guest_net *net, int fd,
			 struct resolv_conf *r)
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
				resolv_line(net, r, p);
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
		resolv_line(net, r, buf);
	}
}

/**
 * resolv_following() - does anything we use follow resolv.conf?
 *
 * Return: true unless the options gave it all
 */
static bool resolv_following(void)
{
	return resolv_s.follow_dns || resolv_s.follow_search ||
	       resolv_s.follow_up;
}

/**
 * resolv_apply() - take what follows resolv.conf from a reading
 * @r:		the reading
 */
static void resolv_apply(const struct resolv_conf *r)
{
	struct dns_offer *o = &resolv_s.offer;
	int i;

	if (resolv_s.follow_dns) {
		memcpy(o->dns4, r->offer.dns4, sizeof(o->dns4));
		o->dns4_n = r->offer.dns4_n;
		memcpy(o->dns6, r->offer.dns6, sizeof(o->dns6));
		o->dns6_n = r->offer.dns6_n;
	}
	if (resolv_s.follow_search) {
		memcpy(o->search, r->offer.search, sizeof(o->search));
		o->search_n = r->offer.search_n;
	}
	if (resolv_s.follow_up) {
		memset(resolv_s.up, 0, sizeof(resolv_s.up));
		for (i = 0; i < r->up_n; i++)
			resolv_s.up[i].addr = r->up[i];
		resolv_s.up_n = r->up_n;
		resolv_s.up_gen++;	/* flows to the old ones: see udp.c */
	}
	resolv_w.last = *r;
}

/**
 * resolv_conf_file() - our resolvers from the options and a file, at start-up
 * @c:		execution context, configured
 * @path:	file in resolv.conf(5) format, NULL for the options alone
 *
 * Starts from the options (c->dns_opt, c->dns_host), then takes from the
 * file what follows it: the name servers if the options give none and
 * they're handed out (not -D none, --no-dhcp-dns, pasta without
 * --dhcp-dns), the search list likewise, the upstream list unless
 * --dns-host, which is then the one resolver. A missing file is not an
 * error: nothing is taken. Which IPv4 name servers the guest can reach, at
 * start-up, c->net says: ip.c takes it over only as conf() returns.
 */
void resolv_conf_file(const struct ctx *c, const char *path)
{
	const struct dns_offer *opt = &c->dns_opt;
	struct resolv_conf r;
	int fd;

	memset(&resolv_s, 0, sizeof(resolv_s));
	resolv_s.offer = *opt;
	resolv_s.follow_dns = !opt->dns4_n && !opt->dns6_n && !c->no_dhcp_dns;
	resolv_s.follow_search = !opt->search_n && !c->no_dhcp_search;
	resolv_s.follow_up = !inany_is_set(&c->dns_host);
	if (!resolv_s.follow_up) {
		resolv_s.up[0].addr = c->dns_host;
		resolv_s.up_n = 1;
	}
	if (!path || !resolv_following())
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		debug("DNS: can't read %s: %s", path, strerror(errno));
		return;
	}
	resolv_parse(&c->net, fd, &r);
	close(fd);
	resolv_apply(&r);
	debug("DNS: %d IPv4 and %d IPv6 name servers, %d search domains, "
	      "%d resolvers after %s", resolv_s.offer.dns4_n,
	      resolv_s.offer.dns6_n, resolv_s.offer.search_n, resolv_s.up_n,
	      path);
}

/**
 * resolv_conf() - our resolvers from the options and /etc/resolv.conf
 * @c:		execution context, configured
 */
void resolv_conf(const struct ctx *c)
{
	resolv_conf_file(c, RESOLV_PATH);
}

/**
 * resolv_watch_target() - also watch what resolv.conf links to, if it does
 *
 * Its directory must be opened now: the sandbox hides it later.
 */
static void resolv_watch_target(void)
{
	char real[PATH_MAX], *slash;
	ssize_t n;

	n = readlink(RESOLV_PATH, resolv_w.link, sizeof(resolv_w.link) - 1);
	if (n <= 0 || !realpath(RESOLV_PATH, real))
		return;		/* not a link, or it leads nowhere yet */
	resolv_w.link[n] = '\0';
	slash = strrchr(real, '/');
	if (strlen(slash + 1) >= sizeof(resolv_w.target))
		return;
	strcpy(resolv_w.target, slash + 1);
	*slash = '\0';
	if (!strcmp(real, RESOLV_DIR))
		return;
	resolv_w.target_dir = open(real[0] ? real : "/",
				   O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (resolv_w.target_dir >= 0)
		resolv_w.wd_target = inotify_add_watch(resolv_w.fd,
						       real[0] ? real : "/",
						       RESOLV_EVENTS);
	if (resolv_w.target_dir < 0 || resolv_w.wd_target < 0)
		warn("DNS: can't watch %s, where %s leads: %s", real,
		     RESOLV_PATH, strerror(errno));
}

/**
 * resolv_watch() - follow resolv.conf from now on, unless --no-follow-host
 * @c:		execution context
 *
 * Before the sandbox: the descriptors we read it through are opened here.
 */
void resolv_watch(const struct ctx *c)
{
	if (c->no_follow_host || !resolv_following())
		return;
	resolv_w.dir = open(RESOLV_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	resolv_w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (resolv_w.dir < 0 || resolv_w.fd < 0 ||
	    (resolv_w.wd_dir = inotify_add_watch(resolv_w.fd, RESOLV_DIR,
						 RESOLV_EVENTS)) < 0) {
		warn("DNS: can't watch %s, read at start-up only: %s",
		     RESOLV_PATH, strerror(errno));
		if (resolv_w.fd >= 0)
			close(resolv_w.fd);
		resolv_w.fd = -1;
		return;
	}
	resolv_watch_target();
	resolv_w.wd_file = inotify_add_watch(resolv_w.fd, RESOLV_PATH,
					     IN_CLOSE_WRITE);
	epoll_ref_add(c, resolv_w.fd, EPOLL_TYPE_RESOLV, 0, EPOLLIN);
}

/**
 * resolv_open() - open resolv.conf through the descriptors we hold
 *
 * Return: descriptor, or -1 (logged)
 */
static int resolv_open(void)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW;
	char link[PATH_MAX];
	int fd, dir;
	ssize_t n;

	n = readlinkat(resolv_w.dir, RESOLV_NAME, link, sizeof(link) - 1);
	if (n < 0) {			/* not a link (any more), or gone */
		fd = openat(resolv_w.dir, RESOLV_NAME, flags);
		goto out;
	}
	link[n] = '\0';
	if (resolv_w.target[0] && !strcmp(link, resolv_w.link)) {
		dir = resolv_w.target_dir >= 0 ? resolv_w.target_dir :
						 resolv_w.dir;
		fd = openat(dir, resolv_w.target, flags);
	} else if (!strchr(link, '/')) {	/* beside it, in RESOLV_DIR */
		fd = openat(resolv_w.dir, link, flags);
	} else {
		if (!resolv_w.lost_logged)
			warn("DNS: %s now leads to %s, out of our reach: "
			     "restart to follow it", RESOLV_PATH, link);
		resolv_w.lost_logged = true;
		return -1;
	}
out:
	if (fd < 0)
		debug("DNS: can't read %s: %s", RESOLV_PATH, strerror(errno));
	return fd;
}

/**
 * resolv_list_str() - name servers of a reading, for the log
 * @r:		the reading
 * @buf:	output
 * @size:	room in @buf
 *
 * Return: @buf
 */
static const char *resolv_list_str(const struct resolv_conf *r, char *buf,
				   size_t size)
{
	char a[INET6_ADDRSTRLEN];
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->up_n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "",
				inany_ntop(&r->up[i], a, sizeof(a)));
	return r->up_n ? buf : "none";
}

/**
 * resolv_search_str() - search list of a reading, for the log
 * @r:		the reading
 * @buf:	output
 * @size:	room in @buf
 *
 * Return: @buf
 */
static const char *resolv_search_str(const struct resolv_conf *r, char *buf,
				     size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < r->offer.search_n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "",
				r->offer.search[i]);
	return r->offer.search_n ? buf : "none";
}

/**
 * resolv_changed() - does a reading change what we use?
 * @r:		new reading
 *
 * Return: true if name servers or search list differ where they follow
 */
static bool resolv_changed(const struct resolv_conf *r)
{
	const struct resolv_conf *o = &resolv_w.last;
	const struct dns_offer *no = &r->offer, *oo = &o->offer;
	int i;

	if ((resolv_s.follow_up || resolv_s.follow_dns) &&
	    (r->up_n != o->up_n || memcmp(r->up, o->up, sizeof(r->up))))
		return true;
	if (resolv_s.follow_dns &&
	    (no->dns4_n != oo->dns4_n || no->dns6_n != oo->dns6_n ||
	     memcmp(no->dns4, oo->dns4, sizeof(no->dns4)) ||
	     memcmp(no->dns6, oo->dns6, sizeof(no->dns6))))
		return true;
	if (!resolv_s.follow_search || no->search_n != oo->search_n)
		return resolv_s.follow_search;
	for (i = 0; i < no->search_n; i++)
		if (strcmp(no->search[i], oo->search[i]))
			return true;
	return false;
}

/**
 * resolv_reread() - read resolv.conf again; take and log what changed
 * @net:	what we give the guest now
 */
static void resolv_reread(const struct guest_net *net)
{
	char ns_old[DNS_UP_MAX * (INET6_ADDRSTRLEN + 1)];
	char ns_new[sizeof(ns_old)];
	char s_old[DNS_SEARCH_MAX * DNS_NAME_MAX], s_new[sizeof(s_old)];
	struct resolv_conf r;
	int fd = resolv_open();

	if (fd < 0)
		return;
	resolv_parse(net, fd, &r);
	close(fd);
	if (!r.up_n) {
		debug("DNS: no name server in %s (being written?): kept ours",
		      RESOLV_PATH);
		return;
	}
	if (!resolv_changed(&r))
		return;
	info("DNS: %s changed: name servers %s (were %s), search %s (was %s)",
	     RESOLV_PATH, resolv_list_str(&r, ns_new, sizeof(ns_new)),
	     resolv_list_str(&resolv_w.last, ns_old, sizeof(ns_old)),
	     resolv_search_str(&r, s_new, sizeof(s_new)),
	     resolv_search_str(&resolv_w.last, s_old, sizeof(s_old)));
	resolv_apply(&r);
}

/**
 * resolv_handler() - something changed in a directory we watch
 * @net:	what we give the guest now (ip_net()): which IPv4 name servers
 *		it can reach
 */
void resolv_handler(const struct guest_net *net)
{
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool ours = false;
	ssize_t n;

	while ((n = read(resolv_w.fd, buf, sizeof(buf))) > 0) {
		const struct inotify_event *ev;
		ssize_t off;

		for (off = 0; off + (ssize_t)sizeof(*ev) <= n;
		     off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (ev->mask & IN_Q_OVERFLOW)
				ours = true;
			else if (ev->wd == resolv_w.wd_file)
				ours |= !!(ev->mask & IN_CLOSE_WRITE);
			else if (!ev->len)
				continue;
			else if (ev->wd == resolv_w.wd_dir)
				ours |= !strcmp(ev->name, RESOLV_NAME);
			else if (ev->wd == resolv_w.wd_target)
				ours |= !strcmp(ev->name, resolv_w.target);
		}
	}
	if (ours)
		resolv_reread(net);
}

/**
 * resolv_offer() - name servers and search list the guest is given now
 *
 * Return: what the options set, and what resolv.conf gives where they set
 *	   nothing; DHCP, DHCPv6 and RAs leave out what --no-dhcp-dns and
 *	   --no-dhcp-search say
 */
const struct dns_offer *resolv_offer(void)
{
	return &resolv_s.offer;
}

/**
 * resolv_up_pick() - the resolver a --dns-forward query goes to now
 * @c:		execution context
 *
 * Return: index in the upstream list: the first not marked as failed, or,
 *	   if all are, the first to come back; -1 if there is none
 */
int resolv_up_pick(const struct ctx *c)
{
	const struct resolv_upstream *up = resolv_s.up;
	int i, best = -1;

	for (i = 0; i < resolv_s.up_n; i++) {
		if (up[i].failed_until <= c->now)
			return i;
		if (best < 0 || up[i].failed_until < up[best].failed_until)
			best = i;
	}
	return best;
}

/**
 * resolv_up_addr() - address of a resolver in the upstream list
 * @i:		its index, from resolv_up_pick() of the current generation
 *
 * Return: the address
 */
const union inany_addr *resolv_up_addr(int i)
{
	return &resolv_s.up[i].addr;
}

/**
 * resolv_up_gen() - generation of the upstream list
 *
 * Return: a number that changes whenever resolv.conf changes the list
 */
uint32_t resolv_up_gen(void)
{
	return resolv_s.up_gen;
}

/**
 * resolv_up_sent() - a query went to a resolver: it should answer in time
 * @c:		execution context
 * @i:		its index in the upstream list
 */
void resolv_up_sent(const struct ctx *c, int i)
{
	if (i < resolv_s.up_n && !resolv_s.up[i].pending_since)
		resolv_s.up[i].pending_since = c->now;
}

/**
 * resolv_up_answered() - a resolver answered: it's there
 * @i:		its index in the upstream list
 */
void resolv_up_answered(int i)
{
	if (i >= resolv_s.up_n)
		return;
	resolv_s.up[i].pending_since = 0;
	resolv_s.up[i].failed_until = 0;
	resolv_s.up[i].down_logged = false;
}

/**
 * resolv_timer() - mark resolvers that left a query unanswered too long
 * @c:		execution context
 *
 * Runs at least once a second (passt.c, loop_timeout()).
 */
void resolv_timer(const struct ctx *c)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int i, next;

	for (i = 0; i < resolv_s.up_n; i++) {
		struct resolv_upstream *u = &resolv_s.up[i];

		if (!u->pending_since ||
		    c->now - u->pending_since < RESOLV_UP_TIMEOUT_MS)
			continue;
		u->pending_since = 0;
		u->failed_until = c->now + RESOLV_UP_FAILED_MS;
		next = resolv_up_pick(c);
		if (next == i || u->down_logged) {
			debug("DNS: resolver %s didn't answer",
			      inany_ntop(&u->addr, a, sizeof(a)));
			continue;
		}
		u->down_logged = true;
		info("DNS: resolver %s didn't answer in %d s: queries go to %s "
		     "for %d s", inany_ntop(&u->addr, a, sizeof(a)),
		     RESOLV_UP_TIMEOUT_S,
		     inany_ntop(&resolv_s.up[next].addr, b, sizeof(b)),
		     RESOLV_UP_FAILED_S);
	}
}
