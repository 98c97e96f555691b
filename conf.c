// SPDX-License-Identifier: GPL-2.0-or-later
/* conf.c - command line, with upstream passt/pasta's option names
 *
 * Every error here is fatal and names the option and the value, before
 * anything is started. Options that upstream has and we accept without
 * acting on them are listed as such in --help, so callers such as Podman
 * keep working.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "conf.h"
#include "dhcp.h"
#include "log.h"
#include "netlink.h"
#include "passt.h"

enum {
	OPT_CONFIG_NET = 256,
	OPT_VERSION,
	OPT_NETNS,
	OPT_USERNS,
	OPT_NO_MAP_GW,
	OPT_NO_DHCP,
	OPT_NO_DHCP_DNS,
	OPT_NO_DHCP_SEARCH,
	OPT_IGNORED,
	OPT_IGNORED_ARG,
};

static void usage(const char *name, FILE *f, int status)
{
	fprintf(f,
		"Usage: %s [OPTION]... [PID | --netns PATH] [-- COMMAND [ARG]...]\n"
		"\n"
		"  -f, --foreground       stay in the foreground\n"
		"  -d, --debug            debug messages (implies -f)\n"
		"  -q, --quiet            errors and warnings only\n"
		"  -P, --pid FILE         write our PID to FILE\n"
		"  -p, --pcap FILE        capture frames to FILE (pcap)\n"
		"  -a, --address ADDR     guest IPv4 address\n"
		"  -n, --netmask PREFIX   prefix length or dotted netmask\n"
		"  -g, --gateway ADDR     gateway address seen by the guest\n"
		"  -m, --mtu MTU          MTU of the guest link (%d-%d, default %d)\n"
		"  -t, --tcp-ports SPEC   forward TCP ports to the guest:\n"
		"                         PORT[:TO], FIRST-LAST[:TOFIRST-TOLAST],\n"
		"                         comma-separated, or none\n"
		"  -u, --udp-ports SPEC   same for UDP\n"
		"  -T, -U SPEC            guest-to-host forwarding: only none\n"
		"      --no-map-gw        don't map the gateway to the host's loopback\n"
		"pasta only:\n"
		"      --config-net       configure the namespace's interface like the\n"
		"                         host's default-route one\n"
		"  -I, --ns-ifname NAME   tap device name in the namespace\n"
		"      --netns PATH       join this network namespace\n"
		"      --userns PATH      join this user namespace first\n"
		"passt only:\n"
		"  -s, --socket PATH      UNIX socket path\n"
		"  -F, --fd FD            already connected guest socket\n"
		"  -1, --one-off          quit when the guest disconnects\n"
		"  -D, --dns ADDR         DNS server for DHCP (repeat; default: resolv.conf)\n"
		"  -S, --search LIST      DNS search list for DHCP (default: resolv.conf)\n"
		"      --no-dhcp-dns, --no-dhcp-search, --no-dhcp\n"
		"Accepted and ignored: -4, --ipv4-only, --no-ndp,\n"
		"  --no-dhcpv6, --no-ra, --quiet\n"
		"      --version          print the version\n"
		"      --help             this text\n",
		name, MTU_MIN, MTU_MAX, MTU_DEFAULT);
	exit(status);
}

/**
 * conf_ulong() - parse a whole decimal number in a range
 * @s:		string
 * @min:	smallest value allowed
 * @max:	largest value allowed
 * @v:		value
 *
 * Return: 0 on success, -1 if @s is not a number in the range
 */
static int conf_ulong(const char *s, unsigned long min, unsigned long max,
		      unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v < min || *v > max)
		return -1;
	return 0;
}

/**
 * conf_port_range() - parse PORT or FIRST-LAST
 * @s:		string, modified
 * @first:	first port
 * @last:	last port
 *
 * Return: 0 on success, -1 on malformed input
 */
static int conf_port_range(char *s, unsigned long *first, unsigned long *last)
{
	char *dash = strchr(s, '-');

	if (dash)
		*dash = 0;
	if (conf_ulong(s, 1, USHRT_MAX, first))
		return -1;
	if (!dash) {
		*last = *first;
		return 0;
	}
	if (conf_ulong(dash + 1, 1, USHRT_MAX, last) || *last < *first)
		return -1;
	return 0;
}

