// SPDX-License-Identifier: GPL-2.0-or-later
/* pasta.c - network namespace set-up for pasta mode
 *
 * Theory of operation: as a non-root user, we first move into a new user
 * namespace where our user is mapped to root, so that we hold
 * CAP_SYS_ADMIN over every namespace we create from there. A child then
 * unshares a new network namespace and waits; we open the tap device and a
 * netlink socket inside that namespace from a short-lived clone() that
 * shares our memory and file table (ns_call()), because once in the target
 * namespace we could not come back to the host's: its user namespace is not
 * ours. The descriptors stay bound to the namespace they were created in.
 * Once the tap is configured the child runs the command; we exit with its
 * status when it ends.
 *
 * Joining an existing namespace (PID or --netns) works the same way, after
 * joining its user namespace if we are not root. We then live as long as
 * the namespace: a --netns file's deletion (inotify on its directory, or a
 * look at it every second where inotify can't see it, as under /proc) or
 * the exit of the target PID (pidfd) ends us, and with us every host port
 * we hold, unless --no-netns-quit.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "bypass.h"
#include "follow.h"
#include "ip.h"
#include "link.h"
#include "log.h"
#include "netlink.h"
#include "passt.h"
#include "pasta.h"

static int pasta_go_fd = -1;	/* write end: the child may exec */
static int pasta_nl_ns = -1;	/* netlink socket in the namespace, kept
				 * to follow the host (follow.c) */
static int pasta_tap_ifi;	/* the tap's index there, if configured */

#define PASTA_NS_SPARE		16	/* see pasta_ns_socket() */

/**
 * struct ns_call_arg - what ns_call() runs in the target namespace
 * @netns:	namespace descriptor
 * @fn:		function to run there
 * @arg:	its argument
 * @ret:	its return value, or -errno from setns()
 */
struct ns_call_arg {
	int netns;
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

static int ns_call_child(void *p)
{
	struct ns_call_arg *a = p;

	if (setns(a->netns, CLONE_NEWNET))
		a->ret = -errno;
	else
		a->ret = a->fn(a->arg);
	return 0;
}

/**
 * ns_call() - run a function inside a network namespace, then return
 * @netns:	namespace descriptor
 * @fn:		function, may create descriptors: they are ours afterwards
 * @arg:	argument for @fn
 *
 * Return: what @fn returned, or -errno
 */
static int ns_call(int netns, int (*fn)(void *), void *arg)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	/* A child that exits on its own (die()) leaves this */
	struct ns_call_arg a = { netns, fn, arg, -ECANCELED };
	pid_t pid;

	pid = clone(ns_call_child, stack + sizeof(stack),
		    CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, &a);
	if (pid < 0)
		return -errno;
	waitpid(pid, NULL, 0);
	return a.ret;
}

/**
 * pasta_tap_mac_set() - give the tap the MAC address of --ns-mac-addr
 * @c:		execution context
 * @fd:		tap device
 * @ifr:	request holding the device's name
 *
 * Return: 0 on success or if none was given, -1 with errno set on failure
 */
static int pasta_tap_mac_set(const struct ctx *c, int fd, struct ifreq *ifr)
{
	if (!c->ns_mac_set)
		return 0;
	ifr->ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr->ifr_hwaddr.sa_data, c->ns_mac, ETH_ADDR_LEN);
	return ioctl(fd, SIOCSIFHWADDR, ifr);
}

/**
 * pasta_tap_offload() - what the namespace may leave to us: checksums, TSO
 * @c:		execution context
 * @fd:		tap device
 *
 * With checksum offload, the guest leaves L4 checksums to us, and we skip
 * them (see tap.c); with TSO on top, it hands us TCP frames of up to 64 KiB
 * whatever its MTU, one read() and one socket write each. A kernel that
 * refuses TSO still gets checksums, one that refuses both plain frames.
 */
static void pasta_tap_offload(struct ctx *c, int fd)
{
	if (!ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)) {
		c->tap_tso = true;
		return;
	}
	warn("tap TSO offload: %s", strerror(errno));
	if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM))
		warn("tap checksum offload: %s", strerror(errno));
}

/**
 * pasta_open_in_ns() - open tap and netlink socket, run via ns_call()
 * @arg:	execution context
 *
 * Return: 0 on success, -errno on failure
 */
