/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PASST_H
#define PASST_H

#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

#define ETH_ADDR_LEN		6
#define MTU_DEFAULT		65520
#define MTU_MIN			576
#define MTU_MAX			65520
#define DNS4_MAX		3
#define DNS6_MAX		3
#define DNS_SEARCH_MAX		6
#define DNS_NAME_MAX		254

enum mode {
	MODE_PASST,
	MODE_PASTA,
};

/* What an epoll event refers to: packed in epoll_event.data.u64 */
enum epoll_type {
	EPOLL_TYPE_NONE = 0,
	EPOLL_TYPE_TAP,		/* tap device (pasta) or guest socket (passt) */
	EPOLL_TYPE_TAP_LISTEN,	/* passt's listening UNIX socket */
	EPOLL_TYPE_SIGNAL,	/* signalfd: SIGCHLD, SIGTERM, SIGUSR1 */
	EPOLL_TYPE_TCP,		/* connected TCP socket of a flow */
	EPOLL_TYPE_TCP_LISTEN,	/* TCP listener for a forwarded port */
	EPOLL_TYPE_UDP,		/* connected UDP socket of a flow */
	EPOLL_TYPE_UDP_LISTEN,	/* UDP socket bound to a forwarded port */
	EPOLL_TYPE_PING,	/* ping socket of an ICMP echo flow */
	EPOLL_TYPE_MAX,
};

/**
 * union epoll_ref - what an event is about
 * @type:	enum epoll_type
 * @fd:		file descriptor the event is for
 * @index:	flow index (TCP, UDP) or forwarded host port (listeners)
 * @u64:	the whole, as stored in epoll_event.data
 */
union epoll_ref {
	struct {
		uint32_t type:8;
		int32_t fd:24;
		uint32_t index;
	};
	uint64_t u64;
};
static_assert(sizeof(union epoll_ref) == sizeof(uint64_t),
	      "epoll_ref must fit in epoll_event.data");

/**
 * struct fwd_ports - inbound port forwarding map for one protocol
 * @to:		guest port for each host port, 0 if the port is not forwarded
 * @fd:		listening socket for each forwarded host port, -1 if none
 */
struct fwd_ports {
	uint16_t to[USHRT_MAX + 1];
	int fd[USHRT_MAX + 1];
};

/**
 * struct ctx - configuration and run-time state of the daemon
 */
struct ctx {
	enum mode mode;
	int epollfd;
	int fd_tap;
	bool tap_vnet_hdr;	/* pasta: frames carry a virtio-net header */
	int fd_tap_listen;
	int fd_signal;

	bool ip4_off, ip6_off;		/* -6, -4, or nothing on the host */
	struct in_addr addr4;		/* guest address */
	int prefix4;
	struct in_addr gw4;		/* address the guest sees as gateway */
	struct in_addr addr4_seen;	/* guest's last source address */
	bool addr4_set, prefix4_set, gw4_set;
	struct in6_addr addr6;		/* guest's global address */
	int prefix6;
	struct in6_addr gw6;		/* gateway as the guest sees it */
	struct in6_addr ll6_ours;	/* our link-local: NDP, RA, DHCPv6 */
	struct in6_addr addr6_seen;	/* guest's last global source */
	struct in6_addr addr6_ll_seen;	/* guest's link-local address */
	bool addr6_set, gw6_set;
	bool no_map_gw;			/* gateway is not the host's loopback */
	int mtu;
	uint8_t mac_guest[ETH_ADDR_LEN];
	uint8_t mac_ours[ETH_ADDR_LEN];
	bool mac_guest_known;

	/* NDP, DHCPv6 */
	bool no_ndp;
	bool no_ra;
	bool no_dhcpv6;
	struct in6_addr dns6[DNS6_MAX];	/* from -D, else resolv.conf */
	int dns6_n;

	/* DHCP (passt) */
	bool no_dhcp;
	bool no_dhcp_dns;
	bool no_dhcp_search;
	struct in_addr dns4[DNS4_MAX];	/* from -D, else resolv.conf */
	int dns4_n;
	char dns_search[DNS_SEARCH_MAX][DNS_NAME_MAX];	/* -S or resolv.conf */
	int dns_search_n;

	bool foreground;
	bool debug;
	bool quiet;
	bool config_net;
	bool one_off;
	char pidfile[PATH_MAX];
	char pcap[PATH_MAX];
	char sock_path[PATH_MAX];
	bool sock_path_given;
	int fd_given;

	/* pasta */
	char netns_path[PATH_MAX];
	char userns_path[PATH_MAX];
	pid_t target_pid;
	char **cmd;
	pid_t cmd_pid;
	int cmd_status;
	bool cmd_exited;
	char ifname[IFNAMSIZ];		/* tap device in the namespace */
	unsigned int host_ifi;		/* host interface we copy from */
	int fd_netns;

	struct fwd_ports *tcp_fwd;
	struct fwd_ports *udp_fwd;

	int64_t now;			/* ms, monotonic, set each loop */
	bool quit;
};

void epoll_ref_add(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events);
void epoll_ref_mod(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events);
void epoll_ref_del(const struct ctx *c, int fd);

#endif /* PASST_H */
