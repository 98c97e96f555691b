// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl.c - the control socket (-c, --conf-path): forwarding rules changed
 * at run time by pesto(1), in upstream's protocol, version 2
 *
 * Theory of operation: a client connects to the AF_UNIX stream socket. We
 * greet it with a magic, the protocol version and our sizes of a table
 * name and a device name (struct ctl_hello), then dump each table of
 * rules: its id (1 for HOST, our FWD_IN; 3 for SPLICE, FWD_OUT), name,
 * capabilities and count, then its rules (fwd_rule_encode()), and a zero
 * byte. The client answers with whole tables in the same form (id, count,
 * rules), then a zero byte; a table it leaves out is emptied. The new
 * tables are checked as a whole, then applied (fwd_update()), or refused
 * with nothing changed; either way the connection ends. A client that
 * closes before the zero byte (pesto showing the rules) changes nothing.
 *
 * Unlike upstream: nothing here blocks. The dump goes out and the tables
 * come in as the socket takes them, with the rest of the loop running, so
 * a client that connects and stops reading costs running transfers
 * nothing, and is dropped after CTL_IDLE_MS. One client at a time, as
 * upstream: the next waits in the listening socket's backlog, and sees
 * the rules the one before it left. A refused update gets our reason as
 * text before the connection ends: our pesto prints it (upstream's
 * doesn't read it). Only our own user may change the rules (SO_PEERCRED),
 * and root where our user namespace maps it (pasta's own doesn't).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "ctl.h"
#include "fwd.h"
#include "log.h"
#include "passt.h"
#include "util.h"

#define CTL_MAGIC		"basil:s"	/* with its NUL: 8 bytes */
#define CTL_VERSION		2
#define CTL_NAME_SIZE		128		/* a table's name, with NUL */
#define CTL_HELLO_LEN		20
#define CTL_INFO_LEN		(CTL_NAME_SIZE + 8)
#define CTL_TABLE_MAX		(1 + CTL_INFO_LEN + \
				 FWD_RULES_MAX * FWD_RULE_WIRE_LEN)
#define CTL_BUF_MAX		(CTL_HELLO_LEN + FWD_PIFS * CTL_TABLE_MAX + 1)
#define CTL_IDLE_MS		5000	/* a client silent that long is dropped */
#define CTL_BACKLOG		32

/* Capabilities of a table, upstream's bits */
#define CTL_CAP_IPV4		0x01
#define CTL_CAP_IPV6		0x02
#define CTL_CAP_TCP		0x04
#define CTL_CAP_UDP		0x08
#define CTL_CAP_SCAN		0x10
#define CTL_CAP_IFNAME		0x20

/* Table ids on the wire, by enum fwd_pif */
static const uint8_t ctl_pif_id[FWD_PIFS] = { 1, 3 };
static const char *const ctl_pif_name[FWD_PIFS] = { "HOST", "SPLICE" };

/**
 * struct ctl_client - the client being served
 * @active:	there is one
 * @fd:		its socket
 * @pid:	its PID, for the log
 * @deadline:	when it's dropped if it stays silent
 * @out_len:	bytes of the dump
 * @out_off:	bytes of it sent
 * @in_len:	bytes received
 * @in_off:	bytes of those parsed
 * @pif:	table being received, -1 between tables
 * @left:	rules of it still to come, -1 before its count
 * @sent:	per table, the client sent it
 * @out:	the dump
 * @in:		what the client sent
 */
struct ctl_client {
	bool active;
	int fd;
	pid_t pid;
	int64_t deadline;
	size_t out_len;
	size_t out_off;
	size_t in_len;
	size_t in_off;
	int pif;
	long left;
	bool sent[FWD_PIFS];
	uint8_t out[CTL_BUF_MAX];
	uint8_t in[CTL_BUF_MAX];
};

static struct ctl_client ctl_cl;
static struct fwd_rules ctl_new[FWD_PIFS];	/* what a client sends */
static struct fwd_rules ctl_old;		/* FWD_IN, for a rollback */
static int ctl_listen_fd = -1;
static uid_t ctl_uid;		/* ours, read before the sandbox */
static int ctl_dir_fd = -1;	/* the socket's directory, for ctl_unlink() */
static const char *ctl_name;

/**
 * ctl_pifs() - how many tables we have
 * @c:		execution context
 *
 * Return: FWD_PIFS for pasta, 1 (FWD_IN) for passt
 */
static int ctl_pifs(const struct ctx *c)
{
	return c->mode == MODE_PASTA ? FWD_PIFS : 1;
}

