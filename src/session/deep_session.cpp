#include "session/deep_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace mp {
namespace {

bool ready(const std::future<std::shared_ptr<const DeepReference>>& f) {
  return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

}  // namespace

DeepSession::DeepSession(const std::optional<DeviceInfo>& device) : renderer_(device) {}

DeepSession::~DeepSession() {
  stop();
  for (Worker& w : dropped_) w.result.wait();
}

void DeepSession::launch_worker(const View& view, int width, int height) {
  if (worker_) {
    worker_->cancel->store(true);
    dropped_.push_back(std::move(*worker_));
    worker_.reset();
  }
  Worker w;
  w.cancel = std::make_shared<std::atomic<bool>>(false);
  w.done = std::make_shared<std::atomic<double>>(0.0);
  w.view = view;
  w.width = width;
  w.height = height;
  w.start = std::chrono::steady_clock::now();
  w.result = std::async(std::launch::async, [view, width, height, cancel = w.cancel,
                                             done = w.done] {
    return make_reference(view, width, height, cancel.get(), [&done](double d) { done->store(d); });
  });
  worker_ = std::move(w);
}

void DeepSession::reap_dropped() {
  for (auto it = dropped_.begin(); it != dropped_.end();)
    it = ready(it->result) ? dropped_.erase(it) : it + 1;
}

void DeepSession::start(const View& view, int width, int height, DeltaFormat format) {
  view_ = view;
  width_ = width;
  height_ = height;
  wanted_ = true;
  frame_ = DeepSlicedFrame();
  status_.active = true;
  status_.format = format;
  const std::shared_ptr<const DeepReference>& ref = renderer_.reference();
  if (ref && serves(*ref, view, width, height)) {
    if (worker_) {  // made for a view left behind
      worker_->cancel->store(true);
      dropped_.push_back(std::move(*worker_));
      worker_.reset();
    }
    frame_ = DeepSlicedFrame(format, view, width, height,
                             width == hint_width_ && format == hint_format_ ? hint_ms_per_row_ : 0,
                             expected_row_ms(view, width, height, format));
    return;
  }
  // A reference being made at this view's centre, deep and long enough, serves it when done.
  if (worker_ && worker_->width == width && worker_->height == height &&
      worker_->view.center_x == view.center_x && worker_->view.center_y == view.center_y &&
      !(worker_->view.span < view.span) && worker_->view.max_iter >= view.max_iter)
    return;
  launch_worker(view, width, height);
}

void DeepSession::stop() {
  wanted_ = false;
  frame_ = DeepSlicedFrame();
  status_.active = false;
  if (worker_) {
    worker_->cancel->store(true);
    dropped_.push_back(std::move(*worker_));
    worker_.reset();
  }
}

bool DeepSession::busy() const {
  return wanted_ && (worker_.has_value() || !frame_.done());
}

std::optional<DeepStats> DeepSession::step(float* out, double target_ms, float* warp_efficiency) {
  reap_dropped();
  if (worker_) {
    status_.reference_pending = true;
    status_.reference_done = worker_->done->load();
    status_.reference_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - worker_->start).count();
    if (!ready(worker_->result)) return std::nullopt;
    std::shared_ptr<const DeepReference> ref = worker_->result.get();
    worker_.reset();
    status_.reference_pending = false;
    if (!ref) return std::nullopt;
    // Made for a view that this one has since left (zoomed far in about the same centre): it
    // renders nothing here, and another is made.
    if (wanted_ && !serves(*ref, view_, width_, height_)) {
      launch_worker(view_, width_, height_);
      return std::nullopt;
    }
    renderer_.use(std::move(ref));
    hint_ms_per_row_ = 0;  // the rows' time was another reference's
    if (wanted_)
      frame_ = DeepSlicedFrame(status_.format, view_, width_, height_, 0,
                               expected_row_ms(view_, width_, height_, status_.format));
    // The bands start at the next call, so that whoever reads counters around them sees all.
    status_.reference = renderer_.reference().get();
    return std::nullopt;
  }
  status_.reference = renderer_.reference().get();
  if (!wanted_ || frame_.done()) {
    status_.refining = false;
    return std::nullopt;
  }
  frame_.step(renderer_, out, target_ms, warp_efficiency);
  status_.longest_ms = std::max(status_.longest_ms, frame_.stats().longest_ms);
  status_.refining = !frame_.done();
  status_.progress = frame_.progress();
  if (frame_.done()) {
    wanted_ = false;
    status_.last = frame_.stats();
    hint_ms_per_row_ = frame_.stats().ms / std::max(height_, 1);
    hint_width_ = width_;
    hint_format_ = status_.format;
    row_times_ = RowTimes{view_, width_, height_, status_.format, frame_.row_ms()};
    return frame_.stats();
  }
  return std::nullopt;
}

std::vector<float> DeepSession::expected_row_ms(const View& view, int width, int height,
                                                DeltaFormat format) const {
  if (!row_times_ || row_times_->width != width || row_times_->height != height ||
      row_times_->format != format)
    return {};
  View same = view;
  same.max_iter = row_times_->view.max_iter;
  if (same != row_times_->view) return {};
  return row_times_->ms;
}

std::pair<PixelGrid, PixelGrid> deep_preview_grids(const View& shown, const View& next, int width,
                                                   int height) {
  PixelGrid to;
  to.width = width;
  to.height = height;
  to.x0 = 0.5 - width / 2.0;
  to.y0 = height / 2.0 - 0.5;
  to.dx = 1;
  to.dy = -1;
  const FloatExp spacing = quotient(next.span, to_floatexp(static_cast<double>(width)));
  const double scale = to_double(quotient(shown.span, next.span));
  PixelGrid from = to;
  from.x0 =
      to_double(quotient(to_floatexp(shown.center_x - next.center_x), spacing)) + to.x0 * scale;
  from.y0 =
      to_double(quotient(to_floatexp(shown.center_y - next.center_y), spacing)) + to.y0 * scale;
  from.dx = scale;
  from.dy = -scale;
  // A jump far beyond the image (a bookmark, a paste) has nothing to show moved: a grid far
  // outside the new one, which covers none of its pixels, so that the new frame starts from
  // pixels shown as unknown, not over an image of another place.
  if (!(scale > 1e-4 && scale < 1e4) || !(std::abs(from.x0) < 1e7 && std::abs(from.y0) < 1e7)) {
    from.x0 = from.y0 = 1e30;
    from.dx = 1;
    from.dy = -1;
  }
  return {from, to};
}

}  // namespace mp
