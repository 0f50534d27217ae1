#include "app/panel.h"

#include "model/precision_choice.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <utility>

#include "app/glossary.h"
#include "gpu_renderer.h"
#include "io/counter_columns.h"
#include "io/settings.h"
#include "model/variant_table.h"
#include "variants.h"

namespace mp {
namespace {

const ImVec4 kWarning(1, 0.7f, 0.3f, 1);
// How long the bookmark's name field may take to get the keyboard before letters go elsewhere.
constexpr int kFocusFrames = 8;

// The variant adds a colouring term per step (its struct's kAux), which the stripes weigh.
bool has_colouring_term(VariantId id) {
  return with_variant(id, [](auto v) { return decltype(v)::kAux; });
}

// "fma4-sin, sin-ratio": the variants with a colouring term, for the stripes' tooltip.
std::string colouring_variants() {
  std::string s;
  for (const VariantInfo& v : all_variants())
    if (has_colouring_term(v.id)) s += (s.empty() ? "" : ", ") + std::string(v.name);
  return s;
}

// A bullet whose text wraps at the panel's edge instead of running past it.
template <typename... Args>
void bullet(const char* format, Args... args) {
  ImGui::Bullet();
  ImGui::TextWrapped(format, args...);
}

// Why a greyed control is off, on hover.
void why_disabled(const char* reason) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", reason);
}

// A section header whose label carries a summary, so that a collapsed section still says
// something; `id` keeps its open state when the summary changes.
bool section(const std::string& label, const char* id, bool open_by_default) {
  return ImGui::CollapsingHeader((label + "###" + id).c_str(),
                                 open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
}

void device_section(const PanelInputs& in) {
  const std::string& fallback = in.pipeline.fallback_reason();
  const std::string label = std::string("Device & path: ") +
                            (in.pipeline.on_gpu() ? "CUDA" : "CPU") +
                            (fallback.empty() ? "" : " (a fallback: open for why)");
  if (!fallback.empty()) ImGui::PushStyleColor(ImGuiCol_Text, kWarning);
  const bool open = section(label, "device", false);
  if (!fallback.empty()) ImGui::PopStyleColor();
  if (!open) return;
  ImGui::PushTextWrapPos(0.0f);
  if (in.device.device) {
    const DeviceInfo& d = *in.device.device;
    ImGui::Text("%s  sm_%d%d  %d SMs", d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count);
  } else {
    ImGui::TextUnformatted("No CUDA device in use");
  }
  ImGui::Text("Renderer: %s", in.pipeline.renderer_description().c_str());
  ImGui::Text("Present:  %s", in.pipeline.present_description().c_str());
  if (!fallback.empty()) ImGui::TextColored(kWarning, "Fallback: %s", fallback.c_str());
  ImGui::PopTextWrapPos();
}

void variant_section(Explorer& ex, const PanelInputs& in) {
  const VariantInfo& vi = variant_info(ex.variant);
  const bool moved = ex.variant != ex.own_variant;
  if (!section("Variant: " + std::string(vi.name) +
                   (moved ? " (for precision; yours " +
                                std::string(variant_info(ex.own_variant).name) + ")"
                          : ""),
               "variant", true))
    return;
  const auto& variants = all_variants();
  // As many to a row as the widest label allows: the same rows whichever is picked.
  float widest = 0;
  for (std::size_t i = 0; i < variants.size(); ++i)
    widest = std::max(widest, ImGui::CalcTextSize(variants[i].name.data()).x);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float cell = widest + ImGui::CalcTextSize("10: ").x + ImGui::GetFrameHeight() +
                     style.ItemInnerSpacing.x + style.ItemSpacing.x;
  const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / cell));
  for (std::size_t i = 0; i < variants.size(); ++i) {
    char label[64];
    // Keys 1-9, then 0 for the tenth (key_bindings.cpp); the ones after have no number key.
    if (i < 10)
      std::snprintf(label, sizeof label, "%zu: %s", (i + 1) % 10, variants[i].name.data());
    else
      std::snprintf(label, sizeof label, "   %s", variants[i].name.data());
    if (i % per_row != 0)
      ImGui::SameLine(static_cast<float>(i % per_row) * cell + style.WindowPadding.x);
    if (ImGui::RadioButton(label, ex.own_variant == variants[i].id)) ex.set_variant(variants[i].id);
  }
  bool pin = ex.pin_variant;
  if (ImGui::Checkbox("pin variant (K)", &pin)) in.act(Action::PinVariant);
  why_disabled(
      "Off: as you zoom past what float can tell apart, df64 or fp64 (whichever is faster here) "
      "renders instead, and your variant again once you zoom out.\nOn: your variant always.");
  ImGui::SameLine();
  if (moved)
    ImGui::TextColored(kWarning, "rendering %s for precision", vi.name.data());
  else
    ImGui::TextDisabled(ex.pin_variant ? "kept at any depth" : "deeper variants as needed");
  // A fixed height for the summary and sin-ratio's line, so that nothing below moves when the
  // variant changes.
  const float lines = 3;
  ImGui::BeginChild("##summary", ImVec2(0, lines * ImGui::GetTextLineHeightWithSpacing()), false,
                    ImGuiWindowFlags_NoScrollbar);
  ImGui::TextWrapped("%s", vi.summary.data());
  if (ex.variant == VariantId::SinRatio) {
    ImGui::Text("%d __sinf per step on sm_%d", variants::sines_per_step(in.arch), in.arch);
    ImGui::SameLine();
    const char* busy = ex.measuring();
    ImGui::BeginDisabled(!in.pipeline.gpu() || busy);
    if (ImGui::SmallButton("measure the balance")) in.measure_balance();
    ImGui::EndDisabled();
    const std::string running = busy ? std::string(busy) + " running" : "";
    why_disabled(!in.pipeline.gpu() ? "the sweep times GPU kernels: it needs the CUDA path"
                 : busy             ? running.c_str()
                                    : "times fma4 with 0 to 4 __sinf per step");
  }
  ImGui::EndChild();
}

