#include "model/view_history.h"

#include <algorithm>
#include <utility>

namespace mp {

ViewHistory::ViewHistory(std::size_t capacity, double settle_s)
    : capacity_(std::max<std::size_t>(capacity, 1)), settle_s_(settle_s) {}

void ViewHistory::visit(const ViewState& s) {
  pending_.reset();
  if (!places_.empty() && places_[current_] == s) return;
  if (!places_.empty()) places_.erase(places_.begin() + current_ + 1, places_.end());
  places_.push_back(s);
  if (places_.size() > capacity_) places_.erase(places_.begin());
  current_ = places_.size() - 1;
}

void ViewHistory::note(const ViewState& s, double now_s) {
  if (pending_ && *pending_ == s) return;  // unchanged: its time keeps running
  pending_ = s;
  pending_since_ = now_s;
}

void ViewHistory::tick(double now_s) {
  if (pending_ && now_s - pending_since_ >= settle_s_) flush();
}

void ViewHistory::flush() {
  // Taken out first: visit() clears pending_, which would free the place it is reading.
  if (pending_) visit(ViewState(std::move(*pending_)));
}

void ViewHistory::amend(const ViewState& was, const ViewState& now) {
  if (pending_ && *pending_ == was) *pending_ = now;
  if (!places_.empty() && places_[current_] == was) places_[current_] = now;
}

bool ViewHistory::can_back() const {
  return current_ > 0 || (pending_ && !places_.empty() && places_[current_] != *pending_);
}

std::optional<ViewState> ViewHistory::back() {
  flush();
  if (current_ == 0) return std::nullopt;
  return places_[--current_];
}

std::optional<ViewState> ViewHistory::forward() {
  flush();
  if (!can_forward()) return std::nullopt;
  return places_[++current_];
}

}  // namespace mp
