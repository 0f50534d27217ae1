#include "app/key_bindings.h"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mp {
namespace {

TEST(KeyBindings, CtrlPicksTheUiSizeAndPlainKeysTheView) {
  const auto larger = find_binding(GLFW_KEY_EQUAL, GLFW_MOD_CONTROL, false);
  ASSERT_TRUE(larger);
  EXPECT_EQ(larger->action, Action::UiLarger);
  const auto smaller = find_binding(GLFW_KEY_MINUS, GLFW_MOD_CONTROL, false);
  ASSERT_TRUE(smaller);
  EXPECT_EQ(smaller->action, Action::UiSmaller);
  // Shift is ignored: '+' is Shift and '=' on most layouts.
  const auto zoom = find_binding(GLFW_KEY_EQUAL, GLFW_MOD_SHIFT, false);
  ASSERT_TRUE(zoom);
  EXPECT_EQ(zoom->action, Action::ZoomIn);
  EXPECT_FALSE(find_binding(GLFW_KEY_P, GLFW_MOD_ALT, false));
}

TEST(KeyBindings, HeldKeysRepeatOnlyWhereTheyMove) {
  ASSERT_TRUE(find_binding(GLFW_KEY_LEFT, 0, true));
  EXPECT_EQ(find_binding(GLFW_KEY_DOWN, 0, true)->index, 3);
  EXPECT_FALSE(find_binding(GLFW_KEY_P, 0, true));  // a toggle acts once a press
  EXPECT_EQ(find_binding(GLFW_KEY_F1, 0, false)->action, Action::Help);
  const auto third = find_binding(GLFW_KEY_3, 0, false);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->action, Action::Variant);
  EXPECT_EQ(third->index, 2);
  const auto pin = find_binding(GLFW_KEY_K, 0, false);
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->action, Action::PinVariant);
}

TEST(KeyBindings, NoKeyIsBoundTwiceAndTheHintComesFromTheList) {
  std::set<std::pair<int, int>> seen;
  for (const KeyBinding& b : key_bindings())
    for (int key : b.keys) EXPECT_TRUE(seen.insert({key, b.mods}).second) << b.keys_text;
  std::size_t hinted = 0;
  for (const KeyBinding& b : key_bindings()) hinted += b.hint != nullptr;
  for (const MouseBinding& m : mouse_bindings()) hinted += m.hint != nullptr;
  const std::vector<std::string> hint = key_hint();
  EXPECT_EQ(hint.size(), hinted);
  EXPECT_EQ(hint.front(), "drag: pan");
}

}  // namespace
}  // namespace mp
