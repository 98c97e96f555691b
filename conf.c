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
#include "ip.h"
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
	OPT_NO_NDP,
	OPT_NO_RA,
	OPT_NO_DHCPV6,
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
		"  -4, --ipv4-only        IPv4 only: no IPv6 for the guest\n"
		"  -6, --ipv6-only        IPv6 only: no IPv4 for the guest\n"
		"  -a, --address ADDR     guest IPv4 or IPv6 address (one of each)\n"
		"  -n, --netmask PREFIX   IPv4 prefix length or dotted netmask\n"
		"  -g, --gateway ADDR     IPv4 or IPv6 gateway seen by the guest\n"
		"  -m, --mtu MTU          MTU of the guest link (%d-%d, default %d)\n"
		"  -t, --tcp-ports SPEC   forward TCP ports to the guest:\n"
		"                         PORT[:TO], FIRST-LAST[:TOFIRST-TOLAST],\n"
		"                         comma-separated, or none\n"
		"  -u, --udp-ports SPEC   same for UDP\n"
		"  -T, -U SPEC            guest-to-host forwarding: only none\n"
		"      --no-map-gw        don't map the gateway to the host's loopback\n"
		"      --no-ndp           no neighbour or router advertisements\n"
		"      --no-ra            no router advertisements\n"
		"      --no-dhcpv6        no DHCPv6 server\n"
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
		"  -D, --dns ADDR         DNS server, IPv4 or IPv6, for DHCP, DHCPv6\n"
		"                         and RAs (repeat; default: resolv.conf)\n"
		"  -S, --search LIST      DNS search list for DHCP (default: resolv.conf)\n"
		"      --no-dhcp-dns, --no-dhcp-search, --no-dhcp\n"
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

/**
 * conf_addr() - parse an IPv4 or IPv6 address into the field of its family
 * @opt:	option name, for the error message
 * @s:		address
 * @a4:		IPv4 address, set if @s is one
 * @a6:		IPv6 address, set if @s is one
 *
 * Return: AF_INET or AF_INET6, whichever was set
 */
static int conf_addr(const char *opt, const char *s, struct in_addr *a4,
		     struct in6_addr *a6)
{
	if (inet_pton(AF_INET, s, a4) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, a6) == 1 && !IN6_IS_ADDR_V4MAPPED(a6))
		return AF_INET6;
	die("Invalid address for %s: %s", opt, s);
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
 * conf_addr_once() - take the guest's address of a family from -a
 * @c:		execution context
 * @s:		IPv4 or IPv6 address
 */
static void conf_addr_once(struct ctx *c, const char *s)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (conf_addr("-a", s, &a4, &a6) == AF_INET) {
		if (c->addr4_set)
			die("Two IPv4 addresses for -a: %s", s);
		c->addr4 = a4;
		c->addr4_set = true;
	} else {
		if (c->addr6_set)
			die("Two IPv6 addresses for -a: %s", s);
		c->addr6 = a6;
		c->addr6_set = true;
	}
}

/**
 * conf_guest_set() - fill in what the options left open from the host
 * @c:		execution context
 * @addr:	the host's address (unspecified if none)
 * @prefix:	its prefix length
 * @gw:		the host's default gateway
 */
static void conf_guest_set(struct ctx *c, const union inany_addr *addr,
			   int prefix, const union inany_addr *gw)
{
	const struct in_addr *a4 = inany_v4(addr), *gw4 = inany_v4(gw);

	if (a4) {
		if (!c->addr4_set)
			c->addr4 = *a4;
		if (!c->prefix4_set)
			c->prefix4 = prefix;
		if (!c->gw4_set)
			c->gw4 = *gw4;
		return;
	}
	if (!c->addr6_set)
		c->addr6 = addr->a6;
	c->prefix6 = prefix;
	if (!c->gw6_set)
		c->gw6 = gw->a6;
}

/**
 * conf_host_family() - copy one family's configuration from the host
 * @c:		execution context
 * @nl:		netlink socket in the host's namespace
 * @family:	AF_INET or AF_INET6
 *
 * The interface of the first default route of IPv4, else of IPv6, is the
 * one pasta names its tap device after.
 */
static void conf_host_family(struct ctx *c, int nl, int family)
{
	union inany_addr gw, addr;
	unsigned int ifi;
	int prefix = 0;

	if (!ip_family_on(c, family) ||
	    nl_default_route(nl, family, &ifi, &gw))
		return;
	if (!c->host_ifi)
		c->host_ifi = ifi;
	if (nl_addr_get(nl, family, ifi, &addr, &prefix))
		addr = family == AF_INET ? gw : (union inany_addr){ 0 };
	if (family == AF_INET && inany_equals(&addr, &gw))
		addr.v4mapped.a4.s_addr = 0;
	conf_guest_set(c, &addr, prefix, &gw);
}

/**
 * conf_family_check() - turn off a family the guest can't have
 * @c:		execution context
 *
 * Without -4 or -6, a family the host has no address or gateway in is off;
 * with them, or if none is left, that is an error.
 */
