// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_frame.c - one Ethernet frame from the guest, through every
 * parser behind input_frame(): ARP, IPv4, IPv6 and its extension headers,
 * TCP, UDP, ICMP, DHCP, DHCPv6, NDP
 *
 * The first byte picks the mode (pasta or passt: checksums and the
 * handlers differ a little), the rest is the frame.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ip.h"
#include "../../input.h"
#include "../../tcp.h"
#include "fuzz_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	uint8_t *frame;

	if (!ready) {
		fuzz_ctx_init(MODE_PASTA);
		ready = true;
	}
	if (size < 1 || size - 1 > FRAME_BUF_SIZE - FRAME_PAD)
		return 0;
	fuzz_c.mode = data[0] & 1 ? MODE_PASST : MODE_PASTA;
	/* Exactly the frame's size, at the alignment of our receive slots:
	 * ASan sees any read past its end
	 */
	frame = malloc(FRAME_PAD + size - 1);
	if (!frame)
		return 0;
	memcpy(frame + FRAME_PAD, data + 1, size - 1);
	input_frame(&fuzz_c, frame + FRAME_PAD, size - 1, NULL);
	tcp_batch_end(&fuzz_c);		/* as the loop does, before the slot
					 * is reused: queued payload goes */
	fuzz_reset();
	free(frame);
	return 0;
}
