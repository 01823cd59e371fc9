/* Ed25519 signatures of evidence bundles, through OpenSSL's EVP API.
 *
 * What a signature adds: every file of a bundle is hashed in manifest.json
 * and every verdict is re-derived by the audit, but anyone can rewrite
 * outputs and recompute every hash, and the environment a bundle states
 * (git commit, tool versions, timing.json) re-derives from nothing. A
 * signature says that the holder of a private key vouches for exactly
 * these bytes; checked against a public key the reviewer trusts (`tolproof
 * audit --key PUB`), it says who produced the bundle.
 *
 * signature.json (written last, so manifest.json does not list it):
 *   {"format": "tolproof bundle signature 1", "algorithm": "Ed25519",
 *    "public_key": 64 hex digits (the raw 32-byte key),
 *    "public_key_sha256": SHA-256 of those 32 bytes, the key's fingerprint,
 *    "message": the signed text, "signature": 128 hex digits}
 * The message is
 *   "tolproof bundle signature 1\nmanifest.json SHA256\ntiming.json SHA256\n"
 * with the SHA-256 of the two files: manifest.json covers every other file
 * through its hashes. It is stored so that anyone can check it with
 * OpenSSL alone (`openssl pkeyutl -verify -pubin -inkey PUB -rawin -in
 * MESSAGE -sigfile SIG`). */
#ifndef TP_SIGN_H
#define TP_SIGN_H
#include <openssl/evp.h>
#include <stddef.h>

/* An Ed25519 private key from a PEM file (unencrypted PKCS#8, as
 * `openssl genpkey -algorithm ed25519` writes it). NULL with err set. */
EVP_PKEY *tp_sign_load_private(const char *path, char *err, size_t errlen);
/* An Ed25519 public key from a PEM file (`openssl pkey -pubout`). */
EVP_PKEY *tp_sign_load_public(const char *path, char *err, size_t errlen);

/* "SHA256:" and the first 16 hex digits of the key's fingerprint. */
void tp_sign_fingerprint(EVP_PKEY *key, char out[32]);

/* Signs bundle directory dir (its manifest.json and timing.json) and
 * writes dir/signature.json. 0, or -1 with err set. */
int tp_sign_bundle(const char *dir, EVP_PKEY *key, char *err, size_t errlen);

/* Checks dir/signature.json: 0 a valid signature of the bundle's
 * manifest.json and timing.json by `trusted` (or, when trusted is NULL,
 * by the public key the file names); 1 no signature.json; 2 a signature
 * that does not verify, by another key than `trusted`, or a file that is
 * not a signature.json. signer receives the fingerprint of the key the
 * file names (when it names one), err what was found. */
int tp_sign_verify(const char *dir, EVP_PKEY *trusted, char signer[32], char *err, size_t errlen);
#endif
