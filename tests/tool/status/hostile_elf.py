#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Crafted ELF objects that a target of "cyclock status" maps or runs, to
attack a reader that parses the files a process maps
(tests/tool/cli/test_status_hostile.sh):

  slow OUT SYMBOLS SECTIONS   SECTIONS symbol tables over one table of
                              SYMBOLS symbols, none of them cyclock_status:
                              a reader that scans each table against each
                              symbol does SECTIONS x SYMBOLS steps
  misaligned OUT              section headers at an odd offset
  sparse OUT SIZE             SIZE bytes, all a hole but the header, whose
                              65000 section headers are in the hole (on a
                              full tmpfs, touching a hole through a mapping
                              is SIGBUS)
  exe IN OUT SYMBOLS SECTIONS the program IN, still runnable, with slow's
                              tables for its section headers

The machine (e_machine) is that of the file in $CYCLOCK_LIKE, or x86-64.
"""
import os
import shutil
import struct
import sys

ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
PHDR = struct.Struct("<IIQQQQQQ")
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
SHT_SYMTAB, SHT_STRTAB = 2, 3
STT_OBJECT, STT_FUNC = 1, 2
NAMES = b"\0cyclock_statuz\0cyclock_status\0"


def machine():
    like = os.environ.get("CYCLOCK_LIKE")
    if like:
        with open(like, "rb") as f:
            return struct.unpack("<H", f.read(20)[18:20])[0]
    return 62


def header(shoff, shnum, phnum=1, etype=3):
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    return ELF_HEADER.pack(ident, etype, machine(), 1, 0, 64, shoff, 0, 64, 56, phnum,
                           64, shnum, 0)


def symbols(count):
    """Symbols that a reader must look at and reject: objects named
    cyclock_statuz, functions named cyclock_status."""
    out = bytearray()
    for i in range(count):
        if i % 2:
            out += SYM.pack(16, STT_FUNC | 0x10, 0, 1, 0x1000, 8)
        else:
            out += SYM.pack(1, STT_OBJECT | 0x10, 0, 1, 0x1000, 8)
    return bytes(out)


def tables(base, count, sections):
    """The string table, the symbols and the section headers, to be put
    at file offset @base (8-aligned): bytes, and the headers' offset."""
    strtab = base
    symtab = base + 64
    shoff = symtab + count * SYM.size
    body = NAMES.ljust(64, b"\0") + symbols(count)
    shdrs = SHDR.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    shdrs += SHDR.pack(0, SHT_STRTAB, 0, 0, strtab, len(NAMES), 0, 0, 1, 0)
    for _ in range(sections - 2):
        shdrs += SHDR.pack(0, SHT_SYMTAB, 0, 0, symtab, count * SYM.size, 1, 1, 8, SYM.size)
    return body + shdrs, shoff


def slow(out, count, sections):
    body, shoff = tables(128, count, sections)
    size = 128 + len(body)
    phdr = PHDR.pack(1, 4, 0, 0, 0, size, size, 4096)
    with open(out, "wb") as f:
        f.write(header(shoff, sections).ljust(64, b"\0") + phdr.ljust(64, b"\0") + body)


def misaligned(out):
    body, shoff = tables(129, 64, 8)
    phdr = PHDR.pack(1, 4, 0, 0, 0, 4096, 4096, 4096)
    with open(out, "wb") as f:
        f.write(header(shoff, 8) + phdr.ljust(65, b"\0") + body)


def sparse(out, size):
    shnum = 65000
    phdr = PHDR.pack(1, 4, 0, 0, 0, 4096, 4096, 4096)
    with open(out, "wb") as f:
        f.write(header(size - shnum * SHDR.size, shnum) + phdr)
        f.truncate(size)


def exe(src, out, count, sections):
    shutil.copyfile(src, out)
    os.chmod(out, 0o755)
    with open(out, "r+b") as f:
        f.seek(0, 2)
        base = (f.tell() + 4095) // 4096 * 4096
        body, shoff = tables(base, count, sections)
        f.seek(base)
        f.write(body)
        # e_shoff, then e_shnum and e_shstrndx (0: no section names).
        f.seek(40)
        f.write(struct.pack("<Q", shoff))
        f.seek(60)
        f.write(struct.pack("<HH", sections, 0))


def main(argv):
    what = argv[1]
    if what == "slow":
        slow(argv[2], int(argv[3]), int(argv[4]))
    elif what == "misaligned":
        misaligned(argv[2])
    elif what == "sparse":
        sparse(argv[2], int(argv[3]))
    elif what == "exe":
        exe(argv[2], argv[3], int(argv[4]), int(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
