// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bypass.c - pasta --bypass: the command's TCP connections made on the host
 * and handed over, so that the kernel alone carries their data
 *
 * Before the command runs, its process installs a seccomp filter that stops
 * every connect() and tells us (SECCOMP_RET_USER_NOTIF); the filter's
 * listener comes to us over a socket pair. Containers' filters' listeners
 * come from their runtime (bypass_agent.c), served alike. For each call we
 * read the destination once from the caller's memory into our own copy,
 * and decide on that copy: a TCP socket, not bound to an address, in no
 * state yet, to a destination the guest would reach as it is through the
 * tap (ip_dst_direct()) and --bypass names. Then we make a socket on the host
 * with the caller's options, connect it to our copy, and put it in place of
 * the caller's socket (SECCOMP_IOCTL_NOTIF_ADDFD, SECCOMP_ADDFD_FLAG_SETFD):
 * at once with EINPROGRESS for a non-blocking socket, once connected for a
 * blocking one. Anything else continues in the namespace as if we weren't
 * there (SECCOMP_USER_NOTIF_FLAG_CONTINUE): loopback, the namespace's own
 * addresses, the gateway and what it stands for, what the address policy
 * refuses, UNIX, UDP and other sockets. The kernel reads the address again
 * then, but only to connect in the namespace, where the tap path and its
 * policy apply: no destination becomes reachable that wasn't.
 *
 * The caller's memory and descriptors are reached with process_vm_readv()
 * and pidfd_getfd(): the command runs as our user (or in our user
 * namespace), our own child; each notification's ID is checked valid after
 * reading, so a PID reused in between is never acted on.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bypass.h"
#include "ip.h"
#include "isolation.h"
#include "log.h"
#include "passt.h"
#include "util.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD		O_EXCL	/* Linux 6.9: a thread's pidfd */
#endif

/* Linux 5.19: once we have read a notification, only a fatal signal ends
 * the call, so that a signal can't leave the caller with the socket it had
 * while we connect another one for it
 */
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV	(1UL << 5)
#endif

#define BYPASS_PENDING_MAX	128	/* blocking connect()s in progress */
#define BYPASS_OPT_LEN		16	/* the largest option we copy */

/**
 * struct bypass_call - one connect() we hand over: our copy of it
 * @lfd:	the listener it came from
 * @id:		notification ID
 * @pid:	calling thread
 * @fd:		its socket's descriptor number
 * @sa:		destination, read once from its memory
 * @sl:		length of @sa
 * @cloexec:	its descriptor has FD_CLOEXEC
 * @blocking:	its socket is blocking
 * @s:		our socket, connecting, -1 if none
 * @deadline:	for a blocking socket with SO_SNDTIMEO: when connect()
 *		returns EINPROGRESS (ms, monotonic), else 0
 */
struct bypass_call {
	int lfd;
	uint64_t id;
	pid_t pid;
	int fd;
	union sockaddr_inany sa;
	socklen_t sl;
	bool cloexec;
	bool blocking;
	int s;
	int64_t deadline;
};

/**
 * struct bypass_opt - a socket option we copy from the caller's socket
 * @level:	SOL_SOCKET, IPPROTO_TCP, IPPROTO_IP or IPPROTO_IPV6
 * @name:	option
 * @family:	only for sockets of this family, 0 for both
 * @bound:	it only matters to a socket bound to a port (bind() rules)
 */
struct bypass_opt {
	int level;
	int name;
	int family;
	bool bound;
};

/* Copied where the caller's value differs from a new socket's in the
 * namespace: what the program set, not what the namespace defaults to
 */
