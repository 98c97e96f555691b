/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef BYPASS_AGENT_H
#define BYPASS_AGENT_H

#include <stdint.h>

struct ctx;

void bypass_agent_init(struct ctx *c);
void bypass_agent_unlink(void);
void bypass_agent_handler(struct ctx *c, uint32_t events);
void bypass_runtime_handler(struct ctx *c, int s, uint32_t events);

#endif /* BYPASS_AGENT_H */
