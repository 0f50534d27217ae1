#include "gl/egl_context.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "gl/gl.h"
// After GLAD's GL header: GLAD's EGL loader.
#include <glad/egl.h>

namespace mp::gl {
namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t n = std::strlen(name);
  for (const char* p = list; (p = std::strstr(p, name)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

struct Candidate {
  EGLDisplay display;
  std::string what;
};

// Displays to try, best first.
std::vector<Candidate> candidate_displays() {
  std::vector<Candidate> out;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (eglQueryDevicesEXT && eglGetPlatformDisplayEXT &&
      has_extension(client, "EGL_EXT_platform_device")) {
    EGLint n = 0;
    eglQueryDevicesEXT(0, nullptr, &n);
    std::vector<EGLDeviceEXT> devices(n);
    if (n > 0 && eglQueryDevicesEXT(n, devices.data(), &n)) {
      std::vector<Candidate> others;
      for (EGLDeviceEXT d : devices) {
        const char* ext =
            eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(d, EGL_EXTENSIONS) : nullptr;
        EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, d, nullptr);
        if (dpy == EGL_NO_DISPLAY) continue;
        if (has_extension(ext, "EGL_NV_device_cuda"))
          out.push_back({dpy, "EGL device platform (CUDA device)"});
        else
          others.push_back({dpy, "EGL device platform"});
      }
      out.insert(out.end(), others.begin(), others.end());
    }
  }
  if (eglGetPlatformDisplayEXT && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    EGLDisplay dpy =
        eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (dpy != EGL_NO_DISPLAY) out.push_back({dpy, "EGL surfaceless platform"});
  }
  if (EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY); dpy != EGL_NO_DISPLAY)
    out.push_back({dpy, "EGL default display"});
  return out;
}

}  // namespace

EglContext::EglContext() {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    throw std::runtime_error("no EGL: libEGL.so.1 could not be loaded");
  std::string tried;
  for (const Candidate& c : candidate_displays()) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(c.display, &major, &minor)) {
      tried += c.what + ": eglInitialize failed; ";
      continue;
    }
    gladLoaderLoadEGL(c.display);  // display extensions are known only now
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                     EGL_PBUFFER_BIT,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT,
                                     EGL_RED_SIZE,
                                     8,
                                     EGL_GREEN_SIZE,
                                     8,
                                     EGL_BLUE_SIZE,
                                     8,
                                     EGL_ALPHA_SIZE,
                                     8,
                                     EGL_NONE};
    EGLConfig config;
    EGLint count = 0;
    if (!eglBindAPI(EGL_OPENGL_API) ||
        !eglChooseConfig(c.display, config_attribs, &config, 1, &count) || count == 0) {
      tried += c.what + ": no OpenGL pbuffer config; ";
      eglTerminate(c.display);
      continue;
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      4,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    EGLContext ctx = eglCreateContext(c.display, config, EGL_NO_CONTEXT, context_attribs);
    const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface surf =
        ctx ? eglCreatePbufferSurface(c.display, config, pbuffer_attribs) : EGL_NO_SURFACE;
    if (!ctx || !surf || !eglMakeCurrent(c.display, surf, surf, ctx) ||
        !gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
      tried += c.what + ": no GL 4.5 core context; ";
      if (surf) eglDestroySurface(c.display, surf);
      if (ctx) eglDestroyContext(c.display, ctx);
      eglTerminate(c.display);
      continue;
    }
    display_ = c.display;
    context_ = ctx;
    surface_ = surf;
    description_ = c.what + ", GL " + reinterpret_cast<const char*>(glGetString(GL_VERSION)) +
                   " on " + reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return;
  }
  throw std::runtime_error("no off-screen OpenGL 4.5 context through EGL (" +
                           (tried.empty() ? std::string("no EGL display") : tried) + ")");
}

EglContext::~EglContext() {
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroySurface(display_, surface_);
  eglDestroyContext(display_, context_);
  eglTerminate(display_);
  gladLoaderUnloadEGL();
}

}  // namespace mp::gl