static const struct bypass_opt bypass_opts[] = {
	{ SOL_SOCKET,	SO_REUSEADDR,		0,	true },
	{ SOL_SOCKET,	SO_REUSEPORT,		0,	true },
	{ SOL_SOCKET,	SO_KEEPALIVE,		0,	false },
	{ SOL_SOCKET,	SO_OOBINLINE,		0,	false },
	{ SOL_SOCKET,	SO_PRIORITY,		0,	false },
	{ SOL_SOCKET,	SO_RCVLOWAT,		0,	false },
	{ SOL_SOCKET,	SO_SNDBUF,		0,	false },
	{ SOL_SOCKET,	SO_RCVBUF,		0,	false },
	{ SOL_SOCKET,	SO_LINGER,		0,	false },
	{ SOL_SOCKET,	SO_SNDTIMEO,		0,	false },
	{ SOL_SOCKET,	SO_RCVTIMEO,		0,	false },
	{ IPPROTO_TCP,	TCP_NODELAY,		0,	false },
	{ IPPROTO_TCP,	TCP_CORK,		0,	false },
	{ IPPROTO_TCP,	TCP_KEEPIDLE,		0,	false },
	{ IPPROTO_TCP,	TCP_KEEPINTVL,		0,	false },
	{ IPPROTO_TCP,	TCP_KEEPCNT,		0,	false },
	{ IPPROTO_TCP,	TCP_USER_TIMEOUT,	0,	false },
	{ IPPROTO_TCP,	TCP_SYNCNT,		0,	false },
	{ IPPROTO_TCP,	TCP_LINGER2,		0,	false },
	{ IPPROTO_TCP,	TCP_WINDOW_CLAMP,	0,	false },
	{ IPPROTO_TCP,	TCP_NOTSENT_LOWAT,	0,	false },
	{ IPPROTO_TCP,	TCP_CONGESTION,		0,	false },
	{ IPPROTO_IP,	IP_TOS,			AF_INET,	false },
	{ IPPROTO_IP,	IP_TTL,			AF_INET,	false },
	{ IPPROTO_IPV6,	IPV6_TCLASS,		AF_INET6,	false },
	{ IPPROTO_IPV6,	IPV6_UNICAST_HOPS,	AF_INET6,	false },
	{ IPPROTO_IPV6,	IPV6_V6ONLY,		AF_INET6,	false },
};

/**
 * struct bypass_default - a new namespace socket's value of an option
 * @len:	its length, 0 if the option isn't there
 * @val:	the value
 */
struct bypass_default {
	socklen_t len;
	uint8_t val[BYPASS_OPT_LEN];
};

/* By family (0: IPv4, 1: IPv6), as read at start-up */
static struct bypass_default bypass_defaults[2][ARRAY_SIZE(bypass_opts)];

static int bypass_sv[2] = { -1, -1 };	/* the listener's way to us */
/* Listeners: the command's filter's, and those --bypass-agent receives from
 * the container runtime, one a container (or exec); by slot, -1 if free
 */
#define BYPASS_LISTENERS	32
static int bypass_lfd[BYPASS_LISTENERS];
static int bypass_proc = -1;		/* /proc, for descriptors' flags */

/**
 * struct bypass_pidfd - a pidfd of a thread that called connect()
 * @pid:	the thread, 0 if the slot is free
 * @pidfd:	its pidfd
 */
struct bypass_pidfd {
	pid_t pid;
	int pidfd;
};
#define BYPASS_PIDFDS		8	/* threads whose pidfd we keep */
static struct bypass_pidfd bypass_pidfds[BYPASS_PIDFDS];
static unsigned int bypass_pidfd_next;	/* the slot to reuse next */
static struct bypass_call bypass_pending[BYPASS_PENDING_MAX];
static int bypass_pending_n;
static bool bypass_started;

/**
 * struct bypass_counts - what became of the connect() calls
 * @handed:	made on the host and handed over
 * @ns:		continued in the namespace: not TCP, bound, not named by
 *		--bypass
 * @refused:	continued in the namespace: the destination isn't one the
 *		guest reaches as it is (loopback, its own, the gateway, what
 *		the address policy refuses)
 * @failed:	the host's connect() failed: its error returned
 * @gone:	the caller went away, or was interrupted, first
 */
static struct bypass_counts {
	unsigned long handed;
	unsigned long ns;
	unsigned long refused;
	unsigned long failed;
	unsigned long gone;
} bypass_count;

/**
 * bypass_net_has() - is an address in a range?
 * @net:	range
 * @a:		address
 *
 * Return: true if it is
 */
static bool bypass_net_has(const struct bypass_net *net,
			   const union inany_addr *a)
{
	int bits = net->prefix, i;

	for (i = 0; bits > 0; i++, bits -= 8) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));

		if ((a->a6.s6_addr[i] ^ net->addr.a6.s6_addr[i]) & mask)
			return false;
	}
	return true;
}

