// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_objects: the verbs objects of an RDMA device, as an unmodified
 * libibverbs program (rdma-core 44, stock rxe provider) sees them: device and
 * port queries, PD, MR, MW, CQ, QP, SRQ, AH, multicast, and cleanup of
 * everything a process owned when it is killed.
 *
 * Every test opens the device afresh (FIXTURE_SETUP) in its own process (the
 * harness forks one per test), so tests share no state.
 *
 * Environment:
 *   SROCE_DEV     RDMA device name (default: the first device)
 *   SROCE_GID     GID index of the port's IPv4-mapped RoCEv2 GID (default 1)
 *   SROCE_FAULTS  set: each test turns on the kernel's fault injection for
 *                 its own process (/proc/self/make-it-fail) once the device
 *                 is open (sroce_faults.sh, debug kernel only)
 *
 * Expected values are those of Linux's own rdma_rxe (Debian 6.1) driven by
 * the same provider, since sroce speaks its user ABI.  Where an error comes
 * from the RDMA core (ib_core/ib_uverbs) or from libibverbs/the provider
 * rather than from the driver, the comment says so: sroce inherits those.
 * Return conventions differ per verb and are asserted as they are: most
 * int-returning verbs return a positive errno, pointer-returning ones return
 * NULL and set errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The harness' SIGALRM handler has a parameter it does not use. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define PORT		1
#define BUF_SIZE	(64 * 1024)

struct dev {
	struct ibv_context *ctx;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	union ibv_gid gid;		/* the GID at SROCE_GID */
	int gid_index;
	char name[IBV_SYSFS_NAME_MAX];
};

static int env_gid_index(void)
{
	const char *s = getenv("SROCE_GID");

	return s && *s ? atoi(s) : 1;
}

/*
 * Fault injection (SROCE_FAULTS) for this process and what it forks, on
 * once libibverbs has found the device and loaded its provider, and off
 * around running other programs: the guest's root is 9p under overlayfs,
 * and failed allocations while reading from it have left the whole guest
 * unable to run programs.
 */
static void faults_set(bool on)
{
	int fd;

	if (!getenv("SROCE_FAULTS"))
		return;
	/*
	 * Every page of the program and its libraries resident first: a
	 * page fault that reads from 9p with allocations failing has left
	 * libc unloadable for every later exec in the guest.
	 */
	if (on && mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("mlockall");
	fd = open("/proc/self/make-it-fail", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, on ? "1" : "0", 1) != 1)
			perror("make-it-fail");
		close(fd);
	}
}

static void open_dev(struct __test_metadata *_metadata, struct dev *d)
{
	const char *want = getenv("SROCE_DEV");
	struct ibv_device **list, *dev = NULL;
	int i, n = 0;

	d->gid_index = env_gid_index();
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
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
	d->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	ASSERT_NE(NULL, d->ctx) TH_LOG("ibv_open_device(%s): %s", d->name, strerror(errno));
	ASSERT_EQ(0, ibv_query_device_ex(d->ctx, NULL, &d->attr));
	ASSERT_EQ(0, ibv_query_port(d->ctx, PORT, &d->port));
	ASSERT_EQ(0, ibv_query_gid(d->ctx, PORT, d->gid_index, &d->gid));
	faults_set(true);
}

static void close_dev(struct dev *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

/* Start @cmd to read its output, without fault injection in what it runs. */
static FILE *popen_clean(const char *cmd)
{
	FILE *f;

	faults_set(false);
	f = popen(cmd, "r");
	faults_set(true);
	return f;
}

/* One fixture per object family, all with the same setup: a fresh context. */
#define DEV_FIXTURE(name)						\
	FIXTURE(name) { struct dev d; };				\
	FIXTURE_SETUP(name) { open_dev(_metadata, &self->d); }		\
	FIXTURE_TEARDOWN(name) { close_dev(&self->d); }

DEV_FIXTURE(device)
DEV_FIXTURE(pd)
DEV_FIXTURE(mr)
DEV_FIXTURE(mw)
DEV_FIXTURE(cq)
DEV_FIXTURE(qp)
DEV_FIXTURE(srq)
DEV_FIXTURE(ah)
DEV_FIXTURE(mcast)
DEV_FIXTURE(teardown)

/* ---------------------------------------------------------------- helpers */

/* Is the running kernel older than major.minor? */
static bool kernel_older_than(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

static bool gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, pfx, sizeof(pfx));
}

static union ibv_gid mcast_gid(uint8_t last)
{
	/* ff0e::xx: a global-scope IPv6 multicast address as a GID */
	union ibv_gid g = { .raw = { 0xff, 0x0e, [14] = 0x50, [15] = last } };

	return g;
}

static struct ibv_cq *make_cq(struct __test_metadata *_metadata,
			      struct dev *d, int cqe)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);

	ASSERT_NE(NULL, cq) TH_LOG("ibv_create_cq(%d): %s", cqe, strerror(errno));
	return cq;
}

static struct ibv_pd *make_pd(struct __test_metadata *_metadata, struct dev *d)
{
	struct ibv_pd *pd = ibv_alloc_pd(d->ctx);

	ASSERT_NE(NULL, pd) TH_LOG("ibv_alloc_pd: %s", strerror(errno));
	return pd;
}

static struct ibv_qp *make_qp(struct __test_metadata *_metadata,
			      struct ibv_pd *pd, struct ibv_cq *cq,
			      struct ibv_srq *srq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 1, .max_recv_sge = srq ? 0 : 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	ASSERT_NE(NULL, qp) TH_LOG("ibv_create_qp(type %d): %s", type, strerror(errno));
	return qp;
}

static struct ibv_srq *make_srq(struct __test_metadata *_metadata,
				struct ibv_pd *pd, unsigned int max_wr)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = max_wr, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(pd, &ia);

	ASSERT_NE(NULL, srq) TH_LOG("ibv_create_srq: %s", strerror(errno));
	return srq;
}

/*
 * The PD and 16-entry CQ that most QP, SRQ and multicast tests build on:
 * make_pd_cq() returns the PD and sets *cq.  free_cq_pd() releases a
 * test's CQ and PD, each release checked, once its other objects are gone.
 */
static struct ibv_pd *make_pd_cq(struct __test_metadata *_metadata,
				 struct dev *d, struct ibv_cq **cq)
{
	struct ibv_pd *pd = make_pd(_metadata, d);

	*cq = make_cq(_metadata, d, 16);
	return pd;
}

static void free_cq_pd(struct __test_metadata *_metadata,
		       struct ibv_cq *cq, struct ibv_pd *pd)
{
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

static struct ibv_ah_attr loop_ah(struct dev *d)
{
	struct ibv_ah_attr ah = {
		.is_global = 1,
		.port_num = PORT,
		.grh = { .dgid = d->gid, .sgid_index = d->gid_index, .hop_limit = 64 },
	};

	return ah;
}

static enum ibv_mtu loop_mtu(struct dev *d)
{
	return d->port.active_mtu < IBV_MTU_1024 ? d->port.active_mtu : IBV_MTU_1024;
}

/* The attributes of each transition, with the masks the IBA requires. */
static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT,
				 .pkey_index = 0, .qp_access_flags = access,
				 .qkey = 0x11111111 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &a, mask);
}

static void rtr_attr(struct dev *d, struct ibv_qp *qp, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	*mask = IBV_QP_STATE;
	if (qp->qp_type == IBV_QPT_UD)
		return;
	a->path_mtu = loop_mtu(d);
	a->dest_qp_num = qp->qp_num;		/* loopback: to itself */
	a->rq_psn = 0x123456;
	a->ah_attr = loop_ah(d);
	*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a->max_dest_rd_atomic = 1;
		a->min_rnr_timer = 12;
		*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
}

static void rts_attr(struct ibv_qp *qp, struct ibv_qp_attr *a, int *mask)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->sq_psn = 0x654321;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (qp->qp_type == IBV_QPT_RC) {
		a->timeout = 14;
		a->retry_cnt = 7;
		a->rnr_retry = 7;
		a->max_rd_atomic = 1;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
	}
}

