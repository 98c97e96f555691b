/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ISOLATION_H
#define ISOLATION_H

#include <linux/audit.h>

/* The architecture our seccomp filters check first (a process may make
 * calls of another ABI, with other numbers), and the first number that
 * isn't one of ours (x32's calls on x86_64 have __X32_SYSCALL_BIT)
 */
#if defined(__x86_64__)
#define ISOLATE_AUDIT_ARCH	AUDIT_ARCH_X86_64
#define ISOLATE_NR_LIMIT	__X32_SYSCALL_BIT
#elif defined(__aarch64__)
#define ISOLATE_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#define ISOLATE_NR_LIMIT	0xffffffffU
#else
#error "Architecture not known to the seccomp filter: add it"
#endif

struct ctx;

void isolate_initial(void);
void isolate_loop(const struct ctx *c);

#endif /* ISOLATION_H */
