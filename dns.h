/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef DNS_H
#define DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

struct dns_offer;

#define DNS_WIRE_NAME_MAX	255	/* RFC 1035, 2.3.4 */

size_t dns_name_encode(const char *name, uint8_t *buf, size_t size);
bool dns_name_check(struct pkt_view v);
size_t dns_search_encode(const struct dns_offer *offer, uint8_t *buf,
			 size_t size);

#endif /* DNS_H */
