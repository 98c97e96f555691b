/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TAP_H
#define TAP_H

#include <netinet/in.h>
#include <netinet/ip.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "pkt.h"

struct ctx;

/*
 * Frame buffer layout for everything we build: two bytes of padding so that
 * the IPv4 header, and what follows it, is 4-byte aligned.
 */
#define FRAME_PAD		2
#define FRAME_ETH_OFF		FRAME_PAD
#define FRAME_IP4_OFF		(FRAME_ETH_OFF + 14)
#define FRAME_L4_OFF		(FRAME_IP4_OFF + 20)
#define FRAME_BUF_SIZE		(FRAME_PAD + 65536)
#define TAP_RX_SLOTS		32	/* frames whose payload can wait */
#define TAP_SEND_BATCH		32	/* frames per tap_send_frames() */

/**
 * tap_frame() - the Ethernet frame in a buffer built with tap_ip4_hdr_fill()
 * @buf:	frame buffer (FRAME_PAD bytes before the Ethernet header)
 * @l4_len:	L4 header and payload length
 *
 * Return: the frame, for tap_send_frames()
 */
static inline struct iovec tap_frame(const uint8_t *buf, size_t l4_len)
{
	return (struct iovec){ (uint8_t *)buf + FRAME_ETH_OFF,
			       FRAME_L4_OFF - FRAME_ETH_OFF + l4_len };
}

void tap_init_passt(struct ctx *c);
void tap_guest_attach(struct ctx *c, int fd);
void tap_guest_gone(struct ctx *c);
void tap_handler(struct ctx *c, uint32_t events);
void tap_listen_handler(struct ctx *c, uint32_t events);
void tap_input(struct ctx *c, const uint8_t *frame, size_t len);
uint8_t *tap_ip4_hdr_fill(const struct ctx *c, uint8_t *buf,
			  struct in_addr src, struct in_addr dst,
			  uint8_t proto, size_t l4_len);
uint16_t tap_l4_csum(const struct ctx *c, const void *l4, size_t l4_len,
		     struct in_addr src, struct in_addr dst, uint8_t proto);
void tap_send(struct ctx *c, const uint8_t *buf, size_t l4_len);
void tap_send_raw(struct ctx *c, const uint8_t *eth, size_t len);
void tap_send_frames(struct ctx *c, const struct iovec *frames,
		     unsigned int n);
void tap_stats(const struct ctx *c);

#endif /* TAP_H */