void view_section(Explorer& ex, const PanelInputs& in) {
  char label[96];
  std::snprintf(label, sizeof label, "View: span %s, %u iterations%s",
                span_text(ex.view.span, 3).c_str(), ex.view.max_iter,
                ex.auto_iters ? " (auto)" : "");
  if (in.naming.focus) ImGui::SetNextItemOpen(true);  // B shows the field it asks for
  if (!section(label, "view", true)) return;
  // Deep centres run to thousands of digits: the panel shows the leading ones, the view text
  // (Ctrl+C) carries them all.
  ImGui::Text("Centre %s, %s", ex.view.center_x.str(15).c_str(), ex.view.center_y.str(15).c_str());
  ImGui::Text("Span   %s, zoom %s", span_text(ex.view.span).c_str(),
              span_text(quotient(View().span, ex.view.span), 3).c_str());
  int iters = static_cast<int>(ex.view.max_iter);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::InputInt("max iterations", &iters, 256, 4096)) {
    View v = ex.view;
    v.max_iter = static_cast<unsigned>(std::clamp(iters, 1, static_cast<int>(kMaxIterations)));
    ex.set_view(v);
    ex.auto_iters = false;  // the user's own limit
  }
  bool automatic = ex.auto_iters;
  if (ImGui::Checkbox("automatic", &automatic)) {
    ex.auto_iters = automatic;
    ex.dirty = true;
  }
  ImGui::SameLine();
  ImGui::TextDisabled(ex.auto_iters ? "doubled: edge 2%% inside or 1%% late"
                                    : "the limit stays as set");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
  if (ImGui::BeginCombo("bookmark", "go to...")) {
    for (const Bookmark& b : in.bookmarks)
      if (ImGui::Selectable(b.name.c_str())) in.go_to(b.view);
    if (!in.user_bookmarks.empty()) ImGui::Separator();
    for (std::size_t i = 0; i < in.user_bookmarks.size(); ++i) {
      ImGui::PushID(static_cast<int>(i));  // a name may repeat a built-in one
      if (ImGui::Selectable(in.user_bookmarks[i].name.c_str())) in.go_to(in.user_bookmarks[i].view);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("save (B)")) in.act(Action::SaveBookmark);
  if (!in.user_bookmarks_problem.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", in.user_bookmarks_problem.c_str());
    ImGui::PopTextWrapPos();
  }
  BookmarkNaming& n = in.naming;
  if (!n.open) return;
  ImVector<ImWchar>& queue = ImGui::GetIO().InputQueueCharacters;
  if (std::exchange(n.focus, false)) {
    ImGui::SetKeyboardFocusHere();
    n.frames_waited = 0;
  } else if (n.frames_waited >= 0) {
    // Kept, oldest first, until the field holds the keyboard: on the frame it takes it, it
    // drops what is typed.
    n.typed_early.insert(n.typed_early.end(), queue.begin(), queue.end());
    queue.resize(0);
    if (n.active || ++n.frames_waited > kFocusFrames) {
      if (n.active)
        for (unsigned c : n.typed_early) queue.push_back(static_cast<ImWchar>(c));
      n.typed_early.clear();
      n.frames_waited = -1;
    }
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
  const bool entered =
      ImGui::InputTextWithHint("name", "Enter saves, Esc cancels", n.name.data(), n.name.size(),
                               ImGuiInputTextFlags_EnterReturnsTrue);
  n.active = ImGui::IsItemActive();
  if (n.escape) {
    n = BookmarkNaming{};
  } else if (entered || std::exchange(n.enter, false)) {
    if (in.save_bookmark(n.name.data()))
      n = BookmarkNaming{};
    else
      n.focus = true;  // the status says why; the name stays to be mended
  } else if (ImGui::IsItemDeactivated() &&
             ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    n = BookmarkNaming{};
  }
}

// The render times as a line with its range and unit; ImGui shows each point's value on hover.
void render_plot(const Explorer& ex, const PanelInputs& in) {
  const History& h = ex.render_ms;
  float top = 0;
  for (std::size_t i = 0; i < h.size(); ++i) top = std::max(top, h.newest(i));
  top = top > 0 ? top * 1.1f : 1.0f;
  const char* unit = in.last.gpu ? "kernel ms (CUDA events)" : "CPU render ms";
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s, 0 to %.3g, over the last %zu renders (hover: values)", unit, top,
                      h.size());
  ImGui::PopTextWrapPos();
  ImGui::PlotLines("##render", h.data(), static_cast<int>(h.size()), h.offset(), nullptr, 0.0f, top,
                   ImVec2(ImGui::GetContentRegionAvail().x, 3 * ImGui::GetFontSize()));
}

