// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_migrate.c - a hostile migration stream, as a target
 * passt reads it from its front-end (migrate.c's loader)
 *
 * The input is the whole state, read from memory as from the pipe.
 * Whatever it holds, loading must end, refused or taken, without a crash;
 * what it took must be what a guest could have set itself.
 */

#include <stddef.h>
#include <stdint.h>

#include "../../migrate.h"
#include "fuzz_lib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mig_io io = { .fd = -1, .mem = data, .len = size };
	static bool ready;

	if (!ready) {
		fuzz_ctx_init(MODE_PASST);
		ready = true;
	}
	mig_load(&fuzz_c, &io);
	fuzz_reset();
	return 0;
}
