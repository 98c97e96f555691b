# SPDX-License-Identifier: GPL-2.0-or-later

CC ?= gcc
CFLAGS ?= -O2 -g
BASE_CFLAGS = -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -pipe -I$(CURDIR)
HARDEN = -fstack-protector-strong -D_FORTIFY_SOURCE=2
SAN = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
      -fno-omit-frame-pointer

SRCS = arp.c bypass.c bypass_agent.c checksum.c conf.c ctl.c dhcp.c dhcpv6.c dgram_migrate.c dns.c flow.c follow.c frag.c fwd.c fwd_rule.c icmp.c icmp_err.c inany.c input.c ip.c isolation.c \
       link.c log.c mig_handover.c mig_io.c migrate.c netlink.c ndp.c passt.c pasta.c pcap.c pkt.c repair.c resolv.c splice.c stream.c tap.c tcp.c tcp_migrate.c tcp_repair.c udp.c util.c \
       vhost_user.c virtq.c
LIB_SRCS = $(filter-out passt.c,$(SRCS))
HDRS = $(wildcard *.h)

all: passt pasta pesto passt-repair

passt: $(SRCS) $(HDRS)
	$(CC) $(CFLAGS) $(BASE_CFLAGS) $(HARDEN) -o $@ $(SRCS)

pasta: passt
	ln -sf passt pasta

PESTO_SRCS = pesto.c fwd_rule.c inany.c
pesto: $(PESTO_SRCS) $(HDRS)
	$(CC) $(CFLAGS) $(BASE_CFLAGS) $(HARDEN) -o $@ $(PESTO_SRCS)

# The privileged helper for migration's TCP_REPAIR: on its own, libc only
passt-repair: passt-repair.c
	$(CC) $(CFLAGS) $(BASE_CFLAGS) $(HARDEN) -o $@ passt-repair.c

# The same daemon under ASan and UBSan, for make check's second pass; its
# objects, compiled once, make the unit tests too
SAN_OBJS = $(SRCS:%.c=test/san/obj/%.o)
LIB_SAN_OBJS = $(filter-out test/san/obj/passt.o,$(SAN_OBJS))
test/san/obj/%.o: %.c $(HDRS)
	@mkdir -p test/san/obj
	$(CC) $(BASE_CFLAGS) $(SAN) -c -o $@ $<

test/san/passt: $(SAN_OBJS)
	$(CC) $(BASE_CFLAGS) $(SAN) -o $@ $(SAN_OBJS)
	chmod 755 test/san

test/san/pasta: test/san/passt
	ln -sf passt $@

# The release build, but a call outside the seccomp list runs and the kernel
# logs it: make seccomp-audit derives the list again from a whole test run
test/seclog/passt: $(SRCS) $(HDRS)
	mkdir -p test/seclog
	$(CC) $(CFLAGS) $(BASE_CFLAGS) $(HARDEN) -DISOLATE_SECCOMP_LOG -o $@ \
		$(SRCS)
	chmod 755 test/seclog

test/seclog/pasta: test/seclog/passt
	ln -sf passt $@

# Unit tests, with the daemon's code and the shared test helpers
UNIT_TESTS = test/unit test/unit_dhcp test/unit_dhcpv6 test/unit_ndp test/unit_fwd test/unit_conf \
	     test/unit_tcp
$(UNIT_TESTS): test/%: test/%.c test/unit_lib.c test/unit_lib.h $(LIB_SAN_OBJS) \
		$(HDRS)
	$(CC) $(BASE_CFLAGS) $(SAN) -o $@ $< test/unit_lib.c $(LIB_SAN_OBJS)

NETLINK_SAN_OBJS = $(addprefix test/san/obj/,netlink.o inany.o log.o util.o)
test/unit_netlink: test/unit_netlink.c $(NETLINK_SAN_OBJS) $(HDRS)
	$(CC) $(BASE_CFLAGS) $(SAN) -o $@ test/unit_netlink.c $(NETLINK_SAN_OBJS)

test/delayline: test/delayline.c test/tool_lib.h
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ test/delayline.c -lm

# Connection rate and ping-pong latency, for test/bench-conn.sh
test/no_ipv6: test/no_ipv6.c
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ test/no_ipv6.c

test/tcprr: test/tcprr.c test/tool_lib.h
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -pthread -o $@ test/tcprr.c

test/notifrtt: test/notifrtt.c bypass.h
	$(CC) $(CFLAGS) $(BASE_CFLAGS) -o $@ test/notifrtt.c

TEST_BINS = $(UNIT_TESTS) test/unit_netlink test/delayline test/tcprr test/no_ipv6 \
	    test/san/pasta

# libFuzzer targets (clang): one frame, passt's stream, DHCP/DHCPv6/NDP,
# forwarding rules (specs and the control protocol's form), a vhost-user
# guest's virtqueue
FUZZ_TARGETS = test/fuzz/fuzz_frame test/fuzz/fuzz_stream test/fuzz/fuzz_dhcp \
	       test/fuzz/fuzz_rules test/fuzz/fuzz_virtq \
	       test/fuzz/fuzz_migrate
