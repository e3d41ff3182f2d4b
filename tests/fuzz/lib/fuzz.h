/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The libFuzzer targets of user/lib's parsers (docs/TESTING.md, "libFuzzer
 * targets"). Each target is one function of the input bytes that returns
 * 0, or -1 when an invariant of the code under test does not hold (a
 * sanitizer finding aborts by itself). Compiled with -DXFAB_FUZZ_ENTRY,
 * the file also defines libFuzzer's entry point, which aborts on -1;
 * without it, the same function is what tests/unit/test_fuzz_regress.c
 * replays the kept findings through (plain and under ASan/UBSan).
 */
#ifndef XFAB_FUZZ_H
#define XFAB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int xfab_fuzz_config(const uint8_t *data, size_t size);
int xfab_fuzz_control(const uint8_t *data, size_t size);
int xfab_fuzz_job(const uint8_t *data, size_t size);
int xfab_fuzz_fabric(const uint8_t *data, size_t size);

/* An invariant that failed: said on stderr, the target returns -1. */
#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			return -1;                                                                 \
		}                                                                                  \
	} while (0)

/* The input as a C string (the parsers read NUL-terminated text): a
 * fresh copy, so the sanitizers see an overread past its end. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);

	if (t) {
		for (size_t i = 0; i < size; i++)
			t[i] = (char)data[i];
		t[size] = '\0';
	}
	return t;
}

#ifdef XFAB_FUZZ_ENTRY
#define XFAB_FUZZ_TARGET(fn)                                                                       \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		if (fn(data, size))                                                                \
			abort();                                                                   \
		return 0;                                                                          \
	}
#else
#define XFAB_FUZZ_TARGET(fn)
#endif

#endif
