// Compare (C): every variant timed at the view on screen, as a table to copy or save.
#pragma once

#include <optional>
#include <string>

#include "app/explorer.h"
#include "app/layout.h"
#include "io/report.h"

namespace mp {

class GpuRenderer;
class CounterProbe;
struct LoadedSass;

class CompareWindow {
 public:
  static constexpr const char* kJob = "compare";

  // Times every variant at `view`, width x height, now (blocking); the table replaces the last.
  void run(GpuRenderer& gpu, const View& view, int width, int height, const LoadedSass* sass,
           CounterProbe* counters);
  // The table is of this view and size.
  bool current(const View& view, int width, int height) const;
  const std::optional<BenchReport>& report() const { return report_; }

  // Drawn while there is a table; closing it drops the table. `capture_dir`: where saves go.
  void draw(Explorer& ex, const Layout& layout, int width, int height,
            const std::string& capture_dir);

 private:
  std::optional<BenchReport> report_;
};

}  // namespace mp
