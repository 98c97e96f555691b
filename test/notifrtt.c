// SPDX-License-Identifier: GPL-2.0-or-later
/* notifrtt.c - what a seccomp user notification costs a connect(), at least
 *
 * Build: make test/notifrtt
 *
 * Usage: notifrtt [CALLS]
 *
 * The floor under pasta --bypass: a child calls connect() on a UDP socket
 * to 127.0.0.1:9 (no packet sent, the kernel's cheapest connect()) CALLS
 * times (default 20000), first with no filter, then under a filter that
 * notifies connect() to a supervisor (its parent) that answers each one
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE, doing nothing else but what pasta's
 * loop does: epoll_wait(), RECV, SEND. Twice: with ordinary wake-ups,
 * then with synchronous ones (SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux
 * 6.6, as pasta asks for). Also the cost of a system call that does nothing
 * (getppid()): on a machine with PTI, each of the ~36 calls pasta makes to
 * hand a connection over costs about that. Prints one line each, in us.
 */

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bypass.h"	/* the synchronous wake-ups' ioctl, as pasta asks */

/**
 * now_us() - monotonic time
 *
 * Return: microseconds
 */
static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/**
 * connects() - time CALLS connect() calls on a UDP socket
 * @calls:	how many
 *
 * Return: microseconds per call
 */
static double connects(long calls)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(9),
		.sin_addr = { htonl(INADDR_LOOPBACK) },
	};
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	double t = now_us();
	long i;

	for (i = 0; i < calls; i++)
		connect(s, (struct sockaddr *)&a, sizeof(a));
	t = (now_us() - t) / calls;
	close(s);
	return t;
}

/**
 * filter_connect() - notify connect() to a listener
 *
 * Return: the listener, -1 on failure
 */
static int filter_connect(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
}

/**
 * supervise() - answer every notification CONTINUE until the child is gone
 * @lfd:	listener
 */
static void supervise(int lfd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev))
		return;
	while (epoll_wait(ep, &ev, 1, 10000) > 0 && !(ev.events & EPOLLHUP)) {
		struct seccomp_notif_resp resp = { 0 };
		struct seccomp_notif req = { 0 };

		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req))
			continue;
		resp.id = req.id;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
	}
	close(ep);
}

/**
 * send_fd() - pass a descriptor over a UNIX socket
 * @s:		socket
 * @fd:		descriptor
 *
 * Return: 0 on success, -1 on failure
 */
static int send_fd(int s, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, c = 0;
	struct iovec iov = { &c, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	return sendmsg(s, &mh, 0) == 1 ? 0 : -1;
}

/**
 * recv_fd() - a descriptor passed over a UNIX socket
 * @s:		socket
 *
 * Return: the descriptor, -1 on failure
 */
static int recv_fd(int s)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { &c, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(s, &mh, 0) != 1 || !(cm = CMSG_FIRSTHDR(&mh)) ||
	    cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	return fd;
}

/**
 * notified() - a child's connect()s under the filter, supervised by us
 * @calls:	how many
 * @sync:	ask for synchronous wake-ups
 *
 * Return: 0 on success, 1 on failure
 */
static int notified(long calls, int sync)
{
	int sv[2], lfd, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		lfd = filter_connect();
		if (lfd < 0 || send_fd(sv[0], lfd)) {
			fprintf(stderr, "seccomp: %s\n", strerror(errno));
			_exit(1);
		}
		close(lfd);
		printf("connect(), notified, CONTINUE, %s wake-ups: %.2f us\n",
		       sync ? "synchronous" : "ordinary", connects(calls));
		fflush(stdout);
		_exit(0);
	}
	lfd = recv_fd(sv[1]);
	if (lfd >= 0) {
		if (sync && ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
				  SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP))
			fprintf(stderr, "synchronous wake-ups: %s\n",
				strerror(errno));
		supervise(lfd);
		close(lfd);
	}
	close(sv[0]);
	close(sv[1]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? strtol(argv[1], NULL, 0) : 20000, i;
	double t;

	if (calls <= 0)
		return 1;
	t = now_us();
	for (i = 0; i < calls; i++)
		getppid();
	printf("system call (getppid): %.2f us\n", (now_us() - t) / calls);
	printf("connect(), no filter: %.2f us\n", connects(calls));
	fflush(stdout);
	return notified(calls, 0) || notified(calls, 1);
}
