// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_fuzz_target: the victim side of the packet fuzzer (roce_fuzz.py,
 * run by sroce_fuzz.sh).
 *
 * It sets up what a hostile peer can aim at: RC QPs in every state (RESET,
 * INIT, RTR, RTS, ERR), RC QPs that receive through an SRQ, a UC and a UD
 * QP, all "connected" to the fuzzer's GID, with receive WQEs posted; three
 * MRs with every remote right, a remote-read-only MR and the buffer of a
 * deregistered MR (its stale rkey is published too).  Every buffer sits
 * between canary pages.  It writes what it made to MAPFILE for the fuzzer,
 * then, until DONEFILE appears, drains completions, keeps receive queues
 * stocked and brings RC/UC QPs that fell into the error state back to RTS
 * (so the fuzzer keeps reaching the deeper paths).
 *
 * At the end it checks that no byte outside the writable MRs changed: the
 * canaries around every buffer, the whole remote-read-only MR and the
 * whole stale MR's buffer.  Exit 0 iff all intact.  Prints one line of
 * figures (completions by status, QPs brought back).
 *
 * Usage: sroce_fuzz_target DEV GID_INDEX PEER_GID MAPFILE DONEFILE
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define CANARY		4096		/* bytes of canary on each side */
#define NBUF		6
#define RQ_DEPTH	64
#define QKEY		0x11111111u
#define RQ_PSN		0x100
#define SQ_PSN		0x200
#define PEER_QPN	0x12345
#define RECV_LEN	4160		/* > 4096 + GRH */

enum buf_kind { WRITABLE, READ_ONLY, STALE, RECV };

struct buf {
	uint8_t *map, *mem;
	size_t len, maplen;
	enum buf_kind kind;
	struct ibv_mr *mr;
	uint32_t stale_rkey;
	uint8_t *copy;			/* expected bytes: canaries + (ro) body */
};

struct qp {
	struct ibv_qp *qp;
	const char *type;
	enum ibv_qp_state want;		/* state to keep it in */
	bool srq;
	int posted;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_srq *srq;
static union ibv_gid peer_gid;
static int gid_index;
static struct buf bufs[NBUF];
static struct qp qps[16];
static int nqp;
static unsigned long wc_status[32], recycled;

static void die(const char *what)
{
	fprintf(stderr, "sroce_fuzz_target: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = seed >> 16;
	}
}

static void buf_make(struct buf *b, size_t len, enum buf_kind kind, int i)
{
	const int all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	int access = kind == READ_ONLY ? IBV_ACCESS_REMOTE_READ :
		     kind == RECV ? IBV_ACCESS_LOCAL_WRITE : all;

	b->len = len;
	b->kind = kind;
	b->maplen = (len + 2 * CANARY + 4095) & ~(size_t)4095;
	b->map = mmap(NULL, b->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED)
		die("mmap");
	b->mem = b->map + CANARY;
	pattern(b->map, b->maplen, 0x5eed0000u + i);
	b->copy = malloc(b->maplen);
	if (!b->copy)
		die("malloc");
	memcpy(b->copy, b->map, b->maplen);
	b->mr = ibv_reg_mr(pd, b->mem, len, access);
	if (!b->mr)
		die("ibv_reg_mr");
	if (kind == STALE) {
		b->stale_rkey = b->mr->rkey;
		if (ibv_dereg_mr(b->mr))
			die("ibv_dereg_mr");
		b->mr = NULL;
	}
}

/* Bytes that must never change: canaries; all of a read-only/stale MR. */
static size_t buf_damage(const struct buf *b)
{
	size_t i, bad = 0;

	for (i = 0; i < b->maplen; i++) {
		bool body = b->map + i >= b->mem && b->map + i < b->mem + b->len;

		if (body && (b->kind == WRITABLE || b->kind == RECV))
			continue;
		bad += b->map[i] != b->copy[i];
	}
	return bad;
}

static void post_recvs(struct qp *q)
{
	struct buf *r = &bufs[NBUF - 1];
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->mem, .length = RECV_LEN, .lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	while (q->posted < RQ_DEPTH) {
		wr.wr_id = q - qps;
		if (ibv_post_recv(q->qp, &wr, &bad))
			return;		/* RESET QPs refuse: fine */
		q->posted++;
	}
}

static void post_srq_recvs(int n)
{
	struct buf *r = &bufs[NBUF - 1];
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->mem, .length = RECV_LEN, .lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1, .wr_id = 1000 }, *bad;

