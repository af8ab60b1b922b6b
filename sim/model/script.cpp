#include "model/script.h"

namespace drainsim {

void Script::start(Runtime& rt) {
  for (std::size_t i = 0; i < s_.events.size(); ++i) {
    rt.schedule(s_.events[i].at, Priority::kScripted, this, 0, i);
  }
}

void Script::on_timer(std::uint32_t /*tag*/, std::uint64_t arg) {
  ++fired_;
  platform_.apply(s_.events[arg], arg);
}

}  // namespace drainsim
