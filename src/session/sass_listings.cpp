#include "session/sass_listings.h"

#include <chrono>

namespace mp {

SassListings::SassListings(int arch)
    : loading_(
          std::async(std::launch::async, load_kernel_sass, self_executable(), arch, &cancel_)) {}

SassListings::~SassListings() {
  cancel();  // the future's wait as it goes is then a cancelled read's
}

void SassListings::poll() {
  if (!loaded_ && loading_.valid() &&
      loading_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    loaded_ = loading_.get();
}

}  // namespace mp
