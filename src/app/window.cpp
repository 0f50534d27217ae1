#include "app/window.h"

#include <cstdlib>
#include <stdexcept>

#include "cli/exit_error.h"

namespace mp {
namespace {

std::string glfw_error() {
  const char* desc = nullptr;
  glfwGetError(&desc);
  return desc ? desc : "unknown GLFW error";
}

}  // namespace

GlfwSession::GlfwSession() {
  if (!glfwInit()) {
    // GLFW names the display it tried, which an empty DISPLAY leaves blank.
    const char* display = std::getenv("DISPLAY");
    const std::string why = display && !*display ? "DISPLAY is set but empty" : glfw_error();
    throw ExitError(2, "no display (" + why +
                           "); for an image without a window run: mandelpipe render --out "
                           "FILE.png");
  }
}

GlfwSession::~GlfwSession() {
  glfwTerminate();
}

std::optional<std::pair<int, int>> Window::screen_size() {
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  if (!mode || mode->width <= 0 || mode->height <= 0) return std::nullopt;
  return std::make_pair(mode->width, mode->height);
}

Window::Window(int width, int height, const char* title) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  window_ = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (!window_)
    throw ExitError(2, "cannot open a window with OpenGL 4.5 core (" + glfw_error() + ")");
  glfwMakeContextCurrent(window_);
  if (!gladLoadGL(glfwGetProcAddress)) {
    glfwDestroyWindow(window_);
    throw ExitError(2, "cannot load OpenGL 4.5 core functions");
  }
  // Installed before ImGui's backend, which chains to it.
  glfwSetWindowUserPointer(window_, this);
  glfwSetKeyCallback(window_, &Window::on_key);
}

void Window::on_key(GLFWwindow* w, int key, int, int action, int mods) {
  auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
  if (self && action != GLFW_RELEASE)
    self->key_presses_.push_back({key, mods, action == GLFW_REPEAT});
}

std::vector<KeyPress> Window::take_key_presses() {
  std::vector<KeyPress> keys;
  keys.swap(key_presses_);
  return keys;
}

Window::~Window() {
  glfwDestroyWindow(window_);
}

std::pair<int, int> Window::framebuffer_size() const {
  int w = 0, h = 0;
  glfwGetFramebufferSize(window_, &w, &h);
  return {w, h};
}

std::pair<int, int> Window::size() const {
  int w = 0, h = 0;
  glfwGetWindowSize(window_, &w, &h);
  return {w, h};
}

std::pair<int, int> Window::position() const {
  int x = 0, y = 0;
  glfwGetWindowPos(window_, &x, &y);
  return {x, y};
}

void Window::move_to(int x, int y) {
  glfwSetWindowPos(window_, x, y);
}

float Window::content_scale() const {
  float x = 1, y = 1;
  glfwGetWindowContentScale(window_, &x, &y);
  return x > 0 ? x : 1.0f;
}

void Window::set_vsync(bool on) {
  glfwSwapInterval(on ? 1 : 0);
}

}  // namespace mp
