// SPDX-License-Identifier: GPL-2.0
/*
 * crc_native: the ICRC's CRC-32 timed natively, in user space, two ways.
 *
 *	crc_native [-r ROUNDS] [-b BYTES] [-s SIZE] [-i IMPL]
 *
 * The RoCEv2 ICRC is a reflected CRC-32 (polynomial 0xedb88320), the CRC
 * the kernel's crc32_le() computes. Emulation (QEMU TCG) misprices
 * PCLMULQDQ, so which implementation wins is measured here, on the host's
 * own CPU:
 *
 *   sb8       slice-by-8 tables, as the kernel's crc32_le() is built in
 *             Debian's kernels (CONFIG_CRC32_SLICEBY8=y): 8 bytes per step
 *             through 8 tables of 256 words, bytewise head and tail.
 *   pclmul    ISA-L's crc32_gzip_refl_by8: PCLMULQDQ folding of 128-bit
 *             lanes with SSE registers, the technique of Intel's "Fast CRC
 *             Computation for Generic Polynomials Using PCLMULQDQ" and of
 *             the kernel's crc32-pclmul.
 *   vpclmul   ISA-L's crc32_gzip_refl_by16_10: the same folding on 512-bit
 *             AVX-512 registers (VPCLMULQDQ); only if the CPU has it.
 *   isal      ISA-L's crc32_gzip_refl, which picks one of its versions for
 *             the CPU at run time.
 *
 * ISA-L's gzip CRC is the raw reflected CRC with the state inverted on the
 * way in and out; raw(c, p, n) = ~gzip(~c, p, n). Every implementation is
 * first checked against sb8 over every length up to 1 KiB plus the timed
 * sizes, at every start offset modulo 8, from several states; any
 * difference stops the program with exit status 1.
 *
 * Timing: each call continues the previous call's CRC (so no call can be
 * skipped or overlapped with the next), over a buffer of SIZE bytes that
 * stays in the L1/L2 cache. A round runs BYTES (default 32 MiB) through
 * one implementation; ROUNDS (default 7) rounds of each implementation
 * alternate, and the fastest round and the median are printed in ns per
 * byte and ns per call, with the ratio of sb8 to each. Output is one line
 * per (size, implementation):
 *
 *	size=4096 impl=pclmul ns_per_byte=0.0512 ns_per_call=209.7 \
 *		median_ns_per_byte=0.0519 speedup_vs_sb8=10.31
 *
 * -s and -i restrict the run to one size and one implementation (for
 * timing the whole process from outside).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef uint32_t (*crc_fn)(uint32_t crc, const unsigned char *p, size_t len);

/* ISA-L (libisal-dev); the versioned entry points are exported too. */
uint32_t crc32_gzip_refl(uint32_t init, const unsigned char *p, uint64_t len);
uint32_t crc32_gzip_refl_by8(uint32_t init, const unsigned char *p,
			     uint64_t len);
uint32_t crc32_gzip_refl_by16_10(uint32_t init, const unsigned char *p,
				 uint64_t len);

#define CRC32_POLY_LE	0xedb88320u
#define MAX_SIZE	(64 * 1024)

static uint32_t sb8_tab[8][256];

static void sb8_init(void)
{
	unsigned int i, j, k;

	for (i = 0; i < 256; i++) {
		uint32_t c = i;

		for (j = 0; j < 8; j++)
			c = c >> 1 ^ (c & 1 ? CRC32_POLY_LE : 0);
		sb8_tab[0][i] = c;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++)
			sb8_tab[k][i] = sb8_tab[k - 1][i] >> 8 ^
					sb8_tab[0][sb8_tab[k - 1][i] & 0xff];
}

static uint32_t sb8_byte(uint32_t crc, unsigned char b)
{
	return crc >> 8 ^ sb8_tab[0][(crc ^ b) & 0xff];
}

static uint32_t load_le32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/* Raw reflected CRC-32, no inversion: what crc32_le() computes. */
static uint32_t crc_sb8(uint32_t crc, const unsigned char *p, size_t len)
{
	/* bytewise up to a 4-byte boundary, as the kernel's loop aligns */
	while (len && ((uintptr_t)p & 3)) {
		crc = sb8_byte(crc, *p++);
		len--;
	}
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t q = crc ^ load_le32(p), r = load_le32(p + 4);

		crc = sb8_tab[7][q & 0xff] ^ sb8_tab[6][q >> 8 & 0xff] ^
		      sb8_tab[5][q >> 16 & 0xff] ^ sb8_tab[4][q >> 24] ^
		      sb8_tab[3][r & 0xff] ^ sb8_tab[2][r >> 8 & 0xff] ^
		      sb8_tab[1][r >> 16 & 0xff] ^ sb8_tab[0][r >> 24];
	}
	while (len--)
		crc = sb8_byte(crc, *p++);
	return crc;
}

static uint32_t crc_pclmul(uint32_t crc, const unsigned char *p, size_t len)
{
	return ~crc32_gzip_refl_by8(~crc, p, len);
}

static uint32_t crc_vpclmul(uint32_t crc, const unsigned char *p, size_t len)
{
	return ~crc32_gzip_refl_by16_10(~crc, p, len);
}

