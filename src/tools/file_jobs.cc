// The file tools' jobs (SPEC 7): functions the engine runs off the loop, paths checked before
// they are queued so that a refusal names the rule without running anything.
#include <filesystem>

#include "core/config.h"
#include "tools/buffer_edit.h"
#include "tools/confine.h"
#include "tools/file_ops.h"
#include "tools/job_spec.h"
#include "tools/params.h"

namespace toolhost::tools {
namespace {
namespace fs = std::filesystem;

using Operation = core::Result<std::string> (*)(const std::string&, const nlohmann::json&);

struct FileTool {
  const char* name;
  Operation operation;
  bool path_required;
  const char* second_path;  // move_file and copy_file also confine new_path
};

// What create_or_replace_file writes: a fence's text has no final newline (SPEC 3), and a text
// file ends with one, as Vim writes it ('fixendofline').
std::string text_file(std::string content) {
  if (!content.empty() && content.back() != '\n') content.push_back('\n');
  return content;
}

core::Result<std::string> write_operation(const std::string& root, const nlohmann::json& params) {
  auto path = string_param(params, "path");
  if (!path) return core::error(path.error());
  auto content = string_param(params, "content");
  if (!content) return core::error(content.error());
  return write_file(root, *path, text_file(*content));
}

constexpr FileTool kFileTools[] = {
    {"read_file", &read_file, true, nullptr},
    {"list_directory", &list_directory, false, nullptr},
    {"create_or_replace_file", &write_operation, true, nullptr},
    {"replace_in_file", &replace_in_file, true, nullptr},
    {"insert_into_file", &insert_into_file, true, nullptr},
    {"delete_file", &delete_file, true, nullptr},
    {"move_file", &move_file, true, "new_path"},
    {"copy_file", &copy_file, true, "new_path"},
};

const FileTool* file_tool(const std::string& name) {
  for (const auto& tool : kFileTools) {
    if (name == tool.name) return &tool;
  }
  return nullptr;
}

core::Result<std::string> confined_param(const core::ToolCall& call, const RunContext& context,
                                         const char* name, bool required) {
  auto path =
      string_param(call.params, name, required ? std::nullopt : std::optional<std::string>(""));
  if (!path) return core::error(path.error());
  if (path->empty()) return path;
  if (auto refused = confinement_error(context.root, *path)) return core::error(*refused);
  return path;
}

jobs::TaskOutcome outcome(core::Result<std::string> text) {
  if (!text) return jobs::TaskOutcome{1, "", text.error()};
  return jobs::TaskOutcome{0, std::move(*text), ""};
}

// The tools that edit a file's text: in Neovim, the buffer that has the file loaded takes the
// edit (BufferEdit), the disk otherwise.
bool edits_text(const std::string& tool) {
  return tool == "create_or_replace_file" || tool == "replace_in_file" ||
         tool == "insert_into_file";
}

BufferEdit buffer_edit(const core::ToolCall& call, const std::string& root, const std::string& path,
                       jobs::TaskFunction on_disk) {
  BufferEdit edit;
  edit.path =
      fs::weakly_canonical(fs::path(path).is_absolute() ? fs::path(path) : fs::path(root) / path)
          .string();
  edit.shown = path;
  edit.on_disk = std::move(on_disk);
  const nlohmann::json params = call.params;
  if (call.tool == "create_or_replace_file") {
    std::string content = text_file(params.value("content", ""));
    edit.edit = [content](const std::string&) -> core::Result<std::string> { return content; };
    edit.summary = [path](const std::string& text) { return wrote_summary(path, text); };
  } else if (call.tool == "insert_into_file") {
    // Checked by file_job before the job is made.
    const uint64_t after = *line_number_param(params, "line");
    const std::string content = params.value("content", "");
    edit.edit = [after, content](const std::string& text) {
      return insert_in_text(text, after, content);
    };
    edit.summary = [path, after, content](const std::string&) {
      return inserted_summary(path, after, content);
    };
  } else {
    nlohmann::json search = params.value("search", nlohmann::json::array());
    nlohmann::json replace = params.value("replace", nlohmann::json::array());
    edit.edit = [search, replace](const std::string& text) {
      return replace_in_text(text, search, replace);
    };
    edit.summary = [path, pairs = search.size()](const std::string&) {
      return replaced_summary(path, pairs);
    };
  }
  return edit;
}

}  // namespace

bool is_file_tool(const std::string& tool) {
  return file_tool(tool) != nullptr;
}

core::Result<jobs::JobSpec> file_job(const core::ToolCall& call, const RunContext& context) {
  const FileTool* tool = file_tool(call.tool);
  if (!tool) return core::error("unknown tool `" + call.tool + "`");
  auto path = confined_param(call, context, "path", tool->path_required);
  if (!path) return core::error(path.error());
  if (tool->second_path) {
    auto second = confined_param(call, context, tool->second_path, true);
    if (!second) return core::error(second.error());
  }
  if (call.tool == "create_or_replace_file" || call.tool == "insert_into_file") {
    auto content = string_param(call.params, "content");
    if (!content) return core::error(content.error());
  }
  if (call.tool == "insert_into_file") {
    auto line = line_number_param(call.params, "line");
    if (!line) return core::error(line.error());
  }
  jobs::JobSpec spec = base_spec(call, context);
  spec.task = [operation = tool->operation, root = context.root, params = call.params] {
    return outcome(operation(root, params));
  };
  if (edits_text(call.tool) && context.editor && context.loop) {
    spec.async = edit_loaded_or_disk(*context.editor, context.loop,
                                     buffer_edit(call, context.root, *path, spec.task));
    spec.task = nullptr;
  }
  return spec;
}

core::Result<jobs::JobSpec> search_job(const core::ToolCall& call, const RunContext& context) {
  auto pattern = string_param(call.params, "pattern");
  if (!pattern) return core::error(pattern.error());
  auto glob = string_param(call.params, "glob", std::string());
  if (!glob) return core::error(glob.error());
  auto path = confined_param(call, context, "path", false);
  if (!path) return core::error(path.error());
  const std::string where = path->empty() ? "." : *path;
  jobs::JobSpec spec = base_spec(call, context);
  if (core::on_path("rg")) {
    spec.argv = {"rg", "--line-number", "--no-heading", "--color", "never"};
    if (!glob->empty()) spec.argv.insert(spec.argv.end(), {"--glob", *glob});
  } else {
    spec.argv = {"grep", "-rn"};
    if (!glob->empty()) spec.argv.push_back("--include=" + *glob);
  }
  // `--` ends the options: a pattern or path starting with `-` is not one.
  spec.argv.insert(spec.argv.end(), {"--", *pattern, where});
  spec.ok_exit_codes = {0, 1};
  return spec;
}

core::Result<jobs::JobSpec> lua_job(const core::ToolCall& call, const RunContext& context,
                                    const std::string& op) {
  if (!context.editor) {
    return core::error("`" + call.tool + "` is a Lua tool: it runs in Neovim only");
  }
  jobs::JobSpec spec = base_spec(call, context);
  // The tool's own timeout, when the user gave one, over the default (the model's stays
  // clamped).
  for (const auto& custom : context.config.tools) {
    if (custom.name == call.tool && custom.timeout_ms && !call.params.contains("timeout_ms")) {
      spec.timeout_ms = *custom.timeout_ms;
    }
  }
  nlohmann::json args = {{"name", call.tool},
                         {"params", call.params},
                         {"root", context.root},
                         {"chat_buf", context.chat_buf}};
  Editor* editor = context.editor;
  spec.async = [editor, op, args](jobs::TaskDone done) {
    editor->call(op, args, [done](core::Result<nlohmann::json> reply) {
      if (!reply) return done(jobs::TaskOutcome{1, "", reply.error()});
      const bool ok = reply->value("ok", false);
      std::string output = reply->value("output", "");
      if (!output.empty() && output.back() != '\n') output += "\n";
      if (ok) return done(jobs::TaskOutcome{0, output, ""});
      done(jobs::TaskOutcome{1, "", output.empty() ? "the tool failed" : output});
    });
  };
  return spec;
}

}  // namespace toolhost::tools
