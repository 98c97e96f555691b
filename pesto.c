// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto.c - change the forwarding rules of a running pasta or passt,
 * through its control socket (-c): upstream's command line and protocol
 *
 * Theory of operation: we read the greeting and every table of rules
 * (ctl.c has the protocol), then act on the options in order, as upstream
 * does: -A adds the specs that follow, -D deletes them, -C clears a table,
 * and a spec before either replaces its table ("-t" and "-u" the HOST
 * table, "-T" and "-U" the SPLICE one). The tables go back whole. Our
 * server answers a refused update with its reason, which we print; with
 * no options we print the tables and change nothing.
 *
 * Exit status: 0 on success, 1 on failure (as upstream)
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "fwd_rule.h"
#include "version.h"

#define PESTO_MAGIC		"basil:s"
#define PESTO_VERSION		2
#define PESTO_NAME_SIZE		128
#define PESTO_TABLES_MAX	3
#define PESTO_REPLY_MS		5000	/* how long we wait for the verdict */

/**
 * struct pesto_table - one table of rules, as the server has it
 * @id:		its id on the wire
 * @name:	its name: "HOST", "SPLICE"
 * @caps:	what its rules may be
 * @cleared:	replaced already by a spec given before -A or -D
 * @rules:	rules
 */
struct pesto_table {
	uint8_t id;
	char name[PESTO_NAME_SIZE];
	uint32_t caps;
	bool cleared;
	struct fwd_rules rules;
};

static struct pesto_table pesto_tables[PESTO_TABLES_MAX];
static unsigned int pesto_n;
static bool pesto_debug;

static const struct option pesto_opts[] = {
	{ "debug",	no_argument,		NULL, 'd' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 1 },
	{ "add",	no_argument,		NULL, 'A' },
	{ "delete",	no_argument,		NULL, 'D' },
	{ "clear",	required_argument,	NULL, 'C' },
	{ "tcp-ports",	required_argument,	NULL, 't' },
	{ "udp-ports",	required_argument,	NULL, 'u' },
	{ "tcp-ns",	required_argument,	NULL, 'T' },
	{ "udp-ns",	required_argument,	NULL, 'U' },
	{ "show",	no_argument,		NULL, 's' },
	{ 0 },
};
#define PESTO_OPTSTRING		"dhADC:t:u:T:U:s"

/**
 * die() - print a message and exit with status 1
 * @fmt:	format
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

/**
 * debug() - print a message with -d
 * @fmt:	format
 */
