// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_hostile_rings: a process that attacks its own shared rings.
 *
 * The rxe user ABI puts every SQ, RQ, SRQ and CQ in memory shared with the
 * kernel (struct rxe_queue_buf: header with log2_elem_size and index_mask,
 * producer and consumer indices, then the slots).  A process can write any
 * of it at any time, including between the kernel's check of a WQE and its
 * use.  Each round forks a child that sets up an RC pair (loopback), a UD
 * QP, an SRQ, a CQ and an MR, then has a second thread scribble over every
 * uverbs mapping of the process (found in /proc/self/maps) while the main
 * thread keeps posting sends and receives, ringing doorbells and polling:
 * random words at random offsets, both indices set to wild values, the
 * header rewritten, and single fields flipped between two values as fast
 * as possible (num_sge, lengths and opcodes changing under the kernel).
 * The child may get errors, error completions or even crash itself
 * (it reads its own scribbled CQ): all fine.  The kernel must survive, and
 * whatever the child did must be cleaned up when it exits or is killed.
 *
 * Prints per round how the child ended; one summary line at the end.
 * Exit 0 when every round's child could set up and ended on time (normally
 * or by a signal of its own making); the kernel log, the object counts and
 * a traffic check afterwards are checked by sroce_rings.sh.
 *
 * Usage: sroce_hostile_rings DEV GID_INDEX ROUNDS SECONDS_PER_ROUND SEED
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define MAX_MAPS	64
#define BUF_SIZE	(256 * 1024)

struct map { volatile uint32_t *p; size_t words; };

static struct map maps[MAX_MAPS];
static int nmaps;
static volatile bool stop;
static uint64_t seed;
/*
 * Rewriting a ring's header (index_mask) also makes the provider, in this
 * very process, index out of its ring and crash at once; only one round in
 * four does it, so that the others run their whole time.
 */
static bool scribble_header;
/*
 * Provider rounds: the scribbler leaves indices and headers alone, so the
 * provider (which indexes with them) keeps working and this process posts
 * and polls normally while WQE contents change under it and the kernel.
 * Other rounds scribble everything and only ring bare doorbells.
 */
static bool provider_round;
static unsigned long posts, doorbells, wcs, wc_errors;

static uint64_t rnd(void)
{
	uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The uverbs mappings of this process: the rings. */
static void find_rings(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nmaps < MAX_MAPS) {
		unsigned long a, b;

		if (!strstr(line, "/dev/infiniband/uverbs") || !strstr(line, "rw"))
			continue;
		if (sscanf(line, "%lx-%lx", &a, &b) != 2)
			continue;
		maps[nmaps].p = (volatile uint32_t *)a;
		maps[nmaps].words = (b - a) / 4;
		nmaps++;
	}
	fclose(f);
}

