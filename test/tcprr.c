// SPDX-License-Identifier: GPL-2.0-or-later
/* tcprr.c - TCP connection rate and 1-byte ping-pong latency
 *
 * Build: make test/tcprr
 *
 * Usage:
 *   tcprr server [-6] [-t SECS] [-T THREADS] PORT
 *   tcprr crr HOST PORT -c CONNS -d SECS [-T THREADS] [-w SECS]
 *   tcprr rr HOST PORT -d SECS [-w SECS]
 *
 * Theory of operation
 * ===================
 *
 * server: listens on 0.0.0.0:PORT (with -6, on [::]:PORT, dual stack) and
 * echoes every read back on the same connection, in one epoll loop per
 * thread (with -T, one SO_REUSEPORT listener each); it closes a connection
 * when the peer closes it.  The protocol is lock-step, so a write never
 * finds a full send buffer unless the peer stops reading: such a peer is
 * dropped (counted as "short").  It runs until SIGTERM or SIGINT, or for
 * -t SECS at most, and then prints its counters on stderr.
 *
 * crr: CONNS slots, spread over THREADS threads with one epoll each; a slot
 * opens a non-blocking socket, connects, sends one byte once connected,
 * reads the one byte echoed and closes (a normal close: the client side
 * keeps TIME_WAIT), then starts again at once, until SECS have passed.
 * Attempts still in flight then are abandoned, neither completed nor
 * failed, so the rate is completed connections over SECS.  The latency of
 * a connection runs from the connect() call to the response.  A failed
 * attempt (refused, reset, no address, no answer within -w SECS, default
 * 5) is counted by kind and retried after ERR_BACKOFF_NS, so that a dead
 * server does not make a busy loop.
 *
 * rr: one blocking connection with TCP_NODELAY; one byte sent, one byte
 * read back, as fast as possible, each round trip timed, until SECS have
 * passed; a round trip that takes longer than -w SECS (default 5) ends the
 * run with an error.
 *
 * Latencies go into a fixed histogram: 1 us buckets below 10 ms, 1 ms
 * buckets from there to 10 s, and one overflow bucket, reported as the
 * largest value seen.  Percentiles are the lower edge of their bucket
 * (rounded down to the microsecond below 10 ms); the mean is exact.
 *
 * Each mode prints one line on stdout:
 *   crr conns=N secs=S completed=K rate=R/s errors=E p50_us=.. p99_us=..
 *       mean_us=.. refused=.. reset=.. timeout=.. noaddr=.. other=..
 *   rr secs=S count=K p50_us=.. p99_us=.. mean_us=.. min_us=.. max_us=..
 * and crr the connections completed in each second on stderr, where a
 * stall or a slow-down shows that the rate alone hides.
 * Exit status: 0 if at least one connection (crr) or round trip (rr)
 * completed, 1 otherwise or on a usage error.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* also given by the Makefile: -D_GNU_SOURCE */
#endif
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TOOL_NAME		"tcprr"
#include "tool_lib.h"		/* die(), now_ns(), NS_PER_* */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)		((a) < (b) ? (a) : (b))

#define HIST_FINE		10000	/* 1 us buckets: 0 to 10 ms */
#define HIST_COARSE		9990	/* 1 ms buckets: 10 ms to 10 s */
#define HIST_BUCKETS		(HIST_FINE + HIST_COARSE + 1)	/* + overflow */

#define CONNS_MAX		4096	/* crr -c */
#define THREADS_MAX		16	/* -T */
#define SECS_MAX		86400	/* -d, -t, -w */
#define EV_MAX			64	/* events per epoll_wait() */
#define POLL_MS			10	/* the longest sleep: deadlines, stop */
#define ERR_BACKOFF_NS		(10 * NS_PER_MS)	/* crr: after an error */
#define ACCEPT_PAUSE_NS		(10 * NS_PER_MS)	/* server: out of fds */
#define ECHO_BUF		4096
#define TIMEOUT_DEFAULT_S	5	/* -w */
#define PER_SEC_MAX		600	/* crr: seconds told one by one */

/* ---------------------------------------------------------------------- */
/* Common                                                                 */
/* ---------------------------------------------------------------------- */