/**
 * bypass_spec_has() - does --bypass name this destination?
 * @spec:	what it names
 * @a:		address
 * @port:	port
 *
 * Return: true if it does
 */
static bool bypass_spec_has(const struct bypass_spec *spec,
			    const union inany_addr *a, uint16_t port)
{
	bool net = !spec->nets_n, ports = !spec->ports_n;
	int i;

	for (i = 0; !net && i < spec->nets_n; i++)
		net = bypass_net_has(&spec->nets[i], a);
	for (i = 0; !ports && i < spec->ports_n; i++)
		ports = port >= spec->ports[i].first &&
			port <= spec->ports[i].last;
	return net && ports;
}

/**
 * bypass_child_prepare() - before the command's process forks: the socket
 *			    pair its filter's listener comes over
 * @c:		execution context
 */
void bypass_child_prepare(const struct ctx *c)
{
	if (!c->bypass)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, bypass_sv))
		die("--bypass: socketpair: %s", strerror(errno));
}

/**
 * bypass_child_filter() - in the command's process, just before it runs:
 *			   stop every connect() and send us the listener
 * @c:		execution context
 *
 * Then it waits until we serve the listener (bypass_serve()): a call we
 * haven't read yet can still be interrupted by a signal, and would return
 * EINTR with nothing started, which connect() never does.
 *
 * Any other call, and a call of another ABI (which connect() through the
 * namespace as usual), is allowed. Without no_new_privs: the process is
 * root in the namespace pasta made, or root.
 */
void bypass_child_filter(const struct ctx *c)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ISOLATE_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { ARRAY_SIZE(f), f };
	int fd, e = 0;

	if (!c->bypass)
		return;
	close(bypass_sv[0]);
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			  SECCOMP_FILTER_FLAG_NEW_LISTENER |
			  SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
	if (fd < 0 && errno == EINVAL)		/* before Linux 5.19 */
		fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				  SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		e = errno;
	if (fd_send(bypass_sv[1], &e, sizeof(e), fd) || e)
		_exit(EXIT_FAILURE);
	close(fd);
	if (read(bypass_sv[1], &e, 1) != 1)
		_exit(EXIT_FAILURE);	/* pasta failed its set-up */
	close(bypass_sv[1]);
}

/**
 * bypass_defaults_read() - the options of new TCP sockets in the namespace
 * @tmpl:	such sockets, IPv4 and IPv6 (-1: none, nothing copied)
 */
static void bypass_defaults_read(const int tmpl[2])
{
	int fam;

	for (fam = 0; fam < 2; fam++) {
		int family = fam ? AF_INET6 : AF_INET, s = tmpl[fam];
		unsigned int i;

		for (i = 0; s >= 0 && i < ARRAY_SIZE(bypass_opts); i++) {
			const struct bypass_opt *o = &bypass_opts[i];
			struct bypass_default *d = &bypass_defaults[fam][i];

			d->len = sizeof(d->val);
			if (o->family && o->family != family)
				d->len = 0;
			else if (getsockopt(s, o->level, o->name, d->val,
					    &d->len))
				d->len = 0;
		}
	}
}

/**
 * bypass_listener_add() - serve a filter's listener
 * @c:		execution context
 * @fd:		the listener, ours once passed here
 *
 * Return: 0 on success, -1 if every slot is taken (@fd closed: the
 *	   filter's calls then fail with ENOSYS)
 */
int bypass_listener_add(struct ctx *c, int fd)
{
	unsigned int i;

	for (i = 0; i < BYPASS_LISTENERS; i++) {
		if (bypass_lfd[i] >= 0)
			continue;
		bypass_lfd[i] = fd;
		/* The caller's thread and ours then hand the CPU to each
		 * other as in a synchronous call: a notified connect() costs
		 * 20 us instead of 31 here (test/notifrtt). EINVAL before
		 * Linux 6.6, where the wake-ups stay ordinary.
		 */
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
			  SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP))
			debug("--bypass: no synchronous wake-ups: %s",
			      strerror(errno));
		epoll_ref_add(c, fd, EPOLL_TYPE_BYPASS, i, EPOLLIN);
		return 0;
	}
	close(fd);
	return -1;
}

