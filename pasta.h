/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PASTA_H
#define PASTA_H

#include <stdint.h>

#define PASTA_NSQUIT_PROCESS	1	/* EPOLL_TYPE_NSQUIT of a pidfd */

struct ctx;
struct guest_fam;

void pasta_start(struct ctx *c);
void pasta_start_follow(struct ctx *c);
void pasta_cmd_release(struct ctx *c);
void pasta_sigchld(struct ctx *c);
void pasta_netns_watch(struct ctx *c);
void pasta_netns_handler(struct ctx *c, uint32_t what);
void pasta_netns_poll(struct ctx *c);
int pasta_ns_socket(const struct ctx *c, int family, int type);
void pasta_ns_follow(const struct ctx *c, const struct guest_fam *old,
		     const struct guest_fam *new);
void pasta_ns_forget(const struct ctx *c, const struct guest_fam *old,
		     const struct guest_fam *new);
int pasta_ns_run(const struct ctx *c, int (*fn)(void *), void *arg);

#endif /* PASTA_H */
