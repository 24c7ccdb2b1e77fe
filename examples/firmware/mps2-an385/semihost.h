/* SPDX-License-Identifier: MIT */
/*
 * Arm semihosting (Arm IHI 0097): the firmware asks the debugger, or QEMU
 * with -semihosting-config enable=on,target=native, to print, to tell the
 * host's time and to end the run.  On a board with no debugger attached
 * the BKPT faults, so a real product would print on UART0 instead.
 */
#ifndef AN385_SEMIHOST_H
#define AN385_SEMIHOST_H

#include <stdbool.h>
#include <stdint.h>

/* Print a NUL-terminated string on the host's console. */
void semihost_write(const char *s);

/*
 * Nanoseconds of the host's clock since an unspecified start, through
 * SYS_ELAPSED and SYS_TICKFREQ; false if the host does not offer them.
 */
bool semihost_host_ns(uint64_t *ns);

/* End the run: the host exits with status 0 if @ok, else with 1. */
_Noreturn void semihost_exit(bool ok);

/* A line being built without libc: text and decimal numbers, then printed. */
struct line {
	char buf[160];
	unsigned int len;
};

void line_str(struct line *l, const char *s);
void line_u64(struct line *l, uint64_t v);
void line_print(struct line *l); /* adds the newline, prints, empties @l */

#endif /* AN385_SEMIHOST_H */