FUZZ_SECS ?= 60
# The daemon's objects instrumented once (fuzzer-no-link), for every target
# (clang sees NLMSG_OK()'s signed and unsigned comparison, gcc doesn't)
FUZZ_SAN = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	   -fno-omit-frame-pointer -Wno-sign-compare
FUZZ_OBJS = $(LIB_SRCS:%.c=test/fuzz/obj/%.o)
test/fuzz/obj/%.o: %.c $(HDRS)
	@mkdir -p test/fuzz/obj
	clang $(BASE_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_TARGETS): test/fuzz/%: test/fuzz/%.c test/fuzz/fuzz_lib.c \
		 test/fuzz/fuzz_lib.h $(FUZZ_OBJS) $(HDRS)
	clang $(BASE_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< \
		test/fuzz/fuzz_lib.c $(FUZZ_OBJS)

# Run as root: install what is missing, create namespaces and a test user,
# and run pasta as that user
setup:
	test/setup.sh

# Integration tests run what users run: ./passt and ./pasta, with the
# release flags and seccomp list. Then, where it is cheap, a second pass of
# the tests that feed the daemon hostile or unusual input, under ASan/UBSan.
# One prove run, its files in lanes side by side (test/check.sh)
SAN_TESTS = test/10-http-download.t test/12-passt-socket.t \
	    test/14-addr-policy.t test/17-hostile-frames.t \
	    test/66-passt-tapsock.t test/86-vhost-user-hostile.t \
	    test/81-bypass.t
check: setup all $(TEST_BINS)
	PASTA=$(CURDIR)/pasta test/check.sh $(SAN_TESTS)

# Every system call the daemon makes outside its seccomp list, over the
# whole suite (test/seccomp-audit.sh); not part of check: it runs it again
seccomp-audit: setup all $(TEST_BINS) test/seclog/pasta
	test/seccomp-audit.sh

demo: setup all
	test/demo.sh

# The fuzz targets built (clang installed first), not run
fuzz-build:
	test/setup.sh clang libclang-rt-14-dev
	$(MAKE) $(FUZZ_TARGETS)

# Each fuzz target for FUZZ_SECS seconds, as root (see test/fuzz/run.sh)
fuzz: fuzz-build
	test/fuzz/run.sh $(FUZZ_SECS) $(FUZZ_TARGETS)

# Side by side with the host, Debian's pasta and slirp4netns, through the
# delay line: the full table (doc/benchmarks.md), or a short run that only
# proves every tool produced a number (in CI)
bench: setup all test/delayline test/tcprr
	test/setup.sh gnuplot qemu-system-x86 busybox-static cpio
	test/bench.sh
	test/guest/build.sh
	BENCH_PASST_OUT=doc/benchmarks-passt.md \
		BENCH_PASST_TOOLS="ours debian ours-vu upstream upstream-vu" \
		test/bench-passt.sh
	BENCH_SLOW_OUT=doc/benchmarks-slowreader.md test/bench-slowreader.sh
	BENCH_RR_OUT=doc/benchmarks-rr.md test/bench-rr.sh
	BENCH_MTU_OUT=doc/benchmarks-mtu.md test/bench-mtu.sh
	BENCH_CONN_OUT=doc/benchmarks-conn.md test/bench-conn.sh

# 10,000 concurrent TCP connections, then 1,000 new ones a second for 60 s,
# through the optimised build (doc/benchmarks.md, "Load"); and a zero window
# held for 300 s, past the retry limit, in real time (check: 30 s)
load: setup all
	PASTA=$(CURDIR)/pasta LOAD_RATE=1000 LOAD_SECS=60 prove -v test/42-load.t
	PASTA=$(CURDIR)/pasta ZERO_WINDOW_PAUSE=300 prove -v test/46-zero-window.t

bench-quick: setup all test/delayline test/tcprr
	test/bench.sh --quick
	test/bench-rr.sh --quick
	test/bench-mtu.sh --quick
	test/bench-conn.sh --quick

clean:
	rm -rf passt pasta pesto passt-repair test/san test/seclog test/fuzz/obj $(TEST_BINS) \
	       test/notifrtt \
	       $(FUZZ_TARGETS)

# Installation: DESTDIR stages the tree (packaging), PREFIX, BINDIR and
# MANDIR place it. pasta is a symbolic link to passt, beside it; pesto,
# the control socket's client, and passt-repair, migration's helper, programs
# of their own
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=

install: passt pesto passt-repair doc/passt.1 doc/pasta.1 doc/pesto.1 \
	 doc/passt-repair.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 passt $(DESTDIR)$(BINDIR)/passt
	ln -sf passt $(DESTDIR)$(BINDIR)/pasta
	install -m 755 pesto $(DESTDIR)$(BINDIR)/pesto
	install -m 755 passt-repair $(DESTDIR)$(BINDIR)/passt-repair
	install -m 644 doc/passt.1 doc/pasta.1 doc/pesto.1 doc/passt-repair.1 \
		$(DESTDIR)$(MANDIR)/man1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/passt $(DESTDIR)$(BINDIR)/pasta \
	      $(DESTDIR)$(BINDIR)/pesto $(DESTDIR)$(BINDIR)/passt-repair \
	      $(DESTDIR)$(MANDIR)/man1/passt.1 $(DESTDIR)$(MANDIR)/man1/pasta.1 \
	      $(DESTDIR)$(MANDIR)/man1/pesto.1 \
	      $(DESTDIR)$(MANDIR)/man1/passt-repair.1

.PHONY: all setup check seccomp-audit demo fuzz-build fuzz bench bench-quick load clean install \
	uninstall
