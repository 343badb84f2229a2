// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_integrity: data integrity of the RC data path, as an unmodified
 * libibverbs program (rdma-core 44, stock rxe provider) sees it.
 *
 * Two RC QPs on the same device are connected to each other (loopback: each
 * QP's address vector is the port's own GID, the destination QPN the other
 * QP), path MTU = the port's active MTU.  Each side owns NMR registered
 * buffers ("MRs") registered in different ways (at their virtual address, at
 * a low IOVA, at the IOVA range that ends exactly at 2^64, at an odd address).
 * With a seeded PRNG the tests then run batches of transfers of random sizes
 * (1 B .. SROCE_INTEGRITY_MAX_SIZE, log-uniform, plus the edge sizes 0, 1,
 * mtu-1, mtu, mtu+1, 2mtu-1, 2mtu, 2mtu+1 and the maximum), at random offsets,
 * split over 1..max_sge SGEs at random split points across the MRs:
 * SEND, SEND_WITH_IMM (into multi-SGE receives, also through an SRQ shared by
 * both QPs), RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, and chains of atomic
 * FETCH_ADD / CMP_SWP on 8-byte aligned remote words.
 *
 * Memory discipline: every MR buffer has a shadow copy holding its
 * "background" (random bytes with bit 0 clear, GUARD bytes before and after
 * the MR included).  Transfer data always has bit 0 set, so a byte the device
 * failed to write, or wrote where it should not, can never look right.  After
 * each batch every destination is compared byte for byte with its source,
 * every source must be unchanged, the unused tail of a receive buffer and the
 * GUARD bytes around every range the batch used must still hold background,
 * and then everything is restored from the shadow; every few batches and at
 * the end all the memory of both sides is compared with the shadow.
 *
 * Every completion is checked: status, opcode, byte_len (receives, RDMA READ,
 * atomics), imm_data and the IBV_WC_WITH_IMM flag, wr_id, qp_num, and that
 * each queue completes in posting order.
 *
 * Tests: send, send_srq, write, read, atomic, mixed (all of them, both
 * directions, several WRs in flight), edge_sizes (every opcode with every
 * edge size and inline, whatever the seed), mr_iova (ibv_reg_mr_iova works),
 * odp (everything again with on-demand paging MRs, and a WRITE into pages
 * the process made read-only is refused),
 * mr_iova_end_2_64 (an MR whose IOVA range ends exactly at 2^64 registers and
 * carries WRITE, READ and FETCH_AND_ADD on its last bytes), retry_exceeded
 * (the peer QP vanishes: retry_cnt retries, 7 included, then
 * IBV_WC_RETRY_EXC_ERR, counted; needs root for sroce's retry_floor_ms),
 * reset_in_flight (both QPs to RESET in the middle of long transfers, then
 * connected again with new PSNs: no completion after the RESET, nothing
 * outside the cut batch touched, the next batch exact), and:
 *
 * Negative cases (each recreates the QPs after the error): bad rkeys (stale,
 * wrong key bits, other PD, missing remote permission) for WRITE and READ;
 * WRITE/READ beyond the end or before the start of the remote MR, including
 * remote addresses where va + len wraps past 2^64; SEND larger than the
 * posted receive (RQ and SRQ).  Each must complete with the right status, the
 * WR after it flushed, both QPs in the error state, and no memory outside
 * the target touched.
 *
 * Environment:
 *   SROCE_DEV                   RDMA device (default: the first one)
 *   SROCE_GID                   GID index of the IPv4 RoCEv2 GID (default 1)
 *   SROCE_SEED                  PRNG seed (default 0x5eed2026); each test
 *                               mixes its name in, and prints what it used
 *   SROCE_INTEGRITY_ITERS       transfers per random test (default 120;
 *                               "mixed" runs twice as many)
 *   SROCE_INTEGRITY_MAX_SIZE    largest transfer in bytes (default 1048576)
 *   SROCE_INTEGRITY_MAX_SGE     SGEs per WR at most (default 8)
 *   SROCE_INTEGRITY_BATCH       WRs in flight per batch at most (default 8)
 *   SROCE_INTEGRITY_CHECK_EVERY full memory check every N batches (default 8)
 *   SROCE_INTEGRITY_WC_TIMEOUT  seconds to wait for a batch's completions (30)
 *   SROCE_INTEGRITY_VERBOSE     1: print every transfer
 *   SROCE_INTEGRITY_ONLY        comma-separated test names to run, the
 *                               others are skipped (for debugging)
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The harness' SIGALRM handler has a parameter it does not use. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define PORT		1
#define NSIDE		2
#define NMR		4
#define GUARD		64		/* canary bytes around every range */
#define SGE_MAX		32		/* array bound for SGE lists */
#define BATCH_MAX	32		/* WRs per batch at most */
#define XFER_MAX	(BATCH_MAX + 4)
#define IVL_MAX		(XFER_MAX * (3 * SGE_MAX + 2))
#define WRID_MAGIC	0x5e00000000000000ull
#define WRID_RECV	0x8000ull
#define DEFAULT_SEED	0x5eed2026ull
#define MAX_ERRORS	12		/* detailed reports per test */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_FADD, OP_CAS, OP_N };

static const char *const op_name[OP_N] = {
	"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM",
	"RDMA_READ", "ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP",
};

#define M(op)		(1u << (op))
#define M_ALL		(M(OP_N) - 1)
#define M_ATOMIC	(M(OP_FADD) | M(OP_CAS))

struct cfg {
	uint64_t seed;
	unsigned int iters;
	size_t max_size;
	unsigned int max_sge;
	unsigned int batch;
	unsigned int check_every;
	unsigned int wc_timeout;
	int verbose;
};

/* One registered buffer: [GUARD][MR: len bytes][GUARD] in mem and shadow. */
struct mrbuf {
	uint8_t *map;
	size_t maplen;
	uint8_t *mem;
	uint8_t *shadow;
	size_t len;
	uint64_t iova;		/* the MR's address for SGEs and remote access */
	struct ibv_mr *mr;
	const char *kind;
};

struct piece {
	uint8_t side, mr;
	size_t off, len;	/* off from the MR start */
};

struct ivl {			/* a range a batch uses, guards included */
	uint8_t side, mr;
	size_t a, b;		/* mem coordinates */
};

struct xfer {
	enum op op;
	int req;		/* requester side = QP index */
	size_t len;
	bool inl;
	int nl;
	struct piece l[SGE_MAX];	/* local SGEs */
	struct piece r;			/* remote range / atomic word */
	int rwqe;			/* receive WQE it consumed, -1 */
	uint32_t imm;
	uint64_t add, cmp, swap, orig;	/* atomics */
	int word;
	uint8_t *exp;			/* expected data, len bytes */
	bool swc, rwc;			/* completions seen */
};

struct rwqe {
	int qp;			/* QP index, or -1 for the SRQ */
	int n;
	struct piece p[SGE_MAX];
	size_t cap;
	int xfer;		/* the transfer that landed in it, -1 */
};

struct word {
	struct piece p;
	uint64_t init, final;
};

struct batch {
	uint64_t no;
	bool srq;
	int n, nr, nw, ni;
	struct xfer x[XFER_MAX];
	struct rwqe r[XFER_MAX];
	struct word w[XFER_MAX];
	struct ivl iv[IVL_MAX];
	/* receive-consuming transfers per responder QP, in posting order */
	int rq[NSIDE][XFER_MAX], nrq[NSIDE], rq_next[NSIDE];
	int sq[NSIDE][XFER_MAX], nsq[NSIDE], sq_next[NSIDE];
};

struct stats {
	unsigned long ops[OP_N];
	unsigned long long bytes[OP_N];
	unsigned long batches, inl, sges, edge;
};

struct ctx {
	struct __test_metadata *md;
	struct cfg cfg;
	uint64_t rng;
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	char name[IBV_SYSFS_NAME_MAX];
	size_t mtu;
	struct ibv_pd *pd;
	struct mrbuf m[NSIDE][NMR];
	bool skipped;		/* not in SROCE_INTEGRITY_ONLY */
	bool iova_fallback;	/* ibv_reg_mr_iova failed: MRs at their VA */
	int top_refused;	/* errno of the MR ending at 2^64, 0 if accepted */
	/* the connected pair, recreated after errors */
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;
	struct ibv_qp *qp[NSIDE];
	uint32_t sq_psn[NSIDE];
	unsigned int max_send_sge, max_recv_sge, max_rd_sge, max_inline;
	unsigned int rd_atom, dest_rd_atom;
	uint8_t qp_timeout, retry_cnt;	/* for the next pair_create */
	struct batch *b;
	struct stats st;
	int errors;
	int reports;
	uint8_t *tmp;		/* scratch for comparisons */
};

/* ---------------------------------------------------------------- helpers */

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	uint64_t v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "# %s=%s is not a number, using %" PRIu64 "\n", name, s, def);
		return def;
	}
	return v;
}

