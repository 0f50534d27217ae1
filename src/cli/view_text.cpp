#include "cli/view_text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "cli/options.h"
#include "io/kfr_location.h"
#include "model/variant_table.h"

namespace mp {
namespace {

// Longer text is not a view someone copied (its centre would have half a million digits, a
// depth of 1e-500000); refusing it keeps a stray clipboard cheap to reject.
constexpr std::size_t kMaxViewText = 1 << 20;

// The same for a float (9 digits always do).
std::string shortest(float v) {
  char buf[40];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
    if (std::strtof(buf, nullptr) == v) break;
  }
  return buf;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

bool is_program_name(const std::string& word) {
  const std::size_t slash = word.rfind('/');
  return word.compare(slash == std::string::npos ? 0 : slash + 1, std::string::npos,
                      "mandelpipe") == 0;
}

}  // namespace

std::string format_view_text(const ViewState& s, int width, int height, bool pin) {
  return "mandelpipe --center " + centre_text(s.view.center_x, s.view) + "," +
         centre_text(s.view.center_y, s.view) + " --span " + exact_span_text(s.view.span) +
         " --iters " + std::to_string(s.view.max_iter) + " --variant " +
         std::string(variant_info(s.variant).name) + " --palette " + s.palette + " --density " +
         shortest(s.colour.density) + " --offset " + shortest(s.colour.offset) + " --stripe " +
         shortest(s.colour.stripe) +
         (width > 0 ? " --width " + std::to_string(width) + " --height " + std::to_string(height)
                    : "") +
         (pin ? " --pin" : "");
}

ViewTextResult parse_view_text(std::string_view text, const ViewState& current) {
  ViewTextResult r;
  if (text.size() > kMaxViewText) {
    r.error = "view text: too long to be a view (" + std::to_string(text.size()) + " characters)";
    return r;
  }
  std::vector<std::string> words = split_words(text);
  if (!words.empty() && is_program_name(words.front())) words.erase(words.begin());
  // A render command line shows a view too: its own options are left aside.
  if (!words.empty() && words.front() == "render") words.erase(words.begin());
  if (words.empty()) {
    r.error = "view text: empty; expected mandelpipe --center X,Y --span S --iters N ...";
    return r;
  }
  // Each option with its value joined to it, so that a value such as "-1" reaches the parser
  // as a value and never as an option.
  static const std::set<std::string> kViewOptions = {"--center",  "--span",    "--iters",
                                                     "--variant", "--palette", "--density",
                                                     "--offset",  "--stripe"};
  static const std::vector<OptionName> kRender = option_names(Command::Render);
  // Read as render reads its options: it takes every one of them (the colours included).
  std::vector<std::string> args = {"mandelpipe", "render", "--out", "view.png"};
  std::set<std::string> given;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::size_t eq = w.find('=');
    const std::string name = w.substr(0, eq);
    if (w.rfind("--", 0) != 0) {
      r.error = "view text: expected an option such as --center, got '" + w + "'";
      return r;
    }
    const auto render = std::find_if(kRender.begin(), kRender.end(),
                                     [&](const OptionName& o) { return o.name == name; });
    if (render == kRender.end()) {
      r.error = "view text: " + name + " is not part of a view (a view has --center, --span, " +
                "--iters, --variant, --palette, --density, --offset, --stripe)";
      return r;
    }
    const bool value = render->takes_value && eq == std::string::npos;
    if (value && i + 1 == words.size()) {
      r.error = name + ": needs a value";
      return r;
    }
    const std::string joined = value ? w + "=" + words[++i] : w;
    if (name == "--pin") {  // the window's K: the variant kept at any depth
      r.pin = true;
      continue;
    }
    if (!kViewOptions.count(name)) {  // render's own (--out, --width, --ss...): not a view's
      if (std::find(r.left_aside.begin(), r.left_aside.end(), name) == r.left_aside.end())
        r.left_aside.push_back(name);
      continue;
    }
    args.push_back(joined);
    given.insert(name);
  }
  // A centre without a span is read at the precision of the span it will have: the current one.
  if (given.count("--center") && !given.count("--span"))
    args.push_back("--span=" + exact_span_text(current.view.span));
  const ParseResult parsed = parse_command_line(args);
  if (!parsed.options) {
    r.error = parsed.err;
    return r;
  }
  const RenderOptions& o = std::get<RenderOptions>(*parsed.options);
  r.state = current;
  if (given.count("--span")) r.state.view.span = o.view.span;
  if (given.count("--center")) {
    r.state.view.center_x = o.view.center_x;
    r.state.view.center_y = o.view.center_y;
  }
  // A kept centre under a new, deeper span: widened (exactly) to the bits the span needs.
  const int bits = view_bits(r.state.view);
  if (r.state.view.center_x.bits() < bits) {
    r.state.view.center_x = r.state.view.center_x.with_bits(bits);
    r.state.view.center_y = r.state.view.center_y.with_bits(bits);
  }
  if (given.count("--iters")) r.state.view.max_iter = o.view.max_iter;
  r.iters_given = given.count("--iters") > 0;
  if (given.count("--variant")) r.state.variant = o.variant;
  if (given.count("--palette")) r.state.palette = o.palette;
  if (given.count("--density")) r.state.colour.density = o.colour.density;
  if (given.count("--offset")) r.state.colour.offset = o.colour.offset;
  if (given.count("--stripe")) r.state.colour.stripe = o.colour.stripe;
  r.ok = true;
  return r;
}

}  // namespace mp

namespace mp {

ViewTextResult parse_kfr_view(std::string_view text, const ViewState& current, int width,
                              int height) {
  // Shared locations often leave Iterations out: the window's limit then stays (and rises on its
  // own where automatic).
  const KfrResult k = parse_kfr(text, true);
  if (k.ok) {
    ViewTextResult r = kfr_location_view(k.location, current, width, height);
    const std::string left = kfr_left_out(k.location);
    const std::string kept = k.location.iterations
                                 ? ""
                                 : "no usable Iterations: the limit of " +
                                       std::to_string(current.view.max_iter) + " kept";
    r.note = left.empty() ? kept : kept.empty() ? left : left + "; " + kept;
    return r;
  }
  ViewTextResult r;
  r.error = "location: " + k.error;
  return r;
}

ViewTextResult kfr_location_view(const KfrLocation& k, const ViewState& current, int width,
                                 int height) {
  ViewTextResult r;
  try {
    const BigDecimal span = kfr_span(k.zoom, width, height);
    const std::optional<View> v =
        parse_view(k.re, k.im, span.text, k.iterations ? k.iterations : current.view.max_iter);
    if (!v) {
      // Which of its values: the span the zoom gives, or a centre coordinate.
      r.error = !parse_view_span(span.text)
                    ? "location: Zoom: '" + kfr_value_text(k.zoom) + "' gives span " + span.text +
                          ", outside the spans a view takes (from " + span_text(kMinSpan, 2) +
                          " to 64)"
                    : "location: Re: '" + kfr_value_text(k.re) + "', Im: '" + kfr_value_text(k.im) +
                          "': a view's centre lies within 1000 of 0 on each axis";
      return r;
    }
    r.state = current;
    r.state.view = *v;
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = std::string("location: ") + e.what();
  }
  return r;
}

std::string format_kfr_view(const View& view, int width, int height) {
  return format_kfr(centre_text(view.center_x, view), centre_text(view.center_y, view),
                    exact_span_text(view.span), view.max_iter, width, height);
}

}  // namespace mp
