// Backend, continued (backend.cpp has the rest): lease expiry at the deadline
// (LeaseExpiry::check_interval 0) through one timer for every claim (backend.h,
// lease_timers).
#include "model/backend.h"

#include <deque>

namespace drainsim {

void Backend::list_lease(std::uint32_t handle) {
  if (lease_ticket_.size() < jobs_.size()) lease_ticket_.resize(jobs_.size(), 0);
  lease_ticket_[handle] = ++tickets_;
  LeaseDue& due = lease_due_.emplace_back();  // filled in place: no store-forwarding stall
  due.at = jobs_[handle].lease_deadline;
  due.place = rt_.reserve_place();
  due.ticket = tickets_;
  due.handle = handle;
  ++leases_listed_;
  if (!lease_timer_.pending()) arm_lease_timer();
}

void Backend::unlist_lease(std::uint32_t handle) {
  if (handle >= lease_ticket_.size() || lease_ticket_[handle] == 0) return;
  const bool armed_at_it = lease_due_.front().ticket == lease_ticket_[handle];
  lease_ticket_[handle] = 0;
  --leases_listed_;
  if (armed_at_it) {
    rt_.cancel(lease_timer_);
    arm_lease_timer();
  } else if (lease_due_.size() > 4 * leases_listed_ + 1024) {
    // Unlisted ones behind a long-held lease: drop them, so memory follows the leases held.
    std::erase_if(lease_due_, [this](const LeaseDue& due) { return !listed(due); });
  }
}

void Backend::arm_lease_timer() {
  if (lease_timer_.pending()) return;
  while (!lease_due_.empty() && !listed(lease_due_.front())) lease_due_.pop_front();
  if (lease_due_.empty()) return;
  const LeaseDue& due = lease_due_.front();
  lease_timer_ =
      rt_.schedule_at_place(due.place, due.at, Priority::kBackend, this, kLeaseDue, due.handle);
}

void Backend::on_lease_due(std::uint32_t handle) {
  Job& job = jobs_[handle];
  job.timer = TimerId{};
  if (job.lease_deadline > rt_.now()) {  // renewed meanwhile
    job.timer = rt_.schedule(job.lease_deadline, Priority::kBackend, this, kLeaseExpiry, handle);
  } else {
    expire_lease(handle);
  }
}

}  // namespace drainsim
