#pragma once
// What a sign-in leaves for the next one, per server: the client registration and the tokens,
// in {state_dir}/mcp-oauth/NAME.json, mode 0600 in a 0700 directory, replaced whole by a
// rename (a reader never sees half a file). Nothing here is ever logged. A record made for
// another URL or authorization server than the server's present one is not used.

#include <cstdint>
#include <optional>
#include <string>

#include "core/config.h"

namespace toolhost::mcp {

struct OAuthRecord {
  std::string server_url;  // the server it was made for
  std::string issuer;      // the authorization server that issued both
  // The client: registered (dynamic registration), a metadata document's URL, or configured.
  std::string client_id;
  std::string client_secret;
  std::string client_auth_method;  // client_secret_basic, client_secret_post, none
  std::string access_token;
  std::string refresh_token;
  std::string scope;        // what was granted (or asked for, when the answer said nothing)
  int64_t expires_at = 0;   // Unix seconds; 0: unknown
};

// The file's path for `server` (its name made safe for a file name).
std::string oauth_record_path(const std::string& state_dir, const std::string& server);
// The records' directory, {state_dir}/mcp-oauth: no sandboxed command may read it (the host
// and the CLI pass it as core::SandboxConfig::hidden).
std::string oauth_record_dir(const std::string& state_dir);
// Keeps the records from every sandboxed command `config` starts: their directory, made first
// (0700) when absent, goes into config.sandbox.hidden (the sandbox then hides it by path, and
// covers the directory it finds there at each spawn; made before, a sign-in's records never
// land in a directory the sandbox has not seen). An empty state dir hides nothing. False and
// `error` when the directory cannot be made; it is hidden all the same.
bool hide_oauth_records(core::Config& config, const std::string& state_dir, std::string& error);
// Nothing (and no error) when there is no record; nothing with `error` when it is unreadable.
std::optional<OAuthRecord> load_oauth_record(const std::string& state_dir,
                                             const std::string& server, std::string& error);
bool save_oauth_record(const std::string& state_dir, const std::string& server,
                       const OAuthRecord& record, std::string& error);
// True when there was one.
bool remove_oauth_record(const std::string& state_dir, const std::string& server,
                         std::string& error);

}  // namespace toolhost::mcp
