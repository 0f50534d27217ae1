// render past the window's sizes, as a user runs it (CPU path): the banded, streamed PNG against
// untiled renders, supersampling, zoom sequences with their JSON, colour settings in the sidecar,
// progress, signals, bad values, a closed standard error and runs that share an output.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exr_values.h"
#include "io/colour_settings.h"
#include "png_image.h"
#include "program_runner.h"

namespace mp {
namespace {
namespace fs = std::filesystem;

using program::Result;
using program::slurp;

class RenderBigTest : public program::FolderTest {
 protected:
  std::string command(const std::string& args) const {
    return "cd '" + dir_.string() + "' && exec '" + program::binary() + "' " + args + " >'" +
           (dir_ / ".stdout").string() + "' 2>'" + (dir_ / ".stderr").string() + "' </dev/null";
  }
  Result collect(int status) {
    return program::result_of(status, dir_ / ".stdout", dir_ / ".stderr");
  }
  Result run(const std::string& args) { return collect(std::system(command(args).c_str())); }
  // The program under the test hooks' variables (`env`: NAME=VALUE ...).
  Result run_with(const std::string& env, const std::string& args) {
    return run_line("env " + env + " '" + program::binary() + "' " + args);
  }
  // Started, sent `sig` `delay` seconds later, and waited for (killed after 60 s).
  Result run_and_signal(const std::string& args, double delay, int sig) {
    return collect(program::run_signalled(command(args), delay, sig, 60));
  }
  void expect_one_line_error(const Result& r, const std::string& fragment) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    return names;
  }
};

// 20000 columns are two pieces side by side (16384 + 3616); a pixel spacing of 2^-14 and dyadic
// centres make every sample's coordinates exact, so a crop across the seam, rendered on its own
// as one piece, must match pixel for pixel.
TEST_F(RenderBigTest, TwentyThousandWideStreamedImageMatchesAnUntiledCrop) {
  const Result big = run(
      "render --cpu --width 20000 --height 100 --center -0.125,0 --span 1.220703125 --iters 200 "
      "--out big.png");
  ASSERT_EQ(big.code, 0) << big.err;
  const Image img = read_png(dir_ / "big.png");
  ASSERT_EQ(img.width, 20000);
  ASSERT_EQ(img.height, 100);
  // Rows plausible: the view is symmetric about the real axis, so row y mirrors row 99 - y, and
  // each row holds both the black interior and many escape colours.
  for (int y = 0; y < 50; ++y)
    ASSERT_EQ(0, std::memcmp(img.at(0, y), img.at(0, 99 - y), 20000 * 3)) << "row " << y;
  for (int y : {0, 50, 99}) {
    std::set<unsigned> colours;
    for (int x = 0; x < img.width; ++x)
      colours.insert(img.at(x, y)[0] << 16 | img.at(x, y)[1] << 8 | img.at(x, y)[2]);
    EXPECT_GT(colours.size(), 100u) << "row " << y;
    EXPECT_TRUE(colours.count(0)) << "row " << y << " has no interior";
  }
  // Columns 16300..16499 (the second piece starts at 16384): centre -0.125 + 6400 * 2^-14.
  const Result crop = run(
      "render --cpu --width 200 --height 100 --center 0.265625,0 --span 0.01220703125 --iters 200 "
      "--out crop.png");
  ASSERT_EQ(crop.code, 0) << crop.err;
  const Image ref = read_png(dir_ / "crop.png");
  ASSERT_EQ(ref.width, 200);
  ASSERT_EQ(ref.height, 100);
  std::set<unsigned> colours;
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 200; ++x) {
      ASSERT_EQ(0, std::memcmp(ref.at(x, y), img.at(16300 + x, y), 3)) << x << "," << y;
      colours.insert(ref.at(x, y)[0] << 16 | ref.at(x, y)[1] << 8 | ref.at(x, y)[2]);
    }
  EXPECT_GT(colours.size(), 20u) << "the crop must show detail to compare";
  const auto j = nlohmann::json::parse(slurp(dir_ / "big.json"));
  EXPECT_EQ(j["tiling"]["pieces_per_band"], 2);
  EXPECT_EQ(j["parameters"]["width"], 20000);
}

TEST_F(RenderBigTest, SupersamplingAveragesTheColoursOfTheFinerGrid) {
  const std::string view = "--cpu --center -0.7435,0.1314 --span 0.003 --iters 500";
  ASSERT_EQ(run("render " + view + " --width 64 --height 48 --ss 2 --out ss.png").code, 0);
  ASSERT_EQ(run("render " + view + " --width 128 --height 96 --out fine.png").code, 0);
  const Image ss = read_png(dir_ / "ss.png"), fine = read_png(dir_ / "fine.png");
  ASSERT_EQ(ss.width, 64);
  ASSERT_EQ(ss.height, 48);
  ASSERT_EQ(fine.width, 128);
  int differs_from_a_sample = 0;
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x)
      for (int k = 0; k < 3; ++k) {
        const unsigned sum = fine.at(2 * x, 2 * y)[k] + fine.at(2 * x + 1, 2 * y)[k] +
                             fine.at(2 * x, 2 * y + 1)[k] + fine.at(2 * x + 1, 2 * y + 1)[k];
        ASSERT_EQ(ss.at(x, y)[k], (sum + 2) / 4) << x << "," << y;
        differs_from_a_sample += ss.at(x, y)[k] != fine.at(2 * x, 2 * y)[k];
      }
  EXPECT_GT(differs_from_a_sample, 100) << "a view without edges tests no averaging";
  const auto j = nlohmann::json::parse(slurp(dir_ / "ss.json"));
  EXPECT_EQ(j["parameters"]["ss"], 2);
}

