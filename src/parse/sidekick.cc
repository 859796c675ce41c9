#include "parse/sidekick.h"

#include <variant>

#include "parse/params.h"
#include "parse/results.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

enum class HeaderKind { Bash, Execute, Write, Create, Replace, Read, List, Executed };

struct Header {
  HeaderKind kind;
  std::optional<std::string> span;  // the path or command in the header's code span
};

// The content of a code span that makes up all of `text` (`a`, `` a`b ``), else nullopt.
std::optional<std::string> whole_code_span(std::string_view text) {
  size_t ticks = 0;
  while (ticks < text.size() && text[ticks] == '`') ++ticks;
  if (ticks == 0 || text.size() <= 2 * ticks) return std::nullopt;
  size_t trailing = 0;
  while (trailing < text.size() && text[text.size() - 1 - trailing] == '`') ++trailing;
  if (trailing != ticks) return std::nullopt;
  std::string_view inner = text.substr(ticks, text.size() - 2 * ticks);
  if (ticks == 1 && inner.find('`') != std::string_view::npos) return std::nullopt;
  if (ticks > 1 && inner.size() >= 2 && inner.front() == ' ' && inner.back() == ' ') {
    inner = inner.substr(1, inner.size() - 2);
  }
  return std::string(inner);
}

struct LabelKind {
  std::string_view word;
  HeaderKind kind;
};
constexpr LabelKind kLabels[] = {
    {"Execute", HeaderKind::Execute}, {"Write", HeaderKind::Write},  {"Create", HeaderKind::Create},
    {"Replace", HeaderKind::Replace}, {"Path", HeaderKind::Replace}, {"Read", HeaderKind::Read},
    {"ls", HeaderKind::List},
};

// Every executed label starts with one of these marks; other lines need no label look-up.
bool has_executed_mark(std::string_view body) {
  return starts_with(body, "✓ ") || starts_with(body, "✗ ");
}

std::optional<Header> parse_header(std::string_view line, const ToolTable& tools) {
  auto stripped = strip_indent(line);
  if (!stripped) return std::nullopt;
  std::string_view body = trim(*stripped);
  if (body == "**bash**") return Header{HeaderKind::Bash, std::nullopt};
  if (starts_with(body, "**")) {
    size_t close = body.find(":** ");
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view word = body.substr(2, close - 2);
    for (const auto& label : kLabels) {
      if (word != label.word) continue;
      // A header is one only when the code span ends the line (SPEC 10).
      auto span = whole_code_span(trim(body.substr(close + 4)));
      if (!span) return std::nullopt;
      return Header{label.kind, span};
    }
    return std::nullopt;
  }
  if (!has_executed_mark(body)) return std::nullopt;
  // The headers of executed forms: the block was rewritten when its job finished.
  for (const std::string& prefix : core::executed_labels(tools)) {
    if (!starts_with(body, prefix)) continue;
    std::string_view rest = trim(body.substr(prefix.size()));
    if (rest.empty()) return Header{HeaderKind::Executed, std::nullopt};
    auto span = whole_code_span(rest);
    if (!span) return std::nullopt;
    return Header{HeaderKind::Executed, span};
  }
  return std::nullopt;
}

struct ParamFence {
  std::string label;  // "Search", "Replace", "Content" or empty
  int label_row = -1;
  int open_row = 0;
  int close_row = -1;  // -1: unclosed, runs to the message's end
  std::string content;
  bool closed() const { return close_row >= 0; }
};

// At most one blank line may separate the parts of a block (SPEC 10).
int skip_blank(const ReadContext& ctx, int row) {
  return row < ctx.end && is_blank(ctx.lines[row]) ? row + 1 : row;
}

// A parameter fence opening at `row`; a `result` fence never is one.
std::optional<ParamFence> fence_at(const ReadContext& ctx, int row) {
  if (row >= ctx.end) return std::nullopt;
  auto open = fence_open(ctx.lines[row]);
  if (!open || info_word(open->info) == "result") return std::nullopt;
  ParamFence fence;
  fence.open_row = row;
  fence.close_row = find_fence_close(ctx.lines, row + 1, ctx.end, *open);
  fence.content = join_lines(ctx.lines, row + 1, fence.closed() ? fence.close_row : ctx.end);
  return fence;
}

bool is_label(std::string_view line, std::string_view label) {
  auto body = strip_indent(line);
  if (!body) return false;
  std::string_view text = trim(*body);
  return text.size() == label.size() + 5 && starts_with(text, "**") &&
         text.substr(2, label.size()) == label && text.substr(2 + label.size()) == ":**";
}

