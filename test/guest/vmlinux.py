#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/guest/vmlinux.py - the uncompressed kernel inside a bzImage, for QEMU
# to boot directly through its PVH entry point
#
# Usage: vmlinux.py BZIMAGE OUT
#
# Under TCG, a bzImage spends most of a guest's boot decompressing itself
# (Debian's kernels are xz: about 4 of the 7 s, on this machine's CPUs);
# QEMU loads an ELF kernel with a PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY,
# CONFIG_PVH) as it is. Writes OUT only if the payload (xz or gzip) unpacks
# to such an ELF file; exits 1 otherwise, and the caller keeps the bzImage.

import gzip
import lzma
import struct
import sys

PVH_NOTE = 18			# XEN_ELFNOTE_PHYS32_ENTRY
PT_NOTE = 4


def payloads(data):
    """Each candidate compressed stream in the image, unpacked"""
    for magic, unpack in ((b"\xfd7zXZ\x00", lzma.LZMADecompressor),
                          (b"\x1f\x8b\x08", gzip.GzipFile)):
        at = data.find(magic)
        while at >= 0:
            try:
                if unpack is lzma.LZMADecompressor:
                    yield unpack().decompress(data[at:])
                else:
                    yield gzip.decompress(data[at:])
            except (lzma.LZMAError, OSError, EOFError):
                pass
            at = data.find(magic, at + 1)


def has_pvh_note(elf):
    """Is this a 64-bit little-endian ELF file with a PVH entry note?"""
    if elf[:4] != b"\x7fELF" or len(elf) < 64 or elf[4] != 2 or elf[5] != 1:
        return False
    phoff, = struct.unpack_from("<Q", elf, 32)
    phentsize, phnum = struct.unpack_from("<HH", elf, 54)
    for i in range(phnum):
        ptype, _, off, _, _, size = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if ptype != PT_NOTE:
            continue
        pos, end = off, min(off + size, len(elf))
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, pos)
            if ntype == PVH_NOTE:
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def main():
    if len(sys.argv) != 3:
        sys.exit("Usage: vmlinux.py BZIMAGE OUT")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    for elf in payloads(data):
        if has_pvh_note(elf):
            with open(sys.argv[2], "wb") as f:
                f.write(elf)
            return 0
    print(f"{sys.argv[1]}: no ELF kernel with a PVH entry inside",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
