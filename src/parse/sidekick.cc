#include "parse/sidekick.h"

#include <variant>

#include "parse/params.h"
#include "parse/results.h"
#include "parse/sidekick_block.h"
#include "parse/sidekick_header.h"
#include "parse/sidekick_replace.h"
#include "parse/sidekick_tool.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

// A header whose fence is missing: the reply may still be streaming it in when nothing but
// blank lines follows, else the block is an error, never silently nothing.
Found missing_body(const ReadContext& ctx, BlockStart at, const std::string& tool,
                   nlohmann::json params, const std::string& what) {
  bool rest_blank = true;
  for (int row = at.row + 1; row < ctx.end && rest_blank; ++row) {
    rest_blank = is_blank(ctx.line(row));
  }
  if (ctx.open_end && rest_blank) return unclosed(ctx, at, at.row, tool, std::move(params));
  return block_error(at, at.row + 1, at.row, what);
}

// `**Shell**`, `**Write:**`, `**Create:**`: a header and one fence.
Found read_single_fence(const ReadContext& ctx, BlockStart at, const Header& header) {
  int row = skip_blank(ctx, at.row + 1);
  std::optional<ParamFence> fence;
  if (header.kind == HeaderKind::Create) fence = labeled_fence_at(ctx, row, "Content");
  if (!fence) fence = fence_at(ctx, row);
  if (!fence) {
    const bool shell = header.kind == HeaderKind::Shell;
    nlohmann::json params = nlohmann::json::object();
    if (!shell) params["path"] = *header.span;
    return missing_body(
        ctx, at, shell ? "run_terminal_command" : "create_or_replace_file", std::move(params),
        shell ? "a terminal header without the fence holding its command"
              : "`**" + std::string(header.kind == HeaderKind::Create ? "Create" : "Write") +
                    ":**` without the fence holding the file's content");
  }
  std::string tool = "run_terminal_command";
  nlohmann::json params = nlohmann::json::object();
  if (header.kind == HeaderKind::Shell) {
    params["command"] = fence->content;
  } else {
    tool = "create_or_replace_file";
    params["path"] = *header.span;
    params["content"] = fence->content;
  }
  if (!fence->closed()) return unclosed(ctx, at, fence->open_row, tool, std::move(params));
  Purpose purpose = read_purpose(ctx, fence->close_row + 1);
  if (!purpose.text.empty()) params["purpose"] = purpose.text;
  return make_call(ctx, tool, std::move(params), at, purpose.end_row);
}

// `a.lua:3-5` (lines 3 to 5) or `a.lua:7` (line 7): llm-sidekick shows a range read so.
void add_path_and_range(nlohmann::json& params, const std::string& span) {
  auto number = [](std::string_view text, int& out) {
    if (text.empty() || text.size() > 9) return false;
    out = 0;
    for (char c : text) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return out > 0;
  };
  size_t colon = span.rfind(':');
  int first = 0;
  int last = 0;
  if (colon != std::string::npos && colon > 0) {
    std::string_view range = std::string_view(span).substr(colon + 1);
    size_t dash = range.find('-');
    bool ok = dash == std::string_view::npos
                  ? number(range, first) && number(range, last)
                  : number(range.substr(0, dash), first) && number(range.substr(dash + 1), last);
    if (ok && first <= last) {
      params["path"] = span.substr(0, colon);
      params["start_line"] = first;
      params["end_line"] = last;
      return;
    }
  }
  params["path"] = span;
}

// `**Execute:**`, `**Read:**`, `**ls:**`: everything is in the header. The rows of a call
// start at `at`; its `> purpose` lines follow the header's row.
nlohmann::json header_only_params(const Header& header, std::string& tool) {
  nlohmann::json params = nlohmann::json::object();
  if (header.kind == HeaderKind::Execute) {
    tool = "run_terminal_command";
    params["command"] = *header.span;
  } else if (header.kind == HeaderKind::Read) {
    tool = "read_file";
    add_path_and_range(params, *header.span);
  } else {
    tool = "list_directory";
    params["path"] = *header.span;
  }
  return params;
}

void add_purpose(nlohmann::json& params, const std::string& tool, const Purpose& purpose) {
  if (purpose.text.empty()) return;
  params[tool == "run_terminal_command" ? "explanation" : "purpose"] = purpose.text;
}

Found read_header_only(const ReadContext& ctx, BlockStart at, const Header& header) {
  Purpose purpose = read_purpose(ctx, at.row + 1);
  std::string tool;
  nlohmann::json params = header_only_params(header, tool);
  add_purpose(params, tool, purpose);
  return make_call(ctx, tool, std::move(params), at, purpose.end_row);
}