static int to_rtr(struct dev *d, struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int mask;

	rtr_attr(d, qp, &a, &mask);
	return ibv_modify_qp(qp, &a, mask);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	int mask;

	rts_attr(qp, &a, &mask);
	return ibv_modify_qp(qp, &a, mask);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s)
{
	struct ibv_qp_attr a = { .qp_state = s };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* as an int, to compare with the enum constants in ASSERT_EQ */
static int query_state(struct __test_metadata *_metadata, struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	memset(&a, 0xa5, sizeof(a));
	ASSERT_EQ(0, ibv_query_qp(qp, &a, IBV_QP_STATE, &ia));
	return (int)a.qp_state;
}

static void bring_up(struct __test_metadata *_metadata, struct dev *d,
		     struct ibv_qp *qp)
{
	ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
	ASSERT_EQ(0, to_rtr(d, qp));
	ASSERT_EQ(0, to_rts(qp));
	ASSERT_EQ(IBV_QPS_RTS, query_state(_metadata, qp));
}

/* ----------------------------------------------------------------- device */

TEST_F(device, query_device)
{
	struct ibv_device_attr a;
	struct ibv_device_attr_ex *x = &self->d.attr;
	const uint64_t need = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_MGT_EXTENSIONS;

	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_device(self->d.ctx, &a));
	TH_LOG("%s: max_qp %d max_qp_wr %d max_sge %d max_cqe %d max_mr %d max_srq_wr %d caps 0x%x",
	       self->d.name, a.max_qp, a.max_qp_wr, a.max_sge, a.max_cqe,
	       a.max_mr, a.max_srq_wr, a.device_cap_flags);
	EXPECT_GE(a.max_qp, 1 << 16);
	EXPECT_GE(a.max_sge, 32);
	EXPECT_GE(a.max_cqe, 32767);
	EXPECT_GT(a.max_qp_wr, 0);
	EXPECT_GT(a.max_pd, 0);
	EXPECT_GT(a.max_mr, 0);
	EXPECT_GT(a.max_mw, 0);
	EXPECT_GT(a.max_srq, 0);
	EXPECT_GT(a.max_srq_wr, 0);
	EXPECT_GT(a.max_srq_sge, 0);
	EXPECT_GT(a.max_ah, 0);
	EXPECT_NE(IBV_ATOMIC_NONE, (int)a.atomic_cap);
	EXPECT_EQ(need, a.device_cap_flags & need);
	EXPECT_EQ(1, a.phys_port_cnt);
	EXPECT_NE(0ull, a.node_guid);
	/* the _ex query carries the same base attributes and the same caps */
	EXPECT_EQ(0, memcmp(&a, &x->orig_attr, sizeof(a)));
	EXPECT_EQ(need, x->device_cap_flags_ex & need);
}

TEST_F(device, query_port)
{
	struct ibv_port_attr p = self->d.port;

	EXPECT_EQ(IBV_PORT_ACTIVE, (int)p.state);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, p.link_layer);
	EXPECT_LE((int)p.active_mtu, (int)p.max_mtu);
	EXPECT_GE((int)p.active_mtu, IBV_MTU_256);
	EXPECT_GT(p.gid_tbl_len, self->d.gid_index);
	EXPECT_GE(p.pkey_tbl_len, 1);
	/* Only port 1 exists: ib_uverbs rejects the others (EINVAL). */
	memset(&p, 0, sizeof(p));
	EXPECT_EQ(EINVAL, ibv_query_port(self->d.ctx, 2, &p));
	EXPECT_EQ(EINVAL, ibv_query_port(self->d.ctx, 0, &p));
}

TEST_F(device, query_gid)
{
	static const uint8_t ll[8] = { 0xfe, 0x80 };
	struct ibv_gid_entry e;
	union ibv_gid g;

	/* index 0: the default GID, fe80::/64 + EUI-64 of the netdev MAC */
	ASSERT_EQ(0, ibv_query_gid(self->d.ctx, PORT, 0, &g));
	EXPECT_EQ(0, memcmp(g.raw, ll, sizeof(ll)));
	EXPECT_NE(0ull, g.global.interface_id);
	memset(&e, 0, sizeof(e));
	ASSERT_EQ(0, ibv_query_gid_ex(self->d.ctx, PORT, 0, &e, 0));
	EXPECT_EQ(0, memcmp(&g, &e.gid, sizeof(g)));
	EXPECT_EQ(0u, e.gid_index);
	EXPECT_EQ((uint32_t)IBV_GID_TYPE_ROCE_V2, e.gid_type);
	EXPECT_NE(0u, e.ndev_ifindex);
	/* SROCE_GID: the netdev's IPv4 address, as a RoCEv2 GID */
	EXPECT_TRUE(gid_is_v4mapped(&self->d.gid))
		TH_LOG("GID %d is not IPv4-mapped", self->d.gid_index);
	memset(&e, 0, sizeof(e));
	ASSERT_EQ(0, ibv_query_gid_ex(self->d.ctx, PORT, self->d.gid_index, &e, 0));
	EXPECT_EQ(0, memcmp(&self->d.gid, &e.gid, sizeof(g)));
	EXPECT_EQ((uint32_t)IBV_GID_TYPE_ROCE_V2, e.gid_type);
}

TEST_F(device, query_pkey)
{
	__be16 pkey = 0;

	ASSERT_EQ(0, ibv_query_pkey(self->d.ctx, PORT, 0, &pkey));
	EXPECT_EQ(0xffff, be16toh(pkey));
	/* Beyond the P_Key table (rdma_rxe: one entry; the driver refuses index 1). */
	EXPECT_NE(0, ibv_query_pkey(self->d.ctx, PORT, 1, &pkey));
}

/* --------------------------------------------------------------------- PD */

TEST_F(pd, alloc_dealloc)
{
	struct ibv_pd *pd[16];
	int i, j;

	for (i = 0; i < 16; i++) {
		pd[i] = make_pd(_metadata, &self->d);
		EXPECT_EQ(self->d.ctx, pd[i]->context);
		for (j = 0; j < i; j++)
			EXPECT_NE(pd[j]->handle, pd[i]->handle);
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, ibv_dealloc_pd(pd[i]));
}

/*
 * A PD in use cannot be freed: ib_uverbs refuses with EBUSY (RDMA core,
 * ib_destroy_usecnt) and the PD stays usable; once its user is gone it frees.
 */
TEST_F(pd, dealloc_busy)
{
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_ah_attr aha = loop_ah(d);
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	ASSERT_EQ(0, ibv_dereg_mr(mr));

	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	ASSERT_NE(NULL, mw);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	ASSERT_EQ(0, ibv_dealloc_mw(mw));

	srq = make_srq(_metadata, pd, 16);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	ASSERT_EQ(0, ibv_destroy_srq(srq));

	qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	ASSERT_EQ(0, ibv_destroy_qp(qp));

	ah = ibv_create_ah(pd, &aha);
	ASSERT_NE(NULL, ah) TH_LOG("ibv_create_ah: %s", strerror(errno));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	ASSERT_EQ(0, ibv_destroy_ah(ah));

	/* still a working PD after all the refusals */
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	ASSERT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* --------------------------------------------------------------------- MR */

static const int basic_access[] = {
	IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
	IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_MW_BIND,
};
#define N_ACCESS_COMBOS (1 << 5)

static int access_combo(int bits)
{
	int i, a = 0;

	for (i = 0; i < 5; i++)
		if (bits & (1 << i))
			a |= basic_access[i];
	return a;
}

/* IBA o10-37: remote write or atomic need local write (RDMA core check). */
static bool access_valid(int a)
{
	return !(a & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) ||
	       (a & IBV_ACCESS_LOCAL_WRITE);
}

/*
 * Register buf with every combination of the five basic access flags (and
 * once more with the optional RELAXED_ORDERING bit on each valid one): the
 * valid ones register and read back, the invalid ones fail with EINVAL.
 */
static void reg_all_combos(struct __test_metadata *_metadata, struct ibv_pd *pd,
			   void *buf, size_t len)
{
	int bits, ro, nvalid = 0;

	for (bits = 0; bits < N_ACCESS_COMBOS; bits++) {
		for (ro = 0; ro < 2; ro++) {
			int a = access_combo(bits) | (ro ? IBV_ACCESS_RELAXED_ORDERING : 0);
			struct ibv_mr *mr;

			errno = 0;
			mr = ibv_reg_mr(pd, buf, len, a);
			if (!access_valid(a)) {
				EXPECT_EQ(NULL, mr) TH_LOG("access 0x%x registered", a);
				EXPECT_EQ(EINVAL, errno) TH_LOG("access 0x%x", a);
				if (mr)
					ibv_dereg_mr(mr);
				continue;
			}
			ASSERT_NE(NULL, mr) TH_LOG("access 0x%x: %s", a, strerror(errno));
			nvalid++;
			EXPECT_EQ(buf, mr->addr);
			EXPECT_EQ(len, mr->length);
			EXPECT_EQ(pd, mr->pd);
			EXPECT_EQ(pd->context, mr->context);
			EXPECT_EQ(0, ibv_dereg_mr(mr));
		}
	}
	EXPECT_EQ(40, nvalid);
}

TEST_F(mr, access_combos_malloc)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	char *buf = malloc(BUF_SIZE + 123);

	ASSERT_NE(NULL, buf);
	memset(buf, 0x5a, BUF_SIZE + 123);
	reg_all_combos(_metadata, pd, buf, BUF_SIZE);
	/* unaligned start and odd length */
	reg_all_combos(_metadata, pd, buf + 123, BUF_SIZE - 1);
	free(buf);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

TEST_F(mr, access_combos_mmap)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_mr *mr;
	char *p, *s, *ro, *f;
	int fd;

	p = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	s = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, s);
	fd = memfd_create("sroce_objects", 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, BUF_SIZE));
	f = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, f);

	reg_all_combos(_metadata, pd, p, BUF_SIZE);	/* untouched: no pages yet */
	reg_all_combos(_metadata, pd, s, BUF_SIZE);
	reg_all_combos(_metadata, pd, f, BUF_SIZE);

	/*
	 * A read-only mapping registers for remote read, not for local write:
	 * pinning it writable fails in the core's ib_umem_get (EFAULT).
	 */
	ro = mmap(NULL, BUF_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	mr = ibv_reg_mr(pd, ro, BUF_SIZE, IBV_ACCESS_REMOTE_READ);
	ASSERT_NE(NULL, mr) TH_LOG("read-only mapping, REMOTE_READ: %s", strerror(errno));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	errno = 0;
	mr = ibv_reg_mr(pd, ro, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EFAULT, errno);

	munmap(ro, BUF_SIZE);
	munmap(f, BUF_SIZE);
	close(fd);
	munmap(s, BUF_SIZE);
	munmap(p, BUF_SIZE);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Count adjacent equal values in a sorted array. */
static int count_dups(uint32_t *v, int n)
{
	int i, dups = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 1; i < n; i++)
		dups += v[i] == v[i - 1];
	return dups;
}

