/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PASST_H
#define PASST_H

#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bypass.h"
#include "inany.h"
#include "util.h"

struct fwd_rules;

#define ETH_ADDR_LEN		6
#define MTU_DEFAULT		65520
#define MTU_MIN			576
#define MTU_MAX			65520
#define DNS4_MAX		3
#define DNS6_MAX		3
#define DNS_SEARCH_MAX		6
#define DNS_NAME_MAX		254
#define DNS_UP_MAX		3	/* resolv.conf(5): MAXNS */

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
	EPOLL_TYPE_NSQUIT,	/* inotify or pidfd: the namespace may be gone */
	EPOLL_TYPE_SPLICE,	/* a socket of a -T connection */
	EPOLL_TYPE_SPLICE_LISTEN,	/* -T listener, in the namespace */
	EPOLL_TYPE_UDP_NS_LISTEN,	/* -U socket, in the namespace */
	EPOLL_TYPE_RESOLV,	/* inotify: resolv.conf may have changed */
	EPOLL_TYPE_NL_HOST,	/* rtnetlink: host addresses or routes */
	EPOLL_TYPE_CTL_LISTEN,	/* -c: the control socket */
	EPOLL_TYPE_CTL,		/* a client of it */
	EPOLL_TYPE_VHOST_KICK,	/* a vhost-user ring's kick eventfd */
	EPOLL_TYPE_MIG_HANDOVER,	/* migration: where the target
					 * fetches our sockets */
	EPOLL_TYPE_REPAIR_LISTEN,	/* passt-repair's socket */
	EPOLL_TYPE_REPAIR,	/* passt-repair, connected */
	EPOLL_TYPE_BYPASS,	/* --bypass: the command's filter */
	EPOLL_TYPE_BYPASS_CONN,	/* --bypass: a blocking connect() */
	EPOLL_TYPE_BYPASS_AGENT,	/* --bypass-agent: its socket */
	EPOLL_TYPE_BYPASS_RUNTIME,	/* --bypass-agent: a runtime's message */
	EPOLL_TYPE_MAX,
};

/**
 * union epoll_ref - what an event is about
 * @type:	enum epoll_type
 * @fd:		file descriptor the event is for
 * @index:	flow index (TCP, UDP) or forwarded port's listener index
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
 * struct dns_offer - name servers and search list for the guest
 * @dns4:	IPv4 name servers (DHCP)
 * @dns4_n:	how many
 * @dns6:	IPv6 name servers (DHCPv6, RAs)
 * @dns6_n:	how many
 * @search:	search domains (DHCP, DHCPv6, RAs)
 * @search_n:	how many
 */
struct dns_offer {
	struct in_addr dns4[DNS4_MAX];
	int dns4_n;
	struct in6_addr dns6[DNS6_MAX];
	int dns6_n;
	char search[DNS_SEARCH_MAX][DNS_NAME_MAX];
	int search_n;
};

/**
 * struct guest_net - the addressing we give the guest, and its families
 * @ip4_off:	IPv4 not served: -6, or the host has none
 * @ip6_off:	IPv6 not served: -4, or the host has none
 * @ip4_wait:	IPv4 is off as the host had none at start: on once it has
 *		(follow.c)
 * @ip6_wait:	likewise for IPv6
 * @addr4:	guest's IPv4 address
 * @prefix4:	its prefix length
 * @gw4:	address the guest sees as its IPv4 gateway
 * @addr6:	guest's global IPv6 address, unspecified: link-local only
 * @prefix6:	its prefix length
 * @gw6:	IPv6 gateway as the guest sees it
 * @ll6_ours:	our link-local address: NDP, RA, DHCPv6
 * @map_host_lo: per family, [INANY_V4] and [INANY_V6], the address that
 *		stands for the host's loopback, unspecified if none
 */
struct guest_net {
	bool ip4_off, ip6_off;
	bool ip4_wait, ip6_wait;
	struct in_addr addr4;
	int prefix4;
	struct in_addr gw4;
	struct in6_addr addr6;
	int prefix6;
	struct in6_addr gw6;
	struct in6_addr ll6_ours;
	union inany_addr map_host_lo[INANY_FAMILIES];
};

/**
 * struct ctx - configuration of the daemon, and its descriptors
 *
 * conf() sets the configuration, from the options and the host: read-only
 * once it returns. Start-up adds descriptors and what it finds (the tap's
 * offloads, the command's PID); while we run, only descriptors, the
 * command's exit, @now and @quit change here. Anything else that changes
 * lives with the module that owns it (doc/architecture.md).
 */
struct ctx {
	enum mode mode;
	int epollfd;
	int fd_tap;
	bool tap_vnet_hdr;	/* pasta: frames carry a virtio-net header */
	bool tap_tso;		/* pasta: the kernel may send us TCP frames
				 * larger than a segment (TSO offered) */
	int fd_tap_listen;
	int fd_signal;

