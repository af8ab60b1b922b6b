#include "io/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace drainsim {

bool write_whole(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    std::ofstream f(path, std::ios::binary);
    write(f);
    return static_cast<bool>(f << std::flush);
  }
  const std::string tmp = fmt::format("{}.tmp-{}", path, getpid());
  bool written;
  {
    std::ofstream f(tmp, std::ios::binary);
    if (f) write(f);
    written = static_cast<bool>(f << std::flush);
  }
  if (written) fs::rename(tmp, path, ec);
  if (!written || ec) {
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace drainsim
