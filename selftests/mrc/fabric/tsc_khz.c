// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_khz - print this x86 host's TSC frequency in kHz, measured: TSC
 * ticks over 200 ms of CLOCK_MONOTONIC_RAW.
 *
 * The fabric (run.sh) passes it to its guests as tsc_early_khz: under
 * TCG a guest's TSC runs at the host's rate, and a guest kernel that
 * calibrates it against the emulated PIT on a loaded host can be off by
 * a factor of twenty ("tsc: PIT calibration deviates from HPET", "Using
 * PIT calibration value"); with tsc=reliable nothing corrects it, and
 * every timeout of that guest then fires that much early.  Each clock is
 * read on both sides of the other, and the reading whose pair is closest
 * kept, so that a preemption between two reads costs nothing.
 *
 * Exit: 0 and the kHz on stdout; 1 if not x86 or the clock failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

/* One (TSC, ns) pair: the ns between two TSC reads, the closest of 16. */
static int sample(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	struct timespec ts;
	int i;

	for (i = 0; i < 16; i++) {
		uint64_t a = __rdtsc(), b;

		if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts))
			return -1;
		b = __rdtsc();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		}
	}
	return 0;
}

int main(void)
{
	uint64_t t0, n0, t1, n1;
	struct timespec d = { 0, 200000000 };

	if (sample(&t0, &n0))
		return 1;
	nanosleep(&d, NULL);
	if (sample(&t1, &n1) || n1 <= n0 || t1 <= t0)
		return 1;
	printf("%llu\n", (unsigned long long)((t1 - t0) * 1000000ULL /
					      (n1 - n0)));
	return 0;
}
#else
int main(void)
{
	return 1;
}
#endif
