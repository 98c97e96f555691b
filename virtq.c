// SPDX-License-Identifier: GPL-2.0-or-later
/* virtq.c - split virtqueues in guest memory, read as a hostile guest may
 *	     have written them
 *
 * Theory of operation: the guest's memory is mapped here region by region
 * (vhost-user's memory table, vhost_user.c), and every address the guest
 * or the front-end gives us is translated through it, whole: a buffer that
 * isn't entirely inside one region is refused, so nothing we read or write
 * can fall outside guest memory.
 *
 * The rings are shared with a guest that may change them at any time. Each
 * descriptor is read once into a local copy, and only that copy is checked
 * and used. The available index may not run more than a ring ahead of us
 * (VQ_BROKEN: the ring is stopped); a chain may not loop (at most @num
 * descriptors), point past the table, use indirect descriptors (we don't
 * offer them), put a device-readable buffer after a writable one, or hold
 * more than VQ_IOV_MAX buffers (VQ_BAD_CHAIN: it is given back unused, and
 * counted by the caller).
 *
 * While the front-end migrates the guest, every byte we write to guest
 * memory is logged by page (vq_log_write()): the receive buffers of each
 * chain given back, by its descriptors as far as we filled them, and the
 * used ring, whole, each time we change it.
 *
 * Ordering: the available index is read with acquire semantics before the
 * entries it covers, and the used index is stored with release semantics
 * after the entries it publishes; the guest's side does the same.
 */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "virtq.h"

/**
 * vq_mem_region() - the region that holds a whole range, by either address
 * @m:		guest memory
 * @addr:	start of the range
 * @len:	its length
 * @uva:	@addr is the front-end's address, not a guest physical one
 *
 * Return: our address of @addr, NULL if no region holds the whole range
 */
static void *vq_mem_region(const struct vq_mem *m, uint64_t addr,
			   uint64_t len, bool uva)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		const struct vq_region *r = &m->r[i];
		uint64_t start = uva ? r->uva : r->gpa;

		if (addr >= start && addr - start <= r->size &&
		    len <= r->size - (addr - start))
			return r->host + (addr - start);
	}
	return NULL;
}

/**
 * vq_mem_gpa() - our address of a range of guest physical memory
 * @m:		guest memory
 * @gpa:	guest physical address
 * @len:	length of the range
 *
 * Return: pointer, NULL unless one region holds the whole range
 */
void *vq_mem_gpa(const struct vq_mem *m, uint64_t gpa, uint64_t len)
{
	return vq_mem_region(m, gpa, len, false);
}

/**
 * vq_mem_uva() - our address of a range the front-end names by its address
 * @m:		guest memory
 * @uva:	the front-end's address (vhost-user ring addresses)
 * @len:	length of the range
 *
 * Return: pointer, NULL unless one region holds the whole range
 */
void *vq_mem_uva(const struct vq_mem *m, uint64_t uva, uint64_t len)
{
	return vq_mem_region(m, uva, len, true);
}

/**
 * vq_setup() - find a ring's parts in guest memory
 * @vq:		virtqueue, its indices kept
 * @m:		guest memory
 * @num:	ring size: a power of two, at most VQ_SIZE_MAX
 * @desc:	the front-end's address of the descriptor table
 * @avail:	of the available ring
 * @used:	of the used ring
 *
 * Return: 0 on success, -EINVAL if a part is misaligned or not in guest
 *	   memory, or the size is wrong
 */
int vq_setup(struct virtq *vq, const struct vq_mem *m, unsigned int num,
	     uint64_t desc, uint64_t avail, uint64_t used)
{
	size_t avail_len = sizeof(struct vring_avail) + (num + 1) * 2;
	size_t used_len = sizeof(struct vring_used) +
			  num * sizeof(struct vring_used_elem) + 2;

	if (!num || num > VQ_SIZE_MAX || (num & (num - 1)) ||
	    desc % 16 || avail % 2 || used % 4)
		return -EINVAL;
	vq->desc = vq_mem_uva(m, desc, (uint64_t)num * sizeof(*vq->desc));
	vq->avail = vq_mem_uva(m, avail, avail_len);
	vq->used = vq_mem_uva(m, used, used_len);
	if (!vq->desc || !vq->avail || !vq->used) {
		vq->desc = NULL;
		return -EINVAL;
	}
	vq->num = num;
	return 0;
}

/**
 * vq_avail_idx() - the guest's available index, entries before it readable
 * @vq:		virtqueue, set up
 *
 * Return: index
 */