static uint32_t crc_isal(uint32_t crc, const unsigned char *p, size_t len)
{
	return ~crc32_gzip_refl(~crc, p, len);
}

struct impl {
	const char *name;
	crc_fn fn;
	int (*usable)(void);
};

static int cpu_pclmul(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_PCLMUL);
}

/* by16_10 needs AVX-512 F/BW/VL and VPCLMULQDQ (and the OS to save zmm) */
static int cpu_vpclmul(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & bit_AVX512F) && (b & bit_AVX512BW) &&
	       (b & bit_AVX512VL) && (c & (1u << 10)) &&
	       __builtin_cpu_supports("avx512f");
}

static const struct impl impls[] = {
	{ "sb8", crc_sb8, NULL },
	{ "pclmul", crc_pclmul, cpu_pclmul },
	{ "vpclmul", crc_vpclmul, cpu_vpclmul },
	{ "isal", crc_isal, NULL },
};

#define NR_IMPLS (sizeof(impls) / sizeof(impls[0]))

static const size_t sizes[] = { 64, 256, 1024, 4096, 9216, 65536 };

#define NR_SIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned char *buf;

static int check_one(const struct impl *im, size_t off, size_t len,
		     uint32_t seed)
{
	uint32_t want = crc_sb8(seed, buf + off, len);
	uint32_t got = im->fn(seed, buf + off, len);

	if (want == got)
		return 0;
	fprintf(stderr, "crc_native: %s differs from sb8: len %zu offset %zu seed %08x: %08x != %08x\n",
		im->name, len, off, seed, got, want);
	return 1;
}

static int check(const struct impl *im)
{
	static const uint32_t seeds[] = { 0, 0xffffffff, 0xdebb20e3 };
	size_t s, off, len;
	int bad = 0;

	for (s = 0; s < 3; s++)
		for (off = 0; off < 8; off++) {
			for (len = 0; len <= 1024; len++)
				bad |= check_one(im, off, len, seeds[s]);
			for (len = 0; len < NR_SIZES; len++)
				bad |= check_one(im, off, sizes[len], seeds[s]);
		}
	return bad;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile uint32_t sink;

/* ns per call of one round of @calls calls */
static double round_ns(const struct impl *im, size_t size, size_t calls)
{
	uint32_t crc = 0xdebb20e3;
	double t0 = now_ns();
	size_t i;

	for (i = 0; i < calls; i++)
		crc = im->fn(crc, buf, size);
	sink = crc;
	return (now_ns() - t0) / calls;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct result {
	double best, median;
};

static void measure(const int *on, size_t size, size_t bytes, int rounds,
		    struct result *res)
{
	double t[NR_IMPLS][101];
	size_t calls = bytes / size ? bytes / size : 1;
	unsigned int i;
	int r;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < NR_IMPLS; i++)
			if (on[i])
				t[i][r] = round_ns(&impls[i], size, calls);
	for (i = 0; i < NR_IMPLS; i++) {
		if (!on[i])
			continue;
		qsort(t[i], rounds, sizeof(double), cmp_double);
		res[i].best = t[i][0];
		res[i].median = t[i][rounds / 2];
	}
}

static void report(const int *on, size_t size, const struct result *res)
{
	unsigned int i;

	for (i = 0; i < NR_IMPLS; i++) {
		if (!on[i])
			continue;
		printf("size=%zu impl=%s ns_per_byte=%.4f ns_per_call=%.1f median_ns_per_byte=%.4f",
		       size, impls[i].name, res[i].best / size, res[i].best,
		       res[i].median / size);
		if (on[0])
			printf(" speedup_vs_sb8=%.2f", res[0].best / res[i].best);
		printf("\n");
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: crc_native [-r ROUNDS] [-b BYTES] [-s SIZE] [-i sb8|pclmul|vpclmul|isal]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct result res[NR_IMPLS];
	const char *only_impl = NULL;
	size_t bytes = 32 << 20, only_size = 0, i;
	int on[NR_IMPLS], rounds = 7, opt, bad = 0;

	while ((opt = getopt(argc, argv, "r:b:s:i:")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'b': bytes = strtoull(optarg, NULL, 0); break;
		case 's': only_size = strtoull(optarg, NULL, 0); break;
		case 'i': only_impl = optarg; break;
		default: usage();
		}
	}
	if (rounds < 1 || rounds > 101 || only_size > MAX_SIZE)
		usage();

	sb8_init();
	buf = aligned_alloc(64, MAX_SIZE + 64);
	if (!buf)
		return 1;
	srandom(1);
	for (i = 0; i < MAX_SIZE + 64; i++)
		buf[i] = random();

	for (i = 0; i < NR_IMPLS; i++) {
		on[i] = !impls[i].usable || impls[i].usable();
		if (on[i])
			bad |= check(&impls[i]);
		if (only_impl && strcmp(only_impl, impls[i].name))
			on[i] = 0;
	}
	if (bad)
		return 1;
	printf("# all implementations agree with sb8\n");

	for (i = 0; i < NR_SIZES; i++) {
		if (only_size && sizes[i] != only_size)
			continue;
		measure(on, sizes[i], bytes, rounds, res);
		report(on, sizes[i], res);
	}
	return 0;
}
