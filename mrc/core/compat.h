/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the one header through which mrc's protocol-logic files see
 * their environment.  Files that include only this header (and uapi) build
 * both into mrc.ko and into user-space unit tests and fuzzers.
 */
#ifndef _MRC_COMPAT_H
#define _MRC_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/limits.h>
#include <asm/byteorder.h>
#else
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <endian.h>
#include <linux/types.h>	/* __be16, __be32, __be64 */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#ifndef U32_MAX
#define U32_MAX		UINT32_MAX
#endif
#ifndef U64_MAX
#define U64_MAX		UINT64_MAX
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define __packed	__attribute__((packed))

#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	be16toh((uint16_t)(x))
#define be32_to_cpu(x)	be32toh((uint32_t)(x))
#define be64_to_cpu(x)	be64toh((uint64_t)(x))
#endif /* __KERNEL__ */

#endif /* _MRC_COMPAT_H */