/**
 * opt_num() - a whole number from the command line, or die naming it
 * @name:	the option or argument, for the message
 * @s:		its value
 * @min:	smallest value accepted
 * @max:	largest value accepted
 *
 * Return: the value
 */
static long opt_num(const char *name, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		die("%s: '%s' is not a number from %ld to %ld", name, s, min,
		    max);
	return v;
}

/**
 * struct opts - the command line of every mode
 * @v6:		server -6: listen on [::], dual stack, not on 0.0.0.0
 * @life:	server -t: stop after this many seconds (0: at SIGTERM)
 * @threads:	-T: loops, one thread each
 * @conns:	crr -c: concurrent connections
 * @secs:	crr, rr -d: the measurement's length, s
 * @wait:	crr, rr -w: time limit of an attempt or a round trip, s
 * @host:	crr, rr: the server's address (numeric)
 * @port:	the port (numeric)
 */
struct opts {
	bool v6;
	long life;
	long threads;
	long conns;
	long secs;
	long wait;
	const char *host;
	const char *port;
};

/**
 * struct mode - what a mode takes and what runs it
 * @name:	its name, the first argument
 * @optstring:	its options, for getopt()
 * @host:	whether it takes HOST before PORT
 * @usage:	its synopsis
 * @run:	the function that runs it
 */
struct mode {
	const char *name;
	const char *optstring;
	bool host;
	const char *usage;
	int (*run)(const struct opts *o);
};

/* The numeric options: letter, where struct opts keeps it, largest value */
static const struct {
	char c;
	size_t off;
	long max;
} num_opts[] = {
	{ 't', offsetof(struct opts, life),	SECS_MAX },
	{ 'T', offsetof(struct opts, threads),	THREADS_MAX },
	{ 'c', offsetof(struct opts, conns),	CONNS_MAX },
	{ 'd', offsetof(struct opts, secs),	SECS_MAX },
	{ 'w', offsetof(struct opts, wait),	SECS_MAX },
};

/**
 * opts_parse() - a mode's options and arguments, or die with its synopsis
 * @m:		mode
 * @argc:	arguments from the mode's name on
 * @argv:	their values, argv[0] the mode's name
 * @o:		the options, filled in
 */
static void opts_parse(const struct mode *m, int argc, char **argv,
		       struct opts *o)
{
	char name[3] = "-";
	size_t i;
	int c;

	*o = (struct opts){ .threads = 1, .conns = 1,
			    .wait = TIMEOUT_DEFAULT_S };
	while ((c = getopt(argc, argv, m->optstring)) != -1) {
		if (c == '6') {
			o->v6 = true;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(num_opts); i++) {
			if (num_opts[i].c == c)
				break;
		}
		if (i == ARRAY_SIZE(num_opts))
			die("usage: %s", m->usage);
		name[1] = c;
		*(long *)((char *)o + num_opts[i].off) =
			opt_num(name, optarg, 1, num_opts[i].max);
	}
	if (argc - optind != 1 + m->host ||
	    (strchr(m->optstring, 'd') && !o->secs))
		die("usage: %s", m->usage);
	if (m->host)
		o->host = argv[optind++];
	o->port = argv[optind];
	opt_num("PORT", o->port, 1, 65535);
}

/* Set by SIGTERM and SIGINT: every loop stops within POLL_MS */
static volatile sig_atomic_t stop_flag;

/**
 * on_stop() - signal handler: ask every loop to stop
 * @sig:	signal number (unused)
 */
static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/**
 * signals_setup() - SIGTERM and SIGINT stop the loops, SIGPIPE is ignored
 *
 * No SA_RESTART: a blocking call returns EINTR, and the loop sees the flag.
 */
static void signals_setup(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction: %s", strerror(errno));
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL))
		die("sigaction: %s", strerror(errno));
}

/**
 * nofile_raise() - the soft limit on descriptors up to the hard one
 */
static void nofile_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/**
 * nodelay() - TCP_NODELAY on a socket: one byte goes out at once
 * @fd:		socket
 *
 * Return: 0 on success, -errno on failure
 */
static int nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return -errno;
	return 0;
}

/**
 * addr_parse() - a numeric address and a port, either family
 * @host:	IPv4 or IPv6 address, numeric
 * @port:	port, numeric
 * @ss:		the socket address, filled in
 * @len:	its length, filled in
 */
