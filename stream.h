/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef STREAM_H
#define STREAM_H

#include <stdint.h>

struct ctx;

extern const struct link_ops stream_link;

void stream_init(struct ctx *c);
void stream_guest_close(struct ctx *c);
void stream_listen_handler(struct ctx *c, uint32_t events);

#endif /* STREAM_H */
