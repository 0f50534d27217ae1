#include "app/imgui_layer.h"

#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <optional>

#include "io/printable.h"
#include "io/settings.h"

namespace mp {

namespace {

// The font's size at UI scale 1: ImGui's 13 px default is too small to read from a few steps
// away; the UI size setting goes on from here.
constexpr float kFontPixels = 15.0f;

}  // namespace

ImGuiLayer::ImGuiLayer(GLFWwindow* window, float content_scale, float ui_scale,
                       std::string ini_path)
    : ini_path_(std::move(ini_path)), content_scale_(content_scale), ui_scale_(ui_scale) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  // The layout file is read and written here, not by ImGui: Debian's ImGui 1.86 reads past the
  // buffer of an empty file, and would open a FIFO and block, or replace a symlink.
  io.IniFilename = nullptr;
  if (!ini_path_.empty()) {
    std::string warning;
    const std::optional<std::string> text =
        read_state_file(ini_path_, &warning, kMaxLayoutFileBytes);
    if (!warning.empty())
      std::cerr << "mandelpipe: " << printable(warning) << " (left as it is)\n";
    else if (text && !text->empty())
      ImGui::LoadIniSettingsFromMemory(text->data(), text->size());
    save_ini_ = warning.empty();
  }
  apply_scale();
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  // Tab is the panel's key: ImGui's own use of it, moving the keyboard into the next text field,
  // left focus in "max iterations", where the next digit became the iteration limit.
  io.KeyMap[ImGuiKey_Tab] = -1;
  ImGui_ImplOpenGL3_Init("#version 450 core");
  merged_list_ = std::make_unique<ImDrawList>(ImGui::GetDrawListSharedData());
  merged_lists_[0] = merged_list_.get();
  merged_data_ = std::make_unique<ImDrawData>();
}

ImGuiLayer::~ImGuiLayer() {
  if (save_ini_) {
    try {
      std::size_t size = 0;
      const char* text = ImGui::SaveIniSettingsToMemory(&size);
      write_state_file(ini_path_, std::string(text, size));
    } catch (const std::exception& e) {
      std::cerr << "mandelpipe: window layout not saved: " << printable(e.what()) << "\n";
    }
  }
  merged_list_.reset();  // before the context whose shared data it points to
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
}

// The font rasterized at the scaled size rather than a small bitmap stretched, and every
// padding and spacing scaled from ImGui's defaults.
void ImGuiLayer::apply_scale() {
  const float scale = content_scale_ * ui_scale_;
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig font;
  font.SizePixels = std::round(kFontPixels * scale);
  io.Fonts->AddFontDefault(&font);
  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();
  ImGui::StyleColorsDark(&style);
  style.ScaleAllSizes(scale);
  applied_scale_ = ui_scale_;
}

void ImGuiLayer::begin_frame() {
  if (ui_scale_ != applied_scale_) {
    apply_scale();
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
}

void ImGuiLayer::end_frame() {
  ImGui::Render();
  ImGui_ImplOpenGL3_RenderDrawData(merged(ImGui::GetDrawData()));
}

// The GL backend uploads each window's list into the same two buffers, from their start: a
// second list in a frame overwrites data that draws still queued read, which the driver must
// wait for or work around. On an H200 the pipe overlay's window, a list of its own, added 23 us
// to the UI's GPU time; merged, 14 us, for a few us of copying here. Each command keeps its
// indices and gets its list's place in the merged buffers as offsets (the backend draws with a
// base vertex).
ImDrawData* ImGuiLayer::merged(ImDrawData* d) {
  if (d->CmdListsCount < 2 ||
      !(ImGui::GetIO().BackendFlags & ImGuiBackendFlags_RendererHasVtxOffset))
    return d;
  ImDrawList& m = *merged_list_;
  m.CmdBuffer.resize(0);
  m.IdxBuffer.resize(d->TotalIdxCount);
  m.VtxBuffer.resize(d->TotalVtxCount);
  unsigned vtx = 0, idx = 0;
  for (int n = 0; n < d->CmdListsCount; ++n) {
    const ImDrawList& l = *d->CmdLists[n];
    for (ImDrawCmd c : l.CmdBuffer) {
      c.VtxOffset += vtx;
      c.IdxOffset += idx;
      m.CmdBuffer.push_back(c);
    }
    if (l.VtxBuffer.Size)
      std::memcpy(m.VtxBuffer.Data + vtx, l.VtxBuffer.Data, l.VtxBuffer.size_in_bytes());
    if (l.IdxBuffer.Size)
      std::memcpy(m.IdxBuffer.Data + idx, l.IdxBuffer.Data, l.IdxBuffer.size_in_bytes());
    vtx += l.VtxBuffer.Size;
    idx += l.IdxBuffer.Size;
  }
  *merged_data_ = *d;
  merged_data_->CmdLists = merged_lists_;
  merged_data_->CmdListsCount = 1;
  return merged_data_.get();
}

}  // namespace mp
