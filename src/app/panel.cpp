#include "app/panel.h"

#include "model/precision_choice.h"

#include <imgui.h>
#include <imgui_internal.h>

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

// A centre coordinate's text shortened to its first and last digits where long.
std::string shortened(const std::string& text) {
  constexpr std::size_t kWhole = 46, kHead = 26, kTail = 16;
  return text.size() <= kWhole ? text
                               : text.substr(0, kHead) + "..." + text.substr(text.size() - kTail);
}

std::size_t digits_in(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

// The last finished frame's report, or an empty one before the first.
const FrameReport& last_frame(const PanelInputs& in) {
  static const FrameReport kNone;
  return in.report ? *in.report : kNone;
}

// Why a greyed control is off, on hover.
void why_disabled(const char* reason) {
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", reason);
}

// A section header whose label carries a summary, so that a collapsed section still says
// something: the first of `labels` that fits the panel's width (the last, shortest, else); `id`
// keeps its open state when the summary changes.
bool section(std::initializer_list<std::string> labels, const char* id, bool open_by_default) {
  // The arrow and the frame's padding before the text.
  const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() -
                     3 * ImGui::GetStyle().FramePadding.x;
  const std::string* label = labels.end() - 1;
  for (const std::string& l : labels)
    if (ImGui::CalcTextSize(l.c_str()).x <= room) {
      label = &l;
      break;
    }
  return ImGui::CollapsingHeader((*label + "###" + id).c_str(),
                                 open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
}

// Before an item `width` wide that follows another: beside it where it fits in the panel,
// else on the next line, so that nothing runs past the panel's edge.
void flow(float width) {
  const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
  if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}
float text_width(const char* text) {
  return ImGui::CalcTextSize(text, nullptr, true).x;
}
float checkbox_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + text_width(label);
}
float button_width(const char* label, bool small = false) {
  return text_width(label) + 2 * ImGui::GetStyle().FramePadding.x * (small ? 0.0f : 1.0f) +
         (small ? 2 * ImGui::GetStyle().FramePadding.x : 0.0f);
}
// A field's width: `ems` wide, or less where its label beside it would not fit.
float field_width(float ems, const char* label) {
  const float room =
      ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemInnerSpacing.x - text_width(label);
  return std::max(std::min(ems * ImGui::GetFontSize(), room), 4 * ImGui::GetFontSize());
}

void device_section(const PanelInputs& in) {
  const std::string& fallback = in.path.fallback_reason;
  const std::string path = in.path.on_gpu ? "CUDA" : "CPU";
  const std::string why = fallback.empty() ? "" : " (a fallback: open for why)";
  const std::string brief = fallback.empty() ? "" : " (a fallback)";
  if (!fallback.empty()) ImGui::PushStyleColor(ImGuiCol_Text, kWarning);
  const bool open = section(
      {"Device & path: " + path + why, "Device & path: " + path + brief, "Device: " + path + brief},
      "device", false);
  if (!fallback.empty()) ImGui::PopStyleColor();
  if (!open) return;
  ImGui::PushTextWrapPos(0.0f);
  if (in.facts.device) {
    const DeviceInfo& d = *in.facts.device;
    ImGui::Text("%s  sm_%d%d  %d SMs", d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count);
  } else {
    ImGui::TextUnformatted("No CUDA device in use");
  }
  ImGui::Text("Renderer: %s", in.path.renderer.c_str());
  ImGui::Text("Present:  %s", in.path.present.c_str());
  if (!fallback.empty()) ImGui::TextColored(kWarning, "Fallback: %s", fallback.c_str());
  ImGui::PopTextWrapPos();
}

void variant_section(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  const VariantInfo& vi = variant_info(ex.variant);
  const bool moved = ex.variant != ex.own_variant;
  const std::string name = "Variant: " + std::string(vi.name);
  if (!section({name + (moved ? " (for precision; yours " +
                                    std::string(variant_info(ex.own_variant).name) + ")"
                              : ""),
                name + (moved ? " (for precision)" : ""), name},
               "variant", true))
    return;
  const auto& variants = all_variants();
  // As many to a row as the widest label allows: the same rows whichever is picked.
  float widest = 0;
  for (std::size_t i = 0; i < variants.size(); ++i)
    widest = std::max(widest, ImGui::CalcTextSize(variants[i].name.data()).x);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float cell = widest + ImGui::CalcTextSize("A1: ").x + ImGui::GetFrameHeight() +
                     style.ItemInnerSpacing.x + style.ItemSpacing.x;
  const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / cell));
  for (std::size_t i = 0; i < variants.size(); ++i) {
    char label[64];
    // Keys 1-9, then 0 for the tenth, then Alt+1 (A1) on (key_bindings.cpp).
    if (i < 10)
      std::snprintf(label, sizeof label, " %zu: %s", (i + 1) % 10, variants[i].name.data());
    else if (i < 20)
      std::snprintf(label, sizeof label, "A%zu: %s", (i - 9) % 10, variants[i].name.data());
    else
      std::snprintf(label, sizeof label, "    %s", variants[i].name.data());
    if (i % per_row != 0)
      ImGui::SameLine(static_cast<float>(i % per_row) * cell + style.WindowPadding.x);
    if (ImGui::RadioButton(label, ex.own_variant == variants[i].id)) out.variant = variants[i].id;
  }
  bool pin = ex.pin_variant;
  if (ImGui::Checkbox("pin variant (K)", &pin)) out.keys.push_back(Action::PinVariant);
  why_disabled(
      "Off: as you zoom past what float can tell apart, df64 or fp64 (whichever is faster here) "
      "renders instead, past double's perturbation from a reference orbit, and your variant "
      "again once you zoom out.\nOn: your variant always.");
  const std::string rendering = "rendering " + std::string(vi.name) + " for precision";
  const char* pin_note = moved            ? rendering.c_str()
                         : ex.pin_variant ? "kept at any depth"
                                          : "deeper variants as needed";
  flow(text_width(pin_note));
  if (moved)
    ImGui::TextColored(kWarning, "%s", pin_note);
  else
    ImGui::TextDisabled("%s", pin_note);
  // One height for the summary and sin-ratio's line, so that nothing below moves when the
  // variant changes: the tallest summary at this width, and two lines for sin-ratio's (its
  // button may flow under it).
  const float wrap = ImGui::GetContentRegionAvail().x;
  float tallest = 0;
  for (const VariantInfo& v : variants)
    tallest = std::max(tallest, ImGui::CalcTextSize(v.summary.data(), nullptr, false, wrap).y);
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginChild("##summary", ImVec2(0, tallest + 2.5f * line), false,
                    ImGuiWindowFlags_NoScrollbar);
  ImGui::TextWrapped("%s", vi.summary.data());
  if (ex.variant == VariantId::SinRatio) {
    // The count is the build's for the architecture: the GPU's, or sm_90's where none is in use.
    if (in.facts.device)
      ImGui::Text("%d __sinf per step on sm_%d", variants::sines_per_step(in.facts.arch),
                  in.facts.arch);
    else
      ImGui::Text("%d __sinf per step (sm_%d build, no GPU)",
                  variants::sines_per_step(in.facts.arch), in.facts.arch);
    flow(button_width("measure the balance", true));
    const char* busy = ex.measuring();
    ImGui::BeginDisabled(!in.path.gpu_renderer || busy);
    if (ImGui::SmallButton("measure the balance")) out.measure_balance = true;
    ImGui::EndDisabled();
    const std::string running = busy ? std::string(busy) + " running" : "";
    why_disabled(!in.path.gpu_renderer ? "the sweep times GPU kernels: it needs the CUDA path"
                 : busy                ? running.c_str()
                                       : "times fma4 with 0 to 4 __sinf per step");
  }
  ImGui::EndChild();
}

