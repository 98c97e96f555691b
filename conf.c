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
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "bypass.h"
#include "conf.h"
#include "dhcp.h"
#include "dns.h"
#include "follow.h"
#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "ndp.h"
#include "netlink.h"
#include "passt.h"
#include "resolv.h"
#include "vhost_user.h"

/* Long options without a short form: values above any character */
enum {
	OPT_CONFIG_NET = 256,
	OPT_VERSION,
	OPT_NETNS,
	OPT_USERNS,
	OPT_NO_MAP_GW,
	OPT_NO_DHCP,
	OPT_NO_DHCP_DNS,
	OPT_NO_DHCP_SEARCH,
	OPT_DHCP_DNS,
	OPT_DHCP_SEARCH,
	OPT_NO_NDP,
	OPT_NO_RA,
	OPT_NO_DHCPV6,
	OPT_NO_TCP,
	OPT_NO_UDP,
	OPT_NO_ICMP,
	OPT_FREEBIND,
	OPT_NETNS_ONLY,
	OPT_NO_NETNS_QUIT,
	OPT_NO_SPLICE,
	OPT_TRACE,
	OPT_NO_OP,		/* deprecated, or what we do anyway */
	OPT_LOG_SIZE,
	OPT_RUNAS,
	OPT_STATS,
	OPT_FQDN,
	OPT_DNS_FORWARD,
	OPT_DNS_HOST,
	OPT_MAP_HOST_LOOPBACK,
	OPT_MAP_GUEST_ADDR,
	OPT_OUTBOUND_IF4,
	OPT_OUTBOUND_IF6,
	OPT_NS_MAC_ADDR,
	OPT_NO_FOLLOW_HOST,
	OPT_VHOST_USER,
	OPT_PRINT_CAPABILITIES,
	OPT_HOST_LO_TO_NS_LO,
	OPT_REPAIR_PATH,
	OPT_MIGRATE_EXIT,
	OPT_MIGRATE_NO_LINGER,
	OPT_BYPASS,
	OPT_BYPASS_AGENT,
};

/* Options that only set a flag */
static const struct {
	int opt;
	size_t off;
} conf_flags[] = {
	{ OPT_NO_MAP_GW,	offsetof(struct ctx, no_map_gw) },
	{ OPT_NO_DHCP,		offsetof(struct ctx, no_dhcp) },
	{ OPT_NO_NDP,		offsetof(struct ctx, no_ndp) },
	{ OPT_NO_RA,		offsetof(struct ctx, no_ra) },
	{ OPT_NO_DHCPV6,	offsetof(struct ctx, no_dhcpv6) },
	{ OPT_NO_TCP,		offsetof(struct ctx, no_tcp) },
	{ OPT_NO_UDP,		offsetof(struct ctx, no_udp) },
	{ OPT_NO_ICMP,		offsetof(struct ctx, no_icmp) },
	{ OPT_FREEBIND,		offsetof(struct ctx, freebind) },
	{ OPT_NETNS_ONLY,	offsetof(struct ctx, netns_only) },
	{ OPT_NO_NETNS_QUIT,	offsetof(struct ctx, no_netns_quit) },
	{ OPT_NO_SPLICE,	offsetof(struct ctx, no_splice) },
	{ OPT_HOST_LO_TO_NS_LO,	offsetof(struct ctx, host_lo_to_ns_lo) },
	{ OPT_NO_FOLLOW_HOST,	offsetof(struct ctx, no_follow_host) },
	{ OPT_CONFIG_NET,	offsetof(struct ctx, config_net) },
	{ 'f',			offsetof(struct ctx, foreground) },
	{ 'q',			offsetof(struct ctx, quiet) },
	{ '1',			offsetof(struct ctx, one_off) },
	{ OPT_VHOST_USER,	offsetof(struct ctx, vhost_user) },
	{ OPT_MIGRATE_EXIT,	offsetof(struct ctx, migrate_exit) },
	{ OPT_MIGRATE_NO_LINGER, offsetof(struct ctx, migrate_no_linger) },
	{ '4',			offsetof(struct ctx, net.ip6_off) },
	{ '6',			offsetof(struct ctx, net.ip4_off) },
};

#define OPTSTRING	"-fdqeP:p:a:n:g:m:t:u:T:U:I:s:F:1h46D:S:l:M:i:o:H:c:"

