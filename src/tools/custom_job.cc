#include "tools/custom_job.h"

namespace toolhost::tools {

core::Result<jobs::JobSpec> custom_job(const core::ToolCall& call, const core::CustomTool&,
                                       const RunContext&) {
  return core::error("custom tool `" + call.tool + "` cannot run yet");
}

}  // namespace toolhost::tools
