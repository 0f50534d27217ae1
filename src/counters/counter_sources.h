// Every counter source read around a measured launch, as one CounterProbe: CUPTI PM sampling
// first (its figures are a row's counters), then the further sources, whose columns ride along
// in CounterFigures::sources and so reach every report and the panel without naming.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/counter_figures.h"

namespace mp::counters {

// Forwards begin() and end() to every source; take() gives the first's figures with the
// others' columns added, once the first has them.
class ProbeSet final : public CounterProbe {
 public:
  ProbeSet(std::unique_ptr<CounterProbe> first, std::vector<std::unique_ptr<CounterProbe>> further);

  CounterProbe& first() const { return *first_; }
  std::string unavailable() const override { return first_->unavailable(); }
  std::uint64_t begin() override;
  void end(std::uint64_t launch, double sm_cycles) override;
  std::optional<CounterFigures> take(std::uint64_t launch, bool wait) override;

 private:
  std::unique_ptr<CounterProbe> first_;
  std::vector<std::unique_ptr<CounterProbe>> further_;
  static constexpr std::size_t kKeptLaunches = 1024;
  std::map<std::uint64_t, std::vector<std::uint64_t>> launches_;  // first's id: further's ids
};

// The sources beside PM sampling, for the GPU `device`: the one list to add a source to.
std::vector<std::unique_ptr<CounterProbe>> further_sources(int device);

}  // namespace mp::counters
