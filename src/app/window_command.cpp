#include "app/window_command.h"

#include <iostream>

#include "app/app.h"
#include "cli/exit_error.h"
#include "io/files.h"
#include "io/printable.h"

namespace mp {

int run_window(const WindowOptions& o) {
  // Quit as on Esc, so that a logout or `kill` keeps the window's settings.
  ask_to_quit_on_signals();
  for (const std::string& note : o.notes) std::cerr << "mandelpipe: " << printable(note) << "\n";
  if (!o.screenshot.empty()) {
    try {
      check_writable(o.screenshot);
    } catch (const std::exception& e) {
      throw ExitError(2, std::string("--screenshot: ") + e.what());
    }
  }
  if (!o.capture_dir.empty()) {
    try {
      check_writable(std::filesystem::path(o.capture_dir) / "capture.png");
    } catch (const std::exception& e) {
      throw ExitError(2, std::string("--capture-dir: ") + e.what());
    }
  }
  App app(o);
  return app.run();
}

}  // namespace mp
