/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FWD_RULE_H
#define FWD_RULE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inany.h"

/* Rule flags, as upstream's control protocol carries them */
#define FWD_RULE_DUAL		0x01	/* every address, both families */
#define FWD_RULE_WEAK		0x02	/* a port that can't be bound is skipped */
#define FWD_RULE_SCAN		0x04	/* only ports the other side listens on */
#define FWD_RULE_FLAGS		0x07

#define FWD_RULES_MAX		4096	/* rules of one table */
#define FWD_RULE_WIRE_LEN	56	/* see fwd_rule_encode() */
#define FWD_RULE_STRLEN		(INANY_STRLEN * 2 + IFNAMSIZ + 96)
#define FWD_ERR_LEN		512
#define FWD_EPHEMERAL_FIRST	32768	/* the kernel's default range */
#define FWD_EPHEMERAL_LAST	60999

/**
 * struct fwd_rule - host ports FIRST-LAST of one protocol, bound to an
 *		     address, forwarded to ports TO-...
 * @addr:	bind address; unspecified with FWD_RULE_DUAL: every address of
 *		both families
 * @taddr:	target address; unspecified: the guest's own, as always
 * @ifname:	bind device, empty for none
 * @first:	first port
 * @last:	last port
 * @to:		target port of @first (the others follow in order)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @flags:	FWD_RULE_* flags
 */
struct fwd_rule {
	union inany_addr addr;
	union inany_addr taddr;
	char ifname[IFNAMSIZ];
	uint16_t first;
	uint16_t last;
	uint16_t to;
	uint8_t proto;
	uint8_t flags;
};

/**
 * struct fwd_rules - the rules of one direction, in the order given
 * @n:		how many
 * @rule:	rules
 */
struct fwd_rules {
	unsigned int n;
	struct fwd_rule rule[FWD_RULES_MAX];
};

/* What a spec may say, and how to read it: fwd_spec_parse()'s @opts */
#define FWD_SPEC_ALL		0x01	/* "all" */
#define FWD_SPEC_AUTO		0x02	/* "auto" */
#define FWD_SPEC_LOOPBACK	0x04	/* no address: the loopback (-T, -U) */
#define FWD_SPEC_DELETE		0x08	/* remove the rules instead */

/**
 * struct fwd_ephemeral - the ephemeral port range, which "all" and "auto"
 *			  leave out
 * @first:	first port
 * @last:	last port
 */
struct fwd_ephemeral {
	uint16_t first;
	uint16_t last;
};

void fwd_ephemeral_read(struct fwd_ephemeral *eph);
int fwd_spec_parse(struct fwd_rules *t, uint8_t proto, const char *spec,
		   unsigned int opts, const struct fwd_ephemeral *eph,
		   char *err, size_t err_len);
int fwd_rule_add(struct fwd_rules *t, const struct fwd_rule *r, char *err,
		 size_t err_len);
int fwd_rule_delete(struct fwd_rules *t, const struct fwd_rule *r, char *err,
		    size_t err_len);
int fwd_rules_check(const struct fwd_rules *t, char *err, size_t err_len);
void fwd_rules_copy(struct fwd_rules *dst, const struct fwd_rules *src);
bool fwd_rule_equal(const struct fwd_rule *a, const struct fwd_rule *b);
bool fwd_rule_same_bind(const struct fwd_rule *a, const struct fwd_rule *b);
int fwd_rule_to(const struct fwd_rule *r, unsigned int port);
const char *fwd_rule_fmt(const struct fwd_rule *r, char *buf, size_t len);
void fwd_rule_encode(const struct fwd_rule *r, uint8_t *buf);
int fwd_rule_decode(struct fwd_rule *r, const uint8_t *buf, char *err,
		    size_t err_len);

#endif /* FWD_RULE_H */
