// SPDX-License-Identifier: GPL-2.0-or-later
/* isolation.c - give up what the loop does not need
 *
 * Theory of operation: everything that needs privileges (the tap device,
 * the namespace, ports below 1024, files) is opened at start-up. Started
 * as root, we then continue as the --runas user (by default nobody), so
 * that a guest that took over the loop would hold no more than that user.
 * pasta keeps three capabilities across the switch, each for a call the
 * loop still makes: CAP_SYS_ADMIN for setns() into the namespace (splice
 * sockets, -T/-U auto listeners, see pasta_ns_run()), CAP_NET_ADMIN for
 * what it configures there, CAP_NET_BIND_SERVICE for "auto" ports below
 * 1024. passt keeps none. Not root: nothing to give up here (in pasta's
 * own user namespace we are root, but of nothing else).
 */

#include <errno.h>
#include <stdbool.h>
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
 * isolate_caps_keep() - keep only pasta's capabilities, effective again
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int isolate_caps_keep(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };
	static const int keep[] = {
		CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_NET_BIND_SERVICE,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(keep); i++) {
		data[keep[i] / 32].effective |= 1U << (keep[i] % 32);
		data[keep[i] / 32].permitted |= 1U << (keep[i] % 32);
	}
	return (int)syscall(SYS_capset, &hdr, data);
}

/**
 * isolate_user() - started as root, continue as the --runas user
 * @c:		execution context
 */
void isolate_user(const struct ctx *c)
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

	if ((c->mode == MODE_PASTA && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) ||
	    setgroups(0, NULL) || setgid(gid) || setuid(uid) ||
	    (c->mode == MODE_PASTA && isolate_caps_keep()))
		die("Can't continue as user %u, group %u: %s", uid, gid,
		    strerror(errno));
	debug("running as user %u, group %u", uid, gid);
}
