/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The QP verbs: create, modify, query, destroy and post, which set up and
 * drive both the QP object and its engine.
 */
#ifndef SROCE_QP_VERBS_H
#define SROCE_QP_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_dev;

void sroce_qp_fail_all(struct sroce_dev *sdev);

extern const struct ib_device_ops sroce_qp_ops;

#endif /* SROCE_QP_VERBS_H */
