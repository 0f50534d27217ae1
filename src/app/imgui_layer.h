// Dear ImGui bound to a GLFW window and its GL context, set up for the window's DPI.
#pragma once

#include <string>

struct GLFWwindow;

namespace mp {

class ImGuiLayer {
 public:
  // ini_path: where ImGui keeps window layout ("" disables it). scale: the content scale.
  ImGuiLayer(GLFWwindow* window, float scale, std::string ini_path);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  void begin_frame();
  void end_frame();  // draws into the current framebuffer

 private:
  std::string ini_path_;  // ImGui keeps the pointer: the string must outlive the context
};

}  // namespace mp
