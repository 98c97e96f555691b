// SPDX-License-Identifier: GPL-2.0-or-later
/* test/no_ipv6.c - run a command on a "host without IPv6": every
 * socket(AF_INET6, ...) it makes fails with EAFNOSUPPORT, as on a kernel
 * booted with ipv6.disable=1
 *
 * Usage: no_ipv6 CMD [ARGS...]
 *
 * A seccomp filter, inherited across execve() and by children, answers
 * those calls; everything else runs. Exit status: the command's, or 1 if
 * the filter can't be installed or the command can't be run.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define LD(field)	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, \
				 offsetof(struct seccomp_data, field))
#define JEQ(k, t, f)	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define RET(k)		BPF_STMT(BPF_RET | BPF_K, (k))

int main(int argc, char **argv)
{
	struct sock_filter insn[] = {
		LD(arch),
		JEQ(AUDIT_ARCH_X86_64, 1, 0),
		RET(SECCOMP_RET_ALLOW),		/* not ours to judge */
		LD(nr),
		JEQ(__NR_socket, 1, 0),
		RET(SECCOMP_RET_ALLOW),
		LD(args[0]),
		JEQ(AF_INET6, 0, 1),
		RET(SECCOMP_RET_ERRNO | EAFNOSUPPORT),
		RET(SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insn) / sizeof(insn[0]), insn };

	if (argc < 2) {
		fprintf(stderr, "Usage: %s CMD [ARGS...]\n", argv[0]);
		return 1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("no_ipv6: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("no_ipv6: exec");
	return 1;
}