/**
 * bypass_start() - what every listener needs, and the command's listener
 *		    once it runs (--bypass)
 * @c:		execution context
 * @tmpl:	new TCP sockets in the namespace, IPv4 and IPv6, or -1
 */
void bypass_start(struct ctx *c, const int tmpl[2])
{
	int e = 0, fd = -1;
	unsigned int i;

	for (i = 0; i < BYPASS_LISTENERS; i++)
		bypass_lfd[i] = -1;
	bypass_started = true;
	bypass_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	bypass_defaults_read(tmpl);
	if (bypass_sv[0] < 0)		/* no command of ours: agent only */
		return;
	close(bypass_sv[1]);
	if (fd_recv(bypass_sv[0], &e, sizeof(e), &fd) || (!e && fd < 0))
		die("--bypass: the command's process didn't start");
	if (e)
		die("--bypass: can't install the command's filter: %s",
		    strerror(e));
	bypass_listener_add(c, fd);
	info("--bypass: the command's TCP connections go straight to the host");
}

/**
 * bypass_serve() - we're about to serve the listener: let the command run
 */
void bypass_serve(void)
{
	if (bypass_sv[0] < 0)
		return;
	if (write(bypass_sv[0], "g", 1) != 1)
		die("--bypass: can't start the command: %s", strerror(errno));
	close(bypass_sv[0]);
	bypass_sv[0] = -1;
}

/**
 * bypass_reply() - answer a notification
 * @lfd:	listener it came from
 * @id:		its ID
 * @error:	negative errno for the call to return, or 0
 * @cont:	let the call run in the namespace instead
 *
 * Return: 0 on success, -1 if the caller is gone (or interrupted)
 */
static int bypass_reply(int lfd, uint64_t id, int error, bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = id,
		.error = error,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	return ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) ? -1 : 0;
}

/**
 * bypass_valid() - is the caller still waiting for this notification?
 * @call:	the call
 *
 * Return: true if it is
 */
static bool bypass_valid(const struct bypass_call *call)
{
	uint64_t id = call->id;

	return !ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id);
}

/**
 * bypass_fd_flags() - the flags of the caller's descriptor
 * @pid:	calling thread
 * @fd:		descriptor
 *
 * From /proc/PID/fdinfo/FD: "flags:" has the file's (O_NONBLOCK) and the
 * descriptor's (O_CLOEXEC), which no call on our copy of it would tell.
 *
 * Return: the flags, -1 if they can't be read
 */
static long bypass_fd_flags(pid_t pid, int fd)
{
	char path[48], buf[256], *flags;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "%d/fdinfo/%d", pid, fd);
	f = bypass_proc < 0 ? -1 : openat(bypass_proc, path,
					  O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	flags = strstr(buf, "flags:");
	return flags ? (long)strtoul(flags + strlen("flags:"), NULL, 8) : -1;
}

/**
 * bypass_caller_sock() - a copy of the caller's descriptor
 * @pid:	calling thread
 * @fd:		its descriptor
 *
 * The thread's pidfd is kept for its next calls: a program connecting in a
 * loop costs pidfd_open() once. A PID whose thread is gone may be another
 * thread's by now: its old pidfd then says ESRCH, and a new one is opened
 * (the notification's ID, checked valid afterwards, says the PID is the
 * caller's).
 *
 * Return: our descriptor for the same socket, or -1
 */
static int bypass_caller_sock(pid_t pid, int fd)
{
	struct bypass_pidfd *p = NULL;
	unsigned int i;
	int s;

	if (pid <= 0)		/* not in our PID namespace */
		return -1;
	for (i = 0; i < ARRAY_SIZE(bypass_pidfds) && !p; i++) {
		if (bypass_pidfds[i].pid != pid)
			continue;
		s = (int)syscall(SYS_pidfd_getfd, bypass_pidfds[i].pidfd, fd, 0);
		if (s >= 0 || errno != ESRCH)
			return s;
		p = &bypass_pidfds[i];	/* that thread is gone: PID reused */
	}
	if (!p)
		p = &bypass_pidfds[bypass_pidfd_next++ % BYPASS_PIDFDS];
	if (p->pid)
		close(p->pidfd);
	p->pid = 0;
	p->pidfd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
	if (p->pidfd < 0 && errno == EINVAL)	/* before 6.9: leaders only */
		p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (p->pidfd < 0)
		return -1;
	p->pid = pid;
	return (int)syscall(SYS_pidfd_getfd, p->pidfd, fd, 0);
}

