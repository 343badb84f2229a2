/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CRC-32 that icrc.c runs on (sroce_crc32(), declared in l0_compat.h),
 * chosen at module load: the library's crc32_le() or the crypto API's
 * "crc32", whichever is faster on the running CPU, or the one the icrc
 * module parameter names. Below L0: it only supplies L0's environment.
 */
#ifndef SROCE_CRC_H
#define SROCE_CRC_H

void sroce_crc_init(void);
void sroce_crc_exit(void);

#endif /* SROCE_CRC_H */
