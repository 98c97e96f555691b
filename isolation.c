// SPDX-License-Identifier: GPL-2.0-or-later
/* isolation.c - give up what the loop does not need
 *
 * Theory of operation: everything that needs privileges (the tap device,
 * the namespace, ports below 1024, files) is opened at start-up; then,
 * before the loop, isolate_loop() gives up the rest:
 *  - started as root in the initial user namespace, we continue as the
 *    --runas user (by default nobody), so that a guest that took over the
 *    loop would hold no more than that user (root of any other user
 *    namespace, pasta's own included, is root of nothing else: no switch
 *    there);
 *  - capabilities: passt keeps none; pasta keeps three, each for a call
 *    the loop still makes: CAP_SYS_ADMIN for setns() into the namespace
 *    (splice sockets, -T/-U auto listeners, see pasta_ns_run()),
 *    CAP_NET_ADMIN for what it configures there, CAP_NET_BIND_SERVICE for
 *    "auto" ports below 1024;
 *  - no_new_privs: nothing we could execute gains privileges;
 *  - not dumpable: no core file, no ptrace by our user, /proc/PID root's;
 *  - no filesystem: new mount, IPC and UTS namespaces, the root an empty
 *    read-only tmpfs (what we still reach, the pcap and log files, the
 *    --netns file's, the socket's and resolv.conf's directories, is held
 *    open from before); passt, not root, first makes a user namespace of
 *    its own to be allowed to, as it needs nothing outside it any more;
 *  - seccomp: a filter allows exactly the system calls the loop makes,
 *    listed in isolate_syscalls[] with what makes each (clone() and setns()
 *    only in the form ns_call() uses); any other is refused, logged with
 *    its number, and we exit.
 * Sanitizer builds check for leaks before all that (LeakSanitizer needs
 * /proc and ptrace), not at exit.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <pwd.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bypass.h"
#include "isolation.h"
#include "log.h"
#include "passt.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#define ISOLATE_NOBODY		65534	/* if "nobody" has no passwd entry */
#define ISOLATE_MOUNT_POINT	"/tmp"	/* any directory every system has */

static bool isolate_root;	/* started as root, in the initial namespace */

/**
 * isolate_init_userns() - are we in the initial user namespace?
 *
 * As upstream tells: only there does uid_map map all of them onto
 * themselves. If it can't be read, assume so, and give up root.
 *
 * Return: true in the initial user namespace (or when unsure)
 */
static bool isolate_init_userns(void)
{
	static const char all[] = "         0          0 4294967295\n";
	char buf[sizeof(all)] = { 0 };
	ssize_t n;
	int fd;

	fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)sizeof(all) - 1 && !memcmp(buf, all, n);
}

/**
 * isolate_initial() - note who started us, before pasta's user namespace
 *
 * Inside that namespace we are root too, but only there: nothing to give
 * up at that point. The same holds for root of any user namespace but the
 * initial one (say, "unshare -r pasta --netns-only"): it can't switch to
 * an unmapped nobody, and has no more than its user to give up. Decided
 * now: once the sandbox closes, uid_map can't be read any more.
 */
void isolate_initial(void)
{
	isolate_root = !geteuid() && isolate_init_userns();
}

/**
 * isolate_caps() - keep only the capabilities the loop needs, effective
 * @c:		execution context
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_caps(const struct ctx *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct have[2], data[2] = { { 0 } };
	/* --bypass: the command, root, reached from our user */
	static const int keep[] = {
		CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_NET_BIND_SERVICE,
		CAP_SYS_PTRACE,
	};
	unsigned int i;

	if (syscall(SYS_capget, &hdr, have))
		return -1;
	for (i = 0; c->mode == MODE_PASTA && i < ARRAY_SIZE(keep); i++) {
		uint32_t bit = 1U << (keep[i] % 32);

		if (keep[i] == CAP_SYS_PTRACE && !c->bypass &&
		    !c->bypass_agent[0])
			continue;

		/* Only those we have: not root, with --netns-only, none */
		data[keep[i] / 32].effective |= have[keep[i] / 32].permitted &
						bit;
		data[keep[i] / 32].permitted |= have[keep[i] / 32].permitted &
						bit;
	}
	return (int)syscall(SYS_capset, &hdr, data);
}

/**
 * isolate_user() - started as root, continue as the --runas user
 * @c:		execution context
 */