bool is_header_only(HeaderKind kind) {
  return kind == HeaderKind::Execute || kind == HeaderKind::Read || kind == HeaderKind::List;
}

// `**Read:** `a`**Read:** `b``: one call per header, parts of one block that keeps its text
// (the results go after it, one per part, as for an XML block with several actions).
Found read_side_by_side(const ReadContext& ctx, int row, int column,
                        const std::vector<Header>& headers) {
  Purpose purpose = read_purpose(ctx, row + 1);
  for (const Header& header : headers) {
    if (!is_header_only(header.kind)) {
      return block_error({row, column}, purpose.end_row, row,
                         "several headers on one line: only `**Read:**`, `**ls:**` and "
                         "`**Execute:**` headers can share a line");
    }
  }
  Found found;
  for (size_t i = 0; i < headers.size(); ++i) {
    std::string tool;
    nlohmann::json params = header_only_params(headers[i], tool);
    add_purpose(params, tool, purpose);
    BlockStart at{row, column + static_cast<int>(headers[i].column)};
    auto resolved = resolve_call(ctx.options.tools, tool, std::move(params));
    if (auto* error = std::get_if<std::string>(&resolved)) {
      found.errors.push_back({row, purpose.end_row, row, *error});
      continue;
    }
    ToolCall call;
    call.tool = std::move(std::get<ResolvedCall>(resolved).tool);
    call.params = std::move(std::get<ResolvedCall>(resolved).params);
    call.start = row;
    call.column = at.column;
    call.end = purpose.end_row;
    call.part = static_cast<int>(i) + 1;
    found.calls.push_back(std::move(call));
  }
  found.next_row = attach_results_after_fence(ctx, purpose.end_row, found.calls);
  return found;
}

// `a.lua:12` in an `**Insert:**` header: the path and the line to insert after (0: at the top).
bool add_insert_place(nlohmann::json& params, const std::string& span) {
  size_t colon = span.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string_view digits = std::string_view(span).substr(colon + 1);
  if (digits.empty() || digits.size() > 9) return false;
  int line = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
    line = line * 10 + (c - '0');
  }
  params["path"] = span.substr(0, colon);
  params["line"] = line;
  return true;
}

// `**Insert:** `path:N`` and a fence: llm-sidekick's insertion after line N (its editor tool's
// `insert` command, 2025), run by insert_into_file.
Found read_insert(const ReadContext& ctx, BlockStart at, const Header& header) {
  const std::string tool = "insert_into_file";
  std::optional<ParamFence> fence = fence_at(ctx, skip_blank(ctx, at.row + 1));
  nlohmann::json params = nlohmann::json::object();
  if (!add_insert_place(params, *header.span)) {
    int end = fence ? (fence->closed() ? fence->close_row + 1 : ctx.end) : at.row + 1;
    return block_error(at, read_purpose(ctx, end).end_row, at.row,
                       "`**Insert:**` needs `path:N`, the line to insert after (0: at the top)");
  }
  if (!fence) {
    return missing_body(ctx, at, tool, std::move(params),
                        "`**Insert:**` without the fence holding the text to insert");
  }
  params["content"] = fence->content;
  if (!fence->closed()) return unclosed(ctx, at, fence->open_row, tool, std::move(params));
  Purpose purpose = read_purpose(ctx, fence->close_row + 1);
  if (!purpose.text.empty()) params["purpose"] = purpose.text;
  return make_call(ctx, tool, std::move(params), at, purpose.end_row);
}

// The canonical tool named by the result block after the `>` lines from `row` on, or "".
std::string result_tool_after(const ReadContext& ctx, int row) {
  auto result = result_block_at(ctx, read_purpose(ctx, row).end_row);
  if (!result) return "";
  const ToolSpec* spec = ctx.options.tools.find(result->tool);
  return spec ? spec->name : result->tool;
}