static int pasta_open_in_ns(void *arg)
{
	struct ctx *c = arg;
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memcpy(ifr.ifr_name, c->ifname, IFNAMSIZ);
	if (ioctl(fd, TUNSETIFF, &ifr) || pasta_tap_mac_set(c, fd, &ifr) ||
	    ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	link_guest_mac_seen((const uint8_t *)ifr.ifr_hwaddr.sa_data);
	c->fd_tap = fd;
	c->tap_vnet_hdr = true;
	pasta_tap_offload(c, fd);

	pasta_nl_ns = nl_open();
	return pasta_nl_ns < 0 ? pasta_nl_ns : 0;
}

static void pasta_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write_all(fd, s, strlen(s)))
		die("Can't write %s: %s", path, strerror(errno));
	close(fd);
}

/**
 * pasta_userns_own() - become root of a new user namespace, if not root
 */
static void pasta_userns_own(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (!uid)
		return;
	if (unshare(CLONE_NEWUSER))
		die("Can't create a user namespace: %s", strerror(errno));
	pasta_write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", uid);
	pasta_write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	pasta_write_file("/proc/self/gid_map", map);
}

/**
 * pasta_child() - the command's process: new netns, wait, exec
 * @c:		execution context: the command and its arguments, --bypass
 * @ready:	pipe to tell the parent the namespace exists
 * @go:		pipe the parent closes or writes to when the tap is ready
 */
static void __attribute__((noreturn)) pasta_child(const struct ctx *c,
						  int ready, int go)
{
	sigset_t none;
	char b;
	int e = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWNET))
		e = errno;
	if (write(ready, &e, sizeof(e)) != sizeof(e) || e)
		_exit(EXIT_FAILURE);
	close(ready);
	if (read(go, &b, 1) != 1)
		_exit(EXIT_FAILURE);	/* parent failed set-up */
	close(go);

	/* Our signal set-up is ours: the command gets the defaults */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	bypass_child_filter(c);
	execvp(c->cmd[0], c->cmd);
	fprintf(stderr, "pasta: can't run %s: %s\n", c->cmd[0],
		strerror(errno));
	_exit(127);
}

/**
 * pasta_spawn() - start the command in a new network namespace, held
 * @c:		execution context
 */
static void pasta_spawn(struct ctx *c)
{
	static char *shell[2];
	int ready[2], go[2], e;
	char path[64];

	if (!c->cmd) {
		shell[0] = getenv("SHELL") ? getenv("SHELL") : "/bin/sh";
		c->cmd = shell;
	}
	pasta_userns_own();
	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	bypass_child_prepare(c);

	c->cmd_pid = fork();
	if (c->cmd_pid < 0)
		die("fork: %s", strerror(errno));
	if (!c->cmd_pid) {
		close(ready[0]);
		close(go[1]);
		pasta_child(c, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &e, sizeof(e)) != sizeof(e))
		die("Namespace set-up failed in the child");
	if (e)
		die("Can't create a network namespace: %s", strerror(e));
	close(ready[0]);
	pasta_go_fd = go[1];

	snprintf(path, sizeof(path), "/proc/%d/ns/net", c->cmd_pid);
	c->fd_netns = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd_netns < 0)
		die("Can't open %s: %s", path, strerror(errno));
}

/**
 * pasta_join() - open an existing namespace given by PID or path
 * @c:		execution context
 */
static void pasta_join(struct ctx *c)
{
	char path[PATH_MAX];
	int fd;

	if (c->target_pid) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", c->target_pid);
		if (!c->userns_path[0] && geteuid() && !c->netns_only)
			snprintf(c->userns_path, sizeof(c->userns_path), "%s",
				 path);
		snprintf(c->netns_path, sizeof(c->netns_path),
			 "/proc/%d/ns/net", c->target_pid);
	}
	if (c->userns_path[0]) {
		fd = open(c->userns_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWUSER))
			die("Can't join user namespace %s: %s",
			    c->userns_path, strerror(errno));
		close(fd);
	}
	c->fd_netns = open(c->netns_path, O_RDONLY | O_CLOEXEC);
	if (c->fd_netns < 0)
		die("Can't open network namespace %s: %s", c->netns_path,
		    strerror(errno));
}

/**
 * pasta_config_family() - the guest's address and default route of a family
 * @c:		execution context
 * @ifi:	tap device in the namespace
 * @family:	AF_INET or AF_INET6
 */
static void pasta_config_family(const struct ctx *c, int ifi, int family)
{
	struct guest_fam g;
	int ret;

	if (!ip_family_on(family))
		return;
	ip_net_fam(family, &g);
	ret = inany_is_unspecified(&g.addr) ? 0 :	/* link-local only */
	      nl_addr_add(pasta_nl_ns, ifi, &g.addr, g.prefix);
	if (ret && ret != -EEXIST)
		die("Can't add address to %s: %s", c->ifname, strerror(-ret));
	ret = nl_route_add_default(pasta_nl_ns, ifi, &g.gw);
	if (ret && ret != -EEXIST)
		die("Can't add default route via the gateway: %s",
		    strerror(-ret));
}