static void addr_parse(const char *host, const char *port,
		       struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	};
	struct addrinfo *ai;
	int rc;

	opt_num("PORT", port, 1, 65535);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc)
		die("HOST '%s': %s", host, gai_strerror(rc));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
}

/* ---------------------------------------------------------------------- */
/* Latency histogram                                                      */
/* ---------------------------------------------------------------------- */

/**
 * struct hist - latencies, in fixed buckets (see the top of the file)
 * @n:		samples
 * @sum_ns:	their sum, for the mean
 * @min_ns:	smallest sample
 * @max_ns:	largest sample, reported for the overflow bucket
 * @b:		counts per bucket
 */
struct hist {
	uint64_t n;
	uint64_t sum_ns;
	int64_t min_ns;
	int64_t max_ns;
	uint32_t b[HIST_BUCKETS];
};

/**
 * hist_add() - one sample
 * @h:		histogram
 * @ns:		latency, ns
 */
static void hist_add(struct hist *h, int64_t ns)
{
	int64_t us = ns / NS_PER_US;
	size_t i;

	if (us < HIST_FINE)
		i = us;
	else if (us < HIST_FINE + (int64_t)HIST_COARSE * 1000)
		i = HIST_FINE + (us - HIST_FINE) / 1000;
	else
		i = HIST_BUCKETS - 1;
	h->b[i]++;
	if (!h->n || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->n++;
	h->sum_ns += ns;
}

/**
 * hist_merge() - add the samples of one histogram to another
 * @to:		histogram added to
 * @from:	histogram added
 */
static void hist_merge(struct hist *to, const struct hist *from)
{
	size_t i;

	if (!from->n)
		return;
	for (i = 0; i < HIST_BUCKETS; i++)
		to->b[i] += from->b[i];
	if (!to->n || from->min_ns < to->min_ns)
		to->min_ns = from->min_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	to->n += from->n;
	to->sum_ns += from->sum_ns;
}

/**
 * hist_pct() - a percentile
 * @h:		histogram, with at least one sample
 * @pct:	percentile, 1 to 100
 *
 * Return: the lower edge of the bucket holding it, us; the largest sample
 * for the overflow bucket
 */
static double hist_pct(const struct hist *h, unsigned pct)
{
	/* The smallest sample with at least pct % of them at or below it */
	uint64_t want = (pct * h->n + 99) / 100, seen = 0;
	size_t i;

	for (i = 0; i < HIST_BUCKETS - 1; i++) {
		seen += h->b[i];
		if (seen >= want)
			break;
	}
	if (i < HIST_FINE)
		return i;
	if (i < HIST_BUCKETS - 1)
		return HIST_FINE + (double)(i - HIST_FINE) * 1000;
	return (double)h->max_ns / NS_PER_US;
}

/**
 * hist_print() - " p50_us=.. p99_us=.. mean_us=.." on stdout, "-" if empty
 * @h:		histogram
 */
static void hist_print(const struct hist *h)
{
	if (!h->n) {
		printf(" p50_us=- p99_us=- mean_us=-");
		return;
	}
	printf(" p50_us=%.0f p99_us=%.0f mean_us=%.1f", hist_pct(h, 50),
	       hist_pct(h, 99), (double)h->sum_ns / h->n / NS_PER_US);
}

/* ---------------------------------------------------------------------- */
/* server                                                                 */
/* ---------------------------------------------------------------------- */

/**
 * struct srv_thread - one server loop
 * @tid:	its thread
 * @lfd:	its listening socket
 * @epfd:	its epoll instance
 * @end:	when to stop (CLOCK_MONOTONIC, ns), 0: at SIGTERM only
 * @paused:	until when accepting is paused (out of descriptors), or 0
 * @accepted:	connections accepted
 * @closed:	connections closed
 * @short_w:	connections dropped because a write did not take it all
 * @errors:	read, accept and epoll errors
 */
struct srv_thread {
	pthread_t tid;
	int lfd;
	int epfd;
	int64_t end;
	int64_t paused;
	uint64_t accepted;
	uint64_t closed;
	uint64_t short_w;
	uint64_t errors;
};

/**
 * srv_listen() - the listening socket
 * @v6:		listen on [::] (dual stack), not 0.0.0.0
 * @port:	port
 * @reuseport:	SO_REUSEPORT, for one listener per thread
 *
 * Return: the socket; dies on failure
 */
static int srv_listen(bool v6, int port, bool reuseport)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd, one = 1, zero = 0;

	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (reuseport &&
	     setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) ||
	    (v6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero))))
		die("setsockopt: %s", strerror(errno));
	if (v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
		 bind(fd, (struct sockaddr *)&a4, sizeof(a4)))
		die("bind to port %d: %s", port, strerror(errno));
	/* The kernel caps the backlog at net.core.somaxconn */
	if (listen(fd, CONNS_MAX))
		die("listen: %s", strerror(errno));
	return fd;
}