TEST_F(RenderBigTest, ColourSettingsGoIntoTheSidecarAndComeBack) {
  const Result r =
      run("render --cpu --width 64 --height 48 --variant fma4-sin --palette ocean --density 2.5 "
          "--offset 0.25 --stripe 0.1 --out c.png");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir_ / "c.json"));
  const ColourSettings c = colour_settings_from_json(j["parameters"]);
  EXPECT_EQ(c.palette, "ocean");
  EXPECT_FLOAT_EQ(c.params.density, 2.5f);
  EXPECT_FLOAT_EQ(c.params.offset, 0.25f);
  EXPECT_FLOAT_EQ(c.params.stripe, 0.1f);
  ASSERT_EQ(
      run("render --cpu --width 64 --height 48 --variant fma4-sin --palette ocean --out d.png")
          .code,
      0);
  EXPECT_NE(read_png(dir_ / "c.png").rgb, read_png(dir_ / "d.png").rgb)
      << "the colour flags changed nothing";
  EXPECT_THROW(colour_settings_from_json({{"density", 1001}}), std::out_of_range);
}

// --fit-colours: a deep view's counts, close together, spread over the palette from a preview;
// the sidecar keeps what it set, so that --density and --offset render the same image again.
TEST_F(RenderBigTest, FittedColoursComeFromAPreviewAndGoIntoTheSidecar) {
  const std::string view = "render --cpu --width 96 --height 54 --center 0,1 --span 1e-20 ";
  const Result r = run(view + "--iters 2000 --fit-colours --out f.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("mandelpipe: colours fitted to a preview: its counts, about "),
            std::string::npos)
      << r.err;
  // The preview's reference, made for the whole image, is the render's: made once.
  std::size_t made = 0;
  for (std::size_t at = 0;
       (at = r.err.find("mandelpipe: reference orbit: ", at)) != std::string::npos; ++at)
    ++made;
  EXPECT_EQ(made, 1u) << r.err;
  const auto p = nlohmann::json::parse(slurp(dir_ / "f.json"))["parameters"];
  EXPECT_TRUE(p["fit_colours"].get<bool>());
  const float density = p["density"].get<float>(), offset = p["offset"].get<float>();
  EXPECT_GT(density, 2.0f) << "a deep view's counts lie close together";
  char again[160];
  std::snprintf(again, sizeof again, "--iters 2000 --density %.9g --offset %.9g --out g.png",
                density, offset);
  ASSERT_EQ(run(view + again).code, 0);
  EXPECT_EQ(read_png(dir_ / "f.png").rgb, read_png(dir_ / "g.png").rgb);
  expect_one_line_error(run(view + "--fit-colours --density 2 --out h.png"), "--fit-colours");
  expect_one_line_error(run(view + "--fit-colours --zoom-to 0,1,1e-21 --frames 2 --out seq"),
                        "--fit-colours");
}

// A record's "startup": its steps in ms after the process started, in the order they happen.
void expect_startup_in_order(const nlohmann::json& s) {
  const char* steps[] = {"devices_probed_ms", "contexts_ready_ms",     "pipeline_entered_ms",
                         "pool_ready_ms",     "first_band_started_ms", "first_band_rendered_ms",
                         "ended_ms"};
  double last = 0;
  for (const char* step : steps) {
    ASSERT_TRUE(s.contains(step)) << step << " in " << s.dump();
    const double t = s[step].get<double>();
    EXPECT_GE(t, last) << step << " in " << s.dump();
    last = t;
  }
  ASSERT_EQ(s["workers_ready_ms"].size(), 1u);
  EXPECT_GE(s["workers_ready_ms"][0].get<double>(), s["pool_ready_ms"].get<double>());
  EXPECT_LE(s["workers_ready_ms"][0].get<double>(), s["first_band_started_ms"].get<double>());
  EXPECT_LT(s["ended_ms"].get<double>(), 120000) << "ms after the process started";
}

TEST_F(RenderBigTest, ZoomSequenceWritesNumberedFramesAndTheirParameters) {
  const std::string common = "--cpu --width 64 --height 48 --iters 300 --palette ember";
  const Result r = run("render " + common +
                       " --center -0.5,0 --span 3 --zoom-to -0.7435,0.1314,0.003 --frames 5 "
                       "--out seq");
  ASSERT_EQ(r.code, 0) << r.err;
  for (int k = 0; k < 5; ++k) {
    const Image f = read_png(dir_ / "seq" / ("frame-0000" + std::to_string(k) + ".png"));
    EXPECT_EQ(f.width, 64) << k;
    EXPECT_EQ(f.height, 48) << k;
  }
  EXPECT_FALSE(fs::exists(dir_ / "seq" / "frame-00005.png"));
  const auto j = nlohmann::json::parse(slurp(dir_ / "seq" / "frames.json"));
  ASSERT_EQ(j["frames"].size(), 5u);
  // The centre and span as decimal strings, as given.
  EXPECT_EQ(j["frames"][0]["center"][0], "-0.5");
  EXPECT_EQ(j["frames"][0]["span"], "3");
  EXPECT_EQ(j["frames"][4]["center"][0], "-0.7435");
  EXPECT_EQ(j["frames"][4]["center"][1], "0.1314");
  EXPECT_EQ(j["frames"][4]["span"], "0.003");
  auto number = [](const nlohmann::json& s) { return std::stod(s.get<std::string>()); };
  for (int k = 0; k < 5; ++k) {
    const auto& f = j["frames"][k];
    EXPECT_EQ(f["image"], "frame-0000" + std::to_string(k) + ".png");
    EXPECT_EQ(f["iters"], 300);
    EXPECT_EQ(f["variant"], "fma4");
    EXPECT_EQ(f["palette"], "ember");
    EXPECT_TRUE(f.contains("density") && f.contains("offset") && f.contains("stripe"));
    // Each frame's times, measured: the CPU reference's, the colouring and encoding's, the wall's.
    for (const char* key : {"wall_ms", "cpu_render_ms", "colour_encode_ms"})
      EXPECT_GT(f["timing"][key].get<double>(), 0) << k << " " << key;
    EXPECT_EQ(f["png_level"], 1);
    if (k > 0)  // geometric: the same ratio from frame to frame
      EXPECT_NEAR(number(f["span"]) / number(j["frames"][k - 1]["span"]), std::pow(0.001, 0.25),
                  1e-12);
  }
  EXPECT_EQ(j["run"]["frames_rendered"], 5);
  EXPECT_GT(j["run"]["wall_ms"].get<double>(), 0);
  EXPECT_EQ(j["run"]["colour_on"], "CPU");
  expect_startup_in_order(j["run"]["startup"]);
  EXPECT_NE(j["timing_measured"].get<std::string>().find("colour_encode_ms"), std::string::npos);
  // A frame is the still of its view: frame 2 re-rendered from its parameters alone.
  const auto& f2 = j["frames"][2];
  std::ostringstream still;
  still << "render " << common << " --center " << f2["center"][0].get<std::string>() << ","
        << f2["center"][1].get<std::string>() << " --span " << f2["span"].get<std::string>()
        << " --out still.png";
  ASSERT_EQ(run(still.str()).code, 0);
  EXPECT_EQ(read_png(dir_ / "still.png").rgb, read_png(dir_ / "seq" / "frame-00002.png").rgb);
  // The folder holds a sequence now: a second one is refused, the first left alone.
  expect_one_line_error(run("render " + common + " --zoom-to 0,0,1 --frames 3 --out seq"),
                        "holds a zoom sequence: --resume completes it");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "seq"), fs::directory_iterator()), 6);
}