static const struct option conf_opts[] = {
	{ "foreground",	no_argument,		NULL, 'f' },
	{ "debug",	no_argument,		NULL, 'd' },
	{ "trace",	no_argument,		NULL, OPT_TRACE },
	{ "quiet",	no_argument,		NULL, 'q' },
	{ "stderr",	no_argument,		NULL, 'e' },
	{ "log-file",	required_argument,	NULL, 'l' },
	{ "log-size",	required_argument,	NULL, OPT_LOG_SIZE },
	{ "runas",	required_argument,	NULL, OPT_RUNAS },
	{ "stats",	required_argument,	NULL, OPT_STATS },
	{ "pid",	required_argument,	NULL, 'P' },
	{ "pcap",	required_argument,	NULL, 'p' },
	{ "address",	required_argument,	NULL, 'a' },
	{ "netmask",	required_argument,	NULL, 'n' },
	{ "gateway",	required_argument,	NULL, 'g' },
	{ "mac-addr",	required_argument,	NULL, 'M' },
	{ "interface",	required_argument,	NULL, 'i' },
	{ "outbound",	required_argument,	NULL, 'o' },
	{ "outbound-if4", required_argument,	NULL, OPT_OUTBOUND_IF4 },
	{ "outbound-if6", required_argument,	NULL, OPT_OUTBOUND_IF6 },
	{ "mtu",	required_argument,	NULL, 'm' },
	{ "tcp-ports",	required_argument,	NULL, 't' },
	{ "udp-ports",	required_argument,	NULL, 'u' },
	{ "tcp-ns",	required_argument,	NULL, 'T' },
	{ "udp-ns",	required_argument,	NULL, 'U' },
	{ "ns-ifname",	required_argument,	NULL, 'I' },
	{ "ns-mac-addr", required_argument,	NULL, OPT_NS_MAC_ADDR },
	{ "socket",	required_argument,	NULL, 's' },
	{ "conf-path",	required_argument,	NULL, 'c' },
	{ "fd",		required_argument,	NULL, 'F' },
	{ "one-off",	no_argument,		NULL, '1' },
	{ "vhost-user",	no_argument,		NULL, OPT_VHOST_USER },
	{ "print-capabilities", no_argument,	NULL, OPT_PRINT_CAPABILITIES },
	{ "repair-path", required_argument,	NULL, OPT_REPAIR_PATH },
	{ "migrate-exit", no_argument,		NULL, OPT_MIGRATE_EXIT },
	{ "migrate-no-linger", no_argument,	NULL, OPT_MIGRATE_NO_LINGER },
	{ "bypass",	optional_argument,	NULL, OPT_BYPASS },
	{ "bypass-agent", required_argument,	NULL, OPT_BYPASS_AGENT },
	{ "config-net",	no_argument,		NULL, OPT_CONFIG_NET },
	{ "netns",	required_argument,	NULL, OPT_NETNS },
	{ "userns",	required_argument,	NULL, OPT_USERNS },
	{ "netns-only",	no_argument,		NULL, OPT_NETNS_ONLY },
	{ "no-netns-quit", no_argument,		NULL, OPT_NO_NETNS_QUIT },
	{ "no-map-gw",	no_argument,		NULL, OPT_NO_MAP_GW },
	{ "no-follow-host", no_argument,	NULL, OPT_NO_FOLLOW_HOST },
	{ "map-host-loopback", required_argument, NULL, OPT_MAP_HOST_LOOPBACK },
	{ "map-guest-addr", required_argument,	NULL, OPT_MAP_GUEST_ADDR },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ "help",	no_argument,		NULL, 'h' },
	{ "ipv4-only",	no_argument,		NULL, '4' },
	{ "ipv6-only",	no_argument,		NULL, '6' },
	{ "no-tcp",	no_argument,		NULL, OPT_NO_TCP },
	{ "no-udp",	no_argument,		NULL, OPT_NO_UDP },
	{ "no-icmp",	no_argument,		NULL, OPT_NO_ICMP },
	{ "no-dhcp",	no_argument,		NULL, OPT_NO_DHCP },
	{ "dns",	required_argument,	NULL, 'D' },
	{ "dns-forward", required_argument,	NULL, OPT_DNS_FORWARD },
	{ "dns-host",	required_argument,	NULL, OPT_DNS_HOST },
	{ "search",	required_argument,	NULL, 'S' },
	{ "hostname",	required_argument,	NULL, 'H' },
	{ "fqdn",	required_argument,	NULL, OPT_FQDN },
	{ "no-dhcp-dns", no_argument,		NULL, OPT_NO_DHCP_DNS },
	{ "no-dhcp-search", no_argument,	NULL, OPT_NO_DHCP_SEARCH },
	{ "dhcp-dns",	no_argument,		NULL, OPT_DHCP_DNS },
	{ "dhcp-search", no_argument,		NULL, OPT_DHCP_SEARCH },
	{ "no-ndp",	no_argument,		NULL, OPT_NO_NDP },
	{ "no-dhcpv6",	no_argument,		NULL, OPT_NO_DHCPV6 },
	{ "no-ra",	no_argument,		NULL, OPT_NO_RA },
	{ "freebind",	no_argument,		NULL, OPT_FREEBIND },
	{ "no-splice",	no_argument,		NULL, OPT_NO_SPLICE },
	{ "host-lo-to-ns-lo", no_argument,	NULL, OPT_HOST_LO_TO_NS_LO },
	{ "no-copy-routes", no_argument,	NULL, OPT_NO_OP },
	{ "no-copy-addrs", no_argument,		NULL, OPT_NO_OP },
	{ 0 },
};


