/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef BYPASS_H
#define BYPASS_H

#include <stdbool.h>
#include <stdint.h>

#include "inany.h"

struct ctx;

/* Linux 6.6: wake-ups between a notified caller and its listener's reader
 * as for a synchronous call (bypass.c, and the sandbox's list)
 */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif

#define BYPASS_NETS_MAX		16
#define BYPASS_PORTS_MAX	16

/**
 * struct bypass_net - an address range --bypass takes
 * @addr:	network address (IPv4 as IPv4-mapped IPv6)
 * @prefix:	prefix length, of the IPv6 form (IPv4 /24 is /120)
 */
struct bypass_net {
	union inany_addr addr;
	int prefix;
};

/**
 * struct bypass_ports - a port range --bypass takes
 * @first:	first port
 * @last:	last port, included
 */
struct bypass_ports {
	uint16_t first;
	uint16_t last;
};

/**
 * struct bypass_spec - which connections --bypass hands over: all if a list
 *			is empty, else only those it names
 * @nets:	destination address ranges
 * @nets_n:	how many
 * @ports:	destination port ranges
 * @ports_n:	how many
 */
struct bypass_spec {
	struct bypass_net nets[BYPASS_NETS_MAX];
	int nets_n;
	struct bypass_ports ports[BYPASS_PORTS_MAX];
	int ports_n;
};

void bypass_child_prepare(const struct ctx *c);
void bypass_child_filter(const struct ctx *c);
void bypass_start(struct ctx *c, const int tmpl[2]);
void bypass_serve(void);
int bypass_listener_add(struct ctx *c, int fd);
void bypass_handler(struct ctx *c, uint32_t slot, uint32_t events);
void bypass_conn_handler(struct ctx *c, uint32_t index, uint32_t events);
int64_t bypass_timer(struct ctx *c);
void bypass_stats(void);

#endif /* BYPASS_H */
