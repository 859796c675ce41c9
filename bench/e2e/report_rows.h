#pragma once
// What report.cc and report_mcp.cc share: a row of the table and the helpers that fill one.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace toolhost::bench {

struct Row {
  std::string figure, toolhost, lua, physical, ratio, target, met;
};

inline std::string fmt(double v, int digits = 2) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// A figure of `j` at `path` ("/p9/relayed/p50"), NaN where the run has none.
inline double num(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json::json_pointer p(path);
  return j.contains(p) && j.at(p).is_number() ? j.at(p).get<double>() : NAN;
}

inline std::string yes(bool ok) {
  return ok ? "yes" : "**no**";
}

// The rows of P8 (server-everything's echo from a chat) and P9 (agents through
// `toolhost mcp serve`), SPEC 13.6 as revised on 2026-12-02.
void p8_rows(const nlohmann::json& figures, std::vector<Row>& rows);
void p9_rows(const nlohmann::json& figures, std::vector<Row>& rows);
// P11 (a gcc log into the quickfix list), report_quickfix.cc.
void p11_rows(const nlohmann::json& figures, std::vector<Row>& rows);

}  // namespace toolhost::bench
