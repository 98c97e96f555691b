/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RESOLV_H
#define RESOLV_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct dns_offer;
struct guest_net;
union inany_addr;

void resolv_conf(const struct ctx *c);
bool resolv_dns_usable(const struct guest_net *net, struct in_addr a);
void resolv_conf_file(const struct ctx *c, const char *path);
void resolv_watch(const struct ctx *c);
void resolv_handler(const struct guest_net *net);
const struct dns_offer *resolv_offer(void);
int resolv_up_pick(const struct ctx *c);
const union inany_addr *resolv_up_addr(int i);
uint32_t resolv_up_gen(void);
void resolv_up_sent(const struct ctx *c, int i);
void resolv_up_answered(int i);
void resolv_timer(const struct ctx *c);

#endif /* RESOLV_H */
