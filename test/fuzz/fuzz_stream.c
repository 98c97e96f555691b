// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_stream.c - what a passt guest writes to its socket: the
 * 4-byte length framing, frames cut anywhere, and what lies behind it
 *
 * The input goes into one end of a socketpair in up to four writes (the
 * first bytes say where it is cut), passt's handler reads the other end,
 * as from QEMU.
 */

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../input.h"
#include "../../link.h"
#include "../../stream.h"
#include "../../tcp.h"
#include "fuzz_lib.h"

#define FUZZ_STREAM_MAX		(256 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	size_t off = 0;
	int sv[2], i;

	if (!ready) {
		fuzz_ctx_init(MODE_PASST);
		ready = true;
	}
	if (size < 3 || size > FUZZ_STREAM_MAX ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return 0;
	link_attach(&fuzz_c, sv[0]);
	for (i = 0; i < 4 && off < size - 2; i++) {
		size_t len = i < 3 ? (data[i % 2] + 1) * (i + 1) : size;

		if (len > size - 2 - off)
			len = size - 2 - off;
		if (write(sv[1], data + 2 + off, len) != (ssize_t)len)
			break;
		off += len;
		input_handler(&fuzz_c, EPOLLIN);
		tcp_batch_end(&fuzz_c);
		if (link_guest_lost())
			break;		/* framing error: guest dropped */
	}
	link_guest_detach(&fuzz_c);	/* as the loop does, flows go next */
	fuzz_c.quit = false;
	close(sv[1]);
	fuzz_reset();
	return 0;
}
