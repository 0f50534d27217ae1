// --overlay-ab and --counters-ab: frame times taken in alternating blocks, the thing under test
// off (A) and on (B), reduced to the one summary line scripts read.
#pragma once

#include <string>
#include <vector>

namespace mp {

class AbRecorder {
 public:
  static constexpr long long kBlock = 10;  // frames per block

  // Disabled: nothing is settled, so nothing is recorded.
  explicit AbRecorder(bool enabled) : enabled_(enabled) {}

  // Frame `frame` lies in a B block (odd blocks), and counts: a block's first three frames are
  // left out of both halves, since the GPU and the swap may still be on the previous block's.
  static bool b_half(long long frame) { return frame / kBlock % 2 == 1; }
  bool settled(long long frame) const { return enabled_ && frame % kBlock >= 3; }

  // The frame just drawn, and the half its times go to; its own duration comes with the next
  // frame's start (frame_time).
  void close_frame(long long frame, bool b);
  // Start to start, of the frame last closed (ignored where it did not count).
  void frame_time(double ms);
  // The UI's end of frame on the CPU, on the GPU (the timer query may lag a frame or two, so it
  // goes to the half of the frame it arrives in), and the render kernel's event time.
  void ui_cpu(long long frame, bool b, double ms);
  void ui_gpu(long long frame, bool b, double ms);
  void kernel(long long frame, bool b, double ms);

  // "NAME A/B: N frames without, M with: mean ..." (no newline), or that there were too few.
  // `own_cpu_ms`: the overlay's own CPU time per frame, said in the line.
  // ui_timed_on: what the UI's timer queries time ("GPU"; a software GL's CPU, said as such).
  // kernels_timed: the frames ran on the CUDA path, whose events time the kernels.
  std::string summary(const std::string& name, double own_cpu_ms,
                      const std::string& ui_timed_on = "GPU", bool kernels_timed = true) const;
  bool both_halves() const { return !frames_[0].empty() && !frames_[1].empty(); }

 private:
  struct Sum {
    double ms = 0;
    long n = 0;
    void add(double v) { ms += v, ++n; }
    double mean() const { return n ? ms / n : 0.0; }
  };
  bool enabled_;
  std::vector<double> frames_[2];            // frame times by half
  std::vector<std::vector<double>> blocks_;  // the same frame times, by block
  Sum ui_cpu_[2], ui_gpu_[2], kernel_[2];
  bool last_counts_ = false, last_b_ = false;  // the frame last closed
  std::size_t last_block_ = 0;
};

}  // namespace mp
