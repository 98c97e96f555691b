// SPDX-License-Identifier: GPL-2.0-or-later
/* stream.c - link backend: passt's UNIX stream socket (QEMU's -netdev stream)
 *
 * Theory of operation: frames go both ways behind a 32-bit length in
 * network order. We read what the socket has into a stream buffer and copy
 * each complete frame into a receive slot (headers are read as structs:
 * slots are aligned), keeping a partial one for the next read. A bad length
 * loses the guest: the stream is out of step.
 *
 * A run of frames to the guest goes with one sendmsg(): one wake-up for
 * QEMU, however many frames. Nothing here waits: a guest that doesn't read
 * loses frames, as on a full link, never its connection (see
 * stream_send()). The guest's checksums are complete both ways: QEMU's
 * stream netdev has no virtio-net header to carry offloads in.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>

#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"
#include "stream.h"

#define STREAM_CTL_FRAME_MAX	256	/* ARP, NDP: see stream_is_ctl() */
#define STREAM_CTL_OWED_MAX	16	/* of those, queued behind a cut frame */
#define STREAM_SNDBUF		(8 << 20)
#define STREAM_PATH_FMT		"/tmp/passt_%d.socket"
#define STREAM_PATH_MAX_N	64

/* Bytes read from the guest: from stream_in_off on, what no receive slot
 * has taken yet (whole frames, then a partial one); moved to the start only
 * as more is read, so that handing out a frame copies just that frame
 */
static uint8_t stream_in[(LINK_FRAME_MAX + sizeof(uint32_t)) * 4];
static size_t stream_in_off, stream_in_len;
static unsigned int stream_reads;	/* in this wake-up */

/* What we owe the guest's socket, sent in order on EPOLLOUT: the rest of a
 * frame it took part of, then ARP and NDP replies it had no room for
 */
static uint8_t stream_owed[sizeof(uint32_t) + LINK_FRAME_MAX +
			   STREAM_CTL_OWED_MAX *
			   (sizeof(uint32_t) + STREAM_CTL_FRAME_MAX)];
static size_t stream_owed_len, stream_owed_off;
static bool stream_room_wanted;	/* the link layer waits for EPOLLOUT */

/**
 * stream_epollout() - wait for EPOLLOUT on the guest's socket, or stop
 * @c:		execution context
 * @on:		wait for it
 */
static void stream_epollout(const struct ctx *c, bool on)
{
	epoll_ref_mod(c, c->fd_tap, EPOLL_TYPE_TAP, 0,
		      EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0));
}

/**
 * stream_caps() - what QEMU's stream netdev offloads
 * @c:		execution context
 *
 * Return: nothing
 */
static struct link_caps stream_caps(const struct ctx *c)
{
	(void)c;
	return (struct link_caps){ 0 };
}

/**
 * stream_owe() - keep bytes the guest's socket did not take, for EPOLLOUT
 * @c:		execution context
 * @iov:	a frame's length prefix and the frame
 * @skip:	bytes of the two the socket took already
 *
 * Return: true if they fit (they always do for the first frame)
 */
static bool stream_owe(const struct ctx *c, const struct iovec *iov,
		       size_t skip)
{
	size_t len = iov[0].iov_len + iov[1].iov_len - skip;
	unsigned int i;

	if (stream_owed_len + len > sizeof(stream_owed))
		return false;
	if (!stream_owed_len && !stream_room_wanted)
		stream_epollout(c, true);
	for (i = 0; i < 2; i++) {
		size_t off = MIN(skip, iov[i].iov_len);

		memcpy(stream_owed + stream_owed_len,
		       (const uint8_t *)iov[i].iov_base + off,
		       iov[i].iov_len - off);
		stream_owed_len += iov[i].iov_len - off;
		skip -= off;
	}
	return true;
}

/**
 * stream_owed_flush() - send what we owe the guest's socket, as it takes it
 * @c:		execution context
 *
 * Return: 0, even if some is still owed, -1 if the guest must be
 *	   disconnected
 */
