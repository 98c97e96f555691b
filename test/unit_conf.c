// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit_conf.c - the command line (conf.c), one forked child per case
 *
 * conf() exits on bad input and keeps getopt_long()'s state in globals, so
 * each case runs in a child of its own: the child builds a fresh context as
 * passt.c's main() does, resets getopt (optind = 0), calls conf() and writes
 * the context and its forwarding tables into a pipe; its standard output
 * and error go to pipes of their own. The parent checks what came back, the
 * exit status, and that no sanitizer spoke.
 *
 * conf() then reads the host's configuration over netlink: test/99-unit-conf.t
 * runs us in a network namespace of our own whose only interface has
 * 192.0.2.1/24 and 2001:db8::1/64, with default routes through 192.0.2.254
 * and 2001:db8::254. Prints TAP; known divergences are TODO tests.
 */

#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../conf.h"
#include "../fwd.h"
#include "../passt.h"
#include "../resolv.h"
#include "unit_lib.h"

#define ARGS_MAX	40
#define TEXT_MAX	16384

/**
 * struct result - what the child sends back once conf() returned
 * @c:		the context, byte for byte
 * @tcp:	-t rules
 * @udp:	-u rules
 * @tcp_ns:	-T rules
 * @udp_ns:	-U rules
 * @offer:	what the guest is told about DNS: resolv_offer()
 * @cmd_idx:	c.cmd as an index into argv, -1 for none
 * @argv_kept:	conf() left argv's order alone
 */
struct result {
	struct ctx c;
	struct fwd_rules in, out;
	struct dns_offer offer;
	long cmd_idx;
	bool argv_kept;
};

/**
 * struct run - one call of conf() in a child, as the parent saw it
 * @line:	the command line, for test descriptions
 * @argv:	the arguments, argv[0] "pasta" or "passt"
 * @argc:	how many
 * @status:	wait status of the child
 * @got:	a whole struct result came back (conf() returned)
 * @out:	the child's standard output
 * @err:	the child's standard error
 * @r:		what came back, if @got
 */
static struct run {
	char line[1024];
	char *argv[ARGS_MAX + 1];
	int argc;
	int status;
	bool got;
	char out[TEXT_MAX];
	char err[TEXT_MAX];
	struct result r;
} R;

/* The result of a run without options, per mode: what options change */
static struct result base_pasta, base_passt;

/* Failed tests that are not TODO: unit_lib.c's count has those too */
static int real_failures;

/* --- the child ------------------------------------------------------------ */

static bool in_child;

/**
 * __lsan_is_turned_off() - LeakSanitizer's hook: skip its scan at exit?
 *
 * A child exits through conf()'s own exit() calls, and LeakSanitizer's scan
 * there walks the daemon's static tables: 130 ms a case, 30 s of the file's
 * 35. The daemon allocates nothing itself; the parent's scan stays.
 *
 * Return: non-zero in a child
 */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return in_child;
}

/**
 * send_all() - write a whole buffer, or exit
 * @fd:		file descriptor
 * @buf:	data
 * @len:	length
 */
static void send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(99);
		p += n;
		len -= n;
	}
}

/**
 * child() - call conf() as main() does, send back what it set
 * @mode:	MODE_PASTA or MODE_PASST
 * @fd_res:	pipe for struct result
 * @fd_out:	pipe for standard output
 * @fd_err:	pipe for standard error
 */
static void __attribute__((noreturn)) child(enum mode mode, int fd_res,
					     int fd_out, int fd_err)
{
	static struct fwd_rules in, out;
	static struct result res;
	static struct ctx c;
	char *saved[ARGS_MAX + 1];

	if (dup2(fd_out, STDOUT_FILENO) < 0 || dup2(fd_err, STDERR_FILENO) < 0)
		_exit(98);
	close(fd_out);
	close(fd_err);
	alarm(20);

	memset(&c, 0, sizeof(c));
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	c.mode = mode;
	c.epollfd = c.fd_tap = c.fd_tap_listen = c.fd_signal = -1;
	c.fd_netns = c.fd_nsquit = -1;
	c.fwd[FWD_IN] = &in;
	c.fwd[FWD_OUT] = &out;

	memcpy(saved, R.argv, sizeof(saved));
	optind = 0;		/* full reset of glibc's getopt */
	conf(&c, R.argc, R.argv);

	memset(&res, 0, sizeof(res));
	memcpy(&res.c, &c, sizeof(c));
	memcpy(&res.in, &in, sizeof(in));
	memcpy(&res.out, &out, sizeof(out));
	res.offer = *resolv_offer();
	res.cmd_idx = c.cmd ? c.cmd - R.argv : -1;
	res.argv_kept = !memcmp(saved, R.argv, sizeof(saved));
	send_all(fd_res, &res, sizeof(res));
	close(fd_res);
	fflush(NULL);
	exit(EXIT_SUCCESS);
}

/* --- the parent ----------------------------------------------------------- */

/**
 * run() - run conf() on a command line in a child, and collect the outcome
 * @mode:	MODE_PASTA or MODE_PASST
 * @args:	arguments after argv[0], NULL-terminated
 */
static void run(enum mode mode, const char *const *args)
{
	const char *name = mode == MODE_PASTA ? "pasta" : "passt";
	size_t len[3] = { 0 }, cap[3];
	int res[2], out[2], err[2];
	struct pollfd pfd[3];
	char *buf[3], sink[4096];
	int i, open_fds = 3;
	size_t l;
	pid_t pid;

	memset(&R, 0, sizeof(R));
	R.argv[R.argc++] = (char *)name;
	l = snprintf(R.line, sizeof(R.line), "%s", name);
	for (i = 0; args[i]; i++) {
		if (R.argc == ARGS_MAX) {
			fprintf(stderr, "too many arguments\n");
			exit(1);
		}
		R.argv[R.argc++] = (char *)args[i];
		if (l < sizeof(R.line))
			l += snprintf(R.line + l, sizeof(R.line) - l,
				      *args[i] && !strchr(args[i], ' ') ?
				      " %s" : " '%s'", args[i]);
	}

	if (pipe(res) || pipe(out) || pipe(err)) {
		perror("pipe");
		exit(1);
	}
	fflush(NULL);	/* nothing of ours left for the child to print */
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (!pid) {
		in_child = true;
		close(res[0]);
		close(out[0]);
		close(err[0]);
		child(mode, res[1], out[1], err[1]);
	}
	close(res[1]);
	close(out[1]);
	close(err[1]);

	buf[0] = (char *)&R.r;
	cap[0] = sizeof(R.r);
	buf[1] = R.out;
	cap[1] = sizeof(R.out) - 1;
	buf[2] = R.err;
	cap[2] = sizeof(R.err) - 1;
	pfd[0].fd = res[0];
	pfd[1].fd = out[0];
	pfd[2].fd = err[0];
	for (i = 0; i < 3; i++)
		pfd[i].events = POLLIN;

	while (open_fds) {
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			exit(1);
		}
		for (i = 0; i < 3; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (len[i] < cap[i])
				n = read(pfd[i].fd, buf[i] + len[i],
					 cap[i] - len[i]);
			else
				n = read(pfd[i].fd, sink, sizeof(sink));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			if (len[i] < cap[i])
				len[i] += n;
		}
	}
	while (waitpid(pid, &R.status, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			exit(1);
		}
	}
	R.got = len[0] == sizeof(R.r);
}