#define N_LIVE_MRS 1000

TEST_F(mr, keys_distinct)
{
	static char buf[4 * 4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	static struct ibv_mr *mr[N_LIVE_MRS];
	static uint32_t lkeys[N_LIVE_MRS], rkeys[N_LIVE_MRS];
	int i;

	for (i = 0; i < N_LIVE_MRS; i++) {
		mr[i] = ibv_reg_mr(pd, buf + (i % 4) * 4096, 4096,
				   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
		ASSERT_NE(NULL, mr[i]) TH_LOG("MR %d: %s", i, strerror(errno));
		lkeys[i] = mr[i]->lkey;
		rkeys[i] = mr[i]->rkey;
	}
	EXPECT_EQ(0, count_dups(lkeys, N_LIVE_MRS));
	EXPECT_EQ(0, count_dups(rkeys, N_LIVE_MRS));
	for (i = 0; i < N_LIVE_MRS; i++)
		ASSERT_EQ(0, ibv_dereg_mr(mr[i]));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/*
 * 100000 reg/dereg cycles over a pool of live MRs, in a fixed pseudo-random
 * order: a new MR never gets the lkey or rkey of a live one.
 */
#define CHURN_CYCLES	100000
#define CHURN_POOL	64

TEST_F_TIMEOUT(mr, keys_churn, 600)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_mr *live[CHURN_POOL] = { NULL };
	uint32_t seed = 0x5eed;
	struct timespec t0, t1;
	int i, j, slot;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < CHURN_CYCLES; i++) {
		struct ibv_mr *m;

		seed = seed * 1103515245 + 12345;
		slot = (seed >> 16) % CHURN_POOL;
		if (live[slot]) {
			ASSERT_EQ(0, ibv_dereg_mr(live[slot])) TH_LOG("cycle %d", i);
			live[slot] = NULL;
		}
		m = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
		ASSERT_NE(NULL, m) TH_LOG("cycle %d: %s", i, strerror(errno));
		for (j = 0; j < CHURN_POOL; j++) {
			if (!live[j])
				continue;
			ASSERT_NE(live[j]->lkey, m->lkey) TH_LOG("cycle %d: lkey 0x%x reused", i, m->lkey);
			ASSERT_NE(live[j]->rkey, m->rkey) TH_LOG("cycle %d: rkey 0x%x reused", i, m->rkey);
		}
		live[slot] = m;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%d reg/dereg cycles in %.1f s", CHURN_CYCLES,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	for (j = 0; j < CHURN_POOL; j++)
		if (live[j])
			ASSERT_EQ(0, ibv_dereg_mr(live[j]));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/*
 * Degenerate ranges, as rdma_rxe + libibverbs handle them: length 0 fails
 * with EINVAL and NULL with a length with EFAULT (both from the RDMA core's
 * ib_umem_get: zero pages / nothing mapped at 0).
 */
TEST_F(mr, degenerate_ranges)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);

	errno = 0;
	mr = ibv_reg_mr(pd, NULL, 0, IBV_ACCESS_LOCAL_WRITE);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);

	errno = 0;
	mr = ibv_reg_mr(pd, NULL, 4096, IBV_ACCESS_LOCAL_WRITE);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EFAULT, errno);

	errno = 0;
	mr = ibv_reg_mr(pd, NULL, 4096, 0);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EFAULT, errno);

	/* and a one-byte MR is fine */
	mr = ibv_reg_mr(pd, buf + 100, 1, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	EXPECT_EQ(1u, mr->length);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

TEST_F(mr, bad_access)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	static char buf[4096] __attribute__((aligned(4096)));
	const bool odp = self->d.attr.odp_caps.general_caps & IBV_ODP_SUPPORT;
	struct ibv_mr *mr;

	/* RDMA core (ib_check_mr_access) */
	errno = 0;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);
	/* an access bit no kernel defines */
	errno = 0;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | (1 << 15));
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, errno);
	/*
	 * On-demand paging without ODP support in the device: refused by the
	 * RDMA core, with EINVAL up to 6.1 and EOPNOTSUPP from 6.2 on.
	 */
	if (!odp) {
		errno = 0;
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
		EXPECT_EQ(NULL, mr);
		EXPECT_EQ(kernel_older_than(6, 2) ? EINVAL : EOPNOTSUPP, errno);
	}
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/*
 * ibv_rereg_mr(CHANGE_PD | CHANGE_ACCESS).  The stock rxe provider of
 * rdma-core 44 has no rereg_mr op (and rdma_rxe 6.1 no rereg_user_mr), so
 * libibverbs' default op fails it: IBV_REREG_MR_ERR_CMD with errno
 * EOPNOTSUPP, and the MR must be untouched (old PD still busy, new PD free,
 * same keys, still deregisters).  Should a provider ever implement it, the
 * change must be visible: new PD busy, old PD free.
 */
TEST_F(mr, rereg)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd1 = make_pd(_metadata, &self->d);
	struct ibv_pd *pd2 = make_pd(_metadata, &self->d);
	struct ibv_mr *mr;
	uint32_t lkey, rkey;
	int ret;

	mr = ibv_reg_mr(pd1, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr);
	lkey = mr->lkey;
	rkey = mr->rkey;

	/* libibverbs' own argument checks: EINVAL, nothing reaches the kernel */
	errno = 0;
	EXPECT_EQ(IBV_REREG_MR_ERR_INPUT,
		  ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(IBV_REREG_MR_ERR_INPUT, ibv_rereg_mr(mr, 1 << 3, pd2, NULL, 0, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(IBV_REREG_MR_ERR_INPUT,
		  ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, 0, 0));
	EXPECT_EQ(EINVAL, errno);

	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS, pd2,
			   NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	if (ret == 0) {
		TH_LOG("rereg_mr is implemented by this provider");
		EXPECT_EQ(pd2, mr->pd);
		EXPECT_EQ(0, ibv_dealloc_pd(pd1));
		EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd2));
		EXPECT_EQ(0, ibv_dereg_mr(mr));
		EXPECT_EQ(0, ibv_dealloc_pd(pd2));
		return;
	}
	EXPECT_EQ(IBV_REREG_MR_ERR_CMD, ret);
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(pd1, mr->pd);
	EXPECT_EQ(lkey, mr->lkey);
	EXPECT_EQ(rkey, mr->rkey);
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd1));
	EXPECT_EQ(0, ibv_dealloc_pd(pd2));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd1));
}

/* --------------------------------------------------------------------- MW */

TEST_F(mw, alloc_dealloc)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_mw *mw[8];
	struct ibv_mr *mr;
	uint32_t keys[9];
	int i;

	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	ASSERT_NE(NULL, mr);
	for (i = 0; i < 8; i++) {
		enum ibv_mw_type t = i % 2 ? IBV_MW_TYPE_2 : IBV_MW_TYPE_1;

		mw[i] = ibv_alloc_mw(pd, t);
		ASSERT_NE(NULL, mw[i]) TH_LOG("alloc_mw type %d: %s", t, strerror(errno));
		EXPECT_EQ(t, mw[i]->type);
		EXPECT_EQ(pd, mw[i]->pd);
		EXPECT_EQ(self->d.ctx, mw[i]->context);
		keys[i] = mw[i]->rkey;
	}
	/* MW rkeys are unique, also against a live MR's rkey */
	keys[8] = mr->rkey;
	EXPECT_EQ(0, count_dups(keys, 9));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, ibv_dealloc_mw(mw[i]));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* ib_uverbs accepts only types 1 and 2 (EINVAL). */