// What the GPU's own counters read, against the model: the source (or why none), the clock
// they saw, and the instructions they counted beside those the model's step loop accounts for.
void counters_part(const Explorer& ex, const PanelInputs& in, const GpuFrameStats& s) {
  ImGui::Text("Hardware counters (CUPTI PM sampling):");
  const bool ok = in.counter_figures && in.counter_figures->unavailable.empty();
  ImGui::PushTextWrapPos(0.0f);
  if (in.counters_refused)
    ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "%s", in.counters_source.c_str());
  else
    ImGui::TextDisabled("%s", in.counters_source.c_str());
  // A frame the sampler had no figures for, while the sampler itself runs.
  if (in.counter_figures && !in.counter_figures->unavailable.empty() && !in.counters_refused)
    ImGui::TextDisabled("last frame: %s", in.counter_figures->unavailable.c_str());
  ImGui::PopTextWrapPos();
  if (!ok) return;
  const CounterFigures& c = *in.counter_figures;
  bullet("clock %.3f GHz over %d sample%s of a %.3f ms span", c.clock_ghz, c.samples,
         c.samples == 1 ? "" : "s", c.span_ms);
  if (s.launches > 1)
    bullet(
        "read from the first of the frame's %d launches to the end of the last, the window's "
        "drawing between them included",
        s.launches);
  // The model counts the step loop only; the rest of the kernel (per pixel, per tile, the
  // queue) is what the counters see beyond it.
  const InstrMix per_step = per_step_mix(ex.variant, in.arch, in.sass, build_of(s));
  const double modelled = per_step.total() * static_cast<double>(s.warp_iters);
  if (c.warp_instructions > 0) {
    bullet("instructions: %.4g counted, %.4g in the modelled step loop", c.warp_instructions,
           modelled);
    bullet("outside the step loop: %.4g (%.1f%% of counted)", c.warp_instructions - modelled,
           100 * (c.warp_instructions - modelled) / c.warp_instructions);
  }
}

