#include "mcp/oauth_key.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "mcp/crypto_api.h"
#include "mcp/oauth_jwt.h"
#include "mcp/oauth_pkce.h"

namespace toolhost::mcp {
namespace {

constexpr size_t kMaxKeyText = 64 * 1024;  // a PEM RSA key of 16384 bits is under 13 KiB

// libcrypto's default asks for a passphrase on the terminal, which a host has none of: an
// encrypted key is refused instead.
int key_no_passphrase(char*, int, int, void*) {
  return -1;
}

// Which setting holds the key, for messages.
std::string key_setting(const OAuthConfig& config) {
  return config.private_key.empty() ? "oauth.private_key_file (" + config.private_key_file + ")"
                                    : "oauth.private_key";
}

}  // namespace

std::unique_ptr<OAuthKey> OAuthKey::from_pem(const std::string& pem, const std::string& algorithm,
                                             std::string& error) {
  if (!algorithm.empty() && algorithm != "ES256" && algorithm != "RS256") {
    error = "cannot sign with " + algorithm + " (toolhost signs with ES256, RS256)";
    return nullptr;
  }
  if (pem.find("ENCRYPTED") != std::string::npos) {
    error =
        "is an encrypted key, and toolhost asks for no passphrase: keep it decrypted in a file "
        "only you can read (openssl pkey -in KEY -out PLAIN)";
    return nullptr;
  }
  if (!load_crypto(error)) return nullptr;
  const CryptoApi& api = crypto();
  BIO* bio = pem.size() <= kMaxKeyText
                 ? api.bio_new_mem_buf(pem.data(), static_cast<int>(pem.size()))
                 : nullptr;
  EVP_PKEY* key =
      bio ? api.pem_read_bio_private_key(bio, nullptr, key_no_passphrase, nullptr) : nullptr;
  if (bio) api.bio_free(bio);
  if (!key) {
    api.err_clear_error();
    error =
        "is not a PEM private key (\"-----BEGIN PRIVATE KEY-----\", or OpenSSL's EC or RSA "
        "form)";
    return nullptr;
  }
  auto owned = std::make_unique<OAuthKey>(Owned{}, key);
  int type = api.pkey_get_base_id(key);
  if (type == EVP_PKEY_EC) {
    char group[64] = {0};
    size_t length = 0;
    if (api.pkey_get_group_name(key, group, sizeof group, &length) != 1) group[0] = '\0';
    api.err_clear_error();
    std::string curve = group;
    if (curve != "prime256v1" && curve != "P-256" && curve != "secp256r1") {
      error = "is an EC key on " + (curve.empty() ? std::string("an unnamed curve") : curve) +
              "; ES256 needs one on P-256 (prime256v1)";
      return nullptr;
    }
    owned->algorithm_ = "ES256";
  } else if (type == EVP_PKEY_RSA) {
    int bits = api.pkey_get_bits(key);
    if (bits < 2048) {
      error = "is a " + std::to_string(bits) + "-bit RSA key; RS256 needs 2048 bits or more";
      return nullptr;
    }
    owned->algorithm_ = "RS256";
  } else {
    error = "is neither an EC P-256 key (ES256) nor an RSA key (RS256)";
    return nullptr;
  }
  if (!algorithm.empty() && algorithm != owned->algorithm_) {
    error = "is an " + std::string(type == EVP_PKEY_EC ? "EC" : "RSA") + " key, which signs " +
            owned->algorithm_ + ", not oauth.algorithm's " + algorithm;
    return nullptr;
  }
  return owned;
}

OAuthKey::~OAuthKey() {
  crypto().pkey_free(key_);
}

std::string OAuthKey::sign(const std::string& input, std::string& error) const {
  const CryptoApi& api = crypto();
  EVP_MD_CTX* context = api.md_ctx_new();
  std::string signature;
  size_t length = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  if (context && api.digest_sign_init(context, nullptr, api.sha256(), nullptr, key_) == 1 &&
      api.digest_sign(context, nullptr, &length, data, input.size()) == 1) {
    signature.resize(length);
    auto* out = reinterpret_cast<unsigned char*>(&signature[0]);
    if (api.digest_sign(context, out, &length, data, input.size()) == 1) {
      signature.resize(length);
    } else {
      signature.clear();
    }
  }
  if (context) api.md_ctx_free(context);
  if (signature.empty()) {
    api.err_clear_error();
    error = "libcrypto could not sign with the key";
    return "";
  }
  if (algorithm_ == "ES256") {
    signature = ecdsa_der_to_jose(signature, 32);
    if (signature.empty()) error = "libcrypto's ECDSA signature is not the DER sequence expected";
  }
  return signature;
}

std::string oauth_private_key_text(const OAuthConfig& config, std::string& error) {
  if (!config.private_key.empty()) return config.private_key;
  const std::string& path = config.private_key_file;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = "oauth.private_key_file: cannot read " + path + ": " + std::strerror(errno);
    return "";
  }
  std::string text;
  char buffer[4096];
  ssize_t got = 0;
  while (text.size() <= kMaxKeyText && (got = read(fd, buffer, sizeof buffer)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      error = "oauth.private_key_file: cannot read " + path + ": " + std::strerror(errno);
      close(fd);
      return "";
    }
    text.append(buffer, static_cast<size_t>(got));
  }
  close(fd);
  if (text.size() > kMaxKeyText) {
    error = "oauth.private_key_file: " + path + " is over 64 KiB: not a private key";
    return "";
  }
  return text;
}

std::string make_client_assertion(const OAuthConfig& config, const std::string& client_id,
                                  const std::string& audience,
                                  const std::vector<std::string>& algorithms, std::string& error) {
  error.clear();
  std::string pem = oauth_private_key_text(config, error);
  if (pem.empty()) {
    if (error.empty()) error = key_setting(config) + " is empty";
    return "";
  }
  if (!load_crypto(error)) return "";
  std::string why;
  std::unique_ptr<OAuthKey> key = OAuthKey::from_pem(pem, config.algorithm, why);
  if (!key) {
    error = key_setting(config) + " " + why;
    return "";
  }
  if (!algorithms.empty() &&
      std::find(algorithms.begin(), algorithms.end(), key->algorithm()) == algorithms.end()) {
    std::string named;
    for (const std::string& algorithm : algorithms)
      named += (named.empty() ? "" : ", ") + algorithm;
    error = "the authorization server accepts client assertions signed with " + named +
            ", not with " + key->algorithm() + " (" + key_setting(config) + ")";
    return "";
  }
  AssertionClaims claims;
  claims.client_id = client_id;
  claims.audience = audience;
  claims.jwt_id = random_urlsafe(16);
  claims.issued_at = static_cast<int64_t>(std::time(nullptr));
  std::string assertion = signed_client_assertion(
      key->algorithm(), claims,
      [&key](const std::string& input, std::string& sign_error) {
        return key->sign(input, sign_error);
      },
      why);
  if (assertion.empty()) error = key_setting(config) + ": " + why;
  return assertion;
}

}  // namespace toolhost::mcp