static void isolate_user(const struct ctx *c)
{
	uid_t uid = ISOLATE_NOBODY;
	gid_t gid = ISOLATE_NOBODY;
	const struct passwd *pw;

	if (!isolate_root)
		return;
	if (c->runas_set) {
		uid = c->runas_uid;
		gid = c->runas_gid;
	} else if ((pw = getpwnam("nobody"))) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (!uid)
		return;		/* --runas 0: stay root */

	/* pasta's capabilities survive the switch, see isolate_caps() */
	if ((c->mode == MODE_PASTA && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
	    setgroups(0, NULL) || setgid(gid) || setuid(uid))
		die("Can't continue as user %u, group %u: %s", uid, gid,
		    strerror(errno));
	debug("running as user %u, group %u", uid, gid);
}

/**
 * isolate_proc_write() - write a line to a file of /proc/self, best effort
 * @path:	file
 * @text:	what to write
 */
static void isolate_proc_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = (ssize_t)strlen(text);

	if (fd < 0)
		return;
	if (write(fd, text, n) != n)
		debug("Can't write %s: %s", path, strerror(errno));
	close(fd);
}

/**
 * isolate_unshare() - new mount, IPC and UTS namespaces
 * @c:		execution context
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_unshare(const struct ctx *c)
{
	const int flags = CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS;
	char uid_map[32], gid_map[32];

	snprintf(uid_map, sizeof(uid_map), "%u %u 1", geteuid(), geteuid());
	snprintf(gid_map, sizeof(gid_map), "%u %u 1", getegid(), getegid());
	if (!unshare(flags))
		return 0;
	/* pasta must stay in the user namespace that owns its network
	 * namespace (setns() later), passt has nothing left to reach
	 */
	if (errno != EPERM || c->mode != MODE_PASST || unshare(CLONE_NEWUSER))
		return -1;
	/* Only our own IDs are mapped: a peer's credentials (SO_PEERCRED,
	 * the control socket) still tell our user from any other, which all
	 * show as the overflow ID
	 */
	isolate_proc_write("/proc/self/uid_map", uid_map);
	isolate_proc_write("/proc/self/setgroups", "deny");
	isolate_proc_write("/proc/self/gid_map", gid_map);
	return unshare(flags);
}

/**
 * isolate_fs() - leave the filesystem: an empty, read-only root
 * @c:		execution context
 *
 * A tmpfs mounted on a directory becomes the root (pivot_root() with the
 * old root stacked on it, then detached), in a mount namespace of our own:
 * nobody else sees any of it.
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_fs(const struct ctx *c)
{
	if (isolate_unshare(c) ||
	    mount("", "/", "", MS_REC | MS_PRIVATE, NULL) ||
	    mount("", ISOLATE_MOUNT_POINT, "tmpfs",
		  MS_RDONLY | MS_NODEV | MS_NOEXEC | MS_NOSUID, "mode=0555") ||
	    chdir(ISOLATE_MOUNT_POINT) ||
	    syscall(SYS_pivot_root, ".", ".") ||
	    umount2(".", MNT_DETACH) ||
	    chdir("/"))
		return -1;
	return 0;
}

#define ISOLATE_ARG_NONE	-1

/* What a call outside the list gets: a trap, see isolate_seccomp(); in the
 * build of make seccomp-audit, the call runs and the kernel logs it, so
 * that a whole test run shows every call the list lacks
 */
#ifdef ISOLATE_SECCOMP_LOG
#define ISOLATE_REFUSE		SECCOMP_RET_LOG
#else
#define ISOLATE_REFUSE		SECCOMP_RET_TRAP
#endif

/**
 * struct isolate_syscall - one system call the loop makes
 * @nr:		its number
 * @arg:	argument that must have @val, or ISOLATE_ARG_NONE: any
 * @val:	that value
 */
struct isolate_syscall {
	int nr;
	int arg;
	uint64_t val;
};

#define ANY(nr)			{ (nr), ISOLATE_ARG_NONE, 0 }
#define ONLY(nr, arg, val)	{ (nr), (arg), (val) }

/* Every system call of the loop, both modes, the most frequent first: the
 * filter tries them in order.  Set-up is over when the filter goes on.
 */
