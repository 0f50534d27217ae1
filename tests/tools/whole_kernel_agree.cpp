// The whole-kernel model recomputed offline for the rows of a recorded `bench --counters --format
// json` (scripts/device/whole-kernel.sh agreement): each frame's step counts from the CPU
// reference at the row's view, the captured SASS of the row's architecture cut into parts, and
// the model's instructions, issue and pipes against the counters the row recorded. So a change
// of the model can be judged against the GPU's counters without a GPU.
// The SASS is the captured one (tests/fixtures/sass) unless --sass names a build to read with
// cuobjdump (an executable or render_kernel.cu's object file of that architecture) or a listing
// cuobjdump wrote before (a file named *.sass or *.sass.gz: a device run's carried listing).
// perturb's rows take the reference bench made (session/deep_reference.h: the view's centre, or a
// nucleus in view where the centre escapes), its grid and the CPU reference's counts.
// Each row's kernel build is its JSON's measured.kernel_build; a JSON from before bench wrote it
// takes --first-frames where its rows were measured on their views' first frames (bench --view:
// the queue's variants then ran the recording kernel, render_kernel<V, true>), else the plain one.
//   whole_kernel_agree FILE.json [--view NAME] [--variant NAME] [--sass BUILD|LISTING]
//                      [--first-frames] [--pieces]
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/sass_loader.h"
#include "model/pipe_rates.h"
#include "model/variant_table.h"
#include "model/view.h"
#include "model/whole_kernel.h"
#include "render/cpu_renderer.h"
#include "render/perturbation_cpu.h"
#include "session/deep_reference.h"
#include "sm_arch.h"

