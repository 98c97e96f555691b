// SPDX-License-Identifier: GPL-2.0-or-later
/* passt.c - main: configuration, then one single-threaded epoll loop
 *
 * Theory of operation: every descriptor we watch carries a union epoll_ref
 * naming its kind and, for flows, the flow table index. The loop waits for
 * events, dispatches each by kind, then runs the post-batch hooks: deferred
 * ACKs to the guest, timers, closing every flow if passt's guest was lost
 * (guest_lost()), and freeing of flows closed during the batch. Handlers
 * check that their flow is still alive: an earlier event of the same batch
 * may have closed it.
 */

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "bypass_agent.h"
#include "conf.h"
#include "ctl.h"
#include "flow.h"
#include "follow.h"
#include "fwd.h"
#include "icmp.h"
#include "ip.h"
#include "isolation.h"
#include "log.h"
#include "mig_handover.h"
#include "migrate.h"
#include "ndp.h"
#include "passt.h"
#include "pasta.h"
#include "pcap.h"
#include "repair.h"
#include "resolv.h"
#include "splice.h"
#include "input.h"
#include "link.h"
#include "stream.h"
#include "tap.h"
#include "tcp.h"
#include "udp.h"
#include "vhost_user.h"

#define EPOLL_EVENTS_MAX	64

/* A locally administered address: the guest's gateway and every peer */
static const uint8_t mac_ours[ETH_ADDR_LEN] = {
	0x02, 0x70, 0x61, 0x73, 0x74, 0x61
};

static struct fwd_rules fwd_start[FWD_PIFS];

/**
 * stats_dump() - log counters of frames, drops and flows (SIGUSR1)
 * @c:		execution context
 */
static void stats_dump(const struct ctx *c)
{
	flow_stats();
	udp_stats();
	link_stats();
	if (c->vhost_user)
		vu_stats();
	tcp_stats(c);
	bypass_stats();
}

/**
 * stats_periodic() - --stats: the same counters, every so many seconds
 * @c:		execution context
 */
static void stats_periodic(const struct ctx *c)
{
	static int64_t next;

	if (!c->stats_delay_s || c->now < next)
		return;
	if (next)
		stats_dump(c);
	next = c->now + (int64_t)c->stats_delay_s * MS_PER_S;
}

/**
 * signal_handler() - read a signal from the signalfd and act on it
 * @c:		execution context
 */
static void signal_handler(struct ctx *c)
{
	struct signalfd_siginfo si;

	while (read(c->fd_signal, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			pasta_sigchld(c);
			break;
		case SIGUSR1:
			stats_dump(c);
			break;
		default:
			info("Signal %d: exiting", si.ssi_signo);
			c->quit = true;
		}
	}
}

static void signals_init(struct ctx *c)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	c->fd_signal = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (c->fd_signal < 0)
		die("signalfd: %s", strerror(errno));
	epoll_ref_add(c, c->fd_signal, EPOLL_TYPE_SIGNAL, 0, EPOLLIN);
}

static void pidfile_write(const struct ctx *c, pid_t pid)
{
	char buf[32];
	int fd;

	if (!c->pidfile[0])
		return;
	fd = open(c->pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(buf, sizeof(buf), "%d\n", pid);
	if (fd < 0 || write_all(fd, buf, strlen(buf)))
		die("Can't write PID file %s: %s", c->pidfile, strerror(errno));
	close(fd);
}

/**
 * daemonise() - go to the background once ready: the parent's exit says so
 * @c:		execution context
 */
static void daemonise(const struct ctx *c)
{
	pid_t pid = fork();
	int null;

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid) {
		pidfile_write(c, pid);
		_exit(EXIT_SUCCESS);
	}
	setsid();
	/* A signalfd signals readiness to the epoll entries added by the
	 * process that watches it: add it again as the child, or our own
	 * SIGTERM would never wake the loop
	 */
	epoll_ref_del(c, c->fd_signal);
	epoll_ref_add(c, c->fd_signal, EPOLL_TYPE_SIGNAL, 0, EPOLLIN);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

/**
 * nofile_raise() - take the hard limit of open files as the soft one
 *
 * Forwarded ports and flows hold a socket each: a soft limit of 1024 is
 * far below what "all" or a few thousand connections need.
 */
static void nofile_raise(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_cur == lim.rlim_max)
		return;
	lim.rlim_cur = lim.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &lim))
		warn("Can't raise the open files limit to %llu: %s",
		     (unsigned long long)lim.rlim_max, strerror(errno));
}

