// SPDX-License-Identifier: GPL-2.0
/*
 * The ICRC's CRC-32 (reflected, polynomial 0xedb88320, no inversion), two
 * ways:
 *
 *   crc32_le	the library's table-driven loop: no setup, any context.
 *   crypto	the crypto API's "crc32" shash, crc32-pclmul on x86 CPUs with
 *		PCLMULQDQ: folds 16 bytes per step, but pays an indirect call
 *		and kernel_fpu_begin()/end() per call and hands short buffers
 *		(under 79 bytes) to crc32_le() itself.
 *
 * Which is faster depends on the CPU and on how the CPU is provided (an
 * emulator may price PCLMULQDQ far above what silicon does), so it is not
 * decided here but measured at load on the CPU the module runs on, as the
 * kernel's xor and raid6 code pick their routines. The icrc module
 * parameter forces one, to compare them; reading it back gives the one in
 * use.
 *
 * The choice is a static key, so the per-fragment call is direct either
 * way. The crypto path continues from the caller's CRC by writing it into
 * the descriptor's context, which for "crc32" is exactly that u32 (checked
 * at init along with the results). Context: any. crc32-pclmul falls back
 * to crc32_le() when the FPU is not usable (crypto_simd_usable()), so
 * softirq, an interrupted kernel_fpu_begin() section and PREEMPT_RT (where
 * kernel_fpu_begin() disables preemption rather than bottom halves) all
 * work; a long buffer is fed in pieces so that no FPU section, which is
 * not preemptible, covers more than SROCE_CRC_CHUNK bytes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "crc.h"
#include "icrc.h"

enum sroce_crc_impl {
	SROCE_CRC_AUTO,
	SROCE_CRC_LE,
	SROCE_CRC_CRYPTO,
};

static const char *const sroce_crc_names[] = {
	[SROCE_CRC_AUTO] = "auto",
	[SROCE_CRC_LE] = "crc32_le",
	[SROCE_CRC_CRYPTO] = "crypto",
};

#define SROCE_CRC_CHUNK		SZ_16K

/* What the parameter asked for, then (after init) what is in use. */
static enum sroce_crc_impl sroce_crc_param = SROCE_CRC_AUTO;
static DEFINE_STATIC_KEY_FALSE(sroce_crc_use_crypto);
static struct crypto_shash *sroce_crc_tfm;

static u32 sroce_crc32_crypto(u32 crc, const u8 *p, size_t len)
{
	/* "crc32" keeps a u32 of context (checked in sroce_crc_tfm_ok()) */
	char raw[sizeof(struct shash_desc) + sizeof(u32)]
		__aligned(__alignof__(struct shash_desc));
	struct shash_desc *desc = (struct shash_desc *)raw;
	u32 *state = shash_desc_ctx(desc);

	desc->tfm = sroce_crc_tfm;
	*state = crc;
	while (len) {
		unsigned int n = min_t(size_t, len, SROCE_CRC_CHUNK);

		/* update cannot fail for "crc32" */
		crypto_shash_update(desc, p, n);
		p += n;
		len -= n;
	}
	return *state;
}

/**
 * sroce_crc32() - continue a raw reflected CRC-32 over a buffer
 * @crc: CRC state so far (no inversion)
 * @p: bytes
 * @len: number of bytes
 *
 * Context: any.
 * Return: the state after @p, as crc32_le() returns it.
 */
u32 sroce_crc32(u32 crc, const u8 *p, size_t len)
{
	if (static_branch_likely(&sroce_crc_use_crypto))
		return sroce_crc32_crypto(crc, p, len);
	return crc32_le(crc, p, len);
}

static u32 sroce_crc_run(enum sroce_crc_impl impl, u32 crc, const u8 *p,
			 size_t len)
{
	if (impl == SROCE_CRC_CRYPTO)
		return sroce_crc32_crypto(crc, p, len);
	return crc32_le(crc, p, len);
}

/*
 * The timed work: the packets of the two usual path MTUs (1 KiB, 4 KiB
 * payload), each as icrc.c feeds it: the masked 60-byte header prefix,
 * then the rest in place.
 */
#define SROCE_CRC_HDR		60
#define SROCE_CRC_BUF		(SROCE_CRC_HDR + SZ_4K)
#define SROCE_CRC_ROUNDS	12

static u32 sroce_crc_sink;

static u64 sroce_crc_time_once(enum sroce_crc_impl impl, const u8 *buf)
{
	static const size_t lens[] = { SZ_1K, SZ_4K };
	u32 crc = SROCE_ICRC_SEED;
	ktime_t t0 = ktime_get();
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		crc = sroce_crc_run(impl, crc, buf, SROCE_CRC_HDR);
		crc = sroce_crc_run(impl, crc, buf + SROCE_CRC_HDR, lens[i]);
	}
	/* crc32_le() is __pure: an unused result would drop the calls */
	WRITE_ONCE(sroce_crc_sink, crc);
	return ktime_to_ns(ktime_sub(ktime_get(), t0));
}

/*
 * Best of SROCE_CRC_ROUNDS for each, the candidates taking turns so that
 * a slow stretch of the host (another guest, an interrupt) hits both.
 */
