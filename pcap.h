/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PCAP_H
#define PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void pcap_init(const char *path);
bool pcap_active(void);
void pcap_frame(const uint8_t *frame, size_t len);
void pcap_frame_gso(const uint8_t *frame, size_t len, size_t gso_size);

#endif /* PCAP_H */
