#include "app/overlay.h"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace mp {
namespace {

ImVec4 pipe_colour(const std::string& pipe) {
  if (pipe == "FMA") return {1.0f, 0.62f, 0.2f, 1};
  if (pipe == "fmaheavy") return {1.0f, 0.78f, 0.45f, 1};
  if (pipe == "fmalite") return {1.0f, 0.85f, 0.6f, 1};
  if (pipe == "ALU") return {0.4f, 0.7f, 1.0f, 1};
  if (pipe == "XU") return {0.8f, 0.5f, 1.0f, 1};
  if (pipe == "FP64") return {0.45f, 0.9f, 0.45f, 1};
  if (pipe == "issue") return {0.85f, 0.85f, 0.85f, 1};
  return {0.6f, 0.6f, 0.6f, 1};
}

void corner(int corner_index, float scale) {
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float pad = 10 * scale;
  const ImVec2 pos(corner_index & 1 ? vp->WorkPos.x + vp->WorkSize.x - pad : vp->WorkPos.x + pad,
                   corner_index & 2 ? vp->WorkPos.y + vp->WorkSize.y - pad : vp->WorkPos.y + pad);
  ImGui::SetNextWindowPos(pos, ImGuiCond_Always,
                          ImVec2(corner_index & 1 ? 1.0f : 0.0f, corner_index & 2 ? 1.0f : 0.0f));
  ImGui::SetNextWindowBgAlpha(0.8f);
}

// The history plots show the last 30 frames: half a second at 60 Hz is enough to see a trend,
// and keeps the overlay's drawing small beside the frame it measures.
constexpr std::size_t kHistoryPoints = 30;

constexpr ImGuiWindowFlags kOverlayFlags =
    ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

// The history as the area under it: two vertices a point, which the quads on either side
// share (a one-pixel polyline takes four a segment).
void add_area(ImDrawList* dl, const ImVec2* p, int n, float bottom, ImU32 c) {
  dl->PrimReserve((n - 1) * 6, n * 2);
  const ImVec2 uv = ImGui::GetFontTexUvWhitePixel();
  const auto first = static_cast<ImDrawIdx>(dl->_VtxCurrentIdx);
  for (int i = 0; i < n; ++i) {
    dl->PrimWriteVtx(p[i], uv, c);
    dl->PrimWriteVtx(ImVec2(p[i].x, bottom), uv, c);
  }
  for (int i = 0; i + 1 < n; ++i) {
    const auto a = static_cast<ImDrawIdx>(first + 2 * i);
    for (int k : {0, 1, 2, 2, 1, 3}) dl->PrimWriteIdx(static_cast<ImDrawIdx>(a + k));
  }
}

}  // namespace

void PipeOverlay::update(const std::vector<PipeLoad>& loads) {
  last_ = loads;
  for (const PipeLoad& p : loads) history_[p.name].push(static_cast<float>(100 * p.utilization));
}

void PipeOverlay::clear() {
  last_.clear();
  history_.clear();
}

