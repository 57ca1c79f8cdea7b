/* SPDX-License-Identifier: GPL-2.0 */
/* chardev.h - /dev/mrc (chardev.c) registration. */
#ifndef _MRC_CHARDEV_H
#define _MRC_CHARDEV_H

int mrc_dev_init(void);
void mrc_dev_exit(void);

#endif /* _MRC_CHARDEV_H */