/**
 * ctl_caps() - what a table's rules may be
 * @c:		execution context
 *
 * Return: CTL_CAP_* bits: families on, TCP and UDP, devices, and "auto"
 *	   in pasta
 */
static uint32_t ctl_caps(const struct ctx *c)
{
	uint32_t caps = CTL_CAP_TCP | CTL_CAP_UDP | CTL_CAP_IFNAME;

	if (!c->net.ip4_off || c->net.ip4_wait)
		caps |= CTL_CAP_IPV4;
	if (!c->net.ip6_off || c->net.ip6_wait)
		caps |= CTL_CAP_IPV6;
	if (c->mode == MODE_PASTA)
		caps |= CTL_CAP_SCAN;
	return caps;
}

/**
 * ctl_put_u32() - a 32-bit number in network order
 * @buf:	4 bytes, written
 * @v:		number
 */
static void ctl_put_u32(uint8_t *buf, uint32_t v)
{
	v = htonl(v);
	memcpy(buf, &v, sizeof(v));
}

/**
 * ctl_dump() - the greeting and every table, as the client reads them
 * @c:		execution context
 * @buf:	CTL_BUF_MAX bytes, written
 *
 * Return: bytes written
 */
static size_t ctl_dump(const struct ctx *c, uint8_t *buf)
{
	uint32_t caps = ctl_caps(c);
	size_t n = 0;
	int pif;

	memcpy(buf, CTL_MAGIC, sizeof(CTL_MAGIC));
	ctl_put_u32(buf + 8, CTL_VERSION);
	ctl_put_u32(buf + 12, CTL_NAME_SIZE);
	ctl_put_u32(buf + 16, IFNAMSIZ);
	n = CTL_HELLO_LEN;

	for (pif = 0; pif < ctl_pifs(c); pif++) {
		const struct fwd_rules *t = fwd_rules_now(pif);
		unsigned int i;

		buf[n++] = ctl_pif_id[pif];
		memset(buf + n, 0, CTL_NAME_SIZE);
		strcpy((char *)buf + n, ctl_pif_name[pif]);
		ctl_put_u32(buf + n + CTL_NAME_SIZE, caps);
		ctl_put_u32(buf + n + CTL_NAME_SIZE + 4, t->n);
		n += CTL_INFO_LEN;
		for (i = 0; i < t->n; i++, n += FWD_RULE_WIRE_LEN)
			fwd_rule_encode(&t->rule[i], buf + n);
	}
	buf[n++] = 0;
	return n;
}

/**
 * ctl_events() - what we wait for on the client's socket
 *
 * Return: EPOLLIN, and EPOLLOUT while the dump isn't all sent
 */
static uint32_t ctl_events(void)
{
	return EPOLLIN | EPOLLRDHUP |
	       (ctl_cl.out_off < ctl_cl.out_len ? EPOLLOUT : 0);
}

/**
 * ctl_end() - end the client's connection, and take the next one
 * @c:		execution context
 * @why:	why, if the client's update was refused: logged once and sent
 *		to it; NULL if not
 */
