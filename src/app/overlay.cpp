#include "app/overlay.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/glossary.h"

namespace mp {
namespace {

ImVec4 pipe_colour(const std::string& pipe) {
  if (pipe == "FMA") return {1.0f, 0.62f, 0.2f, 1};
  if (pipe == "fmaheavy") return {1.0f, 0.78f, 0.45f, 1};
  if (pipe == "fmalite") return {1.0f, 0.85f, 0.6f, 1};
  if (pipe == "ALU") return {0.4f, 0.7f, 1.0f, 1};
  if (pipe == "XU") return {0.8f, 0.5f, 1.0f, 1};
  if (pipe == "FP64") return {0.45f, 0.9f, 0.45f, 1};
  if (pipe == "LSU") return {0.95f, 0.45f, 0.6f, 1};
  if (pipe == "issue") return {0.85f, 0.85f, 0.85f, 1};
  return {0.6f, 0.6f, 0.6f, 1};
}

// The history plots show the last 30 frames: half a second at 60 Hz is enough to see a trend,
// and keeps the overlay's drawing small beside the frame it measures.
constexpr std::size_t kHistoryPoints = 30;

constexpr ImGuiWindowFlags kOverlayFlags =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

// A strip of quads, two vertices a point, which the quads on either side share (a one-pixel
// polyline takes four a segment): edge(i) gives point i's pair.
template <typename Edge>
void add_strip(ImDrawList* dl, int n, ImU32 c, Edge edge) {
  dl->PrimReserve((n - 1) * 6, n * 2);
  const ImVec2 uv = ImGui::GetFontTexUvWhitePixel();
  const auto first = static_cast<ImDrawIdx>(dl->_VtxCurrentIdx);
  for (int i = 0; i < n; ++i) {
    const auto [top, bottom] = edge(i);
    dl->PrimWriteVtx(top, uv, c);
    dl->PrimWriteVtx(bottom, uv, c);
  }
  for (int i = 0; i + 1 < n; ++i) {
    const auto a = static_cast<ImDrawIdx>(first + 2 * i);
    for (int k : {0, 1, 2, 2, 1, 3}) dl->PrimWriteIdx(static_cast<ImDrawIdx>(a + k));
  }
}

// The history as the area under it.
void add_area(ImDrawList* dl, const ImVec2* p, int n, float bottom, ImU32 c) {
  add_strip(dl, n, c, [&](int i) { return std::pair(p[i], ImVec2(p[i].x, bottom)); });
}

// The history as a line a pixel wide: each point's pair lies along the mitre of the segments
// either side of it, so that both keep the full width (up to 4 px across at sharp turns).
void add_line(ImDrawList* dl, const ImVec2* p, int n, ImU32 c) {
  const auto normal = [&](int i) {  // of the segment from point i on; x rises along it
    const ImVec2 d(p[i + 1].x - p[i].x, p[i + 1].y - p[i].y);
    const float len = std::sqrt(d.x * d.x + d.y * d.y);
    return ImVec2(-d.y / len, d.x / len);
  };
  add_strip(dl, n, c, [&](int i) {
    const ImVec2 a = normal(i > 0 ? i - 1 : 0), b = normal(i + 1 < n ? i : n - 2);
    const float ml = std::sqrt((a.x + b.x) * (a.x + b.x) + (a.y + b.y) * (a.y + b.y));
    const ImVec2 m((a.x + b.x) / ml, (a.y + b.y) / ml);
    const float half = std::min(0.5f / (m.x * a.x + m.y * a.y), 2.0f);
    return std::pair(ImVec2(p[i].x - m.x * half, p[i].y - m.y * half),
                     ImVec2(p[i].x + m.x * half, p[i].y + m.y * half));
  });
}

// The pipes whose busy cycles bound the frame: the counters' verdict is the busiest of them.
constexpr std::array<const char*, 8> kLimitingPipes = {"FMA", "fmaheavy", "fmalite", "ALU",
                                                       "XU",  "FP64",     "LSU",     "issue"};
const char* const kSmActive = "SM active";

bool may_limit(const std::string& pipe) {
  return std::find(kLimitingPipes.begin(), kLimitingPipes.end(), pipe) != kLimitingPipes.end();
}

// The model's bars and areas: the pipe's colour darkened, so that each pipe keeps its hue and
// the counters' line in the pipe's own colour shows over the model's area and the empty plot.
constexpr float kShade = 0.5f;

const ImVec4 kWarning(1, 0.6f, 0.3f, 1);

// A bar of pct percent; its figure is drawn in a column beside it, once (a label inside the
// bar, dark over the fill and light over the frame, took every glyph twice).
void add_bar(ImDrawList* dl, ImVec2 p, float w, float h, float pct, ImU32 fill, ImU32 frame) {
  const float fill_x = p.x + w * std::clamp(pct / 100, 0.0f, 1.0f);
  dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), frame);
  dl->AddRectFilled(p, ImVec2(fill_x, p.y + h), fill);
}

