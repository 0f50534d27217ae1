// Every key and mouse action of the window, in one list: the input handling, the help window
// (F1) and the panel's key hint all read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mp {

enum class Action {
  Pan,  // index: left, right, up, down
  ZoomIn,
  ZoomOut,
  MoreIterations,
  FewerIterations,
  Variant,      // index: the variant's place in the panel's list
  StepVariant,  // index: the one before, the one after
  PinVariant,
  Home,
  Back,     // to the place before, as a browser does
  Forward,  // after Back: the place Back left
  CopyView,
  PasteView,
  SaveBookmark,
  NextPalette,
  Panel,
  Help,
  Overlay,
  Sass,
  Divergence,
  Compare,
  Experiments,
  Vsync,
  Capture,
  UiLarger,
  UiSmaller,
  Quit,
};

struct KeyBinding {
  Action action;
  std::vector<int> keys;  // GLFW keys, any of them; a key's place in the list is the index
  int mods = 0;           // Ctrl, Alt, Super held (Shift is ignored: '+' is Shift and '=')
  bool repeats = false;   // acts again while held
  const char* keys_text;  // as the help window shows them
  const char* hint;       // a word or two for the panel's key line; nullptr: help window only
  const char* what;       // for the help window
  int first_index = 0;    // the index of the first key (Alt+1 is the eleventh variant's)
};

struct MouseBinding {
  const char* gesture;
  const char* hint;  // as in KeyBinding
  const char* what;
};

const std::vector<KeyBinding>& key_bindings();
const std::vector<MouseBinding>& mouse_bindings();

struct BoundAction {
  Action action;
  int index;
};
// The action of a key press (mods as GLFW gives them), if any.
std::optional<BoundAction> find_binding(int key, int mods, bool repeat);

// "drag: pan", "wheel: zoom", "arrows: pan", ...: the short list under the panel.
std::vector<std::string> key_hint();

}  // namespace mp
