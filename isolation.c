// SPDX-License-Identifier: GPL-2.0-or-later
/* isolation.c - give up what the loop does not need
 *
 * Theory of operation: everything that needs privileges (the tap device,
 * the namespace, ports below 1024, files) is opened at start-up; then,
 * before the loop, isolate_loop() gives up the rest:
 *  - started as root, we continue as the --runas user (by default nobody),
 *    so that a guest that took over the loop would hold no more than that
 *    user (in pasta's own user namespace we are root too, but of nothing
 *    else: no switch there);
 *  - capabilities: passt keeps none; pasta keeps three, each for a call
 *    the loop still makes: CAP_SYS_ADMIN for setns() into the namespace
 *    (splice sockets, -T/-U auto listeners, see pasta_ns_run()),
 *    CAP_NET_ADMIN for what it configures there, CAP_NET_BIND_SERVICE for
 *    "auto" ports below 1024;
 *  - no_new_privs: nothing we could execute gains privileges;
 *  - not dumpable: no core file, no ptrace by our user, /proc/PID root's
 *    (except in sanitizer builds: LeakSanitizer ptraces us at exit).
 * Still to come: mount namespace and an empty root, and a seccomp filter.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolation.h"
#include "log.h"
#include "passt.h"

#define ISOLATE_NOBODY		65534	/* if "nobody" has no passwd entry */

static bool isolate_root;	/* started as root, in the initial namespace */

/**
 * isolate_initial() - note who started us, before pasta's user namespace
 *
 * Inside that namespace we are root too, but only there: nothing to give
 * up at that point.
 */
void isolate_initial(void)
{
	isolate_root = !geteuid();
}

/**
 * isolate_caps() - keep only the capabilities the loop needs, effective
 * @c:		execution context
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_caps(const struct ctx *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct have[2], data[2] = { { 0 } };
	static const int keep[] = {
		CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_NET_BIND_SERVICE,
	};
	unsigned int i;

	if (syscall(SYS_capget, &hdr, have))
		return -1;
	for (i = 0; c->mode == MODE_PASTA && i < ARRAY_SIZE(keep); i++) {
		uint32_t bit = 1U << (keep[i] % 32);

		/* Only those we have: not root, with --netns-only, none */
		data[keep[i] / 32].effective |= have[keep[i] / 32].permitted &
						bit;
		data[keep[i] / 32].permitted |= have[keep[i] / 32].permitted &
						bit;
	}
	return (int)syscall(SYS_capset, &hdr, data);
}

/**
 * isolate_user() - started as root, continue as the --runas user
 * @c:		execution context
 */
static void isolate_user(const struct ctx *c)
{
	uid_t uid = ISOLATE_NOBODY;
	gid_t gid = ISOLATE_NOBODY;
	const struct passwd *pw;

	if (!isolate_root)
		return;
	if (c->runas_set) {
		uid = c->runas_uid;
		gid = c->runas_gid;
	} else if ((pw = getpwnam("nobody"))) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (!uid)
		return;		/* --runas 0: stay root */

	/* pasta's capabilities survive the switch, see isolate_caps() */
	if ((c->mode == MODE_PASTA && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
	    setgroups(0, NULL) || setgid(gid) || setuid(uid))
		die("Can't continue as user %u, group %u: %s", uid, gid,
		    strerror(errno));
	debug("running as user %u, group %u", uid, gid);
}

/**
 * isolate_loop() - give up what the loop does not need, before it starts
 * @c:		execution context
 */
void isolate_loop(const struct ctx *c)
{
	isolate_user(c);
	if (isolate_caps(c))
		die("Can't drop capabilities: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("Can't set no_new_privs: %s", strerror(errno));
#ifndef __SANITIZE_ADDRESS__
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("Can't make us not dumpable: %s", strerror(errno));
#endif
}