static void usage(const char *name, FILE *f, int status)
{
	fprintf(f,
		"Usage: %s [OPTION]... [PID | --netns PATH|NAME] [-- COMMAND [ARG]...]\n"
		"\n"
		"  -f, --foreground       stay in the foreground\n"
		"  -d, --debug, --trace   debug messages (imply -f)\n"
		"  -q, --quiet            errors and warnings only\n"
		"  -l, --log-file PATH    log to PATH instead of standard error\n"
		"      --log-size BYTES   the most the log file holds: the oldest\n"
		"                         lines go first (default 1 MiB)\n"
		"  -e, --stderr           accepted (we log to standard error anyway)\n"
		"      --runas UID[:GID]  started as root, continue as this user\n"
		"                         (names or numbers; default nobody)\n"
		"      --stats DELAY      log event counters every DELAY seconds\n"
		"  -P, --pid FILE         write our PID to FILE\n"
		"  -p, --pcap FILE        capture frames to FILE (pcap)\n"
		"  -4, --ipv4-only        IPv4 only: no IPv6 for the guest\n"
		"  -6, --ipv6-only        IPv6 only: no IPv4 for the guest\n"
		"  -a, --address ADDR     guest IPv4 or IPv6 address (one of each)\n"
		"  -n, --netmask PREFIX   IPv4 prefix length or dotted netmask\n"
		"  -g, --gateway ADDR     IPv4 or IPv6 gateway seen by the guest\n"
		"  -M, --mac-addr MAC     our MAC address, the guest's gateway's\n"
		"  -i, --interface NAME   host interface to copy addresses from\n"
		"  -o, --outbound ADDR    bind host sockets to ADDR (one per family)\n"
		"      --outbound-if4 NAME, --outbound-if6 NAME\n"
		"                         bind host sockets to a device\n"
		"  -m, --mtu MTU          MTU of the guest link (%d-%d, default %d;\n"
		"                         0: tell the guest none)\n"
		"  -t, --tcp-ports SPEC   forward TCP ports to the guest, repeatable:\n"
		"                         [ADDR[%%IFNAME]/]PORTS, PORTS comma-separated\n"
		"                         PORT[:TO], FIRST-LAST[:TOFIRST-TOLAST] and\n"
		"                         ~FIRST[-LAST] excludes; all (passt), none,\n"
		"                         auto (pasta, its default: the ports the\n"
		"                         namespace listens on, followed each second);\n"
		"                         a target address: PORTS:TADDR[/TOPORTS]\n"
		"  -u, --udp-ports SPEC   same for UDP\n"
		"  -c, --conf-path PATH   control socket: pesto(1) changes the\n"
		"                         forwarding rules at run time\n"
		"  -D, --dns ADDR         DNS server, IPv4 or IPv6, for DHCP, DHCPv6\n"
		"                         and RAs (repeat; default: resolv.conf)\n"
		"      --dns-forward ADDR DNS queries to ADDR go to the host's resolver\n"
		"      --dns-host ADDR    that resolver (default: resolv.conf's, the\n"
		"                         first that answers)\n"
		"  -S, --search LIST      DNS search list (default: resolv.conf)\n"
		"      --no-follow-host   read the host's addresses, routes and\n"
		"                         resolv.conf at start-up only\n"
		"  -H, --hostname NAME    host name for DHCP (option 12)\n"
		"      --fqdn NAME        fully qualified name for DHCP (option\n"
		"                         81) and DHCPv6 (option 39)\n"
		"      --no-map-gw        don't map the gateway to the host's loopback\n"
		"      --map-host-loopback ADDR\n"
		"                         ADDR, not the gateway, is the host's loopback\n"
		"      --map-guest-addr ADDR\n"
		"                         ADDR is the host's own address\n"
		"      --no-tcp, --no-udp, --no-icmp\n"
		"                         drop the guest's TCP, UDP, ICMP/ICMPv6\n"
		"      --no-dhcp          no DHCP server\n"
		"      --no-ndp           no neighbour or router advertisements\n"
		"      --no-ra            no router advertisements\n"
		"      --no-dhcpv6        no DHCPv6 server\n"
		"      --freebind         bind forwarded ports to any address\n"
		"pasta only:\n"
		"      --config-net       configure the namespace's interface like the\n"
		"                         host's default-route one\n"
		"  -I, --ns-ifname NAME   tap device name in the namespace\n"
		"      --ns-mac-addr MAC  its MAC address\n"
		"      --netns PATH|NAME  join this network namespace (NAME: /run/netns)\n"
		"      --userns PATH      join this user namespace first\n"
		"      --netns-only       don't join the target's user namespace\n"
		"      --no-netns-quit    don't exit when the namespace goes away\n"
		"      --dhcp-dns, --dhcp-search\n"
		"                         hand out the name servers, the search list\n"
		"                         (default: neither)\n"
		"  -T, --tcp-ns SPEC      forward TCP ports of the namespace's\n"
		"                         loopback to the host's, SPEC as -t; auto\n"
		"                         (default): the ports the host listens on\n"
		"  -U, --udp-ns SPEC      same for UDP\n"
		"      --no-splice        host loopback clients of -t and -u ports\n"
		"                         through the tap, from the gateway, not\n"
		"                         spliced to the namespace's address\n"
		"      --host-lo-to-ns-lo clients of the host's loopback addresses\n"
		"                         reach the same ones in the namespace\n"
		"      --bypass[=SPEC]    the command's TCP connections made on the\n"
		"                         host and handed over, to destinations\n"
		"                         the tap reaches as they are; SPEC: only\n"
		"                         these, a comma-separated list of\n"
		"                         ADDR[/PREFIX] and PORT[-PORT]\n"
		"      --bypass-agent PATH  the same for containers: seccomp\n"
		"                         listeners a container runtime sends to\n"
		"                         PATH (its profile's listenerPath)\n"
		"passt only:\n"
		"  -s, --socket PATH      UNIX socket path\n"
		"  -F, --fd FD            already connected guest socket\n"
		"  -1, --one-off          quit when the guest disconnects\n"
		"      --vhost-user       the guest's virtio rings, through\n"
		"                         vhost-user on the socket (QEMU, libvirt)\n"
		"      --print-capabilities\n"
		"                         what vhost-user back-ends tell libvirt\n"
		"      --repair-path PATH path for passt-repair(1), default: the\n"
		"                         socket's, with .repair appended\n"
		"      --migrate-exit     after the guest migrated away, exit\n"
		"      --migrate-no-linger\n"
		"                         after the target took our sockets,\n"
		"                         close ours: no way back if the move\n"
		"                         fails\n"
		"      --no-dhcp-dns, --no-dhcp-search\n"
		"                         hand out no name servers, no search list\n"
		"Accepted, and what we do anyway: --no-copy-routes,\n"
		"  --no-copy-addrs\n"
		"      --version          print the version\n"
		"  -h, --help             this text\n",
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
 * conf_bypass_net() - an address range of --bypass, ADDR[/PREFIX]
 * @net:	range, set
 * @s:		text
 *
 * Return: 0 on success, -1 if it isn't one
 */
static int conf_bypass_net(struct bypass_net *net, const char *s)
{
	char buf[INET6_ADDRSTRLEN + 5], *slash;
	unsigned long prefix;
	struct in_addr a4;
	int max = 128;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, &a4) == 1) {
		inany_from_v4(&net->addr, a4);
		max = 32;
	} else if (inet_pton(AF_INET6, buf, &net->addr.a6) != 1) {
		return -1;
	}
	if (!slash) {
		prefix = max;
	} else if (conf_ulong(slash + 1, 0, max, &prefix)) {
		return -1;
	}
	net->prefix = (int)prefix + 128 - max;
	return 0;
}

/**
 * conf_bypass_ports() - a port range of --bypass, PORT[-PORT]
 * @p:		range, set
 * @s:		text
 *
 * Return: 0 on success, -1 if it isn't one
 */
static int conf_bypass_ports(struct bypass_ports *p, const char *s)
{
	char buf[16], *dash;
	unsigned long first, last;

	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf))
		return -1;
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	if (conf_ulong(buf, 1, USHRT_MAX, &first))
		return -1;
	last = first;
	if (dash && conf_ulong(dash + 1, first, USHRT_MAX, &last))
		return -1;
	p->first = first;
	p->last = last;
	return 0;
}

/**
 * conf_bypass() - what --bypass=SPEC names
 * @spec:	lists, set
 * @arg:	SPEC: items separated by commas, each an address range
 *		(ADDR[/PREFIX], IPv4 or IPv6) or a port range (PORT[-PORT]);
 *		NULL for all connections
 *
 * Return: 0 on success, -1 on a bad item or too many
 */
static int conf_bypass(struct bypass_spec *spec, const char *arg)
{
	char buf[1024], *item, *save;

	memset(spec, 0, sizeof(*spec));
	if (!arg)
		return 0;
	if (snprintf(buf, sizeof(buf), "%s", arg) >= (int)sizeof(buf) ||
	    !*buf)
		return -1;
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (strpbrk(item, ".:")) {
			if (spec->nets_n == BYPASS_NETS_MAX ||
			    conf_bypass_net(&spec->nets[spec->nets_n++], item))
				return -1;
		} else if (spec->ports_n == BYPASS_PORTS_MAX ||
			   conf_bypass_ports(&spec->ports[spec->ports_n++],
					      item)) {
			return -1;
		}
	}
	return 0;
}

/**
 * conf_for_mode() - refuse an option of the other mode
 * @c:		execution context
 * @mode:	the mode the option is for
 * @opt:	option name
 */
static void conf_for_mode(const struct ctx *c, enum mode mode,
			  const char *opt)
{
	if (c->mode != mode)
		die("%s is for %s only", opt,
		    mode == MODE_PASTA ? "pasta" : "passt");
}

/* Per side and protocol: an option was given, even "none" */
static bool conf_fwd_given[FWD_PIFS][2];

/**
 * conf_fwd() - add the rules of a -t, -u, -T or -U option
 * @c:		execution context
 * @opt:	't', 'u', 'T' or 'U'
 * @spec:	the option's value
 */