/**
 * srv_accept() - accept what is pending, each with TCP_NODELAY, polled
 * @t:		server loop
 * @now:	current time, ns
 */
static void srv_accept(struct srv_thread *t, int64_t now)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	for (;;) {
		fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		t->accepted++;
		ev.data.fd = fd;
		if (nodelay(fd) || epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			t->errors++;
			t->closed++;
			close(fd);
		}
	}
	if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
	    errno == ENOMEM) {
		/* Listener readable until a descriptor is free: pause it */
		ev.events = 0;
		ev.data.fd = t->lfd;
		epoll_ctl(t->epfd, EPOLL_CTL_MOD, t->lfd, &ev);
		t->paused = now + ACCEPT_PAUSE_NS;
		t->errors++;
	} else if (errno != EAGAIN && errno != EINTR &&
		   errno != ECONNABORTED) {
		t->errors++;
	}
}

/**
 * srv_echo() - a connection is readable: echo what it sent, or close it
 * @t:		server loop
 * @fd:		the connection's socket
 */
static void srv_echo(struct srv_thread *t, int fd)
{
	char buf[ECHO_BUF];
	ssize_t n, w;

	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0) {
		w = send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w == n)
			return;
		if (w >= 0 || errno == EAGAIN)
			t->short_w++;
		else
			t->errors++;
	} else if (n < 0 && errno != ECONNRESET) {
		t->errors++;
	}
	/* Peer closed (or reset): so do we; close() leaves the epoll set */
	close(fd);
	t->closed++;
}

/**
 * srv_loop() - one server thread: accept and echo until told to stop
 * @arg:	its struct srv_thread
 *
 * Return: NULL
 */
static void *srv_loop(void *arg)
{
	struct epoll_event ev[EV_MAX], lev = { .events = EPOLLIN };
	struct srv_thread *t = arg;
	int64_t now;
	int i, n;

	lev.data.fd = t->lfd;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &lev))
		die("epoll_ctl: %s", strerror(errno));
	for (now = now_ns(); !stop_flag && (!t->end || now < t->end); ) {
		n = epoll_wait(t->epfd, ev, EV_MAX, POLL_MS);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		now = now_ns();
		/* A connection is closed only by its own event, of which a
		 * batch has one: no later event names a reused descriptor
		 */
		for (i = 0; i < n; i++) {
			if (ev[i].data.fd == t->lfd)
				srv_accept(t, now);
			else
				srv_echo(t, ev[i].data.fd);
		}
		if (t->paused && now >= t->paused) {
			t->paused = 0;
			epoll_ctl(t->epfd, EPOLL_CTL_MOD, t->lfd, &lev);
		}
	}
	return NULL;
}

/**
 * srv_main() - tcprr server [-6] [-t SECS] [-T THREADS] PORT
 * @o:		options
 *
 * Return: exit status
 */
