/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef CONF_H
#define CONF_H

#include <stdint.h>

#include "passt.h"
#include "version.h"

void conf(struct ctx *c, int argc, char **argv);
void conf_print(const struct ctx *c);

#endif /* CONF_H */