// The frame, rendered a slice (CPU) or a launch (CUDA) per window frame: how far it is, or in how
// many it was done. Always one line, so that nothing below it moves as frames start and end.
void slice_progress(const PanelInputs& in) {
  char text[64];
  const unsigned pieces =
      in.last.gpu ? static_cast<unsigned>(in.last.gpu_stats.launches) : in.last.cpu_stats.slices;
  const int passes = in.last.gpu ? in.last.gpu_stats.passes : 1;
  if (!in.paused.empty())
    std::snprintf(text, sizeof text, "paused for a measurement");
  else if (in.pipeline.refining() && in.pipeline.passes() > 1)
    std::snprintf(text, sizeof text, "rendering %.0f%% of pixels, pass %d",
                  100 * in.pipeline.progress(), in.pipeline.passes());
  else if (in.pipeline.refining())
    std::snprintf(text, sizeof text, "rendering %.0f%%", 100 * in.pipeline.progress());
  else if (passes > 1)
    std::snprintf(text, sizeof text, "done in %u launches, %d passes", pieces, passes);
  else
    std::snprintf(
        text, sizeof text, "done in %u %s", pieces,
        in.last.gpu ? (pieces == 1 ? "launch" : "launches") : (pieces == 1 ? "slice" : "slices"));
  ImGui::ProgressBar(static_cast<float>(in.pipeline.progress()), ImVec2(-1.0f, 0), text);
}

// Every counter source's columns for the last frame, named as bench's files name them: the
// measuring kit's (CUDA events, SM clock64), the hardware counters' and any further source's.
void sources_table(const PanelInputs& in, const GpuFrameStats& s) {
  if (!ImGui::TreeNode("Counter sources, as bench's files name them")) return;
  const FrameNumbers f{s.kernel_ms, static_cast<double>(s.sm_cycles),
                       static_cast<double>(s.pixel_iters), static_cast<double>(s.warp_iters),
                       s.sm_cycles_mean};
  std::vector<SourceColumns> sources = {events_columns(f), clock64_columns(f)};
  for (SourceColumns& c : counter_sources(in.counter_figures)) sources.push_back(std::move(c));
  if (ImGui::BeginTable("sources", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const SourceColumns& src : sources) {
      const auto row = [&](const std::string& name, const std::string& value) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", src.source.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(name.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(value.c_str());
      };
      for (const MeasureColumn& c : src.columns) row(src.prefix + c.key, column_text(c));
      if (!src.note.empty()) row(src.prefix + "note", src.note);
    }
    ImGui::EndTable();
  }
  ImGui::TreePop();
}

