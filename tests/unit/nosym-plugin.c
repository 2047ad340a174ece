/* SPDX-License-Identifier: BSD-3-Clause */
/* nosym-plugin.c - a shared object without the ebf_trigger_plugin symbol: the node must refuse it. */
int ebf_not_a_trigger(void);

int ebf_not_a_trigger(void)
{
    return 0;
}
