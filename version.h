/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef VERSION_H
#define VERSION_H

#define VERSION		"0.1"

#endif /* VERSION_H */