static int srv_main(const struct opts *o)
{
	static struct srv_thread th[THREADS_MAX];
	uint64_t acc = 0, closed = 0, short_w = 0, errors = 0;
	int port = atoi(o->port);
	long i;

	for (i = 0; i < o->threads; i++) {
		th[i].lfd = srv_listen(o->v6, port, o->threads > 1);
		th[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (th[i].epfd < 0)
			die("epoll_create1: %s", strerror(errno));
		th[i].end = o->life ? now_ns() + o->life * NS_PER_S : 0;
	}
	for (i = 1; i < o->threads; i++) {
		if (pthread_create(&th[i].tid, NULL, srv_loop, &th[i]))
			die("pthread_create failed");
	}
	srv_loop(&th[0]);
	for (i = 0; i < o->threads; i++) {
		if (i)
			pthread_join(th[i].tid, NULL);
		acc += th[i].accepted;
		closed += th[i].closed;
		short_w += th[i].short_w;
		errors += th[i].errors;
	}
	fprintf(stderr, "tcprr server: accepted=%" PRIu64 " closed=%" PRIu64
		" open=%" PRIu64 " short=%" PRIu64 " errors=%" PRIu64 "\n",
		acc, closed, acc - closed, short_w, errors);
	return EXIT_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* crr: connect, request, response, close                                 */
/* ---------------------------------------------------------------------- */

/* Why an attempt failed */
enum crr_err {
	CRR_REFUSED,	/* ECONNREFUSED */
	CRR_RESET,	/* ECONNRESET, EPIPE, or end of file before the byte */
	CRR_TIMEOUT,	/* no response within -w, or ETIMEDOUT */
	CRR_NOADDR,	/* EADDRNOTAVAIL: no local port left */
	CRR_OTHER,
	CRR_ERR_KINDS
};

static const char *const crr_err_name[CRR_ERR_KINDS] = {
	"refused", "reset", "timeout", "noaddr", "other",
};

/* A slot's phase */
enum slot_phase {
	SLOT_IDLE,		/* no socket: (re)start at @due */
	SLOT_CONNECTING,	/* connect() in progress, polled for EPOLLOUT */
	SLOT_WAITING,		/* byte sent, polled for EPOLLIN */
};

/**
 * struct slot - one of the concurrent connection loops
 * @fd:		socket, -1 when idle
 * @phase:	where it is
 * @t0:		when connect() was called, ns
 * @due:	idle: when to start again; else: when the attempt times out
 */
struct slot {
	int fd;
	enum slot_phase phase;
	int64_t t0;
	int64_t due;
};

/**
 * struct crr_thread - one client loop and its share of the slots
 * @tid:	its thread
 * @epfd:	its epoll instance
 * @first:	index of its first slot in crr_slots[]
 * @n:		how many slots it has
 * @completed:	connections that got their byte back
 * @err:	failed attempts, by kind
 * @last_errno:	the last errno counted as CRR_OTHER, for the message
 * @per_sec:	completed connections in each second of the run, the first
 *		PER_SEC_MAX seconds: a stall shows on stderr
 * @h:		latencies of the completed connections
 */
struct crr_thread {
	pthread_t tid;
	int epfd;
	int first;
	int n;
	uint64_t completed;
	uint64_t err[CRR_ERR_KINDS];
	int last_errno;
	uint32_t per_sec[PER_SEC_MAX];
	struct hist h;
};

/**
 * struct crr_cfg - what every client loop shares, read-only once started
 * @ss:		server address
 * @sslen:	its length
 * @start:	when the measurement started, ns
 * @end:	when it ends, ns
 * @timeout:	an attempt's time limit, ns
 */
struct crr_cfg {
	struct sockaddr_storage ss;
	socklen_t sslen;
	int64_t start;
	int64_t end;
	int64_t timeout;
};

static struct crr_cfg crr_cfg;
static struct slot crr_slots[CONNS_MAX];
static struct crr_thread crr_th[THREADS_MAX];

/**
 * crr_close() - end a slot's attempt; the slot becomes idle until @due
 * @s:		slot
 * @due:	when to start again, ns
 */
static void crr_close(struct slot *s, int64_t due)
{
	if (s->fd >= 0)
		close(s->fd);	/* also leaves the epoll set */
	s->fd = -1;
	s->phase = SLOT_IDLE;
	s->due = due;
}

/**
 * crr_fail() - count a failed attempt by its errno, back off
 * @t:		client loop
 * @s:		the slot whose attempt failed
 * @e:		errno, 0 for end of file before the byte, ETIMEDOUT for -w
 */
static void crr_fail(struct crr_thread *t, struct slot *s, int e)
{
	int64_t now = now_ns();

	if (now >= crr_cfg.end) {
		crr_close(s, now);	/* too late: abandoned, not counted */
		return;
	}
	switch (e) {
	case ECONNREFUSED:
		t->err[CRR_REFUSED]++;
		break;
	case 0:
	case ECONNRESET:
	case EPIPE:
		t->err[CRR_RESET]++;
		break;
	case ETIMEDOUT:
		t->err[CRR_TIMEOUT]++;
		break;
	case EADDRNOTAVAIL:
		t->err[CRR_NOADDR]++;
		break;
	default:
		t->err[CRR_OTHER]++;
		t->last_errno = e;
		break;
	}
	crr_close(s, now + ERR_BACKOFF_NS);
}

/**
 * crr_start() - a slot's next attempt: socket, connect(), poll
 * @t:		client loop
 * @idx:	the slot's index in crr_slots[]
 */
static void crr_start(struct crr_thread *t, int idx)
{
	struct epoll_event ev = { .events = EPOLLOUT };
	struct slot *s = &crr_slots[idx];
	int fd;

	fd = socket(crr_cfg.ss.ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		crr_fail(t, s, errno);
		return;
	}
	s->fd = fd;
	s->phase = SLOT_CONNECTING;
	s->t0 = now_ns();
	s->due = s->t0 + crr_cfg.timeout;
	if (nodelay(fd) ||
	    (connect(fd, (struct sockaddr *)&crr_cfg.ss, crr_cfg.sslen) &&
	     errno != EINPROGRESS)) {
		crr_fail(t, s, errno);
		return;
	}
	/* Both halves of the index: stale events are told apart by @fd */
	ev.data.u64 = (uint64_t)fd << 32 | (uint32_t)idx;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev))
		crr_fail(t, s, errno);
}

