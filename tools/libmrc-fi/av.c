// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: the address vector.  An address is a struct mrcfi_addr (mrc
 * node id and port).  FI_AV_TABLE hands out slot indexes; FI_AV_MAP hands
 * out the address itself, encoded as (node << 16) | port.  Both keep the
 * table, which FI_SOURCE searches for a received message's sender.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrc_fi.h"

#define MRCFI_NODE_MAX	0x7fffffffu	/* mrc node ids: 1..2^31-1 */

static fi_addr_t mrcfi_map_addr(const struct mrcfi_addr *a)
{
	return ((fi_addr_t)a->node << 16) | a->port;
}

static bool mrcfi_addr_valid(const struct mrcfi_addr *a)
{
	return a->node >= 1 && a->node <= MRCFI_NODE_MAX && a->port &&
	       !a->pad;
}

/**
 * mrcfi_av_resolve() - the mrc address behind an fi_addr_t
 * @av: the endpoint's address vector
 * @fi_addr: what fi_av_insert returned
 * @out: the node and port
 *
 * Call with the domain lock held.
 *
 * Return: 0, or -FI_EINVAL for an address the AV does not hold.
 */
int mrcfi_av_resolve(struct mrcfi_av *av, fi_addr_t fi_addr,
		     struct mrcfi_addr *out)
{
	if (av->type == FI_AV_TABLE) {
		if (fi_addr >= av->n || !av->used[fi_addr])
			return -FI_EINVAL;
		*out = av->tab[fi_addr];
		return 0;
	}
	out->node = (uint32_t)(fi_addr >> 16);
	out->port = (uint16_t)fi_addr;
	out->pad = 0;
	if (fi_addr >> 47 || !mrcfi_addr_valid(out))
		return -FI_EINVAL;
	return 0;
}

/**
 * mrcfi_av_reverse() - the fi_addr_t of a sender (FI_SOURCE)
 * @av: the endpoint's address vector
 * @node: the sender's node id
 * @port: and port
 *
 * Call with the domain lock held.  A linear search: fine for the tens
 * of peers of this fabric (a hash is on the list for MPI scale).
 *
 * Return: its fi_addr_t, or FI_ADDR_NOTAVAIL if it was never inserted.
 */
fi_addr_t mrcfi_av_reverse(struct mrcfi_av *av, uint32_t node, uint16_t port)
{
	size_t i;

	for (i = 0; i < av->n; i++) {
		if (!av->used[i] || av->tab[i].node != node ||
		    av->tab[i].port != port)
			continue;
		return av->type == FI_AV_TABLE ? i : mrcfi_map_addr(&av->tab[i]);
	}
	return FI_ADDR_NOTAVAIL;
}

static int mrcfi_av_grow(struct mrcfi_av *av, size_t need)
{
	size_t cap = av->cap ? av->cap : 16;
	struct mrcfi_addr *tab;
	bool *used;

	while (cap < need)
		cap *= 2;
	if (cap == av->cap)
		return 0;
	tab = realloc(av->tab, cap * sizeof(*tab));
	if (!tab)
		return -FI_ENOMEM;
	av->tab = tab;
	used = realloc(av->used, cap * sizeof(*used));
	if (!used)
		return -FI_ENOMEM;
	memset(used + av->cap, 0, (cap - av->cap) * sizeof(*used));
	av->used = used;
	av->cap = cap;
	return 0;
}

static int mrcfi_av_insert(struct fid_av *fid, const void *addr, size_t count,
			   fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct mrcfi_av *av = mrcfi_container_of(fid, struct mrcfi_av, av);
	const struct mrcfi_addr *a = addr;
	int *errs = (flags & FI_SYNC_ERR) ? context : NULL;
	size_t i, slot;
	int ret, done = 0;

	if (flags & ~(FI_MORE | FI_SYNC_ERR))
		return -FI_EBADFLAGS;
	if (count && !addr)
		return -FI_EINVAL;
	pthread_mutex_lock(&av->dom->lock);
	ret = mrcfi_av_grow(av, av->n + count);
	if (ret) {
		pthread_mutex_unlock(&av->dom->lock);
		return ret;
	}
	for (i = 0; i < count; i++) {
		if (!mrcfi_addr_valid(&a[i])) {
			if (fi_addr)
				fi_addr[i] = FI_ADDR_NOTAVAIL;
			if (errs)
				errs[i] = FI_EINVAL;
			continue;
		}
		slot = av->n++;
		av->tab[slot] = a[i];
		av->used[slot] = true;
		if (fi_addr)
			fi_addr[i] = av->type == FI_AV_TABLE ?
				     slot : mrcfi_map_addr(&a[i]);
		if (errs)
			errs[i] = 0;
		done++;
	}
	pthread_mutex_unlock(&av->dom->lock);
	return done;
}