/* Run pasta, or passt, with these arguments */
#define ARGV(...)	((const char *const []){ __VA_ARGS__, NULL })
#define PASTA(...)	run(MODE_PASTA, ARGV(__VA_ARGS__))
#define PASST(...)	run(MODE_PASST, ARGV(__VA_ARGS__))

/**
 * exited() - the child exited, with this status
 * @code:	exit status
 *
 * Return: true if so
 */
static bool exited(int code)
{
	return WIFEXITED(R.status) && WEXITSTATUS(R.status) == code;
}

/**
 * sanitizer_quiet() - no ASan, LSan or UBSan report on standard error
 *
 * Return: true if none
 */
static bool sanitizer_quiet(void)
{
	return !strstr(R.err, "Sanitizer") && !strstr(R.err, "runtime error");
}

/**
 * accepted() - conf() returned, the child exited 0 and said nothing bad
 *
 * Return: true if so
 */
static bool accepted(void)
{
	return exited(0) && R.got && !strstr(R.err, "ERROR");
}

/**
 * refused() - exit status 1 before conf() returned, with a message of
 *	       conf.c's own (not getopt's, followed by the usage text)
 * @a:		text the message must contain (the option, say), or NULL
 * @b:		another, or NULL
 *
 * Return: true if so
 */
static bool refused(const char *a, const char *b)
{
	return exited(1) && !R.got && R.err[0] && !strstr(R.err, "Usage:") &&
	       (!a || strstr(R.err, a)) && (!b || strstr(R.err, b));
}

/**
 * diag_run() - show the exit status and output of the last run, as TAP
 *		comments
 */
static void diag_run(void)
{
	const char *what[2] = { "stdout", "stderr" };
	const char *text[2] = { R.out, R.err };
	int i, lines;

	if (WIFEXITED(R.status))
		printf("# exit status %d", WEXITSTATUS(R.status));
	else if (WIFSIGNALED(R.status))
		printf("# killed by signal %d", WTERMSIG(R.status));
	printf(", conf() %s\n", R.got ? "returned" : "did not return");
	for (i = 0; i < 2; i++) {
		const char *p = text[i], *nl;

		for (lines = 0; *p && lines < 12; lines++, p = nl + 1) {
			nl = strchrnul(p, '\n');
			printf("# %s: %.*s\n", what[i], (int)(nl - p), p);
			if (!*nl)
				break;
		}
	}
}

/**
 * expect() - one TAP test about the last run
 * @cond:	what must hold (besides a quiet sanitizer)
 * @todo:	NULL, or why this is a known bug (TAP TODO)
 * @fmt:	what is checked, printf-style, after the command line
 */
static void __attribute__((format(printf, 3, 4)))
expect(bool cond, const char *todo, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);

	cond = cond && sanitizer_quiet();
	if (!cond && !todo)
		real_failures++;
	if (todo)
		okf(cond, "%s: %s # TODO %s", R.line, what, todo);
	else
		okf(cond, "%s: %s", R.line, what);
	if (!cond)
		diag_run();
}

/* --- helpers about the context -------------------------------------------- */

static const struct ctx *C = &R.r.c;

static bool inany_is4(const union inany_addr *a, const char *s)
{
	const struct in_addr *v4 = inany_v4(a);

	return v4 && addr4_is(*v4, s);
}

static bool inany_is6(const union inany_addr *a, const char *s)
{
	return !inany_is_v4(a) && addr6_is(&a->a6, s);
}

static bool mac_is(const uint8_t *m, uint8_t a, uint8_t b, uint8_t c2,
		   uint8_t d, uint8_t e, uint8_t f)
{
	const uint8_t want[ETH_ADDR_LEN] = { a, b, c2, d, e, f };

	return !memcmp(m, want, ETH_ADDR_LEN);
}

/**
 * mac_note() - show what -M of the last run set, as a TAP comment
 */
static void mac_note(void)
{
	const uint8_t *m = C->mac_ours;

	if (R.got)
		printf("# got: exit status 0, -M set "
		       "%02x:%02x:%02x:%02x:%02x:%02x\n",
		       m[0], m[1], m[2], m[3], m[4], m[5]);
}

/**
 * same_as() - the context and the tables are those of a run without options
 * @base:	that run
 *
 * Return: true if byte for byte the same
 */
static bool same_as(const struct result *base)
{
	return !memcmp(&R.r.c, &base->c, sizeof(base->c)) &&
	       !memcmp(&R.r.in, &base->in, sizeof(base->in)) &&
	       !memcmp(&R.r.out, &base->out, sizeof(base->out));
}

/**
 * only_flag() - the context is the baseline's but for one bool set
 * @base:	run without options
 * @off:	offset of the bool in struct ctx
 *
 * Return: true if that bool is set and nothing else in the context moved
 */
static bool only_flag(const struct result *base, size_t off)
{
	static struct ctx c;

	memcpy(&c, &R.r.c, sizeof(c));
	if (!*((bool *)((char *)&c + off)))
		return false;
	*((bool *)((char *)&c + off)) = false;
	return !memcmp(&c, &base->c, sizeof(c));
}

/**
 * nth_rule() - the @i-th rule of a protocol in a table, not "auto"
 * @t:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @i:		index among those
 *
 * Return: the rule, NULL if there are fewer
 */
static const struct fwd_rule *nth_rule(const struct fwd_rules *t,
				       uint8_t proto, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < t->n; k++) {
		const struct fwd_rule *r = &t->rule[k];

		if (r->proto == proto && !(r->flags & FWD_RULE_SCAN) && !i--)
			return r;
	}
	return NULL;
}

/**
 * n_rules() - how many rules of a protocol a table has, not "auto"
 * @t:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: how many
 */
static unsigned int n_rules(const struct fwd_rules *t, uint8_t proto)
{
	unsigned int n = 0;

	while (nth_rule(t, proto, n))
		n++;
	return n;
}

/**
 * has_auto() - does a table follow the other side's ports of a protocol?
 * @t:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: true if it has an "auto" rule of @proto
 */
static bool has_auto(const struct fwd_rules *t, uint8_t proto)
{
	unsigned int k;

	for (k = 0; k < t->n; k++) {
		if (t->rule[k].proto == proto &&
		    (t->rule[k].flags & FWD_RULE_SCAN))
			return true;
	}
	return false;
}

/**
 * one_rule() - the @i-th rule of a protocol forwards exactly @port
 * @t:		table
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @i:		index among the protocol's rules, not "auto"
 * @port:	port, forwarded to the same port
 *
 * Return: true if that rule forwards @port, and not @port - 1 or @port + 1
 */
static bool one_rule(const struct fwd_rules *t, uint8_t proto,
		     unsigned int i, unsigned int port)
{
	const struct fwd_rule *r = nth_rule(t, proto, i);

	return r && fwd_rule_to(r, port) == (int)port &&
	       fwd_rule_to(r, port - 1) < 0 && fwd_rule_to(r, port + 1) < 0;
}

/* --- the cases ------------------------------------------------------------ */

/**
 * test_defaults() - no options: what the namespace's host configuration gives
 */
