/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TAP_H
#define TAP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ip.h"
#include "pkt.h"

struct ctx;

#define TAP_RX_SLOTS		32	/* frames whose payload can wait */
#define TAP_SEND_BATCH		32	/* frames per tap_send_frames() */

void tap_init_passt(struct ctx *c);
void tap_guest_attach(struct ctx *c, int fd);
bool tap_guest_lost(void);
void tap_guest_detach(struct ctx *c);
void tap_handler(struct ctx *c, uint32_t events);
void tap_listen_handler(struct ctx *c, uint32_t events);
void tap_rx_holder_set(void (*release)(struct ctx *c));
void tap_input(struct ctx *c, const uint8_t *frame, size_t len);
bool tap_csum_partial_ok(const struct ctx *c);
void tap_send_raw(struct ctx *c, const uint8_t *eth, size_t len);
void tap_send_frames(struct ctx *c, const struct iovec *frames,
		     unsigned int n);
size_t tap_gso_size(const struct ctx *c, size_t mss);
void tap_send_frames_gso(struct ctx *c, const struct iovec *frames,
			 unsigned int n, size_t gso_size);
void tap_stats(const struct ctx *c);

#endif /* TAP_H */