TEST_F(mw, bad_type)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_mw *mw;

	errno = 0;
	mw = ibv_alloc_mw(pd, 3);
	EXPECT_EQ(NULL, mw);
	EXPECT_EQ(EINVAL, errno);
	if (mw)
		ibv_dealloc_mw(mw);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* --------------------------------------------------------------------- CQ */

TEST_F_TIMEOUT(cq, create_sizes, 120)
{
	const int max_cqe = self->d.attr.orig_attr.max_cqe;
	const int sizes[] = { 1, 100, max_cqe };
	struct ibv_cq *cq;
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		cq = make_cq(_metadata, &self->d, sizes[i]);
		EXPECT_GE(cq->cqe, sizes[i]);
		EXPECT_EQ(self->d.ctx, cq->context);
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}
	/* driver checks (rdma_rxe rxe_cq_chk_attr): EINVAL */
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->d.ctx, 0, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->d.ctx, max_cqe + 1, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->d.ctx, -1, NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* ib_uverbs checks comp_vector < num_comp_vectors (EINVAL). */
TEST_F(cq, comp_vectors)
{
	const int n = self->d.ctx->num_comp_vectors;
	struct ibv_cq *cq;

	ASSERT_GE(n, 1);
	cq = ibv_create_cq(self->d.ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	cq = ibv_create_cq(self->d.ctx, 16, NULL, NULL, n - 1);
	ASSERT_NE(NULL, cq) TH_LOG("comp_vector %d: %s", n - 1, strerror(errno));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->d.ctx, 16, NULL, NULL, n));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(cq, resize)
{
	const int max_cqe = self->d.attr.orig_attr.max_cqe;
	struct ibv_cq *cq = make_cq(_metadata, &self->d, 16);
	struct ibv_wc wc;
	int big;

	ASSERT_EQ(0, ibv_resize_cq(cq, 1000));
	EXPECT_GE(cq->cqe, 1000);
	big = cq->cqe;
	ASSERT_EQ(0, ibv_resize_cq(cq, 10));
	EXPECT_GE(cq->cqe, 10);
	EXPECT_LE(cq->cqe, big);
	ASSERT_EQ(0, ibv_resize_cq(cq, 3000));
	EXPECT_GE(cq->cqe, 3000);
	/* rdma_rxe: EINVAL, and the CQ keeps its size */
	big = cq->cqe;
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, 0));
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, max_cqe + 1));
	EXPECT_EQ(big, cq->cqe);
	/* the ring is usable after the remaps: empty */
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(cq, req_notify)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->d.ctx);
	struct pollfd pfd;
	struct ibv_cq *cq;

	ASSERT_NE(NULL, ch);
	cq = ibv_create_cq(self->d.ctx, 16, NULL, ch, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 1));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	/* armed but nothing completed: no event */
	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 100));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));

	/* a CQ without a channel can be armed too */
	cq = make_cq(_metadata, &self->d, 16);
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 1));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(cq, comp_channel)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(self->d.ctx);
	struct ibv_cq *cq, *cq2;

	ASSERT_NE(NULL, ch);
	EXPECT_LE(0, ch->fd);
	cq = ibv_create_cq(self->d.ctx, 16, (void *)0x1234, ch, 0);
	ASSERT_NE(NULL, cq);
	EXPECT_EQ(ch, cq->channel);
	EXPECT_EQ((void *)0x1234, cq->cq_context);
	cq2 = ibv_create_cq(self->d.ctx, 16, NULL, ch, 0);
	ASSERT_NE(NULL, cq2);
	/* libibverbs refuses while CQs use the channel */
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(ch));
	EXPECT_EQ(0, ibv_destroy_cq(cq2));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

/*
 * A CQ used by a QP cannot be destroyed: EBUSY from the RDMA core
 * (ib_destroy_cq_user checks the use count before the driver is called).
 */
TEST_F(cq, destroy_busy)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_cq *scq = make_cq(_metadata, &self->d, 16);
	struct ibv_cq *rcq = make_cq(_metadata, &self->d, 16);
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	ASSERT_NE(NULL, qp);
	EXPECT_EQ(EBUSY, ibv_destroy_cq(scq));
	EXPECT_EQ(EBUSY, ibv_destroy_cq(rcq));
	/* still working CQs */
	EXPECT_EQ(0, ibv_req_notify_cq(scq, 0));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(scq));
	EXPECT_EQ(0, ibv_destroy_cq(rcq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* --------------------------------------------------------------------- QP */

struct qp_caps_case {
	enum ibv_qp_type type;
	struct ibv_qp_cap cap;
	int sig_all;
};

TEST_F(qp, create_caps)
{
	const int max_sge = self->d.attr.orig_attr.max_sge;
	const struct qp_caps_case cases[] = {
		{ IBV_QPT_RC, { 1, 1, 1, 1, 0 }, 0 },
		{ IBV_QPT_RC, { 100, 200, 3, 5, 64 }, 1 },
		{ IBV_QPT_RC, { 4096, 4096, max_sge, max_sge, 0 }, 0 },
		{ IBV_QPT_RC, { 16, 16, 0, 0, 0 }, 0 },
		{ IBV_QPT_UC, { 1, 1, 1, 1, 0 }, 0 },
		{ IBV_QPT_UC, { 64, 33, 2, 2, 128 }, 1 },
		{ IBV_QPT_UD, { 1, 1, 1, 1, 0 }, 0 },
		{ IBV_QPT_UD, { 1000, 1000, 4, 4, 32 }, 1 },
	};
	const int n = sizeof(cases) / sizeof(cases[0]);
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_cq *cq = make_cq(_metadata, &self->d, 64);
	struct ibv_qp *qp[sizeof(cases) / sizeof(cases[0])];
	uint32_t qpns[sizeof(cases) / sizeof(cases[0])];
	int i;

	for (i = 0; i < n; i++) {
		const struct ibv_qp_cap *want = &cases[i].cap;
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = cases[i].type,
			.cap = *want, .sq_sig_all = cases[i].sig_all,
		}, qia;
		struct ibv_qp_attr a;

		qp[i] = ibv_create_qp(pd, &ia);
		ASSERT_NE(NULL, qp[i]) TH_LOG("case %d: %s", i, strerror(errno));
		qpns[i] = qp[i]->qp_num;
		EXPECT_EQ(cases[i].type, qp[i]->qp_type);
		EXPECT_EQ(IBV_QPS_RESET, (int)qp[i]->state);
		EXPECT_EQ(pd, qp[i]->pd);
		EXPECT_GT(qp[i]->qp_num, 1u);	/* 0 and 1 are SMI/GSI */
		EXPECT_LT(qp[i]->qp_num, 1u << 24);
		/* create wrote back what it allocated */
		EXPECT_GE(ia.cap.max_send_sge, want->max_send_sge);
		EXPECT_GE(ia.cap.max_inline_data, want->max_inline_data);

		memset(&a, 0, sizeof(a));
		memset(&qia, 0, sizeof(qia));
		ASSERT_EQ(0, ibv_query_qp(qp[i], &a, IBV_QP_STATE | IBV_QP_CAP, &qia));
		EXPECT_EQ(IBV_QPS_RESET, (int)a.qp_state);
		EXPECT_EQ(cases[i].type, qia.qp_type);
		EXPECT_EQ(cases[i].sig_all, qia.sq_sig_all);
		EXPECT_GE(qia.cap.max_send_wr, want->max_send_wr) TH_LOG("case %d", i);
		EXPECT_GE(qia.cap.max_recv_wr, want->max_recv_wr) TH_LOG("case %d", i);
		EXPECT_GE(qia.cap.max_send_sge, want->max_send_sge) TH_LOG("case %d", i);
		EXPECT_GE(qia.cap.max_recv_sge, want->max_recv_sge) TH_LOG("case %d", i);
		EXPECT_GE(qia.cap.max_inline_data, want->max_inline_data) TH_LOG("case %d", i);
		EXPECT_GE(a.cap.max_send_wr, want->max_send_wr);
		EXPECT_GE(a.cap.max_recv_wr, want->max_recv_wr);
	}
	EXPECT_EQ(0, count_dups(qpns, n));
	for (i = 0; i < n; i++)
		EXPECT_EQ(0, ibv_destroy_qp(qp[i]));
	free_cq_pd(_metadata, cq, pd);
}

/* RESET -> INIT -> RTR -> RTS on a loopback path, every step read back. */
static void state_machine(struct __test_metadata *_metadata, struct dev *d,
			  enum ibv_qp_type type)
{
	const int access = type == IBV_QPT_RC ?
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC :
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, type);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a, want;
	int mask;

	ASSERT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));

	ASSERT_EQ(0, to_init(qp, access));
	EXPECT_EQ(IBV_QPS_INIT, (int)qp->state);
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX |
				  (type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS), &ia));
	EXPECT_EQ(IBV_QPS_INIT, (int)a.qp_state);
	EXPECT_EQ(PORT, a.port_num);
	EXPECT_EQ(0, a.pkey_index);
	if (type == IBV_QPT_UD) {
		EXPECT_EQ(0x11111111u, a.qkey);
	} else {
		EXPECT_EQ(access, (int)a.qp_access_flags);
	}

	rtr_attr(d, qp, &want, &mask);
	ASSERT_EQ(0, ibv_modify_qp(qp, &want, mask));
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_qp(qp, &a, mask, &ia));
	EXPECT_EQ(IBV_QPS_RTR, (int)a.qp_state);
	if (type != IBV_QPT_UD) {
		EXPECT_EQ(qp->qp_num, a.dest_qp_num);
		EXPECT_EQ(want.rq_psn, a.rq_psn);
		EXPECT_EQ(want.path_mtu, a.path_mtu);
		EXPECT_EQ(1, a.ah_attr.is_global);
		EXPECT_EQ(0, memcmp(&d->gid, &a.ah_attr.grh.dgid, sizeof(d->gid)));
		EXPECT_EQ(d->gid_index, a.ah_attr.grh.sgid_index);
		EXPECT_EQ(PORT, a.ah_attr.port_num);
	}
	if (type == IBV_QPT_RC) {
		EXPECT_EQ(want.max_dest_rd_atomic, a.max_dest_rd_atomic);
		EXPECT_EQ(want.min_rnr_timer, a.min_rnr_timer);
	}

	rts_attr(qp, &want, &mask);
	ASSERT_EQ(0, ibv_modify_qp(qp, &want, mask));
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_qp(qp, &a, mask, &ia));
	EXPECT_EQ(IBV_QPS_RTS, (int)a.qp_state);
	EXPECT_EQ(want.sq_psn, a.sq_psn);
	if (type == IBV_QPT_RC) {
		EXPECT_EQ(want.timeout, a.timeout);
		EXPECT_EQ(want.retry_cnt, a.retry_cnt);
		EXPECT_EQ(want.rnr_retry, a.rnr_retry);
		EXPECT_EQ(want.max_rd_atomic, a.max_rd_atomic);
	}

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