static void conf_fwd(struct ctx *c, int opt, const char *spec)
{
	enum fwd_pif pif = opt == 't' || opt == 'u' ? FWD_IN : FWD_OUT;
	uint8_t proto = opt == 't' || opt == 'T' ? IPPROTO_TCP : IPPROTO_UDP;
	unsigned int opts = c->mode == MODE_PASST ? FWD_SPEC_ALL :
						    FWD_SPEC_AUTO;
	char name[] = "-?", err[FWD_ERR_LEN];

	name[1] = (char)opt;
	if (!strcmp(spec, "auto")) {
		char what[] = "-? auto";

		what[1] = (char)opt;
		conf_for_mode(c, MODE_PASTA, what);
	}
	if (pif == FWD_OUT) {
		conf_for_mode(c, MODE_PASTA, name);
		opts |= FWD_SPEC_LOOPBACK;
	}
	conf_fwd_given[pif][proto == IPPROTO_UDP] = true;
	if (fwd_spec_parse(c->fwd[pif], proto, spec, opts, fwd_ephemeral(),
			   err, sizeof(err)))
		die("%s %s: %s", name, spec, err);
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
		c->net.addr4 = a4;
		c->addr4_set = true;
	} else {
		if (c->addr6_set)
			die("Two IPv6 addresses for -a: %s", s);
		c->net.addr6 = a6;
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
			c->net.addr4 = *a4;
		if (!c->prefix4_set)
			c->net.prefix4 = prefix;
		if (!c->gw4_set)
			c->net.gw4 = *gw4;
		return;
	}
	if (!c->addr6_set)
		c->net.addr6 = addr->a6;
	c->net.prefix6 = prefix;
	if (!c->gw6_set)
		c->net.gw6 = gw->a6;
}

/**
 * conf_host_family() - copy one family's configuration from the host
 * @c:		execution context
 * @nl:		netlink socket in the host's namespace
 * @family:	AF_INET or AF_INET6
 *
 * The interface of the first default route of IPv4, else of IPv6, is the
 * one pasta names its tap device after; -i picks another one, whose
 * gateway is the default route's only if that goes through it.
 */
static void conf_host_family(struct ctx *c, int nl, int family)
{
	struct host_fam h;

	if (family == AF_INET ? c->net.ip4_off : c->net.ip6_off)
		return;
	if (c->host_ifname[0] && nl_link_index(nl, c->host_ifname) <= 0)
		die("No interface %s for -i", c->host_ifname);
	follow_host_read(c, nl, family, NULL, &h);
	if (!h.ifi)
		return;
	if (!c->host_ifi)
		c->host_ifi = h.ifi;
	conf_guest_set(c, &h.addr, h.prefix, &h.gw);
}

/**
 * conf_local() - link-local configuration: the host has none to copy
 * @c:		execution context
 *
 * Without a default route and an address in either family, the guest
 * starts with link-local addresses (IPv4 169.254.2.1/16 through
 * 169.254.2.2, IPv6 link-local only), what -a and -g don't set, and
 * follow.c completes the configuration once the host has one.
 */
static void conf_local(struct ctx *c)
{
	struct guest_fam g;

	info("No default route with an address on the host: link-local "
	     "addresses%s", c->no_follow_host ? "" :
	     ", until the host has a route");
	if (!c->net.ip4_off) {
		follow_local(AF_INET, &g, &in6addr_any);
		if (!c->addr4_set)
			c->net.addr4 = *inany_v4(&g.addr);
		if (!c->prefix4_set)
			c->net.prefix4 = g.prefix;
		if (!c->gw4_set)
			c->net.gw4 = *inany_v4(&g.gw);
	}
	if (!c->net.ip6_off && !c->gw6_set)
		c->net.gw6 = in6addr_any;	/* our link-local one, below */
}

/**
 * conf_family_check() - turn off a family the guest can't have
 * @c:		execution context
 *
 * Without -4 or -6, a family the host has no address or gateway in is off,
 * as long as the other one works, until the host has them (follow.c); with
 * neither, link-local addresses.
 */
static void conf_family_check(struct ctx *c)
{
	bool v4 = !c->net.ip4_off && c->net.addr4.s_addr && c->net.gw4.s_addr;
	bool v6 = !c->net.ip6_off && !IN6_IS_ADDR_UNSPECIFIED(&c->net.addr6);

	if (!v4 && !v6) {
		conf_local(c);
		return;
	}
	if (!c->net.ip4_off && !v4) {
		info("No IPv4 address or gateway on the host: IPv6 only%s",
		     c->no_follow_host ? "" : ", until the host has them");
		c->net.ip4_off = true;
		c->net.ip4_wait = !c->no_follow_host;
	}
	if (!c->net.ip6_off && !v6) {
		debug("No IPv6 address on the host: IPv4 only%s",
		      c->no_follow_host ? "" : ", until the host has one");
		c->net.ip6_off = true;
		c->net.ip6_wait = !c->no_follow_host;
	}
}

/**
 * conf_map_defaults() - what the guest reaches the host and DNS through
 * @c:		execution context
 *
 * The gateway stands for the host's loopback, in each family that
 * --map-host-loopback gives no address for, unless --no-map-gw (or
 * --map-host-loopback none); with --dns-forward and no -D of its family, the
 * guest is told to use the --dns-forward address (DHCP, DHCPv6, RAs).
 */
static void conf_map_defaults(struct ctx *c)
{
	struct dns_offer *opt = &c->dns_opt;
	struct guest_net *n = &c->net;

	if (!c->no_map_gw) {
		/* A family that comes on later (follow.c) takes it then */
		c->map_host_lo_is_gw[INANY_V4] =
			!inany_is_set(&n->map_host_lo[INANY_V4]);
		c->map_host_lo_is_gw[INANY_V6] =
			!inany_is_set(&n->map_host_lo[INANY_V6]);
		if (c->map_host_lo_is_gw[INANY_V4] && !n->ip4_off)
			inany_from_v4(&n->map_host_lo[INANY_V4], n->gw4);
		if (c->map_host_lo_is_gw[INANY_V6] && !n->ip6_off)
			n->map_host_lo[INANY_V6].a6 = n->gw6;
	}
	if (inany_is_set(&c->dns_match[INANY_V4]) && !opt->dns4_n)
		opt->dns4[opt->dns4_n++] = *inany_v4(&c->dns_match[INANY_V4]);
	if (inany_is_set(&c->dns_match[INANY_V6]) && !opt->dns6_n)
		opt->dns6[opt->dns6_n++] = c->dns_match[INANY_V6].a6;
}

