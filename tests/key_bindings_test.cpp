#include "app/key_bindings.h"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/variant_table.h"

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

// Every variant has a key: 1-9 and 0 the first ten, Alt and a digit those after (fma4-rows and
// fma4-cycles, the fast ones on the CUDA path, among them).
TEST(KeyBindings, EveryVariantHasADigitKey) {
  const int digits[] = {GLFW_KEY_1, GLFW_KEY_2, GLFW_KEY_3, GLFW_KEY_4, GLFW_KEY_5,
                        GLFW_KEY_6, GLFW_KEY_7, GLFW_KEY_8, GLFW_KEY_9, GLFW_KEY_0};
  const std::vector<VariantInfo>& variants = all_variants();
  ASSERT_LE(variants.size(), 20u) << "more variants than digit keys";
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const auto b = find_binding(digits[i % 10], i < 10 ? 0 : GLFW_MOD_ALT, false);
    ASSERT_TRUE(b) << variants[i].name;
    EXPECT_EQ(b->action, Action::Variant) << variants[i].name;
    EXPECT_EQ(b->index, static_cast<int>(i)) << variants[i].name;
  }
  EXPECT_EQ(variants[find_binding(GLFW_KEY_1, GLFW_MOD_ALT, false)->index].id, VariantId::Fma4Rows);
  EXPECT_EQ(variants[find_binding(GLFW_KEY_2, GLFW_MOD_ALT, false)->index].id,
            VariantId::Fma4Cycles);
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