// An executed form: header, the fences it kept, `>` lines, then its result block, which names
// the tool and the status.
std::optional<Found> read_executed(const ReadContext& ctx, BlockStart at, const Header& header) {
  std::vector<ParamFence> fences;
  int cursor = at.row + 1;
  // A replacement's fences read as pairs, whichever form they have; other tools' fences as they
  // are. Only the result block under them tells which tool it was.
  std::optional<Replacements> replacements = read_replacements(ctx, cursor);
  if (replacements && replacements->error.empty() && replacements->unclosed_row < 0 &&
      result_tool_after(ctx, replacements->end_row) == "replace_in_file") {
    cursor = replacements->end_row;
  } else {
    replacements.reset();
    while (true) {
      int row = skip_blank(ctx, cursor);
      std::optional<ParamFence> fence = labeled_fence_at(ctx, row, "Content");
      if (!fence) fence = fence_at(ctx, row);
      if (!fence || !fence->closed()) break;
      cursor = fence->close_row + 1;
      fences.push_back(std::move(*fence));
    }
  }
  Purpose purpose = read_purpose(ctx, cursor);
  auto result = result_block_at(ctx, purpose.end_row);
  if (!result) return std::nullopt;

  const ToolSpec* spec = ctx.options.tools.find(result->tool);
  std::string tool = spec ? spec->name : result->tool;
  nlohmann::json params = nlohmann::json::object();
  std::optional<nlohmann::json> tool_params =
      executed_tool_params(header, fences, result->tool, tool);
  const bool tool_form = tool_params.has_value();
  if (tool_form) {
    params = std::move(*tool_params);
  } else if (tool == "run_terminal_command") {
    if (header.span)
      params["command"] = *header.span;
    else if (!fences.empty())
      params["command"] = fences.front().content;
  } else if (header.span && tool == "read_file") {
    add_path_and_range(params, *header.span);
  } else if (header.span && tool == "insert_into_file") {
    if (!add_insert_place(params, *header.span)) params["path"] = *header.span;
  } else if (header.span) {
    params["path"] = *header.span;
  }
  if ((tool == "create_or_replace_file" || tool == "insert_into_file") && !fences.empty()) {
    params["content"] = fences.front().content;
  }
  if (tool == "replace_in_file" && replacements) {
    params["search"] = std::move(replacements->search);
    params["replace"] = std::move(replacements->replace);
  }
  if (!purpose.text.empty() && !tool_form) params["purpose"] = purpose.text;

  ToolCall call;
  // A finished call is listed even when its text no longer resolves (a tool since removed).
  auto resolved = resolve_call(ctx.options.tools, tool, params);
  if (auto* ok = std::get_if<ResolvedCall>(&resolved)) {
    call.tool = std::move(ok->tool);
    call.params = std::move(ok->params);
  } else {
    call.tool = tool;
    call.params = std::move(params);
  }
  call.start = at.row;
  call.column = at.column;
  call.end = purpose.end_row;
  call.executed_form = true;
  attach_result(call, *result);
  Found found;
  found.next_row = result->end;
  found.calls.push_back(std::move(call));
  return found;
}

Found read_replace(const ReadContext& ctx, BlockStart at, const Header& header) {
  std::optional<Replacements> replacements = read_replacements(ctx, at.row + 1);
  if (!replacements) {
    return missing_body(ctx, at, "replace_in_file", {{"path", *header.span}},
                        "a replacement header without its fences (old text, a blank line, the "
                        "new text; or `**Search:**` and `**Replace:**`)");
  }
  nlohmann::json params = {{"path", *header.span},
                           {"search", std::move(replacements->search)},
                           {"replace", std::move(replacements->replace)}};
  if (replacements->unclosed_row >= 0) {
    return unclosed(ctx, at, replacements->unclosed_row, "replace_in_file", std::move(params));
  }
  if (!replacements->error.empty()) {
    return block_error(at, replacements->end_row, replacements->error_row, replacements->error);
  }
  Purpose purpose = read_purpose(ctx, replacements->end_row);
  if (!purpose.text.empty()) params["purpose"] = purpose.text;
  return make_call(ctx, "replace_in_file", std::move(params), at, purpose.end_row);
}

}  // namespace

std::optional<Found> read_sidekick_block(const ReadContext& ctx, int row, int column) {
  std::string_view text = std::string_view(ctx.line(row)).substr(column);
  std::vector<Header> headers = parse_headers(text, ctx.options.tools);
  if (headers.empty()) return std::nullopt;
  if (headers.size() > 1) return read_side_by_side(ctx, row, column, headers);
  const Header& header = headers.front();
  // The column of a block at the line's start stays 0, whatever its indentation.
  BlockStart at{row, column == 0 ? 0 : column + static_cast<int>(header.column)};
  switch (header.kind) {
    case HeaderKind::Shell:
    case HeaderKind::Write:
    case HeaderKind::Create: return read_single_fence(ctx, at, header);
    case HeaderKind::Execute:
    case HeaderKind::Read:
    case HeaderKind::List: return read_header_only(ctx, at, header);
    case HeaderKind::Replace: return read_replace(ctx, at, header);
    case HeaderKind::Insert: return read_insert(ctx, at, header);
    case HeaderKind::Tool: return read_tool_block(ctx, at, header);
    case HeaderKind::Executed: return read_executed(ctx, at, header);
  }
  return std::nullopt;
}

}  // namespace toolhost::parse
