#include "app/glossary.h"

#include <imgui.h>

#include <algorithm>
#include <utility>

#include "model/stall_figures.h"

namespace mp {
namespace {

constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
    {"pipe",
     "A pipe is one of an SM's execution units that warp instructions issue to: FMA (float "
     "multiply-add), ALU (integer and logic), XU (transcendentals), FP64 (double), LSU (loads "
     "and stores, such as a reference orbit's points). Each accepts a fixed number of warp "
     "instructions per cycle, so the mix of a loop sets how busy each "
     "is."},
    {"XU",
     "The transcendental unit (also called SFU or MUFU): __sinf, __cosf, reciprocal square root "
     "and the like. It takes far fewer instructions per cycle than the FMA pipe."},
    {"issue-bound",
     "Limited by the schedulers, which issue at most one warp instruction per cycle each, "
     "rather than by any one pipe: the loop has more instructions than any single pipe is slow "
     "for."},
    {"% of bound",
     "The model's least possible SM cycles for this frame (from the instruction mix, the "
     "iteration count and each pipe's rate) over the SM cycles measured. 100% would mean the "
     "kernel ran as fast as the pipes allow; the rest is latency, divergence, imbalance."},
    {"SIMT efficiency",
     "Pixel-iterations over 32 x warp-iterations: the share of a warp's 32 lanes doing useful "
     "work. A lane whose pixel has escaped idles until its warp's last pixel is done."},
    {"zoom",
     "The whole set's width (3) over the view's span. Kalles Fraktaler's Zoom, which the .kfr "
     "files F12 writes and Ctrl+V reads carry, is 4 over the span of the image's height: for a "
     "wide image a larger number for the same view."},
    {"Giter/s",
     "Billions of pixel-iterations (steps) a second. Run: the steps executed. Counted: the steps "
     "the pixels' counts say, which is more where steps were not executed: orbits found periodic "
     "and stopped early, or deep steps skipped by the bilinear approximation."},
    {"warp-issued iterations",
     "Per warp, its slowest lane's steps, summed over warps (also called warp-steps): what the "
     "pipes execute, since a warp steps until its last lane is done."},
    {"LSU",
     "The load/store unit: memory instructions go to it (LDG, LDS, STG). Of the variants only "
     "perturbation loads in its step: the reference orbit's point Z."},
    {"SM balance",
     "The mean busy span of the SMs over the longest one: 100% means every SM finished "
     "together; less means some idled while the last one worked."},
    {"reference orbit",
     "One point's orbit z <- z^2 + c computed in as many bits as the view's depth needs (MPFR), "
     "kept as doubles: every pixel of a deep view is iterated as its small difference from it."},
    {"perturbation",
     "Iterating a pixel's difference d from the reference orbit Z, d <- 2Zd + d^2 + dc, in double "
     "(or with an exponent of its own past double's range, or in float with one where FP64 is "
     "slow) instead of in thousands of bits."},
    {"rebasing",
     "Where a pixel's z = Z + d comes nearer 0 than its difference d is (or the reference ends), "
     "d becomes z and the reference starts again: one reference serves every pixel, no glitches."},
    {"bilinear approximation",
     "While |d| is tiny against |Z|, a run of steps is the linear map d <- A d + B dc; runs of "
     "2^l steps are merged with the radius within which they hold, so pixels skip most steps."},
    {"the seed articles",
     "Five short articles and forum answers by others (000 to 004), in Japanese, Chinese and "
     "English, on the SASS (the GPU's machine code) of the Mandelbrot step and on pipes, "
     "latency, launch overhead and indirect calls: how nvcc turns z*z + c into FMA-pipe "
     "instructions, and how fast that can run. The variants and experiments here test their "
     "claims; the articles are not in this repository (docs/model.md lists them)."},
};

}  // namespace

std::string_view glossary(std::string_view term) {
  for (const auto& [name, definition] : kTerms)
    if (name == term) return definition;
  // The warp states PC sampling reports are defined with the stall figures.
  return stall_meaning(term);
}

namespace {

// The term as a heading, its definition wrapped under it.
void tooltip(std::string_view term) {
  const std::string_view definition = glossary(term);
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
  ImGui::TextUnformatted(term.data(), term.data() + term.size());
  ImGui::Separator();
  ImGui::TextUnformatted(definition.data(), definition.data() + definition.size());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace

void explain_last_item(std::string_view term) {
  if (ImGui::IsItemHovered() && !glossary(term).empty()) tooltip(term);
}

void glossary_marker(std::string_view term) {
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) tooltip(term);
}

void text_with_term(const char* text, std::string_view term, std::string_view text_term) {
  // Wrapped within the window, however narrow, with room kept for the marker beside it.
  const float marker = ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::PushTextWrapPos(
      ImGui::GetCursorPosX() +
      std::max(ImGui::GetContentRegionAvail().x - marker, 8 * ImGui::GetFontSize()));
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  explain_last_item(text_term.empty() ? term : text_term);
  glossary_marker(term);
}

}  // namespace mp
