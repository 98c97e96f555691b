// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_rules.c - forwarding rules as the command line and pesto
 * write them, and as a control client sends them
 *
 * Input: one byte, then the rest. Bit 0 of the byte picks the form:
 *   0: specs (-t, -u, -T, -U arguments), one per line, parsed into one
 *      table; bit 1 says UDP, bits 2-5 are the FWD_SPEC_* options
 *   1: rules in the control protocol's wire form, FWD_RULE_WIRE_LEN bytes
 *      each, decoded and added to one table, every third one deleted
 *      again (bit 1)
 * Whatever comes in, the table that results must pass fwd_rules_check(),
 * and each of its rules must come back equal through fwd_rule_encode()
 * and fwd_rule_decode(), and format within FWD_RULE_STRLEN: anything else
 * aborts, as a crash does.
 */

#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../fwd_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fwd_rules fuzz_t;

/**
 * fuzz_specs() - parse each line as a spec into the table
 * @text:	lines
 * @len:	their length
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @opts:	FWD_SPEC_* options
 */
static void fuzz_specs(const uint8_t *text, size_t len, uint8_t proto,
		       unsigned int opts)
{
	static const struct fwd_ephemeral eph = { FWD_EPHEMERAL_FIRST,
						  FWD_EPHEMERAL_LAST };
	char err[FWD_ERR_LEN];

	while (len) {
		const uint8_t *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;
		char *spec = malloc(n + 1);	/* exactly: ASan watches */

		if (!spec)
			return;
		memcpy(spec, text, n);
		spec[n] = '\0';
		fwd_spec_parse(&fuzz_t, proto, spec, opts, &eph, err,
			       sizeof(err));
		free(spec);
		text += n + !!nl;
		len -= n + !!nl;
	}
}

/**
 * fuzz_wire() - decode each rule, add it, delete every third one again
 * @buf:	rules on the wire
 * @len:	their length
 * @del:	delete every third one
 */
static void fuzz_wire(const uint8_t *buf, size_t len, bool del)
{
	char err[FWD_ERR_LEN];
	unsigned int i;

	for (i = 0; len >= FWD_RULE_WIRE_LEN; i++) {
		uint8_t *w = malloc(FWD_RULE_WIRE_LEN);
		struct fwd_rule r;

		if (!w)
			return;
		memcpy(w, buf, FWD_RULE_WIRE_LEN);
		if (!fwd_rule_decode(&r, w, err, sizeof(err)) &&
		    !fwd_rule_add(&fuzz_t, &r, err, sizeof(err)) &&
		    del && i % 3 == 2)
			fwd_rule_delete(&fuzz_t, &r, err, sizeof(err));
		free(w);
		buf += FWD_RULE_WIRE_LEN;
		len -= FWD_RULE_WIRE_LEN;
	}
}

/**
 * fuzz_rules_sound() - abort unless the table is one we could be running
 */
static void fuzz_rules_sound(void)
{
	char err[FWD_ERR_LEN], s[FWD_RULE_STRLEN];
	uint8_t w[FWD_RULE_WIRE_LEN];
	unsigned int i;

	if (fuzz_t.n > FWD_RULES_MAX || fwd_rules_check(&fuzz_t, err,
							  sizeof(err)))
		abort();
	for (i = 0; i < fuzz_t.n; i++) {
		const struct fwd_rule *r = &fuzz_t.rule[i];
		struct fwd_rule back;

		fwd_rule_encode(r, w);
		if (fwd_rule_decode(&back, w, err, sizeof(err)) ||
		    !fwd_rule_equal(r, &back) ||
		    strlen(fwd_rule_fmt(r, s, sizeof(s))) >= sizeof(s) - 1)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_t.n = 0;
	if (data[0] & 1)
		fuzz_wire(data + 1, size - 1, data[0] & 2);
	else
		fuzz_specs(data + 1, size - 1, data[0] & 2 ? IPPROTO_UDP :
							     IPPROTO_TCP,
			   (data[0] >> 2) & 0xf);
	fuzz_rules_sound();
	return 0;
}