/**
 * loop_timeout() - how long epoll_wait() may sleep
 * @next:	next timer deadline (ms), INT64_MAX if none
 * @now:	current time (ms)
 *
 * The loop wakes up at least once a second whatever the timers say: UDP
 * flow expiry, "auto" port scans and other once-a-second work hang on it.
 *
 * Return: milliseconds, from 0 (a deadline passed) to 1000
 */
static int loop_timeout(int64_t next, int64_t now)
{
	int64_t t = MIN(next - now, (int64_t)MS_PER_S);

	return t < 0 ? 0 : (int)t;
}

/**
 * vu_handler() - a message from the vhost-user front-end, and the device
 *		  state transfer it may start: run once it is answered
 * @c:		execution context
 * @events:	epoll events of its socket
 */
static void vu_handler(struct ctx *c, uint32_t events)
{
	bool save;
	int fd;

	vu_sock_handler(c, events);
	fd = vu_state_take(&save);
	if (fd >= 0)
		vu_state_done(mig_transfer(c, fd, save));
	else if (vu_running())
		mig_resume(c);
}

/**
 * dispatch_guest() - an event of the guest's side: its link (tap device,
 *		      passt's socket, vhost-user), migration, passt-repair
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 *
 * Return: true if it was one of those, handled
 */
static bool dispatch_guest(struct ctx *c, union epoll_ref ref,
			   uint32_t events)
{
	switch (ref.type) {
	case EPOLL_TYPE_TAP:
		if (c->vhost_user)
			vu_handler(c, events);
		else
			input_handler(c, events);
		return true;
	case EPOLL_TYPE_VHOST_KICK:
		if (vu_kick_handler(c, ref.index))
			input_handler(c, EPOLLIN);
		return true;
	case EPOLL_TYPE_TAP_LISTEN:
		stream_listen_handler(c, events);
		return true;
	case EPOLL_TYPE_MIG_HANDOVER:
		mig_handover_serve(c);
		return true;
	case EPOLL_TYPE_REPAIR_LISTEN:
		repair_listen_handler(c);
		return true;
	case EPOLL_TYPE_REPAIR:
		repair_handler(c, events);
		return true;
	default:
		return false;
	}
}

/**
 * dispatch() - hand one event to the handler for its kind
 * @c:		execution context
 * @ev:		event
 */
static void dispatch(struct ctx *c, const struct epoll_event *ev)
{
	union epoll_ref ref = { .u64 = ev->data.u64 };

	if (dispatch_guest(c, ref, ev->events))
		return;
	switch (ref.type) {
	case EPOLL_TYPE_SIGNAL:
		signal_handler(c);
		break;
	case EPOLL_TYPE_TCP:
		tcp_sock_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_TCP_LISTEN:
		tcp_listen_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_UDP:
		udp_sock_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_UDP_LISTEN:
	case EPOLL_TYPE_UDP_NS_LISTEN:
		udp_listen_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_PING:
		icmp_sock_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_NSQUIT:
		pasta_netns_handler(c, ref.index);
		break;
	case EPOLL_TYPE_SPLICE:
		splice_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_SPLICE_LISTEN:
		splice_listen_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_RESOLV:
		resolv_handler(ip_net());
		break;
	case EPOLL_TYPE_NL_HOST:
		follow_handler(c);
		break;
	case EPOLL_TYPE_CTL_LISTEN:
		ctl_listen_handler(c);
		break;
	case EPOLL_TYPE_CTL:
		ctl_handler(c, ev->events);
		break;
	case EPOLL_TYPE_BYPASS:
		bypass_handler(c, ref.index, ev->events);
		break;
	case EPOLL_TYPE_BYPASS_CONN:
		bypass_conn_handler(c, ref.index, ev->events);
		break;
	case EPOLL_TYPE_BYPASS_AGENT:
		bypass_agent_handler(c, ev->events);
		break;
	case EPOLL_TYPE_BYPASS_RUNTIME:
		bypass_runtime_handler(c, ref.fd, ev->events);
		break;
	default:
		assert(0);
	}
}

/**
 * guest_lost() - passt's guest went away during the batch: close its flows
 * @c:		execution context
 *
 * The send or read that found it gone only marked it (link_guest_lost()):
 * flows end here, where no handler is in the middle of using one. Then
 * passt waits for the next guest, or exits (--one-off, or --fd given).
 */
static void guest_lost(struct ctx *c)
{
	if (!link_guest_lost())
		return;
	link_guest_detach(c);
	flow_close_all(c);
	if (mig_moved_away(c) && c->migrate_exit) {
		info("exiting: --migrate-exit");
		c->quit = true;
	}
}

/**
 * main_loop() - wait for events, dispatch, run post-batch hooks
 * @c:		execution context
 */