/**
 * pasta_config_net() - bring up lo, and configure the tap if asked to
 * @c:		execution context
 */
static void pasta_config_net(const struct ctx *c)
{
	int lo, ifi, ret;

	lo = nl_link_index(pasta_nl_ns, "lo");
	if (lo > 0 && (ret = nl_link_set_up(pasta_nl_ns, lo, 0)))
		warn("Can't bring up lo in the namespace: %s", strerror(-ret));

	if (!c->config_net)
		return;
	ifi = nl_link_index(pasta_nl_ns, c->ifname);
	if (ifi < 0)
		die("Can't find %s in the namespace: %s", c->ifname,
		    strerror(-ifi));
	pasta_tap_ifi = ifi;
	ret = nl_link_set_up(pasta_nl_ns, ifi, c->mtu_no_assign ? 0 : c->mtu);
	if (ret)
		die("Can't set %s up with MTU %d: %s", c->ifname, c->mtu,
		    strerror(-ret));
	pasta_config_family(c, ifi, AF_INET);
	pasta_config_family(c, ifi, AF_INET6);
}

/**
 * pasta_ns_set() - give the namespace an address and default route
 * @c:		execution context
 * @g:		address (none if unspecified) and gateway
 *
 * Return: 0 on success, -errno from the first step that failed
 */
static int pasta_ns_set(const struct ctx *c, const struct guest_fam *g)
{
	int ret = 0;

	if (!inany_is_unspecified(&g->addr))
		ret = nl_addr_add(pasta_nl_ns, pasta_tap_ifi, &g->addr,
				  g->prefix);
	if (ret && ret != -EEXIST) {
		warn("Can't add the new address to %s: %s", c->ifname,
		     strerror(-ret));
		return ret;
	}
	ret = nl_route_replace_default(pasta_nl_ns, pasta_tap_ifi, &g->gw);
	if (ret)
		warn("Can't set the default route in the namespace: %s",
		     strerror(-ret));
	return ret;
}

/**
 * pasta_ns_follow() - give the namespace the guest's new configuration
 * @c:		execution context
 * @old:	the configuration of a family the namespace has
 * @new:	the one it should have
 *
 * The old address stays until pasta_ns_forget(), unless only its prefix
 * length changed: the guest must still take our resets of its connections
 * from there (follow.c).
 */
void pasta_ns_follow(const struct ctx *c, const struct guest_fam *old,
		     const struct guest_fam *new)
{
	if (pasta_nl_ns < 0 || !pasta_tap_ifi)
		return;
	if (inany_equals(&old->addr, &new->addr) &&
	    old->prefix != new->prefix)
		pasta_ns_forget(c, old, new);
	else
		pasta_ns_set(c, new);
}

/**
 * pasta_ns_forget() - remove the namespace's previous address
 * @c:		execution context
 * @old:	previous configuration
 * @new:	current one
 *
 * Removing the primary IPv4 address of a subnet removes its secondary
 * ones, and routes through them, unless promote_secondaries is set: the
 * current address and route are set again after.
 */
void pasta_ns_forget(const struct ctx *c, const struct guest_fam *old,
		     const struct guest_fam *new)
{
	int ret;

	if (pasta_nl_ns < 0 || !pasta_tap_ifi ||
	    inany_is_unspecified(&old->addr))
		return;
	ret = nl_addr_del(pasta_nl_ns, pasta_tap_ifi, &old->addr,
			  old->prefix);
	if (ret && ret != -EADDRNOTAVAIL)
		warn("Can't remove the old address from %s: %s", c->ifname,
		     strerror(-ret));
	pasta_ns_set(c, new);
}

/**
 * pasta_start() - set up the namespace and its tap device
 * @c:		execution context
 *
 * The namespace's -T and -U listeners come next (fwd_listen_ns()), then
 * pasta_start_follow().
 */
void pasta_start(struct ctx *c)
{
	int ret;

	if (c->target_pid || c->netns_path[0])
		pasta_join(c);
	else
		pasta_spawn(c);

	ret = ns_call(c->fd_netns, pasta_open_in_ns, c);
	if (ret)
		die("Can't create tap device %s in the namespace: %s",
		    c->ifname, strerror(-ret));
	pasta_config_net(c);
}