static uint32_t wild(void)
{
	static const uint32_t v[] = { 0, 1, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000,
				      0xffff, 0x10000, 0x7fffffff, 0x80000000,
				      0xfffffffe, 0xffffffff };

	return rnd() & 1 ? v[rnd() % (sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd();
}

/* Word offsets in struct rxe_queue_buf: header, producer, consumer. */
#define W_LOG2		0
#define W_MASK		1
#define W_PROD		32
#define W_CONS		64
#define W_DATA		96

static void *scribbler(void *arg)
{
	(void)arg;
	while (!stop && nmaps) {
		struct map *m = &maps[rnd() % nmaps];
		size_t w;
		uint32_t a, b;
		int i;

		switch (provider_round ? 2 + rnd() % 4 : rnd() % 6) {
		case 0:		/* the indices */
			m->p[rnd() & 1 ? W_PROD : W_CONS] = wild();
			break;
		case 1:		/* the header the kernel must not trust */
			if (scribble_header)
				m->p[rnd() & 1 ? W_LOG2 : W_MASK] = wild();
			break;
		case 2:		/* a field flipped under the kernel's feet */
			w = W_DATA + rnd() % (m->words - W_DATA);
			a = m->p[w];
			b = wild();
			for (i = 0; i < 20000 && !stop; i++)
				m->p[w] = i & 1 ? a : b;
			break;
		default:	/* any word of a slot */
			m->p[W_DATA + rnd() % (m->words - W_DATA)] = wild();
			break;
		}
	}
	return NULL;
}

struct res {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *rc[2], *ud;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gidx;
};

static int connect_rc(struct res *r, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = r->gid;
	a.ah_attr.grh.sgid_index = r->gidx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 4;
	a.retry_cnt = 1;
	a.rnr_retry = 1;
	a.sq_psn = 0;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int setup_ud(struct res *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = r->gid, .sgid_index = r->gidx, .hop_limit = 1 },
	};

	if (ibv_modify_qp(r->ud, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(r->ud, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(r->ud, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	r->ah = ibv_create_ah(r->pd, &ah);
	return r->ah ? 0 : -1;
}

static int setup(struct res *r, const char *dev)
{
	struct ibv_device **l;
	int n, i;

	l = ibv_get_device_list(&n);
	for (i = 0; l && i < n; i++)
		if (!strcmp(ibv_get_device_name(l[i]), dev))
			r->ctx = ibv_open_device(l[i]);
	if (!r->ctx || ibv_query_gid(r->ctx, 1, r->gidx, &r->gid))
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	r->cq = ibv_create_cq(r->ctx, 256, NULL, NULL, 0);
	r->srq = ibv_create_srq(r->pd, &(struct ibv_srq_init_attr){
		.attr = { .max_wr = 64, .max_sge = 4 } });
	r->buf = aligned_alloc(4096, BUF_SIZE);
	if (!r->pd || !r->cq || !r->srq || !r->buf)
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = r->cq, .recv_cq = r->cq, .srq = i ? r->srq : NULL,
			.cap = { .max_send_wr = 32, .max_recv_wr = 32,
				 .max_send_sge = 4, .max_recv_sge = 4,
				 .max_inline_data = 64 },
			.qp_type = IBV_QPT_RC,
		};

		r->rc[i] = ibv_create_qp(r->pd, &ia);
		if (!r->rc[i])
			return -1;
	}
	r->ud = ibv_create_qp(r->pd, &(struct ibv_qp_init_attr){
		.send_cq = r->cq, .recv_cq = r->cq,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32, .max_send_sge = 4,
			 .max_recv_sge = 4 },
		.qp_type = IBV_QPT_UD });
	if (!r->mr || !r->ud)
		return -1;
	if (connect_rc(r, r->rc[0], r->rc[1]->qp_num) ||
	    connect_rc(r, r->rc[1], r->rc[0]->qp_num) || setup_ud(r))
		return -1;
	return 0;
}

/*
 * Ring a QP's send doorbell the way the rxe provider does (a POST_SEND
 * command with no work request), without the provider touching the ring:
 * the kernel then reads whatever the scribbler left there.
 */
static void doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {
		.hdr = { .command = IB_USER_VERBS_CMD_POST_SEND,
			 .in_words = sizeof(req) / 4 },
		.cmd = { .qp_handle = qp->handle,
			 .wqe_size = sizeof(struct ib_uverbs_send_wr) },
	};
	struct ib_uverbs_post_send_resp resp;

	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	if (write(qp->context->cmd_fd, &req, sizeof(req)) == sizeof(req))
		doorbells++;
}

static void post_some(struct res *r)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_sge sge = { .addr = (uintptr_t)r->buf + (rnd() % 64) * 8,
			       .length = 8 + rnd() % 4096, .lkey = r->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .wr_id = rnd(),
				  .send_flags = IBV_SEND_SIGNALED }, *bs;
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *br;
	struct ibv_wc wc[32];
	int n, i;

	/*
	 * Mostly bare doorbells: the provider itself indexes its rings with
	 * the scribbled indices and would crash this process at once.
	 */
	if (!provider_round) {
		struct ibv_qp *qps[] = { r->rc[0], r->rc[1], r->ud };

		doorbell(qps[rnd() % 3]);
		return;
	}
	wr.opcode = ops[rnd() % (sizeof(ops) / sizeof(ops[0]))];
	wr.wr.rdma.remote_addr = (uintptr_t)r->buf + BUF_SIZE / 2;
	wr.wr.rdma.rkey = r->mr->rkey;
	if (wr.opcode >= IBV_WR_ATOMIC_CMP_AND_SWP) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = (uintptr_t)r->buf + BUF_SIZE / 2;
		wr.wr.atomic.rkey = r->mr->rkey;
	}
	ibv_post_recv(r->rc[0], &rw, &br);
	ibv_post_srq_recv(r->srq, &rw, &br);
	posts += !ibv_post_send(r->rc[rnd() & 1], &wr, &bs);
	if (rnd() % 4 == 0) {
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = r->ah;
		wr.wr.ud.remote_qpn = r->ud->qp_num;
		wr.wr.ud.remote_qkey = 0x11111111;
		ibv_post_recv(r->ud, &rw, &br);
		ibv_post_send(r->ud, &wr, &bs);
	}
	n = ibv_poll_cq(r->cq, 32, wc);
	for (i = 0; i < n; i++)
		wc_errors += wc[i].status != IBV_WC_SUCCESS;
	wcs += n > 0 ? n : 0;
}