// Deep views: what perturbation did, measured, beside the reference it used, and how near the
// bound of its every-step loop the GPU's steps ran.
void deep_section(Explorer& ex, const PanelInputs& in) {
  const DeepStatus& d = in.deep;
  char label[96];
  if (d.reference_pending)
    std::snprintf(label, sizeof label, "Measurement: reference orbit %.0f%%",
                  100 * d.reference_done);
  else if (d.refining)
    std::snprintf(label, sizeof label, "Measurement: rendering %.0f%%", 100 * d.progress);
  else
    std::snprintf(label, sizeof label, "Measurement: perturbation %.3f ms",
                  d.last ? d.last->ms : 0.0);
  if (!section(label, "measurement", true)) return;
  bool live = ex.live;
  if (ImGui::Checkbox("live: re-render every frame", &live)) ex.live = live;
  char text[96];
  double bar = d.progress;
  if (d.reference_pending) {
    std::snprintf(text, sizeof text, "reference orbit in MPFR: %.0f%%, %.1f s",
                  100 * d.reference_done, d.reference_s);
    bar = d.reference_done;
  } else if (d.refining) {
    std::snprintf(text, sizeof text, "rendering %.0f%%", 100 * d.progress);
  } else {
    std::snprintf(text, sizeof text, "done in %d %s", d.last ? d.last->launches : 0,
                  d.last && d.last->gpu ? "launches" : "bands");
    bar = 1;
  }
  ImGui::ProgressBar(static_cast<float>(bar), ImVec2(-1.0f, 0), text);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextUnformatted(perturbation_name(d.format));
  ImGui::TextDisabled(
      "each pixel iterates its difference from one reference orbit, kept in MPFR's bits");
  if (const DeepReference* r = d.reference) {
    bullet("reference: %d bits, %zu steps%s, %.0f ms", r->orbit.bits, r->orbit.z.size() - 1,
           r->orbit.escaped ? " (it escapes: pixels past it rebase)" : "", r->orbit.ms);
    if (r->nucleus_period)
      bullet("at a minibrot's nucleus of period %u in view (the centre escapes at step %u)",
             r->nucleus_period, r->centre_escaped_at);
    bullet("bilinear approximation: %d levels of merged steps, built in %.0f ms",
           r->extended.levels(), r->bla_ms);
  }
  if (const std::optional<DeepStats>& s = d.last) {
    bullet("last frame: %.2f ms %s; longest launch so far %.2f ms", s->ms,
           s->gpu ? "of kernels (CUDA events)" : "on the CPU (wall)", d.longest_ms);
    const double counted = static_cast<double>(s->pixel_iters);
    const double run = static_cast<double>(s->iterated);
    bullet("steps counted %.4g, iterated %.4g (%.2f%%): %.4g skipped by the approximation", counted,
           run, counted > 0 ? 100 * run / counted : 0.0, counted - run);
    bullet("rebases: %.4g", static_cast<double>(s->rebases));
    if (s->warp_iterated)
      bullet("SIMT efficiency of the steps iterated: %.1f%% (a warp runs to its slowest lane)",
             100 * run / (32.0 * static_cast<double>(s->warp_iterated)));
    if (s->ms > 0)
      bullet("%.3g Giter/s counted, %.3g Giter/s iterated", counted / s->ms * 1e-6,
             run / s->ms * 1e-6);
  } else {
    bullet("no deep frame finished yet");
  }
  const LoopListing* loop = in.sass ? in.sass->loop(ex.variant, sass::KernelBuild::Plain) : nullptr;
  if (loop && loop->branches_within > 0) {
    bullet(
        "no %% of bound: %s's loop lists paths a step chooses between (%zu branch%s), so its "
        "model counts more than a step issues",
        variant_info(ex.variant).name.data(), loop->branches_within,
        loop->branches_within == 1 ? "" : "es");
  } else if (in.metrics && in.deep.last && in.deep.last->gpu) {
    bullet("%.1f%% of the bound of the steps iterated (%s), by the SASS of %s's every-step loop",
           100 * in.metrics->fraction_of_bound, pipe_name(in.metrics->bound.limiting),
           variant_info(ex.variant).name.data());
    explain_last_item("% of bound");
  }
  ImGui::TextDisabled(
      in.deep.last && in.deep.last->approximated
          ? "the overlay (P) models the steps iterated; the bilinear tables' look-ups and the "
            "steps they skip are outside the model, inside the counters"
          : "the overlay (P) models every step by the loop the SASS view (S) shows");
  ImGui::PopTextWrapPos();
}

