// SPDX-License-Identifier: GPL-2.0
/*
 * qp_linger.so: an LD_PRELOAD shim that keeps a QP answering for
 * SROCE_LINGER_SECS (default 3) seconds after the program destroys it.
 *
 * Why: an RC transfer's last acknowledgement can be lost like any other
 * packet. A program that exits as soon as its own work is done (the
 * ibv_*_pingpong tools do) destroys its QP, and the peer, still waiting
 * for that acknowledgement, retransmits into the void until its retry
 * count runs out (for ever on rdma_rxe, which treats retry_cnt 7 as
 * infinite). TCP's TIME_WAIT answers the same problem; this gives the
 * peer's retransmission the same chance, so that tests under packet loss
 * measure the drivers, not that race. The QP stays intact meanwhile: the
 * driver re-acknowledges the duplicate as it should.
 *
 * rdma_cm programs (rping) have the same race one step later: a lost
 * DREQ is retransmitted by the kernel's CM only while the cm_id lives,
 * and rping destroys it right after rdma_disconnect(), leaving its peer
 * waiting for a disconnect for ever.
 *
 * The process waits once, at the first destroy of a QP or of a cm_id that
 * carries one: everything it destroys later was alive through that wait,
 * and rping destroys its QP before the cm_id. cm_ids without a QP (a
 * listener, the one librdmacm creates and destroys when it starts, to
 * probe the kernel) are destroyed at once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static void linger(void)
{
	static int lingered;
	const char *secs = getenv("SROCE_LINGER_SECS");

	if (lingered)
		return;
	lingered = 1;
	sleep(secs ? (unsigned int)atoi(secs) : 3);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	static int (*real_destroy)(struct ibv_qp *qp);

	if (!real_destroy)
		real_destroy = (int (*)(struct ibv_qp *))dlsym(RTLD_NEXT, "ibv_destroy_qp");
	if (!real_destroy)
		abort();
	linger();
	return real_destroy(qp);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	static int (*real_destroy)(struct rdma_cm_id *id);

	if (!real_destroy)
		real_destroy = (int (*)(struct rdma_cm_id *))dlsym(RTLD_NEXT, "rdma_destroy_id");
	if (!real_destroy)
		abort();
	if (id->qp)
		linger();
	return real_destroy(id);
}