// A label line (`**Search:**`) and the fence under it.
std::optional<ParamFence> labeled_fence_at(const ReadContext& ctx, int row,
                                           std::string_view label) {
  if (row >= ctx.end || !is_label(ctx.lines[row], label)) return std::nullopt;
  auto fence = fence_at(ctx, skip_blank(ctx, row + 1));
  if (!fence) return std::nullopt;
  fence->label = std::string(label);
  fence->label_row = row;
  return fence;
}

struct Purpose {
  std::string text;
  int end_row;  // after the last `>` line; the row it started from when there is none
};

Purpose read_purpose(const ReadContext& ctx, int row) {
  Purpose purpose{"", row};
  int r = skip_blank(ctx, row);
  while (r < ctx.end) {
    auto body = strip_indent(ctx.lines[r]);
    if (!body || body->empty() || body->front() != '>') break;
    std::string_view text = body->substr(1);
    if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!purpose.text.empty()) purpose.text.push_back('\n');
    purpose.text += text;
    purpose.end_row = ++r;
  }
  return purpose;
}

// A fence left open: the reply may still be streaming (incomplete), else it is an error.
Found unclosed(const ReadContext& ctx, int header_row, int fence_row, const std::string& tool,
               nlohmann::json params) {
  Found found;
  found.next_row = ctx.end;
  if (ctx.open_end) {
    ToolCall call;
    const ToolSpec* spec = ctx.options.tools.find(tool);
    call.tool = spec ? spec->name : tool;
    call.params = std::move(params);
    call.start = header_row;
    call.end = ctx.end;
    call.status = Status::Incomplete;
    found.calls.push_back(std::move(call));
  } else {
    found.errors.push_back({header_row, ctx.end, fence_row, "unclosed fence"});
  }
  return found;
}

Found make_call(const ReadContext& ctx, const std::string& tool, nlohmann::json params, int start,
                int end) {
  Found found;
  found.next_row = end;
  auto resolved = resolve_call(ctx.options.tools, tool, std::move(params));
  if (auto* error = std::get_if<std::string>(&resolved)) {
    found.errors.push_back({start, end, start, *error});
    return found;
  }
  auto& call_parts = std::get<ResolvedCall>(resolved);
  ToolCall call;
  call.tool = std::move(call_parts.tool);
  call.params = std::move(call_parts.params);
  call.start = start;
  call.end = end;
  if (auto result = result_block_at(ctx.lines, end, ctx.end)) {
    attach_result(call, *result);
    found.next_row = result->end;
  }
  found.calls.push_back(std::move(call));
  return found;
}

// `**bash**`, `**Write:**`, `**Create:**`: a header and one fence.
std::optional<Found> read_single_fence(const ReadContext& ctx, int row, const Header& header) {
  int at = skip_blank(ctx, row + 1);
  std::optional<ParamFence> fence;
  if (header.kind == HeaderKind::Create) fence = labeled_fence_at(ctx, at, "Content");
  if (!fence) fence = fence_at(ctx, at);
  if (!fence) return std::nullopt;
  std::string tool = "run_terminal_command";
  nlohmann::json params = nlohmann::json::object();
  if (header.kind == HeaderKind::Bash) {
    params["command"] = fence->content;
  } else {
    tool = "create_or_replace_file";
    params["path"] = *header.span;
    params["content"] = fence->content;
  }
  if (!fence->closed()) return unclosed(ctx, row, fence->open_row, tool, std::move(params));
  Purpose purpose = read_purpose(ctx, fence->close_row + 1);
  if (!purpose.text.empty()) params["purpose"] = purpose.text;
  return make_call(ctx, tool, std::move(params), row, purpose.end_row);
}

// `**Execute:**`, `**Read:**`, `**ls:**`: everything is in the header.
Found read_header_only(const ReadContext& ctx, int row, const Header& header) {
  Purpose purpose = read_purpose(ctx, row + 1);
  nlohmann::json params = nlohmann::json::object();
  std::string tool;
  if (header.kind == HeaderKind::Execute) {
    tool = "run_terminal_command";
    params["command"] = *header.span;
    if (!purpose.text.empty()) params["explanation"] = purpose.text;
  } else {
    tool = header.kind == HeaderKind::Read ? "read_file" : "list_directory";
    params["path"] = *header.span;
    if (!purpose.text.empty()) params["purpose"] = purpose.text;
  }
  return make_call(ctx, tool, std::move(params), row, purpose.end_row);
}