static void read_cfg(struct cfg *c)
{
	c->seed = env_u64("SROCE_SEED", DEFAULT_SEED);
	c->iters = env_u64("SROCE_INTEGRITY_ITERS", 120);
	c->max_size = env_u64("SROCE_INTEGRITY_MAX_SIZE", 1 << 20);
	c->max_sge = env_u64("SROCE_INTEGRITY_MAX_SGE", 8);
	c->batch = env_u64("SROCE_INTEGRITY_BATCH", 8);
	c->check_every = env_u64("SROCE_INTEGRITY_CHECK_EVERY", 8);
	c->wc_timeout = env_u64("SROCE_INTEGRITY_WC_TIMEOUT", 30);
	c->verbose = env_u64("SROCE_INTEGRITY_VERBOSE", 0);
	if (c->max_size < 64)
		c->max_size = 64;
	if (c->max_sge < 1)
		c->max_sge = 1;
	if (c->max_sge > SGE_MAX)
		c->max_sge = SGE_MAX;
	if (c->batch < 1)
		c->batch = 1;
	if (c->batch > BATCH_MAX)
		c->batch = BATCH_MAX;
	if (c->check_every < 1)
		c->check_every = 1;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(struct ctx *c)
{
	uint64_t x = c->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	c->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* uniform in [0, n), n > 0 */
static uint64_t rnd_below(struct ctx *c, uint64_t n)
{
	return n ? rnd(c) % n : 0;
}

static uint64_t rnd_range(struct ctx *c, uint64_t lo, uint64_t hi)
{
	return lo + rnd_below(c, hi - lo + 1);
}

/* Random bytes with bit 0 set (data) or clear (background). */
static void fill(struct ctx *c, uint8_t *p, size_t n, bool data)
{
	const uint64_t m = 0x0101010101010101ull;
	uint64_t x;

	while (n) {
		size_t k = n < 8 ? n : 8;

		x = rnd(c);
		x = data ? (x | m) : (x & ~m);
		memcpy(p, &x, k);
		p += k;
		n -= k;
	}
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* A failed check: counted always, described up to MAX_ERRORS times. */
static void bad(struct ctx *c, const char *fmt, ...)
{
	va_list ap;

	c->errors++;
	if (++c->reports > MAX_ERRORS) {
		if (c->reports == MAX_ERRORS + 1)
			note("FAIL: further failures not described");
		return;
	}
	va_start(ap, fmt);
	fputs("# FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static struct mrbuf *mb(struct ctx *c, const struct piece *p)
{
	return &c->m[p->side][p->mr];
}

static uint8_t *pmem(struct ctx *c, const struct piece *p)
{
	return mb(c, p)->mem + GUARD + p->off;
}

static uint8_t *pshadow(struct ctx *c, const struct piece *p)
{
	return mb(c, p)->shadow + GUARD + p->off;
}

static uint64_t pva(struct ctx *c, const struct piece *p)
{
	return mb(c, p)->iova + p->off;
}

static const char *side_name(int s)
{
	return s ? "B" : "A";
}

static int piece_str(char *buf, size_t n, const struct piece *p)
{
	return snprintf(buf, n, "%s%d+%zu/%zu", side_name(p->side), p->mr, p->off, p->len);
}

static void pieces_str(char *buf, size_t n, const struct piece *p, int np)
{
	size_t k = 0;
	int i;

	k += snprintf(buf + k, n - k, "[");
	for (i = 0; i < np && k < n; i++) {
		if (i)
			k += snprintf(buf + k, n - k, " ");
		if (k < n)
			k += piece_str(buf + k, n - k, &p[i]);
	}
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

static void xfer_str(struct ctx *c, char *buf, size_t n, const struct xfer *x)
{
	char l[512], r[64] = "-", w[512] = "-";
	const struct batch *b = c->b;

	pieces_str(l, sizeof(l), x->l, x->nl);
	if (x->op >= OP_WRITE)
		piece_str(r, sizeof(r), &x->r);
	if (x->rwqe >= 0)
		pieces_str(w, sizeof(w), b->r[x->rwqe].p, b->r[x->rwqe].n);
	snprintf(buf, n, "%s %s->%s len %zu%s local %s remote %s (va 0x%" PRIx64
		 ") recv#%d %s imm 0x%08x",
		 op_name[x->op], side_name(x->req), side_name(!x->req), x->len,
		 x->inl ? " INLINE" : "", l, r, x->op >= OP_WRITE ? pva(c, &x->r) : 0,
		 x->rwqe, w, x->imm);
}

/*
 * Compare got with want (n bytes); on mismatch describe the first difference,
 * how many bytes differ and, to tell misplaced data from lost data, where in
 * the expected data the received bytes were found.
 */
static bool same(struct ctx *c, const char *what, const struct xfer *x,
		 const uint8_t *got, const uint8_t *want, size_t n,
		 const uint8_t *hay, size_t hay_len)
{
	char desc[2048], gs[32], ws[32], where[64] = "";
	size_t i, first, ndiff = 0, k;
	const uint8_t *hit = NULL;

	if (!memcmp(got, want, n))
		return true;
	for (i = 0; i < n && got[i] == want[i]; i++)
		;
	first = i;
	for (; i < n; i++)
		ndiff += got[i] != want[i];
	for (k = 0, i = first; i < n && i < first + 8; i++)
		k += snprintf(gs + k, sizeof(gs) - k, "%02x", got[i]);
	for (k = 0, i = first; i < n && i < first + 8; i++)
		k += snprintf(ws + k, sizeof(ws) - k, "%02x", want[i]);
	if (hay && n - first >= 8)
		hit = memmem(hay, hay_len, got + first, 8);
	if (hit)
		snprintf(where, sizeof(where), "; got bytes are data offset %zu",
			 (size_t)(hit - hay));
	bad(c, "%s: %zu of %zu bytes differ, first at +%zu: got %s want %s (%s)%s",
	    what, ndiff, n, first, gs, ws,
	    (got[first] & 1) ? "got transfer data" : "got background", where);
	if (x && c->reports <= MAX_ERRORS) {
		xfer_str(c, desc, sizeof(desc), x);
		note("      in %s", desc);
	}
	return false;
}

/* ------------------------------------------------------- device and pair */

static int env_gid_index(void)
{
	const char *s = getenv("SROCE_GID");

	return s && *s ? atoi(s) : 1;
}

static size_t mtu_bytes(enum ibv_mtu m)
{
	return 128u << m;
}

static void pair_destroy(struct ctx *c)
{
	int i;

	for (i = 0; i < NSIDE; i++) {
		if (c->qp[i])
			ibv_destroy_qp(c->qp[i]);
		c->qp[i] = NULL;
	}
	if (c->srq)
		ibv_destroy_srq(c->srq);
	c->srq = NULL;
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	c->scq = c->rcq = NULL;
}

static uint32_t pick_psn(struct ctx *c)
{
	/* half the time just below the 24-bit wrap, so long messages cross it */
	if (rnd_below(c, 2))
		return (0xffffff - rnd_below(c, 64)) & 0xffffff;
	return rnd(c) & 0xffffff;
}

static int qp_connect(struct ctx *c, int i)
{
	struct ibv_qp_attr a;
	int j = !i, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.pkey_index = 0;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(c->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->port.active_mtu;
	a.dest_qp_num = c->qp[j]->qp_num;
	a.rq_psn = c->sq_psn[j];
	a.max_dest_rd_atomic = c->dest_rd_atom;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = PORT;
	a.ah_attr.grh.dgid = c->gid;
	a.ah_attr.grh.sgid_index = c->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	ret = ibv_modify_qp(c->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn[i];
	a.timeout = c->qp_timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = c->rd_atom;
	return ibv_modify_qp(c->qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC);
}

/* (Re)create the CQs, the optional SRQ and two QPs connected to each other. */
static void pair_create(struct ctx *c, bool use_srq)
{
	struct __test_metadata *_metadata = c->md;
	unsigned int sge = c->cfg.max_sge;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	int i, inl;

	pair_destroy(c);
	if (sge > (unsigned int)c->dattr.max_sge)
		sge = c->dattr.max_sge;
	c->scq = ibv_create_cq(c->ctx, 4 * XFER_MAX + 16, NULL, NULL, 0);
	c->rcq = ibv_create_cq(c->ctx, 4 * XFER_MAX + 16, NULL, NULL, 0);
	ASSERT_TRUE(c->scq && c->rcq) TH_LOG("ibv_create_cq: %s", strerror(errno));
	if (use_srq) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 2 * XFER_MAX, .max_sge = sge },
		};

		if (sa.attr.max_sge > (unsigned int)c->dattr.max_srq_sge)
			sa.attr.max_sge = c->dattr.max_srq_sge;
		c->srq = ibv_create_srq(c->pd, &sa);
		ASSERT_NE(NULL, c->srq) TH_LOG("ibv_create_srq: %s", strerror(errno));
	}
	for (i = 0; i < NSIDE; i++) {
		/* inline data if the device has it; 256 bytes, else none */
		for (inl = 256; ; inl = 0) {
			memset(&ia, 0, sizeof(ia));
			ia.send_cq = c->scq;
			ia.recv_cq = c->rcq;
			ia.srq = c->srq;
			ia.qp_type = IBV_QPT_RC;
			ia.sq_sig_all = 1;
			ia.cap.max_send_wr = 2 * XFER_MAX;
			ia.cap.max_recv_wr = c->srq ? 0 : 2 * XFER_MAX;
			ia.cap.max_send_sge = sge;
			ia.cap.max_recv_sge = c->srq ? 0 : sge;
			ia.cap.max_inline_data = inl;
			c->qp[i] = ibv_create_qp(c->pd, &ia);
			if (c->qp[i] || !inl)
				break;
		}
		ASSERT_NE(NULL, c->qp[i]) TH_LOG("ibv_create_qp: %s", strerror(errno));
		if (i == 0) {
			c->max_send_sge = ia.cap.max_send_sge < sge ? ia.cap.max_send_sge : sge;
			c->max_recv_sge = sge;
			if (c->srq) {
				struct ibv_srq_attr s;

				ASSERT_EQ(0, ibv_query_srq(c->srq, &s));
				c->max_recv_sge = s.max_sge < sge ? s.max_sge : sge;
			} else if (ia.cap.max_recv_sge < sge) {
				c->max_recv_sge = ia.cap.max_recv_sge;
			}
			c->max_inline = inl ? ia.cap.max_inline_data : 0;
			if (c->max_inline > 256)
				c->max_inline = 256;
		}
		c->sq_psn[i] = pick_psn(c);
	}
	c->max_rd_sge = c->max_send_sge;
	if (c->dattr.max_sge_rd > 0 && (unsigned int)c->dattr.max_sge_rd < c->max_rd_sge)
		c->max_rd_sge = c->dattr.max_sge_rd;
	for (i = 0; i < NSIDE; i++)
		ASSERT_EQ(0, qp_connect(c, i)) TH_LOG("connect QP %s: %s", side_name(i),
						      strerror(errno));
	for (i = 0; i < NSIDE; i++) {
		struct ibv_qp_init_attr x;

		ASSERT_EQ(0, ibv_query_qp(c->qp[i], &qa, IBV_QP_STATE, &x));
		ASSERT_EQ(IBV_QPS_RTS, (int)qa.qp_state);
	}
}

static int qp_state(struct ctx *c, int i)
{
	struct ibv_qp_init_attr x;
	struct ibv_qp_attr qa;

	memset(&qa, 0, sizeof(qa));
	if (ibv_query_qp(c->qp[i], &qa, IBV_QP_STATE, &x))
		return -1;
	return qa.qp_state;
}

/* Register buffer j of a side in one of the NMR ways. */
static void mr_setup(struct ctx *c, int side, int j)
{
	struct __test_metadata *_metadata = c->md;
	struct mrbuf *m = &c->m[side][j];
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	static const size_t misalign[NMR] = { 0, 8, 1365, 4093 };
	size_t base = c->cfg.max_size * 2 + 8192;
	uint64_t va, po;

	m->len = base + j * 4099 + side * 13;
	/* MR 2's IOVA range will end at 2^64 exactly: end it on a page boundary */
	if (j == 2)
		m->len += (4096 - (misalign[j] + GUARD + m->len) % 4096) % 4096;
	m->maplen = (misalign[j] + m->len + 2 * GUARD + 4095) & ~(size_t)4095;
	m->map = mmap(NULL, m->maplen, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m->map);
	m->mem = m->map + misalign[j];
	m->shadow = malloc(m->len + 2 * GUARD);
	ASSERT_NE(NULL, m->shadow);
	fill(c, m->shadow, m->len + 2 * GUARD, false);
	memcpy(m->mem, m->shadow, m->len + 2 * GUARD);

	va = (uintptr_t)(m->mem + GUARD);
	po = va & 4095;
	switch (j) {
	case 1:		/* low IOVA, same page offset (ib_uverbs requires it) */
		m->iova = 0x10000 + po;
		m->kind = "iova-low";
		break;
	case 2:		/* IOVA range [2^64 - len, 2^64): its end wraps to 0 */
		m->iova = -(uint64_t)m->len;
		m->kind = "iova-top(2^64)";
		break;
	default:
		m->iova = va;
		m->kind = j == 3 ? "va-odd" : "va";
	}
	if (m->iova == va) {
		m->mr = ibv_reg_mr(c->pd, m->mem + GUARD, m->len, acc);
	} else {
		m->mr = ibv_reg_mr_iova(c->pd, m->mem + GUARD, m->len, m->iova, acc);
		if (!m->mr && j == 2) {
			/* refused (test mr_iova_end_2_64 says so): end a page lower */
			c->top_refused = errno ? errno : -1;
			m->iova -= 4096;
			m->kind = "iova-top(2^64-4096)";
			m->mr = ibv_reg_mr_iova(c->pd, m->mem + GUARD, m->len, m->iova, acc);
		}
		if (!m->mr) {
			note("ibv_reg_mr_iova(iova 0x%" PRIx64 ", len %zu): %s; registering at the VA instead",
			     m->iova, m->len, strerror(errno));
			c->iova_fallback = true;
			m->iova = va;
			m->kind = "va(fallback)";
			m->mr = ibv_reg_mr(c->pd, m->mem + GUARD, m->len, acc);
		}
	}
	ASSERT_NE(NULL, m->mr) TH_LOG("ibv_reg_mr(%zu bytes): %s", m->len, strerror(errno));
}

/* Is test name in SROCE_INTEGRITY_ONLY (or is that unset)? */
static bool selected(const char *name)
{
	const char *only = getenv("SROCE_INTEGRITY_ONLY"), *p;
	size_t n = strlen(name);

	if (!only || !*only)
		return true;
	for (p = only; (p = strstr(p, name)); p += n)
		if ((p == only || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static void ctx_open(struct __test_metadata *_metadata, struct ctx *c)
{
	const char *want = getenv("SROCE_DEV");
	struct ibv_device **list, *dev = NULL;
	uint64_t s;
	const char *p;
	int i, j, n = 0;

	memset(c, 0, sizeof(*c));
	c->md = _metadata;
	if (!selected(_metadata->name)) {
		c->skipped = true;
		SKIP(return, "not in SROCE_INTEGRITY_ONLY");
	}
	read_cfg(&c->cfg);
	/* every test its own stream: the seed mixed with the test name */
	s = c->cfg.seed;
	for (p = _metadata->name; *p; p++)
		s = (s ^ (uint8_t)*p) * 0x100000001b3ull;
	c->rng = splitmix(&s) | 1;
	note("%s: seed 0x%" PRIx64 " (SROCE_SEED=0x%" PRIx64 " repeats it)",
	     _metadata->name, c->cfg.seed, c->cfg.seed);

	c->gid_index = env_gid_index();
	list = ibv_get_device_list(&n);
	ASSERT_NE(NULL, list) TH_LOG("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (!want || !*want || !strcmp(ibv_get_device_name(list[i]), want)) {
			dev = list[i];
			break;
		}
	}
	if (!dev)
		ibv_free_device_list(list);
	ASSERT_NE(NULL, dev) TH_LOG("no RDMA device %s", want ? want : "at all");
	snprintf(c->name, sizeof(c->name), "%s", ibv_get_device_name(dev));
	c->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, c->ctx) TH_LOG("ibv_open_device(%s): %s", c->name, strerror(errno));
	ASSERT_EQ(0, ibv_query_device(c->ctx, &c->dattr));
	ASSERT_EQ(0, ibv_query_port(c->ctx, PORT, &c->port));
	ASSERT_EQ(IBV_PORT_ACTIVE, (int)c->port.state);
	ASSERT_EQ(0, ibv_query_gid(c->ctx, PORT, c->gid_index, &c->gid));
	c->mtu = mtu_bytes(c->port.active_mtu);
	c->qp_timeout = 16;	/* 268 ms: TCG guests are slow */
	c->retry_cnt = 7;
	c->rd_atom = c->dattr.max_qp_rd_atom < 16 ? c->dattr.max_qp_rd_atom : 16;
	c->dest_rd_atom = c->dattr.max_qp_init_rd_atom < 16 ? c->dattr.max_qp_init_rd_atom : 16;
	if (c->rd_atom < 1)
		c->rd_atom = 1;
	if (c->dest_rd_atom < 1)
		c->dest_rd_atom = 1;
	c->pd = ibv_alloc_pd(c->ctx);
	ASSERT_NE(NULL, c->pd) TH_LOG("ibv_alloc_pd: %s", strerror(errno));
	for (i = 0; i < NSIDE; i++)
		for (j = 0; j < NMR; j++)
			mr_setup(c, i, j);
	c->b = calloc(1, sizeof(*c->b));
	c->tmp = malloc(c->cfg.max_size * 6 + 262144);
	ASSERT_TRUE(c->b && c->tmp);
}

static void ctx_close(struct ctx *c)
{
	int i, j;

	pair_destroy(c);
	for (i = 0; i < NSIDE; i++) {
		for (j = 0; j < NMR; j++) {
			struct mrbuf *m = &c->m[i][j];

			if (m->mr)
				ibv_dereg_mr(m->mr);
			if (m->map)
				munmap(m->map, m->maplen);
			free(m->shadow);
		}
	}
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ctx)
		ibv_close_device(c->ctx);
	if (c->b) {
		for (i = 0; i < c->b->n; i++)
			free(c->b->x[i].exp);
		free(c->b);
	}
	free(c->tmp);
}

/* ------------------------------------------------------------- placement */

static bool ivl_free(struct batch *b, int side, int mr, size_t a, size_t e)
{
	int i;

	for (i = 0; i < b->ni; i++) {
		const struct ivl *v = &b->iv[i];

		if (v->side == side && v->mr == mr && a < v->b && v->a < e)
			return false;
	}
	return true;
}

/*
 * Find room for len bytes (plus GUARD bytes each side) on a side: in MR mr
 * (or a random one), at a random offset (now and then the very start or end
 * of the MR), with the MR address aligned to align if non-zero.
 */
static bool place(struct ctx *c, int side, size_t len, unsigned int align, int mr,
		  struct piece *p)
{
	struct batch *b = c->b;
	int t;

	if (b->ni >= IVL_MAX)
		return false;
	for (t = 0; t < 64; t++) {
		int j = mr >= 0 ? mr : (int)rnd_below(c, NMR);
		struct mrbuf *m = &c->m[side][j];
		size_t max, off;

		if (len > m->len)
			continue;
		max = m->len - len;
		switch (rnd_below(c, 16)) {
		case 0:
			off = 0;
			break;
		case 1:
			off = max;
			break;
		default:
			off = rnd_below(c, max + 1);
		}
		if (align) {
			uint64_t va = m->iova + off;
			uint64_t av = (va + align - 1) & ~(uint64_t)(align - 1);

			off += av - va;
			if (off > max)
				continue;
		}
		if (!ivl_free(b, side, j, off, off + len + 2 * GUARD))
			continue;
		b->iv[b->ni++] = (struct ivl){ side, j, off, off + len + 2 * GUARD };
		*p = (struct piece){ side, j, off, len };
		return true;
	}
	return false;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Split len bytes into 1..maxk pieces (none empty) at random split points,
 * some of them on or next to MTU boundaries, and place each piece.
 */
static bool place_split(struct ctx *c, int side, size_t len, unsigned int maxk,
			struct piece *out, int *np)
{
	size_t cut[SGE_MAX + 1];
	unsigned int k, i, n;

	*np = 0;
	if (!len)
		return true;
	if (maxk > len)
		maxk = len;
	k = rnd_below(c, 3) ? 1 + rnd_below(c, maxk) : 1;
	n = 0;
	while (n < k - 1) {
		size_t x;

		if (rnd_below(c, 4) == 0 && len > c->mtu + 1) {
			x = c->mtu * rnd_range(c, 1, len / c->mtu) + rnd_range(c, 0, 2) - 1;
			if (x < 1 || x >= len)
				continue;
		} else {
			x = rnd_range(c, 1, len - 1);
		}
		for (i = 0; i < n && cut[i] != x; i++)
			;
		if (i == n)
			cut[n++] = x;
	}
	qsort(cut, n, sizeof(cut[0]), cmp_size);
	cut[n] = len;
	for (i = 0; i <= n; i++) {
		size_t start = i ? cut[i - 1] : 0;

		if (!place(c, side, cut[i] - start, 0, -1, &out[i]))
			return false;
	}
	*np = n + 1;
	return true;
}

static size_t pick_len(struct ctx *c, enum op op, bool *edge)
{
	const size_t mtu = c->mtu, max = c->cfg.max_size;
	const size_t edges[] = { 0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu - 1,
				 2 * mtu, 2 * mtu + 1, max };
	size_t len;
	unsigned int e, bits = 0;

	*edge = false;
	if (op == OP_FADD || op == OP_CAS)
		return 8;
	if (rnd_below(c, 100) < 15) {
		*edge = true;
		len = edges[rnd_below(c, sizeof(edges) / sizeof(edges[0]))];
		return len > max ? max : len;
	}
	while ((1ull << (bits + 1)) <= max)
		bits++;
	e = rnd_below(c, bits + 1);
	len = (1ull << e) + rnd_below(c, 1ull << e);
	return len > max ? max : len;
}

static bool op_uses_recv(enum op op)
{
	return op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
}

/* A receive WQE of capacity cap on QP qp (-1: the SRQ), buffers on side. */
static int gen_rwqe(struct ctx *c, int qp, int side, size_t cap)
{
	struct batch *b = c->b;
	struct rwqe *r = &b->r[b->nr];

	memset(r, 0, sizeof(*r));
	r->qp = qp;
	r->cap = cap;
	r->xfer = -1;
	if (!place_split(c, side, cap, c->max_recv_sge, r->p, &r->n))
		return -1;
	return b->nr++;
}

static size_t recv_slack(struct ctx *c, size_t len)
{
	size_t m = len < 4096 ? len : 4096;

	return rnd_below(c, 3) ? 0 : rnd_below(c, m + 64);
}

/* Generate transfer op of len bytes from side req into the batch. */
static bool gen_xfer(struct ctx *c, enum op op, int req, size_t len)
{
	struct batch *b = c->b;
	struct xfer *x = &b->x[b->n];
	int resp = !req, ni = b->ni, nr = b->nr;
	unsigned int maxk = c->max_send_sge;

	memset(x, 0, sizeof(*x));
	x->op = op;
	x->req = req;
	x->len = len;
	x->rwqe = -1;
	x->word = -1;
	x->imm = rnd(c);
	if (op != OP_READ && len && len <= c->max_inline && rnd_below(c, 4) == 0)
		x->inl = true;
	if (op == OP_READ)
		maxk = c->max_rd_sge;
	if (!place_split(c, req, len, maxk, x->l, &x->nl))
		goto undo;
	if (op == OP_WRITE || op == OP_WRITE_IMM || op == OP_READ)
		if (!place(c, resp, len, 0, -1, &x->r))
			goto undo;
	if (op_uses_recv(op) && !b->srq) {
		size_t cap = op == OP_WRITE_IMM ? rnd_below(c, 4096) : len + recv_slack(c, len);

		if (op == OP_WRITE_IMM && rnd_below(c, 3) == 0)
			cap = 0;
		x->rwqe = gen_rwqe(c, resp, resp, cap);
		if (x->rwqe < 0)
			goto undo;
		b->r[x->rwqe].xfer = b->n;
	}
	x->exp = malloc(len ? len : 1);
	if (!x->exp)
		goto undo;
	if (op_uses_recv(op))
		b->rq[resp][b->nrq[resp]++] = b->n;
	b->sq[req][b->nsq[req]++] = b->n;
	b->n++;
	return true;
undo:
	b->ni = ni;
	b->nr = nr;
	return false;
}

/* A chain of 1..4 atomics from side req on one remote word. */
static bool gen_atomics(struct ctx *c, unsigned int mask, int req, unsigned int room)
{
	struct batch *b = c->b;
	struct word *w = &b->w[b->nw];
	int resp = !req, ni = b->ni, n0 = b->n, nops, i;
	uint64_t v;

	if (!place(c, resp, 8, 8, -1, &w->p))
		return false;
	w->init = v = rnd(c);
	nops = 1 + rnd_below(c, 4);
	if ((unsigned int)nops > room)
		nops = room;
	for (i = 0; i < nops; i++) {
		struct xfer *x = &b->x[b->n];
		enum op op = (mask & M_ATOMIC) == M_ATOMIC ? (rnd_below(c, 2) ? OP_FADD : OP_CAS)
			   : (mask & M(OP_FADD)) ? OP_FADD : OP_CAS;

		memset(x, 0, sizeof(*x));
		x->op = op;
		x->req = req;
		x->len = 8;
		x->rwqe = -1;
		x->word = b->nw;
		x->r = w->p;
		x->nl = 1;
		if (!place(c, req, 8, rnd_below(c, 2) ? 8 : 0, -1, &x->l[0]))
			goto undo;
		x->orig = v;
		if (op == OP_FADD) {
			x->add = rnd_below(c, 4) ? rnd(c) : rnd_below(c, 16);
			v += x->add;
		} else {
			x->cmp = rnd_below(c, 2) ? v : v ^ (1 + rnd_below(c, UINT64_MAX));
			x->swap = rnd(c);
			if (x->cmp == v)
				v = x->swap;
		}
		x->exp = malloc(8);
		if (!x->exp)
			goto undo;
		memcpy(x->exp, &x->orig, 8);
		b->sq[req][b->nsq[req]++] = b->n;
		b->n++;
	}
	w->final = v;
	b->nw++;
	return true;
undo:
	while (b->n > n0) {
		b->n--;
		free(b->x[b->n].exp);
		b->x[b->n].exp = NULL;
		b->nsq[req]--;
	}
	b->ni = ni;
	return false;
}

static void batch_reset(struct ctx *c, bool srq)
{
	struct batch *b = c->b;
	uint64_t no = b->no;
	int i;

	for (i = 0; i < b->n; i++)
		free(b->x[i].exp);
	memset(b, 0, sizeof(*b));
	b->no = no + 1;
	b->srq = srq;
}

/* With an SRQ: one receive per receive-consuming transfer, each big enough
 * for any of them, since which transfer lands in which is up to the device. */
static bool gen_srq_rwqes(struct ctx *c)
{
	struct batch *b = c->b;
	size_t maxlen = 0;
	int i, nrecv = 0;

	for (i = 0; i < b->n; i++) {
		if (!op_uses_recv(b->x[i].op))
			continue;
		nrecv++;
		if (b->x[i].op != OP_WRITE_IMM && b->x[i].len > maxlen)
			maxlen = b->x[i].len;
	}
	for (i = 0; i < nrecv; i++)
		if (gen_rwqe(c, -1, rnd_below(c, NSIDE), maxlen + recv_slack(c, maxlen)) < 0)
			return false;
	return true;
}

/*
 * Fill a batch with up to `want` transfers whose ops come from mask.  A
 * transfer that does not fit in what the batch left free ends the batch.
 */
static void gen_batch(struct ctx *c, unsigned int mask, bool srq, unsigned int want,
		      const size_t *fixed_len)
{
	struct batch *b = c->b;
	size_t srq_max = 0;
	unsigned int bound = c->cfg.max_size * 3 + 3 * c->mtu;

	batch_reset(c, srq);
	while ((unsigned int)b->n < want) {
		enum op op;
		int req = rnd_below(c, NSIDE);
		bool edge;
		size_t len;

		/* an atomic brings a chain: pick them half as often in a mix */
		do
			op = rnd_below(c, OP_N);
		while (!(mask & M(op)) ||
		       ((op == OP_FADD || op == OP_CAS) && (mask & ~M_ATOMIC) && rnd_below(c, 2)));
		if (op == OP_FADD || op == OP_CAS) {
			if (!gen_atomics(c, mask, req, want - b->n))
				break;
			continue;
		}
		len = fixed_len ? *fixed_len : pick_len(c, op, &edge);
		if (!fixed_len && edge)
			c->st.edge++;
		/* an SRQ batch gives every receive the largest size: bound it */
		if (srq && op_uses_recv(op)) {
			size_t m = op == OP_WRITE_IMM ? srq_max : (len > srq_max ? len : srq_max);
			unsigned int nrecv = 1;
			int i;

			for (i = 0; i < b->n; i++)
				nrecv += op_uses_recv(b->x[i].op);
			if (b->n && (m + 4096) * nrecv > bound)
				break;
			srq_max = m;
		}
		if (!gen_xfer(c, op, req, len))
			break;
	}
	if (srq && !gen_srq_rwqes(c)) {
		/* could not place the receives: drop the whole batch but one */
		note("batch %" PRIu64 ": no room for SRQ receives, shrinking", b->no);
		while (b->n > 1) {
			b->n--;
			free(b->x[b->n].exp);
			b->x[b->n].exp = NULL;
		}
	}
}

/* ---------------------------------------------------------- post and poll */

static uint64_t wrid(struct ctx *c, int idx, bool recv)
{
	return WRID_MAGIC | (c->b->no & 0xffffffff) << 16 | (recv ? WRID_RECV : 0) | idx;
}

static bool wrid_decode(struct ctx *c, uint64_t id, bool recv, int lim, int *idx)
{
	if ((id & ~0xffffull) != (WRID_MAGIC | (c->b->no & 0xffffffff) << 16))
		return false;
	if (!!(id & WRID_RECV) != recv)
		return false;
	*idx = id & 0x7fff;
	return *idx < lim;
}

static void sge_of(struct ctx *c, const struct piece *p, bool inl, struct ibv_sge *s)
{
	s->addr = inl ? (uintptr_t)pmem(c, p) : pva(c, p);
	s->length = p->len;
	s->lkey = mb(c, p)->mr->lkey;
}

static int post_recvs(struct ctx *c)
{
	struct batch *b = c->b;
	struct ibv_recv_wr wr[XFER_MAX], *badwr;
	struct ibv_sge sg[XFER_MAX][SGE_MAX];
	int i, j, ret;

	for (i = 0; i < b->nr; i++) {
		struct rwqe *r = &b->r[i];

		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = wrid(c, i, true);
		wr[i].sg_list = sg[i];
		wr[i].num_sge = r->n;
		for (j = 0; j < r->n; j++)
			sge_of(c, &r->p[j], false, &sg[i][j]);
	}
	/* in order; consecutive ones to the same queue sometimes as one list */
	for (i = 0; i < b->nr; i = j) {
		for (j = i + 1; j < b->nr && b->r[j].qp == b->r[i].qp && rnd_below(c, 2); j++)
			wr[j - 1].next = &wr[j];
		if (b->r[i].qp < 0)
			ret = ibv_post_srq_recv(c->srq, &wr[i], &badwr);
		else
			ret = ibv_post_recv(c->qp[b->r[i].qp], &wr[i], &badwr);
		if (ret) {
			bad(c, "ibv_post_%srecv: %s", b->r[i].qp < 0 ? "srq_" : "", strerror(ret));
			return -1;
		}
	}
	return 0;
}

static void build_send(struct ctx *c, int i, struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	struct xfer *x = &c->b->x[i];
	int j;

	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wrid(c, i, false);
	wr->sg_list = sg;
	wr->num_sge = x->nl;
	wr->send_flags = IBV_SEND_SIGNALED | (x->inl ? IBV_SEND_INLINE : 0);
	for (j = 0; j < x->nl; j++)
		sge_of(c, &x->l[j], x->inl, &sg[j]);
	switch (x->op) {
	case OP_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case OP_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htobe32(x->imm);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_READ:
		wr->opcode = x->op == OP_WRITE ? IBV_WR_RDMA_WRITE :
			     x->op == OP_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE_WITH_IMM;
		if (x->op == OP_WRITE_IMM)
			wr->imm_data = htobe32(x->imm);
		wr->wr.rdma.remote_addr = pva(c, &x->r);
		wr->wr.rdma.rkey = mb(c, &x->r)->mr->rkey;
		break;
	case OP_FADD:
	case OP_CAS:
		wr->opcode = x->op == OP_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.remote_addr = pva(c, &x->r);
		wr->wr.atomic.rkey = mb(c, &x->r)->mr->rkey;
		wr->wr.atomic.compare_add = x->op == OP_FADD ? x->add : x->cmp;
		wr->wr.atomic.swap = x->swap;
		break;
	default:
		break;
	}
}

static int post_sends(struct ctx *c)
{
	struct batch *b = c->b;
	struct ibv_send_wr wr[XFER_MAX], *badwr;
	struct ibv_sge sg[XFER_MAX][SGE_MAX];
	int i, j, ret;

	for (i = 0; i < b->n; i++)
		build_send(c, i, &wr[i], sg[i]);
	for (i = 0; i < b->n; i = j) {
		for (j = i + 1; j < b->n && b->x[j].req == b->x[i].req && rnd_below(c, 2); j++)
			wr[j - 1].next = &wr[j];
		ret = ibv_post_send(c->qp[b->x[i].req], &wr[i], &badwr);
		if (ret) {
			bad(c, "ibv_post_send(%s, %d WRs from #%d): %s", op_name[b->x[i].op],
			    j - i, i, strerror(ret));
			return -1;
		}
	}
	return 0;
}

static enum ibv_wc_opcode send_wc_opcode(enum op op)
{
	switch (op) {
	case OP_SEND:
	case OP_SEND_IMM:
		return IBV_WC_SEND;
	case OP_WRITE:
	case OP_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case OP_READ:
		return IBV_WC_RDMA_READ;
	case OP_FADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_COMP_SWAP;
	}
}

static int qp_index(struct ctx *c, uint32_t qpn)
{
	int i;

	for (i = 0; i < NSIDE; i++)
		if (c->qp[i]->qp_num == qpn)
			return i;
	return -1;
}

static void check_send_wc(struct ctx *c, const struct ibv_wc *wc)
{
	struct batch *b = c->b;
	char d[2048];
	struct xfer *x;
	int i, q;

	if (!wrid_decode(c, wc->wr_id, false, b->n, &i)) {
		bad(c, "send completion with unknown wr_id 0x%" PRIx64 " status %s qp 0x%x",
		    wc->wr_id, ibv_wc_status_str(wc->status), wc->qp_num);
		return;
	}
	x = &b->x[i];
	xfer_str(c, d, sizeof(d), x);
	if (x->swc) {
		bad(c, "second send completion for #%d %s", i, d);
		return;
	}
	x->swc = true;
	if (wc->status != IBV_WC_SUCCESS) {
		bad(c, "send completion #%d: status %s (%d) vendor_err 0x%x for %s",
		    i, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, d);
		return;
	}
	q = x->req;
	if (wc->qp_num != c->qp[q]->qp_num)
		bad(c, "send completion #%d: qp_num 0x%x, want 0x%x, for %s", i, wc->qp_num,
		    c->qp[q]->qp_num, d);
	if (b->sq_next[q] >= b->nsq[q] || b->sq[q][b->sq_next[q]] != i)
		bad(c, "send completion #%d out of order on QP %s (expected #%d) for %s", i,
		    side_name(q), b->sq_next[q] < b->nsq[q] ? b->sq[q][b->sq_next[q]] : -1, d);
	b->sq_next[q]++;
	if (wc->opcode != send_wc_opcode(x->op))
		bad(c, "send completion #%d: opcode %d, want %d, for %s", i, wc->opcode,
		    send_wc_opcode(x->op), d);
	/* byte_len is defined on the send queue for RDMA READ and atomics */
	if ((x->op == OP_READ || x->op == OP_FADD || x->op == OP_CAS) && wc->byte_len != x->len)
		bad(c, "send completion #%d: byte_len %u, want %zu, for %s", i, wc->byte_len,
		    x->len, d);
}

static void check_recv_wc(struct ctx *c, const struct ibv_wc *wc)
{
	struct batch *b = c->b;
	char d[2048];
	struct rwqe *r;
	struct xfer *x;
	int ri, xi, q;
	bool imm;

	if (!wrid_decode(c, wc->wr_id, true, b->nr, &ri)) {
		bad(c, "receive completion with unknown wr_id 0x%" PRIx64 " status %s qp 0x%x",
		    wc->wr_id, ibv_wc_status_str(wc->status), wc->qp_num);
		return;
	}
	r = &b->r[ri];
	q = qp_index(c, wc->qp_num);
	if (q < 0 || (r->qp >= 0 && q != r->qp)) {
		bad(c, "receive completion for recv#%d: qp_num 0x%x is not %s", ri, wc->qp_num,
		    r->qp >= 0 ? side_name(r->qp) : "one of ours");
		return;
	}
	if (b->rq_next[q] >= b->nrq[q]) {
		bad(c, "receive completion for recv#%d on QP %s: no message was sent there (status %s)",
		    ri, side_name(q), ibv_wc_status_str(wc->status));
		return;
	}
	/* messages arrive at a QP in order: this is the next one sent to it */
	xi = b->rq[q][b->rq_next[q]++];
	x = &b->x[xi];
	if (r->qp >= 0 && x->rwqe != ri) {
		bad(c, "receive completion on QP %s: recv#%d completed, recv#%d (for #%d) expected",
		    side_name(q), ri, x->rwqe, xi);
		return;
	}
	if (r->xfer >= 0 && r->qp < 0) {
		bad(c, "SRQ recv#%d completed twice", ri);
		return;
	}
	r->xfer = xi;
	x->rwqe = ri;
	x->rwc = true;
	xfer_str(c, d, sizeof(d), x);
	if (wc->status != IBV_WC_SUCCESS) {
		bad(c, "receive completion recv#%d: status %s (%d) vendor_err 0x%x for %s", ri,
		    ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, d);
		return;
	}
	if (x->op == OP_WRITE_IMM) {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM)
			bad(c, "receive completion recv#%d: opcode %d, want RECV_RDMA_WITH_IMM, for %s",
			    ri, wc->opcode, d);
	} else if (wc->opcode != IBV_WC_RECV) {
		bad(c, "receive completion recv#%d: opcode %d, want RECV, for %s", ri,
		    wc->opcode, d);
	}
	if (wc->byte_len != x->len)
		bad(c, "receive completion recv#%d: byte_len %u, want %zu, for %s", ri,
		    wc->byte_len, x->len, d);
	imm = x->op == OP_SEND_IMM || x->op == OP_WRITE_IMM;
	if (!!(wc->wc_flags & IBV_WC_WITH_IMM) != imm)
		bad(c, "receive completion recv#%d: wc_flags 0x%x, IBV_WC_WITH_IMM %s expected, for %s",
		    ri, wc->wc_flags, imm ? "" : "not", d);
	else if (imm && be32toh(wc->imm_data) != x->imm)
		bad(c, "receive completion recv#%d: imm_data 0x%08x, want 0x%08x, for %s", ri,
		    be32toh(wc->imm_data), x->imm, d);
}

/* Collect the batch's completions: every WR signalled, every receive used. */
static int poll_batch(struct ctx *c)
{
	struct batch *b = c->b;
	int want_s = b->n, want_r = 0, got_s = 0, got_r = 0, i, k;
	double end = now() + c->cfg.wc_timeout;
	struct ibv_wc wc[16];
	unsigned long spins = 0;

	for (i = 0; i < b->n; i++)
		want_r += op_uses_recv(b->x[i].op);
	while (got_s < want_s || got_r < want_r) {
		int n = ibv_poll_cq(c->scq, 16, wc);

		if (n < 0) {
			bad(c, "ibv_poll_cq(send): %d", n);
			return -1;
		}
		for (k = 0; k < n; k++)
			check_send_wc(c, &wc[k]);
		got_s += n;
		i = n;
		n = ibv_poll_cq(c->rcq, 16, wc);
		if (n < 0) {
			bad(c, "ibv_poll_cq(recv): %d", n);
			return -1;
		}
		for (k = 0; k < n; k++)
			check_recv_wc(c, &wc[k]);
		got_r += n;
		if (i + n)
			continue;
		if ((++spins & 255) == 0 && now() > end) {
			char d[2048];

			bad(c, "batch %" PRIu64 ": %d of %d send and %d of %d receive completions after %u s",
			    b->no, got_s, want_s, got_r, want_r, c->cfg.wc_timeout);
			for (i = 0; i < b->n && c->reports <= MAX_ERRORS; i++) {
				if (b->x[i].swc && (b->x[i].rwc || !op_uses_recv(b->x[i].op)))
					continue;
				xfer_str(c, d, sizeof(d), &b->x[i]);
				note("  missing %s%s: #%d %s", b->x[i].swc ? "" : "send ",
				     op_uses_recv(b->x[i].op) && !b->x[i].rwc ? "recv" : "", i, d);
			}
			for (i = 0; i < NSIDE; i++)
				note("  QP %s (0x%x) state %d", side_name(i), c->qp[i]->qp_num,
				     qp_state(c, i));
			return -1;
		}
		sched_yield();
	}
	/* nothing more may arrive */
	if (ibv_poll_cq(c->scq, 1, wc) > 0 || ibv_poll_cq(c->rcq, 1, wc) > 0)
		bad(c, "batch %" PRIu64 ": extra completion wr_id 0x%" PRIx64 " status %s",
		    b->no, wc[0].wr_id, ibv_wc_status_str(wc[0].status));
	return 0;
}

/* ------------------------------------------------------------ verification */

static void gather(struct ctx *c, const struct piece *p, int n, uint8_t *out)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(out, pmem(c, &p[i]), p[i].len);
		out += p[i].len;
	}
}

/* Write the sources of the batch: data into them, initial atomic values. */
static void prepare(struct ctx *c)
{
	struct batch *b = c->b;
	int i;

	for (i = 0; i < b->n; i++) {
		struct xfer *x = &b->x[i];
		int j;

		switch (x->op) {
		case OP_READ:
			fill(c, pmem(c, &x->r), x->len, true);
			memcpy(x->exp, pmem(c, &x->r), x->len);
			break;
		case OP_FADD:
		case OP_CAS:
			break;
		default:
			for (j = 0; j < x->nl; j++)
				fill(c, pmem(c, &x->l[j]), x->l[j].len, true);
			gather(c, x->l, x->nl, x->exp);
		}
	}
	for (i = 0; i < b->nw; i++)
		memcpy(pmem(c, &b->w[i].p), &b->w[i].init, 8);
}

/*
 * Check pieces p[0..n) hold data[0..len) in order and background after it.
 */
static void check_scatter(struct ctx *c, const char *what, const struct xfer *x,
			  const struct piece *p, int n, const uint8_t *data, size_t len)
{
	size_t pos = 0;
	char w[160];
	int i;

	for (i = 0; i < n; i++) {
		size_t k = len - pos < p[i].len ? len - pos : p[i].len;

		snprintf(w, sizeof(w), "%s SGE %d (%s%d+%zu, %zu bytes) data at +%zu", what, i,
			 side_name(p[i].side), p[i].mr, p[i].off, k, pos);
		if (k && !same(c, w, x, pmem(c, &p[i]), data + pos, k, data, len))
			return;
		snprintf(w, sizeof(w), "%s SGE %d unused tail (+%zu..+%zu)", what, i, k, p[i].len);
		if (k < p[i].len && !same(c, w, x, pmem(c, &p[i]) + k, pshadow(c, &p[i]) + k,
					p[i].len - k, data, len))
			return;
		pos += k;
	}
}

static void verify_batch(struct ctx *c)
{
	struct batch *b = c->b;
	char w[160];
	int i;

	for (i = 0; i < b->n; i++) {
		struct xfer *x = &b->x[i];
		struct rwqe *r = x->rwqe >= 0 ? &b->r[x->rwqe] : NULL;

		snprintf(w, sizeof(w), "#%d %s", i, op_name[x->op]);
		switch (x->op) {
		case OP_SEND:
		case OP_SEND_IMM:
			if (r)
				check_scatter(c, "receive buffer", x, r->p, r->n, x->exp, x->len);
			check_scatter(c, "send source (must be unchanged)", x, x->l, x->nl,
				      x->exp, x->len);
			break;
		case OP_WRITE:
		case OP_WRITE_IMM:
			check_scatter(c, "write target", x, &x->r, 1, x->exp, x->len);
			check_scatter(c, "write source (must be unchanged)", x, x->l, x->nl,
				      x->exp, x->len);
			if (r)
				check_scatter(c, "receive buffer of the immediate (must be unchanged)",
					      x, r->p, r->n, x->exp, 0);
			break;
		case OP_READ:
			check_scatter(c, "read destination", x, x->l, x->nl, x->exp, x->len);
			check_scatter(c, "read source (must be unchanged)", x, &x->r, 1,
				      x->exp, x->len);
			break;
		case OP_FADD:
		case OP_CAS:
			check_scatter(c, "atomic original value", x, x->l, 1, x->exp, 8);
			break;
		default:
			break;
		}
	}
	for (i = 0; i < b->nw; i++) {
		struct word *wd = &b->w[i];
		uint64_t v;
		int k;

		memcpy(&v, pmem(c, &wd->p), 8);
		if (v != wd->final) {
			char d[2048] = "";

			for (k = 0; k < b->n; k++)
				if (b->x[k].word == i) {
					xfer_str(c, d, sizeof(d), &b->x[k]);
					break;
				}
			bad(c, "atomic word %s%d+%zu (va 0x%" PRIx64 "): 0x%016" PRIx64
			    ", want 0x%016" PRIx64 " (initial 0x%016" PRIx64 "), first op %s",
			    side_name(wd->p.side), wd->p.mr, wd->p.off, pva(c, &wd->p), v,
			    wd->final, wd->init, d);
		}
	}
	/* unused receives (an SRQ batch that lost a message) stay background */
	for (i = 0; i < b->nr; i++)
		if (b->r[i].xfer < 0)
			check_scatter(c, "unused receive buffer", NULL, b->r[i].p, b->r[i].n,
				      NULL, 0);
	/* the canaries around every range the batch used */
	for (i = 0; i < b->ni; i++) {
		const struct ivl *v = &b->iv[i];
		struct mrbuf *m = &c->m[v->side][v->mr];

		snprintf(w, sizeof(w), "guard before %s%d+%zu", side_name(v->side), v->mr, v->a);
		same(c, w, NULL, m->mem + v->a, m->shadow + v->a, GUARD, NULL, 0);
		snprintf(w, sizeof(w), "guard after %s%d+%zu", side_name(v->side), v->mr,
			 v->b - 2 * GUARD);
		same(c, w, NULL, m->mem + v->b - GUARD, m->shadow + v->b - GUARD, GUARD, NULL, 0);
	}
}

static void restore_batch(struct ctx *c)
{
	struct batch *b = c->b;
	int i;

	for (i = 0; i < b->ni; i++) {
		const struct ivl *v = &b->iv[i];
		struct mrbuf *m = &c->m[v->side][v->mr];

		memcpy(m->mem + v->a, m->shadow + v->a, v->b - v->a);
	}
}

/* All the memory of both sides against the shadow, except [skip] if given. */
static bool full_check(struct ctx *c, const char *when, const struct piece *skip)
{
	bool ok = true;
	int s, j;

	for (s = 0; s < NSIDE; s++) {
		for (j = 0; j < NMR; j++) {
			struct mrbuf *m = &c->m[s][j];
			size_t n = m->len + 2 * GUARD, i, first, cnt = 0, last = 0;

			if (!skip || skip->side != s || skip->mr != j) {
				if (!memcmp(m->mem, m->shadow, n))
					continue;
			}
			first = n;
			for (i = 0; i < n; i++) {
				if (m->mem[i] == m->shadow[i])
					continue;
				if (skip && skip->side == s && skip->mr == j &&
				    i >= GUARD + skip->off && i < GUARD + skip->off + skip->len)
					continue;
				if (first == n)
					first = i;
				last = i;
				cnt++;
			}
			if (!cnt)
				continue;
			ok = false;
			bad(c, "%s: %zu bytes of %s%d (%s, va 0x%" PRIx64 ", %zu bytes) changed "
			    "outside any transfer, from MR offset %zd to %zd (first: 0x%02x, background 0x%02x)",
			    when, cnt, side_name(s), j, m->kind, m->iova, m->len,
			    (ssize_t)first - GUARD, (ssize_t)last - GUARD, m->mem[first],
			    m->shadow[first]);
			memcpy(m->mem, m->shadow, n);
		}
	}
	return ok;
}

static void account(struct ctx *c)
{
	struct batch *b = c->b;
	int i;

	c->st.batches++;
	for (i = 0; i < b->n; i++) {
		c->st.ops[b->x[i].op]++;
		c->st.bytes[b->x[i].op] += b->x[i].len;
		c->st.inl += b->x[i].inl;
		c->st.sges += b->x[i].nl;
	}
}

static void print_batch(struct ctx *c)
{
	struct batch *b = c->b;
	char d[2048];
	int i;

	for (i = 0; i < b->n; i++) {
		xfer_str(c, d, sizeof(d), &b->x[i]);
		note("batch %" PRIu64 " #%d %s", b->no, i, d);
	}
}

/* Post, complete and verify the batch that is generated; false on failure. */
static bool run_batch(struct ctx *c)
{
	int e = c->errors;

	if (!c->b->n)
		return true;
	if (c->cfg.verbose)
		print_batch(c);
	prepare(c);
	if (post_recvs(c) || post_sends(c) || poll_batch(c)) {
		if (c->errors == e)
			bad(c, "batch %" PRIu64 " failed", c->b->no);
	} else {
		verify_batch(c);
	}
	if (c->errors != e) {
		if (!c->cfg.verbose) {
			note("the failing batch %" PRIu64 " (%d WRs):", c->b->no, c->b->n);
			print_batch(c);
		}
		return false;
	}
	account(c);
	restore_batch(c);
	if (c->b->no % c->cfg.check_every == 0)
		return full_check(c, "full check", NULL);
	return true;
}

static void print_stats(struct ctx *c, const char *name, double t0)
{
	char line[1024];
	unsigned long long tot = 0;
	unsigned long n = 0;
	size_t k = 0;
	int i;

	for (i = 0; i < OP_N; i++) {
		if (!c->st.ops[i])
			continue;
		n += c->st.ops[i];
		tot += c->st.bytes[i];
		k += snprintf(line + k, sizeof(line) - k, " %s %lu", op_name[i], c->st.ops[i]);
	}
	note("%s: %lu transfers in %lu batches, %.1f MiB, %.1f s (%lu SGEs, %lu inline, %lu edge sizes);%s",
	     name, n, c->st.batches, tot / 1048576.0, now() - t0, c->st.sges, c->st.inl,
	     c->st.edge, line);
}

static void describe(struct ctx *c)
{
	int j;

	if (c->qp[0])
		note("%s: port MTU %zu, GID %d, max_send_sge %u, max_recv_sge %u, max_inline %u, "
		     "rd_atomic %u/%u, sq_psn 0x%06x/0x%06x",
		     c->name, c->mtu, c->gid_index, c->max_send_sge, c->max_recv_sge, c->max_inline,
		     c->rd_atom, c->dest_rd_atom, c->sq_psn[0], c->sq_psn[1]);
	else
		note("%s: port MTU %zu, GID %d", c->name, c->mtu, c->gid_index);
	for (j = 0; j < NMR; j++)
		note("MR %d (%s): A va 0x%" PRIx64 " len %zu, B va 0x%" PRIx64 " len %zu", j,
		     c->m[0][j].kind, c->m[0][j].iova, c->m[0][j].len, c->m[1][j].iova,
		     c->m[1][j].len);
}

/* The random tests: iters transfers with ops from mask. */
static void run_random(struct ctx *c, unsigned int mask, bool srq, unsigned int iters)
{
	struct __test_metadata *_metadata = c->md;
	double t0 = now();
	unsigned int done = 0;

	pair_create(c, srq);
	describe(c);
	while (done < iters) {
		unsigned int want = 1 + rnd_below(c, c->cfg.batch);

		if (want > iters - done)
			want = iters - done;
		gen_batch(c, mask, srq, want, NULL);
		ASSERT_LT(0, c->b->n) TH_LOG("could not place a transfer");
		if (!run_batch(c))
			break;
		done += c->b->n;
	}
	if (!c->errors)
		full_check(c, "final check", NULL);
	print_stats(c, _metadata->name, t0);
	ASSERT_EQ(0, c->errors);
}

/* ------------------------------------------------------------------ tests */

FIXTURE(rc) { struct ctx c; };
FIXTURE_SETUP(rc) { ctx_open(_metadata, &self->c); }
FIXTURE_TEARDOWN(rc) { ctx_close(&self->c); }

TEST_F_TIMEOUT(rc, send, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M(OP_SEND) | M(OP_SEND_IMM), false, self->c.cfg.iters);
}

/* One SRQ shared by both QPs; RDMA WRITE with immediate consumes from it too. */
TEST_F_TIMEOUT(rc, send_srq, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M(OP_SEND) | M(OP_SEND_IMM) | M(OP_WRITE_IMM), true,
		   self->c.cfg.iters);
}

TEST_F_TIMEOUT(rc, write, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M(OP_WRITE) | M(OP_WRITE_IMM), false, self->c.cfg.iters);
}