TEST_F(qp, state_machine_rc) { state_machine(_metadata, &self->d, IBV_QPT_RC); }
TEST_F(qp, state_machine_uc) { state_machine(_metadata, &self->d, IBV_QPT_UC); }
TEST_F(qp, state_machine_ud) { state_machine(_metadata, &self->d, IBV_QPT_UD); }

/* ib_modify_qp_is_ok() (RDMA core table, called by the driver): EINVAL. */
TEST_F(qp, illegal_transitions)
{
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	struct ibv_qp *ud = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	struct ibv_qp_attr a;
	int mask;

	rtr_attr(d, qp, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));		/* RESET -> RTR */
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));
	rts_attr(qp, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));		/* RESET -> RTS */
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));
	EXPECT_EQ(EINVAL, to_state(qp, IBV_QPS_SQD));		/* RESET -> SQD */
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));

	ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE));
	rts_attr(qp, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask));		/* INIT -> RTS */
	EXPECT_EQ(IBV_QPS_INIT, query_state(_metadata, qp));

	rts_attr(ud, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(ud, &a, mask));		/* UD RESET -> RTS */
	EXPECT_EQ(EINVAL, to_state(ud, IBV_QPS_RTR));		/* UD RESET -> RTR */
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, ud));

	/* the refusals left the QPs usable */
	ASSERT_EQ(0, to_rtr(d, qp));
	ASSERT_EQ(0, to_rts(qp));
	EXPECT_EQ(IBV_QPS_RTS, query_state(_metadata, qp));

	EXPECT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

/* A transition without a required attribute, or with one it does not allow. */
TEST_F(qp, missing_attrs)
{
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	struct ibv_qp *ud = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = PORT,
				 .qp_access_flags = IBV_ACCESS_LOCAL_WRITE,
				 .qkey = 0x1234, .sq_psn = 1 };
	const int init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	int mask;

	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, init & ~IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, init & ~IBV_QP_PORT));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, init & ~IBV_QP_PKEY_INDEX));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, init | IBV_QP_SQ_PSN));	/* not allowed */
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, init | IBV_QP_QKEY));	/* not for RC */
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, init));

	rtr_attr(d, qp, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_AV));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_DEST_QPN));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_PATH_MTU));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_RQ_PSN));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_MAX_DEST_RD_ATOMIC));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_MIN_RNR_TIMER));
	EXPECT_EQ(IBV_QPS_INIT, query_state(_metadata, qp));
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, mask));

	rts_attr(qp, &a, &mask);
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_SQ_PSN));
	EXPECT_EQ(EINVAL, ibv_modify_qp(qp, &a, mask & ~IBV_QP_TIMEOUT));
	EXPECT_EQ(IBV_QPS_RTR, query_state(_metadata, qp));
	ASSERT_EQ(0, ibv_modify_qp(qp, &a, mask));

	/* UD needs a Q_Key in INIT, and no access flags */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = PORT;
	a.qkey = 0x1234;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	EXPECT_EQ(EINVAL, ibv_modify_qp(ud, &a, mask));
	EXPECT_EQ(EINVAL, ibv_modify_qp(ud, &a, mask | IBV_QP_QKEY | IBV_QP_ACCESS_FLAGS));
	EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, ud));
	EXPECT_EQ(0, ibv_modify_qp(ud, &a, mask | IBV_QP_QKEY));

	EXPECT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

/* RTS/RTR/INIT -> ERR, ERR -> RESET, and the QP can be brought up again. */
TEST_F(qp, err_and_reset)
{
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, types[i]);

		bring_up(_metadata, d, qp);
		ASSERT_EQ(0, to_state(qp, IBV_QPS_ERR));
		EXPECT_EQ(IBV_QPS_ERR, query_state(_metadata, qp));
		ASSERT_EQ(0, to_state(qp, IBV_QPS_RESET));
		EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));
		bring_up(_metadata, d, qp);
		/* RTR -> ERR and INIT -> ERR are legal too */
		ASSERT_EQ(0, to_state(qp, IBV_QPS_RESET));
		ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE));
		ASSERT_EQ(0, to_rtr(d, qp));
		ASSERT_EQ(0, to_state(qp, IBV_QPS_ERR));
		EXPECT_EQ(IBV_QPS_ERR, query_state(_metadata, qp));
		ASSERT_EQ(0, to_state(qp, IBV_QPS_RESET));
		ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE));
		ASSERT_EQ(0, to_state(qp, IBV_QPS_ERR));
		EXPECT_EQ(IBV_QPS_ERR, query_state(_metadata, qp));
		/*
		 * RESET -> ERR is not in the RDMA core's transition table
		 * (ib_modify_qp_is_ok, unlike IBA's "any state"): EINVAL.
		 * RESET -> RESET is.
		 */
		ASSERT_EQ(0, to_state(qp, IBV_QPS_RESET));
		EXPECT_EQ(EINVAL, to_state(qp, IBV_QPS_ERR));
		EXPECT_EQ(0, to_state(qp, IBV_QPS_RESET));
		EXPECT_EQ(IBV_QPS_RESET, query_state(_metadata, qp));
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}
	free_cq_pd(_metadata, cq, pd);
}

/* Caps beyond the device limits: EINVAL (rdma_rxe rxe_qp_chk_cap). */
TEST_F(qp, create_limits)
{
	const struct ibv_device_attr *da = &self->d.attr.orig_attr;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	const struct ibv_qp_cap ok = { 16, 16, 1, 1, 0 };
	struct ibv_qp_cap bad[5];
	int i;

	for (i = 0; i < 5; i++)
		bad[i] = ok;
	bad[0].max_send_wr = da->max_qp_wr + 1;
	bad[1].max_recv_wr = da->max_qp_wr + 1;
	bad[2].max_send_sge = da->max_sge + 1;
	bad[3].max_recv_sge = da->max_sge + 1;
	bad[4].max_inline_data = 1 << 20;	/* far beyond any send WQE */
	for (i = 0; i < 5; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .cap = bad[i],
		};
		struct ibv_qp *qp;

		errno = 0;
		qp = ibv_create_qp(pd, &ia);
		EXPECT_EQ(NULL, qp) TH_LOG("case %d created", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %d", i);
		if (qp)
			ibv_destroy_qp(qp);
	}
	free_cq_pd(_metadata, cq, pd);
}