static void ctl_end(struct ctx *c, const char *why)
{
	if (why) {
		warn("Control client (PID %d): %s", ctl_cl.pid, why);
		send(ctl_cl.fd, why, strlen(why), MSG_DONTWAIT | MSG_NOSIGNAL);
		send(ctl_cl.fd, "\n", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	epoll_ref_del(c, ctl_cl.fd);
	close(ctl_cl.fd);
	ctl_cl.active = false;
	epoll_ref_mod(c, ctl_listen_fd, EPOLL_TYPE_CTL_LISTEN, 0, EPOLLIN);
}

/**
 * ctl_send() - send as much of the dump as the socket takes
 * @c:		execution context
 *
 * Return: 0, or -1 if the client went (its connection ended)
 */
static int ctl_send(struct ctx *c)
{
	while (ctl_cl.out_off < ctl_cl.out_len) {
		ssize_t n = send(ctl_cl.fd, ctl_cl.out + ctl_cl.out_off,
				 ctl_cl.out_len - ctl_cl.out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			debug("Control client (PID %d) went: %s", ctl_cl.pid,
			      n ? strerror(errno) : "closed");
			ctl_end(c, NULL);
			return -1;
		}
		ctl_cl.out_off += n;
	}
	if (ctl_cl.out_off == ctl_cl.out_len)
		epoll_ref_mod(c, ctl_cl.fd, EPOLL_TYPE_CTL, 0, ctl_events());
	return 0;
}

/**
 * ctl_table_start() - a table's id and count came in
 * @c:		execution context
 * @id:		table id on the wire
 * @count:	rules it has
 * @why:	reason, on failure
 * @why_len:	its size
 *
 * Return: 0 on success, -1 if there's no such table, it came twice, or
 *	   it's too big
 */
static int ctl_table_start(const struct ctx *c, uint8_t id, uint32_t count,
			   char *why, size_t why_len)
{
	int pif;

	for (pif = 0; pif < ctl_pifs(c) && ctl_pif_id[pif] != id; pif++)
		;
	if (pif == ctl_pifs(c)) {
		snprintf(why, why_len, "no forwarding table %u", id);
		return -1;
	}
	if (ctl_cl.sent[pif] || count > FWD_RULES_MAX) {
		snprintf(why, why_len, "%s table %s", ctl_pif_name[pif],
			 ctl_cl.sent[pif] ? "twice" : "with too many rules");
		return -1;
	}
	ctl_cl.sent[pif] = true;
	ctl_new[pif].n = 0;
	ctl_cl.pif = pif;
	ctl_cl.left = count;
	return 0;
}

/**
 * ctl_rule_in() - a rule came in: add it to its new table
 * @c:		execution context
 * @buf:	FWD_RULE_WIRE_LEN bytes
 * @why:	reason, on failure
 * @why_len:	its size
 *
 * The same rule twice is one rule; rules that conflict, or one we can't
 * have, are refused.
 *
 * Return: 0 on success, -1 on failure
 */
static int ctl_rule_in(const struct ctx *c, const uint8_t *buf, char *why,
		       size_t why_len)
{
	struct fwd_rule r;

	if (fwd_rule_decode(&r, buf, why, why_len) ||
	    fwd_rule_add(&ctl_new[ctl_cl.pif], &r, why, why_len))
		return -1;
	if ((r.flags & FWD_RULE_SCAN) && !(ctl_caps(c) & CTL_CAP_SCAN)) {
		snprintf(why, why_len, "\"auto\" rules are for pasta only");
		return -1;
	}
	ctl_cl.left--;
	return 0;
}

/**
 * ctl_parse() - take what came in as far as it goes
 * @c:		execution context
 * @why:	reason, on failure
 * @why_len:	its size
 *
 * Return: 1 once the tables ended, 0 if more is to come, -1 on bad input
 */
static int ctl_parse(const struct ctx *c, char *why, size_t why_len)
{
	for (;;) {
		const uint8_t *p = ctl_cl.in + ctl_cl.in_off;
		size_t have = ctl_cl.in_len - ctl_cl.in_off;
		uint32_t count;

		if (ctl_cl.pif >= 0 && ctl_cl.left > 0) {
			if (have < FWD_RULE_WIRE_LEN)
				return 0;
			if (ctl_rule_in(c, p, why, why_len))
				return -1;
			ctl_cl.in_off += FWD_RULE_WIRE_LEN;
			continue;
		}
		ctl_cl.pif = -1;
		if (have < 1)
			return 0;
		if (!p[0])
			return 1;
		if (have < 5)
			return 0;
		memcpy(&count, p + 1, sizeof(count));
		if (ctl_table_start(c, p[0], ntohl(count), why, why_len))
			return -1;
		ctl_cl.in_off += 5;
	}
}

/**
 * ctl_apply() - put the client's tables in force, all or none
 * @c:		execution context
 * @why:	reason, on failure
 * @why_len:	its size
 *
 * Return: 0 on success, -1 if a table was refused: nothing changed
 */
static int ctl_apply(struct ctx *c, char *why, size_t why_len)
{
	int pif;

	for (pif = 0; pif < ctl_pifs(c); pif++) {
		if (!ctl_cl.sent[pif])
			ctl_new[pif].n = 0;
	}
	ctl_old = *fwd_rules_now(FWD_IN);
	if (fwd_update(c, FWD_IN, &ctl_new[FWD_IN], why, why_len))
		return -1;
	if (ctl_pifs(c) > FWD_OUT &&
	    fwd_update(c, FWD_OUT, &ctl_new[FWD_OUT], why, why_len)) {
		char ignored[FWD_ERR_LEN];

		fwd_update(c, FWD_IN, &ctl_old, ignored, sizeof(ignored));
		return -1;
	}
	return 0;
}

/**
 * ctl_recv() - read what the client sends, and act once it's all there
 * @c:		execution context
 */
static void ctl_recv(struct ctx *c)
{
	char why[FWD_ERR_LEN];
	ssize_t n;
	int ret;

	if (ctl_cl.in_len == sizeof(ctl_cl.in)) {
		ctl_end(c, "more than any tables we can take");
		return;
	}
	n = recv(ctl_cl.fd, ctl_cl.in + ctl_cl.in_len,
		 sizeof(ctl_cl.in) - ctl_cl.in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		debug("Control client (PID %d) closed, rules unchanged",
		      ctl_cl.pid);
		ctl_end(c, NULL);
		return;
	}
	ctl_cl.in_len += n;
	ctl_cl.deadline = c->now + CTL_IDLE_MS;
	ret = ctl_parse(c, why, sizeof(why));
	if (ret < 0 || (ret > 0 && ctl_apply(c, why, sizeof(why))))
		ctl_end(c, why);
	else if (ret > 0)
		ctl_end(c, NULL);
}

/**
 * ctl_handler() - an event on the client's socket
 * @c:		execution context
 * @events:	epoll events
 */
void ctl_handler(struct ctx *c, uint32_t events)
{
	if (!ctl_cl.active)
		return;
	ctl_cl.deadline = c->now + CTL_IDLE_MS;
	if ((events & EPOLLOUT) && ctl_send(c))
		return;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		ctl_recv(c);
}

/**
 * ctl_peer_ok() - may a client change our rules?
 * @fd:		its socket
 * @pid:	its PID, set
 *
 * Return: true if it runs as our user, or root
 */
static bool ctl_peer_ok(int fd, pid_t *pid)
{
	struct ucred uc;
	socklen_t sl = sizeof(uc);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &sl)) {
		warn("Control client: no credentials: %s", strerror(errno));
		return false;
	}
	*pid = uc.pid;
	if (uc.uid == ctl_uid || !uc.uid)
		return true;
	warn("Control client (PID %d) refused: UID %u isn't ours", uc.pid,
	     uc.uid);
	return false;
}

