/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FWD_H
#define FWD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "fwd_rule.h"
#include "inany.h"
#include "passt.h"

struct ctx;

#define FWD_LISTENERS_MAX	(2 * 65536)	/* sockets, both protocols */

/**
 * enum fwd_pif - the directions forwarding rules go, upstream's "pifs"
 * @FWD_IN:	host ports to the guest (-t, -u; upstream's HOST)
 * @FWD_OUT:	pasta: the namespace's ports to the host's loopback (-T,
 *		-U; upstream's SPLICE)
 * @FWD_PIFS:	how many
 */
enum fwd_pif {
	FWD_IN,
	FWD_OUT,
	FWD_PIFS,
};

/**
 * struct fwd_listener - a socket of a forwarded port
 * @fd:		socket, -1 if the slot is free
 * @port:	port it is bound to
 * @to:		target port
 * @taddr:	target address, unset for the guest's own
 * @addr:	bind address, as its rule has it
 * @ifname:	bind device, as its rule has it
 * @twin:	index + 1 of the other family's socket of the same port (a
 *		rule on the namespace's loopback), 0 if none
 * @next:	index + 1 of the next listener of the same port and type
 * @ev_type:	enum epoll_type it is registered with
 * @flags:	FWD_RULE_DUAL and FWD_RULE_SCAN (opened by "auto") of its rule
 * @stale:	not in the rules being applied (yet)
 */
struct fwd_listener {
	int fd;
	uint16_t port;
	uint16_t to;
	union inany_addr taddr;
	union inany_addr addr;
	char ifname[IFNAMSIZ];
	uint32_t twin;
	uint32_t next;
	uint8_t ev_type;
	uint8_t flags;
	bool stale;
};

void fwd_ephemeral_init(void);
const struct fwd_ephemeral *fwd_ephemeral(void);
void fwd_scan_init(const struct ctx *c);
void fwd_listen(struct ctx *c, enum fwd_pif pif);
void fwd_held_retry(struct ctx *c);
int fwd_update(struct ctx *c, enum fwd_pif pif, const struct fwd_rules *new,
	       char *err, size_t err_len);
int fwd_update_migrated(struct ctx *c, const struct fwd_rules *new,
			char *err, size_t err_len);
const struct fwd_rules *fwd_rules_now(enum fwd_pif pif);
void fwd_auto_scan(struct ctx *c);
bool fwd_is_target(const union inany_addr *a);
bool fwd_guest_dest(const struct fwd_listener *l, int family,
		    union inany_addr *a);
const struct fwd_listener *fwd_listener_at(uint32_t idx);
void fwd_accept_error(struct ctx *c, const struct fwd_listener *l, int err);
void fwd_accept_resume(struct ctx *c);

#endif /* FWD_H */