TEST_F_TIMEOUT(rc, read, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M(OP_READ), false, self->c.cfg.iters);
}

TEST_F_TIMEOUT(rc, atomic, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M_ATOMIC, false, self->c.cfg.iters);
}

/* Everything at once, both directions, several WRs in flight per QP. */
TEST_F_TIMEOUT(rc, mixed, 120)
{
	if (self->c.skipped)
		return;
	run_random(&self->c, M_ALL, false, 2 * self->c.cfg.iters);
}

/*
 * Every non-atomic opcode with each edge size, whatever the seed: 0, 1, the
 * MTU and its neighbours, two MTUs and theirs, the largest size, and for the
 * inline-capable opcodes 1 and max_inline inline.
 */
TEST_F_TIMEOUT(rc, edge_sizes, 120)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	const size_t mtu = c->mtu;
	const size_t sizes[] = { 0, 1, mtu - 1, mtu, mtu + 1, 2 * mtu - 1, 2 * mtu,
				 2 * mtu + 1, 3 * mtu, c->cfg.max_size };
	const enum op ops[] = { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ };
	double t0 = now();
	unsigned int i, k, srq;

	for (srq = 0; srq < 2; srq++) {
		pair_create(c, srq);
		if (!srq)
			describe(c);
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			if (srq && !op_uses_recv(ops[i]))
				continue;
			for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
				size_t len = sizes[k] > c->cfg.max_size ? c->cfg.max_size : sizes[k];

				gen_batch(c, M(ops[i]), srq, 1, &len);
				ASSERT_EQ(1, c->b->n);
				c->b->x[0].inl = false;
				if (!run_batch(c))
					goto out;
			}
			if (ops[i] == OP_READ || !c->max_inline || srq)
				continue;
			for (k = 0; k < 2; k++) {
				size_t len = k ? c->max_inline : 1;

				gen_batch(c, M(ops[i]), srq, 1, &len);
				ASSERT_EQ(1, c->b->n);
				c->b->x[0].inl = true;
				if (!run_batch(c))
					goto out;
			}
		}
	}
