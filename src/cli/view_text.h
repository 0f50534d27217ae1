// A view as one line of text, the command line that shows it ("mandelpipe --center X,Y
// --span S --iters N --variant V --palette P --density D --offset O --stripe S"): what Ctrl+C
// copies and Ctrl+V reads back.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/kfr_location.h"
#include "model/view_state.h"

namespace mp {

// One line, no newline; every number in the fewest digits that read back to the same value.
// With a size (width > 0): the image the view fills, as --width and --height, so that render
// given the line writes that image (the window's Ctrl+C: the area beside its panel). `pin`:
// with --pin, so that render keeps the variant as the window does.
std::string format_view_text(const ViewState& s, int width = 0, int height = 0, bool pin = false);

struct ViewTextResult {
  bool ok = false;
  ViewState state;    // when ok
  std::string error;  // otherwise: one line saying what is wrong
  std::string note;   // when ok: what of the text the view leaves out (a location's Rotate)
  // The line gave --iters: the limit is the user's own (the window's automatic one goes off, as
  // on the command line).
  bool iters_given = false;
  // The line gave --pin: the variant is kept at any depth (the window's K).
  bool pin = false;
  // render's options of the line that are no part of a view (--out, --width, --ss ...), by name
  std::vector<std::string> left_aside;
};

// Reads a line format_view_text writes, the same options typed by hand, and a `render` command
// line: the program name may be left out, spaces and a trailing newline do not matter. Options the
// line leaves out keep their value in `current`; render's own options are left aside (named in
// `left_aside`, their values unread); any other option is refused, as is every value the command
// line itself refuses (a palette it does not know among them).
ViewTextResult parse_view_text(std::string_view text, const ViewState& current);

// A Kalles Fraktaler location (.kfr text: Re, Im, Zoom, Iterations) as a view on an image of
// width x height pixels (KF's zoom scales the height; our span is the width), the rest of
// `current` kept; the error line otherwise.
ViewTextResult parse_kfr_view(std::string_view text, const ViewState& current, int width,
                              int height);
ViewTextResult kfr_location_view(const KfrLocation& location, const ViewState& current, int width,
                                 int height);
// The view as a .kfr file's text, for an image of width x height pixels.
std::string format_kfr_view(const View& view, int width, int height);

}  // namespace mp
