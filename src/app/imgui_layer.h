// Dear ImGui bound to a GLFW window and its GL context, set up for the window's DPI.
#pragma once

#include <memory>
#include <string>

struct GLFWwindow;
struct ImDrawData;
struct ImDrawList;

namespace mp {

class ImGuiLayer {
 public:
  // ini_path: where ImGui keeps window layout ("" disables it), read here once and written at
  // exit by this class, not by ImGui (see the .cpp). content_scale: the display's;
  // ui_scale: the user's on top of it.
  ImGuiLayer(GLFWwindow* window, float content_scale, float ui_scale, std::string ini_path);
  ~ImGuiLayer();
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  // Takes effect at the next begin_frame: the font is rasterized anew at the new size.
  void set_ui_scale(float ui_scale) { ui_scale_ = ui_scale; }
  void begin_frame();
  void end_frame();  // draws into the current framebuffer

 private:
  ImDrawData* merged(ImDrawData* d);
  void apply_scale();  // font and style sizes for content_scale_ x ui_scale_

  std::string ini_path_;
  float content_scale_, ui_scale_, applied_scale_ = 0;
  bool save_ini_ = false;  // the layout file was absent or read: ours to write at exit
  // Every window's draw list copied into one, and the draw data that hands it to the backend.
  std::unique_ptr<ImDrawList> merged_list_;
  ImDrawList* merged_lists_[1] = {nullptr};
  std::unique_ptr<ImDrawData> merged_data_;
};

}  // namespace mp
