// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_lib.c - a context for the fuzz targets, like a running
 * daemon's after set-up, and its reset between inputs
 *
 * The targets must run in a network namespace of their own with nothing in
 * it (make fuzz uses unshare -n): frames they make up open real sockets,
 * which there reach nothing.
 */

#include <arpa/inet.h>
#include <string.h>
#include <sys/epoll.h>

#include "../../flow.h"
#include "../../fwd.h"
#include "../../icmp.h"
#include "../../inany.h"
#include "../../ip.h"
#include "../../link.h"
#include "../../log.h"
#include "../../resolv.h"
#include "../../splice.h"
#include "../../stream.h"
#include "../../tap.h"
#include "../../tcp.h"
#include "../../udp.h"
#include "../../util.h"
#include "fuzz_lib.h"

struct ctx fuzz_c;
static struct fwd_rules fwd_start[FWD_PIFS];

/**
 * fuzz_ctx_init() - addresses, MACs and tables of a configured daemon
 * @mode:	MODE_PASTA or MODE_PASST
 */
void fuzz_ctx_init(enum mode mode)
{
	struct ctx *c = &fuzz_c;

	log_setup(false, true);
	c->mode = mode;
	c->fd_tap = c->fd_tap_listen = c->fd_netns = c->fd_nsquit = -1;
	link_init(c, mode == MODE_PASTA ? &tap_link : &stream_link);
	c->mtu = 65520;
	c->fwd[FWD_IN] = &fwd_start[FWD_IN];
	c->fwd[FWD_OUT] = &fwd_start[FWD_OUT];
	c->epollfd = epoll_create1(EPOLL_CLOEXEC);
	inet_pton(AF_INET, "203.0.113.1", &c->net.addr4);
	inet_pton(AF_INET, "203.0.113.2", &c->net.gw4);
	c->net.prefix4 = 24;
	inet_pton(AF_INET6, "2001:db8::1", &c->net.addr6);
	inet_pton(AF_INET6, "2001:db8::2", &c->net.gw6);
	inet_pton(AF_INET6, "fe80::1", &c->net.ll6_ours);
	inet_pton(AF_INET, "192.0.2.53", &c->dns_opt.dns4[0]);
	c->dns_opt.dns4_n = 1;
	inany_from_v4(&c->net.map_host_lo[INANY_V4], c->net.gw4);
	ip_net_init(c);
	strcpy(c->dns_opt.search[0], "example.org");
	c->dns_opt.search_n = 1;
	resolv_conf_file(c, NULL);
	memcpy(c->mac_ours, "\x02\x70\x61\x73\x74\x61", ETH_ADDR_LEN);
	c->now = now_ms();
	flow_init();
	/* Flow types and the tap's receive slots: no ports to listen on */
	tcp_init();
	udp_init();
	icmp_init();
	splice_init();
}

/**
 * fuzz_reset() - close every flow an input made, as if the guest left
 */
void fuzz_reset(void)
{
	flow_close_all(&fuzz_c);
	flow_defer_free(&fuzz_c);
	fuzz_c.now += 1000;	/* timers and rate limits move on */
}