static void test_defaults(void)
{
	PASTA(NULL);
	expect(accepted() &&
	       addr4_is(C->net.addr4, "192.0.2.1") && C->net.prefix4 == 24 &&
	       addr4_is(C->net.gw4, "192.0.2.254") &&
	       addr6_is(&C->net.addr6, "2001:db8::1") && C->net.prefix6 == 64 &&
	       addr6_is(&C->net.gw6, "2001:db8::254") &&
	       !C->net.ip4_off && !C->net.ip6_off, NULL,
	       "addresses, prefixes and gateways from the host");
	memcpy(&base_pasta, &R.r, sizeof(R.r));
	expect(accepted() && C->mtu == MTU_DEFAULT && !C->mtu_no_assign &&
	       C->host_ifi && if_nametoindex(C->ifname) == C->host_ifi &&
	       has_auto(&R.r.in, IPPROTO_TCP) && !n_rules(&R.r.in, IPPROTO_TCP) && has_auto(&R.r.in, IPPROTO_UDP) &&
	       !n_rules(&R.r.in, IPPROTO_UDP) && has_auto(&R.r.out, IPPROTO_TCP) && has_auto(&R.r.out, IPPROTO_UDP) &&
	       R.r.cmd_idx == -1 && !C->target_pid &&
	       !C->netns_path[0] && C->fd_given == -1 &&
	       inany_is4(&C->net.map_host_lo[INANY_V4], "192.0.2.254") &&
	       inany_is6(&C->net.map_host_lo[INANY_V6], "2001:db8::254"), NULL,
	       "default MTU, tap named after the host's interface, -t, -u, "
	       "-T and -U auto, gateway maps the host's loopback");

	PASST(NULL);
	memcpy(&base_passt, &R.r, sizeof(R.r));
	expect(accepted() && addr4_is(C->net.addr4, "192.0.2.1") &&
	       addr6_is(&C->net.addr6, "2001:db8::1") &&
	       !has_auto(&R.r.in, IPPROTO_TCP) && !n_rules(&R.r.in, IPPROTO_TCP) && !has_auto(&R.r.in, IPPROTO_UDP) &&
	       !n_rules(&R.r.in, IPPROTO_UDP) && !has_auto(&R.r.out, IPPROTO_TCP) && !has_auto(&R.r.out, IPPROTO_UDP) &&
	       !C->sock_path_given && C->fd_given == -1, NULL,
	       "host addresses, nothing forwarded");
}

/**
 * test_forms() - one option's value in each form getopt_long() takes
 */
static void test_forms(void)
{
	PASTA("--mtu=1400");
	expect(accepted() && C->mtu == 1400, NULL, "--opt=value");
	PASTA("--mtu", "1400");
	expect(accepted() && C->mtu == 1400, NULL, "--opt value");
	PASTA("-m1400");
	expect(accepted() && C->mtu == 1400, NULL, "-xVALUE");
	PASTA("-m", "1400");
	expect(accepted() && C->mtu == 1400, NULL, "-x VALUE");
	PASTA("--mt=1400");
	expect(accepted() && C->mtu == 1400, NULL,
	       "an unambiguous prefix of a long option");

	PASTA("--netns=ns1");
	expect(accepted() && !strcmp(C->netns_path, "/run/netns/ns1"), NULL,
	       "--opt=value, a string");
	PASTA("-Ins0");
	expect(accepted() && !strcmp(C->ifname, "ns0"), NULL,
	       "-xVALUE, a string");
	PASTA("--ns-ifname", "ns0");
	expect(accepted() && !strcmp(C->ifname, "ns0"), NULL,
	       "--opt value, a string");
}

/**
 * test_clusters() - short options grouped in one word
 */
static void test_clusters(void)
{
	PASTA("-fq");
	expect(accepted() && C->foreground && C->quiet && !C->debug, NULL,
	       "foreground and quiet");
	PASTA("-fd");
	expect(accepted() && C->foreground && C->debug, NULL,
	       "foreground and debug");
	PASTA("-fm1400");
	expect(accepted() && C->foreground && C->mtu == 1400, NULL,
	       "a flag, then an option with its value in the same word");
	PASTA("-fm", "1400");
	expect(accepted() && C->foreground && C->mtu == 1400, NULL,
	       "a flag, then an option with its value in the next word");
	PASTA("-4");
	expect(accepted() && C->net.ip6_off && !C->net.ip4_off, NULL,
	       "IPv4 only");
	PASTA("-6");
	expect(accepted() && C->net.ip4_off && !C->net.ip6_off, NULL,
	       "IPv6 only");
	PASTA("-46");
	expect(refused("-4", "-6"), NULL,
	       "both families off: refused, exit 1, naming -4 and -6");
	PASTA("--ipv4-only", "--ipv6-only");
	expect(refused("-4", "-6"), NULL,
	       "long forms: refused too");
}

/**
 * test_repeated() - the last value of an option that sets something wins
 */
static void test_repeated(void)
{
	PASTA("-m", "1400", "-m", "1500");
	expect(accepted() && C->mtu == 1500, NULL, "last MTU wins");
	PASTA("--mtu=1400", "-m1500");
	expect(accepted() && C->mtu == 1500, NULL,
	       "last MTU wins across forms");
	PASTA("-m", "0", "-m", "1400");
	expect(accepted() && C->mtu == 1400 && !C->mtu_no_assign, NULL,
	       "a later MTU undoes -m 0");
	PASTA("-n", "16", "-n", "255.255.255.0");
	expect(accepted() && C->net.prefix4 == 24, NULL, "last netmask wins");
	PASTA("-I", "ns0", "-I", "ns1");
	expect(accepted() && !strcmp(C->ifname, "ns1"), NULL,
	       "last -I wins");
	PASTA("-M", "02:00:00:00:00:01", "-M", "02:00:00:00:00:02");
	expect(accepted() && mac_is(C->mac_ours, 2, 0, 0, 0, 0, 2), NULL,
	       "last -M wins");
	PASTA("-S", "one.example", "-S", "two.example");
	expect(accepted() && C->dns_opt.search_n == 1 &&
	       !strcmp(C->dns_opt.search[0], "two.example"), NULL,
	       "last search list wins");
	PASST("-S", "none", "-S", "example.com");
	expect(accepted() && C->dns_opt.search_n == 1 && !C->no_dhcp_search,
	       NULL, "a later search list undoes -S none");
	printf("# got: no_dhcp_search %d, %d domain(s)\n", C->no_dhcp_search,
	       C->dns_opt.search_n);
	PASTA("--map-host-loopback", "none", "--map-host-loopback",
	      "192.0.2.100");
	expect(accepted() &&
	       inany_is4(&C->net.map_host_lo[INANY_V4], "192.0.2.100") &&
	       !inany_is_set(&C->net.map_host_lo[INANY_V6]), NULL,
	       "a later address maps the host's loopback after "
	       "--map-host-loopback none, the gateway still doesn't");
	printf("# got: no_map_gw %d, IPv4 slot %s\n", C->no_map_gw,
	       inany_is_set(&C->net.map_host_lo[INANY_V4]) ? "set" : "unset");
	PASTA("--no-map-gw", "--map-host-loopback", "192.0.2.100");
	expect(accepted() &&
	       inany_is4(&C->net.map_host_lo[INANY_V4], "192.0.2.100") &&
	       !inany_is_set(&C->net.map_host_lo[INANY_V6]), NULL,
	       "the address given maps the host's loopback, not the gateway");
	printf("# got: no_map_gw %d, IPv4 slot %s\n", C->no_map_gw,
	       inany_is_set(&C->net.map_host_lo[INANY_V4]) ? "set" : "unset");
}

