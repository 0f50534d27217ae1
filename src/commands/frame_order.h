// The order a process renders its frames of a sequence in (each frame's file is its own, and the
// listing is by frame number, so the order changes no output).
#pragma once

#include <vector>

namespace mp {

// `frames` (ascending) from both ends in turn, the first, the last, the second, the second last
// and so on, where none of them needs a reference orbit; else as they are. A zoom's costs follow
// its depth: the GPU's where the set's interior fills the shallow frames, the deflater's where
// the deep frames' detail compresses worst. In order, the GPU would be done while the last
// frames' compression still ran; in turn, the cores compress those while the GPU renders the
// others (docs/measurements.md). Frames with a reference orbit stay in order so that
// neighbouring frames share one.
std::vector<int> render_order(const std::vector<int>& frames, bool needs_reference);

}  // namespace mp
