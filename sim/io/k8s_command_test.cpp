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

// Airflow 2's args as its chart writes them: `exec \` and the program on the next line.
TEST(K8sCommand, ABackslashNewlineJoinsTheLinesOfAScript) {
  EXPECT_EQ(commands_of("exec \\\nairflow celery worker"),
            (std::vector<std::string>{"exec airflow celery worker"}));
  EXPECT_EQ(commands_of("echo a\\;b; run"), (std::vector<std::string>{"echo a\\;b", " run"}));
}

}  // namespace
}  // namespace drainsim