TEST_F(qp, with_srq)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	struct ibv_srq *srq = make_srq(_metadata, pd, 16);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_qp *rc, *ud;

	ASSERT_NE(NULL, mr);
	sge.lkey = mr->lkey;
	rc = make_qp(_metadata, pd, cq, srq, IBV_QPT_RC);
	ud = make_qp(_metadata, pd, cq, srq, IBV_QPT_UD);
	EXPECT_EQ(srq, rc->srq);
	EXPECT_EQ(srq, ud->srq);
	bring_up(_metadata, d, rc);
	bring_up(_metadata, d, ud);
	/* receives go to the SRQ; the QP itself has no receive queue */
	bad = NULL;
	EXPECT_EQ(0, ibv_post_srq_recv(srq, &wr, &bad));
	EXPECT_NE(0, ibv_post_recv(rc, &wr, &bad));
	EXPECT_EQ(0, ibv_destroy_qp(rc));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	free_cq_pd(_metadata, cq, pd);
}

/*
 * The next async event of @ctx within @ms milliseconds, acknowledged;
 * false when none came.
 */
static bool next_async_event(struct ibv_context *ctx, int ms,
			     struct ibv_async_event *ev)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int fl = fcntl(ctx->async_fd, F_GETFL);

	if (fl < 0 || fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK))
		return false;
	if (poll(&p, 1, ms) != 1 || ibv_get_async_event(ctx, ev))
		return false;
	ibv_ack_async_event(ev);
	return true;
}

/*
 * IBA 10.3.1, 11.6.3: a QP on an SRQ that enters the error state reports
 * Last WQE Reached (the kernel's ib_drain_qp() waits for it), once per
 * entry into ERR; a QP with its own receive queue does not.
 */
TEST_F(qp, srq_last_wqe_reached)
{
	struct dev *d = &self->d;
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, d, &cq);
	struct ibv_srq *srq = make_srq(_metadata, pd, 16);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, srq, IBV_QPT_RC);
	struct ibv_qp *plain = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	struct ibv_async_event ev;
	int round;

	bring_up(_metadata, d, plain);
	ASSERT_EQ(0, to_state(plain, IBV_QPS_ERR));
	for (round = 0; round < 2; round++) {
		if (round) {
			ASSERT_EQ(0, to_state(qp, IBV_QPS_RESET));
		}
		bring_up(_metadata, d, qp);
		ASSERT_EQ(0, to_state(qp, IBV_QPS_ERR));
		ASSERT_TRUE(next_async_event(d->ctx, 10000, &ev))
			TH_LOG("round %d: no async event within 10 s", round);
		EXPECT_EQ(IBV_EVENT_QP_LAST_WQE_REACHED, (int)ev.event_type)
			TH_LOG("round %d: event %s", round, ibv_event_type_str(ev.event_type));
		EXPECT_EQ(qp, ev.element.qp);
		EXPECT_FALSE(next_async_event(d->ctx, 500, &ev))
			TH_LOG("round %d: another event, %s", round,
			       ibv_event_type_str(ev.event_type));
	}
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_qp(plain));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	free_cq_pd(_metadata, cq, pd);
}

/*
 * IBA o10-2.2.3: a QP attached to multicast groups cannot be destroyed;
 * ib_uverbs refuses with EBUSY while its attach list is not empty.
 */
TEST_F(qp, destroy_mcast_attached)
{
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	union ibv_gid g1 = mcast_gid(1), g2 = mcast_gid(2);

	bring_up(_metadata, &self->d, qp);
	ASSERT_EQ(0, ibv_attach_mcast(qp, &g1, 0));
	ASSERT_EQ(0, ibv_attach_mcast(qp, &g2, 0));
	EXPECT_EQ(EBUSY, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_detach_mcast(qp, &g1, 0));
	EXPECT_EQ(EBUSY, ibv_destroy_qp(qp));
	EXPECT_EQ(IBV_QPS_RTS, query_state(_metadata, qp));
	EXPECT_EQ(0, ibv_detach_mcast(qp, &g2, 0));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

/* The provider refuses receives on a QP in RESET (EINVAL); INIT takes them. */
TEST_F(qp, post_recv_reset)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc;

	ASSERT_NE(NULL, mr);
	sge.lkey = mr->lkey;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(qp, &wr, &bad));
	ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE));
	bad = NULL;
	EXPECT_EQ(0, ibv_post_recv(qp, &wr, &bad));
	EXPECT_EQ(NULL, bad);
	/* nothing completes on its own */
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	free_cq_pd(_metadata, cq, pd);
}

/*
 * Sends on a QP in RESET or INIT fail.  The rxe provider writes the WQE and
 * rings the doorbell; the kernel refuses it because the requester is not
 * ready (rdma_rxe: EINVAL), and ibv_post_send returns that.
 */
TEST_F(qp, post_send_reset_init)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	ASSERT_NE(NULL, mr);
	sge.lkey = mr->lkey;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &wr, &bad));
	ASSERT_EQ(0, to_init(qp, IBV_ACCESS_LOCAL_WRITE));
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_send(qp, &wr, &bad));
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(IBV_QPS_INIT, query_state(_metadata, qp));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	free_cq_pd(_metadata, cq, pd);
}

static bool has_pair(const char *line, const char *key, const char *value, bool prefix);

/*
 * sroce's transmit flow of a QP, as "rdma -dd resource show qp" prints it
 * (restrack.c): 0 for none, -1 when it cannot be read.
 */
static long qp_txflow(const char *dev, uint32_t qpn)
{
	char cmd[160], line[4096], link[80];
	const char *p;
	long id = -1;
	FILE *f;

	/* Not "link DEV/1": a QP in RESET has no port ("link DEV/-"). */
	snprintf(cmd, sizeof(cmd), "rdma -dd resource show qp lqpn %u 2>/dev/null", qpn);
	snprintf(link, sizeof(link), "%s/", dev);
	f = popen_clean(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, " drv_txflow ");
		if (p && has_pair(line, "link", link, true))
			id = strtol(p + strlen(" drv_txflow "), NULL, 10);
	}
	if (pclose(f) != 0)
		return -1;
	return id;
}

/* RESET -> INIT -> RTR of an RC QP to itself, over the GID at @gid_index. */
static int rc_to_rtr_over(struct dev *d, struct ibv_qp *qp, int gid_index,
			  const union ibv_gid *gid)
{
	struct ibv_qp_attr a;
	int mask;

	if (to_init(qp, IBV_ACCESS_LOCAL_WRITE))
		return -1;
	rtr_attr(d, qp, &a, &mask);
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	return ibv_modify_qp(qp, &a, mask);
}

/* Another GID of the port than the test's (the IPv6 link-local one). */
static int other_gid(struct dev *d, union ibv_gid *gid)
{
	static const union ibv_gid zero;
	int i;

	for (i = 0; i < d->port.gid_tbl_len && i < 16; i++) {
		if (i == d->gid_index || ibv_query_gid(d->ctx, PORT, i, gid))
			continue;
		if (memcmp(gid, &zero, sizeof(zero)) && memcmp(gid, &d->gid, sizeof(*gid)))
			return i;
	}
	return -1;
}

/*
 * sroce's RC QPs to one destination share one transmit flow (txflow.c),
 * a QP to another destination and each UD QP have their own, a QP in
 * RESET has none and joins the flow of its next path, and a flow whose
 * last QP went is gone (a new one gets a new id).
 */