/**
 * crr_connected() - connect() finished: send the byte, or count the error
 * @t:		client loop
 * @s:		slot
 * @idx:	its index, for the epoll data
 */
static void crr_connected(struct crr_thread *t, struct slot *s, int idx)
{
	struct epoll_event ev = { .events = EPOLLIN };
	socklen_t sl = sizeof(int);
	int e = 0;
	char c = 'c';

	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &sl))
		e = errno;
	if (e) {
		crr_fail(t, s, e);
		return;
	}
	if (send(s->fd, &c, 1, MSG_NOSIGNAL) != 1) {
		crr_fail(t, s, errno);
		return;
	}
	ev.data.u64 = (uint64_t)s->fd << 32 | (uint32_t)idx;
	if (epoll_ctl(t->epfd, EPOLL_CTL_MOD, s->fd, &ev)) {
		crr_fail(t, s, errno);
		return;
	}
	s->phase = SLOT_WAITING;
}

/**
 * crr_response() - the socket is readable: the byte, an error or the end
 * @t:		client loop
 * @s:		slot
 * @idx:	its index
 */
static void crr_response(struct crr_thread *t, struct slot *s, int idx)
{
	ssize_t n;
	int64_t now;
	char c;

	n = recv(s->fd, &c, 1, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n != 1) {
		crr_fail(t, s, n ? errno : 0);
		return;
	}
	now = now_ns();
	crr_close(s, now);
	if (now >= crr_cfg.end)
		return;		/* too late: abandoned, as those in flight */
	hist_add(&t->h, now - s->t0);
	t->completed++;
	if ((now - crr_cfg.start) / NS_PER_S < PER_SEC_MAX)
		t->per_sec[(now - crr_cfg.start) / NS_PER_S]++;
	crr_start(t, idx);
}

/**
 * crr_event() - one epoll event, by the slot it names
 * @t:		client loop
 * @data:	the event's data: descriptor and slot index
 */
static void crr_event(struct crr_thread *t, uint64_t data)
{
	int idx = (int)(uint32_t)data, fd = (int)(data >> 32);
	struct slot *s = &crr_slots[idx];

	/* An earlier event of the batch may have moved the slot on */
	if (idx < t->first || idx >= t->first + t->n || s->fd != fd)
		return;
	if (s->phase == SLOT_CONNECTING)
		crr_connected(t, s, idx);
	else if (s->phase == SLOT_WAITING)
		crr_response(t, s, idx);
}

/**
 * crr_timers() - start idle slots that are due, time out stuck attempts
 * @t:		client loop
 * @now:	current time, ns
 */