/**
 * ctl_listen_handler() - a client connects: serve it, the next ones wait
 * @c:		execution context
 */
void ctl_listen_handler(struct ctx *c)
{
	int fd;

	if (ctl_cl.active)
		return;
	fd = accept4(ctl_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			warn("Control socket: accept: %s", strerror(errno));
		return;
	}
	if (!ctl_peer_ok(fd, &ctl_cl.pid)) {
		close(fd);
		return;
	}
	info("Accepted configuration client, PID %d", ctl_cl.pid);
	ctl_cl.active = true;
	ctl_cl.fd = fd;
	ctl_cl.deadline = c->now + CTL_IDLE_MS;
	ctl_cl.out_len = ctl_dump(c, ctl_cl.out);
	ctl_cl.out_off = ctl_cl.in_len = ctl_cl.in_off = 0;
	ctl_cl.pif = -1;
	memset(ctl_cl.sent, 0, sizeof(ctl_cl.sent));
	/* One at a time: the next connection waits in the backlog */
	epoll_ref_mod(c, ctl_listen_fd, EPOLL_TYPE_CTL_LISTEN, 0, 0);
	epoll_ref_add(c, fd, EPOLL_TYPE_CTL, 0, ctl_events());
	ctl_send(c);
}

/**
 * ctl_timer() - drop a client that stays silent
 * @c:		execution context
 */
void ctl_timer(struct ctx *c)
{
	if (ctl_cl.active && c->now >= ctl_cl.deadline)
		ctl_end(c, "silent for too long, dropped");
}

/**
 * ctl_init() - listen on -c PATH, if given
 * @c:		execution context
 *
 * Before the sandbox: the path must be reachable, and its directory is
 * kept to remove the socket at exit.
 */
void ctl_init(struct ctx *c)
{
	int fd;

	if (!c->ctl_path[0])
		return;
	fd = unix_sock_listen(c->ctl_path, "-c", CTL_BACKLOG, &ctl_dir_fd,
			      &ctl_name);
	ctl_listen_fd = fd;
	ctl_uid = geteuid();
	epoll_ref_add(c, fd, EPOLL_TYPE_CTL_LISTEN, 0, EPOLLIN);
	info("Configuration socket: %s", c->ctl_path);
}

/**
 * ctl_unlink() - remove the socket's file, at exit
 */
void ctl_unlink(void)
{
	if (ctl_dir_fd >= 0)
		unlinkat(ctl_dir_fd, ctl_name, 0);
}
