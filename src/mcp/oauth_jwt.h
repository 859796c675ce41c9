#pragma once
// The client assertion of OAuth's private_key_jwt client authentication (RFC 7523 2.2, MCP's
// SEP-1046): a JWT the client signs with its private key, sent to the token endpoint instead of
// a secret. Its header, claims and compact form, and JOSE's ECDSA signature form; the signing
// itself is a function given in (oauth_key.h signs with libcrypto). Pure.

#include <cstdint>
#include <functional>
#include <string>

namespace toolhost::mcp {

// What the assertion says: iss and sub are the client, aud the authorization server.
struct AssertionClaims {
  std::string client_id;     // iss and sub
  std::string audience;      // aud: the authorization server's issuer
  std::string jwt_id;        // jti: unique per assertion (servers refuse a replayed one)
  int64_t issued_at = 0;     // iat, Unix seconds
  int64_t lifetime_s = 300;  // exp = iat + this: short, the request follows at once
};

// The form field naming the assertion's type (RFC 7523 2.2).
inline constexpr const char* kJwtBearerAssertionType =
    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

// BASE64URL(header) "." BASE64URL(claims): what the key signs. The header is
// {"alg": algorithm, "typ": "JWT"}.
std::string jwt_signing_input(const std::string& algorithm, const AssertionClaims& claims);

// Signs `input` with the algorithm the signer was made for: the JWS signature's bytes, or ""
// with `error` set.
using JwtSigner = std::function<std::string(const std::string& input, std::string& error)>;

// The compact JWT (signing input "." BASE64URL(signature)), or "" with `error` set.
std::string signed_client_assertion(const std::string& algorithm, const AssertionClaims& claims,
                                    const JwtSigner& sign, std::string& error);

// An ECDSA signature as libcrypto writes it (DER: SEQUENCE { INTEGER r, INTEGER s }) in JOSE's
// form (RFC 7518 3.4): r and s big-endian, each left-padded to `size` bytes (32 for ES256), one
// after the other. "" when `der` is not such a sequence or a number does not fit `size`.
std::string ecdsa_der_to_jose(const std::string& der, size_t size);

}  // namespace toolhost::mcp
