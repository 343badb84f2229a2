// SPDX-License-Identifier: GPL-2.0
/*
 * The fail_sroce fault attribute (see fault.h).  Built only where the
 * kernel has fault injection with its debugfs knobs.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "compat.h"
#include "fault.h"

static DECLARE_FAULT_ATTR(sroce_fault_attr);
static struct dentry *sroce_fault_dir;

/**
 * sroce_fault - should this setup step fail?
 *
 * Context: any; with task-filter set, only process context can fail.
 * Return: true if the caller must fail as if out of memory.
 */
bool sroce_fault(void)
{
	return should_fail(&sroce_fault_attr, 1);
}

/**
 * sroce_fault_init - create /sys/kernel/debug/fail_sroce/
 *
 * A missing directory only means no fault injection: not an error.
 */
void sroce_fault_init(void)
{
	struct dentry *dir;

	dir = fault_create_debugfs_attr("fail_sroce", NULL, &sroce_fault_attr);
	sroce_fault_dir = IS_ERR(dir) ? NULL : dir;
}

void sroce_fault_exit(void)
{
	debugfs_remove_recursive(sroce_fault_dir);
	sroce_fault_dir = NULL;
	sroce_fault_attr_put_dname(&sroce_fault_attr);
}