static void sroce_crc_time(const u8 *buf, u64 *le_ns, u64 *crypto_ns)
{
	unsigned int r;

	*le_ns = U64_MAX;
	*crypto_ns = U64_MAX;
	for (r = 0; r < SROCE_CRC_ROUNDS; r++) {
		*le_ns = min(*le_ns, sroce_crc_time_once(SROCE_CRC_LE, buf));
		*crypto_ns = min(*crypto_ns,
				 sroce_crc_time_once(SROCE_CRC_CRYPTO, buf));
		cond_resched();
	}
}

/* The crypto path must give crc32_le()'s result at any length and start. */
static bool sroce_crc_results_agree(const u8 *buf)
{
	static const size_t lens[] = { 0, 1, 15, 63, 64, 79, 80, 200, 1500,
				       SZ_4K };
	unsigned int i, off;

	for (off = 0; off < 16; off += 5)
		for (i = 0; i < ARRAY_SIZE(lens); i++)
			if (sroce_crc32_crypto(SROCE_ICRC_SEED, buf + off,
					       lens[i]) !=
			    crc32_le(SROCE_ICRC_SEED, buf + off, lens[i]))
				return false;
	return true;
}

static bool sroce_crc_tfm_ok(const u8 *buf)
{
	if (crypto_shash_descsize(sroce_crc_tfm) != sizeof(u32)) {
		pr_warn("icrc: %s keeps %u bytes of state, not a CRC: using crc32_le\n",
			crypto_shash_driver_name(sroce_crc_tfm),
			crypto_shash_descsize(sroce_crc_tfm));
		return false;
	}
	if (!sroce_crc_results_agree(buf)) {
		pr_warn("icrc: %s disagrees with crc32_le: using crc32_le\n",
			crypto_shash_driver_name(sroce_crc_tfm));
		return false;
	}
	return true;
}

static void sroce_crc_free_tfm(void)
{
	if (sroce_crc_tfm)
		crypto_free_shash(sroce_crc_tfm);
	sroce_crc_tfm = NULL;
}

/* Allocate and check the crypto candidate; false leaves crc32_le alone. */
static bool sroce_crc_get_tfm(const u8 *buf)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm)) {
		pr_warn("icrc: no crypto \"crc32\" (%pe): using crc32_le\n",
			tfm);
		return false;
	}
	sroce_crc_tfm = tfm;
	if (sroce_crc_tfm_ok(buf))
		return true;
	sroce_crc_free_tfm();
	return false;
}

static enum sroce_crc_impl sroce_crc_choose(const u8 *buf)
{
	enum sroce_crc_impl want = sroce_crc_param;
	u64 le_ns, crypto_ns;

	if (want == SROCE_CRC_LE || !sroce_crc_get_tfm(buf)) {
		pr_info("icrc: crc32_le (%s)\n",
			want == SROCE_CRC_LE ? "forced" : "only candidate");
		return SROCE_CRC_LE;
	}
	sroce_crc_time(buf, &le_ns, &crypto_ns);
	if (want == SROCE_CRC_AUTO)
		want = crypto_ns < le_ns ? SROCE_CRC_CRYPTO : SROCE_CRC_LE;
	pr_info("icrc: %s (%s): crc32_le %llu ns, crypto %s %llu ns for 1 KiB + 4 KiB packets\n",
		sroce_crc_names[want],
		sroce_crc_param == SROCE_CRC_AUTO ? "fastest" : "forced",
		le_ns, crypto_shash_driver_name(sroce_crc_tfm), crypto_ns);
	if (want != SROCE_CRC_CRYPTO)
		sroce_crc_free_tfm();
	return want;
}

/**
 * sroce_crc_init() - choose the CRC-32 implementation
 *
 * Never fails: crc32_le() is always there. Called before any packet can
 * be sent or received.
 *
 * Context: process, may sleep.
 */
void sroce_crc_init(void)
{
	u8 *buf = kmalloc(SROCE_CRC_BUF, GFP_KERNEL);

	if (!buf) {
		/* Not an allocation report: it names the CRC left in use. */
		pr_warn("icrc: no memory to measure: using crc32_le\n");
		sroce_crc_param = SROCE_CRC_LE;
		return;
	}
	get_random_bytes(buf, SROCE_CRC_BUF);
	sroce_crc_param = sroce_crc_choose(buf);
	kfree(buf);
	if (sroce_crc_param == SROCE_CRC_CRYPTO)
		static_branch_enable(&sroce_crc_use_crypto);
}

/**
 * sroce_crc_exit() - release the crypto transform
 *
 * Context: process, after the last packet has been sent and received.
 */
void sroce_crc_exit(void)
{
	static_branch_disable(&sroce_crc_use_crypto);
	sroce_crc_free_tfm();
}

static int sroce_crc_param_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(sroce_crc_names, val);

	if (i < 0)
		return i;
	sroce_crc_param = i;
	return 0;
}

static int sroce_crc_param_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 sroce_crc_names[sroce_crc_param]);
}

static const struct kernel_param_ops sroce_crc_param_ops = {
	.set = sroce_crc_param_set,
	.get = sroce_crc_param_get,
};

/* Read-only once loaded: the choice is made once, at load. */
module_param_cb(icrc, &sroce_crc_param_ops, NULL, 0444);
MODULE_PARM_DESC(icrc,
		 "ICRC CRC-32: auto (fastest measured at load), crc32_le or crypto; reads back the one in use");