// The PNG's level changes its bytes, never its pixels: 4000x1100 is two bands (1048 and 52
// rows), each in blocks of 87 rows that do not divide it, encoded on every core.
TEST_F(RenderBigTest, EveryPngLevelGivesThePixelsOfTheDefault) {
  const std::string view =
      "render --cpu --width 4000 --height 1100 --center -0.745,0.113 --span 0.05 --iters 40 ";
  const Result r = run(view + "--out default.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("4000x1100 in 2 bands of 1048 rows"), std::string::npos) << r.err;
  const Image reference = read_png(dir_ / "default.png");
  ASSERT_EQ(reference.width, 4000);
  std::uintmax_t stored = 0, smallest = 0;
  for (const int level : {0, 1, 9}) {
    const std::string name = "l" + std::to_string(level) + ".png";
    ASSERT_EQ(run(view + "--png-level " + std::to_string(level) + " --out " + name).code, 0);
    EXPECT_EQ(read_png(dir_ / name).rgb, reference.rgb) << "level " << level;
    const auto j = nlohmann::json::parse(slurp(dir_ / fs::path(name).replace_extension(".json")));
    EXPECT_EQ(j["parameters"]["png_level"], level);
    if (level == 0) stored = fs::file_size(dir_ / name);
    if (level == 9) smallest = fs::file_size(dir_ / name);
  }
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "default.json"))["parameters"]["png_level"], 1)
      << "the default is level 1";
  EXPECT_GT(stored, 4000u * 1100 * 3) << "level 0 stores";
  EXPECT_LT(smallest, fs::file_size(dir_ / "l1.png"));
  const auto j = nlohmann::json::parse(slurp(dir_ / "default.json"));
  EXPECT_EQ(j["tiling"]["png_block_rows"], 87);
  for (const char* key : {"wall_ms", "cpu_render_ms", "render_ms", "colour_encode_ms", "write_ms"})
    EXPECT_GT(j["timing"][key].get<double>(), 0) << key;
  EXPECT_EQ(j["timing"]["colour_on"], "CPU");
  EXPECT_FALSE(j["timing"].contains("gpu_colour_ms"));
  EXPECT_NE(j["tiling"]["colour"].get<std::string>().find("on the CPU"), std::string::npos);
  expect_startup_in_order(j["startup"]);
}

// A sequence's frames are each encoded whole (png_frame.h: ISA-L at the default level 1,
// libdeflate at 2..9), here of two bands (2048
// and 52 rows): the same bytes whoever rendered the bands, the still's pixels at every level, and
// the still's EXR beside each.
TEST_F(RenderBigTest, WholeFramesOfTwoBandsAreTheStillsPixelsOnAnyWorkersAtEveryLevel) {
  const std::string seq =
      "render --cpu --width 2048 --height 2100 --iters 30 --center -0.745,0.113 --span 0.05 "
      "--zoom-to -0.745,0.113,0.02 --frames 2 ";
  const Result one = run(seq + "--exr-frames --out one");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.err.find("2048x2100 in 2 bands of 2048 rows"), std::string::npos) << one.err;
  const Result two = run_with("MANDELPIPE_TEST_CPU_WORKERS=2", seq + "--exr-frames --out two");
  ASSERT_EQ(two.code, 0) << two.err;
  ASSERT_EQ(run(seq + "--png-level 0 --exr-frames --exr-compression none --out stored").code, 0);
  ASSERT_EQ(run(seq + "--png-level 9 --exr-frames --exr-compression piz --out small").code, 0);
  for (const char* frame : {"frame-00000.png", "frame-00001.png"}) {
    EXPECT_EQ(read_png(dir_ / "two" / frame).rgb, read_png(dir_ / "one" / frame).rgb) << frame;
    const fs::path exr = fs::path(frame).replace_extension(".exr");
    // Values, not bytes: ISA-L deflates the same rows to other bytes from run to run.
    EXPECT_EQ(exr_values((dir_ / "two" / exr).c_str()), exr_values((dir_ / "one" / exr).c_str()))
        << exr;
    const Image image = read_png(dir_ / "one" / frame);
    ASSERT_EQ(image.width, 2048) << frame;
    EXPECT_EQ(read_png(dir_ / "stored" / frame).rgb, image.rgb) << frame;
    EXPECT_EQ(read_png(dir_ / "small" / frame).rgb, image.rgb) << frame;
    EXPECT_GT(fs::file_size(dir_ / "stored" / frame), 2048u * 2100 * 3) << frame;
    EXPECT_LE(fs::file_size(dir_ / "small" / frame), fs::file_size(dir_ / "one" / frame));
    // The EXRs of every compression hold the same values; uncompressed, the rows' 8 bytes each.
    const ExrValues zip = exr_values((dir_ / "one" / exr).c_str());  // the default
    ASSERT_EQ(zip.n.size(), 2048u * 2100) << exr;
    EXPECT_EQ(exr_values((dir_ / "stored" / exr).c_str()), zip) << exr;
    EXPECT_EQ(exr_values((dir_ / "small" / exr).c_str()), zip) << exr;
    EXPECT_GT(fs::file_size(dir_ / "stored" / exr), 2048u * 2100 * 8) << exr;
  }
  const auto j = nlohmann::json::parse(slurp(dir_ / "one" / "frames.json"));
  EXPECT_NE(j["tiling"]["png_encoder"].get<std::string>().find("ISA-L"), std::string::npos);
  const auto small = nlohmann::json::parse(slurp(dir_ / "small" / "frames.json"));
  EXPECT_NE(small["tiling"]["png_encoder"].get<std::string>().find("libdeflate"),
            std::string::npos);
  EXPECT_EQ(j["tiling"]["exr_compression"], "zip");
  EXPECT_EQ(small["tiling"]["exr_compression"], "piz");
  for (const auto& f : small["frames"]) EXPECT_EQ(f["exr_compression"], "piz");
  EXPECT_EQ(j["tiling"]["bands"], 2);
  for (const auto& f : j["frames"])
    for (const char* key : {"wall_ms", "cpu_render_ms", "colour_encode_ms", "write_ms"})
      EXPECT_GT(f["timing"][key].get<double>(), 0) << key;
  // Frame 1 is the still of its view.
  const auto& f1 = j["frames"][1];
  ASSERT_EQ(run("render --cpu --width 2048 --height 2100 --iters 30 --center " +
                f1["center"][0].get<std::string>() + "," + f1["center"][1].get<std::string>() +
                " --span " + f1["span"].get<std::string>() + " --out still.png --exr still.exr")
                .code,
            0);
  EXPECT_EQ(read_png(dir_ / "still.png").rgb, read_png(dir_ / "one" / "frame-00001.png").rgb);
  EXPECT_EQ(exr_values((dir_ / "still.exr").c_str()),
            exr_values((dir_ / "one" / "frame-00001.exr").c_str()));
}

