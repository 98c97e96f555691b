/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef INPUT_H
#define INPUT_H

#include <stddef.h>
#include <stdint.h>

struct ctx;

void input_frame(struct ctx *c, const uint8_t *frame, size_t len);
void input_handler(struct ctx *c, uint32_t events);

#endif /* INPUT_H */
