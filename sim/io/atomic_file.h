// Files written whole or not at all.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace drainsim {

// Writes `path` whole or not at all: `write` writes into a temporary file beside it
// (`PATH.tmp-PID`), renamed over it once complete, so that an interrupted or failed write
// never leaves a truncated results or part file where a reader expects a complete one. A
// path that exists and is not a regular file itself (a symbolic link such as /dev/stdout,
// a device, a pipe) is written directly, so that it is never replaced. False when it
// cannot be written, with `why` (if given) in strerror's words when the system said. A
// SIGINT or SIGTERM during the write, where nothing else handles it, removes the temporary
// file before it ends the process; SIGXFSZ (a file size limit, ulimit -f) is ignored
// during the write, so that the write fails (EFBIG) and leaves nothing behind.
bool write_whole(const std::string& path, const std::function<void(std::ostream&)>& write,
                 std::string* why = nullptr);

// Whether write_whole(path, ...) can create its file, found out before any work is done:
// "" when it can, else why not (strerror's words, "is a directory"). Creates the
// temporary file beside `path` and removes it at once; an existing path that is not a
// regular file (/dev/null, /dev/stdout) is checked by opening it for writing, without
// truncating it.
std::string cannot_write(const std::string& path);

}  // namespace drainsim
