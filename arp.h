/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ARP_H
#define ARP_H

#include "pkt.h"

struct ctx;

void arp_input(struct ctx *c, struct pkt_view v);

#endif /* ARP_H */
