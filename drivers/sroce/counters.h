/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-device counters, shown by "rdma statistic show link DEV/1".
 * Every dropped packet is counted under the reason it was dropped for.
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#include <linux/percpu.h>
#include <rdma/ib_verbs.h>

enum sroce_counter {
	SROCE_CNT_SENT_PKTS,
	SROCE_CNT_RCVD_PKTS,
	SROCE_CNT_SENT_BYTES,
	SROCE_CNT_RCVD_BYTES,
	SROCE_CNT_DUP_REQ,
	SROCE_CNT_OUT_OF_SEQ_REQ,
	SROCE_CNT_RCV_RNR_ERR,
	SROCE_CNT_SND_RNR_ERR,
	SROCE_CNT_RCV_SEQ_ERR,
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_COMP_RETRY,
	SROCE_CNT_SEND_ERR,
	SROCE_CNT_LINK_DOWNED,
	SROCE_CNT_RDMA_SENDS,
	SROCE_CNT_RDMA_RECVS,
	SROCE_CNT_ACK_DEFERRED,
	SROCE_CNT_DROP_LENGTH,
	SROCE_CNT_DROP_OPCODE,
	SROCE_CNT_DROP_ICRC,
	SROCE_CNT_DROP_HEADER,
	SROCE_CNT_DROP_QPN,
	SROCE_CNT_DROP_QP_STATE,
	SROCE_CNT_DROP_PKEY_QKEY,
	SROCE_CNT_DROP_NOMEM,
	SROCE_CNT_DROP_ROUTE,
	SROCE_CNT_NAK_SENT,
	SROCE_CNT_RKEY_VIOLATION,
	SROCE_CNT_WINDOW_CUT,
	SROCE_CNT_TAIL_PROBE,
	SROCE_CNT_WORKER_RUNS,
	SROCE_CNT_ROUTE_LOOKUPS,
	SROCE_CNT_PAYLOAD_BY_REF,
	SROCE_NUM_COUNTERS
};

struct sroce_counters {
	u64 v[SROCE_NUM_COUNTERS];
};

struct sroce_dev;

void sroce_counter_add(struct sroce_dev *sdev, enum sroce_counter c, u64 n);

static inline void sroce_counter_inc(struct sroce_dev *sdev,
				     enum sroce_counter c)
{
	sroce_counter_add(sdev, c, 1);
}

extern const struct ib_device_ops sroce_counter_ops;

#endif /* SROCE_COUNTERS_H */
