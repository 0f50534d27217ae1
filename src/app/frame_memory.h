// What a window's frame costs in memory: said on stderr before the window opens, so that a run
// that then fails for memory has said why, and on the banner for as long as the size costs it.
#pragma once

#include <string>

namespace mp {

// "a WxH window: each copy of its frame is ... of memory" for a frame of width x height pixels;
// "" for a frame small enough to go without a word.
std::string frame_memory_notice(int width, int height);

}  // namespace mp