/**
 * conf_ports() - parse a port forwarding spec into a map
 * @spec:	"none", or comma-separated PORT[:TO] / FIRST-LAST[:TOFIRST-TOLAST]
 * @to:		map from host port to guest port, filled in
 *
 * Return: 0 on success, -1 on malformed input
 */
int conf_ports(const char *spec, uint16_t *to)
{
	char buf[BUFSIZ], *item, *save;

	if (!strcmp(spec, "none"))
		return 0;
	if (strlen(spec) >= sizeof(buf) || !*spec)
		return -1;
	strcpy(buf, spec);

	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		unsigned long first, last, tfirst, tlast, p;
		char *colon = strchr(item, ':');

		if (colon)
			*colon = 0;
		if (conf_port_range(item, &first, &last))
			return -1;
		tfirst = first;
		tlast = last;
		if (colon && (conf_port_range(colon + 1, &tfirst, &tlast) ||
			      tlast - tfirst != last - first))
			return -1;
		for (p = first; p <= last; p++)
			to[p] = tfirst + (p - first);
	}
	return 0;
}

static void conf_addr4(const char *opt, const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1)
		die("Invalid IPv4 address for %s: %s", opt, s);
}

/**
 * conf_prefix() - parse a prefix length or a dotted netmask
 * @s:		string
 *
 * Return: prefix length
 */
static int conf_prefix(const char *s)
{
	unsigned long len;
	struct in_addr m;
	uint32_t mask;

	if (!conf_ulong(s, 0, 32, &len))
		return len;
	if (inet_pton(AF_INET, s, &m) == 1) {
		mask = ntohl(m.s_addr);
		/* Contiguous ones only */
		if (!(~mask & (~mask + 1)))
			return __builtin_popcount(mask);
	}
	die("Invalid netmask or prefix length for -n: %s", s);
}

/**
 * conf_host_defaults() - take address, prefix and gateway from the host
 * @c:		execution context
 */
static void conf_host_defaults(struct ctx *c)
{
	struct in_addr addr, gw;
	int nl, prefix, ret;
	unsigned int ifi;

	nl = nl_open();
	if (nl < 0)
		die("netlink: %s", strerror(-nl));
	ret = nl_default_route4(nl, &ifi, &gw);
	if (!ret) {
		c->host_ifi = ifi;
		if (!c->gw4_set)
			c->gw4 = gw;
		if (!nl_addr4_get(nl, ifi, &addr, &prefix)) {
			if (!c->addr4_set)
				c->addr4 = addr;
			if (!c->prefix4_set)
				c->prefix4 = prefix;
		}
		if (!c->ifname[0] && !if_indextoname(ifi, c->ifname))
			c->ifname[0] = 0;
	}
	close(nl);

	if (!c->addr4.s_addr)
		die("No IPv4 address on a host interface with a default route: use -a");
	if (!c->gw4.s_addr)
		die("No IPv4 default gateway on the host: use -g");
	if (!c->prefix4)
		c->prefix4 = 24;
	if (!c->ifname[0])
		snprintf(c->ifname, sizeof(c->ifname), "tap0");
}

/**
 * conf_dns() - add a DNS server from -D
 * @c:		execution context
 * @s:		IPv4 address, or "none"
 */
static void conf_dns(struct ctx *c, const char *s)
{
	if (!strcmp(s, "none")) {
		c->no_dhcp_dns = true;
		return;
	}
	if (c->dns4_n == DNS4_MAX)
		die("Too many DNS servers with -D: at most %d", DNS4_MAX);
	conf_addr4("-D", s, &c->dns4[c->dns4_n++]);
}

/**
 * conf_search() - set the DNS search list from -S
 * @c:		execution context
 * @s:		space-separated domains, or "none"
 */
static void conf_search(struct ctx *c, const char *s)
{
	char buf[DNS_SEARCH_MAX * DNS_NAME_MAX], *d, *save;

	c->dns_search_n = 0;
	if (!strcmp(s, "none")) {
		c->no_dhcp_search = true;
		return;
	}
	if (strlen(s) >= sizeof(buf))
		die("Search list too long for -S: %s", s);
	strcpy(buf, s);
	for (d = strtok_r(buf, " ,", &save); d; d = strtok_r(NULL, " ,", &save)) {
		if (c->dns_search_n == DNS_SEARCH_MAX || strlen(d) >= DNS_NAME_MAX)
			die("Invalid search list for -S: %s", s);
		strcpy(c->dns_search[c->dns_search_n++], d);
	}
}

