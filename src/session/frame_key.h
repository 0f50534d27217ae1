// Whether the window renders: decided in one place, by comparing the frame it wants (what is
// asked for now) with the frame it shows or is refining towards.
#pragma once

#include <cstdint>
#include <optional>

#include "session/frame_of.h"

namespace mp {

struct FrameKey {
  FrameOf of;  // view (the whole image), variant rendered, size, divergence, perturbation
  // The automatic iteration limit: turned on, it wants a frame to judge the limit by.
  bool auto_iters = false;
  // RendererLease::generation(): a job that drew with the renderer, or a change of its settings,
  // leaves the image the window shows to be made again.
  std::uint64_t renderer_generation = 0;

  bool operator==(const FrameKey& o) const {
    return of == o.of && auto_iters == o.auto_iters && renderer_generation == o.renderer_generation;
  }
  bool operator!=(const FrameKey& o) const { return !(*this == o); }
};

enum class FrameStart {
  None,   // the frame shown is the one wanted (or it is still being rendered)
  Fresh,  // another frame: the unfinished one is dropped, the old image moved into place meanwhile
  Again,  // live: the same frame once more, the last one being done
};

// `shown`: the key of the frame the window shows or is rendering, none before the first;
// `idle`: no frame is being rendered; `live`: re-render every frame.
inline FrameStart frame_start(const FrameKey& wanted, const std::optional<FrameKey>& shown,
                              bool live, bool idle) {
  if (!shown || *shown != wanted) return FrameStart::Fresh;
  return live && idle ? FrameStart::Again : FrameStart::None;
}

}  // namespace mp