/**
 * conf_ll6() - our link-local address: the router of NDP, RAs and DHCPv6
 * @c:		execution context
 * @host_ll:	the host's link-local address on the template interface, or
 *		unspecified if it has none
 *
 * As upstream: the gateway's if that is link-local, as the guest then knows
 * it; else the host's own, so that the guest's router is an address the
 * host really has there (upstream's "our_tap_ll"); else, without one (a
 * link-local start, a tunnel device), fe80::1, upstream's local mode value.
 * Without a gateway, the guest routes through this address.
 */
static void conf_ll6(struct ctx *c, const struct in6_addr *host_ll)
{
	static const struct in6_addr ll6_default = {
		.s6_addr = { 0xfe, 0x80, [15] = 1 },
	};

	if (IN6_IS_ADDR_LINKLOCAL(&c->net.gw6))
		c->net.ll6_ours = c->net.gw6;
	else if (IN6_IS_ADDR_LINKLOCAL(host_ll))
		c->net.ll6_ours = *host_ll;
	else
		c->net.ll6_ours = ll6_default;
	if (IN6_IS_ADDR_UNSPECIFIED(&c->net.gw6))
		c->net.gw6 = c->net.ll6_ours;
}

/**
 * conf_host_defaults() - take addresses, prefixes and gateways from the host
 * @c:		execution context
 */
static void conf_host_defaults(struct ctx *c)
{
	struct in6_addr host_ll = IN6ADDR_ANY_INIT;
	int nl;

	nl = nl_open();
	if (nl < 0)
		die("netlink: %s", strerror(-nl));
	conf_host_family(c, nl, AF_INET);
	conf_host_family(c, nl, AF_INET6);
	if (c->host_ifi && nl_addr_get_ll(nl, c->host_ifi, &host_ll))
		host_ll = in6addr_any;
	close(nl);

	conf_family_check(c);
	if (!c->net.prefix4)
		c->net.prefix4 = 24;
	if (!c->net.prefix6)
		c->net.prefix6 = 64;
	conf_ll6(c, &host_ll);
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
	struct dns_offer *opt = &c->dns_opt;
	struct in6_addr a6;
	struct in_addr a4;

	c->no_dns = !strcmp(s, "none");	/* the last -D decides */
	if (c->no_dns)
		return;
	if (conf_addr("-D", s, &a4, &a6) == AF_INET) {
		if (opt->dns4_n == DNS4_MAX)
			die("Too many IPv4 DNS servers with -D: at most %d",
			    DNS4_MAX);
		opt->dns4[opt->dns4_n++] = a4;
	} else {
		if (opt->dns6_n == DNS6_MAX)
			die("Too many IPv6 DNS servers with -D: at most %d",
			    DNS6_MAX);
		opt->dns6[opt->dns6_n++] = a6;
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
	struct dns_offer *opt = &c->dns_opt;

	opt->search_n = 0;
	c->no_dns_search = !strcmp(s, "none");	/* the last -S decides */
	if (c->no_dns_search)
		return;
	if (strlen(s) >= sizeof(buf))
		die("Search list too long for -S: %s", s);
	strcpy(buf, s);
	for (d = strtok_r(buf, " ,", &save); d; d = strtok_r(NULL, " ,", &save)) {
		if (opt->search_n == DNS_SEARCH_MAX ||
		    strlen(d) >= DNS_NAME_MAX)
			die("Invalid search list for -S: %s", s);
		strcpy(opt->search[opt->search_n++], d);
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
 * conf_flag() - set the flag of an option that only sets one
 * @c:		execution context
 * @opt:	option
 *
 * Return: true if @opt is such an option
 */
static bool conf_flag(struct ctx *c, int opt)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(conf_flags); i++) {
		if (conf_flags[i].opt == opt) {
			*(bool *)((char *)c + conf_flags[i].off) = true;
			return true;
		}
	}
	return false;
}

/**
 * conf_addr_inany() - parse an address of either family
 * @opt:	option name, for the error message
 * @s:		address
 * @a:		address, set
 */
static void conf_addr_inany(const char *opt, const char *s,
			    union inany_addr *a)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (conf_addr(opt, s, &a4, &a6) == AF_INET)
		inany_from_v4(a, a4);
	else
		a->a6 = a6;
}

/**
 * conf_addr_pair() - an option taking one address per family
 * @opt:	option name, for the error message
 * @s:		address
 * @pair:	addresses, [INANY_V4] and [INANY_V6]: the family's is set
 */
static void conf_addr_pair(const char *opt, const char *s,
			   union inany_addr pair[INANY_FAMILIES])
{
	union inany_addr a;

	conf_addr_inany(opt, s, &a);
	pair[inany_idx(&a)] = a;
}

/**
 * conf_mac() - parse a MAC address
 * @opt:	option name, for the error message
 * @s:		six hexadecimal bytes separated by colons
 * @mac:	address, set
 */
static void conf_mac(const char *opt, const char *s, uint8_t *mac)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	/* Exactly xx:xx:xx:xx:xx:xx, two hexadecimal digits each */
	for (i = 0; i < ETH_ADDR_LEN * 3 - 1; i++) {
		char ch = s[i] | 0x20;	/* lower case, and ':' stays ':' */

		if (i % 3 == 2 ? s[i] != ':' : !ch || !strchr(hex, ch))
			die("Invalid MAC address for %s: %s", opt, s);
	}
	if (s[i])
		die("Invalid MAC address for %s: %s", opt, s);
	for (i = 0; i < ETH_ADDR_LEN; i++)
		mac[i] = (strchr(hex, s[i * 3] | 0x20) - hex) << 4 |
			 (strchr(hex, s[i * 3 + 1] | 0x20) - hex);
}

static void conf_ifname(const char *opt, const char *s, char *dst)
{
	if (!*s || strlen(s) >= IFNAMSIZ)
		die("Invalid interface name for %s: %s", opt, s);
	strcpy(dst, s);
}

/**
 * conf_option_net() - an option about addresses, names and links
 * @c:		execution context
 * @opt:	option
 * @arg:	its value
 *
 * Return: false if @opt is not one of these
 */
