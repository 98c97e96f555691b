/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ISOLATION_H
#define ISOLATION_H

struct ctx;

void isolate_initial(void);
void isolate_loop(const struct ctx *c);

#endif /* ISOLATION_H */