void measurement_section(Explorer& ex, const PanelInputs& in) {
  if (in.deep.active) {
    deep_section(ex, in);
    return;
  }
  char label[96];
  const bool refining = in.pipeline.refining();
  if (!in.paused.empty())
    std::snprintf(label, sizeof label, "Measurement: paused while the GPU measures");
  else if (refining)
    std::snprintf(label, sizeof label, "Measurement: rendering %.0f%%",
                  100 * in.pipeline.progress());
  else
    std::snprintf(label, sizeof label, "Measurement: %s %.3f ms", in.last.gpu ? "kernel" : "CPU",
                  ex.render_ms.mean());
  if (!section(label, "measurement", true)) return;
  bool live = ex.live;
  if (ImGui::Checkbox("live: re-render every frame", &live)) ex.live = live;
  slice_progress(in);
  if (!in.paused.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kWarning, "%s.", in.paused.c_str());
    ImGui::PopTextWrapPos();
  }
  // Without live, frames come only on a change (or while one refines), and their spacing
  // otherwise says nothing of the speed.
  if (ex.live || refining)
    ImGui::Text("Frame %.2f ms (%.0f fps)", ex.frame_ms.mean(),
                1000.0 / std::max(ex.frame_ms.mean(), 1e-3f));
  else
    ImGui::TextDisabled("Frame rate: not live, frames are drawn on change");
  render_plot(ex, in);
  const double iters_done = static_cast<double>(in.last.pixel_iters());
  if (!(in.last.gpu && in.metrics && in.rates)) {
    if (!in.last.gpu && in.last.cpu_stats.slices == 0)
      bullet("no frame finished yet");
    else
      bullet("%.3g pixel-iterations, %.3f Giter/s on %u threads, over %u slice%s", iters_done,
             in.last.cpu_stats.ms > 0 ? iters_done / (in.last.cpu_stats.ms * 1e6) : 0.0,
             in.last.cpu_stats.threads, in.last.cpu_stats.slices,
             in.last.cpu_stats.slices == 1 ? "" : "s");
    ImGui::TextDisabled("SM cycles and the pipe bound need the CUDA path.");
    return;
  }
  const GpuFrameStats& s = in.last.gpu_stats;
  const Metrics& m = *in.metrics;
  if (s.launches > 1) {
    ImGui::Text("Measured (last frame, summed over %d launches):", s.launches);
    bullet("SM cycles %.3f M (each launch's max over %d SMs, clock64); longest launch %.2f ms",
           s.sm_cycles / 1e6, s.sms_used, s.longest_launch_ms);
    if (s.passes > 1)
      bullet(
          "orbits too long for one launch were cut and resumed: %d passes over the image, the "
          "resumable build of the same step loop",
          s.passes);
  } else {
    ImGui::Text("Measured (last frame):");
    bullet("SM cycles %.3f M (max over %d SMs, clock64)", s.sm_cycles / 1e6, s.sms_used);
  }
  bullet("SM balance %.1f%% (mean SM span / max)", 100 * m.sm_balance);
  explain_last_item("SM balance");
  bullet("tiles %s", s.by_cost ? "costliest first, by the last frame" : "in rows");
  bullet("SM clock %.3f GHz (cycles / event time)", m.clock_ghz);
  bullet("%.2f Giter/s; %.3g pixel-iterations", m.giter_per_s, iters_done);
  bullet("warp-issued iterations %.3g; SIMT efficiency %.1f%% (D: per warp)",
         static_cast<double>(s.warp_iters), 100 * m.simt_efficiency);
  explain_last_item("SIMT efficiency");
  ImGui::TextWrapped("Model (%s):", in.rates->describe().c_str());
  const bool issue = std::string(pipe_name(m.bound.limiting)) == "issue";
  bullet("bound, pipes overlapping: %.3f ms (%.3f M cycles, %s-bound)", m.bound_max_ms,
         m.bound.max_cycles / 1e6, pipe_name(m.bound.limiting));
  explain_last_item(issue ? "issue-bound" : "pipe");
  bullet("bound, no overlap: %.3f ms (%.3f M cycles)", m.bound_sum_ms, m.bound.sum_cycles / 1e6);
  ImGui::TextColored(ImVec4(0.5f, 1, 0.5f, 1), "%.1f%% of bound (bound / measured cycles)",
                     100 * m.fraction_of_bound);
  explain_last_item("% of bound");
  counters_part(ex, in, s);
  sources_table(in, s);
}

