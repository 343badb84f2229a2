// SPDX-License-Identifier: GPL-2.0
/*
 * crc32_speed: how fast the ICRC's CRC-32 is in this kernel, two ways.
 *
 * sroce computes the ICRC with the library's table-driven crc32_le();
 * rdma_rxe goes through the crypto API's "crc32", which is crc32-pclmul
 * when the CPU has PCLMULQDQ. Under TCG that instruction is emulated, so
 * which one is faster there has to be measured, not assumed. Loading the
 * module prints the time of each over 4 MiB at four buffer sizes, checks
 * that both give the same CRC, and fails the load on purpose (-EAGAIN) so
 * nothing stays behind. Run by run.sh in a guest.
 */
#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

#define CRC32_SPEED_BYTES	(4 << 20)

/* The crc32 shash keeps the running CRC, uninverted, as its context. */
static u32 crc32_speed_shash(struct crypto_shash *tfm, u32 crc,
			     const u8 *buf, unsigned int len)
{
	SHASH_DESC_ON_STACK(desc, tfm);

	desc->tfm = tfm;
	*(u32 *)shash_desc_ctx(desc) = crc;
	crypto_shash_update(desc, buf, len);
	return *(u32 *)shash_desc_ctx(desc);
}

static void crc32_speed_size(struct crypto_shash *tfm, const u8 *buf,
			     unsigned int len)
{
	unsigned int i, n = CRC32_SPEED_BYTES / len;
	u32 lib = ~0u, api = ~0u;
	s64 lib_us, api_us;
	ktime_t t0;

	t0 = ktime_get();
	for (i = 0; i < n; i++)
		lib = crc32_le(lib, buf, len);
	lib_us = ktime_us_delta(ktime_get(), t0);

	/* as in a driver's receive path: softirqs off */
	t0 = ktime_get();
	local_bh_disable();
	for (i = 0; i < n; i++)
		api = crc32_speed_shash(tfm, api, buf, len);
	local_bh_enable();
	api_us = ktime_us_delta(ktime_get(), t0);

	pr_info("crc32_speed: %u B x %u: crc32_le %lld us, %s %lld us, %s\n",
		len, n, lib_us, crypto_shash_driver_name(tfm), api_us,
		lib == api ? "same CRC" : "DIFFERENT CRC");
}

static int __init crc32_speed_init(void)
{
	static const unsigned int sizes[] = { 64, 256, 1024, 4096 };
	struct crypto_shash *tfm;
	unsigned int i;
	u8 *buf;

	buf = kmalloc(4096, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	get_random_bytes(buf, 4096);
	tfm = crypto_alloc_shash("crc32", 0, 0);
	if (IS_ERR(tfm)) {
		kfree(buf);
		return PTR_ERR(tfm);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		crc32_speed_size(tfm, buf, sizes[i]);
	crypto_free_shash(tfm);
	kfree(buf);
	return -EAGAIN;
}
module_init(crc32_speed_init);

MODULE_DESCRIPTION("Time crc32_le against the crypto API's crc32");
MODULE_LICENSE("GPL");