static uint16_t vq_avail_idx(const struct virtq *vq)
{
	return le16toh(__atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE));
}

/**
 * vq_empty() - has the guest made nothing available since we last looked?
 * @vq:		virtqueue
 *
 * Return: true if nothing is there, or the ring isn't set up
 */
bool vq_empty(const struct virtq *vq)
{
	return !vq->desc || vq_avail_idx(vq) == vq->last_avail;
}

/**
 * vq_chain_add() - one descriptor of a chain, as a buffer of the element
 * @e:		element
 * @d:		our copy of the descriptor
 * @m:		guest memory
 *
 * Return: 0 on success, -1 if the chain can't be taken
 */
static int vq_chain_add(struct vq_elem *e, const struct vring_desc *d,
			const struct vq_mem *m)
{
	uint16_t flags = le16toh(d->flags);
	uint32_t len = le32toh(d->len);
	void *p;

	if (flags & VRING_DESC_F_INDIRECT)
		return -1;
	p = vq_mem_gpa(m, le64toh(d->addr), len);
	if (!p)
		return -1;
	if (flags & VRING_DESC_F_WRITE) {
		if (e->n_in == VQ_IOV_MAX)
			return -1;
		e->in[e->n_in++] = (struct iovec){ p, len };
		return 0;
	}
	if (e->n_in || e->n_out == VQ_IOV_MAX)
		return -1;	/* readable after writable: out of order */
	e->out[e->n_out++] = (struct iovec){ p, len };
	return 0;
}

/**
 * vq_pop() - take the next chain the guest made available
 * @vq:		virtqueue, set up
 * @m:		guest memory
 * @e:		element, set: for VQ_BAD_CHAIN, its head alone
 *
 * Return: 1 for an element, 0 if none is there, VQ_BAD_CHAIN for a chain
 *	   that can't be taken (consumed: give it back with vq_push(), length
 *	   0), VQ_BROKEN if the ring itself makes no sense
 */
int vq_pop(struct virtq *vq, const struct vq_mem *m, struct vq_elem *e)
{
	uint16_t avail_idx = vq_avail_idx(vq), i;
	unsigned int seen;

	if ((uint16_t)(avail_idx - vq->last_avail) > vq->num)
		return VQ_BROKEN;
	if (avail_idx == vq->last_avail)
		return 0;
	i = le16toh(__atomic_load_n(&vq->avail->ring[vq->last_avail %
						      vq->num],
				    __ATOMIC_RELAXED));
	if (i >= vq->num)
		return VQ_BROKEN;	/* no head to give back */
	vq->last_avail++;
	e->head = i;
	e->n_in = e->n_out = 0;

	for (seen = 0; seen < vq->num; seen++) {
		struct vring_desc d;

		memcpy(&d, &vq->desc[i], sizeof(d));	/* read it once */
		if (vq_chain_add(e, &d, m))
			return VQ_BAD_CHAIN;
		if (!(le16toh(d.flags) & VRING_DESC_F_NEXT))
			return 1;
		i = le16toh(d.next);
		if (i >= vq->num)
			return VQ_BAD_CHAIN;
	}
	return VQ_BAD_CHAIN;	/* a loop */
}

/**
 * vq_log_write() - log a write to guest memory, for migration
 * @log:	the front-end's log
 * @gpa:	guest physical address written
 * @len:	bytes
 *
 * Pages past the end of the log aren't the guest's: left alone.
 */
void vq_log_write(const struct vq_log *log, uint64_t gpa, uint64_t len)
{
	uint64_t page, last;

	if (!len || gpa + len < gpa)
		return;
	last = (gpa + len - 1) / VQ_LOG_PAGE;
	for (page = gpa / VQ_LOG_PAGE; page <= last; page++) {
		if (page / 8 >= log->len)
			return;
		__atomic_fetch_or(&log->bits[page / 8], 1U << (page % 8),
				  __ATOMIC_RELAXED);
	}
}

/**
 * vq_log_chain() - log what we wrote into a chain's buffers
 * @vq:		virtqueue, set up, logging
 * @head:	the chain's head
 * @len:	bytes written, from its first writable buffer on
 *
 * The descriptors are read again: a guest that changed them since only
 * gets other pages of its own marked.
 */
