// The command-line reader of drainsim import k8s: shell words as sh splits them, the
// wrappers taken off a worker's command, and each job system's flags as scenario settings.
#include "io/k8s_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace drainsim {
namespace {

TEST(K8sCommand, ShellWordsSplitAsShDoes) {
  bool ok = false;
  EXPECT_EQ(shell_words(R"(a 'b c' "d \"e\"" f\ g)", &ok),
            (std::vector<std::string>{"a", "b c", "d \"e\"", "f g"}));
  EXPECT_TRUE(ok);
  shell_words("a 'b", &ok);
  EXPECT_FALSE(ok);
}

}  // namespace
}  // namespace drainsim