/**
 * test_accumulate() - -t, -u, -D and -a add up
 */
static void test_accumulate(void)
{
	PASTA("-t", "80", "-t", "81");
	expect(accepted() && n_rules(&R.r.in, IPPROTO_TCP) == 2 && one_rule(&R.r.in, IPPROTO_TCP, 0, 80) &&
	       one_rule(&R.r.in, IPPROTO_TCP, 1, 81) &&
	       !has_auto(&R.r.in, IPPROTO_TCP) && has_auto(&R.r.in, IPPROTO_UDP) && !n_rules(&R.r.in, IPPROTO_UDP), NULL,
	       "two TCP rules, in order; UDP still auto");
	PASTA("-u", "53", "--udp-ports=54", "-t", "22");
	expect(accepted() && n_rules(&R.r.in, IPPROTO_UDP) == 2 && one_rule(&R.r.in, IPPROTO_UDP, 0, 53) &&
	       one_rule(&R.r.in, IPPROTO_UDP, 1, 54) && n_rules(&R.r.in, IPPROTO_TCP) == 1 &&
	       one_rule(&R.r.in, IPPROTO_TCP, 0, 22) && !has_auto(&R.r.in, IPPROTO_UDP), NULL,
	       "two UDP rules and one TCP rule, each in its table");
	PASTA("-T", "8080", "--tcp-ns=8081");
	expect(accepted() && n_rules(&R.r.out, IPPROTO_TCP) == 2 &&
	       one_rule(&R.r.out, IPPROTO_TCP, 0, 8080) &&
	       one_rule(&R.r.out, IPPROTO_TCP, 1, 8081) && !n_rules(&R.r.in, IPPROTO_TCP) &&
	       has_auto(&R.r.in, IPPROTO_TCP), NULL,
	       "two -T rules in their own table; -t still auto");
	PASTA("-U", "53", "-U", "127.0.0.1/5353:53", "-T", "none");
	expect(accepted() && n_rules(&R.r.out, IPPROTO_UDP) == 2 &&
	       one_rule(&R.r.out, IPPROTO_UDP, 0, 53) && !has_auto(&R.r.out, IPPROTO_UDP) &&
	       !(nth_rule(&R.r.out, IPPROTO_UDP, 1)->flags & FWD_RULE_DUAL) &&
	       !n_rules(&R.r.out, IPPROTO_TCP) &&
	       !has_auto(&R.r.out, IPPROTO_TCP) && has_auto(&R.r.in, IPPROTO_UDP) && has_auto(&R.r.in, IPPROTO_TCP),
	       NULL, "two -U rules in their own table, -T none: no -T auto, "
	       "-t and -u still auto");
	PASST("-t", "80", "-t", "81");
	expect(accepted() && n_rules(&R.r.in, IPPROTO_TCP) == 2 && one_rule(&R.r.in, IPPROTO_TCP, 0, 80) &&
	       one_rule(&R.r.in, IPPROTO_TCP, 1, 81), NULL, "two TCP rules in passt");

	PASTA("-D", "192.0.2.53", "-D", "192.0.2.54");
	expect(accepted() && C->dns_opt.dns4_n == 2 &&
	       addr4_is(C->dns_opt.dns4[0], "192.0.2.53") &&
	       addr4_is(C->dns_opt.dns4[1], "192.0.2.54") && !C->dns_opt.dns6_n, NULL,
	       "two IPv4 name servers, in order");
	PASTA("-D", "192.0.2.53", "--dns", "2001:db8::53");
	expect(accepted() && C->dns_opt.dns4_n == 1 && C->dns_opt.dns6_n == 1 &&
	       addr4_is(C->dns_opt.dns4[0], "192.0.2.53") &&
	       addr6_is(&C->dns_opt.dns6[0], "2001:db8::53"), NULL,
	       "one name server per family");
	PASTA("-D", "192.0.2.1", "-D", "192.0.2.2", "-D", "192.0.2.3",
	      "-D", "192.0.2.4");
	expect(refused("-D", NULL), NULL,
	       "a fourth IPv4 name server refused, naming -D");
	PASST("-D", "none", "-D", "192.0.2.53");
	expect(accepted() && C->dns_opt.dns4_n == 1 && !C->no_dhcp_dns,
	       NULL, "a later name server undoes -D none");
	printf("# got: no_dhcp_dns %d, %d IPv4 name server(s)\n",
	       C->no_dhcp_dns, C->dns_opt.dns4_n);

	PASTA("-a", "192.0.2.10", "-a", "2001:db8::10");
	expect(accepted() && C->addr4_set && C->addr6_set &&
	       addr4_is(C->net.addr4, "192.0.2.10") &&
	       addr6_is(&C->net.addr6, "2001:db8::10"), NULL,
	       "-a IPv4 then IPv6: one address per family");
	PASTA("-a", "192.0.2.10", "-a", "192.0.2.11");
	expect(refused("-a", "192.0.2.11"), NULL,
	       "-a IPv4 twice refused, exit 1, naming -a and the address");
	PASTA("--address=2001:db8::10", "-a", "2001:db8::11");
	expect(refused("-a", "2001:db8::11"), NULL, "-a IPv6 twice refused");
}

/**
 * test_command() - pasta stops at the first word that is not an option
 */
static void test_command(void)
{
	PASTA("-f", "--", "cmd", "-x");
	expect(accepted() && C->foreground && R.r.cmd_idx == 3 &&
	       R.r.argv_kept, NULL,
	       "after --, cmd and its -x are the command, not parsed");
	PASTA("-f", "cmd", "-x");
	expect(accepted() && C->foreground && R.r.cmd_idx == 2 &&
	       R.r.argv_kept, NULL,
	       "cmd starts the command, its -x not parsed");
	PASTA("-f", "cmd", "-m", "1400", "--netns", "x");
	expect(accepted() && C->mtu == MTU_DEFAULT && !C->netns_path[0] &&
	       R.r.cmd_idx == 2 && R.r.argv_kept, NULL,
	       "options of ours after cmd belong to cmd");
	PASTA("-m", "1400", "cmd", "--foo");
	expect(accepted() && C->mtu == 1400 && R.r.cmd_idx == 3, NULL,
	       "an option with a value, then the command");
	PASTA("-f", "--");
	expect(accepted() && R.r.cmd_idx == -1, NULL,
	       "-- with nothing after it: no command");
	PASST("-f", "cmd");
	expect(refused("cmd", NULL), NULL,
	       "passt takes no command: refused, naming the word");
	PASST("--", "cmd");
	expect(refused("cmd", NULL), NULL, "passt: not after -- either");

	PASTA("4242");
	expect(accepted() && C->target_pid == 4242 && R.r.cmd_idx == -1, NULL,
	       "a PID: the namespace to join");
	PASTA("-f", "4242");
	expect(accepted() && C->target_pid == 4242 && C->foreground &&
	       R.r.cmd_idx == -1, NULL, "options, then a PID");
	PASTA("4242", "cmd");
	expect(refused("cmd", NULL), NULL,
	       "a word after the PID: refused, naming it");
	PASTA("4242", "--", "cmd");
	expect(refused("PID", NULL), NULL,
	       "a PID and a command: refused, naming the PID");
	PASTA("--", "4242");
	expect(accepted() && !C->target_pid && R.r.cmd_idx == 2, NULL,
	       "a number after -- is a command, not a PID");

	PASTA("--netns", "ns1");
	expect(accepted() && !strcmp(C->netns_path, "/run/netns/ns1") &&
	       R.r.cmd_idx == -1, NULL, "a name: /run/netns/NAME");
	PASTA("--netns", "/var/run/netns/ns1");
	expect(accepted() && !strcmp(C->netns_path, "/var/run/netns/ns1"),
	       NULL, "a path is taken as it is");
	PASTA("--netns", "ns1", "cmd");
	expect(refused("--netns", NULL), NULL,
	       "--netns and a command: refused, naming --netns");
	PASTA("--netns", "");
	expect(refused("--netns", NULL), NULL, "an empty name refused");
}

