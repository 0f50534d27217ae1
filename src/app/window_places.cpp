#include "app/window_places.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mp {
namespace {

// Floats summed in another order may differ in the last bit: an edge this close is shared.
constexpr float kSlack = 0.01f;

// `f` keeps `gap` from `t`.
bool apart(const Rect& f, const Rect& t, float gap) {
  return f.right() <= t.x - gap + kSlack || f.x >= t.right() + gap - kSlack ||
         f.bottom() <= t.y - gap + kSlack || f.y >= t.bottom() + gap - kSlack;
}

// The window of `wish` in the free place `f`, at its corner.
Rect at_corner(const Rect& f, const WindowWish& wish) {
  const float w = std::min(wish.width, f.w), h = std::min(wish.height, f.h);
  switch (wish.corner) {
    case Corner::TopLeft: return {f.x, f.y, w, h};
    case Corner::TopRight: return {f.right() - w, f.y, w, h};
    case Corner::BottomLeft: return {f.x, f.bottom() - h, w, h};
    case Corner::BottomRight: return {f.right() - w, f.bottom() - h, w, h};
  }
  return {f.x, f.y, w, h};
}

// How far `r` is from the area's `corner`, the first axis first.
std::pair<float, float> distance(const Rect& area, const Rect& r, Corner corner) {
  switch (corner) {
    case Corner::TopLeft: return {r.y - area.y, r.x - area.x};
    case Corner::TopRight: return {r.y - area.y, area.right() - r.right()};
    case Corner::BottomLeft: return {area.bottom() - r.bottom(), r.x - area.x};
    case Corner::BottomRight: return {area.bottom() - r.bottom(), area.right() - r.right()};
  }
  return {0, 0};
}

}  // namespace

ScreenGeometry ScreenGeometry::of(const Rect& viewport, float em, float line) {
  ScreenGeometry g;
  g.x = viewport.x;
  g.y = viewport.y;
  g.width = viewport.w;
  g.height = viewport.h;
  g.em = em;
  g.line = line;
  g.pad = std::round(0.6f * em);
  // Wide enough for the instruction-mix table and the variant buttons, three to a row.
  g.panel_width = std::min(33.0f * em, viewport.w * 0.45f);
  return g;
}

Rect ScreenGeometry::banner_band(float banner_height) const {
  const float left = right_of_panel();
  // Three lines and the window's padding above and below them.
  const float h = std::max(3 * line + em, banner_height);
  return {left, y + pad, std::max(x + width - pad - left, 0.0f), h};
}

WindowWish ScreenGeometry::wish(float width_em, float height_em, Corner corner) const {
  // Narrower or shorter than this, a table or a plot is no longer worth opening beside others.
  return {width_em * em, height_em * em, 24 * em, 10 * em, corner};
}

OverlayColumns fit_overlay_columns(OverlayColumns c, float room, float least_bar) {
  float over = c.width() - room;
  if (over <= 0) return c;
  const float plot = c.plot - std::min(over, c.plot);
  over -= c.plot - plot;
  c.plot = plot < least_bar / 2 ? 0 : plot;
  over -= plot - c.plot;
  if (over <= 0) return c;
  const float bar = std::max(c.bar - over, std::min(least_bar, c.bar));
  over -= c.bar - bar;
  c.bar = bar;
  if (over > 0) c.note = 0;
  return c;
}

std::optional<Rect> free_place(const Rect& area, const std::vector<Rect>& taken, float gap,
                               const WindowWish& wish) {
  // A free place's edges are the area's or lie a gap from a taken rectangle's.
  std::vector<float> lefts{area.x}, rights{area.right()}, tops{area.y}, bottoms{area.bottom()};
  for (const Rect& t : taken) {
    lefts.push_back(t.right() + gap);
    rights.push_back(t.x - gap);
    tops.push_back(t.bottom() + gap);
    bottoms.push_back(t.y - gap);
  }
  const float wished = std::max(wish.width * wish.height, 1.0f);
  std::optional<Rect> best;
  float best_share = -1;
  std::pair<float, float> best_distance;
  for (float x0 : lefts)
    for (float x1 : rights) {
      if (x1 - x0 < wish.min_width || x0 < area.x || x1 > area.right()) continue;
      for (float y0 : tops)
        for (float y1 : bottoms) {
          if (y1 - y0 < wish.min_height || y0 < area.y || y1 > area.bottom()) continue;
          const Rect f{x0, y0, x1 - x0, y1 - y0};
          if (!std::all_of(taken.begin(), taken.end(),
                           [&](const Rect& t) { return apart(f, t, gap); }))
            continue;
          const Rect r = at_corner(f, wish);
          // Nine tenths of the wished size is as good as all of it: the corner decides then.
          const float share = std::min(r.w * r.h / wished, 0.9f);
          const auto d = distance(area, r, wish.corner);
          if (share > best_share || (share == best_share && d < best_distance)) {
            best = r;
            best_share = share;
            best_distance = d;
          }
        }
    }
  return best;
}