void mix_row(const char* label, const InstrMix& m) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextUnformatted(label);
  for (double v : {m.fma, m.alu, m.xu, m.fp64, m.lsu, m.other, m.total()}) {
    ImGui::TableNextColumn();
    ImGui::Text("%g", v);
  }
}

// Instruction mix: declared beside the variant, and read from this executable's SASS.
void model_section(const Explorer& ex, const PanelInputs& in) {
  if (!section("Model: instructions per step", "model", false)) return;
  text_with_term("Each step's instructions by pipe, as the seed articles count them",
                 "the seed articles");
  if (in.device.device)
    ImGui::TextWrapped("On sm_%d (the bound uses: %s)", in.arch, in.sass ? "SASS" : "declared");
  else
    ImGui::TextWrapped("Of the sm_90 build (no GPU in use)");
  const VariantInfo& vi = variant_info(ex.variant);
  if (ImGui::BeginTable("mix", 8, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    const char* heads[] = {"per iteration", "FMA", "ALU", "XU", "FP64", "LSU", "other", "total"};
    for (const char* h : heads) ImGui::TableSetupColumn(h);
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < 8; ++c) {
      ImGui::TableSetColumnIndex(c);
      ImGui::TableHeader(heads[c]);
      if (c == 3) explain_last_item("XU");
      if (c == 0) explain_last_item("pipe");
    }
    mix_row("step (declared)", vi.step(in.arch));
    mix_row("escape + loop", vi.overhead(in.arch));
    mix_row("total (declared)", vi.per_iteration(in.arch));
    if (const LoopListing* l =
            in.sass ? in.sass->loop(ex.variant, in.last.gpu ? build_of(in.last.gpu_stats)
                                                            : sass::KernelBuild::Plain)
                    : nullptr)
      mix_row("total (SASS)", l->mix * (1.0 / vi.steps_per_check));
    ImGui::EndTable();
  }
}

// The other windows and views, and what the buttons start.
void tools(Explorer& ex, const PanelInputs& in) {
  bool on = ex.show_overlay;
  if (ImGui::Checkbox("pipes (P)", &on)) in.act(Action::Overlay);
  explain_last_item("pipe");
  ImGui::SameLine();
  on = ex.show_sass;
  if (ImGui::Checkbox("SASS (S)", &on)) in.act(Action::Sass);
  ImGui::SameLine();
  on = ex.divergence;
  if (ImGui::Checkbox("divergence (D)", &on)) in.act(Action::Divergence);
  if (ex.divergence) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "A warp with no idle lane is grey; the more of its lanes idled, the further along blue, "
        "yellow, red.");
    ImGui::PopTextWrapPos();
  }
  GpuRenderer* gpu = in.pipeline.gpu();
  const char* needs_cuda = "needs the CUDA path (the CPU path is in use)";
  bool by_cost = gpu && gpu->tile_order() == TileOrder::CostliestFirst;
  ImGui::BeginDisabled(!gpu);
  if (ImGui::Checkbox("costly tiles first", &by_cost) && gpu) {
    const TileOrder order = by_cost ? TileOrder::CostliestFirst : TileOrder::Rows;
    in.gpu_lease.change(gpu, [order](GpuRenderer& g) { g.set_tile_order(order); });
    ex.render_ms.clear();
    ex.dirty = true;
  }
  ImGui::EndDisabled();
  why_disabled(gpu ? "A re-render of the same view takes its tiles costliest first, by the last "
                     "frame's costs;\nthe first frame of a view goes in rows."
                   : needs_cuda);
  if (in.gpu_lease.waiting() > 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("(once %s gives the GPU back)", in.gpu_lease.holder().c_str());
  }
  ImGui::SameLine();
  on = ex.show_experiments;
  if (ImGui::Checkbox("experiments (E)", &on)) in.act(Action::Experiments);
  const char* busy = ex.measuring();
  ImGui::BeginDisabled(!gpu || busy);
  if (ImGui::Button("Compare all variants (C)")) in.act(Action::Compare);
  ImGui::EndDisabled();
  const std::string running = busy ? std::string(busy) + " running" : "";
  why_disabled(!gpu   ? needs_cuda
               : busy ? running.c_str()
                      : "times every variant at this view and window size");
  ImGui::SameLine();
  if (ImGui::Button("Capture (F12)")) in.act(Action::Capture);
  ImGui::SameLine();
  if (ImGui::Button("Keys (F1)")) in.act(Action::Help);
  if (!ex.status.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", ex.status.c_str());
    ImGui::PopTextWrapPos();
  }
}