// A frame the pool cannot write (over RLIMIT_FSIZE: EFBIG) ends the run with one line, and leaves
// no frame and no temporary file: only the listing, which names none.
TEST_F(RenderBigTest, AFrameOverTheFileSizeLimitLeavesNoHalfWrittenFile) {
  const Result r = run_line("ulimit -f 8 && '" + program::binary() +
                            "' render --cpu --width 200 --height 200 --iters 200 --zoom-to "
                            "-0.7,0.1,0.1 --frames 3 --png-level 0 --out seq");
  expect_one_line_error(r, "cannot write seq/frame-0000");
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_ / "seq")) left.push_back(e.path().filename());
  EXPECT_EQ(left, std::vector<std::string>{"frames.json"});
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "seq" / "frames.json"))["frames"].size(), 0u);
}

// --devices: "all" or a list of device numbers, each once; a device that is not there is refused
// before any work, exit 2 past the devices there are, 3 where there is no GPU at all (the exit
// code of a GPU missing); with --cpu it has no meaning.
TEST_F(RenderBigTest, BadDevicesAreRefusedInOneLine) {
  for (const char* bad : {"-1", "0,0", "''", "0,", ",1", "a", "1.5", "all,0"})
    for (const char* command : {"render --out x.png", "bench"})
      expect_one_line_error(run(std::string(command) + " --devices " + bad), "--devices: ");
  for (const char* command : {"render --out x.png", "bench"}) {
    const Result r = run(std::string(command) + " --devices 99");
    const bool gpus = r.err.find("CUDA devices here") != std::string::npos;
    EXPECT_EQ(r.code, gpus ? 2 : 3) << r.err;
    EXPECT_NE(r.err.find("--devices: there is no device 99"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  expect_one_line_error(run("render --cpu --out x.png --devices 0"), "--devices: not with --cpu");
  EXPECT_EQ(files(), std::vector<std::string>{});
}

// The queue of bands with several workers (CPU ones here, the test hook standing in for GPUs):
// the image is the one worker's byte for byte, whichever worker took which band, and the
// sidecar names each worker and the bands it rendered.
TEST_F(RenderBigTest, SeveralWorkersRenderTheImageOfOne) {
  const std::string still =
      "render --cpu --width 300 --height 60000 --center -0.745,0.113 --span 0.05 --iters 60 ";
  const Result one = run(still + "--out one.png");
  ASSERT_EQ(one.code, 0) << one.err;
  const Result three = run_with("MANDELPIPE_TEST_CPU_WORKERS=3", still + "--out three.png");
  ASSERT_EQ(three.code, 0) << three.err;
  EXPECT_NE(three.out.find("3 CPU reference workers"), std::string::npos) << three.out;
  EXPECT_EQ(read_png(dir_ / "three.png").rgb, read_png(dir_ / "one.png").rgb);
  const auto j = nlohmann::json::parse(slurp(dir_ / "three.json"));
  ASSERT_EQ(j["workers"].size(), 3u);
  std::set<int> bands;
  int counted = 0;
  for (const auto& [worker, list] : j["rendered_on"].items())
    for (const auto& b : list) {
      bands.insert(b.get<int>());
      ++counted;
    }
  EXPECT_EQ(counted, j["tiling"]["bands"].get<int>());
  EXPECT_EQ(bands.size(), static_cast<std::size_t>(j["tiling"]["bands"].get<int>()));
  int summed = 0;
  for (const auto& w : j["workers"]) summed += w["bands"].get<int>();
  EXPECT_EQ(summed, counted);
}

// A worker that fails as a GPU does (the test hook) leaves its band and the rest to the others:
// the run says so, the image is the same, the sidecar names the failure and the band redone.
// Where every worker fails, the run ends with the error and leaves no file of the image, while a
// sequence keeps the frames written before.
TEST_F(RenderBigTest, AFailedWorkersBandsAreRenderedByAnother) {
  const std::string still =
      "render --cpu --width 300 --height 60000 --center -0.745,0.113 --span 0.05 --iters 60 ";
  ASSERT_EQ(run(still + "--out one.png").code, 0);
  const Result r = run_with("MANDELPIPE_TEST_CPU_WORKERS=2 MANDELPIPE_TEST_FAIL_WORKER=1:1",
                            still + "--out two.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("2 of 2 failed: injected failure (MANDELPIPE_TEST_FAIL_WORKER); band "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("1 of 2 workers failed and the others rendered their bands"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(read_png(dir_ / "two.png").rgb, read_png(dir_ / "one.png").rgb);
  const auto j = nlohmann::json::parse(slurp(dir_ / "two.json"));
  EXPECT_EQ(j["workers"][1]["failed"], "injected failure (MANDELPIPE_TEST_FAIL_WORKER)");
  EXPECT_EQ(j["workers"][1]["bands"], 1);
  EXPECT_EQ(j["workers"][1]["redone_by_others"].size(), 1u);
  EXPECT_FALSE(j["workers"][0].contains("failed"));

  const Result all = run_with("MANDELPIPE_TEST_FAIL_WORKER=0:1", still + "--out none.png");
  EXPECT_EQ(all.code, 1) << all.err;
  EXPECT_NE(all.err.find("injected failure"), std::string::npos) << all.err;
  EXPECT_FALSE(fs::exists(dir_ / "none.png"));
  const Result seq = run_with("MANDELPIPE_TEST_FAIL_WORKER=0:2",
                              "render --cpu --width 64 --height 48 --zoom-to -0.7,0.1,0.1 "
                              "--frames 5 --out seq");
  EXPECT_EQ(seq.code, 1) << seq.err;
  const auto listing = nlohmann::json::parse(slurp(dir_ / "seq" / "frames.json"));
  // The two it rendered first: frames go from both ends in turn (frame_order.h).
  EXPECT_EQ(listing["frames"].size(), 2u);
  EXPECT_TRUE(fs::exists(dir_ / "seq" / "frame-00000.png"));
  EXPECT_TRUE(fs::exists(dir_ / "seq" / "frame-00004.png"));
  EXPECT_FALSE(fs::exists(dir_ / "seq" / "frame-00001.png"));
}

TEST_F(RenderBigTest, BadValuesAreOneLineAndExitCode2) {
  for (const char* level : {"-1", "10", "1.5", "''", "fast"})
    expect_one_line_error(run("render --cpu --out x.png --png-level " + std::string(level)),
                          "--png-level: must be a whole number from 0");
  expect_one_line_error(run("render --cpu --out x.png --exr x.exr --exr-compression lzw"),
                        "--exr-compression: expected zip, piz, rle or none");
  expect_one_line_error(run("render --cpu --out x.png --ss 5"), "--ss");
  expect_one_line_error(run("render --cpu --out x.png --ss 1.5"), "--ss");
  expect_one_line_error(run("render --cpu --out x.png --density 1001"), "--density");
  expect_one_line_error(run("render --cpu --out x.png --offset -0.1"), "--offset");
  expect_one_line_error(run("render --cpu --out x.png --stripe nan"), "--stripe");
  expect_one_line_error(run("render --cpu --out x.png --width 65537"), "--width");
  expect_one_line_error(run("render --cpu --out x.png --frames 5"), "--zoom-to");
  expect_one_line_error(run("render --cpu --out d --zoom-to 0,0,1"), "--frames");
  expect_one_line_error(run("render --cpu --out d --zoom-to 0,0,1 --frames 1"), "--frames");
  expect_one_line_error(run("render --cpu --out d --zoom-to 0,0 --frames 3"), "--zoom-to");
  expect_one_line_error(run("render --cpu --out d --zoom-to 0,0,-1 --frames 3"), "--zoom-to");
  expect_one_line_error(run("render --cpu --out d.png --zoom-to 0,0,1 --frames 3"), "folder");
  std::ofstream(dir_ / "plain");
  expect_one_line_error(run("render --cpu --out plain --zoom-to 0,0,1 --frames 3"), "not a folder");
  EXPECT_EQ(files(), std::vector<std::string>{"plain"});
}

TEST_F(RenderBigTest, QuickRenderPrintsNoProgress) {
  const Result r = run("render --cpu --width 64 --height 48 --out q.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("band"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("memory"), std::string::npos) << r.err;
}

// Interrupted mid-render of a big image: the plan and progress were said, and nothing is left.
// (5,000 iterations: at 60, sixteen cores had it written before the signal.)
TEST_F(RenderBigTest, SigintMidRenderLeavesNoFileAndShowsProgress) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run_and_signal(
      "render --cpu --width 20000 --height 20000 --iters 5000 --out huge.png", 4.0, SIGINT);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.signal == SIGINT || r.code != 0) << "exit " << r.code << ": " << r.err;
  EXPECT_LT(s, 30) << "the signal did not end it";
  EXPECT_EQ(files(), std::vector<std::string>{}) << r.err;
  EXPECT_NE(r.err.find("20000x20000 in 79 bands"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("working memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/79, "), std::string::npos) << "no progress after 4 s: " << r.err;
}

// A heavy image of one band (all of it inside the set at 4000 iterations: about 3 s on two
// cores) says how far it is within a second of its start and every second after, not only once
// its band is done.
TEST_F(RenderBigTest, ProgressComesWithinASecondWhateverTheBand) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = run(
      "render --cpu --center -0.2,0 --span 0.3 --width 640 --height 360 --iters 4000 --out p.png");
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.code, 0) << r.err;
  // "mandelpipe: rendering, 29%, 0.8 s": the times said, in order.
  std::vector<double> said;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t pct = line.find("%, ");
    if (line.rfind("mandelpipe: rendering, ", 0) == 0 && pct != std::string::npos)
      said.push_back(std::stod(line.substr(pct + 3)));
  }
  if (total < 1.2) GTEST_SKIP() << "the render took " << total << " s here: too fast to need it";
  ASSERT_FALSE(said.empty()) << r.err;
  // The program says it every 0.75 s after runs of 0.2 s: under a second. The bounds leave half
  // a second for a machine whose other work slows a run (the silence this replaced was the whole
  // render).
  constexpr double kBound = 1.5;
  EXPECT_LE(said.front(), kBound) << r.err;
  for (std::size_t i = 1; i < said.size(); ++i) EXPECT_LE(said[i] - said[i - 1], kBound) << r.err;
  // And from the last line to the end (the colouring and the file after it included).
  EXPECT_LE(total - said.back(), kBound + 0.5) << r.err;
}

// One precision rule, the window's: past float, fp64 on the CPU; past double, perturbation (in
// the extended range past double's exponents); said on stderr and in the sidecar.
TEST_F(RenderBigTest, ThePrecisionRuleIsFollowedAndSaid) {
  const Result r =
      run("render --cpu --width 64 --height 48 --center -0.75,0.1 --span 1e-9 "
          "--iters 100 --out p.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("float cannot separate pixels at span 1e-09: rendering with fp64"),
            std::string::npos)
      << r.err;
  const auto p = nlohmann::json::parse(slurp(dir_ / "p.json"));
  EXPECT_EQ(p["precision"]["rendered_by"], "fp64");
  EXPECT_FALSE(p["precision_exhausted"].get<bool>());
  const Result deep =
      run("render --cpu --width 64 --height 48 --center 1.3e-1001,1 --span 3e-1000 "
          "--iters 6000 --out d.png");
  ASSERT_EQ(deep.code, 0) << deep.err;
  EXPECT_NE(deep.err.find("rendering with perturb-x, perturbation (extended range)"),
            std::string::npos)
      << deep.err;
  const auto d = nlohmann::json::parse(slurp(dir_ / "d.json"));
  EXPECT_EQ(d["precision"]["rendered_by"], "perturbation (extended range)");
  EXPECT_GT(d["precision"]["reference"]["bits"].get<int>(), 3300);
  EXPECT_EQ(d["parameters"]["span"], "3e-1000");
  const auto& m = d["frame"]["measured"];
  EXPECT_LT(m["iterated"].get<double>() * 10, m["pixel_iters"].get<double>());
}

TEST_F(RenderBigTest, APinnedVariantPastItsPrecisionIsRefused) {
  const Result r =
      run("render --cpu --width 64 --height 48 --center 1.3e-51,1 --span 3e-50 "
          "--variant fma4 --pin --out p.png");
  expect_one_line_error(r, "--pin: fma4 cannot separate pixels at span 3e-50");
  EXPECT_EQ(files(), std::vector<std::string>{});
  const Result ok =
      run("render --cpu --width 64 --height 48 --center -0.75,0.1 --span 1e-9 "
          "--variant fp64 --pin --out q.png");
  EXPECT_EQ(ok.code, 0) << ok.err;
}

// The perturbation variants are in the one list: chosen, they render any view from a reference
// orbit, a shallow one too (the same counts as fp64's but for a rare pixel on an escape's edge);
// pinned, perturb refuses past double's exponent range.
TEST_F(RenderBigTest, APerturbationVariantRendersAShallowViewAndIsRefusedPastItsRange) {
  const Result r =
      run("render --cpu --width 64 --height 48 --center -0.75,0.1 --span 0.01 --iters 500 "
          "--variant perturb --out s.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("reference orbit:"), std::string::npos) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir_ / "s.json"));
  EXPECT_EQ(j["parameters"]["variant"], "perturb");
  EXPECT_EQ(j["precision"]["rendered_by"], "perturbation (double)");
  const Result pinned =
      run("render --cpu --width 64 --height 48 --center 1.3e-1001,1 --span 3e-1000 "
          "--iters 100 --variant perturb --pin --out x.png");
  expect_one_line_error(pinned, "--pin: perturb's differences leave double's exponent range");
  std::vector<std::string> left = files();
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"s.json", "s.png"}));
}