/**
 * test_modes() - options of one mode refused in the other, naming the option
 */
static void test_modes(void)
{
	static const struct {
		enum mode mode;		/* where the option is refused */
		const char *args[3];
		const char *name;	/* what the message must name */
	} other[] = {
		{ MODE_PASST, { "--config-net" },	"--config-net" },
		{ MODE_PASST, { "-I", "ns0" },			"-I" },
		{ MODE_PASST, { "--ns-ifname=ns0" },		"-I" },
		{ MODE_PASST, { "--ns-mac-addr", "02:00:00:00:00:01" },
							"--ns-mac-addr" },
		{ MODE_PASST, { "--netns", "ns1" },		"--netns" },
		{ MODE_PASST, { "--userns", "/proc/1/ns/user" }, "--userns" },
		{ MODE_PASST, { "-T", "none" },			"-T" },
		{ MODE_PASST, { "-U", "auto" },			"-U" },
		{ MODE_PASST, { "-t", "auto" },			"-t auto" },
		{ MODE_PASST, { "-u", "auto" },			"-u auto" },
		{ MODE_PASTA, { "-s", "/tmp/x.socket" },	"-s" },
		{ MODE_PASTA, { "--socket=/tmp/x.socket" },	"-s" },
		{ MODE_PASTA, { "-1" },				"-1" },
		{ MODE_PASTA, { "--one-off" },			"-1" },
		{ MODE_PASST, { "--dhcp-dns" },		"--dhcp-dns" },
		{ MODE_PASST, { "--dhcp-search" },		"--dhcp-search" },
		{ MODE_PASTA, { "--no-dhcp-dns" },		"--no-dhcp-dns" },
		{ MODE_PASTA, { "--no-dhcp-search" },	"--no-dhcp-search" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(other); i++) {
		run(other[i].mode, other[i].args);
		expect(refused(other[i].name, other[i].mode == MODE_PASTA ?
			       "passt" : "pasta"), NULL,
		       "refused in %s, exit 1, naming %s",
		       other[i].mode == MODE_PASTA ? "pasta" : "passt",
		       other[i].name);
	}

	/* doc/passt.1: accepted and ignored in the other mode */
	PASST("--netns-only");
	expect(accepted(), NULL, "accepted by passt (documented exception)");
	PASST("--no-netns-quit");
	expect(accepted(), NULL, "accepted by passt (documented exception)");
	PASTA("-F", "5");
	expect(accepted(), NULL, "accepted by pasta (documented exception)");

	PASTA("-t", "auto", "-u", "auto");
	expect(accepted() && has_auto(&R.r.in, IPPROTO_TCP) &&
	       has_auto(&R.r.in, IPPROTO_UDP), NULL,
	       "auto, explicitly, in pasta");
	PASST("-t", "all");
	expect(accepted() && n_rules(&R.r.in, IPPROTO_TCP) == 2 &&
	       (R.r.in.rule[0].flags & FWD_RULE_WEAK) &&
	       R.r.in.rule[0].first == 1 && R.r.in.rule[1].last == 65535,
	       NULL, "all, in passt: every port but the ephemeral ones, best "
	       "effort");
	PASTA("-t", "all");
	expect(refused("-t", "all"), NULL, "all is for passt: refused");
	PASST("--config-net", "-s", "/tmp/x.socket", "-1");
	expect(refused("--config-net", NULL), NULL,
	       "passt's own options don't excuse a pasta one");
}

/**
 * test_getopt() - getopt_long()'s own reports, --help and --version
 */
static void test_getopt(void)
{
	PASTA("--foo");
	expect(exited(1) && !R.got &&
	       strstr(R.err, "unrecognized option '--foo'") &&
	       strstr(R.err, "Usage:") && !R.out[0], NULL,
	       "getopt's words, usage on stderr, exit 1");
	PASST("--foo=1");
	expect(exited(1) && strstr(R.err, "unrecognized option '--foo=1'"),
	       NULL, "same in passt");
	PASTA("-t");
	expect(exited(1) && !R.got &&
	       strstr(R.err, "option requires an argument -- 't'") &&
	       strstr(R.err, "Usage:"), NULL,
	       "missing value: getopt's words, exit 1");
	PASTA("--mtu");
	expect(exited(1) && !R.got &&
	       strstr(R.err, "option '--mtu' requires an argument"), NULL,
	       "missing value of a long option: getopt's words, exit 1");
	PASTA("-x");
	expect(exited(1) && !R.got && strstr(R.err, "invalid option -- 'x'"),
	       NULL, "unknown short option: getopt's words, exit 1");
	PASTA("-fx");
	expect(exited(1) && !R.got && strstr(R.err, "invalid option -- 'x'"),
	       NULL, "unknown short option in a cluster");
	PASTA("--no-d");
	expect(exited(1) && !R.got && strstr(R.err, "is ambiguous"), NULL,
	       "ambiguous prefix: getopt's words, exit 1");
	PASTA("-t", "-f");
	expect(refused("-t", "-f"), NULL,
	       "the next word is -t's value even if it looks like an option");

	PASTA("--help");
	expect(exited(0) && !R.got && strstr(R.out, "Usage: pasta") &&
	       !R.err[0], NULL, "usage on stdout, exit 0");
	PASTA("-h");
	expect(exited(0) && !R.got && strstr(R.out, "Usage: pasta"), NULL,
	       "usage on stdout, exit 0");
	PASST("--help");
	expect(exited(0) && strstr(R.out, "Usage: passt"), NULL,
	       "usage on stdout, exit 0");
	PASTA("--version");
	expect(exited(0) && !R.got && !strcmp(R.out, "pasta " VERSION "\n") &&
	       !R.err[0], NULL, "name and version on stdout, exit 0");
	PASST("--version");
	expect(exited(0) && !strcmp(R.out, "passt " VERSION "\n"), NULL,
	       "name and version on stdout, exit 0");
	PASTA("-m", "1400", "--help", "--foo");
	expect(exited(0) && strstr(R.out, "Usage:"), NULL,
	       "--help stops the parsing there");
}

/**
 * test_loopback_paths() - --host-lo-to-ns-lo, and --no-map-gw's -T/-U
 */
static void test_loopback_paths(void)
{
	PASTA("--host-lo-to-ns-lo");
	expect(accepted() && C->host_lo_to_ns_lo, NULL,
	       "--host-lo-to-ns-lo taken");
	PASST("--host-lo-to-ns-lo");
	expect(refused("--host-lo-to-ns-lo", "pasta only"), NULL,
	       "for pasta only");
	PASTA("--host-lo-to-ns-lo", "--no-splice");
	expect(refused("--host-lo-to-ns-lo is incompatible with --no-splice",
		       NULL), NULL, "with --no-splice: refused in upstream's words");
	PASTA("--no-map-gw");
	expect(accepted() && !has_auto(&R.r.out, IPPROTO_TCP) &&
	       !has_auto(&R.r.out, IPPROTO_UDP) && !R.r.out.n &&
	       has_auto(&R.r.in, IPPROTO_TCP), NULL,
	       "--no-map-gw: no -T/-U auto, -t still auto");
	PASTA("--no-map-gw", "-T", "8080");
	expect(accepted() && one_rule(&R.r.out, IPPROTO_TCP, 0, 8080), NULL,
	       "--no-map-gw -T 8080: the -T rule given stands");
}

/**
 * test_noop() - options accepted for compatibility change nothing
 */
static void test_noop(void)
{
	static const char *const noop[] = {
		"--stderr", "-e", "--no-copy-routes", "--no-copy-addrs",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(noop); i++) {
		PASTA(noop[i]);
		expect(accepted() && same_as(&base_pasta), NULL,
		       "accepted, nothing changed");
		PASST(noop[i]);
		expect(accepted() && same_as(&base_passt), NULL,
		       "accepted, nothing changed");
	}
	PASTA("--runas", "1000:1001", "--log-size=8192", "--stats", "5");
	expect(accepted() && C->runas_set && C->runas_uid == 1000 &&
	       C->runas_gid == 1001 && C->log_size == 8192 &&
	       C->stats_delay_s == 5, NULL,
	       "--runas UID:GID, --log-size and --stats taken");
	PASST("--runas", "nobody");
	expect(accepted() && C->runas_set && C->runas_uid == 65534 &&
	       C->runas_gid == 65534, NULL,
	       "--runas nobody: its user ID and primary group");
	PASST("--runas=root:nogroup");
	expect(accepted() && C->runas_set && !C->runas_uid &&
	       C->runas_gid == 65534, NULL, "--runas by user and group name");
	PASST("--runas", "1234");
	expect(accepted() && C->runas_uid == 1234 && C->runas_gid == 1234, NULL,
	       "--runas UID alone: the group of the same number");
	PASST("--fqdn", "guest.example", "--fqdn=vm.example.org.");
	expect(accepted() && !strcmp(C->fqdn, "vm.example.org."), NULL,
	       "the last --fqdn is the name handed out");
}

/**
 * test_dhcp_dns() - whether DHCP, DHCPv6 and NDP hand out the name servers
 *		     and the search list, as upstream: pasta only with
 *		     --dhcp-dns, --dhcp-search; passt unless --no-dhcp-dns,
 *		     --no-dhcp-search; never after -D none, -S none
 */
static void test_dhcp_dns(void)
{
	PASTA("-D", "192.0.2.53", "-S", "example.org");
	expect(accepted() && C->no_dhcp_dns && C->no_dhcp_search &&
	       C->dns_opt.dns4_n == 1, NULL,
	       "pasta: -D, -S taken, but neither handed out by default");
	PASTA("--dhcp-dns", "-D", "192.0.2.53");
	expect(accepted() && !C->no_dhcp_dns && C->no_dhcp_search &&
	       C->dns_opt.dns4_n == 1 &&
	       addr4_is(C->dns_opt.dns4[0], "192.0.2.53"), NULL,
	       "pasta --dhcp-dns: the name servers, not the search list");
	PASTA("--dhcp-search", "-S", "example.org");
	expect(accepted() && C->no_dhcp_dns && !C->no_dhcp_search &&
	       C->dns_opt.search_n == 1, NULL,
	       "pasta --dhcp-search: the search list, not the name servers");
	PASTA("--dhcp-dns", "--dhcp-search");
	expect(accepted() && !C->no_dhcp_dns && !C->no_dhcp_search, NULL,
	       "pasta --dhcp-dns --dhcp-search: both");
	PASTA("-D", "none", "--dhcp-dns", "-S", "none", "--dhcp-search");
	expect(accepted() && C->no_dhcp_dns && C->no_dhcp_search, NULL,
	       "-D none, -S none: neither, whatever --dhcp-dns says");
	PASTA("--dhcp-dns", "-D", "none");
	expect(accepted() && C->no_dhcp_dns, NULL,
	       "-D none after --dhcp-dns: no name servers either");
	PASTA("--config-net", "--dns-forward", "169.254.1.1", "-t", "none",
	      "-u", "none", "-T", "none", "-U", "none", "--no-map-gw",
	      "--quiet", "--map-guest-addr", "169.254.1.2");
	expect(accepted() && C->no_dhcp_dns && C->no_dhcp_search, NULL,
	       "Podman's command line: neither handed out");
	PASST("-D", "192.0.2.53", "-S", "example.org");
	expect(accepted() && !C->no_dhcp_dns && !C->no_dhcp_search, NULL,
	       "passt: both handed out by default");
	PASST("--no-dhcp-dns", "-S", "example.org");
	expect(accepted() && C->no_dhcp_dns && !C->no_dhcp_search, NULL,
	       "passt --no-dhcp-dns: the search list only");
}

/**
 * test_flags() - options that set one flag of the context
 */
static void test_flags(void)
{
#define F(field)	offsetof(struct ctx, field)
	/* --no-dhcp-dns and --no-dhcp-search also keep resolv.conf out */
	static const struct {
		enum mode mode;
		const char *opt;
		size_t off;
		bool alone;	/* nothing else in the context moves */
	} flags[] = {
		{ MODE_PASTA, "--no-tcp", F(no_tcp), 1 },
		{ MODE_PASTA, "--no-udp", F(no_udp), 1 },
		{ MODE_PASTA, "--no-icmp", F(no_icmp), 1 },
		{ MODE_PASTA, "--freebind", F(freebind), 1 },
		{ MODE_PASTA, "--no-netns-quit", F(no_netns_quit), 1 },
		{ MODE_PASTA, "--no-splice", F(no_splice), 1 },
		{ MODE_PASTA, "--netns-only", F(netns_only), 1 },
		{ MODE_PASTA, "--no-ra", F(no_ra), 1 },
		{ MODE_PASTA, "--no-ndp", F(no_ndp), 1 },
		{ MODE_PASTA, "--no-dhcpv6", F(no_dhcpv6), 1 },
		{ MODE_PASTA, "--no-dhcp", F(no_dhcp), 1 },
		{ MODE_PASTA, "-f", F(foreground), 1 },
		{ MODE_PASTA, "--quiet", F(quiet), 1 },
		{ MODE_PASST, "--no-tcp", F(no_tcp), 1 },
		{ MODE_PASST, "--freebind", F(freebind), 1 },
		{ MODE_PASST, "--no-ra", F(no_ra), 1 },
		{ MODE_PASST, "--no-ndp", F(no_ndp), 1 },
		{ MODE_PASST, "--no-dhcpv6", F(no_dhcpv6), 1 },
		{ MODE_PASST, "--no-dhcp-dns", F(no_dhcp_dns), 0 },
		{ MODE_PASST, "--no-dhcp-search", F(no_dhcp_search), 0 },
		{ MODE_PASST, "-1", F(one_off), 1 },
	};
#undef F
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		const struct result *base = flags[i].mode == MODE_PASTA ?
					    &base_pasta : &base_passt;
		const bool *flag = (const bool *)((const char *)C +
						  flags[i].off);

		run(flags[i].mode, ARGV(flags[i].opt));
		if (flags[i].alone)
			expect(accepted() && only_flag(base, flags[i].off),
			       NULL, "sets its flag, nothing else in ctx");
		else
			expect(accepted() && *flag, NULL, "sets its flag");
	}

	PASST("--no-dhcp-dns");
	expect(accepted() && !R.r.offer.dns4_n && !R.r.offer.dns6_n, NULL,
	       "no name server taken from resolv.conf");
	PASST("--no-dhcp-search");
	expect(accepted() && !R.r.offer.search_n, NULL,
	       "no search list taken from resolv.conf");

	PASTA("--no-tcp");
	expect(accepted() && !has_auto(&R.r.in, IPPROTO_TCP) && !n_rules(&R.r.in, IPPROTO_TCP) &&
	       !has_auto(&R.r.out, IPPROTO_TCP) && has_auto(&R.r.in, IPPROTO_UDP) &&
	       has_auto(&R.r.out, IPPROTO_UDP), NULL,
	       "no TCP forwarding either way, UDP still auto");
	PASTA("--no-udp", "-u", "53");
	expect(accepted() && !has_auto(&R.r.in, IPPROTO_UDP) && !n_rules(&R.r.in, IPPROTO_UDP) &&
	       has_auto(&R.r.in, IPPROTO_TCP), NULL, "drops -u rules, TCP still auto");
	PASTA("--config-net");
	expect(accepted() && C->config_net && C->no_ra, NULL,
	       "sets config_net, and no_ra (the namespace is configured)");
	PASTA("--debug");
	expect(accepted() && C->debug && C->foreground, NULL,
	       "debug implies foreground");
	PASTA("--trace");
	expect(accepted() && C->debug && C->foreground, NULL,
	       "same as -d");
}

