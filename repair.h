/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef REPAIR_H
#define REPAIR_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;

/* TCP_REPAIR values, as the helper takes them */
#define REPAIR_ON		1
#define REPAIR_OFF		0	/* and send a window probe */
#define REPAIR_OFF_NO_WP	(-1)

void repair_init(struct ctx *c);
void repair_unlink(void);
void repair_listen_handler(struct ctx *c);
void repair_handler(struct ctx *c, uint32_t events);
bool repair_helper(void);
int repair_set(const struct ctx *c, const int *fds, unsigned int n, int8_t cmd);

#endif /* REPAIR_H */