static void conf_path(const char *opt, const char *s, char *dst, size_t len)
{
	if (strlen(s) >= len)
		die("Path too long for %s: %s", opt, s);
	strcpy(dst, s);
}

/**
 * conf_positional() - a word that is not an option: PID, or the command
 * @c:		execution context
 * @arg:	the word, followed by the rest of the command line
 */
static void conf_positional(struct ctx *c, char **arg)
{
	unsigned long pid;

	if (c->mode != MODE_PASTA)
		die("Unexpected argument: %s", *arg);
	if (!c->target_pid && !conf_ulong(*arg, 1, INT_MAX, &pid)) {
		c->target_pid = pid;
		return;
	}
	if (c->target_pid)
		die("Unexpected argument after PID: %s", *arg);
	c->cmd = arg;
}

/**
 * conf() - parse the command line, fill in defaults from the host
 * @c:		execution context
 * @argc:	argument count
 * @argv:	arguments
 */
void conf(struct ctx *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground",	no_argument,		NULL, 'f' },
		{ "debug",	no_argument,		NULL, 'd' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "pid",	required_argument,	NULL, 'P' },
		{ "pcap",	required_argument,	NULL, 'p' },
		{ "address",	required_argument,	NULL, 'a' },
		{ "netmask",	required_argument,	NULL, 'n' },
		{ "gateway",	required_argument,	NULL, 'g' },
		{ "mtu",	required_argument,	NULL, 'm' },
		{ "tcp-ports",	required_argument,	NULL, 't' },
		{ "udp-ports",	required_argument,	NULL, 'u' },
		{ "tcp-ns",	required_argument,	NULL, 'T' },
		{ "udp-ns",	required_argument,	NULL, 'U' },
		{ "ns-ifname",	required_argument,	NULL, 'I' },
		{ "socket",	required_argument,	NULL, 's' },
		{ "fd",		required_argument,	NULL, 'F' },
		{ "one-off",	no_argument,		NULL, '1' },
		{ "config-net",	no_argument,		NULL, OPT_CONFIG_NET },
		{ "netns",	required_argument,	NULL, OPT_NETNS },
		{ "userns",	required_argument,	NULL, OPT_USERNS },
		{ "no-map-gw",	no_argument,		NULL, OPT_NO_MAP_GW },
		{ "version",	no_argument,		NULL, OPT_VERSION },
		{ "help",	no_argument,		NULL, 'h' },
		{ "ipv4-only",	no_argument,		NULL, '4' },
		{ "no-dhcp",	no_argument,		NULL, OPT_NO_DHCP },
		{ "dns",	required_argument,	NULL, 'D' },
		{ "search",	required_argument,	NULL, 'S' },
		{ "no-dhcp-dns", no_argument,		NULL, OPT_NO_DHCP_DNS },
		{ "no-dhcp-search", no_argument,	NULL, OPT_NO_DHCP_SEARCH },
		{ "no-ndp",	no_argument,		NULL, OPT_IGNORED },
		{ "no-dhcpv6",	no_argument,		NULL, OPT_IGNORED },
		{ "no-ra",	no_argument,		NULL, OPT_IGNORED },
		{ 0 },
	};
	const char *name = c->mode == MODE_PASTA ? "pasta" : "passt";
	bool tcp_set = false, udp_set = false;
	unsigned long v;
	int opt;

	c->mtu = MTU_DEFAULT;
	c->fd_given = -1;
	opterr = 0;

	/* "-": non-options come back in order, as option 1. A PID may come
	 * before more options; any other word starts the command, whose own
	 * options we must then leave alone.
	 */
	while (!c->cmd &&
	       (opt = getopt_long(argc, argv, "-fdqP:p:a:n:g:m:t:u:T:U:I:s:F:1h4D:S:",
				  opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			conf_positional(c, argv + optind - 1);
			break;
		case 'f':
			c->foreground = true;
			break;
		case 'd':
			c->debug = c->foreground = true;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'P':
			conf_path("-P", optarg, c->pidfile, sizeof(c->pidfile));
			break;
		case 'p':
			conf_path("--pcap", optarg, c->pcap, sizeof(c->pcap));
			break;
		case 'a':
			conf_addr4("-a", optarg, &c->addr4);
			c->addr4_set = true;
			break;
		case 'n':
			c->prefix4 = conf_prefix(optarg);
			c->prefix4_set = true;
			break;
		case 'g':
			conf_addr4("-g", optarg, &c->gw4);
			c->gw4_set = true;
			break;
		case 'm':
			if (conf_ulong(optarg, MTU_MIN, MTU_MAX, &v))
				die("Invalid MTU for -m: %s (%d-%d)", optarg,
				    MTU_MIN, MTU_MAX);
			c->mtu = v;
			break;
		case 't':
			if (tcp_set && !strcmp(optarg, "none"))
				break;
			if (conf_ports(optarg, c->tcp_fwd->to))
				die("Invalid port specification for -t: %s",
				    optarg);
			tcp_set = true;
			break;
		case 'u':
			if (udp_set && !strcmp(optarg, "none"))
				break;
			if (conf_ports(optarg, c->udp_fwd->to))
				die("Invalid port specification for -u: %s",
				    optarg);
			udp_set = true;
			break;
		case 'T':
		case 'U':
			if (strcmp(optarg, "none"))
				die("-%c %s: only 'none' is supported", opt,
				    optarg);
			break;
		case 'I':
			if (c->mode != MODE_PASTA)
				die("-I is for pasta only");
			if (!*optarg || strlen(optarg) >= IFNAMSIZ)
				die("Invalid interface name for -I: %s",
				    optarg);
			strcpy(c->ifname, optarg);
			break;
		case 's':
			if (c->mode != MODE_PASST)
				die("-s is for passt only");
			conf_path("-s", optarg, c->sock_path,
				  sizeof(c->sock_path));
			c->sock_path_given = true;
			break;
		case 'F':
			if (conf_ulong(optarg, 0, INT_MAX, &v))
				die("Invalid file descriptor for -F: %s",
				    optarg);
			c->fd_given = v;
			break;
		case '1':
			if (c->mode != MODE_PASST)
				die("-1 is for passt only");
			c->one_off = true;
			break;
		case OPT_CONFIG_NET:
			if (c->mode != MODE_PASTA)
				die("--config-net is for pasta only");
			c->config_net = true;
			break;
		case OPT_NETNS:
			if (c->mode != MODE_PASTA)
				die("--netns is for pasta only");
			conf_path("--netns", optarg, c->netns_path,
				  sizeof(c->netns_path));
			break;
		case OPT_USERNS:
			if (c->mode != MODE_PASTA)
				die("--userns is for pasta only");
			conf_path("--userns", optarg, c->userns_path,
				  sizeof(c->userns_path));
			break;
		case 'D':
			conf_dns(c, optarg);
			break;
		case 'S':
			conf_search(c, optarg);
			break;
		case OPT_NO_DHCP:
			c->no_dhcp = true;
			break;
		case OPT_NO_DHCP_DNS:
			c->no_dhcp_dns = true;
			break;
		case OPT_NO_DHCP_SEARCH:
			c->no_dhcp_search = true;
			break;
		case OPT_NO_MAP_GW:
			c->no_map_gw = true;
			break;
		case OPT_VERSION:
			printf("%s %s\n", name, VERSION);
			exit(EXIT_SUCCESS);
		case 'h':
			usage(name, stdout, EXIT_SUCCESS);
			break;
		case '4':
		case OPT_IGNORED:
			break;
		case '?':
		default:
			if (optopt && optopt < 256)
				die("Invalid option or missing argument: -%c (see --help)",
				    optopt);
			die("Invalid option or missing argument: %s (see --help)",
			    argv[optind - 1]);
		}
	}

	if (!c->cmd && optind < argc) {
		if (c->mode != MODE_PASTA)
			die("Unexpected argument: %s", argv[optind]);
		c->cmd = argv + optind;		/* after "--" */
	}
	if (c->cmd && (c->netns_path[0] || c->target_pid))
		die("A command and a namespace to join (%s): pick one",
		    c->target_pid ? "PID" : "--netns");

	conf_host_defaults(c);
	if (c->mode == MODE_PASST && !c->no_dhcp)
		dhcp_conf_resolv(c);
}
