/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_device_ops: the thin translation from ib_core's verbs to sroce's
 * objects. Nothing below this layer includes this header.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_dev;

void sroce_verbs_init_attr(struct sroce_dev *sdev);
void sroce_verbs_set_ops(struct ib_device *ibdev);

#endif /* SROCE_VERBS_H */
