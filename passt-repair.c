// SPDX-License-Identifier: GPL-2.0-or-later
/* passt-repair.c - privileged helper: TCP_REPAIR on passt's sockets
 *
 * Theory of operation: migrating a TCP connection needs its socket in repair
 * mode (TCP_REPAIR), which needs CAP_NET_ADMIN; passt runs without it. This
 * helper, run with it, connects to passt's repair socket (--repair-path, by
 * default the guest socket's path with ".repair" appended; given a
 * directory, it waits for a "*.repair" socket to appear there), and serves
 * one request after another: a signed byte, TCP_REPAIR_ON (1),
 * TCP_REPAIR_OFF (0) or TCP_REPAIR_OFF_NO_WP (-1), with one to SCM_MAX_FD
 * (253) sockets passed along (SCM_RIGHTS). It sets that mode on each and
 * echoes the byte; on any failure it closes the connection, says why, and
 * exits non-zero. passt closing the connection ends it, successfully.
 * The same command line and protocol as upstream's helper: either works
 * with either passt.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#define REPAIR_FDS_MAX		253	/* SCM_MAX_FD */
#define REPAIR_SUFFIX		".repair"
#define REPAIR_WAIT_S		3600	/* for a socket in a directory */
#define REPAIR_LISTEN_TRIES	50	/* 100 ms apart: bound, not listening */

/**
 * repair_name_ok() - does a directory entry's name end in ".repair"?
 * @name:	entry name
 *
 * Return: true if so
 */
static int repair_name_ok(const char *name)
{
	size_t n = strlen(name), s = strlen(REPAIR_SUFFIX);

	return n > s && !strcmp(name + n - s, REPAIR_SUFFIX);
}

/**
 * repair_find() - a "*.repair" entry in a directory, if there is one
 * @dir:	directory
 * @path:	its path, set, PATH_MAX bytes
 *
 * Return: 0 if one was found, -1 if not
 */
static int repair_find(const char *dir, char *path)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = -1;

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (repair_name_ok(d->d_name) &&
		    snprintf(path, PATH_MAX, "%s/%s", dir, d->d_name) <
		    PATH_MAX) {
			ret = 0;
			break;
		}
	}
	closedir(dp);
	return ret;
}

/**
 * repair_wait() - wait for a "*.repair" socket to appear in a directory
 * @dir:	directory
 * @path:	its path, set, PATH_MAX bytes
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int repair_wait(const char *dir, char *path)
{
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int fd = inotify_init1(IN_CLOEXEC), ret = -1;
	time_t until = time(NULL) + REPAIR_WAIT_S;

	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		fprintf(stderr, "passt-repair: can't watch %s: %s\n", dir,
			strerror(errno));
		goto out;
	}
	/* What's there already, then what comes: the watch is set before
	 * we look, so nothing created in between is missed
	 */
	while (repair_find(dir, path)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		if (time(NULL) > until) {
			fprintf(stderr, "passt-repair: no *%s socket in %s "
				"after %i s\n", REPAIR_SUFFIX, dir,
				REPAIR_WAIT_S);
			goto out;
		}
		if (poll(&pfd, 1, 1000) > 0 && read(fd, buf, sizeof(buf)) < 0 &&
		    errno != EINTR) {
			fprintf(stderr, "passt-repair: inotify: %s\n",
				strerror(errno));
			goto out;
		}
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

/**
 * repair_connect() - connect to passt's repair socket
 * @path:	its path
 * @tries:	attempts while it refuses: a socket we saw appear may be bound
 *		and not listening yet
 *
 * Return: connected socket, -1 on failure (reported)
 */
static int repair_connect(const char *path, int tries)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, ret;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "passt-repair: path too long: %s\n", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		fprintf(stderr, "passt-repair: socket: %s\n", strerror(errno));
		return -1;
	}
	while ((ret = connect(s, (struct sockaddr *)&a, sizeof(a))) &&
	       errno == ECONNREFUSED && --tries > 0) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	if (ret) {
		fprintf(stderr, "passt-repair: can't connect to %s: %s\n",
			path, strerror(errno));
		close(s);
		return -1;
	}
	return s;
}

/**
 * repair_set() - set a repair mode on the sockets of one request
 * @mode:	TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 * @fds:	sockets
 * @n:		how many
 *
 * All of them are closed: they're passt's, we only needed them here.
 *
 * Return: 0 on success, -1 on failure (reported)
 */
static int repair_set(int mode, const int *fds, unsigned int n)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (!ret && setsockopt(fds[i], SOL_TCP, TCP_REPAIR, &mode,
				       sizeof(mode))) {
			fprintf(stderr, "passt-repair: TCP_REPAIR %i on socket "
				"%u of %u: %s\n", mode, i + 1, n,
				strerror(errno));
			ret = -1;
		}
		close(fds[i]);
	}
	return ret;
}

/**
 * repair_serve() - serve passt's requests until it closes the connection
 * @s:		connected socket
 *
 * Return: 0 once passt closed it, -1 on failure (reported)
 */
static int repair_serve(int s)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int) * REPAIR_FDS_MAX)]
			__attribute__((aligned(__alignof__(struct cmsghdr))));
		int fds[REPAIR_FDS_MAX];
		int8_t cmd;
		struct iovec iov = { &cmd, sizeof(cmd) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		unsigned int n = 0;
		ssize_t r;

		r = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
		if (!r)
			return 0;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "passt-repair: receive: %s\n",
				strerror(errno));
			return -1;
		}
		cm = CMSG_FIRSTHDR(&mh);
		if (cm && cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS) {
			n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(fds, CMSG_DATA(cm), n * sizeof(int));
		}
		if (!n || (mh.msg_flags & MSG_CTRUNC) ||
		    (cmd != TCP_REPAIR_ON && cmd != TCP_REPAIR_OFF &&
		     cmd != TCP_REPAIR_OFF_NO_WP)) {
			fprintf(stderr, "passt-repair: bad request: %i, with "
				"%u sockets%s\n", cmd, n,
				(mh.msg_flags & MSG_CTRUNC) ? " and more" : "");
			while (n)
				close(fds[--n]);
			return -1;
		}
		if (repair_set(cmd, fds, n))
			return -1;
		do
			r = send(s, &cmd, sizeof(cmd), MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);
		if (r != sizeof(cmd)) {
			fprintf(stderr, "passt-repair: reply: %s\n",
				r < 0 ? strerror(errno) : "short");
			return -1;
		}
	}
}

/**
 * main() - passt-repair PATH
 * @argc:	argument count
 * @argv:	PATH: passt's repair socket, or a directory to wait in for one
 *
 * Return: 0 once passt closed the connection, 1 on failure
 */
int main(int argc, char **argv)
{
	int s, ret, tries = 1;
	char path[PATH_MAX];
	struct stat st;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s PATH\n", argv[0]);
		return 1;
	}
	if (stat(argv[1], &st) == 0 && S_ISDIR(st.st_mode)) {
		if (repair_wait(argv[1], path))
			return 1;
		tries = REPAIR_LISTEN_TRIES;
	} else if (snprintf(path, sizeof(path), "%s", argv[1]) >=
		   (int)sizeof(path)) {
		fprintf(stderr, "passt-repair: path too long: %s\n", argv[1]);
		return 1;
	}

	s = repair_connect(path, tries);
	if (s < 0)
		return 1;
	ret = repair_serve(s);
	close(s);
	return ret ? 1 : 0;
}