void colour_section(Explorer& ex, const PanelInputs& in) {
  if (!section("Colour & UI size: " + in.palettes[ex.palette].name, "colour", false)) return;
  const float field = ImGui::GetFontSize() * 14;
  ImGui::SetNextItemWidth(field);
  if (ImGui::BeginCombo("palette", in.palettes[ex.palette].name.c_str())) {
    for (std::size_t i = 0; i < in.palettes.size(); ++i)
      if (ImGui::Selectable(in.palettes[i].name.c_str(), static_cast<int>(i) == ex.palette))
        ex.palette = static_cast<int>(i);
    ImGui::EndCombo();
  }
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("density", &ex.colour.density, 0.05f, 8.0f, "%.2f",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("offset", &ex.colour.offset, 0.0f, 1.0f);
  const bool aux = has_colouring_term(ex.variant);
  ImGui::BeginDisabled(!aux);
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("stripes", &ex.colour.stripe, 0.0f, 1.0f);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s%s",
                      aux ? "the weight of the colouring term this variant adds each step"
                          : "this variant adds no colouring term; variants with one: ",
                      aux ? "" : colouring_variants().c_str());
  ImGui::Separator();
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("UI size", &ex.ui_scale, kMinUiScale, kMaxUiScale, "x%.2f");
  ImGui::SameLine();
  if (ImGui::SmallButton("projector")) ex.ui_scale = 1.75f;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("large text for a room: UI size x1.75");
  bool vsync = ex.vsync;
  if (ImGui::Checkbox("vsync (V)", &vsync)) in.act(Action::Vsync);
}

// The short key list, each entry kept whole: a new line where the next would not fit.
void key_line() {
  const float right = ImGui::GetContentRegionAvail().x, gap = ImGui::GetFontSize();
  float x = 0;
  for (const std::string& entry : key_hint()) {
    const float w = ImGui::CalcTextSize(entry.c_str()).x;
    if (x > 0 && x + gap + w <= right) {
      ImGui::SameLine(0, gap);
      x += gap + w;
    } else {
      x = w;
    }
    ImGui::TextDisabled("%s", entry.c_str());
  }
}

}  // namespace

void draw_panel(bool* open, Explorer& ex, const PanelInputs& in, Layout& layout) {
  layout.place_panel();
  ImGui::SetNextWindowBgAlpha(0.85f);
  // The scrollbar is always there, so that a section opening does not move every control.
  ImGui::Begin("mandelpipe  (Tab hides, F1 keys)", open, ImGuiWindowFlags_AlwaysVerticalScrollbar);
  layout.placed(FixedWindow::Panel);
  device_section(in);
  tools(ex, in);
  variant_section(ex, in);
  view_section(ex, in);
  measurement_section(ex, in);
  model_section(ex, in);
  colour_section(ex, in);
  ImGui::Separator();
  key_line();
  ImGui::End();
}

}  // namespace mp