/* Say where the child crashed: its own rings' damage, not the kernel's. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	int n, i;

	(void)uc;
	n = snprintf(msg, sizeof(msg), "child: signal %d at %p after %lu sends, %lu doorbells\n",
		     sig, si->si_addr, posts, doorbells);
	if (write(1, msg, n) < 0)
		_exit(sig);
	for (i = 0; i < nmaps; i++) {
		n = snprintf(msg, sizeof(msg), "child:   ring %d at %p: log2 %u mask %#x prod %#x cons %#x\n",
			     i, (void *)maps[i].p, maps[i].p[W_LOG2], maps[i].p[W_MASK],
			     maps[i].p[W_PROD], maps[i].p[W_CONS]);
		if (write(1, msg, n) < 0)
			break;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static int child(const char *dev, int gidx, int secs, bool round_kind)
{
	int i;
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	struct res r = { .gidx = gidx };
	pthread_t t;
	time_t end;

	if (setup(&r, dev)) {
		fprintf(stderr, "child: set-up failed: %s\n", strerror(errno));
		return 3;
	}
	find_rings();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	if (!nmaps) {
		fprintf(stderr, "child: no uverbs mapping found\n");
		return 4;
	}
	/* Something to consume and to send before the scribbling starts. */
	provider_round = true;
	for (i = 0; i < 16; i++)
		post_some(&r);
	provider_round = round_kind;
	if (pthread_create(&t, NULL, scribbler, NULL))
		return 5;
	end = time(NULL) + secs;
	while (time(NULL) < end)
		post_some(&r);
	stop = true;
	pthread_join(t, NULL);
	printf("child: %s round: %d mappings, %lu sends posted, %lu bare doorbells, %lu completions (%lu errors)%s\n",
	       provider_round ? "provider" : "raw", nmaps, posts, doorbells, wcs,
	       wc_errors, scribble_header ? ", headers too" : "");
	fflush(stdout);
	/* Leave the clean-up to the kernel half of the time. */
	if (rnd() & 1)
		_exit(0);
	ibv_destroy_qp(r.ud);
	ibv_destroy_qp(r.rc[0]);
	ibv_destroy_qp(r.rc[1]);
	ibv_destroy_srq(r.srq);
	ibv_destroy_ah(r.ah);
	ibv_dereg_mr(r.mr);
	ibv_destroy_cq(r.cq);
	ibv_dealloc_pd(r.pd);
	ibv_close_device(r.ctx);
	return 0;
}

int main(int argc, char **argv)
{
	int rounds, secs, gidx, i, exited = 0, signalled = 0, killed = 0, badset = 0;

	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV GID_INDEX ROUNDS SECONDS SEED\n", argv[0]);
		return 2;
	}
	gidx = atoi(argv[2]);
	rounds = atoi(argv[3]);
	secs = atoi(argv[4]);
	seed = strtoull(argv[5], NULL, 0);
	for (i = 0; i < rounds; i++) {
		int st, waited = 0;
		pid_t pid;

		seed += 0x1000;
		scribble_header = i % 4 == 3;	/* raw rounds only */
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 2;
		if (!pid)
			_exit(child(argv[1], gidx, secs, i % 4 == 0));
		while (waitpid(pid, &st, WNOHANG) == 0) {
			if (waited++ > (secs + 20) * 10) {
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				killed++;
				break;
			}
			usleep(100000);
		}
		if (WIFEXITED(st)) {
			exited++;
			if (WEXITSTATUS(st) >= 3)
				badset++;
			printf("round %d: child exited %d\n", i, WEXITSTATUS(st));
		} else if (WIFSIGNALED(st)) {
			signalled++;
			printf("round %d: child ended by signal %d\n", i, WTERMSIG(st));
		}
	}
	printf("rounds %d: exited %d (set-up failures %d), by signal %d, killed after the time %d\n",
	       rounds, exited, badset, signalled, killed);
	/*
	 * A child that cannot set up means the device stopped working; one
	 * that does not end on time is stuck (its loop checks the clock).
	 */
	return badset || killed ? 1 : 0;
}
