#pragma once
// An outside agent's call as an assistant message of its Neovim buffer (SPEC 13.5): a header,
// a line naming the agent, and the block: llm-sidekick's `**bash**` form for a plain command,
// a JSON fence otherwise. The parser reads it back as the same tool and arguments.

#include <string>
#include <vector>

#include "core/roles.h"
#include "mcp/tool.h"

namespace toolhost::agents {

struct CallMessage {
  std::vector<std::string> lines;
  int block_offset = 0;  // the block's first line, counted from the first of `lines`
  std::string summary;   // what vim.notify says: the command, or the tool and its path
};

// The agent's name as its buffer and messages show it: clientInfo.name is the agent's to
// choose, so what could break a buffer name or a line (a slash, a newline, a control byte)
// becomes `_`, and it is cut at 64 bytes; none at all is "agent".
std::string client_label(const std::string& client_name);

CallMessage call_message(const std::string& client, const std::string& tool,
                         const mcp::Json& arguments, const core::RoleNames& roles);

// The first line of a new agent buffer: a user message, so that every call after it is a reply.
std::string agent_buffer_intro(const std::string& client, const core::RoleNames& roles);

}  // namespace toolhost::agents
