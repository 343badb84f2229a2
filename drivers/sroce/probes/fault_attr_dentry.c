// SPDX-License-Identifier: GPL-2.0
/*
 * Does struct fault_attr hold a reference to its debugfs directory (6.1)
 * rather than a copy of its name (6.7+)?
 */
#include <linux/fault-inject.h>

struct dentry *probe_fault_dname(struct fault_attr *attr);
struct dentry *probe_fault_dname(struct fault_attr *attr)
{
	return attr->dname;
}
