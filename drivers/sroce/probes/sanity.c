// SPDX-License-Identifier: GPL-2.0
/* Must compile: proves the probe command works on this kernel's headers. */
#include <rdma/ib_verbs.h>

const int probe_sanity = IB_QPT_RC;
