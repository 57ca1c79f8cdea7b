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
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/math64.h>
#include <linux/time64.h>
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

/*
 * The kernel helpers the message engine (msg_*.c) uses, with the kernel's
 * meaning.  User space is single-threaded per engine (the host serialises
 * calls as the kernel's locks do), so READ_ONCE and the atomics only need
 * to keep the compiler honest.
 */
#ifndef U8_MAX
#define U8_MAX		0xff
#endif
#ifndef U16_MAX
#define U16_MAX		0xffff
#endif
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
/* A broken invariant in user space is a crash: the fuzzers find it. */
#define WARN_ON_ONCE(c)	({ bool __w = !!(c); if (__w) __builtin_trap(); __w; })
#define WARN_ON(c)	WARN_ON_ONCE(c)

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * min(), max(), min3(), max3(), min_t(), max_t(), clamp(), clamp_t(),
 * clamp_val(): the kernel's include/linux/minmax.h (of Debian 12's 6.1
 * kernel), with its semantics.  Every argument is evaluated once.  min(),
 * max(), min3(), max3() and clamp() take arguments of one signedness (u32
 * with u64 is fine, int with u32 is a build error unless the int is a
 * non-negative constant); the _t variants convert every argument to the
 * type first and check nothing.  The signedness check needs the
 * optimiser (as in the kernel, which always builds with it): at -O0 it
 * is left out.
 */
#define __PASTE_(a, b)		a##b
#define __PASTE(a, b)		__PASTE_(a, b)
#define __UNIQUE_ID(prefix)	__PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)
#define is_signed_type(t)	((t)(-1) < (t)(1))
#define statically_true(x)	(__builtin_constant_p(x) && (x))
#ifdef __OPTIMIZE__
#define __minmax_error(id, msg) \
	__attribute__((__error__(msg), __noreturn__)) void id(void)
#define __minmax_assert(cond, msg, id) do {				\
	__minmax_error(id, msg);					\
	if (!(cond))							\
		id();							\
} while (0)
#else
#define __minmax_assert(cond, msg, id) do { } while (0)
#endif
#define __minmax_ok(cond, msg)	__minmax_assert(cond, msg, __UNIQUE_ID(__minmax_))
/*
 * The kernel builds without -Wsign-compare and -Wtype-limits (W=1 too);
 * user space has them on (-Wextra): off inside these macros, so that
 * min(u32, 5) and the signedness check itself build cleanly here as well.
 */
#define __minmax_diag_off					\
	_Pragma("GCC diagnostic push")				\
	_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")	\
	_Pragma("GCC diagnostic ignored \"-Wtype-limits\"")
#define __minmax_diag_on	_Pragma("GCC diagnostic pop")

#define __is_signed(ux)	is_signed_type(__typeof__(ux))
#define __sign_use(ux)	(__is_signed(ux) ?				\
	(2 + __is_nonneg(ux)) : (1 + 2 * (sizeof(ux) < 4)))
#define __is_nonneg(ux)	statically_true((long long)(ux) >= 0)
#define __types_ok(ux, uy)	(__sign_use(ux) & __sign_use(uy))
#define __types_ok3(ux, uy, uz)	\
	(__sign_use(ux) & __sign_use(uy) & __sign_use(uz))

#define __cmp_op_min <
#define __cmp_op_max >
#define __cmp(op, x, y)	((x) __cmp_op_##op(y) ? (x) : (y))
#define __cmp_once_unique(op, type, x, y, ux, uy) ({		\
	type ux = (x);							\
	type uy = (y);							\
	__minmax_diag_off						\
	__cmp(op, ux, uy); __minmax_diag_on })