/**
 * struct pair_opt - an option taking one address per family
 * @opt:	the option
 * @off:	offset of its union inany_addr[INANY_FAMILIES] in struct ctx
 * @other_gw:	a family not given keeps the gateway (else: stays unset)
 */
static const struct pair_opt {
	const char *opt;
	size_t off;
	bool other_gw;
} pairs[] = {
	{ "--dns-forward",	  offsetof(struct ctx, dns_match),	false },
	{ "--map-guest-addr",	  offsetof(struct ctx, map_guest),	false },
	{ "--map-host-loopback", offsetof(struct ctx, net.map_host_lo),	true },
	{ "-o",			  offsetof(struct ctx, outbound),	false },
	{ "--outbound",		  offsetof(struct ctx, outbound),	false },
};

static const union inany_addr *pair_of(const struct pair_opt *p)
{
	return (const union inany_addr *)((const char *)C + p->off);
}

/**
 * test_pairs() - address options fill the slot of their family
 */
static void test_pairs(void)
{
	union inany_addr unset = { 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		const struct pair_opt *p = &pairs[i];
		const union inany_addr *a = pair_of(p);

		PASTA(p->opt, "192.0.2.100");
		expect(accepted() && inany_is4(&a[INANY_V4], "192.0.2.100") &&
		       (p->other_gw ?
			inany_is6(&a[INANY_V6], "2001:db8::254") :
			inany_equals(&a[INANY_V6], &unset)), NULL,
		       "the IPv4 slot; IPv6 %s",
		       p->other_gw ? "keeps the gateway" : "unset");
		PASTA(p->opt, "2001:db8::100");
		expect(accepted() && inany_is6(&a[INANY_V6], "2001:db8::100") &&
		       (p->other_gw ?
			inany_is4(&a[INANY_V4], "192.0.2.254") :
			inany_equals(&a[INANY_V4], &unset)), NULL,
		       "the IPv6 slot; IPv4 %s",
		       p->other_gw ? "keeps the gateway" : "unset");
		PASTA(p->opt, "2001:db8::100", p->opt, "192.0.2.100");
		expect(accepted() && inany_is4(&a[INANY_V4], "192.0.2.100") &&
		       inany_is6(&a[INANY_V6], "2001:db8::100"), NULL,
		       "one slot each");
		PASTA(p->opt, "192.0.2.300");
		expect(refused(!strcmp(p->opt, "--outbound") ? "-o" : p->opt,
			       "192.0.2.300"), NULL,
		       "bad address refused, exit 1, naming the option");
	}

	PASTA("--dns-forward", "192.0.2.53");
	expect(accepted() && C->dns_opt.dns4_n == 1 &&
	       addr4_is(C->dns_opt.dns4[0], "192.0.2.53"), NULL,
	       "without -D, the guest is told to use that address");
	PASTA("--dns-host", "2001:db8::53");
	expect(accepted() && inany_is6(&C->dns_host, "2001:db8::53"), NULL,
	       "where forwarded queries go");

	PASTA("--map-host-loopback", "none");
	{
		struct result none;

		memcpy(&none, &R.r, sizeof(none));
		expect(accepted() && C->no_map_gw &&
		       inany_equals(&C->net.map_host_lo[INANY_V4], &unset) &&
		       inany_equals(&C->net.map_host_lo[INANY_V6], &unset),
		       NULL, "nothing maps the host's loopback");
		PASTA("--no-map-gw");
		expect(accepted() && C->no_map_gw &&
		       !memcmp(&R.r.c, &none.c, sizeof(none.c)), NULL,
		       "the same context as --map-host-loopback none");
	}
}