	while (n-- > 0)
		if (ibv_post_srq_recv(srq, &wr, &bad))
			return;
}

static int modify(struct ibv_qp *qp, enum ibv_qp_state to, enum ibv_qp_type t)
{
	struct ibv_qp_attr a = { .qp_state = to };
	int mask = IBV_QP_STATE;

	switch (to) {
	case IBV_QPS_INIT:
		a.pkey_index = 0;
		a.port_num = 1;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (t == IBV_QPT_UD) {
			a.qkey = QKEY;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				(t == IBV_QPT_RC ? IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_ATOMIC : 0);
			mask |= IBV_QP_ACCESS_FLAGS;
		}
		break;
	case IBV_QPS_RTR:
		if (t == IBV_QPT_UD)
			break;
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = PEER_QPN;
		a.rq_psn = RQ_PSN;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer_gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (t == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 16;
			a.min_rnr_timer = 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		a.sq_psn = SQ_PSN;
		mask |= IBV_QP_SQ_PSN;
		if (t == IBV_QPT_RC) {
			a.timeout = 8;
			a.retry_cnt = 1;
			a.rnr_retry = 1;
			a.max_rd_atomic = 1;
			mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* RESET -> ... -> @want; ERR goes through RTS first. */
static int bring_to(struct qp *q)
{
	static const enum ibv_qp_state path[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_ERR
	};
	enum ibv_qp_type t = q->qp->qp_type;
	unsigned int i;

	if (q->want == IBV_QPS_RESET)
		return 0;
	for (i = 0; i < 4; i++) {
		if (modify(q->qp, path[i], t))
			return -1;
		if (path[i] == IBV_QPS_INIT && !q->srq)
			post_recvs(q);
		if (path[i] == q->want)
			return 0;
	}
	return 0;
}

static void add_qp(enum ibv_qp_type t, enum ibv_qp_state want, bool use_srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = use_srq ? srq : NULL,
		.cap = { .max_send_wr = 16, .max_recv_wr = RQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = t,
	};
	struct qp *q = &qps[nqp++];

	q->qp = ibv_create_qp(pd, &ia);
	if (!q->qp)
		die("ibv_create_qp");
	q->type = t == IBV_QPT_RC ? "rc" : t == IBV_QPT_UC ? "uc" : "ud";
	q->want = want;
	q->srq = use_srq;
	if (bring_to(q))
		die("ibv_modify_qp");
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const n[] = { "reset", "init", "rtr", "rts", "sqd",
					 "sqe", "err" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static void write_map(const char *path)
{
	FILE *f = fopen(path, "w");
	char gid[INET6_ADDRSTRLEN];
	int i;

	if (!f)
		die(path);
	for (i = 0; i < nqp; i++)
		fprintf(f, "qp %s %s %u %u %d\n", qps[i].type, state_name(qps[i].want),
			qps[i].qp->qp_num, RQ_PSN, qps[i].srq);
	for (i = 0; i < NBUF; i++) {
		struct buf *b = &bufs[i];
		static const char *const kind[] = { "rw", "ro", "stale", "recv" };

		if (b->kind == RECV)
			continue;
		fprintf(f, "mr %s 0x%x 0x%" PRIx64 " %zu\n", kind[b->kind],
			b->mr ? b->mr->rkey : b->stale_rkey, (uint64_t)(uintptr_t)b->mem,
			b->len);
	}
	fprintf(f, "qkey 0x%x\n", QKEY);
	inet_ntop(AF_INET6, &peer_gid, gid, sizeof(gid));
	fprintf(f, "peer %s\n", gid);
	if (fclose(f))
		die(path);
}

/* Count every completion; keep the receive queues' books. */
static void drain(void)
{
	struct ibv_wc wc[64];
	int n, i;

	while ((n = ibv_poll_cq(cq, 64, wc)) > 0) {
		for (i = 0; i < n; i++) {
			wc_status[wc[i].status < 32 ? wc[i].status : 31]++;
			if (!(wc[i].opcode & IBV_WC_RECV))
				continue;
			if (wc[i].wr_id == 1000)
				post_srq_recvs(1);
			else if (wc[i].wr_id < (uint64_t)nqp)
				qps[wc[i].wr_id].posted--;
		}
	}
}

/* Drain the CQ; bring QPs that fell into ERR back to where they were. */
static void tend(void)
{
	int i;

	drain();
	for (i = 0; i < nqp; i++) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		struct qp *q = &qps[i];

		if (q->want != IBV_QPS_RTS ||
		    ibv_query_qp(q->qp, &a, IBV_QP_STATE, &ia))
			continue;
		if (a.cur_qp_state == IBV_QPS_ERR || a.cur_qp_state == IBV_QPS_SQE) {
			drain();	/* its flushed receives */
			q->posted = 0;
			if (modify(q->qp, IBV_QPS_RESET, q->qp->qp_type) == 0 &&
			    bring_to(q) == 0)
				recycled++;
		} else if (!q->srq) {
			post_recvs(q);
		}
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	unsigned long other = 0;
	size_t damage = 0;
	int i, n;

	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV GID_INDEX PEER_GID MAPFILE DONEFILE\n", argv[0]);
		return 2;
	}
	gid_index = atoi(argv[2]);
	if (inet_pton(AF_INET6, argv[3], &peer_gid) != 1)
		die("PEER_GID");
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4096, NULL, NULL, 0);
	srq = ibv_create_srq(pd, &(struct ibv_srq_init_attr){
		.attr = { .max_wr = RQ_DEPTH, .max_sge = 1 } });
	if (!pd || !cq || !srq)
		die("pd/cq/srq");

	buf_make(&bufs[0], 65536, WRITABLE, 0);
	buf_make(&bufs[1], 8192, WRITABLE, 1);
	buf_make(&bufs[2], 4096 + 77, WRITABLE, 2);
	buf_make(&bufs[3], 8192, READ_ONLY, 3);
	buf_make(&bufs[4], 8192, STALE, 4);
	buf_make(&bufs[5], RECV_LEN, RECV, 5);
	post_srq_recvs(RQ_DEPTH);

	add_qp(IBV_QPT_RC, IBV_QPS_RESET, false);
	add_qp(IBV_QPT_RC, IBV_QPS_INIT, false);
	add_qp(IBV_QPT_RC, IBV_QPS_RTR, false);
	add_qp(IBV_QPT_RC, IBV_QPS_RTS, false);
	add_qp(IBV_QPT_RC, IBV_QPS_RTS, false);
	add_qp(IBV_QPT_RC, IBV_QPS_RTS, true);
	add_qp(IBV_QPT_RC, IBV_QPS_ERR, false);
	add_qp(IBV_QPT_UC, IBV_QPS_RTS, false);
	add_qp(IBV_QPT_UC, IBV_QPS_RTS, true);
	add_qp(IBV_QPT_UD, IBV_QPS_RTS, false);
	add_qp(IBV_QPT_UD, IBV_QPS_RTS, true);
	write_map(argv[4]);

	while (access(argv[5], F_OK)) {
		tend();
		usleep(20000);
	}
	tend();

	for (i = 0; i < NBUF; i++) {
		size_t d = buf_damage(&bufs[i]);

		if (d)
			printf("buffer %d (%s): %zu protected bytes changed\n", i,
			       bufs[i].kind == READ_ONLY ? "remote-read-only MR" :
			       bufs[i].kind == STALE ? "deregistered MR" : "canaries", d);
		damage += d;
	}
	for (i = 0; i < 32; i++)
		if (i != IBV_WC_SUCCESS && i != IBV_WC_WR_FLUSH_ERR)
			other += wc_status[i];
	printf("completions: success %lu, flushed %lu, other errors %lu; QPs brought back from ERR: %lu\n",
	       wc_status[IBV_WC_SUCCESS], wc_status[IBV_WC_WR_FLUSH_ERR], other,
	       recycled);
	for (i = 0; i < nqp; i++)
		ibv_destroy_qp(qps[i].qp);
	ibv_destroy_srq(srq);
	for (i = 0; i < NBUF; i++)
		if (bufs[i].mr)
			ibv_dereg_mr(bufs[i].mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return damage ? 1 : 0;
}