static void conf_family_check(struct ctx *c)
{
	if (!c->ip4_off && (!c->addr4.s_addr || !c->gw4.s_addr)) {
		if (c->ip6_off || IN6_IS_ADDR_UNSPECIFIED(&c->addr6))
			die(!c->addr4.s_addr ?
			    "No IPv4 address on a host interface with a default route: use -a" :
			    "No IPv4 default gateway on the host: use -g");
		info("No IPv4 address or gateway on the host: IPv6 only");
		c->ip4_off = true;
	}
	if (!c->ip6_off && IN6_IS_ADDR_UNSPECIFIED(&c->addr6)) {
		if (c->ip4_off)
			die("No IPv6 address on a host interface with a default route: use -a");
		debug("No IPv6 address on the host: IPv4 only");
		c->ip6_off = true;
	}
}

/**
 * conf_host_defaults() - take addresses, prefixes and gateways from the host
 * @c:		execution context
 */
static void conf_host_defaults(struct ctx *c)
{
	static const struct in6_addr ll6_default = {
		.s6_addr = { 0xfe, 0x80, [15] = 1 },
	};
	int nl;

	nl = nl_open();
	if (nl < 0)
		die("netlink: %s", strerror(-nl));
	conf_host_family(c, nl, AF_INET);
	conf_host_family(c, nl, AF_INET6);
	close(nl);

	conf_family_check(c);
	if (!c->prefix4)
		c->prefix4 = 24;
	if (!c->prefix6)
		c->prefix6 = 64;
	/* Our link-local address, source of NDP, RAs and DHCPv6: the
	 * gateway's if that is link-local, as the guest then knows it
	 */
	c->ll6_ours = IN6_IS_ADDR_LINKLOCAL(&c->gw6) ? c->gw6 : ll6_default;
	if (IN6_IS_ADDR_UNSPECIFIED(&c->gw6))
		c->gw6 = c->ll6_ours;
	if (!c->ifname[0] &&
	    (!c->host_ifi || !if_indextoname(c->host_ifi, c->ifname)))
		snprintf(c->ifname, sizeof(c->ifname), "tap0");
}

/**
 * conf_dns() - add a DNS server from -D
 * @c:		execution context
 * @s:		IPv4 or IPv6 address, or "none"
 */
static void conf_dns(struct ctx *c, const char *s)
{
	if (!strcmp(s, "none")) {
		c->no_dhcp_dns = true;
		return;
	}
	struct in6_addr a6;
	struct in_addr a4;

	if (conf_addr("-D", s, &a4, &a6) == AF_INET) {
		if (c->dns4_n == DNS4_MAX)
			die("Too many IPv4 DNS servers with -D: at most %d",
			    DNS4_MAX);
		c->dns4[c->dns4_n++] = a4;
	} else {
		if (c->dns6_n == DNS6_MAX)
			die("Too many IPv6 DNS servers with -D: at most %d",
			    DNS6_MAX);
		c->dns6[c->dns6_n++] = a6;
	}
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
		{ "ipv6-only",	no_argument,		NULL, '6' },
		{ "no-dhcp",	no_argument,		NULL, OPT_NO_DHCP },
		{ "dns",	required_argument,	NULL, 'D' },
		{ "search",	required_argument,	NULL, 'S' },
		{ "no-dhcp-dns", no_argument,		NULL, OPT_NO_DHCP_DNS },
		{ "no-dhcp-search", no_argument,	NULL, OPT_NO_DHCP_SEARCH },
		{ "no-ndp",	no_argument,		NULL, OPT_NO_NDP },
		{ "no-dhcpv6",	no_argument,		NULL, OPT_NO_DHCPV6 },
		{ "no-ra",	no_argument,		NULL, OPT_NO_RA },
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
	       (opt = getopt_long(argc, argv, "-fdqP:p:a:n:g:m:t:u:T:U:I:s:F:1h46D:S:",
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
			conf_addr_once(c, optarg);
			break;
		case 'n':
			c->prefix4 = conf_prefix(optarg);
			c->prefix4_set = true;
			break;
		case 'g':
			if (conf_addr("-g", optarg, &c->gw4, &c->gw6) ==
			    AF_INET)
				c->gw4_set = true;
			else
				c->gw6_set = true;
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
			c->ip6_off = true;
			break;
		case '6':
			c->ip4_off = true;
			break;
		case OPT_NO_NDP:
			c->no_ndp = true;
			break;
		case OPT_NO_RA:
			c->no_ra = true;
			break;
		case OPT_NO_DHCPV6:
			c->no_dhcpv6 = true;
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
	if (c->ip4_off && c->ip6_off)
		die("-4 and -6 together leave no family: pick one");
	if (c->cmd && (c->netns_path[0] || c->target_pid))
		die("A command and a namespace to join (%s): pick one",
		    c->target_pid ? "PID" : "--netns");

	conf_host_defaults(c);
	/* The namespace's addresses and routes are set: an RA would only
	 * make its kernel add a SLAAC address of its own
	 */
	if (c->mode == MODE_PASTA && c->config_net)
		c->no_ra = true;
	/* What DHCP, DHCPv6 and RAs hand out */
	if (!c->no_dhcp || !c->no_dhcpv6 || !c->no_ra)
		dhcp_conf_resolv(c);
}