	struct guest_net net;		/* at start: ip_net() while we run */
	bool addr4_set, prefix4_set, gw4_set;
	bool addr6_set, gw6_set;
	bool no_map_gw;			/* gateway is not the host's loopback */
	/* Per family, [INANY_V4] and [INANY_V6]; unspecified: not set */
	bool map_host_lo_is_gw[INANY_FAMILIES];	/* the gateway: follows it */
	union inany_addr map_guest[INANY_FAMILIES];	/* to host's address */
	union inany_addr dns_match[INANY_FAMILIES];	/* --dns-forward */
	union inany_addr dns_host;	/* --dns-host, unspecified if not given */
	union inany_addr outbound[INANY_FAMILIES];	/* -o: bind to */
	char outbound_if[INANY_FAMILIES][IFNAMSIZ];	/* --outbound-if4/6 */
	char host_ifname[IFNAMSIZ];	/* -i: host interface to copy */
	bool mtu_no_assign;		/* -m 0: tell the guest no MTU */
	bool no_tcp, no_udp, no_icmp;
	bool freebind;
	int mtu;
	uint8_t ns_mac[ETH_ADDR_LEN];	/* --ns-mac-addr */
	bool ns_mac_set;
	uint8_t mac_ours[ETH_ADDR_LEN];

	/* NDP, DHCPv6 */
	bool no_ndp;
	bool no_ra;
	bool no_dhcpv6;

	/* DHCP (passt) */
	bool no_dhcp;
	bool no_dhcp_dns;	/* no name servers in DHCP, DHCPv6, RAs */
	bool no_dhcp_search;	/* no search list there */
	bool no_dns;		/* -D none */
	bool no_dns_search;	/* -S none */
	/* -D, -S; without -D, the --dns-forward addresses. What the guest is
	 * given now, from these or resolv.conf: resolv_offer()
	 */
	struct dns_offer dns_opt;

	bool no_follow_host;		/* --no-follow-host: read resolv.conf
					 * once, and the host's addresses and
					 * routes */

	char hostname[HOST_NAME_MAX + 1];	/* -H */
	char fqdn[DNS_NAME_MAX + 1];		/* --fqdn */

	bool foreground;
	char log_file[PATH_MAX];
	size_t log_size;		/* --log-size, 0: the default */
	bool runas_set;			/* --runas given */
	uid_t runas_uid;
	gid_t runas_gid;
	unsigned int stats_delay_s;	/* --stats, 0: none */
	bool debug;
	bool quiet;
	bool config_net;
	bool one_off;
	bool vhost_user;		/* passt: the guest's rings, vhost_user.c */
	char repair_path[PATH_MAX];	/* --repair-path: passt-repair's */
	bool migrate_exit;		/* exit once the guest migrated away */
	bool migrate_no_linger;		/* close sockets the target took */
	char pidfile[PATH_MAX];
	char pcap[PATH_MAX];
	char sock_path[PATH_MAX];
	char ctl_path[PATH_MAX];	/* -c: control socket, empty for none */
	bool sock_path_given;
	int fd_sock_dir;		/* its directory, O_PATH, for unlinkat() */
	const char *sock_name;		/* its name there */
	int fd_given;

	/* pasta */
	char netns_path[PATH_MAX];
	bool netns_only;		/* don't join the userns with --netns */
	bool no_netns_quit;		/* stay when the namespace goes */
	bool no_splice;			/* host loopback clients via the tap */
	bool host_lo_to_ns_lo;		/* ...to the loopback they used */
	char userns_path[PATH_MAX];
	pid_t target_pid;
	char **cmd;
	bool bypass;			/* --bypass given */
	char bypass_agent[PATH_MAX];	/* --bypass-agent: socket, or empty */
	struct bypass_spec bypass_spec;	/* ...what it takes */
	pid_t cmd_pid;
	int cmd_status;
	bool cmd_exited;
	char ifname[IFNAMSIZ];		/* tap device in the namespace */
	unsigned int host_ifi;		/* host interface we copy from */
	int fd_netns;
	int fd_nsquit;			/* inotify or pidfd, -1 if none */
	bool nsquit_poll;		/* look at the namespace's file instead */
	int fd_netns_dir;		/* --netns file's directory, O_PATH */
	const char *netns_name;		/* its name there */

	/* Forwarding rules at start-up, by enum fwd_pif: -t and -u, then
	 * pasta's -T and -U (namespace to host); fwd.c has those in force
	 */
	struct fwd_rules *fwd[2];

	int64_t now;			/* ms, monotonic, set each loop */
	bool quit;
};

void epoll_ref_add(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events);
void epoll_ref_mod(const struct ctx *c, int fd, enum epoll_type type,
		   uint32_t index, uint32_t events);
void epoll_ref_del(const struct ctx *c, int fd);

#endif /* PASST_H */
