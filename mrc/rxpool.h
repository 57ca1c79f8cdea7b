/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rxpool.h - the receive path's recycled memory (rxpool.c): reassembly
 * contexts, message buffers and /dev/mrc queue entries.
 */
#ifndef _MRC_RXPOOL_H
#define _MRC_RXPOOL_H

#include <linux/types.h>

/* Largest object the pool recycles; larger ones are allocated each time. */
#define MRC_RXPOOL_MAX_OBJ	(64U << 10)
/* Most idle bytes the pool keeps, all classes together. */
#define MRC_RXPOOL_MAX_BYTES	(4U << 20)

void *mrc_rxpool_get(size_t bytes);
void mrc_rxpool_put(void *p, size_t bytes);
long mrc_rxpool_idle_bytes(void);
int mrc_rxpool_init(void);
void mrc_rxpool_exit(void);

#endif /* _MRC_RXPOOL_H */
