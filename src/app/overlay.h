// The corner overlays: pipe utilisation (P) and the SASS of the step loop (S). ImGui only,
// no window system.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/history.h"
#include "io/sass_loader.h"
#include "model/pipe_load.h"
#include "model/variant_table.h"

namespace mp {

class PipeOverlay {
 public:
  void update(const std::vector<PipeLoad>& loads);
  void clear();
  // mix_source says where the instruction mix came from (SASS at run time, or declared).
  // cost_ms: what the overlay itself costs per frame in CPU time, ui_gpu_ms: the GPU time of
  // the whole UI's draw (its share in it is the overlay's GPU cost), frame_ms: the frame time.
  void draw(const std::string& title, const std::string& mix_source, float cost_ms, float ui_gpu_ms,
            float frame_ms, float scale) const;

 private:
  std::vector<PipeLoad> last_;
  std::map<std::string, History> history_;
};

// The step loop of `v` one instruction per line, coloured by pipe, with per-pipe counts.
// listing: from the loaded SASS, or null (then `source` says why there is none); recording: it is
// the loop of the kernel that also records tile costs and the divergence view's outputs.
void draw_sass_view(const VariantInfo& v, bool recording, const LoopListing* listing,
                    const std::string& source, float scale);

}  // namespace mp
