/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef VIRTQ_H
#define VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <linux/virtio_ring.h>

#define VQ_MEM_REGIONS_MAX	8	/* vhost-user's baseline memory slots */
#define VQ_SIZE_MAX		32768	/* descriptors of a split ring */
#define VQ_IOV_MAX		64	/* descriptors of one chain we take */

/* vq_pop() results besides 1 (an element) and 0 (none) */
#define VQ_BAD_CHAIN		(-1)	/* consumed: give it back unused */
#define VQ_BROKEN		(-2)	/* the ring makes no sense: stop it */

/**
 * struct vq_region - a region of guest memory, mapped here
 * @gpa:	guest physical address of its start
 * @size:	its size
 * @uva:	the front-end's (QEMU's) address of its start
 * @host:	our address of its start
 * @map:	our mapping that holds it
 * @map_len:	length of @map
 */
struct vq_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *host;
	void *map;
	size_t map_len;
};

/**
 * struct vq_mem - the guest's memory, as the front-end described it
 * @n:		regions
 * @r:		regions
 */
struct vq_mem {
	unsigned int n;
	struct vq_region r[VQ_MEM_REGIONS_MAX];
};

/**
 * struct vq_log - the front-end's log of the guest pages we write, while it
 *		   migrates the guest: one bit per VQ_LOG_PAGE of guest
 *		   physical memory
 * @bits:	the log, shared with the front-end
 * @len:	its length, bytes
 */
struct vq_log {
	uint8_t *bits;
	uint64_t len;
};

#define VQ_LOG_PAGE		4096

/**
 * struct virtq - a split virtqueue in guest memory, and our side of it
 * @num:	descriptors in the ring, 0 if not set up
 * @desc:	descriptor table, NULL if not set up
 * @avail:	driver (available) ring
 * @used:	device (used) ring
 * @last_avail:	next index of @avail we take
 * @used_idx:	next index of @used we fill (published by vq_publish())
 * @signalled:	@used_idx when we last notified the guest
 * @signalled_unknown: not since the ring's base was set: the guest may wait
 *		for any chain (after a migration, for ones the source used)
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 * @log:	where our writes to guest memory are logged, NULL if not
 * @used_log:	guest physical address of the used ring for @log, if its
 *		writes are logged too
 * @used_logged: they are
 */
struct virtq {
	uint16_t num;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_avail;
	uint16_t used_idx;
	uint16_t signalled;
	bool signalled_unknown;
	bool event_idx;
	const struct vq_log *log;
	uint64_t used_log;
	bool used_logged;
};

/**
 * struct vq_elem - one descriptor chain, as buffers
 * @head:	index of its first descriptor, to give it back
 * @n_in:	buffers the device writes (the guest's receive buffers)
 * @n_out:	buffers the device reads (what the guest sends)
 * @in:		those, in our address space
 * @out:	those, in our address space
 */
struct vq_elem {
	uint16_t head;
	unsigned int n_in;
	unsigned int n_out;
	struct iovec in[VQ_IOV_MAX];
	struct iovec out[VQ_IOV_MAX];
};

void *vq_mem_gpa(const struct vq_mem *m, uint64_t gpa, uint64_t len);
void *vq_mem_uva(const struct vq_mem *m, uint64_t uva, uint64_t len);
int vq_setup(struct virtq *vq, const struct vq_mem *m, unsigned int num,
	     uint64_t desc, uint64_t avail, uint64_t used);
int vq_pop(struct virtq *vq, const struct vq_mem *m, struct vq_elem *e);
void vq_push(struct virtq *vq, uint16_t head, uint32_t len);
void vq_publish(struct virtq *vq);
bool vq_notify_due(struct virtq *vq);
bool vq_kicks_wanted(struct virtq *vq);
bool vq_empty(const struct virtq *vq);
void vq_log_write(const struct vq_log *log, uint64_t gpa, uint64_t len);
void vq_state_str(const struct virtq *vq, char *buf, size_t len);

#endif /* VIRTQ_H */