static void __attribute__((format(printf, 1, 2))) debug(const char *fmt, ...)
{
	va_list ap;

	if (!pesto_debug)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/**
 * usage() - print the usage text and exit
 * @name:	our name
 * @f:		stdout or stderr
 * @status:	exit status
 */
static void __attribute__((noreturn)) usage(const char *name, FILE *f,
					    int status)
{
	fprintf(f, "Usage: %s [OPTION]... PATH\n", name);
	fprintf(f,
		"\n"
		"  -A, --add		Add following specifiers to forwards\n"
		"  -D, --delete		Delete following specifiers instead\n"
		"  -C, --clear PIF	Clear forwarding table for given PIF\n"
		"  -t, --tcp-ports SPEC	TCP inbound port forwarding\n"
		"    can be specified multiple times\n"
		"    SPEC can be:\n"
		"      'none': don't forward any ports\n"
		"      [ADDR[%%IFACE]/]PORTS: forward specific ports\n"
		"        PORTS is either 'all' (forward all unbound, "
		"non-ephemeral\n"
		"        ports), or a comma-separated list of ports, optionally\n"
		"        ranged with '-' and optional target ports after ':'.\n"
		"        A target address may come before the target ports,\n"
		"        followed by '/'.\n"
		"        Ranges can be reduced by excluding ports or ranges\n"
		"        prefixed by '~'.\n"
		"        The 'auto' keyword may be given to only forward\n"
		"        ports which are bound in the target namespace\n"
		"        Examples:\n"
		"        -t all         Forward all ports\n"
		"        -t 22		Forward local port 22 to 22\n"
		"        -t 22:23	Forward local port 22 to 23\n"
		"        -t 22-80:32-90	Forward ports 22 to 80 to\n"
		"			corresponding port numbers plus 10\n"
		"        -t 192.0.2.1/5	Bind port 5 of 192.0.2.1\n"
		"        -t 0.0.0.0/8080:10.88.0.2/80\n"
		"			Forward IPv4 port 8080 to 10.88.0.2,\n"
		"			port 80, with the client's address\n"
		"        -t 5-25,~10-20	Forward ports 5 to 9, and 21 to 25\n"
		"        -t ~25		Forward all ports except for 25\n"
		"        -t auto	Forward all ports bound in namespace\n"
		"  -u, --udp-ports SPEC	UDP inbound port forwarding\n"
		"    SPEC is as described for TCP above\n"
		"  -T, --tcp-ns SPEC	TCP port forwarding to init namespace\n"
		"    SPEC is as described above\n"
		"  -U, --udp-ns SPEC	UDP port forwarding to init namespace\n"
		"    SPEC is as described above\n"
		"  -s, --show		Show configuration before and after\n"
		"  -d, --debug		Print debugging messages\n"
		"  -h, --help		Display this help message and exit\n"
		"  --version		Show version and exit\n");
	exit(status);
}

/**
 * read_all() - read exactly @len bytes
 * @fd:		socket
 * @buf:	buffer
 * @len:	bytes
 *
 * Return: 0 on success, -1 on error or end of file
 */
static int read_all(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = ECONNRESET;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * write_all() - write all of a buffer
 * @fd:		socket
 * @buf:	data
 * @len:	bytes
 *
 * Return: 0 on success, -1 on error
 */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * get_u32() - a 32-bit number in network order
 * @buf:	4 bytes
 *
 * Return: the number
 */
static uint32_t get_u32(const uint8_t *buf)
{
	uint32_t v;

	memcpy(&v, buf, sizeof(v));
	return ntohl(v);
}

/**
 * pesto_connect() - connect to the control socket, check the greeting
 * @path:	its path
 *
 * Return: socket
 */
static int pesto_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t hello[20];
	uint32_t version;
	int s;

	if (strlen(path) >= sizeof(sa.sun_path))
		die("Invalid socket path \"%s\"", path);
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		die("Failed to create AF_UNIX socket: %s", strerror(errno));
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)))
		die("Failed to connect to %s: %s", path, strerror(errno));
	debug("Connected to passt/pasta control socket");

	if (read_all(s, hello, sizeof(hello)))
		die("Couldn't read server greeting: %s", strerror(errno));
	if (memcmp(hello, PESTO_MAGIC, sizeof(PESTO_MAGIC)))
		die("Bad magic number from server");
	version = get_u32(hello + 8);
	if (version > PESTO_VERSION)
		die("Unknown server protocol version %u > %u", version,
		    PESTO_VERSION);
	if (version < PESTO_VERSION)
		die("Unsupported server protocol version %u", version);
	if (get_u32(hello + 12) != PESTO_NAME_SIZE)
		die("Server has unexpected pif name size (%u not %u)",
		    get_u32(hello + 12), PESTO_NAME_SIZE);
	if (get_u32(hello + 16) != IFNAMSIZ)
		die("Server has unexpected IFNAMSIZ (%u not %u)",
		    get_u32(hello + 16), IFNAMSIZ);
	return s;
}

/**
 * pesto_read_table() - read one table of the server's dump
 * @s:		control socket
 *
 * Return: true if one came, false at the end of the dump
 */
