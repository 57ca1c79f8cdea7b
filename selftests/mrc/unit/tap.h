/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the TAP 13 harness shared by the user-space unit tests: CHECK(),
 * a seedable PRNG and the runner of a test table.
 *
 * A test is a void function that CHECK()s; it failed if any CHECK() in it
 * failed (or it raised failed_checks itself).  main() ends with
 *
 *	return tap_run(tests, ARRAY_SIZE(tests));
 *
 * or, where tests draw on rng(), tap_run_seeded(): it takes the seed from
 * MRC_TEST_SEED, prints it as a TAP comment and reseeds before each test,
 * so MRC_TEST_SEED=N reproduces a run.
 */
#ifndef MRC_UNIT_TAP_H
#define MRC_UNIT_TAP_H

#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/compat.h"

/* How many CHECK()s have failed so far. */
static int failed_checks;

#define CHECK(cond, ...) do {						\
		if (!(cond)) {						\
			printf("# %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);				\
			printf("\n");					\
			failed_checks++;				\
		}							\
	} while (0)

/* One entry of a test table: { "name", fn }. */
struct tap_test {
	const char *name;
	void (*fn)(void);
};

/* splitmix64: small, seedable, good enough for test patterns. */
static u64 rng_state;

static inline u64 rng(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0. */
static inline u32 rnd(u32 n)
{
	return (u32)(rng() % n);
}

/*
 * Runs the @n tests of @tests, printing TAP 13; returns the exit status:
 * 0 only if every test passed.  With @seeded, test i runs with rng_state
 * seed + i, the seed being MRC_TEST_SEED or a fixed default.
 */
static inline int tap_run_tests(const struct tap_test *tests, size_t n,
				bool seeded)
{
	const char *env = getenv("MRC_TEST_SEED");
	u64 seed = env ? strtoull(env, NULL, 0) : 0x6d7263ULL;
	unsigned int i, failed = 0;
	int before;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", n);
	if (seeded)
		printf("# seed %llu (MRC_TEST_SEED)\n",
		       (unsigned long long)seed);
	for (i = 0; i < n; i++) {
		if (seeded)
			rng_state = seed + i;
		before = failed_checks;
		tests[i].fn();
		if (failed_checks != before)
			failed++;
		printf("%sok %u - %s\n", failed_checks != before ? "not " : "",
		       i + 1, tests[i].name);
	}
	printf("# %u of %zu failed\n", failed, n);
	return failed ? 1 : 0;
}

static inline int tap_run(const struct tap_test *tests, size_t n)
{
	return tap_run_tests(tests, n, false);
}

static inline int tap_run_seeded(const struct tap_test *tests, size_t n)
{
	return tap_run_tests(tests, n, true);
}

#endif /* MRC_UNIT_TAP_H */
