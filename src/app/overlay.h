// The corner overlays: pipe utilisation (P) and the SASS of the step loop (S). ImGui only,
// no window system.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "app/history.h"
#include "app/layout.h"
#include "io/sass_loader.h"
#include "model/counter_figures.h"
#include "model/pipe_load.h"
#include "model/variant_table.h"

struct ImDrawList;

namespace mp {

// The overlay's line on the stall reasons: the newest reading's leading stall, or where there
// is none, why (a warning where PC sampling was refused).
struct StallLine {
  std::string text;
  bool warning = false;
  std::string term;  // the leading reason, whose meaning the line's tooltip gives
};

// The SASS view's stall reading: the newest (null where none, `source` saying why), its frame.
struct SassStalls {
  const StallFigures* figures = nullptr;
  long long frame = -1;
  std::string source;
};

class PipeOverlay {
 public:
  // loads: the model's figures for the frame. counters: figures the counters gave with this
  // update; null when none came (not available, or not attributed yet: the newest reading of
  // each pipe stays), with `unavailable` set when they cannot be read (the readings go).
  void update(const std::vector<PipeLoad>& loads, const CounterFigures* counters);
  void clear();
  // Lines under the header (the whole kernel's parts, kernel_parts_feed.h); second: dimmed.
  void set_parts_lines(std::vector<std::pair<std::string, bool>> lines) {
    parts_lines_ = std::move(lines);
  }
  // gpu: the CUDA path renders (else the overlay says it needs it); mix_source says where the
  // instruction mix came from (SASS at run time, or declared); counters_source where the
  // counters' figures come from, or why there are none and how to allow them; stalls: the frame's
  // leading stall reason (PC sampling), or why none. cost_ms: what the overlay itself costs per
  // frame in CPU time, ui_gpu_ms: the timer queries' time of the whole
  // UI's draw (its share in it is the overlay's cost there), ui_timed_on: what that is the time
  // of (gl::timer_queries_time()), frame_ms: the frame time. At the top right, under the
  // precision banner's band.
  void draw(bool gpu, const std::string& mix_source, const std::string& counters_source,
            const StallLine& stalls, float cost_ms, float ui_gpu_ms, const std::string& ui_timed_on,
            float frame_ms, float scale, Layout& layout) const;

 private:
  // The pipe rows at the cursor, in the columns `col` (fit to the room).
  void draw_rows(ImDrawList* dl, const OverlayColumns& col, float scale) const;
  // One pipe as drawn, worked out on update so that draw, which runs every frame, only draws.
  struct Row {
    std::string name;
    std::uint32_t colour = 0, shade = 0;  // the counters' bar and line, the model's bar and area
    bool model_row = true;                // false: a figure only the counters have (SM active)
    bool has_model = false, has_counters = false;
    bool model_limits = false, counters_limit = false;
    float model_pct = 0, counters_pct = 0, alone_ms = 0;
    // The texts, formatted once per update: "47.0", "51.5", "+4.5", "0.056 ms <- limits".
    char model_text[16] = "", counters_text[16] = "", diff_text[16] = "", note[40] = "";
  };
  std::vector<Row> rows_;
  // The newest reading of each pipe: the counters may alternate configurations that count
  // different pipes, so one launch's figures need not hold them all.
  std::vector<CounterPipe> counters_;
  bool counters_ok_ = false;  // figures came since the last clear() or `unavailable`
  std::map<std::string, History> model_history_, counters_history_;
  std::vector<std::pair<std::string, bool>> parts_lines_;
};

// The step loop of `v` one instruction per line, coloured by pipe, with per-pipe counts, at the
// bottom right under the overlay (scrolling where the loop is longer than the room there); beside
// each instruction its share of the kernel's PC samples and its leading warp states, in its
// pipe's colour. listing: from the loaded SASS, or null (then `source` says why there is none);
// build: the kernel build it is the loop of (sass.h).
void draw_sass_view(const VariantInfo& v, sass::KernelBuild build, const LoopListing* listing,
                    const std::string& source, const SassStalls& stalls, Layout& layout);

}  // namespace mp