// The newest kHistoryPoints of `name`'s history as points in the plot's rectangle, the newest
// at its right edge so that the model's and the counters' histories line up however many points
// each has. Returns how many (0 when there are too few for a line).
int plot_points(const std::map<std::string, History>& histories, const std::string& name, ImVec2 p,
                float w, float h, ImVec2* out) {
  const auto it = histories.find(name);
  const std::size_t n = it == histories.end() ? 0 : std::min(kHistoryPoints, it->second.size());
  if (n < 2) return 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = std::clamp(it->second.newest(n - 1 - i), 0.0f, 100.0f);
    out[i] =
        ImVec2(p.x + w * (kHistoryPoints - n + i) / (kHistoryPoints - 1), p.y + h * (1 - v / 100));
  }
  return static_cast<int>(n);
}

// The fixed columns (window_places.h) at their natural widths for this font and scale.
OverlayColumns natural_columns(float scale) {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  return {gap,
          ImGui::CalcTextSize(kSmActive).x + gap,
          110 * scale,
          ImGui::CalcTextSize("100.0").x + gap,
          ImGui::CalcTextSize("+000.0").x + gap,
          80 * scale,
          ImGui::CalcTextSize("0.000 ms <- limits (both)").x};
}

}  // namespace

void PipeOverlay::update(const std::vector<PipeLoad>& loads, const CounterFigures* counters) {
  for (const PipeLoad& p : loads)
    model_history_[p.name].push(static_cast<float>(100 * p.utilisation));
  if (counters && !counters->unavailable.empty()) {
    counters_.clear();
    counters_ok_ = false;
  } else if (counters) {
    counters_ok_ = true;
    for (const CounterPipe& c : counters->pipes) {
      counters_history_[c.name].push(static_cast<float>(c.pct));
      const auto it = std::find_if(counters_.begin(), counters_.end(),
                                   [&](const CounterPipe& k) { return k.name == c.name; });
      if (it == counters_.end())
        counters_.push_back(c);
      else
        it->pct = c.pct;
    }
  }
  const CounterPipe* most = nullptr;
  for (const CounterPipe& c : counters_)
    if (may_limit(c.name) && c.pct > 0 && (!most || c.pct > most->pct)) most = &c;

  rows_.clear();
  const auto row = [this](const std::string& name) -> Row& {
    for (Row& r : rows_)
      if (r.name == name) return r;
    Row& r = rows_.emplace_back();
    r.name = name;
    const ImVec4 c = pipe_colour(name);
    r.colour = ImGui::ColorConvertFloat4ToU32(c);
    r.shade = ImGui::ColorConvertFloat4ToU32(ImVec4(c.x * kShade, c.y * kShade, c.z * kShade, 1));
    return r;
  };
  for (const PipeLoad& p : loads) {
    Row& r = row(p.name);
    r.has_model = true;
    r.model_pct = static_cast<float>(100 * p.utilisation);
    r.alone_ms = static_cast<float>(p.alone_ms);
    r.model_limits = p.limiting;
  }
  for (const CounterPipe& c : counters_)
    if (c.name != kSmActive) row(c.name);
  // Last, and there while the counters have no figures, so that the rows do not move.
  row(kSmActive).model_row = false;
  for (const CounterPipe& c : counters_) {
    Row& r = row(c.name);
    r.has_counters = true;
    r.counters_pct = static_cast<float>(c.pct);
    r.counters_limit = &c == most;
  }
  for (Row& r : rows_) {
    std::snprintf(r.model_text, sizeof r.model_text, r.has_model ? "%.1f" : "-", r.model_pct);
    std::snprintf(r.counters_text, sizeof r.counters_text, r.has_counters ? "%.1f" : "-",
                  r.counters_pct);
    if (r.has_model && r.has_counters)
      std::snprintf(r.diff_text, sizeof r.diff_text, "%+.1f", r.counters_pct - r.model_pct);
    if (r.has_model)
      std::snprintf(r.note, sizeof r.note, "%.3f ms%s", r.alone_ms,
                    r.model_limits ? (r.counters_limit ? " <- limits (both)" : " <- limits") : "");
    else if (r.counters_limit)
      std::snprintf(r.note, sizeof r.note, "<- limits (counters)");
  }
}

