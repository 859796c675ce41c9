#pragma once
// Keys made with libcrypto for the private_key_jwt tests, their PEM text, and a JWS signature
// checked with libcrypto itself (not with toolhost's code under test).
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <string>
#include <vector>

namespace toolhost::testing {

struct TestKeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using TestKey = std::unique_ptr<EVP_PKEY, TestKeyFree>;

inline TestKey test_ec_key(const char* curve = "P-256") {
  return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve));
}
inline TestKey test_rsa_key(size_t bits) {
  return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", bits));
}
inline TestKey test_ed25519_key() {
  return TestKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
}

// PKCS#8 PEM; with a passphrase, encrypted (AES-256-CBC).
inline std::string test_key_pem(EVP_PKEY* key, const std::string& passphrase = "") {
  BIO* bio = BIO_new(BIO_s_mem());
  const EVP_CIPHER* cipher = passphrase.empty() ? nullptr : EVP_aes_256_cbc();
  char* pass = passphrase.empty() ? nullptr : const_cast<char*>(passphrase.c_str());
  PEM_write_bio_PKCS8PrivateKey(bio, key, cipher, pass, static_cast<int>(passphrase.size()),
                                nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

// OpenSSL's traditional form ("-----BEGIN EC PRIVATE KEY-----", "BEGIN RSA PRIVATE KEY").
inline std::string test_key_traditional_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey_traditional(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<size_t>(size));
  BIO_free(bio);
  return pem;
}

inline std::string test_base64url_decode(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    size_t index = kAlphabet.find(c);
    if (index == std::string::npos) return "<not base64url>";
    value = (value << 6) | static_cast<unsigned>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

// A JWS signature of `input` by `key`'s public half: ES256's r||s (turned into DER for
// libcrypto) or RS256's PKCS#1 v1.5.
inline bool test_signature_verifies(EVP_PKEY* key, const std::string& input,
                                    std::string signature) {
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC) {
    if (signature.size() != 64) return false;
    const auto* raw = reinterpret_cast<const unsigned char*>(signature.data());
    ECDSA_SIG* sig = ECDSA_SIG_new();
    ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, nullptr), BN_bin2bn(raw + 32, 32, nullptr));
    unsigned char* der = nullptr;
    int length = i2d_ECDSA_SIG(sig, &der);
    signature.assign(reinterpret_cast<char*>(der), static_cast<size_t>(length));
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
  }
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(context, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestVerify(context, reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()) == 1;
  EVP_MD_CTX_free(context);
  return ok;
}

// A compact JWT's three parts.
inline std::vector<std::string> test_jwt_parts(const std::string& jwt) {
  std::vector<std::string> parts;
  size_t at = 0;
  for (size_t dot; (dot = jwt.find('.', at)) != std::string::npos; at = dot + 1) {
    parts.push_back(jwt.substr(at, dot - at));
  }
  parts.push_back(jwt.substr(at));
  return parts;
}

}  // namespace toolhost::testing
