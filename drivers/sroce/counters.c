// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device counters: per-CPU so that the packet path never bounces a
 * cache line, summed when "rdma statistic" asks.
 */
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "counters.h"

/* rdma_rxe's 15 names first, so that scripts written for it keep working. */
static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_SENT_PKTS].name = "sent_pkts",
	[SROCE_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[SROCE_CNT_DUP_REQ].name = "duplicate_request",
	[SROCE_CNT_OUT_OF_SEQ_REQ].name = "out_of_seq_request",
	[SROCE_CNT_RCV_RNR_ERR].name = "rcvd_rnr_err",
	[SROCE_CNT_SND_RNR_ERR].name = "send_rnr_err",
	[SROCE_CNT_RCV_SEQ_ERR].name = "rcvd_seq_err",
	[SROCE_CNT_ACK_DEFERRED].name = "ack_deferred",
	[SROCE_CNT_RETRY_EXCEEDED].name = "retry_exceeded_err",
	[SROCE_CNT_RNR_RETRY_EXCEEDED].name = "retry_rnr_exceeded_err",
	[SROCE_CNT_SEND_ERR].name = "send_err",
	[SROCE_CNT_LINK_DOWNED].name = "link_downed",
	[SROCE_CNT_RDMA_SENDS].name = "rdma_sends",
	[SROCE_CNT_RDMA_RECVS].name = "rdma_recvs",
	[SROCE_CNT_COMP_RETRY].name = "completer_retry_err",
	[SROCE_CNT_SENT_BYTES].name = "sent_bytes",
	[SROCE_CNT_RCVD_BYTES].name = "rcvd_bytes",
	[SROCE_CNT_DROP_LENGTH].name = "drop_length",
	[SROCE_CNT_DROP_OPCODE].name = "drop_opcode",
	[SROCE_CNT_DROP_ICRC].name = "drop_icrc",
	[SROCE_CNT_DROP_HEADER].name = "drop_header",
	[SROCE_CNT_DROP_QPN].name = "drop_unknown_qpn",
	[SROCE_CNT_DROP_QP_STATE].name = "drop_qp_state",
	[SROCE_CNT_DROP_PKEY_QKEY].name = "drop_pkey_qkey",
	[SROCE_CNT_DROP_NOMEM].name = "drop_nomem",
	[SROCE_CNT_DROP_ROUTE].name = "drop_no_route",
	[SROCE_CNT_NAK_SENT].name = "nak_sent",
	[SROCE_CNT_RKEY_VIOLATION].name = "rkey_violation",
	[SROCE_CNT_WINDOW_CUT].name = "window_cut",
	[SROCE_CNT_TAIL_PROBE].name = "tail_probe",
	[SROCE_CNT_WORKER_RUNS].name = "worker_runs",
	[SROCE_CNT_ROUTE_LOOKUPS].name = "route_lookups",
	[SROCE_CNT_PAYLOAD_BY_REF].name = "payload_by_ref",
};

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_NUM_COUNTERS);

/**
 * sroce_counter_add - count an event
 * @sdev: the device
 * @c: which counter
 * @n: how many
 *
 * Context: any.
 */
void sroce_counter_add(struct sroce_dev *sdev, enum sroce_counter c, u64 n)
{
	this_cpu_add(sdev->counters->v[c], n);
}

static struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int sroce_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int cpu, i;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu_ptr(sdev->counters, cpu)->v[i];
		stats->value[i] = sum;
	}
	return SROCE_NUM_COUNTERS;
}

const struct ib_device_ops sroce_counter_ops = {
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.get_hw_stats = sroce_get_hw_stats,
};