// `**Replace:** `path``: `**Search:**`/`**Replace:**` pairs, or two bare fences right under the
// header (old, new).
std::optional<Found> read_replace(const ReadContext& ctx, int row, const Header& header) {
  nlohmann::json params = {{"path", *header.span},
                           {"search", nlohmann::json::array()},
                           {"replace", nlohmann::json::array()}};
  auto add_pair = [&](const ParamFence& search, const ParamFence& replace) {
    params["search"].push_back(search.content);
    params["replace"].push_back(replace.content);
  };
  int cursor = row + 1;
  if (auto old_text = fence_at(ctx, cursor)) {
    if (!old_text->closed())
      return unclosed(ctx, row, old_text->open_row, "replace_in_file", params);
    auto new_text = fence_at(ctx, old_text->close_row + 1);
    if (!new_text) {
      Found found;
      found.next_row = old_text->close_row + 1;
      found.errors.push_back(
          {row, found.next_row, old_text->open_row, "a search block without its replacement"});
      return found;
    }
    if (!new_text->closed())
      return unclosed(ctx, row, new_text->open_row, "replace_in_file", params);
    add_pair(*old_text, *new_text);
    cursor = new_text->close_row + 1;
  } else {
    while (auto search = labeled_fence_at(ctx, skip_blank(ctx, cursor), "Search")) {
      if (!search->closed()) return unclosed(ctx, row, search->open_row, "replace_in_file", params);
      auto replace = labeled_fence_at(ctx, skip_blank(ctx, search->close_row + 1), "Replace");
      if (!replace) {
        Found found;
        found.next_row = search->close_row + 1;
        found.errors.push_back(
            {row, found.next_row, search->label_row, "`**Search:**` without `**Replace:**`"});
        return found;
      }
      if (!replace->closed()) {
        return unclosed(ctx, row, replace->open_row, "replace_in_file", params);
      }
      add_pair(*search, *replace);
      cursor = replace->close_row + 1;
    }
  }
  if (params["search"].empty()) return std::nullopt;
  Purpose purpose = read_purpose(ctx, cursor);
  if (!purpose.text.empty()) params["purpose"] = purpose.text;
  return make_call(ctx, "replace_in_file", std::move(params), row, purpose.end_row);
}

// An executed form: header, the fences it kept, `>` lines, then its result block, which names
// the tool and the status.
std::optional<Found> read_executed(const ReadContext& ctx, int row, const Header& header) {
  std::vector<ParamFence> fences;
  int cursor = row + 1;
  while (true) {
    int at = skip_blank(ctx, cursor);
    std::optional<ParamFence> fence;
    for (std::string_view label : {"Search", "Replace", "Content"}) {
      if (!fence) fence = labeled_fence_at(ctx, at, label);
    }
    if (!fence) fence = fence_at(ctx, at);
    if (!fence || !fence->closed()) break;
    cursor = fence->close_row + 1;
    fences.push_back(std::move(*fence));
  }
  Purpose purpose = read_purpose(ctx, cursor);
  auto result = result_block_at(ctx.lines, purpose.end_row, ctx.end);
  if (!result) return std::nullopt;

  const ToolSpec* spec = ctx.options.tools.find(result->tool);
  std::string tool = spec ? spec->name : result->tool;
  nlohmann::json params = nlohmann::json::object();
  if (tool == "run_terminal_command") {
    if (header.span)
      params["command"] = *header.span;
    else if (!fences.empty())
      params["command"] = fences.front().content;
  } else if (header.span) {
    params["path"] = *header.span;
  }
  if (tool == "create_or_replace_file" && !fences.empty()) {
    params["content"] = fences.front().content;
  }
  if (tool == "replace_in_file") {
    params["search"] = nlohmann::json::array();
    params["replace"] = nlohmann::json::array();
    bool is_search = true;  // unlabeled fences alternate old, new
    for (const auto& fence : fences) {
      bool search = fence.label.empty() ? is_search : fence.label == "Search";
      params[search ? "search" : "replace"].push_back(fence.content);
      is_search = !search;
    }
  }
  if (!purpose.text.empty()) params["purpose"] = purpose.text;

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
  call.start = row;
  call.end = purpose.end_row;
  call.executed_form = true;
  attach_result(call, *result);
  Found found;
  found.next_row = result->end;
  found.calls.push_back(std::move(call));
  return found;
}

}  // namespace

std::optional<Found> read_sidekick_block(const ReadContext& ctx, int row) {
  auto header = parse_header(ctx.lines[row], ctx.options.tools);
  if (!header) return std::nullopt;
  switch (header->kind) {
    case HeaderKind::Bash:
    case HeaderKind::Write:
    case HeaderKind::Create: return read_single_fence(ctx, row, *header);
    case HeaderKind::Execute:
    case HeaderKind::Read:
    case HeaderKind::List: return read_header_only(ctx, row, *header);
    case HeaderKind::Replace: return read_replace(ctx, row, *header);
    case HeaderKind::Executed: return read_executed(ctx, row, *header);
  }
  return std::nullopt;
}

}  // namespace toolhost::parse