/**
 * pasta_start_follow() - open what pasta follows the host and namespace by
 * @c:		execution context
 *
 * The namespace's netlink socket, kept only if the namespace's addresses
 * follow the host's.
 */
void pasta_start_follow(struct ctx *c)
{
	if (c->no_follow_host || !c->config_net) {
		close(pasta_nl_ns);
		pasta_nl_ns = -1;
	}
	debug("pasta: tap %s in the namespace, guest %s", c->ifname,
	     c->config_net ? "configured" : "not configured");
}

/**
 * pasta_cmd_release() - let the held command run; with --bypass, take its
 *			 filter's listener, and with --bypass-agent get ready for
 *			 containers'
 * @c:		execution context
 */
void pasta_cmd_release(struct ctx *c)
{
	int tmpl[2];

	if (pasta_go_fd >= 0) {
		if (write(pasta_go_fd, "g", 1) != 1)
			die("Can't start the command: %s", strerror(errno));
		close(pasta_go_fd);
		pasta_go_fd = -1;
	}
	if (!c->bypass && !c->bypass_agent[0])
		return;
	/* What a new socket in the namespace has: the options the command
	 * sets are those that differ
	 */
	tmpl[0] = pasta_ns_socket(c, AF_INET, SOCK_STREAM);
	tmpl[1] = pasta_ns_socket(c, AF_INET6, SOCK_STREAM);
	bypass_start(c, tmpl);
	if (tmpl[0] >= 0)
		close(tmpl[0]);
	if (tmpl[1] >= 0)
		close(tmpl[1]);
}

/**
 * pasta_sigchld() - reap children; quit when the command has exited
 * @c:		execution context
 */
void pasta_sigchld(struct ctx *c)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid != c->cmd_pid)
			continue;
		c->cmd_exited = true;
		c->cmd_status = WIFEXITED(status) ? WEXITSTATUS(status) :
			       128 + WTERMSIG(status);
		c->quit = true;
	}
}

/**
 * pasta_netns_gone() - log that the namespace is gone, and quit
 * @c:		execution context
 */
static void pasta_netns_gone(struct ctx *c)
{
	info("Namespace %s is gone: exiting",
	     c->target_pid ? "of the target process" : c->netns_path);
	c->quit = true;
}

/**
 * pasta_netns_proc_pid() - the process whose /proc entry names the namespace
 * @path:	--netns path
 *
 * Return: PID of a /proc/PID/ns/net path, 0 for any other path
 */
static pid_t pasta_netns_proc_pid(const char *path)
{
	int pid, end = 0;

	if (sscanf(path, "/proc/%d/ns/net%n", &pid, &end) != 1 ||
	    path[end] || pid <= 0)
		return 0;
	return pid;
}

/**
 * pasta_netns_watch() - learn when the namespace we joined goes away
 * @c:		execution context
 *
 * A target PID's namespace, or one named by /proc/PID/ns/net (rootlesskit
 * passes that), goes with its process: a pidfd tells. inotify can't watch
 * /proc, and after the sandbox the entry may not even be readable.
 * Another file is watched for its removal, or looked at once a second
 * where inotify can't watch it.
 */
void pasta_netns_watch(struct ctx *c)
{
	pid_t pid = c->target_pid ? c->target_pid :
				    pasta_netns_proc_pid(c->netns_path);
	char dir[64];

	if (c->no_netns_quit || c->cmd_pid)
		return;		/* our own command's: we end with it */
	if (pid) {
		c->fd_nsquit = syscall(SYS_pidfd_open, pid, 0);
		if (c->fd_nsquit < 0)
			die("Can't watch process %d: %s", pid, strerror(errno));
		epoll_ref_add(c, c->fd_nsquit, EPOLL_TYPE_NSQUIT,
			      PASTA_NSQUIT_PROCESS, EPOLLIN);
		return;
	}

	/* The sandbox hides every path: look the file up from here */
	c->fd_netns_dir = path_dir_open(c->netns_path, &c->netns_name);
	if (c->fd_netns_dir < 0)
		die("Can't open the directory of %s to watch it: %s",
		    c->netns_path, strerror(errno));
	snprintf(dir, sizeof(dir), "/proc/self/fd/%d", c->fd_netns_dir);

	c->fd_nsquit = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (!strncmp(c->netns_path, "/proc/", 6) || c->fd_nsquit < 0 ||
	    inotify_add_watch(c->fd_nsquit, dir, IN_DELETE | IN_MOVED_FROM |
			      IN_DELETE_SELF) < 0) {
		if (c->fd_nsquit >= 0)
			close(c->fd_nsquit);
		c->fd_nsquit = -1;
		c->nsquit_poll = true;
		return;
	}
	epoll_ref_add(c, c->fd_nsquit, EPOLL_TYPE_NSQUIT, 0, EPOLLIN);
}

