// SPDX-License-Identifier: GPL-2.0
/*
 * Address vectors and address handles.
 *
 * A user AH gets a number (ah_num) that the rxe provider writes into UD
 * work requests; the transport finds the AH by that number. Kernel callers
 * pass the ib_ah itself in their work requests, so kernel AHs get no
 * number and may be created and destroyed in atomic context.
 */
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>
#include <sroce/params.h>

#include "sroce.h"
#include "av.h"

/**
 * sroce_av_from_attr - build an address vector from an ib_core AH attribute
 * @av: filled in
 * @attr: must carry a GRH whose source GID is one of our RoCEv2 GIDs
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int sroce_av_from_attr(struct rxe_av *av, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	enum rdma_network_type ntype;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	ntype = rdma_gid_attr_network_type(sgid_attr);
	if (ntype != RDMA_NETWORK_IPV4 && ntype != RDMA_NETWORK_IPV6)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->port_num = 1;
	av->network_type = ntype == RDMA_NETWORK_IPV4 ?
			   RXE_NETWORK_TYPE_IPV4 : RXE_NETWORK_TYPE_IPV6;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	memcpy(av->grh.dgid.raw, grh->dgid.raw, sizeof(av->grh.dgid.raw));
	av->grh.flow_label = grh->flow_label;
	av->grh.sgid_index = grh->sgid_index;
	av->grh.hop_limit = grh->hop_limit;
	av->grh.traffic_class = grh->traffic_class;
	rdma_gid2ip((struct sockaddr *)&av->sgid_addr, &sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&av->dgid_addr, &grh->dgid);
	return 0;
}

/* The inverse, for query_ah and query_qp. */
void sroce_av_to_attr(const struct rxe_av *av, struct rdma_ah_attr *attr)
{
	union ib_gid dgid;

	memcpy(dgid.raw, av->grh.dgid.raw, sizeof(dgid.raw));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_grh(attr, &dgid, av->grh.flow_label, av->grh.sgid_index,
			av->grh.hop_limit, av->grh.traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

static int sroce_ah_publish_user(struct sroce_dev *sdev, struct sroce_ah *ah,
				 struct ib_udata *udata)
{
	struct rxe_create_ah_resp resp = {};
	int err;

	err = sroce_pool_reserve(&sdev->ah_pool, &ah->elem, GFP_KERNEL);
	if (err)
		return err;
	resp.ah_num = ah->elem.index;
	err = ib_copy_to_udata(udata, &resp, min(udata->outlen, sizeof(resp)));
	if (err) {
		sroce_pool_unpublish(&sdev->ah_pool, &ah->elem);
		return err;
	}
	sroce_pool_publish(&sdev->ah_pool, &ah->elem);
	ah->numbered = true;
	return 0;
}

static int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	int err;

	err = sroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;
	if (!udata)
		return 0;
	/* Old providers sent no room for the number; this one always does. */
	if (udata->outlen < sizeof(struct rxe_create_ah_resp))
		return -EINVAL;
	return sroce_ah_publish_user(sdev, ah, udata);
}

static int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	sroce_av_to_attr(&to_sah(ibah)->av, attr);
	return 0;
}

static int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_ah *ah = to_sah(ibah);

	/* Only user AHs are numbered, and user destroys may sleep. */
	if (ah->numbered) {
		sroce_pool_unpublish(&to_sdev(ibah->device)->ah_pool, &ah->elem);
		sroce_pool_drop_and_wait(&ah->elem);
	}
	return 0;
}

/**
 * sroce_ah_get - find a user AH by the number the provider put in a WQE
 * @sdev: the device
 * @ah_num: untrusted number
 *
 * Context: any.
 * Return: the AH with a reference held, or NULL.
 */
struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num)
{
	struct sroce_pool_elem *elem = sroce_pool_get(&sdev->ah_pool, ah_num);

	return elem ? container_of(elem, struct sroce_ah, elem) : NULL;
}

void sroce_ah_put(struct sroce_ah *ah)
{
	sroce_pool_put(&ah->elem);
}

const struct ib_device_ops sroce_ah_ops = {
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.query_ah = sroce_query_ah,
	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
};