float room_below(const Rect& area, const std::vector<Rect>& taken, float gap, const Rect& self) {
  float limit = area.bottom();
  for (const Rect& t : taken)
    if (t.y > self.y && t.x < self.right() && self.x < t.right())
      limit = std::min(limit, t.y - gap);
  return std::max(limit - self.y, 0.0f);
}

void WindowPlaces::start_frame(const Rect& area, float gap, bool relayout) {
  area_ = area;
  gap_ = gap;
  ++frame_;
  relayout_ = relayout;
  if (relayout)
    for (auto& [name, w] : windows_) w.users = false;
}

void WindowPlaces::fixed(const std::string& name, const Rect& r) {
  Window& w = windows_[name];
  w.rect = r;
  w.fixed = true;
  w.seen = frame_;
}

Rect WindowPlaces::Window::footprint(bool squeezed) const {
  if (fixed || users || !given) return rect;
  return {rect.x, rect.y, rect.w, std::min(rect.h, squeezed ? min_height : given->h)};
}

std::vector<Rect> WindowPlaces::others(const std::string& name, Clear clear) const {
  std::vector<Rect> out;
  for (const auto& [key, w] : windows_)
    if (key != name &&
        (w.fixed ? w.seen == frame_ : clear != Clear::FixedOnly && w.seen >= frame_ - 1))
      out.push_back(w.footprint(clear == Clear::Squeezed));
  return out;
}

std::optional<Rect> WindowPlaces::room_for(const std::string& name, const WindowWish& wish) const {
  if (const auto r = free_place(area_, others(name, Clear::Placed), gap_, wish)) return r;
  // Its least height, as low as it goes: the windows above keep all the room it leaves them.
  WindowWish least = wish;
  least.height = wish.min_height;
  const bool left = wish.corner == Corner::TopLeft || wish.corner == Corner::BottomLeft;
  least.corner = left ? Corner::BottomLeft : Corner::BottomRight;
  if (const auto r = free_place(area_, others(name, Clear::Squeezed), gap_, least)) return r;
  return free_place(area_, others(name, Clear::FixedOnly), gap_, wish);
}

WindowPlaces::Placement WindowPlaces::place(const std::string& name, const WindowWish& wish) {
  Window& w = windows_[name];
  w.min_height = wish.min_height;
  Placement p;
  p.first = w.seen == -2;
  if (!w.users) {
    if (relayout_ || w.seen < frame_ - 1) {
      // Opening: where there is room, else (no room even over other tool windows) at its corner.
      p.move_to = room_for(name, wish);
      if (!p.move_to) p.move_to = at_corner(area_, wish);
    } else {
      // Out of the viewport, or under a fixed window: moved where there is room, if there is.
      const std::vector<Rect> fixed = others(name, Clear::FixedOnly);
      const bool covered = std::any_of(fixed.begin(), fixed.end(),
                                       [&](const Rect& t) { return !apart(w.rect, t, 0); });
      if (covered || !w.rect.inside(area_)) p.move_to = room_for(name, wish);
    }
  }
  if (p.move_to) w.given = p.move_to;
  p.users = w.users;
  const Rect at = p.move_to.value_or(w.rect);
  const float to_bottom = std::max(area_.bottom() - at.y, 0.0f);
  p.max_height = w.users ? to_bottom
                         : std::max(room_below(area_, others(name, Clear::Placed), gap_, at),
                                    std::min(wish.min_height, to_bottom));
  return p;
}

void WindowPlaces::seen(const std::string& name, const Rect& r) {
  Window& w = windows_[name];
  const auto moved = [&](const Rect& g) {
    return std::abs(r.x - g.x) > 1 || std::abs(r.y - g.y) > 1 || std::abs(r.w - g.w) > 1;
  };
  if (!w.users && w.given && moved(*w.given)) w.users = true;
  w.rect = r;
  w.fixed = false;
  w.seen = frame_;
}

std::optional<Rect> WindowPlaces::last(const std::string& name) const {
  const auto it = windows_.find(name);
  if (it == windows_.end() || it->second.seen == -2) return std::nullopt;
  return it->second.rect;
}

bool WindowPlaces::shown(const std::string& name) const {
  const auto it = windows_.find(name);
  return it != windows_.end() && it->second.seen == frame_;
}

bool WindowPlaces::refit(const std::string& name, bool asked) {
  int& left = windows_[name].refit_frames;
  if (asked) left = 2;
  if (left == 0) return false;
  --left;
  return true;
}

}  // namespace mp
