// SPDX-License-Identifier: GPL-2.0-or-later
/* pcap.c - capture of every frame to and from the guest, for debugging
 *
 * Classic libpcap format (link type Ethernet, microsecond timestamps), which
 * tshark and wireshark read. One write per frame: slow, and meant to be.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "log.h"
#include "pcap.h"
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