void PipeOverlay::clear() {
  rows_.clear();
  counters_.clear();
  counters_ok_ = false;
  model_history_.clear();
  counters_history_.clear();
}

void PipeOverlay::draw(bool gpu, const std::string& mix_source, const std::string& counters_source,
                       const StallLine& stalls, float cost_ms, float ui_gpu_ms,
                       const std::string& ui_timed_on, float frame_ms, float scale,
                       Layout& layout) const {
  const float room = layout.place_overlay();
  ImGui::SetNextWindowBgAlpha(0.8f);
  ImGui::Begin("##pipes", nullptr, kOverlayFlags & ~ImGuiWindowFlags_NoScrollbar);
  layout.placed(FixedWindow::Overlay);
  // Plain edges: anti-aliasing adds triangles, and on a datacenter GPU's slow raster path what
  // the overlay draws shows in the frame time. Its area too: the window's background took 10
  // of its 14 us of GPU time on an H200, so the text lines wrap at the width the pipe rows set.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->Flags &= ~(ImDrawListFlags_AntiAliasedLines | ImDrawListFlags_AntiAliasedFill);
  // Fixed columns, about 40 em in all where there is room, narrowed to the room beside the panel
  // where there is not (a small window, a large UI size).
  const OverlayColumns col = fit_overlay_columns(natural_columns(scale), room, 40 * scale);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + col.width());
  ImGui::TextUnformatted(gpu ? "Pipe utilisation (P)"
                             : "Pipe utilisation (P): needs the CUDA path");
  ImGui::TextDisabled("busy = cycles over the measured SM cycles");
  ImGui::TextDisabled("mix: %s", mix_source.c_str());
  if (counters_ok_)
    ImGui::TextDisabled("%s", counters_source.c_str());
  else
    ImGui::TextColored(kWarning, "%s", counters_source.c_str());
  if (stalls.warning)
    ImGui::TextColored(kWarning, "%s", stalls.text.c_str());
  else if (!stalls.term.empty())
    ImGui::TextUnformatted(stalls.text.c_str());
  else
    ImGui::TextDisabled("%s", stalls.text.c_str());
  if (!stalls.term.empty()) explain_last_item(stalls.term);
  if (rows_.empty())
    ImGui::TextUnformatted(gpu ? "no frame measured yet"
                               : "no pipe rows: the CPU path renders, and the rows are a GPU "
                                 "frame's model and counters");
  else
    draw_rows(dl, col, scale);
  // The whole kernel's parts and what the model leaves out under the rows: the rows are what a
  // projected overlay must show first, whatever the window's height.
  for (const auto& [text, dim] : parts_lines_)
    if (dim)
      ImGui::TextDisabled("%s", text.c_str());
    else
      ImGui::TextUnformatted(text.c_str());
  ImGui::TextDisabled("overlay code %.3f ms CPU (%.1f%% of a %.2f ms frame), UI draw %.3f ms of %s",
                      cost_ms, frame_ms > 0 ? 100 * cost_ms / frame_ms : 0.0f, frame_ms, ui_gpu_ms,
                      ui_timed_on.c_str());
  ImGui::PopTextWrapPos();
  ImGui::End();
}