TEST_F(qp, txflow_per_destination)
{
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *rc[5], *ud, *late;
	union ibv_gid gid2;
	long a, b, u, c;
	int i, idx2;

	if (strncmp(self->d.name, "sroce", 5))
		SKIP(return, "transmit flows are sroce's");
	idx2 = other_gid(&self->d, &gid2);
	ASSERT_LE(0, idx2) TH_LOG("no second GID on %s", self->d.name);
	pd = make_pd_cq(_metadata, &self->d, &cq);
	for (i = 0; i < 5; i++)
		rc[i] = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	ud = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);

	/* No path yet: no flow. A UD QP has its own from the start. */
	EXPECT_EQ(0, qp_txflow(self->d.name, rc[0]->qp_num));
	u = qp_txflow(self->d.name, ud->qp_num);
	EXPECT_LT(0, u);

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, rc_to_rtr_over(&self->d, rc[i], self->d.gid_index, &self->d.gid));
	ASSERT_EQ(0, rc_to_rtr_over(&self->d, rc[4], idx2, &gid2))
		TH_LOG("RTR over GID %d: %s", idx2, strerror(errno));
	a = qp_txflow(self->d.name, rc[0]->qp_num);
	b = qp_txflow(self->d.name, rc[4]->qp_num);
	EXPECT_LT(0, a);
	EXPECT_LT(0, b);
	EXPECT_NE(a, b);
	EXPECT_NE(u, a);
	EXPECT_NE(u, b);
	for (i = 1; i < 4; i++)
		EXPECT_EQ(a, qp_txflow(self->d.name, rc[i]->qp_num));

	/* RESET leaves the flow; the next path's flow is joined. */
	ASSERT_EQ(0, to_state(rc[0], IBV_QPS_RESET));
	EXPECT_EQ(0, qp_txflow(self->d.name, rc[0]->qp_num));
	EXPECT_EQ(a, qp_txflow(self->d.name, rc[1]->qp_num));
	ASSERT_EQ(0, rc_to_rtr_over(&self->d, rc[0], idx2, &gid2));
	EXPECT_EQ(b, qp_txflow(self->d.name, rc[0]->qp_num));

	/* The flow lives while one QP uses it, and not after the last. */
	EXPECT_EQ(0, ibv_destroy_qp(rc[1]));
	EXPECT_EQ(0, ibv_destroy_qp(rc[2]));
	EXPECT_EQ(a, qp_txflow(self->d.name, rc[3]->qp_num));
	EXPECT_EQ(0, ibv_destroy_qp(rc[3]));
	late = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	ASSERT_EQ(0, rc_to_rtr_over(&self->d, late, self->d.gid_index, &self->d.gid));
	c = qp_txflow(self->d.name, late->qp_num);
	EXPECT_LT(0, c);
	EXPECT_NE(a, c);
	EXPECT_NE(b, c);
	EXPECT_EQ(b, qp_txflow(self->d.name, rc[4]->qp_num));

	EXPECT_EQ(0, ibv_destroy_qp(late));
	EXPECT_EQ(0, ibv_destroy_qp(rc[4]));
	EXPECT_EQ(0, ibv_destroy_qp(rc[0]));
	EXPECT_EQ(0, ibv_destroy_qp(ud));
	free_cq_pd(_metadata, cq, pd);
}

/* -------------------------------------------------------------------- SRQ */

TEST_F(srq, create_query_modify)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 16, .max_sge = 2 } };
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq_attr a;
	struct ibv_srq *srq;
	int i;

	ASSERT_NE(NULL, mr);
	sge.lkey = mr->lkey;
	srq = ibv_create_srq(pd, &ia);
	ASSERT_NE(NULL, srq) TH_LOG("ibv_create_srq: %s", strerror(errno));
	EXPECT_EQ(pd, srq->pd);
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_srq(srq, &a));
	EXPECT_GE(a.max_wr, 16u);
	EXPECT_GE(a.max_sge, 2u);
	EXPECT_EQ(0u, a.srq_limit);

	/* grow the ring (IBV_DEVICE_SRQ_RESIZE) */
	EXPECT_NE(0u, self->d.attr.orig_attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE);
	a.max_wr = 100;
	ASSERT_EQ(0, ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR));
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_srq(srq, &a));
	EXPECT_GE(a.max_wr, 100u);

	/* arm the limit */
	a.srq_limit = 10;
	ASSERT_EQ(0, ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT));
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_srq(srq, &a));
	EXPECT_EQ(10u, a.srq_limit);
	EXPECT_GE(a.max_wr, 100u);

	/* rdma_rxe: a limit above the ring size, or a ring below the limit: EINVAL */
	a.srq_limit = a.max_wr + 1;
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT));
	a.max_wr = 5;
	EXPECT_EQ(EINVAL, ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR));
	memset(&a, 0, sizeof(a));
	ASSERT_EQ(0, ibv_query_srq(srq, &a));
	EXPECT_EQ(10u, a.srq_limit);
	EXPECT_GE(a.max_wr, 100u);

	/* the resized ring takes 100 receives */
	for (i = 0; i < 100; i++) {
		wr.wr_id = i;
		bad = NULL;
		ASSERT_EQ(0, ibv_post_srq_recv(srq, &wr, &bad)) TH_LOG("recv %d", i);
	}
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* rdma_rxe rxe_srq_chk_init: EINVAL */
TEST_F(srq, limits)
{
	const struct ibv_device_attr *da = &self->d.attr.orig_attr;
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	const struct ibv_srq_attr bad[] = {
		{ .max_wr = 0, .max_sge = 1 },
		{ .max_wr = da->max_srq_wr + 1, .max_sge = 1 },
		{ .max_wr = 16, .max_sge = da->max_srq_sge + 1 },
	};
	struct ibv_srq_init_attr ia = {};
	struct ibv_srq *srq;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ia.attr = bad[i];
		errno = 0;
		srq = ibv_create_srq(pd, &ia);
		EXPECT_EQ(NULL, srq) TH_LOG("case %u created", i);
		EXPECT_EQ(EINVAL, errno) TH_LOG("case %u", i);
		if (srq)
			ibv_destroy_srq(srq);
	}
	/* and the largest one is fine */
	ia.attr.max_wr = 1024;
	ia.attr.max_sge = da->max_srq_sge;
	srq = ibv_create_srq(pd, &ia);
	ASSERT_NE(NULL, srq) TH_LOG("max_sge %d: %s", da->max_srq_sge, strerror(errno));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* RDMA core (ib_destroy_srq_user): EBUSY while a QP uses it. */
TEST_F(srq, destroy_busy)
{
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_srq *srq = make_srq(_metadata, pd, 16);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, srq, IBV_QPT_RC);
	struct ibv_srq_attr a;

	EXPECT_EQ(EBUSY, ibv_destroy_srq(srq));
	EXPECT_EQ(0, ibv_query_srq(srq, &a));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_srq(srq));
	free_cq_pd(_metadata, cq, pd);
}

/* --------------------------------------------------------------------- AH */

TEST_F(ah, create_destroy)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_ah_attr attr = loop_ah(&self->d);
	struct ibv_ah *ah[4];
	int i;

	ASSERT_TRUE(gid_is_v4mapped(&self->d.gid))
		TH_LOG("GID %d is not an IPv4-mapped GID", self->d.gid_index);
	for (i = 0; i < 4; i++) {
		attr.grh.hop_limit = 1 + i;
		attr.grh.traffic_class = i << 2;
		attr.grh.flow_label = i;
		ah[i] = ibv_create_ah(pd, &attr);
		ASSERT_NE(NULL, ah[i]) TH_LOG("ibv_create_ah: %s", strerror(errno));
		EXPECT_EQ(pd, ah[i]->pd);
		EXPECT_EQ(self->d.ctx, ah[i]->context);
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, ibv_destroy_ah(ah[i]));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

TEST_F(ah, bad_sgid_index)
{
	struct ibv_pd *pd = make_pd(_metadata, &self->d);
	struct ibv_ah_attr attr = loop_ah(&self->d);
	struct ibv_ah *ah;

	/*
	 * An empty slot of the GID table: ENODATA, the RDMA core's answer for
	 * an unused GID entry (the provider looks it up before the kernel).
	 */
	attr.grh.sgid_index = 200;
	ASSERT_GT(self->d.port.gid_tbl_len, 200);
	errno = 0;
	ah = ibv_create_ah(pd, &attr);
	EXPECT_EQ(NULL, ah);
	EXPECT_EQ(ENODATA, errno);
	if (ah)
		ibv_destroy_ah(ah);
	/* a port that does not exist: EINVAL */
	attr = loop_ah(&self->d);
	attr.port_num = 2;
	errno = 0;
	ah = ibv_create_ah(pd, &attr);
	EXPECT_EQ(NULL, ah);
	EXPECT_EQ(EINVAL, errno);
	if (ah)
		ibv_destroy_ah(ah);
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
}

/* -------------------------------------------------------------- multicast */

