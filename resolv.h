/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RESOLV_H
#define RESOLV_H

struct ctx;

void resolv_conf(struct ctx *c);
void resolv_conf_file(struct ctx *c, const char *path);
void resolv_watch(struct ctx *c);
void resolv_handler(struct ctx *c);
int resolv_up_pick(const struct ctx *c);
void resolv_up_sent(struct ctx *c, int i);
void resolv_up_answered(struct ctx *c, int i);
void resolv_timer(struct ctx *c);

#endif /* RESOLV_H */
