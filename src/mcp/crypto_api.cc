#include "mcp/crypto_api.h"

#include <openssl/err.h>

#include <mutex>

#ifdef TOOLHOST_CRYPTO_DLOPEN
#include "base/dl_symbol.h"
#endif

namespace toolhost::mcp {
namespace {

CryptoApi crypto_table{};

std::string crypto_open_library() {
#ifdef TOOLHOST_CRYPTO_DLOPEN
  return open_crypto_library(
      {"libcrypto.so.3", "libcrypto.so", "libcrypto.3.dylib", "libcrypto.dylib"}, crypto_table);
#else
  crypto_table = CryptoApi{
      &BIO_new_mem_buf,      &BIO_free,          &PEM_read_bio_PrivateKey, &EVP_PKEY_free,
      &EVP_PKEY_get_base_id, &EVP_PKEY_get_bits, &EVP_PKEY_get_group_name, &EVP_MD_CTX_new,
      &EVP_MD_CTX_free,      &EVP_sha256,        &EVP_DigestSignInit,      &EVP_DigestSign,
      &ERR_clear_error};
  return "";
#endif
}

std::once_flag crypto_loaded;
std::string crypto_load_error;

}  // namespace

#ifdef TOOLHOST_CRYPTO_DLOPEN
std::string open_crypto_library(const std::vector<std::string>& names, CryptoApi& out) {
  std::string why;
  void* library = base::dl_open_first(names, why);
  if (!library) {
    return "cannot load libcrypto (" + why +
           "), which signs the private_key_jwt assertion; install OpenSSL 3 (Debian: libssl3)";
  }
  std::string missing;
  base::dl_symbol(library, "BIO_new_mem_buf", out.bio_new_mem_buf, missing);
  base::dl_symbol(library, "BIO_free", out.bio_free, missing);
  base::dl_symbol(library, "PEM_read_bio_PrivateKey", out.pem_read_bio_private_key, missing);
  base::dl_symbol(library, "EVP_PKEY_free", out.pkey_free, missing);
  base::dl_symbol(library, "EVP_PKEY_get_base_id", out.pkey_get_base_id, missing);
  base::dl_symbol(library, "EVP_PKEY_get_bits", out.pkey_get_bits, missing);
  base::dl_symbol(library, "EVP_PKEY_get_group_name", out.pkey_get_group_name, missing);
  base::dl_symbol(library, "EVP_MD_CTX_new", out.md_ctx_new, missing);
  base::dl_symbol(library, "EVP_MD_CTX_free", out.md_ctx_free, missing);
  base::dl_symbol(library, "EVP_sha256", out.sha256, missing);
  base::dl_symbol(library, "EVP_DigestSignInit", out.digest_sign_init, missing);
  base::dl_symbol(library, "EVP_DigestSign", out.digest_sign, missing);
  base::dl_symbol(library, "ERR_clear_error", out.err_clear_error, missing);
  if (!missing.empty()) {
    dlclose(library);
    return "the libcrypto found lacks " + missing + " (toolhost needs OpenSSL 3)";
  }
  return "";
}
#endif

bool load_crypto(std::string& error) {
  std::call_once(crypto_loaded, [] { crypto_load_error = crypto_open_library(); });
  error = crypto_load_error;
  return crypto_load_error.empty();
}

const CryptoApi& crypto() {
  return crypto_table;
}

}  // namespace toolhost::mcp