out:
	if (!c->errors)
		full_check(c, "final check", NULL);
	print_stats(c, _metadata->name, t0);
	ASSERT_EQ(0, c->errors);
}

/* MRs registered at an IOVA other than their address (ibv_reg_mr_iova) */
TEST_F(rc, mr_iova)
{
	if (self->c.skipped)
		return;
	EXPECT_FALSE(self->c.iova_fallback)
		TH_LOG("ibv_reg_mr_iova failed, the data tests used VA-registered MRs");
}

/* One transfer of len bytes to or from the last bytes of B's MR 2. */
static bool one_at_end(struct ctx *c, enum op op, size_t len)
{
	struct batch *b = c->b;
	struct mrbuf *m = &c->m[1][2];
	size_t off = m->len - len;
	struct xfer *x;

	batch_reset(c, false);
	x = &b->x[0];
	memset(x, 0, sizeof(*x));
	x->op = op;
	x->len = len;
	x->rwqe = -1;
	x->word = -1;
	x->r = (struct piece){ 1, 2, off, len };
	b->iv[b->ni++] = (struct ivl){ 1, 2, off, off + len + 2 * GUARD };
	x->exp = malloc(len);
	if (!x->exp)
		return false;
	if (op == OP_FADD) {
		struct word *w = &b->w[b->nw];

		x->nl = 1;
		if (!place(c, 0, 8, 0, -1, &x->l[0]))
			return false;
		w->p = x->r;
		w->init = x->orig = rnd(c);
		x->add = rnd(c);
		w->final = w->init + x->add;
		memcpy(x->exp, &x->orig, 8);
		x->word = b->nw++;
	} else if (!place_split(c, 0, len, c->max_send_sge, x->l, &x->nl)) {
		return false;
	}
	b->sq[0][b->nsq[0]++] = 0;
	b->n = 1;
	return run_batch(c);
}

