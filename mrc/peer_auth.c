// SPDX-License-Identifier: GPL-2.0
/*
 * peer_auth.c - the operator's per-peer keys and the MAC of the SIDR
 * handshake (wire version 4).
 *
 * Design notes
 *
 * A key is given at peer add (netlink MRC_PEER_A_KEY, `mrcctl peer add
 * ... key FILE`) and kept only inside an hmac(sha256) transform of the
 * kernel crypto API, keyed once: the key bytes are not stored anywhere
 * else, so nothing can show them (PEER_GET says only whether a key is
 * set, MRC_PEER_A_KEYED).  The transform is set before the peer is
 * published and freed when it is destroyed; crypto_shash_tfm_digest()
 * on a keyed transform is safe from several contexts at once, so the
 * SIDR handlers use it without a lock.
 *
 * The cluster's default key (netlink KEY_SET, `mrcctl key set FILE`) is
 * for the peers added without a key of their own: each takes the one set
 * when it is added, keyed into its own transform, so changing or clearing
 * the default later changes no peer.  It is the one place key bytes are
 * kept (they must key transforms later), zeroed when replaced and at
 * unload, and never shown (KEY_GET says only whether one is set).
 *
 * The MAC of a SIDR request or reply is HMAC-SHA256 under the key over
 * the first MRC_CM_MAC_OFF (120) bytes of struct mrc_wire_cm, truncated
 * to its first MRC_CM_MAC_LEN (16) bytes to fit the 136 bytes of a SIDR
 * reply; it covers every field, the flags (request or reply) and the
 * reserved bytes too.  It is checked with crypto_memneq(), in time that
 * does not depend on where the bytes differ.  What the handshake does
 * with a verdict, and its freshness rules: peer_cm.c and
 * core/handshake.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <crypto/hash.h>
#include <crypto/sha2.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "mrc.h"
#include "peer.h"
#include "core/handshake.h"
#include "peer_int.h"

/* The cluster's default key: its bytes and length (0: none). */
static DEFINE_MUTEX(mrc_key_dflt_lock);
static u8 mrc_key_dflt[MRC_KEY_MAX_LEN];	/* under mrc_key_dflt_lock */
static unsigned int mrc_key_dflt_len;		/* under mrc_key_dflt_lock */

/**
 * mrc_key_default_set() - set or clear the cluster's default key
 * @key: the key, or NULL to clear it
 * @len: its length, MRC_KEY_MIN_LEN..MRC_KEY_MAX_LEN
 * @extack: for the reason of a refusal (may be NULL)
 *
 * Context: process.
 *
 * Return: 0 or -EINVAL (with a message in @extack).
 */
int mrc_key_default_set(const void *key, unsigned int len,
			struct netlink_ext_ack *extack)
{
	if (key && (len < MRC_KEY_MIN_LEN || len > MRC_KEY_MAX_LEN)) {
		NL_SET_ERR_MSG(extack, "key must be 16 to 64 bytes");
		return -EINVAL;
	}
	mutex_lock(&mrc_key_dflt_lock);
	memzero_explicit(mrc_key_dflt, sizeof(mrc_key_dflt));
	mrc_key_dflt_len = key ? len : 0;
	if (key)
		memcpy(mrc_key_dflt, key, len);
	mutex_unlock(&mrc_key_dflt_lock);
	return 0;
}

/**
 * mrc_key_default_isset() - is a default key set?
 *
 * Return: true if so.
 */
bool mrc_key_default_isset(void)
{
	bool set;

	mutex_lock(&mrc_key_dflt_lock);
	set = mrc_key_dflt_len;
	mutex_unlock(&mrc_key_dflt_lock);
	return set;
}

/**
 * mrc_peer_key_default() - key a new peer with the default key, if any
 * @peer: the peer, not published yet, added without a key of its own
 * @extack: for the reason of a refusal
 *
 * Context: process (allocates).
 *
 * Return: 0 (also when there is no default key) or -errno (@extack).
 */
int mrc_peer_key_default(struct mrc_peer *peer,
			 struct netlink_ext_ack *extack)
{
	u8 key[MRC_KEY_MAX_LEN];
	unsigned int len;
	int err = 0;

	mutex_lock(&mrc_key_dflt_lock);
	len = mrc_key_dflt_len;
	memcpy(key, mrc_key_dflt, len);
	mutex_unlock(&mrc_key_dflt_lock);
	if (len)
		err = mrc_peer_key_set(peer, key, len, extack);
	memzero_explicit(key, sizeof(key));
	return err;
}

/**
 * mrc_peer_key_set() - key a new peer's handshake
 * @peer: the peer, not published yet
 * @key: the key
 * @len: its length, MRC_KEY_MIN_LEN..MRC_KEY_MAX_LEN
 * @extack: for the reason of a refusal
 *
 * Context: process (allocates).
 *
 * Return: 0 or -errno (with a message in @extack).
 */
int mrc_peer_key_set(struct mrc_peer *peer, const void *key,
		     unsigned int len, struct netlink_ext_ack *extack)
{
	struct crypto_shash *tfm;
	int err;

	if (len < MRC_KEY_MIN_LEN || len > MRC_KEY_MAX_LEN) {
		NL_SET_ERR_MSG(extack, "key must be 16 to 64 bytes");
		return -EINVAL;
	}
	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm)) {
		NL_SET_ERR_MSG(extack, "hmac(sha256) is not available");
		return PTR_ERR(tfm);
	}
	err = crypto_shash_setkey(tfm, key, len);
	if (err) {
		crypto_free_shash(tfm);
		NL_SET_ERR_MSG(extack, "the key was refused by hmac(sha256)");
		return err;
	}
	peer->key = tfm;
	return 0;
}

/**
 * mrc_peer_key_free() - forget a peer's key (destroy, or a failed add)
 * @peer: the peer, which nothing uses any more
 */
void mrc_peer_key_free(struct mrc_peer *peer)
{
	if (peer->key)
		crypto_free_shash(peer->key);
	peer->key = NULL;
}

/* The full HMAC of the bytes of @cm that the MAC covers. */
static int mrc_cm_hmac(struct crypto_shash *key, const u8 *cm,
		       u8 out[SHA256_DIGEST_SIZE])
{
	return crypto_shash_tfm_digest(key, cm, MRC_CM_MAC_OFF, out);
}

/**
 * mrc_cm_sign() - write the MAC of a SIDR request or reply
 * @key: the peer's key
 * @cm: the private data, every field but mac written
 *
 * Return: 0 or -errno (then the message must not be sent).
 */
int mrc_cm_sign(struct crypto_shash *key, u8 *cm)
{
	u8 d[SHA256_DIGEST_SIZE];
	int err = mrc_cm_hmac(key, cm, d);

	if (!err)
		memcpy(cm + MRC_CM_MAC_OFF, d, MRC_CM_MAC_LEN);
	memzero_explicit(d, sizeof(d));
	return err;
}

/**
 * mrc_cm_mac_ok() - does a received SIDR request or reply carry our MAC?
 * @key: the peer's key
 * @cm: the private data, at least sizeof(struct mrc_wire_cm) bytes
 *
 * Return: true only if the MAC is the one @key gives (a failure of the
 * transform is a mismatch).
 */
bool mrc_cm_mac_ok(struct crypto_shash *key, const u8 *cm)
{
	u8 d[SHA256_DIGEST_SIZE];
	bool ok;

	ok = !mrc_cm_hmac(key, cm, d) &&
	     !crypto_memneq(d, cm + MRC_CM_MAC_OFF, MRC_CM_MAC_LEN);
	memzero_explicit(d, sizeof(d));
	return ok;
}
