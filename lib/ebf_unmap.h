/* SPDX-License-Identifier: BSD-3-Clause */
/* ebf_unmap.h - the daemons' munmap, which makes DPDK's interrupt thread wait for the poll loops before unmapping (see ebf_unmap.c). */
#ifndef EBF_UNMAP_H
#define EBF_UNMAP_H

/* How long the interrupt thread waits for the poll loops at most. */
#define EBF_UNMAP_WAIT_MS 1000u

/* 1: links the guarded munmap into the program (a daemon calls it once, so
 * that the linker keeps the object that defines munmap). */
int ebf_unmap_guarded(void);

#endif /* EBF_UNMAP_H */