/**
 * pasta_netns_file_gone() - is the --netns file gone, or another one now?
 * @c:		execution context
 *
 * Return: true if it no longer names the namespace we joined
 */
static bool pasta_netns_file_gone(const struct ctx *c)
{
	struct stat now, ours;

	if (fstatat(c->fd_netns_dir, c->netns_name, &now, 0) ||
	    fstat(c->fd_netns, &ours))
		return true;
	return now.st_dev != ours.st_dev || now.st_ino != ours.st_ino;
}

/**
 * pasta_netns_handler() - the namespace's file changed, or its process ended
 * @c:		execution context
 * @what:	epoll reference index: PASTA_NSQUIT_PROCESS for a pidfd, else
 *		the inotify descriptor of the file's directory
 */
void pasta_netns_handler(struct ctx *c, uint32_t what)
{
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));

	if (what == PASTA_NSQUIT_PROCESS) {
		pasta_netns_gone(c);
		return;
	}
	while (read(c->fd_nsquit, buf, sizeof(buf)) > 0)
		;		/* which entry changed doesn't matter: look */
	if (pasta_netns_file_gone(c))
		pasta_netns_gone(c);
}

/**
 * pasta_netns_poll() - where inotify can't watch, look once a second
 * @c:		execution context
 */
void pasta_netns_poll(struct ctx *c)
{
	static int64_t next;

	if (!c->nsquit_poll || c->now < next)
		return;
	next = c->now + MS_PER_S;
	if (pasta_netns_file_gone(c))
		pasta_netns_gone(c);
}

/**
 * struct pasta_sock_arg - sockets to open in the namespace
 * @family:	AF_INET or AF_INET6
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @fds:	where to put them
 * @want:	how many
 * @n:		how many were opened
 */
struct pasta_sock_arg {
	int family;
	int type;
	int *fds;
	int want;
	int n;
};

static int pasta_ns_socket_cb(void *arg)
{
	struct pasta_sock_arg *a = arg;

	for (a->n = 0; a->n < a->want; a->n++) {
		int s = socket(a->family, a->type | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       0);

		if (s < 0)
			return a->n ? 0 : -errno;
		a->fds[a->n] = s;
	}
	return 0;
}

/**
 * pasta_ns_run() - run a function inside the namespace, then return
 * @c:		execution context
 * @fn:		function, may create sockets: they stay the namespace's
 * @arg:	argument for @fn
 *
 * Return: what @fn returned, or -errno
 */
int pasta_ns_run(const struct ctx *c, int (*fn)(void *), void *arg)
{
	return ns_call(c->fd_netns, fn, arg);
}

/* Spare TCP sockets in the namespace, per family (0: IPv4, 1: IPv6), for
 * spliced connections from the host's loopback: entering the namespace
 * costs a clone() and a setns(), which took more than the rest of a
 * connection (tcprr crr, 32 at a time: 2,800 a second, host-direct 19,600)
 */
static int pasta_ns_spare[2][PASTA_NS_SPARE];
static int pasta_ns_spare_n[2];

/**
 * pasta_ns_socket() - a socket inside the namespace, for splicing
 * @c:		execution context
 * @family:	AF_INET or AF_INET6
 * @type:	SOCK_STREAM or SOCK_DGRAM
 *
 * A socket belongs to the namespace it was created in: connect() from here
 * reaches the namespace's loopback. TCP ones come from a stock opened
 * PASTA_NS_SPARE at a time, one trip into the namespace for them all.
 *
 * Return: socket, or -1 on failure
 */
int pasta_ns_socket(const struct ctx *c, int family, int type)
{
	int one, i = family == AF_INET6;
	struct pasta_sock_arg a = { family, type, &one, 1, 0 };

	if (type != SOCK_STREAM)
		return ns_call(c->fd_netns, pasta_ns_socket_cb, &a) ? -1 : one;

	if (!pasta_ns_spare_n[i]) {
		a.fds = pasta_ns_spare[i];
		a.want = PASTA_NS_SPARE;
		if (ns_call(c->fd_netns, pasta_ns_socket_cb, &a))
			return -1;
		pasta_ns_spare_n[i] = a.n;
	}
	return pasta_ns_spare[i][--pasta_ns_spare_n[i]];
}