TEST_F(RenderBigTest, LocationFilesAndExrOutput) {
  {
    std::ofstream kfr(dir_ / "a.kfr");
    kfr << "Re: 1.3e-101\r\nIm: 1\r\nZoom: 1E100\r\nIterations: 2000\r\n";
  }
  const Result r =
      run("render --cpu --width 64 --height 48 --location a.kfr --exr a.exr --out a.png");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(dir_ / "a.json"));
  EXPECT_EQ(j["parameters"]["iters"], 2000);
  // KF's zoom scales the height: 4 / 1e100 over 48 rows, so 64 columns span 5.33e-100.
  EXPECT_EQ(j["parameters"]["span"].get<std::string>().substr(0, 5), "5.333");
  EXPECT_GT(fs::file_size(dir_ / "a.exr"), 64u * 48);
  for (const char* bad :
       {"Re: 0\nIm: 0\nIterations: 10\n", "Re: nan\nIm: 0\nZoom: 1\nIterations: 10\n",
        "Re: 0\nIm: 0\nZoom: 1e-999999\nIterations: 10\n",
        "Re: 0\nIm: 0\nZoom: 0.01\nIterations: 10\n"}) {
    {
      std::ofstream kfr(dir_ / "b.kfr");
      kfr << bad;
    }
    const Result e = run("render --cpu --location b.kfr --out b.png");
    EXPECT_EQ(e.code, 2) << e.err;
    EXPECT_NE(e.err.find("--location: b.kfr: "), std::string::npos) << e.err;  // the file named
    EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
  }
  expect_one_line_error(run("render --cpu --exr a.exr --ss 2 --out c.png"), "--exr");
  // --iters sets the limit itself: the file's Iterations, out of range here, is not read.
  {
    std::ofstream kfr(dir_ / "i.kfr");
    kfr << "Re: -0.75\r\nIm: 0.1\r\nZoom: 10\r\nIterations: 99999999\r\n";
  }
  expect_one_line_error(run("render --cpu --width 32 --height 24 --location i.kfr --out i.png"),
                        "Iterations: '99999999'");
  const Result own =
      run("render --cpu --width 32 --height 24 --location i.kfr --iters 300 --out i.png");
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "i.json"))["parameters"]["iters"], 300);
}

