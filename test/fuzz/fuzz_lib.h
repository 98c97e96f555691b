/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FUZZ_LIB_H
#define FUZZ_LIB_H

#include "../../passt.h"

extern struct ctx fuzz_c;

void fuzz_ctx_init(enum mode mode);
void fuzz_reset(void);

#endif /* FUZZ_LIB_H */
