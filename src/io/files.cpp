#include "io/files.h"

#include <stb_image_write.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace mp {
namespace fs = std::filesystem;

void check_writable(const fs::path& path) {
  if (path.empty()) throw std::runtime_error("cannot write '': empty file name");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    // A file where a folder should be is named as such, not as a folder that is missing.
    for (fs::path p = dir; p.has_relative_path(); p = p.parent_path())
      if (fs::exists(p, ec) && !fs::is_directory(p, ec))
        throw std::runtime_error("cannot write " + path.string() + ": " + p.string() +
                                 " is not a folder");
    throw std::runtime_error("cannot write " + path.string() + ": folder " + dir.string() +
                             " does not exist");
  }
  if (fs::is_directory(path, ec))
    throw std::runtime_error("cannot write " + path.string() + ": it is a folder");
  // Create (and remove) the temporary file the real write will use: a permission check alone
  // passes for root on read-only file systems.
  fs::path probe = path;
  probe += ".part-" + std::to_string(getpid());
  std::ofstream f(probe, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  f.close();
  fs::remove(probe, ec);
}

void write_file_atomic(const fs::path& path, const std::string& bytes) {
  fs::path tmp = path;
  tmp += ".part-" + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + path.string() + ": write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  }
}

std::string encode_png(int width, int height, const std::uint8_t* rgba) {
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size);
  };
  if (!stbi_write_png_to_func(sink, &out, width, height, 4, rgba, width * 4))
    throw std::runtime_error("PNG encoding failed");
  return out;
}

fs::path sidecar_path(const fs::path& png) {
  fs::path p = png;
  return p.replace_extension(".json");
}

fs::path config_dir() {
  fs::path base;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = fs::path(h) / ".config";
  else
    return {};
  std::error_code ec;
  fs::create_directories(base / "mandelpipe", ec);
  return ec ? fs::path() : base / "mandelpipe";
}

}  // namespace mp