// A render that prints progress (it takes over a second whatever the number of cores, which the
// CPU renderer uses all of), to `out`.
std::string slow_render(const std::string& out) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return "render --cpu --width 128 --height " + std::to_string(64 * cores) +
         " --center -0.2,0 --span 0.3 --iters 100000 --out " + out;
}

// The PNG's width and the one its sidecar records, or -1 for one that cannot be read.
std::pair<int, int> png_and_sidecar_widths(const fs::path& png) {
  const int image = read_png(png).width;
  try {
    return {image, nlohmann::json::parse(slurp(fs::path(png).replace_extension(".json")))
                       .at("parameters")
                       .at("width")
                       .get<int>()};
  } catch (const std::exception&) {
    return {image, -1};
  }
}

// With standard error closed the image being written took its descriptor, and the progress line
// went into the middle of the PNG.
TEST_F(RenderBigTest, AClosedStandardErrorLeavesTheImageWhole) {
  const std::string cmd = "cd '" + dir_.string() + "' && exec '" + program::binary() + "' " +
                          slow_render("c.png") + " >'" + (dir_ / ".stdout").string() +
                          "' 2>&- </dev/null";
  const Result r = collect(std::system(cmd.c_str()));
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(png_and_sidecar_widths(dir_ / "c.png"), std::make_pair(128, 128));
}