static bool conf_option_net(struct ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'a':
		conf_addr_once(c, arg);
		break;
	case 'n':
		c->net.prefix4 = conf_prefix(arg);
		c->prefix4_set = true;
		break;
	case 'g':
		if (conf_addr("-g", arg, &c->net.gw4, &c->net.gw6) == AF_INET)
			c->gw4_set = true;
		else
			c->gw6_set = true;
		break;
	case 'M':
		conf_mac("-M", arg, c->mac_ours);
		break;
	case OPT_NS_MAC_ADDR:
		conf_for_mode(c, MODE_PASTA, "--ns-mac-addr");
		conf_mac("--ns-mac-addr", arg, c->ns_mac);
		c->ns_mac_set = true;
		break;
	case 'i':
		conf_ifname("-i", arg, c->host_ifname);
		break;
	case 'o':
		conf_addr_pair("-o", arg, c->outbound);
		break;
	case OPT_OUTBOUND_IF4:
	case OPT_OUTBOUND_IF6:
		conf_ifname(opt == OPT_OUTBOUND_IF4 ? "--outbound-if4" :
						      "--outbound-if6", arg,
			    c->outbound_if[opt == OPT_OUTBOUND_IF6]);
		break;
	case 'D':
		conf_dns(c, arg);
		break;
	case OPT_DNS_FORWARD:
		conf_addr_pair("--dns-forward", arg, c->dns_match);
		break;
	case OPT_DNS_HOST:
		conf_addr_inany("--dns-host", arg, &c->dns_host);
		break;
	case OPT_MAP_HOST_LOOPBACK:
		if (!strcmp(arg, "none")) {	/* as --no-map-gw */
			c->no_map_gw = true;
			memset(c->net.map_host_lo, 0, sizeof(c->net.map_host_lo));
		} else {
			conf_addr_pair("--map-host-loopback", arg,
				       c->net.map_host_lo);
		}
		break;
	case OPT_MAP_GUEST_ADDR:
		conf_addr_pair("--map-guest-addr", arg, c->map_guest);
		break;
	case 'S':
		conf_search(c, arg);
		break;
	case OPT_DHCP_DNS:
		conf_for_mode(c, MODE_PASTA, "--dhcp-dns");
		c->no_dhcp_dns = false;
		break;
	case OPT_DHCP_SEARCH:
		conf_for_mode(c, MODE_PASTA, "--dhcp-search");
		c->no_dhcp_search = false;
		break;
	case OPT_NO_DHCP_DNS:
		conf_for_mode(c, MODE_PASST, "--no-dhcp-dns");
		c->no_dhcp_dns = true;
		break;
	case OPT_NO_DHCP_SEARCH:
		conf_for_mode(c, MODE_PASST, "--no-dhcp-search");
		c->no_dhcp_search = true;
		break;
	case 'H':
		conf_path("-H", arg, c->hostname, sizeof(c->hostname));
		break;
	case OPT_FQDN: {
		uint8_t wire[DNS_WIRE_NAME_MAX];

		if (strlen(arg) >= sizeof(c->fqdn) ||
		    !dns_name_encode(arg, wire, sizeof(wire)))
			die("Invalid name for --fqdn: %s", arg);
		strcpy(c->fqdn, arg);
		break;
	}
	default:
		return false;
	}
	return true;
}

/**
 * conf_netns() - the namespace to join: a path, or a name under /run/netns
 * @c:		execution context
 * @arg:	PATH or NAME
 */
static void conf_netns(struct ctx *c, const char *arg)
{
	if (strchr(arg, '/')) {
		conf_path("--netns", arg, c->netns_path,
			  sizeof(c->netns_path));
		return;
	}
	if (!*arg || (size_t)snprintf(c->netns_path, sizeof(c->netns_path),
				      "/run/netns/%s", arg) >=
		     sizeof(c->netns_path))
		die("Invalid namespace name for --netns: %s", arg);
}

/**
 * conf_runas_id() - a user or group, by name or number
 * @s:		name or number
 * @group:	@s names a group
 * @id:		the ID, set
 * @gid:	the user's primary group, set if @s is a user's name
 *
 * Return: 0 on success, -1 if there is no such user or group
 */
static int conf_runas_id(const char *s, bool group, unsigned int *id,
			 gid_t *gid)
{
	unsigned long v;

	if (!conf_ulong(s, 0, UINT_MAX - 1, &v)) {
		*id = v;
		return 0;
	}
	if (group) {
		const struct group *gr = getgrnam(s);

		if (!gr)
			return -1;
		*id = gr->gr_gid;
	} else {
		const struct passwd *pw = getpwnam(s);

		if (!pw)
			return -1;
		*id = pw->pw_uid;
		*gid = pw->pw_gid;
	}
	return 0;
}

/**
 * conf_runas() - parse --runas UID[:GID], names or numbers
 * @c:		execution context
 * @arg:	the option's value
 *
 * Without a group, a user's name brings its primary group, a number the
 * group of the same number.
 */
static void conf_runas(struct ctx *c, const char *arg)
{
	char user[LOGIN_NAME_MAX], *group;
	unsigned int uid, gid = UINT_MAX;
	gid_t pw_gid = UINT_MAX;

	if (!*arg || strlen(arg) >= sizeof(user))
		die("Invalid user for --runas: '%s'", arg);
	strcpy(user, arg);
	group = strchr(user, ':');
	if (group)
		*group++ = 0;
	if (conf_runas_id(user, false, &uid, &pw_gid) ||
	    (group && conf_runas_id(group, true, &gid, NULL)))
		die("Invalid user for --runas: '%s'", arg);
	c->runas_uid = uid;
	c->runas_gid = group ? gid : pw_gid != UINT_MAX ? pw_gid : uid;
	c->runas_set = true;
}

/**
 * conf_option_run() - an option about how and where we run
 * @c:		execution context
 * @opt:	option
 * @arg:	its value
 *
 * Return: false if @opt is not one of these
 */
