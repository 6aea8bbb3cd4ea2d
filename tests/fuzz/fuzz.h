/* fuzz.h - what the harnesses in tests/fuzz share.
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput for one reader entry
 * point. Built with clang -fsanitize=fuzzer it is a libFuzzer target
 * (make fuzz); linked with driver.c it replays files (make check). A
 * harness reads only its input, never prints, writes no file, and frees
 * everything it got (the sanitizer builds report leaks). */
#ifndef NPUKIT_FUZZ_H
#define NPUKIT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the reader promised does not hold: stop here, so libFuzzer
 * saves the input and the replay driver fails. */
#define FUZZ_ASSERT(c) do { if (!(c)) abort(); } while (0)

/* A failure says what failed: a non-empty, terminated message. (It may
 * quote control characters from the input; the CLI escapes them when it
 * prints the message as one line.) */
static inline void fuzz_check_diag(const ir_diag *d)
{
	size_t n = strnlen(d->msg, sizeof d->msg);
	FUZZ_ASSERT(n > 0 && n < sizeof d->msg);
}

/* A NUL-terminated copy of the input, for readers of text. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s) {
		if (size)
			memcpy(s, data, size);
		s[size] = 0;
	}
	return s;
}

#endif
