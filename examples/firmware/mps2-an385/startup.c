/* SPDX-License-Identifier: MIT */
/*
 * Vector table and reset handler for the Cortex-M3 of the AN385.
 *
 * The core itself loads the stack pointer from the table's first word and
 * jumps to its second, so the reset handler runs in C with the stack
 * already set; it copies .data from its load image, zeroes .bss and calls
 * main().  Nothing here needs libc.
 */
#include <stdint.h>

#include "semihost.h"

int main(void);
void timer0_irq(void);
void timer1_irq(void);
void reset_handler(void);

/* Placed by an385.ld. */
extern uint32_t __stack_top[];
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];

/*
 * An exception nobody expects (a fault, a stray interrupt): say so and
 * end the run with a failure rather than hang until the test's timeout.
 */
static void unexpected(void)
{
	semihost_write("FAIL unexpected exception\n");
	semihost_exit(false);
}

/*
 * The copy loops are plain loops; the firmware is built with
 * -fno-tree-loop-distribute-patterns so GCC does not turn them back into
 * calls to memcpy() and memset(), which this image does not have.
 */
void reset_handler(void)
{
	const uint32_t *src = __data_load;
	uint32_t *dst;

	for (dst = __data_start; dst < __data_end;)
		*dst++ = *src++;
	for (dst = __bss_start; dst < __bss_end;)
		*dst++ = 0;
	semihost_exit(main() == 0);
}

typedef void (*vector_fn)(void);

/*
 * The core's 16 exceptions, then the AN385's interrupts up to TIMER1
 * (IRQ 9): 0 UART0 RX ... 8 TIMER0, 9 TIMER1.  The rest stay disabled.
 */
__attribute__((section(".vectors"), used)) static const vector_fn vectors[16 + 10] = {
	(vector_fn)(uintptr_t)__stack_top, /* initial stack pointer */
	reset_handler,
	unexpected, /* NMI */
	unexpected, /* HardFault */
	unexpected, /* MemManage */
	unexpected, /* BusFault */
	unexpected, /* UsageFault */
	0, 0, 0, 0, /* reserved */
	unexpected, /* SVCall */
	unexpected, /* DebugMonitor */
	0,          /* reserved */
	unexpected, /* PendSV */
	unexpected, /* SysTick */
	unexpected, unexpected, unexpected, unexpected, /* IRQ 0..3: UART0, UART1 */
	unexpected, unexpected, unexpected, unexpected, /* IRQ 4..7: UART2, GPIO */
	timer0_irq,                                     /* IRQ 8 */
	timer1_irq,                                     /* IRQ 9 */
};
