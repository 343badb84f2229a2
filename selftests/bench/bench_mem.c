// SPDX-License-Identifier: GPL-2.0
/*
 * bench_mem: kernel memory an RDMA device spends per RC QP and per MR.
 *
 *	bench_mem DEVICE [NQP [DEPTH [NMR [MRSIZE]]]]
 *
 * Creates NQP (1000) RC QPs with DEPTH (128) send and receive slots, one
 * SGE each, on one CQ, and takes each to RTS, connected to itself over the
 * port's first IPv4 RoCE v2 GID (a QP costs what it costs once it can move
 * data: both drivers allocate part of a QP's state when it is modified),
 * then registers NMR (1000) MRs of MRSIZE (65536) bytes each. Around each batch it reads /proc/meminfo (Slab, VmallocUsed)
 * and /proc/slabinfo (sum of num_objs * objsize) and prints the growth
 * divided by the batch size, one "key=value" per line:
 *
 *	qp_slab=B qp_vmalloc=B qp_slabinfo=B qp_total=B   bytes per QP
 *	mr_slab=B mr_vmalloc=B mr_slabinfo=B mr_total=B   bytes per MR
 *	qp_freed=B mr_freed=B     kernel memory given back by the destroys
 *
 * The same program runs on both drivers (the stock rxe provider drives
 * both), so the user-space side (ring mmaps, their VMAs) is the same and
 * the difference is the driver's. "total" is Slab + VmallocUsed growth.
 * The caches that grew most are printed as "# slab NAME +B" comments.
 * Exit status 0 when every object was created and destroyed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define MAX_CACHES 512

struct cache {
	char name[64];
	long long bytes;
};

struct snap {
	long long slab;		/* bytes */
	long long vmalloc;	/* bytes */
	long long slabinfo;	/* bytes, sum over caches */
	int ncache;
	struct cache cache[MAX_CACHES];
};

static long long meminfo_kb(const char *key)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

static void read_slabinfo(struct snap *s)
{
	char line[512], name[64];
	long long active, num, size;
	FILE *f = fopen("/proc/slabinfo", "r");

	s->slabinfo = 0;
	s->ncache = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld", name, &active, &num,
			   &size) != 4)
			continue;
		s->slabinfo += num * size;
		if (s->ncache < MAX_CACHES) {
			snprintf(s->cache[s->ncache].name,
				 sizeof(s->cache[0].name), "%s", name);
			s->cache[s->ncache++].bytes = num * size;
		}
	}
	fclose(f);
}

static void take(struct snap *s)
{
	s->slab = meminfo_kb("Slab") * 1024;
	s->vmalloc = meminfo_kb("VmallocUsed") * 1024;
	read_slabinfo(s);
}

static long long cache_bytes(const struct snap *s, const char *name)
{
	int i;

	for (i = 0; i < s->ncache; i++)
		if (!strcmp(s->cache[i].name, name))
			return s->cache[i].bytes;
	return 0;
}

/* The caches that grew by more than 1/10 of the total growth. */
static void show_caches(const char *what, const struct snap *a,
			const struct snap *b)
{
	long long min = (b->slabinfo - a->slabinfo) / 10;
	int i;

	for (i = 0; i < b->ncache; i++) {
		long long d = b->cache[i].bytes - cache_bytes(a, b->cache[i].name);

		if (d > 0 && d >= min)
			printf("# %s slab %s +%lld\n", what, b->cache[i].name, d);
	}
}

static void report(const char *what, const struct snap *a,
		   const struct snap *b, int n)
{
	long long slab = b->slab - a->slab, vm = b->vmalloc - a->vmalloc;

	printf("%s_slab=%lld\n", what, slab / n);
	printf("%s_vmalloc=%lld\n", what, vm / n);
	printf("%s_slabinfo=%lld\n", what, (b->slabinfo - a->slabinfo) / n);
	printf("%s_total=%lld\n", what, (slab + vm) / n);
	show_caches(what, a, b);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/* Index of the port's first RoCE v2 GID holding an IPv4 address, or -1. */
static int roce_v2_ipv4_gid(struct ibv_context *ctx)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	char path[256], type[32];
	union ibv_gid gid;
	int i;

	for (i = 0; i < 32; i++) {
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			 ibv_get_device_name(ctx->device), i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(type, sizeof(type), f))
			type[0] = 0;
		fclose(f);
		if (strncmp(type, "RoCE v2", 7) || ibv_query_gid(ctx, 1, i, &gid))
			continue;
		if (!memcmp(gid.raw, v4mapped, sizeof(v4mapped)))
			return i;
	}
	return -1;
}

