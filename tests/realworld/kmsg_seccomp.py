#!/usr/bin/env python3
"""The kernel's seccomp records since a point, for test_units.sh.

  kmsg_seccomp.py SEQ COMMS MULTIARCH

Reads /dev/kmsg (root) without waiting and prints "seq N", the sequence
number of its last record, then one line for each seccomp record (audit
type 1326) after record SEQ whose comm matches the regular expression
COMMS: the program, its pid (the machine's) and executable, what the filter
did (killed, or refused with an errno) and the system call, named from the
kernel's headers of MULTIARCH (/usr/include/MULTIARCH/asm/unistd_64.h).
A process a filter kills (SECCOMP_RET_KILL_*) is logged so by default
(/proc/sys/kernel/seccomp/actions_logged), auditd running or not; the
pids are the machine's, whatever namespace the process ran in.
"""
import errno
import os
import re
import sys


def syscall_names(multiarch):
    """The numbers' names, from the first header there is."""
    for h in ("/usr/include/%s/asm/unistd_64.h" % multiarch, "/usr/include/asm-generic/unistd.h"):
        try:
            text = open(h).read()
        except OSError:
            continue
        return {int(n): name for name, n in re.findall(r"#define __NR_(\w+)\s+(\d+)\s*$", text, re.M)}
    return {}


def records():
    """(sequence number, message) of each record in the kernel's buffer;
    none where it cannot be read (no /dev/kmsg in a container)."""
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    while True:
        try:
            rec = os.read(fd, 8192).decode("utf-8", "replace")
        except OSError as e:
            if e.errno == errno.EPIPE:  # overwritten while read: the next
                continue
            return                      # EAGAIN: the end
        head, _, msg = rec.partition(";")
        yield int(head.split(",")[1]), msg


def action(code):
    """What the filter's return value @code did."""
    kind = code & 0xffff0000
    if kind == 0x80000000:
        return "killed"
    if kind == 0:
        return "killed (its thread)"
    if kind == 0x00050000:
        return "refused (errno %d)" % (code & 0xffff)
    return "code %#x" % code


def main():
    since, comms, names = int(sys.argv[1]), re.compile(sys.argv[2]), syscall_names(sys.argv[3])
    last, out = since, []
    for seq, msg in records():
        last = seq
        if seq <= since or "type=1326" not in msg:
            continue
        f = {k: v.strip('"') for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', msg)}
        if not comms.search(f.get("comm", "")):
            continue
        nr = int(f.get("syscall", "-1"))
        out.append("%s (pid %s, %s): %s at %s (%d)" % (f.get("comm"), f.get("pid"), f.get("exe", "?"),
                                                     action(int(f.get("code", "0"), 16)),
                                                     names.get(nr, "?"), nr))
    print("seq", last)
    for line in out:
        print(line)


if __name__ == "__main__":
    main()
