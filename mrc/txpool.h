/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txpool.h - the send path's recycled message buffers (txpool.c).
 */
#ifndef _MRC_TXPOOL_H
#define _MRC_TXPOOL_H

#include <linux/types.h>

/* Largest buffer the pool recycles; larger ones are allocated each time. */
#define MRC_TXPOOL_MAX_OBJ	(64U << 10)
/* Most idle bytes the pool keeps, all classes together. */
#define MRC_TXPOOL_MAX_BYTES	(4U << 20)

void *mrc_txpool_get(size_t bytes);
void mrc_txpool_put(void *p, size_t bytes);
long mrc_txpool_idle_bytes(void);
int mrc_txpool_init(void);
void mrc_txpool_exit(void);

#endif /* _MRC_TXPOOL_H */