static bool pesto_read_table(int s)
{
	uint8_t id, info[PESTO_NAME_SIZE + 8], buf[FWD_RULE_WIRE_LEN];
	struct pesto_table *t = &pesto_tables[pesto_n];
	char err[FWD_ERR_LEN];
	uint32_t i, count;

	if (read_all(s, &id, 1))
		die("Error reading from control socket: %s", strerror(errno));
	if (!id)
		return false;
	if (pesto_n == PESTO_TABLES_MAX)
		die("passt has more pifs than pesto can manage (max %d)",
		    PESTO_TABLES_MAX);
	if (read_all(s, info, sizeof(info)))
		die("Error reading from control socket: %s", strerror(errno));
	if (info[PESTO_NAME_SIZE - 1])
		die("Interface name was not NULL terminated");
	t->id = id;
	memcpy(t->name, info, PESTO_NAME_SIZE);
	t->caps = get_u32(info + PESTO_NAME_SIZE);
	count = get_u32(info + PESTO_NAME_SIZE + 4);
	if (count > FWD_RULES_MAX)
		die("Too many forwarding rules");
	for (i = 0; i < pesto_n; i++) {
		if (pesto_tables[i].id == id ||
		    !strcmp(pesto_tables[i].name, t->name))
			die("Received duplicate interface");
	}
	debug("PIF %u: %s, %u rules, capabilities 0x%x", id, t->name, count,
	      t->caps);
	t->rules.n = 0;
	for (i = 0; i < count; i++) {
		if (read_all(s, buf, sizeof(buf)))
			die("Error reading from control socket: %s",
			    strerror(errno));
		if (fwd_rule_decode(&t->rules.rule[i], buf, err, sizeof(err)))
			die("Bad rule from passt/pasta: %s", err);
		t->rules.n++;
	}
	pesto_n++;
	return true;
}

/**
 * pesto_show() - print the tables, as upstream does
 * @what:	heading
 * @path:	socket path
 */
static void pesto_show(const char *what, const char *path)
{
	char rs[FWD_RULE_STRLEN];
	unsigned int i, j;

	printf("%s (%s)\n", what, path);
	for (i = 0; i < pesto_n; i++) {
		const struct pesto_table *t = &pesto_tables[i];

		printf("  %s\n", t->name);
		for (j = 0; j < t->rules.n; j++)
			printf("    %s\n", fwd_rule_fmt(&t->rules.rule[j], rs,
						       sizeof(rs)));
	}
	fflush(stdout);
}

/**
 * pesto_table() - a table by name
 * @name:	"HOST", "SPLICE"
 *
 * Return: the table, NULL if the server has none of that name
 */
static struct pesto_table *pesto_table(const char *name)
{
	unsigned int i;

	for (i = 0; i < pesto_n; i++) {
		if (!strcmp(pesto_tables[i].name, name))
			return &pesto_tables[i];
	}
	return NULL;
}

/**
 * pesto_spec() - act on one -t, -u, -T or -U option
 * @opt:	the option
 * @spec:	its value
 * @mode:	0 (replace), 'A' or 'D'
 * @eph:	ephemeral port range
 */
static void pesto_spec(int opt, const char *spec, int mode,
		       const struct fwd_ephemeral *eph)
{
	bool in = opt == 't' || opt == 'u';
	struct pesto_table *t = pesto_table(in ? "HOST" : "SPLICE");
	unsigned int opts = FWD_SPEC_ALL | FWD_SPEC_AUTO;
	char err[FWD_ERR_LEN];

	if (!t)
		die("Can't use -%c, no %s interface", opt,
		    in ? "inbound" : "outbound");
	if (!mode && !t->cleared) {
		t->rules.n = 0;
		t->cleared = true;
	}
	if (!in)
		opts |= FWD_SPEC_LOOPBACK;
	if (mode == 'D')
		opts |= FWD_SPEC_DELETE;
	if (fwd_spec_parse(&t->rules, opt == 't' || opt == 'T' ? IPPROTO_TCP :
			   IPPROTO_UDP, spec, opts, eph, err, sizeof(err)))
		die("%s", err);
}

/**
 * pesto_update() - act on the options, in order
 * @argc:	argument count
 * @argv:	arguments
 */
static void pesto_update(int argc, char **argv)
{
	struct fwd_ephemeral eph;
	int opt, mode = 0;

	fwd_ephemeral_read(&eph);
	optind = 0;
	while ((opt = getopt_long(argc, argv, PESTO_OPTSTRING, pesto_opts,
				  NULL)) != -1) {
		struct pesto_table *t;

		switch (opt) {
		case 'A':
		case 'D':
			mode = opt;
			break;
		case 'C':
			t = pesto_table(optarg);
			if (!t)
				die("Unsupported pif name %s", optarg);
			t->rules.n = 0;
			t->cleared = true;
			break;
		case 't':
		case 'u':
		case 'T':
		case 'U':
			pesto_spec(opt, optarg, mode, &eph);
			break;
		}
	}
}

