/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef VHOST_USER_H
#define VHOST_USER_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;

extern const struct link_ops vu_link;

void vu_sock_handler(struct ctx *c, uint32_t events);
bool vu_kick_handler(struct ctx *c, uint32_t idx);
int vu_state_take(bool *save);
void vu_state_done(bool ok);
bool vu_running(void);
void vu_stats(void);
void vu_print_capabilities(void);

#endif /* VHOST_USER_H */
