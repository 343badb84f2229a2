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
 * waiting for a disconnect for ever. A program that called
 * rdma_disconnect() therefore waits until its disconnect is complete,
 * that is until an RDMA_CM_EVENT_DISCONNECTED reached it (the peer's DREP
 * to its DREQ, or the peer's DREQ), for SROCE_LINGER_SECS at most: at once
 * when nothing was lost, one CM retransmission timeout (about 4.6 s) per
 * lost DREQ or DREP otherwise. Once disconnected, the peer has nothing
 * left to retransmit: it sends its DREQ only after its own work is
 * acknowledged, and the kernel's CM answers a repeated DREQ with a DREP
 * even for a cm_id that is gone.
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
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* Set by the program's threads, read by the one that destroys. */
static int disconnecting;	/* it called rdma_disconnect() */
static int disconnected;	/* an RDMA_CM_EVENT_DISCONNECTED reached it */

static void *real_function(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

/* Until the disconnect is complete, or @secs have passed. */
static void wait_disconnected(unsigned int secs)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	unsigned int n;

	for (n = 0; n < secs * 100; n++) {
		if (__atomic_load_n(&disconnected, __ATOMIC_ACQUIRE))
			return;
		nanosleep(&tick, NULL);
	}
}

static void linger(void)
{
	static int lingered;
	const char *env = getenv("SROCE_LINGER_SECS");
	unsigned int secs = env ? (unsigned int)atoi(env) : 3;

	if (lingered)
		return;
	lingered = 1;
	if (__atomic_load_n(&disconnecting, __ATOMIC_ACQUIRE))
		wait_disconnected(secs);
	else
		sleep(secs);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	static int (*real_disconnect)(struct rdma_cm_id *id);

	if (!real_disconnect)
		real_disconnect = real_function("rdma_disconnect");
	__atomic_store_n(&disconnecting, 1, __ATOMIC_RELEASE);
	return real_disconnect(id);
}

int rdma_get_cm_event(struct rdma_event_channel *channel,
		      struct rdma_cm_event **event)
{
	static int (*real_get)(struct rdma_event_channel *channel,
			       struct rdma_cm_event **event);
	int ret;

	if (!real_get)
		real_get = real_function("rdma_get_cm_event");
	ret = real_get(channel, event);
	if (!ret && (*event)->event == RDMA_CM_EVENT_DISCONNECTED)
		__atomic_store_n(&disconnected, 1, __ATOMIC_RELEASE);
	return ret;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	static int (*real_destroy)(struct ibv_qp *qp);

	if (!real_destroy)
		real_destroy = real_function("ibv_destroy_qp");
	linger();
	return real_destroy(qp);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	static int (*real_destroy)(struct rdma_cm_id *id);

	if (!real_destroy)
		real_destroy = real_function("rdma_destroy_id");
	if (id->qp)
		linger();
	return real_destroy(id);
}