/**
 * pesto_send() - send the tables back
 * @s:		control socket
 *
 * Return: 0 on success, -1 on failure, with errno set
 */
static int pesto_send(int s)
{
	uint8_t buf[1 + 4 + FWD_RULE_WIRE_LEN];
	unsigned int i, j;

	for (i = 0; i < pesto_n; i++) {
		const struct pesto_table *t = &pesto_tables[i];
		uint32_t count = htonl(t->rules.n);

		buf[0] = t->id;
		memcpy(buf + 1, &count, sizeof(count));
		if (write_all(s, buf, 5))
			return -1;
		for (j = 0; j < t->rules.n; j++) {
			fwd_rule_encode(&t->rules.rule[j], buf);
			if (write_all(s, buf, FWD_RULE_WIRE_LEN))
				return -1;
		}
	}
	buf[0] = 0;
	if (write_all(s, buf, 1) || shutdown(s, SHUT_WR))
		return -1;
	return 0;
}

/**
 * pesto_verdict() - wait for the server to close, reading its reason if
 *		     it refused the update
 * @s:		control socket
 *
 * Our server sends the reason if it refuses the update (maybe before we
 * sent it all), upstream's resets the connection; either closes it once
 * the update is in force.
 *
 * Return: 0 if the update is in force, -1 if not, with a message printed
 */
static int pesto_verdict(int s)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	char reply[FWD_ERR_LEN];
	size_t len = 0;
	ssize_t n = 0;

	for (;;) {
		int ready = poll(&pfd, 1, PESTO_REPLY_MS);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready <= 0) {
			fprintf(stderr, "No answer from passt/pasta within %d "
				"s\n", PESTO_REPLY_MS / 1000);
			return -1;
		}
		n = read(s, reply + len, sizeof(reply) - 1 - len);
		if (n <= 0 || (len += n) == sizeof(reply) - 1)
			break;
	}
	while (len && reply[len - 1] == '\n')
		len--;
	reply[len] = 0;
	if (len)
		fprintf(stderr, "passt/pasta refused the update: %s\n", reply);
	else if (n < 0 && errno == ECONNRESET)
		fprintf(stderr, "passt/pasta refused the update\n");
	else if (n < 0)
		fprintf(stderr, "Error reading from control socket: %s\n",
			strerror(errno));
	return len || n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	bool update = false, show = false;
	const char *path;
	int opt, s;

	while ((opt = getopt_long(argc, argv, PESTO_OPTSTRING, pesto_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'C': case 't': case 'u': case 'T': case 'U':
		case 'A': case 'D':
			update = true;	/* acted on once we have the rules */
			break;
		case 's':
			show = true;
			break;
		case 'd':
			pesto_debug = true;
			break;
		case 'h':
			usage(argv[0], stdout, EXIT_SUCCESS);
		case 1:
			printf("pesto %s\n", VERSION);
			return EXIT_SUCCESS;
		default:
			usage(argv[0], stderr, EXIT_FAILURE);
		}
	}
	if (argc - optind != 1)
		usage(argv[0], stderr, EXIT_FAILURE);
	path = argv[optind];

	s = pesto_connect(path);
	while (pesto_read_table(s))
		;
	if (!update) {
		pesto_show("passt/pasta configuration", path);
		close(s);
		return EXIT_SUCCESS;
	}
	if (show)
		pesto_show("Previous configuration", path);
	pesto_update(argc, argv);
	if (show)
		pesto_show("Updated configuration", path);
	if (pesto_send(s)) {
		int err = errno;

		/* A refused update may be cut short: the reason is there */
		if ((err == EPIPE || err == ECONNRESET) && pesto_verdict(s))
			return EXIT_FAILURE;
		die("Error writing to control socket: %s", strerror(err));
	}
	if (pesto_verdict(s))
		return EXIT_FAILURE;
	close(s);
	return EXIT_SUCCESS;
}