#define __cmp_once(op, type, x, y) \
	__cmp_once_unique(op, type, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define __careful_cmp_once(op, x, y, ux, uy) ({				\
	__auto_type ux = (x);						\
	__auto_type uy = (y);						\
	__minmax_diag_off						\
	__minmax_ok(__types_ok(ux, uy), #op "(" #x ", " #y ") signedness error"); \
	__cmp(op, ux, uy); __minmax_diag_on })
#define __careful_cmp(op, x, y) \
	__careful_cmp_once(op, x, y, __UNIQUE_ID(x_), __UNIQUE_ID(y_))
#define min(x, y)	__careful_cmp(min, x, y)
#define max(x, y)	__careful_cmp(max, x, y)

#define __careful_op3(op, x, y, z, ux, uy, uz) ({			\
	__auto_type ux = (x);						\
	__auto_type uy = (y);						\
	__auto_type uz = (z);						\
	__minmax_diag_off						\
	__minmax_ok(__types_ok3(ux, uy, uz),				\
		    #op "3(" #x ", " #y ", " #z ") signedness error");	\
	__cmp(op, ux, __cmp(op, uy, uz)); __minmax_diag_on })
#define min3(x, y, z)	__careful_op3(min, x, y, z, __UNIQUE_ID(x_), \
				      __UNIQUE_ID(y_), __UNIQUE_ID(z_))
#define max3(x, y, z)	__careful_op3(max, x, y, z, __UNIQUE_ID(x_), \
				      __UNIQUE_ID(y_), __UNIQUE_ID(z_))
#define min_t(type, x, y)	__cmp_once(min, type, x, y)
#define max_t(type, x, y)	__cmp_once(max, type, x, y)

#define __clamp(val, lo, hi)	\
	((val) >= (hi) ? (hi) : ((val) <= (lo) ? (lo) : (val)))
#define __clamp_once(type, val, lo, hi, uval, ulo, uhi) ({		\
	type uval = (val);						\
	type ulo = (lo);						\
	type uhi = (hi);						\
	__minmax_diag_off						\
	__minmax_ok(!statically_true(ulo > uhi),			\
		    "clamp() low limit " #lo " greater than high limit " #hi); \
	__minmax_ok(__types_ok3(uval, ulo, uhi),			\
		    "clamp(" #val ", " #lo ", " #hi ") signedness error"); \
	__clamp(uval, ulo, uhi); __minmax_diag_on })
#define __careful_clamp(type, val, lo, hi) \
	__clamp_once(type, val, lo, hi, __UNIQUE_ID(v_), __UNIQUE_ID(l_), \
		     __UNIQUE_ID(h_))
#define clamp(val, lo, hi)	__careful_clamp(__auto_type, val, lo, hi)
#define clamp_t(type, val, lo, hi)	__careful_clamp(type, val, lo, hi)
#define clamp_val(val, lo, hi)	__careful_clamp(__typeof__(val), val, lo, hi)

static inline u64 div_u64(u64 a, u32 b)
{
	return a / b;
}

typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_add(s64 i, atomic64_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_sub(s64 i, atomic64_t *v)
{
	__atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED);
}

/* The kernel's doubly linked list (include/linux/list.h), the part used. */
struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

static inline void list_del(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	e->next = NULL;
	e->prev = NULL;
}

static inline void list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	list_add_tail(e, head);
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

static inline bool list_is_last(const struct list_head *e,
				const struct list_head *head)
{
	return e->next == head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

static inline void __list_splice(struct list_head *list,
				 struct list_head *prev, struct list_head *next)
{
	struct list_head *first = list->next, *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)
#define list_first_entry_or_null(ptr, type, member) \
	(list_empty(ptr) ? NULL : list_first_entry(ptr, type, member))
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member) \
	for (pos = list_first_entry(head, __typeof__(*pos), member); \
	     &pos->member != (head); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member) \
	for (pos = list_first_entry(head, __typeof__(*pos), member), \
	     n = list_next_entry(pos, member); &pos->member != (head); \
	     pos = n, n = list_next_entry(n, member))
#endif /* __KERNEL__ */

#endif /* _MRC_COMPAT_H */
