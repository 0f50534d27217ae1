// An EXR's N and NF channels as OpenEXR's reader gives them, for the tests of what ExrStream and
// render write.
#pragma once

#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfInputFile.h>

#include <cstdint>
#include <exception>
#include <vector>

namespace mp {

struct ExrValues {
  std::vector<std::uint32_t> n;
  std::vector<float> nf;
  bool operator==(const ExrValues& o) const { return n == o.n && nf == o.nf; }
};

// The values of the file `in` reads, every row.
inline ExrValues exr_values(Imf::InputFile& in) {
  ExrValues v;
  const Imath::Box2i dw = in.header().dataWindow();
  const std::size_t count = static_cast<std::size_t>(dw.max.x - dw.min.x + 1) *
                            static_cast<std::size_t>(dw.max.y - dw.min.y + 1);
  v.n.resize(count);
  v.nf.resize(count);
  Imf::FrameBuffer fb;
  fb.insert("N", Imf::Slice::Make(Imf::UINT, v.n.data(), dw));
  fb.insert("NF", Imf::Slice::Make(Imf::FLOAT, v.nf.data(), dw));
  in.setFrameBuffer(fb);
  in.readPixels(dw.min.y, dw.max.y);
  return v;
}

// The same of the file at `path`; empty where OpenEXR cannot read it whole.
inline ExrValues exr_values(const char* path) {
  try {
    Imf::InputFile in(path);
    return exr_values(in);
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace mp