/**
 * bypass_sock_int() - an int option of a socket
 * @s:		socket
 * @level:	level
 * @name:	option
 *
 * Return: its value, -1 if it can't be read
 */
static int bypass_sock_int(int s, int level, int name)
{
	socklen_t sl = sizeof(int);
	int v;

	return getsockopt(s, level, name, &v, &sl) ? -1 : v;
}

/**
 * bypass_sock_fit() - is the caller's socket one we hand over?
 * @theirs:	our copy of it
 * @family:	family of the destination
 * @sport:	port it's bound to, set (0 if none)
 *
 * A TCP socket of the destination's family, not connected, connecting or
 * listening, not bound to an address (a port on any address is fine: ours
 * gets it on the host if it can) nor to a device. Four reads: the address
 * has the family; only TCP's stream sockets answer TCP_INFO (a raw socket
 * of protocol TCP doesn't), and MPTCP's have a protocol of their own.
 *
 * Return: true if it is
 */
static bool bypass_sock_fit(int theirs, int family, uint16_t *sport)
{
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);
	struct tcp_info ti;
	union inany_addr a;
	socklen_t tl = sizeof(ti);

	if (getsockname(theirs, &sa.sa, &sl) || sa.sa.sa_family != family ||
	    inany_from_sockaddr(&a, sport, &sa) || !inany_is_unspecified(&a))
		return false;
	if (bypass_sock_int(theirs, SOL_SOCKET, SO_PROTOCOL) != IPPROTO_TCP ||
	    bypass_sock_int(theirs, SOL_SOCKET, SO_BINDTOIFINDEX) != 0)
		return false;
	return !getsockopt(theirs, IPPROTO_TCP, TCP_INFO, &ti, &tl) &&
	       ti.tcpi_state == TCP_CLOSE;
}

/**
 * bypass_opts_copy() - the options the caller set, onto our socket
 * @theirs:	their socket
 * @ours:	ours
 * @family:	of both
 * @bound:	theirs is bound to a port
 *
 * Each option read is a system call (about 1 us here, a third of our
 * time per call): those that only bind() looks at are left out unless
 * theirs is bound.
 */
static void bypass_opts_copy(int theirs, int ours, int family, bool bound)
{
	const struct bypass_default *d = bypass_defaults[family == AF_INET6];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bypass_opts); i++) {
		const struct bypass_opt *o = &bypass_opts[i];
		uint8_t val[BYPASS_OPT_LEN];
		socklen_t len = sizeof(val);

		if (!d[i].len || (o->bound && !bound) ||
		    getsockopt(theirs, o->level, o->name, val, &len))
			continue;
		if (len == d[i].len && !memcmp(val, d[i].val, len))
			continue;
		if (o->level == SOL_SOCKET &&
		    (o->name == SO_SNDBUF || o->name == SO_RCVBUF))
			*(int *)val /= 2;	/* the kernel doubles it */
		if (setsockopt(ours, o->level, o->name, val, len))
			debug("--bypass: option %d/%d not copied: %s",
			      o->level, o->name, strerror(errno));
	}
}

/**
 * bypass_connect() - our socket on the host, connecting where the caller's
 *		      was to, with its options
 * @c:		execution context
 * @call:	the call, with our copy of the destination
 * @theirs:	their socket
 * @sport:	port it's bound to, 0 if none
 * @err:	set if the call is ours: 0 if connected, EINPROGRESS if
 *		connecting (@call->s set either way), else the error the
 *		caller's connect() returns
 *
 * A blocking caller waits in a slot of its own: with none free, the call
 * runs in the namespace, as it does if we can't make a socket.
 *
 * Return: true if the call is ours, false to let it run in the namespace
 */
