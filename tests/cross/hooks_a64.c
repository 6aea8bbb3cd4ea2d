/* hooks_a64.c - npu_host's hooks for the aarch64 builds of check-cross
 * (Linux under qemu-aarch64, whose guest stack is one fixed mapping): the
 * 1 MiB below npu_run's caller is painted before the run, and the deepest
 * word touched is reported after ("stack: N bytes"), as tests/cross/startup.c
 * does for the Cortex-M boards. */
#include <stdint.h>
#include <stdio.h>

void npu_host_before_run(void);
void npu_host_after_run(void);

#define PAINT 0x5aa5c33cu
#define DEPTH ((uintptr_t)1 << 20)
static uintptr_t run_sp;

void npu_host_before_run(void)
{
	volatile uint32_t *p;
	__asm__ volatile("mov %0, sp" : "=r"(run_sp));
	for (p = (volatile uint32_t *)(run_sp - DEPTH); (uintptr_t)p < run_sp - 64; p++)
		*p = PAINT;
}

void npu_host_after_run(void)
{
	volatile uint32_t *p = (volatile uint32_t *)(run_sp - DEPTH);
	while ((uintptr_t)p < run_sp && *p == PAINT)
		p++;
	fprintf(stderr, "stack: %lu bytes\n", (unsigned long)(run_sp - (uintptr_t)p));
}
