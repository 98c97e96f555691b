// SPDX-License-Identifier: GPL-2.0-or-later
/* pcap.c - capture of every frame to and from the guest, for debugging
 *
 * Classic libpcap format (link type Ethernet, microsecond timestamps), which
 * tshark and wireshark read. One write per frame: slow, and meant to be.
 *
 * TCP frames of the tap device's segmentation offload (up to 64 KiB, to be
 * cut into segments of gso_size bytes by the kernel, or by us for the
 * guest's) are captured as the segments they stand for, each with its own
 * lengths, sequence number, flags and complete checksums: the capture shows
 * what a link of the guest's MTU would carry, and proves the cut right.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "checksum.h"
#include "log.h"
#include "pcap.h"
#include "pkt.h"
#include "util.h"

#define PCAP_MAGIC		0xa1b2c3d4
#define PCAP_LINKTYPE_ETHERNET	1
#define PCAP_SNAPLEN		65536

static int pcap_fd = -1;

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct pcap_rec_hdr {
	uint32_t tv_sec;
	uint32_t tv_usec;
	uint32_t caplen;
	uint32_t len;
};

/**
 * pcap_init() - create the capture file and write its header
 * @path:	file path, empty for no capture
 */
void pcap_init(const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC, .major = 2, .minor = 4,
		.snaplen = PCAP_SNAPLEN, .linktype = PCAP_LINKTYPE_ETHERNET,
	};

	if (!*path)
		return;
	pcap_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (pcap_fd < 0)
		die("Can't open --pcap file %s: %s", path, strerror(errno));
	if (write_all(pcap_fd, &h, sizeof(h)))
		die("Can't write --pcap file %s: %s", path, strerror(errno));
	info("Capturing frames to %s", path);
}

/**
 * pcap_active() - are frames being captured?
 *
 * Return: true if a capture file is open
 */
bool pcap_active(void)
{
	return pcap_fd >= 0;
}

/**
 * pcap_frame() - append a frame to the capture, if capturing
 * @frame:	frame from the destination MAC address on
 * @len:	frame length
 */
void pcap_frame(const uint8_t *frame, size_t len)
{
	struct pcap_rec_hdr h;
	struct timeval tv;
	struct iovec iov[2];

	if (pcap_fd < 0)
		return;
	gettimeofday(&tv, NULL);
	h.tv_sec = tv.tv_sec;
	h.tv_usec = tv.tv_usec;
	h.caplen = h.len = len;
	iov[0] = (struct iovec){ &h, sizeof(h) };
	iov[1] = (struct iovec){ (void *)frame, len };
	if (writev(pcap_fd, iov, 2) < 0)
		err_ratelimit("pcap write: %s", strerror(errno));
}

/**
 * pcap_tcp_hdrs() - find the headers of a TCP frame, IPv4 or IPv6
 * @frame:	frame from the destination MAC address on
 * @len:	frame length
 * @l3:		set to the IP header's offset
 * @l4:		set to the TCP header's offset
 *
 * Return: length of all headers, 0 if not TCP over IP without extensions
 */
static size_t pcap_tcp_hdrs(const uint8_t *frame, size_t len, size_t *l3,
			    size_t *l4)
{
	struct pkt_view v = { frame, len }, w;
	const struct ethhdr *eh = pkt_pull(&v, sizeof(*eh));
	const struct tcphdr *th;

	*l3 = ETH_HLEN;
	if (eh && eh->h_proto == htons(ETH_P_IP)) {
		const struct iphdr *ih;

		w = v;
		ih = pkt_pull(&w, sizeof(*ih));

		if (!ih || ih->protocol != IPPROTO_TCP || ih->ihl < 5 ||
		    !pkt_pull(&v, ih->ihl * 4))
			return 0;
	} else if (eh && eh->h_proto == htons(ETH_P_IPV6)) {
		const struct ip6_hdr *ip6h = pkt_pull(&v, sizeof(*ip6h));

		if (!ip6h || ip6h->ip6_nxt != IPPROTO_TCP)
			return 0;
	} else {
		return 0;
	}
	*l4 = len - v.len;
	w = v;
	th = pkt_pull(&w, sizeof(*th));
	if (!th || th->doff < 5 || !pkt_pull(&v, th->doff * 4))
		return 0;
	return len - v.len;
}

/**
 * pcap_segment_fix() - make one cut segment a valid packet of its own
 * @seg:	segment: headers copied from the large frame, then its payload
 * @l3:		offset of the IP header
 * @l4:		offset of the TCP header
 * @len:	segment length
 * @i:		which segment, from 0
 * @off:	its payload's offset in the large frame's payload
 * @last:	it is the last one
 */
static void pcap_segment_fix(uint8_t *seg, size_t l3, size_t l4, size_t len,
			     unsigned int i, size_t off, bool last)
{
	struct tcphdr *th = (struct tcphdr *)(seg + l4);
	uint16_t l4_len = (uint16_t)(len - l4);
	uint32_t pseudo;

	if (!last)
		th->th_flags &= (uint8_t)~(TH_FIN | TH_PUSH);
	if (i)
		th->th_flags &= (uint8_t)~0x80;	/* CWR: the first only */
	th->seq = htonl(ntohl(th->seq) + (uint32_t)off);
	th->check = 0;

	if (l3 + sizeof(struct iphdr) <= l4 &&
	    ((struct iphdr *)(seg + l3))->version == 4) {
		struct iphdr *ih = (struct iphdr *)(seg + l3);

		ih->tot_len = htons((uint16_t)(len - l3));
		ih->id = htons((uint16_t)(ntohs(ih->id) + i));
		ih->check = 0;
		ih->check = csum(ih, ih->ihl * 4, 0);
		pseudo = csum_pseudo4((struct in_addr){ ih->saddr },
				      (struct in_addr){ ih->daddr },
				      IPPROTO_TCP, l4_len);
	} else {
		struct ip6_hdr *ip6h = (struct ip6_hdr *)(seg + l3);

		ip6h->ip6_plen = htons(l4_len);
		pseudo = csum_pseudo6(&ip6h->ip6_src, &ip6h->ip6_dst,
				      IPPROTO_TCP, l4_len);
	}
	th->check = csum(th, l4_len, pseudo);
}

/**
 * pcap_frame_gso() - append a frame, or the segments a large one stands for
 * @frame:	frame from the destination MAC address on
 * @len:	frame length
 * @gso_size:	payload bytes per segment, 0 if the frame is not to be cut
 */
void pcap_frame_gso(const uint8_t *frame, size_t len, size_t gso_size)
{
	/* IP and TCP headers 4-byte aligned after the Ethernet header */
	static uint8_t buf[2 + PCAP_SNAPLEN] __attribute__((aligned(4)));
	uint8_t *seg = buf + 2;
	size_t hdrs, l3, l4, off;
	unsigned int i;

	if (pcap_fd < 0)
		return;
	hdrs = gso_size ? pcap_tcp_hdrs(frame, len, &l3, &l4) : 0;
	if (!hdrs || len - hdrs <= gso_size || hdrs + gso_size > PCAP_SNAPLEN) {
		pcap_frame(frame, len);
		return;
	}
	for (i = 0, off = 0; off < len - hdrs; i++, off += gso_size) {
		size_t n = MIN(gso_size, len - hdrs - off);

		memcpy(seg, frame, hdrs);
		memcpy(seg + hdrs, frame + hdrs + off, n);
		pcap_segment_fix(seg, l3, l4, hdrs + n, i, off,
				 off + n == len - hdrs);
		pcap_frame(seg, hdrs + n);
	}
}