static void vq_log_chain(const struct virtq *vq, uint16_t head, uint32_t len)
{
	unsigned int seen;
	uint16_t i = head;

	for (seen = 0; len && i < vq->num && seen < vq->num; seen++) {
		struct vring_desc d;
		uint32_t n;

		memcpy(&d, &vq->desc[i], sizeof(d));
		if (le16toh(d.flags) & VRING_DESC_F_WRITE) {
			n = le32toh(d.len);
			n = n < len ? n : len;
			vq_log_write(vq->log, le64toh(d.addr), n);
			len -= n;
		}
		if (!(le16toh(d.flags) & VRING_DESC_F_NEXT))
			return;
		i = le16toh(d.next);
	}
}

/**
 * vq_log_used() - log the used ring, if its writes are logged
 * @vq:		virtqueue, set up
 */
static void vq_log_used(const struct virtq *vq)
{
	if (vq->log && vq->used_logged)
		vq_log_write(vq->log, vq->used_log, sizeof(struct vring_used) +
			     vq->num * sizeof(struct vring_used_elem) + 2);
}

/**
 * vq_push() - give a chain back, unpublished until vq_publish()
 * @vq:		virtqueue, set up
 * @head:	the chain's head
 * @len:	bytes we wrote into its buffers
 */
void vq_push(struct virtq *vq, uint16_t head, uint32_t len)
{
	struct vring_used_elem *u = &vq->used->ring[vq->used_idx % vq->num];

	u->id = htole32(head);
	u->len = htole32(len);
	vq->used_idx++;
	if (vq->log)
		vq_log_chain(vq, head, len);
}

/**
 * vq_publish() - let the guest see the chains given back
 * @vq:		virtqueue, set up
 */
void vq_publish(struct virtq *vq)
{
	__atomic_store_n(&vq->used->idx, htole16(vq->used_idx),
			 __ATOMIC_RELEASE);
	vq_log_used(vq);
}

/**
 * vq_notify_due() - does the guest want an interrupt for what we published?
 * @vq:		virtqueue, set up
 *
 * Return: true if so: the caller signals the call eventfd
 */
bool vq_notify_due(struct virtq *vq)
{
	uint16_t old = vq->signalled, event;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* used idx, then look */
	if (old == vq->used_idx)
		return false;
	vq->signalled = vq->used_idx;
	if (vq->signalled_unknown) {
		vq->signalled_unknown = false;
		return true;
	}
	if (!vq->event_idx)
		return !(le16toh(__atomic_load_n(&vq->avail->flags,
						 __ATOMIC_RELAXED)) &
			 VRING_AVAIL_F_NO_INTERRUPT);
	event = le16toh(__atomic_load_n(&vq->avail->ring[vq->num],
					__ATOMIC_RELAXED));
	return vring_need_event(event, vq->used_idx, old);
}

/**
 * vq_state_str() - a ring's indices, for --stats
 * @vq:		virtqueue, set up
 * @buf:	text, set
 * @len:	its room
 */
void vq_state_str(const struct virtq *vq, char *buf, size_t len)
{
	const uint16_t *avail_event = (uint16_t *)&vq->used->ring[vq->num];

	snprintf(buf, len, "avail %u, taken %u, used %u (published %u, "
		 "signalled %u), guest wants an interrupt at %u, a kick at %u",
		 vq_avail_idx(vq), vq->last_avail, vq->used_idx,
		 le16toh(__atomic_load_n(&vq->used->idx, __ATOMIC_RELAXED)),
		 vq->signalled,
		 le16toh(__atomic_load_n(&vq->avail->ring[vq->num],
					 __ATOMIC_RELAXED)),
		 le16toh(__atomic_load_n(avail_event, __ATOMIC_RELAXED)));
}

/**
 * vq_kicks_wanted() - ask the guest to kick us when it adds a buffer
 * @vq:		virtqueue, set up
 *
 * With event indices, for the first one past those it made available
 * so far; else for any. A buffer added while we asked brings no kick.
 *
 * Return: true if the guest added one since we looked: no kick comes
 */
bool vq_kicks_wanted(struct virtq *vq)
{
	uint16_t seen = vq_avail_idx(vq);

	if (vq->event_idx) {
		uint16_t *avail_event = (uint16_t *)&vq->used->ring[vq->num];

		__atomic_store_n(avail_event, htole16(seen), __ATOMIC_RELAXED);
	} else {
		__atomic_store_n(&vq->used->flags, 0, __ATOMIC_RELAXED);
	}
	vq_log_used(vq);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* then look again */
	return vq_avail_idx(vq) != seen;
}
