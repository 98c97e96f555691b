/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FRAG_H
#define FRAG_H

#include <stdbool.h>
#include <stdint.h>

struct l3_info;
struct pkt_view;

bool frag_add(struct l3_info *l3, struct pkt_view *l4, int64_t now);

#endif /* FRAG_H */