// Closed standard output: refused before any work, so that an earlier pair is not replaced by a
// run that then fails for its closing line; a full one (known only when written) says that the
// files were written, beside its exit 2.
TEST_F(RenderBigTest, AClosedStandardOutputIsReported) {
  const std::string render = "' render --cpu --width 64 --height 48 --iters 100 --out c.png ";
  const std::string err = " 2>'" + (dir_ / ".stderr").string() + "' </dev/null";
  std::string cmd =
      "cd '" + dir_.string() + "' && exec '" + program::binary() + render + ">&-" + err;
  Result r = collect(std::system(cmd.c_str()));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err,
            "mandelpipe: standard output is closed: render says there what it wrote (send it to "
            "/dev/null to drop that line)\n");
  EXPECT_FALSE(fs::exists(dir_ / "c.png"));
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  cmd = "cd '" + dir_.string() + "' && exec '" + program::binary() + render + ">/dev/full" + err;
  r = collect(std::system(cmd.c_str()));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("mandelpipe: cannot write to standard output: No space left on device; the "
                       "render finished and its files are written\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(png_and_sidecar_widths(dir_ / "c.png"), std::make_pair(64, 64));
}

// A reader of the progress that goes away mid-render (`| head -n 1`) ends the run as SIGTERM
// would: the unfinished image and the lock removed, nothing half-written left.
TEST_F(RenderBigTest, AClosedPipeMidRenderLeavesNoFile) {
  const std::string cmd = "cd '" + dir_.string() + "' && '" + program::binary() + "' " +
                          slow_render("p.png") + " 2>&1 </dev/null | head -n 1 >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "head's status";
  EXPECT_EQ(files(), std::vector<std::string>{});
}

