// render's --auto-iters: the iteration limit found from a small preview of a view, as the window
// raises it (model/auto_iterations.h), for a still and for each frame of a zoom sequence.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "commands/piece_renderer.h"
#include "commands/render_plan.h"
#include "model/auto_iterations.h"
#include "model/palette.h"
#include "model/precision_choice.h"
#include "model/view.h"
#include "session/device.h"

namespace mp {

// A preview an eighth of the image's width (64 to 480 pixels), re-rendered with the limit
// doubled while over 2% of its edge reaches the limit, or over 1% of it escapes only in the
// limit's last half, and doubling frees some (or, most of the edge still at the limit, below the
// floor of its depth and of the minibrot in or near the view).
class LimitPreview {
 public:
  // What renders a view: render's precision rule.
  using Choose = std::function<PrecisionChoice(const View&)>;
  LimitPreview(const Plan& plan, const std::optional<DeviceInfo>& device, bool approximate,
               Choose choose);

  // The limits tried from `v`'s own, last the one to render with; `a` carries what earlier raises
  // found (a stall) from view to view.
  std::vector<unsigned> limits(View v, AutoIterations& a, Progress& progress);
  // Colours fitted to `v`'s preview (model/palette.h's fitted_colours), or nothing where its
  // counts do not differ.
  std::optional<FittedColours> colours(const View& v, const ColourParams& c, Progress& progress);
  // The last deep preview's reference, made for the whole image (so that the render takes it up
  // rather than making it again); nothing where no preview was deep.
  const std::shared_ptr<const DeepReference>& reference() const { return reference_; }
  // The period of the minibrot in or near the last preview's view (the ball method's,
  // DeepReference's view_period), 0: none or not deep; and whether it is in view.
  unsigned period() const { return period_; }
  bool period_in_view() const { return period_in_view_; }

 private:
  void render(const View& v, Progress& progress);
  int pw_, ph_;
  int width_, height_;  // the image's, in samples
  bool approximate_;
  Choose choose_;
  PieceRenderer renderer_;
  std::vector<float> data_;
  std::optional<View> rendered_;  // what data_ holds
  std::shared_ptr<const DeepReference> reference_;
  unsigned period_ = 0;  // of the minibrot in or near the rendered view (the limit's floor)
  bool period_in_view_ = false;
};

// The frames' limits: shallowest frame first, each from a preview of it starting at the limit of
// the frame before it (`base` for the first), so that a limit once raised stays as the zoom goes
// deeper; as in the window's zoom, the raises start afresh once the zoom has gone past a factor
// of 8 since the last fresh start.
std::vector<unsigned> sequence_limits(const std::vector<View>& views, unsigned base,
                                      LimitPreview& preview, Progress& progress);

}  // namespace mp