static const struct isolate_syscall isolate_syscalls[] = {
	/* the loop itself */
	ANY(__NR_epoll_pwait),
#ifdef __NR_epoll_wait
	ANY(__NR_epoll_wait),
#endif
	ANY(__NR_epoll_ctl),
	/* frames: tap device, passt's stream; inotify, pidfd, signalfd */
	ANY(__NR_read), ANY(__NR_write), ANY(__NR_readv), ANY(__NR_writev),
	/* sockets: data, splicing, netlink */
	ANY(__NR_recvfrom), ANY(__NR_recvmsg), ANY(__NR_recvmmsg),
	ANY(__NR_sendto), ANY(__NR_sendmsg), ANY(__NR_sendmmsg),
	ANY(__NR_splice),
	/* flows starting and ending, forwarded ports coming and going */
	ANY(__NR_socket), ANY(__NR_connect), ANY(__NR_accept4),
	ANY(__NR_bind), ANY(__NR_listen), ANY(__NR_shutdown), ANY(__NR_close),
	ANY(__NR_setsockopt), ANY(__NR_getsockopt), ANY(__NR_getsockname),
	ANY(__NR_getpeername), ANY(__NR_pipe2), ANY(__NR_fcntl),
	/* time, ISNs and hash keys */
	ANY(__NR_clock_gettime), ANY(__NR_getrandom),
	/* -T/-U auto: the host's /proc/net files, read again from the start */
	ANY(__NR_lseek),
	/* -l: the file kept under --log-size */
	ANY(__NR_pread64), ANY(__NR_pwrite64), ANY(__NR_ftruncate),
	/* pasta: ns_call() runs a function in the namespace, a thread-like
	 * child sharing our memory and descriptors
	 */
	ONLY(__NR_clone, 0, CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD),
	ONLY(__NR_setns, 1, CLONE_NEWNET),
	ANY(__NR_wait4), ANY(__NR_exit),
	/* pasta: has the --netns file gone? */
	ANY(__NR_newfstatat), ANY(__NR_fstat),
	/* resolv.conf changed: read it again through its directory, held
	 * open, and see where its symbolic link leads now (resolv.c)
	 */
	ANY(__NR_openat), ANY(__NR_readlinkat),
	/* passt --vhost-user: the guest's memory and the dirty page log,
	 * mapped as the front-end hands them over, and let go
	 * (vhost_user.c); the migration state's pipe, waited for (migrate.c)
	 */
	ONLY(__NR_mmap, 3, MAP_SHARED | MAP_NORESERVE), ANY(__NR_munmap),
	ANY(__NR_ppoll),
	/* migration: the other passt, which our sockets go to or come from,
	 * must run as our user (migrate.c)
	 */
	ANY(__NR_geteuid),
	/* migration between hosts: a TCP socket's queues, dumped in repair
	 * mode (tcp_repair.c)
	 */
	ONLY(__NR_ioctl, 1, SIOCINQ), ONLY(__NR_ioctl, 1, SIOCOUTQ),
	ONLY(__NR_ioctl, 1, SIOCOUTQNSD),
	/* pasta --bypass: the command's filter's notifications, its memory
	 * (the address it connects to) and its sockets (bypass.c)
	 */
	ONLY(__NR_ioctl, 1, SECCOMP_IOCTL_NOTIF_RECV),
	ONLY(__NR_ioctl, 1, SECCOMP_IOCTL_NOTIF_SEND),
	ONLY(__NR_ioctl, 1, SECCOMP_IOCTL_NOTIF_ID_VALID),
	ONLY(__NR_ioctl, 1, SECCOMP_IOCTL_NOTIF_ADDFD),
	ONLY(__NR_ioctl, 1, SECCOMP_IOCTL_NOTIF_SET_FLAGS),
	ANY(__NR_process_vm_readv), ANY(__NR_pidfd_open),
	ONLY(__NR_pidfd_getfd, 2, 0),
	/* signals (SIGSYS's handler), the end: passt's socket file */
	ANY(__NR_rt_sigreturn), ANY(__NR_unlinkat), ANY(__NR_exit_group),
#ifdef __SANITIZE_ADDRESS__
	/* Sanitizer builds only (test/san, unit tests, fuzzing), and the
	 * only place the list differs between builds: not ours, the
	 * sanitizers' memory management (we don't allocate), and what their
	 * error reports use
	 */
	ANY(__NR_mmap), ANY(__NR_munmap), ANY(__NR_madvise),
	ANY(__NR_mprotect), ANY(__NR_sigaltstack), ANY(__NR_rt_sigaction),
	ANY(__NR_rt_sigprocmask), ANY(__NR_getpid), ANY(__NR_gettid),
	ANY(__NR_tgkill), ANY(__NR_sched_yield), ANY(__NR_futex),
	ANY(__NR_prctl), ANY(__NR_ioctl),
#ifdef __NR_readlink
	ANY(__NR_readlink), ANY(__NR_open),
#endif
#endif
};

