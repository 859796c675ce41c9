#include "mcp/oauth_jwt.h"

#include <nlohmann/json.hpp>

#include "mcp/oauth_text.h"

namespace toolhost::mcp {
namespace {

// One DER element of `tag` at `at`: its contents' offset and length; false when malformed.
// Lengths in the short form or the long form of one or two bytes (an ECDSA signature's are
// under 140 bytes even for P-521).
bool der_element(const std::string& der, size_t& at, unsigned char tag, size_t& start,
                 size_t& length) {
  auto byte = [&](size_t i) { return static_cast<unsigned char>(der[i]); };
  if (at + 2 > der.size() || byte(at) != tag) return false;
  size_t i = at + 1;
  length = byte(i++);
  if (length & 0x80) {
    size_t count = length & 0x7f;
    if (count == 0 || count > 2 || i + count > der.size()) return false;
    length = 0;
    for (size_t k = 0; k < count; ++k) length = (length << 8) | byte(i++);
    if (length < 0x80) return false;  // DER: the short form when it fits
  }
  if (length > der.size() - i) return false;
  start = i;
  at = i + length;
  return true;
}

// An INTEGER's contents as an unsigned number of exactly `size` bytes; false when negative or
// too big.
bool der_unsigned(const std::string& der, size_t start, size_t length, size_t size,
                  std::string& out) {
  if (length == 0 || (static_cast<unsigned char>(der[start]) & 0x80)) return false;
  while (length > 0 && der[start] == '\0') {
    ++start;
    --length;
  }
  if (length > size) return false;
  out.append(size - length, '\0');
  out.append(der, start, length);
  return true;
}

}  // namespace

std::string jwt_signing_input(const std::string& algorithm, const AssertionClaims& claims) {
  // nlohmann's objects keep their keys sorted: the same claims make the same bytes.
  nlohmann::json header = {{"alg", algorithm}, {"typ", "JWT"}};
  nlohmann::json body = {{"aud", claims.audience},  {"exp", claims.issued_at + claims.lifetime_s},
                         {"iat", claims.issued_at}, {"iss", claims.client_id},
                         {"jti", claims.jwt_id},    {"sub", claims.client_id}};
  return base64url_encode(header.dump()) + "." + base64url_encode(body.dump());
}

std::string signed_client_assertion(const std::string& algorithm, const AssertionClaims& claims,
                                    const JwtSigner& sign, std::string& error) {
  std::string input = jwt_signing_input(algorithm, claims);
  std::string signature = sign(input, error);
  if (signature.empty()) {
    if (error.empty()) error = "the key made no signature";
    return "";
  }
  return input + "." + base64url_encode(signature);
}

std::string ecdsa_der_to_jose(const std::string& der, size_t size) {
  size_t at = 0, start = 0, length = 0;
  if (!der_element(der, at, 0x30, start, length) || at != der.size()) return "";
  size_t inner = start;
  size_t r_start = 0, r_length = 0, s_start = 0, s_length = 0;
  if (!der_element(der, inner, 0x02, r_start, r_length) ||
      !der_element(der, inner, 0x02, s_start, s_length) || inner != der.size()) {
    return "";
  }
  std::string out;
  if (!der_unsigned(der, r_start, r_length, size, out) ||
      !der_unsigned(der, s_start, s_length, size, out)) {
    return "";
  }
  return out;
}

}  // namespace toolhost::mcp