void PipeOverlay::draw_rows(ImDrawList* dl, const OverlayColumns& col, float scale) const {
  const float line = ImGui::GetTextLineHeight();
  const float gap = ImGui::GetStyle().ItemSpacing.x, spacing = ImGui::GetStyle().ItemSpacing.y;
  const float name_w = col.name, bar_w = col.bar, value_w = col.value, diff_w = col.diff;
  const float plot_w = col.plot, width = col.width();
  // The pipe rows go straight into the draw list, in fixed columns: ProgressBar and PlotLines
  // are items with hover tests, tooltips and rounded frames, and the overlay is drawn every
  // frame beside the frame it measures (--overlay-ab). Each pipe stacks the model's bar over
  // the counters', a pixel apart, so that the pair reads as one pipe at a 13 px font.
  const float stack = line + std::round(scale);
  float height = line;  // the legend
  for (const Row& r : rows_) height += spacing + (r.model_row ? stack + line : line);
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(width, height));
  const float x_bar = at.x + name_w, x_value = x_bar + bar_w + gap, x_diff = x_value + value_w;
  const float x_plot = x_diff + diff_w;
  const float x_note = x_plot + plot_w + gap;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 warning = ImGui::ColorConvertFloat4ToU32(kWarning);
  // Neutral, not the style's blue FrameBg: the model's darkened ALU blue would vanish on that.
  const ImU32 frame = IM_COL32(48, 48, 52, 255);
  const ImU32 limiting_frame = IM_COL32(115, 31, 31, 255);

  // The legend: which shade is which, drawn over the columns it names.
  const float swatch = std::round(0.6f * line), swatch_y = at.y + 0.5f * (line - swatch);
  const ImVec4 grey = pipe_colour("issue");
  float x = x_bar;
  for (const auto& [c, label] :
       {std::pair(ImVec4(grey.x * kShade, grey.y * kShade, grey.z * kShade, 1), "model"),
        std::pair(grey, "counters")}) {
    dl->AddRectFilled(ImVec2(x, swatch_y), ImVec2(x + swatch, swatch_y + swatch),
                      ImGui::ColorConvertFloat4ToU32(c));
    x += swatch + 0.5f * gap;
    dl->AddText(ImVec2(x, at.y), dim, label);
    x += ImGui::CalcTextSize(label).x + gap;
  }
  // The column heads where their columns hold them (a narrowed overlay drops the note's).
  const char* diff_head =
      ImGui::CalcTextSize("diff (points)").x <= diff_w + plot_w ? "diff (points)" : "diff";
  if (x_diff >= x) dl->AddText(ImVec2(x_diff, at.y), dim, diff_head);
  if (col.note > 0) dl->AddText(ImVec2(x_plot + plot_w + gap, at.y), dim, "the pipe alone");

  std::array<ImVec2, kHistoryPoints> points;
  // Right-aligned in its column.
  const auto right = [&](float column_end, float y_text, ImU32 c, const char* t) {
    dl->AddText(ImVec2(column_end - gap - ImGui::CalcTextSize(t).x, y_text), c, t);
  };
  // One side's bar (empty where that side has no figure) and its figure beside it.
  const auto side = [&](float y_side, bool has, float pct, ImU32 fill, bool limits,
                        const char* figure) {
    add_bar(dl, ImVec2(x_bar, y_side), bar_w, line, has ? pct : 0, fill,
            limits ? limiting_frame : frame);
    right(x_diff, y_side, has ? text : dim, figure);
  };
  float y = at.y + line + spacing;
  for (const Row& r : rows_) {
    const float h = r.model_row ? stack + line : line;
    const float y_counters = y + h - line;
    const float mid = y + 0.5f * (h - line);  // the name and the diff: centred on the pair
    dl->AddText(ImVec2(at.x, mid), r.colour, r.name.c_str());
    if (r.model_row) side(y, r.has_model, r.model_pct, r.shade, r.model_limits, r.model_text);
    side(y_counters, r.has_counters, r.counters_pct, r.colour, r.counters_limit, r.counters_text);
    if (r.diff_text[0])
      right(x_plot, mid, std::abs(r.counters_pct - r.model_pct) > 5 ? warning : dim, r.diff_text);
    if (r.note[0] && col.note > 0) dl->AddText(ImVec2(x_note, mid), text, r.note);
    const ImVec2 plot(x_plot, y);
    if (plot_w > 0) {
      dl->AddRectFilled(plot, ImVec2(x_plot + plot_w, y + h), frame);
      if (const int n = plot_points(model_history_, r.name, plot, plot_w, h, points.data()))
        add_area(dl, points.data(), n, y + h, r.shade);
      if (const int n = plot_points(counters_history_, r.name, plot, plot_w, h, points.data()))
        add_line(dl, points.data(), n, r.colour);
    }
    y += h + spacing;
  }
}

