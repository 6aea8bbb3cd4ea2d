/* startup.c - bare-metal start for the Cortex-M boards of make check-cross
 * (qemu-system-arm mps2-an386, mps2-an500, mps3-an547): the vector table,
 * the FPU (and MVE) on, .bss zeroed, newlib's semihosting I/O (librdimon),
 * argv from the semihosting command line, main's status as qemu's exit
 * status. The image is loaded by qemu at its link addresses (no copy of
 * .data). With NPU_HOST_HOOKS, npu_host.c calls npu_host_before_run and
 * npu_host_after_run around npu_run: the stack below is painted before and
 * the deepest word touched is reported after ("stack: N bytes"); with
 * NPU_HOST_TICKS also the SysTick ticks of the core clock npu_run took
 * ("systick: N ticks"; under qemu -icount a count of instructions, as
 * bench/mcu_icount.sh uses it), and with NPU_HOST_OPS each op's ("op I: N
 * ticks", after npu_run's line). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern uint32_t __bss_start__[], __bss_end__[], __stack_top[], __stack_limit[];
extern int main(int argc, char **argv);
extern void initialise_monitor_handles(void);
void Reset_Handler(void);
void npu_host_before_run(void);
void npu_host_after_run(void);

/* what crti/crtn would give newlib's init/fini arrays (nothing to do) */
void _init(void);
void _fini(void);
void _init(void) {}
void _fini(void) {}

static uint32_t semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

static void exit_status(int status)
{
	/* SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit with the status */
	uint32_t block[2] = {0x20026u, (uint32_t)status};
	fflush(NULL);
	semihost(0x20, block);
	for (;;)
		;
}

static void fault(void)
{
	static const char msg[] = "cross: hard fault\n";
	semihost(0x04, msg);	/* SYS_WRITE0 */
	exit_status(70);
}

#if defined(NPU_HOST_TICKS)
/* SysTick counts down 2^24 core clocks per wrap */
static volatile uint32_t tick_wraps;
static void systick(void)
{
	tick_wraps++;
}
#define SYSTICK_HANDLER systick
#else
#define SYSTICK_HANDLER fault
#endif

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
	(void (*)(void))(uintptr_t)__stack_top, Reset_Handler, fault, fault, fault, fault, fault,
	0, 0, 0, 0, fault, fault, 0, fault, SYSTICK_HANDLER,
};

static void c_start(void)
{
	static char cmd[1024], *argv[32];
	uint32_t block[2] = {(uint32_t)(uintptr_t)cmd, sizeof cmd - 1};
	int argc = 0;
	char *p = cmd;
	memset(__bss_start__, 0, (size_t)((char *)__bss_end__ - (char *)__bss_start__));
	initialise_monitor_handles();
	if (semihost(0x15, block) == 0) {	/* SYS_GET_CMDLINE: words split at spaces */
		cmd[block[1]] = 0;
		while (*p && argc < 31) {
			while (*p == ' ')
				*p++ = 0;
			if (*p)
				argv[argc++] = p;
			while (*p && *p != ' ')
				p++;
		}
	}
	argv[argc] = 0;
	exit_status(main(argc, argv));
}

/* The FPU (CP10, CP11; on the M55 also MVE) before any compiled code that
 * might use it. */
__attribute__((naked)) void Reset_Handler(void)
{
	__asm__ volatile(
		"ldr r0, =0xE000ED88\n\t"
		"ldr r1, [r0]\n\t"
		"orr r1, r1, #(0xF << 20)\n\t"
		"str r1, [r0]\n\t"
		"dsb\n\t"
		"isb\n\t"
		"b %0\n\t"
		".ltorg" : : "i"(c_start));
}

/* ---- stack painting around npu_run */
#define PAINT 0x5aa5c33cu
#define SYST_CSR (*(volatile uint32_t *)0xe000e010u)
#define SYST_RVR (*(volatile uint32_t *)0xe000e014u)
#define SYST_CVR (*(volatile uint32_t *)0xe000e018u)
static uintptr_t run_sp;
#if defined(NPU_HOST_TICKS)
/* ticks since npu_host_before_run: from 0xffffff down to 0 (its
 * interrupt), 2^24 a wrap */
static uint64_t ticks(void)
{
	uint32_t w, left;
	do
		w = tick_wraps, left = SYST_CVR;
	while (w != tick_wraps);
	return (uint64_t)w * 0x1000000u + (0xffffffu - left);
}
#endif
#if defined(NPU_HOST_TICKS) && defined(NPU_HOST_OPS)
static uint64_t op_at[1024];
static unsigned op_n;
void npu_host_after_op(unsigned i);
void npu_host_after_op(unsigned i)
{
	if (i < sizeof op_at / sizeof op_at[0])
		op_at[i] = ticks(), op_n = i + 1;
}
#endif

void npu_host_before_run(void)
{
	uint32_t *p;
	__asm__ volatile("mov %0, sp" : "=r"(run_sp));
	for (p = __stack_limit; (uintptr_t)p < run_sp - 64; p++)
		*p = PAINT;
#if defined(NPU_HOST_TICKS)
	SYST_RVR = 0xffffff;
	SYST_CVR = 0;	/* reloads on the first tick */
	tick_wraps = 0;
#if defined(NPU_HOST_OPS)
	op_n = 0;
#endif
	SYST_CSR = 7;	/* the core clock, its interrupt, on */
#endif
}

void npu_host_after_run(void)
{
#if defined(NPU_HOST_TICKS)
	uint64_t t = ticks();
	SYST_CSR = 0;
	fprintf(stderr, "systick: %llu ticks\n", (unsigned long long)t);
#if defined(NPU_HOST_OPS)
	for (unsigned i = 0; i < op_n; i++)
		fprintf(stderr, "op %u: %llu ticks\n", i, (unsigned long long)(op_at[i] - (i ? op_at[i - 1] : 0)));
#endif
#endif
	uint32_t *p = __stack_limit;
	while ((uintptr_t)p < run_sp && *p == PAINT)
		p++;
	fprintf(stderr, "stack: %lu bytes\n", (unsigned long)(run_sp - (uintptr_t)p));
}