/**
 * test_values() - values of single options, good and bad
 */
static void test_values(void)
{
	static const struct {
		const char *args[3];
		const char *a, *b;	/* what the message must quote */
	} bad[] = {
		{ { "-m", "abc" },		"-m", "abc" },
		{ { "--mtu=575" },		"-m", "575" },
		{ { "-m", "65521" },		"-m", "65521" },
		{ { "-m", "-1" },		"-m", "-1" },
		{ { "-m", "1400x" },		"-m", "1400x" },
		{ { "-m", "" },			"-m", NULL },
		{ { "-t", "99999" },		"-t", "99999" },
		{ { "-t", "0" },		"-t", "0" },
		{ { "--tcp-ports=80-" },	"-t", "80-" },
		{ { "-u", "abc" },		"-u", "abc" },
		{ { "-a", "192.0.2" },		"-a", "192.0.2" },
		{ { "-a", "::ffff:192.0.2.1" },	"-a", "::ffff:192.0.2.1" },
		{ { "-n", "33" },		"-n", "33" },
		{ { "-n", "255.0.255.0" },	"-n", "255.0.255.0" },
		{ { "-g", "gateway" },		"-g", "gateway" },
		{ { "-D", "dns.example" },	"-D", "dns.example" },
		{ { "--dns-host", "x" },	"--dns-host", "x" },
		{ { "-S", "1.example 2.example 3.example 4.example "
			  "5.example 6.example 7.example" }, "-S", NULL },
		{ { "-H", "0123456789012345678901234567890123456789"
			  "012345678901234567890123456789" }, "-H", NULL },
		{ { "--fqdn", "" },		"--fqdn", NULL },
		{ { "--runas", "no-such-user-here" }, "--runas",
		  "no-such-user-here" },
		{ { "--runas", "0:no-such-group" }, "--runas", NULL },
		{ { "--stats", "0" },		"--stats", "0" },
		{ { "--log-size", "-1" },	"--log-size", NULL },
		{ { "--fqdn", "a..example" },	"--fqdn", "a..example" },
		{ { "-i", "abcdefghijklmnop" },	"-i", "abcdefghijklmnop" },
		{ { "-i", "nosuchif0" },	"-i", "nosuchif0" },
		{ { "--outbound-if4", "" },	"--outbound-if4", NULL },
		{ { "--outbound-if6", "abcdefghijklmnop" },
						"--outbound-if6", NULL },
		{ { "-F", "abc" },		"-F", "abc" },
		{ { "--log-size", "0" },	"--log-size", "0" },
		{ { "--runas", "" },		"--runas", NULL },
		{ { "-T", "99999" },		"-T", "99999" },
		{ { "-U", "all" },		"-U", "all" },
	};
	char long_path[PATH_MAX + 8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		run(MODE_PASTA, bad[i].args);
		expect(refused(bad[i].a, bad[i].b), NULL,
		       "refused, exit 1, the message quoting %s%s%s",
		       bad[i].a, bad[i].b ? " and " : "",
		       bad[i].b ? bad[i].b : "");
	}

	memset(long_path, 'p', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	PASTA("-P", long_path);
	snprintf(R.line, sizeof(R.line), "pasta -P /ppp... (%zu characters)",
		 strlen(long_path));
	expect(refused("-P", NULL), NULL, "path too long: refused, naming -P");

	PASTA("-m", "0");
	expect(accepted() && C->mtu_no_assign && C->mtu == MTU_DEFAULT, NULL,
	       "no MTU handed out (mtu_no_assign)");
	PASTA("-m", "576");
	expect(accepted() && C->mtu == 576 && !C->mtu_no_assign, NULL,
	       "the smallest MTU");
	PASTA("-m", "65520");
	expect(accepted() && C->mtu == 65520, NULL, "the largest MTU");

	PASTA("-n", "255.255.0.0");
	expect(accepted() && C->net.prefix4 == 16 && C->prefix4_set, NULL,
	       "a dotted netmask");
	PASTA("-g", "192.0.2.2", "-g", "fe80::2");
	expect(accepted() && addr4_is(C->net.gw4, "192.0.2.2") &&
	       addr6_is(&C->net.gw6, "fe80::2") &&
	       addr6_is(&C->net.ll6_ours, "fe80::2"), NULL,
	       "a gateway per family; link-local IPv6 is our address");
	PASTA("-S", "one.example,two.example three.example");
	expect(accepted() && C->dns_opt.search_n == 3 &&
	       !strcmp(C->dns_opt.search[2], "three.example"), NULL,
	       "a search list, commas or spaces");
	PASTA("-H", "guest");
	expect(accepted() && !strcmp(C->hostname, "guest"), NULL,
	       "the host name for DHCP");
	{
		char ifname[IFNAMSIZ] = "";

		if_indextoname(base_pasta.c.host_ifi, ifname);
		PASTA("-i", ifname);
		expect(accepted() && C->host_ifi == base_pasta.c.host_ifi &&
		       addr4_is(C->net.addr4, "192.0.2.1") &&
		       addr4_is(C->net.gw4, "192.0.2.254") &&
		       addr6_is(&C->net.gw6, "2001:db8::254"), NULL,
		       "the default route's interface, named");
	}

	PASTA("-M", "02:00:00:00:00:01");
	expect(accepted() && mac_is(C->mac_ours, 2, 0, 0, 0, 0, 1), NULL,
	       "our MAC address");
	PASTA("--mac-addr=AA:bb:0C:d0:EE:ff");
	expect(accepted() && mac_is(C->mac_ours, 0xaa, 0xbb, 0x0c, 0xd0,
				    0xee, 0xff), NULL,
	       "upper and lower case hex digits");
	PASTA("--ns-mac-addr", "02:00:00:00:00:02");
	expect(accepted() && C->ns_mac_set &&
	       mac_is(C->ns_mac, 2, 0, 0, 0, 0, 2), NULL,
	       "the namespace's MAC address");
	{
		static const char *const bad_mac[] = {
			"02:00:00:00:00", "02:00:00:00:00:01:02",
			"02:00:00:00:00:0g", "02-00-00-00-00-01",
			"020000000001", "02:00:00:00:00:01:", "",
			"02:00:00:00:00:001", "02:00:00:00:00:01 ",
		};

		for (i = 0; i < ARRAY_SIZE(bad_mac); i++) {
			PASTA("-M", bad_mac[i]);
			expect(refused("-M", bad_mac[i]), NULL,
			       "bad MAC address refused, exit 1, quoting it");
		}
	}
	PASTA("--ns-mac-addr", "02:00:00:00:00");
	expect(refused("--ns-mac-addr", "02:00:00:00:00"), NULL,
	       "bad MAC address refused, naming --ns-mac-addr");
	PASTA("-M", "-1:00:00:00:00:00");
	expect(refused("-M", "-1:00:00:00:00:00"),
	       NULL,
	       "a negative byte refused");
	mac_note();
	PASTA("-M", "2:0:0:0:0:0");
	expect(refused("-M", "2:0:0:0:0:0"),
	       NULL,
	       "one-digit bytes refused (upstream: exactly 17 characters)");
	mac_note();

	PASTA("-I", "abcdefghijklmno");
	expect(accepted() && !strcmp(C->ifname, "abcdefghijklmno"), NULL,
	       "a 15-character name, the longest there is");
	PASTA("-I", "abcdefghijklmnop");
	expect(refused("-I", "abcdefghijklmnop"), NULL,
	       "a 16-character name is too long: refused, exit 1, naming -I");
	PASTA("-I", "");
	expect(refused("-I", NULL), NULL, "an empty name refused");
}

int main(void)
{
	test_defaults();
	if (!base_pasta.c.host_ifi || !base_passt.c.host_ifi) {
		printf("Bail out! conf() found no host interface: run through "
		       "test/99-unit-conf.t\n");
		return 1;
	}
	test_forms();
	test_clusters();
	test_repeated();
	test_accumulate();
	test_command();
	test_modes();
	test_getopt();
	test_noop();
	test_loopback_paths();
	test_dhcp_dns();
	test_flags();
	test_pairs();
	test_values();
	tests_done();
	return real_failures ? 1 : 0;	/* TODO tests may fail */
}