/* RESET -> INIT -> RTR -> RTS, with the QP as its own peer. */
static int connect_self(struct ibv_qp *qp, int gid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_query_gid(qp->context, 1, gid_index, &a.ah_attr.grh.dgid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 16;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;
}

static int qps(struct ibv_pd *pd, struct ibv_cq *cq, int n, int depth)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp **qp = calloc(n, sizeof(*qp));
	struct snap *s = calloc(3, sizeof(*s));
	int i, rc = 0;

	int gid_index = roce_v2_ipv4_gid(pd->context);

	if (!qp || !s)
		return 1;
	if (gid_index < 0) {
		fprintf(stderr, "no IPv4 RoCE v2 GID on port 1\n");
		return 1;
	}
	take(&s[0]);
	for (i = 0; i < n; i++) {
		qp[i] = ibv_create_qp(pd, &attr);
		if (!qp[i]) {
			fprintf(stderr, "create_qp %d: %s\n", i, strerror(errno));
			rc = 1;
			break;
		}
		if (connect_self(qp[i], gid_index)) {
			fprintf(stderr, "modify_qp %d to RTS: %s\n", i,
				strerror(errno));
			rc = 1;
			i++;
			break;
		}
	}
	take(&s[1]);
	if (!rc)
		report("qp", &s[0], &s[1], n);
	while (i-- > 0)
		if (ibv_destroy_qp(qp[i]))
			rc = 1;
	take(&s[2]);
	printf("qp_freed=%lld\n", (s[1].slab + s[1].vmalloc) -
				  (s[2].slab + s[2].vmalloc));
	free(qp);
	free(s);
	return rc;
}

static int mrs(struct ibv_pd *pd, int n, size_t size)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	struct ibv_mr **mr = calloc(n, sizeof(*mr));
	struct snap *s = calloc(3, sizeof(*s));
	char *buf = malloc((size_t)n * size);
	int i, rc = 0;

	if (!mr || !s || !buf)
		return 1;
	memset(buf, 1, (size_t)n * size);	/* fault the pages in first */
	take(&s[0]);
	for (i = 0; i < n; i++) {
		mr[i] = ibv_reg_mr(pd, buf + (size_t)i * size, size, access);
		if (!mr[i]) {
			fprintf(stderr, "reg_mr %d: %s\n", i, strerror(errno));
			rc = 1;
			break;
		}
	}
	take(&s[1]);
	if (!rc)
		report("mr", &s[0], &s[1], n);
	while (i-- > 0)
		if (ibv_dereg_mr(mr[i]))
			rc = 1;
	take(&s[2]);
	printf("mr_freed=%lld\n", (s[1].slab + s[1].vmalloc) -
				  (s[2].slab + s[2].vmalloc));
	free(buf);
	free(mr);
	free(s);
	return rc;
}

int main(int argc, char **argv)
{
	int nqp = argc > 2 ? atoi(argv[2]) : 1000;
	int depth = argc > 3 ? atoi(argv[3]) : 128;
	int nmr = argc > 4 ? atoi(argv[4]) : 1000;
	size_t mrsize = argc > 5 ? strtoul(argv[5], NULL, 0) : 65536;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int rc;

	if (argc < 2 || nqp < 1 || depth < 1 || nmr < 1 || !mrsize) {
		fprintf(stderr, "usage: %s DEVICE [NQP [DEPTH [NMR [MRSIZE]]]]\n",
			argv[0]);
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 256, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "pd/cq: %s\n", strerror(errno));
		return 1;
	}
	printf("# %s: %d RC QPs of depth %d, %d MRs of %zu bytes\n",
	       argv[1], nqp, depth, nmr, mrsize);
	rc = qps(pd, cq, nqp, depth);
	rc |= mrs(pd, nmr, mrsize);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc;
}
