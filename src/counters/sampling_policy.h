// The counter thread's decisions, apart from CUPTI so that their arithmetic is tested on the
// CPU: when to renew the counter data image, and when the window's thread samples at all.
#pragma once

#include <cstddef>
#include <limits>

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
// last sample partly in the image; renewing then would cut it short. A decode that fills the
// image drops the records it has no room for (a launch under way loses them), so the image is
// renewed early: between launches once an eighth full, whatever the last sample (it is left
// unread, and no launch begins over it), so that each run of launches starts on an almost empty
// image; under a launch once half full, on a sample boundary, the other half waiting for one
// until an eighth of it is left: then the sample under way is cut (it alone is not read). A full
// image is renewed at once.
Renewal renewal(const ImageFill& fill, bool launch_under_way);

// When the window's counter thread samples. It pays for every sample it decodes, the idle GPU's
// as much as a frame's, so it samples only around the frames it reads: as many as keep its CPU
// within a budget (a token bucket filled at the budget's rate, drawn by all it spends), at least
// a minimum period apart, each armed just before the frame it expects. Times in seconds.
class DutyCycle {
 public:
  struct Settings {
    double budget = 0.06;         // of a core, on average
    double min_period = 0.05;     // between readings: the overlay's figures stay a few frames old
    double bucket = 0.02;         // CPU seconds it may spend ahead of the budget
    double patience = 0.1;        // frames this long overdue have stopped: sample no more
    double keep_on = 0.005;       // a next arm this soon: stopping and starting would cost more
    double arming_slack = 0.001;  // arms this much ahead of the lead that arming took
  };
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  DutyCycle();
  explicit DutyCycle(const Settings& s);

  // A frame starts at `t`, sampling on and its samples counting (`settled`) or not: read it?
  bool offer(double t, bool settled);
  // The thread's CPU time was `cpu` seconds at `t` (it keeps growing).
  void spent(double t, double cpu);
  // Arming last took `seconds` from the decision to samples that count.
  void armed(double seconds) { lead_ = seconds + s_.arming_slack; }

  struct Plan {
    bool on = false;
    double next = kNever;  // when to look again (kNever: at the next frame or launch)
  };
  // What sampling should be at `t`, given whether it is `on` and whether launches await their
  // figures or a caller waits for sampling (`busy`: then it is on, whatever the budget). Once
  // armed for a frame it stays on until it reads one, whatever arming cost the budget.
  Plan plan(double t, bool on, bool busy);

  // The earliest a reading may begin: the minimum period and the budget both allow it.
  double due() const;

 private:
  Settings s_;
  double last_offer_ = -kNever;
  double period_ = 0;  // between frames, smoothed (0: not known yet)
  double last_read_ = -kNever;
  double armed_at_ = -kNever;  // when plan() last armed for a frame
  double tokens_ = 0;          // CPU seconds in hand
  double last_t_ = 0, last_cpu_ = 0;
  bool charged_ = false;  // spent() has been told once
  double lead_ = 0.003;   // from the decision to arm until samples count
};

}  // namespace mp::counters
