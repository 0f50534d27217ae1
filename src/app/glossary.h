// The jargon the windows use, defined once: shown as a tooltip where a term appears.
#pragma once

#include <string_view>

namespace mp {

// The definition of `term` ("pipe", "XU", "issue-bound", "% of bound", "SIMT efficiency",
// "SM balance", "the seed articles", a warp state PC sampling reports: "dispatch stall"); empty
// for an unknown term.
std::string_view glossary(std::string_view term);

// After an ImGui item that names `term`: its definition while the item is hovered.
void explain_last_item(std::string_view term);

// A dim "(?)" on the same line whose tooltip defines `term`.
void glossary_marker(std::string_view term);

// Text whose tooltip defines `term` (or `text_term` where given), then the mark defining `term`.
void text_with_term(const char* text, std::string_view term, std::string_view text_term = {});

}  // namespace mp
