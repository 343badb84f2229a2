/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 24-bit packet sequence numbers.
 *
 * PSNs live on a circle of 2^24 values. Two PSNs are ordered by their
 * signed 24-bit distance: b is after a when b - a, taken modulo 2^24, is in
 * [1, 2^23 - 1]. The protocol never lets more than 2^23 PSNs be
 * outstanding, so every comparison it needs stays unambiguous.
 *
 * L0: pure. Every function takes and returns PSNs in CPU order and masks
 * its result to 24 bits; bits 31:24 of the arguments are ignored.
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include "l0_compat.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		GENMASK(SROCE_PSN_BITS - 1, 0)
/* Largest distance at which two PSNs can still be ordered. */
#define SROCE_PSN_MAX_DIST	(BIT(SROCE_PSN_BITS - 1) - 1)

static inline u32 sroce_psn(u32 v)
{
	return v & SROCE_PSN_MASK;
}

/* @psn + @n, modulo 2^24. */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* @psn - @n, modulo 2^24. */
static inline u32 sroce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

static inline u32 sroce_psn_next(u32 psn)
{
	return sroce_psn_add(psn, 1);
}

/*
 * Signed distance from @b to @a, in [-2^23, 2^23 - 1]: negative if @a is
 * before @b, 0 if equal, positive if @a is after @b.
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - SROCE_PSN_BITS)) >>
	       (32 - SROCE_PSN_BITS);
}

/* @a comes before @b. */
static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/* @a comes after @b. */
static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

/*
 * @psn is in the window of @count PSNs that starts at @start:
 * start <= psn < start + count, modulo 2^24. A window holds at most 2^24
 * PSNs; @count == 0 is an empty window.
 */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 count)
{
	return ((psn - start) & SROCE_PSN_MASK) < count;
}

/*
 * @psn is in the inclusive range [@first, @last], modulo 2^24, where
 * @last is not before @first.
 */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 last)
{
	return ((psn - first) & SROCE_PSN_MASK) <=
	       ((last - first) & SROCE_PSN_MASK);
}

/*
 * Packets (and so PSNs) that a message of @len bytes takes at a path MTU
 * of @mtu bytes. A zero-length message still takes one packet. Returns 0
 * if @mtu is 0.
 */
static inline u32 sroce_psn_npkts(u32 len, u32 mtu)
{
	if (!mtu)
		return 0;
	if (!len)
		return 1;
	return (len - 1) / mtu + 1;
}

/* Path MTU in bytes of an IB MTU code (1: 256 ... 5: 4096), 0 if invalid. */
static inline u32 sroce_mtu_bytes(unsigned int ib_mtu)
{
	if (ib_mtu < 1 || ib_mtu > 5)
		return 0;
	return 128U << ib_mtu;
}

#endif /* SROCE_PSN_H */