#undef ANY
#undef ONLY

/* Instructions per entry: see isolate_filter_entry() */
#define ISOLATE_FILTER_HEAD	5
#define ISOLATE_FILTER_MAX	(ISOLATE_FILTER_HEAD + 1 + \
				 7 * ARRAY_SIZE(isolate_syscalls))

#define ISOLATE_LD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS,	\
					 offsetof(struct seccomp_data, field))
#define ISOLATE_JEQ(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define ISOLATE_RET(k)		BPF_STMT(BPF_RET | BPF_K, (k))

/**
 * isolate_filter_entry() - append the instructions that allow one entry
 * @e:		the entry
 * @f:		filter, at the next free instruction
 *
 * With the number in the accumulator: allowed on a match, else on to the
 * next entry.  An argument check loads both halves of the argument, then
 * the number again for the entries after it.  Each entry returns by itself:
 * classic BPF jumps only 255 instructions ahead.
 *
 * Return: instructions appended
 */
static unsigned int isolate_filter_entry(const struct isolate_syscall *e,
					 struct sock_filter *f)
{
	unsigned int lo = offsetof(struct seccomp_data, args[0]) +
			  e->arg * sizeof(uint64_t);
	unsigned int n = 0;

	if (e->arg == ISOLATE_ARG_NONE) {
		f[n++] = (struct sock_filter)ISOLATE_JEQ(e->nr, 0, 1);
		f[n++] = (struct sock_filter)ISOLATE_RET(SECCOMP_RET_ALLOW);
		return n;
	}
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "The filter's argument checks assume little-endian halves"
#endif
	f[n++] = (struct sock_filter)ISOLATE_JEQ(e->nr, 0, 6);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo);
	f[n++] = (struct sock_filter)ISOLATE_JEQ((uint32_t)e->val, 0, 3);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, lo + 4);
	f[n++] = (struct sock_filter)ISOLATE_JEQ(e->val >> 32, 0, 1);
	f[n++] = (struct sock_filter)ISOLATE_RET(SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)ISOLATE_LD(nr);
	return n;
}

/**
 * isolate_sigsys() - a system call outside the list: say which, and exit
 * @sig:	SIGSYS
 * @info:	its number in si_syscall
 * @uctx:	unused
 */
static void isolate_sigsys(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	(void)uctx;
	die("seccomp: system call %d is not in the list, exiting",
	    info->si_syscall);
}

/**
 * isolate_seccomp() - allow the loop's system calls, and no other
 *
 * Refused ones trap rather than kill outright, so that the number is
 * logged: the call itself never runs either way.
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_seccomp(void)
{
	static struct sock_filter f[ISOLATE_FILTER_MAX] = {
		ISOLATE_LD(arch),
		ISOLATE_JEQ(ISOLATE_AUDIT_ARCH, 0, 2),
		ISOLATE_LD(nr),
		/* numbers of another ABI on the same architecture (x32) */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, ISOLATE_NR_LIMIT, 0, 1),
		ISOLATE_RET(SECCOMP_RET_KILL_PROCESS),
	};
	struct sigaction sa = {
		.sa_sigaction = isolate_sigsys,
		.sa_flags = SA_SIGINFO,
	};
	unsigned int i, n = ISOLATE_FILTER_HEAD;
	struct sock_fprog prog = { 0 };

	for (i = 0; i < ARRAY_SIZE(isolate_syscalls); i++)
		n += isolate_filter_entry(&isolate_syscalls[i], f + n);
	f[n++] = (struct sock_filter)ISOLATE_RET(ISOLATE_REFUSE);
	prog.len = (unsigned short)n;
	prog.filter = f;

	if (sigaction(SIGSYS, &sa, NULL))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/**
 * isolate_loop() - give up what the loop does not need, before it starts
 * @c:		execution context
 */
void isolate_loop(const struct ctx *c)
{
#ifdef __SANITIZE_ADDRESS__
	__lsan_do_leak_check();
#endif
	if (isolate_fs(c))
		die("Can't isolate from the filesystem: %s", strerror(errno));
	isolate_user(c);
	if (isolate_caps(c))
		die("Can't drop capabilities: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("Can't set no_new_privs: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("Can't make us not dumpable: %s", strerror(errno));
	if (isolate_seccomp())
		die("Can't install the seccomp filter: %s", strerror(errno));
}
