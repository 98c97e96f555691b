/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TCP_REPAIR_H
#define TCP_REPAIR_H

#include <assert.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct mig_io;
union inany_addr;

/**
 * struct mig_tcp_repair - a socket's state, integers in network order
 * @local:	its own address, what the target binds
 * @local_port:	its port
 * @flags:	TCP_REPAIR_F_SACK ... bits
 * @snd_wscale:	the peer's window scale
 * @rcv_wscale:	ours
 * @pad:	0
 * @mss:	MSS the peer announced (TCP_MAXSEG)
 * @snd_seq:	sequence number of the first byte in the send queue
 * @rcv_seq:	of the first byte in the receive queue
 * @sndq:	bytes in the send queue
 * @notsent:	of those, never sent: the last ones
 * @rcvq:	bytes in the receive queue
 * @tsval:	the socket's timestamp clock (TCP_TIMESTAMP)
 * @snd_wl1:	struct tcp_repair_window, as the kernel has it
 * @snd_wnd:	see there
 * @max_window:	see there
 * @rcv_wnd:	see there
 * @rcv_wup:	see there
 */
struct mig_tcp_repair {
	struct in6_addr local;
	uint16_t local_port;
	uint8_t flags;
	uint8_t snd_wscale;
	uint8_t rcv_wscale;
	uint8_t pad;
	uint16_t mss;
	uint32_t snd_seq;
	uint32_t rcv_seq;
	uint32_t sndq;
	uint32_t notsent;
	uint32_t rcvq;
	uint32_t tsval;
	uint32_t snd_wl1;
	uint32_t snd_wnd;
	uint32_t max_window;
	uint32_t rcv_wnd;
	uint32_t rcv_wup;
};

static_assert(sizeof(struct mig_tcp_repair) == 68, "mig_tcp_repair: no padding");

int tcp_repair_dump(int s, struct mig_tcp_repair *r);
uint32_t tcp_repair_len(const struct mig_tcp_repair *r);
int tcp_repair_write(struct mig_io *io, int s, const struct mig_tcp_repair *r);
int tcp_repair_load(const struct ctx *c, struct mig_io *io, uint32_t len,
		    const union inany_addr *peer, uint16_t peer_port,
		    bool build);

#endif /* TCP_REPAIR_H */