/*
 * An MR whose IOVA range ends exactly at 2^64, [2^64 - len, 2^64), so that
 * iova + len computes to 0: a valid range (its last byte 2^64 - 1 is an
 * address; rdma_rxe registers it), and WRITE, READ and FETCH_AND_ADD on its
 * very last bytes work.  When the device refuses it, the other tests use an
 * MR ending one page lower.
 */
TEST_F_TIMEOUT(rc, mr_iova_end_2_64, 60)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	struct mrbuf *m = &c->m[1][2];

	ASSERT_FALSE(c->iova_fallback) TH_LOG("ibv_reg_mr_iova does not work at all");
	ASSERT_EQ(0, c->top_refused)
		TH_LOG("ibv_reg_mr_iova(iova 0x%" PRIx64 " = 2^64 - %zu, len %zu) failed: %s",
		       m->iova + 4096, m->len, m->len, strerror(c->top_refused));
	pair_create(c, false);
	describe(c);
	if (one_at_end(c, OP_WRITE, 3 * c->mtu + 5) &&
	    one_at_end(c, OP_READ, 2 * c->mtu + 3) &&
	    one_at_end(c, OP_FADD, 8))
		full_check(c, "after the transfers at 2^64", NULL);
	ASSERT_EQ(0, c->errors);
}