TEST_F(mcast, attach_detach)
{
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	struct ibv_qp *qp2 = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	union ibv_gid g1 = mcast_gid(1), g2 = mcast_gid(2);

	bring_up(_metadata, &self->d, qp);
	EXPECT_EQ(0, ibv_attach_mcast(qp, &g1, 0));
	EXPECT_EQ(0, ibv_attach_mcast(qp, &g2, 0));
	/* attaching again is a no-op (ib_uverbs keeps one entry) */
	EXPECT_EQ(0, ibv_attach_mcast(qp, &g1, 0));
	/* a second QP in the same group; a QP still in RESET may attach */
	EXPECT_EQ(0, ibv_attach_mcast(qp2, &g1, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qp, &g1, 0));
	/* gone now: a second detach fails (ib_uverbs, EINVAL) */
	EXPECT_EQ(EINVAL, ibv_detach_mcast(qp, &g1, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qp, &g2, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qp2, &g1, 0));
	EXPECT_EQ(0, ibv_destroy_qp(qp2));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

/* ib_uverbs finds no such attachment: EINVAL */
TEST_F(mcast, detach_not_attached)
{
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *qp = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	union ibv_gid g1 = mcast_gid(1), g3 = mcast_gid(3);

	EXPECT_EQ(EINVAL, ibv_detach_mcast(qp, &g3, 0));
	ASSERT_EQ(0, ibv_attach_mcast(qp, &g1, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(qp, &g3, 0));
	EXPECT_EQ(0, ibv_detach_mcast(qp, &g1, 0));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	free_cq_pd(_metadata, cq, pd);
}

/* RDMA core (ib_attach_mcast): multicast GIDs on UD QPs only, EINVAL */
TEST_F(mcast, attach_bad)
{
	struct ibv_cq *cq;
	struct ibv_pd *pd = make_pd_cq(_metadata, &self->d, &cq);
	struct ibv_qp *ud = make_qp(_metadata, pd, cq, NULL, IBV_QPT_UD);
	struct ibv_qp *rc = make_qp(_metadata, pd, cq, NULL, IBV_QPT_RC);
	union ibv_gid g1 = mcast_gid(1);

	EXPECT_EQ(EINVAL, ibv_attach_mcast(ud, &self->d.gid, 0));	/* unicast */
	EXPECT_EQ(EINVAL, ibv_attach_mcast(rc, &g1, 0));		/* not UD */
	EXPECT_EQ(0, ibv_destroy_qp(rc));	/* nothing got attached */
	EXPECT_EQ(0, ibv_destroy_qp(ud));
	free_cq_pd(_metadata, cq, pd);
}

/* --------------------------------------------------------------- teardown */

enum { RES_PD, RES_CQ, RES_QP, RES_MR, RES_SRQ, RES_CTX, RES_N };
static const char *const res_name[RES_N] = { "pd", "cq", "qp", "mr", "srq", "ctx" };

/*
 * Does the whitespace-separated line hold the token pair "key value" (or,
 * with prefix, "key value..." )?
 */
static bool has_pair(const char *line, const char *key, const char *value, bool prefix)
{
	char pat[64];
	const char *p = line;
	size_t n;

	n = snprintf(pat, sizeof(pat), "%s %s", key, value);
	while ((p = strstr(p, pat))) {
		if ((p == line || p[-1] == ' ') &&
		    (prefix || p[n] == ' ' || p[n] == '\n' || !p[n]))
			return true;
		p++;
	}
	return false;
}

/*
 * Objects of one restrack type on device dev owned by pid, from
 * "rdma resource show TYPE" (pid < 0: all of them).  -1 if rdma cannot run.
 */
static int res_count(const char *dev, int type, int pid)
{
	char cmd[128], line[1024], pidstr[16], link[80];
	int n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", res_name[type]);
	snprintf(pidstr, sizeof(pidstr), "%d", pid);
	snprintf(link, sizeof(link), "%s/", dev);
	f = popen_clean(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/*
		 * "dev rxe0 ..." for most types, "link rxe0/1 ..." for QPs
		 * ("link rxe0/-" while a QP has no port yet)
		 */
		if (!has_pair(line, "dev", dev, false) && !has_pair(line, "link", link, true))
			continue;
		if (pid < 0 || has_pair(line, "pid", pidstr, false))
			n++;
	}
	if (pclose(f) != 0)
		return -1;
	return n;
}

/* The per-device summary line: "0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0" */
static int res_summary(const char *dev, int counts[RES_N])
{
	char cmd[128], line[1024];
	int i, found = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma resource show %s 2>/dev/null", dev);
	f = popen_clean(cmd);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < RES_N; i++) {
			char key[16];
			const char *p;

			snprintf(key, sizeof(key), " %s ", res_name[i]);
			p = strstr(line, key);
			if (!p)
				continue;
			counts[i] = atoi(p + strlen(key));
			found++;
		}
	}
	if (pclose(f) != 0 || found != RES_N)
		return -1;
	return 0;
}

/* Child: one of every object, then report and wait to be killed. */
static void __attribute__((noreturn)) object_zoo(const char *name, int gid_index, int wfd)
{
	static char buf[4096] __attribute__((aligned(4096)));
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_comp_channel *ch;
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	union ibv_gid gid, mgid = mcast_gid(9);
	struct ibv_qp *rc, *ud, *sq;
	struct ibv_ah_attr aha;
	struct dev d;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	char ok = 0;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_gid(ctx, PORT, gid_index, &gid))
		goto out;
	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.gid = gid;
	d.gid_index = gid_index;
	if (ibv_query_port(ctx, PORT, &d.port))
		goto out;
	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	cq = pd && ch ? ibv_create_cq(ctx, 64, NULL, ch, 0) : NULL;
	srq = pd ? ibv_create_srq(pd, &sia) : NULL;
	if (!cq || !srq || ibv_req_notify_cq(cq, 0))
		goto out;
	if (!ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND))
		goto out;
	if (!ibv_alloc_mw(pd, IBV_MW_TYPE_1) || !ibv_alloc_mw(pd, IBV_MW_TYPE_2))
		goto out;
	aha = loop_ah(&d);
	if (!ibv_create_ah(pd, &aha))
		goto out;
	{
		struct ibv_qp_init_attr ia = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
			.cap = { 16, 16, 1, 1, 0 },
		};
		rc = ibv_create_qp(pd, &ia);
		ia.qp_type = IBV_QPT_UD;
		ud = ibv_create_qp(pd, &ia);
		ia.srq = srq;
		ia.qp_type = IBV_QPT_RC;
		sq = ibv_create_qp(pd, &ia);
	}
	if (!rc || !ud || !sq)
		goto out;
	/* connected to itself, attached to a group, a receive posted */
	if (to_init(rc, IBV_ACCESS_LOCAL_WRITE) || to_rtr(&d, rc) || to_rts(rc))
		goto out;
	if (to_init(ud, 0) || to_rtr(&d, ud) || to_rts(ud) || ibv_attach_mcast(ud, &mgid, 0))
		goto out;
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, 0 };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_srq_recv(srq, &wr, &bad))
			goto out;
	}
	ok = 1;
out:
	if (write(wfd, &ok, 1) != 1)
		_exit(2);
	for (;;)
		pause();
}

/*
 * A process dies holding one of every object: the kernel frees them all.
 * Counted per pid in "rdma resource show TYPE" (must drop to 0) and in the
 * per-device summary (must come back to what it was before the child, not
 * to 0: it includes the kernel's own GSI QP with its PD and CQ).
 */
TEST_F_TIMEOUT(teardown, sigkill, 60)
{
	const char *dev = self->d.name;
	int before[RES_N], now[RES_N], live[RES_N];
	struct timespec t0, t;
	int pfd[2], i, status, left;
	pid_t pid;
	char ok = 0;

	ASSERT_EQ(0, res_summary(dev, before)) TH_LOG("cannot run 'rdma resource show %s'", dev);
	ASSERT_EQ(0, pipe(pfd));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(pfd[0]);
		object_zoo(dev, self->d.gid_index, pfd[1]);
	}
	close(pfd[1]);
	EXPECT_EQ(1, read(pfd[0], &ok, 1));
	close(pfd[0]);
	EXPECT_EQ(1, ok) TH_LOG("the child could not create its objects");

	for (i = 0; i < RES_N; i++) {
		live[i] = res_count(dev, i, pid);
		TH_LOG("child owns %d %s", live[i], res_name[i]);
	}
	EXPECT_EQ(1, live[RES_PD]);
	EXPECT_EQ(1, live[RES_CQ]);
	EXPECT_EQ(3, live[RES_QP]);
	EXPECT_EQ(1, live[RES_MR]);
	EXPECT_EQ(1, live[RES_SRQ]);
	EXPECT_EQ(1, live[RES_CTX]);
	if (live[RES_QP] != 3 || live[RES_PD] != 1) {
		fflush(NULL);
		faults_set(false);
		if (system("rdma resource show qp; rdma resource show pd") == -1)
			TH_LOG("cannot run rdma");
	}

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	/* poll up to 5 s for everything to be gone */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		left = 0;
		for (i = 0; i < RES_N; i++)
			left += res_count(dev, i, pid) != 0;
		if (res_summary(dev, now))
			left++;
		else
			for (i = 0; i < RES_N; i++)
				left += now[i] > before[i];
		if (!left)
			break;
		usleep(100 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 5);

	for (i = 0; i < RES_N; i++) {
		EXPECT_EQ(0, res_count(dev, i, pid)) TH_LOG("%s of the dead child", res_name[i]);
		EXPECT_LE(now[i], before[i]) TH_LOG("%s count of %s", res_name[i], dev);
	}
}

TEST_HARNESS_MAIN
