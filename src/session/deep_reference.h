// A deep view's reference: the orbit of one point in as many bits as the depth needs and its
// bilinear tables, made once (off the window's thread where it takes long) and shared, never
// changed, by every frame it serves while the user pans and zooms within its reach.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "model/view.h"
#include "render/bla_table.h"
#include "render/reference_orbit.h"

namespace mp {

struct DeepReference {
  BigReal x, y;           // the reference point
  unsigned max_iter = 0;  // the limit it was computed to
  // Where the view's centre escaped early, the reference moved to the nucleus of a minibrot in
  // view: its period (0: the reference is the centre) and the step the centre escaped at.
  unsigned nucleus_period = 0;
  unsigned centre_escaped_at = 0;
  // The ball method's period for the image it was made for, from its orbit: the lowest
  // minibrot's in it, or where there is none, the lowest within the first of 4, 16, 64 and 256
  // times the image's reach that holds one (its boundary, zoomed into); 0 where none is within
  // the orbit's steps. Near a minibrot of period p the pixels escape only after several times p
  // steps, which the automatic limit needs to know.
  unsigned view_period = 0;
  bool period_in_view = false;
  ReferenceOrbit orbit;
  FloatExp dc_max;  // the tables hold for pixels up to this far from the point
  BlaTable<BlaX> extended;
  BlaTable<BlaD> dbl;
  BlaTable<BlaF> flt;
  double bla_ms = 0;
};

// Whether `ref` serves the view at this size: bits enough for its pixels, the point within a
// few spans of its centre, the orbit long enough (or escaped before the view's limit), and
// the tables made for its pixels' distances.
bool serves(const DeepReference& ref, const View& view, int width, int height);

// A reference for the view at this size: at its centre, or where the centre's orbit escapes
// before the limit, at the nucleus of the minibrot nearest it within the image (the ball method's
// period, then Newton's method), whose orbit never escapes; nothing if `cancel` was set meanwhile.
// Its tables hold for pixels up to twice the image's half diagonal from the point (and for every
// pixel of the view), so that small moves keep it; `tables` false makes none (a renderer that
// iterates every step reads none).
std::shared_ptr<const DeepReference> make_reference(
    const View& view, int width, int height, const std::atomic<bool>* cancel = nullptr,
    const std::function<void(double)>& progress = nullptr, bool tables = true);

// A reference at the point (x, y), in `bits`, for the view at this size: nothing if `cancel` was
// set meanwhile. Its tables hold as make_reference's do.
std::shared_ptr<const DeepReference> reference_at(
    const BigReal& x, const BigReal& y, const View& view, int width, int height, int bits,
    const std::atomic<bool>* cancel = nullptr,
    const std::function<void(double)>& progress = nullptr);

// The view's pixels as differences from the reference point.
DeepGrid deep_grid(const DeepReference& ref, const View& view, int width, int height);

}  // namespace mp