/* --------------------------------------------------------- negative cases */

struct neg {
	const char *what;
	enum op op;		/* OP_WRITE or OP_READ */
	uint64_t raddr;
	uint32_t rkey;
	size_t len;
	struct piece inside;	/* part of the target inside the MR (may change) */
	bool has_inside;
	enum ibv_wc_status want;
};

static bool wait_wcs(struct ctx *c, struct ibv_cq *cq, struct ibv_wc *wc, int n, int secs)
{
	double end = now() + secs;
	int got = 0;

	while (got < n) {
		int k = ibv_poll_cq(cq, n - got, wc + got);

		if (k < 0)
			return false;
		got += k;
		if (!k) {
			if (now() > end)
				break;
			sched_yield();
		}
	}
	if (got < n) {
		bad(c, "%d of %d completions after %d s", got, n, secs);
		return false;
	}
	return true;
}

static const char *wcs(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

/* After an error: requester and responder in the error state. */
static void expect_error_state(struct ctx *c, const char *what, int req)
{
	int s;

	s = qp_state(c, req);
	if (s != IBV_QPS_ERR)
		bad(c, "%s: requester QP %s in state %d after the error, want ERR (%d)", what,
		    side_name(req), s, IBV_QPS_ERR);
	s = qp_state(c, !req);
	if (s != IBV_QPS_ERR)
		bad(c, "%s: responder QP %s in state %d after the NAK, want ERR (%d)", what,
		    side_name(!req), s, IBV_QPS_ERR);
}

/*
 * One bad RDMA op between a good RDMA WRITE (must complete and land) and a
 * trailing good RDMA WRITE (must be flushed), on freshly connected QPs.
 * Nothing but the good write's target may change, plus the part of the bad
 * target that is inside the MR (reported, not failed: the IBA has the
 * responder check the whole range before it writes, but only says what must
 * not happen outside it), and for a READ the local destination (undefined
 * after an error).
 */
static void neg_rdma(struct ctx *c, const struct neg *n)
{
	struct batch *b;
	struct ibv_send_wr wr[3], *badwr;
	struct ibv_sge sg[3][SGE_MAX];
	struct ibv_wc wc[3];
	struct piece gsrc, gdst, tsrc, tdst, loc[SGE_MAX];
	int nloc = 0, e = c->errors, i, ret;
	uint8_t *gexp = c->tmp, *lexp = c->tmp + 4096;
	char what[256];

	snprintf(what, sizeof(what), "%s %s (va 0x%" PRIx64 " len %zu rkey 0x%x)",
		 op_name[n->op], n->what, n->raddr, n->len, n->rkey);
	pair_create(c, false);
	batch_reset(c, false);
	b = c->b;
	/* keep the bad target's MR out of the good writes' way */
	if (!place(c, 0, 1000, 0, 0, &gsrc) || !place(c, 1, 1000, 0, 1, &gdst) ||
	    !place(c, 0, 2000, 0, 0, &tsrc) || !place(c, 1, 2000, 0, 1, &tdst) ||
	    !place_split(c, 0, n->len, c->max_send_sge, loc, &nloc)) {
		bad(c, "%s: no room for the buffers", what);
		return;
	}
	fill(c, pmem(c, &gsrc), gsrc.len, true);
	memcpy(gexp, pmem(c, &gsrc), gsrc.len);
	fill(c, pmem(c, &tsrc), tsrc.len, true);
	if (n->op == OP_WRITE) {
		for (i = 0; i < nloc; i++)
			fill(c, pmem(c, &loc[i]), loc[i].len, true);
		gather(c, loc, nloc, lexp);
	}

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr_id = wrid(c, i, false);
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].sg_list = sg[i];
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		if (i < 2)
			wr[i].next = &wr[i + 1];
	}
	wr[0].num_sge = 1;
	sge_of(c, &gsrc, false, &sg[0][0]);
	wr[0].wr.rdma.remote_addr = pva(c, &gdst);
	wr[0].wr.rdma.rkey = mb(c, &gdst)->mr->rkey;
	wr[1].opcode = n->op == OP_READ ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
	wr[1].num_sge = nloc;
	for (i = 0; i < nloc; i++)
		sge_of(c, &loc[i], false, &sg[1][i]);
	wr[1].wr.rdma.remote_addr = n->raddr;
	wr[1].wr.rdma.rkey = n->rkey;
	wr[2].num_sge = 1;
	sge_of(c, &tsrc, false, &sg[2][0]);
	wr[2].wr.rdma.remote_addr = pva(c, &tdst);
	wr[2].wr.rdma.rkey = mb(c, &tdst)->mr->rkey;

	ret = ibv_post_send(c->qp[0], &wr[0], &badwr);
	if (ret) {
		bad(c, "%s: ibv_post_send: %s", what, strerror(ret));
		return;
	}
	if (wait_wcs(c, c->scq, wc, 3, c->cfg.wc_timeout)) {
		if (wc[0].wr_id != wr[0].wr_id || wc[0].status != IBV_WC_SUCCESS ||
		    wc[0].opcode != IBV_WC_RDMA_WRITE)
			bad(c, "%s: the good WRITE before it: wr_id 0x%" PRIx64 " status %s opcode %d",
			    what, wc[0].wr_id, wcs(wc[0].status), wc[0].opcode);
		if (wc[1].wr_id != wr[1].wr_id || wc[1].status != n->want)
			bad(c, "%s: completion wr_id 0x%" PRIx64 " (want 0x%" PRIx64 ") status %s (%d), want %s",
			    what, wc[1].wr_id, wr[1].wr_id, wcs(wc[1].status), wc[1].status,
			    wcs(n->want));
		else if (wc[1].qp_num != c->qp[0]->qp_num)
			bad(c, "%s: completion qp_num 0x%x, want 0x%x", what, wc[1].qp_num,
			    c->qp[0]->qp_num);
		if (wc[2].wr_id != wr[2].wr_id || wc[2].status != IBV_WC_WR_FLUSH_ERR)
			bad(c, "%s: the WRITE after it: wr_id 0x%" PRIx64 " status %s, want %s",
			    what, wc[2].wr_id, wcs(wc[2].status), wcs(IBV_WC_WR_FLUSH_ERR));
	}
	expect_error_state(c, what, 0);
	/* the good write landed, its source is intact */
	same(c, "good WRITE before the bad op: target", NULL, pmem(c, &gdst), gexp, gdst.len,
	     gexp, gdst.len);
	same(c, "good WRITE before the bad op: source", NULL, pmem(c, &gsrc), gexp, gsrc.len,
	     NULL, 0);
	/* a WRITE's source is intact; a READ's destination is undefined */
	if (n->op == OP_WRITE) {
		gather(c, loc, nloc, lexp + n->len);
		same(c, "source of the bad WRITE (must be unchanged)", NULL, lexp + n->len, lexp,
		     n->len, NULL, 0);
	}
	for (i = 0; i < nloc && n->op == OP_READ; i++)
		if (memcmp(pmem(c, &loc[i]), pshadow(c, &loc[i]), loc[i].len))
			note("%s: note: the local READ destination was written", what);
	/* the canaries around every buffer */
	for (i = 0; i < b->ni; i++) {
		const struct ivl *v = &b->iv[i];
		struct mrbuf *m = &c->m[v->side][v->mr];

		same(c, "guard before a buffer", NULL, m->mem + v->a, m->shadow + v->a, GUARD,
		     NULL, 0);
		same(c, "guard after a buffer", NULL, m->mem + v->b - GUARD,
		     m->shadow + v->b - GUARD, GUARD, NULL, 0);
	}
	/* sources, good targets and READ destinations back to background */
	restore_batch(c);
	if (n->has_inside &&
	    memcmp(pmem(c, &n->inside), pshadow(c, &n->inside), n->inside.len)) {
		size_t k, cnt = 0;

		for (k = 0; k < n->inside.len; k++)
			cnt += pmem(c, &n->inside)[k] != pshadow(c, &n->inside)[k];
		note("%s: note: the responder wrote %zu of the %zu bytes of the target that are inside the MR before it refused the rest",
		     what, cnt, n->inside.len);
		memcpy(pmem(c, &n->inside), pshadow(c, &n->inside), n->inside.len);
	}
	full_check(c, what, n->has_inside ? &n->inside : NULL);
	if (c->errors != e)
		note("that was: %s", what);
	else
		note("ok: %s -> %s, next WR flushed, memory untouched", what, wcs(n->want));
}

/* One good transfer of each kind on fresh QPs: the device recovered. */
static void recovery(struct ctx *c)
{
	enum op ops[] = { OP_WRITE, OP_READ, OP_SEND_IMM };
	unsigned int i;

	if (c->errors)
		return;
	pair_create(c, false);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t len = 3 * c->mtu + 17;

		gen_batch(c, M(ops[i]), false, 1, &len);
		if (!run_batch(c))
			return;
	}
	full_check(c, "after recovery", NULL);
}

