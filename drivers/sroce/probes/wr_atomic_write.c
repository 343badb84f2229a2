// SPDX-License-Identifier: GPL-2.0
/* Does the uAPI name IB_UVERBS_WR_ATOMIC_WRITE (6.2+)? */
#include <rdma/ib_user_verbs.h>

const int probe_opcode = IB_UVERBS_WR_ATOMIC_WRITE;