void draw_sass_view(const VariantInfo& v, sass::KernelBuild build, const LoopListing* listing,
                    const std::string& source, const SassStalls& stalls, Layout& layout) {
  const float wrap = layout.place_sass_view();
  ImGui::SetNextWindowBgAlpha(0.8f);
  // A scroll bar where the loop is longer than the room under the overlay.
  ImGui::Begin("##sass", nullptr, kOverlayFlags & ~ImGuiWindowFlags_NoScrollbar);
  layout.placed(FixedWindow::SassView);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);  // every line wraps there
  ImGui::Text("Step loop of %s%s  (%s)", v.name.data(),
              build == sass::KernelBuild::Recording   ? ", the kernel that records tile costs"
              : build == sass::KernelBuild::Resumable ? ", the kernel that resumes cut orbits"
                                                      : "",
              source.c_str());
  if (!listing) {
    ImGui::TextUnformatted("No SASS to show.");
    ImGui::PopTextWrapPos();
    ImGui::End();
    return;
  }
  if (listing->copies > 1)
    ImGui::TextColored(kWarning,
                       "%zu copies of the step loop in the SASS: the first is shown and modelled",
                       listing->copies);
  // The newest stall reading over this kernel's lines, where it sampled this kernel at all.
  std::optional<ListingStalls> on_lines;
  if (stalls.figures && stalls.figures->samples_in(listing->function) > 0)
    on_lines = attribute_to_lines(*stalls.figures, listing->function, listing->code);
  if (on_lines) {
    const StallSummary& loop = on_lines->over_lines;
    ImGui::TextDisabled(
        "PC samples (frame %lld): %llu of this kernel, %.1f%% of them on the loop's lines; "
        "over the loop: %s, issued %.0f%%",
        stalls.frame, static_cast<unsigned long long>(on_lines->function_samples),
        on_lines->function_samples ? 100.0 * on_lines->on_lines / on_lines->function_samples : 0,
        leading_stall_text(loop).c_str(), 100 * loop.issued_share());
  } else {
    ImGui::TextDisabled(
        "%s", stalls.figures ? ("stall reasons: the newest reading (frame " +
                                std::to_string(stalls.frame) + ") has no samples of this kernel")
                                   .c_str()
                             : stalls.source.c_str());
  }
  // The stall column starts past the longest instruction, so that the columns line up.
  std::vector<std::string> texts;
  float text_w = 0;
  char buf[256];
  for (const sass::Instruction& i : listing->code) {
    const char* pipe = sass::pipe_class_name(sass::classify(listing->arch, i.base()));
    std::snprintf(buf, sizeof buf, "%04x  %-5s %-6s %s %s", i.address, pipe, i.predicate.c_str(),
                  i.opcode.c_str(), i.operands.c_str());
    texts.emplace_back(buf);
    text_w = std::max(text_w, ImGui::CalcTextSize(buf).x);
  }
  double most = 0;
  if (on_lines)
    for (const LineStalls& l : on_lines->lines) most = std::max(most, l.share);
  const float gap = ImGui::GetStyle().ItemSpacing.x, bar_w = 3 * ImGui::GetFontSize();
  for (std::size_t k = 0; k < listing->code.size(); ++k) {
    const sass::Instruction& i = listing->code[k];
    const ImVec4 colour =
        pipe_colour(sass::pipe_class_name(sass::classify(listing->arch, i.base())));
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextColored(colour, "%s", texts[k].c_str());
    if (!on_lines) continue;
    const LineStalls& l = on_lines->lines[k];
    // A bar of the line's share (against the busiest line) and the share with its leading
    // states, in the instruction's pipe colour.
    ImGui::SameLine(x0 + text_w + 2 * gap);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(ImVec2(p.x, p.y + 0.2f * h), ImVec2(p.x + bar_w, p.y + 0.8f * h),
                      IM_COL32(48, 48, 52, 255));
    if (most > 0)
      dl->AddRectFilled(ImVec2(p.x, p.y + 0.2f * h),
                        ImVec2(p.x + bar_w * static_cast<float>(l.share / most), p.y + 0.8f * h),
                        ImGui::ColorConvertFloat4ToU32(colour));
    ImGui::Dummy(ImVec2(bar_w, h));
    ImGui::SameLine();
    ImGui::TextColored(colour, "%s", stall_column_text(l).c_str());
    if (!l.reasons.empty()) explain_last_item(l.reasons.front().label);
  }
  const InstrMix& m = listing->mix;
  ImGui::Separator();
  ImGui::Text(
      "per loop trip (%d step%s): FMA %g (fmaheavy-only %g)  ALU %g  XU %g  FP64 %g  LSU %g  "
      "other %g",
      v.steps_per_check, v.steps_per_check > 1 ? "s" : "", m.fma, listing->heavy_only, m.alu, m.xu,
      m.fp64, m.lsu, m.other);
  if (on_lines)
    ImGui::TextDisabled(
        "beside each instruction: its share of this kernel's PC samples, then the warp states "
        "seen there (share of its samples); hover one for what it means");
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace mp