TEST_F_TIMEOUT(rc, bad_rkey, 120)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	struct mrbuf *t = &c->m[1][0];		/* the remote buffer aimed at */
	struct ibv_pd *pd2 = ibv_alloc_pd(c->ctx);
	struct ibv_mr *stale, *ro, *wo, *other;
	uint64_t va = t->iova + 4096 + 3;
	size_t len = 2 * c->mtu + 100;
	struct neg n;
	int op;

	ASSERT_NE(NULL, pd2);
	/* a key that existed: registered, then deregistered */
	stale = ibv_reg_mr(c->pd, t->mem + GUARD, t->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, stale);
	n.rkey = stale->rkey;
	ASSERT_EQ(0, ibv_dereg_mr(stale));
	/* the same memory, registered without one of the remote rights */
	ro = ibv_reg_mr(c->pd, t->mem + GUARD, t->len, IBV_ACCESS_REMOTE_READ);
	wo = ibv_reg_mr(c->pd, t->mem + GUARD, t->len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	/* and with every right, but in another PD */
	other = ibv_reg_mr(pd2, t->mem + GUARD, t->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ASSERT_TRUE(ro && wo && other) TH_LOG("ibv_reg_mr: %s", strerror(errno));
	describe(c);

	for (op = OP_WRITE; op <= OP_READ; op += OP_READ - OP_WRITE) {
		uint32_t keys[4] = { n.rkey, t->mr->rkey ^ 0x5a,
				     op == OP_WRITE ? ro->rkey : wo->rkey, other->rkey };
		const char *why[4] = { "stale rkey (deregistered MR)",
				       "rkey with wrong key bits (valid rkey ^ 0x5a)",
				       op == OP_WRITE ? "rkey of a remote-read-only MR"
						      : "rkey of a remote-write-only MR",
				       "rkey of an MR in another PD" };
		int k;

		for (k = 0; k < 4; k++) {
			struct neg x = {
				.what = why[k], .op = op, .rkey = keys[k], .len = len,
				.raddr = va, .want = IBV_WC_REM_ACCESS_ERR,
			};

			neg_rdma(c, &x);
		}
	}
	recovery(c);
	ibv_dereg_mr(ro);
	ibv_dereg_mr(wo);
	ibv_dereg_mr(other);
	ibv_dealloc_pd(pd2);
	ASSERT_EQ(0, c->errors);
}

/*
 * RDMA WRITE and READ whose range is not inside the remote MR: past its end
 * by one byte, starting at its end, starting one byte before it, longer than
 * it, and with va + len wrapping past 2^64, from an ordinary MR (a check
 * computed as "va >= start && va + len <= end" in 64 bits lets that through)
 * and from the MR whose IOVA range ends at 2^64, whose own end computes to 0.
 */
TEST_F_TIMEOUT(rc, out_of_range, 120)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	const size_t mtu = c->mtu;
	char desc[160];
	int op, k;

	describe(c);
	for (op = OP_WRITE; op <= OP_READ; op += OP_READ - OP_WRITE) {
		for (k = 0; k < 8; k++) {
			struct mrbuf *m = &c->m[1][k == 6 || k == 7 ? 2 : 0];
			uint64_t end = m->iova + m->len;	/* 0 for MR 2 */
			struct neg n = {
				.op = op, .rkey = m->mr->rkey, .want = IBV_WC_REM_ACCESS_ERR,
			};

			switch (k) {
			case 0:
				n.what = "1 byte past the end of the MR (3 MTUs + 5)";
				n.len = 3 * mtu + 5;
				n.raddr = end - n.len + 1;
				break;
			case 1:
				n.what = "starting at the end of the MR (1 byte)";
				n.len = 1;
				n.raddr = end;
				break;
			case 2:
				n.what = "starting 1 byte before the MR (16 bytes)";
				n.len = 16;
				n.raddr = m->iova - 1;
				break;
			case 3:
				n.what = "longer than the MR, from its start (len+1)";
				n.len = m->len + 1;
				n.raddr = m->iova;
				break;
			case 4:
				n.what = "va 2^64-16, len 4096: va+len wraps to 4080";
				n.len = 4096;
				n.raddr = (uint64_t)-16;
				break;
			case 5:
				n.what = "va 2^64-1, len 2 MTUs: va+len wraps";
				n.len = 2 * mtu;
				n.raddr = UINT64_MAX;
				break;
			case 6:
				n.len = 16384;
				n.raddr = end - 8;
				snprintf(desc, sizeof(desc), "%s MR, 8 bytes before its end, len 16 KiB: va+len wraps",
					 m->kind);
				n.what = desc;
				break;
			case 7:
				n.len = 2 * mtu;
				n.raddr = end - n.len + 1;
				snprintf(desc, sizeof(desc), "%s MR, 1 byte past its end (2 MTUs)%s",
					 m->kind, n.raddr + n.len < n.raddr ? ": va+len wraps to 1" : "");
				n.what = desc;
				break;
			}
			if (k >= 6 && c->iova_fallback)
				continue;	/* no MR near 2^64 */
			/* the part of [raddr, raddr+len) inside the MR, if any */
			if (op == OP_WRITE && n.raddr - m->iova < m->len) {
				n.has_inside = true;
				n.inside = (struct piece){ 1, m - c->m[1], n.raddr - m->iova,
							   m->len - (n.raddr - m->iova) };
				if (n.inside.len > n.len)
					n.inside.len = n.len;
			}
			neg_rdma(c, &n);
		}
	}
	recovery(c);
	ASSERT_EQ(0, c->errors);
}

/*
 * A SEND longer than the receive it lands in: the requester completes with
 * IBV_WC_REM_INV_REQ_ERR, the receive with IBV_WC_LOC_LEN_ERR, the next
 * SEND and the next receive are flushed, and nothing outside the receive
 * buffers changes (their content is undefined after the error).
 */
static void neg_send(struct ctx *c, bool srq, enum op op, size_t cap, size_t len, int nsge)
{
	struct batch *b;
	struct ibv_recv_wr rw[2], *badr;
	struct ibv_send_wr sw[2], *bads;
	struct ibv_sge rsg[2][SGE_MAX], ssg[2][SGE_MAX];
	struct ibv_wc wc[4];
	struct piece rp[SGE_MAX], rp2[SGE_MAX], sp[SGE_MAX], sp2[SGE_MAX];
	int nrp = 0, nrp2 = 0, nsp = 0, nsp2 = 0, i, j, ret, e = c->errors;
	unsigned int rmax;
	char what[256];
	bool rok;

	snprintf(what, sizeof(what), "%s of %zu bytes into a %s receive of %zu bytes (%d SGEs)",
		 op_name[op], len, srq ? "SRQ" : "RQ", cap, nsge);
	pair_create(c, srq);
	batch_reset(c, srq);
	b = c->b;
	rmax = c->max_recv_sge;
	if ((unsigned int)nsge > rmax)
		nsge = rmax;
	/* receive 1: cap bytes over nsge SGEs; receive 2: room for anything */
	if (cap) {
		size_t left = cap;

		for (i = 0; i < nsge; i++) {
			size_t k = i == nsge - 1 ? left : left / (nsge - i);

			if (!place(c, 1, k, 0, -1, &rp[nrp++]))
				goto room;
			left -= k;
		}
	}
	if (!place_split(c, 1, len + 100, rmax, rp2, &nrp2) ||
	    !place_split(c, 0, len, c->max_send_sge, sp, &nsp) ||
	    !place_split(c, 0, 64, c->max_send_sge, sp2, &nsp2))
		goto room;
	for (i = 0; i < nsp; i++)
		fill(c, pmem(c, &sp[i]), sp[i].len, true);
	for (i = 0; i < nsp2; i++)
		fill(c, pmem(c, &sp2[i]), sp2[i].len, true);
	gather(c, sp, nsp, c->tmp);

	memset(rw, 0, sizeof(rw));
	rw[0].wr_id = wrid(c, 0, true);
	rw[0].sg_list = rsg[0];
	rw[0].num_sge = nrp;
	rw[0].next = &rw[1];
	for (i = 0; i < nrp; i++)
		sge_of(c, &rp[i], false, &rsg[0][i]);
	rw[1].wr_id = wrid(c, 1, true);
	rw[1].sg_list = rsg[1];
	rw[1].num_sge = nrp2;
	for (i = 0; i < nrp2; i++)
		sge_of(c, &rp2[i], false, &rsg[1][i]);
	ret = srq ? ibv_post_srq_recv(c->srq, rw, &badr) : ibv_post_recv(c->qp[1], rw, &badr);
	if (ret) {
		bad(c, "%s: post_recv: %s", what, strerror(ret));
		return;
	}
	memset(sw, 0, sizeof(sw));
	for (j = 0; j < 2; j++) {
		sw[j].wr_id = wrid(c, j, false);
		sw[j].send_flags = IBV_SEND_SIGNALED;
		sw[j].sg_list = ssg[j];
		sw[j].opcode = op == OP_SEND_IMM ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		sw[j].imm_data = htobe32(0x1234567 + j);
	}
	sw[0].next = &sw[1];
	sw[0].num_sge = nsp;
	for (i = 0; i < nsp; i++)
		sge_of(c, &sp[i], false, &ssg[0][i]);
	sw[1].num_sge = nsp2;
	for (i = 0; i < nsp2; i++)
		sge_of(c, &sp2[i], false, &ssg[1][i]);
	ret = ibv_post_send(c->qp[0], sw, &bads);
	if (ret) {
		bad(c, "%s: post_send: %s", what, strerror(ret));
		return;
	}
	if (wait_wcs(c, c->scq, wc, 2, c->cfg.wc_timeout)) {
		if (wc[0].wr_id != sw[0].wr_id || wc[0].status != IBV_WC_REM_INV_REQ_ERR)
			bad(c, "%s: requester completion wr_id 0x%" PRIx64 " status %s (%d), want %s",
			    what, wc[0].wr_id, wcs(wc[0].status), wc[0].status,
			    wcs(IBV_WC_REM_INV_REQ_ERR));
		if (wc[1].wr_id != sw[1].wr_id || wc[1].status != IBV_WC_WR_FLUSH_ERR)
			bad(c, "%s: the SEND after it: wr_id 0x%" PRIx64 " status %s, want %s",
			    what, wc[1].wr_id, wcs(wc[1].status), wcs(IBV_WC_WR_FLUSH_ERR));
	}
	rok = wait_wcs(c, c->rcq, wc, 1, c->cfg.wc_timeout);
	if (rok) {
		if (wc[0].wr_id != rw[0].wr_id || wc[0].status != IBV_WC_LOC_LEN_ERR)
			bad(c, "%s: receiver completion wr_id 0x%" PRIx64 " status %s (%d), want %s",
			    what, wc[0].wr_id, wcs(wc[0].status), wc[0].status,
			    wcs(IBV_WC_LOC_LEN_ERR));
		else if (wc[0].qp_num != c->qp[1]->qp_num)
			bad(c, "%s: receiver completion qp_num 0x%x, want 0x%x", what,
			    wc[0].qp_num, c->qp[1]->qp_num);
	}
	/* the second receive: flushed (RQ); an SRQ keeps it (no QP owns it) */
	if (!srq && rok && wait_wcs(c, c->rcq, wc, 1, 5) &&
	    (wc[0].wr_id != rw[1].wr_id || wc[0].status != IBV_WC_WR_FLUSH_ERR))
		bad(c, "%s: second receive: wr_id 0x%" PRIx64 " status %s, want %s", what,
		    wc[0].wr_id, wcs(wc[0].status), wcs(IBV_WC_WR_FLUSH_ERR));
	expect_error_state(c, what, 0);
	{
		uint8_t *now_src = c->tmp + len;

		gather(c, sp, nsp, now_src);
		same(c, "SEND source (must be unchanged)", NULL, now_src, c->tmp, len, NULL, 0);
	}
	/* the second receive must not have been written */
	for (i = 0; i < nrp2; i++)
		same(c, "second receive buffer (must be unchanged)", NULL, pmem(c, &rp2[i]),
		     pshadow(c, &rp2[i]), rp2[i].len, NULL, 0);
	/* receive 1's buffers are undefined; their guards are not */
	for (i = 0; i < b->ni; i++) {
		const struct ivl *v = &b->iv[i];
		struct mrbuf *m = &c->m[v->side][v->mr];

		same(c, "guard before a buffer", NULL, m->mem + v->a, m->shadow + v->a, GUARD,
		     NULL, 0);
		same(c, "guard after a buffer", NULL, m->mem + v->b - GUARD,
		     m->shadow + v->b - GUARD, GUARD, NULL, 0);
	}
	restore_batch(c);
	full_check(c, what, NULL);
	if (c->errors != e)
		note("that was: %s", what);
	else
		note("ok: %s -> %s / %s, rest flushed, memory untouched", what,
		     wcs(IBV_WC_REM_INV_REQ_ERR), wcs(IBV_WC_LOC_LEN_ERR));
	return;
room:
	bad(c, "%s: no room for the buffers", what);
}

TEST_F_TIMEOUT(rc, send_too_long, 120)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	const size_t mtu = c->mtu;

	describe(c);
	neg_send(c, false, OP_SEND, 100, 101, 1);
	neg_send(c, false, OP_SEND, mtu, mtu + 1, 2);
	neg_send(c, false, OP_SEND_IMM, 3 * mtu + 7, 5 * mtu, 4);
	neg_send(c, false, OP_SEND, 0, 1, 0);
	neg_send(c, true, OP_SEND, 2 * mtu, 2 * mtu + 1, 3);
	neg_send(c, true, OP_SEND_IMM, 64, 4 * mtu, 1);
	recovery(c);
	ASSERT_EQ(0, c->errors);
}

