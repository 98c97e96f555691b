/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CTL_H
#define CTL_H

#include <stdint.h>

struct ctx;

void ctl_init(struct ctx *c);
void ctl_listen_handler(struct ctx *c);
void ctl_handler(struct ctx *c, uint32_t events);
void ctl_timer(struct ctx *c);
void ctl_unlink(void);

#endif /* CTL_H */