void PipeOverlay::draw(const std::string& title, const std::string& mix_source, float cost_ms,
                       float ui_gpu_ms, float frame_ms, float scale) const {
  corner(1, scale);  // top right
  ImGui::Begin("##pipes", nullptr, kOverlayFlags);
  // Plain edges: anti-aliasing adds triangles, and on a datacenter GPU's slow raster path what
  // the overlay draws shows in the frame time. Its area too: the window's background took 10
  // of its 14 us of GPU time on an H200, so the notes go on lines of their own, narrower than
  // the pipe rows, which then set the width.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->Flags &= ~(ImDrawListFlags_AntiAliasedLines | ImDrawListFlags_AntiAliasedFill);
  ImGui::TextUnformatted(title.c_str());
  ImGui::TextDisabled("busy = model cycles / measured SM cycles");
  ImGui::TextDisabled("mix: %s", mix_source.c_str());
  if (last_.empty()) ImGui::TextUnformatted("no GPU measurement yet");
  ImGui::TextDisabled("overlay code %.3f ms CPU (%.1f%% of a %.2f ms frame), UI %.3f ms GPU",
                      cost_ms, frame_ms > 0 ? 100 * cost_ms / frame_ms : 0.0f, frame_ms, ui_gpu_ms);
  // The pipe rows go straight into the draw list, in fixed columns: ProgressBar and PlotLines
  // are items with hover tests, tooltips and rounded frames, and the overlay is drawn every
  // frame beside the frame it measures (--overlay-ab).
  const float line = ImGui::GetTextLineHeight(), row = ImGui::GetTextLineHeightWithSpacing();
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float name_w = ImGui::CalcTextSize("fmaheavy").x + gap, bar_w = 150 * scale;
  const float note_w = ImGui::CalcTextSize("<- limits 000.000 ms alone").x + gap;
  const float plot_w = 90 * scale;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  ImGui::Dummy(ImVec2(name_w + bar_w + gap + note_w + plot_w, row * last_.size()));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  const ImU32 frame = ImGui::GetColorU32(ImGuiCol_FrameBg);
  const ImU32 limiting_frame = IM_COL32(115, 31, 31, 255);
  float y = at.y;
  for (const PipeLoad& p : last_) {
    const ImU32 c = ImGui::ColorConvertFloat4ToU32(pipe_colour(p.name));
    float x = at.x;
    dl->AddText(ImVec2(x, y), c, p.name.c_str());
    x += name_w;
    const float fill = static_cast<float>(std::clamp(p.utilization, 0.0, 1.0));
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + bar_w, y + line),
                      p.limiting ? limiting_frame : frame);
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + bar_w * fill, y + line), c);
    char label[64];
    std::snprintf(label, sizeof label, "%5.1f%%", 100 * p.utilization);
    // The label dark over the bar's light colour and light over the empty frame, cut where the
    // bar ends. The glyphs are cut here (a fine clip rectangle), not by a scissor that would
    // take a draw command of its own.
    const float label_w = ImGui::CalcTextSize(label).x, label_x = x + 0.5f * (bar_w - label_w);
    const float fill_x = x + bar_w * fill;
    if (fill_x > label_x) {
      const ImVec4 clip(x, y, fill_x, y + line);
      dl->AddText(font, font_size, ImVec2(label_x, y), IM_COL32(20, 20, 20, 255), label, nullptr, 0,
                  &clip);
    }
    if (fill_x < label_x + label_w) {
      const ImVec4 clip(fill_x, y, x + bar_w, y + line);
      dl->AddText(font, font_size, ImVec2(label_x, y), text, label, nullptr, 0, &clip);
    }
    x += bar_w + gap;
    std::snprintf(label, sizeof label, "%s %.3f ms alone", p.limiting ? "<- limits" : "         ",
                  p.alone_ms);
    dl->AddText(ImVec2(x, y), text, label);
    x += note_w;
    const auto it = history_.find(p.name);
    const std::size_t n = it == history_.end() ? 0 : std::min(kHistoryPoints, it->second.size());
    if (n > 1) {
      std::array<ImVec2, kHistoryPoints> points;
      for (std::size_t i = 0; i < n; ++i) {
        const float v = std::clamp(it->second.newest(n - 1 - i), 0.0f, 100.0f);
        points[i] = ImVec2(x + plot_w * i / (kHistoryPoints - 1), y + line * (1 - v / 100));
      }
      dl->AddRectFilled(ImVec2(x, y), ImVec2(x + plot_w, y + line), frame);
      add_area(dl, points.data(), static_cast<int>(n), y + line, c);
    }
    y += row;
  }
  ImGui::End();
}

void draw_sass_view(const VariantInfo& v, bool recording, const LoopListing* listing,
                    const std::string& source, float scale) {
  corner(3, scale);  // bottom right
  ImGui::Begin("##sass", nullptr, kOverlayFlags);
  ImGui::Text("Step loop of %s%s  (%s)", v.name.data(),
              recording ? ", the kernel that records tile costs" : "", source.c_str());
  if (!listing) {
    ImGui::TextUnformatted("No SASS to show.");
    ImGui::End();
    return;
  }
  if (listing->copies > 1)
    ImGui::TextColored(ImVec4(1, 0.6f, 0.3f, 1),
                       "%zu copies of the step loop in the SASS: the first is shown and modelled",
                       listing->copies);
  for (const sass::Instruction& i : listing->code) {
    const char* pipe = sass::pipe_class_name(sass::classify(listing->sm, i.base()));
    ImGui::TextColored(pipe_colour(pipe), "%04x  %-5s %-6s %s %s", i.address, pipe,
                       i.predicate.c_str(), i.opcode.c_str(), i.operands.c_str());
  }
  const InstrMix& m = listing->mix;
  ImGui::Separator();
  ImGui::Text(
      "per loop trip (%d step%s): FMA %g (fmaheavy-only %g)  ALU %g  XU %g  FP64 %g  other %g",
      v.steps_per_check, v.steps_per_check > 1 ? "s" : "", m.fma, listing->heavy_only, m.alu, m.xu,
      m.fp64, m.other);
  ImGui::End();
}

}  // namespace mp