static int stream_owed_flush(const struct ctx *c)
{
	while (stream_owed_off < stream_owed_len) {
		ssize_t n = send(c->fd_tap, stream_owed + stream_owed_off,
				 stream_owed_len - stream_owed_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0
									: -1;
		stream_owed_off += n;
	}
	stream_owed_len = stream_owed_off = 0;
	if (!stream_room_wanted)
		stream_epollout(c, false);
	return 0;
}

/**
 * stream_want_room() - tell the link layer when the guest's socket has room
 * @c:		execution context
 */
static void stream_want_room(struct ctx *c)
{
	if (!stream_owed_len && !stream_room_wanted)
		stream_epollout(c, true);
	stream_room_wanted = true;
}

/**
 * stream_writable() - EPOLLOUT: send what we owe, then say there's room
 * @c:		execution context
 *
 * Return: 0, -1 if the guest must be disconnected
 */
static int stream_writable(const struct ctx *c)
{
	if (stream_owed_len && stream_owed_flush(c))
		return -1;
	if (stream_owed_len || !stream_room_wanted)
		return 0;
	stream_room_wanted = false;
	stream_epollout(c, false);
	link_room_back();
	return 0;
}

/**
 * stream_is_ctl() - is this a lone ARP or NDP frame?
 * @f:		frames
 * @n:		how many
 *
 * A full socket drops what it can't take, as a full tap queue would: TCP
 * recovers. But an ARP or NDP reply dropped while a download fills the
 * socket leaves the guest without its gateway's address, so it can't
 * acknowledge, which stalls the download until neighbour discovery tries
 * again: such a frame is owed instead (stream_owe()).
 *
 * Return: true if it is
 */
static bool stream_is_ctl(const struct link_frame *f, unsigned int n)
{
	const uint8_t *eth = f[0].iov.iov_base;
	size_t len = f[0].iov.iov_len;
	uint16_t type;

	if (n != 1 || len > STREAM_CTL_FRAME_MAX || len < ETH_HLEN)
		return false;
	memcpy(&type, eth + offsetof(struct ethhdr, h_proto), sizeof(type));
	return type == htons(ETH_P_ARP) ||
	       (type == htons(ETH_P_IPV6) &&
		len >= ETH_HLEN + sizeof(struct ipv6hdr) &&
		eth[ETH_HLEN + offsetof(struct ipv6hdr, nexthdr)] ==
		IPPROTO_ICMPV6);
}

/**
 * stream_write_failed() - a write to the guest failed: it's gone
 *
 * A guest that closed its end (EPIPE, ECONNRESET) quit, as QEMU does: not
 * an error.
 *
 * Return: -1, for the link layer: the guest is gone
 */
static int stream_write_failed(void)
{
	if (errno == EPIPE || errno == ECONNRESET)
		info("guest disconnected");
	else
		err("guest socket write: %s", strerror(errno));
	return -1;
}

/**
 * stream_send() - write length-prefixed frames to the guest's socket
 * @c:		execution context
 * @f:		frames
 * @n:		number of frames, at most LINK_SEND_MAX
 *
 * What the socket doesn't take is dropped, like a full tap queue, except
 * the rest of a frame it took part of (a cut frame would put the stream out
 * of step) and lone ARP and NDP frames: those are owed, and sent on
 * EPOLLOUT, before anything else.
 *
 * Return: frames written or owed, -1 if the guest must be disconnected
 */
static int stream_send(struct ctx *c, const struct link_frame *f,
		       unsigned int n)
{
	struct iovec iov[LINK_SEND_MAX * 2];
	uint32_t prefix[LINK_SEND_MAX];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n * 2 };
	bool ctl = stream_is_ctl(f, n);
	unsigned int i;
	ssize_t left;

	for (i = 0; i < n; i++) {
		prefix[i] = htonl(f[i].iov.iov_len);
		iov[i * 2] = (struct iovec){ &prefix[i], sizeof(prefix[i]) };
		iov[i * 2 + 1] = f[i].iov;
	}
	if (stream_owed_len && stream_owed_flush(c))
		return stream_write_failed();
	if (stream_owed_len)	/* in order: only behind what is owed */
		return ctl && stream_owe(c, iov, 0);

	left = sendmsg(c->fd_tap, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (left < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return ctl && stream_owe(c, iov, 0);
	if (left < 0)
		return stream_write_failed();

	for (i = 0; i < n; i++) {
		size_t len = sizeof(prefix[i]) + f[i].iov.iov_len;

		if ((size_t)left < len)
			break;
		left -= len;
	}
	if (!left)
		return i;
	stream_owe(c, &iov[i * 2], left);
	return i + 1;
}

/**
 * stream_frames() - copy the complete frames at the start of the stream
 *		     buffer into receive slots, keep the rest for later
 * @rx:		frames, set from @n on
 * @first:	slot of @rx[0]
 * @n:		frames so far
 * @max:	frames at most
 *
 * Return: frames now, -1 on a bad length prefix
 */
static int stream_frames(struct link_rx *rx, unsigned int first,
			 unsigned int n, unsigned int max)
{
	size_t off = stream_in_off;

	while (n < max && stream_in_len - off >= sizeof(uint32_t)) {
		uint8_t *buf = link_rx_slot(first + n) + FRAME_PAD;
		uint32_t len;

		memcpy(&len, stream_in + off, sizeof(len));
		len = ntohl(len);
		if (!len || len > LINK_FRAME_MAX) {
			err("guest sent a frame length of %u (largest %u): "
			    "disconnecting it", len, LINK_FRAME_MAX);
			return -1;
		}
		if (stream_in_len - off - sizeof(len) < len)
			break;
		memcpy(buf, stream_in + off + sizeof(len), len);
		rx[n++] = (struct link_rx){ .data = buf, .len = len };
		off += sizeof(len) + len;
	}
	stream_in_off = off;
	return n;
}

/**
 * stream_read() - read what the guest's socket has into the stream buffer
 * @c:		execution context
 *
 * Return: bytes read, 0 if none for now, -1 if the guest is gone
 */
static ssize_t stream_read(const struct ctx *c)
{
	ssize_t n;

	memmove(stream_in, stream_in + stream_in_off,
		stream_in_len - stream_in_off);
	stream_in_len -= stream_in_off;
	stream_in_off = 0;
	n = recv(c->fd_tap, stream_in + stream_in_len,
		 sizeof(stream_in) - stream_in_len, MSG_DONTWAIT);
	stream_reads++;
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		info("guest disconnected");
		return -1;
	}
	if (n < 0)
		return 0;
	stream_in_len += n;
	return n;
}

/**
 * stream_recv() - frames from the guest's socket
 * @c:		execution context
 * @events:	epoll events
 * @rx:		frames, set
 * @first:	first slot to fill: 0 starts a batch
 * @max:	at most this many
 *
 * Every complete frame buffered is handed out before this returns fewer
 * than @max: the socket's readiness says nothing of our buffer. What the
 * guest's socket owes is written once a batch, as it starts.
 *
 * Return: frames, fewer than @max once nothing is left for this wake-up
 */
static unsigned int stream_recv(struct ctx *c, uint32_t events,
				struct link_rx *rx, unsigned int first,
				unsigned int max)
{
	unsigned int n = 0;
	ssize_t ret = 0;

	if (!first && (events & EPOLLOUT) && stream_writable(c)) {
		stream_write_failed();
		link_guest_gone();
		return 0;
	}
	for (;;) {
		int got = stream_frames(rx, first, n, max);

		if (got < 0) {
			link_guest_gone();
			break;
		}
		n = got;
		if (n == max)
			return n;
		if (ret < 0 || stream_reads >= LINK_READS_MAX)
			break;
		ret = stream_read(c);
		if (ret < 0)
			link_guest_gone();
		else if (!ret)
			break;
	}
	if ((events & (EPOLLHUP | EPOLLERR)) && !link_guest_lost()) {
		info("guest disconnected");
		link_guest_gone();
	}
	stream_reads = 0;
	return n;
}

/**
 * stream_guest_close() - close the guest's socket: wait for another or quit
 * @c:		execution context
 *
 * For every backend on passt's socket: once its guest is gone, passt waits
 * for the next one, unless it had only this one (--one-off, --fd).
 */
void stream_guest_close(struct ctx *c)
{
	if (c->fd_tap >= 0) {
		epoll_ref_del(c, c->fd_tap);
		close(c->fd_tap);
		c->fd_tap = -1;
	}
	if (c->one_off || c->fd_tap_listen < 0) {
		info("guest gone: exiting");
		c->quit = true;
	}
}

/**
 * stream_detach() - let the guest's socket go: wait for another or quit
 * @c:		execution context
 */
static void stream_detach(struct ctx *c)
{
	stream_in_off = stream_in_len = 0;
	stream_owed_len = stream_owed_off = 0;
	stream_room_wanted = false;
	stream_guest_close(c);
}

/**
 * stream_guest_attach() - start serving a guest on a connected socket
 * @c:		execution context
 * @fd:		stream socket
 */
static void stream_guest_attach(struct ctx *c, int fd)
{
	int sndbuf = STREAM_SNDBUF;

	/* Room for a burst of frames: what doesn't fit is dropped */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	c->fd_tap = fd;
	stream_in_off = stream_in_len = 0;
	epoll_ref_add(c, fd, EPOLL_TYPE_TAP, 0, EPOLLIN | EPOLLRDHUP);
	info("guest connected");
}

const struct link_ops stream_link = {
	.name = "UNIX stream socket",
	.caps = stream_caps,
	.recv = stream_recv,
	.send = stream_send,
	.want_room = stream_want_room,
	.detach = stream_detach,
	.attach = stream_guest_attach,
};

/**
 * stream_listen_handler() - a guest connects to our UNIX socket
 * @c:		execution context
 * @events:	epoll events
 */
void stream_listen_handler(struct ctx *c, uint32_t events)
{
	int fd;

	(void)events;
	if (link_guest_lost())
		return;	/* level-triggered: accepted once the old one is gone */
	fd = accept4(c->fd_tap_listen, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (c->fd_tap >= 0) {
		info("refusing a second guest: one is connected already");
		close(fd);
		return;
	}
	link_attach(c, fd);
}

/**
 * stream_sock_bind() - bind -s PATH, or the first free /tmp/passt_N.socket
 * @c:		execution context, sock_path filled in
 *
 * Return: listening socket
 */
static int stream_sock_bind(struct ctx *c)
{
	int i, fd;

	for (i = 1; i <= STREAM_PATH_MAX_N; i++) {
		if (!c->sock_path_given)
			snprintf(c->sock_path, sizeof(c->sock_path),
				 STREAM_PATH_FMT, i);
		/* A stale one is taken over; one we can't remove (another
		 * user's, say a root passt that continued as nobody) is
		 * skipped
		 */
		fd = unix_sock_bind(c->sock_path);
		if (fd >= 0)
			return fd;
		if (fd == -ENAMETOOLONG)
			die("Socket path too long for -s: %s", c->sock_path);
		if (c->sock_path_given || fd != -EADDRINUSE)
			die("Can't bind -s %s: %s", c->sock_path,
			    strerror(-fd));
	}
	die("No free socket path among " STREAM_PATH_FMT " ... %d: use -s",
	    1, STREAM_PATH_MAX_N);
}

/**
 * stream_init() - listen on the UNIX socket, or take the --fd socket
 * @c:		execution context
 */
void stream_init(struct ctx *c)
{
	if (c->fd_given >= 0) {
		link_attach(c, c->fd_given);
		return;
	}
	c->fd_tap_listen = stream_sock_bind(c);
	if (listen(c->fd_tap_listen, 1))
		die("listen on %s: %s", c->sock_path, strerror(errno));
	c->fd_sock_dir = path_dir_open(c->sock_path, &c->sock_name);
	epoll_ref_add(c, c->fd_tap_listen, EPOLL_TYPE_TAP_LISTEN, 0, EPOLLIN);
	info("UNIX domain socket bound at %s%s", c->sock_path,
	     c->vhost_user ? ", for vhost-user" : "");
	info("\nYou can now start qemu (7.2 or later), for example:");
	if (c->vhost_user)
		info("    qemu-system-x86_64 ... -m 4G -object "
		     "memory-backend-memfd,id=mem,size=4G,share=on "
		     "-numa node,memdev=mem -chardev socket,id=c,path=%s "
		     "-netdev vhost-user,id=n,chardev=c "
		     "-device virtio-net-pci,netdev=n", c->sock_path);
	else
		info("    qemu-system-x86_64 ... -device virtio-net-pci,netdev=s "
		     "-netdev stream,id=s,server=off,addr.type=unix,"
		     "addr.path=%s", c->sock_path);
}
