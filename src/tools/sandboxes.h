#pragma once
// The kernel sandboxes a host runs its unasked commands in (issue #38): one per root and
// network setting, built on first need and kept (building one walks the home directory once).

#include <memory>
#include <string>

#include "core/config.h"
#include "core/result.h"
#include "sandbox/sandbox.h"

namespace toolhost::tools {

// The sandbox for jobs in `root` under `config` (its writable roots, secret stores and hidden
// paths, the protected names of core::protected_names()), with the network or not; the error
// says why the kernel refused it.
core::Result<std::shared_ptr<const sandbox::Sandbox>> sandbox_for(const core::Config& config,
                                                                 const std::string& root,
                                                                 bool network);

}  // namespace toolhost::tools
