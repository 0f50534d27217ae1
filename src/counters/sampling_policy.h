// The counter thread's decisions, apart from CUPTI so that their arithmetic is tested on the
// CPU: when to renew the counter data image.
#pragma once

#include <cstddef>

namespace mp::counters {

// A counter data image after a decode: its room, the samples with some of their records in it,
// and those with all of them.
struct ImageFill {
  std::size_t total = 0, populated = 0, completed = 0;
  bool full = false;  // the decode stopped for want of room
};

enum class Renewal {
  Keep,        // decode on into this image
  AtBoundary,  // renew: every sample in it is whole
  Cut,         // renew mid-sample: what was decoded of the last one goes with the old image, so
               // its rest, in the new image, is not read, and no launch may begin over it
};

// A sample's records reach the hardware buffer one after another, so a decode can end with the
// last sample partly in the image; renewing then would cut it short. An image is renewed once
// half full, on a sample boundary; while a launch is under way its other half waits for one
// (decodes take records as they come, so one is near); without a launch, or once the image is
// full, it is renewed at once and the cut sample is left unread.
Renewal renewal(const ImageFill& fill, bool launch_under_way);

}  // namespace mp::counters