static int mrcfi_av_insertsvc(struct fid_av *fid, const char *node,
			      const char *service, fi_addr_t *fi_addr,
			      uint64_t flags, void *context)
{
	struct mrcfi_addr a = { 0 };
	unsigned long n, p;
	char *end;

	if (!node || !service)
		return -FI_EINVAL;
	n = strtoul(node, &end, 0);
	if (*end || !*node)
		return -FI_EINVAL;
	p = strtoul(service, &end, 0);
	if (*end || !*service || n > MRCFI_NODE_MAX || p > 65535)
		return -FI_EINVAL;
	a.node = (uint32_t)n;
	a.port = (uint16_t)p;
	return mrcfi_av_insert(fid, &a, 1, fi_addr, flags, context);
}

static int mrcfi_av_remove(struct fid_av *fid, fi_addr_t *fi_addr,
			   size_t count, uint64_t flags)
{
	struct mrcfi_av *av = mrcfi_container_of(fid, struct mrcfi_av, av);
	struct mrcfi_addr a;
	size_t i, j;
	int ret = 0;

	(void)flags;
	pthread_mutex_lock(&av->dom->lock);
	for (i = 0; i < count; i++) {
		if (mrcfi_av_resolve(av, fi_addr[i], &a)) {
			ret = -FI_EINVAL;
			continue;
		}
		if (av->type == FI_AV_TABLE) {
			av->used[fi_addr[i]] = false;
			continue;
		}
		for (j = 0; j < av->n; j++)
			if (av->used[j] && av->tab[j].node == a.node &&
			    av->tab[j].port == a.port)
				av->used[j] = false;
	}
	pthread_mutex_unlock(&av->dom->lock);
	return ret;
}

static int mrcfi_av_lookup(struct fid_av *fid, fi_addr_t fi_addr, void *addr,
			   size_t *addrlen)
{
	struct mrcfi_av *av = mrcfi_container_of(fid, struct mrcfi_av, av);
	struct mrcfi_addr a;
	int ret;

	pthread_mutex_lock(&av->dom->lock);
	ret = mrcfi_av_resolve(av, fi_addr, &a);
	pthread_mutex_unlock(&av->dom->lock);
	if (ret)
		return -FI_ENOENT;
	memcpy(addr, &a, *addrlen < sizeof(a) ? *addrlen : sizeof(a));
	*addrlen = sizeof(a);
	return 0;
}

static const char *mrcfi_av_straddr(struct fid_av *fid, const void *addr,
				    char *buf, size_t *len)
{
	const struct mrcfi_addr *a = addr;
	char s[64];
	int n;

	(void)fid;
	n = snprintf(s, sizeof(s), "mrc://%u:%u", a->node, a->port);
	if (*len) {
		strncpy(buf, s, *len - 1);
		buf[*len - 1] = '\0';
	}
	*len = (size_t)n + 1;
	return buf;
}

static int mrcfi_av_close(struct fid *fid)
{
	struct mrcfi_av *av = mrcfi_container_of(fid, struct mrcfi_av, av.fid);

	if (av->refs)
		return -FI_EBUSY;
	pthread_mutex_lock(&av->dom->lock);
	av->dom->refs--;
	pthread_mutex_unlock(&av->dom->lock);
	free(av->tab);
	free(av->used);
	free(av);
	return 0;
}

static struct fi_ops mrcfi_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_av_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_no_control,
	.ops_open = mrcfi_no_ops_open,
};

static struct fi_ops_av mrcfi_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = mrcfi_av_insert,
	.insertsvc = mrcfi_av_insertsvc,
	.remove = mrcfi_av_remove,
	.lookup = mrcfi_av_lookup,
	.straddr = mrcfi_av_straddr,
};

/**
 * mrcfi_av_open() - the domain's fi_av_open
 * @domain: the mrc domain
 * @attr: FI_AV_MAP, FI_AV_TABLE or FI_AV_UNSPEC (a map); no named or
 *        shared AVs, no event queue
 * @av: the new address vector
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		  struct fid_av **av, void *context)
{
	struct mrcfi_domain *dom =
		mrcfi_container_of(domain, struct mrcfi_domain, domain);
	struct mrcfi_av *a;
	int ret;

	if (attr->name || (attr->flags & (FI_EVENT | FI_READ | FI_SYMMETRIC)))
		return -FI_ENOSYS;
	if (attr->type != FI_AV_UNSPEC && attr->type != FI_AV_MAP &&
	    attr->type != FI_AV_TABLE)
		return -FI_EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -FI_ENOMEM;
	a->dom = dom;
	a->type = attr->type == FI_AV_TABLE ? FI_AV_TABLE : FI_AV_MAP;
	attr->type = a->type;
	ret = mrcfi_av_grow(a, attr->count);
	if (ret) {
		free(a->tab);
		free(a->used);
		free(a);
		return ret;
	}
	a->av.fid.fclass = FI_CLASS_AV;
	a->av.fid.context = context;
	a->av.fid.ops = &mrcfi_av_fi_ops;
	a->av.ops = &mrcfi_av_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*av = &a->av;
	return 0;
}
