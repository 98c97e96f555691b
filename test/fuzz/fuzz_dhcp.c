// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_dhcp.c - the messages of the link services we answer,
 * straight to their parsers: DHCP, DHCPv6 and NDP (the first byte picks)
 */

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../dhcp.h"
#include "../../dhcpv6.h"
#include "../../ip.h"
#include "../../ndp.h"
#include "../../pkt.h"
#include "fuzz_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct l3_info l3 = { .hop_limit = 255 };
	static bool ready;
	struct pkt_view v;
	uint8_t *msg;

	if (!ready) {
		fuzz_ctx_init(MODE_PASST);
		ready = true;
	}
	if (size < 1)
		return 0;
	msg = malloc(size - 1 ? size - 1 : 1);	/* exactly: ASan watches */
	if (!msg)
		return 0;
	memcpy(msg, data + 1, size - 1);
	v = (struct pkt_view){ msg, size - 1 };
	inet_pton(AF_INET6, "fe80::7", &l3.src.a6);
	inet_pton(AF_INET6, "ff02::1:2", &l3.dst.a6);
	switch (data[0] % 3) {
	case 0:
		dhcp_input(&fuzz_c, v);
		break;
	case 1:
		l3.proto = IPPROTO_UDP;
		dhcpv6_input(&fuzz_c, &l3, v);
		break;
	default:
		l3.proto = IPPROTO_ICMPV6;
		ndp_input(&fuzz_c, &l3, v);
		break;
	}
	free(msg);
	fuzz_reset();
	return 0;
}
