// Issue #38 §1: commands that delete or overwrite in bulk ask, sandbox or not.
#include "tools/bulk_delete.h"

#include <gtest/gtest.h>

namespace toolhost::tools {
namespace {

TEST(BulkDelete, EachKindOfBulkDeleteIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"rm -rf build", "`rm`"},
      {"/bin/rm x", "`rm`"},
      {"rmdir out", "`rmdir`"},
      {"shred -u secret", "`shred`"},
      {"truncate -s 0 log", "`truncate`"},
      {"unlink a", "`unlink`"},
      {"git clean -fdx", "`git clean`"},
      {"git checkout -- src/main.c", "`git checkout --`"},
      {"git checkout .", "`git checkout --`"},
      {"git restore src", "`git restore`"},
      {"git reset --hard HEAD~1", "`git reset --hard`"},
      {"find . -name '*.o' -delete", "`find … -delete`"},
      {"rsync -a --delete src/ dst/", "`rsync --delete`"},
      {"rsync -a --delete-after src/ dst/", "`rsync --delete`"},
      {"dd if=/dev/zero of=disk.img bs=1M count=1", "`dd of=`"},
  };
  for (const auto& [command, named] : cases) {
    auto reason = bulk_delete_reason(command);
    ASSERT_TRUE(reason) << command;
    EXPECT_NE(reason->find(named), std::string::npos) << command << ": " << *reason;
    EXPECT_NE(reason->find("always asks"), std::string::npos) << *reason;
  }
}

TEST(BulkDelete, FoundBehindOperatorsQuotesAndShells) {
  for (const char* command :
       {"make && rm -rf dist", "ls | xargs rm", "echo $(rm x)", "sh -c 'rm -rf /tmp/x'",
        "bash -c \"git clean -fd\"", "r\\m -f x", "'rm' x", "env FOO=1 rm x", "(cd a; rm b)",
        "find . -exec rm {} +", "time rm -r x", "nice -n 5 rmdir x"}) {
    EXPECT_TRUE(bulk_delete_reason(command)) << command;
  }
}

TEST(BulkDelete, OrdinaryCommandsDoNotAsk) {
  for (const char* command :
       {"make -j2", "cargo test", "git status", "git checkout -b feature", "git log --oneline",
        "find . -name '*.c'", "rsync -a src/ dst/", "dd if=a.img", "ls -la", "npm install",
        "python3 -m pytest -q", "cat rmlist.txt", "grep -rn remove src", "./rmdir-tool.sh"}) {
    EXPECT_FALSE(bulk_delete_reason(command)) << command << ": " << *bulk_delete_reason(command);
  }
}

}  // namespace
}  // namespace toolhost::tools