static bool bypass_connect(const struct ctx *c, struct bypass_call *call,
			   int theirs, uint16_t sport, int *err)
{
	int family = call->sa.sa.sa_family, s;
	struct timeval tv;
	socklen_t tl = sizeof(tv);

	if (call->blocking && bypass_pending_n == BYPASS_PENDING_MAX)
		return false;
	s = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   IPPROTO_TCP);
	if (s < 0)
		return false;
	bypass_opts_copy(theirs, s, family, sport);
	if (ip_sock_outbound(c, s, family, sport)) {
		close(s);
		return false;
	}
	*err = connect(s, &call->sa.sa, call->sl) ? errno : 0;
	if (*err && *err != EINPROGRESS) {
		close(s);
		return true;
	}
	call->s = s;
	call->deadline = 0;
	if (call->blocking && !getsockopt(theirs, SOL_SOCKET, SO_SNDTIMEO, &tv,
					  &tl) && (tv.tv_sec || tv.tv_usec))
		call->deadline = c->now + tv.tv_sec * 1000 + tv.tv_usec / 1000;
	return true;
}

/**
 * bypass_swap() - put our socket in place of the caller's
 * @call:	the call, with our socket, connecting
 *
 * A blocking caller gets it blocking, and at once, before it's connected:
 * if a signal interrupts the call, the socket the caller holds is the one
 * connecting, as it would be without us (a restarted connect() waits for
 * it, poll() tells when it's done).
 *
 * Return: 0 on success, -1 if the caller is gone
 */
static int bypass_swap(const struct bypass_call *call)
{
	struct seccomp_notif_addfd addfd = {
		.id = call->id,
		.flags = SECCOMP_ADDFD_FLAG_SETFD,
		.srcfd = (uint32_t)call->s,
		.newfd = (uint32_t)call->fd,
		.newfd_flags = call->cloexec ? O_CLOEXEC : 0,
	};
	int fl;

	if (call->blocking && (fl = fcntl(call->s, F_GETFL)) >= 0)
		fcntl(call->s, F_SETFL, fl & ~O_NONBLOCK);
	return ioctl(call->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd) < 0 ? -1 : 0;
}

/**
 * bypass_done() - answer a call whose socket we swapped in
 * @call:	the call
 * @error:	what it returns: 0, or a negative errno
 */
static void bypass_done(const struct bypass_call *call, int error)
{
	if (bypass_reply(call->lfd, call->id, error, false))
		bypass_count.gone++;
	else if (error && error != -EINPROGRESS)
		bypass_count.failed++;
	else
		bypass_count.handed++;
}

/**
 * bypass_pending_drop() - a blocking call is over: free its slot
 * @c:		execution context
 * @call:	its slot
 *
 * Our descriptor of the socket goes (the caller's stays); the last slot
 * moves into the freed one, and its socket's epoll reference follows.
 */
static void bypass_pending_drop(const struct ctx *c, struct bypass_call *call)
{
	struct bypass_call *last = &bypass_pending[--bypass_pending_n];
	int idx = (int)(call - bypass_pending);

	/* The caller holds the socket too: unless we take it out of our
	 * epoll set, its events would still come
	 */
	epoll_ref_del(c, call->s);
	close(call->s);
	if (call == last)
		return;
	*call = *last;
	epoll_ref_mod(c, call->s, EPOLL_TYPE_BYPASS_CONN, idx, EPOLLOUT);
}

/**
 * bypass_wait() - a blocking caller waits for our socket to connect
 * @c:		execution context
 * @call:	the call, with our socket connecting and swapped in
 */
static void bypass_wait(const struct ctx *c, const struct bypass_call *call)
{
	bypass_pending[bypass_pending_n] = *call;
	epoll_ref_add(c, call->s, EPOLL_TYPE_BYPASS_CONN, bypass_pending_n++,
		      EPOLLOUT);
}

/**
 * bypass_read_dest() - our copy of the destination the caller passed
 * @call:	the call, @sa and @sl set on success
 * @ptr:	address in the caller's memory
 * @len:	length it gave: the kernel takes more than the address's own
 *		(programs pass sizeof(struct sockaddr_storage)), so do we
 *
 * Return: 0 on success, -1 if it's no IPv4 or IPv6 address we can read
 */
