/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PCAP_H
#define PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void pcap_init(const char *path);
bool pcap_active(void);
void pcap_frame(const uint8_t *frame, size_t len);

#endif /* PCAP_H */