static void crr_timers(struct crr_thread *t, int64_t now)
{
	int i;

	for (i = t->first; i < t->first + t->n; i++) {
		struct slot *s = &crr_slots[i];

		if (now < s->due)
			continue;
		if (s->phase == SLOT_IDLE)
			crr_start(t, i);
		else
			crr_fail(t, s, ETIMEDOUT);
	}
}

/**
 * crr_loop() - one client thread, until the end of the measurement
 * @arg:	its struct crr_thread
 *
 * Return: NULL
 */
static void *crr_loop(void *arg)
{
	struct crr_thread *t = arg;
	struct epoll_event ev[EV_MAX];
	int64_t now, next_scan = 0;
	int i, n, ms;

	for (i = t->first; i < t->first + t->n; i++)
		crr_start(t, i);
	while (!stop_flag && (now = now_ns()) < crr_cfg.end) {
		ms = MIN(POLL_MS, (crr_cfg.end - now) / NS_PER_MS + 1);
		n = epoll_wait(t->epfd, ev, EV_MAX, ms);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		for (i = 0; i < n; i++)
			crr_event(t, ev[i].data.u64);
		/* Deadlines are coarse (ERR_BACKOFF_NS, -w): scan seldom */
		now = now_ns();
		if (now >= next_scan && now < crr_cfg.end) {
			crr_timers(t, now);
			next_scan = now + POLL_MS * NS_PER_MS;
		}
	}
	/* Attempts in flight are abandoned: neither completed nor failed */
	for (i = t->first; i < t->first + t->n; i++)
		crr_close(&crr_slots[i], 0);
	return NULL;
}

/**
 * crr_per_sec() - completed connections in each second, on stderr
 * @threads:	loops
 * @secs:	the measurement's length, s
 */
static void crr_per_sec(int threads, long secs)
{
	long i, n;
	int k;

	fputs("tcprr crr: completed per second:", stderr);
	for (i = 0; i < MIN(secs, PER_SEC_MAX); i++) {
		for (k = 0, n = 0; k < threads; k++)
			n += crr_th[k].per_sec[i];
		fprintf(stderr, " %ld", n);
	}
	fputc('\n', stderr);
}

/**
 * crr_report() - merge the loops' counters, print the result line
 * @conns:	slots
 * @threads:	loops
 * @secs:	the measurement's length, s
 *
 * Return: exit status, 0 if any connection completed
 */
static int crr_report(int conns, int threads, long secs)
{
	static struct hist h;
	uint64_t done = 0, err[CRR_ERR_KINDS] = { 0 }, errs = 0;
	int i, k, last_errno = 0;

	for (i = 0; i < threads; i++) {
		hist_merge(&h, &crr_th[i].h);
		done += crr_th[i].completed;
		for (k = 0; k < CRR_ERR_KINDS; k++)
			err[k] += crr_th[i].err[k];
		if (crr_th[i].last_errno)
			last_errno = crr_th[i].last_errno;
	}
	for (k = 0; k < CRR_ERR_KINDS; k++)
		errs += err[k];
	printf("crr conns=%d secs=%ld completed=%" PRIu64 " rate=%.0f/s"
	       " errors=%" PRIu64, conns, secs, done, (double)done / secs,
	       errs);
	hist_print(&h);
	for (k = 0; k < CRR_ERR_KINDS; k++)
		printf(" %s=%" PRIu64, crr_err_name[k], err[k]);
	printf("\n");
	crr_per_sec(threads, secs);
	if (last_errno)
		fprintf(stderr, "tcprr crr: last other error: %s\n",
			strerror(last_errno));
	return done ? EXIT_SUCCESS : EXIT_FAILURE;
}

/**
 * crr_main() - tcprr crr HOST PORT -c CONNS -d SECS [-T THREADS] [-w SECS]
 * @o:		options
 *
 * Return: exit status
 */