static int bypass_read_dest(struct bypass_call *call, uint64_t ptr,
			    uint64_t len)
{
	struct iovec local = { &call->sa, sizeof(call->sa) };
	struct iovec remote = { (void *)(uintptr_t)ptr, sizeof(call->sa) };
	socklen_t want;
	ssize_t n;

	if (len < sizeof(sa_family_t) || len > sizeof(struct sockaddr_storage))
		return -1;
	remote.iov_len = local.iov_len = MIN(len, sizeof(call->sa));
	n = process_vm_readv(call->pid, &local, 1, &remote, 1, 0);
	if (n != (ssize_t)local.iov_len)
		return -1;
	if (call->sa.sa.sa_family == AF_INET)
		want = sizeof(struct sockaddr_in);
	else if (call->sa.sa.sa_family == AF_INET6)
		want = sizeof(struct sockaddr_in6);
	else
		return -1;
	if (len < want)
		return -1;
	call->sl = want;
	return 0;
}

/**
 * bypass_decide() - should we make this call on the host?
 * @c:		execution context
 * @call:	the call, destination read
 * @theirs:	their socket, set on success (our copy: close it)
 * @sport:	port it's bound to, set on success
 *
 * Return: 0 if we should, -1 if it continues in the namespace (counted)
 */
static int bypass_decide(const struct ctx *c, struct bypass_call *call,
			 int *theirs, uint16_t *sport)
{
	union inany_addr dst;
	uint16_t port;
	long fl = -1;

	if (inany_from_sockaddr(&dst, &port, &call->sa) ||
	    !ip_family_on(inany_family(&dst)) || c->no_tcp ||
	    !ip_dst_direct(c, &dst, port)) {
		bypass_count.refused++;
		return -1;
	}
	if (!bypass_spec_has(&c->bypass_spec, &dst, port)) {
		bypass_count.ns++;
		return -1;
	}
	*theirs = bypass_caller_sock(call->pid, call->fd);
	if (*theirs < 0)
		debug("--bypass: no copy of socket %d of %d: %s", call->fd,
		      call->pid, strerror(errno));
	else
		fl = bypass_fd_flags(call->pid, call->fd);
	/* The caller waited all along: what we read was its own */
	if (fl < 0 || !bypass_valid(call) ||
	    !bypass_sock_fit(*theirs, call->sa.sa.sa_family, sport)) {
		if (*theirs >= 0)
			close(*theirs);
		bypass_count.ns++;
		return -1;
	}
	call->blocking = !(fl & O_NONBLOCK);
	call->cloexec = fl & O_CLOEXEC;
	return 0;
}

/**
 * bypass_answer() - answer a call we tried to make on the host
 * @c:		execution context
 * @call:	the call, with our socket if we made one
 * @ours:	the call is ours (bypass_connect()): else it continues in the
 *		namespace
 * @err:	if ours, bypass_connect()'s error
 */
static void bypass_answer(const struct ctx *c, struct bypass_call *call,
			  bool ours, int err)
{
	if (!ours) {
		bypass_count.ns++;
		bypass_reply(call->lfd, call->id, 0, true);
		return;
	}
	if (err && err != EINPROGRESS) {
		bypass_count.failed++;
		bypass_reply(call->lfd, call->id, -err, false);
		return;
	}
	if (bypass_swap(call)) {
		bypass_count.gone++;
		close(call->s);
		return;
	}
	if (call->blocking && err == EINPROGRESS) {
		bypass_wait(c, call);
		return;
	}
	bypass_done(call, -err);
	close(call->s);
}

/**
 * bypass_notify() - one connect() the filter stopped
 * @c:		execution context
 * @lfd:	the filter's listener
 * @req:	the notification
 *
 * A container runtime's filter may stop other calls, and other ABIs' (its
 * profile says): those continue.
 */
static void bypass_notify(const struct ctx *c, int lfd,
			  const struct seccomp_notif *req)
{
	struct bypass_call call = {
		.lfd = lfd, .id = req->id, .pid = (pid_t)req->pid,
		.fd = (int)req->data.args[0], .s = -1,
	};
	uint16_t sport = 0;
	int theirs = -1, err;
	bool ours;

	if (req->data.arch != ISOLATE_AUDIT_ARCH ||
	    req->data.nr != __NR_connect ||
	    bypass_read_dest(&call, req->data.args[1], req->data.args[2])) {
		bypass_count.ns++;
		bypass_reply(call.lfd, call.id, 0, true);
		return;
	}
	if (bypass_decide(c, &call, &theirs, &sport)) {
		bypass_reply(call.lfd, call.id, 0, true);
		return;
	}
	ours = bypass_connect(c, &call, theirs, sport, &err);
	bypass_answer(c, &call, ours, err);
	close(theirs);		/* after the answer: the caller waits less */
}

