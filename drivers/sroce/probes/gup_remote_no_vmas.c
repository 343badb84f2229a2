// SPDX-License-Identifier: GPL-2.0
/* Has get_user_pages_remote() lost its vmas argument (6.5+)? */
#include <linux/mm.h>

long probe_gup(struct mm_struct *mm, struct page **pages);
long probe_gup(struct mm_struct *mm, struct page **pages)
{
	return get_user_pages_remote(mm, 0, 1, 0, pages, NULL);
}
