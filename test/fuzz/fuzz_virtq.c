// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/fuzz_virtq.c - a hostile guest's virtqueue, straight to the
 * ring and descriptor parser (virtq.c)
 *
 * Input: one byte, then guest memory. The byte's low four bits give the
 * ring size (1 << (bits % 9): 1 to 256), bit 4 turns event indices on,
 * bit 5 the dirty page log of a migration (FUZZ_LOG bytes: it covers the
 * regions and a little past them), bit 6 its logging of the used ring.
 * Guest memory is two regions of FUZZ_REGION bytes each, adjacent in guest
 * physical addresses but apart here: the input fills them in order
 * (descriptor table first, then the available ring, then anything), the
 * used ring sits at the end of the second. Descriptors may point anywhere:
 * into either region, across the two, past them, at absurd addresses and
 * lengths.
 *
 * Chains are taken until the ring runs dry, breaks, or twice its size was
 * taken, and each one is given back. Every buffer of an element must lie
 * wholly inside one region, and the used ring be where we put it: anything
 * else aborts, as a crash does (ASan watches the regions' edges, too).
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../util.h"
#include "../../virtq.h"

#define FUZZ_REGION	65536
#define FUZZ_GPA	0x100000ULL	/* where the first region starts */
#define FUZZ_UVA	0x7f0000000000ULL	/* the front-end's view */
#define FUZZ_USED_OFF	(FUZZ_REGION - 4096)	/* in the second region */
#define FUZZ_LOG	((FUZZ_GPA + 2 * FUZZ_REGION) / VQ_LOG_PAGE / 8 + 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * fuzz_in_region() - is a buffer wholly inside one region?
 * @m:		guest memory
 * @iov:	buffer
 *
 * Return: true if so
 */
static bool fuzz_in_region(const struct vq_mem *m, const struct iovec *iov)
{
	const uint8_t *p = iov->iov_base;
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		if (p >= m->r[i].host && iov->iov_len <= m->r[i].size &&
		    p - m->r[i].host <= (ptrdiff_t)(m->r[i].size -
						    iov->iov_len))
			return true;
	}
	return false;
}

/**
 * fuzz_elem_sound() - abort unless every buffer of an element is in guest
 *		       memory
 * @m:		guest memory
 * @e:		element
 */
static void fuzz_elem_sound(const struct vq_mem *m, const struct vq_elem *e)
{
	unsigned int i;

	if (e->n_in > VQ_IOV_MAX || e->n_out > VQ_IOV_MAX)
		abort();
	for (i = 0; i < e->n_in; i++) {
		if (!fuzz_in_region(m, &e->in[i]))
			abort();
		memset(e->in[i].iov_base, 0xa5, e->in[i].iov_len);
	}
	for (i = 0; i < e->n_out; i++) {
		if (!fuzz_in_region(m, &e->out[i]))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *r0 = calloc(1, FUZZ_REGION), *r1 = calloc(1, FUZZ_REGION);
	static uint8_t log_bits[FUZZ_LOG];
	struct vq_log log = { log_bits, sizeof(log_bits) };
	struct vq_mem m = { .n = 2 };
	static struct vq_elem e;
	struct virtq vq = { 0 };
	unsigned int num, i;
	size_t n;

	if (!r0 || !r1 || size < 1)
		goto out;
	num = 1U << ((data[0] & 0xf) % 9);
	vq.event_idx = data[0] & 0x10;
	vq.log = data[0] & 0x20 ? &log : NULL;
	vq.used_logged = data[0] & 0x40;
	vq.used_log = FUZZ_GPA + FUZZ_REGION + FUZZ_USED_OFF;
	n = MIN(size - 1, (size_t)FUZZ_REGION);
	memcpy(r0, data + 1, n);
	memcpy(r1, data + 1 + n, MIN(size - 1 - n, (size_t)FUZZ_USED_OFF));
	m.r[0] = (struct vq_region){ FUZZ_GPA, FUZZ_REGION, FUZZ_UVA, r0,
				     r0, FUZZ_REGION };
	m.r[1] = (struct vq_region){ FUZZ_GPA + FUZZ_REGION, FUZZ_REGION,
				     FUZZ_UVA + FUZZ_REGION, r1, r1,
				     FUZZ_REGION };
	if (vq_setup(&vq, &m, num, FUZZ_UVA, FUZZ_UVA + num * 16,
		     FUZZ_UVA + FUZZ_REGION + FUZZ_USED_OFF))
		abort();	/* all of it lies in the regions */

	for (i = 0; i < 2 * num; i++) {
		int ret = vq_pop(&vq, &m, &e);

		if (ret == VQ_BROKEN || !ret)
			break;
		if (ret == 1)
			fuzz_elem_sound(&m, &e);
		if (e.head >= num)
			abort();
		vq_push(&vq, e.head, ret == 1 ? data[i % size] * 300 : 0);
	}
	vq_publish(&vq);
	vq_notify_due(&vq);
	vq_kicks_wanted(&vq);
	vq_empty(&vq);
out:
	free(r0);
	free(r1);
	return 0;
}
