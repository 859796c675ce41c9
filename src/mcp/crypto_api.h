#pragma once
// The few libcrypto (OpenSSL 3) functions the sign-in signs its client assertions with
// (oauth_key.h), through one table, as jsonrpc/curl_api.h does for libcurl. With
// TOOLHOST_CRYPTO_DLOPEN (every build but a fully static one) libcrypto is loaded by dlopen() the
// first time a private key is read: a host that never signs in with one never maps it, and the
// binary names no libcrypto among its NEEDED libraries. Elsewhere the table holds the linked
// functions. The headers come from OpenSSL's dev package (Debian: libssl-dev).

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <string>
#include <vector>

namespace toolhost::mcp {

struct CryptoApi {
  BIO* (*bio_new_mem_buf)(const void* buf, int len);
  int (*bio_free)(BIO* bio);
  EVP_PKEY* (*pem_read_bio_private_key)(BIO* bio, EVP_PKEY** out, pem_password_cb* cb, void* data);
  void (*pkey_free)(EVP_PKEY* key);
  int (*pkey_get_base_id)(const EVP_PKEY* key);
  int (*pkey_get_bits)(const EVP_PKEY* key);
  int (*pkey_get_group_name)(const EVP_PKEY* key, char* name, size_t size, size_t* length);
  EVP_MD_CTX* (*md_ctx_new)();
  void (*md_ctx_free)(EVP_MD_CTX* ctx);
  const EVP_MD* (*sha256)();
  int (*digest_sign_init)(EVP_MD_CTX* ctx, EVP_PKEY_CTX** pctx, const EVP_MD* type, ENGINE* engine,
                          EVP_PKEY* key);
  int (*digest_sign)(EVP_MD_CTX* ctx, unsigned char* signature, size_t* length,
                     const unsigned char* data, size_t size);
  // libcrypto keeps a failure's reasons in a per-thread queue that libcurl (the same libcrypto,
  // on the same sign-in thread) reads after its own calls: every failure here empties it.
  void (*err_clear_error)();
};

// Loads libcrypto (once); false with the reason when it cannot (none found, or one that lacks
// a function: an OpenSSL before 3.0).
bool load_crypto(std::string& error);
// The table; only after load_crypto() succeeded.
const CryptoApi& crypto();

#ifdef TOOLHOST_CRYPTO_DLOPEN
// The first library of `names` that dlopen() finds, its functions into `table`; the problem in
// words, or "". load_crypto()'s way, open to the tests.
std::string open_crypto_library(const std::vector<std::string>& names, CryptoApi& table);
#endif

}  // namespace toolhost::mcp
