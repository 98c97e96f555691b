/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef TAP_H
#define TAP_H

extern const struct link_ops tap_link;

#endif /* TAP_H */