static bool conf_option_run(struct ctx *c, int opt, const char *arg)
{
	unsigned long v;

	switch (opt) {
	case 'd':
	case OPT_TRACE:
		c->debug = c->foreground = true;
		break;
	case 'P':
		conf_path("-P", arg, c->pidfile, sizeof(c->pidfile));
		break;
	case 'p':
		conf_path("--pcap", arg, c->pcap, sizeof(c->pcap));
		break;
	case 'l':
		conf_path("-l", arg, c->log_file, sizeof(c->log_file));
		break;
	case OPT_LOG_SIZE:
		if (conf_ulong(arg, 1, SSIZE_MAX, &v))
			die("Invalid size for --log-size: %s", arg);
		c->log_size = v;
		break;
	case OPT_RUNAS:
		conf_runas(c, arg);
		break;
	case OPT_STATS:
		if (conf_ulong(arg, 1, UINT_MAX, &v))
			die("Invalid delay for --stats: %s", arg);
		c->stats_delay_s = v;
		break;
	case 'm':
		if (conf_ulong(arg, 0, MTU_MAX, &v) || (v && v < MTU_MIN))
			die("Invalid MTU for -m: %s (0, or %d-%d)", arg,
			    MTU_MIN, MTU_MAX);
		c->mtu = v ? v : MTU_DEFAULT;
		c->mtu_no_assign = !v;
		break;
	case 't':
	case 'u':
		conf_fwd(c, opt, arg);
		break;
	case 'T':
	case 'U':
		conf_fwd(c, opt, arg);
		break;
	case 'I':
		conf_for_mode(c, MODE_PASTA, "-I");
		conf_ifname("-I", arg, c->ifname);
		break;
	case 's':
		conf_for_mode(c, MODE_PASST, "-s");
		conf_path("-s", arg, c->sock_path, sizeof(c->sock_path));
		c->sock_path_given = true;
		break;
	case 'c':
		conf_path("-c", arg, c->ctl_path, sizeof(c->ctl_path));
		break;
	case OPT_REPAIR_PATH:
		conf_for_mode(c, MODE_PASST, "--repair-path");
		conf_path("--repair-path", arg, c->repair_path,
			  sizeof(c->repair_path));
		break;
	case 'F':
		if (conf_ulong(arg, 0, INT_MAX, &v))
			die("Invalid file descriptor for -F: %s", arg);
		c->fd_given = v;
		break;
	case OPT_BYPASS:
		conf_for_mode(c, MODE_PASTA, "--bypass");
		if (conf_bypass(&c->bypass_spec, arg))
			die("Invalid --bypass: %s (ADDR[/PREFIX] and "
			    "PORT[-PORT], separated by commas)", arg);
		c->bypass = true;
		break;
	case OPT_BYPASS_AGENT:
		conf_for_mode(c, MODE_PASTA, "--bypass-agent");
		conf_path("--bypass-agent", arg, c->bypass_agent,
			  sizeof(c->bypass_agent));
		break;
	case OPT_NETNS:
		conf_for_mode(c, MODE_PASTA, "--netns");
		conf_netns(c, arg);
		break;
	case OPT_USERNS:
		conf_for_mode(c, MODE_PASTA, "--userns");
		conf_path("--userns", arg, c->userns_path,
			  sizeof(c->userns_path));
		break;
	default:
		return false;
	}
	return true;
}

/**
 * conf_fwd_defaults() - what -t, -u, -T and -U mean when not given
 * @c:		execution context
 *
 * passt forwards nothing by default; pasta follows the ports the other
 * side listens on ("auto"), both ways, unless an option of that direction
 * and protocol says otherwise, as upstream does, or, for -T and -U,
 * --no-map-gw (unlike upstream, which still splices). --no-tcp and
 * --no-udp drop that protocol's rules.
 */
static void conf_fwd_defaults(struct ctx *c)
{
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP };
	unsigned int pif, p, i, n;

	for (pif = 0; pif < FWD_PIFS; pif++) {
		struct fwd_rules *t = c->fwd[pif];

		for (p = 0; p < ARRAY_SIZE(protos); p++) {
			unsigned int opts = FWD_SPEC_AUTO |
				(pif == FWD_OUT ? FWD_SPEC_LOOPBACK : 0);

			/* --no-map-gw, rootlesskit's --disable-host-loopback:
			 * no way to the host's loopback, spliced ones neither
			 * (rootlesskit issue 612)
			 */
			if (c->mode == MODE_PASTA && !conf_fwd_given[pif][p] &&
			    !(pif == FWD_OUT && c->no_map_gw))
				fwd_spec_parse(t, protos[p], "auto", opts,
					       fwd_ephemeral(), NULL, 0);
		}
		for (i = n = 0; i < t->n; i++) {
			if ((c->no_tcp && t->rule[i].proto == IPPROTO_TCP) ||
			    (c->no_udp && t->rule[i].proto == IPPROTO_UDP))
				continue;
			t->rule[n++] = t->rule[i];
		}
		t->n = n;
	}
}

/**
 * conf_ip6_probe() - turn IPv6 off if the host can't open its sockets
 * @c:		execution context, options read
 *
 * As upstream: a kernel without IPv6 (ipv6.disable=1), or a sandbox that
 * refuses its sockets, leaves IPv4 alone, and -6 then has nothing to run
 * on. Otherwise the namespace got IPv6 addresses and routes that reach
 * nothing.
 */
static void conf_ip6_probe(struct ctx *c)
{
	int s;

	if (c->net.ip6_off)
		return;
	s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s >= 0) {
		close(s);
		return;
	}
	if (errno != EAFNOSUPPORT)
		return;
	if (c->net.ip4_off)
		die("IPv6 not available but --ipv6-only given");
	info("IPv6 not supported, disabling");
	c->net.ip6_off = true;
}

/**
 * conf_fwd_family() - with -4 or -6, a rule without an address binds
 *		       that family's
 * @c:		execution context, options read
 *
 * As upstream does, and shows: rootlesskit's -4 means IPv4 alone.
 */
static void conf_fwd_family(struct ctx *c)
{
	struct fwd_rules *t = c->fwd[FWD_IN];
	unsigned int i;

	if (c->net.ip4_off == c->net.ip6_off)
		return;
	for (i = 0; i < t->n; i++) {
		struct fwd_rule *r = &t->rule[i];

		if (!(r->flags & FWD_RULE_DUAL))
			continue;
		r->flags &= ~FWD_RULE_DUAL;
		inany_unspecified(&r->addr, c->net.ip4_off ? AF_INET6 : AF_INET);
	}
}

static void __attribute__((noreturn)) conf_version(const char *name)
{
	printf("%s %s\n", name, VERSION);
	exit(EXIT_SUCCESS);
}

/**
 * conf_check() - options that make no sense together, or in this mode
 * @c:		execution context
 */
static void conf_check(const struct ctx *c)
{
	if (c->net.ip4_off && c->net.ip6_off)
		die("-4 and -6 together leave no family: pick one");
	if (c->one_off)
		conf_for_mode(c, MODE_PASST, "-1");
	if (c->vhost_user)
		conf_for_mode(c, MODE_PASST, "--vhost-user");
	if (c->migrate_exit)
		conf_for_mode(c, MODE_PASST, "--migrate-exit");
	if (c->migrate_no_linger)
		conf_for_mode(c, MODE_PASST, "--migrate-no-linger");
	if (c->host_lo_to_ns_lo)
		conf_for_mode(c, MODE_PASTA, "--host-lo-to-ns-lo");
	if (c->host_lo_to_ns_lo && c->no_splice)
		die("--host-lo-to-ns-lo is incompatible with --no-splice");
	if (c->config_net)
		conf_for_mode(c, MODE_PASTA, "--config-net");
	if (c->cmd && (c->netns_path[0] || c->target_pid))
		die("A command and a namespace to join (%s): pick one",
		    c->target_pid ? "PID" : "--netns");
	if (c->bypass && (c->netns_path[0] || c->target_pid) &&
	    !c->bypass_agent[0])
		die("--bypass needs the command pasta starts, or --bypass-agent "
		    "with a namespace to join (%s)",
		    c->target_pid ? "PID" : "--netns");
}

