#pragma once
// The private key that signs the client's assertions (private_key_jwt, oauth_jwt.h), read from
// PEM with libcrypto (crypto_api.h, loaded the first time): ES256 with an EC P-256 key, RS256
// with an RSA key of 2048 bits or more. Nothing of the key appears in an error, a log or a
// record: only which setting holds it. Used on the sign-in's worker thread (oauth_flow.h).

#include <memory>
#include <string>
#include <vector>

#include "mcp/oauth_config.h"

struct evp_pkey_st;

namespace toolhost::mcp {

class OAuthKey {
  struct Owned {};  // private: only from_pem() makes one

 public:
  // `pem`'s private key (PKCS#8, or OpenSSL's traditional EC and RSA forms; not encrypted) for
  // `algorithm`, "ES256" or "RS256" ("": the key's own, ES256 for EC, RS256 for RSA). Null with
  // the reason when it is not such a key or libcrypto cannot be loaded.
  static std::unique_ptr<OAuthKey> from_pem(const std::string& pem, const std::string& algorithm,
                                            std::string& error);
  // `key` is this object's from then on, freed with it.
  OAuthKey(Owned, evp_pkey_st* key) : key_(key) {}
  ~OAuthKey();
  OAuthKey(const OAuthKey&) = delete;
  OAuthKey& operator=(const OAuthKey&) = delete;

  const std::string& algorithm() const { return algorithm_; }
  // The JWS signature of `input`: ES256's r||s (64 bytes), RS256's PKCS#1 v1.5 signature; ""
  // with `error` set.
  std::string sign(const std::string& input, std::string& error) const;

 private:
  evp_pkey_st* key_;
  std::string algorithm_;
};

// The configured key's PEM text: `oauth.private_key`, or the file `oauth.private_key_file`
// names (at most 64 KiB). "" with `error` set (naming the setting and the file, never the key).
std::string oauth_private_key_text(const OAuthConfig& config, std::string& error);

// A fresh client assertion (a new jti, issued now) for `client_id` to the authorization server
// `audience`, signed with the configured key. `algorithms`: the server's
// token_endpoint_auth_signing_alg_values_supported (empty: it names none, any will do).
// "" with `error` set.
std::string make_client_assertion(const OAuthConfig& config, const std::string& client_id,
                                  const std::string& audience,
                                  const std::vector<std::string>& algorithms, std::string& error);

}  // namespace toolhost::mcp
