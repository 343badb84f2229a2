/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels sroce builds for, in one place.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <rdma/ib_user_verbs.h>

/*
 * rdma-core 44 posts IBV_WR_ATOMIC_WRITE (15); the 6.1 uAPI does not name
 * it yet (6.2 does).
 */
#ifndef IB_UVERBS_WR_ATOMIC_WRITE
#define IB_UVERBS_WR_ATOMIC_WRITE	15
#endif

#endif /* SROCE_COMPAT_H */
