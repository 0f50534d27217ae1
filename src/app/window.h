// GLFW, owned: the library session and one window with a current GL 4.5 core context.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gl/gl.h"
// After GLAD: GLFW must not pull in the system GL header first.
#include <GLFW/glfw3.h>

namespace mp {

class GlfwSession {
 public:
  GlfwSession();  // throws ExitError(2) when there is no display
  ~GlfwSession();
  GlfwSession(const GlfwSession&) = delete;
  GlfwSession& operator=(const GlfwSession&) = delete;
};

// A key going down (or repeating while held), as GLFW reported it.
struct KeyPress {
  int key = 0;
  int mods = 0;
  bool repeat = false;
};

class Window {
 public:
  Window(int width, int height, const char* title);
  // The primary monitor's size in screen coordinates, where GLFW knows it.
  static std::optional<std::pair<int, int>> screen_size();
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* get() const { return window_; }
  std::pair<int, int> framebuffer_size() const;
  std::pair<int, int> size() const;
  std::pair<int, int> position() const;
  void move_to(int x, int y);
  float content_scale() const;
  void set_vsync(bool on);
  bool should_close() const { return glfwWindowShouldClose(window_); }
  void close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }
  // Every key press since the last call, in order: a press and release inside one long frame
  // is not lost, as it is to polling the key's state at the frame's start.
  std::vector<KeyPress> take_key_presses();

 private:
  static void on_key(GLFWwindow* w, int key, int scancode, int action, int mods);
  GLFWwindow* window_ = nullptr;
  std::vector<KeyPress> key_presses_;
};

}  // namespace mp