namespace {

constexpr const char* kPipes[] = {"issue", "FMA", "fmaheavy", "fmalite", "ALU", "XU", "FP64"};
constexpr const char* kCountNames[] = {
    "trips",   "seconds", "reached", "pixel",  "warps",        "queue",
    "segment", "exits",   "tallies", "blocks", "efficiencies", "never",
    "offsets", "unusual", "refill",  "rounds", "done rounds",  "rebase rounds"};

int usage() {
  std::fprintf(stderr,
               "usage: whole_kernel_agree FILE.json [--view NAME] [--variant NAME] "
               "[--sass BUILD|LISTING.sass[.gz]] [--first-frames] [--pieces]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mp;
  if (argc < 2) return usage();
  std::string only_view, only_variant, build;
  bool pieces = false;
  bool first_frames = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--view") && i + 1 < argc) {
      only_view = argv[++i];
    } else if (!std::strcmp(argv[i], "--variant") && i + 1 < argc) {
      only_variant = argv[++i];
    } else if (!std::strcmp(argv[i], "--sass") && i + 1 < argc) {
      build = argv[++i];
    } else if (!std::strcmp(argv[i], "--first-frames")) {
      first_frames = true;
    } else if (!std::strcmp(argv[i], "--pieces")) {
      pieces = true;
    } else {
      return usage();
    }
  }
  std::ifstream in(argv[1]);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("rows")) {
    std::fprintf(stderr, "whole_kernel_agree: %s is not bench's JSON\n", argv[1]);
    return 2;
  }
  int met = 0, total = 0;
  try {
    const std::string cc = doc.at("device").at("compute_capability").get<std::string>();
    const int major = std::stoi(cc), minor = std::stoi(cc.substr(cc.find('.') + 1));
    const int sm_count = doc.at("device").at("sm_count").get<int>();
    const int arch = sm_arch(major, minor);
    const auto ends_with = [&](const char* tail) {
      const std::size_t n = std::strlen(tail);
      return build.size() >= n && build.compare(build.size() - n, n, tail) == 0;
    };
    const std::string arch_name = "sm_" + std::to_string(arch >= 90 ? 90 : arch);
    const LoadedSass sass = build.empty() ? captured_sass(arch_name, "offline")
                            : ends_with(".sass") || ends_with(".sass.gz")
                                ? sass_listing_file(build, arch_name)
                                : load_kernel_sass(build, arch);
    if (!sass.ok()) {
      std::fprintf(stderr, "whole_kernel_agree: no SASS: %s\n", sass.source.c_str());
      return 2;
    }
    std::printf("SASS: %s\n", sass.source.c_str());
    const PipeRates rates = pipe_rates(major, minor);
    const CpuRenderer cpu;
    for (const nlohmann::json& r : doc.at("rows")) {
      const std::string view_name = r.at("view"), variant = r.at("variant");
      if ((!only_view.empty() && view_name != only_view) ||
          (!only_variant.empty() && variant != only_variant))
        continue;
      const auto id = find_variant(variant);
      const nlohmann::json& c = r.at("counters");
      if (!id || c.is_null() || !c.at("unavailable").is_null()) continue;
      const std::optional<DeltaFormat> perturbation = variant_info(*id).perturbation;
      if (perturbation && perturbation != DeltaFormat::Double) {
        std::printf("%-8s %-11s n/a: %s\n", view_name.c_str(), variant.c_str(),
                    kPerturbationNotModelled);
        continue;
      }
      const nlohmann::json& m = r.at("measured");
      const std::string kernel_build =
          m.value("kernel_build", first_frames && variant_info(*id).shape == variants::Shape::Queue
                                      ? "recording"
                                      : "plain");
      const LoopListing* listing =
          sass.loop(*id, kernel_build == "recording"   ? sass::KernelBuild::Recording
                         : kernel_build == "resumable" ? sass::KernelBuild::Resumable
                                                       : sass::KernelBuild::Plain);
      if (!listing) continue;
      const int w = r.at("width"), h = r.at("height");
      const unsigned iters = r.at("iters");
      const auto view = parse_view(r.at("center").at(0).get<std::string>(),
                                   r.at("center").at(1).get<std::string>(),
                                   r.at("span").get<std::string>(), iters);
      if (!view) continue;
      std::vector<float> out(static_cast<std::size_t>(w) * h * kFloatsPerPixel);
      std::vector<unsigned> counts(static_cast<std::size_t>(w) * h);
      FrameShape shape;
      if (perturbation) {
        const std::shared_ptr<const DeepReference> ref = make_reference(*view, w, h);
        const DeepGrid g = deep_grid(*ref, *view, w, h);
        const PerturbStats st =
            render_perturbation_cpu(*perturbation, g, whole_image(g), ref->orbit.view(),
                                    BlaTables{}, iters, out.data(), counts.data());
        shape.zero_offsets = zero_grid_offsets(g);
        // perturb's rounds as the CPU reference's warps ran them (render/lockstep_rounds.h), as
        // its steps are the CPU's.
        if (st.rounds_counted) take_rounds(shape, st);
      } else {
        cpu.render(*id, pixel_grid(*view, w, h), iters, out.data(), counts.data());
      }
      shape.shape = variant_info(*id).shape;
      shape.width = w;
      shape.height = h;
      shape.max_iter = iters;
      shape.by_cost = m.at("tile_order") == "cost";
      shape.sm_count = sm_count;
      shape.warps_per_sm = max_warps_per_sm(major, minor);
      const WholeKernel wk = whole_kernel_of_frame(*id, listing->whole, shape, counts.data(),
                                                   m.at("warp_iters").get<double>());
      if (!wk.ok()) {
        std::printf("%-8s %-11s n/a: %s\n", view_name.c_str(), variant.c_str(),
                    wk.unusable.c_str());
        continue;
      }
      const FrameTally tally = tally_frame(*block_schedule(*id), shape, counts.data());
      const double counted = c.at("warp_instructions"), model = wk.instructions();
      const double d = 100 * (model - counted) / counted;
      bool ok = std::abs(d) <= 3;
      std::string cells;
      std::map<std::string, double> busy;
      for (const PipeLoad& p :
           whole_kernel_loads(rates, sm_count, wk, m.at("sm_cycles").get<double>(),
                              c.at("clock_ghz").get<double>()))
        busy[p.name] = 100 * p.utilisation;
      for (const char* p : kPipes) {
        if (!c.at("pipes").contains(p) || c.at("pipes").at(p).is_null() || !busy.count(p)) continue;
        const double k = c.at("pipes").at(p);
        char cell[64];
        std::snprintf(cell, sizeof cell, " %s %.1f/%.1f(%+.1f)", p, busy[p], k, busy[p] - k);
        cells += cell;
        ok = ok && std::abs(busy[p] - k) <= 3;
      }
      ++total;
      met += ok;
      const double recorded =
          r.value("whole_kernel", nlohmann::json::object()).value("instructions", 0.0);
      // A row recorded without a model (lane refill before its simulation) has none to compare.
      char before[32] = "none";
      if (recorded > 0)
        std::snprintf(before, sizeof before, "%+5.1f%%", 100 * (recorded - counted) / counted);
      // perturb's rounds, the CPU reference's against the kernel's.
      std::string rounds;
      if (shape.rounds >= 0 && m.value("rounds", 0.0) > 0) {
        char cell[48];
        std::snprintf(
            cell, sizeof cell, ", rounds %+.2f%%",
            100 * (shape.rounds - m.at("rounds").get<double>()) / m.at("rounds").get<double>());
        rounds = cell;
      }
      std::printf("%-8s %-11s %s %.4g / %.4g %+5.1f%% (recorded model %s, steps %+.2f%%%s)%s\n",
                  view_name.c_str(), variant.c_str(), ok ? "ok  " : "MISS", model, counted, d,
                  before,
                  100 * (tally.warp_steps - m.at("warp_iters").get<double>()) /
                      m.at("warp_iters").get<double>(),
                  rounds.c_str(), cells.c_str());
      if (pieces) {
        std::printf("    parts (model / recorded model):");
        for (KernelPart part : {KernelPart::StepLoop, KernelPart::PerBlock, KernelPart::PerPixel,
                                KernelPart::PerLaunch})
          std::printf(" %s %.6g / %.6g;", kernel_part_name(part), wk.part(part).mix.total(),
                      r.value("whole_kernel", nlohmann::json::object())
                          .value("parts", nlohmann::json::object())
                          .value(kernel_part_name(part), 0.0));
        std::printf("\n");
        std::printf(
            "    tally: warps %.0f pixel visits %.0f queue %.0f segments %.0f blocks %.0f\n",
            tally.warps, tally.pixel_visits, tally.queue_trips, tally.segment_changes,
            tally.blocks);
        for (std::size_t i = 0; i < tally.trips.size(); ++i)
          std::printf("    region %zu: trips %.0f seconds %.0f\n", i, tally.trips[i],
                      tally.seconds[i]);
        for (std::size_t i = 0; i < tally.reached.size(); ++i)
          std::printf("    phase %zu reached %.0f\n", i, tally.reached[i]);
        for (std::size_t i = 0; i < tally.refill_paths.size(); ++i)
          std::printf("    refill path %zu: %.0f\n", i, tally.refill_paths[i]);
      }
      if (pieces)
        for (const KernelPiece& p : listing->whole.pieces)
          std::printf("    %-10s %-8s %2d [%zu,%zu] %5.0f instr (%.0f heavy only) exits %x\n",
                      kernel_part_name(p.part), kCountNames[static_cast<int>(p.count)], p.index,
                      p.first, p.last, p.mix.total(), p.heavy_only, p.exits);
      for (const std::string& u : wk.unplaced) std::printf("    unplaced: %s\n", u.c_str());
    }
  } catch (const std::exception& e) {  // a field missing or of another type, an unknown device
    std::fprintf(stderr, "whole_kernel_agree: %s: %s\n", argv[1], e.what());
    return 2;
  }
  std::printf("== %d of %d rows meet every target\n", met, total);
  return 0;
}
