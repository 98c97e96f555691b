/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SPLICE_FLOW_H
#define SPLICE_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "flow.h"

/**
 * struct splice_flow - a -T connection: two sockets joined by two pipes
 * @f:		common flow header (no key: never looked up)
 * @s:		[0] accepted in the namespace, [1] to the host's loopback
 * @pipe:	[side]: read and write ends of the pipe from s[side]
 * @pending:	[side]: bytes in that pipe, not yet written to s[!side]
 * @events:	[side]: epoll events registered for s[side]
 * @eof:	[side]: s[side] sent its end of stream
 * @shut:	[side]: ...passed on to s[!side] with shutdown(SHUT_WR)
 * @connected:	s[1] finished connecting
 */
struct splice_flow {
	struct flow_common f;
	int s[2];
	int pipe[2][2];
	uint32_t pending[2];
	uint32_t events[2];
	bool eof[2];
	bool shut[2];
	bool connected;
};

#endif /* SPLICE_FLOW_H */
