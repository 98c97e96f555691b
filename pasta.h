/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PASTA_H
#define PASTA_H

struct ctx;

void pasta_start(struct ctx *c);
void pasta_cmd_release(struct ctx *c);
void pasta_sigchld(struct ctx *c);
void pasta_netns_watch(struct ctx *c);
void pasta_netns_handler(struct ctx *c);
void pasta_netns_poll(struct ctx *c);
int pasta_ns_socket(const struct ctx *c, int family, int type);
int pasta_ns_run(const struct ctx *c, int (*fn)(void *), void *arg);

#endif /* PASTA_H */
