// Counter sources read together (src/counters/counter_sources.h): a further source's columns
// join the first source's figures launch by launch, and come only once the first's are in.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "counters/counter_sources.h"

namespace mp::counters {
namespace {

// A source that answers each launch with its SM cycles as one column, once it has ended; the
// first source in the tests holds its figures back until `ready`.
class FakeSource final : public CounterProbe {
 public:
  FakeSource(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  bool ready = true;

  std::string unavailable() const override { return ""; }
  std::uint64_t begin() override {
    log_->push_back(name_ + " begin");
    return next_ += 10;
  }
  void end(std::uint64_t launch, double sm_cycles) override {
    log_->push_back(name_ + " end");
    ended_[launch] = sm_cycles;
  }
  std::optional<CounterFigures> take(std::uint64_t launch, bool) override {
    const auto it = ended_.find(launch);
    if (!ready || it == ended_.end()) return std::nullopt;
    CounterFigures f;
    f.clock_ghz = 1.5;
    f.sources = {{name_, name_ + "_", "", {{"cycles", "cycles", "", it->second}}, true, ""}};
    ended_.erase(it);
    return f;
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  std::uint64_t next_ = 0;
  std::map<std::uint64_t, double> ended_;
};

TEST(ProbeSet, FurtherSourcesJoinTheFirstsFigures) {
  std::vector<std::string> log;
  auto first = std::make_unique<FakeSource>("first", &log);
  FakeSource* first_raw = first.get();
  std::vector<std::unique_ptr<CounterProbe>> further;
  further.push_back(std::make_unique<FakeSource>("power", &log));
  ProbeSet set(std::move(first), std::move(further));

  const std::uint64_t a = set.begin();
  set.end(a, 1000);
  const std::uint64_t b = set.begin();
  set.end(b, 2000);
  // The first begins nearest the launch, and ends first.
  EXPECT_EQ(log,
            (std::vector<std::string>{"power begin", "first begin", "first end", "power end",
                                      "power begin", "first begin", "first end", "power end"}));

  first_raw->ready = false;
  EXPECT_FALSE(set.take(a, false).has_value());
  first_raw->ready = true;
  const std::optional<CounterFigures> fb = set.take(b, false);
  ASSERT_TRUE(fb.has_value());
  EXPECT_EQ(fb->clock_ghz, 1.5);
  ASSERT_EQ(fb->sources.size(), 2u);  // the first's own, then the further source's
  EXPECT_EQ(fb->sources[1].source, "power");
  EXPECT_EQ(fb->sources[1].columns[0].value, 2000.0);
  const std::optional<CounterFigures> fa = set.take(a, true);
  ASSERT_TRUE(fa.has_value());
  EXPECT_EQ(fa->sources[1].columns[0].value, 1000.0);
}

TEST(ProbeSet, NoFurtherSourcesIsTheFirstAlone) {
  std::vector<std::string> log;
  ProbeSet set(std::make_unique<FakeSource>("first", &log), {});
  const std::uint64_t a = set.begin();
  set.end(a, 5);
  const std::optional<CounterFigures> f = set.take(a, true);
  ASSERT_TRUE(f.has_value());
  ASSERT_EQ(f->sources.size(), 1u);
  EXPECT_EQ(f->sources[0].source, "first");
}

}  // namespace
}  // namespace mp::counters
