// Back and forward through the places visited, as a browser does: a new place after going back
// drops the places ahead of it.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "model/view_state.h"

namespace mp {

class ViewHistory {
 public:
  static constexpr std::size_t kDefaultCapacity = 256;
  // settle_s: how long a place must stay unchanged (see note) before it is kept.
  explicit ViewHistory(std::size_t capacity = kDefaultCapacity, double settle_s = 0.5);

  // A place arrived at on purpose (a bookmark, a paste, Home): kept at once. The same place as
  // the current one is not kept twice; the places ahead of the current one are dropped.
  void visit(const ViewState& s);
  // The place on screen changed at time now_s (every frame of a drag or each wheel notch may
  // call it); it is kept once it has stayed unchanged for settle_s, seen by tick().
  void note(const ViewState& s, double now_s);
  void tick(double now_s);
  // The place on screen changed from `was` to `now` in place (the automatic iteration limit
  // raised on it): the current place, or the one being noted, becomes `now`, and the places
  // ahead stay, so that back and forward go on through the places visited.
  void amend(const ViewState& was, const ViewState& now);

  // The place to show, or nothing at either end. A noted place not yet kept is kept first, so
  // that back returns to where the view was before it, and forward comes back to it.
  std::optional<ViewState> back();
  std::optional<ViewState> forward();
  bool can_back() const;
  bool can_forward() const { return !places_.empty() && current_ + 1 < places_.size(); }

  std::size_t size() const { return places_.size(); }
  const ViewState* current() const { return places_.empty() ? nullptr : &places_[current_]; }

 private:
  void flush();

  std::size_t capacity_;
  double settle_s_;
  std::vector<ViewState> places_;
  std::size_t current_ = 0;
  std::optional<ViewState> pending_;
  double pending_since_ = 0;
};

}  // namespace mp