void view_section(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  char label[96];
  std::snprintf(label, sizeof label, "View: span %s, %u iterations%s",
                span_text(ex.view.span, 3).c_str(), ex.view.max_iter,
                ex.auto_iters ? " (auto)" : "");
  char brief[64];
  std::snprintf(brief, sizeof brief, "View: span %s, %u iters", span_text(ex.view.span, 3).c_str(),
                ex.view.max_iter);
  if (in.naming.focus) ImGui::SetNextItemOpen(true);  // B shows the field it asks for
  char shortest[48];
  std::snprintf(shortest, sizeof shortest, "View: %s, %u", span_text(ex.view.span, 3).c_str(),
                ex.view.max_iter);
  if (!section({label, brief, shortest}, "view", true)) return;
  ImGui::Text("Centre x %s", in.centre[0].c_str());
  ImGui::Text("       y %s", in.centre[1].c_str());
  if (!in.centre[2].empty()) ImGui::TextDisabled("       %s", in.centre[2].c_str());
  ImGui::Text("Span   %s, zoom %s", span_text(ex.view.span).c_str(),
              span_text(quotient(View().span, ex.view.span), 3).c_str());
  explain_last_item("zoom");
  int iters = static_cast<int>(ex.view.max_iter);
  // The field with its - and + buttons beside it.
  ImGui::SetNextItemWidth(field_width(9, "max iterations") - 2 * ImGui::GetFrameHeight());
  // The user's own limit: the automatic one goes off. Its - and + halve and double it, as PgDn
  // and PgUp do (a fixed step took 200 to 1).
  const auto set = [&](long long n) {
    out.max_iter =
        static_cast<unsigned>(std::clamp<long long>(n, 1, static_cast<long long>(kMaxIterations)));
  };
  if (ImGui::InputInt("##max iterations", &iters, 0, 0)) set(iters);
  const ImVec2 square(ImGui::GetFrameHeight(), ImGui::GetFrameHeight());
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  if (ImGui::Button("-", square)) set(ex.view.max_iter / 2);
  why_disabled("halve (PgDn)");
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  if (ImGui::Button("+", square)) set(2LL * ex.view.max_iter);
  why_disabled("double (PgUp)");
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted("max iterations");
  bool automatic = ex.auto_iters;
  // Turned on, it wants a frame to judge the limit by: a part of the frame's key.
  if (ImGui::Checkbox("automatic", &automatic)) out.auto_iters = automatic;
  const char* rule =
      ex.auto_iters ? "doubled: edge 2% inside or 1% late" : "the limit stays as set";
  flow(text_width(rule));
  ImGui::TextDisabled("%s", rule);
  ImGui::SetNextItemWidth(field_width(9, "bookmark"));
  if (ImGui::BeginCombo("bookmark", "go to...")) {
    for (const Bookmark& b : in.bookmarks)
      if (ImGui::Selectable(b.name.c_str())) out.go_to = b.view;
    if (!in.user_bookmarks.empty()) ImGui::Separator();
    for (std::size_t i = 0; i < in.user_bookmarks.size(); ++i) {
      ImGui::PushID(static_cast<int>(i));  // a name may repeat a built-in one
      if (ImGui::Selectable(in.user_bookmarks[i].name.c_str()))
        out.go_to = in.user_bookmarks[i].view;
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  flow(button_width("save (B)", true));
  if (ImGui::SmallButton("save (B)")) out.keys.push_back(Action::SaveBookmark);
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
  ImGui::SetNextItemWidth(field_width(14, "name"));
  const bool entered =
      ImGui::InputTextWithHint("name", "Enter saves, Esc cancels", n.name.data(), n.name.size(),
                               ImGuiInputTextFlags_EnterReturnsTrue);
  n.active = ImGui::IsItemActive();
  if (n.escape) {
    n = BookmarkNaming{};
  } else if (entered || std::exchange(n.enter, false)) {
    // Saved, the field closes; refused, the status says why and the name stays to be mended.
    out.save_bookmark = n.name.data();
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
  const char* unit = last_frame(in).gpu ? "kernel ms (CUDA events)" : "CPU render ms (wall)";
  ImGui::PushTextWrapPos(0.0f);
  if (h.size() == 0)
    ImGui::TextDisabled("%s: none yet of this variant and iteration limit", unit);
  else
    ImGui::TextDisabled("%s, 0 to %.3g, over the last %zu render%s (hover: values)", unit, top,
                        h.size(), h.size() == 1 ? "" : "s");
  ImGui::PopTextWrapPos();
  ImGui::PlotLines("##render", h.data(), static_cast<int>(h.size()), h.offset(), nullptr, 0.0f, top,
                   ImVec2(ImGui::GetContentRegionAvail().x, 3 * ImGui::GetFontSize()));
}

// What the GPU's own counters read, against the model: the source (or why none), the clock
// they saw, and the instructions they counted beside those the model's step loop accounts for.
void counters_part(const PanelInputs& in, const GpuFrameStats& s) {
  ImGui::Text("Hardware counters (CUPTI PM sampling):");
  const bool ok = last_frame(in).counters && last_frame(in).counters->unavailable.empty();
  ImGui::PushTextWrapPos(0.0f);
  if (in.counters_refused)
    ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "%s", in.counters_source.c_str());
  else
    ImGui::TextDisabled("%s", in.counters_source.c_str());
  // A frame the sampler had no figures for, while the sampler itself runs.
  if (last_frame(in).counters && !last_frame(in).counters->unavailable.empty() &&
      !in.counters_refused)
    ImGui::TextDisabled("last frame: %s", last_frame(in).counters->unavailable.c_str());
  ImGui::PopTextWrapPos();
  if (!ok) return;
  const CounterFigures& c = *last_frame(in).counters;
  bullet("clock %.3f GHz over %d sample%s of a %.3f ms span", c.clock_ghz, c.samples,
         c.samples == 1 ? "" : "s", c.span_ms);
  if (s.launches > 1)
    bullet(
        "read from the first of the frame's %d launches to the end of the last, the window's "
        "drawing between them included",
        s.launches);
  // The model counts the step loop only; the rest of the kernel (per pixel, per tile, the
  // queue) is what the counters see beyond it.
  const double modelled = last_frame(in).model_instructions;
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
  const unsigned pieces = last_frame(in).gpu
                              ? static_cast<unsigned>(last_frame(in).gpu_stats.launches)
                              : last_frame(in).cpu_stats.slices;
  const int passes = last_frame(in).gpu ? last_frame(in).gpu_stats.passes : 1;
  if (!in.paused.empty())
    std::snprintf(text, sizeof text, "paused for a measurement");
  else if (in.path.refining && in.path.passes > 1)
    std::snprintf(text, sizeof text, "rendering %.0f%% of pixels, pass %d", 100 * in.path.progress,
                  in.path.passes);
  else if (in.path.refining)
    std::snprintf(text, sizeof text, "rendering %.0f%%", 100 * in.path.progress);
  else if (passes > 1)
    std::snprintf(text, sizeof text, "done in %u launches, %d passes", pieces, passes);
  else
    std::snprintf(text, sizeof text, "done in %u %s", pieces,
                  last_frame(in).gpu ? (pieces == 1 ? "launch" : "launches")
                                     : (pieces == 1 ? "slice" : "slices"));
  ImGui::ProgressBar(static_cast<float>(in.path.progress), ImVec2(-1.0f, 0), text);
}

// Every counter source's columns for the last frame, named as bench's files name them: the
// measuring kit's (CUDA events, SM clock64), the hardware counters' and any further source's.
void sources_table(const PanelInputs& in) {
  if (!ImGui::TreeNode("Counter sources, as bench's files name them")) return;
  const FrameNumbers& f = last_frame(in).measured;
  std::vector<SourceColumns> sources = {events_columns(f), clock64_columns(f)};
  for (SourceColumns& c : counter_sources(last_frame(in).counters)) sources.push_back(std::move(c));
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
void deep_section(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  const DeepStatus& d = in.deep;
  char label[96], brief[64];
  if (d.reference_pending) {
    std::snprintf(label, sizeof label, "Measurement: reference orbit %.0f%%",
                  100 * d.reference_done);
    std::snprintf(brief, sizeof brief, "Measurement: orbit %.0f%%", 100 * d.reference_done);
  } else if (d.refining) {
    std::snprintf(label, sizeof label, "Measurement: rendering %.0f%%", 100 * d.progress);
    std::snprintf(brief, sizeof brief, "Measurement: %.0f%%", 100 * d.progress);
  } else {
    std::snprintf(label, sizeof label, "Measurement: perturbation %.3f ms",
                  d.last ? d.last->ms : 0.0);
    std::snprintf(brief, sizeof brief, "Measurement: %.3f ms", d.last ? d.last->ms : 0.0);
  }
  if (!section({label, brief}, "measurement", true)) return;
  bool live = ex.live;
  if (ImGui::Checkbox("live: re-render every frame", &live)) out.live = live;
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
    bullet("reference%s: %d bits, %zu steps%s, %.0f ms",
           r->nucleus_period ? "" : " at the whole window's middle", r->orbit.bits,
           r->orbit.z.size() - 1, r->orbit.escaped ? " (it escapes: pixels past it rebase)" : "",
           r->orbit.ms);
    // The window's reference serves its whole image, the part under the panel too: its point is
    // the whole window's middle, or the nucleus found for it.
    if (r->nucleus_period)
      bullet(
          "at a minibrot's nucleus of period %u in the image (the whole window's middle, "
          "where it began, escapes at step %u)",
          r->nucleus_period, r->centre_escaped_at);
    bullet("bilinear approximation: %d levels of merged steps, built in %.0f ms",
           r->extended.levels(), r->bla_ms);
  }
  if (const std::optional<DeepStats>& s = d.last) {
    if (s->gpu)
      bullet("last frame: %.2f ms of kernels (CUDA events); longest launch so far %.2f ms", s->ms,
             d.longest_ms);
    else
      bullet("last frame: %.2f ms on the CPU (wall)", s->ms);
    const double counted = static_cast<double>(s->pixel_iters);
    const double run = static_cast<double>(s->iterated);
    bullet("steps counted %.4g, iterated %.4g (%.2f%%): %.4g skipped by the approximation", counted,
           run, counted > 0 ? 100 * run / counted : 0.0, counted - run);
    bullet("rebases: %.4g", static_cast<double>(s->rebases));
    if (s->warp_iterated)
      bullet("SIMT efficiency of the steps iterated: %.1f%% (a warp runs to its slowest lane)",
             100 * run / (32.0 * static_cast<double>(s->warp_iterated)));
    if (s->ms > 0) {
      bullet("%.3g Giter/s counted, %.3g Giter/s iterated", counted / s->ms * 1e-6,
             run / s->ms * 1e-6);
      explain_last_item("Giter/s");
    }
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
  } else if (last_frame(in).metrics && in.deep.last && in.deep.last->gpu) {
    bullet("%.1f%% of the bound of the steps iterated (%s), by the SASS of %s's every-step loop",
           100 * last_frame(in).metrics->fraction_of_bound,
           pipe_name(last_frame(in).metrics->bound.limiting), variant_info(ex.variant).name.data());
    explain_last_item("% of bound");
  }
  ImGui::TextDisabled(
      !(in.deep.last && in.deep.last->approximated)
          ? "the overlay (P) models every step by the loop the SASS view (S) shows"
      : in.deep.last->gpu
          ? "the overlay (P) models the steps iterated; the bilinear tables' look-ups and the "
            "steps they skip are outside the model, inside the counters"
          : "the overlay (P) models the steps iterated; the bilinear tables' look-ups and the "
            "steps they skip are outside the model");
  ImGui::TextDisabled(
      "a deep view's counts lie close together: Colour > \"fit to image\" spreads the palette "
      "over them");
  ImGui::PopTextWrapPos();
}

void measurement_section(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  if (in.deep.active) {
    deep_section(ex, in, out);
    return;
  }
  char label[96];
  const bool refining = in.path.refining;
  if (!in.paused.empty())
    std::snprintf(label, sizeof label, "Measurement: paused while the GPU measures");
  else if (refining)
    std::snprintf(label, sizeof label, "Measurement: rendering %.0f%%", 100 * in.path.progress);
  else
    std::snprintf(label, sizeof label, "Measurement: %s %.3f ms (mean)",
                  last_frame(in).gpu ? "kernel" : "CPU", ex.render_ms.mean());
  if (!section({label}, "measurement", true)) return;
  bool live = ex.live;
  if (ImGui::Checkbox("live: re-render every frame", &live)) out.live = live;
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
  // While a new view renders, the figures below are the last finished frame's, of the view
  // before: said, and greyed, until this view's frame is in.
  const bool stale = in.of_previous_view;
  if (stale) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kWarning,
                       "Below: the previous view's last frame; this view's figures come when its "
                       "frame is done.");
    ImGui::PopTextWrapPos();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  }
  struct PopOnEnd {
    bool on;
    ~PopOnEnd() {
      if (on) ImGui::PopStyleColor();
    }
  } pop{stale};
  const double iters_done = static_cast<double>(last_frame(in).pixel_iters());
  if (!(last_frame(in).gpu && last_frame(in).metrics && in.facts.rates)) {
    const CpuFrameStats& c = last_frame(in).cpu_stats;
    if (!last_frame(in).gpu && c.slices == 0) {
      bullet("no frame finished yet");
    } else {
      const double ms = c.ms > 0 ? c.ms : 1e300;
      bullet("%.3g pixel-iterations run, %.3g counted, on %u threads over %u slice%s", iters_done,
             static_cast<double>(c.pixel_counted), c.threads, c.slices, c.slices == 1 ? "" : "s");
      bullet("Giter/s: %.3f run, %.3f counted%s", iters_done / (ms * 1e6),
             static_cast<double>(c.pixel_counted) / (ms * 1e6),
             c.pixel_counted > c.pixel_iters ? " (orbits found periodic were stopped)" : "");
      explain_last_item("Giter/s");
    }
    if (!in.fastest_here.empty()) {
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextUnformatted(in.fastest_here.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::TextDisabled("SM cycles and the pipe bound need the CUDA path.");
    return;
  }
  const GpuFrameStats& s = last_frame(in).gpu_stats;
  const Metrics& m = *last_frame(in).metrics;
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
  // The kernels sum the steps run; a variant that stops periodic orbits counts more than it runs.
  if (variant_info(last_frame(in).of.variant).stops_cycles)
    bullet(
        "%.2f Giter/s run; %.3g pixel-iterations run (it counts more: orbits found periodic "
        "stop early; compare (C) gives both)",
        m.giter_per_s, iters_done);
  else
    bullet("%.2f Giter/s run and counted; %.3g pixel-iterations", m.giter_per_s, iters_done);
  explain_last_item("Giter/s");
  // Wrapped with room for the mark after it, which would otherwise run past the panel's edge.
  char warps[160];
  std::snprintf(warps, sizeof warps,
                "warp-issued iterations %.3g; SIMT efficiency %.1f%% (D: per warp)",
                static_cast<double>(s.warp_iters), 100 * m.simt_efficiency);
  ImGui::Bullet();
  text_with_term(warps, "warp-issued iterations", "SIMT efficiency");
  ImGui::TextWrapped("Model (%s):", in.facts.rates->describe().c_str());
  const bool issue = std::string(pipe_name(m.bound.limiting)) == "issue";
  bullet("bound, pipes overlapping: %.3f ms (%.3f M cycles, %s-bound)", m.bound_max_ms,
         m.bound.max_cycles / 1e6, pipe_name(m.bound.limiting));
  explain_last_item(issue ? "issue-bound" : "pipe");
  bullet("bound, no overlap: %.3f ms (%.3f M cycles)", m.bound_sum_ms, m.bound.sum_cycles / 1e6);
  ImGui::TextColored(ImVec4(0.5f, 1, 0.5f, 1), "%.1f%% of bound (bound / measured cycles)",
                     100 * m.fraction_of_bound);
  explain_last_item("% of bound");
  counters_part(in, s);
  sources_table(in);
}

// The pipes of a mix, as the model's table names them.
constexpr const char* kMixPipes[] = {"FMA", "ALU", "XU", "FP64", "LSU", "other", "total"};
std::array<double, 7> by_pipe(const InstrMix& m) {
  return {m.fma, m.alu, m.xu, m.fp64, m.lsu, m.other, m.total()};
}

// Instruction mix: declared beside the variant, and read from this executable's SASS.
void model_section(const Explorer& ex, const PanelInputs& in) {
  if (!section({"Model: instructions per step", "Model: per step"}, "model", false)) return;
  text_with_term("Each step's instructions by pipe, counted as the seed articles count them",
                 "the seed articles");
  if (in.facts.device)
    ImGui::TextWrapped("On sm_%d (the bound uses: %s)", in.facts.arch,
                       in.sass ? "SASS" : "declared");
  else
    ImGui::TextWrapped("Of the sm_90 build (no GPU in use)");
  const VariantInfo& vi = variant_info(ex.variant);
  struct Mix {
    const char *name, *brief;
    InstrMix mix;
  };
  std::vector<Mix> mixes = {{"step (declared)", "step", vi.step(in.facts.arch)},
                            {"escape + loop", "loop", vi.overhead(in.facts.arch)},
                            {"total (declared)", "total", vi.per_iteration(in.facts.arch)}};
  if (const LoopListing* l = in.sass ? in.sass->loop(ex.variant, last_frame(in).build) : nullptr)
    mixes.push_back({"total (SASS)", "SASS", l->mix * (1.0 / vi.steps_per_check)});
  // The pipes across where the panel is wide enough for them, else down, so that no column is
  // cut at a small window or a large UI size.
  const float cell = 2 * ImGui::GetStyle().CellPadding.x + 1;
  float number = 0;  // the widest value shown ("4.5625"), so that no column is squeezed to wrap
  for (const Mix& m : mixes)
    for (double v : by_pipe(m.mix)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", v);
      number = std::max(number, text_width(text));
    }
  float across = text_width("total (declared)") + cell;
  for (const char* p : kMixPipes) across += std::max(text_width(p), number) + cell;
  const bool pipes_across = across <= ImGui::GetContentRegionAvail().x;
  const int columns = pipes_across ? 8 : static_cast<int>(mixes.size()) + 1;
  if (!ImGui::BeginTable("mix", columns, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn(pipes_across ? "per iteration" : "pipe");
  if (pipes_across)
    for (const char* p : kMixPipes) ImGui::TableSetupColumn(p);
  else
    for (const Mix& m : mixes) ImGui::TableSetupColumn(m.brief);
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < columns; ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    if (c == 0) explain_last_item("pipe");
    if (pipes_across && c == 3) explain_last_item("XU");
  }
  const auto cell_text = [](const char* text) {
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(text);
  };
  const auto cell_number = [](double v) {
    ImGui::TableNextColumn();
    ImGui::Text("%g", v);
  };
  if (pipes_across) {
    for (const Mix& m : mixes) {
      ImGui::TableNextRow();
      cell_text(m.name);
      for (double v : by_pipe(m.mix)) cell_number(v);
    }
  } else {
    for (std::size_t p = 0; p < std::size(kMixPipes); ++p) {
      ImGui::TableNextRow();
      cell_text(kMixPipes[p]);
      for (const Mix& m : mixes) cell_number(by_pipe(m.mix)[p]);
    }
  }
  ImGui::EndTable();
}

// The other windows and views, and what the buttons start.
void tools(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  bool on = ex.show_overlay;
  if (ImGui::Checkbox("pipes (P)", &on)) out.keys.push_back(Action::Overlay);
  explain_last_item("pipe");
  flow(checkbox_width("SASS (S)"));
  on = ex.show_sass;
  if (ImGui::Checkbox("SASS (S)", &on)) out.keys.push_back(Action::Sass);
  flow(checkbox_width("divergence (D)"));
  on = ex.divergence;
  if (ImGui::Checkbox("divergence (D)", &on)) out.keys.push_back(Action::Divergence);
  if (ex.divergence) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "A warp with no idle lane is grey; the more of its lanes idled, the further along blue, "
        "yellow, red.");
    ImGui::PopTextWrapPos();
  }
  const bool gpu = in.path.gpu_renderer;
  const char* needs_cuda = "needs the CUDA path (the CPU path is in use)";
  bool by_cost = gpu && in.path.tile_order == TileOrder::CostliestFirst;
  ImGui::BeginDisabled(!gpu);
  if (ImGui::Checkbox("costly tiles first", &by_cost) && gpu)
    out.tile_order = by_cost ? TileOrder::CostliestFirst : TileOrder::Rows;
  ImGui::EndDisabled();
  why_disabled(gpu ? "A re-render of the same view takes its tiles costliest first, by the last "
                     "frame's costs;\nthe first frame of a view goes in rows."
                   : needs_cuda);
  if (in.gpu_lease.waiting() > 0)
    ImGui::TextDisabled("(once %s gives the GPU back)", in.gpu_lease.holder().c_str());
  flow(checkbox_width("experiments (E)"));
  on = ex.show_experiments;
  if (ImGui::Checkbox("experiments (E)", &on)) out.keys.push_back(Action::Experiments);
  const char* busy = ex.measuring();
  ImGui::BeginDisabled(!gpu || busy);
  if (ImGui::Button("Compare all variants (C)")) out.keys.push_back(Action::Compare);
  ImGui::EndDisabled();
  const std::string running = busy ? std::string(busy) + " running" : "";
  why_disabled(!gpu   ? needs_cuda
               : busy ? running.c_str()
                      : "times every variant at this view and window size");
  flow(button_width("Capture (F12)"));
  if (ImGui::Button("Capture (F12)")) out.keys.push_back(Action::Capture);
  flow(button_width("Keys (F1)"));
  if (ImGui::Button("Keys (F1)")) out.keys.push_back(Action::Help);
  if (!ex.status.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", ex.status.c_str());
    ImGui::PopTextWrapPos();
  }
}

void colour_section(const Explorer& ex, const PanelInputs& in, PanelActions& out) {
  const std::string& palette = in.palettes[ex.palette].name;
  if (!section({"Colour & UI size: " + palette, "Colour: " + palette}, "colour", false)) return;
  const float field = field_width(14, "density");
  ImGui::SetNextItemWidth(field);
  if (ImGui::BeginCombo("palette", in.palettes[ex.palette].name.c_str())) {
    for (std::size_t i = 0; i < in.palettes.size(); ++i)
      if (ImGui::Selectable(in.palettes[i].name.c_str(), static_cast<int>(i) == ex.palette))
        out.palette = static_cast<int>(i);
    ImGui::EndCombo();
  }
  ImGui::SetNextItemWidth(field);
  ColourParams colour = ex.colour;
  ImGui::SliderFloat("density", &colour.density, kMinDensity, kMaxDensity, "%.3g",
                     ImGuiSliderFlags_Logarithmic);
  flow(button_width("fit to image", true));
  if (ImGui::SmallButton("fit to image")) out.fit_colours = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "density and offset that spread the palette over two cycles from this image's lowest "
        "count to its highest: a deep view's counts are close together, which density 1 shows "
        "as nearly one colour");
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("offset", &colour.offset, 0.0f, 1.0f);
  const bool aux = has_colouring_term(ex.variant);
  ImGui::BeginDisabled(!aux);
  ImGui::SetNextItemWidth(field);
  ImGui::SliderFloat("stripes", &colour.stripe, 0.0f, 1.0f);
  ImGui::EndDisabled();
  if (colour.density != ex.colour.density || colour.offset != ex.colour.offset ||
      colour.stripe != ex.colour.stripe)
    out.colour = colour;
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s%s",
                      aux ? "the weight of the colouring term this variant adds each step"
                          : "this variant adds no colouring term; variants with one: ",
                      aux ? "" : colouring_variants().c_str());
  ImGui::Separator();
  ImGui::SetNextItemWidth(field);
  float ui_scale = ex.ui_scale;
  if (ImGui::SliderFloat("UI size", &ui_scale, kMinUiScale, kMaxUiScale, "x%.2f"))
    out.ui_scale = ui_scale;
  flow(button_width("projector", true));
  if (ImGui::SmallButton("projector")) out.ui_scale = 1.75f;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("large text for a room: UI size x1.75");
  bool vsync = ex.vsync;
  if (ImGui::Checkbox("vsync (V)", &vsync)) out.keys.push_back(Action::Vsync);
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

