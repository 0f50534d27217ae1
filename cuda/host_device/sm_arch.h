// The compute capability as the SASS, the builds and the tables name it (90 for sm_90, from 9.0):
// one definition for every layer, host and device.
#pragma once

#include "hd.h"

namespace mp {

MP_HD constexpr int sm_arch(int cc_major, int cc_minor) {
  return cc_major * 10 + cc_minor;
}

}  // namespace mp
