// SPDX-License-Identifier: GPL-2.0
/*
 * Device, port and context verbs, and the ib_device_ops table.
 *
 * The stock rdma-core rxe provider drives sroce: it binds by driver id
 * (RDMA_DRIVER_RXE) and ABI version 2 and sends no driver data with the
 * query verbs, so any driver data there is refused.
 */
#include <linux/module.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include <sroce/params.h>

#include "sroce.h"
#include "av.h"
#include "counters.h"
#include "cq.h"
#include "mcast.h"
#include "mr.h"
#include "mw.h"
#include "pd.h"
#include "qp_verbs.h"
#include "queue.h"
#include "restrack.h"
#include "srq.h"
#include "verbs.h"

#define SROCE_UVERBS_ABI_VERSION	2

/*
 * ODP MRs are looked up at each access (odp.c), which works the same for
 * every operation and transport; implicit MRs cost nothing extra.
 */
static void sroce_set_odp_caps(struct ib_odp_caps *caps)
{
	u32 all = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		  IB_ODP_SUPPORT_SRQ_RECV;

	caps->general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	caps->per_transport_caps.rc_odp_caps = all | IB_ODP_SUPPORT_WRITE |
		IB_ODP_SUPPORT_READ | IB_ODP_SUPPORT_ATOMIC;
	caps->per_transport_caps.uc_odp_caps = all | IB_ODP_SUPPORT_WRITE;
	caps->per_transport_caps.ud_odp_caps = all;
}

void sroce_verbs_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;

	a->vendor_id = SROCE_VENDOR_ID;
	a->vendor_part_id = SROCE_VENDOR_PART_ID;
	a->hw_ver = SROCE_HW_VERSION;
	/* The rxe provider prints this as major.minor.sub: 0.1.0. */
	a->fw_ver = (u64)SROCE_FW_MAJOR << 32 | SROCE_FW_MINOR << 16 | SROCE_FW_SUB;
	a->sys_image_guid = sdev->ibdev.node_guid;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = 0xfffff000;
	a->max_qp = SROCE_MAX_QP;
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_AUTO_PATH_MIG |
			      IB_DEVICE_CHANGE_PHY_PORT |
			      IB_DEVICE_UD_AV_PORT_ENFORCE |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SRQ_RESIZE |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B;
	/* Lets "rdma link delete" remove the device. */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG | IBK_ON_DEMAND_PAGING;
	sroce_set_odp_caps(&a->odp_caps);
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE_RD;
	a->max_cq = SROCE_MAX_CQ;
	a->max_cqe = SROCE_MAX_CQE;
	a->max_mr = SROCE_MAX_MR;
	a->max_mw = SROCE_MAX_MW;
	a->max_pd = SROCE_MAX_PD;
	a->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_QP_INIT_RD_ATOM;
	a->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_TOT_MCAST_QP_ATTACH;
	a->max_ah = SROCE_MAX_AH;
	a->max_srq = SROCE_MAX_SRQ;
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	a->max_pkeys = SROCE_MAX_PKEYS;
	a->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *uhw)
{
	if (uhw->inlen || uhw->outlen)
		return -EINVAL;
	*attr = to_sdev(ibdev)->attr;
	return 0;
}

static void sroce_port_snapshot(struct sroce_dev *sdev,
				enum ib_port_state *state,
				enum ib_mtu *active_mtu)
{
	spin_lock_bh(&sdev->port_lock);
	*state = sdev->port_state;
	*active_mtu = sdev->active_mtu;
	spin_unlock_bh(&sdev->port_lock);
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	enum ib_port_state state;
	enum ib_mtu mtu;

	sroce_port_snapshot(sdev, &state, &mtu);
	/* ib_core zeroed *attr; LIDs, SM fields and VL state stay 0. */
	attr->state = state;
	attr->phys_state = state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = mtu;
	attr->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	attr->max_vl_num = 1;
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static void sroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%s", SROCE_VERSION);
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibuc->device);

	if (!sroce_charge(&sdev->num_ucontext, SROCE_MAX_UCONTEXT))
		return -ENOMEM;
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	atomic_dec(&to_sdev(ibuc->device)->num_ucontext);
}

/*
 * Nothing of a context outlives its device: once ib_core has destroyed
 * the context's objects and zapped its mappings, the process may keep
 * its file open without pinning the module.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.alloc_ucontext = sroce_alloc_ucontext,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

/*
 * Each object file owns the verbs of its object; ib_set_device_ops()
 * merges the tables.
 */
void sroce_verbs_set_ops(struct ib_device *ibdev)
{
	ib_set_device_ops(ibdev, &sroce_dev_ops);
	ib_set_device_ops(ibdev, &sroce_pd_ops);
	ib_set_device_ops(ibdev, &sroce_ah_ops);
	ib_set_device_ops(ibdev, &sroce_mr_ops);
	ib_set_device_ops(ibdev, &sroce_mw_ops);
	ib_set_device_ops(ibdev, &sroce_cq_ops);
	ib_set_device_ops(ibdev, &sroce_srq_ops);
	ib_set_device_ops(ibdev, &sroce_qp_ops);
	ib_set_device_ops(ibdev, &sroce_mcast_ops);
	ib_set_device_ops(ibdev, &sroce_counter_ops);
}