const std::array<std::string, 3>& CentreLines::of(const View& v) {
  if (!view_ || !(*view_ == v)) {
    view_ = v;
    const std::string x = centre_text(v.center_x, v), y = centre_text(v.center_y, v);
    lines_ = {shortened(x), shortened(y), ""};
    if (lines_[0] != x || lines_[1] != y)
      lines_[2] = std::to_string(digits_in(x)) + " and " + std::to_string(digits_in(y)) +
                  " digits; Ctrl+C copies them all";
  }
  return lines_;
}

PanelPath panel_path(const gl::FramePipeline& pipeline, const GpuLease& gpu_lease) {
  PanelPath p;
  const GpuRenderer* gpu = gpu_lease.peek();
  p.gpu_renderer = gpu != nullptr;
  p.on_gpu = pipeline.on_gpu();
  if (gpu) p.tile_order = gpu->tile_order();
  p.refining = pipeline.refining();
  p.progress = pipeline.progress();
  p.passes = pipeline.passes();
  p.fallback_reason = pipeline.fallback_reason();
  p.renderer = pipeline.renderer_description();
  p.present = pipeline.present_description();
  return p;
}

PanelFit draw_panel(bool* open, const Explorer& ex, const PanelInputs& in, PanelActions& actions,
                    Layout& layout) {
  layout.place_panel();
  ImGui::SetNextWindowBgAlpha(0.85f);
  // The scrollbar is always there, so that a section opening does not move every control. The
  // panel is a fixed column (the view is of the area beside it): neither moved, sized nor folded
  // by hand, nor kept in imgui.ini.
  ImGui::Begin("mandelpipe  (Tab hides, F1 keys)", open,
               ImGuiWindowFlags_AlwaysVerticalScrollbar | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  layout.placed(FixedWindow::Panel);
  // Every text line wraps at the panel's edge, whatever its length at this size and UI scale.
  ImGui::PushTextWrapPos(0.0f);
  device_section(in);
  tools(ex, in, actions);
  variant_section(ex, in, actions);
  view_section(ex, in, actions);
  measurement_section(ex, in, actions);
  model_section(ex, in);
  colour_section(ex, in, actions);
  ImGui::Separator();
  key_line();
  ImGui::PopTextWrapPos();
  // What ImGui laid out, read from the window itself: the widest line's right edge, however it
  // came there, against the content region's.
  const ImGuiWindow* w = ImGui::GetCurrentWindow();
  const PanelFit fit{w->Size.x, w->Size.y, w->DC.CursorMaxPos.x - w->Pos.x,
                     w->WorkRect.Max.x - w->Pos.x};
  ImGui::End();
  return fit;
}

}  // namespace mp
