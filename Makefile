# SPDX-License-Identifier: GPL-2.0-or-later

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -pipe
CFLAGS += -fstack-protector-strong -D_FORTIFY_SOURCE=2

SRCS = arp.c checksum.c conf.c flow.c log.c netlink.c passt.c pasta.c \
       pcap.c tap.c tcp.c udp.c util.c
HDRS = $(wildcard *.h)

all: passt pasta

passt: $(SRCS) $(HDRS)
	$(CC) $(CFLAGS) -o $@ $(SRCS)

pasta: passt
	ln -sf passt pasta

clean:
	rm -f passt pasta test/unit_netlink test/unit test/delayline

.PHONY: all clean
