#include "app/key_bindings.h"

// Key codes only: no GL header wanted.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>

namespace mp {

const std::vector<KeyBinding>& key_bindings() {
  constexpr int ctrl = GLFW_MOD_CONTROL, alt = GLFW_MOD_ALT;
  static const std::vector<KeyBinding> list = {
      {Action::Pan,
       {GLFW_KEY_LEFT, GLFW_KEY_RIGHT, GLFW_KEY_UP, GLFW_KEY_DOWN},
       0,
       true,
       "arrows",
       "pan",
       "move the view a tenth of its width"},
      {Action::ZoomIn,
       {GLFW_KEY_EQUAL, GLFW_KEY_KP_ADD},
       0,
       true,
       "+",
       "zoom in",
       "zoom in about the centre"},
      {Action::ZoomOut,
       {GLFW_KEY_MINUS, GLFW_KEY_KP_SUBTRACT},
       0,
       true,
       "-",
       "out",
       "zoom out about the centre"},
      {Action::MoreIterations,
       {GLFW_KEY_PAGE_UP},
       0,
       true,
       "PgUp",
       "iterations x2",
       "double the iteration limit"},
      {Action::FewerIterations,
       {GLFW_KEY_PAGE_DOWN},
       0,
       true,
       "PgDn",
       "/2",
       "halve the iteration limit"},
      {Action::Variant,
       {GLFW_KEY_1, GLFW_KEY_2, GLFW_KEY_3, GLFW_KEY_4, GLFW_KEY_5, GLFW_KEY_6, GLFW_KEY_7,
        GLFW_KEY_8, GLFW_KEY_9, GLFW_KEY_0},
       0,
       false,
       "1-9, 0",
       "variant",
       "switch to the variant of that number in the panel (0: the tenth)"},
      {Action::Variant,
       {GLFW_KEY_1, GLFW_KEY_2, GLFW_KEY_3, GLFW_KEY_4, GLFW_KEY_5, GLFW_KEY_6, GLFW_KEY_7,
        GLFW_KEY_8, GLFW_KEY_9, GLFW_KEY_0},
       alt,
       false,
       "Alt+1-9, 0",
       "variant 11+",
       "switch to the variant after the tenth of that number in the panel (A1: the eleventh, "
       "fma4-rows)",
       10},
      {Action::StepVariant,
       {GLFW_KEY_LEFT_BRACKET, GLFW_KEY_RIGHT_BRACKET},
       0,
       false,
       "[ ]",
       "variant -/+",
       "switch to the variant before or after this one in the panel"},
      {Action::PinVariant,
       {GLFW_KEY_K},
       0,
       false,
       "K",
       "pin",
       "pin the variant: off, zooming past float's precision renders with df64 or fp64 "
       "(whichever is faster here), then past double's with perturbation (perturb, perturb-x), "
       "until you zoom out again; on, your variant at any depth"},
      {Action::Home, {GLFW_KEY_HOME}, 0, false, "Home", "reset", "back to the starting view"},
      {Action::Back,
       {GLFW_KEY_LEFT},
       alt,
       false,
       "Alt+Left",
       "back",
       "back to the place before (views kept once shown half a second, and every jump)"},
      {Action::Back, {GLFW_KEY_BACKSPACE}, 0, false, "Backspace", nullptr, "back, as Alt+Left"},
      {Action::Forward,
       {GLFW_KEY_RIGHT},
       alt,
       false,
       "Alt+Right",
       "forward",
       "forward again, after going back"},
      {Action::CopyView,
       {GLFW_KEY_C},
       ctrl,
       false,
       "Ctrl+C",
       "copy view",
       "copy the view as text: the command line that shows it"},
      {Action::PasteView,
       {GLFW_KEY_V},
       ctrl,
       false,
       "Ctrl+V",
       "paste",
       "go to the view in the clipboard: text as Ctrl+C copies it, a render line, or a Kalles "
       "Fraktaler location (Re, Im, Zoom, Iterations)"},
      {Action::SaveBookmark,
       {GLFW_KEY_B},
       0,
       false,
       "B",
       "bookmark",
       "save the view as a bookmark of your own: type its name in the panel, Enter saves, Esc "
       "cancels"},
      {Action::NextPalette, {GLFW_KEY_L}, 0, false, "L", "palette", "the next palette"},
      {Action::Panel,
       {GLFW_KEY_TAB},
       0,
       false,
       "Tab",
       "panel",
       "hide or show the panel and the banners"},
      {Action::Help, {GLFW_KEY_F1}, 0, false, "F1", "help", "this list of keys"},
      {Action::Overlay,
       {GLFW_KEY_P},
       0,
       false,
       "P",
       "pipes",
       "pipe utilisation overlay (CUDA path)"},
      {Action::Sass, {GLFW_KEY_S}, 0, false, "S", "SASS", "the SASS of the step loop"},
      {Action::Divergence,
       {GLFW_KEY_D},
       0,
       false,
       "D",
       "divergence",
       "divergence view: idle lanes per warp"},
      {Action::Compare,
       {GLFW_KEY_C},
       0,
       false,
       "C",
       "compare",
       "time every variant at this view (CUDA path)"},
      {Action::Experiments, {GLFW_KEY_E}, 0, false, "E", "experiments", "experiments window"},
      {Action::Vsync, {GLFW_KEY_V}, 0, false, "V", "vsync", "vsync on or off"},
      {Action::Capture,
       {GLFW_KEY_F12},
       0,
       false,
       "F12",
       "capture",
       "save the window as PNG, with a JSON of what made it and the view as a Kalles Fraktaler "
       ".kfr"},
      {Action::UiLarger,
       {GLFW_KEY_EQUAL, GLFW_KEY_KP_ADD},
       ctrl,
       false,
       "Ctrl+=",
       "UI larger",
       "larger user interface (kept between runs)"},
      {Action::UiSmaller,
       {GLFW_KEY_MINUS, GLFW_KEY_KP_SUBTRACT},
       ctrl,
       false,
       "Ctrl+-",
       "smaller",
       "smaller user interface"},
      {Action::Quit, {GLFW_KEY_ESCAPE}, 0, false, "Esc", "quit", "quit"},
  };
  return list;
}

const std::vector<MouseBinding>& mouse_bindings() {
  static const std::vector<MouseBinding> list = {
      {"drag", "pan", "pan (left button, on the image)"},
      {"wheel", "zoom", "zoom about the cursor"},
      {"hover", nullptr, "what a term means, or why a greyed control is off"},
  };
  return list;
}

std::optional<BoundAction> find_binding(int key, int mods, bool repeat) {
  mods &= GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER;
  for (const KeyBinding& b : key_bindings()) {
    if (b.mods != mods || (repeat && !b.repeats)) continue;
    const auto it = std::find(b.keys.begin(), b.keys.end(), key);
    if (it != b.keys.end())
      return BoundAction{b.action, b.first_index + static_cast<int>(it - b.keys.begin())};
  }
  return std::nullopt;
}

std::vector<std::string> key_hint() {
  std::vector<std::string> entries;
  for (const MouseBinding& m : mouse_bindings())
    if (m.hint) entries.push_back(std::string(m.gesture) + ": " + m.hint);
  for (const KeyBinding& b : key_bindings())
    if (b.hint) entries.push_back(std::string(b.keys_text) + ": " + b.hint);
  return entries;
}

}  // namespace mp