/* A port counter of the device, or -1 when it has none by that name. */
static long long port_counter(struct ctx *c, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/hw_counters/%s",
		 c->name, PORT, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#define RETRY_FLOOR "/sys/module/sroce/parameters/retry_floor_ms"

/* Set sroce's retry_floor_ms; return the old value, -1 if there is none. */
static int retry_floor_set(int ms)
{
	FILE *f = fopen(RETRY_FLOOR, "r+");
	int old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	fprintf(f, "%d\n", ms);
	if (fclose(f))
		return -1;
	return old;
}

/*
 * The peer QP is destroyed under a connected QP: an RDMA WRITE to it gets
 * no answer (the device drops packets for a QPN nobody owns), so the
 * requester must retransmit exactly retry_cnt times (7 included: that is
 * seven, only rnr_retry 7 means for ever) and then complete the WRITE with
 * IBV_WC_RETRY_EXC_ERR, flush the WR behind it and move to the error state.
 * exact: the device's retry floor is 0, so the count is exact; otherwise
 * at least retry_cnt retries, and no sooner than min_s seconds.
 */
static void retry_one(struct ctx *c, uint8_t retry_cnt, uint8_t timeout, double min_s,
		      bool exact)
{
	struct ibv_send_wr wr[2], *badwr;
	struct ibv_sge sg[2];
	struct ibv_wc wc[2];
	struct piece src, dst;
	long long r0, x0, r1, x1;
	double t0, spent, spec;
	char what[96];
	int i, ret;

	snprintf(what, sizeof(what), "retry_cnt %u, timeout %u%s", retry_cnt, timeout,
		 exact ? ", no floor" : "");
	c->retry_cnt = retry_cnt;
	c->qp_timeout = timeout;
	pair_create(c, false);
	c->retry_cnt = 7;
	c->qp_timeout = 16;
	batch_reset(c, false);
	if (!place(c, 0, 512, 0, 0, &src) || !place(c, 1, 512, 0, 1, &dst)) {
		bad(c, "%s: no room for the buffers", what);
		return;
	}
	fill(c, pmem(c, &src), src.len, true);
	ibv_destroy_qp(c->qp[1]);
	c->qp[1] = NULL;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		wr[i].wr_id = wrid(c, i, false);
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		sge_of(c, &src, false, &sg[i]);
		wr[i].wr.rdma.remote_addr = pva(c, &dst);
		wr[i].wr.rdma.rkey = mb(c, &dst)->mr->rkey;
	}
	wr[0].next = &wr[1];
	r0 = port_counter(c, "completer_retry_err");
	x0 = port_counter(c, "retry_exceeded_err");
	t0 = now();
	ret = ibv_post_send(c->qp[0], &wr[0], &badwr);
	if (ret) {
		bad(c, "%s: ibv_post_send: %s", what, strerror(ret));
		return;
	}
	if (!wait_wcs(c, c->scq, wc, 2, 60)) {
		note("that was: %s", what);
		return;
	}
	spent = now() - t0;
	r1 = port_counter(c, "completer_retry_err");
	x1 = port_counter(c, "retry_exceeded_err");
	if (wc[0].wr_id != wr[0].wr_id || wc[0].status != IBV_WC_RETRY_EXC_ERR)
		bad(c, "%s: WRITE to a vanished QP: wr_id 0x%" PRIx64 " status %s, want %s",
		    what, wc[0].wr_id, wcs(wc[0].status), wcs(IBV_WC_RETRY_EXC_ERR));
	if (wc[1].wr_id != wr[1].wr_id || wc[1].status != IBV_WC_WR_FLUSH_ERR)
		bad(c, "%s: the WRITE after it: wr_id 0x%" PRIx64 " status %s, want %s",
		    what, wc[1].wr_id, wcs(wc[1].status), wcs(IBV_WC_WR_FLUSH_ERR));
	if (qp_state(c, 0) != IBV_QPS_ERR)
		bad(c, "%s: requester in state %d, want ERR", what, qp_state(c, 0));
	/* the IBA's timer is a minimum: retry_cnt + 1 periods at least */
	spec = (retry_cnt + 1) * 4.096e-6 * (double)(1u << timeout);
	if (spent < spec || spent < min_s)
		bad(c, "%s: gave up after %.3f s, sooner than %.3f s", what, spent,
		    spec > min_s ? spec : min_s);
	if (r0 < 0 || x0 < 0 || r1 < 0 || x1 < 0)
		bad(c, "%s: no completer_retry_err/retry_exceeded_err counters", what);
	else if (x1 - x0 != 1 || r1 - r0 < retry_cnt || (exact && r1 - r0 != retry_cnt))
		bad(c, "%s: retry_exceeded_err +%lld (want +1), completer_retry_err +%lld (want %s%u)",
		    what, x1 - x0, r1 - r0, exact ? "+" : ">= +", retry_cnt);
	/* the source back to background; nothing else may have changed */
	memcpy(pmem(c, &src), pshadow(c, &src), src.len);
	full_check(c, what, NULL);
	note("%s: IBV_WC_RETRY_EXC_ERR after %.3f s and %lld retries", what, spent, r1 - r0);
}

/*
 * Transport retries run out: see retry_one.  sroce never gives up sooner
 * than retry_floor_ms after the first timeout (an emulated peer stalls):
 * the exact counts run with the floor at 0, the last case with sroce's
 * default floor.  rdma_rxe takes retry_cnt 7 as "for ever", and has no
 * floor: with it only the first cases run.
 */
TEST_F_TIMEOUT(rc, retry_exceeded, 120)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	bool is_sroce = !strncmp(c->name, "sroce", 5);
	int floor = retry_floor_set(0);

	if (is_sroce)
		ASSERT_LE(0, floor) TH_LOG("cannot set %s: %s", RETRY_FLOOR, strerror(errno));
	retry_one(c, 0, 10, 0, is_sroce);
	retry_one(c, 3, 10, 0, is_sroce);
	if (is_sroce) {
		retry_one(c, 7, 10, 0, true);
		ASSERT_EQ(0, retry_floor_set(floor)) TH_LOG("restore %s", RETRY_FLOOR);
		retry_one(c, 7, 14, floor / 1000.0, false);
	}
	recovery(c);
	ASSERT_EQ(0, c->errors);
}

/* Both QPs to RESET; the first modify lands while the other still runs. */
static int reset_pair(struct ctx *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	int i, ret;

	for (i = 0; i < NSIDE; i++) {
		ret = ibv_modify_qp(c->qp[i], &a, IBV_QP_STATE);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Completions of a batch cut short by RESET: the transfers that finished
 * before it may complete, each at most once and with a work request ID of
 * the batch; once both QPs are in RESET nothing may complete any more.
 */
static void drain_reset_batch(struct ctx *c, int *done)
{
	struct ibv_cq *cq[2] = { c->scq, c->rcq };
	struct ibv_wc wc[16];
	int n, k, q, idx, got = 0, late = 0;

	for (q = 0; q < 2; q++) {
		while ((n = ibv_poll_cq(cq[q], 16, wc)) > 0) {
			for (k = 0; k < n; k++) {
				if (!wrid_decode(c, wc[k].wr_id, q, c->b->n, &idx))
					bad(c, "reset: completion with a foreign wr_id 0x%" PRIx64,
					    wc[k].wr_id);
				else if (wc[k].status != IBV_WC_SUCCESS)
					bad(c, "reset: transfer #%d completed with %s", idx,
					    ibv_wc_status_str(wc[k].status));
			}
			got += n;
		}
	}
	if (got > 2 * c->b->n)
		bad(c, "reset: %d completions for %d transfers", got, c->b->n);
	usleep(20000);
	for (q = 0; q < 2; q++) {
		if (ibv_poll_cq(cq[q], 1, wc) > 0 && !late++)
			bad(c, "reset: a completion (wr_id 0x%" PRIx64 ", %s) after both QPs "
			    "were reset", wc[0].wr_id, ibv_wc_status_str(wc[0].status));
	}
	*done += got;
}

/*
 * RESET in the middle of transfers, then the same two QPs connected again
 * with new PSNs: nothing of the old connection (packets still queued, a
 * pending timeout, a READ being answered, a half-received message) may
 * reach the new one. Each round posts a batch of long messages, resets
 * both QPs after a random pause, drains what completed, checks that no
 * memory outside the batch's own pieces changed, reconnects and runs a
 * verified batch that must complete exactly.
 */
TEST_F_TIMEOUT(rc, reset_in_flight, 180)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	unsigned int mask = M_ALL & ~M_ATOMIC;
	int round, i, rounds = 20, old = 0;
	double t0 = now();

	pair_create(c, false);
	for (round = 0; round < rounds && !c->errors; round++) {
		size_t len = (4 + rnd_below(c, 12)) * c->mtu + rnd_below(c, c->mtu);

		gen_batch(c, mask, false, 8, &len);
		ASSERT_LT(0, c->b->n) TH_LOG("could not place a transfer");
		prepare(c);
		ASSERT_EQ(0, post_recvs(c));
		ASSERT_EQ(0, post_sends(c));
		usleep(rnd_below(c, 1000));
		ASSERT_EQ(0, reset_pair(c)) TH_LOG("modify to RESET: %s", strerror(errno));
		drain_reset_batch(c, &old);
		restore_batch(c);
		if (!full_check(c, "after RESET", NULL))
			break;
		for (i = 0; i < NSIDE; i++)
			c->sq_psn[i] = pick_psn(c);
		for (i = 0; i < NSIDE; i++)
			ASSERT_EQ(0, qp_connect(c, i)) TH_LOG("reconnect QP %s: %s",
							      side_name(i), strerror(errno));
		gen_batch(c, mask, false, 1 + rnd_below(c, 8), NULL);
		if (!run_batch(c))
			break;
	}
	if (!c->errors)
		full_check(c, "final check", NULL);
	note("reset_in_flight: %d rounds, %d completions of cut batches, %.1f s", round, old,
	     now() - t0);
	ASSERT_EQ(0, c->errors);
	ASSERT_EQ(rounds, round);
}

/*
 * Register every MR of both sides again, at the same IOVA, as an on-demand
 * paging MR: nothing is pinned, the device looks pages up when it copies.
 */
static void reregister_odp(struct ctx *c)
{
	struct __test_metadata *_metadata = c->md;
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			IBV_ACCESS_ON_DEMAND;
	struct ibv_device_attr_ex attr = {};
	int i, j;

	ASSERT_EQ(0, ibv_query_device_ex(c->ctx, NULL, &attr));
	ASSERT_NE(0u, attr.odp_caps.general_caps & (uint32_t)IBV_ODP_SUPPORT)
		TH_LOG("the device reports no on-demand paging");
	for (i = 0; i < NSIDE; i++) {
		for (j = 0; j < NMR; j++) {
			struct mrbuf *m = &c->m[i][j];

			ASSERT_EQ(0, ibv_dereg_mr(m->mr));
			m->mr = ibv_reg_mr_iova(c->pd, m->mem + GUARD, m->len, m->iova, acc);
			ASSERT_NE(NULL, m->mr) TH_LOG("ODP ibv_reg_mr_iova(%zu bytes): %s",
						      m->len, strerror(errno));
		}
	}
}

/*
 * On-demand paging MRs (IBV_ACCESS_ON_DEMAND): all opcodes as in "mixed"
 * with every MR an ODP MR, then an RDMA WRITE aimed at pages of an ODP MR
 * that the process made read-only: ODP looks the pages up at access time
 * with the process' own permissions, so the WRITE must fail with a remote
 * access error and the pages must be as they were.
 */
TEST_F_TIMEOUT(rc, odp, 180)
{
	if (self->c.skipped)
		return;
	struct ctx *c = &self->c;
	struct mrbuf *m = &c->m[1][0];
	uintptr_t start = (uintptr_t)(m->mem + GUARD);
	uintptr_t page = (start + 2 * 4096) & ~(uintptr_t)4095;
	struct neg n = {
		.what = "into pages of an ODP MR the process made read-only",
		.op = OP_WRITE, .len = 4096, .want = IBV_WC_REM_ACCESS_ERR,
	};

	reregister_odp(c);
	run_random(c, M_ALL, false, c->cfg.iters);
	ASSERT_EQ(0, c->errors);

	ASSERT_LE(page + 2 * 4096, start + m->len);
	n.rkey = m->mr->rkey;
	n.raddr = m->iova + (page - start) + 100;
	ASSERT_EQ(0, mprotect((void *)page, 2 * 4096, PROT_READ));
	neg_rdma(c, &n);
	ASSERT_EQ(0, mprotect((void *)page, 2 * 4096, PROT_READ | PROT_WRITE));
	recovery(c);
	ASSERT_EQ(0, c->errors);
}

TEST_HARNESS_MAIN
