/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FWD_H
#define FWD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "inany.h"
#include "passt.h"

struct ctx;

#define FWD_RULES_MAX		64	/* -t or -u options, each */
#define FWD_RANGES_MAX		32	/* ranges and excludes in one option */
#define FWD_LISTENERS_MAX	(2 * 65536)	/* sockets, both protocols */

/**
 * struct fwd_range - host ports FIRST-LAST to guest ports TO-...
 * @first:	first host port
 * @last:	last host port
 * @to:		guest port of @first (the others follow in order)
 */
struct fwd_range {
	uint16_t first;
	uint16_t last;
	uint16_t to;
};

/**
 * struct fwd_rule - one -t or -u option: which host ports, bound where
 * @addr:	bind address (unspecified: every address of the host, both
 *		families unless -4 or -6)
 * @addr_set:	an address was given
 * @ifname:	bind device, empty for none
 * @ranges:	forwarded ranges
 * @n_ranges:	how many
 * @excl:	excluded ranges (@to unused)
 * @n_excl:	how many
 * @all:	every port but the excluded ones (passt's "all", or a spec of
 *		excludes only)
 */
struct fwd_rule {
	union inany_addr addr;
	bool addr_set;
	char ifname[IFNAMSIZ];
	struct fwd_range ranges[FWD_RANGES_MAX];
	unsigned int n_ranges;
	struct fwd_range excl[FWD_RANGES_MAX];
	unsigned int n_excl;
	bool all;
};

/**
 * struct fwd_table - the rules of one protocol
 * @rules:	rules, in the order given
 * @n:		how many
 * @set:	an option was given (even "none")
 * @in_ns:	pasta's -T or -U: the sockets are inside the namespace, and a
 *		rule without an address binds its loopback (both families)
 * @auto_scan:	pasta's "auto": follow the ports the other side listens on
 * @scan_nl:	NETLINK_SOCK_DIAG socket of the other side (the namespace
 *		for -t and -u, the host for -T and -U), -1 if not open
 * @scan_fd:	its /proc/net/tcp or udp, IPv4 and IPv6, where sock_diag
 *		can't dump the protocol, -1 if not open
 * @auto_idx:	listener index + 1 of each port forwarded by "auto", 0 if none
 */
struct fwd_table {
	struct fwd_rule rules[FWD_RULES_MAX];
	unsigned int n;
	bool set;
	bool in_ns;
	bool auto_scan;
	int scan_nl;
	int scan_fd[2];
	uint32_t auto_idx[UINT16_MAX + 1];
};

/**
 * struct fwd_listener - a host socket of a forwarded port
 * @fd:		socket
 * @port:	host port
 * @to:		guest port
 * @twin:	index + 1 of the other family's socket of the same port (a
 *		-T or -U rule on the namespace's loopback), 0 if none
 * @ev_type:	enum epoll_type it is registered with
 */
struct fwd_listener {
	int fd;
	uint16_t port;
	uint16_t to;
	uint32_t twin;
	uint8_t ev_type;
};

int fwd_parse(struct fwd_table *t, const char *spec, bool passt);
void fwd_ephemeral_init(void);
void fwd_auto_scan(struct ctx *c);
int fwd_rule_to(const struct fwd_rule *r, unsigned int port);
void fwd_listen(struct ctx *c, const struct fwd_table *t, int type,
		enum epoll_type ev_type);
void fwd_listen_ns(struct ctx *c);
const struct fwd_listener *fwd_listener_at(uint32_t idx);
void fwd_accept_error(struct ctx *c, const struct fwd_listener *l, int err);
void fwd_accept_resume(struct ctx *c);

#endif /* FWD_H */
