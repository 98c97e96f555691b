/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef INPUT_H
#define INPUT_H

#include <stddef.h>
#include <stdint.h>

struct ctx;
struct pkt_tail;

void input_frame(struct ctx *c, const uint8_t *frame, size_t len,
		 const struct pkt_tail *tail);
void input_handler(struct ctx *c, uint32_t events);

#endif /* INPUT_H */