/**
 * bypass_listener_gone() - a filter's processes are all gone: its listener
 *			    and its blocking calls go too
 * @c:		execution context
 * @slot:	the listener's slot
 */
static void bypass_listener_gone(struct ctx *c, unsigned int slot)
{
	int lfd = bypass_lfd[slot], i;

	for (i = bypass_pending_n - 1; i >= 0; i--) {
		if (bypass_pending[i].lfd == lfd) {
			bypass_count.gone++;
			bypass_pending_drop(c, &bypass_pending[i]);
		}
	}
	epoll_ref_del(c, lfd);
	close(lfd);
	bypass_lfd[slot] = -1;
	for (i = 0; i < (int)ARRAY_SIZE(bypass_pidfds); i++) {
		if (bypass_pidfds[i].pid)
			close(bypass_pidfds[i].pidfd);
		bypass_pidfds[i].pid = 0;
	}
}

/**
 * bypass_handler() - a filter has connect() calls for us
 * @c:		execution context
 * @slot:	its listener's slot
 * @events:	epoll events
 */
void bypass_handler(struct ctx *c, uint32_t slot, uint32_t events)
{
	struct seccomp_notif req;
	int lfd;

	if (slot >= BYPASS_LISTENERS || (lfd = bypass_lfd[slot]) < 0)
		return;
	if (events & EPOLLIN) {
		memset(&req, 0, sizeof(req));
		if (!ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req))
			bypass_notify(c, lfd, &req);
		else if (errno != ENOENT && errno != EINTR)
			warn("--bypass: can't read a notification: %s",
			     strerror(errno));
		return;
	}
	if (events & (EPOLLHUP | EPOLLERR))
		bypass_listener_gone(c, slot);
}

/**
 * bypass_conn_handler() - our socket for a blocking caller connected, or
 *			   failed to
 * @c:		execution context
 * @index:	its slot
 * @events:	epoll events
 */
void bypass_conn_handler(struct ctx *c, uint32_t index, uint32_t events)
{
	struct bypass_call *call = &bypass_pending[index];
	int err;

	(void)events;
	if (index >= (uint32_t)bypass_pending_n)
		return;
	err = bypass_sock_int(call->s, SOL_SOCKET, SO_ERROR);
	bypass_done(call, err > 0 ? -err : err < 0 ? -EIO : 0);
	bypass_pending_drop(c, call);
}

/**
 * bypass_timer() - blocking calls whose caller went or was interrupted
 *		    (it holds the socket, connecting), or whose SO_SNDTIMEO
 *		    passed: EINPROGRESS then, the kernel's answer
 * @c:		execution context
 *
 * Return: when the next SO_SNDTIMEO passes (ms, monotonic), or INT64_MAX
 */
int64_t bypass_timer(struct ctx *c)
{
	int64_t next = INT64_MAX;
	int i;

	for (i = bypass_pending_n - 1; i >= 0; i--) {
		struct bypass_call *call = &bypass_pending[i];

		if (!bypass_valid(call)) {
			bypass_count.handed++;
		} else if (call->deadline && c->now >= call->deadline) {
			bypass_done(call, -EINPROGRESS);
		} else {
			if (call->deadline)
				next = MIN(next, call->deadline);
			continue;
		}
		bypass_pending_drop(c, call);
	}
	return next;
}

/**
 * bypass_stats() - log what became of the command's connect() calls
 */
void bypass_stats(void)
{
	const struct bypass_counts *n = &bypass_count;
	unsigned int i, filters = 0;

	if (!bypass_started)
		return;
	for (i = 0; i < BYPASS_LISTENERS; i++)
		filters += bypass_lfd[i] >= 0;
	info("bypass: %lu handed over, %lu connecting, %lu failed; through the "
	     "namespace: %lu refused (local, mapped, or against the address "
	     "policy), %lu not taken (not TCP, bound, not in SPEC); %lu "
	     "callers gone; listeners: %u", n->handed,
	     (unsigned long)bypass_pending_n, n->failed, n->refused, n->ns,
	     n->gone, filters);
}
