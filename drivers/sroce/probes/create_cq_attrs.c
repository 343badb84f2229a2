// SPDX-License-Identifier: GPL-2.0
/* Does ib_device_ops.create_cq take a uverbs_attr_bundle (6.11+)? */
#include <rdma/ib_verbs.h>

static int probe_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			   struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .create_cq = probe_create_cq };
