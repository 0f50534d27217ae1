#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "cli/options.h"
#include "model/variant_table.h"

namespace mp {
namespace {

ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mandelpipe");
  return parse_command_line(args);
}

const WindowOptions& window(const ParseResult& r) {
  return std::get<WindowOptions>(*r.options);
}
const RenderOptions& render(const ParseResult& r) {
  return std::get<RenderOptions>(*r.options);
}
const BenchOptions& bench(const ParseResult& r) {
  return std::get<BenchOptions>(*r.options);
}
const ExperimentOptions& experiment(const ParseResult& r) {
  return std::get<ExperimentOptions>(*r.options);
}

void expect_error(std::vector<std::string> args, const std::string& fragment) {
  const ParseResult r = parse(args);
  EXPECT_FALSE(r.options.has_value()) << fragment;
  EXPECT_EQ(r.exit_code, 2) << fragment;
  EXPECT_NE(r.err.find(fragment), std::string::npos)
      << "'" << r.err << "' lacks '" << fragment << "'";
  EXPECT_EQ(r.err.find('\n'), std::string::npos) << "one line: " << r.err;
}

TEST(Cli, WindowDefaults) {
  const ParseResult r = parse({});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(command_of(*r.options), Command::Window);
  EXPECT_EQ(window(r).view, View{});
  EXPECT_EQ(window(r).variant, VariantId::Fma4);
  EXPECT_TRUE(window(r).vsync);
  EXPECT_FALSE(window(r).window_size_given);
}

TEST(Cli, RenderWithEveryViewOption) {
  const ParseResult r =
      parse({"render", "--out", "a.png", "--width", "640", "--height", "480", "--center",
             "-0.75,0.1", "--span", "0.05", "--iters", "16384", "--variant", "fma5", "--cpu"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(command_of(*r.options), Command::Render);
  const RenderOptions& o = render(r);
  EXPECT_EQ(o.out, "a.png");
  EXPECT_EQ(o.width, 640);
  EXPECT_EQ(o.height, 480);
  EXPECT_DOUBLE_EQ(o.view.center_x.to_double(), -0.75);
  EXPECT_DOUBLE_EQ(o.view.center_y.to_double(), 0.1);
  EXPECT_DOUBLE_EQ(to_double(o.view.span), 0.05);
  EXPECT_EQ(o.view.max_iter, 16384u);
  EXPECT_EQ(o.variant, VariantId::Fma5);
  EXPECT_TRUE(o.force_cpu);
}

TEST(Cli, RenderDefaultsToFullHd) {
  const ParseResult r = parse({"render", "--out", "a.png"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(render(r).width, 1920);
  EXPECT_EQ(render(r).height, 1080);
}

TEST(Cli, Bench) {
  ParseResult r = parse({"bench"});
  ASSERT_TRUE(r.options);
  EXPECT_TRUE(bench(r).variants.empty());  // all
  EXPECT_EQ(bench(r).format, OutputFormat::Markdown);
  r = parse({"bench", "--variant", "fma4-sin", "--format", "csv", "--frames", "20"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(bench(r).variants, std::vector<VariantId>{VariantId::Fma4Sin});
  EXPECT_EQ(bench(r).format, OutputFormat::Csv);
  EXPECT_EQ(bench(r).frames, 20);
}

// render's PNG level and GPUs, and bench's GPUs, land in their commands' structs, checked there.
TEST(Cli, PngLevelAndDevicesBelongToTheirCommands) {
  ParseResult r = parse({"render", "--out", "a.png"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).png_level, kDefaultPngLevel);
  EXPECT_FALSE(render(r).devices.given);
  EXPECT_TRUE(render(r).devices.all);
  r = parse({"render", "--out", "a.png", "--png-level", "9", "--devices", "2,0"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).png_level, 9);
  EXPECT_TRUE(render(r).devices.given);
  EXPECT_FALSE(render(r).devices.all);
  EXPECT_EQ(render(r).devices.list, (std::vector<int>{2, 0}));
  r = parse({"bench", "--devices", "all"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(bench(r).devices.given);
  EXPECT_TRUE(bench(r).devices.all);
  expect_error({"render", "--out", "a.png", "--png-level", "10"}, "--png-level: must be");
  expect_error({"render", "--out", "a.png", "--devices", "0,0"}, "given twice");
  expect_error({"render", "--out", "a.png", "--cpu", "--devices", "1"}, "not with --cpu");
  expect_error({"bench", "--devices", "x"}, "--devices: expected all");
  expect_error({"bench", "--png-level", "1"}, "--png-level");
  expect_error({"--devices", "0"}, "--devices");
}

// --exr-compression: OpenEXR's lossless ones by name, only beside an EXR.
TEST(Cli, ExrCompressionGoesWithAnExr) {
  ParseResult r = parse({"render", "--out", "a.png", "--exr", "a.exr"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).exr_compression, ExrCompression::zip);
  r = parse({"render", "--out", "a.png", "--exr", "a.exr", "--exr-compression", "rle"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).exr_compression, ExrCompression::rle);
  r = parse({"render", "--out", "d", "--zoom-to", "0,0,1", "--frames", "3", "--exr-frames",
             "--exr-compression", "none"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).exr_compression, ExrCompression::none);
  expect_error({"render", "--out", "a.png", "--exr-compression", "zip"},
               "--exr-compression: belongs to --exr or --exr-frames");
  for (const char* bad : {"ZIP", "b44", "", "zip "})
    expect_error({"render", "--out", "a.png", "--exr", "a.exr", "--exr-compression", bad},
                 "--exr-compression: expected zip, piz, rle or none");
}

TEST(Cli, Experiment) {
  ParseResult r = parse({"experiment", "sin-overlap", "--format", "json"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(command_of(*r.options), Command::Experiment);
  EXPECT_EQ(experiment(r).name, "sin-overlap");
  EXPECT_EQ(experiment(r).format, OutputFormat::Json);
  EXPECT_FALSE(experiment(r).list);
  r = parse({"experiment", "--list"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(experiment(r).list);
  expect_error({"experiment"}, "name");
  expect_error({"experiment", "dispatch", "--list"}, "experiment: --list takes no name");
  expect_error({"experiment", "dispatch", "--format", "xml"}, "--format");
}

TEST(Cli, StallReasonsInBenchAndTheWindow) {
  ParseResult r = parse({"bench", "--stalls", "--variant", "fma4-x16"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(bench(r).stalls);
  r = parse({"bench", "--stalls", "--format", "json"});
  ASSERT_TRUE(r.options) << r.err;
  expect_error({"bench", "--stalls", "--format", "csv"},
               "--format csv: one table, a row per view and variant; --stalls adds a table of its "
               "own: use --format json (or md)");
  expect_error({"bench", "--stalls", "--sin-sweep", "--present", "--format", "csv"},
               "--sin-sweep, --present and --stalls add tables of their own");
  // CUPTI's PC and PM sampling cannot share a process: one or the other.
  expect_error({"bench", "--stalls", "--counters"},
               "--stalls and --counters: CUPTI's PC sampling and PM sampling cannot share one run");
  r = parse({"--stalls"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(window(r).stalls);
  EXPECT_FALSE(window(r).no_counters);
  expect_error({"--stalls", "--no-counters"}, "--stalls and --no-counters");
  expect_error({"--stalls", "--counters-ab", "--frames", "200"}, "--counters-ab");
  expect_error({"--stalls", "bench"}, "--stalls: a window option");
  expect_error({"render", "--out", "x.png", "--stalls"}, "--stalls");
}

TEST(Cli, BenchSweepAndWindowViews) {
  ParseResult r = parse({"bench", "--sin-sweep", "--present"});
  ASSERT_TRUE(r.options);
  EXPECT_TRUE(bench(r).sin_sweep);
  EXPECT_TRUE(bench(r).present);
  EXPECT_FALSE(bench(r).tiles_in_rows);
  r = parse({"bench", "--tile-order", "rows"});
  ASSERT_TRUE(r.options);
  EXPECT_TRUE(bench(r).tiles_in_rows);
  r = parse({"--overlay", "--sass", "--divergence", "--capture-dir", "/tmp"});
  ASSERT_TRUE(r.options);
  EXPECT_TRUE(window(r).overlay);
  EXPECT_TRUE(window(r).sass_view);
  EXPECT_TRUE(window(r).divergence);
  EXPECT_EQ(window(r).capture_dir, "/tmp");
  r = parse({"--frames", "400", "--overlay-ab"});
  ASSERT_TRUE(r.options);
  EXPECT_TRUE(window(r).overlay_ab);
  expect_error({"--overlay-ab"}, "--overlay-ab");
  expect_error({"--frames", "50", "--overlay-ab"}, "--overlay-ab");
  expect_error({"bench", "--overlay-ab"}, "--overlay-ab");
}

TEST(Cli, WindowOptions) {
  const ParseResult r = parse({"--frames", "120", "--screenshot", "s.png", "--no-vsync",
                               "--present", "pbo", "--width", "800"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(window(r).frames, 120);
  EXPECT_EQ(window(r).screenshot, "s.png");
  EXPECT_FALSE(window(r).vsync);
  EXPECT_EQ(window(r).present, PresentMode::PboTexture);
  EXPECT_TRUE(window(r).window_size_given);
}

TEST(Cli, EveryPresentModeParsesFromItsOwnName) {
  const ParseResult r = parse({"--present", "image"});
  ASSERT_TRUE(r.options);
  EXPECT_EQ(window(r).present, PresentMode::ImageCopy);
  std::set<std::string> names;
  for (PresentMode m : kPresentModes) {
    EXPECT_EQ(parse_present_mode(present_mode_name(m)), m) << present_mode_name(m);
    EXPECT_NE(present_mode_names().find(present_mode_name(m)), std::string::npos);
    names.insert(present_mode_name(m));
  }
  EXPECT_EQ(names.size(), std::size(kPresentModes));  // no two modes share a name
  EXPECT_EQ(parse_present_mode("TBO"), std::nullopt);
}

TEST(Cli, BadInputIsOneLineAndExitCode2) {
  expect_error({"--width", "0"}, "--width");
  expect_error({"render", "--out", "a.png", "--height", "65537"}, "--height");
  expect_error({"--height", "16385"}, "--height");
  expect_error({"--width", "abc"}, "--width");
  expect_error({"--iters", "0"}, "--iters");
  expect_error({"--iters", "10000001"}, "--iters");
  expect_error({"--iters", "12x"}, "--iters");
  expect_error({"--center", "nan,0"}, "--center");
  expect_error({"--center", "1"}, "--center");
  expect_error({"--center", "inf,0"}, "--center");
  expect_error({"--span", "0"}, "--span");
  expect_error({"--span", "-1"}, "--span");
  expect_error({"--span", "nan"}, "--span");
  expect_error({"--variant", "fma3"}, "fma3");
  expect_error({"--present", "zero-copy"}, "--present");
  expect_error({"--frames", "-1"}, "--frames");
  expect_error({"--bogus"}, "--bogus");
  expect_error({"render"}, "--out");
  expect_error({"bench", "--format", "xml"}, "--format");
  expect_error({"bench", "--frames", "3"}, "--frames");
  expect_error({"bench", "--variant", "nope"}, "nope");
  expect_error({"bench", "--tile-order", "random"}, "--tile-order");
}

TEST(Cli, GivenValuesAreCheckedNotTakenForDefaults) {
  expect_error({"render", "--out", "a.png", "--width", "-1"}, "--width");  // was 1920
  expect_error({"--height", "-720"}, "--height");
  expect_error({"--width", ""}, "--width");
  expect_error({"--center", ""}, "--center");
  expect_error({"--span", ""}, "--span");
  expect_error({"--iters", ""}, "--iters");
  expect_error({"--frames", ""}, "--frames");
  expect_error({"bench", "--frames", ""}, "--frames");
  expect_error({"--counter-interval", ""}, "--counter-interval");
  expect_error({"--frames", "99999999999"}, "--frames");
}

TEST(Cli, NumbersAreDecimal) {
  ParseResult r =
      parse({"render", "--out", "a.png", "--width", "010", "--height", "08", "--iters", "0100"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).width, 10);  // not octal 8
  EXPECT_EQ(render(r).height, 8);  // not an error
  EXPECT_EQ(render(r).view.max_iter, 100u);
  r = parse({"--frames", "010", "--counter-interval", "010"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(window(r).frames, 10);
  EXPECT_EQ(window(r).counter_interval_us, 10);
  r = parse({"bench", "--frames", "012"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(bench(r).frames, 12);
  expect_error({"--width", "0x10"}, "--width");
}

// What was typed is quoted with its control characters escaped, so the error stays one line.
TEST(Cli, ErrorsEscapeControlCharacters) {
  expect_error({"-\rvariant"}, "unexpected argument '-\\rvariant'");
  expect_error({"--frames", "1\n2"}, "got '1\\n2'");
  expect_error({"--present", "\x1b[2J"}, "got '\\x1b[2J'");
}

TEST(Cli, Cli11ErrorsReadLikeTheOthers) {
  expect_error({"x"}, "unexpected argument 'x' (see --help)");
  expect_error({"--bogus", "5"}, "unexpected argument '--bogus'");
  expect_error({"--", "x"}, "unexpected argument 'x'");
  expect_error({"render", "--out", "a.png", "bench"}, "unexpected argument 'bench'");
  expect_error({"experiment", "dispatch", "extra"}, "unexpected argument 'extra'");
  expect_error({"--frames", "1", "--frames", "2"}, "--frames: given twice");
  expect_error({"render", "--out", "a.png", "--width", "5", "--width", "6"},
               "--width: given twice");
  expect_error({"--width", "5", "render", "--out", "a.png", "--width", "6"},
               "--width: given twice");
  expect_error({"--palette", "ember", "--palette", "ocean"}, "--palette: given twice");
  expect_error({"--width"}, "--width: needs a value");
  expect_error({"render", "--out"}, "--out: needs a value");
  expect_error({"render"}, "--out: required");
  expect_error({"experiment"}, "experiment: needs its name");
  expect_error({"--cpu=maybe"}, "--cpu: a switch; it takes no value");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"x"}, {"--frames", "1", "--frames", "2"}, {"--width"}, {"render"}, {"--cpu=maybe"}}) {
    const std::string err = parse(args).err;
    EXPECT_EQ(err.find("The following"), std::string::npos) << err;
    EXPECT_EQ(err.find("At Most"), std::string::npos) << err;
    EXPECT_EQ(err.find("required TEXT"), std::string::npos) << err;
    EXPECT_EQ(err.find("Could not convert"), std::string::npos) << err;
  }
  EXPECT_TRUE(parse({"--cpu", "--cpu"}).options);  // a switch twice means the same
  EXPECT_TRUE(parse({"--"}).options);
}

TEST(Cli, OutputNameMustBeUtf8ForTheSidecar) {
  expect_error({"render", "--out", "\xff.png"}, "--out: the file name is not valid UTF-8");
  expect_error({"render", "--out", "\xc0\xaf.png"}, "--out");      // overlong '/'
  expect_error({"render", "--out", "\xed\xa0\x80.png"}, "--out");  // a surrogate
  expect_error({"render", "--out", "caf\xc3.png"}, "--out");       // cut short
  EXPECT_TRUE(parse({"render", "--out", "caf\xc3\xa9.png"}).options);
  EXPECT_TRUE(parse({"render", "--out", "\xf0\x9f\x98\x80.png"}).options);
  EXPECT_TRUE(parse({"render", "--out", "d\xff/a.png"}).options);  // the folder is not recorded
}

TEST(Cli, Counters) {
  ParseResult r = parse({"bench", "--counters", "--counter-interval", "500"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(bench(r).counters);
  EXPECT_EQ(bench(r).counter_interval_us, 500);
  r = parse({"experiment", "dispatch", "--counters"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(experiment(r).counters);
  EXPECT_EQ(experiment(r).counter_interval_us, 0);  // the command's default
  r = parse({"bench"});
  ASSERT_TRUE(r.options);
  EXPECT_FALSE(bench(r).counters);
  r = parse({"--no-counters", "--counter-interval", "100000"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(window(r).no_counters);
  EXPECT_EQ(window(r).counter_interval_us, 100000);
  EXPECT_FALSE(window(parse({})).no_counters);
  expect_error({"bench", "--counter-interval", "5"}, "--counter-interval");
  expect_error({"bench", "--counter-interval", "x"}, "--counter-interval");
  expect_error({"experiment", "dispatch", "--counter-interval", "100001"}, "--counter-interval");
  expect_error({"--counter-interval", "10.5"}, "--counter-interval");
  expect_error({"--no-counters", "bench"}, "--no-counters");
  expect_error({"render", "--out", "a.png", "--counters"}, "--counters");
  r = parse({"--frames", "200", "--counters-ab"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_TRUE(window(r).counters_ab);
  expect_error({"--counters-ab"}, "--counters-ab");
  expect_error({"--frames", "200", "--counters-ab", "--overlay-ab"}, "--counters-ab");
  expect_error({"--frames", "200", "--counters-ab", "--no-counters"}, "--counters-ab");
}

TEST(Cli, HelpAndVersionExitZero) {
  ParseResult r = parse({"--help"});
  EXPECT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("render"), std::string::npos);
  EXPECT_NE(r.out.find("bench"), std::string::npos);
  r = parse({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("mandelpipe "), std::string::npos);
  r = parse({"render", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--out"), std::string::npos);
}

// Scripts take the variants from here (scripts/device/ncu-pipes.sh), so it is the one list,
// whole and in its order.
TEST(Cli, ListVariantsGivesEveryVariantWithItsKernelStruct) {
  const ParseResult r = parse({"--list-variants"});
  EXPECT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  std::istringstream lines(r.out);
  for (const VariantInfo& v : all_variants()) {
    std::string line, name, type, kind;
    ASSERT_TRUE(std::getline(lines, line)) << "no line for " << v.name;
    std::istringstream(line) >> name >> type >> kind;
    EXPECT_EQ(name, v.name);
    EXPECT_EQ(type, v.type_name);
    EXPECT_EQ(kind, v.perturbation ? "perturbation" : "plain") << v.name;
  }
  std::string more;
  EXPECT_FALSE(std::getline(lines, more)) << "a line for no variant: " << more;
  expect_error({"--list-variants", "--bogus"}, "--bogus");
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

TEST(Cli, DeepViewsKeepEveryDigitTyped) {
  const std::string x = "-1.7400623825793399052" + std::string(580, '7');  // 601 digits
  const ParseResult r = parse({"render", "--out", "frames", "--center", x + ", 0.25", "--span",
                               "3.2e-600", "--zoom-to", x + ",0.25,1e-999999", "--frames", "3"});
  ASSERT_TRUE(r.options) << r.err;
  const View& v = render(r).view;
  EXPECT_NEAR(log10_of(v.span), std::log10(3.2) - 600, 1e-9);
  EXPECT_GE(v.center_x.bits(), view_bits(v));
  EXPECT_EQ(v.center_x, *BigReal::parse(x, v.center_x.bits()));
  EXPECT_EQ(centre_text(v.center_x, v), x);
  EXPECT_EQ(v.center_y.to_double(), 0.25);
  ASSERT_TRUE(render(r).zoom_to);
  EXPECT_NEAR(log10_of(render(r).zoom_to->span), -999999, 1e-6);
  EXPECT_EQ(render(r).zoom_to->center_x.to_double(), v.center_x.to_double());
}

// A centre typed short at a deep span is written short (found without the thousands of digits a
// pixel there needs), and exactly what those digits give with their zeros dropped.
TEST(Cli, ShortCentresAtDeepSpansAreWrittenShort) {
  for (const char* x : {"0", "1", "-0.75", "0.1", "-1.7400623825793399", "0.3333333333333333"}) {
    const ParseResult r = parse(
        {"render", "--out", "x.png", "--center", std::string(x) + ",0.5", "--span", "1e-3000"});
    ASSERT_TRUE(r.options) << r.err;
    const View& v = render(r).view;
    EXPECT_EQ(centre_text(v.center_x, v), x);
    EXPECT_EQ(centre_text(v.center_y, v), "0.5");
    // The digits a pixel needs, zeros dropped (%g), say the same.
    EXPECT_EQ(v.center_x.with_bits(view_bits(v)).str(centre_digits(v)), x);
  }
}

TEST(Cli, BadDeepValuesAreOneLineErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--span", "1e-99999999999999"},
        {"--span", "-1e-500"},
        {"--center", "1e-500x,0"},
        {"--center", "1,2,3"}}) {
    const ParseResult r = parse(args);
    EXPECT_FALSE(r.options) << args[0] << " " << args[1];
    EXPECT_NE(r.err.find(args[0]), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), std::string::npos) << r.err;
  }
}

TEST(Cli, ViewsPastTheModelsRangeAreRefused) {
  // A zoom out to 1e300 once wrote frames whose span was null; a centre at 1e39 made the
  // precision check's limit NaN.
  expect_error(
      {"render", "--out", "z", "--span", "1e-300", "--zoom-to", "0,0,1e300", "--frames", "3"},
      "--zoom-to: expected X,Y,SPAN");
  expect_error({"render", "--out", "a.png", "--center", "1e39,0"}, "--center: expected X,Y");
  expect_error({"--span", "1e300"}, "to 64");
  expect_error({"--span", "1e-99999999"}, "must be a number from 3.5e-80807125 to 64");
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// One side alone keeps the default's 16:9 and says so, rather than 64x1080.
TEST(Cli, ASideGivenAloneKeepsTheShape) {
  ParseResult r = parse({"render", "--out", "a.png", "--width", "64"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).width, 64);
  EXPECT_EQ(render(r).height, 36);
  ASSERT_EQ(render(r).notes.size(), 1u);
  EXPECT_NE(render(r).notes[0].find("64x36"), std::string::npos) << render(r).notes[0];
  r = parse({"render", "--out", "a.png", "--height", "2160"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).width, 3840);
  r = parse({"render", "--out", "a.png", "--width", "640", "--height", "640"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).height, 640);
  EXPECT_TRUE(render(r).notes.empty());
  r = parse({"--height", "600"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(window(r).width, 1067);
  EXPECT_TRUE(window(r).window_size_given);
  // Held within the range: a 65536-high image's width stays at the limit.
  r = parse({"render", "--out", "a.png", "--height", "65536"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).width, kMaxRenderSide);
}

// Each command's options checked once, by the parser: the palette against the program's own, the
// experiments against the catalogue it is given.
TEST(Cli, NamesAreCheckedByTheParser) {
  expect_error({"--palette", "neon"}, "--palette: unknown 'neon' (known: ember, ocean, grey)");
  expect_error({"render", "--out", "a.png", "--palette", "neon"}, "--palette: unknown 'neon'");
  ParseResult r = parse({"--palette", "ocean"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(window(r).palette, "ocean");
  EXPECT_TRUE(window(r).palette_given);
  const Catalogue lab{{"dispatch", "fma-grouping"}};
  r = parse_command_line({"mandelpipe", "experiment", "dispatch"}, lab);
  ASSERT_TRUE(r.options) << r.err;
  r = parse_command_line({"mandelpipe", "experiment", "nope"}, lab);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "experiment: unknown 'nope' (known: dispatch, fma-grouping)");
  r = parse_command_line({"mandelpipe", "--open-experiment", "nope"}, lab);
  EXPECT_EQ(r.err, "--open-experiment: unknown 'nope' (known: dispatch, fma-grouping)");
  r = parse_command_line({"mandelpipe", "--open-experiment", "fma-grouping"}, lab);
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(window(r).open_experiment, "fma-grouping");
}

// The window's view options before `render` are render's; any other window option before a
// subcommand is refused in one line, whichever it is (no list kept by hand).
TEST(Cli, WindowOptionsBeforeASubcommand) {
  ParseResult r = parse({"--center", "-1,0.25", "--span", "0.5", "render", "--out", "a.png"});
  ASSERT_TRUE(r.options) << r.err;
  EXPECT_EQ(render(r).view, *parse_view("-1", "0.25", "0.5"));
  const std::vector<OptionName> of_render = option_names(Command::Render);
  for (const OptionName& o : option_names(Command::Window)) {
    const bool carried = std::any_of(of_render.begin(), of_render.end(), [&](const OptionName& x) {
      return x.name == o.name && o.name != "--frames";
    });
    if (carried) continue;
    std::vector<std::string> args = {o.name};
    if (o.takes_value) args.push_back("1");
    args.insert(args.end(), {"bench"});
    expect_error(args, o.name + ": a window option; it does nothing with bench");
  }
  expect_error({"--center", "0,0", "experiment", "dispatch"}, "--center: a window option");
  expect_error({"--overlay", "render", "--out", "a.png"}, "--overlay: a window option");
}

// --help says every default and the palettes by name.
TEST(Cli, HelpGivesDefaultsAndPalettes) {
  const std::string window = parse({"--help"}).out;
  for (const char* s : {"default 1280x720", "default fma4", "ember, ocean, grey", "default 1024"})
    EXPECT_NE(window.find(s), std::string::npos) << s;
  const std::string render = parse({"render", "--help"}).out;
  for (const char* s : {"default 1920x1080", "default 1: none", "ember, ocean, grey"})
    EXPECT_NE(render.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace mp
