#include "counters/counter_sources.h"

#include <utility>

namespace mp::counters {

ProbeSet::ProbeSet(std::unique_ptr<CounterProbe> first,
                   std::vector<std::unique_ptr<CounterProbe>> further)
    : first_(std::move(first)), further_(std::move(further)) {}

std::uint64_t ProbeSet::begin() {
  std::vector<std::uint64_t> ids;
  for (const auto& p : further_) ids.push_back(p->begin());
  // The first begins last, nearest the launch: PM sampling's idle wait stays its own.
  const std::uint64_t id = first_->begin();
  launches_[id] = std::move(ids);
  // Launches nobody takes (a reader that gave up on them) are forgotten, oldest first.
  while (launches_.size() > kKeptLaunches) launches_.erase(launches_.begin());
  return id;
}

void ProbeSet::end(std::uint64_t launch, double sm_cycles) {
  first_->end(launch, sm_cycles);
  const auto it = launches_.find(launch);
  if (it == launches_.end()) return;
  for (std::size_t i = 0; i < further_.size(); ++i) further_[i]->end(it->second[i], sm_cycles);
}

std::optional<CounterFigures> ProbeSet::take(std::uint64_t launch, bool wait) {
  std::optional<CounterFigures> f = first_->take(launch, wait);
  if (!f) return f;
  const auto it = launches_.find(launch);
  if (it == launches_.end()) return f;
  for (std::size_t i = 0; i < further_.size(); ++i)
    if (std::optional<CounterFigures> g = further_[i]->take(it->second[i], true))
      f->sources.insert(f->sources.end(), g->sources.begin(), g->sources.end());
  launches_.erase(it);
  return f;
}

std::vector<std::unique_ptr<CounterProbe>> further_sources(int device) {
  std::vector<std::unique_ptr<CounterProbe>> v;
  // A source adds its line here, v.push_back(make_NAME(device)), and its declaration above.
  return v;
}

}  // namespace mp::counters
