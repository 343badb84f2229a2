/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-demand paging MRs: copies look pages up in the registering process
 * at the time of each access instead of pinning them at registration.
 */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

#include <linux/types.h>

#include "mr.h"

struct sroce_dev;

void sroce_odp_begin(struct sroce_dev *sdev);
void sroce_odp_end(struct sroce_dev *sdev);
void sroce_odp_init(struct sroce_mr *mr, u64 start);
void sroce_odp_release(struct sroce_mr *mr);
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);
void *sroce_odp_map_word(struct sroce_mr *mr, u64 iova, struct page **page);

#endif /* SROCE_ODP_H */
