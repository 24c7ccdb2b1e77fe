/* SPDX-License-Identifier: MIT */
/*
 * The few parts of the Arm MPS2 board with the AN385 FPGA image
 * (Cortex-M3) that the example uses: two CMSDK APB timers and the NVIC.
 * Addresses and interrupt numbers are from Arm's AN385 and agree with
 * QEMU's model of the board (hw/arm/mps2.c).
 */
#ifndef AN385_BOARD_H
#define AN385_BOARD_H

#include <stdint.h>

/* Every APB peripheral, the timers among them, runs on the 25 MHz clock. */
#define AN385_PCLK_HZ 25000000u

/*
 * A CMSDK APB timer (Arm DDI 0479): a 32-bit down-counter that counts from
 * RELOAD to 0 at PCLK, raises its interrupt on reaching 0 and starts again
 * from RELOAD, so one period is RELOAD + 1 counts.  Writing RELOAD also
 * loads VALUE.  INTSTATUS reads the interrupt; writing 1 there clears it.
 */
struct cmsdk_timer {
	volatile uint32_t ctrl;
	volatile uint32_t value;
	volatile uint32_t reload;
	volatile uint32_t intstatus; /* INTCLEAR when written */
};

#define CMSDK_TIMER_EN (1u << 0)
#define CMSDK_TIMER_IRQEN (1u << 3)

#define AN385_TIMER0 ((struct cmsdk_timer *)0x40000000u)
#define AN385_TIMER1 ((struct cmsdk_timer *)0x40001000u)
#define AN385_TIMER0_IRQ 8
#define AN385_TIMER1_IRQ 9

/* The NVIC's set-enable register for interrupts 0..31. */
#define NVIC_ISER0 (*(volatile uint32_t *)0xe000e100u)

/* Start @t counting down from @reload, with its interrupt raised at 0. */
static inline void cmsdk_timer_start(struct cmsdk_timer *t, uint32_t reload)
{
	t->ctrl = 0;
	t->reload = reload;
	t->intstatus = 1;
	t->ctrl = CMSDK_TIMER_EN | CMSDK_TIMER_IRQEN;
}

static inline void nvic_enable(unsigned int irq)
{
	NVIC_ISER0 = 1u << irq;
}

/*
 * The pieces of a sleep that loses no interrupt: mask interrupts, look at
 * what they changed, WFI (which wakes on a pending interrupt even while
 * masked), unmask so it is taken.  One that arrives between the look and
 * the WFI then ends the WFI at once instead of waiting for the next.
 */
static inline void irq_disable(void)
{
	__asm__ __volatile__("cpsid i" ::: "memory");
}

static inline void irq_enable(void)
{
	__asm__ __volatile__("cpsie i" ::: "memory");
}

static inline void wait_for_interrupt(void)
{
	__asm__ __volatile__("wfi" ::: "memory");
}

#endif /* AN385_BOARD_H */
