#pragma once
// Commands that delete or overwrite in bulk (issue #38): the sandbox keeps a command inside the
// project, not the project safe from the command, so these still ask before they run unasked,
// sandbox or not, and uncommitted work is never lost without the user's word.

#include <optional>
#include <string>
#include <string_view>

namespace toolhost::tools {

// Why `command` deletes or overwrites in bulk (`rm`, `rmdir`, `shred`, `truncate`, `unlink`,
// `git clean`, `git checkout --`/`.`, `git restore`, `git reset --hard`, `find … -delete`,
// `rsync --delete…`, `dd of=`), or nullopt. It reads every word of the whole command, quoted
// or not, behind `;`, `|`, `$(` or `sh -c '…'` alike, so it errs towards asking (`grep -rn rm`
// asks too); it is a guard against a model's ordinary commands, not against one written to
// hide what it runs ($x, printf), which the sandbox confines all the same.
std::optional<std::string> bulk_delete_reason(std::string_view command);

}  // namespace toolhost::tools