// A second render to an output being written is refused at once with one line; the first goes on.
TEST_F(RenderBigTest, ASecondRenderToABusyOutputIsRefused) {
  const pid_t first = fork();
  if (first == 0) {
    const std::string cmd = "cd '" + dir_.string() + "' && exec '" + program::binary() + "' " +
                            slow_render("o.png") + " >/dev/null 2>&1 </dev/null";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Until the first has its image under way (a temporary file beside it).
  bool started = false;
  for (int i = 0; i < 200 && !started; ++i) {
    usleep(50000);
    for (const std::string& name : files()) started |= name.find(".part") != std::string::npos;
  }
  EXPECT_TRUE(started) << "no temporary file after 10 s";
  const Result second = run("render --cpu --width 64 --height 48 --iters 100 --out o.png");
  expect_one_line_error(second, "cannot write o.png: another mandelpipe is writing it");
  int status = 0;
  waitpid(first, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "first run: status " << status;
  EXPECT_EQ(png_and_sidecar_widths(dir_ / "o.png"), std::make_pair(128, 128));
}

// Two renders to one output started together, a few times over: each ends whole or refused, and
// the image there is always described by its own sidecar.
TEST_F(RenderBigTest, ConcurrentRendersToOneOutputNeverMix) {
  const std::string bin = "'" + program::binary() + "' render --cpu --height 48 --iters 2000 ";
  const std::string cmd = "cd '" + dir_.string() + "' && { " + bin +
                          "--width 64 --out o.png >/dev/null 2>a.err & pa=$!; " + bin +
                          "--width 72 --out o.png >/dev/null 2>b.err & pb=$!; wait $pa; a=$?; "
                          "wait $pb; b=$?; echo $a $b >codes; } </dev/null";
  for (int round = 0; round < 8; ++round) {
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    int a = -1, b = -1;
    std::istringstream(slurp(dir_ / "codes")) >> a >> b;
    const std::vector<std::pair<int, fs::path>> runs = {{a, dir_ / "a.err"}, {b, dir_ / "b.err"}};
    for (const auto& [code, err] : runs) {
      EXPECT_TRUE(code == 0 || code == 2) << code;
      if (code == 2) EXPECT_NE(slurp(err).find("another mandelpipe"), std::string::npos);
    }
    EXPECT_TRUE(a == 0 || b == 0) << "both refused";
    const auto [image, sidecar] = png_and_sidecar_widths(dir_ / "o.png");
    EXPECT_EQ(image, sidecar) << "round " << round;
    EXPECT_TRUE(image == 64 || image == 72) << image;
  }
}

// A run killed outright (SIGKILL, a power cut) cannot remove its temporary file; the next run to
// that output does, and says so, leaving a live writer's alone.
TEST_F(RenderBigTest, ARunToAnOutputRemovesWhatAKilledRunLeftThere) {
  const pid_t killed = fork();
  if (killed == 0) {
    const std::string cmd = "cd '" + dir_.string() + "' && exec '" + program::binary() + "' " +
                            slow_render("o.png") + " >/dev/null 2>&1 </dev/null";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string stale;
  for (int i = 0; i < 200 && stale.empty(); ++i) {
    usleep(50000);
    for (const std::string& name : files())
      if (name.find(".part-") != std::string::npos) stale = name;
  }
  kill(killed, SIGKILL);
  waitpid(killed, nullptr, 0);
  ASSERT_FALSE(stale.empty()) << "no temporary file after 10 s";
  ASSERT_TRUE(fs::exists(dir_ / stale));
  // One of this process's, which runs: a writer that is not mandelpipe's render (or that holds
  // no lock) is never disturbed.
  const std::string live = ".o.png.part-" + std::to_string(getpid()) + "-0123456789abcdef";
  std::ofstream(dir_ / live) << "being written";
  const Result r = run("render --cpu --width 64 --height 48 --iters 100 --out o.png");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(
      r.err.find("mandelpipe: removed 1 unfinished file that stopped runs left: " + stale + "\n"),
      std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / stale));
  EXPECT_TRUE(fs::exists(dir_ / live));
  // Once removed, nothing more is said.
  const Result again = run("render --cpu --width 64 --height 48 --iters 100 --out o.png");
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.err.find("removed"), std::string::npos) << again.err;
}

// a.png and a.PNG are two images where case counts; each keeps its own sidecar.
TEST_F(RenderBigTest, AnImageNamedInCapitalsHasASidecarOfItsOwn) {
  ASSERT_EQ(run("render --cpu --width 64 --height 48 --iters 100 --out a.png").code, 0);
  const Result r = run("render --cpu --width 72 --height 48 --iters 100 --out a.PNG");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote a.PNG and a.JSON"), std::string::npos) << r.out;
  const auto lower = nlohmann::json::parse(slurp(dir_ / "a.json"));
  EXPECT_EQ(lower["image"], "a.png");
  EXPECT_EQ(lower["parameters"]["width"], 64);
  EXPECT_EQ(read_png(dir_ / "a.png").width, 64);
  if (fs::equivalent(dir_ / "a.png", dir_ / "a.PNG"))
    GTEST_SKIP() << "this file system does not tell case apart: a.png is a.PNG";
  const auto upper = nlohmann::json::parse(slurp(dir_ / "a.JSON"));
  EXPECT_EQ(upper["image"], "a.PNG");
  EXPECT_EQ(upper["parameters"]["width"], 72);
  EXPECT_EQ(read_png(dir_ / "a.PNG").width, 72);
}

// How to give a run a file system of its own (a small tmpfs): "unshare -m" as root, else in a user
// namespace; "" where the kernel allows neither.
std::string private_mounts() {
  for (const char* u : {"unshare -m", "unshare -rm"})
    if (std::system(
            (std::string(u) + " sh -c 'mount -t tmpfs mp-test /mnt' >/dev/null 2>&1").c_str()) == 0)
      return u;
  return "";
}

// A render whose files may not fit where they go is refused before the work, with the sizes;
// one that fits goes on.
TEST_F(RenderBigTest, ARenderThatMayNotFitIsRefusedBeforeTheWork) {
  const std::string unshare = private_mounts();
  if (unshare.empty()) GTEST_SKIP() << "cannot mount a tmpfs here (unshare -m, unshare -rm)";
  fs::create_directories(dir_ / "disk");
  // In a mount namespace of its own: a 1 MiB disk, the runs into it, and what they left.
  const std::string bin = "'" + program::binary() + "' render --cpu --iters 64 ";
  std::ofstream(dir_ / "small-disk.sh")
      << "mount -t tmpfs -o size=1m mp-test '" << (dir_ / "disk").string() << "' || exit 99\n"
      << "cd '" << (dir_ / "disk").string() << "'\n"
      << bin << "--width 2000 --height 2000 --out big.png 2>'" << (dir_ / "big.err").string()
      << "'; echo $? >'" << (dir_ / "codes").string() << "'\n"
      << bin << "--width 320 --height 240 --zoom-to -0.7,0.1,0.1 --frames 24 --out seq 2>'"
      << (dir_ / "seq.err").string() << "'; echo $? >>'" << (dir_ / "codes").string() << "'\n"
      << bin << "--width 64 --height 48 --out small.png 2>/dev/null; echo $? >>'"
      << (dir_ / "codes").string() << "'\n"
      << "ls -A >'" << (dir_ / "left").string() << "'\n";
  ASSERT_EQ(
      std::system((unshare + " sh '" + (dir_ / "small-disk.sh").string() + "' >/dev/null").c_str()),
      0);
  EXPECT_EQ(slurp(dir_ / "codes"), "2\n2\n0\n");
  const std::string big = slurp(dir_ / "big.err"), seq = slurp(dir_ / "seq.err");
  EXPECT_NE(big.find("mandelpipe: cannot write big.png and its sidecar: up to 11."),
            std::string::npos)
      << big;
  EXPECT_NE(big.find(" needed (an upper bound: as if nothing compressed), more than the 1.0 MiB "
                     "free in the file system of " +
                     (dir_ / "disk").string() + "\n"),
            std::string::npos)
      << big;
  EXPECT_EQ(std::count(big.begin(), big.end(), '\n'), 1) << big;
  EXPECT_NE(seq.find("mandelpipe: cannot write 24 frames into seq: up to 5."), std::string::npos)
      << seq;
  EXPECT_EQ(std::count(seq.begin(), seq.end(), '\n'), 1) << seq;
  EXPECT_EQ(slurp(dir_ / "left"), "small.json\nsmall.png\n") << "the refused runs left files";
}

}  // namespace
}  // namespace mp