static void main_loop(struct ctx *c)
{
	struct epoll_event events[EPOLL_EVENTS_MAX];
	int64_t next = INT64_MAX;

	while (!c->quit) {
		int i, n;

		n = epoll_wait(c->epollfd, events, EPOLL_EVENTS_MAX,
			       loop_timeout(next, now_ms()));
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		c->now = now_ms();

		for (i = 0; i < n; i++)
			dispatch(c, &events[i]);

		if (link_room_returned())
			tcp_link_room(c);
		tcp_batch_end(c);
		next = MIN(tcp_timer(c), follow_timer(c));
		next = MIN(next, ndp_timer(c));
		flow_timer(c);
		pasta_netns_poll(c);
		resolv_timer(c);
		fwd_auto_scan(c);
		fwd_held_retry(c);
		ctl_timer(c);
		next = MIN(next, bypass_timer(c));
		stats_periodic(c);
		guest_lost(c);
		flow_defer_free(c);
		fwd_accept_resume(c);
	}
}

/**
 * ctx_defaults() - what the context holds before the options are read
 * @c:		execution context, zeroed
 * @argv0:	name we run as: "pasta" selects pasta mode
 */
static void ctx_defaults(struct ctx *c, char *argv0)
{
	c->mode = strcmp(basename(argv0), "pasta") ? MODE_PASST : MODE_PASTA;
	c->fd_tap = c->fd_tap_listen = c->fd_netns = c->fd_nsquit = -1;
	c->fd_netns_dir = c->fd_sock_dir = -1;
	c->fwd[FWD_IN] = &fwd_start[FWD_IN];
	c->fwd[FWD_OUT] = &fwd_start[FWD_OUT];
	fwd_ephemeral_init();	/* "all" and "auto" leave the range out */
	memcpy(c->mac_ours, mac_ours, ETH_ADDR_LEN);
}

/**
 * process_init() - set up logging, limits, the epoll set, signals, capture
 * @c:		execution context, configured
 */
static void process_init(struct ctx *c)
{
	nofile_raise();
	log_setup(c->debug, c->quiet);
	if (c->log_file[0])
		log_to_file(c->log_file, c->log_size,
			    c->mode == MODE_PASTA ? "pasta" : "passt");

	c->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epollfd < 0)
		die("epoll_create1: %s", strerror(errno));
	flow_init();
	signals_init(c);
	pcap_init(c->pcap);
	conf_print(c);
}

/**
 * net_init() - the guest's link, then the protocols and forwarded ports
 * @c:		execution context
 *
 * pasta: the namespace and its tap device first, its -T/-U listeners, then
 * what follows the host; passt: the socket a guest connects to.
 */
static void net_init(struct ctx *c)
{
	if (c->mode == MODE_PASTA) {
		pasta_start(c);
		fwd_scan_init(c);
		fwd_listen(c, FWD_OUT);
		pasta_start_follow(c);
		epoll_ref_add(c, c->fd_tap, EPOLL_TYPE_TAP, 0,
			      EPOLLIN | EPOLLRDHUP);
		link_init(c, &tap_link);
	} else {
		link_init(c, c->vhost_user ? &vu_link : &stream_link);
		stream_init(c);
		if (c->vhost_user)
			repair_init(c);
	}
	tcp_init();
	splice_init();
	udp_init();
	icmp_init();
	fwd_listen(c, FWD_IN);
	ctl_init(c);
	bypass_agent_init(c);
	c->now = now_ms();
	fwd_auto_scan(c);	/* "auto" ports are there when the command runs */
}

/**
 * go_live() - detach or write the PID file, let the command run, sandbox
 * @c:		execution context, set up
 */
static void go_live(struct ctx *c)
{
	if (!c->cmd_pid && !c->foreground)
		daemonise(c);
	else
		pidfile_write(c, getpid());
	pasta_cmd_release(c);
	if (c->mode == MODE_PASTA)
		pasta_netns_watch(c);
	resolv_watch(c);	/* its directories: the sandbox hides them */
	follow_init(c);
	isolate_loop(c);
}

int main(int argc, char **argv)
{
	static struct ctx c;

	isolate_initial();
	ctx_defaults(&c, argv[0]);
	conf(&c, argc, argv);
	process_init(&c);
	net_init(&c);
	go_live(&c);
	bypass_serve();

	main_loop(&c);

	if (c.fd_sock_dir >= 0)
		unlinkat(c.fd_sock_dir, c.sock_name, 0);
	ctl_unlink();
	bypass_agent_unlink();
	repair_unlink();

	if (c.cmd_exited)
		return c.cmd_status;
	return EXIT_SUCCESS;
}