static int crr_main(const struct opts *o)
{
	long threads = MIN(o->threads, o->conns), i;

	addr_parse(o->host, o->port, &crr_cfg.ss, &crr_cfg.sslen);
	crr_cfg.timeout = o->wait * NS_PER_S;
	for (i = 0; i < threads; i++) {
		crr_th[i].n = o->conns / threads + (i < o->conns % threads);
		crr_th[i].first = i ? crr_th[i - 1].first + crr_th[i - 1].n : 0;
		crr_th[i].epfd = epoll_create1(EPOLL_CLOEXEC);
		if (crr_th[i].epfd < 0)
			die("epoll_create1: %s", strerror(errno));
	}
	for (i = 0; i < o->conns; i++)
		crr_slots[i].fd = -1;

	crr_cfg.start = now_ns();
	crr_cfg.end = crr_cfg.start + o->secs * NS_PER_S;
	for (i = 1; i < threads; i++) {
		if (pthread_create(&crr_th[i].tid, NULL, crr_loop, &crr_th[i]))
			die("pthread_create failed");
	}
	crr_loop(&crr_th[0]);
	for (i = 1; i < threads; i++)
		pthread_join(crr_th[i].tid, NULL);
	if (stop_flag)
		die("stopped by a signal");
	return crr_report(o->conns, threads, o->secs);
}

/* ---------------------------------------------------------------------- */
/* rr: 1-byte ping-pong on one connection                                 */
/* ---------------------------------------------------------------------- */

/**
 * rr_connect() - a blocking connection with TCP_NODELAY and time limits
 * @host:	server address
 * @port:	its port
 * @wait:	limit for connect(), each send() and each recv(), s
 *
 * Return: the socket; dies on failure
 */
static int rr_connect(const char *host, const char *port, long wait)
{
	struct timeval tv = { .tv_sec = wait };
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	addr_parse(host, port, &ss, &len);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	/* SO_SNDTIMEO bounds connect() too */
	if (nodelay(fd) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("setsockopt: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&ss, len))
		die("connect to %s port %s: %s", host, port, strerror(errno));
	return fd;
}

/**
 * rr_main() - tcprr rr HOST PORT -d SECS [-w SECS]
 * @o:		options
 *
 * Return: exit status
 */
static int rr_main(const struct opts *o)
{
	static struct hist h;
	int64_t t0, t1, end;
	char c = 'r';
	int fd;

	fd = rr_connect(o->host, o->port, o->wait);
	end = now_ns() + o->secs * NS_PER_S;
	for (t1 = now_ns(); t1 < end && !stop_flag; ) {
		t0 = t1;
		if (send(fd, &c, 1, MSG_NOSIGNAL) != 1)
			die("send after %" PRIu64 " round trips: %s", h.n,
			    strerror(errno));
		errno = 0;
		if (recv(fd, &c, 1, 0) != 1)
			die("recv after %" PRIu64 " round trips: %s", h.n,
			    errno == EAGAIN ? "no answer in time" :
			    errno ? strerror(errno) : "end of file");
		t1 = now_ns();
		hist_add(&h, t1 - t0);
	}
	close(fd);
	if (stop_flag)
		die("stopped by a signal");
	printf("rr secs=%ld count=%" PRIu64, o->secs, h.n);
	hist_print(&h);
	if (h.n)
		printf(" min_us=%.1f max_us=%.1f", (double)h.min_ns / NS_PER_US,
		       (double)h.max_ns / NS_PER_US);
	printf("\n");
	return h.n ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* ---------------------------------------------------------------------- */

static const struct mode modes[] = {
	{ "server", "6t:T:", false,
	  "tcprr server [-6] [-t SECS] [-T THREADS] PORT", srv_main },
	{ "crr", "c:d:T:w:", true,
	  "tcprr crr HOST PORT -c CONNS -d SECS [-T THREADS] [-w SECS]",
	  crr_main },
	{ "rr", "d:w:", true,
	  "tcprr rr HOST PORT -d SECS [-w SECS]", rr_main },
};

int main(int argc, char **argv)
{
	struct opts o;
	size_t i;

	for (i = 0; argc > 1 && i < ARRAY_SIZE(modes); i++) {
		if (strcmp(argv[1], modes[i].name))
			continue;
		opts_parse(&modes[i], argc - 1, argv + 1, &o);
		signals_setup();
		nofile_raise();
		setvbuf(stdout, NULL, _IOLBF, 0);
		return modes[i].run(&o);
	}
	fputs("usage:", stderr);
	for (i = 0; i < ARRAY_SIZE(modes); i++)
		fprintf(stderr, "\t%s\n", modes[i].usage);
	return EXIT_FAILURE;
}