/**
 * conf_print_dns() - the name servers and search list of one family
 * @c:		execution context
 * @family:	AF_INET or AF_INET6
 */
static void conf_print_dns(const struct ctx *c, int family)
{
	const struct dns_offer *offer = resolv_offer();
	char buf[INET6_ADDRSTRLEN];
	struct in6_addr dns6[DNS6_MAX];
	struct in_addr dns4[DNS4_MAX];
	int i, n;

	n = family == AF_INET ? dhcp_dns_offer(c, dns4) :
				ndp_dns_offer(c, dns6);
	for (i = 0; i < n; i++) {
		if (!i)
			info("DNS:");
		info("    %s", inet_ntop(family, family == AF_INET ?
					 (void *)&dns4[i] : (void *)&dns6[i],
					 buf, sizeof(buf)));
	}
	for (i = 0; !c->no_dhcp_search && i < offer->search_n; i++) {
		if (!i)
			info("DNS search list:");
		info("    %s", offer->search[i]);
	}
}

/**
 * conf_print() - tell what the guest gets, in upstream's start-up format
 * @c:		execution context
 *
 * Virtual machine managers may read these lines; -q silences them.
 */
void conf_print(const struct ctx *c)
{
	char ifn[IF_NAMESIZE] = "", buf[INET6_ADDRSTRLEN];
	const char *v6 = c->no_ndp && c->no_dhcpv6 ? NULL :
			 c->no_ndp ? "DHCPv6:" : c->no_dhcpv6 ? "NDP:" :
			 "NDP/DHCPv6:";
	const uint8_t *m = c->mac_ours;
	const struct guest_net *n = &c->net;

	if (!if_indextoname(c->host_ifi, ifn))
		strcpy(ifn, "(none)");
	info("Template interface: %s%s%s%s%s", n->ip4_off ? "" : ifn,
	     n->ip4_off ? "" : " (IPv4)",
	     !n->ip4_off && !n->ip6_off ? ", " : "",
	     n->ip6_off ? "" : ifn, n->ip6_off ? "" : " (IPv6)");
	if (c->mode == MODE_PASTA)
		info("Namespace interface: %s", c->ifname);
	info("MAC:");
	info("    host: %02x:%02x:%02x:%02x:%02x:%02x",
	     m[0], m[1], m[2], m[3], m[4], m[5]);

	if (!n->ip4_off) {
		uint32_t mask = n->prefix4 ? ~0U << (32 - n->prefix4) : 0;

		mask = htonl(mask);
		if (!c->no_dhcp) {
			info("DHCP:");
			info("    assign: %s", inet_ntop(AF_INET, &n->addr4,
							 buf, sizeof(buf)));
			info("    mask: %s", inet_ntop(AF_INET, &mask, buf,
						       sizeof(buf)));
			info("    router: %s", inet_ntop(AF_INET, &n->gw4,
							 buf, sizeof(buf)));
		}
		conf_print_dns(c, AF_INET);
	}
	if (!n->ip6_off) {
		if (v6) {
			info("%s", v6);
			info("    assign: %s",
			     IN6_IS_ADDR_UNSPECIFIED(&n->addr6) ?
			     "(link-local only)" :
			     inet_ntop(AF_INET6, &n->addr6, buf, sizeof(buf)));
			info("    router: %s", inet_ntop(AF_INET6, &n->gw6,
							 buf, sizeof(buf)));
			info("    our link-local: %s",
			     inet_ntop(AF_INET6, &n->ll6_ours, buf,
				       sizeof(buf)));
		}
		conf_print_dns(c, AF_INET6);
	}
}

/**
 * conf() - parse the command line, fill in defaults from the host
 * @c:		execution context
 * @argc:	argument count
 * @argv:	arguments
 *
 * getopt_long() itself reports unknown options and missing values, in its
 * own words ("unrecognized option '--foo'"), as upstream's do: callers such
 * as Podman read them. Options that only set something take the last value
 * given; -t, -u, -a (once per family) and -D add up.
 */
void conf(struct ctx *c, int argc, char **argv)
{
	const char *name = c->mode == MODE_PASTA ? "pasta" : "passt";
	int opt;

	c->mtu = MTU_DEFAULT;
	c->fd_given = -1;
	memset(conf_fwd_given, 0, sizeof(conf_fwd_given));
	/* As upstream: a namespace mostly shares the host's resolv.conf, or
	 * has one its manager wrote, and a DHCP client there that is given
	 * name servers wants to rewrite it. pasta hands them out with
	 * --dhcp-dns (--dhcp-search) only, passt unless --no-dhcp-dns.
	 */
	c->no_dhcp_dns = c->no_dhcp_search = c->mode == MODE_PASTA;

	/* "-": non-options come back in order, as option 1. A PID may come
	 * before more options; any other word starts the command, whose own
	 * options we must then leave alone.
	 */
	while (!c->cmd && (opt = getopt_long(argc, argv, OPTSTRING, conf_opts,
					     NULL)) != -1) {
		if (opt == 1)
			conf_positional(c, argv + optind - 1);
		else if (opt == OPT_VERSION)
			conf_version(name);
		else if (opt == OPT_PRINT_CAPABILITIES)
			vu_print_capabilities();
		else if (opt == 'h')
			usage(name, stdout, EXIT_SUCCESS);
		else if (opt == '?')
			usage(argv[0], stderr, EXIT_FAILURE);
		else if (opt != 'e' && opt != OPT_NO_OP && !conf_flag(c, opt) &&
			 !conf_option_net(c, opt, optarg) &&
			 !conf_option_run(c, opt, optarg))
			assert(0);
	}

	if (!c->cmd && optind < argc) {
		if (c->mode != MODE_PASTA)
			die("Unexpected argument: %s", argv[optind]);
		c->cmd = argv + optind;		/* after "--" */
	}
	conf_ip6_probe(c);
	conf_fwd_family(c);
	conf_check(c);
	conf_host_defaults(c);
	conf_fwd_defaults(c);
	conf_map_defaults(c);
	/* The namespace's addresses and routes are set: an RA would only
	 * make its kernel add a SLAAC address of its own
	 */
	if (c->mode == MODE_PASTA && c->config_net)
		c->no_ra = true;
	/* What DHCP, DHCPv6 and RAs hand out, and where DNS goes: after
	 * -D none (-S none), nothing, whatever --dhcp-dns says
	 */
	c->no_dhcp_dns |= c->no_dns;
	c->no_dhcp_search |= c->no_dns_search;
	resolv_conf(c);
	ip_net_init(c);
}
