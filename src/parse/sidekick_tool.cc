#include "parse/sidekick_tool.h"

#include <variant>

#include "core/status.h"
#include "core/tool_table.h"
#include "parse/remote_tools.h"
#include "parse/text.h"

namespace toolhost::parse {
namespace {

std::optional<nlohmann::json> object_in(const std::vector<ParamFence>& fences) {
  if (fences.empty()) return std::nullopt;
  auto arguments = arguments_object(fences.front().content, "");
  if (auto* object = std::get_if<nlohmann::json>(&arguments)) return std::move(*object);
  return std::nullopt;
}

}  // namespace

Found read_tool_block(const ReadContext& ctx, BlockStart at, const Header& header) {
  const std::string& name = *header.span;
  std::optional<ParamFence> fence = fence_at(ctx, skip_blank(ctx, at.row + 1));
  if (!fence) {
    bool rest_blank = true;
    for (int row = at.row + 1; row < ctx.end && rest_blank; ++row) {
      rest_blank = is_blank(ctx.line(row));
    }
    // The reply may still be streaming its fence in.
    if (ctx.open_end && rest_blank) {
      return unclosed(ctx, at, at.row, name, nlohmann::json::object());
    }
    return block_error(at, at.row + 1, at.row,
                       "`**Tool:**` without the fence holding its JSON arguments (`{}` for none)");
  }
  if (!fence->closed()) {
    return unclosed(ctx, at, fence->open_row, name, nlohmann::json::object());
  }
  // `>` lines after the fence belong to the block, but they are no argument: a server's tool
  // takes only what its schema names.
  const int end = read_purpose(ctx, fence->close_row + 1).end_row;
  auto arguments = arguments_object(fence->content, "the arguments of `" + name + "`");
  if (auto* error = std::get_if<std::string>(&arguments)) {
    return block_error(at, end, fence->open_row, *error);
  }
  return make_call(ctx, name, std::move(std::get<nlohmann::json>(arguments)), at, end);
}

std::optional<nlohmann::json> executed_tool_params(const Header& header,
                                                   const std::vector<ParamFence>& fences,
                                                   const std::string& tool,
                                                   const std::string& canonical) {
  if (!header.span) return std::nullopt;
  if (header.label == core::called_label(core::Status::Succeeded)) {
    return object_in(fences).value_or(nlohmann::json::object());
  }
  if (!starts_with(header.label, "✗ ") || (*header.span != tool && *header.span != canonical)) {
    return std::nullopt;
  }
  return object_in(fences);
}

}  // namespace toolhost::parse
